"""numerics.risk_references: the Gauss-Hermite query average and the eigen-decomposition of the threshold against
known answers and the closed forms of numerics.risk; the task settings against their definitions."""
import math

import numpy as np
import pytest

from softmix.numerics import risk as RK, risk_references as RR
from softmix.numerics.mixture import GaussianMixture

GAUSS = {"weights": ["1"], "means": [["0.3", "0", "-0.2"]], "covariances": [[["1", "0.3", "0"], ["0.3", "1", "0"],
                                                                            ["0", "0", "0.5"]]]}
QUERIES = {"weights": ["0.6", "0.4"], "means": [["0", "0", "0"], ["0.6", "-0.4", "0"]],
           "covariances": [[["0.3", "0", "0"], ["0", "0.3", "0"], ["0", "0", "0.3"]],
                           [["0.15", "0", "0"], ["0", "0.15", "0"], ["0", "0", "0"]]]}
HEADS = [{"U": [["0.5", "0.1", "0"], ["0", "0.4", "0.2"], ["0.1", "0", "0.3"]], "V": [["1", "0", "0"], ["0", "1",
                                                                                                        "0.5"]],
          "W": [["1", "0.2"], ["-0.3", "1"]]},
         {"U": [["0.4", "0", "0.2"], ["0.2", "0.5", "0"], ["0", "0.1", "0.4"]], "V": [["0", "1", "0"], ["1", "0", "1"]],
          "W": [["0.7", "0"], ["0.1", "0.5"]]}]
TARGET = {"B": [["0.5", "0", "0.2"], ["0", "0.3", "1"]], "noise_covariance": [["0.1", "0"], ["0", "0.2"]]}


def _setup():
    g, q = GaussianMixture.from_json_obj(GAUSS), GaussianMixture.from_json_obj(QUERIES)
    return g, RK.parse_heads(HEADS, 3), q, RK.parse_target(TARGET, 3, 2)


def test_quadrature_of_the_query_average_equals_the_closed_form():
    g, heads, q, t = _setup()
    quad = RR.query_average_by_quadrature(g, heads, t, q)
    cf = RK.averaged_risk(g, heads, q, t)
    assert quad["converged"] and quad["error"] <= RR.GH_AGREE
    for k in RR.PARTS:
        assert quad["values"][k] == pytest.approx(float(cf[k]), rel=1e-9, abs=1e-9)


def test_eigendecomposition_threshold_equals_threshold_info_and_scales_quadratically():
    g, heads, q, _t = _setup()
    th, ind = RK.threshold_info(g, heads, q), RR.threshold_by_eigendecomposition(g, heads, q)
    assert ind["lambda"] == pytest.approx(th["lambda"], rel=1e-12) and ind["rows"]
    scaled = RK.parse_heads(RR.scaled_heads(HEADS, 2.0), 3)
    assert RR.threshold_by_eigendecomposition(g, scaled, q)["lambda"] == pytest.approx(4 * ind["lambda"], rel=1e-12)


def test_threshold_of_one_isotropic_head_by_hand():
    """G = I, Sigma = s I, U = u I: lambda* = s u^2 with multiplicity D."""
    g = GaussianMixture.from_json_obj({"weights": ["1"], "means": [["0", "0"]], "covariances": [[["1", "0"], ["0",
                                                                                                              "1"]]]})
    q = GaussianMixture.from_json_obj({"weights": ["1"], "means": [["0", "0"]],
                                       "covariances": [[["0.5", "0"], ["0", "0.5"]]]})
    h = RK.parse_heads([{"U": [["0.6", "0"], ["0", "0.6"]], "V": [["1", "0"], ["0", "1"]]}], 2)
    r = RR.threshold_by_eigendecomposition(g, h, q)
    assert r["lambda"] == pytest.approx(0.18) and r["rows"][0]["multiplicity"] == 2 and r["rows"][0]["centred"]


def test_icl_regression_inputs_are_the_regression_task():
    tokens, queries, heads, target = RR.icl_regression_inputs(2, ["0.8", "-0.5"], "0.25", [[[1, 0], [0, 1]]], ["0.9"])
    G = np.array(tokens["covariances"][0], float)
    assert G[2, 2] == pytest.approx(0.64 + 0.25 + 0.25) and G[0, 2] == pytest.approx(0.8) and G[1, 2] == -0.5
    assert np.array(queries["covariances"][0], float)[2, 2] == 0  # the label of the query is not seen
    assert heads[0]["V"] == [["0", "0", "1"]] and target["noise_covariance"] == [["0.25"]]


def test_head_tails_of_a_zero_tilt_are_one():
    g, heads, _q, _t = _setup()
    assert RR.head_tails(g, heads, np.zeros(3)) == [(1.0, 1.0), (1.0, 1.0)]
    rho, k4 = RR.head_tails(g, heads, np.array([0.8, -0.4, 0.6]))[0]
    assert 1 < rho < k4


def test_head_tails_known_answers_gaussian_closed_form_and_mixture_by_quadrature():
    """One Gaussian N(m, G): M(a) = exp(a.m + a.G.a / 2), so rho = M(2a) / M(a)^2 = exp(a.G.a) and
    M(4a) / M(a)^4 = exp(6 a.G.a) (by hand), a = U z.  A two-component mixture in d = 1: M(t) as the
    integral of exp(t x) against the density, by mpmath quadrature at 30 digits."""
    import mpmath as mpm

    g, heads, _q, _t = _setup()
    z = np.array([0.8, -0.4, 0.6])
    G = np.array(GAUSS["covariances"][0], float)
    for (rho, k4), h in zip(RR.head_tails(g, heads, z), heads):
        a = h.arrays()[0] @ z
        q = float(a @ G @ a)
        assert rho == pytest.approx(math.exp(q), rel=1e-12) and k4 == pytest.approx(math.exp(6 * q), rel=1e-12)
    mix = GaussianMixture.from_json_obj({"weights": ["0.35", "0.65"], "means": [["-0.4"], ["1.1"]],
                                         "covariances": [[["0.3"]], [["0.8"]]]})
    head = RK.parse_heads([{"U": [["0.9"]], "V": [["1"]]}], 1)
    zq = 0.7
    with mpm.workdps(30):
        dens = lambda x: (mpm.mpf("0.35") * mpm.npdf(x, mpm.mpf("-0.4"), mpm.sqrt(mpm.mpf("0.3")))
                          + mpm.mpf("0.65") * mpm.npdf(x, mpm.mpf("1.1"), mpm.sqrt(mpm.mpf("0.8"))))
        M = lambda t: mpm.quad(lambda x: mpm.exp(t * x) * dens(x), [-mpm.inf, 0, mpm.inf])
        t = mpm.mpf("0.9") * mpm.mpf(zq)
        ref = (float(M(2 * t) / M(t) ** 2), float(M(4 * t) / M(t) ** 4))
    rho, k4 = RR.head_tails(mix, head, np.array([zq]))[0]
    assert rho == pytest.approx(ref[0], rel=1e-10) and k4 == pytest.approx(ref[1], rel=1e-10)


def test_duplicated_gaussian_is_the_same_law():
    d = RR.duplicated_gaussian(GAUSS, ("0.3", "0.7"))
    g, heads, q, t = _setup()
    assert d.n_components == 2
    c1 = RK.risk_constants(g, heads, t, np.array([[0.8, -0.4, 0.6]]))["K"][0]
    c2 = RK.risk_constants(d, heads, t, np.array([[0.8, -0.4, 0.6]]))["K"][0]
    assert math.isclose(c1, c2, rel_tol=1e-12)


def test_denoiser_heads_are_past_the_threshold():
    from softmix.numerics import denoising as DN

    task = DN.DenoisingTask.from_params({"m1": ["3", "0"], "m2": ["0", "3"], "gamma": "1", "xi": "2", "pi1": "0.3"},
                                        where="test")
    mix, heads = RR.denoiser_heads(task)
    assert len(heads) == 2 and RK.threshold_info(mix, heads, mix)["lambda"] >= 1


def test_a_point_mass_query_component_is_read_at_its_mean():
    """A query component with zero covariance (a point mass: no quadrature direction) enters the average as the
    per-query parts at its mean, weighted by its weight -- against the closed form, and against the parts at the
    mean by hand (a branch of the rule no test ran before)."""
    g, heads, _q, t = _setup()
    point = {"weights": ["0.6", "0.4"], "means": QUERIES["means"],
             "covariances": [QUERIES["covariances"][0], [["0"] * 3] * 3]}
    q = GaussianMixture.from_json_obj(point)
    quad = RR.query_average_by_quadrature(g, heads, t, q)
    cf = RK.averaged_risk(g, heads, q, t)
    assert quad["converged"]
    only = RR.query_average_by_quadrature(g, heads, t, GaussianMixture.from_json_obj(
        {"weights": ["1"], "means": QUERIES["means"][:1], "covariances": QUERIES["covariances"][:1]}))
    at_mean = RK.risk_constants(g, heads, t, np.array([[0.6, -0.4, 0.0]]))
    for k in RR.PARTS:
        assert quad["values"][k] == pytest.approx(float(cf[k]), rel=1e-9, abs=1e-9)
        assert quad["values"][k] == pytest.approx(0.6 * only["values"][k] + 0.4 * float(at_mean[k][0]), rel=1e-12)
