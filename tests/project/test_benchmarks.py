"""Smoke test of the benchmark suite at tiny sizes (figures meaningless, code paths exercised)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # benchmarks/ is a repo folder, not installed
from benchmarks import run as B  # noqa: E402
from benchmarks.reference import mixture_arrays, reference_outputs  # noqa: E402
from softmix.numerics.finite_prompt import finite_prompt_attention, sample_tokens  # noqa: E402


def test_reference_matches_one_shot_attention():
    mix, U, V, z = B.test_problem(4, seed=3)
    w, m, chol = mixture_arrays(mix)
    out = reference_outputs(w, m, chol, U, V, z, 30, 5, np.random.default_rng(0))
    assert out.shape == (5, 1) and np.all(np.isfinite(out))
    # the reference's softmax average is the one-shot finite-prompt operator on its tokens
    toks = sample_tokens(mix, 30, np.random.default_rng(1))
    a = U @ z
    e = np.exp(toks @ a - (toks @ a).max())
    assert np.allclose(e @ (toks @ V.T) / e.sum(), finite_prompt_attention(toks, U, V, z))


def test_montecarlo_and_rng_rows():
    rows = B.bench_montecarlo(dims=(5,), L=20, R=4, rounds=1, min_time=0.001)
    r = rows[0]
    assert r["D"] == 5 and r["normals_per_token"] == 2
    for k in ("reference_tokens_per_s", "engine_tokens_per_s", "normals_per_s", "speedup", "rng_fraction"):
        assert r[k] > 0


def test_lda_benchmark_runs_or_skips_clearly():
    res = B.bench_lda(n=4, min_time=0.001)
    if "skipped" in res:
        assert res["skipped"] == "numerics.lda not available"
    else:
        assert res["d"] == 20 and res["grad_rel_err"] < 1e-6


def test_stream_subprocess_and_json(tmp_path):
    st = B.bench_stream(tokens=30000, chunk=4096)
    assert "error" not in st, st
    assert st["within_bound"] and st["peak_rss_mb"] > 0 and len(st["output"]) == 2
    out = tmp_path / "b.json"
    assert B.main(["--quick", "--only", "mc", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [r["D"] for r in doc["montecarlo"]] == [20, 200]


def test_risk_benchmark_rows(tmp_path):
    from benchmarks.risk import bench_constants, bench_variance_reduction

    c = bench_constants(n=500, n_loop=3, min_time=0.001)
    assert c["D"] == 6 and c["ratio"] > 1 and c["vectorised_queries_per_s"] > 0
    vr = bench_variance_reduction(L=20, R=100)
    assert all(r["variance_reduction"] > 0 for r in vr)
    out = tmp_path / "r.json"
    assert B.main(["--quick", "--only", "risk", "--json", str(out)]) == 0
    assert "constants" in json.loads(out.read_text())["risk"]


def test_stability_record_names_its_run(tmp_path):
    """The stability record, run as a process, names the tree it ran on (the checkpoint hash of the
    imported sources), the command and the versions, and gives each seed its own row."""
    import subprocess

    from softmix.checks.checkpoint import package_hash

    out = tmp_path / "stab.json"
    cmd = [sys.executable, "-m", "benchmarks.stability", "--seeds", "2", "--first-seed", "5",
           "--claims", "linear-fixed-proportions", "--workers", "1", "--json", str(out)]
    r = subprocess.run(cmd, cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-500:]
    doc = json.loads(out.read_text())
    assert doc["package"] == package_hash()
    assert doc["command"][3:] == cmd[3:] and doc["claims_selected"] == ["linear-fixed-proportions"]
    assert doc["versions"]["softmix"] and doc["seeds"] == 2
    assert [row["seed"] for row in doc["rows"]] == [5, 6]
    assert doc["runs_with_a_refuted_claim"] == 0 and doc["runs_with_a_surviving_control"] == 0
    assert all(0 <= row["alpha_spent"] <= 1e-3 for row in doc["rows"])
    assert doc["type_I_expected_at_most"] == sum(row["alpha_spent"] for row in doc["rows"])
    assert doc["refuted_claims"] == 0 and doc["type_I_tail_probability"] == 1.0


def test_stability_summary_bounds_the_type_I_refutations_by_the_alpha_budgets():
    """17 claims at 1e-3 over 20 seeds: at most 0.34 type-I refutations expected; one observed has a
    Poisson tail probability of 1 - e^-0.34; three would be far beyond the budgets."""
    import math

    from benchmarks.stability import _summary

    rows = [{"seed": s, "refuted": [], "controls_survived": [], "alpha_spent": 0.017} for s in range(20)]
    rows[3]["refuted"] = ["zfb-linear-flow"]
    doc = _summary(rows)
    assert doc["type_I_expected_at_most"] == pytest.approx(0.34)
    assert doc["refuted_claims"] == 1 and doc["type_I_tail_probability"] == pytest.approx(1 - math.exp(-0.34))
    rows[4]["refuted"] = ["a", "b"]
    lam = 0.34
    assert _summary(rows)["type_I_tail_probability"] == pytest.approx(
        1 - math.exp(-lam) * (1 + lam + lam**2 / 2))


def test_stability_rejects_a_negative_first_seed_before_running_any_seed():
    from benchmarks import stability

    for argv in (["--first-seed", "-2"], ["--seeds", "0"], ["--workers", "0"]):
        with pytest.raises(SystemExit) as e:
            stability.main(argv)
        assert e.value.code == 2
