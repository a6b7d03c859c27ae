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
