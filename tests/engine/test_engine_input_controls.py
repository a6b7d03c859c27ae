"""The input front end's engine control (checks/engine_input_controls.py) is judged right on the
clean tree and wrongly under known faults of the front end, each a fault no claim of the library
would see (none reads a file); and the mutation tool counts what it catches as caught by verify."""
from __future__ import annotations

import dataclasses
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from softmix.checks import engine_controls as E, engine_input_controls as I
from softmix.numerics import parsing, precision, settings
from softmix.numerics.mixture import GaussianMixture

ROOT = Path(__file__).resolve().parents[2]
ID = "engine/input-front-end"


def _judged():
    (entry,) = E.run_engine_controls(0, only={ID})
    return entry


def test_the_input_canary_is_judged_right_and_its_control_refuted():
    e = _judged()
    assert e["judged_right"], e
    assert e["observed"]["verdict"] == "confirmed" and e["observed"]["controls"] == {"perturbed-reference": "refuted"}


def test_the_hand_written_values_are_what_the_files_say():
    """The table is checked against the files by a second reading (Python's json with Fractions
    from the strings), so a typo in the table cannot make the canary test itself."""
    obj = json.loads(I.READS["mixture"][0])
    w = [Fraction(str(x)) for x in obj["weights"]]
    assert tuple(w) == I.READS["mixture"][2][0] and sum(w) == 1
    def exact(x):
        num, _, den = x.strip().partition("/")
        return Fraction(Decimal(num)) / Fraction(Decimal(den or "1"))

    numbers = [exact(x) for x in json.loads(I.READS["numbers"][0])]
    assert tuple(numbers) == I.READS["numbers"][2]
    # |beta|^2 + sigma^2 = 1 + 1/4 + 1/10 in the icl token covariance
    assert I.READS["icl-setting"][2][0][2][2] == 1 + Fraction(1, 4) + Fraction(1, 10)


def _float_json(text):  # reads a JSON float through binary floating point (0.7 -> 0.6999...)
    return Decimal(float(text))


FAULTS = {
    "json floats read in binary": lambda mp: mp.setattr(parsing, "_json_float", _float_json),
    "depth limit off by one": lambda mp: mp.setattr(parsing, "LIMITS", dataclasses.replace(parsing.LIMITS,
                                                                                            max_depth=31)),
    "depth limit ignored": lambda mp: mp.setattr(parsing, "LIMITS", dataclasses.replace(parsing.LIMITS,
                                                                                         max_depth=10**6)),
    "a misspelt setting key accepted": lambda mp: mp.setitem(  # noise_variance optional, any spelling allowed
        settings._KEYS, "icl_regression", (settings._KEYS["icl_regression"][0] - {"noise_variance"},
                                           settings._KEYS["icl_regression"][1] | {"noise_variance", "nosie_variance"})),
    "weights normalised silently": lambda mp: mp.setattr(
        GaussianMixture, "_build", classmethod(lambda cls, m, where, normalize=False:
                                               GaussianMixture._build.__func__(cls, m, where, True))),
    "negative mpmath numbers read without their sign": lambda mp: mp.setattr(
        precision, "to_fraction", lambda x, _f=precision.to_fraction: abs(_f(x))),
    "numpy floats rounded to a decimal": lambda mp: mp.setattr(
        parsing, "_from_other", lambda x, where, _f=parsing._from_other: Fraction(repr(float(x)))
        if type(x).__module__ == "numpy" else _f(x, where)),
    "precision warnings off": lambda mp: mp.setattr(precision, "_precision_report", lambda *a, **k: None),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_fault_of_the_front_end_makes_the_canary_judged_wrongly(monkeypatch, fault):
    FAULTS[fault](monkeypatch)
    e = _judged()
    assert not e["judged_right"] and "verdict" in e["wrong"], (fault, e["observed"])


def test_the_library_stage_records_the_engine_controls_and_kills_a_front_end_mutant_through_them():
    """A mutant of the depth check (``>`` -> ``>=``: a file nested exactly at the limit refused),
    covered by no claim, is killed in the verify stage by the engine controls."""
    from softmix.checks.mutants import generate_mutants
    from softmix.checks.mutation import claims_for, coverage_map, run_mutant
    from softmix.checks.mutation_verdicts import ENGINE_CONTROLS

    cmap = coverage_map(claims=[ENGINE_CONTROLS], root=ROOT)
    rec = cmap["claims"][ENGINE_CONTROLS]
    assert rec["verdict"] == "verified" and rec["lines"]["numerics/parsing.py"]
    (m,) = [m for m in generate_mutants(ROOT) if m.path == "numerics/parsing.py" and m.function == "load_json_file"
            and m.original == "depth > LIMITS.max_depth" and m.operator == "compare"]
    assert claims_for(m, cmap, ROOT) == [ENGINE_CONTROLS]
    row = run_mutant(m, cmap, tests=False, root=ROOT)
    assert row["status"] == "killed" and row["stage"] == "verify", row
    assert any(ID in k for k in row["killed_by"]), row["killed_by"]
