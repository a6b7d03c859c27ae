"""Shared machinery of the ball-arithmetic certificates (python-flint ``arb``) for strict inequalities and enclosures.

Each claim states ``quantity > threshold`` (or an enclosure) and is decided by a rigorous
computation whose outcome is tri-state: 'verified' when the statement is certainly true for the
exact mathematical quantity, 'refuted' when it is certainly false, 'inconclusive' otherwise.
Overlapping balls never become a boolean.  The evidence carries the certificate: the partition
(boxes), the bound proved on each box (truncated to counts plus the worst box when long), the
balls as strings (``arb.str``) and the working precision in bits.

Two kinds of negative control, both must come back certainly false ('refuted'):

* a *shifted threshold*: the stated threshold/enclosure moves, the certificate is the same
  (computed once per parameter set and cached);
* a *wrong quantity*: the statement and its threshold stay fixed, and the certified quantity is
  computed with a plausible mathematical mistake (a Bayes point with s* = 0, the Wiener filter as
  f*, lambda instead of lambda^2, slope 2 lambda, g(+M) instead of g(-M), M(2a)/M(a)).  The same
  certificate machinery, run on the mistaken quantity, must then prove the statement false; this
  guards against a certificate that would stay 'refuted' only because its threshold is derived
  from its own value.
"""
from __future__ import annotations

import json
import time
from fractions import Fraction

import mpmath as mpm
import numpy as np

from ..registry import Outcome

SOURCE = "Gabet-Boursier-Boyer 2026"
_CACHE: dict = {}
_MAX_ROWS = 12


def _flint():
    """Lazy import: python-flint is required only when a certificate runs."""
    from softmix.numerics import balls  # noqa: F401  (raises ModuleNotFoundError without python-flint)

    return balls


def _cached(tag, params, fn):
    key = (tag, json.dumps(params, sort_keys=True, default=str))
    if key not in _CACHE:
        t0 = time.perf_counter()
        val = fn()
        val["certificate_seconds"] = round(time.perf_counter() - t0, 3)
        _CACHE[key] = val
    return _CACHE[key]


def _F(x) -> Fraction:
    return Fraction(str(x)) if not isinstance(x, Fraction) else x


def _verdict(status):
    return {True: "verified", False: "refuted", None: "inconclusive"}[status]


def _no_flint(e):
    return Outcome("inconclusive", {"reason": f"python-flint unavailable ({e}); install python-flint"})


# =============================================================================================

__all__ = ['SOURCE', '_MAX_ROWS', '_F', '_cached', '_flint', '_no_flint', '_verdict']
