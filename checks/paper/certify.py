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

from softmix.numerics.memo import remember

from ..api import Part, part

__all__ = ["SOURCE", "MAX_ROWS", "flint", "exact", "certificate", "flint_missing"]

SOURCE = "Gabet-Boursier-Boyer 2026"
#: at most this many boxes are listed in a certificate's evidence (counts and the worst box otherwise)
MAX_ROWS = 12


def flint():
    """:mod:`softmix.numerics.balls`, imported when a certificate runs: python-flint is needed only
    then (``ModuleNotFoundError`` without it; see :func:`flint_missing`)."""
    from softmix.numerics import balls

    return balls


def exact(x) -> Fraction:
    """``x`` as an exact Fraction (a decimal or ``p/q`` string, an int, a float as its decimal)."""
    return x if isinstance(x, Fraction) else Fraction(str(x))


def certificate(tag: str, params, compute) -> dict:
    """The certificate ``compute()`` (a dict) for ``(tag, params)``, computed once per claim run and
    shared by the claim and its controls (the run's memo, :mod:`softmix.numerics.memo`): a
    shifted-threshold control reuses the claim's balls.  Records ``certificate_seconds``."""
    def timed():
        t0 = time.perf_counter()
        val = compute()
        val["certificate_seconds"] = round(time.perf_counter() - t0, 3)
        return val

    return remember("paper.certify", (tag, json.dumps(params, sort_keys=True, default=str)), timed)


def flint_missing(e: Exception) -> Part:
    """The certificate part when python-flint is missing: undecidable (``inconclusive``) with the
    reason, never a pass and never a refutation."""
    return part("certificate", [{"passed": None, "reason": f"python-flint unavailable ({e}); install python-flint"}])
