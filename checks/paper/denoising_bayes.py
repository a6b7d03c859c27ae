"""Section 4.1 / App. C.1: the Bayes denoiser of a Gaussian mixture.

* ``prop-c.1`` -- eq. (10) (conditioning, Tweedie) and its attention analogue;
* ``remark-c.2`` -- its high- and low-noise limits;
* ``eq-11`` -- the equal-norm form without offsets.
"""
from __future__ import annotations

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.numerics.denoising import DenoisingTask, bayes_denoiser, bayes_denoiser_mp
from softmix.numerics.denoising_references import isotropic_posterior_moments_quadrature, rational_queries
from softmix.numerics.errors import InputError
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.posterior import PosteriorMeanTarget, posterior_mean, posterior_mean_mp
from softmix.numerics.precision import to_mpf, workdps
from softmix.theory import denoising as TD
from softmix.theory.denoising_heads import circle_family_facts

from ..api import Draws, claim, decide, part
from ..rules import Residual
from .denoising_setting import SECTION, SOURCE, TaskParams, draw_task, sym_task, task, violated
from .rows import undecide

#: the task's domain (Sec. 4): refused boundary values and admissible extremes, relative to the Fig. 2 task
_REFUSED: dict[str, dict[str, object]] = {
    "pi1 = 0": {"pi1": "0"}, "pi1 = 1": {"pi1": "1"}, "xi = 0": {"xi": "0"}, "gamma < 0": {"gamma": "-1/2"},
    "m2 = m1": {"m2": [3, 0]}, "dimensions differ": {"m2": [0, 3, 1]}}
_ACCEPTED: dict[str, dict[str, object]] = {
    "pi1 = 1/1000": {"pi1": "1/1000"}, "pi1 = 999/1000": {"pi1": "999/1000"}, "gamma = 0": {"gamma": "0"}}
_FIG2 = {"m1": [3, 0], "m2": [0, 3], "gamma": 1, "xi": 2, "pi1": "0.5"}


def _accepted(over: dict) -> bool:
    try:
        DenoisingTask.from_params({**_FIG2, **over})
        return True
    except InputError:
        return False


def task_domain_row() -> dict:
    """The model's parameter domain as the task constructor enforces it (positive weights, gamma >= 0,
    xi > 0, two distinct means of one dimension): every boundary value outside is refused with an input
    error, the admissible extremes accepted."""
    cases = {name: ("accepted" if _accepted(o) else "refused") for name, o in {**_REFUSED, **_ACCEPTED}.items()}
    ok = all(cases[k] == "refused" for k in _REFUSED) and all(cases[k] == "accepted" for k in _ACCEPTED)
    return {"check": "task domain", "cases": cases, "passed": ok}


def _conditioning_rows(t: DenoisingTask, ctx, dropped_offset: bool) -> list:
    """The conditioning formula (SymPy, exact inputs) against numerics' eq. (10) at 40 digits, and the
    float64 eq. (10) against the same, at random rational queries."""
    d = t.d
    m1, m2, g, x, p = sym_task(t)
    z = sp.Matrix(sp.symbols(f"z_1:{d + 1}"))
    if dropped_offset:
        der = TD.eq10_stated([p, 1 - p], [m1, m2], g**2 * sp.eye(d), x, z, offset=False)
    else:
        der = TD.bayes_denoiser_conditioning([p, 1 - p], [m1, m2], g**2 * sp.eye(d), x, z)
    # the general posterior of numerics.posterior (log det S_k and the full quadratic scores, any covariances)
    # on the clean mixture pi1 N(m1, gamma^2 I) + (1 - pi1) N(m2, gamma^2 I) with noise xi^2 I
    clean = GaussianMixture.from_values([t.pi1, 1 - t.pi1], [list(t.m1), list(t.m2)],
                                        [[[t.gamma**2 if i == j else 0 for j in range(d)] for i in range(d)]] * 2)
    worst, worst_f, worst_g, worst_gf, scale_f = to_mpf(0), 0.0, to_mpf(0), 0.0, 1.0
    with workdps(40):
        for q in rational_queries(ctx.stream("queries"), d, 4):
            val = der.subs({z[i]: sp.Rational(q[i].numerator, q[i].denominator) for i in range(d)})
            f = bayes_denoiser_mp(t, q, 40)
            worst = max(worst, max(abs(mpm.mpf(sp.N(val[i], 50)) - f[i]) for i in range(d)))
            qf = np.array([[float(v) for v in q]])
            ff = bayes_denoiser(t, qf)[0]
            worst_f = max(worst_f, max(abs(float(ff[i]) - float(f[i])) for i in range(d)))
            scale_f = max(scale_f, max(abs(float(f[i])) for i in range(d)))
            g = posterior_mean_mp(clean, t.xi**2, q, 40)
            worst_g = max(worst_g, max(abs(g[i] - mpm.mpf(sp.N(val[i], 50))) for i in range(d)))
            gf = posterior_mean(clean, float(t.xi**2), qf)[0]
            worst_gf = max(worst_gf, max(abs(float(gf[i]) - float(f[i])) for i in range(d)))
    return [{"check": "conditioning (SymPy) == eq. (10) (mpmath, 40 digits)",
             **Residual(dps=40).decide(worst, scale=10)},
            {"check": "numerics.denoising.bayes_denoiser (float64) == the 40-digit eq. (10)",
             **Residual(dps=16, guard=4).decide(worst_f, scale=scale_f)},
            {"check": "numerics.posterior.posterior_mean_mp (general conditioning, 40 digits) == the conditioning",
             **Residual(dps=40).decide(worst_g, scale=10)},
            {"check": "numerics.posterior.posterior_mean (float64) == the 40-digit eq. (10)",
             **Residual(dps=16, guard=4).decide(worst_gf, scale=scale_f)}]


def _unequal_covariance_rows(t: DenoisingTask, ctx, dps: int = 40) -> list:
    """numerics.posterior.posterior_mean_mp where the components' covariances differ (v1 = gamma^2 + 1/4,
    v2 = 2 gamma^2 + 1, times I): with a shared Gamma the det S_k of the general conditioning cancel in the
    gates, so only here is that code decided.  Reference: the definition, by
    numerics.denoising_references.isotropic_posterior_moments_quadrature at dps + 10 digits (one random rational
    query); rule: agreement to dps - 10 digits, inconclusive if the quadratures' relative error estimate
    exceeds that tolerance; and numerics.posterior.posterior_mean (float64, its own code path) to 1e-12.  The
    posterior's trace tr Cov(X | Z = z), the Bayes risk the clean-target risk adds (numerics.posterior's
    PosteriorMeanTarget.conditional_trace, float64), against the same quadratures' second moments."""
    from fractions import Fraction

    v = [t.gamma**2 + Fraction(1, 4), 2 * t.gamma**2 + 1]
    d, rule = t.d, Residual(dps=dps)
    clean = GaussianMixture.from_values([t.pi1, 1 - t.pi1], [list(t.m1), list(t.m2)],
                                        [[[vk if i == j else 0 for j in range(d)] for i in range(d)] for vk in v])
    (q,) = rational_queries(ctx.stream("queries-unequal"), d, 1)
    ref, ref_tr, qerr = isotropic_posterior_moments_quadrature([t.pi1, 1 - t.pi1], [t.m1, t.m2], v, t.xi**2, q,
                                                                dps + 10)
    got = posterior_mean_mp(clean, t.xi**2, q, dps)
    with workdps(dps + 10):
        worst, scale = max(abs(x - y) for x, y in zip(got, ref)), max(abs(x) for x in ref)
    row = {"check": "numerics.posterior.posterior_mean_mp with component covariances (gamma^2 + 1/4) I and "
                    "(2 gamma^2 + 1) I == the definition (coordinatewise quadrature)",
           "variances": [str(x) for x in v], **rule.decide(worst, scale=scale),
           "quadrature_relative_error_estimate": mpm.nstr(qerr, 3)}
    if qerr * max(1, scale) > mpm.mpf(10) ** (rule.guard - rule.dps):
        undecide(row, "quadrature error estimate above the tolerance")
    f64, rule64 = posterior_mean(clean, float(t.xi**2), np.array([[float(x) for x in q]]))[0], Residual(dps=16, guard=4)
    with workdps(dps + 10):
        worst64 = max(abs(mpm.mpf(float(x)) - y) for x, y in zip(f64, ref))
    row64 = {"check": "numerics.posterior.posterior_mean (float64) with those covariances == the definition",
             **rule64.decide(worst64, scale=scale)}
    if qerr * max(1, scale) > mpm.mpf(10) ** (rule64.guard - rule64.dps):
        undecide(row64, "quadrature error estimate above the tolerance")
    noise = tuple(tuple(t.xi**2 if i == j else 0 for j in range(d)) for i in range(d))
    tr = PosteriorMeanTarget(clean, noise, clean=True).conditional_trace(np.array([[float(x) for x in q]]))[0]
    with workdps(dps + 10):
        row_tr = {"check": "tr Cov(X | Z = z) of numerics.posterior (float64, the clean target's Bayes risk) with "
                           "those covariances == the definition (quadrature of the second moments)",
                  "trace": mpm.nstr(ref_tr, 20), **rule64.decide(abs(mpm.mpf(float(tr)) - ref_tr), scale=abs(ref_tr))}
    if qerr * max(1, scale) > mpm.mpf(10) ** (rule64.guard - rule64.dps):
        undecide(row_tr, "quadrature error estimate above the tolerance")
    return [row, row64, row_tr]


def c1_derivations(offset: bool = True) -> list:
    """Eq. (10) by conditioning, Tweedie's formula and the attention display (without the offsets: the
    control's eq. (10) alone)."""
    if not offset:
        return [TD.prop_c1_derivation(offset=False)]
    return [TD.prop_c1_derivation(), TD.tweedie_derivation(), TD.attention_display_derivation()]


@claim(id="prop-c.1", title="Bayes denoiser of a Gaussian mixture (eq. (10)) and its attention analogue",
       source=f"{SOURCE}, Prop. C.1, eq. (10), Sec. 4.1 display", section=SECTION, kind="symbolic",
       statement="E[X|Z=z] = Gamma S^-1 z + xi^2 S^-1 sum_k beta_k(z) m_k with beta_k the posterior probabilities; "
                 "equals Tweedie's z + xi^2 grad log p_Z; T_{U,V}[mu_Z](z) = V S U z + V sum alpha_k m_k.",
       independence="derived side: posterior mean by conditioning Gaussians (SymPy) and Tweedie's formula; stated "
                    "side: eq. (10) (SymPy), and numerics' eq. (10) in mpmath and float64 against the conditioning "
                    "at 40 digits; shared: nothing",
       assumptions=("X ~ sum_k pi_k N(m_k, Gamma)", "Z = X + N(0, xi^2 I) independent", "S = Gamma + xi^2 I"),
       controls={"dropped-offset": "eq. (10) without the offsets -m_k^T S^-1 m_k / 2 (generic means)"},
       configurations=Draws(draw_task(equal_norms=False)),
       derivations=c1_derivations)
def prop_c_1(p: TaskParams, ctx):
    dropped = ctx.control("dropped-offset")
    t = task(p)
    rows = _conditioning_rows(t, ctx, dropped) if t.d <= 4 else []
    rows += [] if dropped or t.d > 4 else _unequal_covariance_rows(t, ctx)  # the control changes eq. (10) only
    rows.append(task_domain_row())
    return [decide(c1_derivations(offset=not dropped), ctx), part("numeric", rows)]


# ---- remark-c.2 ------------------------------------------------------------------------------------
#: the remark's limit values of eq. (10)'s ingredients (sympy.limit decides the derived ones)
_STATED_LIMITS = {"gamma^2/s as xi->oo": 0, "xi^2/s as xi->oo": 1, "score y/s as xi->oo": 0, "gamma^2/s as xi->0+": 1,
                  "xi^2/s as xi->0+": 0, "(gamma=0) gamma^2/s as xi->0+": 0}


def _limit_row(xs, errs, pred: float, what: str) -> dict:
    """Rule fixed in advance: errors strictly decrease, the fitted log-log slope is within 0.2 of the
    predicted rate, the last error is below 1e-6."""
    e = np.array([float(v) for v in errs])
    if np.any(e <= 0):
        return {"limit": what, "passed": bool(np.all(e < 1e-30)), "errors": [mpm.nstr(v, 6) for v in errs]}
    sl = float(np.polyfit(np.log([float(x) for x in xs]), np.log(e), 1)[0])
    ok = bool(np.all(np.diff(e) < 0) and abs(sl - pred) <= 0.2 and e[-1] < 1e-6)
    return {"limit": what, "passed": ok, "slope": round(sl, 4), "predicted_slope": pred,
            "errors": [mpm.nstr(v, 6) for v in errs], "xi": [str(x) for x in xs],
            "rule": "errors decrease, log-log slope within 0.2 of the predicted rate, last error < 1e-6"}


def _noise_limits(t: DenoisingTask, z) -> list:
    from fractions import Fraction

    dps = 40
    hi_xi = [Fraction(10) ** j for j in range(1, 6)]
    lo_xi = [Fraction(1, 10**j) for j in range(1, 6)]
    with workdps(dps):
        prior = [to_mpf(t.pi1 * a + (1 - t.pi1) * b) for a, b in zip(t.m1, t.m2)]
        hi = [max(abs(f[i] - prior[i]) for i in range(t.d))
              for f in (bayes_denoiser_mp(t.with_(xi=x), z, dps) for x in hi_xi)]
        lo = [max(abs(f[i] - to_mpf(z[i])) for i in range(t.d))
              for f in (bayes_denoiser_mp(t.with_(xi=x), z, dps) for x in lo_xi)]
    return [_limit_row(hi_xi, hi, -2.0, "xi -> oo: f* -> sum_k pi_k m_k"),
            _limit_row(lo_xi, lo, 2.0, "xi -> 0: f* -> z")]


@claim(id="remark-c.2", title="High- and low-noise limits of the Bayes denoiser",
       source=f"{SOURCE}, Remark C.2", section=SECTION, kind="numeric",
       statement="xi -> oo: f*(z) -> sum_k pi_k m_k; xi -> 0 with Gamma positive definite: f*(z) -> z "
                 "(not for Gamma = 0).",
       independence="derived side: eq. (10) evaluated at 40 digits for extreme xi, and sympy.limit of its "
                    "ingredients; stated side: the limits sum pi_k m_k and z, and the remark's limit values; "
                    "shared: nothing",
       assumptions=("fixed z, means, Gamma", "Gamma positive definite for the low-noise limit"),
       controls={"gamma-zero-low-noise": "the low-noise limit with Gamma = 0 (assumption dropped)"},
       configurations=Draws(draw_task(equal_norms=False)))
def remark_c_2(p: TaskParams, ctx):
    from fractions import Fraction

    t = task(p)
    if ctx.control("gamma-zero-low-noise"):
        t = t.with_(gamma=0)
    z = [v if v != 0 else Fraction(1, 3) for v in rational_queries(ctx.stream("z"), t.d, 1)[0]]
    rows = _noise_limits(t, z)
    derived = TD.remark_c2_limits()
    lim = {k: {"derived": str(v), "stated": str(_STATED_LIMITS.get(k)),
               "equal": k in _STATED_LIMITS and sp.simplify(v - _STATED_LIMITS[k]) == 0} for k, v in derived.items()}
    rows.append({"limit": "the ingredients' limits (sympy.limit) == the remark's", "limits": lim,
                 "passed": set(derived) == set(_STATED_LIMITS) and all(r["equal"] for r in lim.values())})
    return part("numeric", [{**r, "query": [str(v) for v in z], "gamma": str(t.gamma)} for r in rows])


# ---- eq-11 -------------------------------------------------------------------------------------------
def _eq11_residual(t: DenoisingTask, ctx):
    """max |eq. (10) - eq. (11)| (no offsets) at random rational queries, 40 digits."""
    worst = to_mpf(0)
    with workdps(40):
        s = to_mpf(t.s)
        for q in rational_queries(ctx.stream("z"), t.d, 4):
            f = bayes_denoiser_mp(t, q, 40)
            z = [to_mpf(v) for v in q]
            sc = [mpm.log(to_mpf(pk)) + mpm.fsum(to_mpf(a) * b for a, b in zip(m, z)) / s
                  for pk, m in ((t.pi1, t.m1), (1 - t.pi1, t.m2))]
            b1 = 1 / (1 + mpm.exp(sc[1] - sc[0]))
            c, a = to_mpf(t.gamma**2 / t.s), to_mpf(t.xi**2 / t.s)
            g = [c * z[i] + a * (b1 * to_mpf(t.m1[i]) + (1 - b1) * to_mpf(t.m2[i])) for i in range(t.d)]
            worst = max(worst, max(abs(f[i] - g[i]) for i in range(t.d)))
    return worst


@claim(id="eq-11", title="Equal-norm form of the Bayes denoiser",
       source=f"{SOURCE}, Sec. 4.1, eq. (11)", section=SECTION, kind="symbolic",
       statement="With Gamma = gamma^2 I and ||m1|| = ||m2||: f*(z) = gamma^2/(gamma^2+xi^2) z + "
                 "xi^2/(gamma^2+xi^2) sum beta_k m_k, beta = softmax(log pi_k + m_k^T z / (gamma^2+xi^2)).",
       independence="derived side: eq. (10) (conditioning, proven in prop-c.1); stated side: eq. (11) without "
                    "offsets; the symbolic families' equal norms / non-collinearity / unequal norms decided exactly; "
                    "shared: nothing",
       assumptions=("Gamma = gamma^2 I", "||m1|| = ||m2||"),
       controls={"unequal-norms": "drop ||m1|| = ||m2|| (m2 scaled by 2 / generic unequal norms)"},
       configurations=Draws(draw_task(equal_norms=True)),
       derivations=lambda: [TD.eq11_derivation()])  # the check: the same, equal_norm=False in the control
def eq_11(p: TaskParams, ctx):
    t = task(p)
    unequal = ctx.control("unequal-norms")
    if not t.equal_norm and not unequal:
        return part("numeric", [violated("||m1|| != ||m2||")])
    fam = circle_family_facts()
    families = part("symbolic", [{"check": "the symbolic families are what they are said to be", **fam,
                                  "passed": True if fam["passed"] else None}], name="symbolic families")
    tt = t.with_(m2=[v * 2 for v in t.m2]) if unequal else t
    row = {"check": "eq. (11) == eq. (10) at the task, 40 digits",
           **Residual(dps=40).decide(_eq11_residual(tt, ctx), scale=10)}
    return [decide([TD.eq11_derivation(equal_norm=not unequal)], ctx), families, part("numeric", [row])]
