"""fp-risk-lda-bayes-point: a single LDA head at a Bayes point of Sec. 3 (eq. (7), Bayes set E1) on finite prompts:
the first-order excess logistic risk (docs/finite-prompt.md).  The setting is
:func:`softmix.numerics.risk_references.lda_bayes_head`; the constants :func:`.finite_prompt_risk_tasks.lda_constants`.
"""
from __future__ import annotations

import math

import numpy as np

from softmix.numerics import lda as N, lda_finite_prompt as LF, risk as RK

from .. import configs as C
from ..api import claim, outcome, part
from ..configurations import Draws
from ..fits import InverseLRule
from ..reach import Reach
from ..rules import AlphaFamily, Threshold
from . import finite_prompt_risk_draws as DR, finite_prompt_risk_paths as PA
from .finite_prompt_risk import SECTION, SOURCE
from .finite_prompt_risk_tasks import (
    DRAW_LDA_LAMBDA,
    DRAW_LDA_MAX_SPREAD,
    LDA,
    LDA_DRAW_FIRST_ORDER,
    LDA_FIRST_ORDER_MAX,
    LDA_MAX_LAMBDA,
    LDA_RELATIVE_MARGIN,
    lda_constants,
    lda_setting,
)


def lda_effects(v, lambda_only=False):
    """lambda*, and each control's relative effect on K_LDA and the spread (a fixed 20000-query sample, seed 0)."""
    prob, _theta, mix, heads, q, zero = lda_setting(v)
    lam = RK.threshold_info(mix, heads, q)["lambda"]
    if lambda_only:
        return {"lambda": lam}
    x, _y = N.sample(prob, np.random.default_rng(0), 20000)
    k, ku, _e = lda_constants(v, x)
    K, Ku = float(k.mean()), float(ku.mean())
    zc = RK.query_norm_point(q)
    Kq = float(lda_constants(v, zc[None, :prob.d])[0][0])
    return {"lambda": lam, "K": K, "unweighted": abs(Ku - K) / K, "mean-query-norm": abs(Kq - K) / K,
            "spread": float(k.std()) / K}


def draw_lda(rng, v, i):
    """A drawn LDA problem (unequal-norm class means, non-isotropic Gamma, pi_+ != 1/2) and a point of its Bayes set
    (non-symmetric U0, u != 0), kept when lambda* lies in DRAW_LDA_LAMBDA, each control moves K_LDA by at least
    DR.DRAW_MIN_RELATIVE_EFFECT, the spread is at most DRAW_LDA_MAX_SPREAD and K_LDA / min L <= LDA_DRAW_FIRST_ORDER."""
    v = DR.values(v)  # the parameter dataclass (as the engine passes it) or a dict
    d = len(v["problem"]["m1"])
    for _ in range(2000):
        m = C.means(rng, 2, d, norm_range=(0.4, 1.5))
        if np.linalg.norm(np.array(m[0], float) - np.array(m[1], float)) < 0.5:
            continue
        prob = {"m1": m[0], "m_1": m[1], "Gamma": C.spd(rng, d, scale_range=(0.5, 1.5)),
                "pi_plus": C.weights(rng, 2, away=0.2)[0]}
        cand = {"problem": prob, "U0": C.matrix(rng, d, d, -1.0, 1.0, min_asymmetry=0.3), "u": C.vector(rng, d, -0.5,
                                                                                                        0.5)}
        try:
            if not DRAW_LDA_LAMBDA[0] <= lda_effects({**v, **cand}, lambda_only=True)["lambda"] <= DRAW_LDA_LAMBDA[1]:
                continue
            with np.errstate(all="ignore"):
                e = lda_effects({**v, **cand})
        except (np.linalg.LinAlgError, ValueError, ZeroDivisionError):
            continue
        if (np.isfinite(e["K"]) and 0 < e["K"] <= LDA_DRAW_FIRST_ORDER * min(int(L) for L in v["Ls"])
                and e["spread"] <= DRAW_LDA_MAX_SPREAD
                and min(e["unweighted"], e["mean-query-norm"]) >= DR.DRAW_MIN_RELATIVE_EFFECT):
            return cand
    return None


def _query_average(ctx, p, prob, v):
    """(K_LDA, se, unweighted K, se, max |output - Bayes logit|) by Monte Carlo over x (shared with the controls)."""
    def make(rng):
        x, _y = N.sample(prob, rng, p.query_samples)
        k, ku, err = lda_constants(v, x)
        n = p.query_samples
        return (float(k.mean()), float(k.std(ddof=1) / math.sqrt(n)), float(ku.mean()),
                float(ku.std(ddof=1) / math.sqrt(n)), err)
    return ctx.data(("queries", p.query_samples), make, params=v)


@claim(id="fp-risk-lda-bayes-point",
       title="Single LDA head at a Bayes point of Sec. 3: first-order finite-prompt excess logistic risk",
       source=SOURCE + "; Gabet-Boursier-Boyer 2026, Sec. 3 (eq. (7), Bayes set E1)", section=SECTION,
       kind="monte-carlo",
       statement="theta with Phi(theta) in E1 (f_theta = f*): L (R_L(theta) - R*) -> (1/2) E_x[eta(x)(1 - eta(x)) "
                 "v(x)], "
                 "v(x) = rho(a) V C V^T the single head's variance constant at the query (x, 0)",
       assumptions=("tokens (X, Y), X | Y = c ~ N(m_c, Gamma)", "a Bayes point with generic U11 (non-symmetric), "
                    "pi != 1/2", "first order in 1/L"),
       profiles={"full": {"Ls": [100, 400, 1600], "prompts": 100000, "query_samples": 2000000}},
       controls={"unweighted": "Fisher weight eta(1 - eta) replaced by its maximum 1/4",
                 "mean-query-norm": "query average replaced by the value at one query of the mean query norm"},
       configurations=Draws(DR.remembered(draw_lda), quick=1, full=3),
       independence="derived side: simulated finite-prompt logistic risks at a Bayes point; stated side: (1/2) "
                    "E[eta(1 - eta) v(x)] from the variance constant (itself compared with risk_constants_mp and the "
                    "attention operator); shared: the Bayes-point construction")
def fp_risk_lda_bayes_point(p: LDA, ctx):
    v = DR.values(p)
    prob, theta, mix, heads, q, zero = lda_setting(v)
    th = RK.threshold_info(mix, heads, q)
    K, Kse, Ku, Kuse, pred_err = _query_average(ctx, p, prob, v)
    K_true = K  # the first-order regime is a property of the simulated process, not of a control's prediction
    if ctx.control("unweighted"):
        K, Kse = Ku, Kuse
    elif ctx.control("mean-query-norm"):
        K, Kse = float(lda_constants(v, RK.query_norm_point(q)[None, :prob.d])[0][0]), 0.0
    rows = [ctx.data(("lda", int(L), p.prompts), lambda rng, L=int(L): dict(zip(
        ("L", "L_excess", "se"), (lambda m, s: (L, float(L * m), float(L * s)))(
            *LF.excess_risk_mc(prob, theta, L, p.prompts, rng)))), params=v) for L in p.Ls]
    reach = [Reach(LDA_MAX_LAMBDA, "<", name="lambda*", reason="the remainder beyond the first order is too large (and "
                   "the Monte Carlo standard errors unreliable) for a + b/L; choose a Bayes point with smaller lambda*"
                   ).decide(th["lambda"]),
             Reach(LDA_FIRST_ORDER_MAX, "<=", name="K_LDA / min L",
                   reason="the predicted excess at the shortest prompt "
                   f"is not small; use prompt lengths L >= {math.ceil(K_true / LDA_FIRST_ORDER_MAX)}"
                   ).decide(K_true / min(p.Ls))]
    fam = AlphaFamily(name="fp-risk-lda-bayes-point")
    rows_mc = list(reach)
    if all(r["passed"] for r in reach):
        rule = InverseLRule(fam.rest("limit-vs-K_LDA"), margin=LDA_RELATIVE_MARGIN, relative=True,
                            name="limit of L (R_L - R*) == K_LDA (numerics.lda_finite_prompt.excess_risk_mc, an "
                                 "independent simulator; K_LDA's own Monte Carlo error combined)")
        rows_mc.append({"K_LDA": K, "K_se": Kse, **rule.decide([r["L"] for r in rows], [r["L_excess"] for r in rows],
                                                               [r["se"] for r in rows], K, n_samples=p.prompts,
                                                               predicted_se=Kse)})
    det = [Threshold(1e-9, "<", name="distance of Phi(theta) to E1").decide(N.dist_E1(prob, N.phi(prob, theta))),
           Threshold(1e-9, "<", name="infinite-prompt output == Bayes logit (max abs error)").decide(pred_err)]
    links = []
    if not (ctx.control("unweighted") or ctx.control("mean-query-norm")):  # the risk engine's paths at this head
        xq = np.hstack([np.asarray(prob.arrays()[0], float), [0.0]])[None]  # the query (m_1, 0)
        links = [PA.threshold_link(mix, heads, q, th), PA.per_query_links(mix, heads, zero, xq)]
    return outcome(part("monte-carlo", rows_mc, name="monte-carlo"), part("numeric", det, name="Bayes point"), *links,
                   per_L=rows, lambda_star=th["lambda"], K_LDA=K, K_se=Kse, alpha=fam.ledger(),
                   reading="at a Bayes point the infinite-prompt residual is zero, so L (R_L - R*) -> (1/2) E_x[eta (1 "
                           "- eta) L Var f_L(x)] (the logistic loss's curvature times the head's variance constant)")
