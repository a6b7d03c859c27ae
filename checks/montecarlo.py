"""Finite-prompt Monte Carlo studies and their decision rules (notes/finite-prompt.md).

For each prompt length L, R seeded replicates of T[mu_hat_L](z) give:
* L * mean error with its standard error; the limit of ``L * mean error = a + b/L`` over the prompt
  lengths is z-tested against the bias constant (``fits.InverseLRule``);
* L * mean squared error with its standard error; its limit is z-tested against rho tr(V C V^T);
* the root-mean-square error, whose log-log slope (with the O(1/L) remainder when >= 3 lengths)
  is fitted with an interval and tested against -1/2 (``fits.SlopeRule``).

The three tests share ONE family-wise alpha (``rules.AlphaFamily``): a third each, recorded in the
study's ``alpha`` ledger; ``verdict`` combines them (``verdicts.combine``).
"""
from __future__ import annotations

import numpy as np

from softmix.numerics.finite_prompt import finite_prompt_constants, simulate_outputs

from .fits import InverseLRule, SlopeRule, mean_se_dof
from .rules import AlphaFamily, ZTest
from .verdicts import combine

__all__ = ["finite_prompt_study", "finite_prompt_rows", "mc_errors"]


def mc_errors(mix, U, V, z, L, R, rng, limit, method="projected"):
    out = simulate_outputs(mix, U, V, z, L, R, rng, method=method)
    return out - np.asarray(limit)[None, :]


def finite_prompt_rows(mix, U, V, z, Ls, R, seed, limit, method: str = "projected") -> list[dict]:
    """Per prompt length (streams ``SeedSequence(seed).spawn(len(Ls))``): L * mean error, L * MSE, RMSE,
    each with its standard error over R replicates, and the effective dof of the MSE's standard error."""
    rows = []
    for L, ss in zip(Ls, np.random.SeedSequence(int(seed)).spawn(len(Ls))):
        err = mc_errors(mix, U, V, z, int(L), int(R), np.random.default_rng(ss), limit, method)
        sq = (err**2).sum(axis=1)
        rows.append({
            "L": int(L),
            "L_mean_error": (L * err.mean(0)).tolist(),
            "L_mean_error_se": (L * err.std(0, ddof=1) / np.sqrt(R)).tolist(),
            "L_mse": float(L * sq.mean()),
            "L_mse_se": float(L * sq.std(ddof=1) / np.sqrt(R)),
            "rmse": float(np.sqrt(sq.mean())),
            "rmse_se": float(sq.std(ddof=1) / np.sqrt(R) / (2 * np.sqrt(sq.mean()))),
            "se_dof": mean_se_dof(sq),
        })
    return rows


def finite_prompt_study(mix, U, V, z, Ls, R, seed, alpha: float | None = None, limit=None, constants=None,
                        method: str = "projected", family: AlphaFamily | None = None,
                        relative_margin: float | None = None) -> dict:
    """Run the study with one seed (independent streams per L via SeedSequence.spawn).

    ``family``: the alpha family the three tests draw from (a fresh ``AlphaFamily(alpha)`` if
    omitted; pass a claim's sub-family to make the study part of a larger claim).
    ``relative_margin``: precision required of the bias/MSE limits (half-width / |predicted|).
    """
    c = constants or finite_prompt_constants(mix, U, V, z)
    limit = c["limit"] if limit is None else np.asarray(limit)
    fam = family if family is not None else AlphaFamily(alpha, name="finite-prompt study")
    rows = finite_prompt_rows(mix, U, V, z, Ls, R, seed, limit, method)
    Lv = [r["L"] for r in rows]
    multi = len(set(Lv)) >= 2
    a_bias, a_mse, a_slope = (fam.take("bias-limit", 3), fam.take("mse-limit", 3), fam.take("rmse-slope", 3)) \
        if multi else (fam.split("bias-limit", 0.5), fam.split("mse-limit", 0.5), None)
    if multi:
        bias_test = InverseLRule(a_bias, relative_margin, relative=True, name="bias limit").decide(
            Lv, [r["L_mean_error"] for r in rows], [r["L_mean_error_se"] for r in rows], c["bias"], R)
        mse_test = InverseLRule(a_mse, relative_margin, relative=True, name="L*MSE limit").decide(
            Lv, [r["L_mse"] for r in rows], [r["L_mse_se"] for r in rows], c["mse"], R)
        assert a_slope is not None  # taken above whenever there are several lengths
        slope = SlopeRule(a_slope, -0.5, remainder=len(set(Lv)) >= 3, name="RMSE log-log slope").decide(
            Lv, [r["rmse"] for r in rows], [r["rmse_se"] for r in rows], R, se_dof=[r["se_dof"] for r in rows])
    else:  # one prompt length: nothing to extrapolate; the O(1/L) remainder is not modelled
        last = rows[-1]
        bias_test = ZTest(a_bias, relative_margin, relative=True, name="L*bias at L").decide(
            last["L_mean_error"], last["L_mean_error_se"], c["bias"], R)
        mse_test = ZTest(a_mse, relative_margin, relative=True, name="L*MSE at L").decide(
            last["L_mse"], last["L_mse_se"], c["mse"], R)
        slope = None
    tests = [bias_test, mse_test] + ([slope] if slope else [])
    return {"replicates": int(R), "seed": int(seed), "method": method, "per_L": rows,
            "bias_coefficient": np.asarray(c["bias"]).tolist(), "mse_coefficient": float(c["mse"]),
            "bias_limit_test": bias_test, "mse_limit_test": mse_test, "rmse_slope_test": slope,
            "alpha": fam.ledger(), "verdict": combine(tests),
            "rule": " | ".join(t["rule"] for t in tests)}
