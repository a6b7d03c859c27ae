"""numerics.expansion_references (the 30-digit reference fp-covariance decides numerics.expansion_reach
against): the raw-moment weight moments of one Gaussian in closed form, the set partitions, and the
falling-factorial coefficients against the exact finite binomial sums of a two-atom token law."""
import math

import mpmath as mpm
import numpy as np
import pytest
from scipy.stats import binom

from softmix.numerics import expansion_references as XR
from softmix.numerics.mixture import GaussianMixture

G = [["0.5", "0.1"], ["0.1", "0.3"]]
V = [[1, "0.5"], ["-0.2", "0.7"]]


def test_set_partitions_are_counted_by_the_bell_numbers_and_are_partitions():
    for n, bell in zip(range(1, 7), (1, 2, 5, 15, 52, 203)):
        parts = list(XR._partitions(list(range(n))))
        assert len(parts) == bell
        assert all(sorted(x for b in p for x in b) == list(range(n)) for p in parts)
        assert len({tuple(sorted(tuple(sorted(b)) for b in p)) for p in parts}) == bell


def test_weight_moments_of_one_gaussian_in_closed_form():
    """N(m, G): E w^k = exp(k (k - 1) s / 2), s = a^T G a; E[w^k u] = rho_k (k - 1) V G a;
    E[w^k u_c^2] = rho_k ((V G V^T)_cc + (k - 1)^2 (V G a)_c^2); rho_1 = 1, E[w u] = 0."""
    mix = GaussianMixture.from_values(["1"], [["0.3", "-0.2"]], [G])
    U, z = [["0.8", "0.2"], ["-0.1", "0.9"]], ["1.1", "0.6"]
    got = XR.weight_moments_mp(mix, U, V, z, dps=30)
    Gf, Vf = np.array(G, float), np.array(V, float)
    a = np.array(U, float) @ np.array(z, float)
    s, VGa, dg = float(a @ Gf @ a), Vf @ Gf @ a, np.diag(Vf @ Gf @ Vf.T)
    for k in (1, 2, 3, 4):
        rho = math.exp(k * (k - 1) * s / 2)
        assert float(got["rho"][k]) == pytest.approx(rho, rel=1e-13)
        assert np.allclose([float(x) for x in got["e"][k]], rho * (k - 1) * VGa, rtol=1e-13, atol=1e-25)
        assert np.allclose([float(x) for x in got["s"][k]], rho * (dg + (k - 1) ** 2 * VGa**2), rtol=1e-13)
    # the tilted mean and the moment generating function it is read from: T = V (m + G a), M(a) = e^{a.m + s/2}
    m = np.array([0.3, -0.2])
    assert np.allclose([float(x) for x in got["T"]], Vf @ (m + Gf @ a), rtol=1e-13, atol=1e-25)
    assert float(got["M1"]) == pytest.approx(math.exp(float(a @ m) + s / 2), rel=1e-13)


def _two_atom():
    p, s = 0.3, np.array([0.9, -0.4])
    Y = np.array([[1.0, 0.5], [-0.7, 0.2]])
    P = np.array([p, 1 - p])
    w = np.exp(s) / (P * np.exp(s)).sum()
    u = Y - (P * w) @ Y
    mom = {"rho": {k: mpm.mpf((P * w**k).sum()) for k in range(1, 5)},
           "e": {k: [mpm.mpf(x) for x in (P * w**k) @ u] for k in range(1, 5)},
           "s": {k: [mpm.mpf(x) for x in (P * w**k) @ u**2] for k in range(1, 5)}}
    return p, w, u, mom


def test_coefficients_on_a_two_atom_token_law_against_the_exact_binomial_sums():
    """Two atoms: E||T_L - T||^2 and E[T_L - T] are finite binomial sums; L^2 (L MSE - m2 - c3 / L) -> c4 and
    L^2 (L bias - b - d3 / L) -> d4 with an O(1/L) error; no x^0 term."""
    p, w, u, mom = _two_atom()
    co = XR.expansion_from_moments_mp(mom, dps=30)
    assert abs(co["zeroth"]) < 1e-25 and max(abs(x) for x in co["bias_zeroth"]) < 1e-25
    m2, c3, c4 = (float(co[k]) for k in ("m2", "c3", "c4"))
    b, d3, d4 = (np.array([float(x) for x in co[k]]) for k in ("bias", "d3", "d4"))
    errs = []
    for L in (400, 1600):
        n = np.arange(L + 1)
        pr = binom.pmf(n, L, p)
        e = (n[:, None] * w[0] * u[0] + (L - n)[:, None] * w[1] * u[1]) / (n * w[0] + (L - n) * w[1])[:, None]
        r4 = (L * (pr * (e**2).sum(1)).sum() - m2 - c3 / L) * L**2 / c4
        rd = (L * (pr @ e) - b - d3 / L) * L**2 / d4
        errs.append(max(abs(r4 - 1), float(np.max(np.abs(rd - 1)))))
    assert errs[1] < 0.03 and errs[1] < 0.3 * errs[0]


def test_which_fourth_moments_reach_the_coefficients():
    """To x^3 the fourth weight moments enter through E[w^4 |u|^2] (c4 only) and E[w^4 u] (d4 only); E w^4 enters
    no coefficient (its block B^4 first weighs at x^4 in the MSE, x^4 in the bias)."""
    _p, _w, _u, mom = _two_atom()
    base = XR.expansion_from_moments_mp(mom)
    keys = ("m2", "c3", "c4", "bias", "d3", "d4")
    for name, bump, moved in (("s", lambda v: [x * 1.01 for x in v], {"c4"}),
                              ("e", lambda v: [x * 1.01 for x in v], {"d4"}),
                              ("rho", lambda v: v * 1.01, set())):
        m = {k: dict(v) for k, v in mom.items()}
        m[name][4] = bump(m[name][4])
        got = XR.expansion_from_moments_mp(m)
        assert {k for k in keys if got[k] != base[k]} == moved, name
