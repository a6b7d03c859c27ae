"""numerics.lda_hessian_certificate and numerics.lda_coercivity_certificate: the ball-arithmetic certificates of
checks/paper/lda_certificates.py against values computed independently (mpmath, scipy), the mistaken
quantities of their wrong-quantity controls included."""
from fractions import Fraction

import mpmath as mpm
import numpy as np
import pytest

flint = pytest.importorskip("flint")
from flint import arb  # noqa: E402

from softmix.numerics import balls as B  # noqa: E402
from softmix.numerics.lda_coercivity_certificate import coercivity_certificate, softplus_expectation_bounds  # noqa: E402
from softmix.numerics.lda_hessian_certificate import (  # noqa: E402
    enclosure_rows,
    hessian_integrals_reference,
    hessian_wbr_reference,
    normal_hessian_certificate,
)

C1 = {"m1": [1, 0], "m_minus1": [0, 1], "pi_plus": "0.6"}


def _coercivity(endpoint="-M"):
    return coercivity_certificate(20, "e1", "identity", np.random.default_rng(0), c0_endpoint=endpoint)


def test_c0_pinned_phi1_minus_Phi_minus1():
    cert = _coercivity()
    with mpm.workdps(40):
        ref = mpm.npdf(1) - mpm.ncdf(-1)  # c0 = phi(1) - Phi(-1) for M = 1
    assert abs(float(ref) - 0.0833154705876863) < 1e-15
    with B.precision(cert["prec"]):
        assert cert["C1"].overlaps(arb(mpm.nstr(ref, 35), 1e-33)) and cert["C1"].rad() < 1e-25
    assert cert["ok"] and not cert["counterexample"] and False not in cert["enclosures_ok"]
    assert float(cert["c0_mpmath"]) == pytest.approx(float(ref), rel=1e-15)  # the mpmath c0 of the endpoint used


def test_c0_at_plus_M_pinned_and_softplus_bounds_bracket_mpmath():
    cert = _coercivity("+M")
    with mpm.workdps(40):
        ref = mpm.ncdf(1) + mpm.npdf(1)  # g(+1) = Phi(1) + phi(1)
    assert cert["C1"].overlaps(arb(mpm.nstr(ref, 35), 1e-33)) and cert["counterexample"]
    # the c0 ball at +M against its own 40-digit reference g(M) = M Phi(M) + phi(M) (lda_coercivity_certificate.py:196,
    # a survivor of the library run on 86ed141: the +M reference was never compared)
    assert False not in cert["enclosures_ok"] and cert["enclosures"]["rows"][1]["quantity"] == "c0 = g(+M)"
    # the evidence's mpmath c0 is that of the endpoint used, beside its ball (it showed g(-M) at +M before)
    assert float(cert["c0_mpmath"]) == pytest.approx(float(ref), rel=1e-15)
    for row in cert["sampled_directions"]["rows"][:3]:  # e1-aligned: w^T Y X ~ N(r, r^2)
        rad = float(row["radius"])
        with mpm.workdps(20):
            L = mpm.quad(lambda u: mpm.log(1 + mpm.exp(-rad * (1 + u))) * mpm.npdf(u), [-mpm.inf, -1, mpm.inf])
        assert float(arb(row["L(w)_ge"]).lower()) <= float(L) <= float(arb(row["L(w)_le"]).upper())


def test_softplus_bounds_bracket_a_quadrature_and_tighten_with_pieces():
    with B.precision(96):
        lo, hi = softplus_expectation_bounds(B.to_arb("0.3"), B.to_arb(2), 9, 40)
        lo2, hi2 = softplus_expectation_bounds(B.to_arb("0.3"), B.to_arb(2), 9, 160)
    with mpm.workdps(20):
        ref = mpm.quad(lambda u: mpm.log(1 + mpm.exp(-(mpm.mpf("0.3") + 2 * u))) * mpm.npdf(u), [-mpm.inf, 0, mpm.inf])
    assert float(lo.upper()) <= float(ref) <= float(hi.lower())
    assert float(hi2 - lo2) < float(hi - lo) / 4


def _softplus_expectation_mp(mu, sigma):
    """E log(1 + exp(-(mu + sigma U))), U ~ N(0, 1), by mpmath quadrature at 30 digits (split at the kink)."""
    with mpm.workdps(30):
        mu, sigma = mpm.mpf(mu), mpm.mpf(sigma)
        f = lambda u: mpm.log1p(mpm.exp(-(mu + sigma * u))) * mpm.npdf(u)
        return mpm.quad(f, [-mpm.inf, -mu / sigma, 0, mpm.inf])


@pytest.mark.parametrize("mu,sigma,K,N", [
    ("0", "0.1", 1, 8),     # the tails |u| > K hold ~1/3 of the mass: the tail term must carry log 2 of it
    ("-5", "0.5", 2, 4),    # four pieces of width 1 on a nearly linear integrand: every piece must be counted
    ("-0.4", "2", 9, 160),  # the claim's partition
] + [(str(m), str(s), k, n) for m, s, k, n in zip(np.random.default_rng(5).normal(0, 2, 3).round(6),
                                                     np.random.default_rng(6).uniform(0.05, 3, 3).round(6),
                                                     (1, 3, 6), (6, 30, 96))])
def test_softplus_bounds_bracket_mpmath_and_are_as_tight_as_convexity_allows(mu, sigma, K, N):
    """lower <= E <= upper on coarse partitions too (a piece or the tail term left out, the bound fails), and
    each bound is within the interpolation error of a convex function of curvature <= sigma^2 / 4 (tangent at
    the midpoint, chord: at most h^2/8 sup f'' per point, h = 2K/N) plus the tail beyond K, bounded here
    by E[(log 2 + |mu| + sigma |U|); |U| > K] = (log 2 + |mu|) 2 Phi(-K) + 2 sigma phi(K)."""
    with B.precision(96):
        lo, hi = softplus_expectation_bounds(B.to_arb(mu), B.to_arb(sigma), K, N)
    ref = _softplus_expectation_mp(mu, sigma)
    with mpm.workdps(30):
        h, s = mpm.mpf(2 * K) / N, mpm.mpf(sigma)
        interp = h ** 2 / 8 * s ** 2 / 4
        tail = (mpm.log(2) + abs(mpm.mpf(mu))) * 2 * mpm.ncdf(-K) + 2 * s * mpm.npdf(K)
        slack = interp + tail + mpm.mpf(10) ** -20
        assert float(lo.upper()) <= ref <= float(hi.lower())  # the bounds are rigorous
        assert ref - float(lo.lower()) <= slack and float(hi.upper()) - ref <= slack  # and tight


def test_normal_hessian_enclosure_against_float_reference():
    """Independent float64 route: quadrature of E[kappa F F^T] on C1, DC from Lemma B.14, and the nonzero
    eigenvalues of DC^T H DC; the smallest must lie in [certified lower, Rayleigh upper]."""
    from scipy import integrate

    cert = normal_hessian_certificate(**C1)
    b = np.log(1.5)
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731

    def E(fun):  # X ~ 0.6 N((1,0), I) + 0.4 N((0,1), I), in the rotated coordinates (t, v)
        dens = lambda t: 0.6 * np.exp(-(t - 2 ** -0.5) ** 2 / 2) / np.sqrt(2 * np.pi) + \
            0.4 * np.exp(-(t + 2 ** -0.5) ** 2 / 2) / np.sqrt(2 * np.pi)  # noqa: E731
        return integrate.quad(lambda t: fun(t) * dens(t), -14, 14, epsabs=1e-14, epsrel=1e-13)[0]

    eta = lambda t: sig(np.sqrt(2) * t + b)  # noqa: E731
    k = lambda t: eta(t) * (1 - eta(t))  # noqa: E731
    nv, Ev2 = 2 ** -0.5, 1.5
    I = {(j, q): E(lambda t, j=j, q=q: k(t) * t ** j * eta(t) ** q) for j, q in
         [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)]}
    HF = np.array([[I[2, 0], I[1, 0] * nv, I[1, 0], I[1, 1]], [I[1, 0] * nv, I[0, 0] * Ev2, I[0, 0] * nv, I[0, 1] * nv],
                   [I[1, 0], I[0, 0] * nv, I[0, 0], I[0, 1]], [I[1, 1], I[0, 1] * nv, I[0, 1], I[0, 2]]])
    e, ep = np.array([1, -1]) / np.sqrt(2), np.array([1, 1]) / np.sqrt(2)
    R = np.eye(4)
    R[:2, :2] = np.vstack([e, ep])
    H = R.T @ HF @ R
    v21 = b * np.ones(2)
    U11 = np.outer([1, -1], v21) / (v21 @ v21)
    DC = np.zeros((4, 9))
    DC[0, 0:2] = v21
    DC[1, 2:4] = v21
    DC[0:2, 6:8] = U11
    DC[2, 6:8], DC[3, 6:8], DC[2, 8], DC[3, 8] = [0, 1], [1, -1], -1, 2
    ev = np.linalg.eigvalsh(DC.T @ H @ DC)
    nonzero = np.sort(ev[np.abs(ev) > 1e-9])
    assert len(nonzero) == 4 and nonzero[0] > 0
    lo = float(cert["lower"])
    hi = float(cert["upper"].upper())
    assert lo <= nonzero[0] * (1 + 1e-8) and nonzero[0] <= hi * (1 + 1e-8)


def test_s_star_zero_hessian_has_exact_null_normal_direction():
    cert = normal_hessian_certificate(**C1, s_scale=0)
    ne = cert["normal_eigenvalues"]
    assert cert["lower"] is None and cert["upper"] == 0 and cert["upper"].rad() == 0
    assert ne["null_direction_z_wbr"] == ["0", "0", "3/5", "-1"]
    assert ne["cholesky_of_H"]["status"] is None  # singular H: the ball Cholesky cannot decide
    assert arb(ne["ball_rayleigh_of_H_at_z (must contain 0)"]).contains(0)
    assert cert["realizes_bayes_minimizer"] and cert["lambda_min_DC_DCt"]["status"] is True


GENERIC = {"m1": ["1.5", "-0.5"], "m_minus1": ["0.25", "1"], "pi_plus": "0.3"}


def test_hessian_wbr_reference_known_answers():
    """The (b, r) block of E[kappa F F^T] depends on X through u = w*^T X only, u | class k ~ N(w*^T m_k, |w*|^2):
    E[kappa], E[kappa gate], E[kappa gate^2] by mpmath quad (generic means, pi+ = 0.3, c = 0.7); with c = 0
    the gate is the constant pi+, so the r column is pi+ times the b column."""
    H, err = hessian_wbr_reference(**GENERIC, s_scale="0.7")
    assert err < 1e-10 and np.max(np.abs(H - H.T)) < 1e-15
    with mpm.workdps(30):
        m1, mm = [mpm.mpf(x) for x in ("1.5", "-0.5")], [mpm.mpf(x) for x in ("0.25", "1")]
        pi, c = mpm.mpf("0.3"), mpm.mpf("0.7")
        ws = [a - b for a, b in zip(m1, mm)]
        s0 = mpm.log(pi / (1 - pi))
        bs = (sum(x * x for x in mm) - sum(x * x for x in m1)) / 2 + s0
        sd = mpm.sqrt(sum(x * x for x in ws))
        sig = lambda x: 1 / (1 + mpm.exp(-x))  # noqa: E731

        def E(k):
            tot = 0
            for pc, mc in ((pi, m1), (1 - pi, mm)):
                mu = sum(a * b for a, b in zip(ws, mc))
                f = lambda u: sig(u + bs) * (1 - sig(u + bs)) * sig(s0 + c * u) ** k * mpm.npdf(u, mu, sd)  # noqa
                tot += pc * mpm.quad(f, [-mpm.inf, mu - 5 * sd, mu, mu + 5 * sd, mpm.inf])
            return float(tot)
        want = [E(0), E(1), E(2)]
    assert [H[2, 2], H[2, 3], H[3, 3]] == pytest.approx(want, rel=1e-11, abs=1e-13)
    H0, _ = hessian_wbr_reference(**GENERIC, s_scale=0)
    assert np.max(np.abs(H0[:, 3] - 0.3 * H0[:, 2])) < 1e-15


def test_certificate_hessian_balls_match_the_reference_in_original_coordinates():
    """The certificate assembles H from one-dimensional integrals in t = e.X rotated back to (w1, w2); every ball
    lies within 10 x the reference's error estimate of E[kappa F F^T] computed in the original coordinates
    (generic means, pi+ = 0.3, c = 0.7)."""
    cert = normal_hessian_certificate(**GENERIC, s_scale="0.7")
    Href, err = hessian_wbr_reference(**GENERIC, s_scale="0.7")
    mid = np.array([[float(x.mid()) for x in r] for r in cert["hessian_balls"]])
    assert np.max(np.abs(mid - Href)) <= 10 * err


def test_small_nonzero_s_star_claims_no_null_direction():
    """s* = c w* with c = 1e-12 != 0: the gate sigma(s0 + c w*^T X) is not affine in X, so F = (x1, x2, 1, gate)
    has no null combination and H is positive definite (lambda_min ~ c^2: beyond the ball Cholesky at 128 bits).
    The certificate must then decide nothing -- no lower bound, and no 'exact null direction' upper bound 0,
    which exists only for s* = 0."""
    cert = normal_hessian_certificate(**C1, s_scale=Fraction(1, 10**12))
    assert cert["lambda_min_DC_DCt"]["status"] is True and cert["realizes_bayes_minimizer"]
    assert cert["lower"] is None and cert["upper"] is None and "normal_eigenvalues" not in cert


def test_integral_balls_contain_the_whole_line_reference_and_a_shifted_one_is_missed():
    refs = hessian_integrals_reference(**C1, s_scale=1, dps=30)
    shifted = {k: (v + mpm.mpf(10) ** -6 if k != "error" else v) for k, v in refs.items()}
    for T in (4, 12):  # at T = 4 the Gaussian tail bound is what makes the balls enclosures
        cert = normal_hessian_certificate(**C1, truncation=T)
        with B.precision(cert["prec"]):
            rows = enclosure_rows(cert["integral_balls"], refs, 30, refs["error"])
            assert all(r["contains"] is True for r in rows), rows
    with B.precision(cert["prec"]):  # T = 12: balls of radius ~1e-30 miss a reference moved by 1e-6
        assert all(r["contains"] is False for r in enclosure_rows(cert["integral_balls"], shifted, 30, refs["error"]))


def test_softplus_bounds_check_accepts_the_bounds_and_refuses_a_wrong_term(monkeypatch):
    """The coercivity claim's self-check of its bound function: True on the stress cases; False when the upper
    bound loses the tail term (it falls below E at K = 1) or gains a chord's worth of slack (beyond convexity)."""
    import softmix.numerics.lda_coercivity_certificate as LC

    with B.precision(96):
        assert [LC.softplus_bounds_check(*c)["contains"] for c in LC.STRESS_CASES] == [True, True]
        true_bounds = LC.softplus_expectation_bounds
        for shift in ("-0.5", "0.5"):  # below E (a term lost), or looser than convexity allows
            monkeypatch.setattr(LC, "softplus_expectation_bounds",
                                lambda *a, s=shift: (true_bounds(*a)[0], true_bounds(*a)[1] + B.to_arb(s)))
            assert LC.softplus_bounds_check(*LC.STRESS_CASES[0])["contains"] is False


def test_coercivity_lambda_min_of_a_non_diagonal_gamma_is_bracketed():
    """The path no claim runs (a non-diagonal Gamma): the certified lower bound (Cholesky of Gamma - c I) and the
    Rayleigh upper bound bracket lambda_min exactly, the lower within 2^-19 relative.  Gamma = [[2, 1], [1, 2]]:
    lambda_min = 1."""
    from softmix.numerics import lda_coercivity_certificate as LC

    Fr = Fraction

    with B.precision(96):
        lo, up, note, exact = LC._lambda_min([[Fr(2), Fr(1)], [Fr(1), Fr(2)]], 2)
        assert exact is None and note.startswith("Cholesky")
        assert B.le(lo, B.to_arb(1)) is True and B.le(B.to_arb(1), up) is True
        assert B.ge(lo, B.to_arb(1 - Fr(1, 2**19))) is True


def test_the_reported_theta_star_has_12_digits_and_the_rows_label_their_integral():
    """lda_hessian_certificate.py:127 and :292 (survivors of the library run on 86ed141): theta*'s balls are
    printed to 12 significant digits, and each enclosure row names the integral E[kappa t^j gate^k] of its own key
    (j, k) -- the labels of ``integrals``, in the same order."""
    import re

    cert = normal_hessian_certificate(**C1)
    theta = cert["theta_star"]
    for s in [x for r in theta["U11"] for x in r] + theta["u12"] + theta["v21"]:
        mantissa = re.match(r"\[-?([0-9.]+) \+/-", s).group(1)
        assert len(mantissa.replace(".", "").lstrip("0")) == 12 or set(mantissa) <= {"0", "."}, s
    refs = hessian_integrals_reference(**C1, s_scale=1, dps=30)
    with B.precision(cert["prec"]):
        rows = enclosure_rows(cert["integral_balls"], refs, 30, refs["error"])
    assert [r["integral"] for r in rows] == list(cert["integrals"])
    assert [r["integral"] for r in rows] == [f"E[kappa t^{j} gate^{k}]" for j, k in cert["integral_balls"]]
    assert len({r["integral"] for r in rows}) == len(rows) == 6


def test_an_irrational_m_is_covered_from_a_dyadic_upper_endpoint():
    """M^2 = 2 (m1 = (1, 1), Gamma = I): M is irrational, so the boxes of the monotonicity cover start from the
    exact dyadic upper endpoint of M's ball (a branch no test or claim ran): they tile [-Mup, Mup] in 8 equal
    boxes, Mup a dyadic rational just above sqrt(2), and the certificate holds."""
    cert = coercivity_certificate(2, [1, 1], "identity", np.random.default_rng(0))
    assert cert["ok"] and cert["M^2"] == "2"
    boxes = [[Fraction(a), Fraction(b)] for a, b in (r["box"] for r in cert["monotonicity"]["boxes"])]
    mup = boxes[-1][1]
    assert len(boxes) == 8 and boxes[0][0] == -mup and all(b[1] == c[0] for b, c in zip(boxes, boxes[1:]))
    assert all(b - a == mup / 4 for a, b in boxes)
    assert mup.denominator & (mup.denominator - 1) == 0 and mup * mup > 2 and mup * mup - 2 < Fraction(1, 10**25)
