"""``softmix.identity_claim``: an identity of derived quantities, SymPy ``derived`` against ``stated``.

``derived(**symbols)`` builds the quantity from the definitions, ``stated(**symbols)`` is the statement;
both return a SymPy expression (or matrix) of the declared symbols.  The assumptions shape the symbols:

* ``"x > 0"``, ``"x >= 0"``, ``"x != 0"``, ``"x < 0"`` (a sign: the symbol is declared positive,
  nonnegative, ... so SymPy simplifies with it, e.g. ``sqrt(x**2) = x``; the random points respect it);
* ``softmix.Assumption(name, text, family=lambda s: {s["b"]: s["a"]})``: a relation, a substitution
  ``{symbol: expression}`` applied to the symbols before ``derived`` and ``stated`` see them.

The ladder:

1. **numeric** (``digits`` digits, at ``digits + 10``): both sides at ``points`` random rational points of the
   family (from ``ctx.stream("identity-points", i)``), compared by ``softmix.Residual(digits=)``; a point where
   they differ refutes, and the smallest such point (coordinates set to 1, -1, 2, 1/2, ... while it still
   fails) is the ``counterexample``; a point where a side is undefined is skipped;
2. **symbolic**: ``derived - stated`` simplified to 0 under the assumptions (``verified``); when SymPy
   cannot, the numeric agreement alone makes the claim ``confirmed``, never ``verified``;
3. **controls**: the stated side with a term dropped, a sign flipped, a factor 6/5 (each built only when it
   differs from the statement at a random point of the family; otherwise listed under
   ``controls_not_built``), and per declared assumption ``without:NAME`` (the symbol without its sign, or
   no substitution) -- refuted when the assumption is needed, a ``scope`` finding otherwise.
"""
from __future__ import annotations

import random
import re
from fractions import Fraction

import sympy as sp

from softmix.numerics.errors import InputError
from softmix.numerics.memo import remember
from softmix.theory.derivation import Derivation, simplify_zero

from .api import Part, outcome, part
from .assumptions import Assumption, control_id
from .registry import derivation_key
from .rules import Residual
from .statement_kinds import PERTURBATIONS, dropped_controls, params_type, perturb_expr, register_kind, statement_of

__all__ = ["identity_claim", "SIGNS"]

#: sign assumptions by operator: the SymPy assumption they declare
SIGNS = {">": "positive", ">=": "nonnegative", "!=": "nonzero", "<": "negative", "<=": "nonpositive"}
_SIGN = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*(>=|<=|!=|>|<)\s*0\s*$")
_SHRINK = [Fraction(1), Fraction(-1), Fraction(2), Fraction(-2), Fraction(1, 2), Fraction(-1, 2), Fraction(3),
           Fraction(1, 3), Fraction(0)]


class _Family:
    """The symbols of an identity and the assumptions that shape them."""

    def __init__(self, names, signs: dict, relations: tuple):
        self.names, self.signs, self.relations = names, signs, relations

    def namespace(self, drop: Assumption | None = None) -> dict:
        """{name: SymPy symbol or expression}: signs declared, relations substituted (``drop`` left out)."""
        syms = {}
        for n in self.names:
            a = self.signs.get(n)
            kind = a[1] if a is not None and (drop is None or a[0].name != drop.name) else "real"
            syms[n] = sp.Symbol(n, **{kind: True})
        ns = dict(syms)
        for a in self.relations:
            if drop is not None and a.name == drop.name:
                continue
            sub = a.family(dict(ns))
            ns = {k: sp.sympify(v).xreplace({sp.sympify(s): e for s, e in sub.items()}) for k, v in ns.items()}
        return ns

    def free(self, ns: dict) -> list:
        return sorted(set().union(*(sp.sympify(v).free_symbols for v in ns.values())), key=lambda s: s.name)


def _allowed(sym, v: Fraction) -> bool:
    return not ((sym.is_positive and v <= 0) or (sym.is_nonnegative and v < 0) or (sym.is_negative and v >= 0)
                or (sym.is_nonpositive and v > 0) or (sym.is_nonzero and v == 0))


def _random_point(rnd: random.Random, free) -> dict:
    point = {}
    for s in free:
        while True:
            v = Fraction(rnd.randint(1, 19), rnd.randint(1, 11)) * rnd.choice([-1, 1])
            if _allowed(s, v):
                break
        point[s] = v
    return point


def _evaluate(side, point: dict, dps: int):
    """The entries of ``side`` at ``point`` (SymPy numbers at ``dps`` digits), None where undefined."""
    vals = []
    for e in (list(side) if isinstance(side, sp.MatrixBase) else [side]):
        v = sp.N(sp.sympify(e).xreplace({s: sp.Rational(x.numerator, x.denominator) for s, x in point.items()}), dps)
        if not v.is_number or v.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or v.free_symbols:
            return None
        vals.append(v)
    return vals


def _compare(derived, stated, point: dict, rule: Residual) -> dict | None:
    d, s = _evaluate(derived, point, rule.dps), _evaluate(stated, point, rule.dps)
    if d is None or s is None:
        return None
    if len(d) != len(s):
        raise InputError(f"derived has {len(d)} entries and stated {len(s)}")
    res = max(abs(a - b) for a, b in zip(d, s))
    scale = max(abs(a) for a in d)
    row = rule.decide(sp.Float(res, rule.dps), sp.Float(scale, rule.dps))
    row["point"] = {str(k): str(v) for k, v in point.items()}
    return row


def _shrink(derived, stated, point: dict, rule: Residual) -> dict:
    """Greedy: each coordinate set to a simple value (1, -1, 2, 1/2, ...) allowed by its sign, while it fails."""
    point = dict(point)
    for s in list(point):
        for v in _SHRINK:
            if v == point[s] or not _allowed(s, v):
                continue
            row = _compare(derived, stated, {**point, s: v}, rule)
            if row is not None and row["passed"] is False:
                point[s] = v
                break
    return point


def _sides(derived_fn, stated_fn, ns: dict, where: str):
    d, s = derived_fn(**ns), stated_fn(**ns)
    d, s = (sp.Matrix(x) if isinstance(x, (list, tuple)) else x for x in (d, s))
    d, s = (x if isinstance(x, sp.MatrixBase) else sp.sympify(x) for x in (d, s))
    if isinstance(d, sp.MatrixBase) != isinstance(s, sp.MatrixBase) or (
            isinstance(d, sp.MatrixBase) and d.shape != s.shape):
        raise InputError(f"{where}: derived and stated must both be scalars or matrices of one shape")
    return d, s


def _proven(d, s) -> bool:
    """``d - s`` simplified to 0 (remembered in the run's memo)."""
    def make():
        diff = (sp.Matrix(d) - sp.Matrix(s)) if isinstance(d, sp.MatrixBase) else sp.sympify(d) - sp.sympify(s)
        if simplify_zero(diff):
            return True
        entries = list(diff) if isinstance(diff, sp.MatrixBase) else [diff]
        return all(sp.simplify(e) == 0 for e in entries)

    frozen = lambda e: sp.ImmutableMatrix(e) if isinstance(e, sp.MatrixBase) else sp.sympify(e)
    return remember("kind_identity.proven", (frozen(d), frozen(s)), make)


def _decide(d, s, ctx, p, purpose_key: str) -> tuple[Part, Part | None, dict | None, list]:
    rule = Residual(digits=p.digits)
    free = sorted(d.free_symbols | s.free_symbols, key=lambda x: x.name)
    rnd = random.Random(int(ctx.stream("identity-points", purpose_key).integers(2**32)))
    rows, skipped, failing = [], [], []
    for i in range(p.points):
        point = _random_point(rnd, free)
        row = _compare(d, s, point, rule)
        if row is None:
            skipped.append({"point": {str(k): str(v) for k, v in point.items()}, "reason": "a side is undefined"})
            continue
        rows.append({"point_index": i, **row})
        if row["passed"] is False:
            failing.append(point)
    num = part("numeric", rows, rule=rule)
    ce = None
    if failing:
        small = _shrink(d, s, min(failing, key=lambda pt: sum(abs(v.numerator) + v.denominator for v in pt.values())),
                        rule)
        srow = _compare(d, s, small, rule) or {}
        ce = {"point": {str(k): str(v) for k, v in small.items()}, "residual": srow.get("residual"),
              "inside_model": True}
        return num, None, ce, skipped
    proven = _proven(d, s)
    sym = Part("symbolic", "symbolic", "verified" if proven else "unproven",
               [{"status": "proven" if proven else "unproven",
                 "note": "derived - stated simplified to 0 under the assumptions" if proven else
                 "SymPy did not reduce derived - stated to 0: the numeric agreement alone decides (confirmed)"}],
               "derived - stated simplifies to 0 under the declared assumptions (proven)")
    return num, sym, ce, skipped


def _declare(id, symbols, assume):
    where = f"identity_claim {id}"
    names = symbols.split() if isinstance(symbols, str) else list(symbols or ())
    if not names or not all(isinstance(n, str) and n.isidentifier() for n in names) or len(set(names)) != len(names):
        raise InputError(f"{where}: symbols= names the variables, e.g. symbols=\"x y\" (distinct identifiers)")
    signs, relations, objects = {}, [], []
    for a in (assume if isinstance(assume, (list, tuple)) else (assume,)):
        if isinstance(a, str) and _SIGN.match(a):
            n, op = _SIGN.match(a).groups()  # type: ignore[union-attr]
            if n not in names or n in signs:
                raise InputError(f"{where}: assumption {a!r} names {n!r}, not a declared symbol (or twice)")
            obj = Assumption(f"{n}-{SIGNS[op]}", f"{n} {op} 0")
            signs[n] = (obj, SIGNS[op])
            objects.append(obj)
        elif isinstance(a, Assumption) and callable(a.family):
            relations.append(a)
            objects.append(a)
        else:
            raise InputError(f"{where}: an assumption is a sign \"x > 0\" (>, >=, !=, <, <=) or a "
                             f"softmix.Assumption(name, text, family=lambda s: {{s['b']: s['a']}}), got {a!r}")
    if len({a.name for a in objects}) != len(objects):
        raise InputError(f"{where}: an assumption is declared twice")
    return _Family(names, signs, tuple(relations)), tuple(objects)


def _controls(fam, derived, stated, objects, id):
    where = f"identity_claim {id}"
    ns = fam.namespace()
    try:
        d, s = _sides(derived, stated, ns, where)
        for a in objects:
            _sides(derived, stated, fam.namespace(drop=a), where)
    except InputError:
        raise
    except Exception as e:
        raise InputError(f"{where}: derived or stated failed on the declared symbols: {type(e).__name__}: "
                         f"{e}") from None
    controls, not_built = {}, {}
    rule = Residual(digits=20)
    rnd = random.Random(1)
    free = sorted(d.free_symbols | s.free_symbols, key=lambda x: x.name)
    for name, text in PERTURBATIONS.items():
        pert = perturb_expr(s, name)
        rows = [_compare(s, pert, _random_point(rnd, free), rule) for _ in range(3)]
        if any(r is not None and r["passed"] is False for r in rows):
            controls[name] = text
        else:
            not_built[name] = "cannot differ from the statement (equal at random points of the family)"
    controls.update(dropped_controls(objects, "the symbols without its sign or relation, at points of either sign"))
    return controls, not_built


def identity_claim(id, *, derived, stated, symbols, assume=(), title: str = "", source: str = "", points: int = 8,
                   digits: int = 30, register: bool = True):
    """Register a claim that ``derived(**symbols) == stated(**symbols)`` as an identity of SymPy expressions
    (or matrices) of the declared ``symbols`` under the assumptions ``assume`` (signs ``"x > 0"`` or
    relations ``softmix.Assumption(..., family=lambda s: {s["b"]: s["a"]})``); the module docstring has the
    ladder and the controls.  ``points`` random rational points, ``digits`` digits of agreement.

    Returns the :class:`~softmix.checks.registry.Claim` (``register=False``: not registered).  Bad
    declarations (no symbols, an unknown assumption, sides that fail on the symbols) raise InputError."""
    where = f"identity_claim {id}"
    if not callable(derived) or not callable(stated):
        raise InputError(f"{where}: derived and stated are functions of the symbols (by keyword) returning SymPy")
    if isinstance(points, bool) or not isinstance(points, int) or points < 1 or not isinstance(digits, int) \
            or digits < 1:
        raise InputError(f"{where}: points and digits must be positive integers")
    fam, objects = _declare(id, symbols, assume)
    controls, not_built = _controls(fam, derived, stated, objects, id)
    dropped = {control_id(a.name): a for a in objects}

    def check(p, ctx):
        drop = dropped.get(ctx.variant)
        ns = fam.namespace(drop=drop)
        d, s = _sides(derived, stated, ns, where)
        if ctx.variant in PERTURBATIONS:
            s = perturb_expr(s, ctx.variant)
        else:  # what softmix show prints (derivations= below) is decided here, by this kind's own route
            ctx.decided.add(derivation_key(Derivation(name=id, source=source or id, derived=d, stated=s)))
        num, sym, ce, skipped = _decide(d, s, ctx, p, drop.name if drop is not None else "")
        extra: dict = {"symbols": {k: sp.sstr(v) for k, v in ns.items()},
                       "assumptions": [a.name for a in objects if a is not drop]}
        if not_built:
            extra["controls_not_built"] = dict(not_built)
        if drop is not None:
            extra["assumption_dropped"] = {"assumption": drop.name, "text": drop.text}
        if skipped:
            extra["skipped_points"] = skipped
        if ce is not None:
            extra["counterexample"] = ce
        return outcome(*([sym] if sym is not None else []), num, **extra)

    Params = params_type(id, "identity", [("points", int, points), ("digits", int, digits)], _check_params)
    prose = [f"{n} {dict((v, k) for k, v in SIGNS.items())[k]} 0" for n, (_, k) in fam.signs.items()]
    prose += [a.describe() for a in fam.relations]
    ns0 = fam.namespace()
    return register_kind(
        id=id, check=check, Params=Params, controls=controls, prose=prose, title=title, source=source,
        statement=statement_of(stated, f"{getattr(derived, '__name__', 'derived')} = "
                                       f"{getattr(stated, '__name__', 'stated')} (an identity of SymPy expressions)"),
        kind="symbolic", register=register, stated_fn=stated, profiles={"full": {"points": 3 * points}},
        note="an identity of symbols: decided at random rational points of the family (from the seed) and by "
             "simplification, not on drawn configurations",
        derivations=lambda: [Derivation(name=id, source=source or id, derived=_sides(derived, stated, ns0, where)[0],
                                        stated=_sides(derived, stated, ns0, where)[1], assumptions=tuple(prose))])


def _check_params(p) -> None:
    if p.points < 1 or p.digits < 1:
        raise ValueError("points and digits must be positive integers")
