"""Verdicts of `softmix risk --mc` and `softmix finite-prompt --mc` (issue 26), tested as processes: exit codes,
the `decision` object, the one-line summary on stderr, and the reach rules (docs/finite-prompt.md, sec. 10)."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest

ICL = {"icl_regression": {"d": 5, "noise_variance": "0.1", "omega": ["0.3", "-0.2"], "mu": ["1.5", "0.8"]}}
EXACT = 8.23927459307818  # the closed form on ICL (the published loss approximation: 6.697)
MIX4 = {"weights": ["0.3", "0.25", "0.25", "0.2"],
        "means": [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"], ["-0.6", "-0.6", "0.5"]],
        "covariances": [[["0.12", "0", "0"], ["0", "0.12", "0"], ["0", "0", "0.12"]]] * 4}
EYE3 = [["1", "0", "0"], ["0", "1", "0"], ["0", "0", "1"]]
QUERY = "0.9,0.2,-0.1"


def softmix(*args):
    return subprocess.run([sys.executable, "-m", "softmix", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def files(tmp_path):
    def write(name, obj):
        p = tmp_path / name
        p.write_text(json.dumps(obj))
        return str(p)
    return write


def _scaled(c):
    return [[c if i == j else "0" for j in range(3)] for i in range(3)]


def _risk(files, *extra):
    r = softmix("risk", "--setting", files("icl.json", ICL), "--mc", "100,400,1600", "--reps", 3000, "--seed", 11,
                *extra)
    doc = json.loads(r.stdout) if r.stdout else None
    return r, doc


def test_risk_compare_published_constant_is_refuted(files):
    r, doc = _risk(files, "--compare", "6.697")
    assert r.returncode == 1, r.stderr
    d = doc["decision"]
    assert d["verdict"] == "refuted" and d["value_tested"] == 6.697
    assert abs(d["closed_form"] - EXACT) < 1e-9
    lo, hi = d["interval"]
    assert lo > 6.697 and lo <= EXACT <= hi  # the simulation sees the exact constant, not the published one
    line = r.stderr.strip()
    assert "\n" not in line and "refuted" in line and "closed form 8.2393" in line and "tested 6.697" in line


def test_risk_compare_exact_constant_exits_0(files):
    r, doc = _risk(files, "--compare", "8.2393")
    assert r.returncode == 0, r.stderr
    assert doc["decision"]["verdict"] == "confirmed" and "confirmed" in r.stderr


def test_risk_without_compare_prints_limit_closed_form_and_verdict(files):
    r, doc = _risk(files)
    assert r.returncode == 0, r.stderr
    d = doc["decision"]
    assert d["verdict"] in ("confirmed", "inconclusive") and d["reason"]
    assert d["statement"] == "lim L (R_L - R_inf) == the closed form" and d["reach"]["inside"]
    assert d["interval"][0] < d["fitted_limit"] < d["interval"][1] and abs(d["closed_form"] - EXACT) < 1e-9
    assert d["alpha"]["family_alpha"] == 1e-3 and abs(d["alpha"]["spent"] - 1e-3) < 1e-15
    assert doc["setting"]["kind"] == "icl_regression"
    for needle in ("lim L (R_L - R_inf) = ", "closed form 8.2393", d["verdict"]):
        assert needle in r.stderr


def test_finite_prompt_rho_near_80_is_inconclusive_not_refuted(files):
    """Smart et al.'s failure rebuilt: rho = 82 leaves L / rho = 6 effective tokens at L = 499.  The fit a + b/L is
    far from the (correct) closed form there -- the old rule said refuted -- but the expansion has not started:
    inconclusive, with its reason and the prompt lengths that would settle it."""
    m, u, v = files("m.json", MIX4), files("u.json", _scaled("5.6")), files("v.json", EYE3)
    r = softmix("finite-prompt", "--mixture", m, "--U", u, "--V", v, "--query", QUERY, "--mc", "499,2000,8000",
                "--reps", 400, "--seed", 2)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert 75 < doc["rho"] < 90
    d = doc["decision"]
    assert d["verdict"] == "inconclusive" and "few effective tokens" in d["reason"]
    assert d["reach"]["inside"] is False and d["settle"]["prompt_lengths"][0] >= 10**5
    assert not (d["interval"][0] <= d["closed_form"] <= d["interval"][1])  # what a bare z-test would have refuted
    assert "inconclusive" in r.stderr and "prompt lengths that would settle it" in r.stderr
    r = softmix("finite-prompt", "--mixture", m, "--U", u, "--V", v, "--query", QUERY, "--mc", "499,2000",
                "--reps", 50, "--seed", 2, "--strict")
    assert r.returncode == 1 and json.loads(r.stdout)["decision"]["verdict"] == "inconclusive"


def test_finite_prompt_inside_reach_wrong_compare_is_refuted_and_closed_form_confirmed(files):
    m, u, v = files("m.json", MIX4), files("u.json", _scaled("1.5")), files("v.json", EYE3)
    base = ["finite-prompt", "--mixture", m, "--U", u, "--V", v, "--query", QUERY, "--mc", "100,400,1600",
            "--reps", 1000, "--seed", 5]
    r = softmix(*base, "--compare", "1.9")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    assert doc["decision"]["reach"]["inside"] and doc["decision"]["verdict"] == "refuted"
    assert abs(doc["mse_coefficient"] - 1.5873) < 1e-4 and "refuted" in r.stderr
    r = softmix(*base)
    assert r.returncode == 0 and json.loads(r.stdout)["decision"]["verdict"] == "confirmed", r.stderr


def test_risk_past_threshold_decides_the_rate_and_refutes_a_finite_constant(files):
    """The paper's two-head Bayes denoiser (lambda* = 1.586): no finite 1/L coefficient, so a published finite
    constant is refuted by the decay rate (slower than 1/L), and the text names the infinite coefficient."""
    den = files("den.json", {"denoising": {"m1": ["3", "0"], "m2": ["0", "3"], "gamma": "1", "xi": "2", "pi1": "0.3"}})
    r = softmix("risk", "--setting", den, "--mc", "100,400,1600", "--reps", 1000, "--seed", 3, "--compare", "40")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    d = doc["decision"]
    assert d["past_threshold"] and d["verdict"] == "refuted" and d["slope_interval"][1] < -0.1
    assert doc["coefficient_1_over_L"] is None and "infinite" in doc["coefficient_note"]
    assert "no finite 1/L coefficient" in doc["monte_carlo"]["reading"]
    assert "past the threshold" in r.stderr and "infinite" in r.stderr


@pytest.mark.parametrize("args,needle", [
    (["--compare", "6.7"], "--compare needs --mc"),
    (["--strict"], "--strict needs --mc"),
    (["--mc", "100", "--compare", "x"], "--compare"),
    (["--mixture", "m.json"], "--setting replaces --mixture"),
])
def test_bad_verdict_options_exit_2_one_line(files, args, needle):
    r = softmix("risk", "--setting", files("icl.json", ICL), *args)
    assert r.returncode == 2 and r.stdout == "" and needle in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_bad_setting_exit_2_one_line(files):
    r = softmix("risk", "--setting", files("s.json", {"icl_regression": {"d": 5, "noise_variance": "0.1",
                                                                          "omega": ["0.3"], "mu": ["1", "2"]}}))
    assert r.returncode == 2 and "expected 1 entries" in r.stderr and r.stderr.count("\n") == 1
    r = softmix("risk", "--mc", "100")
    assert r.returncode == 2 and "--setting" in r.stderr


# ---- the rules in process (synthetic sequences with known answers) ----------------------------------------
def _fam():
    from softmix.checks.mc_verdict import new_family

    return new_family("test")


INSIDE = {"inside": True, "allowance_coefficient": None}


def test_limit_decision_refutes_confirms_and_reports_misfit_as_inconclusive():
    from softmix.checks.mc_verdict import limit_decision

    Ls, se = [100, 400, 1600], [0.02, 0.02, 0.02]
    exact = [5.0 + 30.0 / L for L in Ls]  # a + b/L exactly, a = 5
    kw = dict(reach=INSIDE, n_samples=1000, quantity="y")
    assert limit_decision(Ls, exact, se, closed_form=5.0, family=_fam(), **kw)["verdict"] == "confirmed"
    d = limit_decision(Ls, exact, se, closed_form=5.0, compare=4.5, family=_fam(), **kw)
    assert d["verdict"] == "refuted" and d["value_tested"] == 4.5
    bent = [5.0 + 30.0 / L - 40000.0 / L**2 for L in Ls]  # a visible 1/L^2 term: the model does not fit
    d = limit_decision(Ls, bent, se, closed_form=4.0, family=_fam(), **kw)
    assert d["verdict"] == "inconclusive" and "does not fit" in d["reason"]
    assert d["settle"]["prompt_lengths"] == [4 * L for L in Ls]  # terms beyond 1/L: a grid four times longer


def test_limit_decision_reasons_say_agreement_or_imprecision_as_each_verdict_is():
    """Confirmed: the reason says the fitted limit agrees within the margin.  Not rejected but too imprecise
    (standard errors wide against 1 % of the value): inconclusive, the reason says so and names the
    replicates per length that would settle it."""
    from softmix.checks.mc_verdict import limit_decision

    Ls = [100, 400, 1600]
    exact = [5.0 + 30.0 / L for L in Ls]
    kw = dict(closed_form=5.0, reach=INSIDE, n_samples=1000, quantity="y")
    d = limit_decision(Ls, exact, [0.02] * 3, family=_fam(), **kw)
    assert d["verdict"] == "confirmed" and d["reason"].startswith("the fitted limit 5 agrees with 5")
    assert "settle" not in d
    d = limit_decision(Ls, exact, [2.0] * 3, family=_fam(), **kw)
    assert d["verdict"] == "inconclusive" and d["reason"].startswith("not rejected, but the interval half-width")
    assert d["settle"]["replicates_per_length"] > 1000


def test_limit_decision_outside_reach_spends_no_alpha_and_allowance_blocks_refutation():
    from softmix.checks.mc_verdict import limit_decision

    Ls, se = [100, 400], [0.01, 0.01]
    vals = [5.0 + 30.0 / L - 4000.0 / L**2 for L in Ls]  # two lengths: no goodness of fit, the limit is biased
    out = {"inside": False, "reason": "few effective tokens: test", "settle_lengths": [800, 3200]}
    d = limit_decision(Ls, vals, se, closed_form=5.0, reach=out, family=_fam(), n_samples=100, quantity="y")
    assert d["verdict"] == "inconclusive" and "alpha" not in d and d["settle"]["prompt_lengths"] == [800, 3200]
    d = limit_decision(Ls, vals, se, closed_form=5.0, family=_fam(), n_samples=100, quantity="y",
                       reach={"inside": True, "allowance_coefficient": 4000.0})
    assert d["verdict"] == "inconclusive" and "omitted c4" in d["reason"] and d["remainder_allowance"] > 0.1
    d = limit_decision(Ls, vals, se, closed_form=5.0, family=_fam(), n_samples=100, quantity="y", reach=INSIDE)
    assert d["verdict"] == "refuted"  # without the allowance the same data refute: the rule is what decides


def test_estimated_standard_errors_with_few_dof_do_not_refute():
    from softmix.checks.mc_verdict import limit_decision

    Ls, se = [100, 400], [0.05, 0.05]
    vals = [5.3 + 30.0 / L for L in Ls]
    kw = dict(closed_form=5.0, reach=INSIDE, n_samples=3, quantity="y")
    assert limit_decision(Ls, vals, se, family=_fam(), **kw)["verdict"] == "refuted"
    d = limit_decision(Ls, vals, se, family=_fam(), se_dof=[2.0, 2.0], **kw)
    assert d["verdict"] != "refuted" and d["se_inflation"] > 5


def test_rate_band_and_a_single_length_past_the_threshold():
    from softmix.checks.mc_verdict import rate_band, rate_decision

    lo, hi = rate_band(1.0, 0.5, [100, 1600])
    assert lo < -0.5 < hi
    d = rate_decision([400], [0.5], [0.01], lam=1.0, log_power=None, family=_fam(), n_samples=10, quantity="q")
    assert d["verdict"] == "inconclusive"


# ---- survivors of the recorded engine run (seed 2084884) -------------------------------------------------
def test_student_factor_is_welch_satterthwaite_of_the_limits_weights():
    """Two lengths 10 and 20: the limit is a = 2 y(20) - y(10), weights g = (-1, 2); with standard errors
    se and degrees of freedom nu, nu_a = (sum g^2 se^2)^2 / sum (g^2 se^2)^2 / nu, and the factor is
    t_{nu_a} / z at alpha / 2 (two lengths: no goodness of fit, the whole alpha to the interval)."""
    from scipy import stats

    from softmix.checks.mc_verdict import student_factor

    se, nu = [0.3, 0.2], [4.0, 9.0]
    a = [1 * 0.09, 4 * 0.04]
    want_nu = sum(a) ** 2 / sum(x * x / n for x, n in zip(a, nu))
    f, got_nu = student_factor([10, 20], se, nu, 1e-3)
    assert got_nu == pytest.approx(want_nu, rel=1e-12)
    assert f == pytest.approx(stats.t.isf(1e-3 / 2, want_nu) / stats.norm.isf(1e-3 / 2), rel=1e-12)


def test_rate_band_on_one_length_uses_the_local_slope_of_the_log_power():
    """One length L: the slope of (ln L)^beta in ln L is beta / ln L."""
    import math

    from softmix.checks.mc_verdict import rate_band

    lo, hi = rate_band(0.8, 0.5, [400], allowance=1.5)
    p, w = -1 / 1.6, 1 / math.log(400)
    assert [lo, hi] == pytest.approx([p - 1.0 * w, p + 2.0 * w])


def test_outside_the_reach_a_zero_standard_error_shows_no_fit():
    """A standard error of 0 is no data to fit: outside the reach the fit is not shown (and nothing raises)."""
    from softmix.checks.mc_verdict import limit_decision

    out = {"inside": False, "reason": "few effective tokens: test", "settle_lengths": [800, 3200]}
    d = limit_decision([100, 400], [5.3, 5.1], [0.01, 0.0], closed_form=5.0, reach=out, family=_fam(), n_samples=100,
                       quantity="y")
    assert d["verdict"] == "inconclusive" and "fit" not in d and "fitted_limit" not in d


# ---- survivors of the engine run on f883275 (seed 260584053) --------------------------------------------
def test_student_factor_keeps_a_satterthwaite_dof_between_one_and_two():
    """nu_a below 2 is reported as it is (the floor is 1): se (0.3, 0.2), nu (1, 1), lengths 10, 20:
    nu_a = (0.09 + 0.16)^2 / (0.09^2 + 0.16^2) = 1.855..."""
    from softmix.checks.mc_verdict import student_factor

    a = [0.09, 0.16]
    _f, nu = student_factor([10, 20], [0.3, 0.2], [1.0, 1.0], 1e-3)
    assert nu == pytest.approx(sum(a) ** 2 / sum(x * x for x in a), rel=1e-12) and 1 < nu < 2


def test_outside_the_reach_two_lengths_still_show_the_fit_and_the_reason_says_where_it_comes_from():
    from softmix.checks.mc_verdict import limit_decision

    out = {"inside": False, "reason": "few effective tokens: test", "settle_lengths": [800, 3200]}
    d = limit_decision([100, 400], [5.3, 5.1], [0.01, 0.01], closed_form=5.0, reach=out, family=_fam(),
                       n_samples=100, quantity="y")
    assert d["reason"] == "outside the expansion's reach: few effective tokens: test"
    assert d["fitted_limit"] == pytest.approx((400 * 5.1 - 100 * 5.3) / 300)  # a = (L2 y2 - L1 y1) / (L2 - L1)


def test_a_refutation_the_remainder_can_explain_asks_for_prompts_longer_by_the_documented_power_of_two():
    """Gap between z s and z s + allowance: inconclusive, settle lengths f L with f = 2^ceil(log2 max(1,
    sqrt(allowance / s))) -- f = 1 when the allowance is below s, f = 4 when it is 10 s."""
    from softmix.checks.mc_verdict import limit_decision

    Ls, ses = [100, 400], [0.01, 0.01]
    g_over_L2 = (1 / 3) / 100**2 + (4 / 3) / 400**2  # |g_i| / L_i^2, g = (-1/3, 4/3) for two lengths
    base = limit_decision(Ls, [5.0 + 30 / L for L in Ls], ses, closed_form=5.0, reach=INSIDE, family=_fam(),
                          n_samples=100, quantity="y")
    s, zc = base["limit_se"], base["z_critical"]
    for share, f in ((0.5, 1), (10.0, 4)):
        allow = share * s
        a = 5.0 + zc * s + 0.5 * allow
        d = limit_decision(Ls, [a + 30 / L for L in Ls], ses, closed_form=5.0, family=_fam(), n_samples=100,
                           quantity="y", reach={"inside": True, "allowance_coefficient": allow / g_over_L2})
        assert d["remainder_allowance"] == pytest.approx(allow, rel=1e-9)
        assert d["verdict"] == "inconclusive" and "omitted c4" in d["reason"]
        assert d["settle"]["prompt_lengths"] == [f * L for L in Ls]


def test_finite_prompt_reach_outside_names_both_thresholds():
    """One Gaussian N(0, 1), a = U z = 3: rho = e^9, far outside the reach at L = 100; the reason names the
    first correction's threshold TERM_RATIO and the omitted term's TERM_RATIO^2."""
    from softmix.checks.mc_verdict import finite_prompt_reach
    from softmix.numerics.expansion_reach import TERM_RATIO
    from softmix.numerics.mixture import GaussianMixture

    g = GaussianMixture.from_json_obj({"weights": ["1"], "means": [["0"]], "covariances": [[["1"]]]})
    r = finite_prompt_reach(g, [[3.0]], [[1.0]], [1.0], [100, 400])
    assert r["inside"] is False and r["rho"] == pytest.approx(math.exp(9), rel=1e-9)
    assert f"are not below {TERM_RATIO} and {TERM_RATIO ** 2}: the remainder" in r["reason"]


def test_summary_line_past_the_threshold_shows_the_slope_interval_and_the_allowed_range_to_3_places():
    from softmix.checks.mc_verdict import summary_line

    d = {"past_threshold": True, "lambda": 0.8, "slope": -0.61234, "slope_interval": [-0.7, -0.52],
         "allowed_slopes": [-0.78912, -0.45678], "band": [-1, 0], "verdict": "confirmed",
         "reason": "the slope interval lies within the predicted range"}
    assert summary_line("risk", d) == (
        "softmix risk: past the threshold (lambda* = 0.8 >= 1/2, the 1/L coefficient is infinite); slope -0.612 "
        "[-0.7, -0.52], allowed [-0.789, -0.457]: confirmed -- the slope interval lies within the predicted range")


# ---- survivors of the exploration run on 9b4aedb ------------------------------------------------------------
def _limit_weights_by_fitting_unit_vectors(Ls, ses):
    """a = sum g_i y_i is linear in y: g_i is the fitted limit of the i-th unit vector (fits.fit_inverse_L)."""
    from softmix.checks.fits import fit_inverse_L

    return np.array([fit_inverse_L(Ls, [1.0 if j == i else 0.0 for j in range(len(Ls))], ses)["limit"][0]
                     for i in range(len(Ls))])


def test_student_factor_weighs_three_lengths_by_their_inverse_variances():
    """Three lengths with unequal standard errors: the weights g of the limit depend on 1 / se^2 (with two
    lengths they do not), so the Satterthwaite dof is that of the weighted least-squares limit."""
    from softmix.checks.fits import _satterthwaite
    from softmix.checks.mc_verdict import student_factor

    Ls, se, nu = [10, 20, 40], [0.05, 0.2, 0.01], [4.0, 9.0, 6.0]
    g = _limit_weights_by_fitting_unit_vectors(Ls, se)
    want = _satterthwaite(g**2 * np.array(se) ** 2, np.array(nu))
    assert student_factor(Ls, se, nu, 1e-3)[1] == pytest.approx(max(1.0, want), rel=1e-10)


def test_remainder_allowance_sums_the_weights_of_three_lengths_over_L_squared():
    from softmix.checks.mc_verdict import limit_decision

    Ls, se, c = [100, 200, 400], [0.03, 0.01, 0.002], 500.0
    g = _limit_weights_by_fitting_unit_vectors(Ls, se)
    d = limit_decision(Ls, [5.0 + 30 / L for L in Ls], se, closed_form=5.0, family=_fam(), n_samples=100,
                       quantity="y", reach={"inside": True, "allowance_coefficient": c})
    assert d["remainder_allowance"] == pytest.approx(c * float(np.sum(np.abs(g) / np.array(Ls, float) ** 2)),
                                                     rel=1e-10)


def test_rate_decision_inconclusive_says_why_and_how_many_replicates_would_settle_it():
    """Past the threshold, a decay measured too noisily to place its slope: inconclusive (never refuted), with
    the rule's reason and the replicates per length that would settle it."""
    from softmix.checks.mc_verdict import rate_band, rate_decision

    Ls = [100, 200, 400, 800]
    lam = 0.8
    p = rate_band(lam, 0.5, Ls)
    vals = [L ** ((p[0] + p[1]) / 2) for L in Ls]
    d = rate_decision(Ls, vals, [0.3 * v for v in vals], lam=lam, log_power=0.5, family=_fam(), n_samples=20,
                      quantity="q")
    assert d["verdict"] == "inconclusive" and d["reason"] and "slope" in d["reason"]
    assert d["settle"]["replicates_per_length"] > 20


def test_limit_interval_is_at_the_level_of_the_limit_test():
    from softmix.checks.mc_verdict import limit_decision

    Ls, se = [100, 400, 1600], [0.02, 0.02, 0.02]
    d = limit_decision(Ls, [5.0 + 30.0 / L for L in Ls], se, closed_form=5.0, reach=INSIDE, family=_fam(),
                       n_samples=1000, quantity="y")
    a_test = d["test"]["limit_test"]["alpha"]
    assert 0 < a_test < 0.01 and d["interval_level"] == pytest.approx(1 - a_test, abs=1e-15)
    half = d["z_critical"] * d["limit_se"]
    assert d["interval"] == pytest.approx([d["fitted_limit"] - half, d["fitted_limit"] + half], rel=1e-12)


def test_rate_decision_refuted_names_the_slope_interval_and_the_allowed_range():
    """Past the threshold, a decay like 1/L^2 against the band of L^(-1/(2 lambda*)): refuted, and the reason
    gives the interval and the allowed slopes to 3 places."""
    from softmix.checks.mc_verdict import rate_decision

    Ls = [100, 200, 400, 800, 1600]
    vals = [1e4 / L**2 for L in Ls]
    d = rate_decision(Ls, vals, [0.05 * v for v in vals], lam=0.9, log_power=0.5, family=_fam(), n_samples=2000,
                      quantity="q")
    lo, hi = d["slope_interval"]
    assert d["verdict"] == "refuted" and hi < -1.5
    assert f"{lo:.3g}" != f"{hi:.3g}"  # ends that differ as printed (mc_verdict.py:240 of the run on b2ba873)
    # the allowed slopes run from -1 (a 1/L part can dominate) to the band's upper end, shown to 4 places in the rule
    assert d["band"][0] > -1 and d["allowed_slopes"] == [-1.0, d["band"][1]]
    assert f"meets the slopes {[round(x, 4) for x in d['allowed_slopes']]}" in d["test"]["rule"]
    assert f"(asymptotic band {[round(x, 4) for x in d['band']]})" in d["test"]["rule"]
    assert d["reason"] == (f"the slope interval [{lo:.3g}, {hi:.3g}] lies outside the allowed "
                           f"{[round(x, 3) for x in d['allowed_slopes']]}")


def test_rate_band_floors_the_lengths_at_3_only():
    """The band's slope of (ln L)^beta uses ln ln L, so lengths below 3 count as 3; a length of 4 is itself."""
    from softmix.checks.mc_verdict import rate_band

    for Ls, lo_L in (([4, 100], 4), ([2, 100], 3)):
        a, b = math.log(lo_L), math.log(100)
        w = (math.log(b) - math.log(a)) / (b - a)
        assert rate_band(0.8, 0.5, Ls, allowance=1.0) == pytest.approx([-0.625 - 0.5 * w, -0.625 + 1.5 * w], rel=1e-12)


def test_rate_decision_with_compare_tests_a_1_over_L_decay_and_records_its_slope_band():
    """With --compare the statement is a finite constant: the predicted slope band is exactly [-1, -1]
    (not the lambda* band), a 1/L decay is confirmed and a slower one refuted."""
    from softmix.checks.mc_verdict import rate_decision

    Ls = [100, 400, 1600, 6400]
    for power, verdict in ((1.0, "confirmed"), (0.5, "refuted")):
        vals = [3.0 / L ** power for L in Ls]
        d = rate_decision(Ls, vals, [v * 1e-4 for v in vals], lam=0.8, log_power=0.5, compare=2.5, family=_fam(),
                          n_samples=10 ** 6, quantity="q")
        assert d["test"]["band"] == [-1.0, -1.0]
        assert d["test"]["predicted_finite"] is True and "allowed_slopes" not in d
        assert d["verdict"] == verdict, d
        assert d["statement"] == "a finite limit --compare 2.5, i.e. q ~ 1/L"
        if verdict == "refuted":  # the reason gives both ends of the interval (mc_verdict.py:240 of the run on b2ba873)
            lo, hi = d["slope_interval"]
            assert lo < hi and d["reason"] == (f"the slope interval [{lo:.3g}, {hi:.3g}] excludes -1: the decay is "
                                               "slower than 1/L, so no finite constant")


# ---- survivors of the recorded engine run on 2026d72 ---------------------------------------------------------
def test_student_factor_floors_the_satterthwaite_dof_at_one():
    """mc_verdict.py:139: standard errors with half a degree of freedom each, one of them dominant: nu_a by
    Welch-Satterthwaite is about 0.5, below the floor 1, so nu = 1 and the factor is t_1 / z at alpha / 2."""
    from scipy import stats

    from softmix.checks.mc_verdict import student_factor

    a = [1.0, 4 * 1e-4]  # g = (-1, 2) at lengths 10, 20; se (1, 0.01)
    assert sum(a) ** 2 / sum(x * x / 0.5 for x in a) < 0.51
    f, nu = student_factor([10, 20], [1.0, 0.01], [0.5, 0.5], 1e-3)
    assert nu == 1.0 and f == pytest.approx(stats.t.isf(1e-3 / 2, 1.0) / stats.norm.isf(1e-3 / 2), rel=1e-12)


def test_summary_line_shows_z_below_the_threshold_and_never_past_it():
    """mc_verdict.py:274: a limit decision's line carries its z; past the threshold the 1/L coefficient is
    infinite and there is no limit z to show, even when the decision dict holds one."""
    from softmix.checks.mc_verdict import summary_line

    d = {"statement": "lim L (R_L - R_inf) == K", "fitted_limit": 5.123456, "interval": [5.0, 5.25],
         "closed_form": 5.1, "value_tested": 5.1, "verdict": "confirmed", "z": 0.41234}
    assert summary_line("risk", d) == ("softmix risk: lim L (R_L - R_inf) = 5.1235 [5, 5.25]; closed form 5.1: "
                                       "confirmed (z = 0.412)")
    past = {"past_threshold": True, "lambda": 0.8, "band": [-0.7, -0.5], "verdict": "confirmed", "z": 0.41234}
    assert "z =" not in summary_line("risk", past)


# ---- lines no test ran (the test map of the engine run on 2026d72) ----------------------------------------------
def test_inside_the_reach_too_few_lengths_to_fit_say_which_lengths_would_settle_it():
    """mc_verdict.py:173: inside the reach, one prompt length cannot be fitted: inconclusive with the rule's
    reason, and the lengths that would settle it are the grid from the longest length given (400, 1600,
    6400)."""
    from softmix.checks.mc_verdict import limit_decision

    d = limit_decision([400], [5.1], [0.01], closed_form=5.0, reach={"inside": True}, family=_fam(), n_samples=100,
                       quantity="y")
    assert d["verdict"] == "inconclusive" and "fit" not in d["test"]
    assert d["reason"] == d["test"]["reason"] and d["settle"] == {"prompt_lengths": [400, 1600, 6400]}
