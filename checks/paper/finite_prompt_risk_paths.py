"""The code paths of numerics.risk compared with each other, decided inside the finite-prompt risk claims
(their claim runs: a control changes only the prediction).  Each function returns a part.

Deterministic comparisons spend no alpha: float64 against an independent path (a 30/40-digit twin, another
float64 formula, a quadrature) agrees to FLOAT_TOL x max(1, scale) (sums of O(10) terms and exponentials of O(1)
scores); flags (finite / infinite, which path was taken) must hold exactly.  Statistical comparisons (the
mixture-token Monte Carlo, the engine's branches) take a declared share of the claim's alpha.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mpm
import numpy as np

from softmix.numerics import risk as RK, risk_references as RR, risk_simulation as RS
from softmix.numerics.attention import softmax_attention
from softmix.numerics.finite_prompt import finite_prompt_constants
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.precision import exact_floats

from ..api import part
from ..rules import ChiSquareCalibration, Threshold, ZTest

FLOAT_TOL = 1e-9
F64_MAX = float(np.finfo(float).max)
PARTS = RR.PARTS


def agreement(name: str, diffs: dict, extra=()):
    """A numeric part: every relative difference <= FLOAT_TOL (None: a path that could not be evaluated,
    inconclusive), plus ``extra`` rows."""
    rule = Threshold(FLOAT_TOL, "<=", name="relative difference")
    return part("numeric", [{"check": k, **rule.decide(v)} for k, v in diffs.items()] + list(extra), name=name)


def holds(check: str, flag: bool) -> dict:
    """A row: the condition ``check`` holds (deterministic, no alpha)."""
    return {"check": check, **Threshold(0, "<=", name="conditions failed").decide(0 if flag else 1)}


def per_query_links(mix, heads, target, Z, name="per-query constants"):
    """At each query: risk_constants (float64, vectorised) == risk_constants_mp at 30 digits for every part; the
    prediction and R_inf == those of the attention operator (numerics.attention.softmax_attention, another path)."""
    Z = np.atleast_2d(np.asarray(Z, float))
    c = RK.risk_constants(mix, heads, target, Z)
    B, N = target.arrays()
    diffs = {}
    for i, z in enumerate(Z):
        cm = RK.risk_constants_mp(mix, heads, target, exact_floats(z), dps=30)
        scale = max(1.0, max(abs(float(cm[k])) for k in PARTS))
        diffs[f"query {i}: float64 vs 30 digits"] = max(abs(float(c[k][i]) - float(cm[k])) for k in PARTS) / scale
    pred = sum(W @ V @ softmax_attention(mix, U, np.eye(mix.dim), Z).T for U, V, W in (h.arrays() for h in heads)).T
    rinf = ((Z @ B.T - pred) ** 2).sum(1) + float(np.trace(N))
    diffs["prediction vs sum_h W_h T_h(z)"] = float(np.max(np.abs(c["prediction"] - pred))) / max(1.0,
                                                                                                  np.abs(pred).max())
    diffs["R_inf vs ||B z - sum_h W_h T_h(z)||^2 + tr(noise)"] = (float(np.max(np.abs(c["risk_infinite"] - rinf)))
                                                                  / max(1.0, float(np.abs(rinf).max())))
    return agreement(name, diffs)


def _f64_vs_mp(f, v, scale) -> float:
    """|f - v| / scale for a float64 constant ``f`` and its high-precision value ``v`` (mpf); where ``v`` lies beyond
    float64, 0 if ``f`` is the infinity of v's sign; 1 (a failure) for nan, or for an infinity ``v`` is not."""
    f = float(f)
    if math.isnan(f):
        return 1.0
    if abs(v) > F64_MAX:
        return 0.0 if math.isinf(f) and (f > 0) == (v > 0) else 1.0
    return 1.0 if math.isinf(f) else float(abs(mpm.mpf(f) - v) / scale)


def _overflow_scale(mix, heads, target, z):
    """The smallest t (to 0.1 %, by doubling from 1 up to 2^12 and then bisection) at which some rho_hk of
    risk_constants overflows float64 at the query t z; None when none does."""
    over = lambda t: bool(np.isinf(RK.risk_constants(mix, heads, target, (t * z)[None])["rho"]).any())
    hi = next((2.0 ** j for j in range(13) if over(2.0 ** j)), None)
    if hi is None:
        return None
    lo = 0.0 if hi == 1.0 else hi / 2
    while hi - lo > 1e-3 * hi:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if over(mid) else (mid, hi)
    return hi


def overflow_links(mix, heads, target, z, name="past float64 overflow (log-space path)") -> list:
    """risk_constants' log-space path: the queries (t/2) z and t z, t just past the point where some rho_hk
    overflows float64 (:func:`_overflow_scale`), in one call -- so the log-space rows must land on the second
    query only -- each part and each head's bias against risk_constants_mp at 30 digits: the infinity of the
    right sign where the value passes float64; and again with every V_h and B divided by 2^e (parts scale by
    2^-2e, the bias by 2^-e), e chosen from those 30-digit parts so that the largest part is near 2^830 ~ 1e250:
    inside float64, while rho still overflows and the per-pair factors (about the part over rho) stay normal
    floats.  There the values themselves, every part relative to the largest (pair terms can cancel, as in
    :func:`per_query_links`), each head's bias to its largest entry.  [] when no t up to 2^12 overflows (no head
    tilts along z), or when every part is exactly 0."""
    zf = np.asarray(z, float)
    t = _overflow_scale(mix, heads, target, zf)
    if t is None:
        return []
    Z = np.stack([t / 2 * zf, t * zf])
    exact = [exact_floats(q) for q in Z]
    cms = [RK.risk_constants_mp(mix, heads, target, q, dps=30) for q in exact]
    with mpm.workdps(30):
        big = max(abs(cms[1][k]) for k in ("variance", "cross", "bias_residual"))
        if big == 0:
            return []
        e = max(0, int(mpm.ceil((mpm.log(big, 2) - 830) / 2)))
    sc = lambda M: tuple(tuple(Fraction(x) / 2 ** e for x in r) for r in M)  # noqa: E731
    small = ([RK.Head(h.U, sc(h.V), h.W) for h in heads], RK.Target(sc(target.B), target.noise))
    diffs: dict = {}
    for label, (hs, tg) in (("as given", (heads, target)), (f"V and B / 2^{e}", small)):
        c = RK.risk_constants(mix, hs, tg, Z)
        if hs is not heads:
            cms = [RK.risk_constants_mp(mix, hs, tg, q, dps=30) for q in exact]
        for i, (ti, cm) in enumerate(zip((t / 2, t), cms)):
            with mpm.workdps(30):
                scale = max(mpm.mpf(1), max(abs(cm[k]) for k in PARTS))
                diffs.update({f"{ti:.6g} z, {label}: {k}": _f64_vs_mp(c[k][i], cm[k], scale) for k in PARTS})
                for h, bh in enumerate(cm["bias"]):
                    bscale = max(mpm.mpf(10) ** -300, max(abs(b) for b in bh))
                    diffs[f"{ti:.6g} z, {label}: bias W_{h} b_{h}"] = max(_f64_vs_mp(c["bias"][h][i][j], b, bscale)
                                                                         for j, b in enumerate(bh))
    return [agreement(name, diffs)]


def closed_form_links(mix, heads, queries, target, cf, mp=None, name="closed form vs quadrature"):
    """The closed form's parts (averaged_risk on Gaussian tokens, float64 ``cf``, optionally its mpmath twin ``mp``)
    == the Gauss-Hermite quadrature of the per-query constants (undecided if it did not converge) and == ``mp``."""
    quad = RR.query_average_by_quadrature(mix, heads, target, queries)
    scale = max(1.0, max(abs(float(cf[k])) for k in PARTS))
    diffs = {f"{k}: closed form vs quadrature": (abs(float(cf[k]) - quad["values"][k]) / scale
                                                 if quad["converged"] else None) for k in PARTS}
    if mp is not None:
        diffs.update({f"{k}: float64 vs {mp['dps']} digits": abs(float(cf[k]) - float(mp[k])) / scale for k in PARTS})
    return agreement(name, diffs)


def covariance_links(mix, heads, target, z):
    """covariance_blocks at one query: sum_{h,k} tr(W_h C_hk W_k^T) == risk_constants' variance (its h != k part ==
    the cross); each C_hh and rho_hh == finite_prompt_constants of head h alone; rho_hk == risk_constants'."""
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
        diffs[f"C_{h}{h} vs finite_prompt_constants"] = (float(np.max(np.abs(cb["blocks"][(h, h)] - fc["covariance"])))
                                                         / max(1.0, float(np.abs(fc["covariance"]).max())))
        diffs[f"rho_{h}{h} vs finite_prompt_constants"] = abs(cb["rho"][(h, h)] - fc["rho"]) / max(1.0, fc["rho"])
        diffs[f"rho_{h}{h} vs risk_constants"] = abs(cb["rho"][(h, h)] - float(c["rho"][h, h, 0])) / max(1.0, fc["rho"])
    for h in range(H):
        for k in range(h + 1, H):
            diffs[f"rho_{h}{k} vs risk_constants"] = (abs(cb["rho"][(h, k)] - float(c["rho"][h, k, 0]))
                                                      / max(1.0, cb["rho"][(h, k)]))
    return agreement("covariance blocks", diffs)


def _threshold_mismatches(th, ind, lam, mix) -> tuple[list, dict]:
    key = lambda r: (r["head"], r["token_component"], r["query_component"])
    theirs = {key(r): r for r in th["rows"]}
    same = {key(r) for r in ind["rows"]} == set(theirs)
    mism = [] if same else ["the (head, token component, query component) rows differ"]
    top = [r for r in ind["rows"] if r["lambda"] >= lam - 1e-9 * max(1.0, abs(lam))]
    for r in top if same and lam > 1e-9 else []:  # at lambda* = 0 the top eigenspace is not a property of the heads
        for f in ("multiplicity", "mean_shift_on_top", "centred"):
            if theirs[key(r)][f] != r[f]:
                mism.append(f"{key(r)} {f}: threshold_info {theirs[key(r)][f]}, eigen-decomposition {r[f]}")
    if th["finite"] != (lam < 0.5):
        mism.append(f"finite: {th['finite']} while lambda* = {lam:.6g}")
    diffs = {}
    if lam >= 0.5:
        at = abs(lam - 0.5) <= 1e-9
        diffs["rate exponent"] = abs(th["rate_exponent"] - (-1.0 if at else -1 / (2 * lam)))
        ok = mix.n_components == 1 and all(r["centred"] for r in top)
        beta = max(r["multiplicity"] / 2 + (0 if at else -1) + int(r["mean_shift_on_top"]) for r in top) if ok else None
        if th.get("log_power") != beta:
            mism.append(f"log power: threshold_info {th.get('log_power')}, eigen-decomposition {beta}")
    return mism, diffs


def threshold_link(mix, heads, queries, th=None, expected=None, name="threshold"):
    """threshold_info (lambda*, finiteness, rate exponent, log power) == the eigen-decomposition of
    numerics.risk_references (lambda* to FLOAT_TOL, and to ``expected`` when given; flags exactly)."""
    th = th or RK.threshold_info(mix, heads, queries)
    ind = RR.threshold_by_eigendecomposition(mix, heads, queries)
    lam = ind["lambda"]
    diffs = {"lambda*": abs(th["lambda"] - lam) / max(1.0, abs(lam))}
    if expected is not None:
        diffs["lambda* (independent) vs the scaled value"] = abs(lam - float(expected)) / max(1.0, abs(float(expected)))
    mism, more = _threshold_mismatches(th, ind, lam, mix)
    diffs.update(more)
    row = {"check": "threshold_info flags == eigen-decomposition", "mismatches": mism,
           **Threshold(0, "<=", name="mismatches").decide(len(mism))}
    return agreement(name, diffs, [row])


def mc_path(ctx, fam, gaussian_tokens, heads, queries, target, weights=("0.3", "0.7"), n=5000, batches=40,
            batch_n=400, share=0.1, margin=0.05) -> list:
    """averaged_risk on tokens written as a mixture of identical components takes the importance-sampled Monte
    Carlo path; that mixture IS the Gaussian, so every part must agree with the closed form (z-tests, Bonferroni,
    the dropped variants included; ``share`` / 2 of the alpha) and its standard error must be calibrated over
    ``batches`` independent runs (chi-square, the other half).  Approximate: CLT for each run."""
    dup, gmix = RR.duplicated_gaussian(gaussian_tokens, weights), GaussianMixture.from_json_obj(gaussian_tokens)
    est, se, pred, scale, flags = [], [], [], None, []
    for drop, keys in ((None, PARTS), ("cross", ("K", "variance")), ("bias-residual", ("K",))):
        ex = RK.averaged_risk(gmix, heads, queries, target, drop=drop)
        mc = RK.averaged_risk(dup, heads, queries, target, n_mc=n, seed=ctx.stream("mc-path").bit_generator.seed_seq,
                              drop=drop)
        scale = scale or max(1.0, max(abs(float(ex[k])) for k in PARTS))
        for k in keys:
            est.append(float(mc[k]) / scale)
            se.append(float(mc["standard_error"][k]) / scale)
            pred.append(float(ex[k]) / scale)
        flags.append(holds(f"drop {drop}: the Monte Carlo path was taken", mc["method"] == "monte-carlo"))
        flags.append(holds(f"drop {drop}: queries_sampled is n_mc up to rounding",
                           abs(int(mc["queries_sampled"]) - n) <= len(queries.weights)))
        if drop == "bias-residual":
            flags.append(holds("the dropped bias-residual part is exactly 0 on both paths",
                               float(mc["bias_residual"]) == 0.0 == float(ex["bias_residual"])))
    sub = fam.sub("mixture-monte-carlo-path", share)
    z = ZTest(sub.split("parts-vs-closed-form", 0.5), margin=margin,
              name="mixture-token Monte Carlo (identical components) == closed form, parts / max(1, |closed form|)")
    exact_K = float(RK.averaged_risk(gmix, heads, queries, target)["K"])
    zs = []
    for b in range(batches):
        mc = RK.averaged_risk(dup, heads, queries, target, n_mc=batch_n,
                              seed=ctx.stream("mc-calibration", b).bit_generator.seed_seq)
        s_ = float(mc["standard_error"]["K"])
        zs.append((float(mc["K"]) - exact_K) / s_ if s_ > 0 and math.isfinite(s_) else float("nan"))
    cal = ChiSquareCalibration(sub.rest("standard-error-calibration"), name=f"standard-error calibration of K "
                               f"({batches} runs of {batch_n} queries)").decide(zs)
    return [part("numeric", flags, name="mixture Monte Carlo path (flags)"),
            part("monte-carlo", [z.decide(est, se, pred, n_samples=n), cal], name="mixture Monte Carlo path")]


def engine_branch_link(ctx, fam, mixture_obj, heads, z, L=48, R=2000, share=0.05, margin=0.3,
                       weights=("0.2", "0.3", "0.5")):
    """MultiHeadEngine on Gaussian tokens (the first component of the mixture) takes its one-component branch; on
    that Gaussian as three identical components it takes the mixture branch, with the same law of every head's
    T_L: two-sample z-tests of the means of T_L^h in units of the largest sd (``share`` of the alpha)."""
    one = {"weights": ["1"], "means": mixture_obj["means"][:1], "covariances": mixture_obj["covariances"][:1]}
    T1, _ = RS.MultiHeadEngine(GaussianMixture.from_json_obj(one), heads, z).run(
        L, R, ctx.stream("engine-branch", 1))
    T2, _ = RS.MultiHeadEngine(RR.duplicated_gaussian(one, weights), heads, z).run(L, R, ctx.stream("engine-branch", 2))
    sd = max(float(np.sqrt(t.var(0, ddof=1).max())) for t in T1)
    est = np.concatenate([(a.mean(0) - b.mean(0)) / sd for a, b in zip(T1, T2)])
    se = np.concatenate([np.hypot(a.std(0, ddof=1), b.std(0, ddof=1)) / math.sqrt(R) / sd for a, b in zip(T1, T2)])
    rule = ZTest(fam.split("engine-one-component-branch", share), margin=margin,
                 name="multi-head engine, one-component branch vs mixture branch: means of T_L^h / max sd(T_L)")
    return part("monte-carlo", [rule.decide(est, se, np.zeros_like(est), n_samples=R)], name="engine branches")


def mp_is_finite(x) -> bool:
    return bool(mpm.isfinite(x)) if isinstance(x, mpm.mpf) else bool(np.isfinite(float(x)))
