"""Section 4 / Appendix C: the Bayes denoiser of a Gaussian mixture and its attention realisations.

Pure SymPy.  Everything the paper states is *derived* independently here:

* the Bayes denoiser by Gaussian conditioning (Prop. C.1) and by Tweedie's formula
  (differentiating the log density symbolically), against eq. (10);
* the equal-norm form (11);
* the attention output on mu_Z (Sec. 4.1 display) from theory.attention applied to the noisy
  mixture sum_k pi_k N(m_k, S), S = Gamma + xi^2 I;
* the one-head matching conditions (1)-(3) of Prop. C.4, solved with SymPy (solutions exist
  only when gamma^2 = xi^2);
* the two-head constructions of Prop. C.5 and the degenerate ones of Prop. C.3;
* the residual architecture of Prop. 4.4 (W_out applied to the concatenation of both residual
  heads, App. C.8) and multi-layer linear attention (Lemma C.7).

Softmax gates are built in a canonical form (an exact rewriting): softmax is invariant under a
common shift, so gates are written with score differences whose non-logarithmic part is put in
lowest terms by ``sp.cancel``.  This keeps ``simplify_zero`` (exp atoms -> symbols) complete for
the identities below; the numeric counterexample search of ``Derivation.decide`` is unaffected.
"""
from __future__ import annotations

import sympy as sp

from .attention import residual, softmax_attention_derived, softmax_attention_stated
from .derivation import Derivation
from .mixtures import SymbolicMixture, matrix_symbols, vector_symbols

__all__ = [
    "DenoisingDerivation", "noise_symbols", "circle_means", "canonical_softmax", "posterior_weights_bayes",
    "bayes_denoiser_conditioning", "bayes_denoiser_tweedie", "eq10_stated", "eq11_stated",
    "noisy_mixture", "single_head_display", "prop_c1_derivation", "tweedie_derivation",
    "eq11_derivation", "attention_display_derivation", "single_head_conditions",
    "prop_c4_elimination", "prop_c4_one_head_derivation", "prop_c5_heads_noncollinear",
    "prop_c5_heads_opposite", "two_head_output", "prop_c5_derivations", "prop_c3_heads",
    "prop_c3_derivations", "prop_c3_single_head_solve", "residual_architecture",
    "prop_4_4_derivation", "lemma_c7_derivation", "remark_c2_limits",
]


# Kept as a name for callers; the base class already samples the symbols of both sides.
DenoisingDerivation = Derivation


def noise_symbols():
    """gamma, xi > 0 (gamma may be set to 0 by substitution for degenerate mixtures)."""
    return sp.Symbol("gamma", positive=True), sp.Symbol("xi", positive=True)


def _rot(t):
    c = (1 - t**2) / (1 + t**2)
    s = 2 * t / (1 + t**2)
    return sp.Matrix([[c, -s], [s, c]])


def circle_means(d: int = 2, kind: str = "generic"):
    """Equal-norm means by exact parametrisation.

    generic, d = 2:  m1 = (p, q), m2 = R_t m1, R_t the rational (Pythagorean) rotation with
                     tan(theta/2) = t > 0 (never +-m1, so m1, m2 are non-collinear);
    generic, d = 3:  m1 = (p, q, w), m2 = (R_t (p, q), w) rotated about the third axis;
    opposite:        m1 = -m2 = (p, q[, w]);
    unequal:         m2 = (R_t m1) scaled by (1 + k), k > 0 (drops the equal-norm assumption).
    Returns (m1, m2, parameter symbols)."""
    p = sp.Symbol("p", positive=True)
    q = sp.Symbol("q", real=True)
    t = sp.Symbol("t", positive=True)
    w = sp.Symbol("w", real=True)
    base = [p, q] + ([w] if d == 3 else [])
    m1 = sp.Matrix(base)
    if kind == "opposite":
        return m1, -m1, (p, q) + ((w,) if d == 3 else ())
    R = sp.eye(d)
    R[:2, :2] = _rot(t)
    m2 = (R * m1).applyfunc(sp.cancel)
    syms = (p, q, t) + ((w,) if d == 3 else ())
    if kind == "unequal":
        k = sp.Symbol("k", positive=True)
        m2 = (1 + k) * m2
        syms = syms + (k,)
    return m1, m2, syms


def canonical_softmax(scores: list) -> list:
    """softmax_k(scores) with differences to score 0: log terms kept, the rest in lowest terms."""
    out_exp = []
    for s in scores:
        d = sp.expand(sp.sympify(s) - sp.sympify(scores[0]))
        logs = sp.Add(*[t for t in sp.Add.make_args(d) if t.has(sp.log)])
        rest = sp.cancel(sp.together(d - logs))
        out_exp.append(sp.exp(logs + rest) if (logs + rest) != 0 else sp.Integer(1))
    den = sp.Add(*out_exp)
    return [e / den for e in out_exp]


def _quad(v, A, w=None):
    w = v if w is None else w
    return (v.T * A * w)[0, 0]


def posterior_weights_bayes(weights, means, S, z):
    """P(C = k | Z = z) from Bayes' formula with the Gaussian densities N(z; m_k, S): the shared
    normalising constant (2 pi)^(-d/2) det(S)^(-1/2) cancels in the ratio, and the exponents
    -1/2 (z - m_k)^T S^-1 (z - m_k) are expanded exactly."""
    Si = S.inv()
    scores = [sp.log(p) - sp.Rational(1, 2) * sp.expand(_quad(z - m, Si)) for p, m in zip(weights, means)]
    return canonical_softmax(scores)


def bayes_denoiser_conditioning(weights, means, Gamma, xi, z):
    """E[X | Z = z] = sum_k P(C=k | z) E[X | Z = z, C = k] with, given C = k, (X, Z) jointly
    Gaussian: Cov(X, Z) = Cov(X, X + eps) = Gamma, Cov(Z) = Gamma + xi^2 I, so
    E[X | Z, C=k] = m_k + Gamma (Gamma + xi^2 I)^-1 (z - m_k)  (Gaussian conditioning)."""
    d = z.shape[0]
    S = Gamma + xi**2 * sp.eye(d)
    beta = posterior_weights_bayes(weights, means, S, z)
    K = Gamma * S.inv()
    out = sp.zeros(d, 1)
    for b, m in zip(beta, means):
        out += b * (m + K * (z - m))
    return out


def bayes_denoiser_tweedie(weights, means, Gamma, xi, z):
    """z + xi^2 grad_z log p_Z(z), p_Z = sum_k pi_k N(z; m_k, S) differentiated symbolically
    (normalising constants dropped: they do not depend on z)."""
    d = z.shape[0]
    S = Gamma + xi**2 * sp.eye(d)
    Si = S.inv()
    p = sp.Add(*[w * sp.exp(-sp.Rational(1, 2) * _quad(z - m, Si)) for w, m in zip(weights, means)])
    logp = sp.log(p)
    grad = sp.Matrix([sp.diff(logp, zi) for zi in z])
    return z + xi**2 * grad


def eq10_stated(weights, means, Gamma, xi, z, offset: bool = True):
    """Eq. (10): Gamma S^-1 z + xi^2 S^-1 sum_k beta_k m_k,
    beta = softmax(log pi_k + m_k^T S^-1 z - m_k^T S^-1 m_k / 2).  offset=False drops the
    -m_k^T S^-1 m_k / 2 offsets (negative control)."""
    d = z.shape[0]
    S = Gamma + xi**2 * sp.eye(d)
    Si = S.inv()
    o = 1 if offset else 0
    beta = canonical_softmax([sp.log(p) + _quad(m, Si, z) - o * _quad(m, Si) / 2 for p, m in zip(weights, means)])
    bary = sp.zeros(d, 1)
    for b, m in zip(beta, means):
        bary += b * m
    return Gamma * Si * z + xi**2 * Si * bary


def eq11_stated(weights, means, gamma, xi, z):
    """Eq. (11): gamma^2/(gamma^2+xi^2) z + xi^2/(gamma^2+xi^2) sum_k beta_k m_k,
    beta = softmax(log pi_k + m_k^T z / (gamma^2 + xi^2))."""
    s = gamma**2 + xi**2
    beta = canonical_softmax([sp.log(p) + _quad(m, sp.eye(z.shape[0]), z) / s for p, m in zip(weights, means)])
    bary = sp.zeros(z.shape[0], 1)
    for b, m in zip(beta, means):
        bary += b * m
    return gamma**2 / s * z + xi**2 / s * bary


def noisy_mixture(weights, means, S) -> SymbolicMixture:
    """mu_Z = sum_k pi_k N(m_k, S)."""
    return SymbolicMixture(list(weights), list(means), [S for _ in means])


def single_head_display(weights, means, S, U, V, z):
    """Sec. 4.1 display: V S U z + V sum_k alpha_k m_k, alpha = softmax(log pi_k + m_k^T U z)."""
    al = canonical_softmax([sp.log(p) + (m.T * U * z)[0, 0] for p, m in zip(weights, means)])
    bary = sp.zeros(S.shape[0], 1)
    for a, m in zip(al, means):
        bary += a * m
    return V * S * U * z + V * bary


# --- derivations ---------------------------------------------------------------------------------
def _weights(K):
    return list(sp.symbols(f"pi1:{K + 1}", positive=True))


def prop_c1_derivation(K: int = 2, d: int = 2, generic_gamma: bool = True, offset: bool = True) -> Derivation:
    gamma, xi = noise_symbols()
    Gamma = matrix_symbols("Gam", d, symmetric=True) if generic_gamma else gamma**2 * sp.eye(d)
    z = vector_symbols("z", d)
    means = [vector_symbols(f"m{k + 1}", d) for k in range(K)]
    w = _weights(K)
    return DenoisingDerivation(
        name=f"Prop. C.1 / eq. (10) by Gaussian conditioning, K={K}, d={d}" + ("" if offset else " [offsets dropped]"),
        source="Gabet-Boursier-Boyer 2026, Prop. C.1, eq. (10)",
        derived=bayes_denoiser_conditioning(w, means, Gamma, xi, z),
        stated=eq10_stated(w, means, Gamma, xi, z, offset),
        assumptions=("X ~ sum_k pi_k N(m_k, Gamma)", "Z = X + eps, eps ~ N(0, xi^2 I) independent",
                     "Gamma symmetric PSD"),
    )


def tweedie_derivation(K: int = 2, d: int = 2) -> Derivation:
    gamma, xi = noise_symbols()
    Gamma = matrix_symbols("Gam", d, symmetric=True)
    z = vector_symbols("z", d)
    means = [vector_symbols(f"m{k + 1}", d) for k in range(K)]
    w = _weights(K)
    derived = bayes_denoiser_tweedie(w, means, Gamma, xi, z)
    # Put the Tweedie expression's exponentials in canonical softmax form: divide numerator and
    # denominator by the first component's exponential (exact).
    return DenoisingDerivation(
        name=f"Tweedie's formula z + xi^2 grad log p_Z vs eq. (10), K={K}, d={d}",
        source="Gabet-Boursier-Boyer 2026, App. C.1 (Tweedie remark)",
        derived=_canonicalise_exp_ratio(derived),
        stated=eq10_stated(w, means, Gamma, xi, z),
        assumptions=("Gamma symmetric PSD", "xi > 0"),
    )


def _canonicalise_exp_ratio(expr):
    """Rewrite each exp(e) as exp(cancel(e - e0)) * exp(e0), e0 the exponent of the first exp atom
    found, then let exp(e0) cancel (exact).  Needed for Tweedie's quotient of sums of densities."""
    M = sp.Matrix(expr)
    exps = sorted(M.atoms(sp.exp), key=sp.default_sort_key)
    if not exps:
        return M
    e0 = exps[0].args[0]
    E0 = sp.Symbol("_E0", positive=True)
    rep = {}
    for e in exps:
        dlt = sp.expand(e.args[0] - e0)
        logs = sp.Add(*[t for t in sp.Add.make_args(dlt) if t.has(sp.log)])
        rest = sp.cancel(sp.together(dlt - logs))
        rep[e] = E0 * sp.exp(logs + rest)
    out = M.xreplace(rep).applyfunc(lambda x: sp.cancel(sp.together(x)))
    return out.subs(E0, 1)


def eq11_derivation(d: int = 2, equal_norm: bool = True) -> Derivation:
    """(10) with Gamma = gamma^2 I and equal norms against (11); equal_norm=False is the control."""
    gamma, xi = noise_symbols()
    z = vector_symbols("z", d)
    m1, m2, _ = circle_means(d, "generic" if equal_norm else "unequal")
    w = _weights(2)
    return DenoisingDerivation(
        name=f"Eq. (11) from eq. (10), d={d}" + ("" if equal_norm else " [equal norms dropped]"),
        source="Gabet-Boursier-Boyer 2026, Sec. 4.1, eq. (11)",
        derived=eq10_stated(w, [m1, m2], gamma**2 * sp.eye(d), xi, z),
        stated=eq11_stated(w, [m1, m2], gamma, xi, z),
        assumptions=("Gamma = gamma^2 I", "||m1|| = ||m2||") if equal_norm else ("Gamma = gamma^2 I",),
    )


def attention_display_derivation(d: int = 2) -> Derivation:
    """T_{U,V}[mu_Z] from the CGF (theory.attention.softmax_attention_derived) vs the display."""
    gamma, xi = noise_symbols()
    Gamma = matrix_symbols("Gam", d, symmetric=True)
    # derived side: Z = X + xi eps with X | k ~ N(m_k, Gamma), eps ~ N(0, I) independent; the cumulant
    # generating functions add, so the component covariance is the Hessian of the sum
    t = vector_symbols("t", d)
    cgf_noisy = (t.T * Gamma * t)[0, 0] / 2 + xi**2 * (t.T * t)[0, 0] / 2
    S_derived = sp.hessian(cgf_noisy, list(t))
    means = [vector_symbols(f"m{k + 1}", d) for k in range(2)]
    w = _weights(2)
    U, V, z = matrix_symbols("U", d), matrix_symbols("V", d), vector_symbols("z", d)
    derived = softmax_attention_derived(noisy_mixture(w, means, S_derived), U, V, z)
    S = Gamma + xi**2 * sp.eye(d)  # the paper's S, as printed
    return DenoisingDerivation(
        name=f"Sec. 4.1 display: attention output on mu_Z, d={d}",
        source="Gabet-Boursier-Boyer 2026, Sec. 4.1 display after (10)",
        derived=_canonicalise_exp_ratio(derived),
        stated=single_head_display(w, means, S, U, V, z),
        assumptions=("mu_Z = sum_k pi_k N(m_k, S), S = Gamma + xi^2 I",),
    )


# --- Prop. C.4: one head -------------------------------------------------------------------------
def single_head_conditions(U, V, m1, m2, gamma, xi):
    """Conditions (1)-(3) of Prop. C.4 as a list of scalar equations (expressions = 0)."""
    d = m1.shape[0]
    s = gamma**2 + xi**2
    dm = m1 - m2
    eqs = list(s * V * U - gamma**2 / s * sp.eye(d))  # (1)
    eqs += list(U.T * dm - dm / s)  # (2)
    eqs += list(V * m1 - xi**2 / s * m1) + list(V * m2 - xi**2 / s * m2)  # (3)
    return [sp.numer(sp.together(e)) for e in eqs]


def prop_c4_elimination(m1, m2):
    """Groebner basis (lex, U and V entries > gamma; xi a parameter) of conditions (1)-(3):
    returns the factored generators of the elimination ideal in gamma.  Every solution (U, V)
    makes them vanish, so a generator gamma^a (gamma^2 - xi^2) forces gamma^2 = xi^2 for gamma > 0."""
    gamma, xi = noise_symbols()
    d = m1.shape[0]
    U, V = matrix_symbols("U", d), matrix_symbols("V", d)
    eqs = single_head_conditions(U, V, m1, m2, gamma, xi)
    unknowns = list(U) + list(V)
    G = sp.groebner(eqs, *unknowns, gamma, order="lex")
    elim = [sp.factor(g) for g in G.exprs if not (g.free_symbols & set(unknowns))]
    return elim, gamma, xi


def prop_c4_one_head_derivation(d: int = 2) -> Derivation:
    """At gamma = xi, U = S^-1, V = I/2 gives f* (Thm. 4.1, one-head case)."""
    gamma, xi = noise_symbols()
    z = vector_symbols("z", d)
    m1, m2, _ = circle_means(d)
    w = _weights(2)
    S = 2 * xi**2 * sp.eye(d)
    head = single_head_display(w, [m1, m2], S, S.inv(), sp.eye(d) / 2, z)
    return DenoisingDerivation(
        name=f"One head at gamma = xi: U = S^-1, V = I/2, d={d}",
        source="Gabet-Boursier-Boyer 2026, Thm. 4.1 / App. C.2",
        derived=head, stated=eq11_stated(w, [m1, m2], xi, xi, z),
        assumptions=("gamma^2 = xi^2", "||m1|| = ||m2||"),
    )


# --- Prop. C.5 / C.3: two heads --------------------------------------------------------------------
def _orth_complement_projector(m1, m2):
    d = m1.shape[0]
    B = sp.Matrix.hstack(m1, m2)
    P = B * (B.T * B).inv() * B.T
    return (sp.eye(d) - P).applyfunc(sp.cancel)


def prop_c5_heads_noncollinear(m1, m2, gamma, xi, variant=None):
    """(U1, V1, U2, V2) of App. C.6, non-collinear means.  V_i is defined on E = span(m1, m2) by
    V_i m_i = a m_i, V_i m_j = 0, and by a/2 on the orthogonal complement.  ``variant``:
    'swap-U' exchanges U1 and U2 (control)."""
    s = gamma**2 + xi**2
    a = xi**2 / s
    dm = m1 - m2
    d = m1.shape[0]
    B = sp.Matrix.hstack(m1, m2)
    G = (B.T * B).inv()
    dual = G * B.T  # rows: dual basis of (m1, m2) on E (zero on E-perp)
    Q = _orth_complement_projector(m1, m2)
    perp = a / 2 * Q
    V1 = (a * m1 * dual[0, :]).applyfunc(sp.cancel) + perp
    V2 = (a * m2 * dual[1, :]).applyfunc(sp.cancel) + perp
    c0 = gamma**2 / (xi**2 * s)
    c1 = (xi**2 - gamma**2) / (xi**2 * s)
    U1 = c0 * sp.eye(d) + c1 * m2 * dm.T / _quad(m2, sp.eye(d), dm)
    U2 = c0 * sp.eye(d) + c1 * m1 * dm.T / _quad(m1, sp.eye(d), dm)
    if variant == "swap-U":
        U1, U2 = U2, U1
    return U1.applyfunc(sp.cancel), V1, U2.applyfunc(sp.cancel), V2


def prop_c5_heads_opposite(m, gamma, xi, variant=None):
    """Opposite means m1 = -m2 = m (App. C.6); n the unit vector along (-m_2, m_1, 0, ...), normal to m
    (requires (m_1, m_2) != 0).  ``variant``
    'flip-B' flips the sign of the skew term B in both V_i (control)."""
    d = m.shape[0]
    s = gamma**2 + xi**2
    nm2 = _quad(m, sp.eye(d))
    nrm = sp.sqrt(nm2)
    n = sp.zeros(d, 1)
    n[0], n[1] = -m[1], m[0]
    n = n / sp.sqrt(_quad(n, sp.eye(d)))  # unit normal to m (in d = 2 this is (-q, p)/|m|)
    P = m * m.T / nm2
    Q = sp.eye(d) - P
    A = xi**2 / (2 * s) * P + gamma**2 / (2 * s) * Q
    sign = -1 if variant == "flip-B" else 1
    B = sign * (gamma**2 - xi**2) / (2 * s) * m * n.T / nrm
    U1 = (sp.eye(d) + n * m.T / nrm) / s
    U2 = (sp.eye(d) - n * m.T / nrm) / s
    return U1, A + B, U2, A - B


def two_head_output(weights, means, S, heads, z):
    out = sp.zeros(S.shape[0], 1)
    for U, V in heads:
        out += single_head_display(weights, means, S, U, V, z)
    return out


def prop_c5_derivations(d: int = 2, variant=None) -> list:
    gamma, xi = noise_symbols()
    z = vector_symbols("z", d)
    w = _weights(2)
    S = (gamma**2 + xi**2) * sp.eye(d)
    out = []
    m1, m2, _ = circle_means(d)
    U1, V1, U2, V2 = prop_c5_heads_noncollinear(m1, m2, gamma, xi, variant)
    out.append(DenoisingDerivation(
        name=f"Prop. C.5 two heads, non-collinear means, d={d}" + (f" [{variant}]" if variant else ""),
        source="Gabet-Boursier-Boyer 2026, Prop. C.5 (App. C.6)",
        derived=two_head_output(w, [m1, m2], S, [(U1, V1), (U2, V2)], z),
        stated=eq11_stated(w, [m1, m2], gamma, xi, z),
        assumptions=("gamma > 0", "xi > 0", "||m1|| = ||m2||", "m1, m2 non-collinear"),
    ))
    if d == 2 and variant in (None, "flip-B"):
        m, mm, _ = circle_means(2, "opposite")
        U1, V1, U2, V2 = prop_c5_heads_opposite(m, gamma, xi, variant)
        out.append(DenoisingDerivation(
            name="Prop. C.5 two heads, opposite means, d=2" + (f" [{variant}]" if variant else ""),
            source="Gabet-Boursier-Boyer 2026, Prop. C.5 (App. C.6, m1 = -m2)",
            derived=two_head_output(w, [m, mm], S, [(U1, V1), (U2, V2)], z),
            stated=eq11_stated(w, [m, mm], gamma, xi, z),
            assumptions=("gamma > 0", "xi > 0", "m1 = -m2 != 0"),
        ))
    return out


def prop_c3_heads(m1, m2, xi):
    """Degenerate (gamma = 0) two-head construction of App. C.3 (non-collinear means)."""
    d = m1.shape[0]
    dm = m1 - m2
    B = sp.Matrix.hstack(m1, m2)
    dual = (B.T * B).inv() * B.T
    V1 = (m1 * dual[0, :]).applyfunc(sp.cancel)
    V2 = (m2 * dual[1, :]).applyfunc(sp.cancel)
    U1 = m2 * dm.T / (xi**2 * _quad(m2, sp.eye(d), dm))
    U2 = m1 * dm.T / (xi**2 * _quad(m1, sp.eye(d), dm))
    return U1.applyfunc(sp.cancel), V1, U2.applyfunc(sp.cancel), V2


def prop_c3_derivations(variant=None) -> list:
    """gamma = 0: two heads (non-collinear, d = 2) and one head (opposite means, d = 2).
    ``variant='U-scale'`` uses U scaled by 1/2 in every head (control)."""
    _g, xi = noise_symbols()
    z = vector_symbols("z", 2)
    w = _weights(2)
    S = xi**2 * sp.eye(2)
    k = sp.Rational(1, 2) if variant == "U-scale" else 1
    m1, m2, _ = circle_means(2)
    U1, V1, U2, V2 = prop_c3_heads(m1, m2, xi)
    out = [DenoisingDerivation(
        name="Prop. C.3 two heads, gamma = 0, non-collinear means, d=2" + (f" [{variant}]" if variant else ""),
        source="Gabet-Boursier-Boyer 2026, Prop. C.3 (App. C.3)",
        derived=two_head_output(w, [m1, m2], S, [(k * U1, V1), (k * U2, V2)], z),
        stated=eq11_stated(w, [m1, m2], sp.Integer(0), xi, z),
        assumptions=("Gamma = 0", "||m1|| = ||m2||", "m1, m2 linearly independent"))]
    m, mm, _ = circle_means(2, "opposite")
    n = sp.Matrix([-m[1], m[0]])
    nm2, nn2 = _quad(m, sp.eye(2)), _quad(n, sp.eye(2))
    U = (m + n) * m.T / (xi**2 * nm2)
    V = m * (m.T / nm2 - n.T / nn2)
    out.append(DenoisingDerivation(
        name="Prop. C.3 one head, gamma = 0, opposite means, d=2" + (f" [{variant}]" if variant else ""),
        source="Gabet-Boursier-Boyer 2026, Prop. C.3 (App. C.3, m1 = -m2)",
        derived=two_head_output(w, [m, mm], S, [(k * U, V)], z),
        stated=eq11_stated(w, [m, mm], sp.Integer(0), xi, z),
        assumptions=("Gamma = 0", "m1 = -m2 != 0")))
    return out


def prop_c3_single_head_solve(m1, m2, swapped: bool = False):
    """gamma = 0 single-head conditions: xi^2 V U = 0, V m_i = m_i (or swapped), U^T dm = dm/xi^2.
    Returns sympy.solve's solution list (empty = no single head)."""
    _g, xi = noise_symbols()
    d = m1.shape[0]
    U, V = matrix_symbols("U", d), matrix_symbols("V", d)
    dm = m1 - m2
    t1, t2 = (m2, m1) if swapped else (m1, m2)
    sgn = -1 if swapped else 1
    eqs = list(V * U) + list(V * m1 - t1) + list(V * m2 - t2) + list(xi**2 * U.T * dm - sgn * dm)
    return sp.solve([sp.numer(sp.together(e)) for e in eqs], list(U) + list(V), dict=True)


# --- Prop. 4.4: residual architecture ---------------------------------------------------------------
def residual_architecture(weights, means, gamma, xi, z, W_out=None, heads=None):
    """W_out (T^res_{U1,V1}[mu_Z](z) ; T^res_{U2,V2}[mu_Z](z)) with the paper's task-independent
    parameters (App. C.8); heads are evaluated with theory.attention.softmax_attention_stated on the
    noisy mixture, then rewritten in canonical softmax form."""
    d = z.shape[0]
    s = gamma**2 + xi**2
    a = xi**2 / s
    S = s * sp.eye(d)
    if heads is None:
        heads = [(S.inv(), a * sp.eye(d)), (sp.zeros(d), sp.zeros(d))]
    if W_out is None:
        W_out = sp.Matrix.hstack(sp.eye(d), -2 * a * sp.eye(d))
    mix = noisy_mixture(weights, means, S)
    res = [residual(z, _canonicalise_exp_ratio(softmax_attention_stated(mix, U, V, z))) for U, V in heads]
    stacked = sp.Matrix.vstack(*res)
    if W_out.shape[1] != stacked.shape[0]:
        raise ValueError(f"W_out has {W_out.shape[1]} columns but the residual heads give {stacked.shape[0]} entries")
    return W_out * stacked


def prop_4_4_derivation(d: int = 2, equal_norm: bool = True) -> Derivation:
    gamma, xi = noise_symbols()
    z = vector_symbols("z", d)
    m1, m2, _ = circle_means(d, "generic" if equal_norm else "unequal")
    w = _weights(2)
    return DenoisingDerivation(
        name=f"Prop. 4.4 residual architecture = Bayes denoiser, d={d}"
             + ("" if equal_norm else " [equal norms dropped]"),
        source="Gabet-Boursier-Boyer 2026, Prop. 4.4 (App. C.8)",
        derived=residual_architecture(w, [m1, m2], gamma, xi, z),
        stated=eq10_stated(w, [m1, m2], gamma**2 * sp.eye(d), xi, z),
        assumptions=("||m1|| = ||m2||", "m1 != m2", "pi1 in (0, 1)") if equal_norm else ("m1 != m2",),
        notes="W_out is d x 2d and acts on the concatenation of both residual heads (App. C.8); "
              "the main-text display W_out(T^res_{U1,V1}) is dimensionally inconsistent.",
    )


# --- Lemma C.7: multi-layer linear attention ---------------------------------------------------------
def lemma_c7_derivation(d: int = 2, layers: int = 2, heads_per_layer: int = 1,
                        pushforward: bool = True, weights=None, means=None, noise=None) -> DenoisingDerivation:
    """A stack of linear-attention layers (with residual), each acting on the push-forward of the
    prompt by the previous layers (Lemma C.7).

    derived = (Jacobian of the output in z, output - Jacobian z), where every layer's second
    moment is the Hessian at t = 0 of the generating function of the pushed-forward token,
    t -> E exp(t^T J z') = MGF_mu(J^T t) (Hessian taken for a generic W, then W = J), J the Jacobian of
    the network built so far (the same map the query goes through, so tokens are pushed forward by the derived network
    itself); stated = (product of the per-layer matrices I + sum_h V_h M_l U_h, 0), M_l the closed-form
    second moment sum_k pi_k (A m_k m_k^T A^T + A S A^T) of the hand-written push-forward mixture.
    The two sides share nothing but the mixture and the head symbols.  The default mixture has
    unequal weights (2/5, 3/5) and unequal-norm means so that no term cancels; S = (7/3) I, generic U
    and scalar V = v I keep the polynomial sizes small.  ``weights``, ``means`` and ``noise`` (the
    scalar s of S = s I) may be given as exact rationals (drawn configurations)."""
    from .attention import second_moment_derived
    from .mixtures import mgf
    # a generic noise level S = s I (a symbol here makes the proof ~4x slower)
    s = sp.Rational(7, 3) if noise is None else sp.Rational(str(noise))
    w = list(weights) if weights is not None else [sp.Rational(2, 5), sp.Rational(3, 5)]
    if means is None:
        means = [sp.Matrix([3, 0] + [0] * (d - 2)), sp.Matrix([-1, 2] + [0] * (d - 2))]
    z = vector_symbols("z", d)
    t = vector_symbols("t", d)
    mix0 = noisy_mixture(w, means, s * sp.eye(d))
    # generating function of a linearly pushed-forward token W z' (W generic, substituted by each
    # layer's Jacobian): t -> MGF_mu(W^T t); its Hessian at t = 0 is the second moment
    W = matrix_symbols("W", d)
    pushed_moment = sp.hessian(mgf(mix0, W.T * t), list(t)).subs({ti: 0 for ti in t})
    A_total = sp.eye(d)
    out = z
    mix = mix0  # stated side's hand-written push-forward mixture
    for l in range(layers):
        heads = [(matrix_symbols(f"U{l}{h}", d), sp.Symbol(f"v{l}{h}", real=True) * sp.eye(d))
                 for h in range(heads_per_layer)]
        # derived: second moment of the pushed-forward token from its generating function
        if l == 0:
            M_der = second_moment_derived(mix0)
        else:
            M_der = pushed_moment.xreplace(dict(zip(W, out.jacobian(z))))
        new = out
        for U, V in heads:
            new = new + V * M_der * U * out
        # stated: product of I + sum_h V_h M_l U_h with M_l in closed form on the push-forward mixture
        src = mix if pushforward else mix0  # control: ignore the push-forward in the stated product
        M = sum((p * (m * m.T + c) for p, m, c in zip(src.weights, src.means, src.covariances)), sp.zeros(d))
        A_l = sp.eye(d) + sum((V * M * U for U, V in heads), sp.zeros(d))
        A_total = A_l * A_total
        mix = SymbolicMixture(mix.weights, [A_l * m for m in mix.means] if pushforward else mix.means,
                              [A_l * c * A_l.T for c in mix.covariances] if pushforward else mix.covariances)
        out = new
    J = out.jacobian(z)
    return DenoisingDerivation(
        name=f"Lemma C.7: {layers}-layer linear attention is a linear map z -> A z, d={d}",
        source="Gabet-Boursier-Boyer 2026, Lemma C.7",
        # both sides are polynomials: expanding them (exact) lets the difference cancel term by term
        derived=sp.Matrix.hstack(J, out - J * z).applyfunc(sp.expand),
        stated=sp.Matrix.hstack(A_total, sp.zeros(d, 1)).applyfunc(sp.expand),
        assumptions=("mu_Z Gaussian mixture", "linear attention T_lin[mu](z) = V E[z'z'^T] U z",
                     "layer l sees the prompt pushed forward by layers < l",
                     "derived side: moments from the generating function of the pushed-forward token"),
    )


def remark_c2_limits(d: int = 2):
    """Symbolic limits of eq. (11)'s ingredients: Gamma S^-1 -> 0 and xi^2 S^-1 -> I as xi -> oo;
    Gamma S^-1 -> I as xi -> 0 (gamma > 0); and the score differences m_k^T z / s -> 0 as xi -> oo.
    Returns a dict of (expression, limit) pairs computed by sympy.limit."""
    gamma, xi = noise_symbols()
    s = gamma**2 + xi**2
    zz = sp.Symbol("y", real=True)
    return {
        "gamma^2/s as xi->oo": sp.limit(gamma**2 / s, xi, sp.oo),
        "xi^2/s as xi->oo": sp.limit(xi**2 / s, xi, sp.oo),
        "score y/s as xi->oo": sp.limit(zz / s, xi, sp.oo),
        "gamma^2/s as xi->0+": sp.limit(gamma**2 / s, xi, 0, "+"),
        "xi^2/s as xi->0+": sp.limit(xi**2 / s, xi, 0, "+"),
        "(gamma=0) gamma^2/s as xi->0+": sp.limit(sp.Integer(0) / xi**2, xi, 0, "+"),
    }
