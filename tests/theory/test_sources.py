"""Every source a user is shown -- a derivation's (``softmix show``) and a claim's -- points at something
they can open: a numbered statement, display, section or appendix of a paper, or a file of ``docs/`` that
exists (and, when a section sign is given, a section that exists there).  Not an internal issue number,
not the unshipped notes, not a bare "derived here".

The derivation sources are read from theory/'s source text (each ``Derivation(...)`` call's source
expression, evaluated from the string constants it is built of), so a derivation that is never built by a
quick test is checked too, and a mutant that swaps a derivation's name and source fails here."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATEMENT = re.compile(r"\b(Props?\.|Lemmas?|Thm|Theorem|Cor\.|Corollary|Remarks?|Def\.|Assumption|eqs?\.|Sec\.|"
                       r"App\.|Appendix)\s*\(?[A-C]?\.?\d")
DOC = re.compile(r"docs/([\w-]+\.md)(?:\s*§(\d+)(?:-(\d+))?)?")
FORBIDDEN = re.compile(r"\bissues? \d+|notes/|derived here", re.I)


def citable(text: str) -> str | None:
    """Why ``text`` does not point at something a user can open (None when it does).

    >>> citable("Gabet-Boursier-Boyer 2026, App. B.4 (proof of Lemma B.16)") is None
    True
    >>> citable("docs/finite-prompt.md §4 (beyond the paper)") is None
    True
    >>> citable("issue 13 (derived here)")
    'names an internal issue, the unshipped notes or "derived here"'
    >>> citable("Gaussian query average of exp(quadratic)")
    'names neither a statement of a paper nor a file of docs/'
    """
    if FORBIDDEN.search(text):
        return 'names an internal issue, the unshipped notes or "derived here"'
    docs = list(DOC.finditer(text))
    for m in docs:
        path = ROOT / "docs" / m.group(1)
        if not path.is_file():
            return f"docs/{m.group(1)} does not exist"
        heads = set(re.findall(r"^## (\d+)\.", path.read_text(encoding="utf-8"), re.M))
        for sec in filter(None, m.group(2, 3)):
            if sec not in heads:
                return f"docs/{m.group(1)} has no section {sec}"
    if not docs and not STATEMENT.search(text):
        return "names neither a statement of a paper nor a file of docs/"
    return None


def _constants(nodes, base: dict) -> dict:
    """name -> value of the simple string assignments among ``nodes`` (f-strings over ``base`` and earlier ones)."""
    env = dict(base)
    for node in nodes:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        pairs = list(zip(target.elts, value.elts)) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
            and len(target.elts) == len(value.elts) else [(target, value)]
        for name, expr in pairs:
            if not isinstance(name, ast.Name):
                continue
            try:
                v = eval(compile(ast.Expression(expr), "<source>", "eval"), {"__builtins__": {}}, dict(env))
            except Exception:
                continue
            if isinstance(v, str):
                env[name.id] = v
    return env


def _module_constants(path: Path, _memo: dict = {}) -> dict:  # noqa: B006 -- a memo over theory's files
    """The string constants of a theory/ module, with those it imports from its siblings."""
    if path not in _memo:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        base = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                sibling = path.parent / f"{node.module}.py"
                if sibling.is_file():
                    theirs = _module_constants(sibling)
                    base.update({a.asname or a.name: theirs[a.name] for a in node.names if a.name in theirs})
        _memo[path] = _constants(tree.body, base)
    return _memo[path]


def _derivation_sources():
    """(place, source text or None when it cannot be evaluated) of every Derivation(...) call in theory/."""
    out = []
    for path in sorted((ROOT / "theory").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _module_constants(path)
        functions = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        scopes = [(tree, module)] + [(f, _constants(ast.walk(f), module)) for f in functions]
        seen = set()
        for scope, env in reversed(scopes):  # innermost scope first: a function's own src wins
            for node in ast.walk(scope):
                if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Derivation"):
                    continue
                if id(node) in seen:
                    continue
                seen.add(id(node))
                src = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords
                                                                    if k.arg == "source"), None)
                try:
                    text = eval(compile(ast.Expression(src), "<source>", "eval"), {"__builtins__": {}}, dict(env))
                except Exception:
                    text = None
                out.append((f"{path.relative_to(ROOT)}:{node.lineno}", text if isinstance(text, str) else None))
    return out


def test_the_source_rule_accepts_statements_and_docs_and_refuses_the_rest():
    assert citable("Boursier-Boyer 2026, Prop. 3.1 at L = 1 (docs/findings.md)") is None
    assert citable("Zhang-Frei-Bartlett 2024, Thm 4.1 (docs/findings.md)") is None
    assert citable("docs/finite-prompt.md §4-5") is None
    assert citable("docs/finite-prompt.md §99") == "docs/finite-prompt.md has no section 99"
    assert citable("docs/nowhere.md") == "docs/nowhere.md does not exist"
    assert citable("notes/finite-prompt.md specialised") is not None
    assert citable("Zhang-Frei-Bartlett 2024") is not None


def test_the_scan_finds_theorys_derivations():
    found = _derivation_sources()
    assert len(found) > 150  # every module of theory/ builds Derivations; a scan that sees few is broken
    assert any(place.startswith("theory/steps_b5.py") for place, _ in found)


@pytest.mark.parametrize("place,text", _derivation_sources(), ids=lambda x: x if isinstance(x, str) else "")
def test_each_derivation_cites_what_a_user_can_open(place, text):
    assert text is not None, f"{place}: the source is not built from string constants; cite it literally"
    assert citable(text) is None, f"{place}: {text!r} {citable(text)}"


def test_each_claim_cites_what_a_user_can_open():
    from softmix.checks import registry

    registry.load_all()
    # the library's claims (other tests register claims of their own in the same process)
    ours = [c for c in registry.REGISTRY.values()
            if getattr(c.check, "__module__", "").startswith("softmix.checks.paper.")]
    assert len(ours) >= 100
    bad = {c.id: (c.source, citable(c.source)) for c in ours if citable(c.source)}
    assert not bad
