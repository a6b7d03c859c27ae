"""fp-risk-threshold: the query-averaged 1/L coefficient of the finite-prompt risk is finite iff lambda* < 1/2;
past it the excess decays like L^(-1/(2 lambda*)) (ln L)^(m/2 - 1 + d) (docs/finite-prompt.md).

Below: the closed form against a query Monte Carlo of K(z) (z-test).  Above: the decay rate through the engine's
:func:`~softmix.checks.fits.decay_rate_decision` against the band of :func:`~softmix.checks.mc_verdict.rate_band`.
The numerics' paths (closed form vs quadrature, threshold_info vs an eigen-decomposition, finiteness at the edges
0.45 / 0.55, both averaging paths past the threshold) are compared on the claim's runs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.numerics import risk as RK, risk_references as RR, risk_simulation as RS
from softmix.numerics.memo import remember
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.precision import workdps
from softmix.theory import finite_prompt_risk as TR

from ..api import claim, decide, outcome, part
from ..configurations import Draws
from ..fits import decay_rate_decision
from ..mc_verdict import RATE_SLOPE_MARGIN, rate_band
from ..rules import AlphaFamily, Residual, ZTest
from . import finite_prompt_risk_draws as DR, finite_prompt_risk_paths as PA
from .finite_prompt_risk import CONTROLS, GAUSS, HEADS, SECTION, SOURCE, TARGET, active_control, averaged_rows

K_QUERY_MC_RELATIVE_MARGIN = 0.05  # below: the query Monte Carlo of E_z K(z), half-width / |E_z K|
THRESHOLD_EDGES = (0.45, 0.55)     # the closed form's finiteness decided right at both sides of 1/2


def gaussian_average_parts(ctx) -> list:
    """The closed form behind every query average: SymPy's integral of exp(s z^2)(alpha + beta z + q z^2) against
    N(mu, sigma^2) equals the stated closed form, and the derived integral at a point drawn from the run's seed
    (mu != 0, alpha, beta, q != 0, s sigma^2 in (0.05, 0.4)) equals numerics.risk.gaussian_exp_quadratic_mean at 40
    digits (mpmath) and to 12 digits (float64) in D = 1."""
    d = remember("fp-risk-threshold.gaussian-average", 0, TR.gaussian_average_derivation)
    sym = decide([d], ctx, kind="lemma", name="symbolic (Gaussian average)")
    rng = ctx.stream("gaussian-average-point")
    r = lambda lo, hi: sp.Rational(int(rng.integers(int(lo * 1000), int(hi * 1000))), 1000)
    sign = lambda x: x if rng.random() < 0.5 else -x
    pt = {"sigma": r(0.5, 1.5), "c": 1 - 2 * r(0.05, 0.4), "alpha": sign(r(0.2, 1.5)), "beta": sign(r(0.2, 1.5)),
          "q": sign(r(0.2, 1.5)), "mu": sign(r(0.2, 1.2))}
    syms = {x.name: x for x in sp.sympify(d.derived).free_symbols}
    derived = sp.N(sp.sympify(d.derived).subs({syms[k]: v for k, v in pt.items() if k in syms}), 45)
    s_val = (1 - pt["c"]) / (2 * pt["sigma"] ** 2)
    with workdps(45):
        m1 = lambda x: mpm.matrix([[mpm.mpf(sp.Rational(x).p) / sp.Rational(x).q]])
        mpv = RK.gaussian_exp_quadratic_mean_mp(m1(s_val), m1(pt["alpha"])[0], m1(pt["beta"]), m1(pt["q"]),
                                                m1(pt["mu"]), m1(pt["sigma"] ** 2))
        dv = mpm.mpf(str(derived))
        fl = RK.gaussian_exp_quadratic_mean([[float(s_val)]], float(pt["alpha"]), [float(pt["beta"])],
                                            [[float(pt["q"])]], [float(pt["mu"])], [[float(pt["sigma"] ** 2)]])
        rows = [{"check": "mpmath closed form vs the derived integral", **Residual(dps=40, guard=5).decide(dv - mpv,
                                                                                                           dv)},
                {"check": "float64 closed form vs the derived integral",
                 **Residual(dps=15, guard=3).decide(dv - mpm.mpf(fl), dv)}]
    return [sym, part("numeric", rows, name="Gaussian average at a seeded point")]


def threshold_edges(gmix, heads_obj, lam0, queries, target):
    """The heads scaled to lambda* = 0.45 and 0.55: the closed form (flag, float64 K, 30-digit K) and every block
    E exp(z^T S_h z), S_h = U_h^T G U_h, are finite below 1/2 and infinite past it."""
    _w, _m, Gt = gmix.arrays()
    qw, qm, qS = queries.arrays()
    rows = []
    for lam in THRESHOLD_EDGES:
        h = RK.parse_heads(RR.scaled_heads(heads_obj, math.sqrt(lam / lam0)), gmix.dim)
        cf = RK.averaged_risk(gmix, h, queries, target)
        cm = RK.averaged_risk(gmix, h, queries, target, dps=30)
        blocks = []
        for hd in h:
            U = hd.arrays()[0]
            S = U.T @ Gt[0] @ U
            blocks += [RK.gaussian_exp_quadratic_mean((S + S.T) / 2, 1.0, np.zeros(gmix.dim),
                                                      np.zeros((gmix.dim,
                                                                gmix.dim)), qm[j], qS[j]) for j in range(len(qw))]
        fin = [bool(cf["finite"]), bool(np.isfinite(float(cf["K"]))), PA.mp_is_finite(cm["K"]),
               bool(all(np.isfinite(blocks)))]
        want = lam < 0.5
        rows.append(PA.holds(f"lambda* = {lam}: finite (flag, float64 K, 30-digit K, every E exp(z^T S_h z)) is {want}",
                             all(f == want for f in fin) if want else not any(fin)))
    return part("numeric", rows, name="finiteness at the threshold's edges")


def past_threshold_link(gmix, heads, queries, target, gaussian_tokens):
    """Past the threshold averaged_risk reports an infinite K on the closed-form (float64, 30 digits) and Monte Carlo
    (the Gaussian as two identical components) paths, the other parts None, while R_inf stays finite and equals its
    Gauss-Hermite quadrature (a quadratic: exact) and its 30-digit value."""
    cf = RK.averaged_risk(gmix, heads, queries, target)
    cfm = RK.averaged_risk(gmix, heads, queries, target, dps=30)
    mc = RK.averaged_risk(RR.duplicated_gaussian(gaussian_tokens, ("0.3", "0.7")), heads, queries, target, n_mc=200,
                          seed=0)
    quad = RR.query_average_by_quadrature(gmix, heads, target, queries, parts=("risk_infinite",))
    none = lambda res: all(res[k] is None for k in ("variance", "cross", "bias_residual"))
    flags = [PA.holds("closed form: K infinite, parts None", cf["K"] == float("inf") and not cf["finite"] and none(cf)),
             PA.holds("closed form (30 digits): K infinite", cfm["K"] == float("inf")),
             PA.holds("Monte Carlo path: K infinite, parts None",
                      mc["method"] == "monte-carlo" and mc["K"] == float("inf")
                      and not mc["finite"] and none(mc) and "K" not in mc["standard_error"])]
    r = float(cf["risk_infinite"])
    diffs = {"R_inf: closed form vs quadrature": (abs(r - quad["values"]["risk_infinite"]) / max(1.0, abs(r))
                                                  if quad["converged"] else None),
             "R_inf: float64 vs 30 digits": abs(r - float(cfm["risk_infinite"])) / max(1.0, abs(r))}
    return PA.agreement("past the threshold: both averaging paths", diffs, flags)


@dataclass
class RiskThreshold:
    gaussian_tokens: dict = field(default_factory=lambda: GAUSS)
    queries: dict = field(default_factory=lambda: {"weights": ["1"], "means": [["0", "0", "0"]],
                                                   "covariances": [[["1", "0.2", "0"], ["0.2", "0.6", "0"],
                                                                    ["0", "0", "0"]]]})
    heads: list = field(default_factory=lambda: HEADS)
    target: dict = field(default_factory=lambda: TARGET)
    lambda_below: float = 0.3
    lambda_above: float = 1.0
    query_samples: int = 100000
    Ls_above: list[int] = field(default_factory=lambda: [100, 400, 1600, 6400])
    queries_above: int = 2000
    #: allowance on the log power of the band (the unknown (1 + c / ln L) corrections)
    log_power_allowance: float = 1.5


def _below(ctx, p, gmix, hb, queries, target, fam, ctl):
    """Below the threshold: the closed form in float64 and at 40 digits, and against an importance-sampled query
    Monte Carlo of K(z) (plain sampling has infinite variance once lambda* >= 1/4; the proposal makes every moment
    finite)."""
    cf = RK.averaged_risk(gmix, hb, queries, target)
    cfm = RK.averaged_risk(gmix, hb, queries, target, dps=40)
    prec = {"check": "K: float64 vs 40 digits", **Residual(dps=15, guard=5).decide(cfm["K"] - cf["K"], cf["K"])}

    def qmc(rng):
        lam_b = float(cf["threshold"])
        Z, iw = RS.sample_queries(queries, p.query_samples, rng, RS.proposal_scale_for(lam_b) if lam_b < 0.5 else 1.0)
        Kz = iw * RK.risk_constants(gmix, hb, target, Z)["K"]
        return float(Kz.mean()), float(Kz.std(ddof=1) / math.sqrt(p.query_samples))
    est, se = ctx.data(("queries", p.query_samples), qmc, params=DR.values(p))
    z = ZTest(fam.split("below-query-monte-carlo", 0.5), margin=K_QUERY_MC_RELATIVE_MARGIN, relative=True,
              name="below: query Monte Carlo of E_z K(z) == closed form")
    pred = DR.averaged_prediction(gmix, hb, queries, target, ctl)
    row = {"lambda": cf["threshold"], "K_compared": pred, "estimate": est, "se": se,
           **z.decide(est, se, pred, n_samples=p.query_samples)}
    return cf, cfm, part("numeric", [prec], name="below: precision"), row


def _above(ctx, p, gmix, ha, queries, target, fam, ctl):
    """Above: E||yhat_L - yhat_inf||^2 over L against the band of L^(-1/(2 lambda*)) (ln L)^beta (finite
    prediction, the mean-query-norm control's: a 1/L decay)."""
    tha = RK.threshold_info(gmix, ha, queries)
    rows = averaged_rows(ctx, p, "above", gmix, ha, target, queries, p.Ls_above, p.queries_above)
    if ctl == "mean-query-norm":  # the point value is finite at every lambda: predicts 1/L
        zc = RK.query_norm_point(queries)
        finite = bool(np.isfinite(RK.risk_constants(gmix, ha, target, zc[None])["K"][0]))
    else:
        finite = bool(tha["finite"])
    beta = tha["log_power"] if tha["log_power"] is not None else 0.5
    band = [-1.0, -1.0] if finite else rate_band(tha["lambda"], beta, p.Ls_above, p.log_power_allowance)
    dec = decay_rate_decision(fam.rest("above-slope"), [r["L"] for r in rows], [r["sq_error"] for r in rows],
                              [r["sq_error_se"] for r in rows], finite, band, p.queries_above,
                              "above: log-log slope of E||yhat_L - yhat_inf||^2", margin=RATE_SLOPE_MARGIN)
    return tha, rows, {"lambda": tha["lambda"], "log_power": tha.get("log_power"), "predicted_finite": finite, **dec}


@claim(id="fp-risk-threshold",
       title="Query-averaged 1/L coefficient: finite iff lambda* < 1/2; past it L^(-1/(2 lambda*)) (ln L)^(m/2 - 1 + "
             "d)",
       source=SOURCE, section=SECTION, kind="monte-carlo",
       statement="Gaussian tokens N(m, G), queries sum_j pi_j N(mu_j, Sigma_j) (singular allowed): E_z K finite iff "
                 "lambda* = max_{h,j} lambda_max(R_j^T U_h^T G U_h R_j) < 1/2; past it the coefficient is infinite and "
                 "the excess decays like L^(-1/(2 lambda*)) (ln L)^(m/2 - 1 + d), m the multiplicity of lambda*, d = 1 "
                 "if the mean shift W_h V_h G U_h R_j is non-zero on its eigenspace (centred query components)",
       assumptions=("Gaussian tokens", "Gaussian-mixture queries", "linear target"),
       profiles={"full": {"queries_above": 20000, "Ls_above": [100, 400, 1600, 6400, 25600],
                          "query_samples": 2000000}},
       controls=CONTROLS, configurations=Draws(DR.draw_threshold, quick=1, full=3),
       derivations=lambda: [TR.gaussian_average_derivation()],
       independence="derived side: simulated query-averaged risks over L, Gauss-Hermite quadrature of the per-query "
                    "constants and an eigen-decomposition of Sigma U^T G U; stated side: finiteness iff lambda* < 1/2 "
                    "(closed form, float64 and 40 digits, every part), the L^(-1/(2 lambda*)) rate past it and its log "
                    "power; shared: nothing")
def fp_risk_threshold(p: RiskThreshold, ctx):
    ctl = active_control(ctx)
    gmix = GaussianMixture.from_json_obj(p.gaussian_tokens, where="gaussian_tokens")
    queries = GaussianMixture.from_json_obj(p.queries, where="queries")
    target = RK.parse_target(p.target, gmix.dim, 2)
    lam0 = RK.threshold_info(gmix, RK.parse_heads(p.heads, gmix.dim), queries)["lambda"]
    hb = RK.parse_heads(RR.scaled_heads(p.heads, math.sqrt(float(p.lambda_below) / lam0)), gmix.dim)
    ha = RK.parse_heads(RR.scaled_heads(p.heads, math.sqrt(float(p.lambda_above) / lam0)), gmix.dim)
    fam = AlphaFamily(name="fp-risk-threshold")
    cf, cfm, prec, below = _below(ctx, p, gmix, hb, queries, target, fam, ctl)
    _tha, rows, above = _above(ctx, p, gmix, ha, queries, target, fam, ctl)
    links = [] if ctl else [
        PA.closed_form_links(gmix, hb, queries, target, cf, cfm, name="below: closed form vs quadrature"),
        PA.threshold_link(gmix, hb, queries, expected=p.lambda_below, name="threshold below"),
        PA.threshold_link(gmix, ha, queries, expected=p.lambda_above, name="threshold above"),
        past_threshold_link(gmix, ha, queries, target, p.gaussian_tokens),
        threshold_edges(gmix, p.heads, lam0, queries, target)]
    mc = part("monte-carlo", [below, above], name="monte-carlo")
    return outcome(mc, prec, *gaussian_average_parts(ctx), *links, per_L_above=rows, alpha=fam.ledger())
