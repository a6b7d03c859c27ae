"""Rule rows shared by the paper's claim modules: a named ``softmix.Bound`` decision and a named row
that cannot be decided (inconclusive, never refuted)."""
from __future__ import annotations

import softmix

__all__ = ["bound", "undecided"]


def bound(check, lhs, rhs, strict=False, **extra):
    """A row: ``lhs <= rhs`` (``<`` when strict) by ``softmix.Bound``, with the check's name and context."""
    return {"check": check, **softmix.Bound(strict=strict).decide(lhs, rhs), **extra}


def undecided(check, reason, **extra):
    """A row that cannot be decided (an assumption of the statement does not hold): inconclusive."""
    return {"check": check, "passed": None, "reason": reason, **extra}
