"""softmix benchmark suite: every figure is a ratio measured side by side in the same run.

    python -m benchmarks.run [--json bench.json] [--quick] [--only mc,rng,lda,stream,verify]

1. mc      finite-prompt Monte Carlo: softmix's engine vs a plain full-D reference (D = 20, 200)
2. rng     the same engine vs this machine's Gaussian random-number throughput
3. lda     Section 3 population risk + gradient at d = 20: float64 vs 30 digits, and agreement
4. verify  ``softmix verify --profile quick``: total wall time and per-claim seconds
5. stream  one prompt of 1e8 tokens streamed in chunks: peak RSS of a subprocess (< 1 GB)
6. risk    finite-prompt risk engine: vectorised per-query constants vs a loop of finite_prompt_constants
           (D = 6, two heads, two components; >= 1e5 queries/s) and the control variate's variance reduction

Timings are best-of-rounds (the machine may be shared); targets are printed next to ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # allow ``python benchmarks/run.py``
    sys.path.insert(0, str(ROOT))

from benchmarks.reference import mixture_arrays, reference_outputs  # noqa: E402

TARGETS = {"mc_speedup": {20: 10.0, 200: 100.0}, "rng_fraction": 0.5, "stream_rss_mb": 1024.0,
           "verify_seconds": 180.0}


# ---- helpers ------------------------------------------------------------------------------------
def _rate(fn, work: float, min_time: float) -> float:
    """work per second of ``fn``, repeating it until ``min_time`` has elapsed."""
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return n * work / dt


def _table(title, header, rows):
    cols = list(zip(*([header] + [[_fmt(x) for x in r] for r in rows]))) if rows else [[h] for h in header]
    widths = [max(len(str(x)) for x in c) for c in cols]
    line = lambda r: "  ".join(str(x).rjust(w) for x, w in zip(r, widths))
    out = [f"\n{title}", line(header), line(["-" * w for w in widths])]
    out += [line([_fmt(x) for x in r]) for r in rows]
    return "\n".join(out)


def _fmt(x):
    if isinstance(x, bool) or x is None:
        return {True: "yes", False: "NO", None: "-"}[x]
    if isinstance(x, float):
        return f"{x:.3g}" if (abs(x) >= 1e4 or abs(x) < 1e-2) and x != 0 else f"{x:.2f}"
    return str(x)


def test_problem(D: int, K: int = 3, seed: int = 0):
    """A K-component full-rank Gaussian mixture in R^D, U, a 1 x D V (scalar output), query z."""
    from softmix.numerics.mixture import GaussianMixture

    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.full(K, 5.0))
    w = w / w.sum()
    means = rng.standard_normal((K, D)) / np.sqrt(D)
    covs = []
    for _ in range(K):
        A = rng.standard_normal((D, D)) / np.sqrt(D)
        G = 0.5 * A @ A.T + 0.5 * np.eye(D)
        covs.append(((G + G.T) / 2).tolist())
    mix = GaussianMixture.from_values(w.tolist(), means.tolist(), covs, normalize=True)
    U = 0.5 * np.eye(D)
    V = rng.standard_normal((1, D)) / np.sqrt(D)
    z = rng.standard_normal(D) / np.sqrt(D) * 2
    return mix, U, V, z


# ---- 1 + 2: Monte Carlo throughput ------------------------------------------------------------------
def bench_montecarlo(dims=(20, 200), L=1000, R=64, rounds=3, min_time=0.5, seed=1):
    from softmix.numerics.finite_prompt import normals_per_token, simulate_outputs

    rows = []
    for D in dims:
        mix, U, V, z = test_problem(D, seed=seed)
        w, m, chol = mixture_arrays(mix)
        rng = np.random.default_rng(seed)
        tokens = L * R
        p = V.shape[0]
        q = normals_per_token(p)
        ref_fn = lambda: reference_outputs(w, m, chol, U, V, z, L, R, rng)
        eng_fn = lambda: simulate_outputs(mix, U, V, z, L, R, rng)
        nbuf = np.empty(q * tokens)
        rng_fn = lambda: rng.standard_normal(out=nbuf)
        ref_r = eng_r = nrm_r = 0.0
        for _ in range(rounds):  # interleaved: the three rates see the same machine load
            ref_r = max(ref_r, _rate(ref_fn, tokens, min_time))
            eng_r = max(eng_r, _rate(eng_fn, tokens, min_time))
            nrm_r = max(nrm_r, _rate(rng_fn, q * tokens, min_time))
        # sanity: both estimate the same T_L (means within 6 standard errors)
        a, b = ref_fn(), eng_fn()
        se = np.sqrt(a.var(0) / R + b.var(0) / R)
        agree = bool(np.all(np.abs(a.mean(0) - b.mean(0)) <= 6 * se + 1e-12))
        rows.append({"D": D, "L": L, "replicates": R, "output_dim": p,
                     "reference_tokens_per_s": ref_r, "engine_tokens_per_s": eng_r,
                     "speedup": eng_r / ref_r, "speedup_target": TARGETS["mc_speedup"].get(D),
                     "normals_per_token": q, "normals_per_s": nrm_r,
                     "rng_fraction": eng_r * q / nrm_r, "rng_fraction_target": TARGETS["rng_fraction"],
                     "same_law_check": agree})
    return rows


# ---- 3: Section 3 population risk + gradient -----------------------------------------------------
def bench_lda(d=20, dps=30, n=48, min_time=0.3, seed=2):
    try:
        import softmix.numerics.lda as N
        grad = N.grad_theta
        Problem = N.LDAProblem
        size = N.theta_size
    except (ImportError, AttributeError) as e:
        return {"skipped": "numerics.lda not available", "reason": f"{type(e).__name__}: {e}"}
    try:
        params = getattr(N, "C2", None)
        if not params or len(params.get("m1", [])) != d:
            params = {"m1": [1] + [0] * (d - 1), "m_1": [-1] + [0] * (d - 1),
                      "Gamma": [[1 if i == j else 0 for j in range(d)] for i in range(d)], "pi_plus": "0.5"}
        prob = Problem.from_params(params)
        rng = np.random.default_rng(seed)
        theta = (0.3 * rng.standard_normal(size(d))).tolist()
        t0 = time.perf_counter()
        R64, g64 = grad(prob, theta, n=n)
        t64 = time.perf_counter() - t0
        t64 = max(t64, 1.0 / _rate(lambda: grad(prob, theta, n=n), 1.0, min_time))
        t0 = time.perf_counter()
        Rmp, gmp = grad(prob, theta, n=n, dps=dps)
        tmp = time.perf_counter() - t0
    except Exception as e:  # the module is being written concurrently: report, don't crash
        return {"skipped": "numerics.lda not available", "reason": f"{type(e).__name__}: {e}"}
    Rmp_f = float(Rmp)
    gmp_f = np.array([float(x) for x in gmp])
    g64 = np.asarray(g64, float)
    return {"d": d, "theta_size": size(d), "quadrature_nodes": n, "dps": dps,
            "float64_seconds": t64, "mp_seconds": tmp, "mp_over_float64": tmp / t64,
            "risk_rel_err": abs(float(R64) - Rmp_f) / max(abs(Rmp_f), 1e-300),
            "grad_rel_err": float(np.max(np.abs(g64 - gmp_f)) / max(np.max(np.abs(gmp_f)), 1e-300)),
            "risk": Rmp_f}


# ---- 4: one long prompt in bounded memory -------------------------------------------------------
_STREAM_CHILD = r"""
import json, resource, sys, time
import numpy as np
from softmix.checks.paper.finite_prompt import DEFAULTS, _config
from softmix.numerics.finite_prompt import finite_prompt_attention_stream, iter_token_chunks
L, chunk = int(sys.argv[1]), int(sys.argv[2])
mix, U, V, z = _config(DEFAULTS)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
out = finite_prompt_attention_stream(iter_token_chunks(mix, L, np.random.default_rng(0), chunk), U, V, z)
dt = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
mb = 1.0 / (2**20 if sys.platform == "darwin" else 1024)  # ru_maxrss: bytes on macOS, KiB on Linux
print(json.dumps({"tokens": L, "chunk": chunk, "D": mix.dim, "seconds": dt, "output": out.tolist(),
                  "peak_rss_mb": peak * mb, "rss_before_stream_mb": base * mb}))
"""


def bench_stream(tokens=100_000_000, chunk=1 << 16):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", _STREAM_CHILD, str(tokens), str(chunk)], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        return {"tokens": tokens, "error": r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "failed"}
    doc = json.loads(r.stdout.strip().splitlines()[-1])
    doc["tokens_per_s"] = tokens / doc["seconds"]
    doc["one_shot_token_array_mb"] = tokens * doc["D"] * 8 / 2**20
    doc["rss_target_mb"] = TARGETS["stream_rss_mb"]
    doc["within_bound"] = doc["peak_rss_mb"] < TARGETS["stream_rss_mb"]
    return doc


# ---- 5: softmix verify --profile quick -----------------------------------------------------------
def bench_verify(claims=(), profile="quick", workers=None):
    with tempfile.TemporaryDirectory() as td:
        out = Path(td) / "verify.json"
        cmd = [sys.executable, "-m", "softmix", "verify", *claims, "--profile", profile, "--json", str(out), "--quiet"]
        if workers:
            cmd += ["--workers", str(workers)]
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        t0 = time.perf_counter()
        r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if not out.exists():
            return {"error": (r.stderr.strip().splitlines() or ["no output"])[-1], "exit_code": r.returncode}
        doc = json.loads(out.read_text())
    per = sorted(({"id": c["id"], "section": c.get("section"), "verdict": c["verdict"], "seconds": c["seconds"]}
                  for c in doc["claims"]), key=lambda c: -c["seconds"])
    by_section: dict = {}
    for c in per:
        by_section[c["section"]] = by_section.get(c["section"], 0.0) + c["seconds"]
    return {"wall_seconds": wall, "reported_seconds": doc["seconds"], "exit_code": doc["exit_code"],
            "claims": len(per), "cpu_count": os.cpu_count(), "target_seconds": TARGETS["verify_seconds"],
            "within_target": wall < TARGETS["verify_seconds"], "sum_claim_seconds": sum(c["seconds"] for c in per),
            "seconds_by_section": by_section, "per_claim": per}


# ---- driver ------------------------------------------------------------------------------------------
ALL = ("mc", "lda", "verify", "stream", "risk")


def run(only=ALL, quick=False, stream_tokens=None, out=print) -> dict:
    doc = {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
           "cpu_count": os.cpu_count(), "quick": quick, "targets": {k: v for k, v in TARGETS.items()}}
    doc["targets"]["mc_speedup"] = {str(k): v for k, v in TARGETS["mc_speedup"].items()}
    if "mc" in only or "rng" in only:
        rows = bench_montecarlo(dims=(20, 200), L=50 if quick else 1000, R=8 if quick else 64,
                                rounds=1 if quick else 3, min_time=0.01 if quick else 0.5)
        doc["montecarlo"] = rows
        out(_table("1. Finite-prompt Monte Carlo: softmix engine vs plain full-D reference (scalar output)",
                   ["D", "L", "reps", "ref tok/s", "engine tok/s", "speedup", "target", "met"],
                   [[r["D"], r["L"], r["replicates"], r["reference_tokens_per_s"], r["engine_tokens_per_s"],
                     r["speedup"], r["speedup_target"], r["speedup"] >= (r["speedup_target"] or 0)] for r in rows]))
        out(_table("2. Engine vs this machine's Gaussian RNG: tokens/s x normals/token / normals/s",
                   ["D", "engine tok/s", "normals/tok", "normals/s", "fraction", "target", "met"],
                   [[r["D"], r["engine_tokens_per_s"], r["normals_per_token"], r["normals_per_s"],
                     r["rng_fraction"], r["rng_fraction_target"], r["rng_fraction"] >= r["rng_fraction_target"]]
                    for r in rows]))
    if "lda" in only:
        lda = bench_lda(n=8 if quick else 48, min_time=0.01 if quick else 0.3)
        doc["lda"] = lda
        if "skipped" in lda:
            out(f"\n3. Section 3 population risk + gradient (d = 20): skipped: {lda['skipped']} ({lda['reason']})")
        else:
            out(_table("3. Section 3 population risk + gradient (d = 20): float64 vs 30 digits",
                       ["d", "nodes", "float64 s", "30-digit s", "ratio", "risk rel err", "grad rel err"],
                       [[lda["d"], lda["quadrature_nodes"], lda["float64_seconds"], lda["mp_seconds"],
                         lda["mp_over_float64"], lda["risk_rel_err"], lda["grad_rel_err"]]]))
    if "verify" in only:
        v = bench_verify(claims=("prop-2.1-shared",) if quick else ())
        doc["verify"] = v
        if "error" in v:
            out(f"\n4. softmix verify --profile quick: FAILED: {v['error']}")
        else:
            out(_table(f"4. softmix verify --profile quick: {v['claims']} claims, wall {v['wall_seconds']:.1f}s "
                       f"on {v['cpu_count']} cores (target < {v['target_seconds']:.0f}s: "
                       f"{'met' if v['within_target'] else 'NOT met'}), exit code {v['exit_code']}",
                       ["claim", "section", "verdict", "seconds"],
                       [[c["id"], c["section"], c["verdict"], c["seconds"]] for c in v["per_claim"]]))
            out("   by section: " + ", ".join(f"{k} {s:.1f}s" for k, s in v["seconds_by_section"].items()))
    if "stream" in only:
        n = stream_tokens or (200_000 if quick else 100_000_000)
        st = bench_stream(n)
        doc["stream"] = st
        if "error" in st:
            out(f"\n5. Streamed single prompt of {n:.3g} tokens: FAILED: {st['error']}")
        else:
            out(_table("5. One prompt streamed in chunks (subprocess peak RSS via getrusage)",
                       ["tokens", "D", "chunk", "seconds", "tok/s", "peak RSS MB", "one-shot tokens MB", "bound MB",
                        "met"],
                       [[st["tokens"], st["D"], st["chunk"], st["seconds"], st["tokens_per_s"], st["peak_rss_mb"],
                         st["one_shot_token_array_mb"], st["rss_target_mb"], st["within_bound"]]]))
    if "risk" in only:
        from benchmarks.risk import bench_constants, bench_variance_reduction

        c = bench_constants(n=2000 if quick else 200_000, n_loop=5 if quick else 200, min_time=0.01 if quick else 0.5)
        vr = bench_variance_reduction(L=30 if quick else 400, R=200 if quick else 20000)
        doc["risk"] = {"constants": c, "variance_reduction": vr}
        out(_table("6. Finite-prompt risk: vectorised constants (D = 6, 2 heads, 2 components) vs a loop of "
                   "finite_prompt_constants",
                   ["queries/s vectorised", "queries/s loop", "ratio", "target q/s", "met"],
                   [[c["vectorised_queries_per_s"], c["loop_queries_per_s"], c["ratio"], c["target_queries_per_s"],
                     c["met"]]]))
        out(_table("   control variate (linearised fluctuation) at equal tokens: Var(X) / Var(X_cv)",
                   ["L", "reps", "mean raw", "mean cv", "reduction", "target", "met"],
                   [[r["L"], r["replicates"], r["mean_raw"], r["mean_cv"], r["variance_reduction"], r["target"],
                     r["met"]]
                    for r in vr]))
    return doc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="write the results to this JSON file")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (smoke test; figures meaningless)")
    ap.add_argument("--only", default=",".join(ALL), help=f"comma-separated subset of {','.join(ALL)}")
    ap.add_argument("--stream-tokens", type=float, help="prompt length of the streaming run (default 1e8)")
    a = ap.parse_args(argv)
    only = tuple(x.strip() for x in a.only.split(",") if x.strip())
    bad = [x for x in only if x not in ALL + ("rng",)]
    if bad:
        ap.error(f"unknown benchmark(s): {', '.join(bad)}")
    doc = run(only, a.quick, int(a.stream_tokens) if a.stream_tokens else None)
    if a.json:
        Path(a.json).write_text(json.dumps(doc, indent=1, default=str))
        print(f"\nwrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
