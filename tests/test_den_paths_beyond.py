"""'Beyond the paper' claims and the ball-arithmetic certificates: decisions that make the claims depend on
numerics.beyond, theory.beyond and numerics.balls (issue 11).  Pinned values, and deliberately broken
functions that make the claim (not only a test) refute."""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from softmix.checks.paper import beyond as BY
from softmix.checks.runner import run_claim
from softmix.numerics import beyond as NB
from softmix.theory import beyond as TB


def _clear_beyond_cache():
    BY._CACHE.clear()


# ---- fp-query-averaged-rate -----------------------------------------------------------------------
def test_lambda_row_checks_the_scaling_without_a_square_root():
    G, S, U0, V = BY._rate_config(BY.RATE_DEFAULTS)
    mix = BY._gaussian_mix(BY.RATE_DEFAULTS["Gamma"])
    Ub = BY._scaled_U(mix, S, U0, 0.15)
    assert BY._lambda_row(0.15, Ub, [G], S)["passed"]
    assert not BY._lambda_row(0.15, 1.01 * Ub, [G], S)["passed"]
    # a wrong square root of Sigma_nu (here Sigma itself) moves lambda: the eigenvalues of U^T G U Sigma see it
    monkey = S @ U0.T @ G @ U0 @ S
    lam_wrong = float(np.linalg.eigvalsh(monkey)[-1])
    assert not BY._lambda_row(0.15, U0 * math.sqrt(0.15 / lam_wrong), [G], S)["passed"]


# The full profile of the default (f6e6d5b, seed 20261130) at lambda = 1.5: the query-averaged MSE of the
# paper's configuration, L = 100 ... 25600 (4000 queries a length).  Its slope, about -0.545, lies between -1
# and the asymptotic band [-0.48, -0.19] of L^(-2/3 ... ) -- the 1/L part of the queries where the expansion
# holds still weighs on it -- and the first rule (overlap with the band) refuted the true statement there,
# as on all three drawn configurations.
_LAMBDA_15 = [(100, 0.17827954062625437, 0.0032550983059995192), (400, 0.07740941244244491, 0.001838637655998379),
              (1600, 0.03982442819543448, 0.0012769416372231221), (6400, 0.017644335904331114, 0.0008211537032248769),
              (25600, 0.009251009421143057, 0.000623286351281202)]


def _above_decision(rows, lam, naive=False, alpha=1e-3 / 15):
    Ls = [r[0] for r in rows]
    band = [-1.0, -1.0] if naive else BY._log_band(lam, Ls, 1.0)
    from softmix.checks.fits import decay_rate_decision
    return decay_rate_decision(alpha, Ls, [r[1] for r in rows], [r[2] for r in rows], naive, band, 4000, "t",
                               margin=BY.RATE_SLOPE_MARGIN), band


def test_above_threshold_rule_accepts_slopes_between_one_over_L_and_the_band():
    dec, band = _above_decision(_LAMBDA_15, 1.5)
    lo, hi = dec["fit"]["ci"]
    assert hi < band[0] and lo > -1.0  # outside the band, above -1: the case the first rule refuted
    assert dec["verdict"] == "confirmed"
    # the naive control (1/L above the threshold) is still refuted on the same data
    assert _above_decision(_LAMBDA_15, 1.5, naive=True)[0]["verdict"] == "refuted"
    # a decay faster than 1/L refutes; one slower than the band's upper end refutes; 1/L itself cannot decide
    Ls = [r[0] for r in _LAMBDA_15]
    for slope, verdict in ((-1.3, "refuted"), (-0.1, "refuted"), (-1.0, "inconclusive"), (-0.4, "confirmed")):
        rows = [(L, 0.2 * (L / 100.0) ** slope, 0.002 * (L / 100.0) ** slope) for L in Ls]
        assert _above_decision(rows, 1.5)[0]["verdict"] == verdict, slope


FAST_RATE = {"queries_below": 300, "queries_above": 300, "queries_mixture": 300, "Ls_below": [100, 200],
             "Ls_above": [100, 200], "L_mixture": 100}


def test_a_wrong_per_query_constant_refutes_the_rate_claim(monkeypatch):
    real = NB.per_query_mse_constants
    monkeypatch.setattr(NB, "per_query_mse_constants", lambda mix, U, V, Z: real(mix, U, V, Z) * (1 + 1e-9))
    _clear_beyond_cache()
    try:
        r = run_claim("fp-query-averaged-rate", "quick", 7, FAST_RATE)
    finally:
        _clear_beyond_cache()
    assert r["verdict"] == "refuted"
    assert r["evidence"]["below_threshold"]["per_query_constants"]["passed"] is False


def test_importance_sampling_branch_pinned():
    G, S, U0, V = BY._rate_config(BY.RATE_DEFAULTS)
    mix = BY._gaussian_mix(BY.RATE_DEFAULTS["Gamma"])
    Ub = BY._scaled_U(mix, S, U0, 0.15)
    K = NB.gaussian_averaged_constant(G, S, Ub, V)["K"]
    mc = NB.averaged_constant(mix, S, Ub, V, max_points=0, mc_samples=100000, rng=np.random.default_rng(3))
    assert mc["method"] == "monte-carlo" and abs(mc["value"] - K) < 5 * mc["standard_error"]
    assert abs(K - 2.2950945175170547) < 1e-12
    Ua = BY._scaled_U(mix, S, U0, 1.0)
    assert NB.averaged_constant(mix, S, Ua, V, max_points=0)["value"] == float("inf")


# ---- smart-2025-mixture, bb-prop-3.1, zfb-linear-flow, bb-thm-5.1 ---------------------------------
def test_posterior_reference_pinned():
    """D = 1, centres 0 and 1, pi = 1/2, sigma^2 = 1, z = 0: E[X | z] = e^(-1/2) / (1 + e^(-1/2))."""
    ref = BY._posterior_reference(np.array([[0.0], [1.0]]), np.array([0.5, 0.5]), np.array([[0.0]]), "1")
    assert abs(ref[0, 0] - math.exp(-0.5) / (1 + math.exp(-0.5))) < 1e-15
    assert abs(NB.posterior_mean(np.array([[0.0], [1.0]]), np.array([0.5, 0.5]), np.array([[0.0]]), 1.0)[0, 0]
               - ref[0, 0]) < 1e-15


def test_the_l1_finding_premise_is_decided(monkeypatch):
    c1, L = sp.symbols("c1 L", positive=True)
    monkeypatch.setattr(TB, "l1_bound_value", lambda: c1 * sp.log(2))  # the bound at L = 2, not L = 1
    _clear_beyond_cache()
    try:
        r = run_claim("bb-prop-3.1", "quick", 7)
    finally:
        _clear_beyond_cache()
    assert r["verdict"] == "inconclusive" and r["evidence"]["L1_finding_premises"]["bound_is_zero"] is False
    lit = [c for c in r["negative_controls"] if c["id"] == "literal-L1"][0]
    assert lit["verdict"] != "refuted"  # the literal control cannot be decided against a symbolic bound


def test_a_wrong_closed_form_loss_refutes_zfb(monkeypatch):
    real = NB.zfb_loss_closed_form
    monkeypatch.setattr(NB, "zfb_loss_closed_form", lambda Lam, N, A: real(Lam, N, A) + 1e-9)
    _clear_beyond_cache()
    try:
        r = run_claim("zfb-linear-flow", "quick", 7, {"samples": 2000})
    finally:
        _clear_beyond_cache()
    assert r["verdict"] == "refuted" and r["evidence"]["float64_vs_sympy"]["passed"] is False


def test_a_time_scaled_mp_flow_refutes_thm51(monkeypatch):
    """Gradient ascent or a rescaled time conserves ||A||_F^2 - b^2 just as well; the float64 flow tells."""
    real = NB.flow_mp
    monkeypatch.setattr(NB, "flow_mp", lambda A0, b0, Sig, T, dps=30: real(A0, b0, Sig, 2 * T, dps))
    _clear_beyond_cache()
    try:
        r = run_claim("bb-thm-5.1", "quick", 7, {"transfer_train": 500, "transfer_test": 500})
    finally:
        _clear_beyond_cache()
    assert r["verdict"] == "refuted"
    assert r["evidence"]["mp_flow"]["conservation"]["vs_float64_flow"]["passed"] is False
