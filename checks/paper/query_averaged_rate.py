"""Query-averaged finite-prompt error across the exp-moment threshold (``fp-query-averaged-rate``).

Tokens N(0, Gamma) (a mixture below the threshold), queries z ~ N(0, Sigma_nu), one fresh L-token prompt
per sampled query, error against the infinite-prompt T[mu](z).  Below the threshold (lambda < 1/2) the
error is K / L with K in closed form; above it decays like L^(-1/(2 lambda)) up to logarithmic factors
(docs/finite-prompt.md).  The rows are decided by the engine's rules: :class:`~softmix.checks.fits.SlopeRule`
and :class:`~softmix.checks.fits.InverseLRule` below, :func:`~softmix.checks.fits.decay_rate_decision` with
the band of :func:`~softmix.checks.mc_verdict.rate_band` above, z-tests for the mixture constant.  The
references are public in :mod:`softmix.numerics.beyond` (closed forms, quadrature, Monte Carlo).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath as mpm
import numpy as np

from softmix.numerics import beyond as NB
from softmix.numerics.finite_prompt import finite_prompt_constants_mp
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.precision import exact_floats
from softmix.theory import beyond as TB

from .. import configs as C
from ..api import claim, decide, outcome, part
from ..configurations import Draws
from ..fits import InverseLRule, SlopeRule, decay_rate_decision
from ..mc_verdict import RATE_SLOPE_MARGIN, rate_band
from ..params import Exact, exact_default
from ..rules import AlphaFamily, Residual, ZTest
from .rows import undecide


def _mixture_default():
    return {"weights": ["0.5", "0.5"], "means": [["1", "0"], ["-0.5", "0.5"]],
            "covariances": [[["1", "0.3"], ["0.3", "0.6"]], [["0.5", "0"], ["0", "0.3"]]]}


@dataclass
class Rate:
    Gamma: list[list[Exact]] = field(default_factory=lambda: exact_default([["1", "0.3"], ["0.3", "0.6"]]))
    Sigma_nu: list[list[Exact]] = field(default_factory=lambda: exact_default([["1", "-0.2"], ["-0.2", "0.8"]]))
    U_direction: list[list[Exact]] = field(default_factory=lambda: exact_default([["1", "0.4"], ["0", "0.8"]]))
    V: list[list[Exact]] = field(default_factory=lambda: exact_default([["1", "0"], ["0", "1"]]))
    lambda_below: float = 0.15
    lambdas_above: list[float] = field(default_factory=lambda: [1.0])
    Ls_below: list[int] = field(default_factory=lambda: [100, 400, 1600])
    Ls_above: list[int] = field(default_factory=lambda: [100, 400, 1600, 6400])
    queries_below: int = 6000
    queries_above: int = 4000
    log_power_max: float = 1.0
    mixture: dict = field(default_factory=_mixture_default)
    L_mixture: int = 1600
    queries_mixture: int = 4000
    quadrature_nodes: int = 40

    def __post_init__(self):
        if len(self.mixture["means"][0]) != len(self.Gamma):
            raise ValueError(f"the mixture has dimension {len(self.mixture['means'][0])}, Gamma {len(self.Gamma)}")

    def arrays(self):
        """(Gamma, Sigma_nu, U_direction, V) as float arrays, and the Gaussian token law N(0, Gamma)."""
        G, S, U0, V = (np.array([[float(x) for x in r] for r in M]) for M in (self.Gamma, self.Sigma_nu,
                                                                           self.U_direction, self.V))
        exact = [[str(x) for x in r] for r in self.Gamma]  # the decimals as given (finite_prompt_constants_mp)
        return G, S, U0, V, GaussianMixture.from_values([1], [["0"] * len(G)], [exact])

    def key(self) -> str:
        """What the configuration's random streams depend on besides the seed."""
        return str([self.Gamma, self.Sigma_nu, self.U_direction, self.V, self.mixture])


def _draw_rate(rng, p: Rate, i):
    """D = 2 or 3, non-isotropic Gamma and Sigma_nu (full rank: the threshold is defined through
    Sigma_nu^(1/2)), a non-symmetric direction of U, a non-identity V with singular values in [0.5, 2],
    and a two-component mixture with weights away from 1/2, unequal-norm means and one singular
    covariance.  U is rescaled to each lambda by the check, so only its direction is drawn."""
    D = int(rng.choice([2, 3]))

    def svd_ok(M, ok):
        return ok(np.linalg.svd(np.array(M, float), compute_uv=False))
    while not svd_ok(V := C.matrix(rng, D, low=-1.0, high=1.0), lambda s: s.min() > 0.5 and s.max() < 2.0):
        pass
    while not svd_ok(U0 := C.matrix(rng, D, low=-1.0, high=1.0), lambda s: s.min() > 0.2 * s.max()):
        pass
    return {"Gamma": C.spd(rng, D, scale_range=(0.3, 1.5)), "Sigma_nu": C.spd(rng, D, scale_range=(0.3, 1.5)),
            "U_direction": U0, "V": V, "mixture": C.mixture(rng, 2, D, singular=1, norm_range=(0.3, 1.2))}


def _lambda_row(target, U, Gs, S, cf=None) -> dict:
    """The scaled U realises the requested lambda: numerics.beyond.lambda_by_eigenvalues (no square
    root) == target (and the closed form's own lambda_max, when given) to 9 digits."""
    lam = NB.lambda_by_eigenvalues(U, Gs, S)
    res = max(abs(lam - target), 0.0 if cf is None else abs(cf["lambda_max"] - target))
    return {"check": "lambda of the scaled U", "requested": target, "eigvals_of_UT_G_U_Sigma": lam,
            "closed_form_lambda_max": None if cf is None else cf["lambda_max"],
            **Residual(digits=9).decide(res, target)}


def _branch_rows(ctx, p: Rate, cf):
    """Every branch of the closed form K against its 40-digit twin: at lambda_below, at a lambda drawn in
    (1/4, 1/2) (finite there; sampling would need lambda < 1/4), and infinite past 1/2 (closed form and
    the importance-sampling branch of averaged_constant)."""
    G, S, U0, V, mix = p.arrays()
    rb = np.linalg.cholesky(S)  # any root R R^T = Sigma_nu: independent of sym_sqrt
    lam_mid = 0.26 + 0.22 * float(ctx.stream("lambda-mid", p.key()).random())
    rows = []
    for lam in (p.lambda_below, lam_mid):
        U = NB.scale_to_lambda(mix, S, U0, lam)
        rows.append(_lambda_row(lam, U, [G], S, cf if lam == p.lambda_below else None))
        cfx = NB.gaussian_averaged_constant(G, S, U, V)
        Kmp = NB.gaussian_averaged_constant_mp(*exact_floats([G, rb, U, V]), dps=40)
        res = abs(mpm.mpf(cfx["K"]) - Kmp) if cfx["finite"] else mpm.inf
        rows.append({"check": "closed form K: float64 == 40 digits", "lambda": lam, "K_float64": cfx["K"],
                     "K_40_digits": mpm.nstr(Kmp, 30), **Residual(dps=15, guard=4).decide(res, Kmp)})
    lam = float(p.lambdas_above[0])
    U = NB.scale_to_lambda(mix, S, U0, lam)
    cfx = NB.gaussian_averaged_constant(G, S, U, V)
    mc = NB.averaged_constant(mix, S, U, V, max_points=0, mc_samples=1000, rng=ctx.stream("is-above", p.key()))
    rows += [_lambda_row(lam, U, [G], S),
             {"check": "K infinite past the threshold (closed form and sampling branch)", "lambda": lam,
              "K_float64": cfx["K"], "importance_sampled_value": mc["value"],
              "passed": not cfx["finite"] and mc["value"] == float("inf")}]
    return rows


def _per_query_rows(ctx, p: Rate, Ub):
    """Per-query constants (vectorised float64) against the 50-digit finite-prompt constants of
    numerics.finite_prompt (an independent implementation), Gaussian tokens and the mixture."""
    G, S, U0, V, mix = p.arrays()
    mmix = GaussianMixture.from_json_obj(p.mixture, where="fp-query-averaged-rate mixture")
    Z = ctx.stream("per-query", p.key()).standard_normal((3, S.shape[0])) @ np.linalg.cholesky(S).T
    rows = []
    for name, mx, U in (("gaussian", mix, Ub), ("mixture", mmix, NB.scale_to_lambda(mmix, S, U0, p.lambda_below))):
        vals = NB.per_query_mse_constants(mx, U, V, Z)
        ref = [float(finite_prompt_constants_mp(mx, *exact_floats([U, V, z]), 50)["mse"]) for z in Z]
        rows.append({"check": "per-query constants: float64 == 50 digits", "tokens": name,
                     "float64": [float(x) for x in vals], "50_digits": ref,
                     **Residual(dps=16, guard=4).decide(max(abs(a - b) for a, b in zip(vals, ref)),
                                                        max(abs(x) for x in ref))})
    return rows


def _quadrature_row(quad, K, fam, n_parts):
    """The averaged constant by quadrature (or importance sampling in high dimension) == closed form K."""
    if quad["method"] != "quadrature":
        return {"check": "importance-sampled K == closed form", **ZTest(fam.take("gaussian-constant-is", n_parts),
                name="importance-sampled K vs closed form").decide(quad["value"], quad["standard_error"], K)}
    row = {"check": "quadrature K == closed form", **quad,
           **Residual(dps=15, guard=6).decide(abs(quad["value"] - K), K)}
    if quad["error_estimate"] > 1e-9 * K:  # the rule's own tolerance is out of reach: cannot decide
        undecide(row, "quadrature error estimate above 1e-9 K")
    return row


def _below_rows(ctx, p: Rate, Ub, cf, fam, n_parts, dropped_shift: bool):
    """Below the threshold: the log-log slope is -1 and L * MSE tends to K (a + b/L over the lengths);
    the importance-sampling branch of averaged_constant agrees with K.  The control compares the
    constant without the mean-shift term."""
    G, S, U0, V, mix = p.arrays()
    rows = ctx.data("below", lambda rng: NB.query_averaged_mse(mix, S, Ub, V, p.Ls_below, p.queries_below, rng,
                                                               lam=p.lambda_below), params=p)
    Ls, n = [r["L"] for r in rows], p.queries_below
    slope = SlopeRule(fam.take("below-slope", n_parts), target=-1.0, remainder=len(rows) >= 3,
                      name="below: log-log slope of the query-averaged MSE").decide(
        Ls, [r["mse"] for r in rows], [r["mse_se"] for r in rows], n)
    K = cf["K_without_mean_shift"] if dropped_shift else cf["K"]
    limit = InverseLRule(fam.take("below-constant", n_parts), margin=0.25, relative=True,
                         name="below: limit of L*MSE (a + b/L over the prompt lengths)").decide(
        Ls, [r["L_mse"] for r in rows], [r["L_mse_se"] for r in rows], K, n)
    mc = NB.averaged_constant(mix, S, Ub, V, max_points=0, mc_samples=100000, rng=ctx.stream("is-gauss", p.key()))
    is_row = ZTest(fam.take("gaussian-constant-importance-sampling-branch", n_parts), margin=0.02, relative=True,
                   name="importance-sampled K (averaged_constant's sampling branch) vs closed form").decide(
        mc["value"], mc["standard_error"], cf["K"])
    return [{**slope, "per_L": rows}, {**limit, "K_compared": K}, {**is_row, "samples": mc.get("samples")}]


def _above_rows(ctx, p: Rate, fam, naive: bool):
    """Above the threshold, per lambda: the decay of a sum of non-negative parts (a 1/L part and
    L^(-1/(2 lambda)) (ln L)^b parts, |b| <= log_power_max), fits.decay_rate_decision with the band of
    mc_verdict.rate_band and its slope margin; the control predicts the 1/L rate (a finite constant)."""
    G, S, U0, V, mix = p.arrays()
    out = []
    for lam in p.lambdas_above:
        Ua = NB.scale_to_lambda(mix, S, U0, float(lam))
        rows = ctx.data(("above", lam), lambda rng, Ua=Ua: NB.query_averaged_mse(
            mix, S, Ua, V, p.Ls_above, p.queries_above, rng), params=p)
        band = [-1.0, -1.0] if naive else rate_band(float(lam), 0.0, p.Ls_above, allowance=p.log_power_max)
        dec = decay_rate_decision(fam.take(f"lambda={lam}", len(p.lambdas_above)), [r["L"] for r in rows],
                                  [r["mse"] for r in rows], [r["mse_se"] for r in rows], naive, band,
                                  p.queries_above, f"above: lambda = {lam:g}", margin=RATE_SLOPE_MARGIN)
        out.append({**dec, "lambda_max": float(lam), "predicted_exponent": -1.0 if naive else -1 / (2 * float(lam)),
                    "per_L": rows})
    return out


def _mixture_rows(ctx, p: Rate, fam, n_parts, dropped_shift: bool):
    """Mixture tokens below the threshold: L * MSE at one long prompt against K_mix = E_nu[rho tr(V C V^T)]
    (quadrature, or importance sampling in high dimension); the O(1/L) remainder is not modelled
    (L_mixture large).  The control drops the mean-shift outer products from C."""
    G, S, U0, V, _mix = p.arrays()
    mmix = GaussianMixture.from_json_obj(p.mixture, where="fp-query-averaged-rate mixture")
    Um = NB.scale_to_lambda(mmix, S, U0, p.lambda_below)
    fn = (lambda Z: NB.mse_constants_without_mean_shift(mmix, Um, V, Z)) if dropped_shift else None
    mq = NB.averaged_constant(mmix, S, Um, V, n=p.quadrature_nodes, rng=ctx.stream("quad-mix", p.key()), fn=fn)
    rows = ctx.data("mixture", lambda rng: NB.query_averaged_mse(mmix, S, Um, V, [p.L_mixture], p.queries_mixture,
                                                                 rng, lam=p.lambda_below), params=p)
    se = rows[0]["L_mse_se"] if mq["method"] == "quadrature" else float(np.hypot(rows[0]["L_mse_se"],
                                                                                 mq["standard_error"]))
    z = ZTest(fam.take("mixture-constant", n_parts), margin=0.25, relative=True,
              name="mixture: L*MSE at L_mixture").decide(rows[0]["L_mse"], se, mq["value"], p.queries_mixture)
    out = [_lambda_row(p.lambda_below, Um, list(mmix.arrays()[2]), S),
           {**z, "K_mix": mq["value"], "averaged_constant": mq, "per_L": rows}]
    if mq["method"] == "quadrature" and mq["error_estimate"] > 1e-6 * abs(mq["value"]):
        out.append({"check": "mixture quadrature precise enough", "passed": None,
                    "reason": "quadrature error estimate above 1e-6 K: undecided"})
    return out


@claim(id="fp-query-averaged-rate",
       title="Query-averaged finite-prompt error: 1/L below the exp-moment threshold, L^(-1/(2 lambda)) above",
       source="docs/finite-prompt.md §4-5 (query averages, beyond the paper)", section="beyond", kind="monte-carlo",
       statement=("tokens N(0, Gamma), queries N(0, Sigma_nu), lambda = lambda_max(Sigma_nu^(1/2) U^T Gamma U "
                  "Sigma_nu^(1/2)). If lambda < 1/2: L E_nu||T_L - T||^2 -> K = det(I-2B)^(-1/2)[tr(V Gamma V^T) + "
                  "tr((I-2B)^(-1) Q)], B = S U^T Gamma U S, Q = S U^T Gamma V^T V Gamma U S. If lambda > 1/2: "
                  "E_nu||T_L - T||^2 = L^(-1/(2 lambda)) up to logarithmic factors. Mixtures: K_mix = E_nu[rho tr(V C "
                  "V^T)], finite iff max_k lambda_max(S U^T G_k U S) < 1/2"),
       assumptions=("zero-mean Gaussian tokens (mixture extension below the threshold)", "Gaussian queries",
                    "first order in 1/L below the threshold; 'up to logarithmic factors' above (|log power| <= 1)"),
       profiles={"full": {"lambdas_above": [0.75, 1.0, 1.5], "Ls_above": [100, 400, 1600, 6400, 25600],
                          "queries_above": 20000, "queries_below": 30000, "Ls_below": [100, 400, 1600, 6400],
                          "queries_mixture": 20000}},
       controls={"dropped-mean-shift": "averaged constant without the (Gamma a)(Gamma a)^T mean-shift term",
                 "naive-rate-above": "delta-method 1/L rate predicted above the threshold as well"},
       independence=("derived side: simulated finite prompts averaged over queries, tensor quadrature and importance "
                     "sampling of the per-query constants (checked against finite_prompt_constants_mp); stated side: "
                     "K in closed form (float64 and 40 digits), 1/L and L^(-1/(2 lambda)) rates; shared: nothing"),
       configurations=Draws(_draw_rate, quick=1, full=3),
       derivations=lambda: [TB.gauss_exp_quadratic_1d_derivation(), TB.gauss_exp_quadratic_2d_derivation(),
                            TB.gauss_exp_quadratic_poly_derivation(2), TB.per_query_constant_gaussian_derivation(2),
                            TB.query_averaged_constant_1d_derivation()])
def fp_query_averaged_rate(p: Rate, ctx):
    """Lemmas (SymPy): the Gaussian integrals, the per-query constant, the 1-D averaged constant.
    Numeric: every branch of the closed form K, the per-query constants, lambda of the scaled U, K by
    quadrature.  Monte Carlo, each part an equal share of the family-wise alpha: below (slope and
    limit), above (the decay per lambda), the mixture constant (and, in high dimension, K by sampling)."""
    G, S, U0, V, mix = p.arrays()
    Ub = NB.scale_to_lambda(mix, S, U0, p.lambda_below)
    cf = NB.gaussian_averaged_constant(G, S, Ub, V)
    quad = NB.averaged_constant(mix, S, Ub, V, n=p.quadrature_nodes, rng=ctx.stream("quad-gauss", p.key()))
    n_parts, fam = 5 if quad["method"] == "quadrature" else 6, AlphaFamily()
    shift = ctx.control("dropped-mean-shift")
    numeric = [_quadrature_row(quad, cf["K"], fam, n_parts)] + _branch_rows(ctx, p, cf) + _per_query_rows(ctx, p, Ub)
    lemmas = [TB.gauss_exp_quadratic_1d_derivation(), TB.gauss_exp_quadratic_2d_derivation(),
              TB.gauss_exp_quadratic_poly_derivation(2), TB.per_query_constant_gaussian_derivation(2),
              TB.query_averaged_constant_1d_derivation()]
    return outcome(decide(lemmas, ctx, kind="lemma"), part("numeric", numeric),
                   part("monte-carlo", _below_rows(ctx, p, Ub, cf, fam, n_parts, shift), name="below threshold"),
                   part("monte-carlo", _above_rows(ctx, p, fam.sub("above", 1 / n_parts),
                                                   ctx.control("naive-rate-above")), name="above threshold"),
                   part("monte-carlo", _mixture_rows(ctx, p, fam, n_parts, shift), name="mixture tokens"),
                   closed_form={"K": cf["K"], "lambda_max": cf["lambda_max"], "U": Ub.tolist()}, alpha=fam.ledger(),
                   reading=("tokens N(0, Gamma) (mixture extension: sum_k pi_k N(m_k, G_k)), queries z ~ "
                            "N(0, Sigma_nu), "
                            "one fresh L-token prompt per sampled query, error against the infinite-prompt T[mu](z)"))
