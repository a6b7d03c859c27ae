"""Certificates stay rigorous: every enclosure contains a 40-digit mpmath value, and a test that
checks this fails when a radius term is dropped (issue 11, part 3).

* The Gaussian closed forms of numerics/balls.py (Phi, normal_mass, poly2_mass, poly2_tail)
  against mpmath quadrature at 40 digits.
* The six integrals E[kappa t^j gate^k] of the Theorem 3.5 normal-Hessian certificate
  (numerics/lda_hessian_certificate.py): each is a ball of the integral over [-T, T] *enlarged by the
  Gaussian tail bound*; without that radius term (``with_error`` monkeypatched to drop it) the
  balls no longer contain the integral over the real line.
* ``cover_sign`` (the bisection behind the denoising and finite-prompt certificates) never
  certifies a false sign; evaluating boxes at their midpoints only (the mean-value radius
  dropped) certifies one, and the same check catches it.
"""
from fractions import Fraction

import mpmath as mpm
import pytest

pytest.importorskip("flint")
from flint import arb  # noqa: E402

from softmix.numerics import balls as B  # noqa: E402

DPS = 40


def _mp(x: arb):
    """The ball's endpoints as mpf at DPS + 10 digits (outward rounding of the decimal strings is
    far below the tolerances used here)."""
    return mpm.mpf(x.lower().str(DPS + 10, radius=False)), mpm.mpf(x.upper().str(DPS + 10, radius=False))


def encloses(ball: arb, value) -> bool:
    """Whether ``value`` (an mpf accurate to about 10^-DPS relative) lies in ``ball``.  The slack
    is 10^-(DPS-2) relative: far below any radius term this file tests."""
    with mpm.workdps(DPS + 10):
        lo, hi = _mp(ball)
        slack = mpm.mpf(10) ** (2 - DPS) * max(abs(value), mpm.mpf(10) ** -30)
        return bool(lo - slack <= value <= hi + slack)


def test_gaussian_closed_forms_enclose_40_digit_quadrature():
    with mpm.workdps(DPS + 10), B.precision(160):
        phi = lambda u: mpm.exp(-u * u / 2) / mpm.sqrt(2 * mpm.pi)  # noqa: E731
        for x in ("-3.5", "-0.25", "0", "1.75", "6"):
            assert encloses(B.Phi(B.to_arb(Fraction(x))), mpm.ncdf(mpm.mpf(x)))
        for a, b in ((None, "-1"), ("-2", "0.5"), ("0.5", "3"), ("4", None)):
            ref = mpm.quad(phi, [mpm.mpf(a) if a else -mpm.inf, mpm.mpf(b) if b else mpm.inf])
            ball = B.normal_mass(Fraction(a) if a else None, Fraction(b) if b else None)
            assert encloses(ball, ref), (a, b)
            c0, c1, c2 = Fraction(3, 2), Fraction(-1, 3), Fraction(5, 7)
            ref2 = mpm.quad(lambda u: (c0.numerator / mpm.mpf(c0.denominator)
                                       + c1.numerator / mpm.mpf(c1.denominator) * u
                                       + c2.numerator / mpm.mpf(c2.denominator) * u * u) * phi(u),
                            [mpm.mpf(a) if a else -mpm.inf, mpm.mpf(b) if b else mpm.inf])
            assert encloses(B.poly2_mass(c0, c1, c2, Fraction(a) if a else None, Fraction(b) if b else None), ref2)
        for T, mu in (("3", "0.5"), ("8", "-1.25")):
            Tm, mum = mpm.mpf(T), mpm.mpf(mu)
            ref = mpm.quad(lambda t: (1 + t * t) * phi(t - mum), [Tm, mpm.inf])
            assert encloses(B.poly2_tail(Fraction(T), Fraction(mu)), ref)


# ---- the Theorem 3.5 normal-Hessian integrals ------------------------------------------------
JK = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)]  # the certificate's order


def _hessian_integrals_mp():
    """E[kappa(t) t^j gate(t)^k] on configuration C1 (m_1 = (1, 0), m_-1 = (0, 1), pi = 0.6,
    Gamma = I, s* = w*) over the whole real line, at 40 digits, written from the definitions:
    t = e.X with e = (1, -1)/sqrt 2, so t ~ 0.6 N(1/sqrt 2, 1) + 0.4 N(-1/sqrt 2, 1), the Bayes
    gate eta(t) = sigma(sqrt 2 t + log 1.5) and the gate sigma(log 1.5 + sqrt 2 t) coincide."""
    with mpm.workdps(DPS + 10):
        r2, s0 = mpm.sqrt(2), mpm.log(mpm.mpf(3) / 2)
        phi = lambda u: mpm.exp(-u * u / 2) / mpm.sqrt(2 * mpm.pi)  # noqa: E731
        dens = lambda t: mpm.mpf("0.6") * phi(t - 1 / r2) + mpm.mpf("0.4") * phi(t + 1 / r2)  # noqa: E731
        eta = lambda t: 1 / (1 + mpm.exp(-(r2 * t + s0)))  # noqa: E731
        out = []
        for j, k in JK:
            f = lambda t, j=j, k=k: eta(t) * (1 - eta(t)) * t ** j * eta(t) ** k * dens(t)  # noqa: E731
            out.append(mpm.quad(f, [-mpm.inf, -20, -8, 0, 8, 20, mpm.inf]))
        return out


def _hessian_integral_balls(monkeypatch, truncation=None):
    from softmix.numerics.lda_hessian_certificate import normal_hessian_certificate

    seen = []
    real = B.with_error

    def spy(x, err):  # records every enclosure the certificate builds (real: the current with_error)
        out = real(x, err)
        seen.append(out)
        return out

    monkeypatch.setattr(B, "with_error", spy)
    with B.precision(128):
        normal_hessian_certificate([1, 0], [0, 1], "0.6", 1, 12 if truncation is None else truncation, 128)
    assert len(seen) == len(JK)
    return seen


def check_hessian_integrals(balls, refs):
    for (j, k), ball, ref in zip(JK, balls, refs):
        assert encloses(ball, ref), f"E[kappa t^{j} gate^{k}]: {ball.str(12, radius=True)} misses {mpm.nstr(ref, 20)}"


@pytest.fixture(scope="module")
def hessian_refs():
    return _hessian_integrals_mp()


@pytest.mark.parametrize("truncation", [None, 4])  # the claim's T = 12, and a short T = 4
def test_normal_hessian_integrals_enclose_the_whole_line_integral(monkeypatch, hessian_refs, truncation):
    balls = _hessian_integral_balls(monkeypatch, truncation)
    check_hessian_integrals(balls, hessian_refs)
    # narrow, not vacuous (at T = 12 the tail bound, ~1e-27, dominates the radius)
    assert all(float(b.rad()) < (1e-20 if truncation is None else 1e-2) for b in balls)


def test_dropping_the_tail_radius_makes_the_enclosure_check_fail(monkeypatch, hessian_refs):
    """At T = 12 the true tail (~1e-38) is below the quadrature radius, so the check is made on
    T = 4, where the tail (~1e-5) is what the dropped radius term must cover."""
    orig = B.with_error
    monkeypatch.setattr(B, "with_error", lambda x, err: x)  # the truncation tail's radius dropped
    balls = _hessian_integral_balls(monkeypatch, 4)
    monkeypatch.setattr(B, "with_error", orig)
    with pytest.raises(AssertionError, match="misses"):
        check_hessian_integrals(balls, hessian_refs)


# ---- cover_sign: a dropped mean-value radius certifies a false sign --------------------------
def check_cover_sign_is_sound():
    """f(u) = (u - 3/10)^2 - 10^-6 is negative on (0.299, 0.301): 'f > 0 on [0, 1]' is false, and
    'f > 0 on [0.31, 1]' is true."""
    with B.precision(128):
        f = lambda u: (u - B.to_arb(Fraction(3, 10))) ** 2 - B.to_arb(Fraction(1, 10 ** 6))  # noqa: E731
        df = lambda u: 2 * (u - B.to_arb(Fraction(3, 10)))  # noqa: E731
        bad = B.cover_sign(f, 0, 1, +1, df=df)
        good = B.cover_sign(f, Fraction(31, 100), 1, +1, df=df)
    assert bad["status"] is not True, "certified a false sign"
    assert good["status"] is True
    if bad["status"] is False:
        u = bad["counterexample"]
        assert (u - Fraction(3, 10)) ** 2 < Fraction(1, 10 ** 6)


def test_cover_sign_is_sound():
    check_cover_sign_is_sound()


def test_dropping_the_mean_value_radius_makes_the_cover_check_fail(monkeypatch):
    def midpoint_only(f, df, lo, hi):  # the box's radius dropped: f at the midpoint stands for the box
        return f((B.to_arb(lo) + B.to_arb(hi)) / 2)

    monkeypatch.setattr(B, "mean_value_enclosure", midpoint_only)
    with pytest.raises(AssertionError, match="certified a false sign"):
        check_cover_sign_is_sound()


def test_ball_contains_is_sound_when_the_radius_would_round_down():
    """A reference within rad = 1.234549e-20 of 0.7: a ball of radius 1.23453e-20 (narrower than the reference's
    accuracy) cannot certainly contain it -- the 5-digit radius string rounded rad down to 1.2345e-20 and said
    it did.  The denoising certificates' name for it is the same function."""
    import flint
    import mpmath as mpm

    from softmix.numerics import balls, denoising_certificates

    with balls.precision(300), mpm.workdps(30):
        ref, rad = mpm.mpf("0.7"), mpm.mpf("1.234549e-20")
        narrow, wide = flint.arb("0.7", "1.23453e-20"), flint.arb("0.7", "1.2348e-20")
        for contains in (balls.ball_contains, denoising_certificates.ball_contains):
            assert contains(narrow, ref, rad) is None
            assert contains(wide, ref, rad) is True
            assert contains(flint.arb("0.8", "1e-25"), ref, rad) is False
