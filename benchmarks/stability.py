"""Stability record: run the quick profile under many seeds and count false refutations.

    python -m benchmarks.stability --seeds 20 [--claims ID ...] [--json PATH]

A true claim refuted under some seed, or a negative control that survives, is a defect of the
verifier's rules (a tolerance or z-bound too tight, a control without power).  docs/records.md
keeps the records.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _summary(rows, meta=None):
    """Counts, plus what the alpha budgets let a record expect: every claim's result carries the level
    its tests spent (``alpha_spent``, at most 1e-3), so the number of type-I refutations over the record
    is at most Poisson-distributed with mean ``type_I_expected_at_most`` = the sum over seeds and claims
    (Bonferroni bounds; the tests are independent across seeds).  ``type_I_tail_probability`` is the
    chance of at least the observed number of refuted claims under that mean: a small value says the
    refutations are more than the budgets allow (defects of checks, or a false statement), a moderate
    one that they are what calibrated tests produce.  Checks that spend no alpha (deterministic
    thresholds, flows) are outside this bound."""
    import math

    lam = float(sum(r.get("alpha_spent", 0.0) for r in rows))
    k = sum(len(r["refuted"]) for r in rows)
    tail = 1.0 - sum(math.exp(-lam) * lam**i / math.factorial(i) for i in range(k)) if k else 1.0
    return {**(meta or {}), "seeds": len(rows), "runs_with_a_refuted_claim": sum(bool(r["refuted"]) for r in rows),
            "runs_with_a_surviving_control": sum(bool(r["controls_survived"]) for r in rows),
            "refuted_claims": k, "type_I_expected_at_most": lam, "type_I_tail_probability": tail, "rows": rows}


def _package_hash() -> str:
    """The checkpoint hash of the sources the verify processes import (same interpreter, same
    working directory), so a record names the exact tree it ran on, installed or checked out."""
    r = subprocess.run([sys.executable, "-c", "from softmix.checks.checkpoint import package_hash; "
                        "print(package_hash())"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"cannot import softmix: {r.stderr.strip()[-300:]}")
    return r.stdout.strip()


def run(seeds, claims, workers, json_path=None, keep=None, command=None):
    """One ``softmix verify`` process per seed.  ``json_path`` is rewritten after every seed, so a
    stopped record keeps the seeds it finished; it also names the run (command line, the hash of
    the imported sources as ``softmix verify --checkpoint`` computes it, package versions);
    ``keep`` (a folder) receives the full verify JSON of every seed that refuted a claim or left a
    control standing, for diagnosis."""
    rows = []
    meta = {"command": command, "package": _package_hash(), "claims_selected": list(claims) or "all"}
    for s in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "v.json"
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "softmix", "verify", *claims, "--seed", str(s), "--quiet",
                                "--workers", str(workers), "--json", str(out)], capture_output=True, text=True)
            if not out.exists():
                raise SystemExit(f"seed {s}: verify wrote no JSON (exit {r.returncode}): {r.stderr.strip()[-300:]}")
            doc = json.loads(out.read_text())
            refuted = [c["id"] for c in doc["claims"] if c["verdict"] in ("refuted", "error")]
            survived = [f"{c['id']}/{n['id']}" for c in doc["claims"] for n in c["negative_controls"]
                        if not n["refuted"]]
            if keep and (refuted or survived):
                Path(keep).mkdir(parents=True, exist_ok=True)
                (Path(keep) / f"seed-{s}.json").write_text(out.read_text())
        meta.setdefault("versions", doc.get("versions"))
        inconclusive = [c["id"] for c in doc["claims"] if c["verdict"] == "inconclusive"]
        rows.append({"seed": s, "refuted": refuted, "controls_survived": survived, "inconclusive": inconclusive,
                     "claims": len(doc["claims"]),
                     "alpha_spent": float(sum(c.get("alpha_spent", 0.0) for c in doc["claims"])),
                     "seconds": round(time.perf_counter() - t0, 1)})
        print(f"seed {s}: refuted {refuted or '-'}; controls survived {survived or '-'}; "
              f"inconclusive {inconclusive or '-'} ({rows[-1]['seconds']} s)", flush=True)
        if json_path:
            Path(json_path).write_text(json.dumps(_summary(rows, meta), indent=1))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--first-seed", type=int, default=1)
    p.add_argument("--claims", nargs="*", default=[])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--json", help="summary file, rewritten after every seed")
    p.add_argument("--keep", metavar="DIR", help="save the full verify JSON of every seed with a failure here")
    a = p.parse_args(argv)
    if a.seeds < 1 or a.first_seed < 0 or a.workers < 1:  # before any seed runs (exit 2, one line)
        p.error("--seeds and --workers must be at least 1, --first-seed non-negative")
    command = ["python", "-m", "benchmarks.stability", *(sys.argv[1:] if argv is None else argv)]
    rows = run(range(a.first_seed, a.first_seed + a.seeds), a.claims, a.workers, a.json, a.keep, command)
    summary = _summary(rows)
    print(json.dumps({k: v for k, v in summary.items() if k != "rows"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
