"""Section 2 / Appendix A claims: the measure-level softmax and linear attention operators.

Each claim has a symbolic part (SymPy proves derived == stated for generic small dimensions)
and a numeric part (agreement at ``dps`` digits with an independent computation: Gauss-Hermite
quadrature of the defining integral (1), or exact differentiation of the cumulant generating
function at the given rationals).  Negative controls alter the *stated* side only, and are
decided on the same random instances as the claim (``ctx.data``).

Written with the claim API (:mod:`softmix.checks.api`): parameters are dataclasses, parts are
combined by the one verdict lattice, rows come from rule objects.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.numerics import attention as NA, normalized_attention as NT
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.precision import to_mpf, workdps
from softmix.numerics.quadrature import expect_mixture, expect_with_error
from softmix.theory import attention as TA

from ..api import claim, decide, part
from ..operator import (
    compare,
    definition_by_quadrature,
    exact_operator,
    random_instance,
    rational_matrix as _R,
    sym_mixture,
    to_mp,
)
from ..rules import Float64Agreement, Residual
from ..strategies import random_matrix, random_mixture

SOURCE = "Gabet-Boursier-Boyer 2026"
_DRAWN_NOTE = ("SymPy proof in general symbols; the numeric part is itself decided on rational instances drawn "
               "from the run's seed inside the check (checks.operator.random_instance: random weights, a "
               "rank-deficient component, non-symmetric U, dense V), so no further configuration is drawn")


def _case(ctx, tag, K, D, degenerate=True, shared=False):
    """A random rational instance, the same for the claim and its controls."""
    return ctx.data(tag, lambda rng: random_instance(rng, K, D, degenerate, shared), params=[K, D, degenerate, shared])


def _exact(mix, U, V, z, dps):
    return to_mp(exact_operator(mix, U, V, z), dps)


def _quadrature(ctx, tag, inst, dps, nodes):
    mix, U, V, z = inst
    return ctx.data(("quadrature reference",) + tag, lambda rng: definition_by_quadrature(mix, U, V, z, dps, nodes),
                    params=[dps, nodes])


# ---- prop-2.1 -------------------------------------------------------------------------------
@dataclass
class Prop21:
    sym_components: int = 2
    sym_dim: int = 2
    components: int = 3
    quadrature_dims: list[int] = field(default_factory=lambda: [1, 2])
    exact_dims: list[int] = field(default_factory=lambda: [4])
    dps: int = 50
    nodes: int = 40


def _stated_21(ctx, smix, U, V, z):
    if ctx.control("prior-gates"):
        return V * sum((p * (m + G * U * z) for p, m, G in zip(smix.weights, smix.means, smix.covariances)),
                       sp.zeros(smix.dim, 1))
    sign = -1 if ctx.control("flipped-sign") else 1  # the claim itself uses eq. (2) with its own default
    return sign * TA.softmax_attention_stated(smix, U, V, z, **({"half": 1} if ctx.control("dropped-half") else {}))


@claim(id="prop-2.1", title="Softmax attention on a Gaussian mixture is a softmax-gated mixture of affine experts",
       source=f"{SOURCE}, Prop. 2.1 eq. (2); App. A.1", section="attention", kind="symbolic",
       statement=("T_{U,V}[mu](z) = V sum_k alpha_k(z)(m_k + G_k U z), "
                  "alpha = softmax(log pi_k + m_k^T U z + (Uz)^T G_k U z / 2)"),
       assumptions=("mu = sum_k pi_k N(m_k, G_k), pi_k > 0", "G_k symmetric PSD (degenerate allowed)"),
       profiles={"full": {"sym_components": 3, "exact_dims": [4, 6], "quadrature_dims": [1, 2, 2]}},
       controls={"dropped-half": "score with (Uz)^T G_k U z instead of half of it",
                 "prior-gates": "gates alpha_k replaced by the prior weights pi_k",
                 "flipped-sign": "output sign flipped"},
       independence=("derived side: gradient of the mixture CGF (SymPy) and the definition by quadrature; "
                     "stated side: eq. (2) gates x affine experts; shared: nothing"),
       configurations_note=_DRAWN_NOTE,
       derivations=lambda p: [TA.prop_2_1_derivation(p.sym_components, p.sym_dim),
                            TA.prop_2_1_derivation(p.sym_components, p.sym_dim, degenerate_rank=1)])
def prop_2_1(p: Prop21, ctx):
    half = 1 if ctx.control("dropped-half") else sp.Rational(1, 2)
    derivs = [TA.prop_2_1_derivation(p.sym_components, p.sym_dim, half=half),
              TA.prop_2_1_derivation(p.sym_components, p.sym_dim, degenerate_rank=1, half=half)]
    if ctx.control("prior-gates") or ctx.control("flipped-sign"):
        derivs = []  # these controls alter only the numeric stated side
    rule, rows = Residual(dps=p.dps), []
    cases = ([("quadrature", i, D) for i, D in enumerate(p.quadrature_dims)]
             + [("exact", i, D) for i, D in enumerate(p.exact_dims)])
    for method, i, D in cases:
        inst = _case(ctx, (method, i), p.components, D)
        mix, U, V, z = inst
        if method == "quadrature":
            ref, qerr = _quadrature(ctx, (i,), inst, p.dps, p.nodes)
        else:
            ref, qerr = _exact(mix, U, V, z, p.dps), None
        with workdps(p.dps):
            stated = to_mp(_stated_21(ctx, sym_mixture(mix), _R(U), _R(V), _R(z)), p.dps)
            rows.append(compare(rule, stated, ref, qerr, method=method, dim=D, components=p.components))
            rows.append(  # the production lambdified path must agree too (it does not depend on the control)
                compare(rule, NA.softmax_attention_mp(mix, U, V, z, dps=p.dps), ref,
                                    method=f"{method}: production path", dim=D))
    rows.extend(_large_scores_case(ctx, p.components, p.dps))
    return [decide(derivs, ctx), part("numeric", rows)]


def _large_scores_instance(rng, K):
    """A drawn rational mixture (one singular component), a non-symmetric U scaled by powers of 2
    until max_k |score_k| >= 1000 (exp overflows in float64 there), a dense V and a query."""
    D, mix = 2, random_mixture(rng, K, 2, degenerate=True)
    while True:
        U0 = random_matrix(rng, D, D, 3, 2)
        if U0[0][1] != U0[1][0]:
            break
    V = random_matrix(rng, D, D, 3, 4)
    z = [v if v != 0 else Fraction(1, 2) for v in random_matrix(rng, 1, D, 2, 2)[0]]
    zf, t = np.array([float(v) for v in z]), 1
    for _ in range(40):
        U = [[t * v for v in r] for r in U0]
        sc, _g = NA.tilted_moments(mix, (np.array([[float(v) for v in r] for r in U]) @ zf)[None])
        if np.max(np.abs(sc)) >= 1000:
            break
        t *= 2
    return mix, U, V, z, t, float(np.max(np.abs(sc)))


def _large_scores_case(ctx, K, dps):
    """Scores in the thousands, where only a log-space evaluation survives: the stated eq. (2)
    (exact inputs, ``dps`` digits) and the production paths (mpmath softmax_attention_mp, float64
    softmax_attention and gates against gates_mp) against the exact CGF gradient.  The instance
    is shared data (ctx.data): the controls see the claim's."""
    mix, U, V, z, t, smax = ctx.data("large-scores", lambda rng: _large_scores_instance(rng, K), params=[K])
    rule, ref = Residual(dps=dps), _exact(mix, U, V, z, dps)
    keys = {"check": "scores in the thousands (log-space)", "dim": 2, "U_scale": t, "max_abs_score": smax}
    f64rule = Float64Agreement(condition=1 + smax)  # gates: an absolute error eps |s_k| in a score is relative
    Uf, Vf = np.array([[float(v) for v in r] for r in U]), np.array([[float(v) for v in r] for r in V])
    with np.errstate(all="ignore"):
        f64 = NA.softmax_attention(mix, Uf, Vf, np.array([[float(v) for v in z]]))[0]
        g64 = NA.gates(mix, Uf, np.array([[float(v) for v in z]]))[0]
    with workdps(dps):
        gmp = NA.gates_mp(mix, U, z, dps=dps)
        stated = to_mp(_stated_21(ctx, sym_mixture(mix), _R(U), _R(V), _R(z)), dps)
        return [compare(rule, stated, ref, **keys),
                compare(rule, NA.softmax_attention_mp(mix, U, V, z, dps=dps), ref, **keys, path="production mpmath"),
                {**keys, "path": "production float64", **_float64_row(f64rule, f64, ref, max(abs(r) for r in ref))},
                {**keys, "path": "production float64 gates vs gates_mp", **_float64_row(f64rule, g64, gmp, 1)}]


def _float64_row(rule, values, reference, scale) -> dict:
    """``rule`` on a float64 result against a finite high-precision reference; a non-finite result
    there is an overflow of the production path (a failure, not an undecidable row)."""
    if not np.all(np.isfinite(values)):
        return {"passed": False, "verdict": "refuted", "rule": rule.describe(),
                "reason": "non-finite float64 value where the exact value is finite (overflow in the gates)"}
    return rule.decide(mpm.matrix([mpm.mpf(float(x)) - r for x, r in zip(values, reference)]), scale)


# ---- prop-2.1-shared ------------------------------------------------------------------------
@dataclass
class Shared:
    sym_components: int = 2
    sym_dim: int = 2
    components: int = 3
    dims: list[int] = field(default_factory=lambda: [3, 5])
    dps: int = 50


@claim(id="prop-2.1-shared", title="With a shared covariance the quadratic offsets cancel (eq. (3))",
       source=f"{SOURCE}, Prop. 2.1 eq. (3)", section="attention", kind="symbolic",
       statement=("If G_k = G for all k: T_{U,V}[mu](z) = V G U z + V sum_k alpha_k(z) m_k, "
                  "alpha = softmax(log pi_k + m_k^T U z)"),
       assumptions=("G_k = G for all k",), profiles={"full": {"sym_components": 3, "dims": [3, 5, 8]}},
       controls={"unshared-covariances": "apply eq. (3) to a mixture whose covariances differ (assumption dropped)"},
       independence=("derived side: eq. (2) (proven from the MGF in prop-2.1); "
                     "stated side: eq. (3) with shared G; shared: the gate softmax helper"),
       configurations_note=_DRAWN_NOTE,
       derivations=lambda p: [TA.prop_2_1_shared_derivation(p.sym_components, p.sym_dim)])
def prop_2_1_shared(p: Shared, ctx):
    shared = not ctx.control("unshared-covariances")
    rule, rows = Residual(dps=p.dps), []
    for i, D in enumerate(p.dims):
        mix, U, V, z = _case(ctx, ("shared", i, shared), p.components, D, degenerate=False, shared=shared)
        with workdps(p.dps):
            eq2 = NA.softmax_attention_mp(mix, U, V, z, dps=p.dps)  # production path for (2)
            eq3 = to_mp(TA.shared_covariance_stated(sym_mixture(mix), _R(U), _R(V), _R(z)), p.dps)
            rows.append(compare(rule, eq3, eq2, dim=D, covariances_shared=shared))
    return [decide([TA.prop_2_1_shared_derivation(p.sym_components, p.sym_dim, shared=shared)], ctx),
            part("numeric", rows)]


# ---- bb-lemma-2.1 ---------------------------------------------------------------------------
@dataclass
class Gaussian:
    sym_dim: int = 3
    quadrature_dims: list[int] = field(default_factory=lambda: [1, 2])
    dps: int = 50
    nodes: int = 40


@claim(id="bb-lemma-2.1", title="Gaussian prompts give an affine map V(m + G U z)",
       source="Boursier & Boyer 2026, Lemma 2.1; Gabet-Boursier-Boyer 2026, Sec. 2 display",
       statement="For mu = N(m, G): T_{U,V}[mu](z) = V (m + G U z)", section="attention", kind="symbolic",
       assumptions=("mu Gaussian, G PSD",),
       controls={"two-components": "apply the affine formula (with the law's mean and covariance) to a two-component "
                                   "mixture"},
       independence=("derived side: CGF gradient of one Gaussian and quadrature of the definition; "
                     "stated side: V(m + G U z); shared: nothing"),
       configurations_note=_DRAWN_NOTE,
       derivations=lambda p: [TA.bb_lemma_2_1_derivation(p.sym_dim)])
def bb_lemma_2_1(p: Gaussian, ctx):
    K = 2 if ctx.control("two-components") else 1
    rule, rows = Residual(dps=p.dps), []
    for i, D in enumerate(p.quadrature_dims):
        inst = _case(ctx, ("bb", i, K), K, D, degenerate=(i % 2 == 1))
        mix, U, V, z = inst
        ref, qerr = _quadrature(ctx, ("bb", i, K), inst, p.dps, p.nodes)
        smix = sym_mixture(mix)  # the affine map with the law's overall mean and covariance
        mbar = sum((w * m for w, m in zip(smix.weights, smix.means)), sp.zeros(D, 1))
        cov = sum((w * (G + (m - mbar) * (m - mbar).T) for w, m, G in zip(smix.weights, smix.means, smix.covariances)),
                  sp.zeros(D, D))
        with workdps(p.dps):
            aff = to_mp(TA.gaussian_attention_stated(mbar, cov, _R(U), _R(V), _R(z)), p.dps)
            rows.append(compare(rule, aff, ref, qerr, dim=D, components=K))
    return [decide([] if K == 2 else [TA.bb_lemma_2_1_derivation(p.sym_dim)], ctx), part("numeric", rows)]


# ---- prop-a.1 -------------------------------------------------------------------------------
@dataclass
class PropA1:
    alignments_d1: list[str] = field(default_factory=lambda: ["softmax", "rbf", "cauchy"])
    alignments_d2: list[str] = field(default_factory=lambda: ["softmax"])
    dps: int = 32
    nodes: int = 40
    nodes_d1: int = 100
    guard: int = 10
    rbf_tau: float = 8


@claim(id="prop-a.1", title="Normalised attention on any mixture is a query-gated mixture of component maps",
       source=f"{SOURCE}, Prop. A.1 (App. A.2; Sec. 2 'generalized scores')", section="attention", kind="symbolic",
       statement="T_a[sum_k pi_k mu_k](z) = sum_k r_k(z) T_a[mu_k](z), r_k = pi_k int a dmu_k / int a dmu, any a > 0",
       assumptions=("a(z, z') > 0 integrable against each mu_k",),
       profiles={"full": {"alignments_d2": ["softmax", "rbf"], "nodes": 90}},
       controls={"prior-proportions": "gates r_k replaced by the fixed proportions pi_k"},
       independence=("derived side: normalised attention on atoms / tanh-sinh quadrature of the definition; "
                     "stated side: query-gated mixture of component maps; shared: nothing"),
       configurations_note=_DRAWN_NOTE,
       derivations=lambda: [TA.prop_a1_derivation(2, 2, 2)])
def prop_a_1(p: PropA1, ctx):
    """LHS: the normalised integral over the whole mixture by one numerical rule (Gauss-Hermite
    with an error estimate; tanh-sinh for the Cauchy kernel in d = 1).  RHS: sum_k r_k T_a[mu_k]
    with r_k = pi_k int a dmu_k / int a dmu, the component quantities in closed form (softmax,
    rbf; the Voigt profile for the Cauchy kernel)."""
    prior = ctx.control("prior-proportions")
    rule, rows = Residual(dps=p.dps, guard=p.guard), []
    for D, names in ((1, p.alignments_d1), (2, p.alignments_d2)):
        mix, U, _V, z = _case(ctx, ("a1", D), 2, D)
        with workdps(p.dps):
            tau = to_mpf(p.rbf_tau)
            Um = mpm.matrix([[to_mpf(v) for v in r] for r in U])
            zm = mpm.matrix([to_mpf(v) for v in z])
            w_, m_, G_ = mix.mp()
            for name in names:
                al = NT.alignment(name, Um, tau)
                f = lambda x: mpm.matrix([al(zm, x)] + [al(zm, x) * x[i] for i in range(D)])
                if name == "cauchy":  # Gauss-Hermite converges slowly against a kernel with poles: tanh-sinh
                    lhs, qerr = NT.attention_tanh_sinh_1d(mix, al, zm, p.dps)
                else:
                    whole, qerr = expect_with_error(f, mix, n=p.nodes if D > 1 else p.nodes_d1, dps=p.dps)
                    lhs, qerr = mpm.matrix([whole[i + 1] / whole[0] for i in range(D)]), qerr / abs(whole[0])
                comps = [NT.component_closed_form(name, m_[k], G_[k], zm, Um, tau) for k in range(mix.n_components)]
                Z = mpm.fsum(w_[k] * comps[k][0] for k in range(len(comps)))
                rhs = mpm.matrix(D, 1)
                for k, (mass, Tk) in enumerate(comps):
                    rhs += (w_[k] if prior else w_[k] * mass / Z) * Tk
                rows.append(compare(rule, rhs, lhs, qerr, dim=D, alignment=name))
    return [decide([] if prior else [TA.prop_a1_derivation(2, 2, 2)], ctx), part("numeric", rows)]


# ---- linear-fixed-proportions ---------------------------------------------------------------
@dataclass
class Linear:
    sym_components: int = 2
    sym_dim: int = 2
    components: int = 3
    dims: list[int] = field(default_factory=lambda: [2, 4])
    dps: int = 50


@claim(id="linear-fixed-proportions",
       title="Linear attention weighs components by fixed proportions pi_k, whatever the query",
       source=f"{SOURCE}, Sec. 2 (linear attention paragraph); Lemma C.7 display", section="attention", kind="symbolic",
       statement="T_lin[mu](z) = V E[z' z'^T] U z = sum_k pi_k T_lin[mu_k](z), T_lin[N(m,G)](z) = V (G + m m^T) U z",
       assumptions=("mu = sum_k pi_k N(m_k, G_k)",),
       controls={"softmax-decomposition": "the same fixed-proportion decomposition asserted for softmax attention"},
       independence=("derived side: second moment from the Hessian of the MGF, and the definition by 4-node "
                     "quadrature; stated side: sum_k pi_k V (G_k + m_k m_k^T) U z, and the production paths "
                     "(mpmath and float64 linear_attention); shared: nothing"),
       configurations_note=_DRAWN_NOTE,
       derivations=lambda p: [TA.linear_fixed_proportions_derivation(p.sym_components, p.sym_dim)])
def linear_fixed_proportions(p: Linear, ctx):
    """LHS: the definition int <Uz, x> V x dmu by quadrature over the whole mixture (4 nodes are
    exact: the integrand is a degree-2 polynomial); RHS: the stated fixed-proportion sum
    sum_k pi_k V (G_k + m_k m_k^T) U z in exact rationals.  The control asserts the same
    decomposition for softmax attention."""
    softmax = ctx.control("softmax-decomposition")
    rule, rows = Residual(dps=p.dps), []
    for i, D in enumerate(p.dims):
        mix, U, V, z = _case(ctx, ("lin", i), p.components, D)
        with workdps(p.dps):
            if softmax:
                lhs = NA.softmax_attention_mp(mix, U, V, z, dps=p.dps)
                rhs = mpm.matrix(lhs.rows, 1)
                for k in range(mix.n_components):
                    comp = GaussianMixture.from_values([1], [mix.means[k]], [mix.covariances[k]])
                    rhs += to_mpf(mix.weights[k]) * NA.softmax_attention_mp(comp, U, V, z, dps=p.dps)
            else:
                Vm = mpm.matrix([[to_mpf(v) for v in r] for r in V])
                a = mpm.matrix([[to_mpf(v) for v in r] for r in U]) * mpm.matrix([to_mpf(v) for v in z])
                lhs = expect_mixture(lambda x: (Vm * x) * sum(a[j] * x[j] for j in range(D)), mix, n=4, dps=p.dps)
                rhs = to_mp(TA.linear_attention_stated(sym_mixture(mix), _R(U), _R(V), _R(z)), p.dps)
                rows.append(compare(rule, NA.linear_attention_mp(mix, U, V, z, dps=p.dps), lhs, dim=D,
                                    check="production path vs the definition"))
                # the float64 path (numerics.attention.linear_attention, second moment from the numpy-compiled Hessian
                # of the MGF): float64 rounding of O(D^2) products, 10^(3 - 15) relative
                Uf, Vf = (np.array([[float(v) for v in r] for r in M]) for M in (U, V))
                f64 = NA.linear_attention(mix, Uf, Vf, np.array([[float(v) for v in z]]))[0]
                rows.append(compare(Residual(dps=15, guard=3), mpm.matrix([mpm.mpf(float(x)) for x in f64]), lhs, dim=D,
                                    check="float64 production path vs the definition"))
            rows.append(compare(rule, rhs, lhs, dim=D, check="T[mu] vs sum_k pi_k T[mu_k]"))
    return [decide([] if softmax else [TA.linear_fixed_proportions_derivation(p.sym_components, p.sym_dim)], ctx),
            part("numeric", rows)]

