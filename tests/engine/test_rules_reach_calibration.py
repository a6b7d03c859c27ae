"""The rules added for the finite-prompt port: Reach (a check's regime: inconclusive outside, never refuted),
ChiSquareCalibration (standard errors over independent runs) and softmix.decide(kind="lemma") (a derivation that
proves a step is evidence: it refutes when refuted, but does not make a Monte Carlo claim verified)."""
import numpy as np
import sympy as sp

from softmix.checks.api import decide, outcome, part
from softmix.checks.reach import Reach
from softmix.checks.registry import Context
from softmix.checks.rules import ChiSquareCalibration
from softmix.theory.derivation import Derivation


def test_reach_passes_inside_and_is_inconclusive_outside_with_its_reason():
    r = Reach(0.125, "<", name="lambda*", reason="choose a smaller lambda*")
    inside, outside, nan = r.decide(0.05), r.decide(0.2), r.decide(float("nan"))
    assert inside["passed"] is True and inside["verdict"] == "confirmed"
    assert outside["passed"] is None and outside["verdict"] == "inconclusive"
    assert "lambda* = 0.2" in outside["reason"] and "choose a smaller" in outside["reason"]
    assert nan["verdict"] == "inconclusive" and "reach" in r.describe()
    assert Reach(0.15, "<=").decide(0.15)["passed"] is True


def test_chi_square_calibration_sees_understated_and_overstated_errors():
    z = np.random.default_rng(0).standard_normal(40)
    assert ChiSquareCalibration(1e-3).decide(z)["verdict"] == "confirmed"
    assert ChiSquareCalibration(1e-3).decide(4 * z)["verdict"] == "refuted"     # se four times too small
    assert ChiSquareCalibration(1e-3).decide(z / 4)["verdict"] == "refuted"     # se four times too large
    assert ChiSquareCalibration(1e-3).decide([1.0, float("nan")])["verdict"] == "inconclusive"


def test_a_symbolic_step_is_evidence_not_a_proof_of_the_claim():
    x = sp.Symbol("x")
    ctx = Context("step-test", "quick", 1)
    good = decide([Derivation("identity", "test", (x + 1) ** 2, x**2 + 2 * x + 1)], ctx, kind="lemma")
    bad = decide([Derivation("wrong", "test", (x + 1) ** 2, x**2 + 1)], ctx, kind="lemma")
    assert good.kind == "lemma" and good.verdict in ("verified", "confirmed")
    assert bad.verdict == "refuted"
    mc = part("monte-carlo", [{"passed": True}])
    assert outcome(mc, good).verdict == "confirmed"
    assert outcome(mc, decide([Derivation("identity", "test", (x + 1) ** 2, x**2 + 2 * x + 1)], ctx)).verdict \
        == "verified"  # a proof of the statement itself
