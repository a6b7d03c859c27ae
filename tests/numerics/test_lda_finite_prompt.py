"""softmix.numerics.lda_finite_prompt: the finite-prompt LDA predictor, its gradient and the risk estimator."""

import numpy as np
from scipy.special import expit

from softmix.checks.rules import z_critical
from softmix.numerics import lda as N, lda_finite_prompt as F

# d = 1 hand case: m1 = 1, m_-1 = -1, Gamma = 1, pi = 1/2 (s0 = 0);
# theta = (U11, u12, v21, v22) = (1/2, 1/5, 1, 3/10).  Eq. (7):
#   w = U11 Gamma v21 = 1/2, b = v21 m_-1 - v22 = -13/10, r = v21 dm + 2 v22 = 13/5, s = 2 u12 + U11 dm = 7/5
D1 = {"m1": [1], "m_1": [-1], "Gamma": [[1]], "pi_plus": "1/2"}
TH1 = np.array([0.5, 0.2, 1.0, 0.3])


def hand_f(x):
    return 0.5 * x - 1.3 + 2.6 * expit(1.4 * x)


def test_hand_case_matches_eq6():
    P = N.LDAProblem.from_params(D1)
    assert np.allclose(N.phi(P, TH1), [0.5, -1.3, 2.6, 1.4])
    xs = np.array([[-1.0], [0.0], [1.0], [2.5]])
    assert np.allclose(N.f_theta_batch(P, TH1, xs), hand_f(xs[:, 0]), atol=1e-14)
    assert abs(hand_f(1.0) - 1.2856781) < 1e-6


def test_large_prompt_predictor_equals_infinite_prompt_f_theta():
    """f_L(x) -> f_theta(x) (eq. (6)) as L grows: z-test of the mean over R independent prompts
    (SE from the replicates; first-order bias O(1/L) is far below the SE at L = 4000)."""
    P = N.LDAProblem.from_params(D1)
    rng = np.random.default_rng(11)
    xs = np.array([-1.0, 0.0, 1.0])
    R, L = 300, 4000
    z = []
    for x0 in xs:
        TX, TY = F.sample_prompts(P, rng, R, L)
        f = F.predict(P, TH1, np.full((R, 1), x0), TX, TY)
        z.append((f.mean() - hand_f(x0)) / (f.std(ddof=1) / np.sqrt(R)))
    assert np.all(np.abs(z) <= z_critical(len(xs))), z
    # and a short prompt is visibly noisier than a long one (self-normalised IS variance ~ 1/L)
    TX, TY = F.sample_prompts(P, rng, R, 16)
    short = F.predict(P, TH1, np.full((R, 1), 1.0), TX, TY)
    assert short.std() > 5 * f.std()


def test_batched_predictor_agrees_with_generic_attention_and_L1():
    """f_L = last coordinate of sum_i softmax_i(<U z, z_i>) V z_i (numerics.finite_prompt, generic code) with
    U^T = [[U11, u12], [0, 0]] and V's last row (v21^T, v22), query z = (x, 0) (eq. (12) blocks)."""
    from softmix.numerics.finite_prompt import finite_prompt_attention

    P = N.LDAProblem.from_params(N.C1)
    rng = np.random.default_rng(2)
    th = rng.standard_normal(N.theta_size(2))
    TX, TY = F.sample_prompts(P, rng, 1, 30)
    x = rng.standard_normal((5, 2))
    U, u, v, v22 = N.unpack_theta(th, 2)
    UT = np.zeros((3, 3))
    UT[:2, :2], UT[:2, 2] = U, u
    V = np.zeros((3, 3))
    V[2, :2], V[2, 2] = v, v22
    toks = np.hstack([TX[0], TY[0][:, None]])
    a = np.array([finite_prompt_attention(toks, UT.T, V, np.append(xx, 0.0))[2] for xx in x])
    b = F.predict(P, th, x, np.repeat(TX, 5, 0), np.repeat(TY, 5, 0))
    assert np.max(np.abs(a - b)) < 1e-13
    # L = 1: output is the single token's value; the attention (U11, u12) gradient vanishes
    TX, TY = F.sample_prompts(P, rng, 5, 1)
    f, J = F.predict(P, th, x, TX, TY, grad=True)
    U, u, v, v22 = N.unpack_theta(th, 2)
    assert np.allclose(f, TX[:, 0] @ v + v22 * TY[:, 0])
    assert np.all(J[:, :6] == 0)


def test_hand_gradient_matches_finite_differences_and_softmax_is_stable():
    P = N.LDAProblem.from_params(
        {"m1": [1, "0.5", 0], "m_1": [0, 1, 2], "Gamma": [[2, 1, 0], [1, 2, 0], [0, 0, 1]], "pi_plus": "0.3"}
    )
    rng = np.random.default_rng(4)
    th = rng.standard_normal(N.theta_size(3))
    x, y = F.sample_queries(P, rng, 6)
    TX, TY = F.sample_prompts(P, rng, 6, 9)
    _, g = F.loss_grad(P, th, x, y, TX, TY)
    eps = 1e-6
    gn = np.array(
        [
            (F.loss_grad(P, th + eps * e, x, y, TX, TY)[0] - F.loss_grad(P, th - eps * e, x, y, TX, TY)[0]) / (2 * eps)
            for e in np.eye(th.size)
        ]
    )
    assert np.max(np.abs(g - gn)) < 1e-7
    f = F.predict(P, 300 * th, x, TX, TY)  # scores ~ 1e3: log-sum-exp keeps it finite
    assert np.all(np.isfinite(f))


def test_kl_estimator_matches_population_gap_at_large_L():
    """E KL(eta || sigma(f_L)) at large L equals R(theta) - R* (quadrature) within MC error."""
    P = N.LDAProblem.from_params(D1)
    gap, se = F.excess_risk_mc(P, TH1, 2000, 4000, np.random.default_rng(5))
    pop = float(N.risk_theta(P, TH1, 48)) - float(N.bayes_risk(P)[0])
    assert pop > 0.01
    assert abs(gap - pop) <= 4 * se + 1e-3, (gap, se, pop)  # 1e-3 >> O(1/L) finite-prompt excess
    # the KL form equals the label-averaged loss difference pointwise
    t, f = np.array([0.3, -2.0, 4.0]), np.array([1.0, 0.5, -3.0])
    p = expit(t)
    direct = p * (np.logaddexp(0, -f) - np.logaddexp(0, -t)) + (1 - p) * (np.logaddexp(0, f) - np.logaddexp(0, t))
    assert np.allclose(F.kl_bernoulli_logit(t, f), direct) and np.all(F.kl_bernoulli_logit(t, f) >= 0)
