"""The ``softmix`` command line.  Exit codes: 0 success, 1 a claim refuted/errored or a negative
control survived, 2 usage or input error (one line on stderr, never a traceback)."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from .cli_common import parse_lengths

__all__ = ["main"]


class UsageError(Exception):
    pass


def _seed(text: str) -> int:
    """argparse type of every ``--seed``: a non-negative integer (numpy's SeedSequence takes no
    negative entropy), rejected before any work."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {v}")
    return v


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit 2
        raise UsageError(message)


def _parse_query(text: str, dim: int | None = None):
    from softmix.numerics.errors import InputError
    from softmix.numerics.mixture import parse_number

    parts = [p for p in text.replace(" ", "").split(",") if p != ""]
    if not parts:
        raise InputError("--query: empty query")
    vals = [parse_number(p, f"--query entry {i}") for i, p in enumerate(parts)]
    if dim is not None and len(vals) != dim:
        raise InputError(f"--query has {len(vals)} entries but the mixture has dimension {dim}")
    return vals


def _load_config(path: str, claims: dict, selected=()) -> dict:
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


def _cmd_list(args):
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


def _cmd_show(args):
    from softmix.checks.registry import load_all

    claims = load_all(args.plugin)
    for cid in args.claims:
        if cid not in claims:
            raise UsageError(f"unknown claim id {cid!r} (see 'softmix list')")
    for cid in args.claims:
        c = claims[cid]
        print(f"{c.id}: {c.title}\n  source: {c.source}\n  kind: {c.kind}\n  statement: {c.statement}")
        for a in c.assumptions:
            print(f"  assumption: {a}")
        print(f"  independence: {c.independence or 'not documented'}")
        print("  parameters (paper defaults): " + json.dumps(c.defaults, default=str))
        for k, v in c.profiles.items():
            print(f"  profile {k}: " + json.dumps(v, default=str))
        for ctl in c.controls:
            print(f"  negative control {ctl.id}: {ctl.description}")
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
    for r in results:
        n = len(r["negative_controls"])
        k = sum(c["refuted"] for c in r["negative_controls"])
        flag = "" if k == n else "  <- control survived"
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


def _cmd_verify(args):
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
    config = _load_config(args.config, claims, ids) if args.config else {}
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


def _write_json(doc, path):
    if path:
        with open(path, "w") as fh:
            json.dump(doc, fh, indent=1)
    print(json.dumps(doc, indent=1))


def _load_inputs(args):
    from softmix.numerics.mixture import GaussianMixture, read_matrix
    from softmix.numerics.errors import InputError

    mix = GaussianMixture.load(args.mixture)
    U = read_matrix(args.U)
    V = read_matrix(args.V)
    D = mix.dim
    if len(U) != D or len(U[0]) != D:
        raise InputError(f"{args.U}: U must be {D}x{D}, got {len(U)}x{len(U[0])}")
    if len(V[0]) != D:
        raise InputError(f"{args.V}: V must have {D} columns, got {len(V[0])}")
    z = _parse_query(args.query, D)
    if args.dps is not None and not (5 <= args.dps <= 10000):
        raise InputError("--dps must be between 5 and 10000")
    return mix, U, V, z


def _cmd_attention(args):
    import numpy as np
    from softmix.numerics import attention as A
    from softmix.numerics.precision import fmt_mp

    mix, U, V, z = _load_inputs(args)
    if args.dps:
        work = args.dps + 15
        T = A.softmax_attention_mp(mix, U, V, z, dps=work)
        Tl = A.linear_attention_mp(mix, U, V, z, dps=work)
        g = A.gates_mp(mix, U, z, dps=work)
        doc = {"softmax": [fmt_mp(x, args.dps) for x in T], "linear": [fmt_mp(x, args.dps) for x in Tl],
               "gates": [fmt_mp(x, args.dps) for x in g], "dps": args.dps}
    else:
        Uf = np.array([[float(x) for x in r] for r in U])
        Vf = np.array([[float(x) for x in r] for r in V])
        zf = np.array([[float(x) for x in z]])
        doc = {"softmax": A.softmax_attention(mix, Uf, Vf, zf)[0].tolist(),
               "linear": A.linear_attention(mix, Uf, Vf, zf)[0].tolist(),
               "gates": A.gates(mix, Uf, zf)[0].tolist()}
    _write_json(doc, args.json)
    return 0


def _cmd_finite_prompt(args):
    import numpy as np
    from softmix.numerics import finite_prompt as F
    from softmix.numerics.errors import InputError
    from softmix.numerics.precision import fmt_mp
    from softmix.checks.montecarlo import finite_prompt_study

    mix, U, V, z = _load_inputs(args)
    if args.dps:
        c = F.finite_prompt_constants_mp(mix, U, V, z, dps=args.dps + 15)
        f = lambda x: fmt_mp(x, args.dps)
        cov = c["covariance"]
        doc = {"bias_coefficient": [f(x) for x in c["bias"]],
               "covariance_coefficient": [[f(cov[i, j]) for j in range(cov.cols)] for i in range(cov.rows)],
               "effective_sample_fraction": f(c["effective_sample_fraction"]), "rho": f(c["rho"]),
               "mse_coefficient": f(c["mse"]), "limit": [f(x) for x in c["limit"]], "dps": args.dps}
    else:
        c = F.finite_prompt_constants(mix, np.array(U, float), np.array(V, float), np.array(z, float))
        doc = {"bias_coefficient": c["bias"].tolist(), "covariance_coefficient": c["covariance"].tolist(),
               "effective_sample_fraction": float(c["effective_sample_fraction"]), "rho": float(c["rho"]),
               "mse_coefficient": float(c["mse"]), "limit": c["limit"].tolist()}
    if args.mc:
        Ls = parse_lengths(args.mc)
        if args.reps < 2:
            raise InputError("--reps must be at least 2")
        doc["monte_carlo"] = finite_prompt_study(mix, np.array(U, float), np.array(V, float),
                                                 np.array(z, float), Ls, args.reps, args.seed)
    elif args.reps is not None and args.reps != 2000:
        raise InputError("--reps needs --mc")
    _write_json(doc, args.json)
    return 0


def _cmd_risk(args):
    from softmix.checks.risk_cli import run_risk

    _write_json(run_risk(args), args.json)
    return 0


def _cmd_mutation(args):
    from softmix.checks.mutation import FAULTS, generated_mutation_score, mutation_score, require_source_checkout
    from softmix.numerics.errors import InputError

    if args.sample is not None and args.sample < 1:
        raise InputError("--sample must be a positive integer")
    if args.jobs < 1:
        raise InputError("--jobs must be a positive integer")
    if not args.test_timeout > 0:
        raise InputError("--test-timeout must be positive")
    if args.faults and not args.named:
        raise UsageError("--faults selects named faults: add --named")
    require_source_checkout()

    if args.named:
        faults = FAULTS
        if args.faults:
            wanted = set(args.faults.split(","))
            unknown = wanted - {f.id for f in FAULTS}
            if unknown:
                raise UsageError(f"unknown fault id(s): {', '.join(sorted(unknown))}")
            faults = [f for f in FAULTS if f.id in wanted]

        def cb(done, total, row):
            if not args.quiet:
                print(f"[{done}/{total}] {row['id']}: {'caught' if row['caught'] else 'SURVIVED'}"
                      f" {'; '.join(row['caught_by'][:2])}", file=sys.stderr, flush=True)

        doc = mutation_score(faults, args.verify_seed, cb)
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
                                   checkpoint=args.checkpoint, test_selection=args.test_selection)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(doc, fh, indent=1)
    print(f"generated mutants: {doc['sample']} of {doc['population']} (seed {doc['sample_seed']}), "
          f"{doc['equivalent']} equivalent, {doc['timeouts']} timed out (not scored); killed by verify {doc['killed_by_verify']}/{doc['scored']} = "
          f"{doc['score_verify']:.3f}; verify plus tests "
          f"{doc['killed_by_verify'] + doc['killed_by_tests']}/{doc['scored']} = {doc['score_verify_plus_tests']:.3f}")
    for row in doc["mutants"]:
        if row["status"] == "survived":
            print(f"  survived: {row['file']}:{row['line']} {row['operator']} {row['original'][:50]!r} -> "
                  f"{row['mutated'][:50]!r} ({row['equivalence'] or ''})")
    return 0


def _cmd_coverage(args):
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


def _cmd_schema(args):
    from softmix.checks.schema import VERIFY_SCHEMA

    print(json.dumps(VERIFY_SCHEMA, indent=1))
    return 0


def _plugin_option(sp):
    sp.add_argument("--plugin", action="append", default=[], metavar="MODULE_OR_FILE.py",
                    help="load claims from a module or a .py file (repeatable); the softmix.claims entry "
                         "points, this project's paper library among them, are always loaded")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="softmix", description="Verify theorems about softmax attention on Gaussian mixtures.")
    sub = p.add_subparsers(dest="cmd", parser_class=_Parser)
    sub.required = True
    sp = sub.add_parser("list", help="list claim ids")
    sp.add_argument("--where", action="store_true", help="print the module and function that decides each claim")
    _plugin_option(sp)
    sp.set_defaults(fn=_cmd_list)
    sp = sub.add_parser("show", help="statement, assumptions, parameters and derivation of claims")
    sp.add_argument("claims", nargs="+", help="claim ids (see 'softmix list')")
    sp.add_argument("--latex", action="store_true", help="print derivations as LaTeX instead of pretty text")
    sp.add_argument("--no-derivation", action="store_true", help="omit the derived and stated expressions")
    _plugin_option(sp)
    sp.set_defaults(fn=_cmd_show)
    sp = sub.add_parser("verify", help="run claims and their negative controls")
    sp.add_argument("claims", nargs="*", help="claim ids to run (default: every registered claim)")
    sp.add_argument("--profile", choices=["quick", "full"], default="quick",
                    help="parameter profile: quick (CI-sized) or full (paper-sized); default quick")
    sp.add_argument("--seed", type=_seed, default=20261130,
                    help="master seed; every random stream derives from it (same seed, same JSON)")
    sp.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                    help="local worker processes (default: min(2, cores))")
    sp.add_argument("--config", metavar="FILE.json",
                    help="parameter overrides: {section or claim id: {parameter: value}}, validated against "
                         "the claims' parameter types before anything runs")
    sp.add_argument("--json", metavar="PATH", help="write the full results (schema: 'softmix schema') to PATH")
    sp.add_argument("--report", metavar="PATH.html", help="write a self-contained HTML report")
    sp.add_argument("--quiet", action="store_true", help="no progress lines and no table")
    sp.add_argument("--verbose", action="store_true", help="print each claim's evidence as it finishes")
    sp.add_argument("--strict", action="store_true",
                    help="exit 1 also when a claim is inconclusive (default: only refuted/error/surviving control)")
    sp.add_argument("--scheduler", metavar="ADDRESS",
                    help="run on a dask.distributed cluster: a scheduler address (tcp://host:8786) or 'local'")
    sp.add_argument("--checkpoint", metavar="PATH",
                    help="JSON-lines file: each finished claim is appended; rerun with the same file (same "
                         "sources, seed, profile, config) to resume a stopped run")
    _plugin_option(sp)
    sp.set_defaults(fn=_cmd_verify)
    sp = sub.add_parser("coverage", help="which claims decide each numbered statement of the source documents")
    sp.add_argument("--json", help="write {\"statements\": [...]} to this file")
    _plugin_option(sp)
    sp.set_defaults(fn=_cmd_coverage)
    sp = sub.add_parser("schema", help="print the JSON schema of 'verify --json' output")
    sp.set_defaults(fn=_cmd_schema)
    sp = sub.add_parser("mutation-score", help="mutate theory/ and numerics/ and count the mutants verify kills")
    sp.add_argument("--sample", type=int, help="number of generated mutants to sample (default 200)")
    sp.add_argument("--seed", type=_seed, default=20261130, help="seed of the sample")
    sp.add_argument("--verify-seed", type=_seed, default=20261130, help="seed of the claims' runs")
    sp.add_argument("--jobs", type=int, default=2, help="mutants run at once (one core each)")
    sp.add_argument("--no-tests", action="store_true", help="score verify alone (skip the tests stage)")
    sp.add_argument("--test-timeout", type=float, default=120.0,
                    help="seconds allowed to the test files of one surviving mutant (default 120)")
    sp.add_argument("--test-selection", choices=("lines", "files"), default="lines",
                    help="tests run on a mutant that survives verify: those that execute its line "
                         "(a per-test coverage map, default) or the files that import its module")
    sp.add_argument("--checkpoint", metavar="PATH",
                    help="JSON-lines file: each decided mutant is appended; an existing file for the same "
                         "tree and seeds is resumed")
    sp.add_argument("--named", action="store_true", help="score the hand-written named faults instead")
    sp.add_argument("--faults", help="with --named: comma-separated fault ids (default: all)")
    sp.add_argument("--json", metavar="PATH", help="write the per-mutant results to PATH")
    sp.add_argument("--quiet", action="store_true", help="no progress lines")
    sp.set_defaults(fn=_cmd_mutation)
    for name, fn, hlp in (("attention", _cmd_attention, "evaluate T, T_lin and the gates"),
                          ("finite-prompt", _cmd_finite_prompt, "finite-prompt constants and Monte Carlo")):
        sp = sub.add_parser(name, help=hlp)
        sp.add_argument("--mixture", required=True, metavar="FILE.json",
                        help="mixture file: {\"weights\": [...], \"means\": [[...]], \"covariances\": [[[...]]]}")
        sp.add_argument("--U", required=True, metavar="FILE.json", help="key-query matrix U (D x D), a JSON list of rows")
        sp.add_argument("--V", required=True, metavar="FILE.json", help="value matrix V (p x D), a JSON list of rows")
        sp.add_argument("--query", required=True, metavar="Z1,Z2,...", help="the query z, comma-separated (decimals or p/q)")
        sp.add_argument("--dps", type=int, help="decimal digits (mpmath); default: float64")
        sp.add_argument("--json", metavar="PATH", help="also write the printed JSON to PATH")
        if name == "finite-prompt":
            sp.add_argument("--mc", metavar="L1,L2,...", help="Monte Carlo at these prompt lengths")
            sp.add_argument("--reps", type=int, default=2000, help="Monte Carlo replicates per prompt length (needs --mc)")
            sp.add_argument("--seed", type=_seed, default=0, help="Monte Carlo seed")
        sp.set_defaults(fn=fn)
    sp = sub.add_parser("risk", help="finite-prompt risk of several heads sharing one prompt (1/L coefficient)")
    for opt, hlp in (("--mixture", "token law: a mixture file {weights, means, covariances}"),
                     ("--heads", "the heads sharing the prompt: a JSON list of {U, V, W?} (W defaults to the identity)"),
                     ("--queries", "query law: a mixture file of the same dimension as the tokens"),
                     ("--target", "the target: {B, noise_covariance} (JSON)")):
        sp.add_argument(opt, required=True, metavar="FILE.json", help=hlp)
    sp.add_argument("--dps", type=int, help="decimal digits (mpmath, 5-1000); default: float64")
    sp.add_argument("--mc", metavar="L1,L2,...", help="also simulate full-token prompts at these lengths")
    sp.add_argument("--reps", type=int, help="Monte Carlo replicates per prompt length (needs --mc; default 2000)")
    sp.add_argument("--seed", type=_seed, help="Monte Carlo seed (non-negative; default 0)")
    sp.add_argument("--json", metavar="PATH", help="also write the printed JSON to PATH")
    sp.set_defaults(fn=_cmd_risk)
    return p


def _check_output_paths(args) -> None:
    """``--json`` and ``--report`` name files written at the end of a run: a folder that does not
    exist, a path that is a folder, or a folder not writable is an input error before any work
    (not a traceback after an hour of claims)."""
    from softmix.numerics.errors import InputError

    for opt in ("json", "report"):
        path = getattr(args, opt, None)
        if not path:
            continue
        p = Path(path)
        parent = p.parent if str(p.parent) else Path(".")
        if p.is_dir():
            raise InputError(f"--{opt} {path}: is a folder, not a file")
        if not parent.is_dir():
            raise InputError(f"--{opt} {path}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
            raise InputError(f"--{opt} {path}: not writable")


def main(argv=None) -> int:
    from softmix.numerics.errors import InputError

    try:
        args = build_parser().parse_args(argv)
        _check_output_paths(args)
        return args.fn(args)
    except UsageError as e:
        print(f"softmix: error: {e}", file=sys.stderr)
        return 2
    except InputError as e:
        print(f"softmix: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("softmix: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader closed the pipe (softmix list | head -1): not an error
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
