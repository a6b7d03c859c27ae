"""Measure-level attention operators on Gaussian mixtures (paper Sec. 2, App. A).

Everything here is exact SymPy.  The softmax operator is *derived* as V grad Lambda(U z) from
the cumulant generating function Lambda (eq. (1) with the MGF of App. A.1); the paper's closed
forms (eq. (2), eq. (3), the Gaussian affine map, Prop. A.1, linear attention) are *stated*
separately so that ``derived - stated`` can be simplified to zero.
"""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .mixtures import (
    SymbolicMixture,
    cgf,
    component_log_mgf,
    component_log_mgf_gradient,
    gradient,
    hessian,
    matrix_symbols,
    mgf,
    symbolic_mixture,
    vector_symbols,
)

__all__ = [
    "tilt_symbols", "gate_scores", "gates", "softmax_attention_derived", "softmax_attention_stated",
    "shared_covariance_stated", "gaussian_attention_stated", "second_moment_derived",
    "linear_attention_derived", "linear_attention_stated", "normalized_attention_atomic",
    "prop_a1_stated_atomic", "residual", "tilted_covariance_derived",
    "tilted_covariance_stated", "component_kernel", "prop_2_1_derivation",
    "prop_2_1_shared_derivation", "bb_lemma_2_1_derivation", "linear_fixed_proportions_derivation",
    "prop_a1_derivation",
]


def tilt_symbols(D: int) -> sp.Matrix:
    return vector_symbols("a", D)


def gate_scores(mix: SymbolicMixture, U: sp.Matrix, z: sp.Matrix, half=sp.Rational(1, 2)) -> list:
    """Scores of eq. (2): log pi_k + m_k^T U z + half * (U z)^T G_k U z  (half = 1/2 in the paper)."""
    a = U * z
    return [sp.log(p) + (m.T * a)[0, 0] + half * (a.T * G * a)[0, 0]
            for p, m, G in zip(mix.weights, mix.means, mix.covariances)]


def gates(scores: list) -> list:
    """softmax_k(scores), written with exponentials (exact)."""
    den = sp.Add(*[sp.exp(s) for s in scores])
    return [sp.exp(s) / den for s in scores]


def softmax_attention_derived(mix: SymbolicMixture, U: sp.Matrix, V: sp.Matrix, z: sp.Matrix) -> sp.Matrix:
    """V grad Lambda(a) at a = U z: differentiate the cumulant generating function (App. A.1)."""
    a = tilt_symbols(mix.dim)
    grad = gradient(cgf(mix, a), a)
    return V * grad.subs(dict(zip(a, U * z)), simultaneous=True)


def softmax_attention_stated(mix: SymbolicMixture, U: sp.Matrix, V: sp.Matrix, z: sp.Matrix,
                             half=sp.Rational(1, 2)) -> sp.Matrix:
    """Eq. (2): V sum_k alpha_k(z) (m_k + G_k U z)."""
    al = gates(gate_scores(mix, U, z, half))
    out = sp.zeros(mix.dim, 1)
    for w, m, G in zip(al, mix.means, mix.covariances):
        out += w * (m + G * U * z)
    return V * out


def shared_covariance_stated(mix: SymbolicMixture, U: sp.Matrix, V: sp.Matrix, z: sp.Matrix) -> sp.Matrix:
    """Eq. (3): V G U z + V sum_k alpha_k(z) m_k with alpha_k = softmax(log pi_k + m_k^T U z).
    Uses the first component's covariance as the shared G."""
    G = mix.covariances[0]
    a = U * z
    al = gates([sp.log(p) + (m.T * a)[0, 0] for p, m in zip(mix.weights, mix.means)])
    bary = sp.zeros(mix.dim, 1)
    for w, m in zip(al, mix.means):
        bary += w * m
    return V * G * U * z + V * bary


def gaussian_attention_stated(m: sp.Matrix, G: sp.Matrix, U: sp.Matrix, V: sp.Matrix, z: sp.Matrix) -> sp.Matrix:
    """Boursier & Boyer Lemma 2.1 / Sec. 2 display: T[N(m, G)](z) = V (m + G U z)."""
    return V * (m + G * U * z)


def second_moment_derived(mix: SymbolicMixture) -> sp.Matrix:
    """E[X X^T] = Hessian of the MGF at 0 (derived, not transcribed)."""
    a = tilt_symbols(mix.dim)
    H = hessian(mgf(mix, a), a)
    return H.subs({ai: 0 for ai in a})


def linear_attention_derived(mix: SymbolicMixture, U: sp.Matrix, V: sp.Matrix, z: sp.Matrix) -> sp.Matrix:
    """T_lin[mu](z) = V E[z' z'^T] U z (Sec. 2), with the second moment from the MGF."""
    return V * second_moment_derived(mix) * U * z


def linear_attention_stated(mix: SymbolicMixture, U: sp.Matrix, V: sp.Matrix, z: sp.Matrix,
                            proportions=None) -> sp.Matrix:
    """sum_k p_k T_lin[mu_k](z) with T_lin[N(m, G)] = V (G + m m^T) U z; p_k = pi_k (Sec. 2)."""
    props = mix.weights if proportions is None else proportions
    out = sp.zeros(V.shape[0], 1)
    for p, m, G in zip(props, mix.means, mix.covariances):
        out += p * V * (G + m * m.T) * U * z
    return out


def component_kernel(D: int):
    """Generic single-component tilt functions, the objects numerics/ lambdifies.

    Returns (a, m, G, logpi, score, grad) with score = logpi + lambda(a) and grad = grad lambda(a),
    lambda the component log-MGF.  grad is obtained by differentiation.
    """
    a = vector_symbols("a", D)
    m = vector_symbols("m", D)
    G = matrix_symbols("G", D, symmetric=True)
    logpi = sp.Symbol("logpi", real=True)
    score = logpi + component_log_mgf(a, m, G)
    grad = component_log_mgf_gradient(a, m, G)
    return a, m, G, logpi, score, grad


def tilted_covariance_derived(mix: SymbolicMixture, a: sp.Matrix) -> sp.Matrix:
    """grad^2 Lambda(a): the covariance of the tilted law (derived by differentiation)."""
    return hessian(cgf(mix, a), a)


def tilted_covariance_stated(mix: SymbolicMixture, a: sp.Matrix) -> sp.Matrix:
    """sum_k w_k G_k + sum_k w_k (mu_k - mu_bar)(mu_k - mu_bar)^T with w = softmax(log pi + lambda_k(a)),
    mu_k = m_k + G_k a: a sum of PSD matrices, hence PSD."""
    w = gates([sp.log(p) + component_log_mgf(a, m, G) for p, m, G in zip(mix.weights, mix.means, mix.covariances)])
    mus = [m + G * a for m, G in zip(mix.means, mix.covariances)]
    mbar = sp.zeros(mix.dim, 1)
    for wk, mu in zip(w, mus):
        mbar += wk * mu
    out = sp.zeros(mix.dim, mix.dim)
    for wk, mu, G in zip(w, mus, mix.covariances):
        out += wk * (G + (mu - mbar) * (mu - mbar).T)
    return out


# --- Prop. A.1: general mixtures, arbitrary positive alignment -------------------------------
def normalized_attention_atomic(atoms, masses, align):
    """T_a[nu](z) for an atomic measure nu = sum_j masses_j delta_{atoms_j} and alignment values
    align_j = a(z, atoms_j) > 0: sum_j masses_j align_j atoms_j / sum_j masses_j align_j."""
    num = sp.zeros(atoms[0].shape[0], 1)
    den = 0
    for x, q, al in zip(atoms, masses, align):
        num += q * al * x
        den += q * al
    return num / den


def prop_a1_stated_atomic(components, pis):
    """sum_k r_k(z) T_a[mu_k](z), r_k = pi_k int a dmu_k / int a dmu (Prop. A.1), components given
    as (atoms, masses, align) triples of atomic probability measures."""
    Z = sum(pi * sum(q * al for q, al in zip(c[1], c[2])) for pi, c in zip(pis, components))
    out = sp.zeros(components[0][0][0].shape[0], 1)
    for pi, (atoms, masses, align) in zip(pis, components):
        r = pi * sum(q * al for q, al in zip(masses, align)) / Z
        out += r * normalized_attention_atomic(atoms, masses, align)
    return out


def residual(z: sp.Matrix, head_output: sp.Matrix) -> sp.Matrix:
    """T^res[mu](z) = z + T[mu](z)  (Sec. 4.4)."""
    return z + head_output


# --- derivations -----------------------------------------------------------------------------
def _uvz(D: int, p: int | None = None):
    p = D if p is None else p
    return matrix_symbols("U", D), matrix_symbols("V", p, D), vector_symbols("z", D)


def prop_2_1_derivation(K: int = 2, D: int = 2, degenerate_rank: int | None = None,
                        half=sp.Rational(1, 2)) -> Derivation:
    mix = symbolic_mixture(K, D, degenerate_rank=degenerate_rank)
    U, V, z = _uvz(D)
    return Derivation(
        name=f"Prop. 2.1 eq. (2), K={K}, D={D}" + (f", rank-{degenerate_rank} covariances" if degenerate_rank else ""),
        source="Gabet-Boursier-Boyer 2026, Prop. 2.1 eq. (2)",
        derived=softmax_attention_derived(mix, U, V, z),
        stated=softmax_attention_stated(mix, U, V, z, half=half),
        assumptions=("pi_k > 0", "G_k symmetric PSD" + (" (degenerate: G_k = L_k L_k^T)" if degenerate_rank else "")),
        steps=[("Lambda(a)", cgf(mix, tilt_symbols(D)))],
    )


def prop_2_1_shared_derivation(K: int = 2, D: int = 2, shared: bool = True) -> Derivation:
    """Eq. (2) with G_k = G against eq. (3).  ``shared=False`` drops the assumption (control)."""
    mix = symbolic_mixture(K, D, shared=shared)
    U, V, z = _uvz(D)
    return Derivation(
        name=f"Prop. 2.1 eq. (3), K={K}, D={D}" + ("" if shared else " [assumption G_k = G dropped]"),
        source="Gabet-Boursier-Boyer 2026, Prop. 2.1 eq. (3)",
        derived=softmax_attention_stated(mix, U, V, z),
        stated=shared_covariance_stated(mix, U, V, z),
        assumptions=("G_k = G for all k",) if shared else (),
    )


def bb_lemma_2_1_derivation(D: int = 2) -> Derivation:
    mix = symbolic_mixture(1, D)
    U, V, z = _uvz(D)
    return Derivation(
        name=f"Gaussian prompt gives an affine map, D={D}",
        source="Boursier & Boyer 2026, Lemma 2.1 (Sec. 2 display of Gabet et al.)",
        derived=softmax_attention_derived(mix, U, V, z),
        stated=gaussian_attention_stated(mix.means[0], mix.covariances[0], U, V, z),
        assumptions=("mu = N(m, G), G PSD",),
    )


def linear_fixed_proportions_derivation(K: int = 2, D: int = 2) -> Derivation:
    mix = symbolic_mixture(K, D)
    U, V, z = _uvz(D)
    return Derivation(
        name=f"Linear attention decomposes with fixed proportions, K={K}, D={D}",
        source="Gabet-Boursier-Boyer 2026, Sec. 2 (T_lin[mu] = sum_k pi_k T_lin[mu_k])",
        derived=linear_attention_derived(mix, U, V, z),
        stated=linear_attention_stated(mix, U, V, z),
        assumptions=("mu = sum_k pi_k N(m_k, G_k)",),
    )


def prop_a1_derivation(K: int = 2, atoms_per_component: int = 2, D: int = 2) -> Derivation:
    """Prop. A.1 on generic atomic components with symbolic positive alignment values."""
    comps = []
    pis = list(sp.symbols(f"pi1:{K + 1}", positive=True))
    all_atoms, all_masses, all_align = [], [], []
    for k in range(K):
        atoms = [vector_symbols(f"x{k + 1}{j + 1}", D) for j in range(atoms_per_component)]
        masses = list(sp.symbols(f"q{k + 1}_1:{atoms_per_component + 1}", positive=True))
        align = list(sp.symbols(f"A{k + 1}_1:{atoms_per_component + 1}", positive=True))
        comps.append((atoms, masses, align))
        all_atoms += atoms
        all_masses += [pis[k] * q for q in masses]
        all_align += align
    return Derivation(
        name=f"Prop. A.1 on atomic components, K={K}, atoms={atoms_per_component}, D={D}",
        source="Gabet-Boursier-Boyer 2026, Prop. A.1",
        derived=normalized_attention_atomic(all_atoms, all_masses, all_align),
        stated=prop_a1_stated_atomic(comps, pis),
        assumptions=("a(z, z') > 0", "each mu_k a probability measure (masses sum to one)"),
        notes="The identity holds for arbitrary positive masses; normalisation is not even needed.",
    )


