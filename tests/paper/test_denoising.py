"""Tests for Section 4 (denoising): pinned values, property tests, negative controls."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mpm
import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, settings, strategies as st

from softmix.numerics.attention import softmax_attention
from softmix.numerics.denoising import (
    DenoisingTask,
    bayes_denoiser,
    bayes_denoiser_mp,
    best_linear_map,
    gh_nodes,
    head_outputs,
    heads_loss_grad,
    linear_excess_risk_mp,
    linear_map_excess_risk,
    paper_two_heads,
    residual_architecture_output,
    u_iterates,
    u_lambda,
)
from softmix.numerics.errors import InputError
from softmix.theory import denoising as TD

FIG2 = {"m1": [3, 0], "m2": [0, 3], "gamma": 1, "xi": 2, "pi1": "0.5"}
TRIPLES = [(3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29)]


def fig2():
    return DenoisingTask.from_params(FIG2)


# --- pinned values ------------------------------------------------------------------------------
def test_bayes_denoiser_pinned_fig2():
    # by hand: s = 5, equal norms, beta_1 = 1 / (1 + exp((m2 - m1).z / s)) with (m2 - m1).z = -3 + 6 = 3
    z = (1, 2)
    b1 = 1 / (1 + math.exp(3 / 5))
    hand = np.array([1 / 5 + 4 / 5 * 3 * b1, 2 / 5 + 4 / 5 * 3 * (1 - b1)])
    assert abs(b1 - 0.35434369377420455) < 1e-15
    got = bayes_denoiser(fig2(), [z])[0]
    assert np.allclose(got, hand, rtol=0, atol=1e-14)
    # independently: posterior mean by mpmath.quad (the integrals factorise over coordinates
    # within each isotropic component): E[X | Z=z] = int x p(x) N(z; x, xi^2 I) dx / int ...
    with mpm.workdps(30):
        g, xi = mpm.mpf(1), mpm.mpf(2)
        num = [mpm.mpf(0), mpm.mpf(0)]
        den = mpm.mpf(0)
        for m in ((3, 0), (0, 3)):
            one = [mpm.quad(lambda x: mpm.npdf(x, m[i], g) * mpm.npdf(z[i], x, xi), [-mpm.inf, mpm.inf])
                   for i in range(2)]
            first = [mpm.quad(lambda x: x * mpm.npdf(x, m[i], g) * mpm.npdf(z[i], x, xi), [-mpm.inf, mpm.inf])
                     for i in range(2)]
            den += one[0] * one[1] / 2
            num[0] += first[0] * one[1] / 2
            num[1] += one[0] * first[1] / 2
        post = [num[0] / den, num[1] / den]
        mpv = bayes_denoiser_mp(fig2(), [1, 2], 30)
        assert max(abs(post[i] - mpv[i]) for i in range(2)) < mpm.mpf(10) ** -20
    assert np.allclose([float(v) for v in post], hand, atol=1e-14)


def test_u_lambda_sqrt2_other_root_finder():
    from scipy.optimize import brentq

    r = u_lambda(mpm.sqrt(2), 50)
    ref = brentq(lambda u: math.tanh(2 * u) - u, 0.1, 1.0, xtol=1e-15)
    assert abs(float(r["u"]) - ref) < 1e-13
    assert abs(float(r["u"]) - 0.957504024077269) < 1e-14
    assert r["width"] < mpm.mpf(10) ** -45 and r["lo"] <= r["u"] <= r["hi"]
    assert r["F_prime"] < 1


def test_lambda_one_algebraic_rate():
    u = u_iterates(1.0, 0.9, 10**5)
    assert abs(10**5 * u[-1] ** 2 - 1.5) < 0.01


def test_linear_excess_risk_fig2_two_methods():
    q, eq = linear_excess_risk_mp(fig2(), 30, method="quad")
    g, eg = linear_excess_risk_mp(fig2(), 20, n=80, n2=110)
    with mpm.workdps(40):
        assert abs(q - g) < 1e-9
        # pinned: agrees with an independent 300-node Gauss-Hermite run to 26 digits
        assert abs(q - mpm.mpf("1.64152372751814789678434515")) < 1e-24


def test_groebner_single_head_forces_balance():
    gamma, xi = TD.noise_symbols()
    elim, *_ = TD.prop_c4_elimination(sp.Matrix([3, 0]), sp.Matrix([0, 3]))
    assert any(sp.simplify(e / (gamma**2 - xi**2)).is_polynomial(gamma) for e in elim)
    pos = {r for e in elim for r in sp.solve(e, gamma) if r != 0}
    assert pos == {xi}


def test_input_errors():
    with pytest.raises(InputError):
        DenoisingTask.from_params(dict(FIG2, m2=[0, 3, 1]))
    with pytest.raises(InputError):
        DenoisingTask.from_params(dict(FIG2, xi=0))
    with pytest.raises(InputError):
        DenoisingTask.from_params(dict(FIG2, pi1="1.5"))
    with pytest.raises(InputError):
        DenoisingTask.from_params(dict(FIG2, m1="abc"))


def test_gradient_matches_finite_differences():
    t = fig2()
    Z, W = gh_nodes(t, 8)
    T = bayes_denoiser(t, Z)
    th = np.random.default_rng(3).normal(size=16)
    for kind in ("softmax", "linear"):
        _l, g = heads_loss_grad(t, th, Z, W, T, 2, kind)
        e = 1e-6
        fd = np.array([(heads_loss_grad(t, th + e * v, Z, W, T, 2, kind)[0]
                        - heads_loss_grad(t, th - e * v, Z, W, T, 2, kind)[0]) / (2 * e) for v in np.eye(16)])
        assert np.abs(g - fd).max() <= 1e-6 * max(1, np.abs(g).max())


# --- property tests -----------------------------------------------------------------------------
def _task_from(draw_ints, d, opposite):
    i, j, r, g, x, p, s1, s2, w = draw_ints
    a, b, c = TRIPLES[i]
    a2, b2, c2 = TRIPLES[j]
    m1 = [Fraction(r * s1 * a, c), Fraction(r * b, c)] + ([Fraction(w, 2)] if d == 3 else [])
    m2 = [Fraction(r * s2 * b2, c2), Fraction(-r * a2, c2)] + ([Fraction(w, 2)] if d == 3 else [])
    if opposite or m1 == m2:
        m2 = [-v for v in m1]
    return DenoisingTask(tuple(m1), tuple(m2), Fraction(g, 2), Fraction(x, 2), Fraction(p, 10))


ints = st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(1, 3), st.integers(1, 6), st.integers(1, 6),
                 st.integers(1, 9), st.sampled_from([-1, 1]), st.sampled_from([-1, 1]), st.integers(-3, 3))


@settings(max_examples=30, deadline=None)
@given(ints, st.sampled_from([2, 3]), st.booleans(), st.integers(0, 2**31 - 1))
@example((0, 0, 1, 2, 4, 5, 1, 1, 0), 2, False, 0)
def test_two_heads_equal_bayes_denoiser(draw, d, opposite, seed):
    t = _task_from(draw, d, opposite)
    assert t.equal_norm
    Z = np.random.default_rng(seed).normal(size=(6, d)) * 3
    heads = paper_two_heads(t)
    f = bayes_denoiser(t, Z)
    out = head_outputs(t, heads, Z)
    ref = sum(softmax_attention(t.noisy_mixture(), U, V, Z) for U, V in heads)
    assert np.allclose(out, ref, atol=1e-10)
    assert np.allclose(out, f, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(ints, st.sampled_from([2, 3]), st.integers(0, 2**31 - 1))
def test_residual_architecture_is_task_independent(draw, d, seed):
    t = _task_from(draw, d, False)
    Z = np.random.default_rng(seed).normal(size=(5, d)) * 3
    assert np.allclose(residual_architecture_output(t, Z), bayes_denoiser(t, Z), atol=1e-9)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_best_linear_map_is_minimal(seed):
    t = fig2()
    rng = np.random.default_rng(seed)
    A = best_linear_map(t) + rng.normal(scale=0.3, size=(2, 2))
    base = float(linear_excess_risk_mp(t, 20, n=60, n2=80)[0])
    Z, W = gh_nodes(t, 60)
    gh = float(np.sum(W * ((Z @ A.T - bayes_denoiser(t, Z)) ** 2).sum(1)))
    assert abs(linear_map_excess_risk(t, A, base) - gh) < 1e-8
    assert linear_map_excess_risk(t, A, base) >= base


def test_unequal_norm_breaks_residual_architecture():
    t = DenoisingTask.from_params({"m1": [3, 0], "m2": [0, 5], "gamma": 1, "xi": 2, "pi1": "0.5"})
    Z = np.array([[1.0, 2.0]])
    assert np.abs(residual_architecture_output(t, Z) - bayes_denoiser(t, Z)).max() > 1e-3


# --- claims and negative controls ---------------------------------------------------------------
CLAIMS = ["prop-c.1", "remark-c.2", "eq-11", "thm-4.1", "prop-c.4", "prop-c.5", "prop-c.3", "prop-c.6",
          "lemma-c.7", "prop-4.3", "prop-4.4", "fig-2", "fig-3"]


@pytest.mark.parametrize("cid", CLAIMS)
def test_claim_passes_and_controls_refuted(cid):
    from softmix.checks.runner import run_claim

    r = run_claim(cid, profile="quick", seed=1)
    assert r["verdict"] in ("verified", "confirmed"), r["evidence"]
    assert r["negative_controls"], cid
    for c in r["negative_controls"]:
        assert c["verdict"] == "refuted" and c["refuted"], (cid, c)


def test_assumption_violation_is_inconclusive():
    from softmix.checks.runner import run_claim

    r = run_claim("eq-11", profile="quick", seed=1, overrides={"m2": [0, 4]})
    assert r["verdict"] == "inconclusive" and "assumption_violated" in r["evidence"]["numeric"]["rows"][0]


def test_prop_43_lambda_one_and_weak():
    from softmix.checks.runner import run_claim

    for lam in ("1", "0.8"):
        r = run_claim("prop-4.3", profile="quick", seed=1, overrides={"lam": lam})
        assert r["verdict"] == "confirmed", r["evidence"]


@pytest.mark.parametrize("pi1", ["0", "1", "1.5", "-0.25"])
def test_task_rejects_a_weight_outside_the_open_interval(pi1):
    """pi1 = 1 is a one-component mixture: the denoising task (and eq. (11)'s softmax) needs 0 < pi1 < 1."""
    with pytest.raises(InputError, match="pi1"):
        DenoisingTask.from_params({**FIG2, "pi1": pi1})
    assert DenoisingTask.from_params({**FIG2, "pi1": "0.999"}).pi1 == Fraction(999, 1000)


def test_sgd_curve_records_the_final_step():
    """The tracked curve starts at step 0, follows track_every and always ends at the last step."""
    from softmix.numerics.denoising import sgd_heads

    task = DenoisingTask.from_params({**FIG2, "pi1": "0.3"})
    curve, _theta = sgd_heads(task, 2, 5, 0.01, 10.0, 8, np.random.default_rng(0), 2, n_gh=8)
    assert [t for t, _ in curve] == [0, 2, 4, 5]
    assert all(np.isfinite(r) for _, r in curve)
