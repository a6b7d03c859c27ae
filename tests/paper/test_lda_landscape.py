"""Section 3.2 landscape and critical-point claims (checks.paper.lda_landscape, lda_critical): each claim
confirmed with its controls refuted, assumptions, and the seeds that once broke a claim."""

import pytest

from softmix.checks.runner import run_claim
from softmix.numerics import lda as N

CLAIMS = ["remark-b.5", "thm-3.1", "thm-3.3", "prop-3.4", "prop-b.30", "cor-b.31", "lemma-b.32"]


def _rows(evidence):
    return evidence["numeric"]["rows"]


@pytest.mark.parametrize("cid", CLAIMS)
def test_claim_passes_and_controls_refuted(cid):
    r = run_claim(cid, profile="quick", seed=1)
    assert r["verdict"] == "confirmed", r["evidence"]
    assert r["negative_controls"]
    for c in r["negative_controls"]:
        assert c["refuted"], (c["id"], c["verdict"])
    if cid == "remark-b.5":  # C1 has q = 0: 2 eta - 1 is in the class there, reported as a scope finding
        assert any(f["kind"] == "scope" for f in r["findings"])


def test_assumption_violations_are_inconclusive():
    sym = {"m1": [1, 0], "m_1": [-1, 0], "Gamma": [[1, 0], [0, 1]], "pi_plus": "0.6"}
    assert run_claim("thm-3.3", "quick", 1, {"lda": sym})["verdict"] == "inconclusive"
    assert run_claim("lemma-b.32", "quick", 1, {"lda": N.C1})["verdict"] == "inconclusive"


def test_spurious_well_found_from_the_near_origin_start_on_seed_8104():
    """The descent must stay in its start's basin: on seed 8104 BFGS's first unit-scale step jumped out of
    the control's 0.2-wide well at the origin from all three near-origin starts, and the control survived.
    With the small initial trust region every near-origin start ends in the well."""
    r = run_claim("thm-3.1", "quick", seed=8104)
    assert r["verdict"] == "confirmed"
    well = next(c for c in r["negative_controls"] if c["id"] == "spurious-well")
    assert well["verdict"] == "refuted"
    near = [x for x in _rows(well["evidence"]) if x.get("start") == "near-origin" and x["check"].startswith("|R~")]
    assert near and not any(x["passed"] for x in near)


def test_thm33_slope_fit_is_scaled_on_long_grids():
    """Seed 8120 drew a configuration whose t-grid reaches ~4e7: the unscaled (1, t, t^2) least-squares fit
    returned intercept -1e-12 for q(0) = 30.8 and a slope 31% off, refuting the theorem.  The scaled fit
    recovers Lemma B.22's slope to 1e-11 relative."""
    cfg = {
        "lda": {
            "m1": ["0.14", "0.87"],
            "m_1": ["-0.34", "1.02"],
            "Gamma": [["0.72", "0.42"], ["0.42", "0.85"]],
            "pi_plus": "0.49",
        }
    }
    r = run_claim("thm-3.3", "quick", seed=8120, overrides=cfg)
    assert r["verdict"] != "refuted"
    rows = _rows(r["evidence"])
    slope = next(x for x in rows if x["check"].startswith("t-slope"))
    curve = next(x for x in rows if x["check"].startswith("D2R[h_t, h_t] < -100"))
    assert slope["passed"] and max(curve["ts"]) > 1e6
    assert slope["fitted"][0] == pytest.approx(curve["q"][0], rel=1e-9)


def test_prop34_window_starts_where_the_exponents_hold_on_seed_8146():
    """Seed 8146 drew pi_+ = 0.51 (s0 = 0.04): sigma''(s0) nearly vanishes, so on R in [100, 1000] the
    next-order term bent the risk gap's slope to -1.83 for -2 and the true statement was refuted.  The R
    window now starts at 4 rho / slope_tol; there the quick quadrature resolves too few gap values
    (inconclusive)."""
    cfg = {
        "lda": {
            "m1": ["-1.09", "0.84"],
            "m_1": ["-0.36", "-0.31"],
            "Gamma": [["1.45", "0.65"], ["0.65", "0.85"]],
            "pi_plus": "0.51",
        }
    }
    r = run_claim("prop-3.4", "quick", seed=8146, overrides=cfg)
    assert r["verdict"] == "inconclusive"
    ev = r["evidence"]
    assert ev["curves"]["asymptotic_window"]["R_from"] > 1000 and "asymptotic window" in _rows(ev)[0]["reason"]
    # pi_+ = 1/2 (s0 = 0): the faster exponents -2 and -4, on a window that starts at R_min
    r = run_claim("prop-3.4", "quick", seed=1, overrides={"lda": {**N.C1, "pi_plus": "0.5"}})
    ev = r["evidence"]
    assert ev["curves"]["asymptotic_window"]["R_from"] == 100
    gap_row = next(x for x in _rows(ev) if x["check"].startswith("risk-gap log-log slope within slope_tol of -4"))
    assert abs(gap_row["slope"] + 4) < 0.05 and r["verdict"] in ("confirmed", "inconclusive")


def test_escape_l1_tolerance_covers_float64_round_off_seed_9226():
    """Seed 9226 drew s0 = 0.04, where the terms of delta cancel: the float64 L1 distance at R = 20 differed
    from its 20-digit definition by 9.0e-16 against a tolerance made of quad's error estimates only, and
    Prop. 3.4 was refuted.  The tolerance adds the integrand's round-off, 100 eps (R + |b*| + 1)."""
    cfg = {"lda": {"m1": ["0.18", "-0.66"], "m_1": ["-0.94", "-0.3"],
                   "Gamma": [["0.85", "0.04"], ["0.04", "0.32"]], "pi_plus": "0.51"}}
    r = run_claim("prop-3.4", "quick", seed=1, overrides=cfg)
    given = next(c for c in r["evidence"]["configurations"] if c["name"] == "given")
    rows = given["evidence"]["numeric"]["rows"] if "evidence" in given else _rows(r["evidence"])
    row = next(x for x in rows if x["check"].startswith("escape_l1(20)"))
    assert row["passed"] and float(row["rhs"]) < 1e-8 * row["reference"]
