"""softmix.numerics.lda_dynamics: Krylov spaces, the fast gradient and SGD, the balance, rate fits (Sec. 3.3)."""

import mpmath as mpm
import numpy as np
import sympy as sp
from hypothesis import given, settings, strategies as st

from softmix.numerics import lda as N, lda_dynamics as D


def test_krylov_rank_pinned_by_hand():
    # Gamma = diag(1,2,3), m = (1,1,0): m, Gm = (1,2,0), G^2 m = (1,4,0) -> K = span(e1, e2)
    G, m = sp.diag(1, 2, 3), sp.Matrix([1, 1, 0])
    assert D.krylov_matrix(G, m) == sp.Matrix([[1, 1, 1], [1, 2, 4], [0, 0, 0]])
    P, k = D.krylov_projector(G, m)
    assert k == 2 and P == sp.diag(1, 1, 0)
    # isotropic Gamma: K = span(m)
    P, k = D.krylov_projector(sp.eye(3) * 2, sp.Matrix([1, 2, 2]))
    assert k == 1 and P == sp.Matrix([1, 2, 2]) * sp.Matrix([[1, 2, 2]]) / 9


def test_cayley_is_rational_orthogonal():
    A = sp.Matrix([[0, 1, -2], [-1, 0, sp.Rational(1, 2)], [2, -sp.Rational(1, 2), 0]])
    Q = D.cayley_orthogonal(A)
    assert sp.simplify(Q * Q.T - sp.eye(3)) == sp.zeros(3)
    assert all(x.is_rational for x in Q)


def test_fast_gradient_and_sgd_match_reference_implementations():
    P = N.LDAProblem.from_params(
        {"m1": [1, "0.5", 0], "m_1": [0, 1, 2], "Gamma": [[2, 1, 0], [1, 2, 0], [0, 0, 1]], "pi_plus": "0.3"}
    )
    th = np.random.default_rng(0).standard_normal(N.theta_size(3))
    assert np.max(np.abs(N.grad_theta(P, th, 20)[1] - D.grad_theta_fast(P, th, 20)[1])) < 1e-14
    a = N.grad_theta(P, th, 8, 30)[1]
    b = D.grad_theta_fast(P, th, 8, 30)[1]
    assert max(abs(x - y) for x, y in zip(a, b)) < mpm.mpf(10) ** -25
    P2 = N.LDAProblem.from_params(N.C2)
    th0 = np.random.default_rng(1).standard_normal(N.theta_size(20))
    x1, _ = N.sgd_attention(P2, th0, 1e-2, 20, 8, np.random.default_rng(5), 20, n=8)
    x2, _ = D.sgd_fast(P2, th0, 1e-2, 20, 8, np.random.default_rng(5), 20, n=8)
    assert np.max(np.abs(x1 - x2)) < 1e-12


def test_balance_derivative_vanishes_on_T_K_high_precision():
    """d/dt (||U||^2 - ||v||^2) = -2 <U, grad_U> + 2 <v, grad_v> = 0 on T_K (30 digits)."""
    P = N.LDAProblem.from_params(
        {"m1": [1, 1, 0], "m_1": [-1, -1, 0], "Gamma": [[1, 0, 0], [0, 2, 0], [0, 0, 3]], "pi_plus": "0.5"}
    )
    PK, _ = D.krylov_projector(D.sym_mat(P.Gamma), D.sym_vec(P.m1))
    th = D.to_theta(D.random_tk_point(np.random.default_rng(2), PK, 3), 30)
    with mpm.workdps(30):
        g = D.grad_theta_fast(P, th, 8, 30)[1]
        U, _, v, _ = N.unpack_theta(th, 3)
        gU, _, gv, _ = N.unpack_theta(g, 3)
        dF = -2 * np.sum(U * gU) + 2 * (v @ gv)
        dS = -2 * np.sum(U * gU) - 2 * (v @ gv)
        assert abs(dF) < mpm.mpf(10) ** -25 * (1 + abs(dS))
        assert abs(dS) > mpm.mpf(10) ** -3  # the sum is not conserved


def test_fit_exp_rate_recovers_known_rate():
    t = np.linspace(0, 10, 50)
    f = D.fit_exp_rate(t, 3 * np.exp(-0.7 * t) * (1 + 1e-3 * np.sin(7 * t)))
    assert f["ci"][0] < 0.7 < f["ci"][1] and abs(f["rate"] - 0.7) < 1e-3


_diag = st.lists(st.integers(1, 4), min_size=2, max_size=3)


@settings(max_examples=15, deadline=None)
@given(lam=_diag, c=st.lists(st.integers(-2, 2), min_size=3, max_size=3), seed=st.integers(0, 10**6))
def test_krylov_criterion_and_invariance_small_rational(lam, c, seed):
    """Prop. B.35 on diagonal rational Gamma (repeated eigenvalues allowed), and Lemma B.37 at a
    random rational point of T_K: the float64 gradient has no component outside T_K."""
    d = len(lam)
    c = c[:d]
    if all(x == 0 for x in c):
        return
    G, m = sp.diag(*lam), sp.Matrix(c)
    rank = D.krylov_matrix(G, m).rank()
    distinct = len(set(lam)) == d
    touches = [any(c[i] != 0 for i in range(d) if lam[i] == l) for l in set(lam)]
    assert (rank == d) == (distinct and all(touches))
    assert rank == sum(touches)
    PK, k = D.krylov_projector(G, m)
    if k == d:
        return
    cfg = {
        "m1": c,
        "m_1": [-x for x in c],
        "Gamma": [[lam[i] if i == j else 0 for j in range(d)] for i in range(d)],
        "pi_plus": "0.5",
    }
    P = N.LDAProblem.from_params(cfg)
    th = D.to_theta(D.random_tk_point(np.random.default_rng(seed), PK, d))
    g = D.grad_theta_fast(P, th, 12)[1]
    _, out = D.tk_parts(g, d, D.projector_numeric(PK))
    assert out <= 1e-13 * (1 + np.linalg.norm(g))
