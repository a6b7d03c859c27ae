"""Known answers at the boundaries of the precision-derived rules and the lattice's ranks (checks/rules.py,
checks/verdicts.py).

``residual_test(residual, dps, scale, guard)`` passes when ``|residual| <= 10^(guard - dps) * max(1,
|scale|)`` (its docstring; ``Residual`` in docs/writing-claims.md): the floor 1 acts for |scale| < 1,
the scale for |scale| > 1.  Each case sits just inside or just outside that tolerance.
"""
from fractions import Fraction

import mpmath as mpm
import numpy as np
import pytest

from softmix.checks import rules, verdicts
from softmix.checks.rules import EPS64, Residual, residual_test


def mp(s):
    return mpm.mpf(s)


@pytest.mark.parametrize("scale", [0, mp("0.5"), mp("-0.5"), 1, Fraction(9, 10), mp("1e-30")])
def test_residual_tolerance_has_a_floor_of_one_below_unit_scale(scale):
    # dps 30, guard 10: the tolerance is 10^-20 whatever the scale below one
    assert residual_test(mp("0.9e-20"), 30, scale=scale)["passed"] is True
    assert residual_test(mp("1e-20"), 30, scale=scale)["passed"] is True  # the bound itself passes (<=)
    assert residual_test(mp("1.5e-20"), 30, scale=scale)["passed"] is False  # between 10^-20 and 2 * 10^-20
    assert residual_test(mp("-1.5e-20"), 30, scale=scale)["passed"] is False  # |residual|
    assert residual_test(mp("1.01e-20"), 30, scale=scale)["passed"] is False
    assert residual_test(mp("1.5e-20"), 30, scale=scale)["tolerance"] == "1.0e-20"


@pytest.mark.parametrize("scale", [1000, mp("-1000"), 1000.0, Fraction(1000)])
def test_residual_tolerance_grows_with_a_scale_above_one(scale):
    assert residual_test(mp("9e-18"), 30, scale=scale)["passed"] is True  # 10^-20 * 1000 = 10^-17
    assert residual_test(mp("-9e-18"), 30, scale=scale)["passed"] is True
    assert residual_test(mp("1.1e-17"), 30, scale=scale)["passed"] is False
    assert residual_test(mp("1.1e-17"), 30, scale=scale)["tolerance"] == "1.0e-17"


def test_residual_guard_and_dps_set_the_exponent():
    assert residual_test(mp("9e-26"), 30, guard=5)["passed"] is True  # 10^(5 - 30)
    assert residual_test(mp("2e-25"), 30, guard=5)["passed"] is False
    assert residual_test(mp("9e-11"), 20)["passed"] is True and residual_test(mp("2e-10"), 20)["passed"] is False
    out = residual_test(Fraction(1, 10**25), 30)
    assert out["passed"] is True and out["dps"] == 30 and out["residual"] == "1.0e-25"


def test_residual_rule_reads_arrays_by_their_largest_entry_and_says_its_digits():
    r = Residual(digits=20)  # dps 30, guard 10: tolerance 10^-20 * max(1, |scale|)
    assert (r.dps, r.guard, r.digits) == (30, 10, 20)
    assert r.decide([mp("1e-30"), mp("-1.5e-20")])["verdict"] == "refuted"
    assert r.decide([mp("1e-30"), mp("-0.5e-20")])["verdict"] == "confirmed"
    assert r.decide(np.array([0.0, 1.5e-18]), scale=[mp("-200"), 3])["verdict"] == "confirmed"  # 2 * 10^-18
    assert r.decide(np.array([0.0, 2.5e-18]), scale=[mp("-200"), 3])["verdict"] == "refuted"
    assert r.decide(0)["digits"] == 20
    assert Residual(50).digits == 40 and Residual(dps=50, guard=5).digits == 45


def test_the_lattice_ranks_are_strictly_ordered_as_documented():
    """verified < confirmed < unproven < inconclusive < error < refuted (README; 'unproven' between
    confirmed and inconclusive, verdicts.py)."""
    order = ["verified", "confirmed", "unproven", "inconclusive", "error", "refuted"]
    ranks = [verdicts.rank(v) for v in order]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert verdicts.rank("anything else") == verdicts.rank("error")
    # the row mapper takes the worst by that order: unproven beats a proof, loses to inconclusive
    assert verdicts.verdict_of([{"status": "unproven"}, {"passed": True}], "symbolic") == "unproven"
    assert verdicts.verdict_of([{"passed": True}, {"status": "unproven"}], "symbolic") == "unproven"
    assert verdicts.verdict_of([{"status": "unproven"}, {"passed": None}], "symbolic") == "inconclusive"
    assert verdicts.verdict_of([{"passed": None}, {"status": "unproven"}], "symbolic") == "inconclusive"


def test_documented_constants():
    assert EPS64 == np.finfo(np.float64).eps == 2.0 ** -52  # "eps = 2^-52" (docs/writing-claims.md)
    assert rules.ALPHA == 1e-3  # one family-wise alpha of 1e-3 per claim (docs/finite-prompt.md, README)


# ---- survivors of the recorded engine run (seed 2084884): the fits, by known answers -------------------
def test_fit_inverse_L_recovers_both_coefficients_of_exact_data():
    from softmix.checks.fits import fit_inverse_L

    Ls = [10, 20, 40, 80]
    f = fit_inverse_L(Ls, [2 + 3 / L for L in Ls], [0.1, 0.2, 0.1, 0.3])
    assert f["limit"][0] == pytest.approx(2, abs=1e-12) and f["inverse_L_coefficient"][0] == pytest.approx(3, abs=1e-10)
    assert f["chi2"] == pytest.approx(0, abs=1e-18) and f["dof"] == 2


def test_gof_degrees_of_freedom_weigh_each_point_by_one_minus_its_leverage():
    """gof_se_dof = Welch-Satterthwaite of the chi-square terms with shares 1 - h_ii, h the leverages of the
    weighted fit (unequal standard errors, so that the weights matter); the leverages sum to p."""
    from softmix.checks.fits import _satterthwaite, fit_loglog_slope

    Ls, v = np.array([10.0, 20, 40, 80, 160]), np.array([1.0, 0.52, 0.24, 0.13, 0.061])
    ses, nus = np.array([0.01, 0.02, 0.004, 0.01, 0.003]), np.array([5.0, 9, 30, 12, 60])
    f = fit_loglog_slope(Ls, v, ses, se_dof=nus)
    X = np.vstack([np.ones(5), np.log(Ls)]).T
    sw = v / ses  # sqrt of the weights of the log values
    Xw = X * sw[:, None]
    h = np.diag(Xw @ np.linalg.inv(Xw.T @ Xw) @ Xw.T)
    assert h.sum() == pytest.approx(2)
    assert f["gof_se_dof"] == pytest.approx(_satterthwaite(1 - h, nus), rel=1e-12)


def test_slope_rule_tests_the_fit_by_default():
    """SlopeRule's goodness-of-fit test is on by default: a curved log-log series whose slope interval covers
    the target is refuted by the chi-square test alone, and reports it."""
    from softmix.checks.fits import SlopeRule

    Ls = [10, 20, 40, 80, 160]
    v = [L ** -1.0 * (1 + 0.3 * (-1) ** k) for k, L in enumerate(Ls)]  # zig-zag around slope -1
    r = SlopeRule(1e-3, target=-1.0).decide(Ls, v, [1e-3 * x for x in v])
    assert "goodness_of_fit" in r and r["goodness_of_fit"]["passed"] is False and r["verdict"] == "refuted"
    # the rule's text says which it is: with the test, "and the model fits"; without, "no goodness-of-fit test"
    on, off = SlopeRule(1e-3, target=-1.0).describe(), SlopeRule(1e-3, target=-1.0, gof=False).describe()
    assert "chi-square goodness of fit" in on and "the model fits" in on and "no goodness-of-fit" not in on
    assert "no goodness-of-fit test" in off and "the model fits" not in off


def test_float64_agreement_tolerance_is_ulps_times_condition_times_double_epsilon():
    """eps = 2^-52 (numpy's float64 epsilon); the tolerance at the default scale 1 is the relative one."""
    from softmix.checks.rules import EPS64, Float64Agreement

    assert EPS64 == np.finfo(float).eps == 2.0 ** -52
    r = Float64Agreement(condition=3.0, ulps=8)
    assert r.rtol == 24 * 2.0 ** -52
    assert r.tolerance() == r.rtol and r.tolerance(10.0) == 10 * r.rtol and r.tolerance(0.1) == r.rtol


@pytest.mark.parametrize("strict", [False, True])
def test_bound_adds_its_declared_slack_on_both_forms(strict):
    from softmix.checks.rules import Bound

    b = Bound(slack=Fraction(1, 10), strict=strict)
    assert b.decide(Fraction(105, 100), 1)["passed"] is True  # inside rhs + slack
    assert b.decide(Fraction(12, 10), 1)["passed"] is False
    assert Bound(slack=0, strict=strict).decide(Fraction(105, 100), 1)["passed"] is False


def test_bound_shows_high_precision_sides_to_15_digits():
    from softmix.checks.rules import Bound

    r = Bound().decide(mpm.mpf(1) / 3, Fraction(1, 2))
    assert r["lhs"] == "0.333333333333333" and r["rhs"] == "0.5"  # (mixed sides: compared and shown in mpmath)


# ---- survivors of the engine run on f883275 (seed 260584053) --------------------------------------------
def test_t_critical_is_two_sided_by_default():
    from scipy import stats

    assert rules.t_critical(10, 0.05) == pytest.approx(float(stats.t.isf(0.025, 10)), rel=1e-14)
    assert rules.t_critical(10, 0.05, sides=1) == pytest.approx(float(stats.t.isf(0.05, 10)), rel=1e-14)
    assert rules.t_critical(0, 0.05) == rules.t_critical(1, 0.05)  # at least one degree of freedom


@pytest.mark.parametrize("sides,z,passed", [("lower", -1.0, True), ("upper", 1.0, True), ("two", 1.0, True),
                                            ("two", -1.0, True)])
def test_a_z_score_exactly_at_the_critical_value_is_not_rejected(sides, z, passed):
    """The rejection region is open: |z| = z_crit (on the tested side) passes."""
    one = 1 if sides != "two" else 2
    zc = rules.z_critical(1, 1e-3, one)
    r = rules.ZTest(1e-3, sides=sides).decide([z * zc], [1.0], [0.0])
    assert r["passed"] is passed
    beyond = rules.ZTest(1e-3, sides=sides).decide([z * zc * (1 + 1e-9)], [1.0], [0.0])
    assert beyond["passed"] is False


def test_chi_square_calibration_interval_is_the_two_sided_alpha_over_two_quantiles():
    from scipy import stats

    r = rules.ChiSquareCalibration(0.01).decide([0.5, -1.0, 1.2, 0.1])
    assert r["interval"] == pytest.approx([stats.chi2.ppf(0.005, 4), stats.chi2.isf(0.005, 4)], rel=1e-14)
    assert r["chi2"] == pytest.approx(0.25 + 1 + 1.44 + 0.01) and r["dof"] == 4


def test_chi_square_calibration_interval_is_closed(monkeypatch):
    """A sum exactly at either end of the interval is inside (closed interval): the quantiles are set to 1/4
    and 4, which z = 1/2 and z = 2 reach exactly."""
    import types

    rule = rules.ChiSquareCalibration(0.01)
    monkeypatch.setattr(rules, "stats", types.SimpleNamespace(
        chi2=types.SimpleNamespace(ppf=lambda a, n: 0.25, isf=lambda a, n: 4.0)))
    assert rule.decide([0.5])["passed"] is True and rule.decide([2.0])["passed"] is True
    assert rule.decide([0.4999])["passed"] is False and rule.decide([2.0001])["passed"] is False


# ---- survivors of the exploration run on 9b4aedb -----------------------------------------------------------
def test_fit_inverse_L_counts_degrees_of_freedom_per_coordinate_and_in_all():
    """Two coordinates over three lengths: each fit a + b/L leaves 3 - 2 = 1 dof, 2 in all; the total chi2 is
    the sum of the coordinates' chi2."""
    from softmix.checks.fits import fit_inverse_L

    Ls = [10, 20, 40]
    y = [[1 + 2 / L + (0.01 if i == 1 else 0), -3 + 1 / L - (0.02 if i == 2 else 0)] for i, L in enumerate(Ls)]
    f = fit_inverse_L(Ls, y, [[0.01, 0.02]] * 3)
    assert f["dof"] == 2 and f["dof_per_coordinate"] == 1 and len(f["chi2_per_coordinate"]) == 2
    assert all(c > 0 for c in f["chi2_per_coordinate"])
    assert f["chi2"] == pytest.approx(sum(f["chi2_per_coordinate"]), rel=1e-12)


def test_a_sub_family_takes_the_whole_alpha_by_default():
    from softmix.checks.rules import AlphaFamily

    fam = AlphaFamily(0.01, name="claim")
    sub = fam.sub("all")
    assert sub.alpha == pytest.approx(0.01, rel=1e-15) and fam.remaining == pytest.approx(0, abs=1e-18)
    assert sub.name == "claim/all"


def test_z_critical_counts_fewer_than_one_test_as_one():
    from softmix.checks.rules import z_critical

    assert z_critical(0) == z_critical(1) == pytest.approx(3.2905267314919255, rel=1e-12)  # alpha 1e-3, two-sided


# ---- survivors of the recorded engine run on c23bd1c (seed 203668764) -------------------------------------
def test_slope_interval_uses_the_satterthwaite_dof_of_the_slope_weights():
    """With se_dof the slope sum_i c_i log v_i has nu = (sum a_i)^2 / sum a_i^2 / nu_i, a_i = c_i^2 se(log v_i)^2;
    c_i is the fitted slope of the i-th unit vector of log values (the fit is linear in log v), and the
    interval is slope +- t_{nu}(alpha/2) se."""
    from scipy import stats

    from softmix.checks.fits import fit_loglog_slope

    Ls = np.array([10.0, 20, 40, 80])
    v = np.array([1.0, 0.55, 0.26, 0.12])
    ses, nus = np.array([0.01, 0.03, 0.004, 0.006]), np.array([5.0, 9.0, 30.0, 12.0])
    f = fit_loglog_slope(Ls, v, ses, alpha=1e-3, se_dof=nus)
    s = ses / v
    X, W = np.vstack([np.ones(4), np.log(Ls)]).T, 1 / s**2
    c = np.array([np.linalg.solve(X.T @ (W[:, None] * X), X.T @ (W * e))[1] for e in np.eye(4)])
    a = c**2 * s**2
    nu = a.sum() ** 2 / np.sum(a**2 / nus)
    assert f["critical_value"] == pytest.approx(stats.t.isf(5e-4, nu), rel=1e-10)
    assert f["slope"] == pytest.approx(float(c @ np.log(v)), rel=1e-12)
    q, se = f["critical_value"], f["slope_se"]
    assert f["ci"] == pytest.approx([f["slope"] - q * se, f["slope"] + q * se], rel=1e-12)
    assert f["parameters"] == 2 and fit_loglog_slope(Ls, v, ses, remainder=True)["parameters"] == 3


def test_an_estimated_scale_needs_three_distinct_lengths_not_more():
    from softmix.checks.fits import SlopeRule

    rule = SlopeRule(0.01, target=-1.0, scale="estimated", gof=False)
    two = rule.decide([10, 20], [0.1, 0.05], [0.001, 0.001], n_samples=100)
    assert two["verdict"] == "inconclusive" and two["reason"] == "need at least 3 distinct prompt lengths"
    three = rule.decide([10, 20, 40], [0.1, 0.0501, 0.0249], [0.001, 0.0005, 0.0003], n_samples=100)
    assert "fit" in three and three["fit"]["dof"] == 1


# ---- survivors of the recorded engine run on c23bd1c (seed 203668764) -------------------------------------


def test_float64_agreement_reads_a_residual_at_the_default_scale_one_and_its_tolerance_is_closed():
    """With floor 0 the default scale is what sets the tolerance: scale 1 gives ulps x condition x eps, a
    residual exactly at it passes, 1.5 times it fails (kills rules.py:494 and :502, the defaults 1 -> 0 and
    1 -> 2, and :508, ``<=`` -> ``<``)."""
    from softmix.checks.rules import Float64Agreement

    r = Float64Agreement(condition=1.0, ulps=1, floor=0.0)
    assert r.tolerance() == EPS64 and r.tolerance(0) == 0.0
    assert r.decide(EPS64)["passed"] is True
    assert r.decide(1.5 * EPS64)["passed"] is False
    assert r.decide(1.5 * EPS64, 2)["passed"] is True


@pytest.mark.parametrize("ulps,floor", [(0, 1.0), (-1, 1.0), (64, -1.0)])
def test_float64_agreement_rejects_no_ulps_and_a_negative_floor(ulps, floor):
    from softmix.checks.rules import Float64Agreement

    with pytest.raises(ValueError, match="ulps must be > 0 and floor >= 0"):
        Float64Agreement(ulps=ulps, floor=floor)


def test_a_relative_ztest_margin_is_the_margin_times_the_largest_predicted_entry_or_its_floor():
    """margin 0.01 relative to |predicted| = 100 is 1: an interval half-width of 2 is not precise enough, of
    0.5 it is; below the floor the floor is the scale (kills rules.py:315, the margin's factor dropped)."""
    from softmix.checks.rules import ZTest, z_critical

    rule = ZTest(alpha=0.05, margin=0.01, relative=True, floor=1.0)
    zc = z_critical(1, 0.05, 2)
    wide, narrow = rule.decide(100.0, 2.0 / zc, 100.0), rule.decide(100.0, 0.5 / zc, 100.0)
    assert wide["passed"] is True and wide["precise_enough"] is False and wide["verdict"] == "inconclusive"
    assert narrow["precise_enough"] is True and narrow["verdict"] == "confirmed"
    tiny = rule.decide(1e-3, 0.02 / zc, 1e-3)  # margin 0.01 x max(1e-3, floor 1) = 0.01 < 0.02
    assert tiny["precise_enough"] is False


def test_rules_describe_what_they_decide():
    """The descriptions a report prints say the relative margin and the bound's slack (kills rules.py:285 and
    :545, parts of the text dropped)."""
    from softmix.checks.rules import Bound, ZTest

    assert ZTest(alpha=0.05, margin=0.01, relative=True).describe().endswith(
        "level 0.05; confirmed only if the interval half-width <= 0.01 x |predicted|; "
        "zero/non-finite standard error -> inconclusive")
    assert "x |predicted|" not in ZTest(alpha=0.05, margin=0.01).describe()
    assert Bound(slack=Fraction(1, 10)).describe() == "bound: lhs <= rhs + 1/10 (exact or high precision)"
    assert Bound(strict=True).describe() == "bound: lhs < rhs (exact or high precision)"


@pytest.mark.parametrize("scale", [float("nan"), float("inf"), [1.0, float("nan")], mpm.mpf("inf")])
def test_float64_agreement_with_a_non_finite_scale_cannot_decide(scale):
    """A NaN or infinite reference gives no tolerance: inconclusive, not the floor's tolerance (before, a NaN
    scale silently read as the floor and passed a small residual)."""
    from softmix.checks.rules import Float64Agreement

    r = Float64Agreement().decide(0.0, scale)
    assert r["passed"] is None and r["verdict"] == "inconclusive" and "scale" in r["reason"]


def test_a_slope_fit_with_one_residual_degree_of_freedom_reports_its_reduced_chi_square():
    """Three lengths, two parameters: dof 1 and reduced chi-square = chi-square (kills fits.py:185, ``dof > 0``
    -> ``dof > 1``); with two lengths there is none."""
    from softmix.checks.fits import fit_loglog_slope

    f = fit_loglog_slope([100, 200, 400], [1.0, 0.52, 0.25], [0.01, 0.01, 0.01])
    assert f["dof"] == 1 and f["chi2"] > 0 and f["reduced_chi2"] == f["chi2"]
    assert fit_loglog_slope([100, 400], [1.0, 0.25], [0.01, 0.01])["reduced_chi2"] is None


@pytest.mark.parametrize("residual,shown",
                         [(float("nan"), "nan"), (float("inf"), "+inf"), ([0.0, float("-inf")], "+inf")])
def test_float64_agreement_on_a_non_finite_residual_shows_it(residual, shown):
    """The inconclusive row says what the residual was, written like any other residual (kills rules.py:505,
    ``mpm.nstr(res, 5)`` -> ``mpm.nstr(5, res)``, a TypeError the row would have turned into an error)."""
    from softmix.checks.rules import Float64Agreement

    r = Float64Agreement().decide(residual)
    assert r["passed"] is None and r["verdict"] == "inconclusive" and "non-finite" in r["reason"]
    assert r["residual"] == shown


def test_fmt_shows_six_significant_digits_of_floats_and_mpfs():
    """The numbers in reasons and rule texts: six significant digits by default, for floats and mpfs alike."""
    assert rules.fmt(2 / 3) == "0.666667" and rules.fmt(mpm.mpf(1) / 3) == "0.333333"
    assert rules.fmt(123456789.0) == "1.23457e+08" and rules.fmt(2 / 3, 3) == "0.667"


def test_chi_square_calibration_of_no_runs_cannot_decide():
    r = rules.ChiSquareCalibration(0.01).decide([])
    assert r["verdict"] == "inconclusive" and r["passed"] is None and "cannot decide" in r["reason"]


def test_residual_test_reports_its_tolerance_to_three_digits_and_residual_to_five():
    """|residual| <= 10^(guard - dps) max(1, |scale|): at dps 30, guard 10, scale 3.75 the tolerance is 3.75e-20."""
    r = rules.residual_test(mpm.mpf("1.234567e-20"), 30, scale=mpm.mpf("3.75"))
    assert r == {"passed": True, "residual": "1.2346e-20", "tolerance": "3.75e-20", "dps": 30}
    assert rules.residual_test(mpm.mpf("3.76e-20"), 30, scale=mpm.mpf("3.75"))["passed"] is False


# ---- lines no test ran (the test map of the engine run on 2026d72) ----------------------------------------------
def test_ztest_broadcasts_one_standard_error_over_the_entries():
    """rules.py:295: one standard error for three estimates is that error for each (z = (1, 2, 3) here)."""
    d = rules.ZTest(0.01).decide([0.1, 0.2, 0.3], 0.1, [0.0, 0.0, 0.0])
    assert d["z"] == pytest.approx([1.0, 2.0, 3.0], rel=1e-12)


def test_bound_compares_sympy_rationals_exactly_and_cannot_decide_on_a_side_it_cannot_read():
    """rules.py:558, :574: a SymPy rational side stays exact (1/3 <= 1/3 holds, 2/3 <= 1/3 does not, where
    p/q read as q/p would flip both); a side that is not a number is 'inconclusive', never a pass."""
    import sympy as sp

    assert rules.Bound().decide(sp.Rational(1, 3), Fraction(1, 3))["passed"] is True
    assert rules.Bound().decide(sp.Rational(2, 3), Fraction(1, 3))["passed"] is False
    assert rules.Bound().decide(Fraction(1, 2), sp.Rational(2, 3))["passed"] is True
    bad = rules.Bound().decide("not a number", 1)
    assert bad["passed"] is None and bad["verdict"] == "inconclusive" and bad["reason"] == "non-finite side"
