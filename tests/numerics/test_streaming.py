"""Streaming finite-prompt attention for one prompt, and the batched projected engine."""
import numpy as np
import pytest

from softmix.checks.paper.finite_prompt import FPConfig, configuration
from softmix.numerics.errors import InputError
from softmix.numerics.finite_prompt import (
    StreamingAttention,
    finite_prompt_attention,
    finite_prompt_attention_stream,
    iter_token_chunks,
    sample_tokens,
    simulate_outputs,
    simulate_outputs_batched,
)


def test_streamed_equals_one_shot():
    mix, U, V, z = configuration(FPConfig())
    rng = np.random.default_rng(3)
    toks = sample_tokens(mix, 5003, rng)
    one = finite_prompt_attention(toks, U, V, z)
    gen = (toks[i:i + 700] for i in range(0, len(toks), 700))  # a generator, uneven last chunk
    assert np.allclose(finite_prompt_attention_stream(gen, U, V, z), one, rtol=1e-12, atol=1e-14)


def test_streamed_generator_equals_one_shot_same_tokens():
    mix, U, V, z = configuration(FPConfig())
    chunks = list(iter_token_chunks(mix, 2500, np.random.default_rng(8), chunk=512))
    assert [len(c) for c in chunks] == [512] * 4 + [452]
    one = finite_prompt_attention(np.concatenate(chunks), U, V, z)
    assert np.allclose(finite_prompt_attention_stream(iter(chunks), U, V, z), one, rtol=1e-12, atol=1e-14)


def test_streaming_is_log_space_stable_and_validates():
    z = np.array([400.0, 0.0])  # scores ~ 1e5: a naive exp overflows
    toks = np.array([[1.0, 0.0], [2.0, 1.0], [0.5, -1.0]])
    st = StreamingAttention(np.eye(2), np.eye(2), z)
    for t in toks:
        st.update(t[None])
    assert np.allclose(st.result(), finite_prompt_attention(toks, np.eye(2), np.eye(2), z))
    with pytest.raises(InputError):
        st.update(np.zeros((2, 3)))
    with pytest.raises(InputError):
        StreamingAttention(np.eye(2), np.eye(2), z).result()


def test_projected_engine_matches_full_sampler_in_law():
    """Means of T_L from the batched projected engine and the D-dimensional reference agree
    within 5 standard errors (two-sample z per coordinate)."""
    mix, U, V, z = configuration(FPConfig())
    R, L = 6000, 30
    a = simulate_outputs(mix, U, V, z, L, R, np.random.default_rng(1), method="projected")
    b = simulate_outputs(mix, U, V, z, L, R, np.random.default_rng(2), method="full")
    se = np.sqrt(a.var(0) / R + b.var(0) / R)
    assert np.all(np.abs(a.mean(0) - b.mean(0)) < 5 * se)
    assert np.allclose(a.var(0), b.var(0), rtol=0.15)


def test_projected_engine_same_seed_same_numbers_and_chunking_invariant_law():
    mix, U, V, z = configuration(FPConfig())
    x = simulate_outputs(mix, U, V, z, 100, 50, np.random.default_rng(4))
    y = simulate_outputs(mix, U, V, z, 100, 50, np.random.default_rng(4))
    assert np.array_equal(x, y)
    # tiny chunks exercise the online log-sum-exp across chunks; the draw order changes with the
    # chunk size, so the invariance is in law: two-sample z-tests of the means (5 SE) and variances
    R = 3000
    a = simulate_outputs(mix, U, V, z, 60, R, np.random.default_rng(5), chunk=7)
    b = simulate_outputs(mix, U, V, z, 60, R, np.random.default_rng(6))
    assert a.shape == b.shape == (R, 2)
    se = np.sqrt(a.var(0) / R + b.var(0) / R)
    assert np.all(np.abs(a.mean(0) - b.mean(0)) < 5 * se)
    assert np.allclose(a.var(0), b.var(0), rtol=0.15)
    # and a merge that forgets to rescale the running sums is caught: the chunked mean must match
    # the limit's neighbourhood, not just be finite
    from softmix.numerics.finite_prompt import finite_prompt_constants
    lim = finite_prompt_constants(mix, U, V, z)["limit"]
    assert np.all(np.abs(a.mean(0) - lim) < 5 * np.sqrt(a.var(0) / R) + np.abs(b.mean(0) - lim) + 0.05)


def test_single_component_and_degenerate_root():
    from softmix.numerics.mixture import GaussianMixture

    mix = GaussianMixture.from_values([1], [[0, 1]], [[[1, 1], [1, 1]]])  # rank 1
    out = simulate_outputs(mix, np.eye(2) * 0.3, np.eye(2), [1, 0], 40, 200, np.random.default_rng(0))
    # V z lies on the line z2 = z1 + 1 for every token, hence so does any convex combination
    assert np.allclose(out[:, 1], out[:, 0] + 1)


def test_batched_replicates_depend_only_on_seed_and_batch():
    mix, U, V, z = configuration(FPConfig())
    a = simulate_outputs_batched(mix, U, V, z, 20, 250, seed=9, batch=100)
    order = []

    def rev_map(f, items):  # run the batches in reverse order, return in order
        items = list(items)
        res = [None] * len(items)
        for i in reversed(range(len(items))):
            order.append(i)
            res[i] = f(items[i])
        return res

    b = simulate_outputs_batched(mix, U, V, z, 20, 250, seed=9, batch=100, map=rev_map)
    assert order == [2, 1, 0] and a.shape == (250, 2)
    assert np.array_equal(a, b)


def test_projected_engine_at_large_scores_shifts_by_each_segment_maximum():
    """Scores of thousands (U scaled so that |U z| = 3000): the engine subtracts each segment's maximum score, so
    the outputs (weighted means of token values) are finite and inside the tokens' range
    (a shift by another coordinate's maximum -- survivor numerics/finite_prompt.py:128 of the library run on
    cae1a38 -- overflows exp here, though it cancels at moderate scores)."""
    mix, U, V, z = configuration(FPConfig())
    out = simulate_outputs(mix, 3000 * U / np.linalg.norm(U @ z), V, z, 2000, 50, np.random.default_rng(5))
    toks = sample_tokens(mix, 20000, np.random.default_rng(6)) @ np.asarray(V, float).T
    assert np.isfinite(out).all()
    assert np.all(out >= toks.min(0) - 5 * toks.std(0)) and np.all(out <= toks.max(0) + 5 * toks.std(0))
