"""checks.paper.certify: the shared machinery of the ball-arithmetic certificates (public names)."""
from fractions import Fraction

import pytest

from softmix.checks.api import combine
from softmix.checks.paper.certify import MAX_ROWS, certificate, exact, flint, flint_missing
from softmix.numerics.memo import scope


def test_exact_reads_decimals_and_fractions_exactly():
    assert exact("0.1") == Fraction(1, 10) and exact("1/3") == Fraction(1, 3) and exact(2) == 2
    f = Fraction(2, 7)
    assert exact(f) is f
    assert MAX_ROWS >= 1


def test_certificate_is_computed_once_per_claim_run_and_timed():
    calls = []

    def compute():
        calls.append(1)
        return {"status": True}

    with scope():
        a = certificate("t", {"x": "0.5"}, compute)
        b = certificate("t", {"x": "0.5"}, compute)  # a control: the claim's certificate
        c = certificate("t", {"x": "0.6"}, compute)  # other parameters: another certificate
        assert a is b and c is not a and len(calls) == 2
        assert a["certificate_seconds"] >= 0
    with scope():
        certificate("t", {"x": "0.5"}, compute)  # a new run computes again: nothing outlives a run
    assert len(calls) == 3


def test_missing_flint_is_inconclusive_with_the_reason():
    p = flint_missing(ModuleNotFoundError("No module named 'flint'"))
    assert p.kind == "certificate" and p.verdict == "inconclusive"
    assert "python-flint" in p.rows[0]["reason"] and combine([p]) == "inconclusive"


def test_flint_is_the_ball_module():
    pytest.importorskip("flint")
    assert hasattr(flint(), "__name__") and flint().__name__ == "softmix.numerics.balls"
