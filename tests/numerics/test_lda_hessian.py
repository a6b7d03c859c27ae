"""numerics.lda_hessian: the Hessian procedures of checks/paper/lda_hessian.py and lda_bayes.py (Lemma B.11,
Lemma B.13, Thm 3.5) against known answers, and each catching a deliberately broken input."""
import mpmath as mpm
import numpy as np

from softmix.numerics import lda as N
from softmix.numerics.lda_hessian import (
    derivatives_vs_finite_differences,
    effective_hessian_kernel,
    eigenvalues_mp,
    hessian_refined,
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
