"""Known answers for the fitting helpers of checks/fits.py, computed by hand from their documented formulas."""
import math

import pytest
from scipy import stats

from softmix.checks.fits import SlopeRule, fit_inverse_L, mean_se_dof


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


def test_slope_rule_splits_alpha_between_the_interval_and_the_goodness_of_fit():
    """An exact power law 2 / L on four lengths: slope -1, chi-square 0 on 2 dof; the interval and the
    chi-square test each get alpha / 2, the critical value is the chi-square(2) quantile at alpha / 2."""
    Ls = [100, 200, 400, 800]
    v = [2.0 / L for L in Ls]
    out = SlopeRule(0.01, target=-1.0).decide(Ls, v, [0.01 * x for x in v])
    g = out["goodness_of_fit"]
    assert out["passed"] is True and out["interval_alpha"] == 0.005 and g["alpha"] == 0.005 and g["dof"] == 2
    assert g["critical"] == pytest.approx(stats.chi2.isf(0.005, 2), rel=1e-12) and g["passed"] is True


def test_slope_rule_straddling_says_how_many_replicates_would_settle_it():
    """mode="below" with the interval straddling 0: inconclusive, and the replicates that would settle it
    scale as 1/sqrt(n): n (half-width / |slope|)^2, rounded up."""
    Ls = [100, 200, 400, 800]
    v = [L ** -0.05 for L in Ls]
    out = SlopeRule(0.01, target=0.0, mode="below", gof=False).decide(Ls, v, [0.05 * x for x in v], n_samples=40)
    lo, hi = out["fit"]["ci"]
    assert out["passed"] is None and lo < 0 < hi
    half, gap = (hi - lo) / 2, abs(out["fit"]["slope"])
    assert out["half_width"] == pytest.approx(half, rel=1e-12)
    assert out["samples_to_settle"] == math.ceil(40 * (half / gap) ** 2) > 40


# ---- survivors of the recorded engine run on 2026d72 ---------------------------------------------------------
def test_inverse_L_rule_says_when_its_margin_is_relative():
    """fits.py:92: the rule text names the margin, and a relative margin as a multiple of |predicted|."""
    from softmix.checks.fits import InverseLRule

    assert InverseLRule(0.01).describe().endswith("split between them")
    assert InverseLRule(0.01, margin=0.05).describe().endswith("; confirmed only if the limit's half-width <= 0.05")
    assert InverseLRule(0.01, margin=0.05, relative=True).describe().endswith(
        "; confirmed only if the limit's half-width <= 0.05 x |predicted|")


def test_decay_rate_decision_runs_no_goodness_of_fit_and_spends_all_its_alpha_on_the_interval():
    """fits.py:320 (documented: no goodness-of-fit test, the power law holds only up to (ln L)^b): with four
    lengths of a curved log-log profile a goodness-of-fit test would refute; the decision has none, and its
    interval is at the whole alpha, for a finite and an infinite prediction alike."""
    from softmix.checks.fits import decay_rate_decision

    Ls = [100.0, 400.0, 1600.0, 6400.0]
    curved = [L ** -0.7 * math.log(L) ** 2 for L in Ls]  # a slowly varying factor: not a straight log-log line
    for finite in (True, False):
        d = decay_rate_decision(0.01, Ls, curved, [1e-4 * v for v in curved], finite, [-0.8, -0.6], 100, "rate")
        assert "goodness_of_fit" not in d and d["interval_alpha"] == 0.01


def test_decay_rate_decision_allows_the_band_below_minus_one():
    """fits.py:326: an infinite prediction allows slopes in [min(-1, band[0]), band[1]]: a band reaching below
    -1 keeps its own lower end (not -1, not min(-1, band[1]))."""
    from softmix.checks.fits import decay_rate_decision

    Ls = [100.0, 400.0, 1600.0]
    v = [L ** -0.9 for L in Ls]
    assert decay_rate_decision(0.01, Ls, v, [1e-4 * x for x in v], False, [-1.3, -0.85], 100, "r")[
        "allowed_slopes"] == [-1.3, -0.85]
    assert decay_rate_decision(0.01, Ls, v, [1e-4 * x for x in v], False, [-0.95, -0.5], 100, "r")[
        "allowed_slopes"] == [-1.0, -0.5]
