"""The mutation suite: every fault applies cleanly, and an injected fault is caught end to end."""
from pathlib import Path

import pytest

from softmix.checks.mutation import run_fault
from softmix.checks.mutation_faults import FAULTS, NULL_FAULT

#: the checkout these tests live in; mutation testing patches *its* files. Not the imported
#: package's location: CI installs softmix non-editable, so that is site-packages (no tests/).
ROOT = Path(__file__).resolve().parents[2]


def test_at_least_30_faults_with_unique_ids():
    assert len(FAULTS) >= 30
    assert len({f.id for f in FAULTS}) == len(FAULTS)


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.id)
def test_each_fault_applies_exactly_once(fault):
    text = (ROOT / fault.path).read_text()
    assert text.count(fault.old) == 1
    assert fault.path.startswith(("theory/", "numerics/"))


def test_a_fault_is_caught_and_the_clean_tree_is_not():
    row = run_fault(next(f for f in FAULTS if f.id == "shared-linear-term"), root=ROOT)
    assert row["caught"] and any("prop-2.1-shared" in c for c in row["caught_by"])
    clean = run_fault(NULL_FAULT, root=ROOT)
    assert not clean["caught"] and clean["caught_by"] == []


# ---- generated mutants (issue 11, part 5) ----------------------------------------------------
import dataclasses  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from softmix.checks.mutants import (  # noqa: E402
    Mutant,
    apply_mutant,
    compiles,
    generate_mutants,
    mutants_of_source,
    sample_mutants,
    sources_hash,
)
from softmix.checks.mutation import claims_for, coverage_map, module_test_files, run_mutant, suite_files  # noqa: E402
from softmix.checks.mutation_score import generated_mutation_score, summarize  # noqa: E402

TINY = '''"""Docstring: 1 + 2 is never mutated."""
__all__ = ["f"]


def f(a, b, M, g):
    """Nor is this 3 - 4."""
    x = a + b
    y = -a * 2.0
    if x < 1 and b:
        return M.T @ M
    return g(x, y)[0]
'''


def _triples(ms):
    return {(m.operator, m.original, m.mutated) for m in ms}


def test_operators_on_a_tiny_source_give_the_known_mutants():
    ms = mutants_of_source(TINY, "theory/tiny.py")
    got = _triples(ms)
    expected = {("sign", "a + b", "(a - b)"), ("drop", "a + b", "(a)"), ("drop", "a + b", "(b)"),
                ("sign", "-a", "(a)"), ("const", "2.0", "(4.0)"), ("const", "2.0", "(1.0)"),
                ("drop", "-a * 2.0", "(-a)"), ("drop", "-a * 2.0", "(2.0)"),
                ("compare", "x < 1", "(x <= 1)"), ("bool", "x < 1 and b", "(x < 1 or b)"),
                ("int", "1", "(2)"), ("int", "1", "(0)"),
                ("transpose", "M.T", "(M)"), ("transpose", "M.T @ M", "(M.T @ M.T)"),
                ("swap", "g(x, y)", "(g(y, x))"), ("index", "0", "(1)"), ("index", "0", "(-1)")}
    assert expected <= got, expected - got
    # nothing from docstrings or __all__, and every mutant names its function and statement
    assert not any(m.original in ("3", "4", "2", '"f"') for m in ms if m.operator in ("int", "index"))
    assert all(m.function == "f" and m.stmt_line >= 7 for m in ms)
    assert len(got) == len(ms)  # no duplicates


def test_every_tiny_mutant_applies_compiles_and_changes_the_program(tmp_path):
    (tmp_path / "theory").mkdir()
    for m in mutants_of_source(TINY, "theory/tiny.py"):
        (tmp_path / "theory" / "tiny.py").write_text(TINY)
        assert compiles(m, tmp_path)
        apply_mutant(m, tmp_path)
        new = (tmp_path / "theory" / "tiny.py").read_text()
        assert new != TINY and m.mutated in new
        compile(new, "tiny.py", "exec")


def test_the_population_covers_theory_and_numerics_with_every_operator():
    ms = generate_mutants(ROOT)
    assert len(ms) > 2000
    assert {m.path.split("/")[0] for m in ms} == {"theory", "numerics"}
    assert {m.operator for m in ms} == {"sign", "const", "int", "index", "transpose", "swap", "drop", "compare",
                                        "bool"}
    assert len({m.id for m in ms}) == len(ms)


def test_sampling_is_reproducible_and_depends_on_the_seed():
    ms = generate_mutants(ROOT)
    a = [m.id for m in sample_mutants(ms, 40, 1, ROOT)]
    b = [m.id for m in sample_mutants(ms, 40, 1, ROOT)]
    c = [m.id for m in sample_mutants(ms, 40, 2, ROOT)]
    assert a == b and len(a) == 40 and len(set(a)) == 40
    assert a != c and len(set(a) & set(c)) < 20


def test_sources_hash_ignores_the_mutation_machinery_but_not_the_theory(tmp_path):
    import shutil

    for d in ("softmix", "theory", "numerics", "checks"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("__pycache__"))
    h0 = sources_hash(tmp_path)
    (tmp_path / "checks" / "mutation.py").write_text("# edited\n")
    assert sources_hash(tmp_path) == h0
    p = tmp_path / "theory" / "mixtures.py"
    p.write_text(p.read_text() + "\n# edited\n")
    assert sources_hash(tmp_path) != h0


def _mutant(path, line, stmt_line, function="f", def_line=0):
    return Mutant(path, line, 0, line, 1, "sign", "a", "(b)", stmt_line, function, def_line)


def test_claims_for_maps_lines_cheapest_first_and_reports_uncovered():
    cmap = {"claims": {
        "slow": {"seconds": 9.0, "lines": {"theory/x.py": [5, 6, 7]}, "import_lines": {"theory/x.py": [1, 2]}},
        "fast": {"seconds": 1.0, "lines": {"theory/x.py": [6]}, "import_lines": {"theory/x.py": [1, 2]}},
        "other": {"seconds": 0.5, "lines": {"numerics/y.py": [6]}, "import_lines": {}}}}
    assert claims_for(_mutant("theory/x.py", 6, 6), cmap) == ["fast", "slow"]
    assert claims_for(_mutant("theory/x.py", 8, 7), cmap) == ["slow"]  # by the statement's first line
    assert claims_for(_mutant("theory/x.py", 9, 9), cmap) == []  # not covered by any claim
    # module-level code run at import: the claims that use the module
    assert claims_for(_mutant("theory/x.py", 2, 2, function=""), cmap) == ["fast", "slow"]


def test_file_level_test_map():
    assert "tests/paper/test_certificates.py" in module_test_files("numerics/balls.py", ROOT)
    lda = "tests/paper/test_lda.py"
    assert lda in module_test_files("theory/lda.py", ROOT) or lda in module_test_files("numerics/lda.py", ROOT)
    assert module_test_files("numerics/precision.py", ROOT) == [] or all(
        f.startswith("tests/") for f in module_test_files("numerics/precision.py", ROOT))
    # the files of every subdirectory of tests/ (the layout mirrors the package): a test map that read
    # tests/test_*.py only missed every test of tests/numerics/ and tests/paper/
    assert "tests/numerics/test_reduced_flow.py" in module_test_files("numerics/reduced_flow.py", ROOT)


def test_the_test_map_lists_every_test_file_but_the_registry_shards():
    names = suite_files(ROOT, ("test_registry_claims_",))
    assert {"tests/engine/test_mutation.py", "tests/numerics/test_reduced_flow.py", "tests/theory/test_variants.py",
            "tests/paper/test_steps_b5.py", "tests/project/test_docs.py"} <= set(names)
    assert not any("test_registry_claims_" in n or n.startswith("tests/plugins/") for n in names)
    assert names == sorted(names) and len(names) == len(list((ROOT / "tests").rglob("test_*.py"))) - 2


FAST = "cert-prop-4.3-contraction"  # runs ball-arithmetic bisection (numerics/balls.py) in < 1 s


def _cover_sign_mutant(original, operator):
    ms = [m for m in generate_mutants(ROOT) if m.path == "numerics/balls.py" and m.function == "cover_sign"
          and m.operator == operator and m.original == original]
    assert ms, (original, operator)
    return ms[0]


@pytest.fixture(scope="module")
def fast_map():
    cmap = coverage_map(claims=[FAST], root=ROOT)
    rec = cmap["claims"][FAST]
    assert rec["verdict"] == "verified" and rec["lines"]["numerics/balls.py"]
    return cmap


def test_a_generated_mutant_is_killed_end_to_end(fast_map):
    m = _cover_sign_mutant("a + b", "sign")  # bisection midpoint (a + b) / 2 -> (a - b) / 2
    assert claims_for(m, fast_map, ROOT) == [FAST]
    row = run_mutant(m, fast_map, tests=False, root=ROOT)
    assert row["status"] == "killed" and row["stage"] == "verify", row
    assert any(FAST in k for k in row["killed_by"])


def test_the_clean_tree_is_not_caught_and_comes_out_equivalent(fast_map):
    m = _cover_sign_mutant("a + b", "sign")
    null = dataclasses.replace(m, operator="none", mutated="(a + b)")  # parenthesised: the same program
    row = run_mutant(null, fast_map, tests=False, root=ROOT)
    assert row["status"] == "equivalent" and row["killed_by"] == [], row
    assert "identical" in row["equivalence"] and "unchanged at 40 digits" in row["equivalence"]
    s = summarize([row, {**row, "status": "killed", "stage": "verify"}])
    assert s["equivalent"] == 1 and s["scored"] == 1 and s["score_verify"] == 1.0


def test_a_verify_timeout_is_neither_a_kill_nor_a_survivor():
    base = {"status": "killed", "stage": "verify", "equivalence": None}
    rows = [base, {**base, "status": "survived", "stage": None},
            {**base, "status": "timeout", "killed_by": ["verify timed out after 60 s"]}]
    s = summarize(rows)
    assert s["timeouts"] == 1 and s["scored"] == 2 and s["killed_by_verify"] == 1 and s["score_verify"] == 0.5


def test_mutation_score_cli_rejects_bad_input_before_any_work():
    for args in (["--sample", "0"], ["--jobs", "0"], ["--faults", "mgf-half"]):
        r = subprocess.run([sys.executable, "-m", "softmix", "mutation-score", *args], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)


def test_mutation_score_needs_a_source_checkout(monkeypatch, tmp_path, capsys):
    """From an installed package (no tests/ beside the code) the command says so in one line, exit 2."""
    import softmix.checks.mutation as M
    from softmix.checks.cli import main

    monkeypatch.setattr(M, "ROOT", tmp_path)
    assert main(["mutation-score", "--sample", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "source checkout" in err[0]


def test_claims_for_a_default_argument_are_those_running_the_function_body():
    ms = [m for m in generate_mutants(ROOT) if m.stmt_line == m.def_line and m.def_line and m.function]
    assert ms, "no mutant of a default argument"
    m = ms[0]
    cmap = {"claims": {"runs-body": {"seconds": 1.0, "lines": {m.path: [m.def_line + 2]}, "import_lines": {}},
                       "imports-only": {"seconds": 0.1, "lines": {}, "import_lines": {m.path: [m.def_line]}}}}
    assert claims_for(m, cmap, ROOT) == ["runs-body"]


def test_a_checkpoint_resumes_and_refuses_another_tree(tmp_path, monkeypatch):
    """A stopped run keeps its rows: rerun with the same checkpoint, decided mutants are not run
    again; a checkpoint written for another tree or sample is a one-line input error."""

    import softmix.checks.mutation as M
    from softmix.numerics.errors import InputError

    calls = []

    def fake_run(m, cmap, seed, tests, timeout, root=None, tmap=None):
        calls.append(m.id)
        return {"id": m.id, "status": "killed", "stage": "verify", "equivalence": None, "killed_by": ["x"]}

    monkeypatch.setattr(M, "coverage_map", lambda *a, **k: {"hash": "h", "claims": {}})
    monkeypatch.setattr(M, "run_mutant", fake_run)
    monkeypatch.setattr(M, "test_map", lambda *a, **k: {"hash": "t", "lines": {}, "failed": []})
    import shutil

    root = tmp_path / "tree"  # a frozen copy: the header holds the sources' hash
    for d in ("softmix", "theory", "numerics", "checks"):
        shutil.copytree(ROOT / d, root / d, ignore=shutil.ignore_patterns("__pycache__"))
    ck = tmp_path / "ck.jsonl"
    first = generated_mutation_score(4, seed=3, jobs=1, root=root, checkpoint=ck)
    assert len(calls) == 4 and first["resumed"] == 0 and first["score_verify"] == 1.0
    lines = ck.read_text().splitlines()  # header, segment mark, four rows
    assert json.loads(lines[0])["header"]["sample_seed"] == 3 and "segment_start" in json.loads(lines[1])
    assert len(lines) == 6
    ck.write_text("\n".join(lines[:4]) + "\n" + lines[4][:10])  # two rows kept, one cut off mid-line
    calls.clear()
    again = generated_mutation_score(4, seed=3, jobs=1, root=root, checkpoint=ck)
    assert len(calls) == 2 and again["resumed"] == 2
    assert [r["id"] for r in again["mutants"]] == [r["id"] for r in first["mutants"]]
    with pytest.raises(InputError, match="another run"):
        generated_mutation_score(4, seed=4, jobs=1, root=root, checkpoint=ck)
    with pytest.raises(InputError, match="does not exist"):
        generated_mutation_score(4, seed=3, jobs=1, root=root, checkpoint=tmp_path / "no" / "ck.jsonl")


def _map_of_a_tiny_suite(tmp_path, name: str, text: str):
    """The per-test map of one test file ``tests/<name>`` written into a copy of the source tree, with the lines
    of numerics/precision.py that read a decimal string and an int."""
    import shutil

    import softmix.checks.mutation as M

    for d in ("softmix", "theory", "numerics", "checks"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / name).write_text(text)
    tmap = M.test_map(jobs=1, root=tmp_path, files=[f"tests/{name}"])
    src = (tmp_path / "numerics" / "precision.py").read_text().splitlines()
    line_str = 1 + next(i for i, s in enumerate(src) if "Fraction(Decimal(x.strip()))" in s)
    line_int = 1 + next(i for i, s in enumerate(src) if s.strip() == "return Fraction(x)")
    return tmap, tmap["lines"]["numerics/precision.py"], line_str, line_int, src


def test_the_test_map_names_the_tests_that_run_a_line(tmp_path):
    """The per-test coverage map: a line is mapped to exactly the tests that execute it, a test
    that fails on the clean tree is never selected, and a mutant of that line selects the test."""
    import softmix.checks.mutation as M

    tmap, by, line_str, line_int, src = _map_of_a_tiny_suite(tmp_path, "test_tiny.py",
        "from fractions import Fraction\n"
        "from softmix.numerics.precision import to_fraction\n\n"
        "def test_string():\n    assert to_fraction('0.25') == Fraction(1, 4)\n\n"
        "def test_int():\n    assert to_fraction(3) == 3\n\n"
        "def test_broken():\n    assert to_fraction(2) == 5\n\n"
        "def test_process():  # the line run only in a process the test starts (softmix verify as a user runs it)\n"
        "    import subprocess, sys\n"
        "    code = 'from softmix.numerics.precision import to_fraction; assert to_fraction(7) == 7'\n"
        "    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)\n"
        "    assert r.returncode == 0 and r.stderr == '', r.stderr\n")
    assert by[str(line_str)] == ["tests/test_tiny.py::test_string"]
    assert set(by[str(line_int)]) == {"tests/test_tiny.py::test_int", "tests/test_tiny.py::test_broken",
                                      "tests/test_tiny.py::test_process"}  # the process, silently measured
    assert tmap["failed"] == ["tests/test_tiny.py::test_broken"]
    m = Mutant("numerics/precision.py", line_int, 0, line_int, 1, "sign", "a", "(b)", line_int, "to_fraction", 20)
    assert set(M.tests_for(m, tmap, tmp_path)) == {"tests/test_tiny.py::test_int", "tests/test_tiny.py::test_process"}
    # the module's own lines ran when the test file imported it, outside any test: recorded as run at import
    line_def = 1 + next(i for i, s in enumerate(src) if s.startswith("def to_fraction"))
    assert line_def in tmap["import_lines"]["numerics/precision.py"]
    assert line_int not in tmap["import_lines"]["numerics/precision.py"]


def test_tests_for_runs_the_tests_named_after_the_module_first():
    """A module-level mutant of checks/configs.py is executed by every test importing it; the tests of
    test_*configs*.py go first (then by time), so a test timeout does not cut them off."""
    import softmix.checks.mutation as M

    m = Mutant("checks/configs.py", 5, 0, 5, 1, "int", "1", "(2)", 5, "", 20)
    tmap = {"lines": {"checks/configs.py": {"5": ["tests/test_a.py::t", "tests/engine/test_engine_configs.py::slow",
                                                   "tests/test_b.py::fast"]}},
            "seconds": {"tests/test_a.py::t": 2.0, "tests/engine/test_engine_configs.py::slow": 9.0,
                        "tests/test_b.py::fast": 0.1}}
    assert M.tests_for(m, tmap) == ["tests/engine/test_engine_configs.py::slow", "tests/test_b.py::fast",
                                    "tests/test_a.py::t"]


def test_tests_for_a_line_run_at_import_selects_every_test_of_the_module():
    """A line of a function called at import (a table built at module level, like configs._EQUAL_NORM) runs
    outside every test's context: coverage credits it to no test, or only to the test that happened to
    import the module first.  It changes what every test of the module sees, so all of them are selected,
    the tests named after the module first."""
    import softmix.checks.mutation as M

    lines = {"checks/configs.py": {"95": ["tests/test_a.py::first_import"],
                                   "120": ["tests/engine/test_engine_configs.py::equal_norms", "tests/test_b.py::t"]}}
    tmap = {"lines": lines, "import_lines": {"checks/configs.py": [93, 95, 100]},
            "seconds": {"tests/test_a.py::first_import": 0.1, "tests/engine/test_engine_configs.py::equal_norms": 3.0,
                        "tests/test_b.py::t": 1.0}}
    m = Mutant("checks/configs.py", 95, 0, 95, 1, "int", "1", "(0)", 95, "_signed_perms", 93)
    assert M.tests_for(m, tmap) == ["tests/engine/test_engine_configs.py::equal_norms", "tests/test_a.py::first_import",
                                    "tests/test_b.py::t"]
    assert M.tests_for(m, {**tmap, "import_lines": {}}) == ["tests/test_a.py::first_import"]  # without the record


def test_the_selected_tests_run_named_first_then_the_rest_in_one_budget(monkeypatch):
    """Two pytest runs when the selection mixes the module's own tests with others: the second gets only the
    time the first left, and runs only if the first neither killed nor timed out."""
    import softmix.checks.mutation as M

    m = Mutant("checks/configs.py", 5, 0, 5, 1, "int", "1", "(2)", 5, "", 20)
    sel = ["tests/engine/test_engine_configs.py::a", "tests/test_b.py::b"]
    calls = []

    def fake(outcome):
        def run(tmp, files, timeout, none_why="x"):
            calls.append((list(files), timeout))
            return outcome.pop(0)
        return run

    monkeypatch.setattr(M, "_run_tests", fake([("survived", []), ("killed", ["test failed: b"])]))
    assert M._run_selected(m, None, sel, 100.0) == ("killed", ["test failed: b"])
    assert [c[0] for c in calls] == [sel[:1], sel[1:]] and calls[0][1] == 100.0 and 99.0 < calls[1][1] <= 100.0
    for first in (("killed", ["test failed: a"]), ("timeout", ["tests timed out after 100 s"])):
        calls.clear()
        monkeypatch.setattr(M, "_run_tests", fake([first]))
        assert M._run_selected(m, None, sel, 100.0) == first and len(calls) == 1
    calls.clear()  # only one group: one run over the whole selection
    monkeypatch.setattr(M, "_run_tests", fake([("survived", [])]))
    assert M._run_selected(m, None, sel[1:], 100.0) == ("survived", []) and calls == [(sel[1:], 100.0)]


def test_tests_for_a_default_argument_are_those_running_the_body_even_if_one_imported_the_module():
    """Coverage credits a def line (its defaults, evaluated at import) to whichever test imported the module
    first; that test says nothing of the default.  The selection is the tests that run the body (before, the
    importing test alone was selected and the body's tests never ran: survivors configs.py:64 and :76 of the
    engine run on b2ba873, whose named tests would have killed them)."""
    import softmix.checks.mutation as M

    ms = [m for m in generate_mutants(ROOT) if m.stmt_line == m.def_line and m.def_line and m.function]
    m = ms[0]
    tmap = {"lines": {m.path: {str(m.def_line): ["tests/t.py::test_imports_first"],
                               str(m.def_line + 2): ["tests/t.py::test_runs_body"]}}, "failed": []}
    assert M.tests_for(m, tmap, ROOT) == ["tests/t.py::test_runs_body"]
    only_def = {"lines": {m.path: {str(m.def_line): ["tests/t.py::test_imports_first"]}}, "failed": []}
    assert M.tests_for(m, only_def, ROOT) == ["tests/t.py::test_imports_first"]  # no body test: what there is


def test_the_test_map_measures_the_worker_processes_a_test_forks(tmp_path):
    """A line run only in a forked worker (a WorkerPool's, ``softmix verify --workers 2``'s) counts for the test
    that started it: in the test map's own process and in a process a test starts.  Before, a forked child ended
    with ``os._exit`` and its lines were lost, so the tests that decide operator statements in pool workers were
    never selected for the mutants of the lines they run."""
    tmap, by, line_str, line_int, _ = _map_of_a_tiny_suite(tmp_path, "test_forks.py",
        "import multiprocessing as mp\n"
        "import subprocess, sys\n\n"
        "def _child():\n"
        "    from softmix.numerics.precision import to_fraction\n"
        "    assert to_fraction('0.25') * 4 == 1\n\n"
        "def test_forked_here():\n"
        "    p = mp.get_context('fork').Process(target=_child)\n"
        "    p.start(); p.join()\n"
        "    assert p.exitcode == 0\n\n"
        "CODE = '''import multiprocessing as mp\n"
        "def child():\n"
        "    from softmix.numerics.precision import to_fraction\n"
        "    assert to_fraction(7) == 7\n"
        "if __name__ == \"__main__\":\n"
        "    p = mp.get_context(\"fork\").Process(target=child); p.start(); p.join()\n"
        "    raise SystemExit(p.exitcode)\n'''\n\n"
        "def test_forked_in_a_process(tmp_path):\n"
        "    f = tmp_path / 'run.py'\n"
        "    f.write_text(CODE)\n"
        "    r = subprocess.run([sys.executable, str(f)], capture_output=True, text=True)\n"
        "    assert r.returncode == 0 and r.stderr == '', r.stderr\n")
    assert by[str(line_str)] == ["tests/test_forks.py::test_forked_here"]
    assert by[str(line_int)] == ["tests/test_forks.py::test_forked_in_a_process"]
    assert tmap["failed"] == []


def test_a_function_held_by_reference_is_still_compared():
    """A step builder handed to ``step_claim`` at import is called through that reference, never
    through its module: the comparing wrapper must see those calls too (else "function never
    called" hides an equivalent mutant), and the function's signature stays what it was."""
    import inspect
    import types

    from softmix.checks.mutation_driver import _Diff, _redirect

    mod = types.ModuleType("softmix_redirect_demo")
    exec("def f(x, k=2):\n    return x * k\n", mod.__dict__)
    held = mod.f
    call_held = lambda x: held(x)  # noqa: E731 - a reference taken before the wrapper exists
    clean = lambda x, k=2: x * k  # noqa: E731
    diff = _Diff()
    wrapper = _redirect(mod.f, lambda f: diff.wrap(f, clean))
    assert call_held(3) == 6 and wrapper(5, k=3) == 15 and diff.calls == 2 and diff.compared == 2
    assert not diff.differed and str(inspect.signature(held)) == "(x, k=2)"
    bad = _Diff()
    mod2 = types.ModuleType("softmix_redirect_demo2")
    exec("def f(x, k=2):\n    return x * k + 1\n", mod2.__dict__)
    held2 = mod2.f
    _redirect(mod2.f, lambda f: bad.wrap(f, clean))
    assert held2(3) == 7 and bad.differed and "mutated 7 vs clean 6" in bad.first
