"""Implementation checks of checks.paper.lda used by the landscape claims: the numeric Bayes-realising
constructions and the projected quadrature; each passes on generic configurations and fails on a
deliberately broken function.  (The landscape references are tested in tests/numerics/.)"""

import numpy as np

from softmix.checks.paper import lda as ML
from softmix.checks.paper.lda_configurations import CFG_ANISO
from softmix.numerics import lda as N, lda_landscape as LL


def test_numeric_constructions_cover_every_branch():
    """The b* = 0 branch of construct_theta1, both branches of theta2_mp (r = R_TARGET where r is free) and
    its ValueError in the symmetric balanced case."""
    for cfg in [N.C1] + ML.B3_CASES:
        rows, ok = ML.numeric_constructions(N.LDAProblem.from_params(cfg))
        assert ok, rows
    P = N.LDAProblem.from_params(ML.B3_CASES[1])
    assert P.bayes()[1] == 0 and P.balanced
    rows, _ = ML.numeric_constructions(P)
    assert rows["theta2_mp"]["r"].startswith("-1.75")
    rows, _ = ML.numeric_constructions(N.LDAProblem.from_params(ML.B3_CASES[3]))
    assert "raised" in rows["theta2_mp"]


def test_numeric_constructions_catch_a_broken_theta1(monkeypatch):
    P = N.LDAProblem.from_params(ML.B3_CASES[1])  # b* = 0
    orig = N.construct_theta1
    monkeypatch.setattr(N, "construct_theta1", lambda prob, u12=None: orig(prob, u12) * np.r_[np.ones(8), 2.0])
    rows, ok = ML.numeric_constructions(P)
    assert not ok and not rows["construct_theta1"]["passed"]


def test_numeric_constructions_catch_an_ignored_r_target(monkeypatch):
    P = N.LDAProblem.from_params(ML.B3_CASES[2])
    orig = LL.theta2_mp
    monkeypatch.setattr(LL, "theta2_mp", lambda prob, r_target=None, dps=30: orig(prob, None, dps))
    rows, ok = ML.numeric_constructions(P)
    assert not ok and not rows["theta2_mp"]["r_ok"]


def test_projected_rule_catches_dropped_complement(monkeypatch):
    P = N.LDAProblem.from_params(CFG_ANISO)
    assert ML.projected_vs_full_rule(P, np.random.default_rng(0))["passed"]
    orig = N._basis
    # a basis that drops the second direction: the complement then carries part of the integrand's variation
    monkeypatch.setattr(N, "_basis", lambda vectors, mp: orig(vectors[:1], mp))
    assert not ML.projected_vs_full_rule(P, np.random.default_rng(0))["passed"]

