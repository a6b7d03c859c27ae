"""``softmix list``, ``show``, ``verify``, ``coverage`` and ``schema``: the claim commands."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .cli_common import UsageError

__all__ = ["cmd_list", "cmd_show", "cmd_verify", "cmd_coverage", "cmd_schema", "load_config"]


def load_config(path: str, claims: dict, selected=(), profile: str | None = None) -> dict:
    """``--config`` file -> {claim id: overrides}, validated against the claims' parameter types
    before anything runs (:mod:`softmix.checks.params`).

    Top-level keys are section keys or claim ids (claim-specific values win).  A parameter may be
    given flat: ``{"lda": {"m1": ..., "Gamma": ...}}`` sets the ``m1`` and ``Gamma`` entries of
    every claim of the section whose parameters nest them in an object (the LDA claims' ``lda``
    problem), merged with that object's defaults; the nested form ``{"lda": {"lda": {...}}}``
    works too.  A key no target claim accepts (with the nearest accepted name suggested), a wrong
    type, a number past the limits, a negative scale, a non-PSD covariance or a mixture given in
    pieces that is not one is an :class:`InputError` (one line, exit 2).  Every claim's values go
    through :func:`softmix.checks.params.validate_params` with ``profile``'s defaults.
    """
    from softmix.checks.params import validate_params
    from softmix.checks.registry import SECTIONS
    from softmix.numerics.errors import InputError
    from softmix.numerics.parsing import load_json_file, show_value, suggest

    obj = load_json_file(path)
    if not isinstance(obj, dict):
        raise InputError(f"{path}: expected a JSON object mapping claim ids or sections to parameters, "
                         f"got {show_value(obj)}")
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
        if key in claims:
            targets, what = [claims[key]], "claim"
        elif key in SECTIONS:
            targets, what = [c for c in claims.values() if c.section == key], "section"
        else:
            raise InputError(f"{path}: unknown claim id or section {key!r}{suggest(key, [*claims, *SECTIONS])} "
                             "(see 'softmix list')")
        if not isinstance(val, dict):
            raise InputError(f"{path}: {key}: expected an object of parameters, got {show_value(val)}")
        bad = [name for name in val if not [c for c in targets if apply(c, name, val[name])]]
        if bad:
            names = {n for c in targets for n in [*c.defaults, *(k for m in nests(c) for k in c.defaults[m])]}
            raise InputError(f"{path}: {what} {key!r} does not accept parameter(s) {', '.join(sorted(bad))}"
                             f"{suggest(sorted(bad)[0], sorted(names))}")
    first = [c for c in selected if c in per_claim]  # name the claims asked for in the message
    for cid in first + [c for c in per_claim if c not in first]:
        validate_params(claims[cid], per_claim[cid], f"{path}: {cid}", profile)
    return {cid: over for cid, over in per_claim.items() if over}


def _check_ids(ids, claims) -> None:
    """Unknown claim ids: one usage error, with the nearest known id suggested."""
    from softmix.numerics.parsing import suggest

    unknown = [c for c in ids if c not in claims]
    if unknown:
        raise UsageError(f"unknown claim id(s): {', '.join(unknown)}{suggest(unknown[0], claims)} (see 'softmix list')")


def _selected_ids(args, claims) -> list:
    """The claims a verify run decides: the ids given; else, with ``--plugin`` and without ``--all``,
    the claims the plugins register; else every registered claim."""
    from softmix.checks.registry import plugin_claims

    if args.claims:
        _check_ids(args.claims, claims)
        if getattr(args, "all", False):
            raise UsageError("--all runs every registered claim: give claim ids or --all, not both")
        return list(args.claims)
    if args.plugin and not getattr(args, "all", False):
        ids = [cid for spec in args.plugin for cid in plugin_claims(spec)]
        if not ids:
            raise UsageError(f"--plugin {', '.join(args.plugin)}: registers no claim (give claim ids, or --all "
                             "for every registered claim)")
        return list(dict.fromkeys(ids))
    return list(claims)


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
    _check_ids(args.claims, claims)
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
            for d in c.shown_derivations():
                print(d.latex() if args.latex else d.pretty())
        print()
    return 0


def _progress(quiet: bool, verbose: bool):
    def cb(done, total, r):
        if quiet:
            return
        ctl = sum(c["refuted"] for c in r["negative_controls"])
        msg = (f"[{done}/{total}] {r['id']}: {r['verdict']} (controls refuted {ctl}/{len(r['negative_controls'])}) "
               f"{r['seconds']:.1f}s")
        print(msg, file=sys.stderr, flush=True)
        if verbose:
            print(json.dumps(r["evidence"], indent=1)[:4000], file=sys.stderr)
    return cb


def _summary_line(counts: dict, doc: dict, args) -> str:
    """Two lines of at most ~100 columns: the run (time, seed, profile, strictness), then the number of
    claims per verdict, surviving controls and the exit code (the last line of the output)."""
    from softmix.checks.registry import VERDICTS

    parts = ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
    strict = "; strict: inconclusive fails" if args.strict else ""
    return (f"total {doc['seconds']:.1f}s, seed {args.seed}, profile {args.profile}{strict}\n"
            f"{parts}; {counts['controls_survived']} control(s) survived; exit {doc['exit_code']}")


def cmd_verify(args):
    from softmix.checks.registry import load_all
    from softmix.checks.runner import exit_code, run_claims, verdict_counts, versions

    claims = load_all(args.plugin)
    ids = _selected_ids(args, claims)
    if args.quiet and args.verbose:
        raise UsageError("--quiet and --verbose cannot be combined")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    config = load_config(args.config, claims, ids, args.profile) if args.config else {}
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
    from softmix.checks.engine_controls import for_verify, judge_verify, print_verify

    # the engine controls: after the claims (an input error met while starting them, such as an unreachable
    # scheduler, comes before any work), in this process; a canary judged wrongly makes the exit code 1
    doc.update(for_verify(args.seed, getattr(args, "no_engine_controls", False)))
    judge_verify(doc)
    if ckpt:
        doc["checkpoint"] = {"path": str(args.checkpoint), "resumed_claims": len(done), "segments": ckpt.segments,
                             "wall_seconds_all_segments": round(ckpt.wall_seconds(), 1)}
    undecided = [r["id"] for r in results if r.get("infrastructure_failure")]
    if undecided:
        doc["infrastructure_failures"] = undecided
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(doc, fh, indent=1)
    if args.report:
        from softmix.checks.report import write_report

        write_report(doc, args.report)
    from softmix.checks.answers import claims_table, render_answers

    print_verify(doc, args.quiet)
    print(claims_table(results))
    if not args.quiet:  # --quiet: the table and the summary line only
        print("\n" + render_answers(results))
    print(_summary_line(counts, doc, args))
    if undecided:
        print(_undecided_note(undecided, results, args), file=sys.stderr)
    print_verify(doc, failures=True)
    return doc["exit_code"]


def _undecided_note(undecided, results, args) -> str:
    """stderr: the claims that were not decided (infrastructure failures) and how to redo them."""
    causes = sorted({r["evidence"].get("cause", "") for r in results if r.get("infrastructure_failure")})
    redo = (f"rerun with --checkpoint {args.checkpoint} to redo exactly them" if args.checkpoint
            else "they are not decided; rerun them")
    return (f"softmix: {len(undecided)} claim(s) not decided because of an infrastructure failure "
            f"({'; '.join(causes)}): {', '.join(undecided)}; {redo}")


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
