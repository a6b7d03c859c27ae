"""numerics.beyond and theory.beyond: pinned hand-computed values, properties, and the references of the
'beyond' claims (fp-query-averaged-rate, bb-prop-3.1, bb-thm-5.1, smart-2025-mixture, zfb-linear-flow)."""
import math

import mpmath as mpm
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from softmix.numerics import beyond as NB
from softmix.numerics.finite_prompt import finite_prompt_constants, simulate_outputs
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.precision import exact_floats
from softmix.theory import beyond as TB


# ---- pinned hand-computed values -----------------------------------------------------------------
def test_averaged_constant_1d_by_hand():
    # g = s = v = 1, u^2 = 1/4: lambda = 1/4, K = (1/2)^(-1/2) (1 + (1/4)/(1/2)) = 1.5 sqrt(2)
    out = NB.gaussian_averaged_constant([[1.0]], [[1.0]], [[0.5]], [[1.0]])
    assert out["lambda_max"] == pytest.approx(0.25)
    assert out["K"] == pytest.approx(1.5 * math.sqrt(2), rel=1e-14)
    assert not NB.gaussian_averaged_constant([[1.0]], [[1.0]], [[1.0]], [[1.0]])["finite"]  # lambda = 1


def test_symbolic_gaussian_integrals_and_l1():
    assert TB.gauss_exp_quadratic_1d_derivation().holds()
    assert TB.query_averaged_constant_1d_derivation().holds()
    assert TB.l1_bound_value() == 0  # ln 1 = 0: the boundary slip
    assert TB.l1_error_derivation(2).holds()
    # D = 2, sigma = 1, U = 0, V = I: the L = 1 error is exactly 2 while the literal bound is 0
    sig = sp.Symbol("sigma", positive=True)
    d = TB.l1_error_derivation(2)
    pt = {s: 0 for s in d.stated.free_symbols if s.name.startswith("U")}
    pt.update({s: (1 if s.name in ("V_11", "V_22") else 0) for s in d.stated.free_symbols if s.name.startswith("V")})
    pt[sig] = 1
    assert d.stated.subs(pt) == 2


def test_regression_limit_by_hand():
    A, b = NB.stated_limit(np.eye(2))  # tr(Sigma^-2) = 2
    assert b == pytest.approx(2 ** 0.25)
    assert np.allclose(A, 2 ** -0.25 * np.eye(2))
    assert NB.regression_risk(A, b, np.eye(2)) == pytest.approx(0.0, abs=1e-15)
    assert TB.conservation_derivation(2).holds()
    assert TB.balanced_limit_derivation(sp.Matrix([[2, 1], [1, 3]])).holds()
    st_, _ = TB.balanced_limit_derivation(sp.Matrix([[2]]), sp.Rational(1, 3)).decide()
    assert st_ == "refuted"


def test_zfb_by_hand():
    # Lambda = I_2, N = 2: Gamma = 1.5 I + I = 2.5 I; min loss = 1/2 (2 - 2/2.5) = 0.6
    G = NB.zfb_gamma(np.eye(2), 2)
    assert np.allclose(G, 2.5 * np.eye(2))
    assert NB.zfb_loss_closed_form(np.eye(2), 2, np.linalg.inv(G)) == pytest.approx(0.6, rel=1e-14)
    assert TB.zfb_moment_derivation(2).holds()


def test_denoising_counterexample_by_hand():
    # D = 1, centres 0 and 1 (unequal norms), pi = 1/2, sigma^2 = 1, z = 0
    pm = NB.posterior_mean(np.array([[0.0], [1.0]]), np.array([0.5, 0.5]), np.array([[0.0]]), 1.0)[0, 0]
    assert pm == pytest.approx(math.exp(-0.5) / (1 + math.exp(-0.5)), rel=1e-14)  # 0.37754...
    out = NB.atomic_prompt_outputs(np.array([[0.0], [1.0]]), [0.5, 0.5], np.array([0.0]), np.eye(1), 10**6, 1,
                                   np.random.default_rng(0))
    assert abs(out[0, 0] - 0.5) < 5e-3  # attention gives 1/2, not the posterior mean


# ---- properties (integer seeds) ------------------------------------------------------------------
@given(st.integers(0, 2**31 - 1))
@settings(max_examples=8, deadline=None)
def test_closed_form_constant_matches_quadrature_and_per_query(seed):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((2, 2))
    Gam = F @ F.T + 0.2 * np.eye(2)
    H = rng.standard_normal((2, 2))
    Sig = H @ H.T + 0.2 * np.eye(2)
    U0 = rng.standard_normal((2, 2))
    V = rng.standard_normal((2, 2))
    mix = GaussianMixture.from_values([1], [[0, 0]], [Gam.tolist()])
    lam = 0.05 + 0.2 * rng.random()
    U = U0 * math.sqrt(lam / NB.threshold_lambda(mix, Sig, U0))
    cf = NB.gaussian_averaged_constant(Gam, Sig, U, V)
    assert cf["lambda_max"] == pytest.approx(lam, rel=1e-9)
    q = NB.averaged_constant(mix, Sig, U, V, n=40)
    assert q["method"] == "quadrature" and q["value"] == pytest.approx(cf["K"], rel=1e-8)
    assert q["error_estimate"] < 1e-8 * cf["K"]
    with mpm.workdps(40):
        Kmp = NB.gaussian_averaged_constant_mp(*exact_floats([Gam, NB.sym_sqrt(Sig), U, V]))
    assert float(Kmp) == pytest.approx(cf["K"], rel=1e-10)
    Z = rng.standard_normal((3, 2))
    per = NB.per_query_mse_constants(mix, U, V, Z)
    ref = [finite_prompt_constants(mix, U, V, z)["mse"] for z in Z]
    assert np.allclose(per, ref, rtol=1e-10)


@given(st.integers(0, 2**31 - 1))
@settings(max_examples=5, deadline=None)
def test_flow_conserves_and_reaches_stated_limit(seed):
    rng = np.random.default_rng(seed)
    th = rng.uniform(0, np.pi)
    Q = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    Sig = Q @ np.diag(rng.uniform(0.5, 2.0, 2)) @ Q.T  # well conditioned: the flow is not stiff
    amax = math.sqrt(2) / (2 ** 0.25 * np.linalg.norm(Sig, 2))
    A0, b0 = NB.balanced_init((0.2 + 0.7 * rng.random()) * amax, 2)
    A, b, _ = NB.flow_float(A0, b0, Sig, 300.0)
    As, bs = NB.stated_limit(Sig)
    assert abs(np.sum(A**2) - b**2) < 1e-8
    assert np.max(np.abs(A - As)) < 1e-6 and abs(b - bs) < 1e-6


def test_query_vectorised_sampler_matches_simulate_outputs():
    mix = GaussianMixture.from_values(["0.4", "0.6"], [[1, 0], [0, 1]], [[[1, 0.2], [0.2, 0.5]], [[0.3, 0], [0, 0.3]]])
    U, V, z, L = 0.5 * np.eye(2), np.eye(2), np.array([0.7, -0.4]), 64
    from softmix.numerics.attention import softmax_attention
    lim = softmax_attention(mix, U, V, z[None])[0]
    a = NB.simulate_query_errors(mix, U, V, np.tile(z, (20000, 1)), L, np.random.default_rng(1))
    b = ((simulate_outputs(mix, U, V, z, L, 20000, np.random.default_rng(2)) - lim) ** 2).sum(1)
    se = math.sqrt(a.var() / a.size + b.var() / b.size)
    assert abs(a.mean() - b.mean()) < 4 * se


def test_zfb_conditional_losses_estimate_the_plain_squared_error():
    """The loss given the prompt (w and x_q integrated exactly) has the same mean as the plain squared
    error simulated with w and x_q drawn: both against each other and against the closed form, at a
    non-optimal non-symmetric A."""
    Lam = np.array([[1.2, 0.3, 0.12], [0.3, 1.01, 0.48], [0.12, 0.48, 1.2]])
    A = np.array([[0.7, 0.1, 0.0], [-0.2, 0.9, 0.3], [0.05, 0.0, 0.6]])
    rng = np.random.default_rng(3)
    rb = NB.zfb_sample_losses(Lam, 4, A, 200000, rng)
    R = np.linalg.cholesky(Lam)
    n = 400000
    w, x, xq = rng.standard_normal((n, 3)), rng.standard_normal((n, 4, 3)) @ R.T, rng.standard_normal((n, 3)) @ R.T
    h = np.einsum("ni,nid->nd", np.einsum("nid,nd->ni", x, w), x) / 4
    plain = 0.5 * (np.einsum("nd,nd->n", xq, h @ A.T) - np.einsum("nd,nd->n", xq, w)) ** 2
    exact = NB.zfb_loss_closed_form(Lam, 4, A)
    se_rb, se_plain = rb.std() / np.sqrt(len(rb)), plain.std() / np.sqrt(n)
    assert abs(rb.mean() - exact) < 5 * se_rb
    assert abs(plain.mean() - rb.mean()) < 5 * np.hypot(se_rb, se_plain)
    assert se_rb < se_plain


# ---- the references of the claims -----------------------------------------------------------------
def _rate_default():
    G = np.array([[1, 0.3], [0.3, 0.6]])
    S = np.array([[1, -0.2], [-0.2, 0.8]])
    U0 = np.array([[1, 0.4], [0, 0.8]])
    return G, S, U0, GaussianMixture.from_values([1], [["0", "0"]], [[["1", "0.3"], ["0.3", "0.6"]]])


def test_scale_to_lambda_and_lambda_by_eigenvalues_agree_without_a_square_root():
    G, S, U0, mix = _rate_default()
    Ub = NB.scale_to_lambda(mix, S, U0, 0.15)
    assert NB.threshold_lambda(mix, S, Ub) == pytest.approx(0.15, rel=1e-12)
    assert NB.lambda_by_eigenvalues(Ub, [G], S) == pytest.approx(0.15, rel=1e-9)
    assert NB.lambda_by_eigenvalues(1.01 * Ub, [G], S) == pytest.approx(0.15 * 1.0201, rel=1e-9)
    # a wrong square root of Sigma_nu (Sigma itself) moves lambda: the eigenvalues of U^T G U Sigma see it
    lam_wrong = float(np.linalg.eigvalsh(S @ U0.T @ G @ U0 @ S)[-1])
    assert abs(NB.lambda_by_eigenvalues(U0 * math.sqrt(0.15 / lam_wrong), [G], S) - 0.15) > 1e-3


def test_importance_sampling_branch_pinned():
    G, S, U0, mix = _rate_default()
    Ub = NB.scale_to_lambda(mix, S, U0, 0.15)
    K = NB.gaussian_averaged_constant(G, S, Ub, np.eye(2))["K"]
    mc = NB.averaged_constant(mix, S, Ub, np.eye(2), max_points=0, mc_samples=100000, rng=np.random.default_rng(3))
    assert mc["method"] == "monte-carlo" and abs(mc["value"] - K) < 5 * mc["standard_error"]
    assert abs(K - 2.2950945175170547) < 1e-12
    Ua = NB.scale_to_lambda(mix, S, U0, 1.0)
    assert NB.averaged_constant(mix, S, Ua, np.eye(2), max_points=0)["value"] == float("inf")


def test_query_averaged_mse_estimates_the_closed_form_constant():
    """L * MSE at a long prompt against K (lambda = 0.15, importance-sampled queries), and the rows' fields."""
    G, S, U0, mix = _rate_default()
    Ub = NB.scale_to_lambda(mix, S, U0, 0.15)
    K = NB.gaussian_averaged_constant(G, S, Ub, np.eye(2))["K"]
    rows = NB.query_averaged_mse(mix, S, Ub, np.eye(2), [400, 1600], 3000, np.random.default_rng(4), lam=0.15)
    assert [r["L"] for r in rows] == [400, 1600] and rows[0]["query_proposal_scale"] > 1
    r = rows[-1]
    assert r["L_mse"] == pytest.approx(1600 * r["mse"]) and r["L_mse_se"] == pytest.approx(1600 * r["mse_se"])
    assert abs(r["L_mse"] - K) < 5 * r["L_mse_se"] + 0.05 * K  # the O(1/L) remainder
    plain = NB.query_averaged_mse(mix, S, Ub, np.eye(2), [400], 100, np.random.default_rng(4))
    assert plain[0]["query_proposal_scale"] == 1.0


def test_the_control_constant_drops_the_mean_shift_term():
    """The control's per-query constant drops PSD outer products: strictly smaller at queries with U z != 0
    (Gaussian and mixture tokens), equal at z = 0 for zero-mean Gaussian tokens (no shift there)."""
    _G, S, U0, mix = _rate_default()
    Z = np.random.default_rng(1).standard_normal((4, 2))
    V = np.array([[1.0, 0.2], [0.0, 0.9]])
    mmix = GaussianMixture.from_values(["0.3", "0.7"], [["1", "0"], ["-0.5", "0.5"]],
                                       [[["1", "0.3"], ["0.3", "0.6"]], [["0.5", "0"], ["0", "0.3"]]])
    for m in (mix, mmix):
        assert np.all(NB.mse_constants_without_mean_shift(m, U0, V, Z) < NB.per_query_mse_constants(m, U0, V, Z))
    zero = np.zeros((1, 2))
    assert np.allclose(NB.mse_constants_without_mean_shift(mix, U0, V, zero),
                       NB.per_query_mse_constants(mix, U0, V, zero))


def test_regression_risk_mp_and_zfb_flow_limit():
    Sig = np.array([[1.0, 0.25], [0.25, 0.5]])
    A, b = NB.stated_limit(Sig)
    with mpm.workdps(30):
        assert abs(NB.regression_risk_mp(mpm.matrix(A.tolist()), mpm.mpf(b), Sig, 30)) < 1e-14
        A1 = mpm.matrix([[0.5, 0.1], [-0.2, 0.3]])
        assert float(NB.regression_risk_mp(A1, mpm.mpf("0.7"), Sig, 30)) == pytest.approx(
            NB.regression_risk(np.array(A1.tolist(), float), 0.7, Sig), rel=1e-13)
    Lam = np.array([[1, 0.3, 0], [0.3, 0.7, 0.1], [0, 0.1, 0.4]])
    for N in (3, 10):
        assert np.allclose(NB.zfb_flow_limit(Lam, N, 4000.0), np.linalg.inv(NB.zfb_gamma(Lam, N)), atol=1e-8)


def test_posterior_mean_values_pinned():
    """D = 1, centres 0 and 1, pi = 1/2, sigma^2 = 1, z = 0: E[X | z] = e^(-1/2) / (1 + e^(-1/2))."""
    ref = TB.posterior_mean_values(np.array([[0.0], [1.0]]), np.array([0.5, 0.5]), np.array([[0.0]]), "1")
    assert abs(ref[0][0] - math.exp(-0.5) / (1 + math.exp(-0.5))) < 1e-15
    assert abs(NB.posterior_mean(np.array([[0.0], [1.0]]), np.array([0.5, 0.5]), np.array([[0.0]]), 1.0)[0, 0]
               - ref[0][0]) < 1e-15


def test_the_trained_regression_head_reports_the_mean_and_standard_error_of_its_fresh_test_losses():
    """train_finite_prompt_regression: the test risk and its standard error are the sample mean and the sample
    standard error sqrt(sum (l - mean)^2 / (n - 1) / n) of the losses 1/2 (b T_L - x_q)^2 of the returned (a, b) on
    the n test prompts drawn after the training ones (replayed here from the same seed)."""
    L, s2, n_train, n_test = 4, 1.3, 64, 5
    r = NB.train_finite_prompt_regression(L, s2, n_train, n_test, np.random.default_rng(5))
    rng, sd = np.random.default_rng(5), np.sqrt(s2)
    rng.standard_normal((n_train, L)), rng.standard_normal(n_train)
    xt, xqt = sd * rng.standard_normal((n_test, L)), sd * rng.standard_normal(n_test)
    losses = [0.5 * (r["b"] * NB.regression_finite_prompt_outputs(r["a"], xt[i:i + 1], xqt[i:i + 1])[0] - xqt[i]) ** 2
              for i in range(n_test)]
    mean = sum(losses) / n_test
    se = (sum((x - mean) ** 2 for x in losses) / (n_test - 1) / n_test) ** 0.5
    assert r["test_risk"] == pytest.approx(mean, rel=1e-12) and r["test_risk_se"] == pytest.approx(se, rel=1e-12)
    assert r["L"] == L and r["b_a_Sigma"] == pytest.approx(r["a"] * r["b"] * s2, rel=1e-15)


def test_the_monte_carlo_average_reports_the_sample_mean_and_its_sample_standard_error():
    """averaged_constant's Monte Carlo branch (forced by max_points=1): at U = 0 the threshold lambda is 0, so
    tau^2 = 1 and every importance weight is 1; the value and standard error are then the sample mean and the
    sample standard error sqrt(sum (v - mean)^2 / (n - 1) / n) of fn at z = S xi, xi ~ N(0, I) drawn from the
    given generator (replayed here)."""
    mix = GaussianMixture.from_values(["1"], [["0.2", "-0.1"]], [[["1", "0.3"], ["0.3", "0.8"]]])
    Sigma, U, V = [[2.0, 0.0], [0.0, 0.5]], [[0.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]]
    fn = lambda Z: Z[:, 0] ** 2 + Z[:, 1]  # noqa: E731
    n = 7
    out = NB.averaged_constant(mix, Sigma, U, V, max_points=1, mc_samples=n, rng=np.random.default_rng(11), fn=fn)
    assert out["method"] == "monte-carlo" and out["tau2"] == 1.0 and out["samples"] == n
    xi = np.random.default_rng(11).standard_normal((n, 2))
    vals = fn(xi @ np.diag([math.sqrt(2.0), math.sqrt(0.5)]))
    mean = float(vals.sum() / n)
    se = math.sqrt(float(((vals - mean) ** 2).sum()) / (n - 1) / n)
    assert out["value"] == pytest.approx(mean, rel=1e-12) and out["standard_error"] == pytest.approx(se, rel=1e-12)
