"""``softmix.rate_claim``: a finite-prompt limit or rate, decided by the engine's Monte Carlo rules.

The user supplies the simulator ``simulate(rng, L, n, **values)``: ``n`` independent replicates (an array)
of a quantity whose mean ``y(L)`` the statement is about, at prompt length ``L``.  softmix supplies the rest:

* the data: for each point and each ``L`` of ``lengths``, ``replicates`` replicates from ``ctx.data`` (one
  stream per (point, L) from the seed), the same numbers for the claim and every control; the mean and its
  standard error (estimated, with its effective degrees of freedom :func:`~softmix.checks.fits.mean_se_dof`);
* ``rate=`` (``y(L) ~ C L^rate``): :class:`~softmix.checks.fits.SlopeRule` -- weighted least squares of
  ``log y`` on ``log L`` (``remainder=True`` adds the ``d / L`` column), Student interval and goodness of
  fit, ``confirmed`` only when the interval's half-width is at most ``margin`` (default 0.1), else
  ``inconclusive`` with the replicates that would settle it;
* ``limit=`` (``y(L) -> a``): :class:`~softmix.checks.fits.InverseLRule` -- ``a + b / L`` fitted, ``a``
  z-tested, chi-square fit with three lengths or more, the standard errors scaled so that the normal
  quantile becomes the Student quantile of the limit's Welch-Satterthwaite degrees of freedom (they are
  estimated from the replicates; ``mc_verdict.student_factor``); half-width at most ``limit_margin``
  (default a tenth of ``|limit|``);
* alpha: one :class:`~softmix.checks.rules.AlphaFamily` (the claim's family-wise level, or its
  configuration's share), split equally over the tests (points x statements);
* points: the given values ``at=`` and ``draws`` points drawn by ``over=`` (a box or ``draw(rng) -> dict``),
  filtered by the declared assumptions; ``rate`` and ``limit`` may be functions of the values.

A rule that cannot decide (too few lengths, a zero standard error, a non-positive mean for a rate, an
interval wider than the margin) is ``inconclusive``, never ``refuted``.  Automatic controls: ``wrong-rate``
(the rate moved by 2.5 margins) and ``wrong-limit`` (the limit moved by 2.5 limit margins): outside any
interval that confirms the statement, so the same check must refute them; each declared assumption gets
``without:NAME``.
"""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np

from softmix.numerics.errors import InputError

from .api import outcome, part
from .fits import InverseLRule, SlopeRule, mean_se_dof
from .mc_verdict import student_factor
from .rules import AlphaFamily
from .statement_kinds import (
    DRAWN_NOTE,
    check_box,
    draw_points,
    dropped_controls,
    params_type,
    point_assumptions,
    register_kind,
)

__all__ = ["rate_claim", "CONTROLS", "SHIFT"]

#: a control moves the stated rate or limit by this many margins
SHIFT = 2.5
CONTROLS = {"wrong-rate": f"the stated rate moved by {SHIFT} margins", "wrong-limit":
            f"the stated limit moved by {SHIFT} limit margins"}


def _floats(values: dict) -> dict:
    return {k: float(v) if isinstance(v, (Fraction, int, str)) and not isinstance(v, bool) else v
            for k, v in values.items()}


def _stat(f, values: dict):
    return float(f(**_floats(values)) if callable(f) else f)


def _data(ctx, simulate, name: str, values: dict, Ls, n: int):
    """(means, standard errors, effective dof) over ``Ls``, the replicates from ``ctx.data``."""
    vkey = json.dumps({k: str(v) for k, v in values.items()}, sort_keys=True)
    means, ses, dofs = [], [], []
    for L in Ls:
        x = ctx.data(("rate-samples", name, L), lambda rng: np.asarray(simulate(rng, L, n, **_floats(values)),
                                                                       dtype=float).ravel(), params=[vkey, L, n])
        if x.size < 2:
            raise InputError(f"claim {ctx.claim_id}: simulate(rng, L, n) must return n >= 2 replicates")
        means.append(float(np.mean(x)))
        ses.append(float(np.std(x, ddof=1) / np.sqrt(x.size)))
        dofs.append(mean_se_dof(x))
    return means, ses, dofs


def _tests(ctx, decl, p, name, values, fam, k):
    """The rows of one point: the rate and/or the limit statement."""
    Ls = sorted(set(p.lengths))
    means, ses, dofs = _data(ctx, decl["simulate"], name, values, Ls, p.replicates)
    shown = {key: str(v) for key, v in values.items()}
    data = {"lengths": Ls, "means": means, "standard_errors": ses}
    rows = []
    if decl["rate"] is not None:
        target = _stat(decl["rate"], values) + (SHIFT * decl["margin"] if ctx.variant == "wrong-rate" else 0.0)
        rule = SlopeRule(fam.take(f"{name}:rate", k), target=target, margin=decl["margin"],
                         remainder=decl["remainder"], name="rate (log-log slope)")
        dec = rule.decide(Ls, means, ses, n_samples=p.replicates, se_dof=dofs)
        rows.append({"point": name, "values": shown, "statement": f"y(L) ~ C L^{target:g}", **data, **dec})
    if decl["limit"] is not None:
        lim = _stat(decl["limit"], values)
        lm = decl["limit_margin"] if decl["limit_margin"] is not None else abs(lim) / 10
        target = lim + (SHIFT * lm if ctx.variant == "wrong-limit" else 0.0)
        a = fam.take(f"{name}:limit", k)
        q, nu = student_factor(Ls, ses, dofs, a)  # estimated standard errors: Student's quantile, not the normal's
        rule2 = InverseLRule(a, margin=lm, name="limit (a + b/L)")
        dec = rule2.decide(Ls, means, [s * q for s in ses], target, n_samples=p.replicates)
        rows.append({"point": name, "values": shown, "statement": f"lim y(L) = {target:g}", **data, **dec,
                     "se_inflation": q, "limit_dof": nu})
    return rows


def _declare(id, simulate, lengths, replicates, rate, limit, margin, limit_margin, over, at, assume):
    where = f"rate_claim {id}"
    if not callable(simulate):
        raise InputError(f"{where}: simulate(rng, L, n, **values) must be a function returning n replicates")
    if rate is None and limit is None:
        raise InputError(f"{where}: state a rate= (log-log slope), a limit= or both")
    Ls = list(lengths) if isinstance(lengths, (list, tuple)) else []
    if len(set(Ls)) < 2 or not all(isinstance(L, int) and not isinstance(L, bool) and L >= 1 for L in Ls):
        raise InputError(f"{where}: lengths must be at least two distinct positive integers, got {lengths!r}")
    if isinstance(replicates, bool) or not isinstance(replicates, int) or replicates < 2:
        raise InputError(f"{where}: replicates must be an integer >= 2, got {replicates!r}")
    for name, v in (("margin", margin), ("limit_margin", limit_margin)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0):
            raise InputError(f"{where}: {name} must be a positive number, got {v!r}")
    if limit is not None and not callable(limit) and limit_margin is None and float(limit) == 0:
        raise InputError(f"{where}: a limit of 0 needs an absolute limit_margin=")
    objects = point_assumptions(assume, where)
    box = check_box(over, where) if isinstance(over, dict) else over
    if over is not None and not isinstance(over, dict) and not callable(over):
        raise InputError(f"{where}: over= takes a box {{name: (low, high)}} or a function draw(rng) -> dict")
    given = dict(at or {})
    for a in objects:
        if a.holds(given) is False:
            raise InputError(f"{where}: the given point breaks its assumption {a.name} ({a.text})")
    return objects, box, given


def rate_claim(id, *, simulate, lengths, replicates: int = 2000, rate=None, limit=None, margin: float = 0.1,
               limit_margin: float | None = None, remainder: bool = False, over=None, at: dict | None = None,
               draws: int = 0, assume=(), title: str = "", source: str = "", register: bool = True):
    """Register a claim about the mean ``y(L)`` of ``simulate(rng, L, n, **values)`` across prompt lengths:
    ``rate`` (``y ~ C L^rate``) and/or ``limit`` (``y -> limit``), decided by the Monte Carlo rules at the
    claim's family-wise alpha (module docstring).  Returns the :class:`~softmix.checks.registry.Claim`
    (``register=False``: not registered).  Bad input raises InputError at declaration."""
    objects, box, given = _declare(id, simulate, lengths, replicates, rate, limit, margin, limit_margin, over, at,
                                   assume)
    decl = {"simulate": simulate, "rate": rate, "limit": limit, "margin": float(margin),
            "limit_margin": None if limit_margin is None else float(limit_margin), "remainder": bool(remainder)}
    controls = {k: v for k, v in CONTROLS.items() if (rate if k == "wrong-rate" else limit) is not None}
    controls.update(dropped_controls(objects, "decided on points broken by its violate"))

    def check(p, ctx):
        pts, skipped = draw_points(ctx, box, p.draws if box is not None else 0, objects, at=given)
        fam = AlphaFamily(name=str(id))
        k = max(1, len(pts)) * ((rate is not None) + (limit is not None))
        rows = [r for name, vals in pts for r in _tests(ctx, decl, p, name, vals, fam, k)]
        extra: dict = {"alpha": fam.ledger(), "assumptions": [a.name for a in objects]}
        if skipped:
            extra["skipped_points"] = skipped
        reasons = [r["reason"] for r in rows if r.get("reason")]
        undecided = [r for r in rows if r["verdict"] == "inconclusive"]
        if undecided and not any(r.get("samples_to_settle") for r in undecided):  # else the rows say how many
            extra["to_settle"] = "more prompt lengths or replicates" + (f" ({reasons[0]})" if reasons else "")
        return outcome(part("monte-carlo", rows), **extra)

    Params = params_type(id, "rate", [("lengths", list[int], _default(lengths)), ("replicates", int, replicates),
                                      ("draws", int, draws)], _check_params)
    what = " and ".join(x for x, v in (("a rate", rate), ("a limit", limit)) if v is not None)
    return register_kind(
        id=id, check=check, Params=Params, controls=controls, prose=[a.describe() for a in objects], title=title,
        source=source, statement=(simulate.__doc__ or "").strip().split("\n")[0] or
        f"the mean of simulate(rng, L, n) has {what} in L", kind="monte-carlo", register=register,
        stated_fn=simulate,
        note=DRAWN_NOTE if box is not None else "decided on the given values only (no over= to draw from)",
        profiles={"full": {"replicates": 4 * replicates, "draws": draws + 2 if box is not None else draws}})


def _default(lengths):
    import dataclasses

    Ls = [int(L) for L in lengths]
    return dataclasses.field(default_factory=lambda: list(Ls))


def _check_params(p) -> None:
    if len(set(p.lengths)) < 2 or min(p.lengths) < 1 or p.replicates < 2 or p.draws < 0:
        raise ValueError("lengths: at least two distinct positive integers; replicates >= 2; draws >= 0")
