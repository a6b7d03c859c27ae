"""A real dask scheduler and two workers on 127.0.0.1: a distributed verify gives the same JSON
as a local one with the same seed (timings aside)."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]


def _dask_cli():
    cand = Path(sys.executable).parent / "dask"
    if cand.exists():
        return [str(cand)]
    w = shutil.which("dask")
    return [w] if w else [sys.executable, "-m", "dask"]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _strip(doc):
    doc = dict(doc)
    doc.pop("seconds", None)
    doc["claims"] = [{k: v for k, v in c.items() if k != "seconds"} for c in doc["claims"]]
    return doc


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _wait_workers(address, n, deadline):
    from distributed import Client

    while time.time() < deadline:
        try:
            with Client(address, timeout="2s") as c:
                c.wait_for_workers(n, timeout=max(1, deadline - time.time()))
                return
        except Exception:
            time.sleep(0.5)
    raise RuntimeError("dask cluster did not come up")


def _softmix(*args):
    return subprocess.run([sys.executable, "-m", "softmix", *args], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=120)


def test_distributed_verify_equals_local(tmp_path):
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = _dask_cli()
    log = open(tmp_path / "cluster.log", "w")
    procs = []
    try:
        procs.append(subprocess.Popen(dask + ["scheduler", "--host", "127.0.0.1", "--port", str(port),
                                              "--no-dashboard"], cwd=ROOT, env=_env(), stdout=log, stderr=log))
        for _ in range(2):
            procs.append(subprocess.Popen(dask + ["worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                                                  "--no-dashboard"], cwd=ROOT, env=_env(), stdout=log, stderr=log))
        _wait_workers(address, 2, time.time() + 40)

        claims = ["prop-2.1-shared", "fp-covariance"]
        dist, loc = tmp_path / "dist.json", tmp_path / "local.json"
        r1 = _softmix("verify", *claims, "--seed", "5", "--json", str(dist), "--quiet", "--scheduler", address)
        assert r1.returncode == 0, r1.stderr
        r2 = _softmix("verify", *claims, "--seed", "5", "--json", str(loc), "--quiet")
        assert r2.returncode == 0, r2.stderr
        from softmix.checks.schema import validate

        validate(json.loads(dist.read_text()))
        assert _strip(json.loads(dist.read_text())) == _strip(json.loads(loc.read_text()))

        # Monte Carlo replicate batches as separate tasks: same numbers as the local batched run
        from distributed import Client

        from softmix.checks.distributed import simulate_outputs_distributed
        from softmix.checks.paper.finite_prompt import FPConfig, configuration
        from softmix.numerics.finite_prompt import simulate_outputs_batched

        mix, U, V, z = configuration(FPConfig())
        with Client(address, timeout="5s") as c:
            d = simulate_outputs_distributed(c, mix, U, V, z, 50, 900, seed=11, batch=200)
        l = simulate_outputs_batched(mix, U, V, z, 50, 900, seed=11, batch=200)
        assert d.shape == (900, 2)
        assert np.array_equal(d, l)
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        log.close()


def test_unreachable_scheduler_is_a_one_line_usage_error():
    port = _free_port()  # nothing listens there
    env = _env()
    env["SOFTMIX_DASK_TIMEOUT"] = "1"
    r = subprocess.run([sys.executable, "-m", "softmix", "verify", "prop-2.1-shared", "--quiet",
                        "--scheduler", f"tcp://127.0.0.1:{port}"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.startswith("softmix: error: cannot reach Dask scheduler")
    assert len(r.stderr.strip().splitlines()) == 1
