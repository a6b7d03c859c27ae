"""softmix.numerics.lda_critical: the searches, curvatures and kernels of the critical-point claims,
each on a case with a known answer."""

import mpmath as mpm
import numpy as np
import pytest

from softmix.numerics import lda as N, lda_critical as LC, lda_landscape as LL

CFG_WITNESS = {"m1": [1, 0], "m_1": [0, 2], "Gamma": [[1, 0], [0, 1]], "pi_plus": "0.6"}


def test_fd_hessian_and_gaussian_well():
    A, rho = 0.2, 0.3
    z = np.array([0.1, -0.2, 0.05])
    v, g, H = LC.gaussian_well(z, A, rho)
    assert v == pytest.approx(-A * np.exp(-(z @ z) / (2 * rho**2)))
    Hfd = LC.fd_hessian(lambda x: LC.gaussian_well(x, A, rho)[:2], z, 1e-6)
    assert np.max(np.abs(H - Hfd)) < 1e-6
    h = 1e-6
    gfd = [
        (LC.gaussian_well(z + h * e, A, rho)[0] - LC.gaussian_well(z - h * e, A, rho)[0]) / (2 * h) for e in np.eye(3)
    ]
    assert np.allclose(g, gfd, atol=1e-8)


def test_hessian_kernel_counts_zero_eigenvalues():
    with mpm.workdps(30):
        H = np.array([[mpm.mpf(2), 0, 0], [0, mpm.mpf("1e-25"), 0], [0, 0, mpm.mpf(0)]], dtype=object)
        nul, tol, rest, ev = LC.hessian_kernel(H, 30, mpm.mpf(0), 2)
    assert nul == 2 and len(rest) == 1 and abs(rest[0] - 2) < 1e-20 and tol < 1e-20


def test_adaptive_hessian_doubles_until_the_rules_agree():
    calls = []

    def hess(n):
        calls.append(n)
        return np.array([[mpm.mpf(1) + mpm.mpf(2) ** -n]], dtype=object)

    _H, _H2, qerr, _scale, n = LC.adaptive_hessian(hess, 8, 1000)
    assert qerr <= mpm.mpf("1e-12") and n >= 40 and calls[0] == 8


def test_square_loss_gap_positive_outside_the_class_and_zero_inside():
    rng = np.random.default_rng(0)
    out = LC.square_loss_gap(N.LDAProblem.from_params(CFG_WITNESS), "2eta-1", 32, rng, 1)
    assert out["gap"] > out["threshold"]
    inside = LC.square_loss_gap(N.LDAProblem.from_params(N.C1), "2eta-1", 32, rng, 0)  # q = 0 for C1
    assert inside["gap"] <= inside["threshold"]


def test_curvature_along_matches_lemma_b22_slope():
    """At a critical point on {v21 = 0} of C1, q(t) is affine in t with Lemma B.22's slope."""
    P = N.LDAProblem.from_params(N.C1)
    y = np.array([3.07216696, 0.73913927, -0.80403316])
    y, _ = LL.newton_polish(lambda q: LL.restricted_risk(P, q, 2)[1:], y)
    th, gw, _ = LL.complete_v21zero_critical(P, y)
    ts, q, err, slope, _H, _qerr, _n = LC.curvature_along(P, th, gw, 32, 64, [0, 1, 4, 16])
    fit = np.polyfit(ts, q, 2)
    assert abs(fit[1] - slope) <= 1e-3 * abs(slope) and slope < 0 and abs(fit[0]) < 1e-6 * abs(slope)


def test_curvature_along_error_is_documented_bound():
    """The error estimate of q(t) = h^T H h is |H(n) - H(1.5n+2)|_max |h|_1^2 + 1e3 eps max|H| |h|_2^2 (the bound
    |h^T E h| <= max|E_ij| (sum |h_i|)^2), with h_t built by hand from Lemma B.22's direction: dU11 = -t gw
    (G dv21)^T, du12 = -dU11 dm / 2, dv21 = gw / |gw|, dv22 = 0 (G = I on C1)."""
    P = N.LDAProblem.from_params(N.C1)
    y = np.array([3.07216696, 0.73913927, -0.80403316])
    y, _ = LL.newton_polish(lambda q: LL.restricted_risk(P, q, 2)[1:], y)
    th, gw, _ = LL.complete_v21zero_critical(P, y)
    ts, q, err, _slope, H, qerr, _n = LC.curvature_along(P, th, gw, 32, 64, [0, 1, 4, 16])
    m1, m_1, G, *_ = P.arrays()
    dv = gw / np.linalg.norm(gw)
    for t, e in zip(ts, err):
        dU = -t * np.outer(gw, G @ dv)
        parts = [dU.ravel(), -dU @ (m1 - m_1) / 2, dv]
        l1, l2sq = sum(np.abs(x).sum() for x in parts), sum((x * x).sum() for x in parts)
        want = qerr * l1**2 + 1e3 * np.finfo(float).eps * np.abs(H).max() * l2sq
        assert e == pytest.approx(want, rel=1e-10)
    assert max(ts) >= 16 and qerr > 0


def test_v21zero_critical_points_are_critical():
    P = N.LDAProblem.from_params(N.C1)
    pts = LC.v21zero_critical_points(P, 32, 0, np.random.default_rng(1))
    assert pts
    for _label, y in pts:
        assert np.linalg.norm(LL.restricted_risk(P, y, 1, 32)[1]) < 1e-8


def test_critical_search_finds_bayes_points_and_the_well():
    P = N.LDAProblem.from_params({"m1": [1], "m_1": ["-0.5"], "Gamma": [[2]], "pi_plus": "0.3"})
    rows, Rstar = LC.critical_search(P, np.random.default_rng(2), 32, 100, 1, 1e-9, 50.0)
    crit = [r for r in rows if r["critical"]]
    assert crit and all(abs(r["risk_gap"]) <= r["tau_R"] for r in crit)
    rows, _ = LC.critical_search(P, np.random.default_rng(2), 32, 100, 0, 1e-9, 50.0, well=(0.2, 0.2))
    near = [r for r in rows if r["start"] == "near-origin"]
    assert near[0]["risk_gap"] < -1e-3  # trapped in the well: below the Bayes risk, impossible without it
