"""Stability record: run the quick profile under many seeds and count false refutations.

    python -m benchmarks.stability --seeds 20 [--claims ID ...] [--json PATH]

A true claim refuted under some seed, or a negative control that survives, is a defect of the
verifier's rules (a tolerance or z-bound too tight, a control without power).  The README keeps
the latest figures.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(seeds, claims, workers):
    rows = []
    for s in seeds:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "v.json"
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "softmix", "verify", *claims, "--seed", str(s), "--quiet",
                            "--workers", str(workers), "--json", str(out)], capture_output=True, text=True)
            doc = json.loads(out.read_text())
        refuted = [c["id"] for c in doc["claims"] if c["verdict"] in ("refuted", "error")]
        survived = [f"{c['id']}/{n['id']}" for c in doc["claims"] for n in c["negative_controls"] if not n["refuted"]]
        inconclusive = [c["id"] for c in doc["claims"] if c["verdict"] == "inconclusive"]
        rows.append({"seed": s, "refuted": refuted, "controls_survived": survived, "inconclusive": inconclusive,
                     "seconds": round(time.perf_counter() - t0, 1)})
        print(f"seed {s}: refuted {refuted or '-'}; controls survived {survived or '-'}; "
              f"inconclusive {inconclusive or '-'} ({rows[-1]['seconds']} s)", flush=True)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--first-seed", type=int, default=1)
    p.add_argument("--claims", nargs="*", default=[])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--json")
    a = p.parse_args(argv)
    rows = run(range(a.first_seed, a.first_seed + a.seeds), a.claims, a.workers)
    summary = {"seeds": len(rows), "runs_with_a_refuted_claim": sum(bool(r["refuted"]) for r in rows),
               "runs_with_a_surviving_control": sum(bool(r["controls_survived"]) for r in rows), "rows": rows}
    print(json.dumps({k: v for k, v in summary.items() if k != "rows"}))
    if a.json:
        Path(a.json).write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
