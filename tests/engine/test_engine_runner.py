"""Known answers for the runner's progress and its infrastructure results (checks/runner.py).

``run_claims(..., progress=cb)`` calls ``cb(done, total, result)`` as each claim finishes: done
counts 1, 2, ..., total is the number of claims (``softmix verify`` prints it as ``[done/total]`` on
stderr).  A task that fails outside its claim's check becomes an ``error`` result with
``infrastructure_failure`` and its cause in words (``failure_cause``).
"""
import concurrent.futures as cf
import os
import subprocess
import sys
from concurrent.futures.process import BrokenProcessPool

import pytest

from softmix.checks.registry import load_all
from softmix.checks.runner import _run_on, failure_cause, infrastructure_result, run_claims

PLUGIN = '''
from dataclasses import dataclass

import softmix


@dataclass
class P:
    n: int = 1


def _make(cid):
    @softmix.claim(id=cid, title=cid, source="test", controls={"wrong": "refuted"}, configurations_note="test claim")
    def check(p: P, ctx):
        return softmix.outcome(softmix.part("numeric", [{"passed": not ctx.control("wrong")}]))
    return check


_make("unit-progress-a")
_make("unit-progress-b")
'''
IDS = ["unit-progress-a", "unit-progress-b"]


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    path = tmp_path_factory.mktemp("runner") / "progress_plugin.py"
    path.write_text(PLUGIN)
    return str(path)


def test_progress_counts_done_over_total_in_order(plugin):
    seen = []
    res = run_claims(IDS, seed=3, plugins=(plugin,), progress=lambda i, n, r: seen.append((i, n, r["id"])))
    assert seen == [(1, 2, IDS[0]), (2, 2, IDS[1])]
    assert [r["verdict"] for r in res] == ["confirmed", "confirmed"]
    seen.clear()
    run_claims(IDS[::-1], seed=3, plugins=(plugin,), progress=lambda i, n, r: seen.append((i, n, r["id"])))
    assert seen == [(1, 2, IDS[1]), (2, 2, IDS[0])]
    # on an executor the order of completion may vary, the count may not
    seen.clear()
    with cf.ThreadPoolExecutor(2) as ex:
        run_claims(IDS, seed=3, plugins=(plugin,), executor=ex, progress=lambda i, n, r: seen.append((i, n)))
    assert seen == [(1, 2), (2, 2)]


def test_verify_prints_the_progress_lines_in_order(plugin):
    """As a process: ``[1/2] <id>: <verdict> (controls refuted 1/1)`` then ``[2/2] ...`` on stderr."""
    env = {**os.environ, "SOFTMIX_NO_ENTRY_POINTS": "1"}
    r = subprocess.run([sys.executable, "-m", "softmix", "verify", "--plugin", plugin, *IDS, "--workers", "1",
                        "--no-engine-controls"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("[")]
    assert [ln.rsplit(" ", 1)[0] for ln in lines] == [  # without the seconds
        f"[1/2] {IDS[0]}: confirmed (controls refuted 1/1)", f"[2/2] {IDS[1]}: confirmed (controls refuted 1/1)"]


class _Broken(cf.Executor):
    """An executor whose tasks all fail as a broken process pool does."""

    def submit(self, fn, /, *args, **kwargs):
        f = cf.Future()
        f.set_exception(BrokenProcessPool("a child process terminated abruptly"))
        return f


class _Refusing(cf.Executor):
    def submit(self, fn, /, *args, **kwargs):
        raise RuntimeError("cannot schedule new futures after shutdown")


@pytest.mark.parametrize("executor,cause,exception", [
    (_Broken(), "the executor broke: a child process terminated abruptly",
     "BrokenProcessPool: a child process terminated abruptly"),
    (_Refusing(), "the task failed outside the claim's check: RuntimeError: cannot schedule new futures after shutdown",
     "RuntimeError: cannot schedule new futures after shutdown"),
])
def test_a_broken_executor_gives_infrastructure_errors_counted_in_progress(plugin, executor, cause, exception):
    claims = load_all((plugin,))
    seen = []
    out = _run_on(executor, [(c, (c,)) for c in IDS], claims, lambda i, n, r: seen.append((i, n, r["id"])))
    assert seen == [(1, 2, IDS[0]), (2, 2, IDS[1])]
    for cid in IDS:
        r = out[cid]
        assert r["id"] == cid and r["verdict"] == "error" and r["infrastructure_failure"] is True
        assert r["evidence"] == {"cause": cause, "exception": exception}
        assert r["negative_controls"] == []


def test_failure_cause_in_words():
    assert failure_cause(BrokenProcessPool("pool gone")) == "the executor broke: pool gone"
    assert failure_cause(cf.BrokenExecutor("gone")) == "the executor broke: gone"
    assert failure_cause(ValueError("bad input")) == \
        "the task failed outside the claim's check: ValueError: bad input"
    assert failure_cause(cf.CancelledError()) == \
        "the executor cancelled the task (scheduler lost, or the executor was shut down)"

    class KilledWorker(Exception):  # Dask's, by name
        allowed_failures = 3

    assert failure_cause(KilledWorker("w")) == (
        "Dask worker died 4 times while running this claim (KilledWorker; the scheduler's "
        "distributed.scheduler.allowed-failures = 3)")
    KilledWorker.allowed_failures = None
    assert "died repeatedly" in failure_cause(KilledWorker("w"))


def test_infrastructure_result_keeps_the_first_line_of_the_exception():
    claims = load_all()
    cid = next(iter(claims))
    r = infrastructure_result(claims[cid], ValueError("first line\nsecond line"))
    assert r["evidence"]["exception"] == "ValueError: first line" and r["seconds"] == 0
    assert r["title"] == claims[cid].title and r["verdict"] == "error"


def test_a_plugin_of_operator_statements_owns_the_claims_it_registered():
    """Survivor of the recorded engine run (registry.py:287): the claims a plugin registers are its claims even
    when their check functions live in the engine (an operator statement's check is softmix.checks.operator's),
    so ``--plugin FILE`` without ids runs them."""
    from pathlib import Path

    from softmix.checks.registry import load_plugin, plugin_claims

    path = str(Path(__file__).resolve().parents[2] / "examples" / "operator_statements.py")
    load_plugin(path)
    ids = plugin_claims(path)
    assert "ex-gated-experts" in ids and "ex-shared-covariance" in ids


def test_scope_findings_are_added_to_the_claims_own_findings():
    """Survivor of the recorded engine run (runner.py:100): an assumption-dropped control that is not refuted
    adds a scope finding beside the findings the claim reported, never in place of them."""
    from dataclasses import dataclass, field

    import softmix
    from softmix.checks.assumptions import EqualNorms
    from softmix.checks.runner import run_claim_object

    @dataclass
    class Q:
        means: list = field(default_factory=lambda: [["3", "4"], ["0", "5"]])

    def check(p: Q, ctx):  # the check ignores the means: dropping equal norms cannot refute it
        part = softmix.part("numeric", [{"passed": True}])
        return softmix.outcome(part, findings=[{"kind": "typo", "detail": "its own finding"}])

    c = softmix.claim(id="unit-scope", title="t", source="s", controls={"wrong": "unused"},
                      assumptions=(EqualNorms("means"),), register=False)(check)
    res = run_claim_object(c, "quick", seed=1)
    kinds = [f.get("kind") for f in res["evidence"]["findings"]]
    assert "typo" in kinds and "scope" in kinds, res["evidence"]["findings"]


def test_one_worker_runs_in_this_process_and_several_in_a_pool_of_at_most_one_per_claim(plugin, monkeypatch):
    """``workers`` <= 1 (or no claim) runs in this process, never starting a pool; ``workers`` > 1 starts
    one pool of min(workers, claims) processes."""
    from softmix.checks import pool as P

    made = []

    class Spy(P.WorkerPool):
        def __init__(self, n, *a, **k):
            made.append(n)
            super().__init__(n, *a, **k)

    monkeypatch.setattr(P, "WorkerPool", Spy)
    for workers in (0, 1):
        assert [r["verdict"] for r in run_claims(IDS, seed=3, plugins=(plugin,), workers=workers)] == ["confirmed"] * 2
    assert run_claims([], seed=3, plugins=(plugin,), workers=4) == []
    assert made == []
    assert [r["verdict"] for r in run_claims(IDS, seed=3, plugins=(plugin,), workers=5)] == ["confirmed"] * 2
    assert made == [2]


class _Slotted(cf.ThreadPoolExecutor):
    """A thread pool that says how many tasks it can take (as the Dask executor does)."""

    def __init__(self, slots):
        super().__init__(max_workers=4)
        self._say = slots

    def slots(self):
        return self._say()


def _fail():
    raise RuntimeError("the cluster cannot say")


@pytest.mark.parametrize("say,expected", [(lambda: 1, 1), (lambda: 0, 1), (lambda: 3, 3), (_fail, 4)])
def test_an_executor_that_says_its_slots_gets_at_most_that_many_tasks_and_never_none(plugin, say, expected):
    """At most ``executor.slots()`` tasks in flight, at least one; an executor that cannot say gets all of them
    (kills runner.py:250, ``max(1, ...)`` -> ``max(2, ...)``)."""
    import threading
    import time

    claims = load_all((plugin,))
    lock, live, peak = threading.Lock(), [0], [0]

    def task(cid):
        with lock:
            live[0] += 1
            peak[0] = max(peak[0], live[0])
        time.sleep(0.05)
        with lock:
            live[0] -= 1
        return {"id": cid, "verdict": "verified"}

    claims = {**claims, **{f"{c}-again": claims[c] for c in IDS}}  # four tasks
    jobs = [(cid, (cid,)) for cid in [*IDS, *(f"{c}-again" for c in IDS)]]
    with _Slotted(say) as ex:
        out = _run_on(ex, jobs, claims, None, task=task)
    assert len(out) == 4 and peak[0] == expected


def test_a_claims_reported_seconds_are_its_own_run_time(plugin):
    """``seconds`` is the time the claim took, not a clock reading (kills runner.py:108)."""
    import time

    from softmix.checks.runner import run_claim

    load_all((plugin,))
    t0 = time.perf_counter()
    r = run_claim(IDS[0], "quick", 7)
    assert 0 <= r["seconds"] <= time.perf_counter() - t0 + 1e-3  # (rounded to the millisecond)


def test_versions_names_python_and_each_package_and_none_for_one_not_installed(monkeypatch):
    """The run's record of versions: every key present, a missing package recorded as None under its own name
    (kills runner.py:292, ``out[pkg]`` -> ``out[pkg - 1]``; no installed tree reaches that line)."""
    import importlib.metadata as md
    import platform

    from softmix.checks.runner import versions

    v = versions()
    assert list(v) == ["python", "softmix", "sympy", "mpmath", "numpy", "scipy", "hypothesis"]
    assert v["python"] == platform.python_version() and v["sympy"] == md.version("sympy")
    real = md.version

    def version(pkg):
        if pkg == "hypothesis":
            raise md.PackageNotFoundError(pkg)
        return real(pkg)

    monkeypatch.setattr(md, "version", version)
    v = versions()
    assert v["hypothesis"] is None and v["numpy"] == real("numpy") and len(v) == 7


def test_a_plugin_module_imported_before_names_its_claims_by_module():
    """Loading a module that was imported already registers nothing new: its claims are those whose checks live in
    that module or its submodules; with no module name, none."""
    import softmix.checks.paper.attention  # noqa: F401  (registers its claims)
    from softmix.checks import registry as R

    got = R._new_claims(set(R.REGISTRY), "softmix.checks.paper.attention")
    assert {"prop-2.1", "prop-2.1-shared", "bb-lemma-2.1"} <= set(got) and "thm-3.3" not in got
    assert R._new_claims(set(R.REGISTRY), None) == []
    assert R._new_claims(set(R.REGISTRY), "softmix.checks.paper") != []  # a package: its submodules' claims


def test_a_plugin_module_names_the_claims_of_its_submodules_not_of_modules_sharing_its_prefix():
    """registry.py:300: the claims of ``softmix.checks.paper.lda`` are those decided in that module or in
    ``softmix.checks.paper.lda.*``, never those of ``softmix.checks.paper.lda_appendix`` beside it."""
    import softmix.checks.paper  # noqa: F401  (registers every paper claim)
    from softmix.checks import registry as R

    def mod(cid):
        c = R.REGISTRY[cid].check
        return getattr(c, "__wrapped__", c).__module__

    got = R._new_claims(set(R.REGISTRY), "softmix.checks.paper.lda")
    assert got and all(mod(c) == "softmix.checks.paper.lda" for c in got)
    assert any(mod(c) == "softmix.checks.paper.lda_appendix" for c in R.REGISTRY)


def test_a_plugin_file_that_fails_to_load_leaves_no_module_behind(tmp_path):
    """registry.py:271: a plugin file that raises while it runs is one input error, and its half-run module is
    removed from ``sys.modules``, so that loading the mended file runs it afresh."""
    from softmix.checks import registry as R
    from softmix.numerics.errors import InputError

    p = tmp_path / "flaky_plugin.py"
    p.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(InputError, match=r"flaky_plugin.py failed to load: RuntimeError: boom"):
        R.load_plugin(str(p))
    assert R._plugin_module_name(os.path.abspath(str(p))) not in sys.modules
