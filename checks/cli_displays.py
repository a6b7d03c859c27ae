"""``softmix coverage --displays``: the display ledger (every ``$$`` display of a paper, its class
and what decides it), checked against the paper text and the claim registry before printing."""
from __future__ import annotations

import json

from .cli_common import UsageError

__all__ = ["cmd_displays", "load_rows"]


def load_rows(ledger_files, plugins=()) -> tuple[list[dict], list[str]]:
    """Rows of every display of the given ledgers (default: the ledgers registered by the loaded
    claim libraries), after checking each ledger against its paper (fingerprints) and the claim
    registry (claim ids, derivation and check names).  Raises :class:`UsageError` (one line)."""
    from softmix.checks.displays import (
        LEDGERS,
        LedgerError,
        check_names,
        ledger_rows,
        load_ledger,
        match_displays,
    )
    from softmix.checks.registry import load_all

    registry = load_all(plugins)
    files = list(ledger_files or LEDGERS)
    if not files:
        raise UsageError("no display ledger: pass --ledger FILE (docs/coverage.md describes the format)")
    rows = []
    try:
        for f in files:
            ledger = load_ledger(f)
            pairs = match_displays(ledger)
            check_names([e for _, e in pairs], registry)
            rows += [{**r, "paper": ledger.paper.name} for r in ledger_rows(pairs)]
    except LedgerError as e:
        raise UsageError(str(e)) from None
    return rows, [str(f) for f in files]


def _what(r: dict, width: int = 70) -> str:
    if r["status"] == "decided":
        s = ", ".join(r["claims"]) + (f" [{'; '.join(r['derivation'])}]" if r["derivation"] else "")
    elif r["status"] == "unchecked":
        s = f"needs {r['needs']}: {r['reason']}"
    else:
        s = r["reads"] and f"reads: {r['reads']}" or ""
    return s if len(s) <= width else s[:width - 3] + "..."


def _print_summary(counts: dict) -> None:
    from softmix.checks.displays import CLASSES, STATUSES

    print("counts by class and status:")
    for c in CLASSES:
        parts = [f"{s} {counts['class_status'][f'{c}/{s}']}" for s in STATUSES if f"{c}/{s}" in counts["class_status"]]
        print(f"  {c:10s} {counts['class'][c]:4d}  ({', '.join(parts) or '-'})")
    st = counts["status"]
    n, d = counts["step_estimate_total"], counts["step_estimate_decided"]
    print(f"{counts['total']} displays: {st['decided']} decided, {st['unchecked']} unchecked, {st['n/a']} not "
          f"checkable (definitions, imported results, artefacts); step and estimate displays decided: {d} of {n}"
          + (f" ({100 * d / n:.0f} %)" if n else ""))


def cmd_displays(args) -> int:
    from softmix.checks.displays import summary, undecided

    if not args.displays:
        raise UsageError("--ledger and --undecided go with --displays")
    rows, files = load_rows(args.ledger, args.plugin)
    counts = summary(rows)
    todo = undecided(rows)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"displays": rows, "summary": counts, "ledgers": files, "undecided": todo}, fh, indent=1)
    shown = todo if args.undecided else rows
    if args.undecided:
        print("unchecked step and estimate displays softmix could decide, in priority order "
              "(SymPy derivations first, then numeric checks; paper order within each):")
    print(f"{'display':12s} {'class':10s} {'status':9s} claims [derivation] / what is needed")
    print("-" * 100)
    for r in shown:
        print(f"{r['section'] + ' #' + str(r['ordinal']):12s} {r['class']:10s} {r['status']:9s} {_what(r)}")
    _print_summary(counts)
    return 0
