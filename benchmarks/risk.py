"""Finite-prompt risk engine benchmarks (issue 13), as ratios measured side by side:

1. per-query constants vectorised over queries (numerics.risk.risk_constants, two heads, D = 6,
   two token components) vs a Python loop of today's per-query ``finite_prompt_constants`` (one call
   per head and query): queries/s of each and their ratio (target >= 1e5 queries/s on one core);
2. variance reduction of the linearised control variate at equal tokens (per query, several heads
   sharing one prompt): Var(X) / Var(X - Y + E Y) (target >= 3).
"""
from __future__ import annotations

import time

import numpy as np

TARGETS = {"risk_queries_per_s": 1e5, "variance_reduction": 3.0}


def risk_problem(D: int = 6, seed: int = 0):
    from softmix.numerics.mixture import GaussianMixture
    from softmix.numerics.risk import parse_heads, parse_target

    rng = np.random.default_rng(seed)
    f = lambda M: [[repr(float(x)) for x in r] for r in M]
    covs = []
    for _ in range(2):
        A = rng.standard_normal((D, D)) / np.sqrt(D)
        covs.append(f(np.round(A @ A.T + 0.2 * np.eye(D), 6)))
    means = [f(np.round(rng.standard_normal((1, D)), 6))[0] for _ in range(2)]
    mix = GaussianMixture.from_json_obj({"weights": ["0.35", "0.65"], "means": means, "covariances": covs})
    heads = parse_heads([{"U": f(np.round(0.3 * rng.standard_normal((D, D)), 6)),
                          "V": f(np.round(rng.standard_normal((2, D)), 6)),
                          "W": f(np.round(np.eye(2) + 0.2 * rng.standard_normal((2, 2)), 6))} for _ in range(2)], D)
    target = parse_target({"B": f(np.round(0.3 * rng.standard_normal((2, D)), 6))}, D, 2)
    return mix, heads, target


def bench_constants(D: int = 6, n: int = 200_000, n_loop: int = 200, min_time: float = 0.5, seed: int = 0) -> dict:
    from softmix.numerics.finite_prompt import finite_prompt_constants
    from softmix.numerics.risk import risk_constants

    mix, heads, target = risk_problem(D, seed)
    Z = np.random.default_rng(seed + 1).standard_normal((n, D)) * 0.5
    arr = [h.arrays() for h in heads]
    risk_constants(mix, heads, target, Z[:10])  # warm caches
    best = np.inf
    t_end = time.perf_counter() + min_time
    while True:
        t0 = time.perf_counter()
        risk_constants(mix, heads, target, Z)
        best = min(best, time.perf_counter() - t0)
        if time.perf_counter() > t_end:
            break
    vec = n / best
    t0 = time.perf_counter()
    for z in Z[:n_loop]:
        for U, V, _W in arr:
            finite_prompt_constants(mix, U, V, z)
    loop = n_loop / (time.perf_counter() - t0)
    return {"D": D, "heads": 2, "components": 2, "queries": n, "vectorised_queries_per_s": vec,
            "loop_queries_per_s": loop, "ratio": vec / loop, "target_queries_per_s": TARGETS["risk_queries_per_s"],
            "met": vec >= TARGETS["risk_queries_per_s"],
            "note": "the loop calls finite_prompt_constants once per head (single-head constants only, no cross terms)"}


def bench_variance_reduction(L: int = 400, R: int = 20000, seed: int = 3) -> list:
    # the configuration of the claims fp-risk-expansion / fp-multihead-covariance (D = 3)
    from softmix.checks.paper.finite_prompt_risk import HEADS, MIX, TARGET
    from softmix.numerics.mixture import GaussianMixture
    from softmix.numerics.risk import parse_heads, parse_target
    from softmix.numerics.risk_simulation import simulate_excess

    mix = GaussianMixture.from_json_obj(MIX)
    heads = parse_heads(HEADS, 3)
    target = parse_target(TARGET, 3, 2)
    rows = []
    for z in ([0.8, -0.4, 0.6], [0.0, 0.5, -0.5]):
        out = simulate_excess(mix, heads, target, np.array(z), L, R, np.random.default_rng(seed))
        vr = float(out["X"].var(ddof=1) / out["X_cv"].var(ddof=1))
        rows.append({"z": z, "L": L, "replicates": R, "mean_raw": float(out["X"].mean()),
                     "mean_cv": float(out["X_cv"].mean()), "variance_reduction": vr,
                     "target": TARGETS["variance_reduction"], "met": vr >= TARGETS["variance_reduction"]})
    return rows
