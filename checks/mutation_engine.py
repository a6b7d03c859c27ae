"""Generated mutants over the engine: the verify stage they go through.

The engine target (``softmix mutation-score --target engine``) mutates the modules of ``checks/``
that turn a claim into a verdict and an exit code (:data:`softmix.checks.mutants.ENGINE_MODULES`:
rules, fits, verdicts, configs, configurations, params, runner, api, ``operator*``,
``assumption*``, registry, mc_verdict), sampled uniformly over their mutants with the seed given.

A library mutant (``theory/``, ``numerics/``) is sent to the claims that execute its line.  For an
engine mutant that map is useless: almost every claim executes almost all of the engine.  What
can notice a broken engine is, instead:

1. **The engine controls** (:mod:`softmix.checks.engine_controls`): the canaries with known
   judgements, which ``softmix verify`` runs on every run.  A canary judged wrongly is a kill.
2. **A verify run of a small fixed set of cheap claims** (:data:`DEFAULT_STAGE`: numeric,
   symbolic, Monte Carlo, certified and drawn-configuration paths of the paper library, chosen by
   a greedy cover of the engine lines they execute) and of one operator statement of
   ``examples/smart_2025_prop4.py`` given through ``--config`` (``operator_claim`` with a declared
   assumption whose dropped control is *not* refuted: a scope finding that must not fail the run).

Both run in **one** ``softmix verify`` process on the patched copy of the tree, through the
command line as a user runs it (:meth:`EngineStage.argv`: ``--workers 1``, ``--json``, the
seed), so that a mutant of the CLI, of the report or of the exit code is seen where it matters:
the *engine stage*.  It is judged **in the parent process, with the clean tree's code**
(:func:`judge_stage`), never by the patched engine judging itself.  A mutant is killed when:

* the process crashes or writes no JSON document, or the document does not follow the schema
  (:func:`softmix.checks.schema.validate`);
* verify's exit code differs from the clean run's (0);
* the engine controls were skipped, one is missing, or one's observed judgement differs from the
  clean run's expected judgement (the canary judged wrongly);
* a claim is missing, fails as verify judges it (:func:`softmix.checks.runner.claim_passed`,
  whose :func:`~softmix.checks.assumption_runs.control_failed` never fails a run for an
  assumption-dropped control that is not refuted), or its verdict differs from the clean run's.

The stage is run first on a clean copy under coverage.py (:func:`engine_record`, cached under a
hash of every source file and the seed): the lines of ``checks/*.py`` it executes (imports
included), its exit code, its JSON document, its time.  A mutant whose statement that run never
executes cannot change it and skips the stage ("not executed by the engine stage", a survivor of
verify, as "not covered by any claim" for the library).  Surviving mutants go to **the tests**
that execute their line (the per-test coverage map, :func:`softmix.checks.mutation.test_map`,
extended to ``checks/*.py``).

**Equivalence** is the recorded test of the library, applied to the stage: (a) the stage's
evidence is identical to the clean run's -- each claim's evidence digest, each canary's observed
judgement, the exit code, the counts and the printed output (decimal numbers masked: timings); and (b) the mutated
function, shadowed by the differential wrapper in a *second* run of the stage (so that the
wrapper's extra calls can never make a kill), saw at least one call and no output change.  A
stage past its time limit (60 s plus three times the clean stage's time) is a ``timeout``: not
scored.
"""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["EngineStage", "DEFAULT_STAGE", "STAGE_CONFIG", "NOT_EXECUTED", "engine_hash", "engine_record",
           "stage_executes", "stage_evidence", "judge_stage", "run_engine_mutant"]

#: the ``--config`` file of the stage, written at the root of the tree it runs on
STAGE_CONFIG = "engine-stage-config.json"


@dataclass(frozen=True)
class EngineStage:
    """What the engine stage verifies: paper ``claims``, the ``plugin_claims`` of the operator file
    ``plugin`` (path relative to the tree), with the ``--config`` overrides ``config``
    ({claim id: {parameter: value}}), and -- unless ``engine_controls`` is False, which only the
    fast tests of the mutation tool do -- the engine controls."""

    claims: tuple = ()
    plugin: str = ""
    plugin_claims: tuple = ()
    config: dict = field(default_factory=dict)
    engine_controls: bool = True

    def argv(self, out: str, seed: int) -> list[str]:
        """``softmix verify`` arguments writing the JSON document to ``out`` (``--config`` names
        :data:`STAGE_CONFIG` in the tree, written by the stage's runner)."""
        return ["verify", *self.claims, *self.plugin_claims, *(["--plugin", self.plugin] if self.plugin else []),
                *(["--config", STAGE_CONFIG] if self.config else []),
                *([] if self.engine_controls else ["--no-engine-controls"]),
                "--workers", "1", "--seed", str(seed), "--json", out]

    def key(self) -> str:
        """A short hash of the stage (part of the clean record's cache key)."""
        return hashlib.sha1(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:8]


#: the operator statements' cheap settings (those of the operator canaries): one exact dimension,
#: one numeric instance at 30 digits, no quadrature dimension, no counterexample shrinking
_CHEAP_OPERATOR = {"quadrature_dims": [], "exact_dims": [2], "instances": 1, "dps": 30, "shrink_budget": 0}

#: The engine stage of ``softmix mutation-score --target engine``.  Paper claims chosen by a greedy
#: cover of the engine lines the cheapest claims execute (per-claim coverage of ``checks/*.py``, new
#: lines per second; docs/records.md): remark-c.2 (numeric, drawn configurations), fp-lln (Monte
#: Carlo: samplers, z-tests, the slope fit), prop-2.1-shared (symbolic derivations, the operator
#: front-end's instances), fp-risk-icl-regression (three controls, Monte Carlo risk), remark-4.2
#: (configurations with a degenerate mixture), cert-prop-4.3-contraction (a certificate, three
#: controls); and Smart et al.'s Prop. 4 with the displayed gate (``operator_claim``, a declared
#: assumption whose dropped control is *not* refuted: a scope finding the run must not fail on),
#: given through ``--config`` with the operator canaries' cheap settings.
DEFAULT_STAGE = EngineStage(
    claims=("remark-c.2", "fp-lln", "prop-2.1-shared", "fp-risk-icl-regression", "remark-4.2",
            "cert-prop-4.3-contraction"),
    plugin="examples/smart_2025_prop4.py", plugin_claims=("smart-2025-prop4-displayed-gate",),
    config={"smart-2025-prop4-displayed-gate": _CHEAP_OPERATOR})
#: the ``equivalence`` text of a mutant the clean engine stage never executes
NOT_EXECUTED = "not executed by the engine stage"
#: the environment variable that would skip the engine controls: never set in the stage
_SKIP_ENV = "SOFTMIX_NO_ENGINE_CONTROLS"


def engine_hash(root: Path, stage: EngineStage = DEFAULT_STAGE, skip: frozenset = frozenset()) -> str:
    """SHA-1 over every Python source the engine stage may run, its plugin included
    (:func:`softmix.checks.mutation.engine_sources_hash`)."""
    from .mutation import engine_sources_hash

    return engine_sources_hash(root, stage.plugin, skip)


def _stage_env() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if k != _SKIP_ENV}


def _run_stage(stage: EngineStage, tree: Path, seed: int, timeout: float, coverage: bool = False,
               diff: dict | None = None) -> dict:
    """One engine-stage process on the copy ``tree``: ``{"rc", "crash", "lines", "diff", "stdout",
    "stderr", "doc", "seconds"}`` (``doc`` None when no JSON was written).  TimeoutExpired past
    ``timeout``."""
    from .mutation import _driver

    out_json, spec_path, res_path = tree / "stage.json", tree / "stage-spec.json", tree / "stage-out.json"
    for p in (out_json, res_path):
        p.unlink(missing_ok=True)
    if stage.config:
        (tree / STAGE_CONFIG).write_text(json.dumps(stage.config))
    spec = {"mode": "engine", "root": str(tree), "argv": stage.argv(out_json.name, seed), "seed": seed,
            "coverage": coverage, **({"diff": True, **diff} if diff else {})}
    spec_path.write_text(json.dumps(spec))
    t0 = time.perf_counter()
    r = _driver([str(spec_path), str(res_path)], tree, timeout, env=_stage_env())
    secs = time.perf_counter() - t0
    res = json.loads(res_path.read_text()) if res_path.exists() else {
        "rc": None, "crash": f"driver exit {r.returncode}: {(r.stderr.strip().splitlines() or ['?'])[-1][:200]}",
        "lines": {}, "diff": None}
    doc = None
    if out_json.exists():
        try:
            doc = json.loads(out_json.read_text())
        except ValueError:
            doc = None
    return {**res, "stdout": r.stdout, "stderr": r.stderr[-2000:], "doc": doc, "seconds": round(secs, 3)}


#: decimal numbers in the printed output with the blanks before them (a table pads a column to the
#: number's width): timings among them (the claims' numbers are in the evidence)
_DECIMAL = re.compile(r"\s*\d+\.\d+(?:e[+-]?\d+)?")


def _evidence_parts(doc: dict | None, stdout: str) -> dict:
    from .mutation_verdicts import evidence_digest, strip_timings

    if doc is None:
        return {"document": None}
    parts: dict[str, Any] = {f"claim {r.get('id')}": evidence_digest(r) for r in doc.get("claims", [])}
    for e in doc.get("engine_controls") or []:
        parts[f"engine control {e.get('id')}"] = strip_timings({k: e.get(k) for k in ("observed", "judged_right",
                                                                                     "wrong", "exception")})
    parts.update({"exit code": doc.get("exit_code"), "counts": doc.get("counts"),
                  "stdout": _DECIMAL.sub(" <x>", stdout)})
    return parts


def stage_evidence(doc: dict | None, stdout: str) -> str:
    """SHA-1 of what the engine stage showed, timings removed: each claim's evidence digest, each
    canary's observed judgement (and exception), the exit code, the counts, and the printed output
    with every decimal number masked (timings; the claims' numbers are in their evidence)."""
    return hashlib.sha1(json.dumps(_evidence_parts(doc, stdout), sort_keys=True, default=str).encode()).hexdigest()


def _differing(a: dict, b: dict) -> list[str]:
    """The parts of two stage runs' evidence that differ (:func:`_evidence_parts`)."""
    pa, pb = _evidence_parts(a["doc"], a["stdout"]), _evidence_parts(b["doc"], b["stdout"])
    return sorted(k for k in set(pa) | set(pb) if pa.get(k) != pb.get(k))


def judge_stage(clean: dict, run: dict) -> list[str]:
    """Why an engine-stage ``run`` kills its mutant (``[]``: it does not), judged against the clean
    record ``clean`` (:func:`engine_record`) by this process's (the clean tree's) code; see the
    module docstring."""
    from .mutation_verdicts import kill_reasons
    from .schema import SchemaError, validate

    if run.get("crash"):
        return [f"verify crashed: {run['crash']}"]
    doc = run.get("doc")
    if doc is None:
        return [f"no JSON document (exit {run.get('rc')}): {(run.get('stderr') or '').strip()[-160:]}"]
    why = []
    if run.get("rc") != clean["rc"]:
        why.append(f"verify exit {run.get('rc')} (clean {clean['rc']})")
    try:
        validate(doc)
    except SchemaError as e:
        why.append(f"JSON does not follow the schema: {str(e)[:160]}")
    except Exception as e:  # a document the validator cannot even walk
        why.append(f"JSON does not follow the schema: {type(e).__name__}: {str(e)[:120]}")
    if doc.get("engine_controls_skipped") and clean.get("stage", {}).get("engine_controls", True):
        why.append("engine controls skipped")
    seen = {c.get("id"): c for c in doc.get("engine_controls") or [] if isinstance(c, dict)}
    for cid, expected in clean["engine_controls"].items():
        ctl = seen.get(cid)
        obs = ctl.get("observed") if isinstance(ctl, dict) else None
        if not isinstance(obs, dict):
            why.append(f"engine control {cid} missing")
            continue
        wrong = sorted(k for k in expected if obs.get(k) != expected[k])
        if wrong:
            why.append(f"engine control {cid} judged wrongly ({', '.join(wrong)})")
    results = {r.get("id"): r for r in doc.get("claims", []) if isinstance(r, dict)}
    for cid, verdict in clean["claims"].items():
        r = results.get(cid)
        if r is None:
            why.append(f"{cid}: missing from the run")
            continue
        try:
            why += kill_reasons(r, verdict)
        except (KeyError, TypeError) as e:  # a result verify could not have judged
            why.append(f"{cid}: malformed result ({type(e).__name__}: {e})")
    return why


def engine_record(seed: int, root: Path | None = None, refresh: bool = False, timeout: float = 1800,
                  stage: EngineStage = DEFAULT_STAGE, cache: bool = True) -> dict:
    """The engine ``stage`` on a clean copy of the tree (cached in ``.softmix-cache/`` under
    :func:`engine_hash`, the stage and ``seed``): ``{"hash", "seed", "stage", "rc", "seconds",
    "lines": {path: [lines]}, "claims": {id: clean verdict}, "engine_controls": {id: expected
    judgement}, "evidence", "reproducible"}``.  Run twice: under coverage (the lines) and without (time, evidence); the
    evidence of the two must agree, else ``reproducible`` is False and no mutant is declared
    equivalent.  The clean stage must pass its own judgement (RuntimeError otherwise)."""
    from .mutation import CACHE, _copy_tree, require_source_checkout

    root = Path(root or require_source_checkout())
    key = engine_hash(root, stage)
    path = root / CACHE / f"engine-stage-{key[:16]}-{stage.key()}-{seed}.json"
    if cache and path.exists() and not refresh:
        return json.loads(path.read_text())
    with tempfile.TemporaryDirectory(prefix="softmix-estage-") as tmp:
        tree = Path(tmp)
        _copy_tree(tree, root)
        cov = _run_stage(stage, tree, seed, timeout, coverage=True)
        run = _run_stage(stage, tree, seed, timeout)
    doc = run["doc"]
    if doc is None or run["crash"]:
        raise RuntimeError(f"the clean engine stage failed: {run['crash'] or run['stderr'][-400:]}")
    rec: dict[str, Any] = {"hash": key, "seed": seed, "stage": asdict(stage), "rc": run["rc"],
           "seconds": run["seconds"], "lines": cov["lines"],
           "claims": {r["id"]: r["verdict"] for r in doc["claims"]},
           "engine_controls": {e["id"]: e["expected"] for e in doc.get("engine_controls") or []},
           "evidence": stage_evidence(doc, run["stdout"]),
           "unreproducible": _differing(run, cov)}
    rec["reproducible"] = not rec["unreproducible"]
    bad = judge_stage(rec, run)
    if rec["rc"] != 0 or bad:
        raise RuntimeError(f"the clean tree fails its own engine stage (exit {rec['rc']}): {'; '.join(bad)[:400]}")
    if cache:
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(rec))
    return rec


def stage_executes(m, rec: dict, root: Path | None = None) -> bool:
    """Whether the clean engine stage executed mutant ``m``'s statement (for a ``def`` line, whose
    default arguments are evaluated at import: a line of the function's body)."""
    from .mutation import _next_def_line

    lines = set(rec["lines"].get(m.path, ()))
    if m.stmt_line == m.def_line and m.def_line:
        nxt = _next_def_line(m, root)
        return any(m.def_line < ln < nxt for ln in lines)
    return m.stmt_line in lines


def _stage_of(d: dict) -> EngineStage:
    """The :class:`EngineStage` of a record's ``stage`` (lists of the JSON back to tuples)."""
    s = d.get
    return EngineStage(claims=tuple(s("claims", ())), plugin=s("plugin", ""),
                       plugin_claims=tuple(s("plugin_claims", ())), config=dict(s("config", {})),
                       engine_controls=bool(s("engine_controls", True)))


def _stage_kill(m, rec: dict, tmp: Path, seed: int, row: dict, root: Path) -> None:
    """The engine stage on the patched copy ``tmp``: fills ``row`` (status killed or timeout,
    killed_by, stage; or, when it survives, the equivalence verdict)."""
    stage = _stage_of(rec["stage"])
    limit = min(1500.0, 60 + 3 * rec["seconds"])
    try:
        run = _run_stage(stage, tmp, seed, limit)
    except subprocess.TimeoutExpired:
        row.update(status="timeout", stage="verify", killed_by=[f"verify timed out after {limit:.0f} s"])
        return
    row["claims_run"] = sorted(rec["claims"])
    why = judge_stage(rec, run)
    if why:
        row.update(status="killed", stage="verify", killed_by=why)
        return
    if stage_evidence(run["doc"], run["stdout"]) != rec["evidence"]:
        row["equivalence"] = "not equivalent: evidence changed"
    elif not rec.get("reproducible"):
        row["equivalence"] = "not equivalent: the clean engine stage is not reproducible"
    elif not m.function:
        row["equivalence"] = "not equivalent: module-level code (no function to compare)"
    else:
        diff = {"module": "softmix." + m.path[:-3].replace("/", "."), "function": m.function,
                "clean_path": str(root / m.path)}
        try:
            twin = _run_stage(stage, tmp, seed, limit, diff=diff)
        except subprocess.TimeoutExpired:
            row["equivalence"] = "not equivalent: the comparison run timed out"
            return
        d = twin.get("diff") or {"unsupported": "no comparison", "compared": 0}
        if stage_evidence(twin["doc"], twin["stdout"]) != rec["evidence"]:
            row["equivalence"] = "not equivalent: the comparison run's evidence changed"
        elif d["unsupported"] or not d["compared"] or d["differed"]:
            changed = "function output changed: " + d.get("first_difference", "")
            row["equivalence"] = "not equivalent: " + (d["unsupported"] or ("function never called" if not d["compared"]
                                                                          else changed))
        else:
            row["equivalence"] = (f"equivalent: engine stage evidence identical to the clean run and "
                                  f"{d['compared']} call(s) of {m.function} unchanged at 40 digits")
            row["status"] = "equivalent"


def run_engine_mutant(m, rec: dict, seed: int, tests: bool = True, test_timeout: float = 120,
                      root: Path | None = None, tmap: dict | None = None) -> dict:
    """Run one engine mutant through the engine stage (and, if it survives, the tests that execute
    its line): its JSON row, with the keys of :func:`softmix.checks.mutation.run_mutant`."""
    from .mutants import apply_mutant
    from .mutation import ROOT, _copy_tree, run_test_stage

    root = Path(root or ROOT)
    t0 = time.perf_counter()
    row = {"id": m.id, "file": m.path, "line": m.line, "operator": m.operator, "original": m.original,
           "mutated": m.mutated, "function": m.function, "target": "engine", "claims": [], "status": None,
           "killed_by": [], "stage": None, "equivalence": None}
    with tempfile.TemporaryDirectory(prefix="softmix-emut-") as tmp_name:
        tmp = Path(tmp_name)
        _copy_tree(tmp, root)
        apply_mutant(m, tmp)
        if stage_executes(m, rec, root):
            row["claims"] = sorted(rec["claims"])
            _stage_kill(m, rec, tmp, seed, row, root)
        else:
            row["equivalence"] = NOT_EXECUTED
        if row["status"] is None:
            row["status"] = "survived"
        if row["status"] in ("survived", "equivalent") and tests:
            run_test_stage(m, row, tmp, tmap, root, test_timeout)
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row
