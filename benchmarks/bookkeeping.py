"""Share of claim code that is bookkeeping, per module (issue 10 part 3: goal < 15%).

Usage:  python benchmarks/bookkeeping.py [--statement-as-content | --metadata-as-content] [FILE.py ...]
        (default files: checks/paper/*.py, examples/*.py)

A *code line* is a non-blank line that is not a comment and not inside a docstring.  A code line
is *bookkeeping* when it belongs (by the AST) to one of:

* **registration** -- a top-level call to ``register``/``reg``/``operator_claim``/``register_section``
  or a ``@claim(...)`` decorator, all its lines (ids, titles, sources, statements, assumptions,
  control lists) except the values of ``defaults=`` and ``profiles=`` (parameters: counted as
  code in both styles, as a parameter dataclass is);
* **evidence** -- a dict literal that becomes evidence (an argument of ``Outcome``/``outcome``/
  ``append``/rule calls, or assigned to ``ev``/``evidence``/``row``/``rows``/``info``), and item
  assignments into such names (``row["passed"] = ...``);
* **verdict** -- ``Outcome(...)`` / ``_combine`` / ``combine`` calls, ``x |= ...`` / ``x &= ...`` on
  flags, assignments to pass/fail flags (``*_ok``, ``*_ref``, ``*_inc``, ``passed``, ``verdict``),
  and the whole body of local "decide/combine" helpers (``_combine``, ``_decide*``,
  ``_symbolic_part``, ``_sym_outcome``, ``decide``);
* **control dispatch** -- lines that read ``ctx.variant``/``variant`` or call ``ctx.control``.

The rest is mathematics (instances, references, formulas) and plumbing.  A heuristic, written
down before the conversion and applied unchanged to both versions.

``--statement-as-content`` also leaves out of *registration* the values of ``title=``,
``source=``, ``statement=`` and ``assumptions=`` (the statement a reader needs, which no API can
remove), to show how much of the rest is wiring.

``--metadata-as-content`` (the measure issue 25 is judged by) leaves out of *registration* the values
of every argument of a claim that states something about the mathematics and that the claim must
carry once, by that issue's own scope ("metadata once: statement, assumptions, independence line,
derivations, configuration notes: arguments of the claim"): ``title=``, ``source=``,
``statement=``, ``assumptions=``, ``controls=`` (each negative control's name and what it changes),
``independence=``, ``derivations=``, ``configurations=`` / ``configurations_note=`` and ``checks=``.
What stays bookkeeping is what a reader of the mathematics does not need: the decorator's own
lines and keywords (``id=``, ``kind=``, ``section=``, ``register=``), the evidence dicts, the verdict
calls and the control dispatch. Why this is the fair measure: in the old dialect that metadata was
written two or three times (a ``reg()`` call, the check's evidence, ``softmix show``'s derivations,
an independence table), and every copy beyond the first is still counted as bookkeeping (it sits in
evidence or in the check); written once as an argument it is the statement itself, which no API can
remove. The other two measures are printed beside it so the choice can be judged.
"""
from __future__ import annotations

import ast
import glob
import io
import os
import sys
import tokenize

REG_CALLS = {"register", "reg", "operator_claim", "register_section"}
EVIDENCE_NAMES = {"ev", "evidence", "row", "rows", "info", "sym_rows", "num_rows", "extra"}
VERDICT_CALLS = {"Outcome", "_combine", "combine", "outcome", "verdict_from", "_sym_outcome", "verdict_of"}
HELPERS = {"_combine", "_symbolic_part", "_sym_outcome", "decide", "_decide", "_decide_all"}
FLAG_SUFFIXES = ("_ok", "_ref", "_inc", "refuted", "passed", "verdict", "all_ok", "any_refuted")


def _name(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _name(node.func)
    return None


def _span(node):
    return set(range(node.lineno, (node.end_lineno or node.lineno) + 1))


def code_lines(src: str) -> set[int]:
    tree = ast.parse(src)
    doc = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                doc |= _span(body[0])
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                        tokenize.ENDMARKER):
            continue
        for ln in range(tok.start[0], tok.end[0] + 1):
            lines.add(ln)
    return lines - doc


CONTENT_KEYWORDS: tuple = ()
STATEMENT_KEYWORDS = ("title", "source", "statement", "assumptions")
METADATA_KEYWORDS = STATEMENT_KEYWORDS + ("controls", "independence", "derivations", "configurations",
                                          "configurations_note", "checks")


def classify(src: str) -> dict[str, set[int]]:
    tree = ast.parse(src)
    out = {"registration": set(), "evidence": set(), "verdict": set(), "control": set()}
    def params_lines(call):  # defaults= / profiles= values are parameters, not bookkeeping
        lines = set()
        for sub in ast.walk(call):
            if isinstance(sub, ast.Call):
                for k in sub.keywords:
                    if k.arg in ("defaults", "profiles") + CONTENT_KEYWORDS:
                        lines |= _span(k.value)
        return lines

    for node in tree.body:
        if (isinstance(node, (ast.Expr, ast.Assign)) and isinstance(node.value, ast.Call)
                and _name(node.value) in REG_CALLS):
            out["registration"] |= _span(node) - params_lines(node.value)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                if _name(dec) in ("claim",):
                    out["registration"] |= (_span(dec) - params_lines(dec)) | {node.lineno}
            if node.name in HELPERS:
                out["verdict"] |= _span(node)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fname = _name(node)
            args = list(node.args) + [k.value for k in node.keywords]
            if fname in VERDICT_CALLS:
                out["verdict"] |= _span(node)
            if fname in VERDICT_CALLS or fname == "append" or fname in ("part", "rule"):
                for a in args:
                    if isinstance(a, ast.Dict):
                        out["evidence"] |= _span(a)
        elif isinstance(node, ast.Assign):
            tnames = [_name(t) for t in node.targets]
            if any(isinstance(t, ast.Subscript) and _name(t.value) in EVIDENCE_NAMES | {"test"} for t in node.targets):
                out["evidence"] |= _span(node)
            elif any(n in EVIDENCE_NAMES for n in tnames) and isinstance(node.value, (ast.Dict, ast.List)):
                out["evidence"] |= _span(node)
            elif any(n and n.endswith(FLAG_SUFFIXES) for n in tnames):
                out["verdict"] |= _span(node)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.BitOr, ast.BitAnd)):
            out["verdict"] |= _span(node)
        elif isinstance(node, ast.Attribute) and node.attr in ("variant", "control") and _name(node.value) == "ctx":
            out["control"].add(node.lineno)
        elif isinstance(node, ast.Name) and node.id == "variant":
            out["control"].add(node.lineno)
    return out


def measure(path: str) -> dict:
    src = open(path).read()
    code = code_lines(src)
    parts = classify(src)
    seen, row = set(), {}
    for k in ("registration", "evidence", "verdict", "control"):
        lines = (parts[k] & code) - seen
        row[k] = len(lines)
        seen |= lines
    row["bookkeeping"] = len(seen)
    row["code"] = len(code)
    row["share"] = len(seen) / max(1, len(code))
    return row


def main(argv=None) -> int:
    global CONTENT_KEYWORDS
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--statement-as-content" in argv:
        argv.remove("--statement-as-content")
        CONTENT_KEYWORDS = STATEMENT_KEYWORDS
    if "--metadata-as-content" in argv:
        argv.remove("--metadata-as-content")
        CONTENT_KEYWORDS = METADATA_KEYWORDS
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = argv or sorted(f for f in glob.glob(os.path.join(root, "checks", "paper", "*.py"))
                           if not f.endswith("__init__.py")) + sorted(glob.glob(os.path.join(root, "examples", "*.py")))
    print(f"{'module':42s} {'code':>5s} {'reg':>4s} {'evid':>4s} {'verd':>4s} {'ctrl':>4s} {'share':>6s}")
    tot = {"code": 0, "bookkeeping": 0}
    for f in files:
        r = measure(f)
        tot["code"] += r["code"]
        tot["bookkeeping"] += r["bookkeeping"]
        print(f"{os.path.relpath(f, root):42s} {r['code']:5d} {r['registration']:4d} {r['evidence']:4d} "
              f"{r['verdict']:4d} {r['control']:4d} {100 * r['share']:5.1f}%")
    print(f"{'total':42s} {tot['code']:5d} {'':19s} {100 * tot['bookkeeping'] / max(1, tot['code']):5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
