"""Known answers for the random-stream contract (checks/streams.py, ``Context.stream``): the numbers
depend on (seed, claim id, purpose, keys) and nothing else -- not on the negative control, the
profile, the number of workers or the order of the claims -- and the purpose separates streams."""
from __future__ import annotations

import numpy as np
import pytest

from softmix.checks.registry import Context
from softmix.checks.runner import run_claims
from softmix.checks.streams import stream, stream_seed


def _draw(ctx, purpose="p", *keys):
    return ctx.stream(purpose, *keys).integers(0, 2**62, 6)


def test_same_inputs_same_numbers_whatever_the_control_or_profile():
    base = _draw(Context("c", "quick", 5), "p", 1)
    for ctx in (Context("c", "full", 5), Context("c", "quick", 5, variant="flipped-sign"),
                Context("c", "full", 5, variant="without:equal-norms")):
        assert np.array_equal(base, _draw(ctx, "p", 1))
    assert np.array_equal(base, stream(5, "c", "p", 1).integers(0, 2**62, 6))


def test_seed_claim_purpose_and_keys_each_separate_the_streams():
    base = _draw(Context("c", "quick", 5), "p", 1)
    others = [_draw(Context("c", "quick", 6), "p", 1), _draw(Context("d", "quick", 5), "p", 1),
              _draw(Context("c", "quick", 5), "q", 1), _draw(Context("c", "quick", 5), "p", 2),
              _draw(Context("c", "quick", 5), "p"), _draw(Context("c", "quick", 5), "p", 1, 0)]
    for o in others:
        assert not np.any(base == o)
    # the purpose is not a key: ("p", 1) is not ("p1",) nor the purpose "1" with key "p"
    assert not np.array_equal(_draw(Context("c", "quick", 5), "p", 1), _draw(Context("c", "quick", 5), "p1"))
    assert not np.array_equal(_draw(Context("c", "quick", 5), "p", 1), _draw(Context("c", "quick", 5), "1", "p"))


def test_bad_seed_or_purpose_is_refused():
    for seed in (-1, True, 1.5, "3"):
        with pytest.raises(ValueError):
            stream_seed(seed, "c", "p")
    for purpose in ("", None, 3):
        with pytest.raises(ValueError):
            stream_seed(1, "c", purpose)


PLUGIN = '''
from dataclasses import dataclass

import softmix


@dataclass
class P:
    n: int = 4


def _make(cid):
    @softmix.claim(id=cid, title="streams", source="test", controls={"ctl": "refuted by construction"},
                   configurations_note="records its streams only")
    def check(p: P, ctx):
        row = {"a": ctx.stream("alpha").integers(0, 2**62, p.n).tolist(),
               "b": ctx.stream("beta", 1).integers(0, 2**62, p.n).tolist(),
               "d": ctx.data("d", lambda rng: rng.integers(0, 2**62, p.n).tolist(), params=p),
               "passed": not ctx.control("ctl")}
        return softmix.part("numeric", [row])
    return check


_make("unit-streams-a")
_make("unit-streams-b")
'''


def _numbers(results):
    """{(claim, run): (a, b, d)} for each claim and its control."""
    out = {}
    for r in results:
        runs = [("claim", r["evidence"])] + [(c["id"], c["evidence"]) for c in r["negative_controls"]]
        for name, ev in runs:
            row = ev["numeric"]["rows"][0]
            out[(r["id"], name)] = (tuple(row["a"]), tuple(row["b"]), tuple(row["d"]))
    return out


def test_same_numbers_whatever_the_workers_or_the_order(tmp_path):
    path = tmp_path / "streams_plugin.py"
    path.write_text(PLUGIN)
    ids = ["unit-streams-a", "unit-streams-b"]
    serial = _numbers(run_claims(ids, seed=31, workers=1, plugins=(str(path),)))
    pooled = _numbers(run_claims(ids[::-1], seed=31, workers=2, plugins=(str(path),)))
    other = _numbers(run_claims(ids, seed=32, workers=1, plugins=(str(path),)))
    assert serial == pooled
    for cid in ids:
        a, b, d = serial[(cid, "claim")]
        assert serial[(cid, "ctl")] == (a, b, d)  # the control sees the claim's streams and data
        assert not set(a) & set(b) and not set(a) & set(d)  # purposes separate
        assert not set(a) & set(other[(cid, "claim")][0])  # another seed, other numbers
    assert not set(serial[(ids[0], "claim")][0]) & set(serial[(ids[1], "claim")][0])  # claims separate
