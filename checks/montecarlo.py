"""Finite-prompt Monte Carlo studies and their decision rules (notes/finite-prompt.md).

For each prompt length L, R seeded replicates of T[mu_hat_L](z) give:
* L * mean error with its standard error, z-tested against the bias constant;
* L * mean squared error with its standard error, z-tested against rho tr(V C V^T);
* the root-mean-square error, whose log-log slope is fitted with a confidence interval.
"""
from __future__ import annotations

import numpy as np

from softmix.numerics.finite_prompt import finite_prompt_constants, simulate_outputs

from .rules import ALPHA, fit_loglog_slope, zscore_test

__all__ = ["finite_prompt_study", "mc_errors"]


def mc_errors(mix, U, V, z, L, R, rng, limit, method="projected"):
    out = simulate_outputs(mix, U, V, z, L, R, rng, method=method)
    return out - np.asarray(limit)[None, :]


def finite_prompt_study(mix, U, V, z, Ls, R, seed, alpha: float = ALPHA, limit=None, constants=None,
                        method: str = "projected") -> dict:
    """Run the study with one seed (independent streams per L via SeedSequence.spawn)."""
    c = constants or finite_prompt_constants(mix, U, V, z)
    limit = c["limit"] if limit is None else np.asarray(limit)
    streams = np.random.SeedSequence(int(seed)).spawn(len(Ls))
    rows = []
    for L, ss in zip(Ls, streams):
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
        })
    last = rows[-1]
    bias_test = zscore_test(last["L_mean_error"], last["L_mean_error_se"], c["bias"], alpha)
    mse_test = zscore_test(last["L_mse"], last["L_mse_se"], c["mse"], alpha)
    slope = fit_loglog_slope([r["L"] for r in rows], [r["rmse"] for r in rows], [r["rmse_se"] for r in rows], alpha) \
        if len(rows) >= 2 else None
    return {"replicates": int(R), "seed": int(seed), "method": method, "per_L": rows,
            "bias_coefficient": np.asarray(c["bias"]).tolist(), "mse_coefficient": float(c["mse"]),
            "bias_test_at_largest_L": bias_test, "mse_test_at_largest_L": mse_test,
            "rmse_loglog_slope": slope,
            "slope_contains_minus_half": None if slope is None else bool(slope["ci"][0] <= -0.5 <= slope["ci"][1])}
