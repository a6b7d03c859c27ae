"""softmix.numerics.lda_references: the independent references of the landscape claims, against the
production numerics and closed forms, and each catching a broken input."""

import numpy as np
import pytest
import sympy as sp

from softmix.numerics import lda as N, lda_landscape as LL, lda_references as REF

CFG_ANISO = {"m1": [1, 0], "m_1": [0, 1], "Gamma": [[2, "0.5"], ["0.5", 1]], "pi_plus": "0.3"}
CFG_1D = {"m1": [1], "m_1": ["-0.5"], "Gamma": [[2]], "pi_plus": "0.3"}
CFG_SYMBAL = {"m1": [1, "0.5"], "m_1": [-1, "-0.5"], "Gamma": [[2, "0.5"], ["0.5", 1]], "pi_plus": "0.5"}


def test_square_reference_pinned_at_zero():
    """zeta = 0 and target f*: E[f*(X)^2] = sum_c pi_c ((w*^T m_c + b*)^2 + w*^T Gamma w*) in closed form."""
    P = N.LDAProblem.from_params(CFG_ANISO)
    m1, m_1, G, _L, pi, _ = P.arrays()
    ws, bs = P.bayes()
    want = sum(pc * ((ws @ mc + bs) ** 2 + ws @ G @ ws) for pc, mc in ((pi, m1), (1 - pi, m_1)))
    assert REF.square_risk_reference(P, np.zeros(6), "logit", 32) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("cfg", [CFG_ANISO, CFG_1D])
def test_square_risk_agrees_with_the_reference(cfg):
    P = N.LDAProblem.from_params(cfg)
    z = np.random.default_rng(0).standard_normal(2 * P.d + 2)
    for target in ("2eta-1", "logit"):
        v, _g = LL.square_risk(P, z, target, 32)
        ref = REF.square_risk_reference(P, z, target, 32)
        assert abs(v - ref) <= 1e4 * np.finfo(float).eps * max(1.0, abs(ref))
    # a different target is a different number: the reference reads its target
    assert abs(REF.square_risk_reference(P, z, "logit", 32) - REF.square_risk_reference(P, z, "2eta-1", 32)) > 1e-3


@pytest.mark.parametrize("cfg", [N.C1, CFG_1D])
def test_escape_l1_reference_matches_escape_l1(cfg):
    P = N.LDAProblem.from_params(cfg)
    c = np.array([1.0, -0.5])[: P.d]
    for corrected in (True, False):
        z = LL.escaping_zeta(P, c, 20.0, corrected)
        v, e = LL.escape_l1(P, c, 20.0, corrected)
        ref, err = REF.escape_l1_reference(P, z, c)
        assert abs(v - ref) <= 10 * (e + err) + 1e-12 * ref + 1e-13
    z = LL.escaping_zeta(P, c, 20.0)
    if P.d > 1:  # a zeta off the line w* + alpha c is not of the reference's form
        z = z.copy()
        z[1] += 0.5
        assert REF.escape_l1_reference(P, z, c) is None


def test_linear_hessian_rules_agree_and_are_positive_definite():
    P = N.LDAProblem.from_params(CFG_SYMBAL)
    for w in (np.zeros(2), np.array([0.4, -0.3]), np.array([1.5, 0.5])):
        H = REF.linear_hessian(P, w, 60)
        Hr, err = REF.linear_hessian_reduced(P, w)
        assert np.max(np.abs(H - Hr)) <= 1e-8 + 100 * err
        assert np.linalg.eigvalsh(H)[0] > 0
    # w = 0: E[sigma'(0) X X^T] = (1/4)(m m^T + Gamma) for m_-1 = -m1
    m1, _m, G, *_ = P.arrays()
    assert np.allclose(REF.linear_hessian(P, np.zeros(2), 20), (np.outer(m1, m1) + G) / 4, atol=1e-14)


def test_krylov_dimension_exact():
    assert REF.krylov_dimension(sp.Rational(3, 2) * sp.eye(4), sp.Matrix([1, -2, 3, 1]))[0] == 1
    k, B = REF.krylov_dimension(sp.diag(1, 2, 3), sp.Matrix([1, 1, 0]))
    assert k == 2 and B.shape == (3, 2)
    assert REF.krylov_dimension(sp.diag(1, 2, 3), sp.Matrix([1, 1, 1]))[0] == 3


def test_escape_l1_reference_catches_a_wrong_delta(monkeypatch):
    """escape_delta without the factor (1 - sigma(s0)): the L1 distance moves off its definition."""
    from scipy.special import expit

    P = N.LDAProblem.from_params(N.C1)
    c = np.array([1.0, -0.5])
    z = LL.escaping_zeta(P, c, 20.0)
    ref, err = REF.escape_l1_reference(P, z, c)

    def wrong(u, R, s0, corrected=True):
        p, v = expit(s0), np.asarray(u, float) / R
        D = -np.expm1(-v) * expit(s0 + v)
        return R * (D - p * (1 - p) * v) if corrected else R * D
    monkeypatch.setattr(LL, "escape_delta", wrong)
    v, e = LL.escape_l1(P, c, 20.0)
    assert abs(v - ref) > 100 * (e + err) + 1e-10


def test_sign_changes_returns_only_zeros():
    """_sign_changes gives the zeros of delta on mu + sd [-12, 12], and nothing else: for
    delta(u) = (u - 0.3)(u + 2.1)(u - 5.7) / 50 (mu = 0.4, sd = 1.3; small values, so that neighbouring grid
    values of one sign multiply to less than 1) exactly the three roots, each to bisection accuracy."""
    import mpmath as mpm

    with mpm.workdps(20):
        roots = [mpm.mpf("0.3"), mpm.mpf("-2.1"), mpm.mpf("5.7")]
        delta = lambda u: (u - roots[0]) * (u - roots[1]) * (u - roots[2]) / 50
        cuts = REF._sign_changes(delta, mpm.mpf("0.4"), mpm.mpf("1.3"))
        assert len(cuts) == 3
        assert all(abs(c - r) < mpm.mpf(10) ** -15 for c, r in zip(sorted(cuts), sorted(roots)))
