"""Known answers for the reach rules of the Monte Carlo commands (checks/mc_verdict.py, docs/finite-prompt.md
sec. 10): the risk rule's L_reach = ceil(2 r3 / TERM_RATIO) from the query-averaged weight-moment ratio r3, the
lambda* >= 1/6 branch and its decay exponent, and the grid of prompt lengths that would settle a case."""
from __future__ import annotations

import math

import pytest

import softmix.checks.mc_verdict as MV
from softmix.numerics.expansion_reach import TERM_RATIO


def test_settle_grid_keeps_the_ratios_or_is_L0_4L0_16L0():
    assert MV._grid(100, [50, 200]) == [100, 400, 1600]      # fewer than three lengths: L0, 4 L0, 16 L0
    assert MV._grid(100, [50, 100, 400]) == [100, 200, 800]  # the shape of the given grid, from L0
    assert MV._grid(7, [3, 5, 9]) == [7, math.ceil(7 * 5 / 3), 21]


@pytest.mark.parametrize("ratio, Ls, inside", [(10.0, [80, 160, 320], True), (10.0, [79, 160, 320], False),
                                               (3.3, [27, 54], True), (3.3, [26, 54], False)])
def test_risk_reach_needs_2_r3_over_L_at_most_one_quarter(monkeypatch, ratio, Ls, inside):
    import softmix.numerics.expansion_reach as ER

    monkeypatch.setattr(ER, "averaged_tilt_ratio", lambda *a: {"ratio": ratio})
    out = MV.risk_reach(None, None, None, None, 0.1, Ls)
    assert out["L_reach"] == math.ceil(2 * ratio / TERM_RATIO)
    assert out["first_correction"] == pytest.approx(2 * ratio / min(Ls))
    assert out["inside"] is inside
    if not inside:
        assert out["settle_lengths"][0] == out["L_reach"] and "few effective tokens" in out["reason"]
        assert out["settle_lengths"] == MV._grid(out["L_reach"], Ls)


@pytest.mark.parametrize("lam", [1 / 6, 0.2, 0.3])
def test_risk_reach_past_one_sixth_gives_the_decay_exponent_and_no_grid(lam):
    out = MV.risk_reach(None, None, None, None, lam, [100, 200, 400])
    assert out["inside"] is False and out["settle_lengths"] is None
    assert f"L^{0.5 - 1 / (4 * lam):.3g}" in out["reason"]  # the remainder's decay exponent 1/2 - 1/(4 lambda*)
    f = 1 / (1 / (4 * lam) - 1 / 2)  # L must grow 10^f-fold for a 10-fold smaller remainder
    assert f"{10 ** f:.3g}-fold longer prompts" in out["reason"]


def test_outside_the_reach_the_fit_is_shown_with_its_two_sided_interval_and_no_test():
    """Outside the reach: inconclusive with the reach's reason, no alpha spent, and the fitted limit a with the
    interval a +- z s, s = hypot(se of the limit, se of the closed form)."""
    from softmix.checks.fits import fit_inverse_L
    from softmix.checks.rules import AlphaFamily, z_critical

    Ls, vals, ses = [100, 200, 400], [1.30, 1.16, 1.07], [0.02, 0.02, 0.03]
    fam = AlphaFamily(1e-3)
    reach = {"inside": False, "reason": "few effective tokens", "settle_lengths": [800, 1600, 3200]}
    out = MV.limit_decision(Ls, vals, ses, closed_form=1.0, closed_form_se=0.05, reach=reach, family=fam,
                            n_samples=10**6, quantity="L * MSE")
    fit = fit_inverse_L(Ls, vals, [s * out["se_inflation"] for s in ses])
    a, s, zc = fit["limit"][0], math.hypot(fit["limit_se"][0], 0.05), z_critical(1, 1e-3)
    assert out["verdict"] == "inconclusive" and out["reason"].endswith("few effective tokens")
    assert out["settle"]["prompt_lengths"] == [800, 1600, 3200] and fam.spent == 0
    assert out["fitted_limit"] == pytest.approx(a)
    assert out["interval"] == pytest.approx([a - zc * s, a + zc * s]) and out["interval_level"] == 1 - 1e-3


def test_rate_band_known_answer_with_the_documented_allowance():
    """Past the threshold the allowed log-log slopes are p + (beta -+ 1.5) w, p = -1/(2 lambda*), w the mean
    slope of ln ln L over the grid (LOG_POWER_ALLOWANCE = 1.5, the value of the claim fp-risk-threshold)."""
    lam, beta, Ls = 0.8, 0.5, [100, 1000]
    lo, hi = math.log(100), math.log(1000)
    w = (math.log(hi) - math.log(lo)) / (hi - lo)
    p = -1 / (2 * lam)
    assert MV.rate_band(lam, beta, Ls) == pytest.approx([p + (beta - 1.5) * w, p + (beta + 1.5) * w])
    assert MV.rate_band(0.4, 0.0, Ls, allowance=0.0) == pytest.approx([-1.0, -1.0])  # below 1/2: the 1/L rate


def test_rate_decision_reports_the_rate_exponent_and_decides_a_decay_inside_the_band():
    from softmix.checks.rules import AlphaFamily

    lam, Ls = 0.8, [100, 400, 1600, 6400]
    vals = [3.0 * L ** (-1 / (2 * lam)) * math.log(L) ** 0.5 for L in Ls]
    out = MV.rate_decision(Ls, vals, [v * 1e-3 for v in vals], lam=lam, log_power=0.5, family=AlphaFamily(1e-3),
                           n_samples=10**6, quantity="L (R_L - R_inf)")
    assert out["rate_exponent"] == pytest.approx(-1 / (2 * lam)) and out["band"] == MV.rate_band(lam, 0.5, Ls)
    assert out["verdict"] == "confirmed", out
