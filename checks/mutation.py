"""Refutation power: mutate theory/ and numerics/ and see who notices.

The headline measure is :func:`mutation_score` over mutants generated mechanically
(:mod:`softmix.checks.mutants`), sampled with a seed:

1. **Map.**  Each claim is run once on the clean tree (quick profile, the given seed) in its own
   subprocess under coverage.py with the dynamic context set to its id
   (:mod:`softmix.checks.mutation_driver`).  The map -- lines executed per claim, lines executed
   at import, clean verdicts, evidence digests, seconds -- is cached in ``.softmix-cache/`` under
   a hash of the sources and the seed, and reused while neither changes.
2. **Claims that execute the line.**  A mutant's claims are those whose context executed the
   first line of its enclosing statement; for a ``def`` line (default arguments) those that
   executed the function's body; for module-level code run only at import, those that executed
   any line of the module.  None: "not covered by any claim" (a survivor of verify).
3. **Verify.**  One subprocess imports a patched copy of the tree and runs those claims cheapest
   first (clean seconds), stopping at the first kill: a claim refuted or errored, a negative
   control not refuted, or a verdict different from the clean one.  A run past its time limit is
   a ``timeout``.
4. **Equivalence, mechanically.**  A surviving mutant is ``equivalent`` when (a) every claim it
   ran produced evidence identical to the clean run (digest of all numbers as printed, 30 digits
   for mpmath, timings removed) and (b) the differential wrapper around the mutated function saw
   at least one call and no output change at 40 digits (SymPy results evaluated at random
   rational points) -- see :mod:`softmix.checks.mutation_driver`.  Why each one was excluded is
   recorded in its row.
5. **Plus the tests.**  Surviving mutants (equivalent ones included: a test may still tell them
   apart, which overrides the exclusion) are tested by the test files that import the mutated
   module (a file-level map), ``-x``, with a time limit.

The older hand-written faults below (``FAULTS``) remain as the "named faults" set
(``softmix mutation-score --named``).

Each named fault is a textual patch (``old`` must occur exactly once in ``path``) applied in isolation
to a temporary copy of the three packages; the claims it touches are then run in a subprocess
that imports the patched copy.  A fault is *caught* when a touched claim comes back refuted or
errored, or one of its negative controls is no longer refuted (the verifier's behaviour changed
visibly).  ``softmix mutation-score`` prints the table and writes
``{"total", "caught", "score", "faults": [{"id", "description", "caught", "caught_by"}]}``.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .mutation_faults import FAULTS, Fault, apply_fault
from .mutation_verdicts import ENGINE_CONTROLS, kill_reasons

__all__ = ["run_fault", "mutation_score", "coverage_map", "claims_for",
           "test_map", "tests_for", "module_test_files", "suite_files", "run_mutant", "engine_sources_hash"]

#: the source checkout this module lives in (``checks/`` is one level below it)
ROOT = Path(__file__).resolve().parent.parent
#: what a patched copy needs: the facade and the design card's folders
_TREE = ("softmix", "theory", "numerics", "checks", "tests")


def require_source_checkout() -> Path:
    """The source root, or an InputError (one line, exit 2) when softmix runs from an installed
    package: mutation testing patches and re-runs the source tree and its tests."""
    from softmix.numerics.errors import InputError

    if not all((ROOT / d).is_dir() for d in _TREE):
        raise InputError("mutation-score needs a source checkout of softmix (with tests/); "
                         "run it from a clone with 'python -m softmix mutation-score'")
    return ROOT


#: copied beside the packages when present, so that tests reading examples or the README behave
#: in a patched copy as they do in the checkout
_EXTRA_DIRS = ("examples", "docs", "benchmarks")
_EXTRA_FILES = ("README.md", "pyproject.toml")


def _copy_tree(dst: Path, root: Path | None = None) -> None:
    root = root or ROOT
    for pkg in _TREE:
        shutil.copytree(root / pkg, dst / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for d in _EXTRA_DIRS:
        if (root / d).is_dir():
            shutil.copytree(root / d, dst / d, ignore=shutil.ignore_patterns("__pycache__"))
    for f in _EXTRA_FILES:
        if (root / f).is_file():
            shutil.copy2(root / f, dst / f)




def run_fault(fault: Fault, seed: int = 20261130, timeout: int = 900, root: Path | None = None) -> dict:
    """Apply one hand-written fault to a copy of the source tree at ``root`` (default: this
    checkout) and report which of its claims and tests catch it."""
    with tempfile.TemporaryDirectory(prefix="softmix-mut-") as tmp_name:
        tmp = Path(tmp_name)
        _copy_tree(tmp, root)
        apply_fault(fault, tmp)
        out = tmp / "out.json"
        env = dict(os.environ, PYTHONPATH=str(tmp))
        by = []
        if fault.tests:
            code = ("import sys; sys.path.insert(0, %r); import pytest; "
                    "sys.exit(pytest.main(['-o', 'addopts=', '-q', '-x', '-p', 'no:cacheprovider', *sys.argv[1:]]))"
                    % str(tmp))
            try:
                t = subprocess.run([sys.executable, "-c", code, *fault.tests], capture_output=True, text=True,
                                   env=env, cwd=tmp, timeout=timeout)
                if t.returncode != 0:
                    by.append(f"tests failed: {', '.join(x.split('::')[-1] for x in fault.tests)}")
            except subprocess.TimeoutExpired:
                pass
        if not fault.claims:
            return {"id": fault.id, "description": fault.description, "caught": bool(by), "caught_by": by}
        code = ("import sys; sys.path.insert(0, %r); from softmix.checks.cli import main; sys.exit(main(sys.argv[1:]))"
                % str(tmp))
        cmd = [sys.executable, "-c", code, "verify", *fault.claims, "--quiet", "--json", str(out), "--seed", str(seed)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"id": fault.id, "description": fault.description, "caught": False, "caught_by": [],
                    "undecided": "timeout"}
        if not out.exists():
            return {"id": fault.id, "description": fault.description, "caught": True,
                    "caught_by": [f"crash (exit {r.returncode}): {r.stderr.strip().splitlines()[-1:] }"]}
        doc = json.loads(out.read_text())
        for c in doc["claims"]:  # verify's own judgement (claim_passed, control_failed)
            by += kill_reasons(c)
        return {"id": fault.id, "description": fault.description, "caught": bool(by), "caught_by": by}


def mutation_score(faults=None, seed: int = 20261130, progress=None, root: Path | None = None) -> dict:
    faults = list(FAULTS if faults is None else faults)
    rows = []
    for i, f in enumerate(faults):
        row = run_fault(f, seed, root=root)
        rows.append(row)
        if progress:
            progress(i + 1, len(faults), row)
    k = sum(r["caught"] for r in rows)
    return {"total": len(rows), "caught": k, "score": k / len(rows) if rows else 0.0, "faults": rows}


# ============================================================== generated mutants (headline) ===
CACHE = ".softmix-cache"
DEFAULT_SEED = 20261130


def engine_sources_hash(root: Path, plugin: str | None = None, skip: frozenset = frozenset()) -> str:
    """SHA-1 over every Python source the engine may run (the facade, theory, numerics, checks with
    the paper library, and ``plugin`` when given) -- unlike
    :func:`softmix.checks.mutants.sources_hash`, nothing skipped but ``skip``: file names of
    ``checks/`` left out (the test map leaves out the mutation tool)."""
    import hashlib

    h = hashlib.sha1()
    files = [p for d in ("softmix", "theory", "numerics", "checks") for p in sorted((root / d).rglob("*.py"))]
    for p in files + ([root / plugin] if plugin else []):
        if p.parent == root / "checks" and p.name in skip:
            continue
        if "__pycache__" not in p.parts and p.is_file():
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def _run_group(cmd, timeout: float, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True)`` in a session of its own: on timeout
    the whole process group is killed (a hanging mutant's ``softmix verify`` or pytest may have
    started processes of its own: none of them outlives its time limit), then TimeoutExpired."""
    import signal

    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.communicate()
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def _driver(args, root: Path, timeout: float, cwd: Path | None = None, env: dict | None = None):
    code = ("import sys; sys.path.insert(0, %r); from softmix.checks.mutation_driver import main; "
            "sys.exit(main(sys.argv[1:]))" % str(root))
    env = dict(os.environ if env is None else env, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    return _run_group([sys.executable, "-c", code, *args], timeout, env, cwd or root)


def _parallel(fn, items, jobs: int):
    import concurrent.futures as cf

    if jobs <= 1:
        for it in items:
            yield it, fn(it)
        return
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(fn, it): it for it in items}
        for f in cf.as_completed(futs):
            yield futs[f], f.result()


def _record_claim(cid: str, seed: int, root: Path, timeout: float = 1800) -> dict:
    with tempfile.TemporaryDirectory(prefix="softmix-map-") as tmp:
        spec, out = Path(tmp) / "spec.json", Path(tmp) / "out.json"
        spec.write_text(json.dumps({"mode": "record", "root": str(root), "claim": cid, "seed": seed}))
        r = _driver([str(spec), str(out)], root, timeout)
        if not out.exists():
            raise RuntimeError(f"recording {cid} failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
        return json.loads(out.read_text())


def coverage_map(seed: int = DEFAULT_SEED, jobs: int = 2, root: Path | None = None, claims=None,
                 progress=None, refresh: bool = False) -> dict:
    """The per-claim coverage map of the clean tree (computed, or loaded from the cache keyed by
    the sources' hash and the seed).  ``{"hash", "seed", "claims": {id: record}}``."""
    from .mutants import sources_hash
    from .registry import load_all

    root = Path(root or require_source_checkout()).resolve()  # the driver's paths are relative to it
    key = sources_hash(root)
    path = root / CACHE / f"coverage-map-v2-{key[:16]}-{seed}.json"
    if claims is None and path.exists() and not refresh:
        return json.loads(path.read_text())
    # the engine controls run in every softmix verify: recorded (and run on a mutant) like a claim
    ids = list(claims) if claims is not None else sorted(load_all(())) + [ENGINE_CONTROLS]
    recs = {}
    for i, (cid, rec) in enumerate(_parallel(lambda c: _record_claim(c, seed, root), ids, jobs)):
        recs[cid] = rec
        if progress:
            progress(i + 1, len(ids), rec)
    doc = {"hash": key, "seed": seed, "claims": {c: recs[c] for c in ids}}
    if claims is None:
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(doc))
    return doc


#: test files not mapped per test: they run every claim through ``softmix verify`` in subprocesses
#: (which coverage does not follow), i.e. exactly what the verify stage has already run
_TESTMAP_SKIP = ("test_registry_claims_",)


def _tests_hash(root: Path) -> str:
    import hashlib

    from .mutants import sources_hash

    h = hashlib.sha1(sources_hash(root).encode())
    for p in sorted((root / "tests").rglob("*.py")):
        if "__pycache__" not in p.parts:
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_map(jobs: int = 2, root: Path | None = None, files=None, refresh: bool = False, progress=None,
             timeout: float = 5400, engine: bool = False) -> dict:
    """Which test executes which line of ``theory/`` and ``numerics/`` (with ``engine``, also of
    ``checks/*.py``): the test files run under coverage.py in a clean copy of the tree (the same
    layout a mutant gets), the dynamic context switched to each test's node id at its setup.
    ``{"hash", "lines": {path: {line: [node ids]}}, "failed": [node ids that fail on the clean
    copy: never used to kill a mutant]}``, cached under a hash of the sources and the tests (with
    ``engine``, of every engine source too).  Files are split over ``jobs`` processes."""
    root = Path(root or require_source_checkout())
    key = _tests_hash(root)
    dirs: tuple[str, ...] = ("theory", "numerics")
    if engine:
        import hashlib

        from .mutants import TOOL_FILES
        key = hashlib.sha1((key + engine_sources_hash(root, skip=TOOL_FILES)).encode()).hexdigest()
        dirs += ("checks",)
    # v2: the Python processes a test starts are measured too (mutation_driver._SUBPROCESS_HOOK); v3: the lines
    # run at import (outside any test's context), which no test is credited with
    path = root / CACHE / f"test-map-v3-{'engine-' if engine else ''}{key[:16]}.json"
    if files is None and path.exists() and not refresh:
        return json.loads(path.read_text())
    names = suite_files(root, _TESTMAP_SKIP) if files is None else list(files)
    groups = [names[i::max(1, jobs)] for i in range(max(1, jobs))]
    groups = [g for g in groups if g]

    def one(group):
        with tempfile.TemporaryDirectory(prefix="softmix-tmap-") as tmp_name:
            tmp = Path(tmp_name)
            _copy_tree(tmp, root)
            spec, out = tmp / "spec.json", tmp / "out.json"
            spec.write_text(json.dumps({"mode": "testmap", "root": str(tmp), "files": group, "dirs": list(dirs)}))
            r = _driver([str(spec), str(out)], tmp, timeout, cwd=tmp)
            if not out.exists():
                raise RuntimeError(f"test map of {group} failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
            return json.loads(out.read_text())

    lines: dict = {}
    imported: dict = {}
    failed: list = []
    seconds: dict = {}
    for i, (g, res) in enumerate(_parallel(one, groups, jobs)):
        for f, by in res["lines"].items():
            dst = lines.setdefault(f, {})
            for ln, ids in by.items():
                dst.setdefault(ln, []).extend(ids)
        for f, lns in res.get("import_lines", {}).items():
            imported.setdefault(f, set()).update(lns)
        failed += res["failed"]
        seconds.update(res["seconds"])
        if progress:
            progress(i + 1, len(groups), g)
    doc = {"hash": key, "files": names, "lines": {f: {ln: sorted(set(v)) for ln, v in by.items()}
                                                 for f, by in lines.items()},
           "import_lines": {f: sorted(v) for f, v in imported.items()}, "failed": sorted(failed), "seconds": seconds}
    if files is None:
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(doc))
    return doc


def _run_selected(m, tmp, sel: list[str], timeout: float) -> tuple[str, list[str]]:
    """The selected tests in one time budget, in two pytest runs when the selection mixes the tests named after the
    module with others: the named ones first (a small collection, and the tests written for the module), then the
    rest with the time left.  One run over hundreds of node ids spends much of the budget collecting the paper's
    test modules before the first test written for the mutated module runs."""
    first = [t for t in sel if _named_after(m, t)]
    rest = [t for t in sel if not _named_after(m, t)]
    if not first or not rest:
        return _run_tests(tmp, sel, timeout, "no test executes the line")
    t0 = time.perf_counter()
    st, why = _run_tests(tmp, first, timeout)
    left = timeout - (time.perf_counter() - t0)
    if st != "survived":
        return st, why
    if left <= 0:
        return "timeout", [f"tests timed out after {timeout:.0f} s"]
    return _run_tests(tmp, rest, left)


def run_test_stage(m, row: dict, tmp, tmap, root, test_timeout) -> None:
    """The tests stage of a mutant that survived (or looked equivalent on) the verify stage: the tests that
    execute its line (``tmap``) or the files that import its module; a failure kills it (and tells an
    "equivalent" one apart), otherwise the first reason is noted.  Updates ``row`` in place."""
    if tmap is not None:
        sel = tests_for(m, tmap, root)
        row["tests_selected"] = len(sel)
        st, why = _run_selected(m, tmp, sel, test_timeout)
    else:
        st, why = _run_tests(tmp, module_test_files(m.path, root), test_timeout)
    row["tests"] = st
    if st == "killed":
        if row["status"] == "equivalent":
            row["equivalence"] = "a test told it apart (the equivalence test was not enough)"
        row.update(status="killed", stage="tests", killed_by=why)
    elif why:
        row["tests_note"] = why[0]


def tests_for(m, tmap: dict, root: Path | None = None) -> list[str]:
    """Node ids of the tests that execute mutant ``m``'s statement (for a ``def`` line: its body;
    at module level: any line of the module), clean failures left out: first those in a test file named
    after the mutated module (``configs.py`` -> ``test_*configs*.py``), then the rest, each group fastest
    first.  A module-level mutant is executed by every test that imports its module, often more than the
    test time allows; the tests written for the module then run before the time runs out.  So is a line
    of a function that runs at import (a table built by a module-level call: ``tmap["import_lines"]``),
    which coverage credits to no test."""
    by = tmap["lines"].get(m.path, {})
    bad = set(tmap.get("failed", ()))
    ids = set(by.get(str(m.stmt_line), ()))
    if m.stmt_line == m.def_line and m.def_line:
        # a default argument is evaluated at import, and coverage credits the def line to whichever test
        # imported the module first; the tests that tell the mutant apart are those running the body
        nxt = _next_def_line(m, root)
        ids = {t for ln, ts in by.items() if m.def_line < int(ln) < nxt for t in ts} or ids
    at_import = m.stmt_line in tmap.get("import_lines", {}).get(m.path, ()) and m.stmt_line != m.def_line
    if (not ids and not m.function) or at_import:
        ids |= {t for ts in by.values() for t in ts}
    secs = tmap.get("seconds", {})
    return sorted(ids - bad, key=lambda t: (not _named_after(m, t), secs.get(t, 0.0), t))


def _named_after(m, test_id: str) -> bool:
    """Is ``test_id`` in a test file named after mutant ``m``'s module (``configs.py`` -> ``test_*configs*.py``)?"""
    return Path(m.path).stem in Path(test_id.split("::")[0]).stem


def claims_for(m, cmap: dict, root: Path | None = None) -> list[str]:
    """Ids of the claims that execute mutant ``m``'s line, cheapest (clean seconds) first."""
    recs = cmap["claims"]
    hit = [c for c, r in recs.items() if m.stmt_line in r["lines"].get(m.path, ())]
    if not hit and m.stmt_line == m.def_line and m.def_line:
        # default arguments: evaluated at import; what matters is who runs the function's body
        nxt = _next_def_line(m, root)
        hit = [c for c, r in recs.items() if any(m.def_line < ln < nxt for ln in r["lines"].get(m.path, ()))]
    if not hit and not m.function and any(m.stmt_line in r["import_lines"].get(m.path, ()) for r in recs.values()):
        hit = [c for c, r in recs.items() if r["lines"].get(m.path)]  # module level: the module's users
    return sorted(hit, key=lambda c: (recs[c]["seconds"], c))


def _next_def_line(m, root: Path | None = None) -> int:
    """The first ``def``/``class`` line after the mutant's function (its body ends before it)."""
    import ast

    tree = ast.parse((Path(root or ROOT) / m.path).read_text())
    starts = sorted(n.lineno for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef)))
    later = [s for s in starts if s > m.def_line]
    return later[0] if later else 10 ** 9


def module_test_files(path: str, root: Path | None = None) -> list[str]:
    """The test files that import the module at ``path`` (the file-level test map)."""
    import re

    root = Path(root or ROOT)
    pkg, mod = path[:-3].split("/")
    pats = [re.compile(rf"softmix\.{pkg}\.{mod}\b"),
            re.compile(rf"from softmix\.{pkg} import [^\n]*\b{mod}\b")]
    return [f for f in suite_files(root) if any(r.search((root / f).read_text()) for r in pats)]


def suite_files(root: Path, skip: tuple = ()) -> list[str]:
    """The test files of the tree (``tests/**/test_*.py``, root-relative, sorted), those whose name
    starts with a prefix in ``skip`` left out."""
    return sorted(p.relative_to(root).as_posix() for p in (root / "tests").rglob("test_*.py")
                  if "__pycache__" not in p.parts and not p.name.startswith(skip))


def _run_tests(tmp: Path, files: list[str], timeout: float, none_why: str = "no test file imports the module"
               ) -> tuple[str, list[str]]:
    """('killed'|'survived'|'timeout', why) for pytest on ``files`` (paths or node ids) in the
    patched copy."""
    if not files:
        return "survived", [none_why]
    code = ("import sys; sys.path.insert(0, %r); import pytest; "
            "sys.exit(pytest.main(['-o', 'addopts=', '-q', '-x', '-p', 'no:cacheprovider', '-m', 'not slow', "
            "*sys.argv[1:]]))"
            % str(tmp))
    env = dict(os.environ, PYTHONPATH=str(tmp), PYTHONDONTWRITEBYTECODE="1")
    try:
        t = _run_group([sys.executable, "-c", code, *files], timeout, env, tmp)
    except subprocess.TimeoutExpired:
        return "timeout", [f"tests timed out after {timeout:.0f} s"]
    if t.returncode in (1, 2, 3):
        failed = [ln.split(" ")[1] for ln in t.stdout.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
        return "killed", [f"test failed: {x}" for x in failed[:3]] or [f"pytest exit {t.returncode}"]
    return "survived", []


def run_mutant(m, cmap: dict, seed: int = DEFAULT_SEED, tests: bool = True, test_timeout: float = 120,
               root: Path | None = None, tmap: dict | None = None) -> dict:
    """Run one generated mutant through verify (and, if it survives, the tests): its JSON row.
    With a test map (:func:`test_map`) the tests stage runs the tests that execute the mutated
    line; without one, the test files that import the mutated module."""
    from .mutants import apply_mutant

    root = Path(root or ROOT)
    t0 = time.perf_counter()
    ids = claims_for(m, cmap, root)
    row = {**{k: v for k, v in m.as_dict().items() if k in ("id", "path", "line", "operator", "original",
                                                             "mutated", "function")},
           "file": m.path, "claims": ids, "status": None, "killed_by": [], "stage": None, "equivalence": None}
    del row["path"]
    with tempfile.TemporaryDirectory(prefix="softmix-mut-") as tmp_name:
        tmp = Path(tmp_name)
        _copy_tree(tmp, root)
        apply_mutant(m, tmp)
        if not ids:
            row["equivalence"] = "not covered by any claim"
            res: Any = None  # the verify run's record (a dict) when there is one
        else:
            recs = cmap["claims"]
            limit = min(1500.0, 60 + 3 * sum(recs[c]["seconds"] for c in ids))
            spec = {"mode": "mutant", "root": str(tmp), "seed": seed, "claims": ids,
                    "module": "softmix." + m.path[:-3].replace("/", "."), "function": m.function,
                    "clean_path": str(root / m.path),
                    "clean": {c: {"verdict": recs[c]["verdict"], "digest": recs[c]["digest"]} for c in ids}}
            (tmp / "spec.json").write_text(json.dumps(spec))
            try:
                r = _driver([str(tmp / "spec.json"), str(tmp / "out.json")], tmp, limit)
            except subprocess.TimeoutExpired:
                r = None
                row.update(status="timeout", stage="verify", killed_by=[f"verify timed out after {limit:.0f} s"])
            res = None
            if r is not None:
                if (tmp / "out.json").exists():
                    res = json.loads((tmp / "out.json").read_text())
                else:
                    tail = (r.stderr.strip().splitlines() or ["?"])[-1][:200]
                    res = {"killed_by": [f"crash (exit {r.returncode}): {tail}"], "claims_run": []}
                row["claims_run"] = res["claims_run"]
                if res["killed_by"]:
                    row.update(status="killed", stage="verify", killed_by=res["killed_by"])
        if row["status"] is None:
            eq = res is not None and res["evidence_identical"] and not res["diff"]["unsupported"] \
                and res["diff"]["compared"] > 0 and not res["diff"]["differed"]
            if res is not None and not eq:
                d = res["diff"]
                changed = "function output changed: " + d.get("first_difference", "")
                row["equivalence"] = ("not equivalent: " + ("evidence changed" if not res["evidence_identical"] else
                                      d["unsupported"] or ("function never called" if not d["compared"] else changed)))
            elif eq:
                row["equivalence"] = (f"equivalent: evidence of {len(ids)} claim(s) identical to the clean run and "
                                      f"{res['diff']['compared']} call(s) of {m.function} unchanged at 40 digits")
            row["status"] = "equivalent" if eq else "survived"
            if tests:
                run_test_stage(m, row, tmp, tmap, root, test_timeout)
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


