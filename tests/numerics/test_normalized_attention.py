"""numerics.normalized_attention: the references of Prop. A.1 against each other and by hand."""
import mpmath as mpm
import pytest

from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.normalized_attention import ALIGNMENTS, alignment, attention_tanh_sinh_1d, component_closed_form


def _quad_1d(kernel, m, v, z):
    dens = lambda x: mpm.exp(-(x - m) ** 2 / (2 * v)) / mpm.sqrt(2 * mpm.pi * v)
    g = lambda x: kernel(z, mpm.matrix([x])) * dens(x)
    mass = mpm.quad(g, [-mpm.inf, m, mpm.inf])
    return mass, mpm.quad(lambda x: x * g(x), [-mpm.inf, m, mpm.inf]) / mass


@pytest.mark.parametrize("name", ["softmax", "rbf", "cauchy"])
def test_closed_form_per_component_matches_quadrature(name):
    """Both the normalised map and the mass (up to the factor common to all components, checked by a
    ratio of two components) agree with tanh-sinh quadrature in d = 1."""
    with mpm.workdps(30):
        U, tau, z = mpm.matrix([[mpm.mpf("0.7")]]), mpm.mpf(3), mpm.matrix([mpm.mpf("0.4")])
        k = alignment(name, U, tau)
        out = []
        for m, v in ((mpm.mpf("0.3"), mpm.mpf("0.5")), (mpm.mpf("-1.1"), mpm.mpf("2"))):
            mass, T = component_closed_form(name, mpm.matrix([m]), mpm.matrix([[v]]), z, U, tau)
            qmass, qT = _quad_1d(k, m, v, z)
            assert abs(T[0] - qT) < mpm.mpf(10) ** -25
            out.append((mass, qmass))
        assert abs(out[0][0] / out[1][0] - out[0][1] / out[1][1]) < mpm.mpf(10) ** -25


def test_tanh_sinh_whole_law_matches_the_component_combination_with_an_atom():
    mix = GaussianMixture.from_values(["0.3", "0.7"], [["0.5"], ["-1"]], [[["0"]], [["0.8"]]])  # an atom at 1/2
    with mpm.workdps(30):
        U, tau, z = mpm.matrix([[mpm.mpf("0.6")]]), mpm.mpf(2), mpm.matrix([mpm.mpf("0.2")])
        k = alignment("softmax", U, tau)
        T, err = attention_tanh_sinh_1d(mix, k, z, 30)
        w, m, G = mix.mp()
        comps = [component_closed_form("softmax", m[i], G[i], z, U, tau) for i in range(2)]
        Z = sum(w[i] * comps[i][0] for i in range(2))
        ref = sum(w[i] * comps[i][0] * comps[i][1][0] for i in range(2)) / Z
        assert err < mpm.mpf(10) ** -20 and abs(T[0] - ref) < mpm.mpf(10) ** -20


def test_cauchy_kernel_and_unknown_names():
    assert ALIGNMENTS == ("softmax", "rbf", "cauchy")
    k = alignment("cauchy", mpm.eye(1), 2)
    assert float(k(mpm.matrix([1]), mpm.matrix([3]))) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="unknown alignment"):
        alignment("laplace", mpm.eye(1), 1)
    with pytest.raises(ValueError, match="no closed form"):
        component_closed_form("laplace", mpm.matrix([0]), mpm.matrix([[1]]), mpm.matrix([0]), mpm.eye(1), 1)
    with pytest.raises(ValueError, match="one-dimensional"):
        component_closed_form("cauchy", mpm.matrix([0, 0]), mpm.eye(2), mpm.matrix([0, 0]), mpm.eye(2), 1)


@pytest.mark.parametrize("m, v, z, tau", [("0.3", "0.5", "0.4", "3"), ("-1.1", "4", "0.7", "8"),
                                          ("30", "0.01", "0.7", "8"), ("0", "0.2", "-5", "0.5")])
def test_cauchy_closed_form_is_the_exact_mass_and_map(m, v, z, tau):
    """The Voigt closed form gives the mass itself (no common factor) and T, to 28 digits, far from the mean
    too (the Faddeeva product cancels there); an atom gives (a(z, m), m)."""
    with mpm.workdps(30):
        m, v, z, tau = (mpm.mpf(x) for x in (m, v, z, tau))
        k = alignment("cauchy", None, tau)
        mass, T = component_closed_form("cauchy", mpm.matrix([m]), mpm.matrix([[v]]), mpm.matrix([z]), None, tau)
        qmass, qT = _quad_1d(k, m, v, mpm.matrix([z]))
        tol = mpm.mpf(10) ** -28
        assert abs(mass - qmass) <= tol * qmass and abs(T[0] - qT) <= tol * max(1, abs(qT))
        amass, aT = component_closed_form("cauchy", mpm.matrix([m]), mpm.matrix([[0]]), mpm.matrix([z]), None, tau)
        assert amass == 1 / (1 + (z - m) ** 2 / tau) and aT[0] == m


def test_tanh_sinh_takes_the_query_first_for_a_kernel_that_is_not_symmetric():
    """``kernel(z, x)`` (query first) for any positive kernel.  The three named kernels are symmetric in
    d = 1, so here a(z, x) = exp(b(z) x) with b(z) = 0.9 z + 0.5 (a softmax score with a key bias): each
    component is tilted by b, N(m, v) -> mass exp(b m + b^2 v / 2), mean m + v b; an atom at m has mass
    exp(b m) (by hand).  Mixture of an atom and two Gaussians, unequal weights, z = 0.2."""
    w, m, v = ["0.25", "0.45", "0.3"], ["0.5", "-1", "1.3"], ["0", "0.8", "0.4"]
    mix = GaussianMixture.from_values(w, [[x] for x in m], [[[x]] for x in v])
    with mpm.workdps(30):
        z = mpm.mpf("0.2")
        b = mpm.mpf("0.9") * z + mpm.mpf("0.5")
        k = lambda zz, x: mpm.exp((mpm.mpf("0.9") * zz[0] + mpm.mpf("0.5")) * x[0])
        T, err = attention_tanh_sinh_1d(mix, k, mpm.matrix([z]), 30)
        W, M, V = ([mpm.mpf(x) for x in c] for c in (w, m, v))
        mass = [W[i] * mpm.exp(b * M[i] + b * b * V[i] / 2) for i in range(3)]
        ref = sum(mass[i] * (M[i] + V[i] * b) for i in range(3)) / sum(mass)
        assert err < mpm.mpf(10) ** -20 and abs(T[0] - ref) < mpm.mpf(10) ** -20
