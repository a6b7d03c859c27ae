"""fp-lln: the finite-prompt attention converges to the infinite-prompt operator at rate L^(-1/2)
(Gabet-Boursier-Boyer 2026, Sec. 2, law of large numbers; docs/finite-prompt.md).

The RMSE's log-log slope is decided by the engine's :class:`~softmix.checks.fits.SlopeRule` (O(1/L)
remainder modelled, standard errors estimated from the samples); on the claim's runs every sampling path of
:mod:`softmix.numerics.finite_prompt` is also compared with the others (deterministically on the same
tokens, and in law by two-sample z-tests at a share of the claim's alpha).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from softmix.numerics.finite_prompt import (
    finite_prompt_attention,
    finite_prompt_attention_stream,
    finite_prompt_constants,
    iter_token_chunks,
    sample_tokens,
    simulate_outputs,
    simulate_outputs_batched,
)
from softmix.numerics.finite_prompt_references import attention_by_definition_mp, dropped_half_limit, two_sample_moments
from softmix.numerics.mixture import GaussianMixture

from ..api import claim, outcome, part
from ..fits import SlopeRule, mean_se_dof
from ..rules import AlphaFamily, Threshold, ZTest
from .finite_prompt import ASSUMPTIONS, DRAWS, FPConfig, configuration, constants_agreement, outputs

#: half-width of the slope interval for a confirmation (the claimed slope is -1/2)
LLN_SLOPE_MARGIN = 0.05
#: law comparison of the sampling paths at one short prompt length (quick and full alike: it decides that the
#: paths agree, not a rate): prompt length, replicates per path, token chunk (48 = 20 + 20 + 8: the streamed
#: paths merge three chunks, the last one partial)
PATHS_L, PATHS_R, PATHS_CHUNK = 48, 2000, 20
#: chunk of the iter_token_chunks stream (not a multiple of PATHS_L: chunks straddle prompts), and the number of
#: its prompts also fed to StreamingAttention chunk by chunk
PATHS_STREAM_CHUNK, PATHS_STREAMED = 5000, 50
#: share of fp-lln's alpha for the two-sample tests of the paths (the slope rule keeps the rest)
PATHS_ALPHA_SHARE = 0.1
#: half-width of every two-sample difference in units of the largest sd of T_L (means) and of the largest second
#: moment E (T_L - T)_i^2 (second moments)
PATHS_MEAN_MARGIN, PATHS_MOMENT_MARGIN = 0.3, 0.5
#: float64 computations of the same prompt (sums of <= PATHS_L terms in another order, exp of shifted scores):
#: |difference| <= ROUNDING_TOL max(1, |value|); a factor ~100 over PATHS_L x machine epsilon
ROUNDING_TOL = 1e-12


def _max_rel(a, b) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        return float("inf")
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def _split_first(mix):
    """The same law written with its first component split into two equal halves (K + 1 components), so that
    the token paths' label sampling runs with at least three components."""
    return GaussianMixture.from_values([mix.weights[0] / 2, mix.weights[0] / 2] + list(mix.weights[1:]),
                                       [mix.means[0]] + list(mix.means), [mix.covariances[0]] + list(mix.covariances),
                                       where="split mixture")


def _path_outputs(ctx, mix, U, V, z):
    """(projected batched, full tokens chunked, the same tokens one-shot, the prompts of iter_token_chunks and
    their one-shot outputs); one stream per path (seed, claim, path)."""
    L, R, ch = PATHS_L, PATHS_R, PATHS_CHUNK
    seq = lambda tag: ctx.stream("reference-paths", tag).bit_generator.seed_seq
    split = _split_first(mix)
    A = simulate_outputs_batched(mix, U, V, z, L, R, seq("projected-batched"), batch=R // 2)
    B = simulate_outputs(split, U, V, z, L, R, np.random.default_rng(seq("full")), method="full", chunk=ch)
    rng = np.random.default_rng(seq("full"))  # the same tokens again, drawn one chunk at a time
    toks = np.concatenate([sample_tokens(split, min(ch, L - i), rng, size=(R,)) for i in range(0, L, ch)], axis=1)
    stream = np.concatenate(list(iter_token_chunks(split, L * R, np.random.default_rng(seq("streamed")),
                                                   chunk=PATHS_STREAM_CHUNK)))
    prompts = stream.reshape(R, L, -1)
    return A, B, toks, prompts, finite_prompt_attention(prompts, U, V, z)


def reference_paths(mix, U, V, z, limit, ctx, fam) -> list:
    """Every sampling path of numerics.finite_prompt against the others (exact in law).

    Deterministic (no alpha): the chunked full-token path (``simulate_outputs(method='full')``) equals the one-shot
    ``finite_prompt_attention`` on the same tokens; the one-shot path equals the definition at 30 digits on two
    prompts; ``finite_prompt_attention_stream`` fed PATHS_STREAMED prompts of the ``iter_token_chunks`` stream
    PATHS_CHUNK tokens at a time equals the one-shot path; the batched entry point returns (R, p).  Statistical
    (PATHS_ALPHA_SHARE of the claim's alpha): the law of T_L at L = PATHS_L from the projected engine equals the
    law from full tokens and from ``iter_token_chunks`` (two-sample z-tests of the means and of the second moments
    about the limit, Bonferroni).  Approximate: the z-tests are asymptotic (CLT over PATHS_R replicates)."""
    R, ch, p = PATHS_R, PATHS_CHUNK, V.shape[0]
    A, B, toks, prompts, Cs = _path_outputs(ctx, mix, U, V, z)
    det = {"chunked full-token path vs one-shot, same tokens": _max_rel(B, finite_prompt_attention(toks, U, V, z)),
           "one-shot vs definition at 30 digits": max(_max_rel(finite_prompt_attention(toks[r], U, V, z),
                                                               attention_by_definition_mp(toks[r], U, V, z))
                                                      for r in range(2)),
           "streamed vs one-shot, same tokens": max(
               _max_rel(finite_prompt_attention_stream((t[i:i + ch] for i in range(0, PATHS_L, ch)), U, V, z), Cs[r])
               for r, t in enumerate(prompts[:PATHS_STREAMED]))}
    rows = [{"check": k, **Threshold(ROUNDING_TOL, "<=", name="relative difference").decide(v)} for k, v in det.items()]
    rows.append({"check": f"batched engine returns ({R}, {p})", "shape": list(A.shape),
                 **Threshold(0, "<=", name="shape mismatch").decide(int(A.shape != (R, p)))})
    share = fam.sub("reference-paths", PATHS_ALPHA_SHARE)
    sd = float(np.sqrt(A.var(0, ddof=1).max()))
    m2 = float(((A - limit[None, :]) ** 2).mean(0).max())
    ests: dict = {"means": [], "moments": []}
    for Y in (B, Cs):
        dm, sm, dp, sp_ = two_sample_moments(A, Y, limit)
        ests["means"].append((dm / sd, sm / sd))
        ests["moments"].append((dp / m2, sp_ / m2))
    tests = []
    for kind, margin in (("means", PATHS_MEAN_MARGIN), ("moments", PATHS_MOMENT_MARGIN)):
        rule = ZTest(share.take(kind, 2), margin=margin,
                     name=f"projected engine vs full tokens and iter_token_chunks: {kind}"
                          + (" / max sd(T_L)" if kind == "means" else " / max E (T_L - T)_i^2"))
        est = np.concatenate([e for e, _s in ests[kind]])
        se = np.concatenate([s for _e, s in ests[kind]])
        tests.append({"quantity": kind, **rule.decide(est, se, np.zeros_like(est), n_samples=R)})
    return [part("numeric", rows, name="sampling paths (deterministic)"),
            part("monte-carlo", tests, name="sampling paths (in law)")]


@dataclass
class LLN(FPConfig):
    Ls: list[int] = field(default_factory=lambda: [100, 400, 1600, 6400])
    reps: int = 2000


@claim(id="fp-lln", title="Finite-prompt attention converges to the infinite-prompt operator at rate L^(-1/2)",
       source="Gabet-Boursier-Boyer 2026, Sec. 2 (law of large numbers); docs/finite-prompt.md",
       statement="T[mu_hat_L](z) -> T[mu](z); the RMSE falls like L^(-1/2) (log-log slope -1/2)",
       section="finite-prompt", kind="monte-carlo", assumptions=ASSUMPTIONS,
       profiles={"full": {"Ls": [100, 400, 1600, 6400, 25600], "reps": 8000}},
       controls={"wrong-limit": "compare with the operator whose gate score drops the factor 1/2"},
       configurations=DRAWS,
       independence="derived side: simulated finite prompts (projected engine); at L = 48 also full "
                    "D-dimensional tokens (sample_tokens), an iter_token_chunks stream and the batched engine, "
                    "compared "
                    "with it in law (two-sample z-tests), and the chunked, streamed and one-shot attentions compared "
                    "on "
                    "the same tokens and with the definition at 30 digits; stated side: infinite-prompt limit V grad "
                    "Lambda(a) (float64, "
                    "agreeing with the 30-digit path); shared: the mixture parser")
def fp_lln(p: LLN, ctx):
    mix, U, V, z = configuration(p)
    c = finite_prompt_constants(mix, U, V, z)
    wrong = ctx.control("wrong-limit")
    limit = dropped_half_limit(mix, U, V, z) if wrong else c["limit"]
    rows = []
    for L in p.Ls:
        sq = ((outputs(ctx, p, L, p.reps) - limit[None, :]) ** 2).sum(1)
        rows.append({"L": int(L), "rmse": float(np.sqrt(sq.mean())),
                     "rmse_se": float(sq.std(ddof=1) / np.sqrt(p.reps) / (2 * np.sqrt(sq.mean()))),
                     "se_dof": mean_se_dof(sq)})
    fam = AlphaFamily()
    # the reference sampling paths are decided on the claim's runs only (the control changes only the limit)
    paths = [] if wrong else reference_paths(mix, U, V, z, c["limit"], ctx, fam)
    rule = SlopeRule(fam.rest("rmse-slope"), target=-0.5, margin=LLN_SLOPE_MARGIN, remainder=True,
                     name="RMSE log-log slope")
    slope = rule.decide(p.Ls, [r["rmse"] for r in rows], [r["rmse_se"] for r in rows], n_samples=p.reps,
                        se_dof=[r["se_dof"] for r in rows])
    down = Threshold(rows[0]["rmse"], "<", name="RMSE(L_max) < RMSE(L_min)").decide(rows[-1]["rmse"])
    return outcome(part("monte-carlo", [slope, down], name="monte-carlo"), constants_agreement(p), *paths,
                   per_L=rows, alpha=fam.ledger(), limit_compared=np.asarray(limit).tolist(), rho=c["rho"])
