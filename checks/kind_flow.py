"""``softmix.flow_claim``: a flow's stated stationary point and, optionally, its convergence rate.

The flow is ``dx/dt = field(x, **values)`` (a gradient flow: ``field = -grad f``); ``field`` takes a list of
``D = len(point)`` coordinates and returns ``D`` components.  Written with SymPy (``sp.exp``, arithmetic),
it is called on symbols ``x_1 ... x_D`` and decided exactly; otherwise (it fails on symbols) it is called on
mpmath numbers for the residual and on NumPy arrays for the flow.

1. **stationary point**: ``field(point) = 0`` simplified exactly (``verified``); when SymPy cannot, at
   ``digits + 10`` digits by ``softmix.Residual(digits=)`` (``confirmed``); a non-zero field refutes;
2. **rate** (``rate=r``, the statement ``|x(t) - point| ~ C exp(-r t)``): the flow is integrated with
   SciPy's ``solve_ivp`` (DOP853, rtol 1e-11, atol 1e-15 relative to the start distance) from the point
   moved by ``start_distance`` (relative to ``max(1, |point|)``) in a direction drawn from the seed, until the
   distance falls to 1e-7 of the start or ``horizon``; the slope of ``log |x(t) - point|`` over the tail
   (distances from 1e-2 to 1e-7 of the start) is fitted by least squares and ``|fitted - r| <= margin |r|``
   decides (``margin`` declared, default 0.05; deterministic, no alpha).  A flow that did not get below
   1e-2 of its start distance within the horizon, without moving away, is ``inconclusive``;
3. points: the given values ``at=`` and ``draws`` drawn by ``over=``; ``point`` and ``rate`` may be functions
   of the values.

Automatic controls: ``shifted-point`` (the point moved by an eighth of ``max(1, |point|)`` in a rational
direction drawn from the seed) and, with a rate, ``doubled-rate``; each declared assumption gets
``without:NAME``.  The numeric rate is at most ``confirmed``.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.numerics.errors import InputError

from .api import Part, outcome, part
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

__all__ = ["flow_claim", "CONTROLS", "flow_rate"]

CONTROLS = {"shifted-point": "the stated point moved by max(1, |point|) / 8 in a rational direction drawn from the "
                             "seed",
            "doubled-rate": "the stated convergence rate doubled"}


def _rational(v):
    if isinstance(v, Fraction):
        return sp.Rational(v.numerator, v.denominator)
    return sp.nsimplify(v, rational=True) if isinstance(v, float) else sp.sympify(v)


def _point(decl, values: dict):
    pt = decl["point"](**{k: _rational(v) for k, v in values.items()}) if callable(decl["point"]) else decl["point"]
    return [sp.sympify(x) if not isinstance(x, float) else sp.nsimplify(x, rational=True) for x in pt]


def _shifted(ctx, name: str, pt: list) -> list:
    rng = ctx.stream("flow-shift", name)
    u = [sp.Rational(int(rng.integers(-6, 7)) or 1, 6) for _ in pt]
    size = max([sp.Integer(1)] + [abs(sp.N(x, 20)) for x in pt])
    norm = sp.sqrt(sum(c**2 for c in u))
    return [x + sp.nsimplify(size / 8, rational=True) * c / norm for x, c in zip(pt, u)]


def _symbolic_field(field, D: int, values: dict):
    """``field`` on symbols: (SymPy column, symbols), or None when it is not SymPy-capable."""
    xs = list(sp.symbols(f"x_1:{D + 1}", real=True))
    try:
        F = sp.Matrix(list(field(xs, **{k: _rational(v) for k, v in values.items()})))
    except Exception:
        return None
    if F.shape != (D, 1):
        raise InputError(f"field(x) must return {D} components (len(point)), got shape {F.shape}")
    return F, xs


def _stationary(decl, pt, values, p, sym) -> tuple[dict, dict]:
    """(symbolic row, numeric row) of ``field(pt) = 0``."""
    rule = Residual(digits=p.digits)
    if sym is not None:
        F, xs = sym
        at = F.xreplace(dict(zip(xs, pt)))
        proven = all(e == 0 or sp.simplify(e) == 0 for e in at)
        with mpm.workdps(rule.dps):
            vals = [to_mpf(sp.N(e, rule.dps)) for e in at]
        srow = {"status": "proven" if proven else "unproven", "field_at_point": [sp.sstr(e) for e in at][:6]}
    else:
        with mpm.workdps(rule.dps):
            vals = [to_mpf(v) for v in decl["field"]([to_mpf(x) for x in pt], **{k: to_mpf(v) for k, v in
                                                                                  values.items()})]
        srow = {}
    with mpm.workdps(rule.dps):
        row = rule.decide(max(abs(v) for v in vals), 1)
    return srow, row


def flow_rate(f, x_star, x0, horizon: float) -> dict:
    """The fitted exponential rate of ``|x(t) - x_star|`` along ``dx/dt = f(x)`` from ``x0`` (NumPy arrays):
    DOP853 at rtol 1e-11 and atol 1e-15 times the start distance, stopped when the distance falls to 1e-7 of
    the start or at ``horizon``; least-squares slope of the log distance over the tail (1e-2 to 1e-7 of the start).
    ``{"rate", "start_distance", "final_distance", "t_end", "tail_points", "status"}``."""
    from scipy.integrate import solve_ivp

    d0 = float(np.linalg.norm(x0 - x_star))
    stop = lambda t, x: float(np.linalg.norm(x - x_star)) - 1e-7 * d0
    stop.terminal = True  # type: ignore[attr-defined]
    sol = solve_ivp(lambda t, x: np.asarray(f(x), dtype=float).ravel(), (0.0, float(horizon)), x0, method="DOP853",
                    rtol=1e-11, atol=1e-15 * d0, events=stop, dense_output=True)
    t_end = float(sol.t[-1])
    ts = np.linspace(0.0, t_end, 2001)
    dist = np.linalg.norm(sol.sol(ts) - x_star[:, None], axis=0)
    out = {"start_distance": d0, "final_distance": float(dist[-1]), "t_end": t_end, "solver": sol.message}
    if dist[-1] > 1e-2 * d0:
        out.update({"rate": None, "status": "diverged" if dist[-1] >= d0 else "not-converged"})
        if dist[-1] >= d0:
            out["rate"] = float(-np.polyfit(ts[1000:], np.log(np.maximum(dist[1000:], 1e-300)), 1)[0])
        return out
    tail = (dist <= 1e-2 * d0) & (dist >= 1e-7 * d0)
    if tail.sum() < 10:
        tail = dist <= 1e-2 * d0
    slope = float(np.polyfit(ts[tail], np.log(dist[tail]), 1)[0])
    out.update({"rate": -slope, "status": "converged", "tail_points": int(tail.sum())})
    return out


def _rate_row(ctx, decl, name, pt, values, p, sym, stated) -> dict:
    D = len(pt)
    if sym is not None:
        fn = sp.lambdify([sym[1]], list(sym[0]), "numpy")
        f = lambda x: fn(list(x))
    else:
        vals = {k: float(v) for k, v in values.items()}
        f = lambda x: decl["field"](np.asarray(x, float), **vals)
    xs = np.array([float(sp.N(x, 20)) for x in pt])
    u = ctx.stream("flow-start", name).standard_normal(D)
    x0 = xs + p.start_distance * max(1.0, float(np.max(np.abs(xs)))) * u / np.linalg.norm(u)
    fit = flow_rate(f, xs, x0, p.horizon)
    row = {"stated_rate": stated, "margin": decl["margin"], **fit,
           "rule": f"rate: |fitted - stated| <= {decl['margin']:g} |stated| (log distance slope over the tail)"}
    if fit["status"] == "not-converged":
        row.update({"passed": None, "verdict": "inconclusive",
                    "reason": f"the flow did not get below 1e-2 of its start distance by t = {fit['t_end']:.3g}: raise "
                              "horizon"})
    else:
        ok = fit["rate"] is not None and abs(fit["rate"] - stated) <= decl["margin"] * abs(stated)
        row.update({"passed": bool(ok), "verdict": "confirmed" if ok else "refuted"})
    return row


def _decide_point(ctx, decl, name, values, p) -> tuple[list, list, list]:
    pt = _point(decl, values)
    if ctx.variant == "shifted-point":
        pt = _shifted(ctx, name, pt)
    sym = _symbolic_field(decl["field"], len(pt), values) if decl["symbolic"] else None
    srow, nrow = _stationary(decl, pt, values, p, sym)
    shown = {"point": name, "values": {k: str(v) for k, v in values.items()}, "stationary_point": [sp.sstr(x) for x in
                                                                                                   pt]}
    srows = [{**shown, **srow}] if srow else []
    rrows = []
    if decl["rate"] is not None:
        r = float(decl["rate"](**values) if callable(decl["rate"]) else decl["rate"])
        r *= 2 if ctx.variant == "doubled-rate" else 1
        rrows.append({**shown, **_rate_row(ctx, decl, name, pt, values, p, sym, r)})
    return srows, [{**shown, **nrow}], rrows


def _declare(id, field, point, rate, margin, over, at, assume):
    where = f"flow_claim {id}"
    if not callable(field):
        raise InputError(f"{where}: field(x, **values) must be a function returning the flow's components")
    if rate is not None and not callable(rate) and not _positive_number(rate):
        raise InputError(f"{where}: rate must be a positive number (or a function of the values), got {rate!r}")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 < margin < 0.5:
        raise InputError(f"{where}: margin must lie in (0, 1/2) (a doubled rate must fall outside it), got {margin!r}")
    objects = point_assumptions(assume, where)
    box = check_box(over, where) if isinstance(over, dict) else over
    given = dict(at or {})
    for a in objects:
        if a.holds(given) is False:
            raise InputError(f"{where}: the given point breaks its assumption {a.name} ({a.text})")
    try:
        pt = _point({"point": point}, given)
        D = len(pt)
        if D < 1:
            raise ValueError("the point has no coordinate")
        sym = _symbolic_field(field, D, given)
        if sym is None:
            field([mpm.mpf(0)] * D, **{k: to_mpf(v) for k, v in given.items()})
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    except Exception as e:
        raise InputError(f"{where}: point or field cannot be evaluated: {type(e).__name__}: {e}") from None
    return objects, box, given, sym is not None


def _positive_number(x) -> bool:
    try:
        return not isinstance(x, bool) and math.isfinite(float(x)) and float(x) > 0
    except (TypeError, ValueError):
        return False


def flow_claim(id, *, field, point, rate=None, margin: float = 0.05, over=None, at: dict | None = None,
               draws: int = 0, assume=(), digits: int = 30, start_distance: float = 1e-2, horizon: float = 200.0,
               title: str = "", source: str = "", register: bool = True):
    """Register a claim that ``point`` is a stationary point of ``dx/dt = field(x, **values)`` and, with
    ``rate``, that the flow converges to it like ``exp(-rate t)`` (module docstring).  Returns the
    :class:`~softmix.checks.registry.Claim` (``register=False``: not registered).  Bad input raises InputError
    at declaration."""
    objects, box, given, symbolic = _declare(id, field, point, rate, margin, over, at, assume)
    decl = {"field": field, "point": point, "rate": rate, "margin": float(margin), "symbolic": symbolic}
    controls = {k: v for k, v in CONTROLS.items() if k == "shifted-point" or rate is not None}
    controls.update(dropped_controls(objects, "decided on points broken by its violate"))

    def check(p, ctx):
        pts, skipped = draw_points(ctx, box, p.draws if box is not None else 0, objects, at=given)
        srows, nrows, rrows = [], [], []
        for name, vals in pts:
            s, n, r = _decide_point(ctx, decl, name, vals, p)
            srows += s
            nrows += n
            rrows += r
        parts = []
        if srows:
            proven = all(r["status"] == "proven" for r in srows)
            parts.append(Part("symbolic", "symbolic", "verified" if proven else "unproven", srows,
                              "field(point) simplified to 0 exactly"))
        parts.append(part("numeric", nrows, name="stationary"))
        if rrows:
            parts.append(part("numeric", rrows, name="rate"))
        extra: dict = {"assumptions": [a.name for a in objects], "field": "symbolic" if symbolic else "numeric"}
        if skipped:
            extra["skipped_points"] = skipped
        out = outcome(*parts, **extra)
        if rrows and out.verdict == "verified":  # the rate is numeric evidence: the claim is at most confirmed
            out.verdict = "confirmed"
            out.evidence["verdict_cap"] = "a stated rate is decided numerically: at most confirmed"
        return out

    Params = params_type(id, "flow", [("digits", int, digits), ("draws", int, draws),
                                      ("start_distance", float, start_distance), ("horizon", float, horizon)],
                         _check_params)
    return register_kind(
        id=id, check=check, Params=Params, controls=controls, prose=[a.describe() for a in objects], title=title,
        source=source, statement=statement_of(field, "point is a stationary point of dx/dt = field(x)" +
                                              (" and the flow converges to it at the stated rate" if rate else "")),
        kind="symbolic" if symbolic else "numeric", register=register, stated_fn=field,
        note=DRAWN_NOTE if box is not None else "decided on the given values only (no over= to draw from)",
        profiles={"full": {"draws": draws + 2}} if box is not None else None)


def _check_params(p) -> None:
    if p.digits < 1 or p.draws < 0 or not (0 < p.start_distance < 1) or not (p.horizon > 0) \
            or not math.isfinite(p.horizon):
        raise ValueError("digits >= 1, draws >= 0, 0 < start_distance < 1, 0 < horizon < inf")
