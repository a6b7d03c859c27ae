"""Calibration of fp-bias's rule under its null, on the paper configuration (docs/records.md, "fp-bias at seed 101").

    python -m benchmarks.fp_bias_calibration --seeds 60 [--first 0] [--root 77] [--json PATH]

The statement is true, so each seed's z-statistics of the fitted limit (``InverseLRule`` on the claim's own
prompt lengths and replicates, the same sampler and constants as the claim) are draws from the rule's null:
they must look N(0, 1).  Prints per coordinate the mean and standard deviation of z with the chi-square
p-value of "sd > 1", the Kolmogorov-Smirnov p-value against N(0, 1), the largest |z|, and, per prompt length,
the ratio of the run-to-run standard deviation of L x mean error to the standard error the claim computes
(1 when the standard errors are right).  Each seed draws from ``default_rng([root, seed, L])``, never from a
claim's stream.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from scipy import stats

from softmix.checks.fits import InverseLRule
from softmix.checks.paper.finite_prompt import Bias, configuration
from softmix.numerics.finite_prompt import finite_prompt_constants, simulate_outputs


def one_seed(p: Bias, seed: int, root: int) -> dict:
    """z of the limit test and the per-length means and standard errors at one seed."""
    mix, U, V, z = configuration(p)
    c = finite_prompt_constants(mix, U, V, z)
    rows = []
    for L in p.Ls:
        err = simulate_outputs(mix, U, V, z, L, p.reps, np.random.default_rng([root, seed, L])) - c["limit"][None, :]
        rows.append((L, (L * err.mean(0)).tolist(), (L * err.std(0, ddof=1) / np.sqrt(p.reps)).tolist()))
    dec = InverseLRule(1e-3).decide([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], c["bias"],
                                   n_samples=p.reps)
    return {"seed": seed, "z": dec["limit_test"]["z"], "y": [r[1] for r in rows], "se": [r[2] for r in rows]}


def summary(records: list[dict], Ls) -> list[str]:
    z = np.array([r["z"] for r in records])
    y, se = np.array([r["y"] for r in records]), np.array([r["se"] for r in records])
    n, sd = len(z), z.std(0, ddof=1)
    out = [f"{n} seeds"]
    for k in range(z.shape[1]):
        p_sd, p_ks = stats.chi2.sf((n - 1) * sd[k] ** 2, n - 1), stats.kstest(z[:, k], "norm").pvalue
        out.append(f"coordinate {k}: z mean {z[:, k].mean():.3f}, sd {sd[k]:.3f} (p of sd > 1: {p_sd:.2f}), "
                   f"KS p {p_ks:.2f}, max |z| {np.abs(z[:, k]).max():.2f}")
    for i, L in enumerate(Ls):
        ratio = y[:, i].std(0, ddof=1) / se[:, i].mean(0)
        out.append(f"L = {L}: run-to-run sd / standard error = {', '.join(f'{r:.3f}' for r in ratio)}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--root", type=int, default=77)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    p = Bias()
    recs = []
    for s in range(a.first, a.first + a.seeds):
        recs.append(one_seed(p, s, a.root))
        print(json.dumps(recs[-1]), file=sys.stderr, flush=True)
    print("\n".join(summary(recs, p.Ls)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(recs, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
