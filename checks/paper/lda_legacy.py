"""Old-dialect helpers still imported by :mod:`.lda_appendix` (not yet ported onto the public claim API).

# compat: removed after the paper port -- delete this module once lda_appendix decides its derivations
# with softmix.decide / softmix.outcome (the ported LDA modules do not use it).
"""
from __future__ import annotations

from ..api import decide
from ..registry import Outcome


def _decide_all(derivs, ctx):
    """(all proven, any refuted, rows) from the engine's one derivation-list helper."""
    sym = decide(derivs, ctx)
    return sym.verdict == "verified" or not derivs, sym.verdict == "refuted", sym.rows


def _sym_outcome(derivs, ctx, extra=None):
    ok, ref, rows = _decide_all(derivs, ctx)
    ev = {"symbolic": rows, **(extra or {})}
    if ref:
        return Outcome("refuted", ev)
    if ok:
        return Outcome("verified", ev)
    ev["to_settle"] = "an exact simplification of derived - stated (larger CAS budget)"
    return Outcome("inconclusive", ev)
