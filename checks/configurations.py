"""Generic configurations as a declared option of a claim, run by the engine.

A claim decided only on its paper's configuration cannot see a term that vanishes there (equal-norm
means, weights of 1/2, a symmetric U).  A claim declares the configurations it is also decided on::

    @softmix.claim(id=..., ..., configurations=softmix.Draws(draw, quick=1, full=3))
    def check(p: Params, ctx): ...

``draw(rng, p, i)`` returns the parameter overrides of drawn configuration ``i`` (1-based; a dict
of field values, as ``--config`` would give them), or ``None`` to draw nothing for ``i``; ``p`` is
the given configuration's parameters (the dataclass instance the check receives).  The engine
(:func:`run_configurations`):

* splits the claim's alpha equally over the given configuration and the ``n`` drawn ones (``n`` =
  ``quick`` or ``full`` by the profile) *before* anything is drawn: each runs under
  ``alpha_share(1 / (1 + n))`` (Bonferroni over configurations);
* draws configuration ``i`` from ``ctx.stream("configuration", i)``: the same seed gives the same
  configurations, another seed others, and a negative control is decided on exactly its claim's;
* skips a draw that breaks a declared assumption (it is not a configuration of the statement:
  listed under ``skipped_configurations``); in an assumption-dropped control every configuration is
  broken the same way (:func:`softmix.checks.assumption_runs.admissible`);
* combines the verdicts: the claim by :func:`~softmix.checks.verdicts.combine` (refuted if any
  configuration refutes), a negative control by
  :func:`~softmix.checks.verdicts.combine_control` (refuted when one configuration refutes it;
  the others listed under ``control_power``);
* records every configuration in ``evidence["configurations"]`` as ``{"name", "values",
  "verdict"[, "evidence"]}`` (``name`` ``paper`` when the given parameters are the claim's
  defaults, else ``given``; then ``drawn-i``; ``values`` the overrides, ``{}`` for the given one).

A drawn configuration whose check raises is an ``error`` row, never a pass.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import verdicts as _verdicts
from .assumption_runs import admissible, dropped_assumption, violating_values
from .registry import Outcome
from .rules import alpha_share
from .verdicts import CONTROL_RULE

__all__ = ["Draws", "run_configurations", "decide_given"]


@dataclass(frozen=True)
class Draws:
    """The configurations a claim is decided on besides the given one (see the module doc).

    ``draw(rng, params, i) -> overrides dict | None``; ``quick`` / ``full``: how many are drawn in
    each profile; ``keep_evidence``: keep each drawn configuration's own evidence in its row.

    >>> d = Draws(lambda rng, p, i: {"x": str(rng.integers(1, 9))}, quick=1, full=3)
    >>> d.count("quick"), d.count("full"), d.share("full")
    (1, 3, 0.25)
    """

    draw: Callable[..., Any]
    quick: int = 1
    full: int = 3
    keep_evidence: bool = True

    def __post_init__(self):
        if not callable(self.draw):
            raise TypeError(f"Draws: draw must be callable draw(rng, params, i), not {type(self.draw).__name__}")
        for name in ("quick", "full"):
            n = getattr(self, name)
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ValueError(f"Draws: {name} must be a non-negative integer, got {n!r}")

    def count(self, profile: str) -> int:
        """How many configurations are drawn in ``profile``."""
        return self.full if profile == "full" else self.quick

    def share(self, profile: str) -> float:
        """The share of the claim's alpha each configuration gets: 1 / (1 + count)."""
        return 1.0 / (1 + self.count(profile))


def decide_given(claim, values: dict, ctx, decide: Callable[[dict], Outcome]) -> Outcome:
    """The given configuration: ``decide(values)``; in an assumption-dropped control, on the values
    broken by :func:`~softmix.checks.assumption_runs.violating_values` (from
    ``ctx.stream("assumption-dropped", name)``), ``inconclusive`` when none can be built."""
    dropped = dropped_assumption(claim, ctx.variant)
    if dropped is None:
        return decide(values)
    broken, info = violating_values(claim, dropped, values, ctx.stream("assumption-dropped", dropped.name))
    if broken is None:
        return Outcome("inconclusive", {"assumption_dropped": info})
    out = decide(broken)
    out.evidence["assumption_dropped"] = info
    return out


def _drawn(claim, draws: Draws, values: dict, ctx, decide, view, i: int):
    """(row, skipped) for drawn configuration ``i``: (None, None) when ``draw`` gives nothing."""
    over = draws.draw(ctx.stream("configuration", i), view(values), i)
    if over is None:
        return None, None
    p, why = admissible(claim, ctx.variant, {**values, **over}, ctx.stream("configuration", i, "assumption"))
    if p is None:  # a draw outside the statement's assumptions is not one of its configurations
        return None, {"name": f"drawn-{i}", "values": over, "reason": why}
    try:
        with alpha_share(draws.share(ctx.profile)):
            out = decide(p)
    except Exception as e:  # a crash on a drawn configuration is an error, never a pass
        out = Outcome("error", {"exception": f"{type(e).__name__}: {e}"})
    row = {"name": f"drawn-{i}", "values": over, "verdict": out.verdict}
    if draws.keep_evidence:
        row["evidence"] = out.evidence
    return row, None


def run_configurations(claim, draws: Draws, values: dict, ctx, decide: Callable[[dict], Outcome],
                       view: Callable[[dict], Any] = dict) -> Outcome:
    """Decide ``claim`` on the given ``values`` and on the configurations ``draws`` draws (the
    module doc): ``decide(values) -> Outcome`` decides one configuration, ``view(values)`` is what
    ``draws.draw`` receives as its parameters."""
    n = draws.count(ctx.profile)
    share = draws.share(ctx.profile)  # the claim's alpha, split over its configurations before any is drawn
    with alpha_share(share):
        first = decide_given(claim, values, ctx, decide)
    paper = claim is not None and values == claim.params(ctx.profile)
    rows: list[dict[str, Any]] = [{"name": "paper" if paper else "given", "values": {}, "verdict": first.verdict}]
    skipped = []
    for i in range(1, n + 1):
        row, skip = _drawn(claim, draws, values, ctx, decide, view, i)
        if row is not None:
            rows.append(row)
        if skip is not None:
            skipped.append(skip)
    rule = _verdicts.combine_control if ctx.variant else _verdicts.combine
    return Outcome(rule([r["verdict"] for r in rows]),
                   _evidence(first, rows, skipped, n, bool(ctx.variant)))


def _evidence(first: Outcome, rows: list, skipped: list, n: int, control: bool) -> dict:
    ev = dict(first.evidence)
    findings = list(ev.get("findings", []))
    for r in rows[1:]:
        if r["verdict"] == "refuted" and not control:
            ev.setdefault("refuted_on", []).append(r["name"])
        for f in (r.get("evidence") or {}).get("findings", []) if not control else []:
            findings.append({"configuration": r["name"], **f} if isinstance(f, dict) else
                            {"configuration": r["name"], "finding": f})
    if findings:
        ev["findings"] = findings
    if control:
        ev["control_power"] = {"refuted_on": [r["name"] for r in rows if r["verdict"] == "refuted"],
                               "not_refuted_on": [r["name"] for r in rows if r["verdict"] != "refuted"]}
    ev["configurations"] = rows
    if skipped:
        ev["skipped_configurations"] = skipped
    ev["combined_rule"] = (CONTROL_RULE if control else
                           "refuted if any configuration refutes; else error, inconclusive, confirmed, "
                           "verified in that order")
    ev["alpha_split"] = (f"each of the {1 + n} configurations' statistical tests draw from 1/{1 + n} of the "
                         "claim's alpha (Bonferroni over configurations)")
    return ev
