"""Inputs of the high-precision (_mp) functions: "p/q" and decimal strings are exact, floats that
are not exactly their decimal warn (PrecisionWarning) or are refused (strict_precision), and the
float's binary value can be asked for explicitly (exact_floats).  numerics/precision.py."""
import subprocess
import sys
import warnings
from fractions import Fraction

import mpmath as mpm
import numpy as np
import pytest

import softmix
from softmix.numerics import attention as A, beyond as NB, denoising as ND, risk as RK
from softmix.numerics.errors import InputError
from softmix.numerics.finite_prompt import finite_prompt_constants_mp
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.precision import exact_floats, inexact_floats, strict_precision, to_fraction

# a generic mixture: weights other than 1/2, unequal means, a non-diagonal covariance
MIX = GaussianMixture.from_values(["2/7", "5/7"], [["1/3", "-1/2"], ["3/4", "1/5"]],
                                  [[["1", "1/3"], ["1/3", "1/2"]], [["2/3", "0"], ["0", "1/4"]]])
U = [["1/3", "-1/2"], ["1/7", "2/3"]]
V = [["1", "-1/3"], ["1/2", "3/4"]]
Z = ["1/3", "-0.7"]


def _value(x):
    return [x[i] for i in range(x.rows)] if isinstance(x, mpm.matrix) else x


def test_strings_are_exact_and_match_fractions():
    assert to_fraction("1/3") == Fraction(1, 3) and to_fraction(" -2.5e-1 / 3 ") == Fraction(-1, 12)
    Uf = [[Fraction(1, 3), Fraction(-1, 2)], [Fraction(1, 7), Fraction(2, 3)]]
    Vf = [[1, Fraction(-1, 3)], [Fraction(1, 2), Fraction(3, 4)]]
    zf = [Fraction(1, 3), Fraction(-7, 10)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning for exact inputs
        for f in (A.softmax_attention_mp, A.linear_attention_mp):
            assert _value(f(MIX, U, V, Z, dps=60)) == _value(f(MIX, Uf, Vf, zf, dps=60))
        assert A.gates_mp(MIX, U, Z, dps=60) == A.gates_mp(MIX, Uf, zf, dps=60)
        c1, c2 = finite_prompt_constants_mp(MIX, U, V, Z, dps=60), finite_prompt_constants_mp(MIX, Uf, Vf, zf, dps=60)
        assert c1["rho"] == c2["rho"] and c1["mse"] == c2["mse"]


def test_a_float_caps_the_result_and_warns_naming_the_entry():
    exact = A.softmax_attention_mp(MIX, U, V, Z, dps=60)
    with pytest.warns(softmix.PrecisionWarning, match=r"softmax_attention_mp: float input z\[1\] = -0\.7"):
        floaty = A.softmax_attention_mp(MIX, U, V, ["1/3", -0.7], dps=60)
    with mpm.workdps(60):
        gap = max(abs(exact[i] - floaty[i]) for i in range(2))
    assert mpm.mpf(10) ** -19 < gap < mpm.mpf(10) ** -14  # ~1e-17: what the float cost


def test_exact_floats_and_dyadic_floats_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        A.softmax_attention_mp(MIX, np.eye(2), np.array([[0.5, -2.0], [0.375, 1.0]]), [0.25, -3.0], dps=30)
        A.softmax_attention_mp(MIX, exact_floats(np.array([[0.1, 0.2], [0.3, 0.4]])), V, exact_floats([0.1, 1 / 3]),
                               dps=30)
    assert exact_floats([0.1, np.float64(0.2), "1/3", 2]) == [Fraction(0.1), Fraction(0.2), "1/3", 2]


def test_strict_precision_refuses_and_restores():
    with strict_precision():
        with pytest.raises(InputError, match=r"strict precision.*exact_floats"):
            A.gates_mp(MIX, U, [0.1, 0.2])
        with strict_precision(False), pytest.warns(softmix.PrecisionWarning):
            A.gates_mp(MIX, U, [0.1, 0.2])
    with pytest.warns(softmix.PrecisionWarning):
        A.gates_mp(MIX, U, [0.1, 0.2])


def test_strict_precision_from_the_environment_is_an_exit_2_style_error():
    code = ("import softmix\nfrom softmix.numerics.attention import gates_mp\n"
            "m = softmix.GaussianMixture.from_values([1], [[0]], [[[1]]])\n"
            "try:\n    gates_mp(m, [[1]], [0.1])\nexcept softmix.InputError as e:\n    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "SOFTMIX_STRICT_PRECISION": "1"})
    assert out.returncode == 0 and out.stdout.startswith("refused: gates_mp: float input z[0] = 0.1"), out


def test_a_mixture_built_from_floats_is_flagged_and_warns():
    m = GaussianMixture.from_values([0.3, 0.7], [[0.1], [0.5]], [[[1.0]], [[2.0]]])
    assert m.inexact_floats == ("weights[0] = 0.3", "weights[1] = 0.7", "means[0][0] = 0.1")
    assert m == GaussianMixture.from_values(exact_floats([0.3, 0.7]), exact_floats([[0.1], [0.5]]), [[[1]], [[2]]])
    with pytest.warns(softmix.PrecisionWarning, match=r"mix: weights\[0\] = 0\.3"):
        A.softmax_attention_mp(m, [[1]], [[1]], [1])
    assert GaussianMixture.from_values([0.5, 0.5], [[0.25], [-1.0]], [[[1.0]], [[2.0]]]).inexact_floats == ()


def test_every_mp_entry_point_warns_on_floats():
    task = ND.DenoisingTask.from_params({"m1": ["1.2", "0.4"], "m2": ["-0.3", "0.9"], "gamma": "0.7", "xi": "0.6",
                                         "pi1": "0.35"})
    heads = RK.parse_heads([{"U": [["1/3", 0], [0, 1]], "V": [[1, 0], [0, 1]]}], 2)
    target = RK.parse_target({"B": [[1, 0], [0, 1]]}, 2, 2)
    calls = {
        "risk_constants_mp": lambda: RK.risk_constants_mp(MIX, heads, target, [0.1, 0.0], dps=20),
        "bayes_denoiser_mp": lambda: ND.bayes_denoiser_mp(task, [0.1, 0.2], dps=20),
        "gaussian_averaged_constant_mp": lambda: NB.gaussian_averaged_constant_mp([[1, 0], [0, 1]], np.eye(2),
                                                                                   [[0.1, 0], [0, 0.1]], np.eye(2)),
    }
    for name, call in calls.items():
        with pytest.warns(softmix.PrecisionWarning, match=name):
            call()
    # and the strings are accepted there too
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = ND.bayes_denoiser_mp(task, ["1/10", "0.2"], dps=20)
        g = ND.bayes_denoiser_mp(task, [Fraction(1, 10), Fraction(1, 5)], dps=20)
        assert f == g
        K = NB.gaussian_averaged_constant_mp([["1", "0"], ["0", "1"]], np.eye(2), [["1/10", 0], [0, "1/10"]], np.eye(2))
        assert mpm.isfinite(K)


def test_inexact_floats_scans_nested_values():
    assert inexact_floats({"not": "scanned"}) == []
    assert inexact_floats([[0.5, 0.1], np.array([0.25, 1 / 3])], "x") == ["x[0][1] = 0.1",
                                                                          "x[1][1] = 0.3333333333333333"]
    assert inexact_floats(np.arange(3), "n") == [] and inexact_floats(mpm.matrix([0.1]), "m") == []


def test_to_fraction_reads_mpmath_sympy_and_numpy_numbers_exactly():
    """to_fraction's mpf, SymPy and numpy paths (lines no test or claim ran): exact values, a non-finite mpf
    refused."""
    import sympy as sp

    assert to_fraction(mpm.mpf("0.375")) == Fraction(3, 8) and to_fraction(mpm.mpf(-7)) == -7
    with mpm.workdps(40):
        tenth = to_fraction(mpm.mpf("0.1"))
    assert abs(tenth - Fraction(1, 10)) < Fraction(1, 10 ** 39) and tenth != Fraction(1, 10)
    with pytest.raises(ValueError, match="non-finite number"):
        to_fraction(mpm.mpf("-inf"))
    assert to_fraction(sp.Rational(-2, 3)) == Fraction(-2, 3) and to_fraction(sp.Integer(5)) == 5
    assert to_fraction(np.int32(4)) == 4 and to_fraction(np.float64(0.25)) == Fraction(1, 4)
    assert to_fraction("3/-4") == Fraction(-3, 4) and to_fraction(" 2.5 / 5 ") == Fraction(1, 2)


def test_mp_vector_and_mp_matrix_pass_mpmath_matrices_through_and_read_the_rest_exactly():
    from softmix.numerics.precision import mp_matrix, mp_vector

    v = mpm.matrix([mpm.mpf(1), mpm.mpf(-2)])
    assert mp_vector(v) is v
    with mpm.workdps(40):
        w = mp_vector(["1/3", Fraction(-2, 7)])
        assert w.rows == 2 and w.cols == 1 and abs(w[0] - mpm.mpf(1) / 3) < mpm.mpf(10) ** -39
        assert w[1] == mpm.mpf(-2) / 7
        M = mp_matrix([["0.1", 2], [Fraction(1, 3), "-1e-3"]])
        assert (M.rows, M.cols) == (2, 2) and M[1, 1] == mpm.mpf("-0.001") and M[0, 1] == 2
