"""The ``softmix`` command line.  Exit codes: 0 success, 1 a claim refuted/errored or a negative
control survived, 2 usage or input error (one line on stderr, never a traceback).

This module holds the parser and ``main``; the commands live in ``cli_verify`` (list, show,
verify, coverage, schema), ``cli_numeric`` (attention, finite-prompt, risk) and
``cli_mutation``."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .cli_common import UsageError, seed_arg as _seed
from .cli_displays import cmd_displays as _cmd_displays
from .cli_mutation import cmd_mutation as _cmd_mutation
from .cli_numeric import cmd_attention as _cmd_attention, cmd_finite_prompt as _cmd_finite_prompt, cmd_risk as _cmd_risk
from .cli_verify import (
    cmd_coverage as _cmd_coverage,
    cmd_list as _cmd_list,
    cmd_schema as _cmd_schema,
    cmd_show as _cmd_show,
    cmd_verify as _cmd_verify,
)

__all__ = ["main", "build_parser", "UsageError"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit 2
        raise UsageError(message)


def _plugin_option(sp):
    sp.add_argument("--plugin", action="append", default=[], metavar="MODULE_OR_FILE.py",
                    help="load claims from a module or a .py file (repeatable); the softmix.claims entry "
                         "points, this project's paper library among them, are always loaded")


def _verdict_options(sp, quantity):
    sp.add_argument("--compare", metavar="VALUE",
                    help=f"with --mc: test the limit of {quantity} against VALUE (a published constant) instead of "
                         "the closed form; refuted exits 1")
    sp.add_argument("--strict", action="store_true", help="with --mc: exit 1 also when the verdict is inconclusive")


def _cmd_coverage_or_displays(args):
    if args.displays or args.ledger or args.undecided:
        return _cmd_displays(args)
    return _cmd_coverage(args)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="softmix", description="Verify theorems about softmax attention on Gaussian mixtures.")
    sub = p.add_subparsers(dest="cmd", parser_class=_Parser)
    sub.required = True
    _add_list(sub)
    _add_show(sub)
    _add_verify(sub)
    _add_coverage(sub)
    _add_schema(sub)
    _add_mutation(sub)
    _add_operator_commands(sub)
    _add_risk(sub)
    return p


def _add_list(sub) -> None:
    """``softmix list``: its arguments."""
    sp = sub.add_parser("list", help="list claim ids")
    sp.add_argument("--where", action="store_true", help="print the module and function that decides each claim")
    _plugin_option(sp)
    sp.set_defaults(fn=_cmd_list)


def _add_show(sub) -> None:
    """``softmix show``: its arguments."""
    sp = sub.add_parser("show", help="statement, assumptions, parameters and derivation of claims")
    sp.add_argument("claims", nargs="+", help="claim ids (see 'softmix list')")
    sp.add_argument("--latex", action="store_true", help="print derivations as LaTeX instead of pretty text")
    sp.add_argument("--no-derivation", action="store_true", help="omit the derived and stated expressions")
    _plugin_option(sp)
    sp.set_defaults(fn=_cmd_show)


def _add_verify(sub) -> None:
    """``softmix verify``: its arguments."""
    sp = sub.add_parser("verify", help="run claims and their negative controls")
    sp.add_argument("claims", nargs="*", help="claim ids to run (default: every registered claim; with --plugin, "
                                              "the plugins' claims)")
    sp.add_argument("--all", action="store_true",
                    help="with --plugin and no claim ids: run every registered claim, not only the plugins'")
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
    sp.add_argument("--quiet", action="store_true",
                    help="no progress lines and no answers: only the table and the summary line")
    sp.add_argument("--verbose", action="store_true", help="print each claim's evidence as it finishes")
    sp.add_argument("--strict", action="store_true",
                    help="exit 1 also when a claim is inconclusive (default: only refuted/error/surviving control)")
    sp.add_argument("--scheduler", metavar="ADDRESS",
                    help="run on a dask.distributed cluster: a scheduler address (tcp://host:8786) or 'local'")
    sp.add_argument("--checkpoint", metavar="PATH",
                    help="JSON-lines file: each finished claim is appended; rerun with the same file (same "
                         "sources, seed, profile, config) to resume a stopped run")
    sp.add_argument("--no-engine-controls", action="store_true",
                    help="skip the engine controls (canary claims with known outcomes that check the verifier's "
                         "own machinery on every run; see docs/engine.md); a warning is printed")
    _plugin_option(sp)
    sp.set_defaults(fn=_cmd_verify)


def _add_coverage(sub) -> None:
    """``softmix coverage``: its arguments."""
    sp = sub.add_parser("coverage", help="which claims decide each numbered statement (or, with --displays, each "
                                         "displayed formula) of the source documents")
    sp.add_argument("--json", help="write {\"statements\": [...]} (with --displays: {\"displays\": [...]}) "
                         "to this file")
    sp.add_argument("--displays", action="store_true",
                    help="the display ledger: every $$ display of the paper, its class (step, estimate, statement, "
                         "definition, imported, artefact) and the claim and derivation that decide it "
                         "(docs/coverage.md)")
    sp.add_argument("--ledger", action="append", default=[], metavar="FILE.toml",
                    help="with --displays: read this ledger (repeatable) instead of the registered ones")
    sp.add_argument("--undecided", action="store_true",
                    help="with --displays: list only the unchecked step and estimate displays softmix could decide, "
                         "in priority order")
    _plugin_option(sp)
    sp.set_defaults(fn=_cmd_coverage_or_displays)


def _add_schema(sub) -> None:
    """``softmix schema``: its arguments."""
    sp = sub.add_parser("schema", help="print the JSON schema of 'verify --json' output")
    sp.set_defaults(fn=_cmd_schema)


def _add_mutation(sub) -> None:
    """``softmix mutation-score``: its arguments."""
    sp = sub.add_parser("mutation-score", help="mutate the library or the engine and count the mutants verify kills")
    sp.add_argument("--sample", type=int, help="number of generated mutants to sample (default 200)")
    sp.add_argument("--target", choices=("library", "engine", "all"), default="library",
                    help="what is mutated: library = theory/ and numerics/ (default), engine = the engine's "
                         "modules of checks/ (rules, fits, verdicts, configs, configurations, params, runner, "
                         "api, operator*, assumption*, registry, mc_verdict), all = both")
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


def _add_operator_commands(sub) -> None:
    """``softmix attention`` and ``softmix finite-prompt``: its arguments."""
    for name, fn, hlp in (("attention", _cmd_attention, "evaluate T, T_lin and the gates"),
                          ("finite-prompt", _cmd_finite_prompt, "finite-prompt constants and Monte Carlo")):
        sp = sub.add_parser(name, help=hlp)
        sp.add_argument("--mixture", required=True, metavar="FILE.json",
                        help="mixture file: {\"weights\": [...], \"means\": [[...]], \"covariances\": [[[...]]]}")
        sp.add_argument("--U", required=True, metavar="FILE.json",
                        help="key-query matrix U (D x D), a JSON list of rows")
        sp.add_argument("--V", required=True, metavar="FILE.json", help="value matrix V (p x D), a JSON list of rows")
        sp.add_argument("--query", required=True, metavar="Z1,Z2,...",
                        help="the query z, comma-separated (decimals or p/q)")
        sp.add_argument("--dps", type=int, help="decimal digits (mpmath); default: float64")
        sp.add_argument("--json", metavar="PATH", help="also write the printed JSON to PATH")
        if name == "finite-prompt":
            sp.add_argument("--mc", metavar="L1,L2,...", help="Monte Carlo at these prompt lengths")
            sp.add_argument("--reps", type=int, default=2000,
                            help="Monte Carlo replicates per prompt length (needs --mc)")
            sp.add_argument("--seed", type=_seed, default=0, help="Monte Carlo seed")
            _verdict_options(sp, "L * MSE")
        sp.set_defaults(fn=fn)


def _add_risk(sub) -> None:
    """``softmix risk``: its arguments."""
    sp = sub.add_parser("risk", help="finite-prompt risk of several heads sharing one prompt (1/L coefficient)")
    for opt, hlp in (("--mixture", "token law: a mixture file {weights, means, covariances}"),
                     ("--heads",
                      "the heads sharing the prompt: a JSON list of {U, V, W?} (W defaults to the identity)"),
                     ("--queries", "query law: a mixture file of the same dimension as the tokens"),
                     ("--target", "the target: {B, noise_covariance} (JSON)")):
        sp.add_argument(opt, metavar="FILE.json", help=hlp + " (or --setting)")
    sp.add_argument("--setting", metavar="FILE.json",
                    help='a ready setting instead of the four files: {"icl_regression": {...}} or {"denoising": {...}} '
                         "(docs/finite-prompt.md)")
    sp.add_argument("--dps", type=int, help="decimal digits (mpmath, 5-1000); default: float64")
    sp.add_argument("--mc", metavar="L1,L2,...", help="also simulate full-token prompts at these lengths")
    sp.add_argument("--reps", type=int, help="Monte Carlo replicates per prompt length (needs --mc; default 2000)")
    sp.add_argument("--seed", type=_seed, help="Monte Carlo seed (non-negative; default 0)")
    _verdict_options(sp, "L (R_L - R_inf)")
    sp.add_argument("--json", metavar="PATH", help="also write the printed JSON to PATH")
    sp.set_defaults(fn=_cmd_risk)


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
