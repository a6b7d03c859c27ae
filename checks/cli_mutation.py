"""``softmix mutation-score``: generated (or named) mutants scored by verify and the tests."""
from __future__ import annotations

import json
import sys

from .cli_common import UsageError

__all__ = ["cmd_mutation"]


def cmd_mutation(args):
    from softmix.checks.mutation import mutation_score, require_source_checkout
    from softmix.checks.mutation_faults import FAULTS
    from softmix.checks.mutation_score import generated_mutation_score
    from softmix.numerics.errors import InputError

    if args.sample is not None and args.sample < 1:
        raise InputError("--sample must be a positive integer")
    if args.jobs < 1:
        raise InputError("--jobs must be a positive integer")
    if not args.test_timeout > 0:
        raise InputError("--test-timeout must be positive")
    if args.faults and not args.named:
        raise UsageError("--faults selects named faults: add --named")
    if args.named and args.target != "library":
        raise UsageError("--named faults are library faults: --target does not apply")
    require_source_checkout()

    if args.named:
        faults = FAULTS
        if args.faults:
            wanted = set(args.faults.split(","))
            unknown = wanted - {f.id for f in FAULTS}
            if unknown:
                raise UsageError(f"unknown fault id(s): {', '.join(sorted(unknown))}")
            faults = [f for f in FAULTS if f.id in wanted]

        def fault_progress(done, total, row):
            if not args.quiet:
                print(f"[{done}/{total}] {row['id']}: {'caught' if row['caught'] else 'SURVIVED'}"
                      f" {'; '.join(row['caught_by'][:2])}", file=sys.stderr, flush=True)

        doc = mutation_score(faults, args.verify_seed, fault_progress)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(doc, fh, indent=1)
        print(f"named faults caught: {doc['caught']}/{doc['total']} = {doc['score']:.3f}")
        for row in doc["faults"]:
            if not row["caught"]:
                print(f"  survived: {row['id']}: {row['description']}")
        return 0

    def mcb(done, total, rec):
        if not args.quiet:
            print(f"[map {done}/{total}] {rec['claim']} {rec['seconds']} s", file=sys.stderr, flush=True)

    def cb(done, total, row):
        if not args.quiet:
            print(f"[{done}/{total}] {row['status']:<10} {row['file']}:{row['line']} {row['operator']} "
                  f"{row['original'][:40]!r} -> {row['mutated'][:40]!r} {'; '.join(row['killed_by'][:1])} "
                  f"({row['seconds']} s)", file=sys.stderr, flush=True)

    doc = generated_mutation_score(args.sample or 200, args.seed, args.jobs, not args.no_tests,
                                   args.verify_seed, cb, map_progress=mcb, test_timeout=args.test_timeout,
                                   checkpoint=args.checkpoint, test_selection=args.test_selection,
                                   target=args.target)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(doc, fh, indent=1)
    what = "" if doc["target"] == "library" else f"{doc['target']} "
    print(f"generated {what}mutants: {doc['sample']} of {doc['population']} (seed {doc['sample_seed']}), "
          f"{doc['equivalent']} equivalent, {doc['timeouts']} timed out (not scored); killed by verify "
          f"{doc['killed_by_verify']}/{doc['scored']} = {doc['score_verify']:.3f}; verify plus tests "
          f"{doc['killed_by_verify'] + doc['killed_by_tests']}/{doc['scored']} = {doc['score_verify_plus_tests']:.3f}")
    for t, sub in (doc.get("by_target") or {}).items():
        print(f"  {t}: killed by verify {sub['killed_by_verify']}/{sub['scored']}, verify plus tests "
              f"{sub['killed_by_verify'] + sub['killed_by_tests']}/{sub['scored']} ({sub['equivalent']} equivalent, "
              f"{sub['timeouts']} timed out)")
    for row in doc["mutants"]:
        if row["status"] == "survived":
            print(f"  survived: {row['file']}:{row['line']} {row['operator']} {row['original'][:50]!r} -> "
                  f"{row['mutated'][:50]!r} ({row['equivalence'] or ''})")
    return 0
