"""The engine target of ``softmix mutation-score`` (issue 23, item 3): which modules are mutated,
a reproducible sample, the engine stage's kill rule (canaries, exit code, claims, scope findings),
and end to end on a one-claim stage: a mutant of the verdict lattice is killed, the same program
written differently comes out equivalent.  A few seconds of verify runs in all."""
import copy
import dataclasses
import fnmatch
import subprocess
import sys
from pathlib import Path

import pytest

from softmix.checks.mutants import (
    ENGINE_MODULES,
    TOOL_FILES,
    _module_files,
    generate_mutants,
    sample_mutants,
    target_of,
)
from softmix.checks.mutation import _copy_tree
from softmix.checks.mutation_engine import (
    NOT_EXECUTED,
    EngineStage,
    _run_stage,
    engine_record,
    judge_stage,
    run_engine_mutant,
    stage_executes,
)
from softmix.checks.mutation_score import generated_mutation_score, summarize

#: the checkout these tests live in (CI installs softmix non-editable: not the package's location)
ROOT = Path(__file__).resolve().parents[2]
SEED = 20261130
#: a one-claim stage (a ball-arithmetic certificate, < 1 s, verified, three refuted controls);
#: the engine controls off to keep the test fast (the default stage always has them)
TINY = EngineStage(claims=("cert-prop-4.3-contraction",), engine_controls=False)
CLAIM = "cert-prop-4.3-contraction"


@pytest.fixture(scope="module")
def engine_population():
    return generate_mutants(ROOT, "engine")


def test_the_engine_population_is_the_engine_modules_and_nothing_else(engine_population):
    files = {m.path for m in engine_population}
    names = {Path(p).stem for p in files}
    assert all(p.startswith("checks/") and p.count("/") == 1 for p in files)  # never checks/paper/
    assert all(any(fnmatch.fnmatchcase(n, pat) for pat in ENGINE_MODULES) for n in names)
    for pat in ENGINE_MODULES:  # every named module has mutation sites
        assert any(fnmatch.fnmatchcase(n, pat) for n in names), pat
    assert {"rules", "fits", "verdicts", "configs", "configurations", "params", "runner", "api", "operator",
            "operator_family", "assumptions", "assumption_runs", "registry", "mc_verdict"} <= names
    assert not {Path(p).name for p in files} & (TOOL_FILES | {"engine_controls.py", "cli.py"})
    assert len({m.id for m in engine_population}) == len(engine_population) > 2000
    assert {target_of(m.path) for m in engine_population} == {"engine"}
    both = {p.relative_to(ROOT).as_posix() for p in _module_files(ROOT, "all")}
    library = {p.relative_to(ROOT).as_posix() for p in _module_files(ROOT, "library")}
    assert both == library | files and not library & files
    with pytest.raises(ValueError, match="unknown mutation target"):
        generate_mutants(ROOT, "paper")


def test_an_engine_sample_is_reproducible_from_its_seed(engine_population):
    a = [m.id for m in sample_mutants(engine_population, 30, 4113, ROOT)]
    b = [m.id for m in sample_mutants(engine_population, 30, 4113, ROOT)]
    c = [m.id for m in sample_mutants(engine_population, 30, 4114, ROOT)]
    assert a == b and len(set(a)) == 30
    assert a != c and len(set(a) & set(c)) < 10
    # drawn from the whole population, not one module: 30 draws over 17 modules hit several
    assert len({i.split(":")[0] for i in a}) >= 5


@pytest.mark.parametrize("args", [["--target", "paper"], ["--target", "engine", "--named"],
                                  ["--target", "engine", "--sample", "0"]])
def test_a_bad_target_is_one_line_and_exit_2_before_any_work(args):
    r = subprocess.run([sys.executable, "-m", "softmix", "mutation-score", *args], capture_output=True,
                       text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
    assert r.stdout == ""


def test_the_library_function_rejects_an_unknown_target_before_any_work(tmp_path):
    from softmix.numerics.errors import InputError

    with pytest.raises(InputError, match="target must be one of"):
        generated_mutation_score(3, root=ROOT, target="checks", checkpoint=tmp_path / "never-written.jsonl")
    assert not (tmp_path / "never-written.jsonl").exists()


# ---- the kill rule of the engine stage, on a real clean run -------------------------------------
@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    tree = tmp_path_factory.mktemp("clean-tree")
    _copy_tree(tree, ROOT)
    run = _run_stage(TINY, tree, SEED, 600)
    assert run["rc"] == 0 and not run["crash"] and run["doc"]["claims"][0]["verdict"] == "verified", run["stderr"]
    return run


_EXPECTED = {"verdict": "verified", "controls": {"flipped-sign": "refuted"}, "controls_refuted": ["flipped-sign"],
             "passed": True, "passed_strict": True, "exit_code": 0, "exit_code_strict": 0, "counts": {"verified": 1}}


def _with_canary(run, observed):
    """``run`` with one engine control whose judgement is ``observed``, and the clean record that
    expects it judged as :data:`_EXPECTED`."""
    run = copy.deepcopy(run)
    run["doc"]["engine_controls"] = [{"id": "engine/true", "description": "a canary", "expected": _EXPECTED,
                                      "observed": observed, "judged_right": observed == _EXPECTED,
                                      "wrong": [], "seconds": 0.1}]
    run["doc"]["engine_controls_skipped"] = False
    clean = {"rc": 0, "claims": {CLAIM: "verified"}, "engine_controls": {"engine/true": _EXPECTED},
             "stage": dataclasses.asdict(EngineStage(claims=(CLAIM,)))}
    return run, clean


def test_a_clean_stage_kills_nothing_and_a_wrong_canary_kills(clean_run):
    run, clean = _with_canary(clean_run, dict(_EXPECTED))
    assert judge_stage(clean, run) == []
    wrong, _ = _with_canary(clean_run, {**_EXPECTED, "exit_code": 1, "passed": False})
    assert judge_stage(clean, wrong) == ["engine control engine/true judged wrongly (exit_code, passed)"]
    missing = copy.deepcopy(run)
    missing["doc"]["engine_controls"] = []
    assert judge_stage(clean, missing) == ["engine control engine/true missing"]
    skipped = copy.deepcopy(missing)
    skipped["doc"]["engine_controls_skipped"] = True
    assert "engine controls skipped" in judge_stage(clean, skipped)


def test_the_exit_code_a_changed_verdict_a_lost_claim_and_a_crash_kill(clean_run):
    run, clean = _with_canary(clean_run, dict(_EXPECTED))
    rc = {**run, "rc": 1}
    assert judge_stage(clean, rc) == ["verify exit 1 (clean 0)"]
    weaker = copy.deepcopy(run)
    weaker["doc"]["claims"][0]["verdict"] = "confirmed"  # still passes: only the change kills
    assert judge_stage(clean, weaker) == [f"{CLAIM}: verdict verified -> confirmed"]
    lost = copy.deepcopy(run)
    lost["doc"]["claims"] = []
    assert judge_stage(clean, lost) == [f"{CLAIM}: missing from the run"]
    assert judge_stage(clean, {**run, "crash": "ZeroDivisionError: x"})[0].startswith("verify crashed")
    assert judge_stage(clean, {**run, "doc": None})[0].startswith("no JSON document")
    bad = copy.deepcopy(run)
    bad["doc"]["exit_code"] = "0"
    assert any("schema" in w for w in judge_stage(clean, bad))


def test_controls_are_judged_as_verify_judges_them(clean_run):
    """A negative control not refuted kills; an assumption-dropped control that is not refuted is a
    scope finding (verify does not fail on it: no kill), one that errors kills
    (:func:`softmix.checks.assumption_runs.control_failed`)."""
    run, clean = _with_canary(clean_run, dict(_EXPECTED))
    ctl = run["doc"]["claims"][0]["negative_controls"][0]

    def with_control(**kw):
        r = copy.deepcopy(run)
        r["doc"]["claims"][0]["negative_controls"].append({**copy.deepcopy(ctl), "id": "extra", **kw})
        return judge_stage(clean, r)

    assert with_control(verdict="confirmed", refuted=False) == [f"{CLAIM}/extra: control confirmed"]
    assert with_control(kind="assumption-dropped", verdict="verified", refuted=False) == []
    assert with_control(kind="assumption-dropped", verdict="error", refuted=False) == [f"{CLAIM}/extra: control error"]


# ---- end to end on the one-claim stage ------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_record():
    rec = engine_record(SEED, ROOT, stage=TINY, cache=False)
    assert rec["rc"] == 0 and rec["claims"] == {CLAIM: "verified"} and rec["reproducible"], rec.get("unreproducible")
    assert rec["lines"]["checks/verdicts.py"]
    return rec


def _combine_mutant(population):
    """``if not any(v in ("verified", "confirmed") ...)`` -> ``if any(...)`` in the lattice's
    ``combine``: every decided claim comes out inconclusive."""
    ms = [m for m in population if m.path == "checks/verdicts.py" and m.function == "combine"
          and m.operator == "bool" and m.original.startswith("not any(")]
    assert len(ms) == 1
    return ms[0]


def test_a_mutant_of_the_verdict_lattice_is_killed_by_the_stage(tiny_record, engine_population):
    m = _combine_mutant(engine_population)
    assert stage_executes(m, tiny_record, ROOT)
    row = run_engine_mutant(m, tiny_record, SEED, tests=False, root=ROOT)
    assert row["status"] == "killed" and row["stage"] == "verify" and row["target"] == "engine", row
    assert f"{CLAIM}: verdict verified -> inconclusive" in row["killed_by"], row["killed_by"]


def test_the_same_program_written_differently_is_equivalent(tiny_record, engine_population):
    m = _combine_mutant(engine_population)
    null = dataclasses.replace(m, operator="none", mutated=f"({m.original})")  # parenthesised: the same program
    row = run_engine_mutant(null, tiny_record, SEED, tests=False, root=ROOT)
    assert row["status"] == "equivalent" and row["killed_by"] == [], row
    assert "unchanged at 40 digits" in row["equivalence"] and "combine" in row["equivalence"]
    s = summarize([row, {**row, "status": "killed", "stage": "verify", "equivalence": None}])
    assert s["equivalent"] == 1 and s["scored"] == 1 and s["score_verify"] == 1.0


def test_a_line_the_stage_never_runs_goes_straight_to_the_tests(tiny_record, engine_population):
    ms = [m for m in engine_population if m.path == "checks/operator_reference.py" and m.function]
    m = next(m for m in ms if not stage_executes(m, tiny_record, ROOT))
    row = run_engine_mutant(m, tiny_record, SEED, tests=False, root=ROOT)
    assert row["status"] == "survived" and row["equivalence"] == NOT_EXECUTED and row["stage"] is None
    assert summarize([row])["not_covered"] == 1
