"""Finite-prompt risk of several heads sharing one prompt (issue 13; beyond the paper, whose
predictors -- Sec. 3's LDA head, Thm 4.1's two-head denoiser -- live at L = infinity).

Claims: fp-multihead-covariance, fp-risk-expansion, fp-risk-threshold, and the paper's tasks at
finite L: fp-risk-icl-regression (H scalar heads on tokens (x, beta^T x + eps)),
fp-risk-denoiser (the two-head Bayes denoiser of Thm 4.1 / Fig. 2) and fp-risk-lda-bayes-point
(a single LDA head at a Bayes point of Sec. 3, logistic loss).

Rules (fixed before the numbers, objects of ``checks/rules.py``): Monte Carlo estimates of
L x (first-order quantity) at two or more prompt lengths go to an ``InverseLRule`` (weighted least
squares of y(L) = a + b/L with the Monte Carlo standard errors taken as KNOWN -- a misfit is a
chi-square test that refutes, it never widens the interval -- and a z-test of the limit a); rates past
the threshold go to a ``SlopeRule`` interval compared with a band.  Each claim has one family-wise
alpha = 1e-3 (``AlphaFamily``) split by construction; its ledger is ``evidence["alpha"]``.  A claim
that confirms a limit declares its precision margin below (``*_MARGIN``): a wider interval is
``inconclusive`` with ``samples_to_settle``; zero or non-finite standard errors are ``inconclusive``.  Data streams are keyed on (seed, claim, keys) but not on the
control variant, so a negative control sees the same data and only changes the prediction.
Configurations are generic: non-symmetric U, pi != 1/2, unequal component norms, W != I.
"""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
from scipy import stats

from softmix.numerics import risk as RK
from softmix.numerics import risk_simulation as RS
from softmix.numerics.mixture import GaussianMixture
from softmix.theory import finite_prompt_risk as TR

from .. import configs as C
from ..configs import generic
from ..registry import Claim, Control, Outcome, register
from ..fits import InverseLRule, decay_rate_decision, fit_inverse_L
from ..rules import AlphaFamily, Threshold, ZTest, combine, residual_test

SECTION = "finite-prompt"
_CACHE: dict = {}
SOURCE = "issue 13 (derived here; beyond Gabet-Boursier-Boyer 2026, which stops at L = infinity)"

MIX = {"weights": ["0.35", "0.65"], "means": [["1", "0", "0.2"], ["-0.5", "1", "0"]],
       "covariances": [[["1", "0.3", "0"], ["0.3", "1", "0"], ["0", "0", "0.5"]],
                       [["0.5", "0.2", "0"], ["0.2", "0.4", "0"], ["0", "0", "0.3"]]]}
HEADS = [{"U": [["0.5", "0.1", "0"], ["0", "0.4", "0.2"], ["0.1", "0", "0.3"]], "V": [["1", "0", "0"], ["0", "1", "0.5"]],
          "W": [["1", "0.2"], ["-0.3", "1"]]},
         {"U": [["0.4", "0", "0.2"], ["0.2", "0.5", "0"], ["0", "0.1", "0.4"]], "V": [["0", "1", "0"], ["1", "0", "1"]],
          "W": [["0.7", "0"], ["0.1", "0.5"]]}]
TARGET = {"B": [["0.5", "0", "0.2"], ["0", "0.3", "1"]], "noise_covariance": [["0.1", "0"], ["0", "0.2"]]}
GAUSS = {"weights": ["1"], "means": [["0.3", "0", "-0.2"]], "covariances": [[["1", "0.3", "0"], ["0.3", "1", "0"], ["0", "0", "0.5"]]]}
QUERIES = {"weights": ["0.6", "0.4"], "means": [["0", "0", "0"], ["0.6", "-0.4", "0"]],
           "covariances": [[["0.3", "0", "0"], ["0", "0.3", "0"], ["0", "0", "0.3"]],
                           [["0.15", "0", "0"], ["0", "0.15", "0"], ["0", "0", "0"]]]}  # second one singular


# ---- helpers ------------------------------------------------------------------------------------
def _rng(ctx, *keys):
    return dataclasses.replace(ctx, variant=None).rng(*keys)


def _cached(ctx, params, tag, fn):
    key = (ctx.claim_id, ctx.seed, str(tag), json.dumps(params, sort_keys=True, default=str))
    if key not in _CACHE:
        _CACHE[key] = fn()
    return _CACHE[key]


def _setup(params, mix_key="mixture"):
    mix = GaussianMixture.from_json_obj(params[mix_key], where=f"{mix_key}")
    heads = RK.parse_heads(params["heads"], mix.dim)
    target = RK.parse_target(params["target"], mix.dim, len(heads[0].W))
    return mix, heads, target


# ---- deterministic links between the code paths of numerics.risk ---------------------------------
#: float64 against an independent path (30/40-digit twin, another float64 formula, a quadrature): the same
#: constant from sums of O(10) terms and exponentials of O(1) scores agrees to FLOAT_TOL * max(1, scale)
FLOAT_TOL = 1e-9
PARTS = ("K", "variance", "cross", "bias_residual", "risk_infinite")


def _rel_decision(name, diffs: dict, tol: float, extra=None) -> dict:
    """A deterministic decision over named relative differences (no alpha); a None difference (a path that
    could not be evaluated) is inconclusive, never refuted."""
    vals = [v for v in diffs.values() if v is not None]
    passed = None if len(vals) < len(diffs) else bool(all(v <= tol for v in vals))
    if passed is False:
        verdict = "refuted"
    else:
        verdict = "inconclusive" if passed is None else "confirmed"
    return {"passed": passed, "verdict": verdict, "relative_differences": diffs, "tolerance": tol, **(extra or {}),
            "rule": f"{name}: deterministic (no alpha), every relative difference <= {tol:g}"}


def _per_query_links(mix, heads, target, Z) -> dict:
    """At each query z (rows of Z): numerics.risk.risk_constants (float64, vectorised) == risk_constants_mp at
    30 digits for every part (K, variance, cross, bias_residual, risk_infinite), relative to the largest |part|;
    and R_inf(z) == ||B z - sum_h W_h T_h(z)||^2 + tr(noise), T_h = numerics.attention.softmax_attention (the
    operator through the lambdified CGF kernel, another code path), with the prediction sum_h W_h T_h(z)."""
    from softmix.numerics.attention import softmax_attention
    from softmix.numerics.precision import exact_floats

    Z = np.atleast_2d(np.asarray(Z, float))
    c = RK.risk_constants(mix, heads, target, Z)
    B, N = target.arrays()
    diffs = {}
    for i, z in enumerate(Z):
        cm = RK.risk_constants_mp(mix, heads, target, exact_floats(z), dps=30)  # the float64 path's own query
        scale = max(1.0, max(abs(float(cm[k])) for k in PARTS))
        diffs[f"query {i}: float64 vs 30 digits"] = max(abs(float(c[k][i]) - float(cm[k])) for k in PARTS) / scale
    pred = sum(W @ V @ softmax_attention(mix, U, np.eye(mix.dim), Z).T for U, V, W in (h.arrays() for h in heads)).T
    r = Z @ B.T - pred
    rinf = (r**2).sum(1) + float(np.trace(N))
    diffs["prediction vs sum_h W_h T_h(z)"] = (float(np.max(np.abs(c["prediction"] - pred)))
                                               / max(1.0, float(np.abs(pred).max())))
    diffs["R_inf vs ||B z - sum_h W_h T_h(z)||^2 + tr(noise)"] = float(np.max(np.abs(c["risk_infinite"] - rinf))
                                                                       / max(1.0, float(np.abs(rinf).max())))
    return _rel_decision("per-query constants: float64 == 30 digits, and the prediction and R_inf == the attention "
                         "operator's", diffs, FLOAT_TOL, {"queries": Z.tolist()})


#: Gauss-Hermite rules (nodes per direction of each query component's range), refined in this order until two
#: successive rules agree to GH_AGREE (relative to the largest |part|); a rule with more than GH_MAX_POINTS
#: nodes per component is not tried (the quadrature is then undecided: inconclusive, never refuted)
GH_NODES = (12, 16, 24, 32, 48, 64, 96)
GH_MAX_POINTS = 120000
GH_AGREE = 1e-11


def _query_average_quadrature(mix, heads, target, queries, parts=PARTS) -> dict:
    """E_z of every per-query part for z ~ queries by tensor Gauss-Hermite quadrature on the range of each
    query component's covariance (singular ones included), the integrand numerics.risk.risk_constants at the
    nodes: a reference for the closed form and the Monte Carlo that shares neither (exact up to the rule's
    error, estimated by the difference of two successive rules)."""
    import itertools

    qw, qm, qS = queries.arrays()
    comps = []
    for j in range(len(qw)):
        ev, Q = np.linalg.eigh(np.asarray(qS[j], float))
        keep = ev > 1e-12 * max(float(ev.max()), 1e-300)
        comps.append(Q[:, keep] * np.sqrt(ev[keep]))

    def rule(n):
        x, w = np.polynomial.hermite_e.hermegauss(n)
        w = w / w.sum()
        out = dict.fromkeys(parts, 0.0)
        for j, R in enumerate(comps):
            r = R.shape[1]
            if r == 0:
                c = RK.risk_constants(mix, heads, target, qm[j][None])
                for k in parts:
                    out[k] += qw[j] * float(c[k][0])
                continue
            X = np.array(list(itertools.product(x, repeat=r)))
            W = np.prod(np.array(list(itertools.product(w, repeat=r))), axis=1)
            with np.errstate(all="ignore"):
                c = RK.risk_constants(mix, heads, target, qm[j][None] + X @ R.T)
            for k in parts:
                out[k] += qw[j] * float(W @ c[k])
        return out

    prev, err, used = None, None, None
    rmax = max([R.shape[1] for R in comps] + [1])
    for n in GH_NODES:
        if n ** rmax > GH_MAX_POINTS:
            break
        cur = rule(n)
        if prev is not None:
            scale = max(1.0, max(abs(cur[k]) for k in parts))
            err = max(abs(cur[k] - prev[k]) for k in parts) / scale if all(np.isfinite(cur[k]) for k in parts) else None
            used = n
            if err is not None and err <= GH_AGREE:
                return {"values": cur, "nodes": n, "error": err, "converged": True}
        prev = cur
    return {"values": prev, "nodes": used, "error": err, "converged": False}


#: the mixture-token Monte Carlo of averaged_risk (numerics.risk._mc_average), decided inside fp-risk-expansion
#: on a mixture whose two components are the same Gaussian (the same law, so its query average is the closed
#: form's): queries of the main comparison, and batches x queries of the standard-error calibration
MC_PATH_QUERIES = 5000
MC_PATH_BATCHES, MC_PATH_BATCH_QUERIES = 40, 400
MC_PATH_WEIGHTS = ("0.3", "0.7")
MC_PATH_ALPHA_SHARE = 0.1   # of fp-risk-expansion's alpha, half for the z-tests, half for the calibration
MC_PATH_MARGIN = 0.05       # half-width of every z-test / max(1, the largest |closed-form part|)


def _mc_path(ctx, fam, gaussian_tokens, heads, queries, target) -> tuple[list, dict]:
    """averaged_risk on tokens sum_k pi_k N(m, G) with identical components (pi = MC_PATH_WEIGHTS) takes the
    importance-sampled Monte Carlo path over queries; that mixture IS N(m, G), so every part must agree with
    the closed form of the one-component mixture (z-tests, Bonferroni over the parts, the dropped variants
    'cross' and 'bias-residual' included), and its standard error must be calibrated: over MC_PATH_BATCHES
    independent runs the sum of squared z-scores of K is chi-square with MC_PATH_BATCHES dof (two-sided test).
    Approximate: CLT for each run; the closed form is exact."""
    w = MC_PATH_WEIGHTS
    dup = GaussianMixture.from_json_obj({"weights": list(w), "means": gaussian_tokens["means"] * 2,
                                         "covariances": gaussian_tokens["covariances"] * 2}, where="duplicated tokens")
    gmix = GaussianMixture.from_json_obj(gaussian_tokens, where="gaussian_tokens")
    est, se, pred, names = [], [], [], []
    scale = None
    mc_rows = {}
    zero_ok = True
    for drop, keys in ((None, PARTS), ("cross", ("K", "variance")), ("bias-residual", ("K",))):
        ex = RK.averaged_risk(gmix, heads, queries, target, drop=drop)
        mc = RK.averaged_risk(dup, heads, queries, target, n_mc=MC_PATH_QUERIES, seed=ctx.seed_sequence("mc-path"),
                              drop=drop)
        scale = scale or max(1.0, max(abs(float(ex[k])) for k in PARTS))
        for k in keys:
            est.append(float(mc[k]) / scale)
            se.append(float(mc["standard_error"][k]) / scale)
            pred.append(float(ex[k]) / scale)
            names.append(f"{k}" + (f" (drop {drop})" if drop else ""))
        if drop == "bias-residual":  # the dropped part is exactly zero on both paths
            zero_ok = float(mc["bias_residual"]) == 0.0 == float(ex["bias_residual"])
        # the reported sample size: n_mc split over the query components, each rounded (at least 2)
        zero_ok = zero_ok and abs(int(mc["queries_sampled"]) - MC_PATH_QUERIES) <= len(queries.weights)
        mc_rows[str(drop)] = {"method": mc["method"], "monte_carlo": {k: float(mc[k]) for k in keys},
                              "standard_error": {k: float(mc["standard_error"][k]) for k in keys},
                              "closed_form": {k: float(ex[k]) for k in keys}}
    sub = fam.sub("mixture-monte-carlo-path", MC_PATH_ALPHA_SHARE)
    zrule = ZTest(sub.split("parts-vs-closed-form", 0.5), margin=MC_PATH_MARGIN,
                  name="mixture-token Monte Carlo (identical components) == closed form, parts / max(1, |closed form|)")
    zdec = zrule.decide(est, se, pred, n_samples=MC_PATH_QUERIES)
    zdec["entries"] = names
    if any(r["method"] != "monte-carlo" for r in mc_rows.values()) or not zero_ok:
        zdec.update(passed=False, verdict="refuted", reason="averaged_risk did not take the Monte Carlo path on mixture "
                                                            "tokens, a dropped bias-residual part is not zero, or the "
                                                            "reported queries_sampled is not n_mc up to rounding")
    exact_K = float(RK.averaged_risk(gmix, heads, queries, target)["K"])
    zs = []
    for b in range(MC_PATH_BATCHES):
        mc = RK.averaged_risk(dup, heads, queries, target, n_mc=MC_PATH_BATCH_QUERIES,
                              seed=ctx.seed_sequence("mc-calibration", b))
        s_ = float(mc["standard_error"]["K"])
        zs.append((float(mc["K"]) - exact_K) / s_ if s_ > 0 and math.isfinite(s_) else float("nan"))
    a_cal = sub.rest("standard-error-calibration")
    chi2 = float(np.sum(np.square(zs)))
    lo, hi = float(stats.chi2.ppf(a_cal / 2, len(zs))), float(stats.chi2.isf(a_cal / 2, len(zs)))
    ok = bool(np.isfinite(chi2) and lo <= chi2 <= hi) if np.isfinite(chi2) else None
    cal = {"passed": ok, "verdict": "inconclusive" if ok is None else ("confirmed" if ok else "refuted"),
           "chi2": chi2, "dof": len(zs), "interval": [lo, hi], "alpha": a_cal,
           "rule": f"standard-error calibration: sum over {len(zs)} independent runs ({MC_PATH_BATCH_QUERIES} queries "
                   f"each) of ((K_run - K_closed_form) / se_run)^2 inside the two-sided chi-square({len(zs)}) interval at level "
                   f"{a_cal:.3g}"}
    return [zdec, cal], {"mixture_weights": list(w), "runs": mc_rows, "z_tests": zdec, "calibration": cal}


def _covariance_links(mix, heads, target, z) -> dict:
    """numerics.risk.covariance_blocks at one query against two other code paths (deterministic, FLOAT_TOL):
    sum_{h,k} tr(W_h C_hk W_k^T) == risk_constants' variance and its h != k part == its cross; each diagonal
    block C_hh and rho_hh == numerics.finite_prompt.finite_prompt_constants of head h alone (the single-head
    constants through the lambdified CGF kernel)."""
    from softmix.numerics.finite_prompt import finite_prompt_constants

    cb = RS.covariance_blocks(mix, heads, z)
    c = RK.risk_constants(mix, heads, target, np.asarray(z, float)[None])
    arr = [h.arrays() for h in heads]
    H = len(arr)
    tr = {(h, k): float(np.trace(arr[h][2] @ cb["blocks"][(h, k)] @ arr[k][2].T)) for h in range(H) for k in range(H)}
    var, cross = sum(tr.values()), sum(v for (h, k), v in tr.items() if h != k)
    scale = max(1.0, abs(float(c["variance"][0])))
    diffs = {"sum_hk tr(W_h C_hk W_k^T) vs risk_constants variance": abs(var - float(c["variance"][0])) / scale,
             "h != k part vs risk_constants cross": abs(cross - float(c["cross"][0])) / scale}
    for h, (U, V, _W) in enumerate(arr):
        fc = finite_prompt_constants(mix, U, V, z)
        diffs[f"C_{h}{h} vs finite_prompt_constants"] = float(np.max(np.abs(cb["blocks"][(h, h)] - fc["covariance"]))
                                                              / max(1.0, float(np.abs(fc["covariance"]).max())))
        diffs[f"rho_{h}{h} vs finite_prompt_constants"] = abs(cb["rho"][(h, h)] - fc["rho"]) / max(1.0, fc["rho"])
        diffs[f"rho_{h}{h} vs risk_constants"] = abs(cb["rho"][(h, h)] - float(c["rho"][h, h, 0])) / max(1.0, fc["rho"])
    for h in range(H):
        for k in range(h + 1, H):
            diffs[f"rho_{h}{k} vs risk_constants"] = (abs(cb["rho"][(h, k)] - float(c["rho"][h, k, 0]))
                                                      / max(1.0, cb["rho"][(h, k)]))
    return _rel_decision("covariance blocks == risk_constants' variance and cross, and the single-head constants",
                         diffs, FLOAT_TOL)


#: fp-risk-threshold: the closed form's finiteness is also decided right at both sides of 1/2
THRESHOLD_EDGES = (0.45, 0.55)


def _threshold_edges(gmix, heads_obj, lam0, queries, target) -> dict:
    """The heads scaled to lambda* = 0.45 and 0.55 (THRESHOLD_EDGES): the closed form of averaged_risk (float64 and
    30 digits) is finite below 1/2 and infinite past it, as the statement says, and so is the building block
    gaussian_exp_quadratic_mean E[exp(z^T S z)] with S = U_h^T G U_h (its own finiteness rule, an eigenvalue of
    Sigma^(1/2) S Sigma^(1/2), for every head and query component: all finite below, one infinite past).
    Deterministic, no alpha."""
    _w, _m, Gt = gmix.arrays()
    qw, qm, qS = queries.arrays()
    flags = {}
    for lam in THRESHOLD_EDGES:
        h = RK.parse_heads(_scaled_heads(heads_obj, math.sqrt(lam / lam0)), gmix.dim)
        cf = RK.averaged_risk(gmix, h, queries, target)
        cm = RK.averaged_risk(gmix, h, queries, target, dps=30)
        blocks = [RK.gaussian_exp_quadratic_mean(RK._sym(hd.arrays()[0].T @ Gt[0] @ hd.arrays()[0]), 1.0, np.zeros(gmix.dim),
                                                 np.zeros((gmix.dim, gmix.dim)), qm[j], qS[j])
                  for hd in h for j in range(len(qw))]
        fin = [bool(cf["finite"]), bool(np.isfinite(float(cf["K"]))), bool(mpm_isfinite(cm["K"])),
               bool(all(np.isfinite(blocks)))]
        flags[f"lambda* = {lam}: finite (flag, float64 K, 30-digit K, every E exp(z^T S_h z))"] = fin
    ok = all(all(f) for f in list(flags.values())[:1]) and not any(any(f) for f in list(flags.values())[1:])
    return {"passed": bool(ok), "verdict": "confirmed" if ok else "refuted", "flags": flags,
            "rule": f"the closed-form query average and its blocks E exp(z^T S_h z) are finite at lambda* = "
                    f"{THRESHOLD_EDGES[0]} and infinite at {THRESHOLD_EDGES[1]} (flag, float64 and 30-digit K; "
                    f"deterministic, no alpha)"}


def mpm_isfinite(x) -> bool:
    import mpmath as mpm

    return bool(mpm.isfinite(x)) if isinstance(x, mpm.mpf) else bool(np.isfinite(float(x)))


def _past_threshold_link(gmix, heads, queries, target, gaussian_tokens) -> dict:
    """Past the threshold (lambda* >= 1/2) the query average of K is infinite: averaged_risk must say so on both of
    its paths -- the closed form (Gaussian tokens; float64 and mpmath) and the Monte Carlo path (the same Gaussian as a
    mixture of two identical components) -- with the other parts reported as None, while R_inf stays finite: the
    closed form's R_inf equals the Gauss-Hermite quadrature of the per-query R_inf (a quadratic: the rule is exact)
    and its mpmath twin (FLOAT_TOL); the Monte Carlo path's R_inf is not compared (it is random)."""
    dup = GaussianMixture.from_json_obj({"weights": list(MC_PATH_WEIGHTS), "means": gaussian_tokens["means"] * 2,
                                         "covariances": gaussian_tokens["covariances"] * 2}, where="duplicated tokens")
    cf = RK.averaged_risk(gmix, heads, queries, target)
    cfm = RK.averaged_risk(gmix, heads, queries, target, dps=30)
    mc = RK.averaged_risk(dup, heads, queries, target, n_mc=200, seed=0)
    quad = _query_average_quadrature(gmix, heads, target, queries, parts=("risk_infinite",))  # only R_inf is finite
    flags = {"closed form: K infinite, parts None": (cf["K"] == float("inf") and not cf["finite"]
                                                    and all(cf[k] is None for k in ("variance", "cross", "bias_residual"))),
             "closed form (30 digits): K infinite": cfm["K"] == float("inf"),
             "Monte Carlo path: K infinite, parts None": (
                 mc["method"] == "monte-carlo" and mc["K"] == float("inf") and not mc["finite"]
                 and all(mc[k] is None for k in ("variance", "cross", "bias_residual")) and "K" not in mc["standard_error"])}
    r = float(cf["risk_infinite"])
    diffs = {"R_inf: closed form vs quadrature": (abs(r - quad["values"]["risk_infinite"]) / max(1.0, abs(r))
                                                  if quad["converged"] else None),
             "R_inf: float64 vs 30 digits": abs(r - float(cfm["risk_infinite"])) / max(1.0, abs(r))}
    dec = _rel_decision("past the threshold: averaged_risk reports an infinite K on the closed-form and Monte Carlo paths, "
                        "and a finite R_inf equal to its quadrature and its 30-digit value", diffs, FLOAT_TOL,
                        {"flags": flags})
    if not all(flags.values()):
        dec.update(passed=False, verdict="refuted")
    return dec


#: fp-multihead-covariance: the multi-head engine's one-component branch against its mixture branch
BRANCH_L, BRANCH_R, BRANCH_ALPHA_SHARE, BRANCH_MARGIN = 48, 2000, 0.05, 0.3
BRANCH_WEIGHTS = ("0.2", "0.3", "0.5")  # three identical components: the label sampling runs with K = 3


def _engine_branch_link(ctx, fam, mixture_obj, heads, z) -> dict:
    """numerics.risk.MultiHeadEngine on Gaussian tokens N(m, G) (the first component of the claim's mixture) takes
    its one-component branch; on the mixture of three identical components N(m, G) (BRANCH_WEIGHTS) it takes the
    mixture branch (the branch the claim's Monte Carlo decides), with the same law of every head's T_L.  Two-sample z-tests of the
    means of T_L^h (every head, every coordinate; Bonferroni), in units of the largest sd of T_L, at
    BRANCH_ALPHA_SHARE of the claim's alpha; L = BRANCH_L, BRANCH_R prompts per branch.  Approximate: CLT."""
    one = {"weights": ["1"], "means": mixture_obj["means"][:1], "covariances": mixture_obj["covariances"][:1]}
    two = {"weights": list(BRANCH_WEIGHTS), "means": mixture_obj["means"][:1] * len(BRANCH_WEIGHTS),
           "covariances": mixture_obj["covariances"][:1] * len(BRANCH_WEIGHTS)}
    T1, _ = RS.MultiHeadEngine(GaussianMixture.from_json_obj(one), heads, z).run(
        BRANCH_L, BRANCH_R, np.random.default_rng(ctx.seed_sequence("engine-branch", 1)))
    T2, _ = RS.MultiHeadEngine(GaussianMixture.from_json_obj(two), heads, z).run(
        BRANCH_L, BRANCH_R, np.random.default_rng(ctx.seed_sequence("engine-branch", 2)))
    sd = max(float(np.sqrt(t.var(0, ddof=1).max())) for t in T1)
    est = np.concatenate([(a.mean(0) - b.mean(0)) / sd for a, b in zip(T1, T2)])
    se = np.concatenate([np.hypot(a.std(0, ddof=1), b.std(0, ddof=1)) / math.sqrt(BRANCH_R) / sd for a, b in zip(T1, T2)])
    rule = ZTest(fam.split("engine-one-component-branch", BRANCH_ALPHA_SHARE), margin=BRANCH_MARGIN,
                 name="multi-head engine, one-component branch vs mixture branch: means of T_L^h / max sd(T_L)")
    return rule.decide(est, se, np.zeros_like(est), n_samples=BRANCH_R)


def _closed_form_links(mix, heads, queries, target, cf, mp=None) -> dict:
    """The closed form's parts (numerics.risk.averaged_risk on Gaussian tokens: float64 ``cf``, optionally its
    mpmath twin ``mp``) against the Gauss-Hermite quadrature of the per-query constants (every part, to
    FLOAT_TOL relative to the largest |part|; undecided if the quadrature did not converge) and the float64 parts
    against the mpmath ones (FLOAT_TOL)."""
    quad = _query_average_quadrature(mix, heads, target, queries)
    scale = max(1.0, max(abs(float(cf[k])) for k in PARTS))
    diffs = {f"{k}: closed form vs quadrature": (abs(float(cf[k]) - quad["values"][k]) / scale
                                                 if quad["converged"] else None) for k in PARTS}
    if mp is not None:
        diffs.update({f"{k}: float64 vs {mp['dps']} digits": abs(float(cf[k]) - float(mp[k])) / scale for k in PARTS})
    dec = _rel_decision("query average: closed form == Gauss-Hermite quadrature of the per-query constants"
                        + (" and float64 == mpmath" if mp is not None else ""), diffs, FLOAT_TOL,
                        {"quadrature": {"nodes_per_direction": quad["nodes"], "error_estimate": quad["error"],
                                        "converged": quad["converged"], "values": quad["values"]}})
    if not quad["converged"]:
        dec["reason"] = ("the quadrature did not reach its agreement of %g within %d nodes per component"
                         % (GH_AGREE, GH_MAX_POINTS))
    return dec


def _independent_threshold(mix, heads, queries, tol=1e-9) -> dict:
    """lambda*, and per top (head, token component, query component) the multiplicity, the mean-shift flag and
    the centring, from the eigen-decomposition of the NON-symmetric product Sigma_j U_h^T G_k U_h (the same
    non-zero spectrum as R_j^T U_h^T G_k U_h R_j; its eigenvectors for lambda are R_j v): the mean shift is
    W_h V_h G_k U_h w != 0 and the centring w^T U_h^T G_k U_h mu_j = 0 for w in that eigenspace.  No square root
    of Sigma_j, no symmetric eigensolver: a different path from numerics.risk.threshold_info."""
    _w, _m, G = mix.arrays()
    qw, qm, qS = queries.arrays()
    rows = []
    for h, hd in enumerate(heads):
        U, V, W = hd.arrays()
        P = W @ V
        for k in range(len(G)):
            if np.abs(P @ G[k]).max() <= tol * max(1.0, np.abs(G[k]).max()):
                continue
            A = U.T @ G[k] @ U
            for j in range(len(qw)):
                ev, vec = np.linalg.eig(np.asarray(qS[j], float) @ A)
                ev = ev.real
                lam = float(ev.max())
                top = vec[:, ev >= lam - tol * max(1.0, abs(lam))].real
                shift = float(np.abs(P @ G[k] @ U @ top).max()) > tol * max(1.0, float(np.abs(top).max()))
                centred = float(np.abs(top.T @ A @ qm[j]).max()) <= tol * max(1.0, float(np.abs(top).max()))
                rows.append({"head": h, "token_component": k, "query_component": j, "lambda": lam,
                             "multiplicity": int(top.shape[1]), "mean_shift_on_top": bool(shift), "centred": bool(centred)})
    return {"lambda": max([r["lambda"] for r in rows], default=0.0), "rows": rows}


def _threshold_link(mix, heads, queries, th=None, expected=None) -> dict:
    """numerics.risk.threshold_info (lambda*, finiteness, rate exponent, and for Gaussian tokens the log power
    m/2 - 1 + d of the rate) against ``_independent_threshold``: lambda* to FLOAT_TOL relative (and to ``expected``,
    the value the heads were scaled to, when given), and on every top row the multiplicity, the mean-shift flag and
    the centring exactly (deterministic, no alpha)."""
    th = th or RK.threshold_info(mix, heads, queries)
    ind = _independent_threshold(mix, heads, queries)
    lam = ind["lambda"]
    diffs = {"lambda*": abs(th["lambda"] - lam) / max(1.0, abs(lam))}
    if expected is not None:
        diffs["lambda* (independent) vs the scaled value"] = abs(lam - float(expected)) / max(1.0, abs(float(expected)))
    key = lambda r: (r["head"], r["token_component"], r["query_component"])
    mine = {key(r): r for r in ind["rows"]}
    theirs = {key(r): r for r in th["rows"]}
    same = set(mine) == set(theirs)
    mism = [] if same else ["the (head, token component, query component) rows differ"]
    top = [r for r in ind["rows"] if r["lambda"] >= lam - 1e-9 * max(1.0, abs(lam))]
    for r in top if same and lam > 1e-9 else []:  # at lambda* = 0 the top eigenspace is not a property of the heads
        t = theirs[key(r)]
        for f in ("multiplicity", "mean_shift_on_top", "centred"):
            if t[f] != r[f]:
                mism.append(f"{key(r)} {f}: threshold_info {t[f]}, eigen-decomposition {r[f]}")
    expect_finite = lam < 0.5
    if th["finite"] != expect_finite:
        mism.append(f"finite: {th['finite']} while lambda* = {lam:.6g}")
    if not expect_finite:
        at = abs(lam - 0.5) <= 1e-9
        rate = -1.0 if at else -1 / (2 * lam)
        diffs["rate exponent"] = abs(th["rate_exponent"] - rate)
        ok = mix.n_components == 1 and all(r["centred"] for r in top)
        beta = max(r["multiplicity"] / 2 + (0 if at else -1) + int(r["mean_shift_on_top"]) for r in top) if ok else None
        if th.get("log_power") != beta:
            mism.append(f"log power: threshold_info {th.get('log_power')}, eigen-decomposition {beta}")
    dec = _rel_decision("threshold: threshold_info == an independent eigen-decomposition of Sigma_j U^T G U", diffs,
                        FLOAT_TOL, {"lambda_independent": lam, "mismatches": mism})
    if mism:
        dec.update(passed=False, verdict="refuted")
    return dec


#: Margins declared before any run: the largest acceptable half-width of a limit's (1 - alpha) interval,
#: relative to the largest |predicted| entry (``InverseLRule`` / ``ZTest`` with ``relative=True``), and of a
#: rate's slope interval (absolute, in units of the exponent).
COV_RELATIVE_MARGIN = 0.25       # fp-multihead-covariance: L Cov cross block and L * output MSE
K_RELATIVE_MARGIN = 0.25         # fp-risk-expansion / fp-risk-icl-regression: the 1/L coefficient K
K_QUERY_MC_RELATIVE_MARGIN = 0.05  # fp-risk-threshold below: query Monte Carlo of E_z K(z)
LDA_RELATIVE_MARGIN = 0.25       # fp-risk-lda-bayes-point: K_LDA
#: fp-risk-lda-bayes-point: the first-order regime. K_LDA / L is the predicted excess log-loss (nats) at
#: prompt length L; when it is not small at the shortest prompt, terms beyond 1/L bias the a + b/L fit.
#: Measured on a drawn configuration with K_LDA = 106.3 (seed 8015, Gamma with condition number 15):
#: L (R_L - R*) = 118.4, 117.0, 110.7, 107.3 (se about 2) at L = 100, 400, 1600, 6400, so the fit over
#: L = 100, 400 refuted a true statement.  The paper configuration has K_LDA / 100 = 0.0997.
LDA_FIRST_ORDER_MAX = 0.15       # decide only when K_LDA / min L <= this; otherwise inconclusive
LDA_DRAW_FIRST_ORDER = 0.10      # drawn configurations keep K_LDA / min L <= this
#: fp-risk-lda-bayes-point: lambda* below this for a decision (the paper configuration: 0.046).  Below 1/6 the
#: remainder of L (R_L - R*) is O(1/L), but its coefficient grows without bound as lambda* -> 1/6, and the
#: Monte Carlo's fourth moment (the reliability of its standard error) needs lambda* < 1/8.  Measured on a
#: drawn configuration at lambda* = 0.140 (seed 5; K_LDA = 6.93, K_LDA / 100 = 0.07): L (R_L - R*) = 6.05,
#: 5.95, 6.26, 6.64 (se 0.06) at L = 100, 400, 1600, 6400, still 4% low at L = 6400.
LDA_MAX_LAMBDA = 1 / 8
DRAW_LDA_LAMBDA = (0.03, 0.10)   # drawn configurations keep lambda* in this range
RATE_SLOPE_MARGIN = 0.25         # fp-risk-threshold above / fp-risk-denoiser: slope half-width


def _sym_decision(ok: bool, rows) -> dict:
    """The symbolic derivation as a deterministic rule (no alpha)."""
    return {"passed": bool(ok), "verdict": "confirmed" if ok else "refuted", "rows": rows,
            "rule": "the SymPy derivation must be proven (deterministic, no alpha)"}


def _derivation(key, build):
    """A derivation built once per process (building the delta method's series costs ~1 s; the claim, each control
    and each configuration used to rebuild it)."""
    if ("derivation", key) not in _CACHE:
        _CACHE[("derivation", key)] = build()
    return _CACHE[("derivation", key)]


def _sym(ctx, derivs):
    rows, ok = [], True
    for d in derivs:
        key = ("sym", d.name)
        if key not in _CACHE:
            _CACHE[key] = bool(d.holds())
        rows.append({"derivation": d.name, "status": "proven" if _CACHE[key] else "not proven"})
        ok &= _CACHE[key]
    return ok, rows


def _per_query_mc(ctx, params, mix, heads, target, z, tag):
    """CV estimates of L (R_L(z) - R_inf(z)) at each L (projected multi-head engine)."""
    def run():
        rows = []
        for L in params["Ls"]:
            out = RS.simulate_excess(mix, heads, target, z, int(L), int(params["reps"]), _rng(ctx, tag, int(L)))
            X, Xc = out["X"], out["X_cv"]
            n = len(X)
            rows.append({"L": int(L), "raw": float(X.mean()), "raw_se": float(X.std(ddof=1) / math.sqrt(n)),
                         "cv": float(Xc.mean()), "cv_se": float(Xc.std(ddof=1) / math.sqrt(n)),
                         "variance_reduction": float(X.var(ddof=1) / Xc.var(ddof=1))})
        return rows
    return _cached(ctx, params, tag, run)


def _averaged_mc(ctx, params, mix, heads, target, queries, Ls, n, tag, proposal_scale=1.0):
    def run():
        rows = []
        for L in Ls:
            out = RS.simulate_excess_averaged(mix, heads, target, queries, int(L), int(n), _rng(ctx, tag, int(L)),
                                              proposal_scale=proposal_scale)
            X, Xc, sq = out["X"], out["X_cv"], out["sq_error"]
            rows.append({"L": int(L), "raw": float(X.mean()), "raw_se": float(X.std(ddof=1) / math.sqrt(n)),
                         "cv": float(Xc.mean()), "cv_se": float(Xc.std(ddof=1) / math.sqrt(n)),
                         "variance_reduction": float(X.var(ddof=1) / Xc.var(ddof=1)),
                         "sq_error": float(sq.mean()), "sq_error_se": float(sq.std(ddof=1) / math.sqrt(n)),
                         "excess": float(X.mean() / L), "excess_se": float(X.std(ddof=1) / math.sqrt(n) / L)})
        return rows
    return _cached(ctx, params, tag, run)


def _predicted_K(c, variant):
    """Per-query prediction under a control: drop the bias x residual or the cross-head terms."""
    K = c["K"]
    if variant == "no-bias-residual":
        K = K - c["bias_residual"]
    elif variant == "no-cross-head":
        K = K - c["cross"]
    return K


def _averaged_prediction(mix, heads, queries, target, variant, seed=0):
    if variant == "mean-query-norm":  # the value at one query of the mean query norm
        zc = RK.query_norm_point(queries)
        c = RK.risk_constants(mix, heads, target, zc[None])
        return float(c["K"][0]), {"query": zc.tolist()}
    drop = {"no-bias-residual": "bias-residual", "no-cross-head": "cross"}.get(variant)
    res = RK.averaged_risk(mix, heads, queries, target, drop=drop, seed=seed)
    return float(res["K"]), res


CONTROLS = (Control("no-bias-residual", "prediction without the -2 r^T sum_h W_h b_h term"),
            Control("no-cross-head", "prediction without the h != h' covariance terms (heads on independent prompts)"),
            Control("mean-query-norm", "query average replaced by the value at one query of the mean query norm"))


# ---- drawn configurations (issue 11) ------------------------------------------------------------
def _tails(mix, heads, z):
    """Per head (rho(a_h), M(4 a_h) / M(a_h)^4): the effective-sample factor and the fourth moment of
    the softmax weights, which governs how heavy-tailed the Monte Carlo of the first-order terms is."""
    w, m, G = mix.arrays()

    def cgf(a):  # Lambda(a) = logsumexp_k(log pi_k + <a, m_k> + a^T G_k a / 2), float64
        s = np.log(w) + m @ a + 0.5 * np.einsum("i,kij,j->k", a, G, a)
        return float(s.max() + np.log(np.exp(s - s.max()).sum()))

    out = []
    for h in heads:
        a = h.arrays()[0] @ z
        l1 = cgf(a)
        out.append((math.exp(cgf(2 * a) - 2 * l1), math.exp(cgf(4 * a) - 4 * l1)))
    return out


def _draw_heads(rng, H, D, p, q, u_range=0.6):
    """H heads with non-symmetric U (||U - U^T||_max >= 0.3), dense V (p x D) and W (q x p), W != I."""
    return [{"U": C.matrix(rng, D, D, -u_range, u_range, min_asymmetry=0.3), "V": C.matrix(rng, p, D, -1.2, 1.2),
             "W": C.matrix(rng, q, p, -1.0, 1.0, min_asymmetry=0.3)} for _ in range(H)]


def _draw_target(rng, q, D):
    return {"B": C.matrix(rng, q, D, -1.0, 1.0), "noise_covariance": C.spd(rng, q)}


def _scaled_psd(M, t):
    """t M with exact decimal entries (t a short decimal string)."""
    from fractions import Fraction

    return [[C._dec(Fraction(x) * Fraction(t), 8) for x in r] for r in M]


#: Filters of the drawn multi-head configurations, declared before any Monte Carlo is seen: every
#: head's rho(a_h) in [1.2, 3] (the tilt matters, the L grid is first-order), M(4a)/M(a)^4 at most
#: 4x the paper configuration's largest (tails no heavier than the decided default), and every effect
#: a negative control removes at least ``DRAW_MIN_RELATIVE_EFFECT`` of the predicted quantity.
DRAW_RHO = (1.2, 3.0)
DRAW_MIN_RELATIVE_EFFECT = 0.1


def _query_effects(params):
    mix, heads, target = _setup(params)
    z = np.array([float(x) for x in params["z"]])
    c = RK.risk_constants(mix, heads, target, z[None])
    K, var = float(c["K"][0]), float(c["variance"][0])
    return {"K": K, "variance": var, "bias_residual": abs(float(c["bias_residual"][0])) / abs(K),
            "cross": abs(float(c["cross"][0])) / abs(K), "tails": _tails(mix, heads, z)}


def _tails_ok(tails, k4_max):
    return all(DRAW_RHO[0] <= r <= DRAW_RHO[1] and k4 <= k4_max for r, k4 in tails)


def _draw_query_part(rng, params, tries=2000):
    """Mixture tokens (2 components, one singular, weights != 1/2, unequal-norm means), two drawn heads,
    a drawn linear target and query z, filtered as declared above (K at least half the variance part,
    so that the limit is not a small difference)."""
    D, p, q = len(params["z"]), len(params["heads"][0]["V"]), len(params["target"]["B"])
    k4_max = 4 * max(k4 for _r, k4 in _query_effects(params)["tails"])
    for _ in range(tries):
        over = {"mixture": C.mixture(rng, 2, D, singular=1, norm_range=(0.5, 1.5)), "heads": _draw_heads(rng, 2, D, p, q),
                "target": _draw_target(rng, q, D), "z": C.vector(rng, D, -1.2, 1.2)}
        e = _query_effects({**params, **over})
        if (_tails_ok(e["tails"], k4_max) and abs(e["K"]) >= 0.5 * e["variance"]
                and min(e["bias_residual"], e["cross"]) >= DRAW_MIN_RELATIVE_EFFECT):
            return over
    return None


def _cov_effects(params):
    """Relative to the largest predicted entry (the rule's margin scale): the cross block C_01 (what
    ``no-cross-head`` removes) and the change of C_01 without the mean-shift products (``no-mean-shift``)."""
    mix, heads, target = _setup(params)
    z = np.array([float(x) for x in params["z"]])
    C01 = RS.covariance_blocks(mix, heads, z)["blocks"][(0, 1)]
    N01 = RS.covariance_blocks(mix, heads, z, variant="no-mean-shift")["blocks"][(0, 1)]
    var = float(RK.risk_constants(mix, heads, target, z[None])["variance"][0])
    scale = max(float(np.abs(C01).max()), abs(var))
    return {"cross": float(np.abs(C01).max()) / scale, "mean_shift": float(np.abs(C01 - N01).max()) / scale,
            "tails": _tails(mix, heads, z)}


#: fp-multihead-covariance: the cross block at least 0.2 and the mean-shift products at least 0.1 of the
#: largest predicted entry (the paper configuration: 0.55 and 0.34)
DRAW_COV_EFFECTS = {"cross": 0.2, "mean_shift": 0.1}
_DRAWS: dict = {}


def _memo_draw(fn):
    """A drawn configuration depends only on (claim params, rng state): computed once per (claim, seed,
    index) and shared by the claim and its negative controls."""
    import functools

    @functools.wraps(fn)
    def wrapper(rng, params, i):
        key = (fn.__name__, json.dumps(params, sort_keys=True, default=str), i, str(rng.bit_generator.state))
        if key not in _DRAWS:
            _DRAWS[key] = fn(rng, params, i)
        return _DRAWS[key]
    return wrapper


def _decidable_average(e) -> bool:
    """The declared filter of a drawn query-averaged configuration: lambda* where the 1/L extrapolation
    is valid, |E K| at least half its variance part, a bounded spread of K(z), and every control's
    prediction at least DRAW_MIN_RELATIVE_EFFECT away, and a K-weighted tilt ratio at most DRAW_MAX_TILT."""
    return (DRAW_LAMBDA[0] <= e["lambda"] <= DRAW_LAMBDA[1] and abs(e["K"]) >= 0.5 * e["variance"]
            and e["spread"] <= DRAW_MAX_SPREAD and e["tilt"] <= DRAW_MAX_TILT
            and all(e[v] >= DRAW_MIN_RELATIVE_EFFECT for v in ("no-bias-residual", "no-cross-head", "mean-query-norm")))


@_memo_draw
def _draw_cov(rng, params, i):
    """fp-multihead-covariance: generic mixture tokens, two drawn heads (non-symmetric U, W != I), a drawn
    query; filtered on the tails (as ``_draw_query_part``) and on DRAW_COV_EFFECTS."""
    D, p, q = len(params["z"]), len(params["heads"][0]["V"]), len(params["target"]["B"])
    k4_max = 4 * max(k4 for _r, k4 in _cov_effects(params)["tails"])
    for _ in range(2000):
        over = {"mixture": C.mixture(rng, 2, D, singular=1, norm_range=(0.5, 1.5)), "heads": _draw_heads(rng, 2, D, p, q),
                "target": _draw_target(rng, q, D), "z": C.vector(rng, D, -1.2, 1.2)}
        e = _cov_effects({**params, **over})
        if _tails_ok(e["tails"], k4_max) and all(e[k] >= v for k, v in DRAW_COV_EFFECTS.items()):
            return over
    return None


def _averaged_effects(params, heads_obj=None):
    gmix = GaussianMixture.from_json_obj(params["gaussian_tokens"], where="gaussian_tokens")
    queries = GaussianMixture.from_json_obj(params["queries"], where="queries")
    heads = RK.parse_heads(heads_obj or params["heads"], gmix.dim)
    target = RK.parse_target(params["target"], gmix.dim, len(heads[0].W))
    ar = RK.averaged_risk(gmix, heads, queries, target)
    K = float(ar["K"])
    out = {"K": K, "variance": float(ar["variance"]), "lambda": RK.threshold_info(gmix, heads, queries)["lambda"]}
    for v in ("no-bias-residual", "no-cross-head", "mean-query-norm"):
        out[v] = abs(_averaged_prediction(gmix, heads, queries, target, v)[0] - K) / abs(K)
    qw, qm, qS = queries.arrays()
    rng = np.random.default_rng(0)  # a fixed query sample: the filter is a property of the configuration
    lab = np.searchsorted(np.cumsum(qw)[:-1], rng.random(4096), side="right")
    Z = qm[lab] + np.einsum("nij,nj->ni", np.stack([RK.psd_sqrt(S) for S in qS])[lab], rng.standard_normal((4096, gmix.dim)))
    rc = RK.risk_constants(gmix, heads, target, Z)
    out["spread"] = float(rc["K"].std()) / abs(K)
    # the K-weighted tilt ratio E_z[max_h rho_hh(z) K(z)] / E_z K: the scale of the next order of the
    # expansion relative to K (rho_hh = M(2 a_h) / M(a_h)^2 >= 1); the paper configuration: 1.26
    rho = np.max(np.stack([rc["rho"][h, h] for h in range(len(heads))]), axis=0)
    out["tilt"] = float(np.mean(rho * rc["K"]) / np.mean(rc["K"]))
    return out


#: the spread sd_z K(z) / |E_z K| of a drawn averaged configuration (the noise of the query average per
#: unit of the estimated limit; the paper configuration: 0.24)
DRAW_MAX_SPREAD = 0.6


#: the K-weighted tilt ratio E_z[rho(z) K(z)] / E_z K of a drawn averaged configuration (the paper's: 1.26).
#: Seed 9237 drew 4.1 (every other draw of seeds 9221-9240: at most 1.96): there L (R_L - R_inf) was 15.3,
#: 16.6 and 18.6 at L = 100, 400, 1600 against K = 20.2, far from the a + b/L regime at the claim's
#: L = 100, 400 (extrapolated 17.9, z = -5.9, a false refutation)
DRAW_MAX_TILT = 2.5


#: the 1/L extrapolation of a query average is valid for lambda* < 1/6 (docs/finite-prompt.md, sec. 5):
#: drawn averaged configurations take lambda* in this range (the paper configuration: 0.133)
DRAW_LAMBDA = (0.05, 0.14)


@_memo_draw
def _draw_expansion(rng, params, i):
    """fp-risk-expansion: (a) per query as ``_draw_query_part``; (b) Gaussian tokens N(m, G) (m != 0, G
    non-isotropic), queries a two-component mixture (weights != 1/2, non-zero means, one singular
    covariance) scaled so that lambda* is a drawn value in DRAW_LAMBDA; |E_z K| at least half its variance
    part, sd_z K(z) at most DRAW_MAX_SPREAD |E_z K|, and every control's averaged prediction at least
    DRAW_MIN_RELATIVE_EFFECT away from it."""
    over = _draw_query_part(rng, params)
    if over is None:
        return None
    D = len(params["z"])
    for _ in range(500):
        toks = {"weights": ["1"], "means": [C.vector(rng, D, -1.0, 1.0)], "covariances": [C.spd(rng, D)]}
        qs = {"weights": C.weights(rng, 2), "means": [C.vector(rng, D, -0.8, 0.8) for _ in range(2)],
              "covariances": [C.spd(rng, D), C.spd(rng, D, rank=D - 1)]}
        heads = RK.parse_heads(over["heads"], D)
        lam0 = RK.threshold_info(GaussianMixture.from_json_obj(toks), heads, GaussianMixture.from_json_obj(qs))["lambda"]
        t = C.rational(rng, *DRAW_LAMBDA, digits=3)
        scale = C._dec(__import__("fractions").Fraction(t) / __import__("fractions").Fraction(repr(lam0)), 3) if lam0 > 0 else "0"
        if float(scale) <= 0:
            continue
        qs["covariances"] = [_scaled_psd(S, scale) for S in qs["covariances"]]
        cand = {**over, "gaussian_tokens": toks, "queries": qs}
        e = _averaged_effects({**params, **cand})
        if _decidable_average(e):
            return cand
    return None


# =================================================================================================
# fp-multihead-covariance
# =================================================================================================
@generic(_draw_cov)
def _check_cov(params, ctx):
    mix, heads, target = _setup(params)
    z = np.array([float(x) for x in params["z"]])
    v = ctx.variant
    derivs = [_derivation("multihead-covariance", lambda: TR.multihead_covariance_derivation(2))]
    sym_ok, sym_rows = _sym(ctx, derivs)
    cb = RS.covariance_blocks(mix, heads, z, variant={"no-mean-shift": "no-mean-shift"}.get(v))
    pred01 = cb["blocks"][(0, 1)] if v != "no-cross-head" else 0 * cb["blocks"][(0, 1)]
    c = RK.risk_constants(mix, heads, target, z[None])
    pred_var = float(c["variance"][0]) - (float(c["cross"][0]) if v == "no-cross-head" else 0.0)
    if v == "no-mean-shift":
        blocks = cb["blocks"]
        arr = [h.arrays() for h in heads]
        pred_var = float(sum(np.trace(arr[h][2] @ blocks[(h, k)] @ arr[k][2].T) for h in range(2) for k in range(2)))

    def run():
        eng = RS.MultiHeadEngine(mix, heads, z)
        w, m, G = mix.arrays()
        lim = [V @ RK._tilt(w, m, G, (U @ z)[None])[4][0] for U, V, _W in eng.arr]
        rows = []
        for L in params["Ls"]:
            T, _ = eng.run(int(L), int(params["reps"]), _rng(ctx, "cov", int(L)))
            d0, d1 = T[0] - lim[0], T[1] - lim[1]
            prods = np.einsum("ri,rj->rij", d0, d1).reshape(len(d0), -1)
            e = sum(dd @ W.T for dd, (_U, _V, W) in zip((d0, d1), eng.arr))
            sq = (e**2).sum(1)
            R = len(d0)
            rows.append({"L": int(L), "est": (L * prods.mean(0)).tolist(), "se": (L * prods.std(0, ddof=1) / math.sqrt(R)).tolist(),
                         "L_output_mse": float(L * sq.mean()), "L_output_mse_se": float(L * sq.std(ddof=1) / math.sqrt(R))})
        return rows
    rows = _cached(ctx, params, "cov", run)
    Ls = [r["L"] for r in rows]
    fam = AlphaFamily(name="fp-multihead-covariance")
    rule = InverseLRule(fam.split("cross-block-and-mse-limits", 1 - BRANCH_ALPHA_SHARE), margin=COV_RELATIVE_MARGIN,
                        relative=True, name="limits of L Cov(T^0, T^1) entries and L E||sum_h W_h (T_L^h - T^h)||^2")
    dec = rule.decide(Ls, [r["est"] + [r["L_output_mse"]] for r in rows], [r["se"] + [r["L_output_mse_se"]] for r in rows],
                      list(np.ravel(pred01)) + [pred_var], n_samples=int(params["reps"]))
    if v == "no-mean-shift":  # the same mistake on the symbolic side must fail too
        if "no-shift-holds" not in _CACHE:
            _CACHE["no-shift-holds"] = bool(TR.multihead_covariance_derivation(2, "no-shift").holds())
        sym_ok = _CACHE["no-shift-holds"]
    elif v is not None:  # the control changes only the numeric prediction
        sym_ok = True
    else:  # the symbolic check has power: the stated form without the mean shift differs at a rational point
        if "no-shift-counterexample" not in _CACHE:
            ce = TR.multihead_covariance_derivation(2, "no-shift").counterexample(trials=1)
            _CACHE["no-shift-counterexample"] = bool(ce["residual"] > 1e-20 * ce["scale"])
        sym_rows = sym_rows + [{"derivation": "the stated form without the mean-shift products differs from the derived "
                                              "one at a random rational point (the check's power)",
                                "status": "proven" if _CACHE["no-shift-counterexample"] else "not proven"}]
        sym_ok = sym_ok and _CACHE["no-shift-counterexample"]
    sym = _sym_decision(sym_ok, sym_rows)
    links = [_covariance_links(mix, heads, target, z), _per_query_links(mix, heads, target, z[None]),
             _engine_branch_link(ctx, fam, params["mixture"], heads, z)] if v is None else []
    ev = {"symbolic": sym_rows, "rho": {f"{h}{k}": r for (h, k), r in cb["rho"].items()},
          "predicted_cross_block": np.asarray(pred01).tolist(), "predicted_L_output_mse": pred_var,
          "per_L": rows, "test": dec, "symbolic_test": sym, "alpha": fam.ledger(),
          "rule": rule.describe() + " (entries: the cross block C_01 row-major, then the output MSE sum tr(W C W^T)); "
                  + sym["rule"] + " (C_01 and b_0 from the MGF)" + "".join("; " + d["rule"] for d in links)}
    if links:
        ev["numerics_paths"] = {"covariance_blocks": links[0], "per_query_constants": links[1], "engine_branches": links[2]}
    return Outcome(combine(dec, sym, *links), ev)


register(Claim(
    id="fp-multihead-covariance",
    title="Heads sharing one prompt: L Cov(T^h, T^h') -> rho_hh' V_h C_hh' V_h'^T",
    source=SOURCE, section=SECTION, check=_check_cov, kind="monte-carlo",
    statement=("L Cov(T_L^h, T_L^h') -> rho_hh' V_h sum_k w_k(a_h + a_h')[G_k + (mu_k - grad Lambda(a_h))(mu_k - grad Lambda(a_h'))^T] "
               "V_h'^T, mu_k = m_k + G_k (a_h + a_h'), rho_hh' = M(a_h + a_h') / (M(a_h) M(a_h'))"),
    assumptions=("tokens i.i.d. from a Gaussian mixture", "fixed query", "all heads read the same L tokens", "first order in 1/L"),
    defaults={"mixture": MIX, "heads": HEADS, "target": TARGET, "z": ["0.8", "-0.4", "0.6"], "Ls": [100, 400], "reps": 8000},
    profiles={"full": {"Ls": [100, 400, 1600], "reps": 200000}},
    controls=(Control("no-cross-head", "cross block predicted 0 (heads treated as reading independent prompts)"),
              Control("no-mean-shift", "C_hh' without the mean-shift products (tilted covariances only)")),
    derivations=lambda: [TR.multihead_covariance_derivation(2)],
    independence=("derived side: simulated finite prompts read by several heads (the engine's mixture branch; its one-"
                  "component branch compared in law); stated side: rho_hh' V_h C_hh' V_h'^T from the mixture's CGF, decided"
                  " against risk_constants' variance and cross, the single-head finite_prompt_constants and "
                  'risk_constants_mp at 30 digits (other code paths); shared: the mixture parser')
))


# =================================================================================================
# fp-risk-expansion
# =================================================================================================
@generic(_draw_expansion)
def _check_expansion(params, ctx):
    v = ctx.variant
    sym_ok, sym_rows = _sym(ctx, [_derivation("risk-expansion", lambda: TR.risk_expansion_derivation(2))])
    # the eps^1 term of the delta method has mean zero (so the risk's first correction is O(1/L)), exactly
    if "first-order-mean" not in _CACHE:
        _CACHE["first-order-mean"] = TR.delta_method_risk(1)["first_order_mean"] == 0  # one head: 0.6 s, not 1.3 s
    sym_rows = sym_rows + [{"derivation": "the eps^1 coefficient of the delta method has mean 0 (one head)",
                            "status": "proven" if _CACHE["first-order-mean"] else "not proven"}]
    sym_ok = sym_ok and _CACHE["first-order-mean"]
    # (a) one query, mixture tokens
    mix, heads, target = _setup(params)
    z = np.array([float(x) for x in params["z"]])
    c = RK.risk_constants(mix, heads, target, z[None])
    pred_q = float(_predicted_K({k: c[k][0] for k in ("K", "bias_residual", "cross")}, v if v != "mean-query-norm" else None))
    rows_q = _per_query_mc(ctx, params, mix, heads, target, z, "query")
    fam = AlphaFamily(name="fp-risk-expansion")
    rule_q = InverseLRule(fam.split("per-query-K", 0.45), margin=K_RELATIVE_MARGIN, relative=True,
                          name="per query: limit of L (R_L(z) - R_inf(z))")
    dec_q = rule_q.decide([r["L"] for r in rows_q], [r["cv"] for r in rows_q], [r["cv_se"] for r in rows_q], pred_q,
                          n_samples=int(params["reps"]))
    # (b) Gaussian tokens, Gaussian-mixture queries (singular covariances): closed form
    gmix = GaussianMixture.from_json_obj(params["gaussian_tokens"], where="gaussian_tokens")
    queries = GaussianMixture.from_json_obj(params["queries"], where="queries")
    pred_a, info_a = _averaged_prediction(gmix, heads, queries, target, v)
    exact = RK.averaged_risk(gmix, heads, queries, target)
    rows_a = _averaged_mc(ctx, params, gmix, heads, target, queries, params["Ls_averaged"], params["queries_averaged"], "avg")
    rule_a = InverseLRule(fam.split("averaged-K", 0.45), margin=K_RELATIVE_MARGIN, relative=True,
                          name="query-averaged: limit of L (R_L - R_inf)")
    dec_a = rule_a.decide([r["L"] for r in rows_a], [r["cv"] for r in rows_a], [r["cv_se"] for r in rows_a], pred_a,
                          n_samples=int(params["queries_averaged"]))
    sym = _sym_decision(sym_ok, sym_rows)
    links, links_ev = [], {}
    if v is None:  # the numerics' own paths, decided on the claim's runs (a control changes only the prediction)
        qw_, qm_, _qS = queries.arrays()
        links_ev["per_query_mixture_tokens"] = _per_query_links(mix, heads, target, z[None])
        links_ev["per_query_gaussian_tokens"] = _per_query_links(gmix, heads, target, qm_)
        links_ev["closed_form"] = _closed_form_links(gmix, heads, queries, target, exact,
                                                     RK.averaged_risk(gmix, heads, queries, target, dps=30))
        links_ev["threshold"] = _threshold_link(gmix, heads, queries)
        mc_decs, links_ev["mixture_monte_carlo"] = _mc_path(ctx, fam, params["gaussian_tokens"], heads, queries, target)
        links = [links_ev[k] for k in ("per_query_mixture_tokens", "per_query_gaussian_tokens", "closed_form", "threshold")]
        links += mc_decs
    ev = {"symbolic": sym_rows,
          "per_query": {"z": z.tolist(), "K": float(c["K"][0]), "variance": float(c["variance"][0]),
                        "cross": float(c["cross"][0]), "bias_residual": float(c["bias_residual"][0]),
                        "risk_infinite": float(c["risk_infinite"][0]), "K_compared": pred_q, "per_L": rows_q,
                        "test": dec_q},
          "averaged": {"threshold": exact["threshold"], "K": exact["K"], "variance": exact["variance"],
                       "cross": exact["cross"], "bias_residual": exact["bias_residual"],
                       "risk_infinite": exact["risk_infinite"], "method": exact["method"], "K_compared": pred_a,
                       "per_L": rows_a, "test": dec_a},
          "symbolic_test": sym, "alpha": fam.ledger(),
          "rule": "; ".join([rule_q.describe() + " (control-variate estimates, mixture tokens, one query)",
                             rule_a.describe() + " (Gaussian tokens, closed-form K; lambda* < 1/6 so that the averaged "
                             "remainder is O(1/L))", sym["rule"] + " (delta method)"]
                            + [d["rule"] for d in links])}
    if links_ev:
        ev["numerics_paths"] = links_ev
    return Outcome(combine(dec_q, dec_a, sym, *links), ev)


register(Claim(
    id="fp-risk-expansion",
    title="Finite-prompt risk of several heads: R_L = R_inf + K / L + o(1/L), per query and query-averaged",
    source=SOURCE, section=SECTION, check=_check_expansion, kind="monte-carlo",
    statement=("L (R_L(z) - R_inf(z)) -> K(z) = sum_{h,h'} tr(W_h C_hh'(z) W_h'^T) - 2 E[(y - yhat_inf)^T | z] sum_h W_h b_h(z); "
               "for Gaussian tokens and Gaussian queries E_z K(z) is a finite sum of det(I - 2 Sigma S)^(-1/2) terms"),
    assumptions=("tokens i.i.d. from a Gaussian mixture", "all heads share the prompt", "y = B z + eps, eps independent",
                 "first order in 1/L"),
    defaults={"mixture": MIX, "heads": HEADS, "target": TARGET, "z": ["0.8", "-0.4", "0.6"], "Ls": [100, 400], "reps": 6000,
              "gaussian_tokens": GAUSS, "queries": QUERIES, "Ls_averaged": [100, 400], "queries_averaged": 12000},
    profiles={"full": {"Ls": [100, 400, 1600], "reps": 100000, "Ls_averaged": [100, 400, 1600], "queries_averaged": 100000}},
    controls=CONTROLS,
    derivations=lambda: [TR.risk_expansion_derivation(2)],
    independence=('derived side: simulated finite-prompt risks; stated side: the closed-form 1/L coefficient K (and its '
                  'Gaussian-query average), decided against risk_constants_mp (30 digits), the attention operator (R_inf), '
                  'Gauss-Hermite quadrature of the per-query constants (every part of the average), the mixture-token Monte'
                  ' Carlo on two identical components, and an eigen-decomposition of Sigma U^T G U (lambda*); shared: the '
                  'mixture parser')
))


# =================================================================================================
# fp-risk-threshold
# =================================================================================================
def _scaled_heads(heads_obj, t):
    out = []
    for h in heads_obj:
        o = dict(h)
        o["U"] = [[repr(float(x) * t) for x in r] for r in h["U"]]
        out.append(o)
    return out


def _band(lam, beta, Ls, allowance):
    lo, hi = math.log(min(Ls)), math.log(max(Ls))
    w = (math.log(hi) - math.log(lo)) / (hi - lo)
    p = -1 / (2 * lam) if lam > 0.5 else -1.0
    return [p + (beta - allowance) * w, p + (beta + allowance) * w]


def _rate_decision(alpha, Ls, values, ses, finite_pred, band, n_samples, name):
    """The rate rule past the threshold: ``fits.decay_rate_decision`` with margin ``RATE_SLOPE_MARGIN``
    (shared with fp-query-averaged-rate, whose query-averaged MSE has the same structure).  (An earlier
    rule required the interval to overlap ``band`` itself: drawn configurations and the full profile of
    the default refuted the true statement with slopes between -1 and the band, e.g. [-0.91, -0.77]
    against [-0.76, -0.30] at lambda* = 0.82.)"""
    return decay_rate_decision(alpha, Ls, values, ses, finite_pred, band, n_samples, name, margin=RATE_SLOPE_MARGIN)


_GAUSS_AVG = {}


def _gaussian_average_link(ctx) -> tuple[dict, dict]:
    """The closed form behind every query average, decided two ways (exact and 40-digit):
    SymPy's integral of exp(s z^2)(alpha + beta z + q z^2) against N(mu, sigma^2) equals the stated
    closed form (``holds()``), and that *derived* integral, evaluated at a point drawn from the run's
    seed (generic: mu != 0, all of alpha, beta, q non-zero, s sigma^2 in (0.05, 0.4)), equals
    numerics.risk.gaussian_exp_quadratic_mean in float64 and its mpmath twin at 40 digits in D = 1."""
    import mpmath as mpm
    import sympy as sp

    from softmix.numerics.precision import workdps

    if "d" not in _GAUSS_AVG:
        _GAUSS_AVG["d"] = TR.gaussian_average_derivation()
        _GAUSS_AVG["holds"] = bool(_GAUSS_AVG["d"].holds())
    d = _GAUSS_AVG["d"]
    rng = _rng(ctx, "gaussian-average-point")
    r = lambda lo, hi: sp.Rational(int(rng.integers(int(lo * 1000), int(hi * 1000))), 1000)
    sign = lambda x: x if rng.random() < 0.5 else -x
    pt = {"sigma": r(0.5, 1.5), "c": 1 - 2 * r(0.05, 0.4), "alpha": sign(r(0.2, 1.5)), "beta": sign(r(0.2, 1.5)),
          "q": sign(r(0.2, 1.5)), "mu": sign(r(0.2, 1.2))}
    syms = {x.name: x for x in sp.sympify(d.derived).free_symbols}
    derived = sp.N(sp.sympify(d.derived).subs({syms[k]: v for k, v in pt.items() if k in syms}), 45)
    s_val = (1 - pt["c"]) / (2 * pt["sigma"] ** 2)
    with workdps(45):
        m1 = lambda x: mpm.matrix([[mpm.mpf(sp.Rational(x).p) / sp.Rational(x).q]])
        mpv = RK.gaussian_exp_quadratic_mean_mp(m1(s_val), m1(pt["alpha"])[0], m1(pt["beta"]), m1(pt["q"]), m1(pt["mu"]),
                                                m1(pt["sigma"] ** 2))
        dv = mpm.mpf(str(derived))
        res_mp = residual_test(abs(dv - mpv), dps=40, scale=dv, guard=5)
        fl = RK.gaussian_exp_quadratic_mean([[float(s_val)]], float(pt["alpha"]), [float(pt["beta"])], [[float(pt["q"])]],
                                            [float(pt["mu"])], [[float(pt["sigma"] ** 2)]])
        res_fl = residual_test(abs(dv - mpm.mpf(fl)), dps=15, scale=dv, guard=3)
    ok = _GAUSS_AVG["holds"] and res_mp["passed"] and res_fl["passed"]
    dec = {"passed": ok, "verdict": "verified" if ok else "refuted",
           "rule": "SymPy's Gaussian integral == the stated closed form (exact), and the derived integral at a seeded "
                   "point == numerics' closed form at 40 digits (mpmath) and to 10^-12 relative (float64)"}
    ev = {"derivation": d.name, "symbolic": "proven" if _GAUSS_AVG["holds"] else "not proven",
          "point": {k: str(v) for k, v in pt.items()}, "derived_value": mpm.nstr(dv, 30),
          "mp_vs_derived": res_mp, "float_vs_derived": res_fl}
    return dec, ev


#: fp-risk-threshold: below in [0.1, 0.2] (K(z) has a finite variance over queries: lambda* < 1/4), above
#: in [1, 1.5].  Closer to 1/2 the check cannot decide the rate on L <= 6400: the regular 1/L part of the
#: excess competes with L^(-1/(2 lambda*)), the local slope lies between the two and outside the band that
#: allows only log factors (a first range [0.8, 1.5] drew lambda* = 0.82 at seed 5001: slope -0.84 +- 0.07
#: against the band [-0.76, -0.30], a false refutation; the check's reach, not the statement, see the report)
DRAW_THRESHOLD_BELOW = (0.1, 0.2)
DRAW_THRESHOLD_ABOVE = (1.0, 1.5)
#: the query Monte Carlo's spread sd_z K(z) / |E_z K| at most this (its z-test has a 5% relative margin)
DRAW_THRESHOLD_MAX_SPREAD = 2.0


@_memo_draw
def _draw_threshold(rng, params, i):
    """fp-risk-threshold within its statement: Gaussian tokens N(m, G) (m != 0, G non-isotropic), two
    drawn heads (non-symmetric U, W != I), a drawn linear target, one centred query component with a
    singular drawn covariance (the log power (ln L)^(m/2 - 1 + d) is derived for centred components), and
    drawn lambda_below / lambda_above; below, every control's averaged prediction at least
    DRAW_MIN_RELATIVE_EFFECT away from E_z K, |E_z K| at least half its variance part and the spread at most
    DRAW_THRESHOLD_MAX_SPREAD."""
    D, p, q = len(params["gaussian_tokens"]["means"][0]), len(params["heads"][0]["V"]), len(params["target"]["B"])
    for _ in range(500):
        toks = {"weights": ["1"], "means": [C.vector(rng, D, -1.0, 1.0)], "covariances": [C.spd(rng, D)]}
        qs = {"weights": ["1"], "means": [["0"] * D], "covariances": [C.spd(rng, D, rank=D - 1)]}
        heads = _draw_heads(rng, 2, D, p, q)
        target = _draw_target(rng, q, D)
        lb = C.rational(rng, *DRAW_THRESHOLD_BELOW, digits=3)
        la = C.rational(rng, *DRAW_THRESHOLD_ABOVE, digits=2)
        gm, qm = GaussianMixture.from_json_obj(toks), GaussianMixture.from_json_obj(qs)
        lam0 = RK.threshold_info(gm, RK.parse_heads(heads, D), qm)["lambda"]
        if not lam0 > 0:
            continue
        cand = {"gaussian_tokens": toks, "queries": qs, "heads": heads, "target": target,
                "lambda_below": float(lb), "lambda_above": float(la)}
        e = _averaged_effects({**params, **cand}, _scaled_heads(heads, math.sqrt(float(lb) / lam0)))
        if abs(e["K"]) >= 0.5 * e["variance"] and e["spread"] <= DRAW_THRESHOLD_MAX_SPREAD and all(
                e[v] >= DRAW_MIN_RELATIVE_EFFECT for v in ("no-bias-residual", "no-cross-head", "mean-query-norm")):
            return cand
    return None


# Drawn configurations found a defect of the rate rule here (seed 5001, lambda_above = 0.82: slope CI
# [-0.91, -0.77] against the asymptotic band [-0.76, -0.30]): at L <= 6400 the regular 1/L part and other
# heads' terms still weigh on the local slope.  _rate_decision now allows the slopes such a sum can show.
@generic(_draw_threshold)
def _check_threshold(params, ctx):
    v = ctx.variant
    link, link_ev = _gaussian_average_link(ctx)
    gmix = GaussianMixture.from_json_obj(params["gaussian_tokens"], where="gaussian_tokens")
    queries = GaussianMixture.from_json_obj(params["queries"], where="queries")
    target = RK.parse_target(params["target"], gmix.dim, 2)
    base = RK.parse_heads(params["heads"], gmix.dim)
    lam0 = RK.threshold_info(gmix, base, queries)["lambda"]
    tb = math.sqrt(float(params["lambda_below"]) / lam0)
    ta = math.sqrt(float(params["lambda_above"]) / lam0)
    hb = RK.parse_heads(_scaled_heads(params["heads"], tb), gmix.dim)
    ha = RK.parse_heads(_scaled_heads(params["heads"], ta), gmix.dim)
    # below: closed form (float64 and 30-digit), independent integration of K(z) by Monte Carlo over queries
    cf = RK.averaged_risk(gmix, hb, queries, target)
    cfm = RK.averaged_risk(gmix, hb, queries, target, dps=40)
    res = residual_test(abs(cfm["K"] - cf["K"]), dps=15, scale=cf["K"], guard=5)
    res["verdict"] = "confirmed" if res["passed"] else "refuted"
    res["rule"] = "precision rule: |K_float64 - K_40digits| <= 10^(5 - 15) max(1, |K|) (no alpha)"
    pred_b, _info = _averaged_prediction(gmix, hb, queries, target, v)
    links = []
    if v is None:  # the numerics' own paths (a control changes only the prediction)
        links = [_closed_form_links(gmix, hb, queries, target, cf, cfm),
                 _threshold_link(gmix, hb, queries, expected=params["lambda_below"]),
                 _threshold_link(gmix, ha, queries, expected=params["lambda_above"]),
                 _past_threshold_link(gmix, ha, queries, target, params["gaussian_tokens"]),
                 _threshold_edges(gmix, params["heads"], lam0, queries, target)]

    def qmc():
        # importance-sampled queries: plain sampling of K(z) has infinite variance once lambda* >= 1/4 (the
        # default lambda_below = 0.3 gave z = 3.6 in the full profile with 2e6 queries: the standard error
        # of an infinite-variance mean is meaningless); the proposal makes every moment finite
        n = int(params["query_samples"])
        lam_b = float(cf["threshold"])
        Z, iw = RS.sample_queries(queries, n, _rng(ctx, "queries"), RS.proposal_scale_for(lam_b) if lam_b < 0.5 else 1.0)
        Kz = iw * RK.risk_constants(gmix, hb, target, Z)["K"]
        return float(Kz.mean()), float(Kz.std(ddof=1) / math.sqrt(n))
    qm_est, qm_se = _cached(ctx, params, "qmc", qmc)
    fam = AlphaFamily(name="fp-risk-threshold")
    zrule = ZTest(fam.split("below-query-monte-carlo", 0.5), margin=K_QUERY_MC_RELATIVE_MARGIN, relative=True,
                  name="below: query Monte Carlo of E_z K(z) == closed form")
    t_below = zrule.decide(qm_est, qm_se, pred_b, n_samples=int(params["query_samples"]))
    # above: infinite coefficient, rate exponent and log power; measured on E||yhat_L - yhat_inf||^2
    tha = RK.threshold_info(gmix, ha, queries)
    rows = _averaged_mc(ctx, params, gmix, ha, target, queries, params["Ls_above"], params["queries_above"], "above")
    if v == "mean-query-norm":  # the point value is finite at every lambda: predicts 1/L
        zc = RK.query_norm_point(queries)
        finite_pred = bool(np.isfinite(RK.risk_constants(gmix, ha, target, zc[None])["K"][0]))
    else:
        finite_pred = bool(tha["finite"])
    if finite_pred:
        band = [-1.0, -1.0]
    else:
        beta = tha["log_power"] if tha["log_power"] is not None else 0.5
        band = _band(tha["lambda"], beta, params["Ls_above"], float(params["log_power_allowance"]))
    above = _rate_decision(fam.rest("above-slope"), [r["L"] for r in rows], [r["sq_error"] for r in rows],
                           [r["sq_error_se"] for r in rows], finite_pred, band, int(params["queries_above"]),
                           "above: log-log slope of E||yhat_L - yhat_inf||^2")
    ev = {"below": {"lambda": cf["threshold"], "finite": cf["finite"], "K_closed_form": cf["K"],
                    "K_closed_form_40_digits": str(cfm["K"]), "float_vs_mp": res, "K_compared": pred_b,
                    "query_monte_carlo_of_K": {"estimate": qm_est, "se": qm_se}, "test": t_below},
          "above": {"lambda": tha["lambda"], "finite": tha["finite"], "rate_exponent": tha.get("rate_exponent"),
                    "log_power": tha.get("log_power"), "multiplicity_rows": tha["rows"], "predicted_finite": finite_pred,
                    "per_L": rows, "slope_fit": above.get("fit"), "band": band, "test": above},
          "alpha": fam.ledger(), "gaussian_average": link_ev,
          "rule": "; ".join([link["rule"], "below (lambda* < 1/2): " + res["rule"], zrule.describe(),
                             "above (coefficient infinite): " + above["rule"]
                             + " (b within the allowance of beta: the unknown (1 + c/ln L) correction)"]
                            + [d["rule"] for d in links])}
    if links:
        ev["numerics_paths"] = {"closed_form_below": links[0], "threshold_below": links[1], "threshold_above": links[2],
                                "averages_above": links[3], "threshold_edges": links[4]}
    return Outcome(combine(link, res, t_below, above, *links), ev)


register(Claim(
    id="fp-risk-threshold",
    title="Query-averaged 1/L coefficient: finite iff lambda* < 1/2; past it L^(-1/(2 lambda*)) (ln L)^(m/2 - 1 + d)",
    source=SOURCE, section=SECTION, check=_check_threshold, kind="monte-carlo",
    statement=("Gaussian tokens N(m, G), queries sum_j pi_j N(mu_j, Sigma_j) (singular allowed): E_z K finite iff lambda* = "
               "max_{h,j} lambda_max(R_j^T U_h^T G U_h R_j) < 1/2; past it the coefficient is infinite and the excess decays "
               "like L^(-1/(2 lambda*)) (ln L)^(m/2 - 1 + d), m the multiplicity of lambda*, d = 1 if the mean shift "
               "W_h V_h G U_h R_j is non-zero on its eigenspace (centred query components)"),
    assumptions=("Gaussian tokens", "Gaussian-mixture queries", "linear target"),
    defaults={"gaussian_tokens": GAUSS, "queries": {"weights": ["1"], "means": [["0", "0", "0"]],
                                                    "covariances": [[["1", "0.2", "0"], ["0.2", "0.6", "0"], ["0", "0", "0"]]]},
              "heads": HEADS, "target": TARGET, "lambda_below": 0.3, "lambda_above": 1.0, "query_samples": 100000,
              "Ls_above": [100, 400, 1600, 6400], "queries_above": 2000, "log_power_allowance": 1.5},
    profiles={"full": {"queries_above": 20000, "Ls_above": [100, 400, 1600, 6400, 25600], "query_samples": 2000000}},
    controls=CONTROLS,
    derivations=lambda: [TR.gaussian_average_derivation()],
    independence=('derived side: simulated query-averaged risks over L, Gauss-Hermite quadrature of the per-query constants'
                  ' and an eigen-decomposition of Sigma U^T G U; stated side: finiteness iff lambda* < 1/2 (closed form, '
                  'float64 and 40 digits, every part), the L^(-1/(2 lambda*)) rate past it and its log power; shared: '
                  'nothing')
))


# =================================================================================================
# the paper's tasks at finite L
# =================================================================================================
def icl_setting(d: int, beta, noise, heads_A, weights):
    """Tokens (x, beta^T x + eps), x ~ N(0, I_d), eps ~ N(0, noise); query (x_q, 0) with x_q ~ N(0, I_d);
    scalar heads U_h = [[A_h, 0], [0, 0]] (scores <A_h x_q, x_i>), V_h = e_{d+1}^T (reads the label),
    W_h = [w_h]; target y = beta^T x_q + eps'."""
    D = d + 1
    b = [float(x) for x in beta]
    G = [[(1.0 if i == j else 0.0) if i < d and j < d else (b[i] if j == d and i < d else (b[j] if i == d and j < d else 0.0))
          for j in range(D)] for i in range(D)]
    G[d][d] = sum(x * x for x in b) + float(noise)
    tokens = {"weights": ["1"], "means": [["0"] * D], "covariances": [[[repr(x) for x in r] for r in G]]}
    Sq = [[repr(1.0 if (i == j and i < d) else 0.0) for j in range(D)] for i in range(D)]
    queries = {"weights": ["1"], "means": [["0"] * D], "covariances": [Sq]}
    heads = []
    for A, w in zip(heads_A, weights):
        U = [[repr(float(A[i][j])) if (i < d and j < d) else "0" for j in range(D)] for i in range(D)]
        heads.append({"U": U, "V": [["0"] * d + ["1"]], "W": [[repr(float(w))]]})
    target = {"B": [[repr(x) for x in b] + ["0"]], "noise_covariance": [[repr(float(noise))]]}
    return tokens, queries, heads, target


def _icl_effects(params):
    tokens, queries, heads_obj, target_obj = icl_setting(int(params["d"]), params["beta"], params["noise"], params["A"],
                                                         params["w"])
    return _averaged_effects({"gaussian_tokens": tokens, "queries": queries, "target": target_obj}, heads_obj)


@_memo_draw
def _draw_icl(rng, params, i):
    """fp-risk-icl-regression: beta with unequal entries, noise variance, two non-symmetric A_h and output
    weights w_h drawn, the A_h scaled together so that lambda* (= max_h sigma_max(A_h)^2) is a drawn value
    in DRAW_LAMBDA (the 1/L extrapolation needs lambda* < 1/6); every control's prediction at least
    DRAW_MIN_RELATIVE_EFFECT away from K, |K| at least half its variance part, spread at most DRAW_MAX_SPREAD."""
    from fractions import Fraction

    d = int(params["d"])
    for _ in range(500):
        beta = C.vector(rng, d, -1.2, 1.2)
        if len({abs(float(b)) for b in beta}) < d:
            continue
        noise = C.rational(rng, 0.1, 0.5, 2)
        A = [C.matrix(rng, d, d, -1.0, 1.0, min_asymmetry=0.3) for _ in range(2)]
        w = [C.rational(rng, 0.3, 1.5, 2) if rng.random() < 0.7 else "-" + C.rational(rng, 0.3, 1.5, 2) for _ in range(2)]
        cand = {"beta": beta, "noise": noise, "A": A, "w": w}
        tokens, queries, heads_obj, _t = icl_setting(d, beta, noise, A, w)
        lam0 = RK.threshold_info(GaussianMixture.from_json_obj(tokens), RK.parse_heads(heads_obj, d + 1),
                                 GaussianMixture.from_json_obj(queries))["lambda"]
        if not lam0 > 0:
            continue
        t = C.rational(rng, *DRAW_LAMBDA, digits=3)
        sc = math.sqrt(float(t) / lam0)
        cand["A"] = [[[C._dec(Fraction(round(float(x) * sc, 4)).limit_denominator(10**4), 4) for x in r] for r in Ah] for Ah in A]
        e = _icl_effects({**params, **cand})
        if _decidable_average(e):
            return cand
    return None


@generic(_draw_icl)
def _check_icl(params, ctx):
    v = ctx.variant
    tokens, queries, heads_obj, target_obj = icl_setting(int(params["d"]), params["beta"], params["noise"],
                                                         params["A"], params["w"])
    gmix = GaussianMixture.from_json_obj(tokens)
    q = GaussianMixture.from_json_obj(queries)
    heads = RK.parse_heads(heads_obj, gmix.dim)
    target = RK.parse_target(target_obj, gmix.dim, 1)
    exact = RK.averaged_risk(gmix, heads, q, target, dps=30)
    pred, _ = _averaged_prediction(gmix, heads, q, target, v)
    links = [] if v is not None else [
        _closed_form_links(gmix, heads, q, target, RK.averaged_risk(gmix, heads, q, target), exact),
        _threshold_link(gmix, heads, q)]
    lam = float(exact["threshold"])
    # importance sampling over queries: with lambda* in (1/8, 1/4) plain query sampling has a finite
    # variance but no fourth moment, and the sample mean came out skewed low (z about -1.2 on average
    # over ten seeds at the default configuration); the proposal of numerics.risk.proposal_scale_for
    # makes every moment finite
    s_q = RS.proposal_scale_for(lam) if lam < 0.5 else 1.0
    rows = _averaged_mc(ctx, params, gmix, heads, target, q, params["Ls"], params["queries"], "icl", s_q)
    fam = AlphaFamily(name="fp-risk-icl-regression")
    rule = InverseLRule(fam.rest("K-limit"), margin=K_RELATIVE_MARGIN, relative=True,
                        name="limit of L (R_L - R_inf) (control-variate estimates)")
    dec = rule.decide([r["L"] for r in rows], [r["cv"] for r in rows], [r["cv_se"] for r in rows], pred,
                      n_samples=int(params["queries"]))
    if lam >= 1 / 6:  # beyond the check's reach: the a + b/L extrapolation is biased (docs/finite-prompt.md, sec. 5)
        dec = {**dec, "verdict": "inconclusive", "passed": None,
               "reason": f"lambda* = {lam:.4g} >= 1/6: the remainder of L (R_L - R_inf) decays more slowly than 1/L, "
                         "so the a + b/L extrapolation cannot decide K; choose heads with lambda* < 1/6"}
    ev = {"setting": {"tokens": tokens, "queries": queries, "heads": heads_obj, "target": target_obj},
          "threshold": exact["threshold"], "risk_infinite": str(exact["risk_infinite"]), "K": str(exact["K"]),
          "variance": str(exact["variance"]), "cross": str(exact["cross"]), "bias_residual": str(exact["bias_residual"]),
          "K_compared": pred, "per_L": rows, "test": dec, "alpha": fam.ledger(), "query_proposal_scale": s_q,
          "rule": rule.describe() + " (against the closed-form K; queries importance-sampled from the query law "
                  "widened by s = sqrt(2 / (1 - 2 lambda*)), so that every moment of the estimator is finite)"
                  + "".join("; " + d["rule"] for d in links)}
    if links:
        ev["numerics_paths"] = {"closed_form": links[0], "threshold": links[1]}
    return Outcome(combine(dec, *links), ev)


register(Claim(
    id="fp-risk-icl-regression",
    title="In-context linear regression with H scalar softmax heads: exact 1/L coefficient of the finite-prompt risk",
    source=SOURCE + "; the predecessor's setting (Boursier & Boyer 2026, in-context regression)",
    section=SECTION, check=_check_icl, kind="monte-carlo",
    statement=("tokens (x, beta^T x + eps), query (x_q, 0) (singular query covariance), heads U_h = [[A_h, 0], [0, 0]], "
               "V_h = e^T (label), W_h = w_h: R_L = R_inf + K / L + o(1/L), K in closed form"),
    assumptions=("beta fixed (one task)", "x ~ N(0, I)", "first order in 1/L"),
    defaults={"d": 2, "beta": ["0.8", "-0.5"], "noise": "0.25",
              "A": [[["-0.25", "-0.045"], ["-0.02", "0.32"]], [["-0.13", "-0.015"], ["0.03", "-0.27"]]], "w": ["0.9", "0.6"],
              "Ls": [100, 400], "queries": 20000},
    profiles={"full": {"Ls": [100, 400, 1600], "queries": 100000}},
    controls=CONTROLS,
    independence=('derived side: simulated in-context regression prompts and Gauss-Hermite quadrature of the per-query '
                  'constants; stated side: the closed-form 1/L coefficient (float64 and 30 digits, every part); shared: '
                  'nothing')
))


def denoiser_setting(task):
    from softmix.numerics import denoising as DN

    hs = DN.paper_two_heads(task)
    mix = task.noisy_mixture()
    heads = RK.parse_heads([{"U": [[repr(float(x)) for x in r] for r in U], "V": [[repr(float(x)) for x in r] for r in V]}
                            for U, V in hs], task.d)
    return mix, heads


#: fp-risk-denoiser: lambda* (>= 1 for every exact softmax Bayes denoiser) at most this, so that the
#: exponent -1/(2 lambda*) is told from 0 on the L grid (the paper configuration: 1.586)
DRAW_DENOISER_MAX_LAMBDA = 2.5


@_memo_draw
def _draw_denoiser(rng, params, i):
    """fp-risk-denoiser within Thm 4.1: equal-norm, non-collinear means in d = 2 (||m1|| = ||m2|| is the
    theorem's hypothesis), pi1 != 1/2, gamma != xi drawn; kept when lambda* <= DRAW_DENOISER_MAX_LAMBDA."""
    from softmix.numerics import denoising as DN

    for _ in range(500):
        m = C.means(rng, 2, 2, equal_norms=True)
        xi = C.rational(rng, 0.6, 2.5, 1)
        cand = {"m1": m[0], "m2": m[1], "gamma": C.rational(rng, 0.4, 2.5, 1, avoid=(xi,)), "xi": xi,
                "pi1": C.weights(rng, 2)[0]}
        task = DN.DenoisingTask.from_params({**params, **cand}, where="drawn denoiser")
        mix, heads = denoiser_setting(task)
        if RK.threshold_info(mix, heads, mix)["lambda"] <= DRAW_DENOISER_MAX_LAMBDA:
            return cand
    return None


@generic(_draw_denoiser)
def _check_denoiser(params, ctx):
    from softmix.numerics import denoising as DN

    v = ctx.variant
    task = DN.DenoisingTask.from_params(params, where="fp-risk-denoiser")
    mix, heads = denoiser_setting(task)
    th = RK.threshold_info(mix, heads, mix)
    zero_target = RK.parse_target({"B": [["0"] * task.d] * task.d}, task.d, task.d)

    def run():
        rows = []
        for L in params["Ls"]:
            rng = _rng(ctx, "den", int(L))
            n = int(params["queries"])
            out = RS.simulate_excess_averaged(mix, heads, zero_target, mix, int(L), n, rng)
            # r = E[X | z] - f*(z) = 0 (Thm 4.1: the heads are the Bayes denoiser), so the excess risk is the
            # squared output error ||yhat_L - f*||^2
            Z = out["Z"]
            ok = float(np.abs(DN.head_outputs(task, DN.paper_two_heads(task), Z[:200]) - DN.bayes_denoiser(task, Z[:200])).max())
            sq = out["sq_error"]
            rows.append({"L": int(L), "excess": float(sq.mean()), "excess_se": float(sq.std(ddof=1) / math.sqrt(n)),
                         "L_excess": float(L * sq.mean()), "bayes_check_max_abs": ok})
        return rows
    rows = _cached(ctx, params, "den", run)
    if v == "mean-query-norm":
        zc = RK.query_norm_point(mix)
        finite_pred = bool(np.isfinite(RK.risk_constants(mix, heads, zero_target, zc[None])["variance"][0]))
    else:
        finite_pred = bool(th["finite"])
    band = [-1.0, -1.0] if finite_pred else _band(th["lambda"], 0.5, params["Ls"], float(params["log_power_allowance"]))
    fam = AlphaFamily(name="fp-risk-denoiser")
    rate = _rate_decision(fam.rest("excess-slope"), [r["L"] for r in rows], [r["excess"] for r in rows],
                          [r["excess_se"] for r in rows], finite_pred, band, int(params["queries"]),
                          "log-log slope of the query-averaged excess E||yhat_L - f*||^2")
    bayes = Threshold(1e-9, "<", name="the heads' infinite-prompt output equals the Bayes denoiser (max abs error)").decide(
        max(r["bayes_check_max_abs"] for r in rows))
    # lambda* >= 1 (the statement), from threshold_info and from an independent eigen-decomposition (claim runs)
    lam_ge = Threshold(1.0, ">=", name="lambda* of the exact softmax Bayes denoiser >= 1").decide(th["lambda"])
    links = [lam_ge, _threshold_link(mix, heads, mix, th)] if v is None else []
    ev = {"lambda_star": th["lambda"], "finite": th["finite"], "rate_exponent": th.get("rate_exponent"),
          "log_power": th.get("log_power"), "log_power_note": th.get("log_power_note"),
          "lower_bound_note": "any head whose gate equals beta_k has U^T m_k = m_k / s, so s^2 sigma_max(U)^2 >= 1 = lambda*: "
                              "the exact softmax Bayes denoiser is always past the threshold",
          "predicted_finite": finite_pred, "per_L": rows, "slope_fit": rate.get("fit"), "band": band, "test": rate,
          "bayes_check": bayes, "alpha": fam.ledger(),
          "rule": "; ".join([rate["rule"] + " (band: b within the allowance of 1/2, the exp(O(sqrt(ln L))) factors of "
                             "mixture tokens)", bayes["rule"]] + [d["rule"] for d in links])}
    if links:
        ev["lambda_star_check"] = {"bound": links[0], "threshold": links[1]}
    return Outcome(combine(rate, bayes, *links), ev)


register(Claim(
    id="fp-risk-denoiser",
    title="Thm 4.1's two-head Bayes denoiser on finite prompts: infinite 1/L coefficient, excess ~ L^(-1/(2 lambda*))",
    source=SOURCE + "; Gabet-Boursier-Boyer 2026, Thm 4.1 (construction of App. C.6) and Fig. 2 (m1 = (3,0), m2 = (0,3), gamma = 1, xi = 2)",
    section=SECTION, check=_check_denoiser, kind="monte-carlo",
    statement=("the two heads of Thm 4.1 reading L noisy tokens Z_i ~ mu_Z and a query z ~ mu_Z: lambda* = max_h s^2 sigma_max(U_h)^2 "
               ">= 1 > 1/2, so E_z K(z) = oo and the excess risk E||yhat_L - f*||^2 decays like L^(-1/(2 lambda*)) up to slowly "
               "varying factors, not like 1/L"),
    assumptions=("equal norms ||m1|| = ||m2|| (Thm 4.1's hypothesis)", "pi1 != 1/2 (generic)", "prompt and query from mu_Z"),
    defaults={"m1": ["3", "0"], "m2": ["0", "3"], "gamma": "1", "xi": "2", "pi1": "0.3", "Ls": [100, 400, 1600],
              "queries": 1500, "log_power_allowance": 1.5},
    profiles={"full": {"Ls": [100, 400, 1600, 6400, 25600], "queries": 20000}},
    controls=(Control("mean-query-norm", "query average replaced by the value at one query of the mean query norm (finite: 1/L)"),),
    independence=("derived side: simulated finite prompts through Thm 4.1's two heads, and an eigen-decomposition of Sigma "
                  'U^T G U; stated side: lambda* >= 1 (threshold_info) and the L^(-1/(2 lambda*)) excess; shared: the head '
                  'construction')
))


# ---- single LDA head at a Bayes point of Section 3 -------------------------------------------------
def lda_bayes_head(prob, U0, u):
    """A point theta = (c U0, u, v, v22) of the Bayes set E1 (Phi(theta) = (w*, b*, 0, s), eq. (7)):
    v = Gamma^{-1} U11^{-1} w*, v22 = -v^T (m1 - m_-1) / 2 (r = 0), and the scale c solving
    b = v^T (m1 + m_-1) / 2 = b*.  Returns (theta, mixture of tokens (X, Y), head, query law) in the
    risk engine's convention: U = [[U11^T, 0], [u^T, 0]], V = (v^T, v22), queries (x, 0)."""
    from softmix.numerics import lda as N

    m1, m_1, G, _Lc, pi, _s0 = prob.arrays()
    d = prob.d
    w, b = prob.bayes()
    U0, u = np.asarray(U0, float), np.asarray(u, float)
    v0 = np.linalg.solve(G, np.linalg.solve(U0, w))
    U11 = (v0 @ (m1 + m_1) / (2 * b)) * U0
    v = np.linalg.solve(G, np.linalg.solve(U11, w))
    v22 = -v @ (m1 - m_1) / 2
    theta = N.pack_theta(U11, u, v, v22)
    D = d + 1
    f = lambda M: [[repr(float(x)) for x in r] for r in M]
    Gt = np.zeros((D, D))
    Gt[:d, :d] = G
    wts = [repr(float(pi)), repr(1 - float(pi))]
    mix = GaussianMixture.from_json_obj({"weights": wts, "means": [f([list(m1) + [1.0]])[0], f([list(m_1) + [-1.0]])[0]],
                                         "covariances": [f(Gt), f(Gt)]})
    q = GaussianMixture.from_json_obj({"weights": wts, "means": [f([list(m1) + [0.0]])[0], f([list(m_1) + [0.0]])[0]],
                                       "covariances": [f(Gt), f(Gt)]})
    U = np.zeros((D, D))
    U[:d, :d] = U11.T
    U[d, :d] = u
    heads = RK.parse_heads([{"U": f(U), "V": f([list(v) + [v22]])}], D)
    return theta, mix, heads, q


def _lda_effects(params, lambda_only=False):
    """lambda*, and the relative effect of each control on K_LDA (fixed 20000-query sample, seed 0)."""
    from scipy.special import expit

    from softmix.numerics import lda as N

    prob = N.LDAProblem.from_params(params["problem"], where="drawn LDA problem")
    _theta, mix, heads, q = lda_bayes_head(prob, _np(params["U0"]), _np([params["u"]])[0])
    d = prob.d
    w, b = prob.bayes()
    zero = RK.parse_target({"B": [["0"] * (d + 1)]}, d + 1, 1)
    lam = RK.threshold_info(mix, heads, q)["lambda"]
    if lambda_only:
        return {"lambda": lam}
    x, _y = N.sample(prob, np.random.default_rng(0), 20000)
    c = RK.risk_constants(mix, heads, zero, np.hstack([x, np.zeros((len(x), 1))]))
    e = expit(x @ w + b)
    k = 0.5 * e * (1 - e) * c["variance"]
    K, Ku = float(k.mean()), float((0.125 * c["variance"]).mean())
    zc = RK.query_norm_point(q)
    ez = expit(zc[:d] @ w + b)
    Kq = float(0.5 * ez * (1 - ez) * RK.risk_constants(mix, heads, zero, zc[None])["variance"][0])
    return {"lambda": lam, "K": K, "unweighted": abs(Ku - K) / K, "mean-query-norm": abs(Kq - K) / K,
            "spread": float(k.std()) / K}


#: fp-risk-lda-bayes-point: the spread sd_x k(x) / K_LDA of the per-query constant at most this (the
#: paper configuration: about 1)
DRAW_LDA_MAX_SPREAD = 2.0


@_memo_draw
def _draw_lda(rng, params, i):
    """fp-risk-lda-bayes-point: a drawn LDA problem (unequal-norm class means, non-isotropic Gamma,
    pi_+ != 1/2) and a drawn point of its Bayes set E1 (non-symmetric U0, u != 0); the scale of U11 is fixed
    by E1, so draws are kept when lambda* lies in DRAW_LDA_LAMBDA (the check decides below LDA_MAX_LAMBDA),
    each control moves K_LDA by at least DRAW_MIN_RELATIVE_EFFECT, the spread of the per-query constant
    is at most DRAW_LDA_MAX_SPREAD K_LDA, and K_LDA / min L <= LDA_DRAW_FIRST_ORDER (first-order regime)."""
    d = len(params["problem"]["m1"])
    for _ in range(2000):
        m = C.means(rng, 2, d, norm_range=(0.4, 1.5))
        if np.linalg.norm(np.array(m[0], float) - np.array(m[1], float)) < 0.5:
            continue
        prob = {"m1": m[0], "m_1": m[1], "Gamma": C.spd(rng, d, scale_range=(0.5, 1.5)),
                "pi_plus": C.weights(rng, 2, away=0.2)[0]}
        cand = {"problem": prob, "U0": C.matrix(rng, d, d, -1.0, 1.0, min_asymmetry=0.3), "u": C.vector(rng, d, -0.5, 0.5)}
        try:
            if not DRAW_LDA_LAMBDA[0] <= _lda_effects({**params, **cand}, lambda_only=True)["lambda"] <= DRAW_LDA_LAMBDA[1]:
                continue
            with np.errstate(all="ignore"):
                e = _lda_effects({**params, **cand})
        except (np.linalg.LinAlgError, ValueError, ZeroDivisionError):
            continue
        if np.isfinite(e["K"]) and 0 < e["K"] <= LDA_DRAW_FIRST_ORDER * min(int(L) for L in params["Ls"]) \
                and e["spread"] <= DRAW_LDA_MAX_SPREAD \
                and min(e["unweighted"], e["mean-query-norm"]) >= DRAW_MIN_RELATIVE_EFFECT:
            return cand
    return None


@generic(_draw_lda)
def _check_lda(params, ctx):
    from scipy.special import expit

    from softmix.numerics import lda as N
    from softmix.numerics import lda_finite_prompt as LF

    v = ctx.variant
    prob = N.LDAProblem.from_params(params["problem"], where="fp-risk-lda-bayes-point")
    theta, mix, heads, q = lda_bayes_head(prob, _np(params["U0"]), _np([params["u"]])[0])
    d = prob.d
    w, b = prob.bayes()
    zero = RK.parse_target({"B": [["0"] * (d + 1)]}, d + 1, 1)
    th = RK.threshold_info(mix, heads, q)
    on_E1 = N.dist_E1(prob, N.phi(prob, theta))

    def kq():
        rng = _rng(ctx, "queries")
        n = int(params["query_samples"])
        from softmix.numerics import lda as NN
        x, _y = NN.sample(prob, rng, n)
        c = RK.risk_constants(mix, heads, zero, np.hstack([x, np.zeros((n, 1))]))
        e = expit(x @ w + b)
        k = 0.5 * e * (1 - e) * c["variance"]
        k_unw = 0.125 * c["variance"]
        pred_err = float(np.abs(c["prediction"][:, 0] - (x @ w + b)).max())
        return float(k.mean()), float(k.std(ddof=1) / math.sqrt(n)), float(k_unw.mean()), float(k_unw.std(ddof=1) / math.sqrt(n)), pred_err
    K, Kse, Ku, Kuse, pred_err = _cached(ctx, params, "kq", kq)
    K_true = K  # the first-order regime is a property of the simulated process, not of a control's prediction
    if v == "unweighted":
        K, Kse = Ku, Kuse
    elif v == "mean-query-norm":
        zc = RK.query_norm_point(q)
        c = RK.risk_constants(mix, heads, zero, zc[None])
        e = expit(zc[:d] @ w + b)
        K, Kse = float(0.5 * e * (1 - e) * c["variance"][0]), 0.0

    def run():
        rows = []
        for L in params["Ls"]:
            m, se = LF.excess_risk_mc(prob, theta, int(L), int(params["prompts"]), _rng(ctx, "lda", int(L)))
            rows.append({"L": int(L), "L_excess": float(L * m), "se": float(L * se)})
        return rows
    rows = _cached(ctx, params, "lda", run)
    Ls = [r["L"] for r in rows]
    fam = AlphaFamily(name="fp-risk-lda-bayes-point")
    if len(set(Ls)) < 2 or not all(np.isfinite(r["se"]) and r["se"] > 0 for r in rows):
        fit, gof = None, None
        lim = {"passed": None, "verdict": "inconclusive", "alpha": 0.0,
               "reason": "need two distinct prompt lengths and positive finite standard errors"}
        zrule = None
    elif th["lambda"] >= LDA_MAX_LAMBDA:
        fit, gof, zrule = None, None, None
        lim = {"passed": None, "verdict": "inconclusive", "alpha": 0.0,
               "reason": f"lambda* = {th['lambda']:.4g} >= {LDA_MAX_LAMBDA:.4g}: the remainder of L (R_L - R*) beyond the "
                         "first order is too large (and the Monte Carlo standard errors unreliable) for the a + b/L fit to "
                         "decide K_LDA; choose a Bayes point with smaller lambda*"}
    elif K_true / min(Ls) > LDA_FIRST_ORDER_MAX:
        fit, gof, zrule = None, None, None
        lim = {"passed": None, "verdict": "inconclusive", "alpha": 0.0,
               "reason": f"K_LDA / min L = {K_true / min(Ls):.3g} > {LDA_FIRST_ORDER_MAX}: the predicted excess at the "
                         "shortest prompt is not small, so terms beyond 1/L bias the a + b/L fit; use prompt lengths "
                         f"L >= {math.ceil(K_true / LDA_FIRST_ORDER_MAX)}"}
    else:
        fit = fit_inverse_L(Ls, [r["L_excess"] for r in rows], [r["se"] for r in rows])
        share = 0.5 if fit["dof"] > 0 else 1.0
        # the limit a of y(L) = a + b/L against K_LDA, itself a query Monte Carlo estimate: combined standard error
        zrule = ZTest(fam.split("limit-vs-K_LDA", share), margin=LDA_RELATIVE_MARGIN, relative=True,
                      name="limit of L (R_L - R*) == K_LDA")
        lim = zrule.decide(fit["limit"][0], math.hypot(fit["limit_se"][0], Kse), K, n_samples=int(params["prompts"]))
        gof = None
        if fit["dof"] > 0:
            ga = fam.rest("goodness-of-fit")
            crit = float(stats.chi2.isf(ga, fit["dof"]))
            gof = {"chi2": fit["chi2"], "dof": fit["dof"], "critical": crit, "alpha": ga,
                   "passed": bool(fit["chi2"] <= crit)}
            gof["verdict"] = "confirmed" if gof["passed"] else "refuted"
    on = Threshold(1e-9, "<", name="distance of Phi(theta) to E1").decide(on_E1)
    pe = Threshold(1e-9, "<", name="infinite-prompt output == Bayes logit (max abs error)").decide(pred_err)
    links = []
    if v is None:  # the risk engine's own paths at this head (claim runs only)
        xq = np.hstack([np.asarray(prob.arrays()[0], float), [0.0]])[None]  # the query (m_1, 0)
        links = [_threshold_link(mix, heads, q, th), _per_query_links(mix, heads, zero, xq)]
    ev = {"theta": np.asarray(theta).tolist(), "distance_to_E1": on_E1, "infinite_prompt_equals_bayes_logit_max_err": pred_err,
          "lambda_star": th["lambda"], "K_LDA": K, "K_se": Kse, "per_L": rows, "fit": fit, "test": lim,
          "goodness_of_fit": gof, "deterministic": [on, pe], "alpha": fam.ledger(),
          "reading": "at a Bayes point the infinite-prompt residual is zero, so L (R_L - R*) -> (1/2) E_x[eta (1 - eta) "
                     "L Var f_L(x)] (the logistic loss's curvature times the single head's variance constant)",
          "rule": "; ".join([
              f"decided only for lambda* < {LDA_MAX_LAMBDA:.4g} and in the first-order regime K_LDA / min L <= "
              f"{LDA_FIRST_ORDER_MAX} (otherwise inconclusive); "
              "fit L (R_L - R*) = a + b/L by weighted least squares with known Monte Carlo standard errors "
              "(numerics.lda_finite_prompt.excess_risk_mc, an independent simulator); "
              + (zrule.describe() if zrule else "z-test of a == K_LDA")
              + " with the combined standard error of a and of K_LDA (Monte Carlo over queries of the variance constant)",
              "with >= 3 prompt lengths a chi-square goodness-of-fit test at the other half of alpha",
              on["rule"], pe["rule"]] + [d["rule"] for d in links])}
    if links:
        ev["numerics_paths"] = {"threshold": links[0], "per_query_constants": links[1]}
    return Outcome(combine(lim, *([gof] if gof else []), on, pe, *links), ev)


def _np(M):
    return np.array([[float(x) for x in r] for r in M])


register(Claim(
    id="fp-risk-lda-bayes-point",
    title="Single LDA head at a Bayes point of Sec. 3: first-order finite-prompt excess logistic risk",
    source=SOURCE + "; Gabet-Boursier-Boyer 2026, Sec. 3 (eq. (7), Bayes set E1)",
    section=SECTION, check=_check_lda, kind="monte-carlo",
    statement=("theta with Phi(theta) in E1 (f_theta = f*): L (R_L(theta) - R*) -> (1/2) E_x[eta(x)(1 - eta(x)) v(x)], "
               "v(x) = rho(a) V C V^T the single head's variance constant at the query (x, 0)"),
    assumptions=("tokens (X, Y), X | Y = c ~ N(m_c, Gamma)", "a Bayes point with generic U11 (non-symmetric), pi != 1/2",
                 "first order in 1/L"),
    defaults={"problem": {"m1": ["1", "0.5"], "m_1": ["-0.8", "0.2"], "Gamma": [["1", "0.3"], ["0.3", "0.7"]], "pi_plus": "0.3"},
              "U0": [["0.6", "0.2"], ["-0.1", "0.5"]], "u": ["0.3", "-0.2"], "Ls": [100, 400], "prompts": 8000,
              "query_samples": 100000},
    profiles={"full": {"Ls": [100, 400, 1600], "prompts": 100000, "query_samples": 2000000}},
    controls=(Control("unweighted", "Fisher weight eta(1 - eta) replaced by its maximum 1/4"),
              Control("mean-query-norm", "query average replaced by the value at one query of the mean query norm")),
    independence=('derived side: simulated finite-prompt logistic risks at a Bayes point; stated side: (1/2) E[eta(1 - eta)'
                  ' v(x)] from the variance constant (itself compared with risk_constants_mp and the attention operator); '
                  'shared: the Bayes-point construction')
))
