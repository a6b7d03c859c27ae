"""The reach of a check: the regime, fixed before any number is seen, where it can decide at all.

:class:`Reach` is a rule (:class:`softmix.checks.rules.Rule`) of no alpha: inside its reach it passes,
outside it is ``inconclusive`` with the reason (never refuted) -- e.g. a 1/L extrapolation decided only
for ``lambda* < 1/8``.
"""
from __future__ import annotations

import math

from .rules import Rule
from .verdicts import verdict_of

__all__ = ["Reach"]


class Reach(Rule):
    """The precondition of a check that can decide only inside its reach (a regime fixed before any number is
    seen, e.g. ``lambda* < 1/8`` for a 1/L extrapolation): ``decide(value)`` passes when ``value op limit`` holds
    and is ``inconclusive`` (never refuted) otherwise, with ``reason`` -- what the check cannot do there and what
    would settle it.  No alpha.

    >>> Reach(0.125, "<", name="lambda*", reason="remainder too large").decide(0.2)["verdict"]
    'inconclusive'
    """

    alpha = 0.0

    def __init__(self, limit: float, op: str = "<", name: str = "reach", reason: str = ""):
        if op not in ("<=", ">=", "<", ">"):
            raise ValueError("op must be one of <=, >=, <, >")
        self.limit, self.op, self.name, self.reason = float(limit), op, name, reason

    def describe(self) -> str:
        return (f"{self.name}: decided only where value {self.op} {self.limit:g} (the check's reach; outside it "
                "inconclusive, never refuted; no alpha)")

    def decide(self, value) -> dict:
        v = float(value) if value is not None else float("nan")
        inside = math.isfinite(v) and {"<=": v <= self.limit, ">=": v >= self.limit, "<": v < self.limit,
                                       ">": v > self.limit}[self.op]
        out: dict = {"passed": True if inside else None, "value": v, "limit": self.limit}
        if not inside:
            out["reason"] = f"{self.name} = {v:.4g} is outside the reach ({self.op} {self.limit:.4g})" + (
                f": {self.reason}" if self.reason else "")
        out["verdict"] = verdict_of({"passed": out["passed"]})
        return self._wrap(out)
