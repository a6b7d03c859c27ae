"""Known answers for the fitting helpers of checks/fits.py, computed by hand from their documented formulas."""
import math

import pytest

from softmix.checks.fits import fit_inverse_L, mean_se_dof


def test_mean_se_dof_known_answers():
    """nu = 2 / (2 / (n - 1) + (kappa - 3) / n), clipped to [1, n - 1]; n < 3 gives 1.
    [1, 2, 3, 4]: kappa = 2.5625 / 1.5625 < 3, light tails are not credited: n - 1 = 3.
    nine 0s and one 10: m2 = 9, m4 = 657, kappa = 73/9, so nu = 2 / (2/9 + 23/45) = 30/11."""
    assert mean_se_dof([1.0, 2.0]) == 1.0
    assert mean_se_dof([1.0, 2.0, 3.0, 4.0]) == 3.0
    assert mean_se_dof([5.0] * 7) == 6.0  # no spread: nothing to correct
    assert mean_se_dof([0.0] * 9 + [10.0]) == pytest.approx(30 / 11, rel=1e-12)


def test_fit_inverse_L_recovers_an_exact_a_plus_b_over_L():
    """y = 2 + 3 / L at L = 1, 2, 4 with unit errors: a = 2, b = 3, chi2 = 0 on 1 dof, and
    Var(a) = sum x^2 / (n sum x^2 - (sum x)^2) with x = 1/L: 1.3125 / 0.875 = 1.5."""
    Ls = [1, 2, 4]
    out = fit_inverse_L(Ls, [2 + 3 / L for L in Ls], [1.0] * 3)
    assert out["limit"] == [pytest.approx(2.0, abs=1e-12)] and out["inverse_L_coefficient"] == [pytest.approx(3.0)]
    assert out["chi2"] == pytest.approx(0.0, abs=1e-20) and out["dof"] == 1 and out["dof_per_coordinate"] == 1
    assert out["limit_se"] == [pytest.approx(math.sqrt(1.5), rel=1e-12)]
    # two coordinates: dof adds up, chi2 per coordinate kept
    two = fit_inverse_L(Ls, [[2 + 3 / L, 1 - 1 / L] for L in Ls], [[1.0, 2.0]] * 3)
    assert two["dof"] == 2 and len(two["chi2_per_coordinate"]) == 2
    assert two["limit"] == [pytest.approx(2.0), pytest.approx(1.0)]
    assert two["limit_se"][1] == pytest.approx(2 * math.sqrt(1.5), rel=1e-12)
