"""softmix.numerics.lda_landscape: pinned values and properties (the landscape claims' numerics)."""

from fractions import Fraction

import mpmath as mpm
import numpy as np
from hypothesis import given, settings, strategies as st

from softmix.numerics import lda as N, lda_landscape as LL

CFG_1D = {"m1": [1], "m_1": ["-0.5"], "Gamma": [[2]], "pi_plus": "0.3"}


def _escape_reference_1d(R, c=1):
    """Independent mpmath.quad of R~(zeta_R) - R* and ||g - f*||_L1 for CFG_1D (d = 1)."""
    with mpm.workdps(30):
        pi = mpm.mpf("0.3")
        s0 = mpm.log(pi / (1 - pi))
        sg = lambda t: 1 / (1 + mpm.exp(-t))
        ws = mpm.mpf("1.5") / 2  # Gamma^-1 (m1 - m_-1)
        bs = -(1 - mpm.mpf("0.25")) / 4 + s0  # -(m1^2 - m_-1^2)/(2 Gamma) + s0
        p = sg(s0)
        w, b, r, s = ws - p * (1 - p) * c, bs - p * R, mpm.mpf(R), mpm.mpf(c) / R
        g = lambda x: w * x + b + r * sg(s0 + s * x)
        fs = lambda x: ws * x + bs
        sp = lambda t: mpm.log1p(mpm.exp(t))
        gap = l1 = 0
        for y, pc, m in ((1, pi, 1), (-1, 1 - pi, mpm.mpf("-0.5"))):
            dens = lambda x: mpm.npdf(x, m, mpm.sqrt(2))
            gap += pc * mpm.quad(lambda x: dens(x) * (sp(-y * g(x)) - sp(-y * fs(x))), [-mpm.inf, m, mpm.inf])
            l1 += pc * mpm.quad(lambda x: dens(x) * abs(g(x) - fs(x)), [-mpm.inf, -R, 0, mpm.inf])
        return gap, l1


def test_escape_gap_and_l1_pinned_against_mpmath_quad():
    P = N.LDAProblem.from_params(CFG_1D)
    gap_ref, l1_ref = _escape_reference_1d(20)
    gap = LL.escape_gap(P, [1.0], 20.0, 48)
    l1, err = LL.escape_l1(P, [1.0], 20.0)
    assert abs(gap - float(gap_ref)) <= 1e-9 * abs(float(gap_ref))
    assert abs(l1 - float(l1_ref)) <= 1e-9 * float(l1_ref)
    # pinned (mpmath.quad at 30 digits, R = 20, c = 1): both implementations cannot drift together
    assert mpm.nstr(gap_ref, 8) == "3.5883128e-6"
    assert mpm.nstr(l1_ref, 8) == "0.0051875251"
    # also the direct effective risk difference agrees (cancellation-prone, float64)
    z = LL.escaping_zeta(P, [1.0], 20.0)
    Rstar = float(N.bayes_risk(P, 100, 30)[0])
    assert abs(N.eff_risk(P, z, 0, 80)[0] - Rstar - gap) < 1e-12


def test_coercivity_constant_pinned():
    # C2: M = 1, c0 = g(-1) = phi(1) - Phi(-1) = 0.0833154705876864...
    c0, grid = LL.coercivity_c0(1, 30)
    with mpm.workdps(30):
        ref = mpm.npdf(1) - mpm.ncdf(-1)
        assert abs(c0 - ref) < mpm.mpf(10) ** -28
        assert c0 <= grid
    assert mpm.nstr(c0, 8) == "0.083315471"


def test_square_target_in_class_for_C1_exactly():
    # Remark B.5 scope: for C1 (b* = s0) the square-loss target 2 eta - 1 equals f_theta with
    # U11 = 0, u12 = w*/2, v21 = 0, v22 = 1
    P = N.LDAProblem.from_params(N.C1)
    ws, bs = P.bayes()
    th = N.pack_theta(np.zeros((2, 2)), ws / 2, np.zeros(2), 1.0)
    X = np.random.default_rng(0).standard_normal((50, 2))
    eta = 1 / (1 + np.exp(-(X @ ws + bs)))
    assert np.max(np.abs(N.f_theta_batch(P, th, X) - (2 * eta - 1))) < 1e-14
    assert LL.rstar_relation(P) == 0
    assert (
        LL.rstar_relation(
            N.LDAProblem.from_params({"m1": [1, 0], "m_1": [0, 2], "Gamma": [[1, 0], [0, 1]], "pi_plus": "0.6"})
        )
        == -3
    )


_rat = st.fractions(min_value=-1, max_value=1, max_denominator=4)


@st.composite
def lda_configs(draw):
    m1 = [draw(_rat), draw(_rat)]
    m_1 = [draw(_rat), draw(_rat)]
    if m1 == m_1:
        m_1[0] += 1
    a = draw(st.fractions(min_value=1, max_value=2, max_denominator=4))
    c = draw(st.fractions(min_value=1, max_value=2, max_denominator=4))
    off = draw(st.fractions(min_value=Fraction(-1, 4), max_value=Fraction(1, 4), max_denominator=4))
    pi = draw(st.sampled_from(["0.3", "0.5", "0.6", "0.75"]))
    return {
        "m1": [str(x) for x in m1],
        "m_1": [str(x) for x in m_1],
        "Gamma": [[str(a), str(off)], [str(off), str(c)]],
        "pi_plus": pi,
    }


@settings(max_examples=8, deadline=None)
@given(cfg=lda_configs(), r=st.sampled_from([-2.0, -0.5, 0.7, 1.5]))
def test_E2_kernel_contains_TE2_and_Eflat(cfg, r):
    """Prop. B.30 basis: grad^2 R~ at zeta* in E2 annihilates T E2 + E_flat; the flipped E_flat does not."""
    P = N.LDAProblem.from_params(cfg)
    ws, bs = P.bayes()
    sg = 1 / (1 + np.exp(-P.arrays()[5]))
    z = np.concatenate([ws, [bs - r * sg, r], np.zeros(2)])
    H = N.eff_risk(P, z, 2, 80)[2]  # s = 0: projected rule is 1-D (span of L^T w*)
    H2 = N.eff_risk(P, z, 2, 122)[2]
    B = LL.e2_flat_basis(P, r, mp=False)
    Bf = LL.e2_flat_basis(P, r, mp=False, flipped=True)
    sc = np.abs(H2).max()
    tol = 1e3 * max(np.abs(H - H2).max(), 1e-15 * sc)  # quadrature-derived zero tolerance
    assert np.max(np.abs(H2 @ B)) <= tol
    assert np.max(np.abs(H2 @ Bf[:, 1:])) > 10 * tol


@settings(max_examples=6, deadline=None)
@given(cfg=lda_configs())
def test_theta2_construction_lands_on_E2(cfg):
    P = N.LDAProblem.from_params(cfg)
    if P.symmetric:
        return
    th = LL.theta2_mp(P, 1, 25)
    with mpm.workdps(25):
        z = N.phi(P, th, True)
        ws, bs = P.bayes(True)
        sg = 1 / (1 + mpm.exp(-P.arrays(True)[5]))
        assert max(abs(x) for x in z[4:]) < mpm.mpf(10) ** -20
        assert max(abs(a - b) for a, b in zip(z[:2], ws)) < mpm.mpf(10) ** -20
        assert abs(z[2] + z[3] * sg - bs) < mpm.mpf(10) ** -20


def test_v21zero_completion_is_critical():
    P = N.LDAProblem.from_params(N.C1)
    y = np.array([3.07216696, 0.73913927, -0.80403316])
    y, gn = LL.newton_polish(lambda q: LL.restricted_risk(P, q, 2)[1:], y)
    th, gw, _ = LL.complete_v21zero_critical(P, y)
    assert np.linalg.norm(gw) > 1e-3  # Lemma B.16
    assert np.linalg.norm(N.grad_theta(P, th, 32, None, True)[1]) < 1e-12
