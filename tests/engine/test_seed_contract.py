"""The seed contract: a seed names the same draws in every version of softmix, so a run recorded with
``--seed S`` (docs/records.md, a paper's appendix) is reproduced by running it again.

Each family of draws is pinned by the SHA-256 of its values at fixed seeds: the configuration draws of
``checks.configs``, the operator front-end's instances (``Head.draw``, plain and structured), the seeded
rational mixtures and matrices of ``checks.strategies`` and the derived streams of ``checks.streams``.
A change of any draw -- another distribution, another order of consumption, another grid -- fails here
even when the new draws keep every property the other tests check (those tests guard correctness; this
one guards reproducibility).  An intended change updates ``PINNED`` (the failure prints the new digest) and
is noted in docs/records.md: recorded runs at the old seeds no longer reproduce.
"""
import hashlib
import json

import numpy as np
import pytest

from softmix.checks import configs
from softmix.checks.assumption_runs import BASE_FAMILY
from softmix.checks.operator_family import Head
from softmix.checks.strategies import random_matrix, random_mixture
from softmix.checks.streams import stream

SHAPES = [(2, 1), (3, 2), (2, 3)]


def _rng(*key):
    return np.random.default_rng([20261205, *key])


def _config_draws():
    out = []
    for K, D in SHAPES:
        r = _rng(K, D)
        out += [configs.rational(r, -1.5, 2.5), configs.weights(r, K), configs.vector(r, D),
                configs.means(r, K, D), configs.means(r, K, D, equal_norms=True), configs.spd(r, D),
                configs.spd(r, D, rank=max(1, D - 1)), configs.matrix(r, D), configs.matrix(r, D, symmetric=True),
                configs.large_scores(r, 3)]
    return out


def _mixture_draws():
    out = []
    for K, D in SHAPES:
        for assume in [(), ("equal-norms",), ("antipodal",), ("equal-weights",), ("centred",),
                       ("shared-covariance",), ("isotropic",), ("shared-isotropic",), ("diagonal",), ("singular",)]:
            if "antipodal" in assume and K != 2:
                continue
            out.append(configs.mixture(_rng(K, D, len(out)), K, D, assume=assume))
        out.append(configs.mixture(_rng(K, D, 99), K, D, singular=0, shared=True))
    return out


def _operator_draws():
    out = []
    for K, D in SHAPES:
        for family in [{}, {"weights": "equal"}, {"means": "equal-norms"}, {"centred": True},
                       {"covariance": "diagonal"}, {"covariance": "isotropic"}]:
            spec = {**BASE_FAMILY, "transforms": [], **family}
            for degenerate in (False, True):
                inst = Head(K, D, dict(BASE_FAMILY)).draw(_rng(K, D, len(out)), D, spec, degenerate=degenerate)
                out.append(inst.describe())
    return out


def _strategy_draws():
    out = []
    for K, D in SHAPES:
        r = _rng(K, D, 7)
        out.append(random_mixture(r, K, D).to_json_obj())
        out.append(random_mixture(r, K, D, degenerate=False, shared=True).to_json_obj())
        out.append(random_matrix(r, D, D))
    return out


def _stream_draws():
    return [stream(s, cid, purpose, *keys).integers(0, 2**62, 4).tolist()
            for s in (0, 20261205) for cid in ("prop-2.1", "user-claim")
            for purpose, keys in (("data", ()), ("data", (1, "a")), ("controls", (2,)))]


DRAWS = {"configs": _config_draws, "mixtures": _mixture_draws, "operator": _operator_draws,
         "strategies": _strategy_draws, "streams": _stream_draws}

PINNED = {"configs": "e321f0812320c701", "mixtures": "51d1ac5aa5481cc4", "operator": "6b923b3cd3cecade",
          "strategies": "02e866f68f79a02c", "streams": "54ea01dae725ff61"}


def digest(name: str) -> str:
    text = json.dumps(DRAWS[name](), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_a_seed_names_the_same_draws_in_every_version(name):
    got = digest(name)
    assert got == PINNED[name], (
        f"the {name} draws at fixed seeds changed (digest {got}, pinned {PINNED[name]}): runs recorded at a "
        f"seed no longer reproduce. If intended, pin {got!r} and note the change in docs/records.md (numpy "
        f"{np.__version__}).")


def test_the_draws_do_not_depend_on_the_process_s_hash_seed():
    """Two processes with different PYTHONHASHSEED draw the same values: nothing is drawn in the iteration order
    of a set or a dict of strings (configs.mixture's isotropic variances once were, and their draws changed from
    one process to the next)."""
    import os
    import subprocess
    import sys

    outs = {subprocess.run([sys.executable, __file__], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": h}).stdout for h in ("1", "2")}
    assert len(outs) == 1, outs


if __name__ == "__main__":  # prints the digests to pin
    print({name: digest(name) for name in sorted(DRAWS)})
