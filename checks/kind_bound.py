"""``softmix.bound_claim``: an inequality ``lhs <= rhs`` on drawn points, certified on a box where it applies.

``lhs(**values, m=...)`` and ``rhs(**values, m=...)`` compute the two sides from the point's values with the
functions of ``m`` (``m.log``, ``m.sqrt``, ``m.exp``, ...): ``m`` is ``mpmath.mp`` for the high-precision
evaluation and ``mpmath.iv`` (interval arithmetic) for the certificate; a side that does not take ``m`` is
evaluated only at high precision (then no certificate).  ``over`` is a box ``{name: (low, high)}`` or a
function ``draw(rng) -> dict``.

1. **numeric**: the given point (``at=``) and ``points`` points drawn from the seed (``ctx.stream("points",
   i)``, uniform rationals in the box), filtered by the declared assumptions (``softmix.Assumption`` with
   ``holds``/``violate`` on the values; a point that breaks one is skipped), each side at ``digits + 10``
   digits, decided by ``softmix.Bound`` with the precision's allowance ``10^-digits max(1, |lhs|, |rhs|)``
   (a point where the bound is tight does not refute by rounding); ``strict=True``: ``lhs < rhs``.  At most
   ``confirmed``; a failing point refutes and is the ``counterexample``;
2. **certificate** (``certify=True``, a box, sides that take ``m``): the box is split (widest side first,
   at most ``boxes`` interval evaluations) until on every cell ``sup lhs <= inf rhs`` in ``mpmath.iv`` --
   a proof on the whole box (``verified``); a cell with ``inf lhs > sup rhs`` proves the bound false
   (``refuted``); cells left undecided when the budget runs out leave the certificate ``unproven`` (the
   claim stays ``confirmed``; a bound tight at a point, ``log(1 + x) <= x`` at 0, is usually not
   certified by plain intervals).

Automatic control ``tightened-bound``: ``rhs`` lowered by the smallest gap ``rhs - lhs`` over the drawn
points plus ``10^-ceil(digits/2)`` of its size, so that it fails at the worst drawn point: the same check
must refute it.  Each declared assumption gets ``without:NAME`` (the points broken by its ``violate``).
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mpm

from softmix.numerics.errors import InputError

from .api import Part, outcome, part
from .rules import Bound
from .statement_kinds import (
    DRAWN_NOTE,
    accepts,
    check_box,
    draw_points,
    dropped_controls,
    params_type,
    point_assumptions,
    register_kind,
    statement_of,
    to_mpf,
)

__all__ = ["bound_claim", "CONTROLS", "certify_box"]

CONTROLS = {"tightened-bound": "rhs lowered by the smallest gap rhs - lhs over the drawn points plus "
                               "10^-ceil(digits/2) of its size: the bound made to fail at the worst drawn point"}


def _call(f, values: dict, m, takes_m: bool):
    return f(**values, m=m) if takes_m else f(**values)


def _sides(lhs, rhs, values: dict, dps: int, takes_m: bool):
    with mpm.workdps(dps):
        vals = {k: to_mpf(v) for k, v in values.items()}
        return +to_mpf(_call(lhs, vals, mpm.mp, takes_m)), +to_mpf(_call(rhs, vals, mpm.mp, takes_m))


def _numeric(lhs, rhs, pts, p, strict: bool, takes_m: bool, tighten: bool):
    """Rows of the numeric part; with ``tighten`` the control's lowered rhs."""
    dps = p.digits + 10
    sides = []
    for name, vals in pts:
        try:
            sides.append((name, vals, *_sides(lhs, rhs, vals, dps, takes_m)))
        except (ArithmeticError, ValueError) as e:
            sides.append((name, vals, None, f"{type(e).__name__}: {e}"))
    shift = mpm.mpf(0)
    with mpm.workdps(dps):
        gaps = [(b - a, b) for _, _, a, b in sides if a is not None and mpm.isfinite(a) and mpm.isfinite(b)]
        if tighten and gaps:
            g, at = min(gaps, key=lambda t: t[0])
            shift = max(g, 0) + mpm.mpf(10) ** -math.ceil(p.digits / 2) * max(1, abs(at))
        rows = []
        for name, vals, a, b in sides:
            shown = {k: str(v) for k, v in vals.items()}
            if a is None:
                rows.append({"point": name, "values": shown, "passed": None, "verdict": "inconclusive",
                             "reason": f"a side cannot be evaluated here: {b}"})
                continue
            slack = mpm.mpf(10) ** -p.digits * max(1, abs(a), abs(b))
            row = Bound(slack=slack, strict=strict).decide(a, b - shift)
            row["rule"] = _rule_text(p.digits, strict)
            rows.append({"point": name, "values": shown, **row})
    return rows


def _rule_text(digits: int, strict: bool) -> str:
    op = "<" if strict else "<="
    return (f"bound: lhs {op} rhs + 10^-{digits} max(1, |lhs|, |rhs|) at each point, both sides at {digits + 10} "
            "digits (the allowance absorbs rounding where the bound is tight)")


def _iv_box(box: dict) -> dict:
    iv = mpm.iv
    out = {}
    for k, (lo, hi) in box.items():
        a = iv.mpf(lo.numerator) / lo.denominator
        b = iv.mpf(hi.numerator) / hi.denominator
        out[k] = iv.mpf([a.a, b.b])
    return out


def certify_box(lhs, rhs, box: dict, budget: int, strict: bool = False, dps: int = 30) -> dict:
    """Interval certificate of ``lhs <= rhs`` (``<`` when ``strict``) on ``box`` ({name: (low, high)}, exact
    endpoints): the cells are split, widest side first, until every cell is decided or ``budget`` cells were
    evaluated.  ``{"status": "proven" | "refuted" | "unproven", "cells", "certified_fraction", ...}``:
    proven when on every cell ``sup lhs <= inf rhs``; refuted when on some cell ``inf lhs > sup rhs``
    (``failing_cell``); unproven otherwise.  ``lhs``/``rhs`` take ``m=mpmath.iv``."""
    iv = mpm.iv
    old = iv.dps
    iv.dps = dps
    try:
        todo = [(_iv_box(box), Fraction(1))]
        used, certified = 0, Fraction(0)
        while todo and used < budget:
            cell, vol = todo.pop()
            used += 1
            try:
                a, b = iv.mpf(lhs(**cell, m=iv)), iv.mpf(rhs(**cell, m=iv))
            except (ArithmeticError, ValueError, ZeroDivisionError):
                a = b = None
            if a is not None and (a.b < b.a if strict else a.b <= b.a):
                certified += vol
                continue
            if a is not None and (a.a >= b.b if strict else a.a > b.b):
                return {"status": "refuted", "cells": used, "failing_cell": {k: str(v) for k, v in cell.items()},
                        "lhs": str(a), "rhs": str(b)}
            k = max(cell, key=lambda n: cell[n].delta)
            mid = cell[k].mid
            for half in (iv.mpf([cell[k].a, mid]), iv.mpf([mid, cell[k].b])):
                todo.append(({**cell, k: half}, vol / 2))
        status = "proven" if not todo else "unproven"
        return {"status": status, "cells": used, "certified_fraction": float(certified),
                "undecided_cells": len(todo)}
    finally:
        iv.dps = old


def _certificate(lhs, rhs, box, p, strict) -> Part:
    cert = certify_box(lhs, rhs, box, p.boxes, strict, dps=max(20, p.digits))
    passed = {"proven": True, "refuted": False}.get(cert["status"])
    verdict = {"proven": "verified", "refuted": "refuted"}.get(cert["status"], "unproven")
    row = {"box": {k: [str(lo), str(hi)] for k, (lo, hi) in box.items()}, "passed": passed, **cert}
    if verdict == "unproven":
        row["note"] = ("not certified within the budget: the drawn points alone decide (confirmed at best); a bound "
                       "tight at a point is usually not certified by plain interval arithmetic")
    return Part("certificate", "certificate", verdict, [row],
                "mpmath.iv interval arithmetic on a subdivision of the box: sup lhs <= inf rhs on every cell "
                "proves the bound on the box; inf lhs > sup rhs on a cell refutes it")


def _declare(id, lhs, rhs, over, certify, at, assume):
    where = f"bound_claim {id}"
    if not callable(lhs) or not callable(rhs):
        raise InputError(f"{where}: lhs and rhs are functions of the point's values (and m)")
    objects = point_assumptions(assume, where)
    if isinstance(over, dict):
        box = check_box(over, where)
    elif callable(over):
        box = None
    else:
        raise InputError(f"{where}: over= takes a box {{name: (low, high)}} or a function draw(rng) -> dict")
    takes_m = accepts(lhs, "m") and accepts(rhs, "m")
    if certify and (box is None or not takes_m):
        raise InputError(f"{where}: certify=True needs a box over={{name: (low, high)}} and sides lhs(..., m), "
                         "rhs(..., m) written with m's functions (m is mpmath.mp or mpmath.iv)")
    given = dict(at) if at is not None else None
    for a in objects:
        if given is not None and a.holds(given) is False:
            raise InputError(f"{where}: the given point breaks its assumption {a.name} ({a.text})")
    probe = given if given is not None else ({k: lo for k, (lo, _) in box.items()} if box else None)
    if probe is not None:
        try:
            _sides(lhs, rhs, probe, 20, takes_m)
        except Exception as e:
            raise InputError(f"{where}: lhs or rhs cannot be evaluated at {probe}: {type(e).__name__}: {e}") from None
    return objects, box, takes_m, given


def bound_claim(id, *, lhs, rhs, over, points: int = 32, certify: bool = False, strict: bool = False,
                at: dict | None = None, assume=(), digits: int = 30, boxes: int = 2000, title: str = "",
                source: str = "", register: bool = True):
    """Register a claim that ``lhs(**values) <= rhs(**values)`` (``<`` with ``strict``) for the values ``over``
    draws (a box or ``draw(rng) -> dict``); ``certify=True`` also proves it on the box by interval arithmetic
    (module docstring).  Returns the :class:`~softmix.checks.registry.Claim` (``register=False``: not
    registered).  Bad input raises InputError at declaration."""
    where = f"bound_claim {id}"
    for name, v in (("points", points), ("digits", digits), ("boxes", boxes)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InputError(f"{where}: {name} must be a positive integer, got {v!r}")
    objects, box, takes_m, given = _declare(id, lhs, rhs, over, certify, at, assume)
    controls: dict = dict(CONTROLS)
    controls.update(dropped_controls(objects, "decided on drawn points broken by its violate"))

    def check(p, ctx):
        pts, skipped = draw_points(ctx, box if box is not None else over, p.points, objects, at=given)
        rows = _numeric(lhs, rhs, pts, p, strict, takes_m, tighten=ctx.variant == "tightened-bound")
        parts = [part("numeric", rows, rule=_rule_text(p.digits, strict))]
        if certify and ctx.variant is None:
            parts.insert(0, _certificate(lhs, rhs, box, p, strict))
        extra: dict = {"assumptions": [a.name for a in objects]}
        if skipped:
            extra["skipped_points"] = skipped
        bad = [r for r in rows if r["passed"] is False]
        if bad and ctx.variant is None:
            extra["counterexample"] = {k: bad[0].get(k) for k in ("point", "values", "lhs", "rhs")}
        return outcome(*parts, **extra)

    Params = params_type(id, "bound", [("points", int, points), ("digits", int, digits), ("boxes", int, boxes)],
                         _check_params)
    return register_kind(
        id=id, check=check, Params=Params, controls=controls, prose=[a.describe() for a in objects], title=title,
        source=source, statement=statement_of(lhs, f"{getattr(lhs, '__name__', 'lhs')} {'<' if strict else '<='} "
                                                   f"{getattr(rhs, '__name__', 'rhs')}"),
        kind="certificate" if certify else "numeric", register=register, stated_fn=rhs,
        note=DRAWN_NOTE, profiles={"full": {"points": 4 * points}})


def _check_params(p) -> None:
    if p.points < 1 or p.digits < 1 or p.boxes < 1:
        raise ValueError("points, digits and boxes must be positive integers")
