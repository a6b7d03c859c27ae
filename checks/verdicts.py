"""The verdict algebra: one lattice, one ``combine``, one row-to-verdict mapper, one control rule.

The lattice, best to worst (the worst part wins)::

    verified < confirmed < inconclusive < error < refuted

What may be ``verified``
------------------------
A verdict is only as strong as its evidence.  Parts come in two sorts:

* **proofs** -- a part of kind ``symbolic`` (SymPy reduced ``derived - stated`` to exactly 0) or
  of kind ``certificate`` (rigorous interval arithmetic: python-flint ``arb`` balls that enclose
  every rounding, so that a certified ``quantity > threshold`` holds for the exact mathematical
  quantity; overlapping balls decide nothing).  A proof part may be ``verified``;
* **evidence** -- every other kind (``numeric``, ``monte-carlo``, ...): agreement at a finite
  precision, or a statistical test that did not reject.  Evidence is at most ``confirmed``.

A claim is ``verified`` when it has at least one proof, every proof is ``verified`` and every
other part passed (``verified`` or ``confirmed``).  A symbolic derivation SymPy neither proves nor
refutes is ``unproven``: it blocks ``verified`` but does not by itself make a claim whose other
parts confirm it inconclusive.  A verdict that is not one of the lattice counts as ``error``
(never as a pass).

The functions
-------------
* :func:`verdict_of` -- a part's verdict from its rows (rule decisions), the one row mapper;
* :func:`combine` -- the one combination: of parts, of rule decisions, or of settled verdicts
  (a configuration's or a claim's verdict, which may be ``verified`` since it was combined already);
* :func:`combine_control` -- the rule for a negative control decided on several configurations:
  a control is a wrong *general* statement, so one configuration that refutes it refutes it.

>>> combine(["verified", "confirmed"])
'confirmed'
>>> combine_control(["confirmed", "refuted"])
'refuted'
>>> verdict_of([{"passed": True}, {"passed": None}])
'inconclusive'
"""
from __future__ import annotations

from typing import Any, Iterable

__all__ = ["LATTICE", "VERDICTS", "PROOF_KINDS", "LATTICE_RULE", "CONTROL_RULE", "rank", "verdict_of", "combine",
           "combine_control"]

#: verdicts from best to worst (the worst part wins)
LATTICE = ("verified", "confirmed", "inconclusive", "error", "refuted")
#: the verdicts a claim may have, in the order ``softmix verify`` counts them
VERDICTS = ("verified", "confirmed", "refuted", "inconclusive", "error")
#: part kinds whose evidence is a proof and may be ``verified``; every other kind is at most ``confirmed``
PROOF_KINDS = ("symbolic", "certificate")

LATTICE_RULE = ("worst part wins: refuted > error > inconclusive > confirmed > verified; verified needs a proof "
                "(symbolic derivations or a ball-arithmetic certificate), every proof verified and every other part "
                "passed; numeric and Monte Carlo evidence is at most confirmed")
CONTROL_RULE = ("control: refuted if some configuration refutes it (a counterexample); the others are listed "
                "under control_power")

# 'unproven' (a symbolic derivation neither proven nor refuted) sits between confirmed and inconclusive
_RANK = {"verified": 0.0, "confirmed": 1.0, "unproven": 1.5, "inconclusive": 2.0, "error": 3.0, "refuted": 4.0}
_STATUS = {"proven": "verified", "refuted": "refuted", "unproven": "unproven"}  # symbolic rows (softmix.decide)


def rank(verdict: str) -> float:
    """Position of ``verdict`` in the lattice (higher is worse); an unknown verdict ranks as ``error``.

    >>> sorted(["refuted", "verified", "inconclusive"], key=rank)
    ['verified', 'inconclusive', 'refuted']
    >>> rank("no-such-verdict") == rank("error")
    True
    """
    return _RANK.get(verdict, _RANK["error"])


def _known(verdict) -> str:
    return verdict if verdict in _RANK else "error"


def _row_verdict(row: dict, kind: str) -> str:
    v = row.get("verdict")
    if v is None and "status" in row and "passed" not in row:
        v = _STATUS.get(row["status"], "error")
    if v is None:
        passed = row.get("passed")
        if passed is None or row.get("decidable") is False:
            v = "inconclusive"
        elif not passed:
            v = "refuted"
        elif row.get("precise_enough") is False:
            v = "inconclusive"
        else:
            v = "verified" if kind in PROOF_KINDS else "confirmed"
    v = _known(v)
    return "confirmed" if v == "verified" and kind not in PROOF_KINDS else v


def verdict_of(rows, kind: str = "numeric") -> str:
    """A part's verdict from its rows -- the one row-to-verdict mapper.  ``rows`` is one row (a
    dict) or a list of them; the worst row wins, and no rows is ``inconclusive``.

    A row's verdict is its ``verdict`` key when the rule gave one; else, for a symbolic row, its
    ``status`` (proven -> verified, refuted, unproven); else from ``passed``: ``None`` (or
    ``decidable`` False) -> inconclusive (a rule that cannot decide never refutes), ``False`` ->
    refuted, ``True`` -> confirmed (``verified`` in a proof part, kind ``symbolic`` or
    ``certificate``), but inconclusive when ``precise_enough`` is False (an interval wider than
    its declared margin).  In an evidence part a ``verified`` row counts as ``confirmed``; a
    verdict outside the lattice is ``error``.

    >>> verdict_of({"passed": True})
    'confirmed'
    >>> verdict_of({"passed": True}, kind="certificate")
    'verified'
    >>> verdict_of([{"passed": True, "precise_enough": False}])
    'inconclusive'
    >>> verdict_of([{"passed": False}, {"passed": None}])
    'refuted'
    >>> verdict_of([{"verdict": "maybe"}])
    'error'
    >>> verdict_of([])
    'inconclusive'
    """
    rows = [rows] if isinstance(rows, dict) else list(rows)
    if not rows:
        return "inconclusive"
    return max((_row_verdict(r, kind) for r in rows), key=rank)


def _item(x: Any) -> tuple[str, str]:
    """(verdict, role): role 'proof' (a proof part), 'evidence' (another part or a rule decision) or
    'settled' (a verdict string or an Outcome: combined already, it may be verified)."""
    if isinstance(x, str):
        return _known(x), "settled"
    if isinstance(x, dict):
        return verdict_of(x), "evidence"
    verdict = getattr(x, "verdict", None)
    if not isinstance(verdict, str):
        raise TypeError(f"combine takes parts, rule decisions (dicts) or verdicts, not {type(x).__name__}")
    kind = getattr(x, "kind", None)
    if kind is None:
        return _known(verdict), "settled"
    return _known(verdict), "proof" if kind in PROOF_KINDS else "evidence"


def combine(items: Iterable) -> str:
    """The one combination of the lattice: the verdict of a claim from its parts, of a set of
    rule decisions, or of configurations' verdicts.

    ``items``: :class:`~softmix.checks.api.Part` objects (their ``kind`` says proof or evidence),
    rule decisions (dicts, read by :func:`verdict_of`: evidence), verdict strings or Outcomes
    (settled verdicts, e.g. one per configuration: a settled ``verified`` counts as a proof).
    ``refuted``, then ``error``, then ``inconclusive`` win when present; otherwise ``verified``
    when there is a proof (or a settled verdict) and every proof and settled verdict is
    ``verified`` and nothing is ``unproven``; otherwise ``confirmed`` when something decided;
    ``inconclusive`` when nothing did (no items, or only ``unproven`` ones).

    >>> combine(["confirmed", "error", "refuted"])
    'refuted'
    >>> combine(["inconclusive", "error"])
    'error'
    >>> combine(["verified", "verified"])
    'verified'
    >>> combine([{"verdict": "confirmed"}, {"passed": None}])
    'inconclusive'
    >>> combine([])
    'inconclusive'
    >>> from softmix.checks.api import Part
    >>> combine([Part("proof", "symbolic", "verified"), Part("numbers", "numeric", "confirmed")])
    'verified'
    >>> combine([Part("numbers", "numeric", "verified")])
    'confirmed'
    >>> combine([Part("balls", "certificate", "verified")])
    'verified'
    >>> combine([Part("proof", "symbolic", "unproven"), Part("numbers", "numeric", "confirmed")])
    'confirmed'
    """
    pairs = [_item(x) for x in items]
    verdicts = [v for v, _ in pairs]
    for v in ("refuted", "error", "inconclusive"):
        if v in verdicts:
            return v
    if not any(v in ("verified", "confirmed") for v in verdicts):
        return "inconclusive"
    proofs = [v for v, role in pairs if role != "evidence"]
    if proofs and all(v == "verified" for v in proofs) and "unproven" not in verdicts:
        return "verified"
    return "confirmed"


def combine_control(verdicts: Iterable) -> str:
    """A negative control decided on several configurations: ``refuted`` when one configuration
    refutes it (a counterexample to the wrong statement), otherwise :func:`combine` of the
    configurations' verdicts (the control survived).

    >>> combine_control(["refuted", "confirmed"])
    'refuted'
    >>> combine_control(["confirmed", "inconclusive"])
    'inconclusive'
    """
    vs = list(verdicts)
    if any(_item(v)[0] == "refuted" for v in vs):
        return "refuted"
    return combine(vs)
