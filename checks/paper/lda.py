"""Section 3 / Appendix B: attention-based LDA -- the LDA configurations and the symbolic statements.

SymPy derives each object (the attention output from the CGF of the degenerate token mixture,
gradients and Hessians by differentiation) and :func:`softmix.decide` compares it with the paper's
stated formula, every parameter a symbol.  The numeric statements are in :mod:`.lda_bayes`
(Bayes points) and :mod:`.lda_hessian` (Hessian kernels, Thm 3.5).

This module also holds what the LDA claims share: the configuration draws :func:`draw_lda` and
:func:`draw_lda_symmetric` (generic configurations, none of the coincidences of the paper's C1) and
the validation of an LDA problem given in ``--config``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from softmix.numerics import lda as N

# re-exported for lda_landscape and lda_dynamics (not yet ported): they import them from here
from softmix.numerics.lda_bayes import bayes_risk_reference, start_check  # noqa: F401
from softmix.theory import lda as T

from .. import configs as C
from ..api import claim, decide, outcome, part
from ..params import register_shape

SOURCE = "Gabet-Boursier-Boyer 2026"
SECTION = "lda"

# an LDA problem given in --config is checked as numerics will take it (Gamma positive definite, pi_plus in
# (0, 1), m1 != m_1) before anything runs, wherever it appears (lda, problem, extra_configs entries)
register_shape(("m1", "m_1", "Gamma", "pi_plus"), lambda v, where: N.LDAProblem.from_params(v, where))


def c1() -> dict:
    """The paper's configuration C1 (a fresh copy: a parameter default)."""
    return {k: (list(v) if isinstance(v, list) else v) for k, v in N.C1.items()}


def _given(params, key):
    base = params.get(key) if isinstance(params, dict) else getattr(params, key, None)
    return base or N.C1


def _separated(m, G, lo, hi):
    """Gamma's smallest eigenvalue >= 0.3 and the Mahalanobis norm of ``m`` in [lo, hi]."""
    Gf = np.array([[float(x) for x in r] for r in G])
    mf = np.array([float(x) for x in m])
    maha = float(np.sqrt(mf @ np.linalg.solve(Gf, mf)))
    return np.linalg.eigvalsh(Gf).min() >= 0.3 and lo <= maha <= hi


def draw_lda(rng, params, i, key="lda"):
    """Drawn LDA configuration, same dimension as the given one: pi_+ away from 1/2, means of unequal norms
    (never m1 = -m_-1), non-isotropic full-rank Gamma with non-zero off-diagonal entries -- none of the
    coincidences of the paper's C1 (equal norms, Gamma = I).  The classes are kept moderately separated
    (Mahalanobis distance in [0.7, 2.2], Gamma's smallest eigenvalue >= 0.3) so that the fixed quadrature
    rules of the checks converge: a drawn configuration must be decidable, not merely generic.
    ``params``: the claim's parameters (dataclass or dict)."""
    d = len(_given(params, key)["m1"])
    for _ in range(1000):
        m = C.means(rng, 2, d, norm_range=(0.4, 1.5))
        G = C.spd(rng, d)
        if _separated([float(a) - float(b) for a, b in zip(m[0], m[1])], G, 0.7, 2.2):
            break
    return {key: {"m1": m[0], "m_1": m[1], "Gamma": G, "pi_plus": C.weights(rng, 2, away=0.15)[0]}}


def draw_lda_symmetric(rng, params, i, key="lda", balanced=False, max_d=3):
    """Drawn configuration generic within the symmetry m_-1 = -m1: m1 with no zero entry, non-isotropic
    full-rank Gamma with non-zero off-diagonal entries (smallest eigenvalue >= 0.3, Mahalanobis norm
    (m1^T Gamma^-1 m1)^(1/2) in [0.35, 1.1]), pi_+ away from 1/2 unless ``balanced`` (then pi_+ = 1/2).
    Dimension: the given one, capped at ``max_d`` (the paper's 20-dimensional C2 would make the checks'
    quadratures too expensive)."""
    d = min(len(_given(params, key)["m1"]), int(max_d))
    for _ in range(1000):
        m = C.vector(rng, d, norm_range=(0.4, 1.5))
        G = C.spd(rng, d)
        if _separated(m, G, 0.35, 1.1):
            break
    neg = [x[1:] if x.startswith("-") else "-" + x for x in m]
    pi = "0.5" if balanced else C.weights(rng, 2, away=0.15)[0]
    return {key: {"m1": m, "m_1": neg, "Gamma": G, "pi_plus": pi}}


def require_positive(p, *names, allow_zero=()) -> None:
    """``__post_init__`` helper: each named field is a positive integer (a field in ``allow_zero`` may be 0);
    a ValueError makes a bad ``--config`` value exit 2 before anything runs."""
    for name in names:
        v = getattr(p, name)
        if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name in allow_zero else 1):
            kind = "non-negative" if name in allow_zero else "positive"
            raise ValueError(f"{name} must be a {kind} integer, got {v!r}")


def active_control(ctx, names) -> str | None:
    """The declared control this run decides (the name the theory's derivations take as ``variant``), or None."""
    return next((n for n in names if ctx.control(n)), None)


_GENERAL = "symbolic in general parameters: m1, m_-1, a symmetric Gamma, pi_+"
_PROOF_COVERS = "(the proof covers every configuration of dimension sym_dim"


# ---- Lemma B.1 -----------------------------------------------------------------------------------
@dataclass
class LemmaB1:
    sym_dim: int = 2
    also_d1: bool = True

    def __post_init__(self):
        require_positive(self, "sym_dim")


_B1 = {"untransposed-U11": "U11 x instead of U11^T x in the gate and the mean",
       "dropped-2": "factor 2 in front of t(x, y) dropped"}


def _b1_derivations(p: LemmaB1, variant=None):
    d1 = [T.lemma_b1_derivation(1)] if variant is None and p.also_d1 else []
    return d1 + [T.lemma_b1_derivation(p.sym_dim, variant)]


@claim(id="lemma-b.1", title="Attention on the LDA token law is a sigmoid-gated affine map",
       source=f"{SOURCE}, Lemma B.1",
       statement="T_{U,V}[mu_LDA](x,y) = V (Gamma(U11^T x + y u21) + (1-alpha) m_-1 + alpha m_1 ; 2 alpha - 1), "
                 "alpha = sigma(log(pi/(1-pi)) + 2(u12^T x + y u22) + <U11^T x + y u21, m1 - m_-1>)",
       section=SECTION, kind="symbolic", controls=_B1, profiles={"full": {"sym_dim": 3}},
       assumptions=("degenerate token covariance blockdiag(Gamma, 0)", "block convention (12)"),
       derivations=lambda p: _b1_derivations(p),
       configurations_note=f"{_GENERAL}, every block of U and V and the query (x, y) are symbols {_PROOF_COVERS}, "
                           "and d = 1)",
       independence="derived side: attention output computed from the LDA token law's MGF (SymPy); stated side: "
                    "sigmoid-gated affine map of Lemma B.1; shared: nothing")
def lemma_b1(p: LemmaB1, ctx):
    return outcome(decide(_b1_derivations(p, active_control(ctx, _B1)), ctx),
                   transposes="s(x,y) = U11^T x + y u21 and t = u12^T x + y u22 follow from z^T U^T z' with "
                              "U^T = [[U11,u12],[u21^T,u22]]; derived and stated agree")


# ---- eqs. (6)-(7), Prop. B.2, Lemmas B.9, B.14, Prop. B.12: one derivation each ---------------------
@dataclass
class SymbolicDim:
    sym_dim: int = 2

    def __post_init__(self):
        require_positive(self, "sym_dim")


@dataclass
class SymbolicDim1(SymbolicDim):
    sym_dim: int = 1


_E67 = {"transposed-w": "w = U11^T Gamma v21", "transposed-s": "s = 2 u12 + U11^T dm"}


@claim(id="eq-6-7", title="Last output coordinate at query (x,0) is w^T x + b + r sigma(s0 + s^T x)",
       source=f"{SOURCE}, eqs. (6)-(7)", section=SECTION, kind="symbolic", controls=_E67,
       statement="f_theta(x) = w^T x + b + r sigma(s0 + s^T x), w = U11 Gamma v21, b = v21^T m_-1 - v22, "
                 "r = v21^T dm + 2 v22, s = 2 u12 + U11 dm, s0 = log(pi/(1-pi))",
       profiles={"full": {"sym_dim": 3}}, derivations=lambda p: [T.eq67_derivation(p.sym_dim)],
       configurations_note=f"{_GENERAL}, theta and x are symbols at the statement's query (x, 0) {_PROOF_COVERS})",
       independence="derived side: last coordinate of the derived attention output; stated side: "
                    "w^T x + b + r sigma(s0 + s^T x); shared: nothing")
def eq_6_7(p: SymbolicDim, ctx):
    return decide([T.eq67_derivation(p.sym_dim, active_control(ctx, _E67))], ctx)


_B2 = {"dropped-half": "b* without the factor 1/2", "flipped-sign": "w* replaced by -w*"}


@claim(id="prop-b.2", title="Bayes score of LDA is affine (eq. (5))", source=f"{SOURCE}, Prop. B.2 / eq. (5)",
       statement="eta(x) = sigma(w*^T x + b*), w* = Gamma^-1 dm, "
                 "b* = -(m1^T G^-1 m1 - m_-1^T G^-1 m_-1)/2 + log(pi/(1-pi))",
       section=SECTION, kind="symbolic", controls=_B2, profiles={"full": {"sym_dim": 3}},
       derivations=lambda p: [T.prop_b2_derivation(p.sym_dim)],
       configurations_note="symbolic in general parameters: m1, m_-1, pi_+, x and the precision matrix Gamma^-1 "
                           f"(a symmetric matrix of symbols) {_PROOF_COVERS})",
       independence="derived side: posterior P(Y=1|X) by Bayes' rule on the Gaussian densities; stated side: "
                    "sigma(w^T x + b) of eq. (5); shared: nothing")
def prop_b2(p: SymbolicDim, ctx):
    return decide([T.prop_b2_derivation(p.sym_dim, active_control(ctx, _B2))], ctx)


_B9 = {"dropped-factor": "sigma(1-sigma) replaced by sigma in the s-block", "flipped-sign": "E[l'|X] = eta - sigma(t)"}


def _b9_derivations(p: SymbolicDim, variant=None):
    return [T.lemma_b7_derivation("flipped-sign" if variant == "flipped-sign" else None),
            T.lemma_b9_derivation(p.sym_dim, "dropped-factor" if variant == "dropped-factor" else None)]


@claim(id="lemma-b.9", title="Gradient of the effective risk", source=f"{SOURCE}, Lemmas B.7 and B.9",
       statement="grad R~(zeta) = E[(sigma(g_zeta(X)) - eta(X)) grad g_zeta(X)] with the four displayed blocks",
       section=SECTION, kind="symbolic", controls=_B9, derivations=lambda p: _b9_derivations(p),
       configurations_note="symbolic at the integrand level in general symbols (w, b, r, s, s0, x and eta free; the "
                           f"Lemma B.7 step in scalars t, eta) {_PROOF_COVERS})",
       independence="derived side: derivative of the conditional logistic loss; stated side: "
                    "E[(sigma(f) - eta) Df]; shared: nothing")
def lemma_b9(p: SymbolicDim, ctx):
    return decide(_b9_derivations(p, active_control(ctx, _B9)), ctx)


_B12 = {"dropped-zero-block": "s-block of grad g taken as X instead of 0"}


@claim(id="prop-b.12", title="Hessian of the effective risk on E1", source=f"{SOURCE}, Prop. B.12",
       statement="grad^2 R~(zeta*) = E[eta(1-eta) grad g grad g^T], grad g = (X, 1, sigma(s0+s*^T X), 0)",
       section=SECTION, kind="symbolic", controls=_B12, profiles={"full": {"sym_dim": 2}},
       derivations=lambda p: [T.prop_b12_derivation(p.sym_dim)],
       configurations_note="symbolic in general symbols at a general point (w*, b*, 0, s) of E1 (w*, b*, s, s0 and x "
                           f"free; r = 0 is the statement's E1) {_PROOF_COVERS})",
       independence="derived side: SymPy Hessian of the effective risk; stated side: the Prop. B.12 formula; "
                    "shared: nothing")
def prop_b12(p: SymbolicDim1, ctx):
    return decide([T.prop_b12_derivation(p.sym_dim, active_control(ctx, _B12))], ctx)


_B14 = {"dropped-term": "dw without U11 Gamma dv21"}


@claim(id="lemma-b.14", title="Differential of the reparametrisation Phi", source=f"{SOURCE}, Lemma B.14",
       statement="DPhi(theta)[dtheta] = (dU11 Gamma v21 + U11 Gamma dv21, dv21^T m_-1 - dv22, dv21^T dm + 2 dv22, "
                 "2 du12 + dU11 dm)",
       section=SECTION, kind="symbolic", controls=_B14, derivations=lambda p: [T.lemma_b14_derivation(p.sym_dim)],
       configurations_note=f"{_GENERAL}, theta and the direction are symbols {_PROOF_COVERS})",
       independence="derived side: Jacobian of Phi by differentiation; stated side: DPhi as printed; shared: "
                    "Phi's expression")
def lemma_b14(p: SymbolicDim, ctx):
    return decide([T.lemma_b14_derivation(p.sym_dim, active_control(ctx, _B14))], ctx)


# ---- Lemma B.8: the variations of f_theta, and a typo in the printed D^2 display ---------------------
_B8 = {"dropped-2": "corrected D^2 with the bilinear term 2 dv^T Gamma dU^T x halved",
       "as-printed": "the printed D^2 display (cross term once)"}


def _typo_finding(printed):
    return {"kind": "typo (coefficient)", "where": "Lemma B.8, display of D^2 f_theta[h,h]",
            "detail": "the cross term (dv21^T dm + 2 dv22) sigma'(z)(2 du12 + dU11 dm)^T x must carry a factor 2 "
                      "(d^2/deps^2 of r(eps) sigma(z(eps)) gives 2 r' sigma' z'); the printed first variation is "
                      "correct",
            "counterexample": printed.rows[0].get("counterexample"),
            "impact": "none on the results: D^2 f enters only multiplied by sigma(f)-eta, which vanishes at Bayes "
                      "points (Prop. B.12)"}


@claim(id="lemma-b.8", title="First and second variations of f_theta", source=f"{SOURCE}, Lemma B.8",
       statement="Df_theta[h] as displayed; D^2 f_theta[h,h] as displayed up to a typo (the cross term carries a "
                 "factor 2)",
       section=SECTION, kind="symbolic", controls=_B8, profiles={"full": {"sym_dim": 2}},
       derivations=lambda p: T.lemma_b8_derivations(p.sym_dim),
       configurations_note=f"{_GENERAL}, theta, the direction h and x are symbols {_PROOF_COVERS}: 1 in quick, 2 in "
                           "full)",
       independence="derived side: SymPy derivatives of f_theta; stated side: the paper's first/second variations "
                     "(as printed and corrected); shared: f_theta's expression")
def lemma_b8(p: SymbolicDim1, ctx):
    """Decides the lemma's content (Df as printed, D^2 f with the cross term doubled, and derived - printed =
    the missing cross term); the printed D^2 display is a typo, recorded as a finding and refuted separately
    by the 'as-printed' control."""
    variant = active_control(ctx, _B8)
    ds = T.lemma_b8_derivations(p.sym_dim, variant)
    if variant:
        return decide([ds[2]], ctx)
    printed = decide([ds[1]], ctx, name="printed D^2 display")
    typo = [_typo_finding(printed)] if printed.verdict == "refuted" else []
    return outcome(decide([ds[0], ds[2], ds[3]], ctx), findings=typo, printed_display=printed.evidence())


# ---- Lemma B.10: the attention-coordinate gradients -------------------------------------------------
@dataclass
class LemmaB10:
    sym_dim: int = 2
    d2_search: bool = True

    def __post_init__(self):
        require_positive(self, "sym_dim")


_B10 = {"untransposed": "U11^T inserted: X (Gamma U11^T v21)^T", "flipped-sign": "sign of the v22 gradient flipped"}


def _d2_search(ctx, variant):
    """Random-point search (no proof) at d = 2, where transposes show: rows with a counterexample refute."""
    rows = []
    for D in T.lemma_b10_derivations(2, variant):
        ce = D.counterexample(seed=int(ctx.stream("d2-search", D.name).integers(0, 10**6)))
        bad = ce["residual"] > sp.Float(10) ** (5 - 30) * ce["scale"]
        rows.append({"derivation": D.name, "max_residual_at_random_points": f"{float(ce['residual']):.3e}",
                     "passed": False if bad else None, **({"counterexample": ce["point"]} if bad else {}),
                     "status": "refuted" if bad else "no counterexample at 8 random points"})
    return rows


@claim(id="lemma-b.10", title="Explicit gradients of R in attention coordinates", source=f"{SOURCE}, Lemma B.10",
       statement="grad_U11 R = E[(sigma(f)-eta)(X (Gamma^T v21)^T + r sigma' X dm^T)], grad_u12 = 2 r E[...sigma' X], "
                 "...; equivalently DPhi^* grad R~",
       section=SECTION, kind="symbolic", controls=_B10, profiles={"quick": {"sym_dim": 1}},
       derivations=lambda p: T.lemma_b10_derivations(p.sym_dim),
       configurations_note=f"{_GENERAL}, theta, x and eta are symbols {_PROOF_COVERS}: 1 in quick, where a "
                           "transpose is invisible, 2 in full; the controls add a d = 2 random-point search)",
       independence="derived side: chain rule through f_theta (SymPy); stated side: the explicit attention-coordinate "
                    "gradients; shared: f_theta's expression")
def lemma_b10(p: LemmaB10, ctx):
    variant = active_control(ctx, _B10)
    sym = decide([] if variant else T.lemma_b10_derivations(p.sym_dim), ctx)
    extra = {"orientation": "grad_U11 of w^T x = x^T U11 Gamma v21 is x (Gamma v21)^T; the paper's X (Gamma^T v21)^T "
                            "is the same since Gamma is symmetric; eq. (7) w = U11 Gamma v21 and Lemma B.3's "
                            "v21^T Gamma U11^T x agree"}
    if not (variant or (p.sym_dim < 2 and p.d2_search)):
        return outcome(sym, **extra)
    rows = _d2_search(ctx, variant)
    found = [r for r in rows if r["passed"] is False]
    if found:  # a counterexample refutes; a search that found none proves nothing and stays evidence
        return outcome(sym, part("symbolic", found, name="d=2 random-point search"), **extra)
    return outcome(sym, symbolic_d2_search=rows, **extra)
