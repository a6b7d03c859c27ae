"""Section 3 / Appendix B: kernels of the risk Hessian at Bayes points (Lemma B.13, Thm 3.5 / Lemma B.26).

Eigenvalues of quadrature Hessians are read against a zero tolerance fixed from the precision and the
quadrature error before the spectrum is seen; an eigenvalue between the tolerance and ten times it
cannot be told from zero, and the case is inconclusive (never refuted).  The procedures are public in
:mod:`softmix.numerics.lda_hessian`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import mpmath as mpm
import numpy as np

from softmix.numerics import lda as N, lda_dynamics as D
from softmix.numerics.lda_bayes import start_check
from softmix.numerics.lda_hessian import (
    effective_hessian_kernel,
    hessian_refined,
    projected_vs_bivariate_law,
    projected_vs_full_rule,
)
from softmix.numerics.precision import workdps

from ..api import Draws, claim, outcome, part
from ..assumptions import Assumption
from ..rules import ALPHA
from .lda import SECTION, SOURCE, c1, draw_lda, require_positive
from .lda_dynamics import fit_rows
from .rows import undecide


def _f(x, k=12):
    return mpm.nstr(x, k) if isinstance(x, mpm.mpf) else float(x)


# ---- Lemma B.13 ----------------------------------------------------------------------------------
@dataclass
class LemmaB13:
    lda: dict = field(default_factory=c1)
    dps: int = 0  # 0: float64; otherwise mpmath at dps digits
    nodes: int = 48
    max_nodes: int = 162

    def __post_init__(self):
        require_positive(self, "dps", "nodes", "max_nodes", allow_zero=("dps",))


def _b13_row(P, p, s_nonzero, swapped):
    d, mp, dps = P.d, bool(p.dps), p.dps or None
    with workdps(dps or 15):
        s = None
        if s_nonzero:
            s = np.array([0.5, -1.0] + [1 / 3] * (d - 2))
            s = np.array([mpm.mpf(x) for x in s], dtype=object) if mp else s
        z = N.bayes_zeta(P, mp=mp, s=s)
    k = effective_hessian_kernel(P, z, p.nodes, p.max_nodes, dps)
    expected = (d if s_nonzero else d + 1) if not swapped else (d + 1 if s_nonzero else d)
    row = {"s_star_nonzero": s_nonzero, "hessian_nullity": k["nullity"], "expected_nullity": expected,
           "smallest_nonzero_eigenvalue": None if k["smallest_nonzero_eigenvalue"] is None
           else _f(k["smallest_nonzero_eigenvalue"], 8),
           "zero_tolerance": _f(k["zero_tolerance"], 3), "precision": f"{p.dps} digits" if mp else "float64",
           "nodes": k["nodes"], "resolved": k["resolved"],
           "passed": k["nullity"] == expected if k["resolved"] else None}
    if not k["resolved"]:  # an eigenvalue between tol and 10 tol is neither zero nor resolved
        row.update({"reason": "an eigenvalue between the zero tolerance and 10 x it: the nullity is not resolved",
                    "to_settle": f"more nodes than max_nodes = {p.max_nodes} (a smaller quadrature error)"})
    return row


@claim(id="lemma-b.13", title="Kernel of the effective Hessian on E1", source=f"{SOURCE}, Lemma B.13",
       statement="dim ker grad^2 R~(zeta*) = d if s* != 0, d+1 if s* = 0", section=SECTION, kind="numeric",
       controls={"swapped": "expected nullities swapped"}, profiles={"full": {"dps": 30}},
       configurations=Draws(draw_lda, quick=1, full=3),
       independence="derived side: eigenvalues of the quadrature Hessian at the Bayes point; stated side: nullity d or "
                    "d+1; shared: nothing; the projected Gauss-Hermite rule against the full tensor rule, shared: the "
                    "integrand code")
def lemma_b13(p: LemmaB13, ctx):
    """Eigenvalue zero iff |lambda| <= max(floor, 100 x |H(n) - H(1.5n+2)|); non-zero ones must exceed 10x that
    (one in between: n x 1.5 up to max_nodes, then inconclusive); the projected quadrature the Hessians use
    equals the full tensor rule at three generic points (numerics.lda_hessian.projected_vs_full_rule, d <= 2)
    and its R~ the bivariate law of (w^T x, s^T x) at two (projected_vs_bivariate_law), on the configuration
    and, when d <= 2 (where a generic basis spans R^d), on a drawn 3-D one too."""
    P = N.LDAProblem.from_params(p.lda)
    rows = [_b13_row(P, p, snz, ctx.control("swapped")) for snz in (True, False)]
    rng = ctx.stream("rules")
    # the basis of the projected rule only matters where it cannot span R^d: a drawn 3-D problem as well
    problems = [P] if P.d >= 3 else [P, N.LDAProblem.from_params(draw_lda(rng, {"lda": {"m1": [0] * 3}}, 0)["lda"])]
    law = [{"check": f"projected rule vs the bivariate law of (w^T x, s^T x), d = {Q.d}",
            **projected_vs_bivariate_law(Q, rng)} for Q in problems]
    if P.d > 2:  # the full tensor rule has n^d nodes: not run
        return outcome(part("numeric", rows, rule=lemma_b13.__doc__), part("numeric", law, name="quadrature rule"),
                       projected_vs_full_rule="d > 2: not run")
    rule = projected_vs_full_rule(P, rng)
    return [part("numeric", rows, rule=lemma_b13.__doc__),
            part("numeric", [{"check": "projected vs full tensor rule", **rule}] + law, name="quadrature rule")]


# ---- Theorem 3.5 / Lemma B.26 ------------------------------------------------------------------------
@dataclass
class Thm35:
    lda: dict = field(default_factory=c1)
    nodes: int = 40
    max_nodes: int = 100
    perturbation: float = 1e-2
    T: float = 800.0
    h: float = 2.0
    max_steps: int = 2000

    def __post_init__(self):
        require_positive(self, "nodes", "max_nodes", "max_steps")
        if not (self.T > 0 and self.h > 0 and self.perturbation > 0):
            raise ValueError("T, h and perturbation must be positive")


def _undecided(row, reason, to_settle="a larger max_nodes"):
    return undecide(row, reason, to_settle=to_settle)


def _kernel_row(H, gnorm, qerr, n, expected):
    """Classify the spectrum of the Hessian at theta*: three zones -- zero (float64 round-off, quadrature error,
    residual gradient at the float64 theta*), non-zero (10 x above), and between them undecided."""
    eigs = sorted(np.linalg.eigvalsh(H), key=abs)
    sc = max(abs(e) for e in eigs)
    tol = max(1e-12 * sc, 10 * qerr, 10 * gnorm)
    null, rest = [e for e in eigs if abs(e) <= tol], [e for e in eigs if abs(e) > tol]
    smin = min(rest, key=abs) if rest else 0.0
    row = {"check": "Hessian at theta*", "hessian_nullity": len(null), "expected_nullity": expected,
           "zero_tolerance": tol, "quadrature_nodes": n, "quadrature_error": qerr, "gradient_norm_at_theta_star": gnorm,
           "normal_eigenvalues": [float(e) for e in sorted(rest)], "smallest_normal_eigenvalue": float(smin)}
    undecided = [e for e in rest if abs(e) < 10 * tol]
    extra = sorted(null, key=abs)[expected:]  # the candidates for zero beyond the stated nullity
    if undecided:
        return _undecided(row, f"{len(undecided)} eigenvalue(s) between the zero tolerance {tol:.3g} and 10 x it: "
                               "the nullity is not resolved"), eigs, smin
    if tol > 1e-6 * sc and max((abs(e) for e in null), default=0.0) > tol / 100:
        # a tolerance not small against the spectrum, with eigenvalues inside it above round-off: a small normal
        # eigenvalue cannot be told from a zero (|s*| = 13.6: tolerance 2.3e-4, six eigenvalues in it for five zeros)
        return _undecided(row, f"zero tolerance {tol:.3g} > 1e-6 x |H| with eigenvalues inside it above "
                               "tolerance / 100: the nullity is not resolved"), eigs, smin
    if max((abs(e) for e in extra), default=0.0) > tol / 100:
        # more eigenvalues inside the tolerance than the statement's zeros, the extra ones above round-off: a small
        # normal eigenvalue inside the quadrature's reach, not a zero.  Only a nullity below the stated one or
        # extra zeros at round-off refute.
        return _undecided(row, f"{len(extra)} eigenvalue(s) beyond the stated nullity inside the zero tolerance "
                               f"{tol:.3g} but above tolerance / 100 (largest {max(abs(e) for e in extra):.3g}): the "
                               "nullity is not resolved"), eigs, smin
    row["passed"] = bool(len(null) == expected and all(e > 0 for e in rest))
    return row, eigs, smin


def _flow(P, th, eigs, n, p, rng):
    """RK4 gradient flow of R (the same quadrature rule) from a perturbed theta* and from theta* itself (the
    numerical floor): times, distances to E1, floor, points kept for the fit, step, horizon."""
    d = P.d
    th0 = th + p.perturbation * rng.standard_normal(th.size)
    h = min(float(p.h), 1.5 / float(max(eigs)))  # RK4 is stable for h lambda_max < 2.78
    T = min(float(p.T), int(p.max_steps) * h)  # a stiff Hessian: at most max_steps steps, the horizon shortened
    every = max(1, int(T / h / 100))
    grad = lambda x: -N.grad_theta(P, x, n, None, d <= 2)[1]
    traj = N.rk4(grad, th0, T, h, None, every)
    ts, ds = [t for t, _ in traj], [N.dist_E1(P, N.phi(P, x)) for _, x in traj]
    floor = max(N.dist_E1(P, N.phi(P, x)) for _, x in N.rk4(grad, th, T, h, None, every))
    keep = [i for i in range(len(ts)) if ds[i] > 10 * floor]
    keep = keep[2 * len(keep) // 3:] if len(keep) >= 9 else keep
    return ts, ds, floor, keep, h, T


def _flow_rows(P, th, eigs, smin, n, p, rng):
    """The flow's rows (its decision, and its log-linear fit against scipy's on the same points) and figure."""
    ts, ds, floor, keep, h, T = _flow(P, th, eigs, n, p, rng)
    tk, dk = [ts[i] for i in keep], [ds[i] for i in keep]
    fit = D.fit_exp_rate(tk, dk, ALPHA)
    row, figure = _flow_row(ts, ds, floor, keep, h, T, fit, smin, p)
    return [row, *fit_rows("the flow's log-linear fit = scipy.stats.linregress", tk, dk, fit)], figure


def _flow_row(ts, ds, floor, keep, h, T, fit, smin, p):
    rate, r2 = (fit["rate"], fit["r2"]) if fit["rate"] is not None else (0.0, 0.0)
    smin = float(smin)
    row = {"check": "gradient flow from a perturbed theta*", "integrator_step": h, "horizon": T,
           "horizon_truncated": T < float(p.T), "t": ts, "dist_E1": ds, "fitted_rate": rate, "r2": r2,
           "numerical_floor": floor, "points_fitted": len(keep), "smallest_normal_eigenvalue": smin,
           "rate_over_smallest_eigenvalue": rate / smin if smin else None}
    series = [{"label": "dist_E1", "x": ts, "y": ds},
              {"label": "numerical floor (flow from theta*)", "x": ts, "y": [floor] * len(ts)}]
    figure = {"title": "thm-3.5: gradient flow from a perturbed theta* (C1)", "xlabel": "t", "ylabel": "distance to E1",
              "yscale": "log", "series": series}
    if floor >= 0.1 * ds[0] or len(keep) < 3:
        return _undecided(row, "the flow is not resolved above its numerical floor", "a larger perturbation"), figure
    # the contraction the Hessian predicts over the horizon is exp(-lambda_min T): a tenth, or half of the predicted
    # log-contraction where a tenth is not expected
    conv = ds[-1] < max(0.1, math.exp(-smin * T / 2)) * ds[0] and rate > 0
    if not conv and smin * T < 1:
        # the horizon is shorter than the slowest normal mode's time constant 1 / lambda_min: neither the
        # contraction nor a non-positive late rate decides anything (the local part is decided by the Hessian)
        return _undecided(row, f"lambda_min T = {smin * T:.3g} < 1: the horizon does not reach the slowest mode's "
                               "exponential regime", "a longer horizon T (at least 1 / lambda_min)"), figure
    if not conv and row["horizon_truncated"]:
        return _undecided(row, f"the flow has not converged within max_steps = {p.max_steps} steps of h = {h:.3g} "
                               f"(horizon {T:.3g})", "a larger max_steps"), figure
    row["passed"] = bool(conv)
    return row, figure


_FLOW_RULE = ("Hessian by a Gauss-Hermite rule refined until two rules agree to 1e-10 x max|H| (or max_nodes); "
              "eigenvalues "
              "<= tol = max(1e-12 x scale, 10 x quadrature error, 10 x |grad R(theta*)|) are zero, those >= 10 x tol "
              "non-zero, any in between -> inconclusive; nullity == d^2+d-1 and the others positive; flow (same rule, "
              "RK4 step <= 1.5 / lambda_max, at most max_steps steps; not converged on a shortened horizon -> "
              "inconclusive): a numerical floor (flow from theta* itself) above 0.1 x the start distance or fewer "
              "than 3 "
              "points above 10 x the floor -> inconclusive; otherwise final dist_E1 < max(0.1, exp(-lambda_min T / 2)) "
              "x initial and a log-linear fit (last third of the points above 10 x floor) with rate > 0 (R^2 "
              "reported); the fit (numerics.lda_dynamics.fit_exp_rate) = scipy.stats.linregress on the same points to "
              "1e-10")


def _symmetric_balanced(values, rng):
    """m_-1 = -m1 with pi_+ = 1/2: Theta1 still holds Bayes points (b* = 0), but DPhi loses rank (Lemma 3.2)."""
    P = N.LDAProblem.from_params(values["lda"])
    if any(P.m1):
        return {"lda": {**P.to_params(), "m_1": [str(-x) for x in P.m1], "pi_plus": "1/2"}}
    return {"lda": {**P.to_params(), "m1": [str(-x) for x in P.m_1], "pi_plus": "1/2"}}  # m1 = 0: mirror m_-1


ASYMMETRIC_MEANS = Assumption("asymmetric-means", "m1 != -m_-1",
                              holds=lambda v: not N.LDAProblem.from_params(v["lda"]).symmetric,
                              violate=_symmetric_balanced)


@claim(id="thm-3.5", title="Morse-Bott at Theta1^reg and local exponential convergence",
       source=f"{SOURCE}, Thm 3.5 / Lemma B.26",
       statement="At theta* in Theta1 with s != 0: ker Hess R = T Theta1 (nullity d^2+d-1), normal eigenvalues > 0; "
                 "gradient flow from nearby converges exponentially", section=SECTION, kind="numeric",
       controls={"wrong-nullity": "expected nullity d^2+d"}, assumptions=(ASYMMETRIC_MEANS, "s(theta*) != 0"),
       profiles={"full": {"T": 2000.0, "h": 0.5, "max_steps": 8000}}, configurations=Draws(draw_lda, quick=1, full=3),
       independence="derived side: integrated gradient flow from perturbed starts; stated side: exponential rate from "
                    "the normal Hessian; shared: the effective risk code")
def thm_3_5(p: Thm35, ctx):
    P = N.LDAProblem.from_params(p.lda)
    th = N.construct_theta1(P)
    z = N.phi(P, th)
    start = {"check": "theta* is a Theta1^reg point", "theta_star": th.tolist(), "zeta_star": z.tolist(),
             "s_star_norm": float(np.linalg.norm(z[P.d + 2:])), **start_check(P, th, "theta1")}
    if not start["passed"]:
        return part("numeric", [start], rule=_FLOW_RULE)
    H, gnorm, qerr, n = hessian_refined(P, th, p.nodes, p.max_nodes)
    expected = P.d * P.d + P.d - 1 + (1 if ctx.control("wrong-nullity") else 0)
    kernel, eigs, smin = _kernel_row(H, gnorm, qerr, n, expected)
    if kernel.get("passed") is not True:  # undecided, or the Hessian contradicts the statement: no flow
        return part("numeric", [start, kernel], rule=_FLOW_RULE)
    flow, figure = _flow_rows(P, th, eigs, smin, n, p, ctx.stream("perturbation"))
    return outcome(part("numeric", [start, kernel, *flow], rule=_FLOW_RULE), figures=[figure])
