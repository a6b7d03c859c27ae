"""Attention on in-context linear regression: the predecessor's dynamics and linear attention's fixed point.

* ``bb-thm-5.1`` -- Boursier & Boyer (2026), Thm 5.1: the risk R(A, b), the conserved
  ||A||_F^2 - b^2 and the balanced limit of the gradient flow, and finite-prompt transfer;
* ``zfb-linear-flow`` -- Zhang, Frei & Bartlett (2024), Thm 4.1: Gamma_N^-1 and the minimal loss.

The references (gradient flows, risks, Monte Carlo losses) are public in :mod:`softmix.numerics.beyond`,
the derivations in :mod:`softmix.theory.beyond`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.numerics import beyond as NB
from softmix.numerics.memo import remember
from softmix.numerics.precision import exact_floats, workdps
from softmix.theory import beyond as TB

from .. import configs as C
from ..api import claim, decide, part
from ..configurations import Draws
from ..fits import SlopeRule
from ..params import Exact, exact_default
from ..rules import AlphaFamily, Residual, ZTest


def exact_matrix(M) -> sp.Matrix:
    """A SymPy matrix of the exact rationals of ``M`` (Fractions, decimal or ``p/q`` strings)."""
    return sp.Matrix([[sp.Rational(str(x)) for x in r] for r in M])


# ---- bb-thm-5.1 -----------------------------------------------------------------------------
@dataclass
class Thm51:
    Sigma: list[list[Exact]] = field(default_factory=lambda: exact_default([["1", "0.25"], ["0.25", "0.5"]]))
    alpha_fraction: float = 0.5
    mp_horizon: float = 0.25
    dps: int = 30
    float_horizon: float = 400.0
    transfer_Ls: list[int] = field(default_factory=lambda: [4, 16, 64, 256])
    transfer_Sigma_1d: float = 1.0
    transfer_train: int = 4000
    transfer_test: int = 8000
    unbalanced_b_factor: float = 0.5


def _draw_thm51(rng, p: Thm51, i):
    """A non-diagonal Sigma (eigenvalues in [0.3, 2], so that the float flow converges within its
    horizon) and an alpha inside the stated range (a fraction in [0.2, 0.9] of the bound)."""
    D = len(p.Sigma)
    for _ in range(1000):
        S = C.spd(rng, D)
        Sf = np.array([[float(x) for x in r] for r in S])
        ev = np.linalg.eigvalsh(Sf)
        if 0.3 <= ev.min() and ev.max() <= 2.0 and np.all(Sf != 0):
            return {"Sigma": S, "alpha_fraction": float(C.rational(rng, 0.2, 0.9))}
    return None


def _gradient_row(Sig_s, Sig, d):
    """The numeric gradient and risk (numerics.beyond) against SymPy's at a rational point."""
    R, As, bs, Ss, dA, db = TB.regression_flow(d)
    pt = {bs: sp.Rational(3, 7)}
    pt.update({Ss[i, j]: Sig_s[i, j] for i in range(d) for j in range(d)})
    Ar = sp.Matrix(d, d, lambda i, j: sp.Rational(i + 2 * j + 1, 5))
    pt.update({As[i, j]: Ar[i, j] for i in range(d) for j in range(d)})
    A = np.array(Ar.tolist(), float)
    gA, gb = NB.regression_grad(A, 3 / 7, Sig)
    res = max(np.max(np.abs(gA + np.array(dA.subs(pt).tolist(), float))), abs(gb + float(db.subs(pt))),
              abs(float(NB.regression_risk(A, 3 / 7, Sig)) - float(R.subs(pt))))
    return {"check": "numeric gradient and risk == SymPy's at a rational point",
            **Residual(dps=15, guard=3).decide(res, 1)}


def _sympy_risk_mp(d: int, Am, bm, Sig):
    """The stated risk R(A, b) of theory.beyond, lambdified to mpmath, at the mpmath point (A, b) and the
    float64 Sigma taken exactly (at the current precision)."""
    R, As, bs, Ss, _dA, _db = TB.regression_flow(d)
    vals = {bs: bm}
    for i in range(d):
        for j in range(d):
            vals[As[i, j]], vals[Ss[i, j]] = Am[i, j], mpm.mpf(float(Sig[i, j]))
    syms = sorted(R.free_symbols, key=str)
    return sp.lambdify(syms, R, "mpmath")(*[vals[x] for x in syms])


def _flow_rows(ctx, p: Thm51, A0, b0, Sig):
    """Conservation of ||A||_F^2 - b^2 by the dps-digit Taylor flow, that flow against the float64
    DOP853 flow at the short horizon, and the float flow's limit against the stated one."""
    d, T1 = Sig.shape[0], float(p.mp_horizon)
    Am, bm = ctx.data("mp-flow", lambda rng: NB.flow_mp(*exact_floats([A0, b0, Sig, T1]), p.dps),
                      params=[A0.tolist(), b0, Sig.tolist(), T1, p.dps])
    with workdps(p.dps):
        inv0 = mpm.fsum(x**2 for x in mpm.matrix(A0.tolist())) - mpm.mpf(b0) ** 2
        inv1 = mpm.fsum(Am[i, j] ** 2 for i in range(d) for j in range(d)) - bm**2
        rows = [{"check": f"||A||_F^2 - b^2 conserved to horizon {T1:g}", **Residual(dps=p.dps).decide(inv1 - inv0)}]
        risk = NB.regression_risk_mp(Am, bm, Sig, p.dps)
        ref = _sympy_risk_mp(d, Am, bm, Sig)
        rows.append({"check": "numerics' dps-digit risk == SymPy's R(A, b) lambdified to mpmath, at the flow's point",
                     "risk_at_horizon": mpm.nstr(risk, 20), **Residual(dps=p.dps).decide(risk - ref, ref)})
    Af1, bf1, _s = NB.flow_float(A0, b0, Sig, T1)
    dist = max(max(abs(float(Am[i, j]) - Af1[i, j]) for i in range(d) for j in range(d)), abs(float(bm) - bf1))
    rows.append({"check": "dps-digit flow == float64 DOP853 flow (rtol 1e-11) at the short horizon",
                 "risk_float64_at_horizon": float(NB.regression_risk(Af1, bf1, Sig)),
                 **Residual(dps=11, guard=2).decide(dist, abs(bf1))})
    Af, bf, sol = NB.flow_float(A0, b0, Sig, float(p.float_horizon))
    Astar, bstar = NB.stated_limit(Sig)
    rows.append({"check": f"float flow at T = {p.float_horizon:g} == the stated limit (b*, A*)", "A_T": Af.tolist(),
                 "b_T": bf, "stated_A_star": Astar.tolist(), "stated_b_star": bstar, "nfev": int(sol.nfev),
                 "risk_at_T": float(NB.regression_risk(Af, bf, Sig)),
                 **Residual(dps=11, guard=3).decide(max(np.max(np.abs(Af - Astar)), abs(bf - bstar)), bstar)})
    return rows


def _transfer_rows(ctx, p: Thm51):
    """Finite-prompt training (d = 1): the held-out risk decreases with L towards the infinite-prompt
    minimum 0 (a slope interval below 0, and the last risk below the first)."""
    def train(rng):
        return [NB.train_finite_prompt_regression(int(L), float(p.transfer_Sigma_1d), p.transfer_train,
                                                  p.transfer_test, rng) for L in p.transfer_Ls]
    trows = ctx.data("transfer", train, params=[p.transfer_Ls, p.transfer_Sigma_1d, p.transfer_train, p.transfer_test])
    rule = SlopeRule(AlphaFamily().rest("transfer-slope"), target=0.0, mode="below", gof=False,
                     name="transfer: log-log slope of the held-out risk")
    dec = rule.decide([r["L"] for r in trows], [r["test_risk"] for r in trows], [r["test_risk_se"] for r in trows])
    return [{**dec, "per_L": trows},
            {"check": "held-out risk at the largest L below the one at the smallest",
             "passed": bool(trows[-1]["test_risk"] < trows[0]["test_risk"])}]


@claim(id="bb-thm-5.1",
       title="In-context regression: risk R(A,b), gradient flow, conserved ||A||_F^2 - b^2, balanced limit",
       source="Boursier & Boyer, ICML 2026, Thm 5.1 (and Sec. 5 dynamics)", section="beyond", kind="symbolic",
       statement=("R(A,b) = 1/2 tr((b Sigma A - I) Sigma (b Sigma A - I)^T); ||A||_F^2 - b^2 is conserved by the "
                  "gradient flow; from the balanced initialisation with 0 < alpha < sqrt(2)/(d^(1/4) ||Sigma||_op) the "
                  "flow converges to b* = tr(Sigma^-2)^(1/4), A* = tr(Sigma^-2)^(-1/4) Sigma^-1; finite-prompt "
                  "training approaches it as L grows"),
       assumptions=("tokens (x, w^T x), x ~ N(0, Sigma), w ~ N(0, I_d), query (x_q, 0)", "preserved blocks (A, b)",
                    "A(0) = alpha I / sqrt(d), b(0) = alpha"),
       profiles={"full": {"mp_horizon": 1.0, "dps": 40, "transfer_Ls": [4, 16, 64, 256, 1024],
                          "transfer_train": 20000, "transfer_test": 40000}},
       controls={"unbalanced-init": "b(0) = alpha/2: ||A(0)||_F^2 - b(0)^2 != 0, stated limit compared"},
       independence=("derived side: integrated gradient flow (mpmath Taylor and float64 DOP853), the risk derived "
                     "from the attention map; stated side: R(A, b), conserved ||A||_F^2 - b^2, balanced limit; "
                     "shared: nothing"),
       configurations=Draws(_draw_thm51, quick=1, full=3),
       derivations=lambda: [TB.regression_risk_derivation(2), TB.conservation_derivation(2),
                            TB.balanced_limit_derivation(sp.Matrix([[sp.Symbol("s", positive=True)]]))])
def bb_thm_5_1(p: Thm51, ctx):
    """Symbolic: the risk, the conservation law and the balanced limit (for the configuration's
    Sigma and conserved value).  Numeric: SymPy's gradient is the one integrated, conservation at
    dps digits, the float flow's limit.  Monte Carlo: finite-prompt transfer."""
    Sig_s = exact_matrix(p.Sigma)
    Sig = np.array(Sig_s.tolist(), dtype=float)
    d = Sig.shape[0]
    alpha = float(p.alpha_fraction) * math.sqrt(2) / (d ** 0.25 * float(np.linalg.norm(Sig, 2)))
    unbalanced = ctx.control("unbalanced-init")
    A0, b0 = NB.balanced_init(alpha, d, float(p.unbalanced_b_factor) if unbalanced else 1.0)
    c = sp.nsimplify(float(np.sum(A0**2) - b0**2), rational=True) if unbalanced else sp.Integer(0)
    derivs = [TB.regression_risk_derivation(2), TB.conservation_derivation(2),
              TB.balanced_limit_derivation(sp.Matrix([[sp.Symbol("s", positive=True)]]), 0),
              TB.balanced_limit_derivation(Sig_s, c)]
    numeric = [_gradient_row(Sig_s, Sig, d)] + _flow_rows(ctx, p, A0, b0, Sig)
    return [decide(derivs, ctx), part("numeric", numeric), part("monte-carlo", _transfer_rows(ctx, p))]


# ---- zfb-linear-flow ------------------------------------------------------------------------
@dataclass
class ZFB:
    Lambda: list[list[Exact]] = field(default_factory=lambda: exact_default([["1", "0.3", "0"], ["0.3", "0.7", "0.1"],
                                                                            ["0", "0.1", "0.4"]]))
    Ns: list[int] = field(default_factory=lambda: [3, 10])
    samples: int = 100000
    flow_horizon: float = 4000.0


def _draw_zfb(rng, p: ZFB, i):
    """A non-isotropic, non-diagonal Lambda with eigenvalues in [0.3, 2], so that the gradient flow
    (rate ~ lambda_min^3) converges within the horizon and the losses stay of order one."""
    for _ in range(1000):
        L = C.spd(rng, len(p.Lambda))
        ev = np.linalg.eigvalsh(np.array([[float(x) for x in r] for r in L]))
        if 0.3 <= ev.min() and ev.max() <= 2.0:
            return {"Lambda": L}
    return None


def _zfb_closed_form_rows(Lam_s, Lam, Ns):
    """numerics' float64 Gamma_N and closed-form loss against theory's (exact Lambda, the generic
    non-symmetric A_ij = (2i - 3j + 1)/7) at each N."""
    d = len(Lam)
    N_ = sp.Symbol("N", positive=True)
    Ag = sp.Matrix(d, d, lambda i, j: sp.Rational(2 * i - 3 * j + 1, 7))
    loss = remember("beyond.zfb-loss", str(Lam_s.tolist()), lambda: sp.expand(TB.zfb_loss(Lam_s, N_, Ag)))
    rows = []
    for N in Ns:
        g_err = np.max(np.abs(NB.zfb_gamma(Lam, N) - np.array(TB.zfb_gamma(Lam_s, sp.Integer(N)).tolist(), float)))
        l_ref, l_num = float(loss.subs(N_, N)), float(NB.zfb_loss_closed_form(Lam, N, np.array(Ag.tolist(), float)))
        rows.append({"N": N, "check": "Gamma_N: numerics == theory", **Residual(dps=16, guard=4).decide(
            g_err, float(np.abs(Lam).max()))})
        rows.append({"N": N, "check": "loss at a generic A: numerics == theory", "float64": l_num, "sympy": l_ref,
                     **Residual(dps=16, guard=4).decide(abs(l_num - l_ref), abs(l_ref))})
    return rows


def _zfb_gamma_stated(ctx, Lam, N):
    if ctx.control("dropped-trace"):
        return (1 + 1 / N) * Lam
    if ctx.control("infinite-N"):
        return Lam
    return NB.zfb_gamma(Lam, N)


@claim(id="zfb-linear-flow",
       title=("Linear attention on in-context regression: fixed point Gamma_N^-1, minimal loss "
              "1/2[tr Lam - tr(Gamma_N^-1 Lam^2)]"),
       source="Zhang, Frei & Bartlett 2024, 'Trained transformers learn linear models in-context', Thm 4.1",
       section="beyond", kind="symbolic",
       statement=("Gamma_N = (1 + 1/N) Lambda + tr(Lambda)/N I; the gradient-flow limit predictor is "
                  "x_q^T Gamma_N^-1 (1/N) sum y_i x_i and its loss is 1/2 [tr Lambda - tr(Gamma_N^-1 Lambda^2)]"),
       assumptions=("x_i ~ N(0, Lambda) i.i.d.", "w ~ N(0, I_d)", "noiseless labels", "reduced parametrisation A"),
       profiles={"full": {"Ns": [2, 3, 10, 30], "samples": 400000}},
       controls={"dropped-trace": "Gamma_N = (1 + 1/N) Lambda (trace term dropped)",
                 "infinite-N": "Gamma_N = Lambda (the infinite-prompt answer)"},
       independence=("derived side: the loss from Gaussian fourth moments (SymPy), integrated linear-attention flow "
                     "and Monte Carlo loss; stated side: Gamma_N^-1, the minimal loss and numerics' float64 closed "
                     "forms; shared: nothing"),
       configurations=Draws(_draw_zfb, quick=1, full=3),
       derivations=lambda: [TB.zfb_moment_derivation(2), TB.zfb_minimiser_derivation(2), TB.zfb_min_loss_derivation(2)])
def zfb_linear_flow(p: ZFB, ctx):
    """Symbolic: E[hh^T], the minimiser and the minimal loss.  Numeric: the flow from A = 0 ends at
    the stated fixed point; numerics' closed forms == theory's.  Monte Carlo (over prompts, the task
    and the query integrated exactly): the loss at the stated fixed point is the stated minimum,
    the loss at A = I the closed form (z-tests, Bonferroni)."""
    variant = next((v for v in ("dropped-trace", "infinite-N") if ctx.control(v)), None)
    derivs = remember("beyond.zfb-derivations", variant, lambda: [  # built once per run and variant
        TB.zfb_moment_derivation(2), TB.zfb_minimiser_derivation(2, variant), TB.zfb_min_loss_derivation(2, variant)])
    Lam_s = exact_matrix(p.Lambda)
    Lam = np.array(Lam_s.tolist(), float)
    d = len(Lam)
    numeric, est, se, pred = _zfb_closed_form_rows(Lam_s, Lam, p.Ns), [], [], []
    for N in p.Ns:
        Gs = _zfb_gamma_stated(ctx, Lam, N)
        Astat = np.linalg.inv(Gs)
        Aflow = ctx.data(("flow", N), lambda rng: NB.zfb_flow_limit(Lam, N, p.flow_horizon),
                         params=[p.Lambda, p.flow_horizon])
        numeric.append({"N": N, "check": "flow limit from A = 0 == the stated fixed point Gamma_N^-1",
                        "stated_fixed_point": Astat.tolist(), "flow_limit": Aflow.tolist(),
                        **Residual(dps=11, guard=3).decide(np.max(np.abs(Aflow - Astat)), np.max(np.abs(Astat)))})
        # the same prompts (one stream, not keyed on the control) at the claim's or the control's fixed point
        lo = NB.zfb_sample_losses(Lam, N, Astat, p.samples, ctx.stream("prompts-at-fixed-point", N, str(p.Lambda)))
        le = ctx.data(("loss-at-identity", N), lambda rng: NB.zfb_sample_losses(Lam, N, np.eye(d), p.samples, rng),
                      params=[p.Lambda, p.samples])
        est += [lo.mean(), le.mean()]
        se += [lo.std(ddof=1) / math.sqrt(len(lo)), le.std(ddof=1) / math.sqrt(len(le))]
        pred += [0.5 * (np.trace(Lam) - np.trace(np.linalg.solve(Gs, Lam @ Lam))),
                 NB.zfb_loss_closed_form(Lam, N, np.eye(d))]
    zt = ZTest(AlphaFamily().rest("loss-z-tests"), name="losses at Gamma_N^-1 and at I").decide(est, se, pred)
    zt.update(estimates=[float(x) for x in est], predicted=[float(x) for x in pred], Ns=list(p.Ns))
    return [decide(derivs, ctx), part("numeric", numeric), part("monte-carlo", [zt])]
