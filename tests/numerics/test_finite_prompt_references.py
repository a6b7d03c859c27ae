"""numerics.finite_prompt_references and numerics.rho_certificate: the independent references of the
finite-prompt constants, checked against known answers and against the production paths."""
from fractions import Fraction

import mpmath as mpm
import numpy as np
import pytest

from softmix.numerics import finite_prompt as FPN, finite_prompt_references as R
from softmix.numerics.mixture import GaussianMixture

MIX = {"weights": ["0.4", "0.6"], "means": [[1, 0, 0], ["-0.5", 1, 0]],
       "covariances": [[[1, "0.3", 0], ["0.3", 1, 0], [0, 0, "0.5"]], [["0.5", "0.5", 0], ["0.5", "0.5", 0], [0, 0,
                                                                                                              0]]]}
U = [["0.35", "0.35", "0.47"], ["-0.18", "-0.33", "-0.05"], ["-0.64", "-0.13", "0.48"]]  # not symmetric
V = [["-0.44", "-0.82", "0.48"], ["-1.01", "0.25", "0.09"]]
Z = ["-0.42", "0.41", "-1.02"]


def _q(M):
    return [_q(r) for r in M] if isinstance(M, list) else Fraction(M)


def test_definition_of_one_prompt_by_hand_and_against_the_production_path():
    toks = np.array([[1.0, 0.0], [0.0, 2.0]])
    got = R.attention_by_definition_mp(toks, np.eye(2), np.eye(2), [1.0, 0.0])
    assert np.allclose(got, [np.e / (np.e + 1), 2 / (np.e + 1)], rtol=1e-15)
    rng = np.random.default_rng(3)
    t = rng.standard_normal((30, 3)) * 3
    Uf, Vf, zf = (np.array(_q(x), float) for x in (U, V, Z))
    assert np.allclose(R.attention_by_definition_mp(t, Uf, Vf, zf), FPN.finite_prompt_attention(t, Uf, Vf, zf),
                       rtol=1e-12)


def test_cgf_derivatives_of_a_one_dimensional_gaussian_by_hand():
    """N(m, s): M(t) = exp(m t + s t^2 / 2), Lambda' = m + s t, Lambda'' = s."""
    mix = GaussianMixture.from_json_obj({"weights": ["1"], "means": [["0.7"]], "covariances": [[["2"]]]})
    with mpm.workdps(40):
        M, g, H = R.cgf_derivatives_mp(mix, mpm.matrix([mpm.mpf("0.3")]))
        assert abs(M - mpm.exp(mpm.mpf("0.21") + mpm.mpf("0.09"))) < mpm.mpf(10) ** -35
        assert abs(g[0] - mpm.mpf("1.3")) < mpm.mpf(10) ** -35 and abs(H[0, 0] - 2) < mpm.mpf(10) ** -35


def test_constants_from_mgf_agree_with_finite_prompt_constants_mp_on_a_generic_configuration():
    mix = GaussianMixture.from_json_obj(MIX)
    ref = R.constants_from_mgf_mp(mix, _q(U), _q(V), _q(Z), dps=45)
    cm = FPN.finite_prompt_constants_mp(mix, _q(U), _q(V), _q(Z), dps=50)
    with mpm.workdps(45):
        for k in ("rho", "bias", "covariance", "limit", "mse", "effective_sample_fraction"):
            flat = lambda X: list(X) if isinstance(X, mpm.matrix) else [X]  # noqa: E731
            a, b = flat(cm[k]), flat(ref[k])
            assert len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) < mpm.mpf(10) ** -30, k
    assert float(ref["rho"][0]) > 1  # Jensen


def test_dropped_half_limit_differs_from_the_limit_and_agrees_when_G_is_zero():
    mix = GaussianMixture.from_json_obj(MIX)
    Uf, Vf, zf = (np.array(_q(x), float) for x in (U, V, Z))
    c = FPN.finite_prompt_constants(mix, Uf, Vf, zf)
    assert np.linalg.norm(R.dropped_half_limit(mix, Uf, Vf, zf) - c["limit"]) > 1e-3
    flat = GaussianMixture.from_json_obj({"weights": ["0.4", "0.6"], "means": MIX["means"],
                                          "covariances": [[[0] * 3] * 3] * 2})
    assert np.allclose(R.dropped_half_limit(flat, Uf, Vf, zf), FPN.finite_prompt_constants(flat, Uf, Vf, zf)["limit"],
                       rtol=1e-13)


def test_two_sample_moments_of_identical_samples_are_zero_and_see_a_shift():
    X = np.random.default_rng(1).standard_normal((500, 2))
    dm, sm, dp, sp_ = R.two_sample_moments(X, X, np.zeros(2))
    assert np.all(dm == 0) and np.all(dp == 0) and np.all(sm > 0) and len(dp) == 3
    dm, *_ = R.two_sample_moments(X + 1.0, X, np.zeros(2))
    assert np.allclose(dm, 1.0)


def test_rho_lower_bounds_enclose_rho_and_see_the_wrong_power():
    pytest.importorskip("flint")
    from softmix.numerics import rho_certificate as RC

    cert = RC.rho_lower_bounds(MIX, [[-1, 1], [-1, 1], [-1, 1]], grid=2, prec=96)
    assert len(cert["boxes"]) == 8 and all(float(b["bound"].upper()) >= 0 for b in cert["boxes"])
    w, m = np.array([0.4, 0.6]), np.array([[1, 0, 0], [-0.5, 1, 0]])
    G = np.array([[[1, .3, 0], [.3, 1, 0], [0, 0, .5]], [[.5, .5, 0], [.5, .5, 0], [0, 0, 0]]])
    M = lambda a: sum(w[k] * np.exp(a @ m[k] + a @ G[k] @ a / 2) for k in range(2))  # noqa: E731
    for b in cert["boxes"]:  # each lower bound lies below log rho at the box centre
        c = np.array([(float(Fraction(lo)) + float(Fraction(hi))) / 2 for lo, hi in b["box"]])
        assert float(b["bound"].lower()) <= np.log(M(2 * c) / M(c) ** 2) + 1e-12
    wrong = RC.rho_lower_bounds(MIX, [[-1, 1], [-1, 1], [-1, 1]], grid=6, prec=96, denominator_power=1)
    pt, rho = wrong["probe"]
    a = np.array([float(x) for x in pt])
    assert abs(float(rho.mid()) - M(2 * a) / M(a)) < 1e-12 and float(rho.upper()) < 1


def test_finite_prompt_constants_mp_defaults_to_50_digits():
    """finite_prompt.py:352 (a survivor of the library run on 86ed141): without ``dps`` the constants are those
    of ``dps=50`` exactly, and not those of 100 digits."""
    mix = GaussianMixture.from_json_obj(MIX)
    default = FPN.finite_prompt_constants_mp(mix, _q(U), _q(V), _q(Z))
    at50 = FPN.finite_prompt_constants_mp(mix, _q(U), _q(V), _q(Z), dps=50)
    at100 = FPN.finite_prompt_constants_mp(mix, _q(U), _q(V), _q(Z), dps=100)
    flat = lambda c: [x for k in sorted(c) for x in (list(c[k]) if isinstance(c[k], mpm.matrix) else [c[k]])]  # noqa: E731
    assert flat(default) == flat(at50) != flat(at100)  # mpf compare exactly, whatever the context's precision


def test_two_sample_moments_standard_errors_are_the_sample_sd_over_root_n():
    """Known answer, both samples spread (so neither standard error can hide in the other): X = (0, 2, 4), Y =
    (0, 0, 3) about the point 1 (not 0, where "minus the point" could go missing). Means 2 and 1, sds (n - 1) 2 and
    sqrt(3): mean difference 1 with se hypot(2/sqrt(3), 1). Second moments about 1, (1, 1, 9) and (1, 1, 4): means
    11/3 and 2, sds sqrt(192/9) and sqrt(3), difference 5/3 with se hypot(sqrt(192/9)/sqrt(3), 1)."""
    X, Y = np.array([[0.0], [2.0], [4.0]]), np.array([[0.0], [0.0], [3.0]])
    dm, sm, dp, sp_ = R.two_sample_moments(X, Y, np.ones(1))
    assert np.allclose(dm, [1.0]) and np.allclose(sm, [np.hypot(2 / np.sqrt(3), 1.0)], rtol=1e-14)
    assert np.allclose(dp, [5 / 3]) and np.allclose(sp_, [np.hypot(np.sqrt(192 / 9) / np.sqrt(3), 1.0)], rtol=1e-14)
