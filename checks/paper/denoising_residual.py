"""Section 4.4 / App. C.8: residual two-head attention denoises in context (Prop. 4.4).

One set of weights, independent of the task tau = (m1, m2, pi1): U1 = S^-1, V1 = a I, U2 = V2 = 0,
W_out = (I, -2a I), a = xi^2 / (gamma^2 + xi^2).  Decided symbolically (the derivation over a
generic equal-norm family), at 50 digits over random admissible tasks, through numerics' float64
architecture, and with finite prompts by Monte Carlo.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.numerics import denoising as ND
from softmix.numerics.attention import softmax_attention_mp
from softmix.numerics.denoising import DenoisingTask, bayes_denoiser, bayes_denoiser_mp
from softmix.numerics.denoising_references import random_equal_norm_task, rational_queries
from softmix.numerics.finite_prompt import finite_prompt_constants
from softmix.numerics.precision import to_mpf, workdps
from softmix.theory import denoising as TD
from softmix.theory.denoising_heads import circle_family_facts

from ..api import claim, decide, outcome, part
from ..montecarlo import finite_prompt_study
from ..rules import AlphaFamily, Residual
from .denoising_setting import SECTION, SOURCE, TaskParams, sym_task, task, violated

_TYPO = {"kind": "typo", "where": "Prop. 4.4 display (Sec. 4.4)",
         "detail": "The display writes W_out(T^res_{U1,V1}[mu](z)) but W_out = (I_d, -2a I_d) is d x 2d; App. C.8 "
                   "applies it to the concatenation (T^res_{U1,V1}; T^res_{U2,V2}).  Read literally (W_out's first "
                   "block on T^res_1 only) the output is (1+a) z + a sum beta_k m_k != f* (control "
                   "'main-text-display')."}


@dataclass
class ResidualParams(TaskParams):
    n_tasks: int = 6
    Ls: list[int] = field(default_factory=lambda: [64, 256, 1024])
    replicates: int = 2000


def literal_display_raises(t: DenoisingTask) -> dict:
    """The main-text display read literally (W_out on the first residual head only) is undefined: W_out
    is d x 2d and T^res_1 has d entries, so the SymPy construction must raise ValueError."""
    m1, m2, g, x, p = sym_task(t)
    d = t.d
    z = sp.Matrix(sp.symbols(f"z_1:{d + 1}"))
    s = g**2 + x**2
    try:
        TD.residual_architecture([p, 1 - p], [m1, m2], g, x, z, heads=[(sp.eye(d) / s, x**2 / s * sp.eye(d))])
    except ValueError as e:
        return {"raises": True, "error": str(e)}
    return {"raises": False}


def _task_outputs(tk: DenoisingTask, z, literal: bool):
    """(50-digit residual output, float64 architecture output) at query z."""
    d = tk.d
    U1 = [[Fraction(1) / tk.s if r == c else 0 for c in range(d)] for r in range(d)]
    V1 = [[tk.xi**2 / tk.s if r == c else 0 for c in range(d)] for r in range(d)]
    with workdps(50):
        zz = mpm.matrix([to_mpf(v) for v in z])
        res1 = zz + softmax_attention_mp(tk.noisy_mixture(), U1, V1, z, 50)
        out = res1 if literal else res1 - 2 * to_mpf(tk.xi**2 / tk.s) * zz  # U2 = V2 = 0: T^res_2 = z
    W_lit = np.hstack([np.eye(d), np.zeros((d, d))]) if literal else None
    return out, ND.residual_architecture_output(tk, np.array([[float(v) for v in z]]), W_out=W_lit)[0]


def _property_rows(t: DenoisingTask, p: ResidualParams, ctx, unequal: bool, literal: bool) -> list:
    """The architecture against f* over random admissible tasks sharing gamma and xi: 50 digits, and
    numerics' float64 architecture (its own parameters and W_out) on the same queries."""
    rng = ctx.stream("tasks")
    worst, worst_task, worst_f, scale_f = to_mpf(0), None, 0.0, 1.0
    for i in range(p.n_tasks + 1):
        tk = (t if i == 0 else random_equal_norm_task(rng, 2 + (i % 2))).with_(gamma=t.gamma, xi=t.xi)
        if unequal:
            tk = tk.with_(m2=[v * Fraction(3, 2) for v in tk.m2])
        for z in rational_queries(rng, tk.d, 2):
            out, of = _task_outputs(tk, z, literal)
            f = bayes_denoiser_mp(tk, z, 50)
            r = max(abs(out[j] - f[j]) for j in range(tk.d))
            if worst_task is None or r > worst:
                worst, worst_task = r, tk
            worst_f = max(worst_f, max(abs(float(of[j]) - float(f[j])) for j in range(tk.d)))
            scale_f = max(scale_f, max(abs(float(f[j])) for j in range(tk.d)))
    assert worst_task is not None  # the first of the n_tasks + 1 >= 1 tasks' 2 queries sets it
    return [{"check": "architecture == f* over the tasks (50 digits)", "tasks": p.n_tasks + 1,
             "worst_task": worst_task.to_params(), **Residual(dps=50).decide(worst, scale=10)},
            {"check": "numerics' float64 architecture == the 50-digit f*",
             **Residual(dps=16, guard=4).decide(worst_f, scale=scale_f)}]


def _finite_prompt_row(t: DenoisingTask, p: ResidualParams, ctx, literal: bool) -> dict:
    """f_L = W_out (z + T_1[mu_hat_L](z); z) is affine in T_1 with weight W_out's first block (the identity):
    head 1's finite-prompt constants apply (docs/finite-prompt.md); errors against f*(z), the claim's whole alpha."""
    z = np.array([1.0] + [0.5] * (t.d - 1))
    (U1, V1), _h2, W = ND.residual_architecture_params(t.gamma, t.xi, t.d)
    if literal:
        W = np.hstack([np.eye(t.d), np.zeros((t.d, t.d))])
    limit = bayes_denoiser(t, z[None])[0] - (W[:, :t.d] + W[:, t.d:]) @ z
    fam = AlphaFamily()
    mix = t.noisy_mixture()
    seed = int(ctx.stream("mc").integers(2**62))
    st = finite_prompt_study(mix, U1, V1, z, p.Ls, p.replicates, seed, limit=limit,
                             constants=finite_prompt_constants(mix, U1, V1, z),
                             family=fam.sub("finite-prompt-study", 1.0))
    v = st["verdict"]
    return {"check": "finite prompts: bias and MSE constants of docs/finite-prompt.md", "study": st,
            "alpha": fam.ledger(), "verdict": v, "passed": {"confirmed": True, "refuted": False}.get(v)}


@claim(id="prop-4.4", title="Residual two-head attention denoises in context with task-independent weights",
       source=f"{SOURCE}, Prop. 4.4 (App. C.8)", section=SECTION, kind="symbolic",
       statement="W_out (T^res_{U1,V1}[mu_Z^tau](z); T^res_{U2,V2}[mu_Z^tau](z)) = E[X | Z = z, tau] for every "
                 "admissible task tau = (m1, m2, pi1), with U1 = S^-1, V1 = a I, U2 = V2 = 0, W_out = (I, -2a I), "
                 "a = xi^2/(gamma^2+xi^2); with L-token prompts the output converges at rate L^-1/2 with the "
                 "finite-prompt constants (docs/finite-prompt.md).",
       independence="derived side: residual two-head attention (SymPy, mpmath 50 digits, numerics' float64 "
                    "architecture) and Monte Carlo finite prompts; stated side: f*; shared: nothing",
       configurations_note="the check itself draws n_tasks admissible tasks (equal norms, d = 2 and 3, pi1 != 1/2) and "
                           "their queries from the run's seed; the finite-prompt part runs on the given task",
       assumptions=("||m1|| = ||m2||, m1 != m2 for every task", "pi1 in (0, 1)", "gamma, xi shared across tasks"),
       profiles={"full": {"n_tasks": 40, "Ls": [64, 256, 1024, 4096], "replicates": 20000}},
       controls={"unequal-norms": "drop ||m1|| = ||m2|| (tasks with m2 scaled by 3/2)",
                 "main-text-display": "read the main-text display literally: W_out's first block on T^res_1 only"},
       derivations=lambda: [TD.prop_4_4_derivation()])
def prop_4_4(p: ResidualParams, ctx):
    t = task(p)
    unequal, literal = ctx.control("unequal-norms"), ctx.control("main-text-display")
    if not t.equal_norm and not unequal:
        return part("numeric", [violated("||m1|| != ||m2||")])
    fam, lit = circle_family_facts(), literal_display_raises(t)
    premises = part("symbolic", [{"check": "the symbolic families are what they are said to be", **fam,
                                  "passed": True if fam["passed"] else None},
                                 {"check": "the literal display does not compose", **lit,
                                  "passed": True if lit["raises"] else None}], name="premises")
    tf = t.with_(m2=[v * Fraction(3, 2) for v in t.m2]) if unequal else t
    return outcome(decide([TD.prop_4_4_derivation(equal_norm=not unequal)], ctx), premises,
                   part("numeric", _property_rows(t, p, ctx, unequal, literal)),
                   part("monte-carlo", [_finite_prompt_row(tf, p, ctx, literal)]),
                   findings=[{**_TYPO, "literal_display_is_undefined": lit}])

