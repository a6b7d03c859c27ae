"""Displayed steps of Sec. 4.2 and Appendix C (the denoising proofs: Prop. C.1, Prop. C.3,
Prop. 4.3, Prop. C.4 / Thm 4.1, Prop. C.5, the risk gap of C.7, Prop. 4.4), derived by SymPy.

The attention output on the noisy law mu_Z = sum_k pi_k N(m_k, S) is always obtained from the
definition (V grad Lambda(U z), the cumulant generating function differentiated:
:func:`softmix.theory.attention.softmax_attention_derived`); the Bayes denoiser from Gaussian
conditioning and Bayes' rule (:func:`softmix.theory.denoising.bayes_denoiser_conditioning`);
Gaussian moments of the noise from its MGF, itself integrated (:mod:`.steps_common`).
"""
from __future__ import annotations

import sympy as sp

from .attention import softmax_attention_derived
from .denoising import (
    _canonicalise_exp_ratio,
    bayes_denoiser_conditioning,
    canonical_softmax,
    circle_means,
    noise_symbols,
    noisy_mixture,
    posterior_weights_bayes,
    prop_c3_heads,
    prop_c5_heads_noncollinear,
)
from .derivation import Derivation
from .mixtures import matrix_symbols, vector_symbols
from .steps_common import gaussian_integrals, sigma

__all__ = ["sec42_steps", "c1_steps", "c3_steps", "c4_steps", "c5_steps", "c6_steps", "c7_steps", "c8_steps"]

SRC = "Gabet-Boursier-Boyer 2026"


def _head(w, means, S, U, V, z):
    return _canonicalise_exp_ratio(softmax_attention_derived(noisy_mixture(w, means, S), U, V, z))


def _z_covariance(gamma, xi, d):
    """Cov(Z | C = k) for Z = X + xi eps, X | C = k ~ N(m_k, gamma^2 I), eps ~ N(0, I) independent: the sum of
    the two covariances, formed here from the definition so that the derived sides never read the stated S."""
    return gamma**2 * sp.eye(d) + xi**2 * sp.eye(d)


def _bary(weights, means):
    out = sp.zeros(means[0].shape[0], 1)
    for b, m in zip(weights, means):
        out += b * m
    return out


def _beta_posterior(w, means, s, z):
    """beta_k(z) = P(C = k | Z = z) by Bayes' rule with the densities N(z; m_k, s I) (offsets included)."""
    return posterior_weights_bayes(w, means, s * sp.eye(z.shape[0]), z)


def sec42_steps(d: int = 2) -> list:
    """4.2#3: a head at U = S^-1 (S = (gamma^2 + xi^2) I, equal norms) reads V z + V sum beta_k m_k."""
    gamma, xi = noise_symbols()
    s = gamma**2 + xi**2
    m1, m2, _ = circle_means(d, "generic")
    w = list(sp.symbols("pi1:3", positive=True))
    z, V = vector_symbols("z", d), matrix_symbols("V", d)
    S = s * sp.eye(d)
    return [Derivation("4.2#3 the head at U = S^-1", f"{SRC}, Sec. 4.2",
                       _head(w, [m1, m2], _z_covariance(gamma, xi, d), S.inv(), V, z),
                       V * z + V * _bary(_beta_posterior(w, [m1, m2], s, z), [m1, m2]),
                       assumptions=("Gamma = gamma^2 I", "||m1|| = ||m2||"))]


def c1_steps(d: int = 2) -> list:
    """C.1#6-7 (proof of Prop. C.1): the conditional mean rewritten with I - Gamma S^-1 = xi^2 S^-1."""
    _, xi = noise_symbols()
    G = matrix_symbols("Gam", d, symmetric=True)
    S = G + xi**2 * sp.eye(d)
    Si = S.inv()
    z, m = vector_symbols("z", d), vector_symbols("mk", d)
    src = f"{SRC}, App. C.1 (proof of Prop. C.1)"
    return [
        Derivation("C.1#6 E[X | Z = z, C = k] = Gamma S^-1 z + xi^2 S^-1 m_k", src, m + G * Si * (z - m),
                   G * Si * z + xi**2 * Si * m, assumptions=("C.1#5: Gaussian conditioning, S = Gamma + xi^2 I",)),
        Derivation("C.1#7 I - Gamma S^-1 = (S - Gamma) S^-1 = xi^2 S^-1", src,
                   sp.Matrix.hstack(sp.eye(d) - G * Si, (S - G) * Si), sp.Matrix.hstack(xi**2 * Si, xi**2 * Si)),
    ]


def c3_steps(d: int = 2) -> list:
    """C.3#1, #5-7 (proof of Prop. C.3, Gamma = 0): the head on mu_Z and the two-head construction."""
    _, xi = noise_symbols()
    w = list(sp.symbols("pi1:3", positive=True))
    m1, m2 = vector_symbols("m1", d), vector_symbols("m2", d)
    z, U, V = vector_symbols("z", d), matrix_symbols("U", d), matrix_symbols("V", d)
    S = xi**2 * sp.eye(d)
    al = canonical_softmax([sp.log(p) + (m.T * U * z)[0, 0] for p, m in zip(w, [m1, m2])])
    U1, V1, U2, V2 = prop_c3_heads(m1, m2, xi)
    dm = m1 - m2
    perp = lambda m: sp.eye(d) - m * m.T / (m.T * m)[0, 0]  # projector onto m^perp
    src = f"{SRC}, App. C.3 (proof of Prop. C.3)"
    return [
        Derivation("C.3#1 the head on mu_Z at Gamma = 0", src, _head(w, [m1, m2], S, U, V, z),
                   xi**2 * V * U * z + V * _bary(al, [m1, m2]), assumptions=("Gamma = 0, S = xi^2 I",)),
        Derivation("C.3#5 Im(U1) in span(m2), Im(U2) in span(m1)", src,
                   sp.Matrix.hstack(perp(m2) * U1, perp(m1) * U2), sp.zeros(d, 2 * d),
                   notes="the projections onto m2-perp (m1-perp) of the columns vanish"),
        Derivation("C.3#6 V1 U1 = 0, V2 U2 = 0", src, sp.Matrix.hstack(V1 * U1, V2 * U2), sp.zeros(d, 2 * d),
                   assumptions=("V1 m1 = m1, V1 m2 = 0, V2 m1 = 0, V2 m2 = m2 (C.3#2-3)", "m1, m2 independent")),
        Derivation("C.3#7 U_h^T dm = dm / xi^2", src, sp.Matrix.hstack(U1.T * dm, U2.T * dm),
                   sp.Matrix.hstack(dm / xi**2, dm / xi**2), assumptions=("<m_h, dm> != 0",)),
    ]


def c4_steps(d: int = 2) -> list:
    """C.4#1-2 (proof of Prop. 4.3): f* at gamma = 0, balanced, equal norms, and the recursion on
    the segment."""
    _, xi = noise_symbols()
    m1, m2, _ = circle_means(d, "generic")
    z = vector_symbols("z", d)
    half = [sp.Rational(1, 2)] * 2
    fstar = bayes_denoiser_conditioning(half, [m1, m2], sp.zeros(d, d), xi, z)
    c, dl = (m1 + m2) / 2, (m1 - m2) / 2
    stated = c + dl * sp.tanh(((z - c).T * dl)[0, 0] / xi**2)
    u = sp.Symbol("u", real=True)
    zu = c + u * dl
    nd = (dl.T * dl)[0, 0]
    step = fstar.xreplace(dict(zip(z, zu))) - c
    coef = (step.T * dl)[0, 0] / nd
    lam2 = nd / xi**2
    src = f"{SRC}, App. C.4 (proof of Prop. 4.3)"
    return [
        Derivation("C.4#1 f*(z) = c + delta tanh(<z - c, delta>/xi^2)", src, fstar, stated,
                   assumptions=("gamma = 0", "pi1 = pi2 = 1/2", "||m1|| = ||m2||")),
        Derivation("C.4#2 f*(c + u delta) = c + F(u) delta, F(u) = tanh(lambda^2 u)", src,
                   sp.Matrix.vstack(step - coef * dl, sp.Matrix([coef])),
                   sp.Matrix.vstack(sp.zeros(d, 1), sp.Matrix([sp.tanh(lam2 * u)])),
                   notes="lambda = ||delta|| / xi; the step stays on the line c + R delta"),
    ]


def c5_steps(d: int = 2) -> list:
    """C.5#1 (proof of Prop. C.4): the single head on mu_Z with Gamma = gamma^2 I."""
    gamma, xi = noise_symbols()
    w = list(sp.symbols("pi1:3", positive=True))
    m1, m2 = vector_symbols("m1", d), vector_symbols("m2", d)
    z, U, V = vector_symbols("z", d), matrix_symbols("U", d), matrix_symbols("V", d)
    s = gamma**2 + xi**2
    a1 = sigma(sp.log(w[0] / w[1]) + ((U * z).T * (m1 - m2))[0, 0])
    return [Derivation("C.5#1 the single head with Gamma = gamma^2 I", f"{SRC}, App. C.5 (proof of Prop. C.4)",
                       _head(w, [m1, m2], _z_covariance(gamma, xi, d), U, V, z),
                       s * V * U * z + V * (a1 * m1 + (1 - a1) * m2),
                       assumptions=("Gamma = gamma^2 I, S = (gamma^2 + xi^2) I",))]


def c6_steps(d: int = 3) -> list:
    """C.6#8, #12, #13 (proof of Prop. C.5): the value matrices of the two-head construction (V1 + V2 in
    dimension d, so that E-perp is not trivial when d = 3; V_h U_h in dimension 2, cheaper)."""
    gamma, xi = noise_symbols()
    m1, m2 = vector_symbols("m1", d), vector_symbols("m2", d)
    U1, V1, U2, V2 = prop_c5_heads_noncollinear(m1, m2, gamma, xi)
    n1, n2 = vector_symbols("m1", 2), vector_symbols("m2", 2)
    W1, R1, W2, R2 = prop_c5_heads_noncollinear(n1, n2, gamma, xi)
    s = gamma**2 + xi**2
    c0 = gamma**2 / (xi**2 * s)
    src = f"{SRC}, App. C.6 (proof of Prop. C.5)"
    return [
        Derivation("C.6#8 V1 + V2 = xi^2/(gamma^2 + xi^2) I", src, V1 + V2, xi**2 / s * sp.eye(d),
                   assumptions=("V_i defined on E = span(m1, m2) by (C2) and by a/2 on E-perp (C.6#5-7)",)),
        Derivation("C.6#12 V1 m2 = 0, V2 m1 = 0 (the off-diagonal half of (C2))", src,
                   sp.Matrix.hstack(V1 * m2, V2 * m1), sp.zeros(d, 2),
                   assumptions=("V_i built from the dual basis of (m1, m2) on E and a/2 on E-perp (C.6#5-7)",),
                   notes="d = 3, so the E-perp part is present and must vanish on m1, m2"),
        Derivation("C.6#13 V_h U_h = gamma^2/(xi^2 (gamma^2 + xi^2)) V_h", src, sp.Matrix.hstack(R1 * W1, R2 * W2),
                   sp.Matrix.hstack(c0 * R1, c0 * R2), assumptions=("V1 m2 = 0, V2 m1 = 0", "d = 2")),
    ]


def _expect(poly_expr, xs, es, mu, M, E1, E2):
    """E of a polynomial of degree <= 2 in X (mean mu, second moments M) and in eps (independent
    of X; first and second moments E1, E2)."""
    p = sp.Poly(sp.expand(poly_expr), *xs, *es)
    n = len(xs)
    out = 0
    for mon, coef in p.terms():
        ix = [i for i in range(n) for _ in range(mon[i])]
        ie = [k for k in range(len(es)) for _ in range(mon[n + k])]
        if len(ix) > 2 or len(ie) > 2:
            raise ValueError("degree beyond the moments given")
        ex = 1 if not ix else (mu[ix[0]] if len(ix) == 1 else M[ix[0], ix[1]])
        ee = 1 if not ie else (E1[ie[0]] if len(ie) == 1 else E2[ie[0], ie[1]])
        out += coef * ex * ee
    return out


def c7_steps(d: int = 2) -> list:
    """C.7#5, #8 (Thm 4.1, strict risk gap): the risk of a linear map and the excess risk of A*."""
    _, xi = noise_symbols()
    gi = gaussian_integrals()
    x, e = vector_symbols("x", d), vector_symbols("e", d)
    A, M = matrix_symbols("A", d), matrix_symbols("M", d, symmetric=True)  # M = E[X X^T]
    mu = vector_symbols("mu", d)  # E[X]
    t = vector_symbols("t", d)
    mgf = gi.mgf(list(xi * t))  # eps = xi * standard normal
    E1 = [sp.diff(mgf, ti).subs({v: 0 for v in t}) for ti in t]
    E2 = sp.Matrix(d, d, lambda i, j: sp.diff(mgf, t[i], t[j]).subs({v: 0 for v in t}))
    sq = lambda v: (v.T * v)[0, 0]
    I = sp.eye(d)
    lines = [sq(x - A * (x + e)), sq((I - A) * x - A * e)]
    exp_lines = [_expect(q, list(x), list(e), mu, M, E1, E2) for q in lines]
    l3 = _expect(sq((I - A) * x), list(x), list(e), mu, M, E1, E2) + _expect(sq(A * e), list(x), list(e), mu, M, E1, E2)
    fro = sum(a**2 for a in A)
    # the last line written from M = E[X X^T] alone (E|(I - A)X|^2 = tr((I - A) M (I - A)^T)), not by _expect:
    # a fault of _expect shared by every line would otherwise leave the chain closed
    l4 = ((I - A) * M * (I - A).T).trace() + xi**2 * fro
    G = matrix_symbols("Gam", d, symmetric=True)
    S = G + xi**2 * I
    h, z = vector_symbols("h", d), vector_symbols("z", d)
    src = f"{SRC}, App. C.7 (Thm 4.1, separation)"
    return [
        Derivation("C.7#5 the risk of a linear map, line by line", src, sp.Matrix(exp_lines + [l3]),
                   sp.Matrix([exp_lines[1], l3, l4]),
                   assumptions=("Z = X + eps, eps ~ N(0, xi^2 I) independent of X", "M = E[X X^T]"),
                   notes="each line's expectation equals the next; the display prints |A|_F for ||A||_F"),
        Derivation("C.7#8 A* Z - f*(Z) with f*(z) = Gamma S^-1 z + h(z)", src, A * z - (G * S.inv() * z + h),
                   (A - G * S.inv()) * z - h, assumptions=("eq. (10): h(z) = xi^2 S^-1 sum_k beta_k(z) m_k",)),
    ]


def c8_steps(d: int = 2) -> list:
    """C.8#2 (proof of Prop. 4.4): the two heads U1 = S^-1, V1 = a I and U2 = V2 = 0."""
    gamma, xi = noise_symbols()
    s = gamma**2 + xi**2
    a = xi**2 / s
    m1, m2, _ = circle_means(d, "generic")
    w = list(sp.symbols("pi1:3", positive=True))
    z = vector_symbols("z", d)
    S = s * sp.eye(d)
    h1 = _head(w, [m1, m2], _z_covariance(gamma, xi, d), S.inv(), a * sp.eye(d), z)
    h2 = _head(w, [m1, m2], _z_covariance(gamma, xi, d), sp.zeros(d, d), sp.zeros(d, d), z)
    return [Derivation("C.8#2 the two heads of Prop. 4.4", f"{SRC}, App. C.8 (proof of Prop. 4.4)",
                       sp.Matrix.hstack(h1, h2),
                       sp.Matrix.hstack(a * z + a * _bary(_beta_posterior(w, [m1, m2], s, z), [m1, m2]),
                                        sp.zeros(d, 1)), assumptions=("Gamma = gamma^2 I", "||m1|| = ||m2||"))]
