"""A Monte Carlo statement about finite prompts, written with the ``@softmix.claim`` decorator.

Run:  softmix verify --plugin examples/monte_carlo_statement.py ex-finite-prompt-mse

Statement (finite-prompt notes, docs/finite-prompt.md): for a prompt of L i.i.d. tokens from mu,
the attention output on the empirical measure satisfies

    L * E || T[mu_hat_L](z) - T[mu](z) ||^2  ->  tr(rho V C V^T)       (L -> infinity),

with the constant computed by ``softmix.finite_prompt_constants``.  The known O(1/L) remainder
is below a tenth of the Monte Carlo standard error at the default L, so one z-test decides it at
the claim's family-wise level alpha = 1e-3.
"""
from dataclasses import dataclass, field

import numpy as np

import softmix


@dataclass
class Params:
    L: int = 2000  # prompt length
    replicates: int = 3000  # independent prompts
    mixture: dict = field(default_factory=lambda: {
        "weights": ["0.3", "0.7"], "means": [["1", "-0.5"], ["-0.8", "1.2"]],
        "covariances": [[["0.5", "0.1"], ["0.1", "0.4"]], [["0.3", "0"], ["0", "0.6"]]]})
    U: list[list[float]] = field(default_factory=lambda: [[0.6, 0.2], [-0.1, 0.5]])
    V: list[list[float]] = field(default_factory=lambda: [[1.0, 0.3], [0.0, 0.8]])
    z: list[float] = field(default_factory=lambda: [0.7, -0.4])

    def __post_init__(self):
        if self.L < 100 or self.replicates < 100:
            raise ValueError("L and replicates must be at least 100 (the O(1/L) remainder is not modelled)")


@softmix.claim(id="ex-finite-prompt-mse", title="Finite-prompt attention has mean squared error ~ tr(rho V C V^T) / L",
               source="docs/finite-prompt.md (the MSE constant)", kind="monte-carlo",
               controls={"half-error": "the statement with the constant halved (error claimed twice as small)"},
               profiles={"full": {"L": 8000, "replicates": 20000}})
def finite_prompt_mse(p: Params, ctx):
    mix = softmix.GaussianMixture.from_json_obj(p.mixture)
    U, V, z = np.array(p.U), np.array(p.V), np.array(p.z)

    def simulate(rng):  # made once; the negative control reuses the same sample
        out = softmix.simulate_outputs(mix, U, V, z, p.L, p.replicates, rng)
        exact = softmix.softmax_attention(mix, U, V, z[None])[0]
        return p.L * np.sum((out - exact) ** 2, axis=1)

    scaled = ctx.data("scaled squared errors", simulate, params=p)
    predicted = softmix.finite_prompt_constants(mix, U, V, z)["mse"]
    if ctx.control("half-error"):
        predicted = predicted / 2
    est, se = scaled.mean(), scaled.std(ddof=1) / np.sqrt(len(scaled))
    row = {"L": p.L, "replicates": p.replicates, "estimate": float(est), "standard_error": float(se),
           "predicted": float(predicted), **softmix.ZTest(1e-3).decide(est, se, predicted)}
    return softmix.part("monte-carlo", [row])
