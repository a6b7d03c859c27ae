"""Random streams: one derivation from (seed, claim id, purpose, keys) and nothing else.

Every random number a check uses comes from :func:`stream` (in a check: ``ctx.stream(purpose,
*keys)``), a NumPy ``Generator`` on the ``SeedSequence``::

    SeedSequence(entropy=seed, spawn_key=(crc32(claim id), 0, crc32(purpose), crc32(str(key_1)), ...))

So the numbers depend on the run's master seed, the claim, what they are for and the keys the
check gives (an index, a dimension, a configuration), and on nothing else: not on the negative
control being run (a control sees exactly the claim's streams, so it is the same test with the
statement altered), not on the profile, the worker, the process or the order in which claims and
controls run.  Different purposes (``"configuration"``, ``"data"``, ``"symbolic-points"``, ...)
give independent streams.  Keys are compared through ``str``: ``1`` and ``"1"`` are the same key.

The ``0`` in the spawn key is kept so the numbers stay those the claims were recorded with (it
was the slot of an older per-control stream, now gone).

>>> a = stream(7, "my-claim", "noise").standard_normal(3)
>>> b = stream(7, "my-claim", "noise").standard_normal(3)
>>> bool((a == b).all())
True
>>> bool((a == stream(7, "my-claim", "other-purpose").standard_normal(3)).any())
False
"""
from __future__ import annotations

import numbers
import zlib

import numpy as np

__all__ = ["stream", "stream_seed"]


def _crc(x) -> int:
    return zlib.crc32(str(x).encode())


def stream_seed(seed: int, claim_id: str, purpose: str, *keys) -> np.random.SeedSequence:
    """The ``SeedSequence`` of :func:`stream` (for a function that takes a seed sequence).

    >>> stream_seed(3, "c", "data", 1).spawn_key == stream_seed(3, "c", "data", "1").spawn_key
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"a stream's seed is a non-negative integer, got {seed!r}")
    if not isinstance(purpose, str) or not purpose:
        raise ValueError(f"a stream's purpose is a non-empty string, got {purpose!r}")
    key = (_crc(claim_id), 0, _crc(purpose), *(_crc(k) for k in keys))
    return np.random.SeedSequence(entropy=int(seed), spawn_key=key)


def stream(seed: int, claim_id: str, purpose: str, *keys) -> np.random.Generator:
    """The random stream of (``seed``, ``claim_id``, ``purpose``, ``keys``): see the module doc.

    >>> draw = lambda: int(stream(0, "c", "configuration", 1).integers(0, 10**6))
    >>> draw() == draw()
    True
    """
    return np.random.default_rng(stream_seed(seed, claim_id, purpose, *keys))
