"""Implementation checks of the landscape claims (checks.paper.lda_landscape, checks.paper.lda): square_risk,
the escaping sequence's risk gap and L1 distance, the reduced linear risk, the numeric Bayes-realising
constructions and the projected quadrature; each passes on generic configurations and fails on a
deliberately broken function."""

import numpy as np
import pytest

from softmix.checks.paper import lda as ML, lda_landscape as M
from softmix.numerics import lda as N, lda_landscape as LL
from softmix.numerics.precision import exact_floats


@pytest.mark.parametrize("cfg", [M.CFG_ANISO, M.CFG_1D])
def test_square_implementation_passes_and_catches_unweighted_classes(cfg, monkeypatch):
    P = N.LDAProblem.from_params(cfg)
    z = [np.random.default_rng(0).standard_normal(2 * P.d + 2)]
    assert M._square_implementation(P, "2eta-1", 32, z)["passed"]
    orig = LL._nodes
    monkeypatch.setattr(LL, "_nodes", lambda prob, dirs, n, full=None: (
        [(0.5, c, X, w) for _pc, c, X, w in orig(prob, dirs, n, full)[0]], orig(prob, dirs, n, full)[1]))
    assert not M._square_implementation(P, "2eta-1", 32, z)["passed"]


def test_square_reference_pinned_at_zero():
    """zeta = 0 and target f*: E[f*(X)^2] = sum_c pi_c ((w*^T m_c + b*)^2 + w*^T Gamma w*) in closed form."""
    P = N.LDAProblem.from_params(M.CFG_ANISO)
    m1, m_1, G, _L, pi, _ = P.arrays()
    ws, bs = P.bayes()
    want = sum(pc * ((ws @ mc + bs) ** 2 + ws @ G @ ws) for pc, mc in ((pi, m1), (1 - pi, m_1)))
    assert M._square_reference(P, np.zeros(6), "logit", 32) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("cfg", [N.C1, M.CFG_1D, {**N.C1, "pi_plus": "0.5"}])
def test_escape_implementation_passes(cfg):
    P = N.LDAProblem.from_params(cfg)
    c = np.array([1.0, -0.5])[:P.d]
    for corrected in (True, False):
        assert M._escape_implementation(P, c, corrected, 48)["passed"]


def test_escape_implementation_catches_a_wrong_delta(monkeypatch):
    """escape_delta without the factor (1 - sigma(s0)): both measured quantities move off their definitions."""
    P = N.LDAProblem.from_params(N.C1)
    from scipy.special import expit

    def wrong(u, R, s0, corrected=True):
        p, v = expit(s0), np.asarray(u, float) / R
        D = -np.expm1(-v) * expit(s0 + v)
        return R * (D - p * (1 - p) * v) if corrected else R * D
    monkeypatch.setattr(LL, "escape_delta", wrong)
    out = M._escape_implementation(P, np.array([1.0, -0.5]), True, 48)
    assert not out["risk_gap_vs_definition"]["passed"] and not out["l1_vs_definition"]["passed"]


def test_linear_risk_implementation(monkeypatch):
    P = N.LDAProblem.from_params({"m1": [1, "0.5"], "m_1": [-1, "-0.5"], "Gamma": [[2, "0.5"], ["0.5", 1]],
                                  "pi_plus": "0.5"})
    rows = []
    for rad in (0.01, 1.0, 100.0):
        w = rad * np.array([0.6, -0.8])
        L, e = LL.linear_risk_mp(P, exact_floats(w), 20)
        rows.append({"direction": "d", "radius": rad, "L": L, "err": e, "w": w})
    out = M._linear_risk_implementation(P, rows, 20)
    assert out["passed"] and len(out["points"]) == 2
    rows[1]["L"] = rows[1]["L"] * (1 + 1e-6)
    assert not M._linear_risk_implementation(P, rows, 20)["passed"]


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
    P = N.LDAProblem.from_params(M.CFG_ANISO)
    assert ML.projected_vs_full_rule(P, np.random.default_rng(0))["passed"]
    orig = N._basis
    # a basis that drops the second direction: the complement then carries part of the integrand's variation
    monkeypatch.setattr(N, "_basis", lambda vectors, mp: orig(vectors[:1], mp))
    assert not ML.projected_vs_full_rule(P, np.random.default_rng(0))["passed"]


def test_escape_l1_tolerance_covers_float64_round_off_seed_9226():
    """Seed 9226 (fresh-seed record) drew s0 = 0.04, where the terms of delta cancel: the float64 L1
    distance at R = 20 differed from its 20-digit definition by 9.0e-16 (6e-12 relative) against a
    tolerance of 4.2e-16 made of quad's integration-error estimates only, and Prop. 3.4 was refuted.
    The tolerance now adds the integrand's round-off, 100 eps (R + |b*| + 1), as the gap row does;
    the wrong delta of the test above still moves both rows far outside it."""
    P = N.LDAProblem.from_params({"m1": ["0.18", "-0.66"], "m_1": ["-0.94", "-0.3"],
                                  "Gamma": [["0.85", "0.04"], ["0.04", "0.32"]], "pi_plus": "0.51"})
    out = M._escape_implementation(P, np.array([1.0, -0.5]), True, 48)
    row = out["l1_vs_definition"]
    assert out["passed"] and row["residual"] > 1e-16 and row["tolerance"] < 1e-8 * row["reference"]
