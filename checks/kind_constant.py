"""``softmix.constant_claim``: a high-precision identity of constants against an independent reference.

``value`` is the user's closed form and ``reference`` the same constant computed another way (an
``mpmath.quad`` integral, a series, a root): each a number (an mpmath number, a SymPy expression, an exact
string) or a function of the point's values (by keyword) called at the working precision.  The check:

* both sides at ``digits + 10`` digits and again at ``digits + 20``: a side that moves by more than the
  tolerance between the two precisions is not computed to ``digits`` digits (a quadrature that has not
  converged): ``inconclusive``, never ``refuted``;
* ``softmix.Residual(digits=digits)``: ``|value - reference| <= 10^-digits max(1, |reference|)`` --
  ``confirmed`` (numbers agree; a proof it is not);
* on the given point (``at=``, default the empty point) and on ``draws`` points drawn by ``over=`` (a box
  ``{name: (low, high)}`` or ``draw(rng) -> dict``) for a parametrised constant, filtered by the declared
  assumptions (``softmix.Assumption`` objects with ``holds``/``violate`` on the values).

Automatic controls: ``perturbed-half-digits`` (the value moved by ``10^-ceil(digits/2)`` of its size) and
``perturbed-last-digits`` (moved by ``10^(2 - digits)``, a hundred times the tolerance): the same check must
refute both; each declared assumption gets ``without:NAME``.
"""
from __future__ import annotations

import math

import mpmath as mpm

from softmix.numerics.errors import InputError
from softmix.numerics.memo import remember

from .api import outcome, part
from .rules import Residual
from .statement_kinds import (
    DRAWN_NOTE,
    check_box,
    draw_points,
    dropped_controls,
    params_type,
    point_assumptions,
    register_kind,
    statement_of,
    to_mpf,
)

__all__ = ["constant_claim", "CONTROLS"]

CONTROLS = {
    "perturbed-half-digits": "the value moved by 10^-ceil(digits/2) of its size (wrong in the middle of the decided "
                             "digits)",
    "perturbed-last-digits": "the value moved by 10^(2 - digits) of its size (a hundred times the tolerance)",
}


def _side(f, values: dict, dps: int):
    """``f`` at the point ``values`` and ``dps`` digits; remembered in the run's memo (the controls reuse it)."""
    def make():
        with mpm.workdps(dps):
            v = f(**{k: to_mpf(x) for k, x in values.items()}) if callable(f) else f
            return +to_mpf(v)

    key = (id(f), tuple(sorted((k, str(v)) for k, v in values.items())), int(dps))
    return remember("kind_constant.side", key, make)


def _shift(variant, digits: int) -> int | None:
    return {"perturbed-half-digits": math.ceil(digits / 2), "perturbed-last-digits": max(1, digits - 2)}.get(variant)


def _row(value, reference, values: dict, p, variant) -> dict:
    rule = Residual(digits=p.digits)
    try:
        v1, r1 = _side(value, values, rule.dps), _side(reference, values, rule.dps)
        v2, r2 = _side(value, values, rule.dps + 10), _side(reference, values, rule.dps + 10)
    except (ArithmeticError, ValueError) as e:
        return {"values": {k: str(x) for k, x in values.items()}, "passed": None, "verdict": "inconclusive",
                "reason": f"a side cannot be evaluated here: {type(e).__name__}: {e}", "rule": rule.describe()}
    with mpm.workdps(rule.dps + 10):
        tol = mpm.mpf(10) ** -p.digits * max(1, abs(r2))
        drift = max(abs(v1 - v2), abs(r1 - r2))
        unstable = [n for n, a, b in (("value", v1, v2), ("reference", r1, r2)) if abs(a - b) > tol / 10]
        k = _shift(variant, p.digits)
        if k is not None:
            v2 = v2 + mpm.mpf(10) ** -k * max(1, abs(v2))
        res = abs(v2 - r2)  # complex values (a real constant's side off its domain) compare by modulus
        row = {"values": {k2: str(x) for k2, x in values.items()}, **rule.decide(res, abs(r2)),
               "value": mpm.nstr(v2, p.digits + 2), "reference": mpm.nstr(r2, p.digits + 2)}
        explained = abs(res) <= 10 * (drift + tol)  # a gap the imprecise side could have made
    if unstable and (row["passed"] is not False or explained):
        row.update({"passed": None, "verdict": "inconclusive",
                    "reason": f"the {' and the '.join(unstable)} moved by more than a tenth of the tolerance between "
                              f"{rule.dps} and {rule.dps + 10} digits: not computed to {p.digits} digits"})
    return row


def constant_claim(id, *, value, reference, digits: int = 30, over=None, at: dict | None = None, draws: int = 2,
                   assume=(), title: str = "", source: str = "", register: bool = True):
    """Register a claim that the constant ``value`` equals ``reference`` (computed independently) to ``digits``
    digits (module docstring: the check, the points, the controls).  ``value`` / ``reference``: numbers or
    functions ``f(**values)`` called at the working precision (mpmath's current ``mp.dps``).

    Returns the :class:`~softmix.checks.registry.Claim` (``register=False``: not registered).  Bad input
    (digits below 3, a side that cannot be evaluated, a given point that breaks an assumption) raises
    InputError at declaration."""
    where = f"constant_claim {id}"
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 3 or digits > 5000:
        raise InputError(f"{where}: digits must be an integer in [3, 5000], got {digits!r}")
    objects = point_assumptions(assume, where)
    box = check_box(over, where) if isinstance(over, dict) else over
    if over is not None and not isinstance(over, dict) and not callable(over):
        raise InputError(f"{where}: over= takes a box {{name: (low, high)}} or a function draw(rng) -> dict")
    given = dict(at or {})
    for a in objects:
        if given and a.holds(given) is False:
            raise InputError(f"{where}: the given point breaks its assumption {a.name} ({a.text})")
    try:
        for f in (value, reference):
            _side(f, given if given or box is None else {k: str(lo) for k, (lo, _) in box.items()}, 20)
    except Exception as e:
        raise InputError(f"{where}: value or reference cannot be evaluated: {type(e).__name__}: {e}") from None
    controls = dict(CONTROLS)
    controls.update(dropped_controls(objects, "decided on points that break it"))

    def check(p, ctx):
        n = p.draws if box is not None else 0
        pts, skipped = draw_points(ctx, box, n, objects, at=given if (given or box is None) else None)
        rows = [{"point": name, **_row(value, reference, vals, p, ctx.variant)} for name, vals in pts]
        extra: dict = {"assumptions": [a.name for a in objects]}
        if skipped:
            extra["skipped_points"] = skipped
        bad = [r for r in rows if r["passed"] is False]
        if bad and ctx.variant is None:
            extra["counterexample"] = {k: bad[0][k] for k in ("point", "values", "value", "reference", "residual")}
        return outcome(part("numeric", rows, rule=Residual(digits=p.digits)), **extra)

    Params = params_type(id, "constant", [("digits", int, digits), ("draws", int, draws)], _check_params)
    return register_kind(
        id=id, check=check, Params=Params, controls=controls, prose=[a.describe() for a in objects], title=title,
        source=source, statement=statement_of(value, f"the constant equals its reference to {digits} digits"),
        kind="numeric", register=register, stated_fn=value if callable(value) else None,
        note=DRAWN_NOTE if box is not None else "one constant: no configuration is drawn (nothing to draw)",
        profiles={"full": {"draws": draws + 2}} if box is not None else None)


def _check_params(p) -> None:
    if p.digits < 3 or p.draws < 0:
        raise ValueError("digits must be at least 3 and draws non-negative")
