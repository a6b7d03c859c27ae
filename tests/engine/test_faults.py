"""Faults cost one claim, never the run (issue 23, scope 5), tested as processes.

A worker process that dies while running a claim (SIGKILL from the claim itself or from outside)
costs only that claim: it is run once more, and a claim that kills its worker twice ends as an
``error`` marked ``infrastructure_failure`` with the cause.  Every other claim is decided in the
same run, and the checkpoint holds only decisions, so a resume reruns exactly the undecided claim.
The claims live in tests/plugins/faults.py; SOFTMIX_FAULTS_DIR is the folder they log to."""
from __future__ import annotations

import concurrent.futures as cf
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = str(ROOT / "tests" / "plugins" / "faults.py")
OK = ["fault-ok-1", "fault-ok-2", "fault-ok-3", "fault-ok-4"]


def _env(tmp_path, **extra):
    env = dict(os.environ, SOFTMIX_FAULTS_DIR=str(tmp_path), SOFTMIX_NO_ENTRY_POINTS="1", OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _verify(tmp_path, ids, *args, env=None, timeout=180):
    cmd = [sys.executable, "-m", "softmix", "verify", "--plugin", PLUGIN, *ids, "--quiet", *args]
    return subprocess.run(cmd, cwd=tmp_path, env=env or _env(tmp_path), capture_output=True, text=True,
                          timeout=timeout)


def _runs(tmp_path) -> Counter:
    log = tmp_path / "runs.log"
    return Counter(ln.split()[0] for ln in log.read_text().splitlines()) if log.exists() else Counter()


def _doc(path):
    from softmix.checks.schema import validate

    doc = json.loads(Path(path).read_text())
    validate(doc)
    return doc, {c["id"]: c for c in doc["claims"]}


def _checkpointed(path) -> list[str]:
    return [row["id"] for row in map(json.loads, Path(path).read_text().splitlines()) if "id" in row]


def test_a_claim_that_kills_its_worker_once_is_retried_and_the_run_decides_everything(tmp_path):
    ids = ["fault-ok-1", "fault-kill-once", "fault-ok-2", "fault-ok-3"]
    r = _verify(tmp_path, ids, "--workers", "2", "--checkpoint", "ck.jsonl", "--json", "out.json")
    assert r.returncode == 0, r.stderr
    doc, by_id = _doc(tmp_path / "out.json")
    assert all(by_id[c]["verdict"] == "verified" and "infrastructure_failure" not in by_id[c] for c in ids)
    assert "infrastructure_failures" not in doc
    runs = _runs(tmp_path)
    assert runs["fault-kill-once"] == 2  # killed once, retried once
    assert all(runs[c] == 1 for c in ids if c != "fault-kill-once")  # the others were not disturbed
    assert sorted(_checkpointed(tmp_path / "ck.jsonl")) == sorted(ids)


def test_a_claim_that_always_kills_its_worker_ends_error_and_a_resume_reruns_exactly_it(tmp_path):
    ids = ["fault-ok-1", "fault-kill-always", "fault-ok-2", "fault-raises", "fault-ok-3"]
    r = _verify(tmp_path, ids, "--workers", "2", "--checkpoint", "ck.jsonl", "--json", "out.json")
    assert r.returncode == 1, r.stderr
    doc, by_id = _doc(tmp_path / "out.json")
    killer = by_id["fault-kill-always"]
    assert killer["verdict"] == "error" and killer["infrastructure_failure"] is True
    assert killer["evidence"]["cause"] == "worker process died twice (signal 9, SIGKILL) while running this claim"
    assert doc["infrastructure_failures"] == ["fault-kill-always"]
    assert "fault-kill-always" in r.stderr and "--checkpoint ck.jsonl" in r.stderr
    # a check that raises is a decided error, recorded like any decision
    assert by_id["fault-raises"]["verdict"] == "error" and "infrastructure_failure" not in by_id["fault-raises"]
    assert all(by_id[c]["verdict"] == "verified" for c in ids if c.startswith("fault-ok"))
    assert _runs(tmp_path)["fault-kill-always"] == 2
    assert sorted(_checkpointed(tmp_path / "ck.jsonl")) == sorted(set(ids) - {"fault-kill-always"})

    (tmp_path / "runs.log").unlink()
    r2 = _verify(tmp_path, ids, "--workers", "2", "--checkpoint", "ck.jsonl", "--json", "again.json",
                 env=_env(tmp_path, SOFTMIX_FAULTS_SPARE="1"))
    assert r2.returncode == 1, r2.stderr  # fault-raises stays a decided error
    assert _runs(tmp_path) == Counter({"fault-kill-always": 1})  # exactly the undecided claim ran
    doc2, by_id2 = _doc(tmp_path / "again.json")
    assert by_id2["fault-kill-always"]["verdict"] == "verified" and doc2["checkpoint"]["resumed_claims"] == 4
    assert "infrastructure_failures" not in doc2


def test_a_worker_killed_from_outside_costs_only_its_claim(tmp_path):
    ids = ["fault-ok-1", "fault-slow", "fault-ok-2", "fault-ok-3", "fault-ok-4"]
    cmd = [sys.executable, "-m", "softmix", "verify", "--plugin", PLUGIN, *ids, "--quiet", "--workers", "2",
           "--json", "out.json"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        pid_file, deadline = tmp_path / "slow.pid", time.time() + 120
        while not pid_file.exists() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        victim = int(pid_file.read_text())
        assert victim != proc.pid
        os.kill(victim, signal.SIGKILL)  # a pool worker, mid-claim (the claim sleeps 20 s)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    _, by_id = _doc(tmp_path / "out.json")
    assert all(by_id[c]["verdict"] == "verified" for c in ids)
    assert (tmp_path / "slow.again.pid").exists()
    runs = _runs(tmp_path)
    assert runs["fault-slow"] == 2 and all(runs[c] == 1 for c in ids if c != "fault-slow")


# -- the pool itself, in process -------------------------------------------------------------------

def _exit_with(code):
    os._exit(code)


def _square(x):
    time.sleep(0.05)
    return x * x


def test_the_pool_fails_only_the_task_whose_worker_died():
    from softmix.checks.pool import WorkerDied, WorkerPool

    with WorkerPool(2) as pool:
        fs = [pool.submit(_square, i) for i in range(6)]
        bad = pool.submit(_exit_with, 3)
        more = [pool.submit(_square, i) for i in range(6, 10)]
        assert [f.result(timeout=60) for f in fs + more] == [i * i for i in range(10)]
        with pytest.raises(WorkerDied) as e:
            bad.result(timeout=60)
    assert e.value.causes == ["exit code 3", "exit code 3"]
    assert str(e.value) == "worker process died twice (exit code 3) while running this task"


def test_the_pool_reports_a_task_exception_on_its_future_and_keeps_working():
    from softmix.checks.pool import WorkerPool

    with WorkerPool(1) as pool:
        f = pool.submit(int, "not a number")
        with pytest.raises(ValueError):
            f.result(timeout=60)
        assert pool.submit(_square, 7).result(timeout=60) == 49
    with pytest.raises(RuntimeError):
        pool.submit(_square, 1)  # after shutdown


def test_failure_causes_in_words():
    from softmix.checks.pool import WorkerDied, describe_exit
    from softmix.checks.runner import failure_cause

    assert describe_exit(-9) == "signal 9, SIGKILL" and describe_exit(1) == "exit code 1"
    assert failure_cause(WorkerDied(["signal 9, SIGKILL"] * 2)) == \
        "worker process died twice (signal 9, SIGKILL) while running this claim"
    assert "cancelled" in failure_cause(cf.CancelledError())
    assert failure_cause(cf.BrokenExecutor("gone")).startswith("the executor broke")


# -- the same on a local Dask cluster --------------------------------------------------------------

def test_on_a_local_dask_cluster_a_killed_worker_costs_only_its_claim(tmp_path):
    pytest.importorskip("distributed")
    ids = ["fault-ok-1", "fault-kill-once", "fault-ok-2", "fault-kill-always", "fault-ok-3"]
    r = _verify(tmp_path, ids, "--scheduler", "local", "--checkpoint", "ck.jsonl", "--json", "out.json",
                timeout=300)
    assert r.returncode == 1, r.stderr
    doc, by_id = _doc(tmp_path / "out.json")
    assert all(by_id[c]["verdict"] == "verified" and "infrastructure_failure" not in by_id[c]
               for c in ids if c != "fault-kill-always")
    killer = by_id["fault-kill-always"]
    assert killer["verdict"] == "error" and killer["infrastructure_failure"] is True
    assert killer["evidence"]["cause"].startswith("Dask worker died twice while running this claim")
    assert doc["infrastructure_failures"] == ["fault-kill-always"]
    assert sorted(_checkpointed(tmp_path / "ck.jsonl")) == sorted(set(ids) - {"fault-kill-always"})
    # the checkpoint does not depend on where claims ran: resume locally, only the killer reruns
    (tmp_path / "runs.log").unlink()
    r2 = _verify(tmp_path, ids, "--workers", "2", "--checkpoint", "ck.jsonl", "--json", "again.json",
                 env=_env(tmp_path, SOFTMIX_FAULTS_SPARE="1"))
    assert r2.returncode == 0, r2.stderr
    assert _runs(tmp_path) == Counter({"fault-kill-always": 1})
    assert all(c["verdict"] == "verified" for c in _doc(tmp_path / "again.json")[1].values())
