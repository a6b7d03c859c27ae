"""The POWER of each decision rule on simulated data with a known false null (issue 23 scope 2).

tests/engine/test_rules_calibration.py measures each rule's level (how often it refutes a true claim);
a rule can keep its level and lose its power (a quantile at the wrong degrees of freedom, an
interval too wide), and then false claims pass.  Here each rule meets a false null whose rejection
probability is known in closed form -- the normal power of a z-test at a chosen shift, the
non-central chi-square power of a goodness-of-fit test, the power of a slope interval against a
wrong slope, the non-central Student power of the estimated-scale interval -- and the measured
rejection rate must lie in the central 99.9 % binomial band around it.  The goodness-of-fit tests
are also shown to tell their degrees of freedom apart: the same statistics compared with the
quantile at one degree of freedom more or less fall outside the band.

Same conventions as the calibration file: alpha = 0.05 so that rates are measurable, seeded and
vectorised simulations.
"""
import math

import numpy as np
import pytest
from scipy import stats

from softmix.checks.fits import InverseLRule, SlopeRule, fit_inverse_L, fit_loglog_slope
from softmix.checks.rules import ZTest

A = 0.05
N_SIM = 1500
LS = np.array([100.0, 400.0, 1600.0, 6400.0])


def _band(p, n=N_SIM, level=1e-3):
    return stats.binom.ppf(level / 2, n, p), stats.binom.isf(level / 2, n, p)


def _in_band(count, p, n=N_SIM):
    lo, hi = _band(p, n)
    return lo <= count <= hi


# ---- z-tests --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k,shift", [(1, 2.0), (1, 3.0), (3, 3.0), (3, 4.0)])
def test_two_sided_ztest_power_is_the_normal_power(k, shift):
    """Entry 0 shifted by ``shift`` standard errors, the others true; Bonferroni over k entries:
    P(refute) = 1 - P(|Z + shift| <= zc) P(|Z| <= zc)^(k-1), zc = z_{alpha / 2k}."""
    rng = np.random.default_rng(100 + k)
    se = np.array([0.1, 0.3, 0.02])[:k]
    pred = np.array([1.0, -2.0, 0.5])[:k]
    est = pred + se * rng.standard_normal((N_SIM, k))
    est[:, 0] += shift * se[0]
    rule = ZTest(A)
    refuted = sum(rule.decide(e, se, pred)["verdict"] == "refuted" for e in est)
    zc = stats.norm.isf(A / (2 * k))
    accept_shifted = stats.norm.cdf(zc - shift) - stats.norm.cdf(-zc - shift)
    power = 1 - accept_shifted * (1 - A / k) ** (k - 1)
    assert _in_band(refuted, power), (refuted, power * N_SIM, _band(power))


@pytest.mark.parametrize("sides,shift", [("upper", 2.5), ("lower", -2.5), ("upper", -2.5), ("lower", 2.5)])
def test_one_sided_ztest_power_is_the_normal_power(sides, shift):
    """'upper' refutes an estimate significantly above the prediction: power Phi(shift - z_alpha)
    (and Phi(-z_alpha - |shift|), almost nothing, for a shift the wrong way); 'lower' mirrors it."""
    rng = np.random.default_rng(200 + int(10 * shift) + (sides == "upper"))
    se = 0.05
    est = 2.0 + shift * se + se * rng.standard_normal(N_SIM)
    rule = ZTest(A, sides=sides)
    refuted = sum(rule.decide(e, se, 2.0)["verdict"] == "refuted" for e in est)
    zc = stats.norm.isf(A)
    power = stats.norm.cdf((shift if sides == "upper" else -shift) - zc)
    assert _in_band(refuted, power), (refuted, power * N_SIM, _band(power))


# ---- goodness of fit: non-central chi-square ------------------------------------------------------------
def _wls_noncentrality(X, mu, w):
    """min_beta sum w (mu - X beta)^2: the non-centrality of the WLS chi-square when the model misses mu."""
    beta = np.linalg.solve(X.T @ (w[:, None] * X), X.T @ (w * mu))
    r = mu - X @ beta
    return float(np.sum(w * r**2))


def _gof_band_checks(stats_, dof, lam, alpha_gof):
    """The measured rejection count of the statistics ``stats_`` at the chi-square quantile with ``dof``
    degrees of freedom lies in the band of the non-central chi-square power; with dof - 1 or dof + 1
    it does not (the test can tell its degrees of freedom)."""
    power = stats.ncx2.sf(stats.chi2.isf(alpha_gof, dof), dof, lam)
    count = int(np.sum(stats_ > stats.chi2.isf(alpha_gof, dof)))
    assert _in_band(count, power), (count, power * N_SIM, _band(power))
    for wrong in (dof - 1, dof + 1):
        if wrong < 1 or lam < 1e-9:  # at the level the band is too wide to tell dof apart; at power it is not
            continue
        wrong_count = int(np.sum(stats_ > stats.chi2.isf(alpha_gof, wrong)))
        assert not _in_band(wrong_count, power), (wrong, wrong_count, _band(power))
    return count


@pytest.mark.parametrize("curvature", [0.0, 0.009])
def test_slope_rule_goodness_of_fit_has_the_noncentral_chi_square_power(curvature):
    """log v = c + s log L + kappa (log L - 7.5)^2 + noise, fitted with the straight line: the
    chi-square statistic is non-central chi-square with n - 2 = 2 degrees of freedom and
    non-centrality the weighted squared distance of the curve to the best line (0 under the
    power law: then the band is the level alpha / 2)."""
    rng = np.random.default_rng(300 + int(curvature * 1000))
    x = np.log(LS)
    s = np.full(4, 0.01)  # SE of log v
    mu = math.log(3.0) - 0.5 * x + curvature * (x - 7.5) ** 2
    logv = mu + s * rng.standard_normal((N_SIM, 4))
    v = np.exp(logv)
    rule = SlopeRule(A, target=-0.5)
    decisions = [rule.decide(LS, vi, vi * s) for vi in v]
    chi2s = np.array([d["goodness_of_fit"]["chi2"] for d in decisions])
    assert all(d["goodness_of_fit"]["dof"] == 2 for d in decisions)
    X = np.vstack([np.ones(4), x]).T
    lam = _wls_noncentrality(X, mu, 1 / s**2)
    assert (lam == pytest.approx(0, abs=1e-9)) if curvature == 0 else 5 < lam < 30, lam
    count = _gof_band_checks(chi2s, 2, lam, A / 2)
    assert count == sum(not d["goodness_of_fit"]["passed"] for d in decisions)  # the rule's own decisions


def test_slope_rule_with_remainder_goodness_of_fit_has_one_degree_of_freedom():
    """With the O(1/L) remainder column the line has 3 parameters: 1 residual degree of freedom."""
    rng = np.random.default_rng(310)
    x = np.log(LS)
    s = np.full(4, 0.01)
    mu = math.log(3.0) - 0.5 * x + 20.0 / LS + 0.015 * (x - 7.5) ** 2
    v = np.exp(mu + s * rng.standard_normal((N_SIM, 4)))
    decisions = [SlopeRule(A, target=-0.5, remainder=True).decide(LS, vi, vi * s) for vi in v]
    assert all(d["goodness_of_fit"]["dof"] == 1 for d in decisions)
    chi2s = np.array([d["goodness_of_fit"]["chi2"] for d in decisions])
    X = np.vstack([np.ones(4), x, 1 / LS]).T
    lam = _wls_noncentrality(X, mu, 1 / s**2)
    assert 2 < lam < 30, lam
    _gof_band_checks(chi2s, 1, lam, A / 2)


@pytest.mark.parametrize("c2", [0.0, 200.0])
def test_inverse_L_goodness_of_fit_has_the_noncentral_chi_square_power(c2):
    """y(L) = a + b/L + c2/L^2 + noise fitted with a + b/L over 4 lengths: chi-square with 2 degrees of
    freedom and the non-centrality of the missed 1/L^2 term (one coordinate: level alpha / 2)."""
    rng = np.random.default_rng(400 + int(c2))
    L = np.array([30.0, 60.0, 120.0, 240.0])
    se = np.full(4, 0.01)
    mu = 2.0 + 15.0 / L + c2 / L**2
    y = mu + se * rng.standard_normal((N_SIM, 4))
    rule = InverseLRule(A)
    decisions = [rule.decide(L, yi, se, 2.0) for yi in y]
    gof = [d["goodness_of_fit"] for d in decisions]
    assert all(g["dof"] == 2 and g["n_tests"] == 1 for g in gof)
    chi2s = np.array([g["chi2"][0] for g in gof])
    X = np.vstack([np.ones(4), 1 / L]).T
    lam = _wls_noncentrality(X, mu, 1 / se**2)
    assert (lam == pytest.approx(0, abs=1e-9)) if c2 == 0 else 5 < lam < 30, lam
    count = _gof_band_checks(chi2s, 2, lam, A / 2)
    assert count == sum(not g["passed"] for g in gof)
    assert fit_inverse_L(L, y[0], se)["dof_per_coordinate"] == 2


# ---- slope intervals against a wrong slope --------------------------------------------------------------
@pytest.mark.parametrize("remainder", [False, True])
@pytest.mark.parametrize("delta_se", [2.0, 3.5])
def test_slope_interval_rejects_a_wrong_slope_with_the_normal_power(remainder, delta_se):
    """True slope -1/2; the interval (normal quantile, known SEs) is asked whether it contains
    -1/2 + delta, delta = ``delta_se`` slope standard errors: P(reject) = Phi(-q - d) + Phi(-q + d)."""
    rng = np.random.default_rng(500 + int(10 * delta_se) + remainder)
    x = np.log(LS)
    s = np.full(4, 0.02)
    mu = math.log(3.0) - 0.5 * x + (30.0 / LS if remainder else 0.0)
    v = np.exp(mu + s * rng.standard_normal((N_SIM, 4)))
    X = np.vstack([np.ones(4), x] + ([1 / LS] if remainder else [])).T
    se_slope = math.sqrt(np.linalg.inv(X.T @ (X / s[:, None] ** 2))[1, 1])
    target = -0.5 + delta_se * se_slope
    q = stats.norm.isf(A / 2)
    rejected = 0
    for vi in v:
        f = fit_loglog_slope(LS, vi, vi * s, alpha=A, remainder=remainder)
        assert f["slope_se"] == pytest.approx(se_slope, rel=1e-9)
        rejected += not (f["ci"][0] <= target <= f["ci"][1])
    power = stats.norm.cdf(-q - delta_se) + stats.norm.cdf(-q + delta_se)
    assert _in_band(rejected, power), (rejected, power * N_SIM, _band(power))


def test_slope_rule_refutes_a_wrong_slope_at_the_power_of_its_half_alpha_interval():
    """The rule spends alpha/2 on the interval (alpha/2 on the fit): against a wrong slope on a true
    power law its refutation rate is the interval's power at alpha/2 plus the fit's level, minus both."""
    rng = np.random.default_rng(520)
    x = np.log(LS)
    s = np.full(4, 0.02)
    v = np.exp(math.log(3.0) - 0.5 * x + s * rng.standard_normal((N_SIM, 4)))
    X = np.vstack([np.ones(4), x]).T
    se_slope = math.sqrt(np.linalg.inv(X.T @ (X / s[:, None] ** 2))[1, 1])
    d = 3.0
    rule = SlopeRule(A, target=-0.5 + d * se_slope)
    refuted = sum(rule.decide(LS, vi, vi * s)["verdict"] == "refuted" for vi in v)
    q = stats.norm.isf(A / 4)
    p_int = stats.norm.cdf(-q - d) + stats.norm.cdf(-q + d)
    power = 1 - (1 - p_int) * (1 - A / 2)  # the interval and the chi-square fit are independent (Gaussian WLS)
    assert _in_band(refuted, power), (refuted, power * N_SIM, _band(power))


# ---- Student / F variants -------------------------------------------------------------------------------
@pytest.mark.parametrize("noise_factor,shift", [(1.0, 4.0), (3.0, 6.0)])
def test_estimated_scale_interval_has_the_noncentral_student_power(noise_factor, shift):
    """scale='estimated': (slope - target) / estimated SE is non-central Student with n - 2 = 2 degrees
    of freedom and non-centrality delta / (noise_factor * SE), delta = ``shift`` true slope SEs; the
    interval rejects when its absolute value passes t_{alpha/2, 2} (with the quantile of 3 degrees of
    freedom the rate leaves the band)."""
    rng = np.random.default_rng(600 + int(noise_factor))
    x = np.log(LS)
    s = np.full(4, 0.02)
    v = np.exp(math.log(3.0) - 0.5 * x + noise_factor * s * rng.standard_normal((N_SIM, 4)))
    X = np.vstack([np.ones(4), x]).T
    se_true = noise_factor * math.sqrt(np.linalg.inv(X.T @ (X / s[:, None] ** 2))[1, 1])
    delta = shift * se_true
    target = -0.5 + delta
    tstat = []
    for vi in v:
        f = fit_loglog_slope(LS, vi, vi * s, alpha=A, scale="estimated")
        assert f["quantile"] == "Student t, 2 dof"
        tstat.append((f["slope"] - target) / f["slope_se"])
        assert (not (f["ci"][0] <= target <= f["ci"][1])) == (abs(tstat[-1]) > stats.t.isf(A / 2, 2))
    tstat = np.abs(np.array(tstat))
    nc = -delta / se_true
    power = stats.nct.sf(stats.t.isf(A / 2, 2), 2, nc) + stats.nct.cdf(-stats.t.isf(A / 2, 2), 2, nc)
    assert 0.3 < power < 0.9, power
    rejected = int(np.sum(tstat > stats.t.isf(A / 2, 2)))
    assert _in_band(rejected, power), (rejected, power * N_SIM, _band(power))
    wrong = int(np.sum(tstat > stats.t.isf(A / 2, 3)))
    assert not _in_band(wrong, power), (wrong, _band(power))


def test_studentized_variants_keep_the_known_scale_power_when_the_standard_errors_are_precise():
    """Standard errors estimated from 400 draws per length (se_dof ~ 399): the Student interval and the
    F goodness of fit of SlopeRule have (to within the band) the normal-quantile power of the interval
    at alpha / 2 against a wrong slope, and refute the true slope at most at alpha."""
    rng = np.random.default_rng(700)
    n_per, cv = 400, 0.2
    mu = 3.0 * LS**-0.5
    draws = mu[None, :, None] * (1 + cv * rng.standard_normal((N_SIM, 4, n_per)))
    v = draws.mean(2)
    se = draws.std(2, ddof=1) / math.sqrt(n_per)
    dof = np.full((N_SIM, 4), n_per - 1.0)
    s = np.full(4, cv / math.sqrt(n_per))  # SE of log v at the truth
    X = np.vstack([np.ones(4), np.log(LS)]).T
    se_slope = math.sqrt(np.linalg.inv(X.T @ (X / s[:, None] ** 2))[1, 1])
    d = 3.0
    wrong = SlopeRule(A, target=-0.5 + d * se_slope)
    decisions = [wrong.decide(LS, vi, si, se_dof=di) for vi, si, di in zip(v, se, dof)]
    assert all("Student" in x["rule"] and "F(" in x["goodness_of_fit"]["distribution"] for x in decisions)
    refuted = sum(x["verdict"] == "refuted" for x in decisions)
    q = stats.norm.isf(A / 4)
    p_int = stats.norm.cdf(-q - d) + stats.norm.cdf(-q + d)
    power = 1 - (1 - p_int) * (1 - A / 2)
    assert _in_band(refuted, power), (refuted, power * N_SIM, _band(power))
