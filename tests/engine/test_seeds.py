"""Seed plumbing (issue 11, part 3): one seed in, independent SeedSequence streams out.

Different seeds give different ``Context.stream`` streams and different drawn values; the stream
also depends on the claim, the purpose and the keys, not on the negative control being run; the
same inputs give the same numbers.  As a real process, ``softmix verify`` under the same seed writes the same JSON
(timings removed), and under another seed a Monte Carlo claim draws different values.
"""
import json
import subprocess
import sys

import numpy as np
import pytest

from softmix.checks.mutation_driver import strip_timings
from softmix.checks.registry import Context


def _draw(seed, claim="c", variant=None, purpose="x", *keys):
    return Context(claim, "quick", seed, variant).stream(purpose, *keys).standard_normal(8)


def _int(seed, purpose):
    return int(Context("c", "quick", seed).stream(purpose).integers(0, 2**63))


def test_same_inputs_same_stream():
    assert np.array_equal(_draw(5, "c", None, "x"), _draw(5, "c", None, "x"))
    assert _int(5, "k") == _int(5, "k")
    # the profile does not enter the stream: quick and full draw the same configurations
    assert np.array_equal(Context("c", "quick", 5).stream("x").random(3), Context("c", "full", 5).stream("x").random(3))


@pytest.mark.parametrize("seeds", [(0, 1), (20261130, 20261131), (1, 2 ** 32 + 1), (7, 70)])
def test_different_seeds_give_different_streams_and_values(seeds):
    a, b = (_draw(s, "c", None, "x") for s in seeds)
    assert not np.any(a == b)  # every drawn value differs, not only the first
    ia, ib = (_int(s, "x") for s in seeds)
    assert ia != ib


def test_claim_purpose_and_keys_each_separate_the_streams():
    base = _draw(3, "c", None, "x")
    for other in (_draw(3, "d", None, "x"), _draw(3, "c", None, "y"),
                  _draw(3, "c", None, "x", 0), _draw(3, "c", None, "x", 1)):
        assert not np.any(base == other)
    # a negative control sees exactly the claim's stream (the same test, the statement altered)
    assert np.array_equal(base, _draw(3, "c", "control", "x"))
    # keys are not concatenated ambiguously: ("x", 1) differs from ("x1",)
    assert not np.array_equal(_draw(3, "c", None, "x", 1), _draw(3, "c", None, "x1"))


def test_streams_look_independent():
    """Two seeds' streams are uncorrelated (|r| < 4 / sqrt(n), a 4-sigma bound)."""
    n = 20000
    a = Context("c", "quick", 11).stream("x").standard_normal(n)
    b = Context("c", "quick", 12).stream("x").standard_normal(n)
    assert abs(np.corrcoef(a, b)[0, 1]) < 4 / np.sqrt(n)


CLAIMS = ["fig-3", "fp-lln"]  # a fast experiment and a fast Monte Carlo claim


def _verify(tmp_path, seed, tag):
    out = tmp_path / f"{tag}.json"
    r = subprocess.run([sys.executable, "-m", "softmix", "verify", *CLAIMS, "--seed", str(seed), "--workers", "1",
                        "--quiet", "--json", str(out)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(out.read_text())


def _claims(doc):
    return {c["id"]: strip_timings(c) for c in doc["claims"]}


def test_verify_same_seed_same_json_other_seed_other_draws(tmp_path):
    a = _verify(tmp_path, 424242, "a")
    b = _verify(tmp_path, 424242, "b")
    c = _verify(tmp_path, 424243, "c")
    assert _claims(a) == _claims(b)
    assert [x["id"] for x in a["claims"]] == CLAIMS
    # the Monte Carlo claim's evidence (its drawn prompts) changes with the seed; verdicts do not
    ea, ec = _claims(a)["fp-lln"], _claims(c)["fp-lln"]
    assert json.dumps(ea["evidence"], sort_keys=True) != json.dumps(ec["evidence"], sort_keys=True)
    assert ea["verdict"] == ec["verdict"] == "confirmed"
