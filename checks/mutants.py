"""Mutants nobody chose: mechanical, AST-based mutations of the library (``theory/``, ``numerics/``)
or of the engine (``checks/*.py``).

Every expression node of every module is offered to a fixed set of operators; each operator
returns a replacement for that node's source segment (``ast.unparse`` of the mutated node, in
parentheses), so one mutant changes one expression and nothing else.  Operators:

========== ==============================================================================
sign       ``+`` <-> ``-`` in a binary operation; unary minus removed
const      a float literal times 2 and times 1/2; ``sp.Rational(p, q)`` times 2 and times 1/2
int        an integer literal +1 and -1 (and times 2 when it is at least 2)
index      an integer subscript +-1; a name subscript ``x[i]`` -> ``x[i + 1]`` / ``x[i - 1]``
transpose  ``X.T`` -> ``X``; ``X`` -> ``X.T`` for a capitalised name in a product (a matrix by
           this code's naming convention)
swap       the first two positional arguments of a call with two or more exchanged
drop       a term dropped from a sum or difference (``a + b`` -> ``a`` / ``b``, ``a - b`` -> ``a``);
           a factor dropped from a product (``a * b`` -> ``a`` / ``b``)
compare    ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``
bool       ``and`` <-> ``or``, ``not x`` -> ``x``, ``True`` <-> ``False``
========== ==============================================================================

Docstrings, other strings, ``__all__``, decorators and type annotations are never mutated.  A
candidate whose source does not compile, or that equals the original or another candidate
textually, is dropped (compilation is checked when a mutant is sampled).  The population is sorted
by (file, line, column, operator, text) and :func:`sample_mutants` draws from it with ``random.Random(seed)``: same
seed, same sample. What is exact: the enumeration and the sample are deterministic functions of the sources and the
seed.  Nothing here decides whether a mutant matters (see :mod:`softmix.checks.mutation`).
"""
from __future__ import annotations

import ast
import hashlib
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = ["Mutant", "OPERATORS", "mutants_of_source", "generate_mutants", "sample_mutants",
           "apply_mutant", "compiles", "sources_hash", "MUTATED_DIRS", "ENGINE_DIR", "ENGINE_MODULES", "TOOL_FILES",
           "TARGETS", "target_of"]

#: the folders whose modules are mutated by the ``library`` target (today's default)
MUTATED_DIRS = ("theory", "numerics")
#: the folder of the engine target: ``checks/*.py`` (not ``checks/paper/``, the paper's claim library)
ENGINE_DIR = "checks"
#: The engine target: the modules of ``checks/`` that turn a claim into a verdict and an exit code:
#: the rules and fits, the verdict lattice, the configurations drawn for a
#: claim, the parameters, the runner, the claim-writing API and the registry, the operator
#: front-end (``operator*``), the declared assumptions (``assumption*``) and the Monte Carlo
#: verdicts.  Left out: the mutation tool itself (its driver and kill rule run from the patched
#: copy, so a mutant of them would change the instrument that judges it), the engine controls (the
#: instrument of the stage), and the plumbing around a verdict (command lines, reports, displays,
#: the pool, checkpoints, hypothesis strategies, the pytest plugin), whose faults are the tests'.
ENGINE_MODULES = ("rules", "fits", "verdicts", "configs", "configurations", "params", "runner", "api",
                  "operator*", "assumption*", "registry", "mc_verdict")
#: the mutation tool's own files: never mutated, and left out of the hashes that key its caches (editing the
#: tool changes neither what a claim computes nor which test executes which engine line)
TOOL_FILES = frozenset({"mutants.py", "mutation.py", "mutation_driver.py", "mutation_engine.py", "mutation_faults.py",
                        "cli_mutation.py"})
#: ``library`` = theory + numerics (the default); ``engine`` = checks/*.py; ``all`` = both
TARGETS = ("library", "engine", "all")
OPERATORS = ("sign", "const", "int", "index", "transpose", "swap", "drop", "compare", "bool")


@dataclass(frozen=True)
class Mutant:
    """One mutation: ``path`` (relative to the source root), the 1-based ``line`` and the
    innermost enclosing statement's first line ``stmt_line`` (what coverage reports), the byte
    span replaced, the ``original`` and ``mutated`` text, and the enclosing function's
    qualified name ``function`` ('' at module level)."""
    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    operator: str
    original: str
    mutated: str
    stmt_line: int
    function: str
    def_line: int = 0  # the enclosing function's ``def`` line (0 at module level)

    @property
    def id(self) -> str:
        h = hashlib.sha1(f"{self.path}:{self.line}:{self.col}:{self.end_line}:{self.end_col}:{self.mutated}"
                         .encode()).hexdigest()[:8]
        return f"{self.path}:{self.line}:{self.operator}:{h}"

    def as_dict(self) -> dict:
        d = asdict(self)
        d["id"] = self.id
        return d


def _seg(node) -> str:
    return ast.unparse(node)


def _paren(text: str) -> str:
    return f"({text})"


def _is_rational_call(node) -> bool:
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
    return (name == "Rational" and len(node.args) == 2 and not node.keywords
            and all(isinstance(a, ast.Constant) and type(a.value) is int for a in node.args))


def _matrixish(node) -> bool:
    return isinstance(node, ast.Name) and node.id[:1].isupper() and node.id not in ("True", "False", "None")


_CMP_FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq}


def _candidates(node, parent, in_index: bool):
    """(operator, replacement AST or text) pairs for one node."""
    import copy

    out: list[tuple[str, Any]] = []
    n: Any  # the mutated copy: a node of the same kind as ``node``
    op: Any
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, (ast.Add, ast.Sub)):
            n = copy.deepcopy(node)
            n.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            out.append(("sign", n))
            out.append(("drop", node.left))
            if isinstance(node.op, ast.Add):
                out.append(("drop", node.right))
        elif isinstance(node.op, ast.Mult):
            out.append(("drop", node.left))
            out.append(("drop", node.right))
        if isinstance(node.op, (ast.Mult, ast.MatMult)):
            for side in ("left", "right"):
                operand = getattr(node, side)
                if _matrixish(operand):
                    n = copy.deepcopy(node)
                    setattr(n, side, ast.Attribute(value=copy.deepcopy(operand), attr="T", ctx=ast.Load()))
                    out.append(("transpose", n))
    elif isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.USub):
            out.append(("sign", node.operand))
        elif isinstance(node.op, ast.Not):
            out.append(("bool", node.operand))
    elif isinstance(node, ast.BoolOp):
        n = copy.deepcopy(node)
        n.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        out.append(("bool", n))
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _CMP_FLIP:
                n = copy.deepcopy(node)
                n.ops[i] = _CMP_FLIP[type(op)]()
                out.append(("compare", n))
    elif isinstance(node, ast.Constant):
        v = node.value
        if type(v) is bool:
            out.append(("bool", ast.Constant(not v)))
        elif type(v) is int:
            op = "index" if in_index else "int"
            for w in {v + 1, v - 1} | ({2 * v} if abs(v) >= 2 else set()):
                out.append((op, ast.Constant(w)))
        elif type(v) is float and v != 0.0:
            out.append(("const", ast.Constant(v * 2)))
            out.append(("const", ast.Constant(v / 2)))
    elif isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
        out.append(("transpose", node.value))
    elif isinstance(node, ast.Call):
        if _is_rational_call(node):
            p, q = node.args[0].value, node.args[1].value  # type: ignore[attr-defined]  # two constants
            for a, b in ((2 * p, q), (p, 2 * q)):
                n = copy.deepcopy(node)
                n.args = [ast.Constant(a), ast.Constant(b)]
                out.append(("const", n))
        pos = node.args
        if len(pos) >= 2 and not any(isinstance(a, ast.Starred) for a in pos[:2]) \
                and _seg(pos[0]) != _seg(pos[1]):
            n = copy.deepcopy(node)
            n.args[0], n.args[1] = n.args[1], n.args[0]
            out.append(("swap", n))
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name):
        for op in (ast.Add(), ast.Sub()):
            n = copy.deepcopy(node)
            n.slice = ast.BinOp(left=n.slice, op=op, right=ast.Constant(1))
            out.append(("index", n))
    return out


class _Walker:
    def __init__(self, tree):
        self.found = []  # (node, operator, replacement, stmt, function, def_line)
        self._visit(tree, None, None, "", 0, False, [])

    def _visit(self, node, parent, stmt, func, def_line, in_index, qual):
        if isinstance(node, ast.stmt):
            stmt = node
        # never mutate: docstrings, __all__, decorators, annotations
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            q = qual + [node.name]
            if not isinstance(node, ast.ClassDef):
                func, def_line = (func or ".".join(q)), (def_line or node.lineno)
                # defaults belong to the definition (evaluated once, when the module is imported)
                for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                    self._visit(d, node, stmt, func, def_line, False, q)
            else:
                for b in node.bases:
                    self._visit(b, node, stmt, func, def_line, False, q)
            for s in node.body:
                self._visit(s, node, stmt, func, def_line, False, q)
            return
        if isinstance(node, (ast.AnnAssign,)):
            if node.value is not None:
                self._visit(node.value, node, stmt, func, def_line, False, qual)
            return
        if isinstance(node, ast.expr) and hasattr(node, "lineno"):
            for op, rep in _candidates(node, parent, in_index):
                self.found.append((node, op, rep, stmt, func, def_line))
        for field, value in ast.iter_fields(node):
            kids = value if isinstance(value, list) else [value]
            for k in kids:
                if isinstance(k, ast.AST):
                    idx = in_index or (isinstance(node, ast.Subscript) and field == "slice")
                    if isinstance(node, ast.Call) and k is node.func:
                        idx = False
                    self._visit(k, node, stmt, func, def_line, idx, qual)


def _line_offsets(src: bytes):
    offs, pos = [0], 0
    for line in src.splitlines(keepends=True):
        pos += len(line)
        offs.append(pos)
    return offs


def mutants_of_source(text: str, path: str = "<src>") -> list[Mutant]:
    """All mutants of one module's source ``text`` (deterministic order)."""
    tree = ast.parse(text)
    src = text.encode()
    offs = _line_offsets(src)
    seen, out = set(), []
    for node, op, rep, stmt, func, def_line in _Walker(tree).found:
        a = offs[node.lineno - 1] + node.col_offset
        b = offs[node.end_lineno - 1] + node.end_col_offset
        original = src[a:b].decode()
        text_new = rep if isinstance(rep, str) else _seg(rep)
        if text_new == _seg(node) or (a, b, text_new) in seen:
            continue
        seen.add((a, b, text_new))
        out.append(Mutant(path, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, op,
                          original, _paren(text_new), stmt.lineno if stmt is not None else node.lineno, func,
                          def_line))
    out.sort(key=lambda m: (m.path, m.line, m.col, m.operator, m.end_line, m.end_col, m.mutated))
    return out


def _engine_module(name: str) -> bool:
    import fnmatch

    return name.endswith(".py") and any(fnmatch.fnmatchcase(name[:-3], pat) for pat in ENGINE_MODULES)


def _module_files(root: Path, target: str = "library") -> list[Path]:
    files = []
    if target in ("library", "all"):
        for d in MUTATED_DIRS:
            files += sorted(p for p in (root / d).glob("*.py") if p.name != "__init__.py")
    if target in ("engine", "all"):
        files += sorted(p for p in (root / ENGINE_DIR).glob("*.py") if _engine_module(p.name))
    return files


def target_of(path: str) -> str:
    """``"engine"`` for a mutant of ``checks/*.py``, ``"library"`` for theory/ and numerics/."""
    return "engine" if path.split("/")[0] == ENGINE_DIR else "library"


def generate_mutants(root: Path, target: str = "library") -> list[Mutant]:
    """Every mutant of every module of the ``target`` (:data:`TARGETS`) under ``root``: ``library``
    (``theory/`` and ``numerics/``, the default), ``engine`` (the modules of ``checks/`` named by
    :data:`ENGINE_MODULES`) or ``all``."""
    if target not in TARGETS:
        raise ValueError(f"unknown mutation target {target!r} (one of {', '.join(TARGETS)})")
    out = []
    for p in _module_files(root, target):
        out += mutants_of_source(p.read_text(), p.relative_to(root).as_posix())
    return out


def compiles(m: Mutant, root: Path) -> bool:
    """Whether the mutated module still compiles (checked lazily: parsing every candidate of
    every module would dominate the generation time)."""
    src = (root / m.path).read_bytes()
    offs = _line_offsets(src)
    a, b = offs[m.line - 1] + m.col, offs[m.end_line - 1] + m.end_col
    try:
        compile(src[:a] + m.mutated.encode() + src[b:], m.path, "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def sample_mutants(mutants: list[Mutant], n: int, seed: int, root: Path | None = None) -> list[Mutant]:
    """``n`` mutants drawn without replacement in the order of a ``random.Random(seed)``
    permutation of the population, skipping those that do not compile when ``root`` is given;
    returned in population order.  Same population and seed, same sample."""
    order = random.Random(seed).sample(range(len(mutants)), len(mutants))
    idx: list[int] = []
    for i in order:
        if len(idx) >= n:
            break
        if root is None or compiles(mutants[i], root):
            idx.append(i)
    return [mutants[i] for i in sorted(idx)]


def apply_mutant(m: Mutant, root: Path) -> None:
    """Rewrite ``root / m.path`` with the mutant's replacement (the file must be the original)."""
    p = root / m.path
    src = p.read_bytes()
    offs = _line_offsets(src)
    a = offs[m.line - 1] + m.col
    b = offs[m.end_line - 1] + m.end_col
    if src[a:b].decode() != m.original:
        raise ValueError(f"mutant {m.id}: source changed since the mutant was generated")
    p.write_bytes(src[:a] + m.mutated.encode() + src[b:])


#: engine files that do not change what a claim computes (the mutation machinery itself, the CLI,
#: reports): editing them keeps the coverage map valid
_HASH_SKIP = {*TOOL_FILES, "cli.py", "report.py", "schema.py", "distributed.py"}


def sources_hash(root: Path, dirs=("softmix", "theory", "numerics", "checks")) -> str:
    """SHA-1 over the Python sources that decide a claim's result (what the coverage map is keyed
    by): the facade, ``theory/``, ``numerics/``, the engine's registry/runner/rules and the paper
    library."""
    h = hashlib.sha1()
    for d in dirs:
        for p in sorted((root / d).rglob("*.py")):
            if "__pycache__" in p.parts or (p.parent.name == "checks" and p.name in _HASH_SKIP):
                continue
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()
