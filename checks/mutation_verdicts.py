"""What kills a mutant, read from a verify result: the parts of the mutation tool that the parent
process (:mod:`softmix.checks.mutation`, :mod:`softmix.checks.mutation_engine`) and the child
driver (:mod:`softmix.checks.mutation_driver`, which runs the CLI) both need.  Kept apart so that
the tool's modules import one way: the driver imports the CLI, nothing in the engine imports the
driver."""
from __future__ import annotations

import hashlib
import json
import re

__all__ = ["ENGINE_CONTROLS", "evidence_digest", "strip_timings", "kill_reasons", "run_engine_controls_as_claim"]

#: the pseudo-claim id under which the library stage records and runs the engine controls: every
#: ``softmix verify`` runs them (:mod:`softmix.checks.engine_controls`) and exits 1 when one is judged
#: wrongly, so a library mutant that misjudges a canary is a mutant verify catches.  No claim id can
#: take this form (claim ids are validated by the registry).
ENGINE_CONTROLS = "(engine controls)"

_TIMING = re.compile(r"(^|_)(seconds|secs|elapsed|wall|time|timing)s?$")


def strip_timings(x):
    """A verify result without wall-clock fields (the only part allowed to differ run to run)."""
    if isinstance(x, dict):
        return {k: strip_timings(v) for k, v in x.items() if not _TIMING.search(str(k))}
    if isinstance(x, list):
        return [strip_timings(v) for v in x]
    return x


def evidence_digest(result: dict) -> str:
    """SHA-1 of a claim result's verdicts, parameters, evidence and controls (timings removed);
    mpmath numbers are already printed at 30 digits by the runner."""
    keep = {k: result.get(k) for k in ("verdict", "parameters", "evidence", "findings", "negative_controls")}
    return hashlib.sha1(json.dumps(strip_timings(keep), sort_keys=True, default=str).encode()).hexdigest()


def run_engine_controls_as_claim(seed: int) -> dict:
    """The engine controls at ``seed``, as a claim result: verdict ``verified`` when every canary
    is judged right, ``error`` otherwise; the entries (timings removed) are the evidence."""
    from softmix.checks.engine_controls import run_engine_controls

    entries = run_engine_controls(seed)
    wrong = [e for e in entries if not e["judged_right"]]
    return {"id": ENGINE_CONTROLS, "verdict": "error" if wrong else "verified", "parameters": {}, "findings": [],
            "evidence": {"entries": strip_timings(entries)}, "negative_controls": [],
            "wrong": [f"engine control {e['id']} judged wrongly ({', '.join(e['wrong'])})" for e in wrong]}


def kill_reasons(result: dict, clean_verdict: str | None = None) -> list[str]:
    """Why a claim result kills a mutant ([] when it does not): the claim fails as ``softmix verify``
    judges it (:func:`softmix.checks.runner.claim_passed`: refuted, error, or a control that fails
    by :func:`softmix.checks.assumption_runs.control_failed` -- so an assumption-dropped control
    that is not refuted, a scope finding, is never a kill), or its verdict differs from the clean
    run's ``clean_verdict``."""
    from softmix.checks.assumption_runs import control_failed
    from softmix.checks.runner import claim_passed

    if result.get("id") == ENGINE_CONTROLS:
        return list(result["wrong"])
    why = []
    if not claim_passed(result):
        if result["verdict"] in ("refuted", "error"):
            why.append(f"{result['id']}: {result['verdict']}")
        why += [f"{result['id']}/{ctl['id']}: control {ctl['verdict']}" for ctl in result["negative_controls"]
                if control_failed(ctl)]
        why = why or [f"{result['id']}: fails (verdict {result['verdict']})"]
    if not why and clean_verdict is not None and result["verdict"] != clean_verdict:
        why.append(f"{result['id']}: verdict {clean_verdict} -> {result['verdict']}")
    return why
