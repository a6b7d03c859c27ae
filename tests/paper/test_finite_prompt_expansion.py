"""fp-covariance's expansion part (checks.paper.finite_prompt.expansion_agreement): confirmed on the paper
configuration, refuted when numerics.expansion_reach's coefficients or moments are wrong."""
import pytest

from softmix.checks.paper import finite_prompt as FP


def test_expansion_agreement_confirms_the_paper_configuration():
    part = FP.expansion_agreement(FP.Covariance(), 100)
    assert part.verdict == "confirmed" and len(part.rows) == 19


@pytest.mark.parametrize("key,how", [("c4", lambda x: x * (1 + 1e-6)), ("d3", lambda x: -x),
                                     ("m2", lambda x: x + 1e-6)])
def test_a_wrong_coefficient_is_refuted(monkeypatch, key, how):
    real = FP.ER.expansion_coefficients
    monkeypatch.setattr(FP.ER, "expansion_coefficients", lambda mom: {**real(mom), key: how(real(mom)[key])})
    part = FP.expansion_agreement(FP.Covariance(), 100)
    assert part.verdict == "refuted"
    assert any(key in r["check"] and r["passed"] is False for r in part.rows)


def test_a_wrong_weight_moment_is_refuted(monkeypatch):
    """E[w^3 u] enters c4 (through k(ABB)), d3 and d4, and so the reach ratio of the omitted term."""
    real = FP.ER.weight_moments
    monkeypatch.setattr(FP.ER, "weight_moments", lambda *a: {**real(*a), "e3": real(*a)["e3"] * 1.001})
    part = FP.expansion_agreement(FP.Covariance(), 100)
    failed = {r["check"].split()[0] for r in part.rows if r["passed"] is False}
    assert part.verdict == "refuted" and failed == {"e3", "c4", "d3", "d4", "first"}
    assert not any(r["check"].startswith("first correction") and r["passed"] is False for r in part.rows)
