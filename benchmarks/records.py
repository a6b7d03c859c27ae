"""Compare two sets of ``softmix verify --json`` records claim by claim (issue 25, "nothing lost").

    python -m benchmarks.records --before b-20261130.json b-101.json b-202.json \\
                                 --after a-20261130.json a-101.json a-202.json [--markdown]

Each ``--before``/``--after`` file is one seed's record of the whole registry (the seeds must match
pairwise). For every claim id of the before records it prints the verdict per seed before and after
and its negative controls, and lists the regressions: a claim missing after, a claim whose verdict
got weaker at some seed (order: verified > confirmed > inconclusive > error > refuted), a control
that disappeared, or a control no longer refuted. Exit 1 when there is a regression, else 0.

A control the port replaced by an equivalent one under a new name is looked up under that name
(``RENAMED``, each entry with the reason); the table shows it as ``old->new``.
"""
from __future__ import annotations

import argparse
import json
import sys

STRENGTH = {"verified": 4, "confirmed": 3, "inconclusive": 2, "error": 1, "refuted": 0}
SHORT = {"refuted": "ref", "inconclusive": "inc", "confirmed": "conf", "verified": "ver", "error": "err"}


#: (claim, control before) -> control after, for a control the port replaced by the same statement under
#: another name.  smart-2025-mixture's hand-written "unequal-norms" control (the statement on unequal-norm
#: centres) is now the automatic assumption-dropped control of its declared EqualNorms assumption.
RENAMED = {("smart-2025-mixture", "unequal-norms"): "without:equal-norms"}


def load(path: str) -> tuple[int, dict[str, dict]]:
    """A record's seed and its claims by id."""
    with open(path) as f:
        doc = json.load(f)
    return doc["seed"], {c["id"]: c for c in doc["claims"]}


def controls(claim: dict) -> dict[str, str]:
    """Control id -> verdict of one claim record."""
    return {c["id"]: c["verdict"] for c in claim.get("negative_controls", [])}


def compare(before: list[tuple[int, dict]], after: list[tuple[int, dict]]) -> tuple[list[dict], list[str]]:
    """Rows of the table and the regressions (text)."""
    seeds = [s for s, _ in before]
    if seeds != [s for s, _ in after]:
        raise SystemExit(f"seeds differ: before {seeds}, after {[s for s, _ in after]}")
    rows, bad = [], []
    ids = list(before[0][1])
    for cid in ids:
        row = {"id": cid, "before": [], "after": [], "controls": {}}
        for (seed, b), (_, a) in zip(before, after):
            vb = b[cid]["verdict"] if cid in b else "missing"
            va = a[cid]["verdict"] if cid in a else "missing"
            row["before"].append(vb)
            row["after"].append(va)
            if va == "missing":
                bad.append(f"{cid}: missing after (seed {seed})")
                continue
            if STRENGTH.get(va, -1) < STRENGTH.get(vb, -1):
                bad.append(f"{cid}: {vb} -> {va} at seed {seed}")
            cb, ca = controls(b.get(cid, {})), controls(a[cid])
            for name, v in cb.items():
                new = RENAMED.get((cid, name), name)
                if new != name:
                    ca = {**ca, name: ca.get(new, "missing")}
                    ca.pop(new, None)
                row["controls"].setdefault(name if new == name else f"{name}->{new}", []).append(
                    ca.get(name, "missing"))
                if name not in ca:
                    bad.append(f"{cid}: control {name} disappeared (seed {seed})")
                elif ca[name] != "refuted" and v == "refuted":
                    bad.append(f"{cid}: control {name} {ca[name]} at seed {seed}")
            for name in ca:
                if name not in cb:
                    row["controls"].setdefault(name + " (new)", []).append(ca[name])
        rows.append(row)
    return rows, bad


def markdown(rows: list[dict], seeds: list[int]) -> str:
    """The before/after table as Markdown."""
    head = " | ".join(str(s) for s in seeds)
    out = [f"| claim | before ({head}) | after ({head}) | controls after, per seed |", "|---|---|---|---|"]
    for r in rows:
        ctl = ", ".join(f"{n} ({'/'.join(SHORT.get(v, v) for v in vs)})" for n, vs in r["controls"].items())
        out.append(f"| `{r['id']}` | {'/'.join(SHORT.get(v, v) for v in r['before'])} | "
                   f"{'/'.join(SHORT.get(v, v) for v in r['after'])} | {ctl} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", nargs="+", required=True)
    ap.add_argument("--after", nargs="+", required=True)
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    a = ap.parse_args(argv)
    before = [load(p) for p in a.before]
    after = [load(p) for p in a.after]
    rows, bad = compare(before, after)
    if a.markdown:
        print(markdown(rows, [s for s, _ in before]))
    extra = sorted(set().union(*(set(c) for _, c in after)) - set(before[0][1]))
    print(f"\n{len(rows)} claims compared; {len(extra)} new claims after: {', '.join(extra) or '-'}")
    print(f"{len(bad)} regressions" + (":" if bad else ""))
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
