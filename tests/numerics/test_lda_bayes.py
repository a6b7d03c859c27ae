"""numerics.lda_bayes: the independent references of the Bayes-point claims (checks/paper/lda_bayes.py,
checks/paper/lda_hessian.py) against known answers, and each catching a deliberately broken input."""

import mpmath as mpm
import numpy as np
import pytest

from softmix.checks.paper.lda_bayes import B3_CASES
from softmix.numerics import lda as N, lda_landscape as LL
from softmix.numerics.lda_bayes import (
    R_TARGET,
    bayes_risk_reference,
    gaussian_positive_part_reference,
    numeric_constructions,
    start_check,
)

GENERIC_LDA = {"m1": ["0.3", "-1.2"], "m_1": ["0.8", "0.5"], "Gamma": [["1.1", "0.3"], ["0.3", "0.6"]],
               "pi_plus": "0.3"}


def test_start_check_tells_theta1_from_theta2_on_a_generic_configuration():
    P = N.LDAProblem.from_params(GENERIC_LDA)
    th1, th2 = N.construct_theta1(P), N.construct_theta2(P)
    assert start_check(P, th1, "theta1")["passed"] and start_check(P, th2, "theta2")["passed"]
    assert not start_check(P, th2, "theta1")["passed"] and not start_check(P, th1, "theta2")["passed"]
    bad = th1.copy()
    bad[0] += 0.1  # U11 moved: f_theta is no longer the Bayes log-odds
    assert not start_check(P, bad, "theta1")["passed"]
    with pytest.raises(ValueError):
        start_check(P, th1, "no-such-kind")


def test_numeric_constructions_cover_every_branch():
    """The b* = 0 branch of construct_theta1, both branches of theta2_mp (r = R_TARGET where r is free) and
    its ValueError in the symmetric balanced case."""
    for cfg in [N.C1] + B3_CASES:
        rows, ok = numeric_constructions(N.LDAProblem.from_params(cfg))
        assert ok, rows
    P = N.LDAProblem.from_params(B3_CASES[1])
    assert P.bayes()[1] == 0 and P.balanced
    rows, _ = numeric_constructions(P)
    assert rows["theta2_mp"]["r"].startswith("-1.75") and R_TARGET == -1.75
    rows, _ = numeric_constructions(N.LDAProblem.from_params(B3_CASES[3]))
    assert "raised" in rows["theta2_mp"]


def test_numeric_constructions_catch_a_broken_theta1(monkeypatch):
    P = N.LDAProblem.from_params(B3_CASES[1])  # b* = 0
    orig = N.construct_theta1
    monkeypatch.setattr(N, "construct_theta1", lambda prob, u12=None: orig(prob, u12) * np.r_[np.ones(8), 2.0])
    rows, ok = numeric_constructions(P)
    assert not ok and not rows["construct_theta1"]["passed"]


def test_numeric_constructions_catch_an_ignored_r_target(monkeypatch):
    P = N.LDAProblem.from_params(B3_CASES[2])
    orig = LL.theta2_mp
    monkeypatch.setattr(LL, "theta2_mp", lambda prob, r_target=None, dps=30: orig(prob, None, dps))
    rows, ok = numeric_constructions(P)
    assert not ok and not rows["theta2_mp"]["r_ok"]


def test_bayes_risk_reference_agrees_with_the_gauss_hermite_risk_and_not_with_a_shifted_one():
    P = N.LDAProblem.from_params(GENERIC_LDA)
    ref, err = bayes_risk_reference(P, 20)
    val, gh_err = N.bayes_risk(P, 100, 30)
    assert err < 1e-18 and abs(val - ref) < 1e-14
    shifted = N.bayes_zeta(P)
    shifted[P.d] += 0.3
    assert N.eff_risk(P, shifted, 0, 60)[0] - float(ref) > 1e-4  # the risk at a wrong minimiser is larger


@pytest.mark.parametrize("mu, s", [("2.7", "0.1"), ("-1.3", "0.7"), ("0", "1")])
def test_gaussian_positive_part_reference_against_the_closed_form(mu, s):
    """Including the narrow peak (mu = 2.7, s = 0.1) that tanh-sinh in x used to miss."""
    with mpm.workdps(30):
        m, sg = mpm.mpf(mu), mpm.mpf(s)
        ref, qerr = gaussian_positive_part_reference(m, sg, 30)
        closed = m * mpm.ncdf(m / sg) + sg * mpm.npdf(m / sg)
        assert abs(ref - closed) < mpm.mpf(10) ** -25 and qerr < mpm.mpf(10) ** -25
        if abs(m / sg) < 5:  # without the density term it differs (at mu/s = 27 the term is e^-364)
            assert abs(ref - m * mpm.ncdf(m / sg)) > 1e-3
