"""numerics.rho_certificate: the lower bounds stay rigorous when the precision is too low to certify
lambda_min(G_k) (the curvature method must then assume lambda_min >= 0, nothing more)."""
from fractions import Fraction

import mpmath as mpm
import pytest

# two components, unequal weights, non-diagonal covariances: lambda_min = 0.7 and 0.5 - sqrt(0.02) (by hand)
MIX = {"weights": ["0.35", "0.65"], "means": [["0.2", "-0.1"], ["-0.6", "0.3"]],
       "covariances": [[["1", "0.3"], ["0.3", "1"]], [["0.6", "-0.1"], ["-0.1", "0.4"]]]}
ONE = {"weights": ["1"], "means": MIX["means"][:1], "covariances": MIX["covariances"][:1]}  # log rho = a.G.a


def _log_rho(mix, a):
    """log M(2a) - 2 log M(a), M(a) = sum_k w_k exp(a.m_k + a.G_k.a / 2) (Gaussian moment generating function)."""
    w = [mpm.mpf(x) for x in mix["weights"]]
    m = [[mpm.mpf(x) for x in v] for v in mix["means"]]
    G = [[[mpm.mpf(x) for x in r] for r in C] for C in mix["covariances"]]
    M = lambda t: mpm.fsum(w[k] * mpm.exp(sum(t[i] * m[k][i] for i in range(2))  # noqa: E731
                                          + sum(t[i] * G[k][i][j] * t[j] for i in range(2) for j in range(2)) / 2)
                           for k in range(len(w)))
    return mpm.log(M([2 * x for x in a])) - 2 * mpm.log(M(a))


@pytest.mark.parametrize("mix", [MIX, ONE], ids=["two-components", "one-gaussian"])
@pytest.mark.parametrize("prec", [20, 96])
def test_bounds_lie_below_log_rho_and_lambda_min_bounds_below_lambda_min(mix, prec):
    """At 20 bits the Cholesky of G_k - c I (c just below the float eigenvalue) cannot be certified, so the
    curvature method must use lambda_min >= 0; at 96 bits it is certified.  Either way each box's bound lies below
    log rho at the box centre (30 digits), and each reported lambda_min lower bound below the true lambda_min.
    The boxes lie along the direction (1, -1), where a.G_1.a / |a|^2 is smallest."""
    pytest.importorskip("flint")
    from softmix.numerics import rho_certificate as RC

    cert = RC.rho_lower_bounds(mix, [["0.3", "0.5"], ["-0.5", "-0.3"]], grid=4, prec=prec)
    with mpm.workdps(30):
        lam_true = [mpm.mpf("0.7"), mpm.mpf("0.5") - mpm.sqrt(mpm.mpf("0.02"))]
        lows = [Fraction(s) for s in cert["lambda_min_lower_G_k"]]
        assert all(mpm.mpf(x.numerator) / x.denominator <= t for x, t in zip(lows, lam_true)), lows
        for b in cert["boxes"]:
            c = [(Fraction(lo) + Fraction(hi)) / 2 for lo, hi in b["box"]]
            lr = _log_rho(mix, [mpm.mpf(x.numerator) / x.denominator for x in c])
            assert float(b["bound"].upper()) <= lr, (b["box"], b["log_rho_ge"], lr)


def test_bounds_lie_below_log_rho_at_every_corner_of_their_box():
    """rho_certificate.py:72 (a survivor of the library run on 86ed141: grad Lambda without its G_k x term made the
    mean-value form unsound, yet the box centres stayed above it).  On a box away from 0, 8 x 8 sub-boxes, each
    bound lies below log rho at all four corners (30 digits); and the curvature form (the tilted weights over the
    segment [0, 2a]) still decides at least the 12 boxes it decides now -- a looser hull of that segment
    (rho_certificate.py:114) is sound but decides fewer."""
    pytest.importorskip("flint")
    import itertools

    from softmix.numerics import rho_certificate as RC

    cert = RC.rho_lower_bounds(MIX, [["0.3", "1.5"], ["-1.5", "-0.3"]], grid=8, prec=96)
    assert len(cert["boxes"]) == 64 and cert["n_curvature"] >= 12
    with mpm.workdps(30):
        for b in cert["boxes"]:
            for pt in itertools.product(*[[Fraction(lo), Fraction(hi)] for lo, hi in b["box"]]):
                lr = _log_rho(MIX, [mpm.mpf(x.numerator) / x.denominator for x in pt])
                assert float(b["bound"].upper()) <= lr, (b["box"], pt, b["log_rho_ge"], lr)


def test_the_tilted_weights_lower_bounds_lie_below_the_weights_and_sum_to_at_most_one():
    """The curvature form weighs lambda_min(G_k) by lower bounds of the tilted weights w_k(x) = pi_k e^(s_k(x)) /
    sum_j pi_j e^(s_j(x)) over the segment it covers.  On a box of zero width (where the balls are tight) each
    lower bound must lie below the weight at that point and their sum at most 1 (rho_certificate.py:82, a survivor
    of the library run on 3e30413: 1 / (0 + sum_j e^(s_j - s_k)) for 1 / (1 + ...) gave weights summing to about
    2 -- a curvature bound twice too high wherever the balls are tight; on the boxes of the test above the
    interval widening of the segment's hull hid it)."""
    pytest.importorskip("flint")
    from softmix.numerics import balls as B, rho_certificate as RC
    from softmix.numerics.mixture import GaussianMixture

    mix = GaussianMixture.from_json_obj(MIX)
    x = [Fraction(3, 10), Fraction(-7, 10)]
    with B.precision(96):
        low = RC._LogRho(B, mix, 2).weights_lower([B.hull(v, v) for v in x])
        lows = [float(v) for v in low]
    with mpm.workdps(30):
        xm = [mpm.mpf(v.numerator) / v.denominator for v in x]
        sc = [mpm.log(mpm.mpf(w)) + sum(xm[i] * mpm.mpf(m[i]) for i in range(2))
              + sum(xm[i] * mpm.mpf(G[i][j]) * xm[j] for i in range(2) for j in range(2)) / 2
              for w, m, G in zip(MIX["weights"], MIX["means"], MIX["covariances"])]
        w = [mpm.exp(v) / mpm.fsum(mpm.exp(u) for u in sc) for v in sc]
    assert all(lo <= float(wk) for lo, wk in zip(lows, w)) and sum(lows) <= 1.0
    assert lows == pytest.approx([float(v) for v in w], rel=1e-12)  # tight on a point


@pytest.mark.parametrize("kpow", [1, 2, 3])
def test_the_gradient_of_log_rho_on_a_point_is_the_mpmath_derivative(kpow):
    """The mean-value form rests on gradF(a) = 2 grad Lambda(2a) - k grad Lambda(a) enclosing the gradient of
    F = Lambda(2a) - k Lambda(a).  On a zero-width box each component must be the 30-digit central difference of
    the mpmath Lambda (rho_certificate.py:72, a survivor of the library run on 0064a8b: a grad Lambda shifted by 1
    in every component cancels in F for k = 2 only, and for k != 2 makes the mean-value form too narrow)."""
    pytest.importorskip("flint")
    from softmix.numerics import balls as B, rho_certificate as RC
    from softmix.numerics.mixture import GaussianMixture

    mix = GaussianMixture.from_json_obj(MIX)
    x = [Fraction(3, 10), Fraction(-7, 10)]
    with B.precision(96):
        f = RC._LogRho(B, mix, kpow)
        pt = [B.hull(v, v) for v in x]
        gl, gF = [float(v.mid()) for v in f.grad_lambda(pt)], [float(v.mid()) for v in f.gradF(pt)]
    with mpm.workdps(30):
        w = [mpm.mpf(v) for v in MIX["weights"]]
        m = [[mpm.mpf(v) for v in u] for u in MIX["means"]]
        G = [[[mpm.mpf(v) for v in r] for r in C] for C in MIX["covariances"]]
        lam = lambda t: mpm.log(mpm.fsum(w[k] * mpm.exp(sum(t[i] * m[k][i] for i in range(2))  # noqa: E731
                                         + sum(t[i] * G[k][i][j] * t[j] for i in range(2) for j in range(2)) / 2)
                                         for k in range(2)))
        F = lambda t: lam([2 * v for v in t]) - kpow * lam(t)  # noqa: E731
        xm, h = [mpm.mpf(v.numerator) / v.denominator for v in x], mpm.mpf("1e-10")
        e = lambda i: [h if j == i else 0 for j in range(2)]  # noqa: E731
        d = lambda g, i: (g([a + b for a, b in zip(xm, e(i))]) - g([a - b for a, b in zip(xm, e(i))])) / (2 * h)  # noqa: E731
        assert gl == pytest.approx([float(d(lam, i)) for i in range(2)], rel=1e-12, abs=1e-14)
        assert gF == pytest.approx([float(d(F, i)) for i in range(2)], rel=1e-12, abs=1e-14)


def test_log_rho_gradient_of_one_gaussian_is_2_gamma_a_and_of_two_the_weighted_means():
    """One component N(m, G): Lambda(a) = m.a + a.G a / 2, so log rho = Lambda(2a) - 2 Lambda(a) = a.G a and its
    gradient 2 G a exactly (the means cancel); with k = 1 it is 2 grad Lambda(2a) - grad Lambda(a) = m + 3 G a.
    Two components at a = 0: grad Lambda(0) = the weighted mean, so the gradient is (2 - k) sum_j pi_j m_j."""
    from fractions import Fraction as F

    from softmix.numerics import balls as B
    from softmix.numerics.mixture import GaussianMixture
    from softmix.numerics.rho_certificate import log_rho_gradient

    G, m, a = [[F(2), F(1, 2)], [F(1, 2), F(1)]], [F(3, 4), F(-1)], [F(1, 3), F(-1, 2)]
    one = GaussianMixture.from_values([1], [m], [G])
    Ga = [sum(G[i][j] * a[j] for j in range(2)) for i in range(2)]
    two = GaussianMixture.from_values(["1/4", "3/4"], [[1, 0], [0, 2]], [G, G])
    with B.precision(128), mpm.workdps(50):  # the exact answers, to 1e-45: inside balls of radius ~1e-36
        cases = [(one, a, 2, [2 * x for x in Ga]), (one, a, 1, [mi + 3 * x for mi, x in zip(m, Ga)]),
                 (two, [0, 0], 1, [F(1, 4), F(3, 2)]), (two, [0, 0], 3, [F(-1, 4), F(-3, 2)])]
        for mix, pt, k, want in cases:
            got = log_rho_gradient(mix, pt, k)
            assert all(B.ball_contains(g, mpm.mpf(w.numerator) / w.denominator, mpm.mpf(10) ** -45) is True
                       for g, w in zip(got, want)), (pt, k, [str(g) for g in got])
