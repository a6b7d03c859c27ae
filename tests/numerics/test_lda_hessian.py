"""numerics.lda_hessian: the Hessian procedures of checks/paper/lda_hessian.py and lda_bayes.py (Lemma B.11,
Lemma B.13, Thm 3.5) against known answers, and each catching a deliberately broken input."""
import mpmath as mpm
import numpy as np

from softmix.numerics import lda as N
from softmix.numerics.lda_hessian import (
    derivatives_vs_finite_differences,
    effective_hessian_kernel,
    effective_risk_bivariate,
    eigenvalues_mp,
    hessian_refined,
    projected_vs_bivariate_law,
    projected_vs_full_rule,
)

ANISO = {"m1": [1, 0], "m_1": [0, 1], "Gamma": [[2, "0.5"], ["0.5", 1]], "pi_plus": "0.3"}


def test_projected_rule_agrees_with_the_tensor_rule_and_catches_a_dropped_complement(monkeypatch):
    P = N.LDAProblem.from_params(ANISO)
    assert projected_vs_full_rule(P, np.random.default_rng(0))["passed"]
    orig = N._basis
    # a basis that drops the second direction: the complement then carries part of the integrand's variation
    monkeypatch.setattr(N, "_basis", lambda vectors, mp: orig(vectors[:1], mp))
    assert not projected_vs_full_rule(P, np.random.default_rng(0))["passed"]


def test_projected_rule_check_covers_the_k0_point_w_s_zero(monkeypatch):
    """The check's third point is w = s = 0 (k = 0: the projected rule reduces to its complement terms): an error
    of the projected rule only there (R~ off by 1e-6 when w = s = 0) must make the check fail."""
    P = N.LDAProblem.from_params(ANISO)
    orig = N.eff_risk

    def wrong_at_k0(prob, z, order=0, n=48, dps=None, full_basis=False):
        R, *rest = orig(prob, z, order, n, dps, full_basis)
        d = prob.d
        if not full_basis and not np.any(np.asarray(z)[:d]) and not np.any(np.asarray(z)[d + 2:]):
            R = R + 1e-6
        return (R, *rest)

    monkeypatch.setattr(N, "eff_risk", wrong_at_k0)
    rows = projected_vs_full_rule(P, np.random.default_rng(0))["points"]
    assert [r["passed"] for r in rows] == [True, True, False]


def test_derivatives_agree_with_finite_differences_and_a_perturbed_hessian_does_not(monkeypatch):
    P = N.LDAProblem.from_params({"m1": [1], "m_1": ["-0.5"], "Gamma": [[2]], "pi_plus": "0.3"})
    theta = [mpm.mpf(k) / 8 for k in (3, -2, 5, 1)]
    rg, rH, sc = derivatives_vs_finite_differences(P, theta, 20, 8)
    assert rg < mpm.mpf(10) ** -14 * sc and rH < mpm.mpf(10) ** -14 * sc
    orig = N.hess_theta
    def perturbed(*a, **k):
        R, g, H = orig(*a, **k)
        return R, g, H * (1 + mpm.mpf(10) ** -6)

    monkeypatch.setattr(N, "hess_theta", perturbed)
    assert derivatives_vs_finite_differences(P, theta, 20, 8)[1] > mpm.mpf(10) ** -9 * sc


def test_hessian_refined_is_symmetric_and_matches_a_fine_rule():
    P = N.LDAProblem.from_params(ANISO)
    th = N.construct_theta1(P)
    H, gnorm, qerr, n = hessian_refined(P, th, 40, 100)
    assert np.array_equal(H, H.T) and n > 40 and gnorm < 1e-6
    H_fine = N.hess_theta(P, th, 160, None, True)[2]
    assert np.max(np.abs(H - H_fine)) <= 10 * qerr + 1e-12


def test_effective_hessian_kernel_at_bayes_points_of_c1():
    """Lemma B.13 on C1 (d = 2): nullity d with s* != 0, d + 1 with s* = 0 (the r-feature is constant)."""
    P = N.LDAProblem.from_params(N.C1)
    with_s = effective_hessian_kernel(P, N.bayes_zeta(P, s=np.array([0.5, -1.0])), 48, 162)
    without = effective_hessian_kernel(P, N.bayes_zeta(P), 48, 162)
    assert with_s["resolved"] and with_s["nullity"] == 2
    assert without["resolved"] and without["nullity"] == 3 and without["smallest_nonzero_eigenvalue"] > 0


def test_eigenvalues_mp_sorted_by_modulus():
    H = np.array([[2, 0, 0], [0, -0.5, 0], [0, 0, 1e-3]], dtype=object)
    eigs = eigenvalues_mp(H, 30)
    assert [float(e) for e in eigs] == [1e-3, -0.5, 2.0]


def test_projected_rule_tolerance_has_its_floor_of_1e3_eps_at_small_scales():
    """lda_hessian.py:57 (a survivor of the library run on 86ed141): the tolerance is 10 (rule differences) +
    1e3 eps max(1, scale), so never below 1e3 eps, also where the risk and its derivatives are all below 1 (small
    means and covariance) -- there a floor of max(0.5, scale) would halve it."""
    P = N.LDAProblem.from_params({"m1": ["0.2"], "m_1": ["-0.1"], "Gamma": [["0.1"]], "pi_plus": "0.3"})
    rows = projected_vs_full_rule(P, np.random.default_rng(0))["points"]
    eps = np.finfo(float).eps
    assert all(1e3 * eps <= r["tolerance"] < 1e3 * eps + 1e-13 for r in rows), rows


D3 = {"m1": [1, 0, "0.5"], "m_1": [0, 1, "-0.25"], "pi_plus": "0.3",
      "Gamma": [[2, "0.5", "0.3"], ["0.5", 1, "0.2"], ["0.3", "0.2", "1.5"]]}


def test_bivariate_risk_has_its_known_answers():
    """w = s = 0: g is the constant b + r sigmoid(s0), so R~ = pi softplus(-g) + (1 - pi) softplus(g), by hand;
    r = 0, s = 0 in d = 1: E softplus(-c (w x + b)) for x ~ N(m_c, G), by mpmath.quad."""
    P = N.LDAProblem.from_params(D3)
    b, r = 0.4, -1.3
    s0 = np.log(0.3 / 0.7)
    g = b + r / (1 + np.exp(-s0))
    want = 0.3 * np.logaddexp(0, -g) + 0.7 * np.logaddexp(0, g)
    assert abs(effective_risk_bivariate(P, [0, 0, 0, b, r, 0, 0, 0]) - want) < 1e-14
    P1 = N.LDAProblem.from_params({"m1": ["0.7"], "m_1": ["-0.2"], "Gamma": [[2]], "pi_plus": "0.3"})
    w, b = 0.9, -0.35

    def part(c, m):
        f = lambda x: mpm.log1p(mpm.exp(-c * (w * x + b))) * mpm.npdf(x, m, mpm.sqrt(2))
        return mpm.quad(f, [-mpm.inf, m, mpm.inf])

    ref = float(0.3 * part(1, 0.7) + 0.7 * part(-1, -0.2))
    assert abs(effective_risk_bivariate(P1, [w, b, 0, 0]) - ref) < 1e-13


def test_projected_rule_agrees_with_the_bivariate_law_in_3d_and_catches_a_wrong_basis(monkeypatch):
    """In d = 3 the projected basis span{L^T w, L^T s} is a plane: a basis built from L w instead of L^T w
    (Gamma's factor not transposed) misses part of w^T x's variance, and the check must fail."""
    P = N.LDAProblem.from_params(D3)
    assert projected_vs_bivariate_law(P, np.random.default_rng(0))["passed"]
    orig, L = N._basis, np.linalg.cholesky(np.array([[float(x) for x in r] for r in P.Gamma]))

    def untransposed(vectors, mp):
        if len(vectors) == 2 and not mp:  # eff_risk's call: [L^T w, L^T s] -> [L w, L^T s]
            w = np.linalg.solve(L.T, np.asarray(vectors[0], float))
            vectors = [L @ w, vectors[1]]
        return orig(vectors, mp)

    monkeypatch.setattr(N, "_basis", untransposed)
    assert not projected_vs_bivariate_law(P, np.random.default_rng(0))["passed"]
