"""``softmix list``, ``show``, ``verify``, ``coverage`` and ``schema``: the claim commands."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .cli_common import UsageError

__all__ = ["cmd_list", "cmd_show", "cmd_verify", "cmd_coverage", "cmd_schema", "load_config"]


def load_config(path: str, claims: dict, selected=()) -> dict:
    """``--config`` file -> {claim id: overrides}, validated against the claims' parameter types
    before anything runs (:mod:`softmix.checks.params`).

    Top-level keys are section keys or claim ids (claim-specific values win).  A parameter may be
    given flat: ``{"lda": {"m1": ..., "Gamma": ...}}`` sets the ``m1`` and ``Gamma`` entries of
    every claim of the section whose parameters nest them in an object (the LDA claims' ``lda``
    problem), merged with that object's defaults; the nested form ``{"lda": {"lda": {...}}}``
    works too.  A key no target claim accepts, a wrong type, a non-finite number, a negative
    scale or a non-PSD covariance is an :class:`InputError` (one line, exit 2).
    """
    from softmix.checks.params import validate_params
    from softmix.checks.registry import SECTIONS
    from softmix.numerics.errors import InputError
    from softmix.numerics.mixture import load_json_file

    obj = load_json_file(path)
    if not isinstance(obj, dict):
        raise InputError(f"{path}: expected a JSON object mapping claim ids or sections to parameters")
    per_claim: dict = {}

    def nests(c):  # parameters of c that are objects of named entries (not mixtures)
        return [k for k, v in c.defaults.items()
                if isinstance(v, dict) and not {"weights", "means", "covariances"} <= set(v)]

    def apply(c, name, value) -> bool:
        over = per_claim.setdefault(c.id, {})
        if name in c.defaults:
            if name in nests(c) and isinstance(value, dict):
                over[name] = {**over.get(name, c.defaults[name]), **value}
            else:
                over[name] = value
            return True
        hit = False
        for n in nests(c):
            if name in c.defaults[n]:
                over[n] = {**over.get(n, c.defaults[n]), name: value}
                hit = True
        return hit

    # section keys first, then claim ids (claim-specific overrides win)
    for key in sorted(obj, key=lambda k: k in claims):
        val = obj[key]
        if not isinstance(val, dict):
            raise InputError(f"{path}: value for {key!r} must be an object of parameters")
        if key in claims:
            targets, what = [claims[key]], "claim"
        elif key in SECTIONS:
            targets, what = [c for c in claims.values() if c.section == key], "section"
        else:
            raise InputError(f"{path}: unknown claim id or section {key!r}")
        bad = [name for name in val if not [c for c in targets if apply(c, name, val[name])]]
        if bad:
            raise InputError(f"{path}: {what} {key!r} does not accept parameter(s) {', '.join(sorted(bad))}")
    first = [c for c in selected if c in per_claim]  # name the claims asked for in the message
    for cid in first + [c for c in per_claim if c not in first]:
        validate_params(claims[cid], per_claim[cid], f"{path}: {cid}")
    return {cid: over for cid, over in per_claim.items() if over}


def cmd_list(args):
    from softmix.checks.registry import load_all

    for c in load_all(args.plugin).values():
        if args.where:
            fn = getattr(c.check, "__wrapped__", c.check)
            mod = fn.__module__
            if mod and mod.startswith("softmix_plugin_"):  # a plugin file: show its path
                mod = getattr(sys.modules.get(mod), "__file__", mod)
            print(f"{c.id:28s} {mod}:{fn.__qualname__}")
        else:
            print(f"{c.id:28s} {c.section:14s} {c.title}")
    return 0


def cmd_show(args):
    from softmix.checks.registry import load_all

    claims = load_all(args.plugin)
    for cid in args.claims:
        if cid not in claims:
            raise UsageError(f"unknown claim id {cid!r} (see 'softmix list')")
    for cid in args.claims:
        c = claims[cid]
        print(f"{c.id}: {c.title}\n  source: {c.source}\n  kind: {c.kind}\n  statement: {c.statement}")
        named = {a.describe() for a in c.assumption_objects}
        for a in c.assumptions:
            if a not in named:
                print(f"  assumption: {a}")
        for a in c.assumption_objects:
            print(f"  assumption {a.name}: {a.text}  (control {a.control_id})")
        print(f"  independence: {c.independence or 'not documented'}")
        print("  parameters (paper defaults): " + json.dumps(c.defaults, default=str))
        for k, v in c.profiles.items():
            print(f"  profile {k}: " + json.dumps(v, default=str))
        for ctl in c.controls:
            what = "assumption-dropped control" if ctl.kind == "assumption-dropped" else "negative control"
            print(f"  {what} {ctl.id}: {ctl.description}")
        if c.derivations is not None and not args.no_derivation:
            for d in c.derivations():
                print(d.latex() if args.latex else d.pretty())
        print()
    return 0


def _progress(quiet: bool, verbose: bool):
    def cb(done, total, r):
        if quiet:
            return
        ctl = sum(c["refuted"] for c in r["negative_controls"])
        msg = f"[{done}/{total}] {r['id']}: {r['verdict']} (controls refuted {ctl}/{len(r['negative_controls'])}) {r['seconds']:.1f}s"
        print(msg, file=sys.stderr, flush=True)
        if verbose:
            print(json.dumps(r["evidence"], indent=1)[:4000], file=sys.stderr)
    return cb


def _table(results):
    lines = [f"{'claim':28s} {'verdict':13s} {'controls':9s} {'seconds':>8s}", "-" * 62]
    from softmix.checks.assumption_runs import control_failed

    for r in results:
        n = len(r["negative_controls"])
        k = sum(c["refuted"] for c in r["negative_controls"])
        flag = "  <- control survived" if any(control_failed(c) for c in r["negative_controls"]) else ""
        if r.get("findings"):
            flag += f"  ({len(r['findings'])} finding(s) about the paper)"
        lines.append(f"{r['id']:28s} {r['verdict']:13s} {k}/{n:<7d} {r['seconds']:8.1f}{flag}")
    return "\n".join(lines)


def _summary_line(counts: dict, doc: dict, args) -> str:
    """One line: the number of claims per verdict, surviving controls, time, seed, profile."""
    from softmix.checks.registry import VERDICTS

    parts = ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
    strict = " (strict: inconclusive fails)" if args.strict else ""
    return (f"{parts}; {counts['controls_survived']} control(s) survived; exit {doc['exit_code']}{strict}; "
            f"total {doc['seconds']:.1f}s, seed {args.seed}, profile {args.profile}")


def cmd_verify(args):
    from softmix.checks.registry import load_all
    from softmix.checks.runner import exit_code, run_claims, verdict_counts, versions

    claims = load_all(args.plugin)
    ids = args.claims or list(claims)
    unknown = [c for c in ids if c not in claims]
    if unknown:
        raise UsageError(f"unknown claim id(s): {', '.join(unknown)} (see 'softmix list')")
    if args.quiet and args.verbose:
        raise UsageError("--quiet and --verbose cannot be combined")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    config = load_config(args.config, claims, ids) if args.config else {}
    if args.report:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError("--report needs matplotlib (pip install 'softmix[report]')") from None
        if not args.report.endswith((".html", ".htm")):
            raise UsageError("--report must name an .html file")
    ckpt = _verify_checkpoint(args, versions()) if args.checkpoint else None
    done = {c: {k: v for k, v in ckpt.done[c].items() if k != "finished_at"} for c in ids if c in ckpt.done} \
        if ckpt else {}
    todo = [c for c in ids if c not in done]
    progress = _progress(args.quiet, args.verbose)
    if ckpt:
        ckpt.start_segment()
        show = progress

        def progress(i, n, r):  # noqa: F811 - record each claim as it finishes, then report it
            ckpt.append(r, stamp=True)
            if show:
                show(len(done) + i, len(ids), r)
    t0 = time.perf_counter()
    fresh = run_claims(todo, args.profile, args.seed, args.workers, config, progress,
                       scheduler=args.scheduler) if todo else []
    results = _in_order(ids, done, fresh)
    counts = verdict_counts(results)
    doc = {"claims": results, "seed": args.seed, "profile": args.profile, "versions": versions(),
           "exit_code": exit_code(results, args.strict), "strict": bool(args.strict), "counts": counts,
           "seconds": round(time.perf_counter() - t0, 3)}
    if ckpt:
        doc["checkpoint"] = {"path": str(args.checkpoint), "resumed_claims": len(done), "segments": ckpt.segments,
                             "wall_seconds_all_segments": round(ckpt.wall_seconds(), 1)}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(doc, fh, indent=1)
    if args.report:
        from softmix.checks.report import write_report

        write_report(doc, args.report)
    if not args.quiet:
        print(_table(results))
        print(_summary_line(counts, doc, args))
    return doc["exit_code"]


def _in_order(ids, done, fresh):
    """The results of ``ids`` in order: ``fresh`` holds those not in ``done``, in order."""
    it = iter(fresh)
    return [done[c] if c in done else next(it) for c in ids]


def _verify_checkpoint(args, versions: dict):
    """The checkpoint of this verify run, checked before any claim runs: the header holds what
    decides a claim's result (sources, seed, profile, configuration and plugin files, versions)."""
    import hashlib

    from softmix.checks.checkpoint import Checkpoint, package_hash

    def file_sha(path):
        return hashlib.sha1(Path(path).read_bytes()).hexdigest() if path and Path(path).is_file() else None

    header = {"command": "verify", "profile": args.profile, "seed": args.seed, "package": package_hash(),
              "config": file_sha(args.config), "plugins": [[p, file_sha(p)] for p in (args.plugin or [])],
              "versions": versions}
    return Checkpoint(args.checkpoint, header, key="id", what="verify")


def cmd_coverage(args):
    from softmix.checks.coverage import CoverageError, coverage_table, summary
    from softmix.checks.registry import load_all

    claims = load_all(args.plugin)
    try:
        rows = coverage_table(claims)
    except CoverageError as e:
        raise UsageError(str(e)) from None
    counts = summary(rows)
    doc = {"statements": rows, "summary": counts}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(doc, fh, indent=1)
    print(f"{'statement':22s} {'status':9s} claims / reason")
    print("-" * 78)
    for r in rows:
        what = ", ".join(r["claims"]) if r["claims"] else r["reason"]
        if r["status"] == "alias":
            what += f"  [part: {r['part']}]"
        print(f"{r['label']:22s} {r['status']:9s} {what}")
    print(f"{counts['total']} statements: {counts['decided']} decided by their own claim, "
          f"{counts['alias']} decided inside other claims, {counts['external']} external")
    return 0


def cmd_schema(args):
    from softmix.checks.schema import VERIFY_SCHEMA

    print(json.dumps(VERIFY_SCHEMA, indent=1))
    return 0
