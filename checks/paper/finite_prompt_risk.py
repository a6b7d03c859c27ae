"""Finite-prompt risk of several heads sharing one prompt (beyond Gabet-Boursier-Boyer 2026, whose predictors live
at L = infinity; docs/finite-prompt.md): fp-multihead-covariance and fp-risk-expansion.  fp-risk-threshold is in
:mod:`.finite_prompt_risk_threshold`, the paper's tasks at finite L in :mod:`.finite_prompt_risk_tasks`.

Monte Carlo estimates of L x (first-order quantity) at two or more prompt lengths go to the engine's
:class:`~softmix.checks.fits.InverseLRule` (a + b/L, known standard errors, a z-test of the limit and a chi-square
fit); each claim has one family-wise alpha = 1e-3 (``AlphaFamily``); a limit is confirmed only within the margin
declared below.  Data come from ``ctx.data`` (the same for a claim and its controls, which change only the
prediction); the numerics' own code paths are compared on the claim's runs (:mod:`.finite_prompt_risk_paths`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from softmix.numerics import risk as RK, risk_simulation as RS
from softmix.numerics.finite_prompt import finite_prompt_constants
from softmix.numerics.mixture import GaussianMixture
from softmix.theory import finite_prompt_risk as TR

from ..api import claim, decide, outcome, part
from ..configurations import Draws
from ..fits import InverseLRule
from ..mc_verdict import risk_reach
from ..params import Exact, exact_default
from ..rules import AlphaFamily
from . import finite_prompt_risk_draws as DR, finite_prompt_risk_paths as PA
from .rows import undecide

SECTION = "finite-prompt"
SOURCE = "docs/finite-prompt.md (derived there; beyond Gabet-Boursier-Boyer 2026, which stops at L = infinity)"
MIX = {"weights": ["0.35", "0.65"], "means": [["1", "0", "0.2"], ["-0.5", "1", "0"]],
       "covariances": [[["1", "0.3", "0"], ["0.3", "1", "0"], ["0", "0", "0.5"]],
                       [["0.5", "0.2", "0"], ["0.2", "0.4", "0"], ["0", "0", "0.3"]]]}
HEADS = [{"U": [["0.5", "0.1", "0"], ["0", "0.4", "0.2"], ["0.1", "0", "0.3"]], "V": [["1", "0", "0"], ["0", "1",
                                                                                                        "0.5"]],
          "W": [["1", "0.2"], ["-0.3", "1"]]},
         {"U": [["0.4", "0", "0.2"], ["0.2", "0.5", "0"], ["0", "0.1", "0.4"]], "V": [["0", "1", "0"], ["1", "0", "1"]],
          "W": [["0.7", "0"], ["0.1", "0.5"]]}]
TARGET = {"B": [["0.5", "0", "0.2"], ["0", "0.3", "1"]], "noise_covariance": [["0.1", "0"], ["0", "0.2"]]}
GAUSS = {"weights": ["1"], "means": [["0.3", "0", "-0.2"]],
         "covariances": [[["1", "0.3", "0"], ["0.3", "1", "0"], ["0", "0", "0.5"]]]}
QUERIES = {"weights": ["0.6", "0.4"], "means": [["0", "0", "0"], ["0.6", "-0.4", "0"]],
           "covariances": [[["0.3", "0", "0"], ["0", "0.3", "0"], ["0", "0", "0.3"]],
                           [["0.15", "0", "0"], ["0", "0.15", "0"], ["0", "0", "0"]]]}  # the second one singular
CONTROLS = {"no-bias-residual": "prediction without the -2 r^T sum_h W_h b_h term",
            "no-cross-head": "prediction without the h != h' covariance terms (heads on independent prompts)",
            "mean-query-norm": "query average replaced by the value at one query of the mean query norm"}
#: half-width of a limit's interval / the largest |predicted| entry
COV_RELATIVE_MARGIN = 0.25       # fp-multihead-covariance: L Cov cross block and L * output MSE
K_RELATIVE_MARGIN = 0.25         # fp-risk-expansion / fp-risk-icl-regression: the 1/L coefficient K
#: fp-multihead-covariance: share of the alpha for the engine-branch comparison
BRANCH_ALPHA_SHARE = 0.05


def active_control(ctx, names=tuple(CONTROLS)):
    """The declared control this run is, or None (the claim's own run)."""
    return next((n for n in names if ctx.control(n)), None)


def averaged_rows(ctx, p, tag, mix, heads, target, queries, Ls, n, proposal_scale=1.0):
    """Per L: CV estimates of L (R_L - R_inf) averaged over n queries, and E||yhat_L - yhat_inf||^2 (one stream per
    (tag, L, configuration), shared by the claim and its controls)."""
    rows = []
    for L in Ls:
        def run(rng, L=int(L)):
            o = RS.simulate_excess_averaged(mix, heads, target, queries, L, int(n), rng, proposal_scale=proposal_scale)
            X, Xc, sq = o["X"], o["X_cv"], o["sq_error"]
            return {"L": L, "raw": float(X.mean()), "raw_se": float(X.std(ddof=1) / math.sqrt(n)),
                    "cv": float(Xc.mean()), "cv_se": float(Xc.std(ddof=1) / math.sqrt(n)),
                    "variance_reduction": float(X.var(ddof=1) / Xc.var(ddof=1)),
                    "sq_error": float(sq.mean()), "sq_error_se": float(sq.std(ddof=1) / math.sqrt(n))}
        rows.append(ctx.data((tag, int(L), int(n), proposal_scale), run, params=DR.values(p)))
    return rows


# ---- fp-multihead-covariance ------------------------------------------------------------------------------
@dataclass
class MultiHead:
    mixture: dict = field(default_factory=lambda: MIX)
    heads: list = field(default_factory=lambda: HEADS)
    target: dict = field(default_factory=lambda: TARGET)
    z: list[Exact] = field(default_factory=lambda: exact_default(["0.8", "-0.4", "0.6"]))
    Ls: list[int] = field(default_factory=lambda: [100, 400])
    reps: int = 8000
    #: set by a drawn configuration: the tails filter it passed (DR.PROMISE), decided by DR.tails_part
    tails_promise: dict | None = None


def _multihead_rows(ctx, p, mix, heads, z):
    eng = RS.MultiHeadEngine(mix, heads, z)
    lim = [finite_prompt_constants(mix, U, V, z)["limit"] for U, V, _W in eng.arr]
    rows = []
    for L in p.Ls:
        def run(rng, L=int(L)):
            T, _ = eng.run(L, p.reps, rng)
            d0, d1 = T[0] - lim[0], T[1] - lim[1]
            prods = np.einsum("ri,rj->rij", d0, d1).reshape(len(d0), -1)
            sq = (sum(dd @ W.T for dd, (_U, _V, W) in zip((d0, d1), eng.arr)) ** 2).sum(1)
            R = len(d0)
            return {"L": L, "est": (L * prods.mean(0)).tolist(), "se": (L * prods.std(0,
                                                                                      ddof=1) / math.sqrt(R)).tolist(),
                    "L_output_mse": float(L * sq.mean()), "L_output_mse_se": float(L * sq.std(ddof=1) / math.sqrt(R))}
        rows.append(ctx.data(("multihead", int(L), p.reps), run, params=DR.values(p)))
    return rows


@claim(id="fp-multihead-covariance", title="Heads sharing one prompt: L Cov(T^h, T^h') -> rho_hh' V_h C_hh' V_h'^T",
       source=SOURCE, section=SECTION, kind="monte-carlo",
       statement="L Cov(T_L^h, T_L^h') -> rho_hh' V_h sum_k w_k(a_h + a_h')[G_k + (mu_k - grad Lambda(a_h))(mu_k - "
                 "grad "
                 "Lambda(a_h'))^T] V_h'^T, mu_k = m_k + G_k (a_h + a_h'), rho_hh' = M(a_h + a_h') / (M(a_h) M(a_h'))",
       assumptions=("tokens i.i.d. from a Gaussian mixture", "fixed query", "all heads read the same L tokens",
                    "first order in 1/L"),
       profiles={"full": {"Ls": [100, 400, 1600], "reps": 200000}},
       controls={"no-cross-head": "cross block predicted 0 (heads treated as reading independent prompts)",
                 "no-mean-shift": "C_hh' without the mean-shift products (tilted covariances only)"},
       configurations=Draws(DR.draw_cov, quick=1, full=3),
       derivations=lambda: [TR.multihead_covariance_derivation(2)],
       independence="derived side: simulated finite prompts read by several heads (the engine's mixture branch; its "
                    "one-component branch compared in law); stated side: rho_hh' V_h C_hh' V_h'^T from the mixture's "
                    "CGF, decided against risk_constants' variance and cross, the single-head finite_prompt_constants "
                    "and risk_constants_mp at 30 digits (other code paths); shared: the mixture parser")
def fp_multihead_covariance(p: MultiHead, ctx):
    mix, heads, target = DR.setup(DR.values(p))
    z = np.array([float(x) for x in p.z])
    no_cross, no_shift = ctx.control("no-cross-head"), ctx.control("no-mean-shift")
    # the same mistake on the symbolic side must fail too: the no-shift form differs from the derived one
    sym = decide([TR.multihead_covariance_derivation(2, "no-shift" if no_shift else None)], ctx, kind="lemma")
    cb = RS.covariance_blocks(mix, heads, z, variant="no-mean-shift" if no_shift else None)
    pred01 = 0 * cb["blocks"][(0, 1)] if no_cross else cb["blocks"][(0, 1)]
    c = RK.risk_constants(mix, heads, target, z[None])
    pred_var = float(c["variance"][0]) - (float(c["cross"][0]) if no_cross else 0.0)
    if no_shift:
        arr = [h.arrays() for h in heads]
        pred_var = float(sum(np.trace(arr[h][2] @ cb["blocks"][(h,
                                                                k)] @ arr[k][2].T) for h in range(2) for k in range(2)))
    rows = _multihead_rows(ctx, p, mix, heads, z)
    fam = AlphaFamily(name="fp-multihead-covariance")
    rule = InverseLRule(fam.split("cross-block-and-mse-limits", 1 - BRANCH_ALPHA_SHARE), margin=COV_RELATIVE_MARGIN,
                        relative=True, name="limits of L Cov(T^0, T^1) entries (row-major) and L E||sum_h W_h (T_L^h - "
                                            "T^h)||^2")
    dec = rule.decide([r["L"] for r in rows], [r["est"] + [r["L_output_mse"]] for r in rows],
                      [r["se"] + [r["L_output_mse_se"]] for r in rows], list(np.ravel(pred01)) + [pred_var],
                      n_samples=p.reps)
    links = [] if (no_cross or no_shift) else [
        PA.covariance_links(mix, heads, target, z), PA.per_query_links(mix, heads, target, z[None]),
        *PA.overflow_links(mix, heads, target, z),
        PA.engine_branch_link(ctx, fam, p.mixture, heads, z, share=BRANCH_ALPHA_SHARE),
        DR.tails_part(DR.values(p), p.tails_promise)]
    mc = part("monte-carlo", [{"predicted_cross_block": np.asarray(pred01).tolist(),
                               "predicted_L_output_mse": pred_var, **dec}], name="monte-carlo")
    return outcome(mc, sym, *links, per_L=rows, rho={f"{h}{k}": r for (h, k), r in cb["rho"].items()},
                   alpha=fam.ledger())


# ---- fp-risk-expansion -----------------------------------------------------------------------------------
@dataclass
class Expansion(MultiHead):
    reps: int = 6000
    gaussian_tokens: dict = field(default_factory=lambda: GAUSS)
    queries: dict = field(default_factory=lambda: QUERIES)
    Ls_averaged: list[int] = field(default_factory=lambda: [100, 400])
    queries_averaged: int = 12000


def _per_query_rows(ctx, p, mix, heads, target, z):
    rows = []
    for L in p.Ls:
        def run(rng, L=int(L)):
            o = RS.simulate_excess(mix, heads, target, z, L, p.reps, rng)
            X, Xc = o["X"], o["X_cv"]
            n = len(X)
            return {"L": L, "raw": float(X.mean()), "raw_se": float(X.std(ddof=1) / math.sqrt(n)),
                    "cv": float(Xc.mean()), "cv_se": float(Xc.std(ddof=1) / math.sqrt(n)),
                    "variance_reduction": float(X.var(ddof=1) / Xc.var(ddof=1))}
        rows.append(ctx.data(("per-query", int(L), p.reps), run, params=DR.values(p)))
    return rows


def _expansion_links(ctx, fam, p, mix, heads, target, z, gmix, queries, exact) -> list:
    """The numerics' own paths (the claim's runs): per-query constants on both token laws (and past float64
    overflow on the query's ray), the closed form against
    quadrature and 30 digits, lambda* against the eigen-decomposition, the mixture-token Monte Carlo path."""
    _qw, qm, _qS = queries.arrays()
    return [PA.per_query_links(mix, heads, target, z[None], name="per-query constants (mixture tokens)"),
            *PA.overflow_links(mix, heads, target, z),
            PA.per_query_links(gmix, heads, target, qm, name="per-query constants (Gaussian tokens)"),
            PA.closed_form_links(gmix, heads, queries, target, exact,
                                 RK.averaged_risk(gmix, heads, queries, target, dps=30)),
            PA.threshold_link(gmix, heads, queries), *PA.mc_path(ctx, fam, p.gaussian_tokens, heads, queries, target)]


@claim(id="fp-risk-expansion",
       title="Finite-prompt risk of several heads: R_L = R_inf + K / L + o(1/L), per query and query-averaged",
       source=SOURCE, section=SECTION, kind="monte-carlo",
       statement="L (R_L(z) - R_inf(z)) -> K(z) = sum_{h,h'} tr(W_h C_hh'(z) W_h'^T) - 2 E[(y - yhat_inf)^T | z] sum_h "
                 "W_h b_h(z); for Gaussian tokens and Gaussian queries E_z K(z) is a finite sum of det(I - 2 Sigma "
                 "S)^(-1/2) terms",
       assumptions=("tokens i.i.d. from a Gaussian mixture", "all heads share the prompt",
                    "y = B z + eps, eps independent", "first order in 1/L"),
       profiles={"full": {"Ls": [100, 400, 1600], "reps": 100000, "Ls_averaged": [100, 400, 1600],
                          "queries_averaged": 100000}},
       controls=CONTROLS, configurations=Draws(DR.draw_expansion, quick=1, full=3),
       derivations=lambda: [TR.risk_expansion_derivation(2)],
       independence="derived side: simulated finite-prompt risks; stated side: the closed-form 1/L coefficient K (and "
                    "its Gaussian-query average), decided against risk_constants_mp (30 digits), the attention "
                    "operator "
                    "(R_inf), Gauss-Hermite quadrature of the per-query constants (every part of the average), the "
                    "mixture-token Monte Carlo on two identical components, and an eigen-decomposition of Sigma U^T G "
                    "U "
                    "(lambda*); shared: the mixture parser")
def fp_risk_expansion(p: Expansion, ctx):
    ctl = active_control(ctx)
    sym = decide([TR.risk_expansion_derivation(2)], ctx, kind="lemma", name="symbolic (delta method)")
    # the eps^1 term of the delta method has mean zero (so the first correction is O(1/L)), exactly
    first = TR.delta_method_risk(1)["first_order_mean"] == 0
    mix, heads, target = DR.setup(DR.values(p))
    z = np.array([float(x) for x in p.z])
    c = RK.risk_constants(mix, heads, target, z[None])
    pred_q = float(c["K"][0]) - {"no-bias-residual": float(c["bias_residual"][0]),
                                 "no-cross-head": float(c["cross"][0])}.get(ctl, 0.0)
    rows_q = _per_query_rows(ctx, p, mix, heads, target, z)
    fam = AlphaFamily(name="fp-risk-expansion")
    rule_q = InverseLRule(fam.split("per-query-K", 0.45), margin=K_RELATIVE_MARGIN, relative=True,
                          name="per query: limit of L (R_L(z) - R_inf(z)) (control-variate estimates, mixture tokens)")
    dec_q = rule_q.decide([r["L"] for r in rows_q], [r["cv"] for r in rows_q], [r["cv_se"] for r in rows_q], pred_q,
                          n_samples=p.reps)
    gmix = GaussianMixture.from_json_obj(p.gaussian_tokens, where="gaussian_tokens")
    queries = GaussianMixture.from_json_obj(p.queries, where="queries")
    pred_a = DR.averaged_prediction(gmix, heads, queries, target, ctl)
    exact = RK.averaged_risk(gmix, heads, queries, target)
    rows_a = averaged_rows(ctx, p, "averaged", gmix, heads, target, queries, p.Ls_averaged, p.queries_averaged)
    rule_a = InverseLRule(fam.split("averaged-K", 0.45), margin=K_RELATIVE_MARGIN, relative=True,
                          name="query-averaged: limit of L (R_L - R_inf) (Gaussian tokens, closed-form K; lambda* < "
                               "1/6 "
                               "so that the averaged remainder is O(1/L))")
    dec_a = rule_a.decide([r["L"] for r in rows_a], [r["cv"] for r in rows_a], [r["cv_se"] for r in rows_a], pred_a,
                          n_samples=p.queries_averaged)
    links = [] if ctl else [*_expansion_links(ctx, fam, p, mix, heads, target, z, gmix, queries, exact),
                            DR.tails_part(DR.values(p), p.tails_promise)]
    # the a + b/L fit of the average decides only within the expansion's reach (the engine's rule for softmix risk)
    reach_a = risk_reach(gmix, heads, target, queries, float(exact["threshold"]), p.Ls_averaged)
    row_a = {"quantity": "query-averaged", "K_compared": pred_a, **dec_a, "reach": reach_a}
    if not reach_a["inside"]:
        undecide(row_a, reach_a["reason"], to_settle=f"prompt lengths {reach_a.get('settle_lengths')}")
    mc = part("monte-carlo", [{"quantity": "per query", "K_compared": pred_q, **dec_q}, row_a], name="monte-carlo")
    step = part("numeric", [PA.holds("the eps^1 coefficient of the delta method has mean 0 (one head)", first)],
                name="first-order mean")
    return outcome(mc, sym, step, *links, per_query={"z": z.tolist(), "K": float(c["K"][0]), "per_L": rows_q},
                   averaged={k: exact[k] for k in ("threshold", "K", "variance", "cross", "bias_residual",
                                                  "risk_infinite", "method")} | {"per_L": rows_a},
                   alpha=fam.ledger())
