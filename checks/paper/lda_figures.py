"""Figures 1, 4 and 5 of Section 3.3 / Appendix B.13: gradient descent near Theta1 and Theta2, and SGD in d = 20.

fig-1 (population GD converges exponentially near Theta1, markedly slower near Theta2), fig-5 (SGD from
U11 = 0, u12 = 0, v22 = 0, v21 ~ N(0, I) reaches near-Bayes risk), fig-4 (an all-Gaussian start approaches
the Bayes risk with difficulty).  Each reproduces the paper's configuration (C1 or C2, Table 3) and checks
its starting points, its rate fits (against scipy) and its SGD (against a reference implementation and
finite differences).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import softmix
from softmix.numerics import lda as N, lda_dynamics as D, lda_flow_references as FR

from ..rules import ALPHA
from .lda import draw_lda, start_check
from .lda_configurations import symmetric_balanced_violations
from .lda_dynamics import fit_rows, subsample
from .rows import bound as _bound

SOURCE = "Gabet-Boursier-Boyer 2026"
_SYMBAL = ("m1 = -m_-1", "pi_+ = 1/2")


def _start_rows(starts):
    """An experiment's starting points are the ones the figure names (checks.paper.lda.start_check)."""
    return [{"check": f"start: {s['kind']}", "passed": bool(s["passed"]), "start": s} for s in starts]


# ---- Figure 1 -------------------------------------------------------------------------------------
@dataclass
class Fig1:
    lda: dict = field(default_factory=lambda: dict(N.C1))
    step: float = 0.5
    steps: int = 800
    nodes: int = 40
    eps: float = 1e-6
    floor: float = 1e-9


def _gd_run(P, th, dist, p, rng, label):
    """Population GD from theta + eps N(0, I); the rate of log dist on t >= 0.1 T and dist > floor, the fit
    against scipy and the distances against least-squares projections at 9 points of the run."""
    th0 = th + p.eps * rng.standard_normal(th.size)
    out = N.gradient_descent(P, th0, p.step, p.steps, n=p.nodes, record_every=max(1, p.steps // 200))
    t = np.array([k * p.step for k, _, _ in out])
    ds = np.array([dist(P, N.phi(P, x)) for _, x, _ in out])
    m = (t >= 0.1 * t[-1]) & (ds > p.floor)
    fit = D.fit_exp_rate(t[m], ds[m], ALPHA)
    worst = 0.0
    for x in [x for _, x, _ in out][::max(1, len(out) // 8)]:
        z = N.phi(P, x)
        ref = FR.bayes_set_distances(P, z)
        got = (N.dist_E1(P, z), N.dist_E2(P, z))
        worst = max(worst, max(abs(a - b) for a, b in zip(got, ref)) / max(1.0, float(np.linalg.norm(z))))
    rows = fit_rows(f"{label} rate fit = scipy.stats.linregress", t[m], ds[m], fit)
    rows.append(_bound(f"{label}: dist_E1 / dist_E2 = least-squares projections", worst, 1e4 * FR.EPS64))
    series = {"label": f"dist to E{label[-1]} from near {label}", "x": t.tolist(), "y": ds.tolist()}
    return fit, float(ds[0]), float(ds[-1]), rows, series


def _rate_rows(res, reversed_):
    """Theta1: rate interval above 0, distance at least halved, and its lower end above the Theta2 rate's
    upper end; the control (reversed) claims the Theta2 rate above the Theta1 rate."""
    (r1, d1_0, d1_T), (r2, _d2_0, _d2_T) = res["Theta1"], res["Theta2"]
    if reversed_:
        if r1["rate"] is None or r2["rate"] is None:
            return [{"check": "both rates fitted", "passed": False}]
        return [_bound("Theta2 rate interval above 0", 0, r2["ci"][0], strict=True),
                _bound("Theta2 rate above the Theta1 rate", r1["ci"][1], r2["ci"][0], strict=True)]
    if r1["rate"] is None:
        return [{"check": "Theta1 rate fitted", "passed": False}]
    # a clear decrease (halved): at the quick horizon the Theta1 rate (~0.0055 on C1) predicts a factor 0.11,
    # so "divided by 10" failed on some perturbations (seed 8131: 6.8x)
    rows = [_bound("Theta1 rate interval above 0", 0, r1["ci"][0], strict=True, rate=r1),
            _bound("Theta1 distance at least halved", d1_T, 0.5 * d1_0)]
    if r2["rate"] is not None:
        rows.append(_bound("Theta1 rate above the Theta2 rate", r2["ci"][1], r1["ci"][0], strict=True, rate_Theta2=r2))
    return rows


@softmix.claim(
    id="fig-1", title="GD converges exponentially near Theta1, markedly slower near Theta2",
    source=f"{SOURCE}, Fig. 1 / Table 3 / App. B.13", section="lda", kind="experiment",
    statement="Population GD from 1e-6-perturbations of a Theta1 point and a Theta2 point: distance to E1 decays "
              "exponentially, distance to E2 markedly slower",
    assumptions=("m1 != -m_-1", "pi_+ != 1/2"),
    controls={"reversed": "claims the Theta2 rate exceeds the Theta1 rate"},
    profiles={"full": {"step": 1e-4, "steps": 600000}},
    configurations_note="specific to the paper's configuration: reproduces Fig. 1 (configuration C1, d = 2, the "
                        "initialisations of Table 3); the general statements behind it (thm-3.5, cor-b.31) draw "
                        "configurations",
    independence="derived side: GD trajectories near Theta1 and Theta2; stated side: fast vs slow convergence of Fig. "
                 "1; shared: the risk code; the rate fits against scipy.stats.linregress and dist_E1 / dist_E2 against "
                 "least-squares projections, shared: nothing")
def fig_1(p: Fig1, ctx):
    """Theta1 start: numerics.lda.construct_theta1 (r = 0, w = w*, b = b*, s != 0; an equivalent Theta1^reg
    point: Table 3's row theta^(1) is garbled); Theta2 start: Lemma B.3 case 1 = Table 3 row theta^(2).  Log
    distance fitted against t = k step (R^2 reported, not used: transients make it seed-dependent)."""
    P = N.LDAProblem.from_params(p.lda)
    bad = [a for a, broken in (("m1 != -m_-1", P.symmetric), ("pi_+ != 1/2", P.balanced)) if broken]
    if bad:
        return softmix.part("numeric", [{"check": "assumptions", "passed": None, "reason": f"violated: {bad}"}])
    th1, th2 = N.construct_theta1(P), N.construct_theta2(P)
    rows = _start_rows([start_check(P, th1, "theta1"), start_check(P, th2, "theta2")])
    if not all(r["passed"] for r in rows):
        return softmix.part("numeric", rows)
    res, series = {}, []
    for lab, th, dist in (("Theta1", th1, N.dist_E1), ("Theta2", th2, N.dist_E2)):
        fit, d0, dT, impl, s = _gd_run(P, th, dist, p, ctx.stream("pert", lab), lab)
        res[lab] = (fit, d0, dT)
        rows += impl
        series.append(dict(s, **dict(zip(("x", "y"), subsample(s["x"], s["y"])))))
    rows += _rate_rows(res, ctx.control("reversed"))
    findings = [{"kind": "garbled source (conversion)", "where": "Table 3, row theta^(1)",
                 "detail": "entries unreadable (U11 shows '1 0 / 2b*', u12 '10 10', v21 '2b 0', v22 '-b*'); consistent "
                           "reading v21 = (2b*, 0), v22 = -b* gives b = b*, r = 0 on C1; the Theta1 start here is "
                           "numerics.lda.construct_theta1, an equivalent Theta1^reg point"},
                {"kind": "checked, no discrepancy", "where": "Table 3, row theta^(2), v22",
                 "detail": "(v21^T m_-1 - b* + pi v21^T dm)/(1 - 2 pi) agrees with eq. (7) and Lemma B.3 case 1"}]
    fig = {"title": "fig-1: effective distance under population GD (C1)", "xlabel": "t = k * step",
           "ylabel": "distance to E1 / E2", "xscale": "linear", "yscale": "log", "series": series}
    return softmix.outcome(softmix.part("numeric", rows), findings=findings, figures=[fig],
                           theta1=th1.tolist(), theta2=th2.tolist(),
                           protocol=f"population GD (GH, {p.nodes} nodes per projected direction), step {p.step}, "
                                    f"{p.steps} steps")


# ---- Figures 4 and 5 --------------------------------------------------------------------------------
@dataclass
class Fig5:
    lda: dict = field(default_factory=lambda: dict(N.C2))
    step: float = 1e-2
    steps: int = 2000
    batch: int = 64
    eval_every: int = 50
    nodes: int = 24
    replicates: int = 2
    threshold: float = 0.01


@dataclass
class Fig4(Fig5):
    #: more replicate pairs: with 2, a chance reversal of the mean happens (seed 8156)
    replicates: int = 4


_SGD_FULL = {"steps": 20000, "eval_every": 200, "replicates": 5}


def sgd_runs(P, p, stream, kind, step):
    """SGD replicates of Fig. 4 (all-Gaussian start) or Fig. 5 (U11 = 0, u12 = 0, v22 = 0, v21 ~ N(0, I)) by
    numerics.lda_dynamics.sgd_fast, ``stream(purpose, kind, r)`` giving the random streams.  Returns the
    (checkpoints, excess risk) of each replicate, R* (same quadrature) and the start checks."""
    d, n = P.d, p.nodes
    Rst = float(N.eff_risk(P, N.bayes_zeta(P), 0, n)[0])
    runs, starts = [], []
    for r in range(p.replicates):
        rng = stream("init", kind, r)
        if kind == "fig-4":
            th0 = rng.standard_normal(N.theta_size(d))
        else:
            th0 = N.pack_theta(np.zeros((d, d)), np.zeros(d), rng.standard_normal(d), 0.0)
        starts.append(start_check(P, th0, "gaussian" if kind == "fig-4" else "krylov"))
        _, curve = D.sgd_fast(P, th0, step, p.steps, p.batch, stream("sgd", kind, r), p.eval_every, n)
        runs.append((np.array([c[0] for c in curve]), np.array([c[1] for c in curve]) - Rst))
    return runs, Rst, starts


def _fig_spec(title, runs):
    series = []
    for i, (k, ex) in enumerate(runs):
        xs, ys = subsample(k, np.maximum(ex, 1e-12))
        series.append({"label": f"replicate {i}", "x": xs, "y": ys})
    return {"title": title, "xlabel": "SGD step", "ylabel": "excess population risk", "xscale": "linear",
            "yscale": "log", "series": series}


def _sgd_reference_rows(P, ctx):
    """numerics.lda_flow_references.sgd_step_references on the claim's configuration (C2: symmetric,
    balanced, isotropic, so several blocks coincide there) and on one drawn generic configuration (d = 3),
    made once per seed: sgd_fast = numerics.lda.sgd_attention step by step (<= 1e-12 max(1, scale)), and its
    first step = minus the step times central differences of the batch loss (<= 1e-6 max(1, |grad|))."""
    def make(rng):
        drawn = N.LDAProblem.from_params(draw_lda(rng, {"lda": {"m1": [0, 0, 0]}}, 0)["lda"])
        return [FR.sgd_step_references(Q, rng) for Q in (P, drawn)]
    rows = []
    for r in ctx.data("sgd-reference", make, {"config": P.to_params()}):
        rows += [{"check": "sgd_fast and sgd_attention record the same steps", "passed": r["same_steps"]},
                 {"check": "sgd_fast = sgd_attention (same stream)",
                  **softmix.Residual(dps=16, guard=4).decide(r["sgd_residual"], r["sgd_scale"])},
                 {"check": "first SGD step = central differences of the batch loss",
                  **softmix.Residual(dps=6, guard=0).decide(r["fd_residual"], r["grad_norm"])}]
    return rows


def _tail(ex, frac=0.1):
    return float(np.mean(ex[-max(1, int(round(frac * len(ex)))):]))


@softmix.claim(
    id="fig-5", title="SGD from U11=0, u12=0, v22=0, v21~N(0,I) reaches near-Bayes risk",
    source=f"{SOURCE}, Fig. 5 / App. B.13", section="lda", kind="experiment",
    statement="d = 20 (C2), SGD step 1e-2: rapid decrease toward a small excess risk",
    assumptions=_SYMBAL, controls={"step-zero": "same run with step size 0"}, profiles={"full": _SGD_FULL},
    configurations_note="specific to the paper's configuration: reproduces Fig. 5 (configuration C2, d = 20, SGD step "
                        "1e-2, Table 3); the general statement behind it (thm-3.6) draws configurations",
    independence="derived side: SGD in d = 20 from the paper's start; stated side: near-Bayes risk of Fig. 5; shared: "
                 "the risk code; the SGD against numerics.lda.sgd_attention on the same stream and its step against "
                 "central differences of the batch loss of f_theta, shared: the sampling stream")
def fig_5(p: Fig5, ctx):
    """Online SGD (fresh samples), population risk by projected GH every eval_every steps: every replicate's
    mean excess risk over the last 10 % of checkpoints <= initial / 10 and <= threshold."""
    P = N.LDAProblem.from_params(p.lda)
    if symmetric_balanced_violations(P):
        return softmix.part("numeric", [{"check": "symmetric balanced", "passed": None,
                                         "reason": f"violated: {symmetric_balanced_violations(P)}"}])
    step = 0.0 if ctx.control("step-zero") else p.step
    runs, Rst, starts = sgd_runs(P, p, ctx.stream, "fig-5", step)
    rows = _start_rows(starts) + _sgd_reference_rows(P, ctx)
    for i, (_k, ex) in enumerate(runs):
        rows.append(_bound(f"replicate {i}: tail excess <= min(initial / 10, threshold)", _tail(ex),
                           min(float(ex[0]) / 10, p.threshold), initial_excess=float(ex[0])))
    return softmix.outcome(softmix.part("numeric", rows), bayes_risk_quadrature=Rst,
                           figures=[_fig_spec("fig-5: SGD from U11=0, u12=0, v22=0, v21~N(0,I) (C2)", runs)],
                           protocol=f"online SGD, step {step}, batch {p.batch}, {p.steps} steps, fresh samples")


@softmix.claim(
    id="fig-4", title="All-Gaussian initialisation approaches the Bayes risk with difficulty",
    source=f"{SOURCE}, Fig. 4 / App. B.13", section="lda", kind="experiment",
    statement="d = 20 (C2), SGD step 1e-2 from all-Gaussian parameters: excess risk stays above the fig-5 run at "
              "matched steps",
    assumptions=_SYMBAL, controls={"reversed": "claims the all-Gaussian run is below the fig-5 run"},
    profiles={"full": _SGD_FULL},
    configurations_note="specific to the paper's configuration: reproduces Fig. 4 (configuration C2, d = 20, SGD step "
                        "1e-2, all-Gaussian start, Table 3)",
    independence="derived side: SGD in d = 20 from an all-Gaussian start; stated side: slow approach of Fig. 4; "
                 "shared: "
                 "the risk code")
def fig_4(p: Fig4, ctx):
    """Paired replicates (fig-4 and fig-5 starts, matched steps), made once per (seed, parameters) and shared
    with the control (a reversal decided on runs of its own could be chance, seed 8156): averaged over the
    pairs, the mean excess risk over the second half of the checkpoints is lower for the fig-5 start."""
    P = N.LDAProblem.from_params(p.lda)
    if symmetric_balanced_violations(P):
        return softmix.part("numeric", [{"check": "symmetric balanced", "passed": None,
                                         "reason": f"violated: {symmetric_balanced_violations(P)}"}])

    def make(_rng):
        r4, Rst, s4 = sgd_runs(P, p, ctx.stream, "fig-4", p.step)
        r5, _, s5 = sgd_runs(P, p, ctx.stream, "fig-5", p.step)
        return r4, r5, Rst, s4 + s5
    r4, r5, Rst, starts = ctx.data("fig-4-runs", make, p)
    rows = _start_rows(starts)
    m4 = float(np.mean([np.mean(e[len(k) // 2:]) for k, e in r4]))
    m5 = float(np.mean([np.mean(e[len(k) // 2:]) for k, e in r5]))
    if ctx.control("reversed"):
        rows.append(_bound("mean second-half excess: all-Gaussian below fig-5", m4, m5, strict=True))
    else:
        rows.append(_bound("mean second-half excess: fig-5 below all-Gaussian", m5, m4, strict=True))
    return softmix.outcome(softmix.part("numeric", rows), bayes_risk_quadrature=Rst,
                           figures=[_fig_spec("fig-4: SGD from all-Gaussian initialisation (C2)", r4),
                                    _fig_spec("fig-4 vs fig-5 (paired): fig-5 initialisation", r5)])
