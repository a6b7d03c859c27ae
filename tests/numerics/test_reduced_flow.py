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
