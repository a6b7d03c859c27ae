"""numerics.expansion_reach: the weight moments of one Gaussian in closed form (far from the origin, where
they must not depend on the mean) and the reach rule's two thresholds, each against a hand computation.
(The coefficients against an exact two-atom sum and a mixture's moments against Gauss-Hermite are in
tests/numerics/test_posterior_settings.py.)"""
import math

import numpy as np
import pytest

from softmix.numerics import expansion_reach as ER
from softmix.numerics.mixture import GaussianMixture

G = np.array([[0.5, 0.1], [0.1, 0.3]])
V = np.array([[1.0, 0.5]])


def _one_gaussian(mean):
    return GaussianMixture.from_values(["1"], [[str(x) for x in mean]], [[[str(x) for x in r] for r in G]])


@pytest.mark.parametrize("mean", [[0.3, -0.2], [400.0, 100.0], [-380.0, 250.0]])
def test_weight_moments_of_one_gaussian_do_not_depend_on_its_mean(mean):
    """One Gaussian N(m, G), a = U z: w = e^{<a, x>} / M(a) is log-normal with E w^k = exp(k (k - 1) a^T G a / 2),
    the tilted law at k a is N(m + k G a, G), so e_k = rho_k (k - 1) V G a and
    m_k = rho_k (tr(V G V^T) + (k - 1)^2 |V G a|^2): none depends on m, even where <m, a> ~ 450 puts the log-
    partition functions Lambda(k a) in the hundreds."""
    U, z = np.array([[0.8, 0.2], [-0.1, 0.9]]), np.array([1.1, 0.6])
    a = U @ z
    s, VGa = float(a @ G @ a), V @ G @ a
    got = ER.weight_moments(_one_gaussian(mean), U, V, z)
    for k in (2, 3, 4):
        rho = math.exp(k * (k - 1) * s / 2)
        assert got[f"rho{k}"] == pytest.approx(rho, rel=1e-9)
        assert np.allclose(got[f"e{k}"], rho * (k - 1) * VGa, rtol=1e-8, atol=1e-12)
        assert got[f"m{k}"] == pytest.approx(rho * (float(np.trace(V @ G @ V.T)) + (k - 1) ** 2 * float(VGa @ VGa)),
                                             rel=1e-8)


def test_an_extreme_tilt_overflows_to_inf_and_the_expansion_says_so():
    """a^T G a = 800: rho2 = e^800 overflows float64 (documented: inf), whatever the mean; mse_expansion then
    reports c3 = c4 = inf instead of numbers."""
    U = np.eye(2)
    z = np.array([1.0, 0.5])
    z = z * math.sqrt(800 / float(z @ G @ z))
    for mean in ([0.0, 0.0], [-400.0, -100.0]):
        got = ER.weight_moments(_one_gaussian(mean), U, V, z)
        assert all(got[f"rho{k}"] == math.inf for k in (2, 3, 4)), mean
        ex = ER.mse_expansion(_one_gaussian(mean), U, V, z)
        assert ex["c3"] == math.inf and ex["c4"] == math.inf


@pytest.mark.parametrize("m2,c3,c4,L_reach", [
    (2.0, 1.0, 50.0, 20),      # the omitted term decides: |c4| / (m2 L^2) <= 1/16 iff L^2 >= 400
    (0.5, -3.0, 0.2, 24),      # the kept correction decides: |c3| / (m2 L) <= 1/4 iff L >= 24
    (-1.5, 0.3, -24.0, 16),    # |m2| scales both; c4 < 0: L^2 >= 16 * 24 / 1.5 = 256
])
def test_first_order_reach_is_the_shortest_length_inside_the_rule(m2, c3, c4, L_reach):
    """L_reach (hand-computed) is inside the rule and L_reach - 1 is not; every longer shortest length is inside."""
    r = ER.first_order_reach(m2, c3, c4, [L_reach, 4 * L_reach])
    assert r["L_reach"] == L_reach and r["inside"]
    assert r["first_correction"] == pytest.approx(abs(c3) / (abs(m2) * L_reach))
    assert r["first_omitted"] == pytest.approx(abs(c4) / (abs(m2) * L_reach**2))
    assert not ER.first_order_reach(m2, c3, c4, [L_reach - 1, 4 * L_reach])["inside"]
    assert all(ER.first_order_reach(m2, c3, c4, [L])["inside"] for L in range(L_reach, 3 * L_reach))


def test_the_averaged_tilt_ratio_is_infinite_from_lambda_one_sixth_on():
    """averaged_tilt_ratio: finite iff lambda* < 1/6 -- at 1/6 and above it is inf over no query (a branch no test
    or claim ran); just below, a finite positive ratio over the n queries asked for, the same at the same seed."""
    from softmix.numerics import risk as RK

    tokens = _one_gaussian([0.3, -0.2])
    heads = RK.parse_heads([{"U": [["0.2", "0"], ["0", "0.1"]], "V": [["1", "0.5"], ["0", "1"]]}], 2)
    target = RK.parse_target({"B": [["1", "0"], ["0", "1"]]}, 2, 2)
    queries = GaussianMixture.from_values(["1"], [["0", "0"]], [[["0.5", "0"], ["0", "0.5"]]])
    for lam in (1 / 6, 0.2, 3.0):
        assert ER.averaged_tilt_ratio(tokens, heads, target, queries, lam) == {"ratio": math.inf, "queries": 0}
    below = ER.averaged_tilt_ratio(tokens, heads, target, queries, 0.1, n=512, seed=3)
    assert 0 < below["ratio"] < math.inf and below["queries"] == 512
    # the proposal the docstring gives, s^2 = 1 + 1 / (1 - 6 lambda*): finite variance of the weighted estimate
    assert below["proposal_scale"] ** 2 == pytest.approx(1 + 1 / (1 - 6 * 0.1), rel=1e-15)
    assert ER.averaged_tilt_ratio(tokens, heads, target, queries, 0.1, n=512, seed=3) == below
