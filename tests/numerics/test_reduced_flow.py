"""The reduced linear logistic risk of App. B.9-B.12 and its factorised flow (numerics.reduced_flow)."""
import numpy as np

from softmix.numerics.reduced_flow import LinearLogistic, gaussian_positive_part, reduced_flow


def _problem(seed=3):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    G = Q @ np.diag(rng.uniform(0.5, 2, 3)) @ Q.T
    return LinearLogistic(0.7 * Q[:, 0] - 0.4 * Q[:, 1], G), Q, rng


def test_gradient_and_hessian_match_finite_differences_and_vanish_at_w_star():
    L, _, rng = _problem()
    w, e, I = rng.normal(size=3), 1e-6, np.eye(3)
    fd = np.array([(L.value(w + e * I[i]) - L.value(w - e * I[i])) / (2 * e) for i in range(3)])
    assert np.allclose(L.grad(w), fd, atol=1e-8)
    fdh = np.array([(L.grad(w + e * I[i]) - L.grad(w - e * I[i])) / (2 * e) for i in range(3)])
    assert np.allclose(L.hess(w), fdh, atol=1e-7)
    assert np.linalg.norm(L.grad(L.w_star())) < 1e-10
    assert abs(L.value(np.zeros(3)) - np.log(2)) < 1e-14 and np.allclose(L.grad(np.zeros(3)), -L.m / 2)


def test_positive_part_of_a_standard_normal():
    assert abs(gaussian_positive_part(0.0, 1.0) - 1 / np.sqrt(2 * np.pi)) < 1e-15


def test_flow_conserves_the_balance_and_reaches_w_star():
    L, Q, _ = _problem()
    tr = reduced_flow(L, np.zeros((3, 3)), 0.9 * Q[:, 2], 60.0, k=50)
    bal = np.einsum("kij,kij->k", tr.U, tr.U) - np.einsum("ki,ki->k", tr.v, tr.v)
    assert np.max(np.abs(bal - bal[0])) < 1e-8 and abs(bal[0] + 0.81) < 1e-12
    assert np.linalg.norm(tr.w[-1] - L.w_star()) < 1e-3


def test_at_w_zero_the_score_is_constant_and_the_hessian_is_a_quarter_of_the_second_moment():
    """w = 0: Z = 0, sigma'(0) = 1/4, so grad = -m / 2 and hess = (Gamma + m m^T) / 4, the known answer of the
    degenerate branch (s2 = 0), which the drawn w never reach (kills numerics/reduced_flow.py:68 of the library
    run on acffd0d, the m m^T term dropped)."""
    L, _, _ = _problem()
    assert abs(L.value(np.zeros(3)) - np.log(2.0)) < 1e-15
    assert np.allclose(L.grad(np.zeros(3)), -L.m / 2, atol=1e-15)
    assert np.allclose(L.hess(np.zeros(3)), (L.Gamma + np.outer(L.m, L.m)) / 4, atol=1e-15)
