"""App. C.3, C.5: when one softmax head realises the Bayes denoiser.

* ``prop-c.4`` -- for gamma > 0 and gamma^2 != xi^2 no single head realises f*;
* ``prop-c.3`` -- degenerate mixtures (gamma = 0): two heads suffice, one head depends on the geometry.

The single heads are derived from the definitions (no transcribed condition) by
:mod:`softmix.theory.denoising_heads` and compared, both ways, with the stated conditions.
"""
from __future__ import annotations

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.numerics.denoising import DenoisingTask, bayes_denoiser, gh_nodes, optimise_heads
from softmix.numerics.denoising_references import rational_queries, trainer_consistency
from softmix.numerics.memo import remember
from softmix.numerics.precision import workdps
from softmix.theory import denoising as TD, denoising_heads as TH

from ..api import Draws, claim, decide, part
from .denoising_setting import SECTION, SOURCE, DegenerateTaskParams, TaskParams, draw_task, sym_task, task, violated

_S = lambda sols: [{str(k): str(v) for k, v in s.items()} for s in sols]


def _derived(t: DenoisingTask):
    m1, m2, g, x, p = sym_task(t)
    return remember("denoising.derived-single-heads", (tuple(m1), tuple(m2), g, x, p),
                    lambda: TH.derived_single_heads(m1, m2, g, x, p))


def _not_stated(t: DenoisingTask, U, V, derived, stated, by_equations: bool):
    """The derived heads that specialise no solution of the stated side (``{name: [solution dicts]}``)
    and, with ``by_equations``, also those that satisfy no stated system (conditions (1)-(3) and, when
    pi1 = 1/2, the exchanged endpoints) substituted directly: a solved stated family that lost an
    orientation or a branch would otherwise pass, since every head it keeps still realises f*."""
    m1, m2, g, x, p = sym_task(t)
    unknowns = list(U) + list(V)
    systems = [TD.single_head_conditions(U, V, m1, m2, g, x)]
    if p == sp.Rational(1, 2):
        systems.append(TH.exchanged_endpoint_conditions(U, V, m1, m2, g, x))
    out = []
    for s in derived:
        full = {u: s.get(u, u) for u in unknowns}
        inside = lambda st: all(sp.simplify(full[u] - sp.sympify(v).xreplace(full)) == 0 for u, v in st.items())
        solved = any(inside(st) for sols in stated.values() for st in sols)
        held = not by_equations or any(all(sp.simplify(q.subs(s)) == 0 for q in eqs) for eqs in systems)
        if not (solved and held):
            out.append({str(k): str(v) for k, v in s.items()})
    return out


def _not_realising(t: DenoisingTask, U, V, z, e, stated, rng):
    """Stated heads (free parameters set to random non-zero rationals) whose display differs from f* at
    random rational queries (30 digits, tolerance 1e-25); and the largest residual."""
    unknowns = list(U) + list(V)
    bad, worst = [], mpm.mpf(0)
    with workdps(30):
        for name, sols in stated.items():
            for s in sols:
                for _ in range(2 if any(u not in s for u in unknowns) else 1):  # free parameters: two draws
                    free = {u: sp.Rational(int(rng.choice([-1, 1]) * rng.integers(1, 10)), int(rng.integers(1, 6)))
                            for u in unknowns if u not in s}
                    full = {u: sp.sympify(s.get(u, free.get(u))).xreplace(free) for u in unknowns}
                    eU = e.xreplace(full)
                    for q in rational_queries(rng, t.d, 2):
                        val = eU.xreplace({zi: sp.Rational(qi.numerator, qi.denominator) for zi, qi in zip(z, q)})
                        r = max(abs(mpm.mpf(sp.N(v, 40))) for v in val)
                        worst = max(worst, r)
                        if r > mpm.mpf(10) ** -25:
                            bad.append({"conditions": name, "head": {str(k): str(v) for k, v in full.items()},
                                        "query": [str(v) for v in q], "max_abs_T_minus_fstar": mpm.nstr(r, 5)})
    return bad, worst


def compare_single_heads(t: DenoisingTask, rng, stated_solutions=None) -> dict:
    """Derived single heads vs the stated ones at ``t``, both directions: every derived head satisfies
    (1)-(3) (or the exchanged orientation when pi1 = 1/2) and specialises a solved stated head, every
    stated head makes the display equal f* at random rational queries.  ``stated_solutions`` ({name:
    [solution dicts]}) replaces the stated side (Prop. C.3's solver); a derived head must specialise one."""
    U, V, z, e, derived = _derived(t)
    m1, m2, g, x, p = sym_task(t)
    stated = stated_solutions if stated_solutions is not None else remember(
        "denoising.stated-single-heads", (tuple(m1), tuple(m2), g, x, p),
        lambda: TH.stated_single_heads(U, V, m1, m2, g, x, p))
    not_stated = _not_stated(t, U, V, derived, stated, by_equations=stated_solutions is None)
    not_realising, worst = _not_realising(t, U, V, z, e, stated, rng)
    return {"gamma": str(g), "derived_solutions": _S(derived),
            "stated_solutions": {k: _S(v) for k, v in stated.items()},
            "derived_not_satisfying_stated": not_stated, "stated_not_realising_fstar": not_realising[:3],
            "max_abs_residual_stated": mpm.nstr(worst, 5), "equivalent": not not_stated and not not_realising}


def _generic_roots():
    m1, m2, _ = TD.circle_means(2)
    e1, r1 = TH.positive_gamma_roots(m1, m2)
    m, mm, _ = TD.circle_means(2, "opposite")
    e2, r2 = TH.positive_gamma_roots(m, mm)
    return {"noncollinear": {"elimination": [str(e) for e in e1], "positive_roots": [str(r) for r in r1]},
            "opposite": {"elimination": [str(e) for e in e2], "positive_roots": [str(r) for r in r2]}}


def _exact_rows(t: DenoisingTask, ctx) -> list:
    m1, m2, g, x, _p = sym_task(t)
    elim, roots = TH.positive_gamma_roots(m1, m2)
    _gm, xs = TD.noise_symbols()
    incompatible = all(sp.simplify(r.subs(xs, x) - g) != 0 for r in roots) and bool(elim)
    gen = remember("denoising.c4-generic-roots", 0, _generic_roots)
    rng = ctx.stream("c4-derived")
    at_config = compare_single_heads(t, rng)
    at_balance = at_config if t.gamma == t.xi else compare_single_heads(t.with_(gamma=t.xi), rng)
    return [{"check": "conditions (1)-(3) incompatible at the configured gamma (elimination ideal)",
             "elimination": [str(e) for e in elim], "positive_gamma_roots": [str(r) for r in roots],
             "gamma": str(t.gamma), "xi": str(t.xi), "passed": incompatible},
            {"check": "generic equal-norm families: the only positive root is xi", **gen,
             "passed": gen["noncollinear"]["positive_roots"] == ["xi"] and gen["opposite"]["positive_roots"] == ["xi"]},
            {"check": "derived single heads: none at the configured gamma != xi; == stated at gamma = xi",
             "at_configured_gamma": at_config, "at_gamma_equals_xi": at_balance,
             "passed": bool((t.gamma == t.xi or not at_config["derived_solutions"]) and at_balance["equivalent"]
                            and at_config["equivalent"])}]


def _search_rows(t: DenoisingTask, ctx) -> list:
    """Best single head by multistart L-BFGS on the Gauss-Hermite excess risk: a head 'realises' f* when
    its excess risk is below 1e-20 E||f*||^2; none may at gamma != xi, one must be found at gamma = xi."""
    starts, (n_gh, iters) = (6, (40, 600)) if ctx.full else (3, (24, 150))
    best, _h, allr = optimise_heads(t, 1, starts, ctx.stream("starts"), n=n_gh, maxiter=iters)
    tb = t.with_(gamma=t.xi)
    balance = lambda: optimise_heads(tb, 1, 1, ctx.stream("starts-balance"), n=n_gh, maxiter=iters)[0]
    best_b = best if t.gamma == t.xi else balance()
    Zq, Wq = gh_nodes(t, n_gh)
    tiny = 1e-20 * float(np.sum(Wq * (bayes_denoiser(t, Zq) ** 2).sum(1)))
    trainer = trainer_consistency(t, 1, ctx.stream("trainer"))
    found = best < tiny
    return [{"check": "the search's loss and gradient", **trainer, "passed": True if trainer["passed"] else None},
            {"check": "no single head realises f* numerically at gamma != xi", "best_excess_risk": f"{best:.6g}",
             "all_starts": [f"{r:.4g}" for r in allr], "threshold": f"{tiny:.3g}",
             "passed": not (t.gamma != t.xi and found)},
            {"check": "the search finds the head at gamma = xi (power)", "best_excess_risk": f"{best_b:.6g}",
             "passed": True if best_b < tiny else None}]


@claim(id="prop-c.4", title="One head cannot realise f* when gamma^2 != xi^2",
       source=f"{SOURCE}, Prop. C.4 (App. C.5)", section=SECTION, kind="symbolic",
       statement="For Gamma = gamma^2 I, gamma > 0, equal norms and gamma^2 != xi^2, conditions (1)-(3) are "
                 "incompatible: no (U, V) with T_{U,V}[mu_Z] = f*.",
       independence="derived side: the single heads with display = f* for all z, by exponential-polynomial "
                    "coefficient matching (SymPy, Groebner over the exponent partitions), and a multistart search; "
                    "stated side: conditions (1)-(3) (and the exchanged endpoints at pi1 = pi2) and their "
                    "elimination ideal; shared: nothing",
       assumptions=("gamma > 0", "||m1|| = ||m2||, m1 != m2", "gamma^2 != xi^2"),
       controls={"gamma-equals-xi": "drop gamma^2 != xi^2 (set gamma = xi): the conditions must become solvable"},
       configurations=Draws(draw_task(equal_norms=True, dims=(2,))))
def prop_c_4(p: TaskParams, ctx):
    t = task(p)
    if not t.equal_norm:
        return part("numeric", [violated("||m1|| != ||m2||")])
    if ctx.control("gamma-equals-xi"):
        t = t.with_(gamma=t.xi)
    return [part("symbolic", _exact_rows(t, ctx), name="derived single heads"),
            part("numeric", _search_rows(t, ctx), name="single-head search")]


# ---- prop-c.3 -------------------------------------------------------------------------------------
def _solver(m1, m2, swapped: bool):
    return remember("denoising.c3-solve", (tuple(m1), tuple(m2), swapped),
                    lambda: TD.prop_c3_single_head_solve(sp.Matrix(m1), sp.Matrix(m2), swapped=swapped))


def _c3_rows(t: DenoisingTask, ctx, compare: bool) -> list:
    m1, m2, *_ = sym_task(t)
    s1, s2 = _solver(m1, m2, False), _solver(m1, m2, True)
    rows = [{"check": "no single head (d = 2, linearly independent means)", "orientation": [str(x) for x in s1],
             "swapped": [str(x) for x in s2], "passed": not s1 and not s2}]
    if not compare:
        return rows
    # the solver against heads derived from T = f*, where heads exist: at m2 = -m1 (both orientations when pi1 = 1/2)
    to = t.with_(m2=[-v for v in t.m1])
    mo1, mo2, _g, xo, po = sym_task(to)
    _gs, xs = TD.noise_symbols()
    sub = lambda sols: [{k: sp.sympify(v).subs(xs, xo) for k, v in d.items()} for d in sols]
    so = {"orientation": sub(_solver(mo1, mo2, False))}
    if po == sp.Rational(1, 2):
        so["swapped"] = sub(_solver(mo1, mo2, True))
    at = compare_single_heads(to, ctx.stream("c3-derived"), so)
    rows.append({"check": "at m2 = -m1 the derived heads == the solver's", "at_opposite_means": at,
                 "passed": bool(at["equivalent"] and at["derived_solutions"])})
    return rows


@claim(id="prop-c.3", title="Degenerate mixtures (gamma = 0): two heads suffice; one head depends on geometry",
       source=f"{SOURCE}, Prop. C.3 (App. C.3), Remark 4.2", section=SECTION, kind="symbolic",
       statement="Gamma = 0: two heads realise f* (non-collinear means); no single head when d = 2 and the means "
                 "are linearly independent; one head for m1 = -m2.",
       independence="derived side: attention outputs with Gamma = 0 (SymPy), the single-head solve, and the heads "
                    "derived from T = f*; stated side: the Prop. C.3 heads; shared: nothing",
       assumptions=("Gamma = 0", "xi > 0", "||m1|| = ||m2||, m1 != m2"),
       controls={"U-scale": "halve every U (wrong gate temperature)"},
       configurations=Draws(draw_task(equal_norms=True, gamma_zero=True, dims=(2,))),
       derivations=lambda: TD.prop_c3_derivations())
def prop_c_3(p: DegenerateTaskParams, ctx):
    t = task(p)
    if t.gamma != 0:
        return part("numeric", [violated("Prop. C.3 is about gamma = 0")])
    if not t.equal_norm:
        return part("numeric", [violated("||m1|| != ||m2||")])
    scaled = ctx.control("U-scale")
    parts = [decide(TD.prop_c3_derivations("U-scale" if scaled else None), ctx)]
    if t.d == 2 and not t.collinear:  # the control changes the two-head derivations only
        parts.append(part("symbolic", _c3_rows(t, ctx, compare=not scaled), name="single heads"))
    return parts
