"""What runs inside one mutation-testing subprocess (see :mod:`softmix.checks.mutation`).

Two modes, each reading a JSON spec and writing a JSON result:

``record``  (clean tree) run one claim under coverage.py with the dynamic context set to the
            claim id; write the lines of ``theory/`` and ``numerics/`` it executed, the lines
            executed at import (context ``""``), its verdicts and a digest of its full evidence.
``testmap`` (clean copy) run test files under coverage.py with the context set to each test's
            node id: which tests execute which lines (for the tests stage).
``engine``  (clean or patched copy) run ``softmix verify`` in this process with the argv given
            (the engine stage of :mod:`softmix.checks.mutation_engine`): its exit code (verify's
            stdout and stderr are this process's); optionally under coverage.py (the lines of
            ``checks/*.py`` the whole process executed, imports included) or with the
            differential wrapper around the mutated function (the equivalence run).  The stage is
            judged by the parent, with the clean tree's code, never in the patched process.
``mutant``  (patched copy) run the claims that execute the mutated line, cheapest first,
            stopping at the first kill; while they run, the mutated function is shadowed by a
            *differential wrapper* that also calls the clean function (loaded from the clean
            source beside the patched one) on deep copies of the same arguments and compares the
            two results at 40 significant digits (SymPy results are evaluated at random rational
            points with ``evalf(40)``; mpmath values at the working precision; float64 within a
            relative 1e-13).  The result says who killed the mutant, whether every claim's
            evidence equals the clean run's digest, and whether the function's outputs ever
            differed.  That is the recorded equivalence test (see ``mutation.py``).
"""
from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["evidence_digest", "strip_timings", "same_value", "kill_reasons", "main"]

from .mutation_verdicts import (  # noqa: E402,F401
    ENGINE_CONTROLS,
    evidence_digest,
    kill_reasons,
    run_engine_controls_as_claim,
    strip_timings,
)


def _run(cid: str, profile: str, seed: int) -> dict:
    """One claim's result, or the engine controls' (:data:`ENGINE_CONTROLS`) as a claim result."""
    if cid == ENGINE_CONTROLS:
        return run_engine_controls_as_claim(seed)
    from softmix.checks.runner import run_claim

    return run_claim(cid, profile, seed)


def _outcome(result: dict, clean: dict | None) -> list[str]:
    """Why a claim result kills a mutant ([] when it does not): :func:`kill_reasons`."""
    return kill_reasons(result, None if clean is None else clean["verdict"])


# ---------------------------------------------------------------- differential comparison ---
def same_value(a, b, rnd: random.Random, depth: int = 0) -> bool:
    """Whether two results agree to 40 significant digits (see the module docstring)."""
    import mpmath as mpm
    import numpy as np
    import sympy as sp

    if depth > 6:
        return a is b
    if a is b:
        return True
    if type(a) is not type(b) and not (isinstance(a, sp.Basic) and isinstance(b, sp.Basic)):
        return False
    if isinstance(a, (bool, str, bytes, type(None), int)):
        return a == b
    if isinstance(a, float):
        return a == b or (np.isfinite(a) and abs(a - b) <= 1e-13 * max(abs(a), abs(b)))
    if isinstance(a, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc":
            return bool(np.all((a == b) | np.isclose(a, b, rtol=1e-13, atol=0)))
        if a.dtype == object:
            return all(same_value(x, y, rnd, depth + 1) for x, y in zip(a.ravel(), b.ravel()))
        return bool(np.array_equal(a, b))
    if isinstance(a, np.generic):
        return same_value(a.item(), b.item(), rnd, depth)
    if isinstance(a, (mpm.mpf, mpm.mpc)):
        tol = mpm.mpf(10) ** (-(mpm.mp.dps - 3))
        return a == b or abs(a - b) <= tol * max(abs(a), abs(b))
    if isinstance(a, mpm.matrix):
        return (a.rows, a.cols) == (b.rows, b.cols) and all(
            same_value(a[i, j], b[i, j], rnd, depth + 1) for i in range(a.rows) for j in range(a.cols))
    if isinstance(a, (sp.MatrixBase,)):
        return a.shape == b.shape and all(same_value(x, y, rnd, depth + 1) for x, y in zip(a, b))
    if isinstance(a, sp.Basic):
        if a == b:
            return True
        try:
            syms = sorted((a.free_symbols | b.free_symbols), key=str)
            for _ in range(3):
                pt = {s: sp.Rational(rnd.randint(1, 97), rnd.randint(1, 31)) for s in syms}
                va, vb = sp.N(a.xreplace(pt), 40), sp.N(b.xreplace(pt), 40)
                if va == vb:
                    continue
                if not (va.is_number and vb.is_number):
                    return False
                if abs(complex(va - vb)) > 1e-35 * max(1.0, abs(complex(va)), abs(complex(vb))):
                    return False
            return True
        except Exception:
            return False
    if type(a).__module__.startswith("flint"):  # arb/acb balls: same centre and same radius, exactly
        if hasattr(a, "mid") and hasattr(a, "rad"):
            try:
                return bool(a.mid() == b.mid()) and bool(a.rad() == b.rad())
            except Exception:
                return False
        return bool(a == b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k], rnd, depth + 1) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y, rnd, depth + 1) for x, y in zip(a, b))
    if hasattr(a, "__dict__") and hasattr(b, "__dict__"):
        return same_value(vars(a), vars(b), rnd, depth + 1)
    try:
        return bool(a == b)
    except Exception:
        return False


def _short(x) -> str:
    t = repr(x)
    return t if len(t) < 160 else t[:157] + "..."


class _Diff:
    """Shadows one function by a wrapper that also runs its clean twin and compares."""

    def __init__(self, limit: int = 12, seed: int = 0):
        self.calls = 0
        self.compared = 0
        self.differed = False
        self.unsupported = ""
        self.first = ""
        self.limit = limit
        self.rnd = random.Random(seed)

    def wrap(self, mutated, clean):
        import functools

        diff = self

        @functools.wraps(mutated)
        def wrapper(*args, **kwargs):
            diff.calls += 1
            if diff.differed or diff.compared >= diff.limit:
                return mutated(*args, **kwargs)
            a2: Any
            k2: Any
            err: Exception | None
            try:
                a2, k2 = copy.deepcopy(args), copy.deepcopy(kwargs)
            except Exception:
                a2 = k2 = None
            try:
                out = mutated(*args, **kwargs)
            except Exception as e:
                err = e
                out = None
            else:
                err = None
            if a2 is None:
                diff.unsupported = "arguments cannot be copied"
            else:
                ref = None
                try:
                    ref = clean(*a2, **k2)
                except Exception as e:
                    ref = e
                    same = err is not None and type(e) is type(err)
                else:
                    same = err is None and same_value(out, ref, diff.rnd)
                diff.compared += 1
                if not same:
                    diff.differed = True
                    diff.first = (f"mutated {_short(err if err is not None else out)} vs clean "
                                  f"{_short(ref)}")
            if err is not None:
                raise err
            return out

        return wrapper


def _resolve(mod, qualname: str):
    obj, owner = mod, None
    for part in qualname.split("."):
        owner, obj = obj, getattr(obj, part)
    return owner, obj


#: the global through which a redirected function reaches its comparing wrapper (see :func:`_redirect`)
_REDIRECT = "__softmix_diff_wrapper__"


def _redirect(fn, make_wrapper):
    """The comparing wrapper ``make_wrapper(f)`` of the plain function ``fn``, with ``fn`` itself
    made to call it.

    A function held by reference before the wrapper exists -- passed to a registration call at
    import, kept in a closure or a table -- is never looked up again in its module, so replacing
    the module attribute alone leaves those calls uncompared ("function never called").  A
    module-level function without a closure therefore gets its code replaced by a trampoline that
    calls the wrapper (found under :data:`_REDIRECT` in the function's own globals), and the
    wrapper runs a copy ``f`` of the mutated code; ``__wrapped__`` keeps ``inspect.signature`` of
    ``fn`` what it was.  Any other callable is wrapped as it is (compared through its module
    attribute only)."""
    import types

    if not isinstance(fn, types.FunctionType) or fn.__closure__ is not None or _REDIRECT in fn.__globals__:
        return make_wrapper(fn)
    inner = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, None)
    inner.__kwdefaults__ = fn.__kwdefaults__
    inner.__qualname__, inner.__doc__, inner.__module__ = fn.__qualname__, fn.__doc__, fn.__module__
    wrapper = make_wrapper(inner)
    fn.__globals__[_REDIRECT] = wrapper
    ns: dict = {}
    exec(f"def trampoline(*args, **kwargs):\n    return {_REDIRECT}(*args, **kwargs)\n", {}, ns)
    fn.__code__ = ns["trampoline"].__code__
    fn.__wrapped__ = inner  # type: ignore[attr-defined]
    return wrapper


def _install_diff(module_name: str, path: Path, qualname: str, diff: _Diff) -> str:
    """Shadow ``module_name.qualname`` (already imported) everywhere it is referenced; returns ''
    or why it could not be done."""
    import inspect

    mod = importlib.import_module(module_name)
    try:
        owner, mutated = _resolve(mod, qualname)
    except AttributeError:
        return f"{qualname} not found"
    if not callable(mutated) or isinstance(inspect.getattr_static(owner, qualname.split(".")[-1]),
                                           (staticmethod, classmethod, property)):
        return f"{qualname} is not a plain function"
    pkg = module_name.rpartition(".")[0]
    name_twin = f"{pkg}._softmix_clean_twin"
    spec = importlib.util.spec_from_file_location(name_twin, path)
    twin = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]  # a .py path has one
    twin.__package__ = pkg
    sys.modules[name_twin] = twin  # dataclasses look their module up in sys.modules
    spec.loader.exec_module(twin)  # type: ignore[union-attr]
    _, clean = _resolve(twin, qualname)
    name = qualname.split(".")[-1]
    if owner is not mod:  # a method: replace it on its class
        setattr(owner, name, diff.wrap(mutated, clean))
        return ""
    wrapper = _redirect(mutated, lambda f: diff.wrap(f, clean))
    for m in list(sys.modules.values()):
        if m is None or not getattr(m, "__name__", "").startswith("softmix") or m is twin or m.__name__ == name_twin:
            continue
        for k, v in list(vars(m).items()):
            if v is mutated:
                setattr(m, k, wrapper)
    return ""


# ---------------------------------------------------------------------------------- modes ---
def _record(spec: dict) -> dict:
    import coverage

    root = Path(spec["root"])
    cov = coverage.Coverage(data_file=None, branch=False, config_file=False,
                            include=[str(root / d / "*.py") for d in ("theory", "numerics")])
    cov.start()
    from softmix.checks.registry import load_all

    load_all(())
    cid = spec["claim"]
    cov.switch_context(cid)
    t0 = time.perf_counter()
    res = _run(cid, spec.get("profile", "quick"), spec["seed"])
    secs = time.perf_counter() - t0
    cov.stop()
    data = cov.get_data()
    lines, imported = {}, {}
    for f in data.measured_files():
        rel = Path(f).resolve().relative_to(root).as_posix()
        data.set_query_contexts([cid])
        ls = data.lines(f) or []
        if ls:
            lines[rel] = sorted(ls)
        data.set_query_contexts([""])
        ls = data.lines(f) or []
        if ls:
            imported[rel] = sorted(ls)
    return {"claim": cid, "seconds": round(secs, 3), "lines": lines, "import_lines": imported,
            "verdict": res["verdict"], "controls": {c["id"]: c["verdict"] for c in res["negative_controls"]},
            "digest": evidence_digest(res)}


def _in_dirs(path: str, root: Path, dirs) -> str | None:
    """``path`` relative to ``root`` when the file lies directly in one of ``dirs``, else None."""
    rel = Path(path).resolve().relative_to(root.resolve())
    return rel.as_posix() if len(rel.parts) == 2 and rel.parts[0] in dirs else None


#: what measures the worker processes a process forks (a ``WorkerPool``'s, a local Dask cluster's): a forked
#: child inherits its parent's tracer but ends with ``os._exit``, so its lines were lost.  ``BaseProcess._bootstrap``
#: (what every ``multiprocessing`` child runs, whatever its start method) is wrapped to measure the child on a
#: fresh ``Coverage`` under the context of the test running when it started, saved where the test map merges
#: it -- what coverage.py's own multiprocessing support does, with the test map's data file and contexts.
_FORK_HOOK = '''
def _softmix_measure_forks():
    import multiprocessing.process as _mpp
    import os as _fos

    import coverage as _fcoverage

    _orig = _mpp.BaseProcess._bootstrap
    if getattr(_orig, "_softmix_testmap", False):
        return

    def _bootstrap(self, *args, **kwargs):
        cov = None
        try:
            cov = _fcoverage.Coverage(data_file=_fos.environ["SOFTMIX_TESTMAP_DATA"], data_suffix=True, branch=False,
                                      config_file=False,
                                      include=_fos.environ["SOFTMIX_TESTMAP_INCLUDE"].split(_fos.pathsep))
            cov.set_option("run:disable_warnings", ["no-data-collected", "module-not-imported", "module-not-measured",
                                                    "couldnt-parse", "no-ctracer"])
            cov.start()
            cov.switch_context(_fos.environ.get("SOFTMIX_TESTMAP_CONTEXT", ""))
        except Exception:
            cov = None
        try:
            return _orig(self, *args, **kwargs)
        finally:
            if cov is not None:
                try:
                    cov.stop()
                    cov.save()
                except Exception:
                    pass

    _bootstrap._softmix_testmap = True
    _mpp.BaseProcess._bootstrap = _bootstrap
'''

#: ``sitecustomize.py`` put first on the ``PYTHONPATH`` of the test map's processes: every Python process
#: a test starts (``softmix verify`` run as a user runs it, the exit-code tests) is measured too, under
#: the context of the test that started it, and saves its data where the test map merges it; so are the
#: worker processes it forks (:data:`_FORK_HOOK`).  Silent: a test that reads a process's stderr sees what
#: it would see without it.
_SUBPROCESS_HOOK = '''"""The softmix test map measures this process (softmix.checks.mutation_driver)."""
import os as _os

if _os.environ.get("SOFTMIX_TESTMAP_DATA"):
    try:
        import atexit as _atexit

        import coverage as _coverage

        _cov = _coverage.Coverage(data_file=_os.environ["SOFTMIX_TESTMAP_DATA"], data_suffix=True, branch=False,
                                  config_file=False, include=_os.environ["SOFTMIX_TESTMAP_INCLUDE"].split(_os.pathsep))
        _cov.set_option("run:disable_warnings", ["no-data-collected", "module-not-imported", "module-not-measured",
                                                 "couldnt-parse", "no-ctracer"])
        _cov.start()
        _cov.switch_context(_os.environ.get("SOFTMIX_TESTMAP_CONTEXT", ""))

        def _softmix_testmap_save():
            _cov.stop()
            _cov.save()

        _atexit.register(_softmix_testmap_save)
        _softmix_measure_forks()
    except Exception:
        pass
'''.replace("import os as _os\n", "import os as _os\n" + _FORK_HOOK, 1)


def _measure_forks() -> None:
    """Measure the worker processes this process forks from now on (:data:`_FORK_HOOK`); the environment
    :func:`_measure_subprocesses` set says where their data go."""
    ns: dict = {}
    exec(compile(_FORK_HOOK, "<softmix test map fork hook>", "exec"), ns)
    ns["_softmix_measure_forks"]()


def _measure_subprocesses(include: list[str]) -> Path:
    """Make every Python process started from now on run :data:`_SUBPROCESS_HOOK` (through the
    environment they inherit); returns the folder their data files are saved in."""
    import os
    import tempfile

    hook = Path(tempfile.mkdtemp(prefix="softmix-tmap-hook-"))
    (hook / "sitecustomize.py").write_text(_SUBPROCESS_HOOK)
    (hook / "data").mkdir()
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH", "")) if p)
    os.environ["SOFTMIX_TESTMAP_DATA"] = str(hook / "data" / "sub")
    os.environ["SOFTMIX_TESTMAP_INCLUDE"] = os.pathsep.join(include)
    return hook


def _merge_subprocesses(data, hook: Path) -> int:
    """Merge the subprocesses' data files (contexts included) into ``data``; how many were read."""
    import shutil

    from coverage import CoverageData

    n = 0
    for f in sorted((hook / "data").glob("sub.*")):
        try:
            sub = CoverageData(basename=str(f))
            sub.read()
            data.update(sub)
            n += 1
        except Exception:  # a process killed while saving: its lines are lost, nothing else
            continue
    shutil.rmtree(hook, ignore_errors=True)
    return n


def _testmap(spec: dict) -> dict:
    """Run the named test files under coverage.py with the dynamic context set to each test's node
    id (switched at its setup, so fixtures it triggers count for it); lines of the modules directly
    in ``spec["dirs"]`` (default ``theory/`` and ``numerics/``) per test, the tests that failed, and
    each test's seconds.  Python processes a test starts are measured under its context too
    (:data:`_SUBPROCESS_HOOK`): a test of ``softmix verify`` run as a process counts for the lines
    that process runs."""
    import os

    import coverage
    import pytest

    root = Path(spec["root"])
    dirs = tuple(spec.get("dirs", ("theory", "numerics")))
    include = [str(root / d / "*.py") for d in dirs]
    cov = coverage.Coverage(data_file=None, branch=False, config_file=False, include=include)
    hook = _measure_subprocesses(include)
    _measure_forks()
    failed, seconds, t0 = [], {}, {}

    class _PerTest:
        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_setup(self, item):
            cov.switch_context(item.nodeid)
            os.environ["SOFTMIX_TESTMAP_CONTEXT"] = item.nodeid
            t0[item.nodeid] = time.perf_counter()

        def pytest_runtest_logreport(self, report):
            if report.failed:
                failed.append(report.nodeid)
            if report.when == "teardown" and report.nodeid in t0:
                seconds[report.nodeid] = round(time.perf_counter() - t0.pop(report.nodeid), 3)

    cov.start()
    pytest.main(["-o", "addopts=", "-q", "-p", "no:cacheprovider", "-m", "not slow", *spec["files"]],
                plugins=[_PerTest()])
    cov.stop()
    data = cov.get_data()
    processes = _merge_subprocesses(data, hook)
    lines, imported = {}, {}
    for f in data.measured_files():
        rel = _in_dirs(f, root, dirs)
        if rel is None:
            continue
        ctxs = data.contexts_by_lineno(f)
        by = {str(ln): sorted(c for c in ctx if c) for ln, ctx in ctxs.items()}
        by = {ln: c for ln, c in by.items() if c}
        if by:
            lines[rel] = by
        at_import = sorted(ln for ln, ctx in ctxs.items() if "" in ctx)  # run outside any test: at import
        if at_import:
            imported[rel] = at_import
    return {"files": spec["files"], "lines": lines, "import_lines": imported, "failed": sorted(set(failed)),
            "seconds": seconds, "processes": processes}


def _mutant(spec: dict) -> dict:
    out: dict[str, Any] = {"killed_by": [], "claims_run": [], "evidence_identical": True,
                           "diff": {"calls": 0, "compared": 0, "differed": None, "unsupported": ""}}
    try:
        importlib.import_module(spec["module"])
        from softmix.checks.registry import load_all

        load_all(())
    except Exception as e:
        out["killed_by"] = [f"import failed: {type(e).__name__}: {str(e)[:200]}"]
        return out
    diff = _Diff(seed=spec["seed"])
    if spec.get("function") and spec.get("clean_path"):
        try:  # a failure here is the harness's, never the mutant's: no comparison, no kill
            diff.unsupported = _install_diff(spec["module"], Path(spec["clean_path"]), spec["function"], diff)
        except Exception as e:
            diff.unsupported = f"clean twin unavailable: {type(e).__name__}: {str(e)[:120]}"
    else:
        diff.unsupported = "module-level code (no function to compare)"
    for cid in spec["claims"]:
        clean = spec["clean"].get(cid)
        res = _run(cid, spec.get("profile", "quick"), spec["seed"])
        out["claims_run"].append(cid)
        why = _outcome(res, clean)
        if clean is None or evidence_digest(res) != clean["digest"]:
            out["evidence_identical"] = False
        if why:
            out["killed_by"] = why
            break
    out["diff"] = {"calls": diff.calls, "compared": diff.compared, "differed": diff.differed,
                   "unsupported": diff.unsupported, "first_difference": diff.first}
    return out


def _engine(spec: dict) -> dict:
    """``softmix verify`` with ``spec["argv"]`` in this process (see the module docstring): ``{"rc",
    "crash", "lines", "diff"}``.  A mutant that breaks the import or makes verify raise is a
    ``crash`` (judged by the parent)."""
    root = Path(spec["root"])
    out: dict[str, Any] = {"rc": None, "crash": "", "lines": {}, "diff": None}
    cov = None
    if spec.get("coverage"):
        import coverage

        cov = coverage.Coverage(data_file=None, branch=False, config_file=False,
                                include=[str(root / "checks" / "*.py")])
        cov.start()
    diff = _Diff(seed=spec.get("seed", 0))
    try:
        if spec.get("diff"):
            try:  # a failure here is the harness's, never the mutant's: no comparison
                diff.unsupported = _install_diff(spec["module"], Path(spec["clean_path"]), spec["function"], diff)
            except Exception as e:
                diff.unsupported = f"clean twin unavailable: {type(e).__name__}: {str(e)[:120]}"
        from softmix.checks.cli import main as cli_main

        out["rc"] = cli_main(list(spec["argv"]))
    except SystemExit as e:
        out["rc"] = e.code if isinstance(e.code, int) else 1
    except BaseException as e:  # noqa: BLE001 - whatever the mutant raises is the parent's to judge
        out["crash"] = f"{type(e).__name__}: {str(e)[:300]}"
    finally:
        if cov is not None:
            cov.stop()
    if cov is not None:
        data = cov.get_data()
        for f in data.measured_files():
            rel, ls = _in_dirs(f, root, ("checks",)), data.lines(f)
            if rel is not None and ls:
                out["lines"][rel] = sorted(ls)
    if spec.get("diff"):
        out["diff"] = {"calls": diff.calls, "compared": diff.compared, "differed": diff.differed,
                       "unsupported": diff.unsupported, "first_difference": diff.first}
    return out


def main(argv) -> int:
    spec_path, out_path = argv
    spec = json.loads(Path(spec_path).read_text())
    res = {"record": _record, "testmap": _testmap, "mutant": _mutant, "engine": _engine}[spec["mode"]](spec)
    Path(out_path).write_text(json.dumps(res))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
