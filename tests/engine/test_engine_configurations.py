"""Known answers for ``@softmix.claim(..., configurations=softmix.Draws(...))``: the engine runs the
claim on the given configuration and on the drawn ones, with the alpha split 1/(1 + n) fixed before
anything is drawn, the control rule across configurations, draws that break a declared assumption
skipped."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

import softmix
from softmix.checks.registry import Claim
from softmix.checks.rules import ALPHA, claim_alpha
from softmix.checks.runner import run_claim_object


@dataclass
class P:
    x: int = 1


def _claim(draw, quick=2, full=3, assumptions=(), refute=lambda p, ctl: False, seen=None, **kw):
    """A claim whose check records (x, control, alpha) and refutes when ``refute(p, control)``."""
    seen = [] if seen is None else seen

    def check(p: P, ctx):
        ctl = ctx.control("wrong")
        seen.append((p.x, ctl, claim_alpha()))
        ok = not refute(p, ctl)
        return softmix.part("numeric", [{"x": p.x, "passed": ok}])

    c = softmix.claim(id="unit-draws", title="t", source="s", controls={"wrong": "a wrong statement"},
                      assumptions=assumptions, configurations=softmix.Draws(draw, quick=quick, full=full),
                      register=False, **kw)(check)
    return c, seen


def _names(ev):
    return [r["name"] for r in ev["configurations"]]


def test_draws_run_by_the_engine_with_the_alpha_split_before_drawing():
    got = []

    def draw(rng, p, i):
        got.append((type(p).__name__, p.x, i))
        return None if i == 2 else {"x": 10 + i}

    c, seen = _claim(draw, quick=3, full=5)
    assert isinstance(c, Claim) and isinstance(c.configurations, softmix.Draws)
    res = run_claim_object(c, "quick", seed=4)
    ev = res["evidence"]
    # the draw sees the given configuration's parameter dataclass; draw 2 gives nothing and is not run
    assert got[:3] == [("P", 1, 1), ("P", 1, 2), ("P", 1, 3)]
    assert _names(ev) == ["paper", "drawn-1", "drawn-3"] and ev["configurations"][1]["values"] == {"x": 11}
    assert ev["configurations"][0]["values"] == {} and "evidence" in ev["configurations"][1]
    # 1 + 3 configurations declared: each test draws from 1/4 of the claim's alpha, even though one drew nothing
    claim_runs = [a for x, ctl, a in seen if not ctl]
    assert [x for x, ctl, _ in seen if not ctl] == [1, 11, 13]
    assert all(a == pytest.approx(ALPHA / 4) for a in claim_runs)
    assert ev["alpha_split"].startswith("each of the 4 configurations' statistical tests draw from 1/4 of the")
    assert res["configurations"]["drawn"] == 2 and [r["name"] for r in res["configurations"]["rows"]] == _names(ev)
    # full profile: 5 draws, 1/6 each
    seen.clear()
    run_claim_object(c, "full", seed=4)
    assert all(a == pytest.approx(ALPHA / 6) for x, ctl, a in seen)


def test_given_parameters_are_named_given_and_the_seed_fixes_the_draws():
    draw = lambda rng, p, i: {"x": int(rng.integers(2, 10**6))}
    c, _ = _claim(draw, quick=1)
    a = run_claim_object(c, "quick", seed=7)["evidence"]["configurations"]
    b = run_claim_object(c, "quick", seed=7)["evidence"]["configurations"]
    d = run_claim_object(c, "quick", seed=8)["evidence"]["configurations"]
    given = run_claim_object(c, "quick", seed=7, overrides={"x": 5})["evidence"]["configurations"]
    assert a == b and a[1]["values"] != d[1]["values"]
    assert given[0]["name"] == "given" and given[1]["values"] == a[1]["values"]


def test_control_refuted_by_one_configuration_claim_refuted_by_any():
    # the control is wrong only on drawn-2: refuted there, so refuted; its power is listed
    c, _ = _claim(lambda rng, p, i: {"x": 100 + i}, quick=3, refute=lambda p, ctl: ctl and p.x == 102)
    res = run_claim_object(c, "quick", seed=1)
    (ctl,) = res["negative_controls"]
    assert res["verdict"] == "confirmed" and ctl["verdict"] == "refuted" and ctl["refuted"]
    assert ctl["evidence"]["control_power"] == {"refuted_on": ["drawn-2"],
                                                "not_refuted_on": ["paper", "drawn-1", "drawn-3"]}
    # a claim refuted on one drawn configuration is refuted, and says where
    c2, _ = _claim(lambda rng, p, i: {"x": 100 + i}, quick=3, refute=lambda p, ctl: ctl or p.x == 103)
    res2 = run_claim_object(c2, "quick", seed=1)
    assert res2["verdict"] == "refuted" and res2["evidence"]["refuted_on"] == ["drawn-3"]
    # refuted on the given configuration too: that one is the claim's own evidence, refuted_on names only
    # the drawn configurations that refute it besides
    c4, _ = _claim(lambda rng, p, i: {"x": 100 + i}, quick=3, refute=lambda p, ctl: ctl or p.x in (1, 103))
    res4 = run_claim_object(c4, "quick", seed=1)
    assert res4["verdict"] == "refuted" and res4["evidence"]["refuted_on"] == ["drawn-3"]
    # a control refuted nowhere survives (combined by the lattice)
    c3, _ = _claim(lambda rng, p, i: {"x": 100 + i}, quick=2)
    res3 = run_claim_object(c3, "quick", seed=1)
    assert res3["negative_controls"][0]["verdict"] == "confirmed" and not res3["negative_controls"][0]["refuted"]


def test_draws_breaking_a_declared_assumption_are_skipped_and_the_dropped_control_breaks_each():
    small = softmix.Assumption("x-small", "x < 50", holds=lambda v: int(v["x"]) < 50,
                               violate=lambda v, rng: {"x": 1000 + int(v["x"])})
    c, seen = _claim(lambda rng, p, i: {"x": 60 if i == 2 else 10 + i}, quick=3, assumptions=[small])
    res = run_claim_object(c, "quick", seed=2)
    ev = res["evidence"]
    assert _names(ev) == ["paper", "drawn-1", "drawn-3"]
    assert ev["skipped_configurations"] == [{"name": "drawn-2", "values": {"x": 60},
                                             "reason": "the draw breaks the assumption x-small (x < 50)"}]
    n_claim_and_control = 2 * 3
    assert 60 not in [x for x, _, _ in seen[:n_claim_and_control]]
    dropped = next(r for r in res["negative_controls"] if r["id"] == "without:x-small")
    # in the assumption-dropped control every configuration is broken (the given one too); a draw that
    # breaks the dropped assumption already is one of its configurations as drawn
    assert [r["values"] for r in dropped["evidence"]["configurations"]] == [{}, {"x": 11}, {"x": 60}, {"x": 13}]
    assert [x for x, _, _ in seen[n_claim_and_control:]] == [1001, 1011, 60, 1013]
    assert dropped["evidence"]["assumption_dropped"]["overrides"] == {"x": 1001}


def test_a_crash_on_a_drawn_configuration_is_an_error_never_a_pass():
    def check(p: P, ctx):
        ctx.control("wrong")
        if p.x == 12:
            raise RuntimeError("breaks on drawn-2")
        return softmix.part("numeric", [{"passed": True}])

    c = softmix.claim(id="unit-draws-crash", title="t", source="s", controls={"wrong": "w"}, register=False,
                      configurations=softmix.Draws(lambda rng, p, i: {"x": 10 + i}, quick=2))(check)
    res = run_claim_object(c, "quick", seed=0)
    assert res["verdict"] == "error" and "breaks" in res["evidence"]["configurations"][2]["evidence"]["exception"]


def test_draws_are_validated_and_the_decorator_refuses_anything_else():
    with pytest.raises(ValueError):
        softmix.Draws(lambda rng, p, i: None, quick=-1)
    with pytest.raises(TypeError):
        softmix.Draws("not callable")
    with pytest.raises(TypeError, match="Draws"):
        softmix.claim(id="u", title="t", source="s", controls={"c": "c"}, configurations=lambda rng, p, i: None,
                      register=False)




def test_the_claim_names_the_configurations_that_refute_it_and_a_control_does_not():
    """Survivor of the recorded engine run (configurations.py:143): a claim refuted on a drawn configuration
    lists it under ``refuted_on`` (the given one is the claim's own verdict); a control's evidence never has
    ``refuted_on`` (its refutations are its power, listed under ``control_power``)."""
    c, _ = _claim(lambda rng, p, i: {"x": 10 + i}, quick=2, refute=lambda p, ctl: p.x == 12 or ctl)
    res = run_claim_object(c, "quick", seed=4)
    assert res["verdict"] == "refuted" and res["evidence"]["refuted_on"] == ["drawn-2"]
    (ctl,) = res["negative_controls"]
    assert "refuted_on" not in ctl["evidence"] and ctl["evidence"]["control_power"]["refuted_on"] == [
        "paper", "drawn-1", "drawn-2"]


def test_findings_of_a_drawn_configuration_are_the_claims_and_not_a_controls():
    """Survivor of the recorded engine run (configurations.py:143): a finding reported on a drawn
    configuration is carried to the claim's findings, named by its configuration; a control's findings are
    not (a control's run is a deliberately wrong statement)."""
    def check(p: P, ctx):
        part = softmix.part("numeric", [{"x": p.x, "passed": True}])
        return softmix.outcome(part, findings=[{"kind": "typo", "detail": f"at x = {p.x}"}] if p.x == 11 else [])

    c = softmix.claim(id="unit-findings", title="t", source="s", controls={"wrong": "a wrong statement"},
                      configurations=softmix.Draws(lambda rng, p, i: {"x": 10 + i}, quick=1), register=False)(check)
    res = run_claim_object(c, "quick", seed=4)
    assert {"configuration": "drawn-1", "kind": "typo", "detail": "at x = 11"} in res["evidence"]["findings"]
    (ctl,) = res["negative_controls"]
    assert not any(f.get("configuration") == "drawn-1" for f in ctl["evidence"].get("findings", []))


def test_an_assumption_dropped_break_draws_from_its_documented_streams():
    """Survivor of the recorded engine run on 2026d72 (configurations.py:87, the stream's purpose and key
    exchanged): a break that draws is reproducible from the seed alone, and the stream is the documented one --
    the given configuration's break from ``stream(seed, claim, "assumption-dropped", name)``
    (configurations.decide_given), a drawn configuration's from ``stream(seed, claim, "configuration", i,
    "assumption")`` (configurations._drawn)."""
    from softmix.checks.streams import stream

    small = softmix.Assumption("x-small", "x < 50", holds=lambda v: int(v["x"]) < 50,
                               violate=lambda v, rng: {"x": 1000 + int(rng.integers(0, 10**9))})
    c, seen = _claim(lambda rng, p, i: {"x": 10 + i}, quick=2, assumptions=[small])
    res = run_claim_object(c, "quick", seed=5)
    dropped = next(r for r in res["negative_controls"] if r["id"] == "without:x-small")
    want_given = 1000 + int(stream(5, "unit-draws", "assumption-dropped", "x-small").integers(0, 10**9))
    want_drawn = [1000 + int(stream(5, "unit-draws", "configuration", i, "assumption").integers(0, 10**9))
                  for i in (1, 2)]
    assert dropped["evidence"]["assumption_dropped"]["overrides"] == {"x": want_given}
    assert [x for x, ctl, _ in seen if ctl is False][-3:] == [want_given, *want_drawn]


def test_an_assumption_that_cannot_be_broken_on_the_given_values_makes_its_control_inconclusive():
    """configurations.py:89: when no candidate of the dropped assumption's break breaks it on the given values,
    the control is 'inconclusive' (never refuted, never confirmed) and says so; the claim itself is decided."""
    stubborn = softmix.Assumption("x-small", "x < 50", holds=lambda v: int(v["x"]) < 50,
                                  violate=lambda v, rng: [{"x": 3}])  # a "break" that still holds
    c, seen = _claim(lambda rng, p, i: None, quick=1, assumptions=[stubborn])
    res = run_claim_object(c, "quick", seed=1)
    assert res["verdict"] == "confirmed"
    dropped = next(r for r in res["negative_controls"] if r["id"] == "without:x-small")
    assert dropped["verdict"] == "inconclusive"
    assert dropped["evidence"]["assumption_dropped"]["note"] == (
        "no configuration breaking it could be built from these values")
