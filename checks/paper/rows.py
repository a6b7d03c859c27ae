"""Rule rows shared by the paper's claim modules: a named ``softmix.Bound`` decision and a named row
that cannot be decided (inconclusive, never refuted)."""
from __future__ import annotations

import softmix

__all__ = ["bound", "undecided", "undecide"]


def bound(check, lhs, rhs, strict=False, **extra):
    """A row: ``lhs <= rhs`` (``<`` when strict) by ``softmix.Bound``, with the check's name and context."""
    return {"check": check, **softmix.Bound(strict=strict).decide(lhs, rhs), **extra}


def undecided(check, reason, **extra):
    """A row that cannot be decided (an assumption of the statement does not hold): inconclusive."""
    return {"check": check, "passed": None, "reason": reason, **extra}


def undecide(row, reason, **extra):
    """``row``, decided by its rule, marked undecided in place (a precondition of the rule does not hold: a
    quadrature error above the tolerance, an interval straddling the threshold): ``passed`` None, verdict
    inconclusive -- both, so that no earlier verdict of the rule survives -- with the reason and any context
    (``to_settle``: what would settle it).  Returns the row.

    >>> undecide({"check": "x", "passed": False, "verdict": "refuted"}, "not resolved", to_settle="more nodes")
    {'check': 'x', 'passed': None, 'verdict': 'inconclusive', 'reason': 'not resolved', 'to_settle': 'more nodes'}
    """
    row.update(passed=None, verdict="inconclusive", reason=reason, **extra)
    return row
