"""Coverage of a source document's numbered statements by registered claims.

A claim library registers each numbered statement (lemma, proposition, theorem, corollary,
remark) of the document it checks, with one of three statuses:

* ``decided``  -- the statement has claim(s) of its own (``claims``);
* ``alias``    -- it is decided inside other claims (``claims``); ``part`` says which part of
  those claims' checks carries it (e.g. a restatement, or one block of a larger check);
* ``external`` -- a general mathematical result the document imports (a textbook theorem);
  ``reason`` says why no claim decides it.

The engine knows nothing about any particular document: :func:`coverage_table` checks that
every claim id named exists in the claim registry (a stale id is an error) and returns the
rows that ``softmix coverage`` prints and writes as JSON.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["STATUSES", "Statement", "STATEMENTS", "register_statement", "coverage_table", "CoverageError"]

STATUSES = ("decided", "alias", "external")


class CoverageError(ValueError):
    """A statement registration or a coverage table is inconsistent (unknown status, stale id)."""


@dataclass(frozen=True)
class Statement:
    label: str
    status: str
    claims: tuple = ()
    reason: str = ""
    part: str = ""
    source: str = ""

    def as_dict(self) -> dict:
        return {"label": self.label, "status": self.status, "claims": list(self.claims),
                "reason": self.reason, "part": self.part, "source": self.source}


#: label -> Statement, in registration order
STATEMENTS: dict[str, Statement] = {}


def register_statement(label: str, status: str, claims=(), reason: str = "", part: str = "",
                       source: str = "") -> Statement:
    """Register numbered statement ``label`` of ``source`` with a coverage ``status``.

    ``decided`` and ``alias`` need at least one claim id; ``alias`` also needs ``part`` (which
    part of those claims decides it); ``external`` needs a ``reason`` and names no claim.
    Claim ids are checked against the registry by :func:`coverage_table`, not here, so that a
    library may register its statements before or after its claims."""
    if not isinstance(label, str) or not label.strip():
        raise CoverageError("a statement label must be a non-empty string")
    if status not in STATUSES:
        raise CoverageError(f"statement {label!r}: status must be one of {', '.join(STATUSES)}, got {status!r}")
    claims = tuple(claims)
    if any(not isinstance(c, str) or not c for c in claims):
        raise CoverageError(f"statement {label!r}: claim ids must be non-empty strings")
    if status in ("decided", "alias") and not claims:
        raise CoverageError(f"statement {label!r}: status {status!r} needs at least one claim id")
    if status == "alias" and not part:
        raise CoverageError(f"statement {label!r}: an alias must say which part of {', '.join(claims)} decides it")
    if status == "external" and (claims or not reason):
        raise CoverageError(f"statement {label!r}: an external statement names no claim and gives a reason")
    key = f"{source}::{label}"
    st = Statement(label, status, claims, reason, part, source)
    if key in STATEMENTS and STATEMENTS[key] != st:
        raise CoverageError(f"statement {label!r} of {source or 'the document'} registered twice")
    STATEMENTS[key] = st
    return st


def coverage_table(registry: dict, statements: dict | None = None) -> list[dict]:
    """Rows ``{"label", "status", "claims", "reason", "part", "source"}`` for every registered
    statement, after checking that every claim id they name exists in ``registry``."""
    statements = STATEMENTS if statements is None else statements
    stale = [(s.label, c) for s in statements.values() for c in s.claims if c not in registry]
    if stale:
        raise CoverageError("unknown claim id(s) named by statements: "
                            + "; ".join(f"{lab} -> {c}" for lab, c in stale))
    return [s.as_dict() for s in statements.values()]


def summary(rows: list[dict]) -> dict:
    """Counts per status."""
    out = {k: 0 for k in STATUSES}
    for r in rows:
        out[r["status"]] += 1
    out["total"] = len(rows)
    return out
