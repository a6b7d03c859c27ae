"""Beyond the paper: the predecessor (Boursier & Boyer 2026) and neighbouring results (issue 7).

Claims: bb-prop-3.1 (output concentration, with the L = 1 boundary slip), fp-query-averaged-rate
(query-averaged finite-prompt error across the exp-moment threshold, Gaussian and mixture tokens),
bb-thm-5.1 (in-context regression: risk, gradient flow, conserved quantity, balanced limit,
finite-prompt transfer), smart-2025-mixture (denoising with an atomic clean prompt) and
zfb-linear-flow (linear attention on in-context regression, Gamma_N).

Monte Carlo data are generated from streams keyed on (seed, claim, keys) but *not* on the control
variant (a variant-free copy of the context), so a negative control sees the same data and only
changes the prediction; simulated data are cached across the claim and its controls.
"""
from __future__ import annotations

import dataclasses
import json
import math

import mpmath as mpm
import numpy as np
import sympy as sp
from scipy import stats

from softmix.numerics import beyond as NB
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.precision import exact_floats, workdps
from softmix.theory import beyond as TB

from .. import configs as C
from ..api import decide_one
from ..configs import generic
from ..registry import Claim, Control, Outcome, register
from ..fits import InverseLRule, SlopeRule, decay_rate_decision, fit_loglog_slope, mean_se_dof
from ..rules import AlphaFamily, ZTest, combine, residual_test, z_critical

SECTION = "beyond"
#: fp-query-averaged-rate above the threshold: half-width margin of the slope interval (declared up front; the
#: value fp-risk-threshold declares for the same rule)
RATE_SLOPE_MARGIN = 0.25
_CACHE: dict = {}


# ---- helpers ------------------------------------------------------------------------------------
def _data_rng(ctx, *keys) -> np.random.Generator:
    """Stream keyed on (seed, claim, keys), identical for the claim and its negative controls."""
    return dataclasses.replace(ctx, variant=None).rng(*keys)


def _cached(ctx, params, tag, fn):
    key = (ctx.claim_id, ctx.seed, tag, json.dumps(params, sort_keys=True, default=str))
    if key not in _CACHE:
        _CACHE[key] = fn()
    return _CACHE[key]


def decide(d, ctx, digits: int = 30):
    """The engine's :func:`softmix.checks.api.decide_one` (exact-0 shortcut, counterexample search,
    simplification) at this claim's seed."""
    return decide_one(d, ctx.int_seed("sym", d.name) % 10**6, digits)


def _symbolic(derivs, ctx):
    rows, ok, refuted = [], True, False
    for d in derivs:
        key = ("sym", ctx.claim_id, ctx.seed, d.name)
        if key not in _CACHE:
            _CACHE[key] = decide(d, ctx)
        status, info = _CACHE[key]
        rows.append({"derivation": d.name, "status": status, **info})
        ok &= status == "proven"
        refuted |= status == "refuted"
    return ok, refuted, rows


def _arr(x):
    return np.array([[float(sp.Rational(str(v))) for v in r] for r in x])


def _gaussian_mix(G):
    D = len(G)
    return GaussianMixture.from_values([1], [[0] * D], [[[str(v) for v in r] for r in G]])


# =================================================================================================
# fp-query-averaged-rate
# =================================================================================================
RATE_DEFAULTS = {
    "Gamma": [["1", "0.3"], ["0.3", "0.6"]],
    "Sigma_nu": [["1", "-0.2"], ["-0.2", "0.8"]],
    "U_direction": [["1", "0.4"], ["0", "0.8"]],
    "V": [["1", "0"], ["0", "1"]],
    "lambda_below": 0.15,
    "lambdas_above": [1.0],
    "Ls_below": [100, 400, 1600],
    "Ls_above": [100, 400, 1600, 6400],
    "queries_below": 6000,
    "queries_above": 4000,
    "log_power_max": 1.0,
    "mixture": {"weights": ["0.5", "0.5"], "means": [["1", "0"], ["-0.5", "0.5"]],
                "covariances": [[["1", "0.3"], ["0.3", "0.6"]], [["0.5", "0"], ["0", "0.3"]]]},
    "L_mixture": 1600,
    "queries_mixture": 4000,
    "quadrature_nodes": 40,
}


def _rate_config(params):
    G, S, U0, V = (_arr(params[k]) for k in ("Gamma", "Sigma_nu", "U_direction", "V"))
    return G, S, U0, V


def _scaled_U(mix, S, U0, lam):
    return U0 * math.sqrt(lam / NB.threshold_lambda(mix, S, U0))


def _query_study(ctx, params, tag, mix, S, U, V, Ls, nq, lam=None):
    """Monte Carlo of the query-averaged MSE E_z E||T[mu_hat_L](z) - T[mu](z)||^2, z ~ N(0, S), one
    fresh prompt per query.  With ``lam`` (the threshold lambda of U, below 1/2) the queries are
    importance-sampled from N(0, s^2 S), s = numerics.risk.proposal_scale_for(lam), with weights
    phi_S / phi_{s^2 S}: the per-query error grows like exp(lam |zeta|^2) in the whitened query, so plain
    sampling has a finite k-th moment only while k lam < 1/2 -- for lam in (1/8, 1/4) the standard
    error is unreliable and the mean is skewed low (seed 4242 refuted the true mixture constant,
    z = -4.2).  The weighted mean is unbiased (exact), every moment is finite."""
    def run():
        from softmix.numerics.risk_simulation import proposal_scale_for, sample_queries

        D = S.shape[0]
        qmix = GaussianMixture.from_values([1], [[0] * D], [S.tolist()])
        scale = proposal_scale_for(float(lam)) if lam is not None and float(lam) < 0.5 else 1.0
        rows = []
        for L in Ls:
            rng = _data_rng(ctx, tag, int(L))
            Z, iw = sample_queries(qmix, int(nq), rng, scale)
            e = iw * NB.simulate_query_errors(mix, U, V, Z, int(L), rng)
            rows.append({"L": int(L), "mse": float(e.mean()), "mse_se": float(e.std(ddof=1) / math.sqrt(nq)),
                         "L_mse": float(L * e.mean()), "L_mse_se": float(L * e.std(ddof=1) / math.sqrt(nq)),
                         "query_proposal_scale": scale})
        return rows
    return _cached(ctx, params, tag, run)


def _log_band(lam, Ls, beta):
    """Secant-slope band for L^(-1/(2 lam)) (ln L)^b with |b| <= beta over [L_min, L_max]."""
    lo, hi = math.log(min(Ls)), math.log(max(Ls))
    w = beta * (math.log(hi) - math.log(lo)) / (hi - lo)
    p = -1 / (2 * lam)
    return [p - w, p + w]


def _draw_rate(rng, params, i):
    """A drawn configuration for fp-query-averaged-rate: D = 2 or 3, non-isotropic Gamma and Sigma_nu
    (full rank: the threshold is defined through Sigma_nu^(1/2)), a non-symmetric direction of U, a
    non-identity V with singular values in [0.5, 2], and a two-component mixture with weights away
    from 1/2, unequal-norm means and one singular covariance.  U is rescaled to each lambda by the
    check, so only its direction is drawn."""
    D = int(rng.choice([2, 3]))
    while True:
        V = C.matrix(rng, D, low=-1.0, high=1.0)
        sv = np.linalg.svd(np.array(V, float), compute_uv=False)
        if sv.min() > 0.5 and sv.max() < 2.0:
            break
    while True:
        U0 = C.matrix(rng, D, low=-1.0, high=1.0)
        sv = np.linalg.svd(np.array(U0, float), compute_uv=False)
        if sv.min() > 0.2 * sv.max():
            break
    return {"Gamma": C.spd(rng, D, scale_range=(0.3, 1.5)), "Sigma_nu": C.spd(rng, D, scale_range=(0.3, 1.5)),
            "U_direction": U0, "V": V,
            "mixture": C.mixture(rng, 2, D, singular=1, norm_range=(0.3, 1.2))}


@generic(_draw_rate)
def _check_rate(params, ctx):
    G, S, U0, V = _rate_config(params)
    mix = _gaussian_mix(params["Gamma"])
    v = ctx.variant
    # --- symbolic: Gaussian integrals, per-query constant, 1-D averaged constant --------------
    derivs = [TB.gauss_exp_quadratic_1d_derivation(), TB.gauss_exp_quadratic_2d_derivation(),
              TB.gauss_exp_quadratic_poly_derivation(2), TB.per_query_constant_gaussian_derivation(2),
              TB.query_averaged_constant_1d_derivation()]
    sym_ok, sym_ref, sym_rows = _symbolic(derivs, ctx)
    # --- closed form vs quadrature (precision-derived tolerance of a float64 rule) -----------
    lam_b = float(params["lambda_below"])
    Ub = _scaled_U(mix, S, U0, lam_b)
    cf = NB.gaussian_averaged_constant(G, S, Ub, V)
    # any dimension: tensor Gauss-Hermite while it fits, else importance-sampled Monte Carlo over queries
    quad = NB.averaged_constant(mix, S, Ub, V, n=int(params["quadrature_nodes"]), rng=_data_rng(ctx, "quad-gauss"))
    undecided = []
    # alpha: equal shares for the below-threshold slope, the below-threshold constant, the above-threshold
    # slopes, the mixture constant and (when the Gaussian constant is importance-sampled) that z-test
    # (plus, always, the importance-sampled branch of averaged_constant against the closed form)
    n_parts = 5 if quad["method"] == "quadrature" else 6
    fam = AlphaFamily()
    if quad["method"] == "quadrature":
        qtest = residual_test(abs(quad["value"] - cf["K"]), dps=15, scale=cf["K"], guard=6)
        if quad["error_estimate"] > 1e-9 * cf["K"]:  # the rule's own tolerance is out of reach: cannot decide
            undecided.append("Gaussian quadrature error estimate above 1e-9 K")
            qtest = {**qtest, "passed": None, "reason": "quadrature error estimate above its tolerance: undecided"}
        q_verdict = {True: "confirmed", False: "refuted", None: "inconclusive"}[qtest["passed"]]
    else:
        qtest = ZTest(fam.take("gaussian-constant-importance-sampled", n_parts),
                      name="importance-sampled K vs closed form").decide(quad["value"], quad["standard_error"], cf["K"])
        q_verdict = qtest["verdict"]
    # every branch of the closed form, and its 40-digit twin: at lambda_below, at a lambda drawn from the
    # run's seed in (1/4, 1/2) (finite there; sampling would need lambda < 1/4, the closed form does not),
    # and past 1/2 (infinite)
    rb = np.linalg.cholesky(S)  # any root R R^T = Sigma_nu: independent of sym_sqrt
    lam_mid = 0.26 + 0.22 * float(_data_rng(ctx, "lambda-mid").random())
    branch, lam_rows = [], []
    for lam_x in (lam_b, lam_mid):
        Ux = _scaled_U(mix, S, U0, lam_x)
        lam_rows.append(_lambda_row(lam_x, Ux, [G], S, cf if lam_x == lam_b else None))
        cfx = NB.gaussian_averaged_constant(G, S, Ux, V)
        Kmp = NB.gaussian_averaged_constant_mp(*exact_floats([G, rb, Ux, V]), dps=40)
        r = residual_test(abs(mpm.mpf(cfx["K"]) - Kmp) if cfx["finite"] else mpm.inf, dps=15, scale=Kmp, guard=4)
        branch.append({"lambda": lam_x, "finite": cfx["finite"], "K_float64": cfx["K"], "K_40_digits": mpm.nstr(Kmp, 30),
                       **r})
    lam_x = float(params["lambdas_above"][0])
    Ux = _scaled_U(mix, S, U0, lam_x)
    lam_rows.append(_lambda_row(lam_x, Ux, [G], S))
    cfx = NB.gaussian_averaged_constant(G, S, Ux, V)
    # past the threshold the averaged constant is infinite, for the closed form and for the sampling branch
    mc_above = NB.averaged_constant(mix, S, Ux, V, max_points=0, mc_samples=1000, rng=_data_rng(ctx, "is-above"))
    branch.append({"lambda": lam_x, "finite": cfx["finite"], "K_float64": cfx["K"],
                   "importance_sampled_value": mc_above["value"],
                   "passed": not cfx["finite"] and mc_above["value"] == float("inf")})
    branch_ok = all(b["passed"] for b in branch)
    # the importance-sampled branch of averaged_constant (used when the tensor rule does not fit) at lambda_below
    mc_b = NB.averaged_constant(mix, S, Ub, V, max_points=0, mc_samples=100000, rng=_data_rng(ctx, "is-gauss"))
    is_test = ZTest(fam.take("gaussian-constant-importance-sampling-branch", n_parts), margin=0.02, relative=True,
                    name="importance-sampled K (averaged_constant's sampling branch) vs closed form").decide(
        mc_b["value"], mc_b["standard_error"], cf["K"])
    # per-query constants (vectorised float64) against the 50-digit finite-prompt constants of numerics.finite_prompt
    # (an independent implementation), for the Gaussian tokens and the mixture, at a few seeded queries
    mmix0 = GaussianMixture.from_json_obj(params["mixture"], where="fp-query-averaged-rate mixture")
    pq_rows = []
    if mmix0.dim == S.shape[0]:
        from softmix.numerics.finite_prompt import finite_prompt_constants_mp

        Zc = _data_rng(ctx, "per-query").standard_normal((3, S.shape[0])) @ rb.T
        for name, mx, Ux in (("gaussian", mix, Ub), ("mixture", mmix0, _scaled_U(mmix0, S, U0, lam_b))):
            vals = NB.per_query_mse_constants(mx, Ux, V, Zc)
            ref = [float(finite_prompt_constants_mp(mx, *exact_floats([Ux, V, z]), 50)["mse"]) for z in Zc]
            err = max(abs(a - b) for a, b in zip(vals, ref))
            pq_rows.append({"tokens": name, "float64": [float(x) for x in vals], "50_digits": ref,
                            **residual_test(err, 16, scale=max(abs(x) for x in ref), guard=4)})
    pq_ok = all(r["passed"] for r in pq_rows)
    lam_ok = all(r["passed"] for r in lam_rows)
    predicted_K = cf["K"]
    if v == "dropped-mean-shift":
        predicted_K = cf["K_without_mean_shift"]
    # --- below the threshold: 1/L with constant K ---------------------------------------------
    rows_b = _query_study(ctx, params, "below", mix, S, Ub, V, params["Ls_below"], params["queries_below"], lam=lam_b)
    nq_b = int(params["queries_below"])
    slope_rule_b = SlopeRule(fam.take("below-slope", n_parts), target=-1.0, remainder=len(rows_b) >= 3,
                             name="below: log-log slope of the query-averaged MSE")
    sb = slope_rule_b.decide([r["L"] for r in rows_b], [r["mse"] for r in rows_b], [r["mse_se"] for r in rows_b], nq_b)
    fit_b = sb.get("fit") or {"slope": None, "ci": None}
    const_rule_b = InverseLRule(fam.take("below-constant", n_parts), margin=0.25, relative=True,
                                name="below: limit of L*MSE (a + b/L over the prompt lengths)")
    ztest_b = const_rule_b.decide([r["L"] for r in rows_b], [r["L_mse"] for r in rows_b],
                                  [r["L_mse_se"] for r in rows_b], predicted_K, nq_b)
    below_v = combine(sb, ztest_b, q_verdict, "confirmed" if branch_ok else "refuted", is_test,
                      "confirmed" if (pq_ok and lam_ok) else "refuted")
    below = {"lambda_max": cf["lambda_max"], "U": Ub.tolist(), "closed_form_K": cf["K"],
             "closed_form_branches": {"rows": branch, "passed": branch_ok,
                                      "rule": "float64 closed form == its 40-digit mpmath twin to 10^(4-15) relative "
                                              "where lambda < 1/2 (at lambda_below and at a seeded lambda in (1/4, "
                                              "1/2)); infinite for lambda > 1/2 (no alpha)"},
             "K_compared": predicted_K, "quadrature_check": {**qtest, **quad}, "per_L": rows_b,
             "importance_sampling_branch": {**is_test, "value": mc_b["value"], "standard_error": mc_b["standard_error"],
                                            "samples": mc_b.get("samples"), "tau2": mc_b.get("tau2")},
             "per_query_constants": {"rows": pq_rows, "passed": pq_ok,
                                     "rule": "numerics.beyond.per_query_mse_constants == tr of the covariance of "
                                             "numerics.finite_prompt.finite_prompt_constants_mp (50 digits) to 1e-12 "
                                             "relative (no alpha)"},
             "lambda_of_scaled_U": {"rows": lam_rows, "passed": lam_ok,
                                    "rule": "the scaled U realises the requested lambda: max_k of the largest real "
                                            "eigenvalue of U^T G_k U Sigma_nu (np.linalg.eigvals, no square root) == "
                                            "lambda to 1e-9 relative"},
             "predicted_exponent": -1.0, "measured_exponent": fit_b["slope"], "exponent_ci": fit_b["ci"],
             "slope_fit": fit_b, "slope_test": sb, "constant_test": ztest_b,
             "verdict": below_v}
    # --- above the threshold: L^(-1/(2 lambda)) up to logarithmic factors ----------------------
    above, above_verdicts = [], []
    fam_above = fam.sub("above", 1 / n_parts)
    for lam in params["lambdas_above"]:
        Ua = _scaled_U(mix, S, U0, float(lam))
        rows = _query_study(ctx, params, ("above", lam), mix, S, Ua, V, params["Ls_above"], params["queries_above"])
        # the same rate rule as fp-risk-threshold (fits.decay_rate_decision): a slope interval with no
        # goodness-of-fit test (the statement allows logarithmic factors). The query-averaged MSE is a sum of
        # non-negative parts, c/L from the queries where the expansion holds and L^(-1/(2 lambda)) (ln L)^b from
        # the tail of the queries, so at reachable L its local slope is a weighted average of the two: the
        # interval must lie above -1 (containing -1 is inconclusive) and meet [min(-1, band[0]), band[1]].
        # (The first rule required overlap with the band itself; the full profile of the default refuted the
        # true statement at lambda = 1.5 with [-0.58, -0.51] against the band [-0.48, -0.19].)
        a_lam = fam_above.take(f"lambda={lam}", len(params["lambdas_above"]))
        naive = v == "naive-rate-above"
        pred = -1 / (2 * float(lam)) if not naive else -1.0
        band = _log_band(float(lam), params["Ls_above"], float(params["log_power_max"])) if not naive else [-1.0, -1.0]
        dec = decay_rate_decision(a_lam, [r["L"] for r in rows], [r["mse"] for r in rows], [r["mse_se"] for r in rows],
                                  naive, band, int(params["queries_above"]), f"above: lambda = {lam:g}",
                                  margin=RATE_SLOPE_MARGIN)
        fit = dec.get("fit") or {"slope": None, "ci": None}
        above_v = dec["verdict"]
        above_verdicts.append(above_v)
        above.append({"lambda_max": float(lam), "U": Ua.tolist(), "per_L": rows, "predicted_exponent": pred,
                      "prediction_band_log_factors": band, "measured_exponent": fit["slope"], "alpha": a_lam,
                      "exponent_ci": fit["ci"], "slope_fit": fit, "slope_test": dec, "verdict": above_v})
    # --- mixture tokens below the threshold ----------------------------------------------------
    mmix = GaussianMixture.from_json_obj(params["mixture"], where="fp-query-averaged-rate mixture")
    if mmix.dim != S.shape[0]:
        from softmix.numerics.errors import InputError
        raise InputError(f"fp-query-averaged-rate: mixture has dimension {mmix.dim}, Gamma has {S.shape[0]}")
    Um = _scaled_U(mmix, S, U0, lam_b)
    lam_m = _lambda_row(lam_b, Um, list(mmix.arrays()[2]), S)
    fn = None
    if v == "dropped-mean-shift":  # same mistake for mixtures: C without the mean-shift outer products
        fn = lambda Z: _no_shift_values(mmix, Um, V, Z)
    mq = NB.averaged_constant(mmix, S, Um, V, n=int(params["quadrature_nodes"]), rng=_data_rng(ctx, "quad-mix"), fn=fn)
    Km = mq["value"]
    Lm, nqm = int(params["L_mixture"]), int(params["queries_mixture"])
    rows_m = _query_study(ctx, params, "mixture", mmix, S, Um, V, [Lm], nqm, lam=lam_b)
    # one prompt length: the O(1/L) remainder is not modelled (it is O(1/L_mixture), L_mixture large)
    mrule = ZTest(fam.take("mixture-constant", n_parts), margin=0.25, relative=True, name="mixture: L*MSE at L_mixture")
    if mq["method"] == "quadrature":
        ztest_m = mrule.decide(rows_m[0]["L_mse"], rows_m[0]["L_mse_se"], Km, nqm)
        if mq["error_estimate"] > 1e-6 * abs(Km):  # out of reach: inconclusive, not refuted
            undecided.append("mixture quadrature error estimate above 1e-6 K")
    else:  # both sides random: combined standard error
        ztest_m = mrule.decide(rows_m[0]["L_mse"], math.hypot(rows_m[0]["L_mse_se"], mq["standard_error"]), Km, nqm)
    if not lam_m["passed"]:
        ztest_m = {**ztest_m, "verdict": "refuted", "reason": "the scaled U does not realise lambda_below"}
    mixture = {"threshold_lambda": NB.threshold_lambda(mmix, S, Um), "lambda_of_scaled_U": lam_m, "U": Um.tolist(),
               "averaged_constant_quadrature": mq, "K_compared": Km, "per_L": rows_m, "test": ztest_m,
               "threshold_rule": "E_nu rho(Uz) < oo iff max_k lambda_max(S U^T G_k U S) < 1/2 (rho ~ exp(max_k a^T G_k a))",
               "verdict": ztest_m["verdict"]}
    ev = {"symbolic": sym_rows, "below_threshold": below, "above_threshold": above, "mixture_tokens": mixture,
          "alpha": fam.ledger(),
          "rule": (f"below (lambda < 1/2): {slope_rule_b.describe()}; {const_rule_b.describe()}; above: the slope CI "
                   "(normal quantile, known SEs, one equal share of alpha split over the lambdas) lies above -1 "
                   "(containing -1 is inconclusive) and meets [min(-1, band_lo), band_hi], the slopes a sum of a 1/L part "
                   "and L^(-1/(2 lambda)) (ln L)^b parts can show, band = -1/(2 lambda) +- beta_max (lnln L_max - lnln "
                   "L_min)/(ln L_max - ln L_min) (|b| <= beta_max); half-width <= 0.25 to confirm; mixture: z-test of L*MSE against K_mix (quadrature, or importance-sampled "
                   "in high dimension); each part gets an equal share of the family-wise alpha = 1e-3 (ledger in 'alpha'); "
                   "an unreachable quadrature tolerance is inconclusive"),
          "reading": ("tokens N(0, Gamma) (mixture extension: sum_k pi_k N(m_k, G_k)), queries z ~ N(0, Sigma_nu), one fresh "
                      "L-token prompt per sampled query, error against the infinite-prompt T[mu](z)")}
    if sym_ref:
        return Outcome("refuted", ev)
    verdict = combine(below["verdict"], *above_verdicts, mixture["verdict"],
                      "confirmed" if sym_ok else "inconclusive")
    if verdict == "refuted":
        return Outcome("refuted", ev)
    if undecided:  # an unreachable quadrature tolerance decides nothing
        ev["undecided"] = undecided
        return Outcome("inconclusive", ev)
    return Outcome(verdict, ev)


def _lambda_row(target, U, Gs, Sigma, cf=None) -> dict:
    """max_k lambda_max(Sigma^(1/2) U^T G_k U Sigma^(1/2)) computed as the largest real eigenvalue of the
    similar matrix U^T G_k U Sigma (no square root), against the lambda U was scaled to (and, when given,
    the closed form's own lambda_max)."""
    lam = max(float(np.max(np.linalg.eigvals(U.T @ Gk @ U @ Sigma).real)) for Gk in Gs)
    ok = abs(lam - target) <= 1e-9 * target and (cf is None or abs(cf["lambda_max"] - target) <= 1e-9 * target)
    return {"requested": target, "eigvals_of_UT_G_U_Sigma": lam,
            "closed_form_lambda_max": None if cf is None else cf["lambda_max"], "passed": bool(ok)}


def _no_shift_values(mix, U, V, Z):
    """Control, per query: rho(Uz) tr(V sum_k w_k(2a) G_k V^T) (mean-shift outer products dropped), any D."""
    from softmix.numerics.attention import log_gates, tilted_moments

    A = np.asarray(Z, float) @ U.T
    _w, _m, G = mix.arrays()
    s1, _ = tilted_moments(mix, A)
    s2, _ = tilted_moments(mix, 2 * A)
    lse = lambda s: s.max(1) + np.log(np.exp(s - s.max(1, keepdims=True)).sum(1))
    rho = np.exp(lse(s2) - 2 * lse(s1))
    w2 = np.exp(log_gates(s2))
    tr = np.array([np.trace(V @ g @ V.T) for g in G])
    return rho * (w2 @ tr)


register(Claim(
    id="fp-query-averaged-rate",
    independence="derived side: simulated finite prompts averaged over queries, tensor quadrature and importance sampling of the per-query constants (checked against finite_prompt_constants_mp); stated side: K in closed form (float64 and 40 digits), 1/L and L^(-1/(2 lambda)) rates; shared: nothing",
    title="Query-averaged finite-prompt error: 1/L below the exp-moment threshold, L^(-1/(2 lambda)) above",
    source="issue 7 (our own first analysis), notes/finite-prompt.md; derived here",
    statement=("tokens N(0, Gamma), queries N(0, Sigma_nu), lambda = lambda_max(Sigma_nu^(1/2) U^T Gamma U Sigma_nu^(1/2)). "
               "If lambda < 1/2: L E_nu||T_L - T||^2 -> K = det(I-2B)^(-1/2)[tr(V Gamma V^T) + tr((I-2B)^(-1) Q)], "
               "B = S U^T Gamma U S, Q = S U^T Gamma V^T V Gamma U S. If lambda > 1/2: E_nu||T_L - T||^2 = "
               "L^(-1/(2 lambda)) up to logarithmic factors. Mixtures: K_mix = E_nu[rho tr(V C V^T)], finite iff "
               "max_k lambda_max(S U^T G_k U S) < 1/2"),
    section=SECTION, check=_check_rate, kind="monte-carlo",
    assumptions=("zero-mean Gaussian tokens (mixture extension below the threshold)", "Gaussian queries",
                 "first order in 1/L below the threshold; 'up to logarithmic factors' above (|log power| <= 1)"),
    defaults=RATE_DEFAULTS,
    profiles={"quick": {}, "full": {"lambdas_above": [0.75, 1.0, 1.5], "Ls_above": [100, 400, 1600, 6400, 25600],
                                    "queries_above": 20000, "queries_below": 30000, "Ls_below": [100, 400, 1600, 6400],
                                    "queries_mixture": 20000}},
    controls=(Control("dropped-mean-shift", "averaged constant without the (Gamma a)(Gamma a)^T mean-shift term"),
              Control("naive-rate-above", "delta-method 1/L rate predicted above the threshold as well")),
    derivations=lambda: [TB.gauss_exp_quadratic_1d_derivation(), TB.gauss_exp_quadratic_2d_derivation(),
                         TB.gauss_exp_quadratic_poly_derivation(2), TB.per_query_constant_gaussian_derivation(2),
                         TB.query_averaged_constant_1d_derivation()],
))


# =================================================================================================
# bb-prop-3.1
# =================================================================================================
PROP31_DEFAULTS = {
    "dim": 2,
    "sigmas": [0.75, 1.0, 1.25],
    "U_norms": [0.5, 1.0],
    "U_shape": [["1", "0"], ["0", "0.5"]],
    "Ls_fit": [2, 8, 32, 128, 512],
    "L_holdout": 2048,
    "queries": 2000,
    "queries_L1": 20000,
}


def _draw_prop31(rng, params, i):
    """A drawn non-symmetric, non-diagonal shape of U (the paper's is diagonal), of full rank and not
    close to rank one (singular values within a factor 4), normalised by its operator norm in the check."""
    D = int(params["dim"])
    for _ in range(1000):
        U = C.matrix(rng, D, D, -1.0, 1.0, min_asymmetry=0.3)
        sv = np.linalg.svd(np.array([[float(x) for x in r] for r in U]), compute_uv=False)
        if sv[-1] > 0 and sv[0] / sv[-1] <= 4 and all(float(x) != 0 for r in U for x in r):
            return {"U_shape": U}
    return None


@generic(_draw_prop31)
def _check_prop31(params, ctx):
    v = ctx.variant
    D = int(params["dim"])
    shape = _arr(params["U_shape"])
    shape = shape / np.linalg.norm(shape, 2)
    Ls = [int(L) for L in params["Ls_fit"]]
    if v == "literal-L1":
        Ls = [1] + Ls
    Lh = int(params["L_holdout"])
    nq = int(params["queries"])
    configs, findings = [], []
    for sig in params["sigmas"]:
        for un in params["U_norms"]:
            G = (float(sig) ** 2) * np.eye(D)
            mix = GaussianMixture.from_values([1], [[0] * D], [(G).tolist()])
            U = float(un) * shape
            lam = float(sig) ** 2 * float(un) ** 2
            rows = _query_study(ctx, params, ("prop31", sig, un), mix, np.eye(D), U, np.eye(D),
                                sorted(set([1] + Ls + [Lh])), nq)  # L = 1 always simulated (same data for controls)
            configs.append({"sigma": float(sig), "U_norm": float(un), "lambda_max": lam, "rows": rows})
    # alpha: half to the exponent checks (one slope interval per configuration), half to the held-out
    # one-sided z-tests (one per configuration); c1's upper confidence values are a construction, not a test
    fam = AlphaFamily()
    fam_expo, fam_hold = fam.sub("exponent", 0.5), fam.sub("holdout", 0.5)
    z1 = z_critical(len(configs))
    # 1. exponents: fit on the L >= 2 grid, bound exponent c2 / sigma^2 must not exceed the decay rate
    for c in configs:
        fr = [r for r in c["rows"] if r["L"] in Ls and r["L"] >= 2]
        c["fit"] = fit_loglog_slope([r["L"] for r in fr], [r["mse"] for r in fr], [r["mse_se"] for r in fr],
                                    alpha=fam_expo.take(f"sigma={c['sigma']},U={c['U_norm']}", len(configs)))
        c["theory_exponent"] = -min(1.0, 1 / (2 * c["lambda_max"]))
    c2 = min(c["sigma"] ** 2 * max(0.0, -c["fit"]["ci"][1]) for c in configs)
    # bound exponent; control 'delta-rate' claims the delta-method rate 1/L for every configuration
    expo = (lambda c: 1.0) if v == "delta-rate" else (lambda c: c2 / c["sigma"] ** 2)
    # 2. c1 from the fit grid (upper confidence values); the literal bound at L = 1 (SymPy: ln 1 = 0 whatever the
    #    constants) is what the L = 1 rows are compared with
    bound_at_1 = TB.l1_bound_value()
    bound_L1 = float(bound_at_1) if not bound_at_1.free_symbols else None
    c1, l1_violations = 0.0, []
    for c in configs:
        for r in c["rows"]:
            if r["L"] not in Ls:
                continue
            up = r["mse"] + z1 * r["mse_se"]
            if r["L"] == 1:
                l1_violations.append({"sigma": c["sigma"], "U_norm": c["U_norm"], "mse_L1": r["mse"], "se": r["mse_se"],
                                      "bound_L1": bound_L1,
                                      "z": None if bound_L1 is None else (r["mse"] - bound_L1) / r["mse_se"]})
                continue
            need = up / (c["sigma"] ** 6 * math.log(r["L"]) * r["L"] ** (-expo(c))) if c2 > 0 else math.inf
            c1 = max(c1, need)
    # 3. held-out test at L_holdout: one-sided z-tests, Bonferroni over configurations
    a_hold = [fam_hold.take(f"sigma={c['sigma']},U={c['U_norm']}", len(configs)) for c in configs]
    zc = float(stats.norm.isf(a_hold[0]))  # one-sided, equal shares
    holdout, hold_ok = [], c2 > 0 and math.isfinite(c1)
    for c in configs:
        r = next(r for r in c["rows"] if r["L"] == Lh)
        bound = c1 * c["sigma"] ** 6 * math.log(Lh) * Lh ** (-expo(c)) if hold_ok else 0.0
        z = (r["mse"] - bound) / r["mse_se"]
        holdout.append({"sigma": c["sigma"], "U_norm": c["U_norm"], "mse": r["mse"], "se": r["mse_se"],
                        "bound": bound, "z": z, "passed": bool(z <= zc)})
        hold_ok &= z <= zc
    # the bound's exponent may not exceed any configuration's measured decay (else it fails as L -> oo)
    exponent_rows = [{"sigma": c["sigma"], "U_norm": c["U_norm"], "bound_exponent": expo(c),
                      "steepest_measured_decay": -c["fit"]["ci"][0], "passed": bool(expo(c) <= -c["fit"]["ci"][0])}
                     for c in configs]
    exponent_ok = all(r["passed"] for r in exponent_rows)
    # exact L = 1 value (symbolic) for the finding
    d1 = TB.l1_error_derivation(D)
    st1, info1 = decide(d1, ctx)
    l1_rows = []
    for c in configs:
        r = next(r for r in c["rows"] if r["L"] == 1)
        exact = D * c["sigma"] ** 2 + c["sigma"] ** 4 * float(np.sum((c["U_norm"] * shape) ** 2))
        l1_rows.append({"sigma": c["sigma"], "U_norm": c["U_norm"], "mse_L1_mc": r["mse"], "se": r["mse_se"],
                        "mse_L1_exact": exact, "z": (r["mse"] - exact) / r["mse_se"]})
    literal_refuted = bool(l1_violations) and all(x["z"] is not None and x["z"] > zc for x in l1_violations)
    findings.append({"finding": "boundary slip at L = 1",
                     "detail": ("the literal right-hand side c1 sigma^6 ln L / L^(c2/sigma^2) equals "
                                f"{sp.sstr(bound_at_1)} at L = 1 for all constants, while the exact L = 1 error is "
                                "sigma^2 ||V||_F^2 + sigma^4 ||V U||_F^2 > 0 (derivation status: " + st1 + "); the "
                                "statement must be read for L >= 2 (or with ln L replaced by ln(L) + 1)."),
                     "smallest_counterexample": {"L": 1, "D": D, "sigma": 1, "U": "0", "V": "I",
                                                 "mse": D, "bound": 0},
                     "L1_measured_vs_exact": l1_rows})
    findings.append({"finding": "exponent structure",
                     "detail": ("the asymptotic decay exponent is -min(1, 1/(2 sigma^2 ||U||_op^2)) (exp-moment threshold, see "
                                "fp-query-averaged-rate); secant exponents over the fitted L range are steeper above the "
                                "threshold (slow, O(1/ln L), approach). Any valid c2 satisfies c2 <= min(sigma^2, 1/(2||U||_op^2)) "
                                "over the sweep, so c2 depends on ||U|| and on the smallest sigma, and the bound's exponent "
                                "c2/sigma^2 is sharp only above the threshold with c2 = 1/(2||U||_op^2)."),
                     "per_config": [{"sigma": c["sigma"], "U_norm": c["U_norm"], "lambda_max": c["lambda_max"],
                                     "measured_exponent": c["fit"]["slope"], "ci": c["fit"]["ci"],
                                     "theory_exponent": c["theory_exponent"]} for c in configs]})
    per_sigma = {}
    for c in configs:
        r = next(r for r in c["rows"] if r["L"] == 2)
        per_sigma.setdefault(c["sigma"], []).append(r["mse"] / (c["sigma"] ** 6 * math.log(2)))
    findings.append({"finding": "sigma^6 prefactor",
                     "detail": ("at fixed L the error is ~ sigma^2 tr(V V^T)/L as sigma -> 0, so c1 must grow like "
                                "sigma^-4: constants exist only on sweeps with sigma bounded below. Required c1 at L = 2 "
                                "(no decay factor) per sigma: " + json.dumps({str(k): max(vv) for k, vv in per_sigma.items()}))})
    ev = {"reading": ("tokens N(0, sigma^2 I_D), queries nu = N(0, I_D), V = I, U = ||U|| * fixed shape; E is over prompts "
                      "and queries (one fresh prompt per sampled query). Intended statement: there exist c1, c2 > 0, "
                      "independent of (sigma, ||U||) over the sweep, with E||T_L - T||^2_{L2(nu)} <= c1 sigma^6 ln L / "
                      "L^(c2/sigma^2) for all L >= 2. Decided by fitting (c1, c2) on the L grid (c2 from the least steep end "
                      "of each slope CI, c1 from upper confidence values) and testing the bound at a held-out larger L."),
          "c1": c1 if math.isfinite(c1) else "inf", "c2": c2, "holdout_L": Lh, "holdout": holdout,
          "exponent_check": exponent_rows,
          "per_config": [{k: c[k] for k in ("sigma", "U_norm", "lambda_max", "rows", "fit", "theory_exponent")} for c in configs],
          "L1_exact": {"status": st1, **info1}, "findings": findings, "alpha": fam.ledger(),
          "rule": ("confirmed iff c2 > 0, the bound exponent c2/sigma^2 does not exceed the steepest end of any "
                   "configuration's slope interval (normal quantile, known SEs, alpha/2 split over the configurations), "
                   "and every held-out one-sided z-test (alpha/2 split over the configurations) passes; a zero or "
                   "non-finite standard error is inconclusive")}
    if any(not (r["se"] > 0 and math.isfinite(r["se"])) for r in holdout):
        return Outcome("inconclusive", ev)
    if v == "literal-L1":
        ev["L1_violations"] = l1_violations
        return Outcome("refuted" if literal_refuted else "confirmed", ev)
    # the L = 1 finding rests on two exact facts: the literal bound vanishes at L = 1 and the exact L = 1 error
    # (derived from the MGF second moments) is sigma^2 ||V||_F^2 + sigma^4 ||V U||_F^2 > 0
    ev["L1_finding_premises"] = {"literal_bound_at_L1": str(bound_at_1), "bound_is_zero": bound_L1 == 0.0,
                                 "exact_L1_error_derivation": st1}
    if st1 == "refuted":
        return Outcome("refuted", ev)
    if bound_L1 != 0.0 or st1 != "proven":
        return Outcome("inconclusive", ev)
    return Outcome("confirmed" if hold_ok and c2 > 0 and exponent_ok else "refuted", ev)


register(Claim(
    id="bb-prop-3.1",
    independence="derived side: simulated output concentration and the exact L = 1 error from MGF moments; stated side: the predecessor's bound c1 sigma^6 ln L / L^(c2/sigma^2) (evaluated at L = 1 by SymPy); shared: nothing",
    title="Predecessor's output concentration E||T[mu_hat_L] - T[mu]||^2 <= c1 sigma^6 ln L / L^(c2/sigma^2)",
    source="Boursier & Boyer, ICML 2026, Prop. 3.1 (text not available: reading stated in the evidence)",
    statement="E||T[mu_hat_L] - T[mu]||^2_{L2(nu)} <= c1 sigma^6 ln L / L^(c2/sigma^2) (tested for L >= 2; L = 1 is a boundary slip)",
    section=SECTION, check=_check_prop31, kind="monte-carlo",
    assumptions=("tokens N(0, sigma^2 I)", "queries nu = N(0, I)", "V = I", "L >= 2 (intended statement)"),
    defaults=PROP31_DEFAULTS,
    profiles={"quick": {}, "full": {"sigmas": [0.75, 1.0, 1.25, 1.5], "U_norms": [0.5, 1.0, 1.5], "queries": 10000,
                                    "L_holdout": 8192, "Ls_fit": [2, 8, 32, 128, 512, 2048]}},
    controls=(Control("literal-L1", "the statement as literally written, including L = 1 (ln 1 = 0)"),
              Control("delta-rate", "bound exponent 1 (delta-method rate c1 sigma^6 ln L / L) for every (sigma, ||U||)")),
    derivations=lambda: [TB.l1_error_derivation(2)],
))


# =================================================================================================
# bb-thm-5.1
# =================================================================================================
THM51_DEFAULTS = {
    "Sigma": [["1", "0.25"], ["0.25", "0.5"]],
    "alpha_fraction": 0.5,
    "mp_horizon": 0.25,
    "dps": 30,
    "float_horizon": 400.0,
    "transfer_Ls": [4, 16, 64, 256],
    "transfer_Sigma_1d": 1.0,
    "transfer_train": 4000,
    "transfer_test": 8000,
    "unbalanced_b_factor": 0.5,
}


def _draw_thm51(rng, params, i):
    """A drawn non-diagonal Sigma (distinct eigenvalues in [0.3, 2], so that the float flow converges within
    its horizon) and an alpha inside the stated range (a fraction in [0.2, 0.9] of the bound)."""
    D = len(params["Sigma"])
    for _ in range(1000):
        S = C.spd(rng, D)
        Sf = np.array([[float(x) for x in r] for r in S])
        ev = np.linalg.eigvalsh(Sf)
        if 0.3 <= ev.min() and ev.max() <= 2.0 and all(Sf[a, b] != 0 for a in range(D) for b in range(D)):
            return {"Sigma": S, "alpha_fraction": float(C.rational(rng, 0.2, 0.9))}
    return None


@generic(_draw_thm51)
def _check_thm51(params, ctx):
    v = ctx.variant
    Sig_s = sp.Matrix([[sp.Rational(str(x)) for x in r] for r in params["Sigma"]])
    Sig = np.array(Sig_s.tolist(), dtype=float)
    d = Sig.shape[0]
    opn = float(np.linalg.norm(Sig, 2))
    alpha_max = math.sqrt(2) / (d ** 0.25 * opn)
    alpha = float(params["alpha_fraction"]) * alpha_max
    fac = float(params["unbalanced_b_factor"]) if v == "unbalanced-init" else 1.0
    A0, b0 = NB.balanced_init(alpha, d, fac)
    conserved0 = float(np.sum(A0**2) - b0**2)
    # --- symbolic ------------------------------------------------------------------------------
    c_sym = sp.Rational(0) if v != "unbalanced-init" else sp.nsimplify(conserved0, rational=True)
    derivs = [TB.regression_risk_derivation(2), TB.conservation_derivation(2),
              TB.balanced_limit_derivation(sp.Matrix([[sp.Symbol("s", positive=True)]]), 0),
              TB.balanced_limit_derivation(Sig_s, c_sym)]
    sym_ok, sym_ref, sym_rows = _symbolic(derivs, ctx)
    # gradient used numerically == SymPy gradient (at a rational point)
    R, As, bs, Ss, dA, db = TB.regression_flow(d)
    pt = {bs: sp.Rational(3, 7)}
    pt.update({Ss[i, j]: Sig_s[i, j] for i in range(d) for j in range(d)})
    Ar = sp.Matrix(d, d, lambda i, j: sp.Rational(i + 2 * j + 1, 5))
    pt.update({As[i, j]: Ar[i, j] for i in range(d) for j in range(d)})
    gA, gb = NB.regression_grad(np.array(Ar.tolist(), float), 3 / 7, Sig)
    gres = max(np.max(np.abs(gA + np.array(dA.subs(pt).tolist(), float))), abs(gb + float(db.subs(pt))))
    # the risk used numerically == the SymPy risk (proven equal to the derived one) at the same point
    gres = max(gres, abs(float(NB.regression_risk(np.array(Ar.tolist(), float), 3 / 7, Sig)) - float(R.subs(pt))))
    gtest = residual_test(gres, dps=15, scale=1, guard=3)
    # --- high precision, short horizon: conservation and risk decrease --------------------------
    dps = int(params["dps"])
    T1 = float(params["mp_horizon"])

    def mp_run():
        return NB.flow_mp(*exact_floats([A0, b0, Sig, T1]), dps)  # the float flow's own start
    Am, bm = _cached(ctx, {**params, "fac": fac}, "mp-flow", mp_run)
    with workdps(dps):
        A0m = mpm.matrix(A0.tolist())
        inv0 = mpm.fsum(x**2 for x in A0m) - mpm.mpf(b0) ** 2
        inv1 = mpm.fsum(Am[i, j] ** 2 for i in range(d) for j in range(d)) - bm**2
        ctest = residual_test(inv1 - inv0, dps, scale=1)
    # the dps-digit Taylor flow (its own right-hand side) against the float64 DOP853 flow of regression_grad
    # over the same short horizon (rtol 1e-11): the flows agree to 1e-9 x max(1, |b|)
    Af1, bf1, _s1 = NB.flow_float(A0, b0, Sig, T1)
    fdist = max(max(abs(float(Am[i, j]) - Af1[i, j]) for i in range(d) for j in range(d)), abs(float(bm) - bf1))
    ctest["vs_float64_flow"] = {**residual_test(fdist, dps=11, scale=abs(bf1), guard=2),
                                "risk_float64_at_horizon": float(NB.regression_risk(Af1, bf1, Sig))}
    ctest["passed"] = bool(ctest["passed"] and ctest["vs_float64_flow"]["passed"])
    # --- float64 long horizon: limit ---------------------------------------------------------
    Af, bf, sol = NB.flow_float(A0, b0, Sig, float(params["float_horizon"]))
    Astar, bstar = NB.stated_limit(Sig)
    dist = float(max(np.max(np.abs(Af - Astar)), abs(bf - bstar)))
    ltest = residual_test(dist, dps=11, scale=bstar, guard=3)  # solve_ivp rtol = 1e-11
    risk_end = float(NB.regression_risk(Af, bf, Sig))
    # above the stated alpha range: finding (does the limit survive?)
    A0b, b0b = NB.balanced_init(3 * alpha_max, d)
    Ab, bb, _ = NB.flow_float(A0b, b0b, Sig, float(params["float_horizon"]))
    dist_big = float(max(np.max(np.abs(Ab - Astar)), abs(bb - bstar)))
    # --- finite-prompt transfer (d = 1) -----------------------------------------------------------
    s2 = float(params["transfer_Sigma_1d"])

    def transfer():
        return [NB.train_finite_prompt_regression(int(L), s2, int(params["transfer_train"]), int(params["transfer_test"]),
                                                  _data_rng(ctx, "transfer", int(L))) for L in params["transfer_Ls"]]
    trows = _cached(ctx, params, "transfer", transfer)
    fam = AlphaFamily()
    trule = SlopeRule(fam.rest("transfer-slope"), target=0.0, mode="below", gof=False,
                      name="transfer: log-log slope of the held-out risk")
    tdec = trule.decide([r["L"] for r in trows], [r["test_risk"] for r in trows], [r["test_risk_se"] for r in trows])
    tfit = tdec.get("fit") or {}
    transfer_v = combine(tdec, "confirmed" if trows[-1]["test_risk"] < trows[0]["test_risk"] else "refuted")
    num_ok = gtest["passed"] and ctest["passed"] and ltest["passed"] and transfer_v == "confirmed"
    ev = {"symbolic": sym_rows, "gradient_vs_sympy": gtest,
          "initialisation": {"A0": A0.tolist(), "b0": b0, "alpha": alpha, "alpha_bound": alpha_max,
                             "conserved_quantity": conserved0,
                             "reading": "A(0) = alpha I_d / sqrt(d), b(0) = alpha (balanced: ||A(0)||_F = b(0))"},
          "mp_flow": {"horizon": T1, "conservation": ctest, "risk_at_horizon": mpm.nstr(
              _mp_risk(Am, bm, Sig, dps), 20), "risk_at_0": float(NB.regression_risk(A0, b0, Sig))},
          "float_flow": {"horizon": float(params["float_horizon"]), "A_T": Af.tolist(), "b_T": bf,
                         "stated_A_star": Astar.tolist(), "stated_b_star": bstar, "limit_test": ltest,
                         "risk_at_T": risk_end, "nfev": int(sol.nfev)},
          "transfer": {"per_L": trows, "risk_slope_fit": tfit, "slope_test": tdec, "infinite_prompt_min_risk": 0.0,
                       "verdict": transfer_v, "alpha": fam.ledger(),
                       "rule": "held-out risk of the trained layer decreases with L towards the infinite-prompt minimum 0: "
                               + trule.describe()},
          "findings": [{"finding": "stated limit is consistent",
                        "detail": ("SymPy: R >= 0 vanishes iff b Sigma A = I; with ||A||_F^2 - b^2 = 0 this gives b^4 = tr(Sigma^-2), "
                                   "so b* = tr(Sigma^-2)^(1/4), A* = tr(Sigma^-2)^(-1/4) Sigma^-1 as stated (no discrepancy; "
                                   "d = 1: b* = A* = s^(-1/2)). An unbalanced start (||A||^2 - b^2 = c != 0) gives b*^4 + c b*^2 = tr(Sigma^-2).")},
                       {"finding": "alpha range",
                        "detail": f"from alpha = 3 x the stated bound the float flow ends at distance {dist_big:.2e} from the stated limit "
                                  "(the bound on alpha looks sufficient, not necessary, for this initialisation)."}],
          "rule": ("symbolic derivations proven; SymPy gradient and risk == numeric ones; conservation residual at dps "
                   "digits <= 10^(10-dps) and the dps-digit flow == the float64 flow at the short horizon to 1e-9; "
                   "float flow within 10^(3-11) * b* of the stated limit; transfer slope CI < 0")}
    if sym_ref or not (gtest["passed"] and ctest["passed"] and ltest["passed"]) or transfer_v == "refuted":
        return Outcome("refuted", ev)
    if not num_ok:
        return Outcome("inconclusive", ev)
    return Outcome("verified" if sym_ok else "confirmed", ev)


def _mp_risk(A, b, Sig, dps):
    with workdps(dps):
        S = mpm.matrix(Sig.tolist())
        M = b * S * A - mpm.eye(S.rows)
        X = M * S * M.T
        return mpm.fsum(X[i, i] for i in range(S.rows)) / 2


register(Claim(
    id="bb-thm-5.1",
    independence="derived side: integrated gradient flow (mpmath Taylor and float64 DOP853), the risk derived from the attention map; stated side: R(A, b), conserved ||A||_F^2 - b^2, balanced limit; shared: nothing",
    title="In-context regression: risk R(A,b), gradient flow, conserved ||A||_F^2 - b^2, balanced limit",
    source="Boursier & Boyer, ICML 2026, Thm 5.1 (and Sec. 5 dynamics)",
    statement=("R(A,b) = 1/2 tr((b Sigma A - I) Sigma (b Sigma A - I)^T); ||A||_F^2 - b^2 is conserved by the gradient "
               "flow; from the balanced initialisation with 0 < alpha < sqrt(2)/(d^(1/4) ||Sigma||_op) the flow converges to "
               "b* = tr(Sigma^-2)^(1/4), A* = tr(Sigma^-2)^(-1/4) Sigma^-1; finite-prompt training approaches it as L grows"),
    section=SECTION, check=_check_thm51, kind="symbolic",
    assumptions=("tokens (x, w^T x), x ~ N(0, Sigma), w ~ N(0, I_d), query (x_q, 0)", "preserved blocks (A, b)",
                 "A(0) = alpha I / sqrt(d), b(0) = alpha"),
    defaults=THM51_DEFAULTS,
    profiles={"quick": {}, "full": {"mp_horizon": 1.0, "dps": 40, "transfer_Ls": [4, 16, 64, 256, 1024],
                                    "transfer_train": 20000, "transfer_test": 40000}},
    controls=(Control("unbalanced-init", "b(0) = alpha/2: ||A(0)||_F^2 - b(0)^2 != 0, stated limit compared"),),
    derivations=lambda: [TB.regression_risk_derivation(2), TB.conservation_derivation(2),
                         TB.balanced_limit_derivation(sp.Matrix([[sp.Symbol("s", positive=True)]]))],
))


# =================================================================================================
# smart-2025-mixture
# =================================================================================================
SMART_DEFAULTS = {
    "means": [["1", "0"], ["0", "1"], ["-0.6", "-0.8"]],
    "weights": ["0.2", "0.3", "0.5"],
    "sigma2": "0.5",
    "queries": 3,
    "Ls": [800, 3200, 12800],
    "reps": 4000,
}


def _draw_smart(rng, params, i):
    """Within the statement (equal-norm centres): three exactly equal-norm, pairwise non-collinear centres in
    the given dimension, rescaled exactly to a drawn norm r in [0.6, 1.2], weights distinct and != 1/3, and a
    drawn sigma^2 in [0.3, 0.8] (r^2 / sigma^2 <= 4.8: the softmax over the prompt stays in the regime where
    the L grid shows the L^(-1/2) rate)."""
    from fractions import Fraction

    D = len(params["means"][0])
    ms = C.means(rng, 3, D, equal_norms=True)
    n2 = sum(Fraction(x) ** 2 for x in ms[0])
    num, den = math.isqrt(n2.numerator), math.isqrt(n2.denominator)
    if num * num != n2.numerator or den * den != n2.denominator:
        return None  # the equal-norm draws have rational norms (Pythagorean coordinates); keep the rescaling exact
    t = Fraction(C.rational(rng, 0.6, 1.2, 2)) / Fraction(num, den)
    return {"means": [[str(Fraction(x) * t) for x in m] for m in ms], "weights": C.weights(rng, 3),
            "sigma2": C.rational(rng, 0.3, 0.8, 2)}


@generic(_draw_smart)
def _check_smart(params, ctx):
    v = ctx.variant
    sym = [TB.denoising_derivation(3, 2, equal_norms=v != "unequal-norms",
                                   temperature=sp.Integer(1) if v == "noise-variance-dropped" else None)]
    sym_ok, sym_ref, sym_rows = _symbolic(sym, ctx)
    means = _arr(params["means"])
    if v == "unequal-norms":
        means = means * np.array([[1.0], [1.0], [1.5]])  # third centre moved off the sphere
    w = np.array([float(x) for x in params["weights"]])
    s2 = float(sp.Rational(params["sigma2"]))
    U = np.eye(means.shape[1]) / s2 if v != "noise-variance-dropped" else np.eye(means.shape[1])
    rng = _data_rng(ctx, "queries")
    lab = rng.choice(len(w), size=int(params["queries"]), p=w)
    Z = means[lab] + math.sqrt(s2) * rng.standard_normal((int(params["queries"]), means.shape[1]))
    Z = _arr([[str(x) for x in r] for r in np.round(Z, 3)])  # noisy queries as short decimals (same for every variant)
    post = NB.posterior_mean(means, w, Z, s2)
    # the float64 posterior mean against Bayes' rule built by SymPy (sympy.stats densities) at the same exact inputs
    post_ref = _posterior_reference(means, w, Z, params["sigma2"])
    post_rt = residual_test(float(np.abs(post - post_ref).max()), dps=16, scale=float(np.abs(post_ref).max()), guard=4)
    # exact smallest counterexample for the control (unequal norms, D = 1)
    rows, all_ok = [], True
    fam = AlphaFamily()  # one slope rule (interval + goodness of fit) per query, equal shares
    verdicts = []
    for j, z in enumerate(Z):
        per = []
        for L in params["Ls"]:
            out = NB.atomic_prompt_outputs(means, w, z, U, int(L), int(params["reps"]), _data_rng(ctx, "prompt", j, int(L)))
            sq = ((out - post[j]) ** 2).sum(1)
            per.append({"L": int(L), "rmse": float(np.sqrt(sq.mean())),
                        "rmse_se": float(sq.std(ddof=1) / math.sqrt(len(sq)) / (2 * np.sqrt(sq.mean()))),
                        "se_dof": mean_se_dof(sq)})
        srule = SlopeRule(fam.take(f"query-{j}", len(Z)), target=-0.5, margin=0.1, remainder=len(per) >= 4,
                          name=f"query {j}: log-log slope of the RMSE")
        # the standard errors are estimated from the squared errors, whose tails are heavy: Student and F
        # quantiles with their effective degrees of freedom (fits.mean_se_dof), not normal and chi-square
        dec = srule.decide([r["L"] for r in per], [r["rmse"] for r in per], [r["rmse_se"] for r in per],
                           int(params["reps"]), se_dof=[r["se_dof"] for r in per])
        verdicts.append(dec)
        ok = dec["passed"]
        all_ok &= bool(ok)
        rows.append({"query": z.tolist(), "posterior_mean": post[j].tolist(), "per_L": per,
                     "slope_fit": dec.get("fit"), "slope_test": dec, "passed": ok})
    ce = None
    if v == "unequal-norms":
        mm, ww, zz = np.array([[0.0], [1.0]]), np.array([0.5, 0.5]), np.array([[0.0]])
        ce = {"D": 1, "means": [0, 1], "weights": [0.5, 0.5], "sigma2": 1, "z": 0,
              "posterior_mean": float(NB.posterior_mean(mm, ww, zz, 1.0)[0, 0]), "attention": 0.5,
              "exact": "posterior = e^(-1/2)/(1 + e^(-1/2)) = 0.3775..., attention = 1/2"}
    ev = {"symbolic": sym_rows, "finite_prompt": rows, "U": U.tolist(), "sigma2": s2, "alpha": fam.ledger(),
          "posterior_mean_vs_sympy": {**post_rt, "rule": "numerics.beyond.posterior_mean (float64) == "
                                      "theory.beyond.posterior_mean_derived at the queries to 1e-12 relative"},
          "rule": ("symbolic identity posterior mean == head output proven for equal norms; per query (alpha split "
                   "equally over the queries), the RMSE of the finite atomic prompt against the posterior mean: "
                   + (rows[0]["slope_test"]["rule"] if rows else ""))}
    if ce:
        ev["smallest_counterexample"] = ce
    mc_v = combine(*verdicts)
    if sym_ref or mc_v == "refuted" or not post_rt["passed"]:
        return Outcome("refuted", ev)
    if mc_v != "confirmed":
        return Outcome("inconclusive", ev)
    return Outcome("verified" if sym_ok else "confirmed", ev)


def _posterior_reference(means, w, Z, sigma2):
    """E[X | z] by theory.beyond.posterior_mean_derived (Bayes' rule with sympy.stats Normal densities) at the
    float inputs read as exact rationals, evaluated at 30 digits."""
    R = lambda x: sp.Rational(repr(float(x)))
    ms = [sp.Matrix([R(x) for x in m]) for m in means]
    ws = [R(x) for x in w]
    sig = sp.sqrt(sp.Rational(str(sigma2)))
    out = []
    for z in Z:
        pm = TB.posterior_mean_derived(ms, ws, sp.Matrix([R(x) for x in z]), sig)
        out.append([float(sp.N(v, 30)) for v in pm])
    return np.array(out)


register(Claim(
    id="smart-2025-mixture",
    independence="derived side: Bayes' rule with sympy.stats densities and attention on an atomic prompt by simulation; stated side: the head U = I/sigma^2, V = I and numerics' float64 posterior mean; shared: nothing",
    title="Denoising with an atomic clean prompt: one softmax head U = I/sigma^2, V = I is the Bayes posterior mean",
    source="in-context denoising (Smart et al. 2025 setting); Gabet-Boursier-Boyer 2026 Sec. 4 context",
    statement=("clean prompt sum_k pi_k delta_{m_k} with ||m_k|| = r, query z = x + N(0, sigma^2 I): T_{I/sigma^2, I}[prompt](z) "
               "= E[x | z]; the finite-prompt head converges to it at rate L^(-1/2)"),
    section=SECTION, check=_check_smart, kind="symbolic",
    assumptions=("equal-norm centres", "noise variance sigma^2 known"),
    defaults=SMART_DEFAULTS,
    profiles={"quick": {}, "full": {"queries": 8, "reps": 20000, "Ls": [800, 3200, 12800, 51200]}},
    controls=(Control("unequal-norms", "centres of unequal norms (third centre scaled by 1.5)"),
              Control("noise-variance-dropped", "U = I instead of I/sigma^2 (sigma^2 = 1/2)")),
    derivations=lambda: [TB.denoising_derivation(3, 2)],
))


# =================================================================================================
# zfb-linear-flow
# =================================================================================================
ZFB_DEFAULTS = {
    "Lambda": [["1", "0.3", "0"], ["0.3", "0.7", "0.1"], ["0", "0.1", "0.4"]],
    "Ns": [3, 10],
    "samples": 100000,
    "flow_horizon": 4000.0,
}


def _draw_zfb(rng, params, i):
    """A drawn non-isotropic, non-diagonal Lambda (distinct eigenvalues) with eigenvalues in [0.3, 2], so that
    the gradient flow (rate ~ lambda_min^3) converges within the horizon and the losses stay of order one."""
    D = len(params["Lambda"])
    for _ in range(1000):
        L = C.spd(rng, D)
        ev = np.linalg.eigvalsh(np.array([[float(x) for x in r] for r in L]))
        if 0.3 <= ev.min() and ev.max() <= 2.0:
            return {"Lambda": L}
    return None


@generic(_draw_zfb)
def _check_zfb(params, ctx):
    v = ctx.variant
    if ("zfb-derivations", v) not in _CACHE:  # built once per variant (the drawn configurations share them)
        _CACHE[("zfb-derivations", v)] = [TB.zfb_moment_derivation(2), TB.zfb_minimiser_derivation(2, v),
                                          TB.zfb_min_loss_derivation(2, v)]
    sym_ok, sym_ref, sym_rows = _symbolic(_CACHE[("zfb-derivations", v)], ctx)
    Lam = _arr(params["Lambda"])
    d = len(Lam)
    # the float64 Gamma_N and closed-form loss of numerics against theory (the loss derived from Gaussian fourth
    # moments, Gamma_N as stated and proven the minimiser) at the exact Lambda, a generic non-symmetric A and each N
    Lam_s = sp.Matrix([[sp.Rational(str(x)) for x in r] for r in params["Lambda"]])
    key = ("zfb-loss", json.dumps(params["Lambda"]))
    if key not in _CACHE:
        Ns_ = sp.Symbol("N", positive=True)
        Ag = sp.Matrix(d, d, lambda i, j: sp.Rational(2 * i - 3 * j + 1, 7))
        _CACHE[key] = (Ns_, Ag, sp.expand(TB.zfb_loss(Lam_s, Ns_, Ag)))
    Ns_, Ag, loss_sym = _CACHE[key]
    num_rows = []
    for N in params["Ns"]:
        N = int(N)
        g_err = float(np.max(np.abs(NB.zfb_gamma(Lam, N) - np.array(TB.zfb_gamma(Lam_s, sp.Integer(N)).tolist(), float))))
        l_ref = float(loss_sym.subs(Ns_, N))
        l_num = float(NB.zfb_loss_closed_form(Lam, N, np.array(Ag.tolist(), float)))
        num_rows.append({"N": N, "Gamma_N": residual_test(g_err, 16, scale=float(np.abs(Lam).max()), guard=4),
                         "loss_at_generic_A": {"float64": l_num, "sympy": l_ref,
                                               **residual_test(abs(l_num - l_ref), 16, scale=abs(l_ref), guard=4)}})
    num_ok = all(r["Gamma_N"]["passed"] and r["loss_at_generic_A"]["passed"] for r in num_rows)
    rows, tests_est, tests_se, tests_pred = [], [], [], []
    for N in params["Ns"]:
        N = int(N)
        Gam = NB.zfb_gamma(Lam, N)
        if v == "dropped-trace":
            Gs = (1 + 1 / N) * Lam
        elif v == "infinite-N":
            Gs = Lam
        else:
            Gs = Gam
        Astat = np.linalg.inv(Gs)
        stated_min = 0.5 * (np.trace(Lam) - np.trace(np.linalg.solve(Gs, Lam @ Lam)))
        # gradient flow of the closed-form loss from A = 0 (float): its limit vs the stated fixed point
        H = Lam @ Lam + (Lam @ Lam + np.trace(Lam) * Lam) / N
        from scipy.integrate import solve_ivp

        def flow():  # depends on (Lambda, N, horizon) only: shared by the claim and its controls
            sol = solve_ivp(lambda t, a: (-(Lam @ a.reshape(d, d) @ H - Lam @ Lam)).ravel(),
                            (0, float(params["flow_horizon"])), np.zeros(d * d), method="DOP853", rtol=1e-11, atol=1e-13)
            return sol.y[:, -1].reshape(d, d)
        Aflow = _cached(dataclasses.replace(ctx, variant=None), {"Lambda": params["Lambda"], "N": N,
                                                                  "horizon": params["flow_horizon"]}, ("zfb-flow", N), flow)
        fres = float(np.max(np.abs(Aflow - Astat)))
        ftest = residual_test(fres, dps=11, scale=np.max(np.abs(Astat)), guard=3)
        # Monte Carlo: loss at the stated fixed point equals the stated minimum; loss at A = I matches the formula
        losses = _cached(ctx, {**params, "N": N}, ("zfb", N), lambda: (
            NB.zfb_sample_losses(Lam, N, np.linalg.inv(Gam), int(params["samples"]), _data_rng(ctx, "zfb", N, "opt")),
            NB.zfb_sample_losses(Lam, N, np.eye(d), int(params["samples"]), _data_rng(ctx, "zfb", N, "eye"))))
        lo, le = losses
        if v is not None:  # control: the MC data at the *stated* minimiser
            lo = NB.zfb_sample_losses(Lam, N, Astat, int(params["samples"]), _data_rng(ctx, "zfb", N, "opt"))
        est = [lo.mean(), le.mean()]
        se = [lo.std(ddof=1) / math.sqrt(len(lo)), le.std(ddof=1) / math.sqrt(len(le))]
        pred = [stated_min, NB.zfb_loss_closed_form(Lam, N, np.eye(d))]
        tests_est += est
        tests_se += se
        tests_pred += pred
        rows.append({"N": N, "Gamma_N": Gam.tolist(), "stated_fixed_point": Astat.tolist(), "flow_limit": Aflow.tolist(),
                     "flow_test": ftest, "mc_loss_at_fixed_point": est[0], "se": se[0], "stated_min_loss": stated_min,
                     "mc_loss_at_identity": est[1], "se_identity": se[1], "closed_form_loss_at_identity": pred[1]})
    fam = AlphaFamily()
    zt = ZTest(fam.rest("loss-z-tests"), name="losses at Gamma_N^-1 and at I").decide(tests_est, tests_se, tests_pred)
    zt["alpha_ledger"] = fam.ledger()
    closed_ok = num_ok
    num_ok = zt["verdict"] == "confirmed" and all(r["flow_test"]["passed"] for r in rows)
    ev = {"symbolic": sym_rows, "per_N": rows, "mc_test": zt,
          "float64_vs_sympy": {"rows": num_rows, "passed": closed_ok,
                               "rule": "numerics' Gamma_N and closed-form loss == theory's (exact Lambda, A_ij = (2i - 3j "
                                       "+ 1)/7) to 1e-12 relative"},
          "setting": "x_i ~ N(0, Lambda), w ~ N(0, I_d), y_i = <w, x_i>, yhat = x_q^T A (1/N) sum_i y_i x_i, L(A) = 1/2 E (yhat - y_q)^2; "
                     "Monte Carlo over prompts of the loss given the prompt (w and x_q integrated exactly)",
          "rule": ("symbolic: E[hh^T], the minimiser and the minimal loss derived by SymPy equal the stated ones; numeric: "
                   "gradient flow from A = 0 ends within 10^(3-11) of Gamma_N^-1; Monte Carlo z-tests (Bonferroni) of the "
                   "loss at Gamma_N^-1 and at A = I against the stated minimum and the closed form")}
    if sym_ref or zt["verdict"] == "refuted" or not all(r["flow_test"]["passed"] for r in rows) or not closed_ok:
        return Outcome("refuted", ev)
    if not num_ok:
        return Outcome("inconclusive", ev)
    return Outcome("verified" if sym_ok else "confirmed", ev)


register(Claim(
    id="zfb-linear-flow",
    independence="derived side: the loss from Gaussian fourth moments (SymPy), integrated linear-attention flow and Monte Carlo loss; stated side: Gamma_N^-1, the minimal loss and numerics' float64 closed forms; shared: nothing",
    title="Linear attention on in-context regression: fixed point Gamma_N^-1, minimal loss 1/2[tr Lam - tr(Gamma_N^-1 Lam^2)]",
    source="Zhang, Frei & Bartlett 2024, 'Trained transformers learn linear models in-context', Thm 4.1",
    statement=("Gamma_N = (1 + 1/N) Lambda + tr(Lambda)/N I; the gradient-flow limit predictor is x_q^T Gamma_N^-1 (1/N) sum y_i x_i "
               "and its loss is 1/2 [tr Lambda - tr(Gamma_N^-1 Lambda^2)]"),
    section=SECTION, check=_check_zfb, kind="symbolic",
    assumptions=("x_i ~ N(0, Lambda) i.i.d.", "w ~ N(0, I_d)", "noiseless labels", "reduced parametrisation A"),
    defaults=ZFB_DEFAULTS,
    profiles={"quick": {}, "full": {"Ns": [2, 3, 10, 30], "samples": 400000}},
    controls=(Control("dropped-trace", "Gamma_N = (1 + 1/N) Lambda (trace term dropped)"),
              Control("infinite-N", "Gamma_N = Lambda (the infinite-prompt answer)")),
    derivations=lambda: [TB.zfb_moment_derivation(2), TB.zfb_minimiser_derivation(2), TB.zfb_min_loss_derivation(2)],
))
