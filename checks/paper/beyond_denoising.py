"""In-context denoising with an atomic clean prompt (Smart et al. 2025 setting): one softmax head is
the Bayes posterior mean.  References: :mod:`softmix.numerics.beyond` (float64 posterior mean,
finite atomic prompts) and :mod:`softmix.theory.beyond` (Bayes' rule with sympy.stats densities).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import sympy as sp

from softmix.numerics import beyond as NB
from softmix.theory import beyond as TB

from .. import configs as C
from ..api import claim, decide, outcome, part
from ..assumptions import EqualNorms
from ..configurations import Draws
from ..fits import SlopeRule, mean_se_dof
from ..params import Exact, exact_default
from ..rules import AlphaFamily, Residual


@dataclass
class Smart:
    means: list[list[Exact]] = field(default_factory=lambda: exact_default([["1", "0"], ["0", "1"], ["-0.6", "-0.8"]]))
    weights: list[Exact] = field(default_factory=lambda: exact_default(["0.2", "0.3", "0.5"]))
    sigma2: Exact = exact_default("0.5")
    queries: int = 3
    Ls: list[int] = field(default_factory=lambda: [800, 3200, 12800])
    reps: int = 4000


def _draw_smart(rng, p: Smart, i):
    """Three exactly equal-norm, pairwise non-collinear centres rescaled exactly to a drawn norm r in
    [0.6, 1.2], weights distinct and != 1/3, and sigma^2 in [0.3, 0.8] (r^2 / sigma^2 <= 4.8: the
    softmax over the prompt stays where the L grid shows the L^(-1/2) rate)."""
    ms = C.means(rng, 3, len(p.means[0]), equal_norms=True)
    n2 = sum(Fraction(x) ** 2 for x in ms[0])
    num, den = math.isqrt(n2.numerator), math.isqrt(n2.denominator)
    if num * num != n2.numerator or den * den != n2.denominator:
        return None  # the equal-norm draws have rational norms (Pythagorean coordinates); keep the rescaling exact
    t = Fraction(C.rational(rng, 0.6, 1.2, 2)) / Fraction(num, den)
    return {"means": [[str(Fraction(x) * t) for x in m] for m in ms], "weights": C.weights(rng, 3),
            "sigma2": C.rational(rng, 0.3, 0.8, 2)}


def _queries(rng, means, w, s2, n):
    """Noisy queries x + sigma N(0, I), x drawn from the atoms, rounded to short decimals."""
    lab = rng.choice(len(w), size=n, p=w)
    Z = means[lab] + math.sqrt(s2) * rng.standard_normal((n, means.shape[1]))
    return np.array([[float(Fraction(f"{x:.3f}")) for x in r] for r in Z])


def _rate_rows(ctx, p: Smart, means, w, Z, post, U):
    """Per query: the RMSE of the finite atomic prompt's output against the posterior mean decays
    like L^(-1/2) (one slope rule per query, equal shares of alpha).  The standard errors are
    estimated from heavy-tailed squared errors: Student and F quantiles with their effective
    degrees of freedom (fits.mean_se_dof)."""
    fam, rows = AlphaFamily(), []
    for j, z in enumerate(Z):
        per = []
        for L in p.Ls:
            rng = ctx.stream("prompt", j, L, str(p.means), str(p.weights), str(p.sigma2))
            sq = ((NB.atomic_prompt_outputs(means, w, z, U, int(L), p.reps, rng) - post[j]) ** 2).sum(1)
            per.append({"L": int(L), "rmse": float(np.sqrt(sq.mean())), "se_dof": mean_se_dof(sq),
                        "rmse_se": float(sq.std(ddof=1) / math.sqrt(len(sq)) / (2 * np.sqrt(sq.mean())))})
        rule = SlopeRule(fam.take(f"query-{j}", len(Z)), target=-0.5, margin=0.1, remainder=len(per) >= 4,
                         name=f"query {j}: log-log slope of the RMSE")
        dec = rule.decide([r["L"] for r in per], [r["rmse"] for r in per], [r["rmse_se"] for r in per], p.reps,
                          se_dof=[r["se_dof"] for r in per])
        rows.append({"query": z.tolist(), "posterior_mean": post[j].tolist(), "per_L": per, **dec})
    return rows, fam.ledger()


@claim(id="smart-2025-mixture",
       title="Denoising with an atomic clean prompt: one softmax head U = I/sigma^2, V = I is the Bayes posterior mean",
       source="Smart et al. 2025, in-context denoising (docs/findings.md); Gabet-Boursier-Boyer 2026, Sec. 4",
       section="beyond", kind="symbolic",
       statement=("clean prompt sum_k pi_k delta_{m_k} with ||m_k|| = r, query z = x + N(0, sigma^2 I): "
                  "T_{I/sigma^2, I}[prompt](z) = E[x | z]; the finite-prompt head converges to it at rate L^(-1/2)"),
       assumptions=(EqualNorms("means"), "noise variance sigma^2 known"),
       profiles={"full": {"queries": 8, "reps": 20000, "Ls": [800, 3200, 12800, 51200]}},
       controls={"noise-variance-dropped": "U = I instead of I/sigma^2 (sigma^2 = 1/2)"},
       independence=("derived side: Bayes' rule with sympy.stats densities and attention on an atomic prompt by "
                     "simulation; stated side: the head U = I/sigma^2, V = I and numerics' float64 posterior mean; "
                     "shared: nothing"),
       configurations=Draws(_draw_smart, quick=1, full=3),
       derivations=lambda: [TB.denoising_derivation(3, 2)])
def smart_2025_mixture(p: Smart, ctx):
    """Symbolic: posterior mean == head output for equal-norm centres (generic K = 3, D = 2; the
    family of the configuration: without equal norms the identity is false).  Numeric: numerics'
    posterior mean == Bayes' rule by SymPy.  Monte Carlo: the L^(-1/2) rate per query."""
    dropped = ctx.control("noise-variance-dropped")
    equal = len({sum(Fraction(x) ** 2 for x in m) for m in p.means}) == 1
    derivs = [TB.denoising_derivation(3, 2, equal_norms=equal, temperature=sp.Integer(1) if dropped else None)]
    means = np.array([[float(x) for x in m] for m in p.means])
    w, s2 = np.array([float(x) for x in p.weights]), float(p.sigma2)
    U = np.eye(means.shape[1]) / (1.0 if dropped else s2)
    Z = ctx.data("queries", lambda rng: _queries(rng, means, w, s2, p.queries), params=[p.means, p.weights, p.sigma2])
    post = NB.posterior_mean(means, w, Z, s2)
    ref = np.array(TB.posterior_mean_values(means, w, Z, p.sigma2))
    check = {"check": "numerics.beyond.posterior_mean (float64) == theory.beyond.posterior_mean_values (Bayes' rule, "
                      "30 digits)", **Residual(dps=16, guard=4).decide(np.abs(post - ref).max(), np.abs(ref).max())}
    rows, ledger = _rate_rows(ctx, p, means, w, Z, post, U)
    return outcome(decide(derivs, ctx), part("numeric", [check]), part("monte-carlo", rows), U=U.tolist(),
                   sigma2=s2, alpha=ledger, equal_norms=equal)
