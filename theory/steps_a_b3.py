"""Displayed steps of Appendix A.1 and B.1-B.3 (proofs of Prop. 2.1, Lemma B.1, Lemma B.3,
Lemma B.4 and Remark B.5), derived by SymPy from the definitions.

Each function returns a list of :class:`~softmix.theory.derivation.Derivation`, one per display,
named ``"<section>#<ordinal> <what>"`` (the name the display ledger cites).  The derived side is
computed from the definitions (definition (1) of the attention operator, the Gaussian law by
integration (:mod:`.steps_common`), the block convention (12), the logistic loss, Bayes' rule);
the stated side is the display as printed.
"""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .lda import assemble_UV, bayes_coefficients, effective_map, f_theta_expr, problem_symbols
from .mixtures import matrix_symbols, vector_symbols
from .steps_common import gaussian_integrals, logistic_loss, sigma

__all__ = ["a1_steps", "b1_steps", "b2_steps", "b3_steps"]

SRC = "Gabet-Boursier-Boyer 2026"


def _mixture_factors(d: int, K: int, k: int):
    """K components in R^d with covariances L_k L_k^T, L_k of size d x k (rank <= k)."""
    pis = list(sp.symbols(f"pi1:{K + 1}", positive=True))
    ms = [vector_symbols(f"m{j + 1}", d) for j in range(K)]
    Ls = [matrix_symbols(f"L{j + 1}", d, k) for j in range(K)]
    return pis, ms, Ls


def a1_steps(d: int = 2, K: int = 2) -> list:
    """App. A.1: (1) as a ratio of expectations; the mixture MGF; its first moment."""
    gi = gaussian_integrals()
    pis, ms, Ls = _mixture_factors(d, K, d)
    U, V = matrix_symbols("U", d), matrix_symbols("V", d)
    z = vector_symbols("z", d)
    u = U * z
    # definition (1): the weight exp(z'^T U z) at z' = m_k + L_k xi, its exponent expanded as written (affine in
    # xi) and read off by differentiation; E exp(c + a^T xi) and E xi_i exp(c + a^T xi) from the 1-D integrals
    xi = vector_symbols("xi", d)
    den_1, num_1 = sp.Integer(0), sp.zeros(d, 1)
    for p, m, L in zip(pis, ms, Ls):
        zp = m + L * xi
        e = sp.expand((zp.T * U * z)[0, 0])
        c, a = e.xreplace({x: 0 for x in xi}), [sp.diff(e, x) for x in xi]
        den_1 += p * sp.exp(c) * gi.mgf(a)
        num_1 += p * sp.exp(c) * (m * gi.mgf(a) + L * sp.Matrix([gi.first(a, i) for i in range(d)]))
    # the same expectations written with u = Uz, <u, X> (the display)
    num_u = sum((p * gi.first_affine(u, m, L) for p, m, L in zip(pis, ms, Ls)), sp.zeros(d, 1))
    den_u = sum(p * gi.mgf_affine(u, m, L) for p, m, L in zip(pis, ms, Ls))
    Gs = [L * L.T for L in Ls]
    lam = [(u.T * m)[0, 0] + (u.T * G * u)[0, 0] / 2 for m, G in zip(ms, Gs)]
    src = f"{SRC}, App. A.1 (proof of Prop. 2.1)"
    return [
        Derivation("A.1#1 definition (1) as a ratio of expectations", src, V * num_1 / den_1, V * num_u / den_u,
                   assumptions=("mu = sum_k pi_k N(m_k, L_k L_k^T)",),
                   notes="derived from z'^T U z as written; stated with u = Uz and <u, X> (the display)"),
        Derivation("A.1#2 mixture MGF", src, den_u, sum(p * sp.exp(l) for p, l in zip(pis, lam)),
                   assumptions=("Gaussian MGF by integration of the standard normal density",)),
        Derivation("A.1#3 mixture first moment E[X e^<u,X>]", src, num_u,
                   sum(((m + G * u) * p * sp.exp(l) for p, m, G, l in zip(pis, ms, Gs, lam)), sp.zeros(d, 1)),
                   assumptions=("Gaussian first tilted moment by integration",)),
    ]


def _lda_blocks(d: int):
    U11, u12, u21 = matrix_symbols("U11", d), vector_symbols("u12", d), vector_symbols("u21", d)
    u22 = sp.Symbol("u22", real=True)
    V11, v12, v21 = matrix_symbols("V11", d), vector_symbols("v12", d), vector_symbols("v21", d)
    v22 = sp.Symbol("v22", real=True)
    return U11, u12, u21, u22, V11, v12, v21, v22


def b1_steps(d: int = 2) -> list:
    """App. B.1 (proof of Lemma B.1): the block expansion of z^T U^T z', the regrouping with
    s(x, y), t(x, y), and the denominator / numerator of (1) on the LDA token law."""
    gi = gaussian_integrals()
    U11, u12, u21, u22, V11, v12, v21, v22 = _lda_blocks(d)
    U, _ = assemble_UV(U11, u12, u21, u22, V11, v12, v21, v22)
    x, xp = vector_symbols("x", d), vector_symbols("xp", d)
    y, yp = sp.Symbol("y", real=True), sp.Symbol("yp", real=True)
    z, zp = sp.Matrix(list(x) + [y]), sp.Matrix(list(xp) + [yp])
    s = U11.T * x + y * u21
    t = (u12.T * x)[0, 0] + y * u22
    m1, m_1 = vector_symbols("mp", d), vector_symbols("mm", d)
    L = matrix_symbols("L", d)
    G = L * L.T
    pi_p = sp.Symbol("pi_p", positive=True)
    bil = (z.T * U.T * zp)[0, 0]
    stated4 = (x.T * U11 * xp)[0, 0] + (x.T * u12)[0, 0] * yp + y * (u21.T * xp)[0, 0] + y * u22 * yp
    # the token law: (X, Y) = (m_c + L xi, c) with probability pi_c; z^T U^T z' at that token is affine in xi, its
    # constant and xi-coefficients read off the exponent as written (not through s, t of B.1#5)
    xi = vector_symbols("xi", d)
    den, num = 0, sp.zeros(d + 1, 1)
    for c, p, m in ((1, pi_p, m1), (-1, 1 - pi_p, m_1)):
        e = sp.expand(bil.xreplace({**dict(zip(xp, m + L * xi)), yp: c}))
        c0, a = e.xreplace({v: 0 for v in xi}), [sp.diff(e, v) for v in xi]
        mgf = sp.exp(c0) * gi.mgf(a)
        fx = sp.exp(c0) * (m * gi.mgf(a) + L * sp.Matrix([gi.first(a, i) for i in range(d)]))
        den += p * mgf
        num += p * sp.Matrix(list(fx) + [c * mgf])
    q = (s.T * G * s)[0, 0] / 2
    e_m = sp.exp(-t + (s.T * m_1)[0, 0])
    e_p = sp.exp(t + (s.T * m1)[0, 0])
    stated8 = sp.exp(q) * ((1 - pi_p) * e_m + pi_p * e_p)
    stated10 = sp.exp(q) * ((1 - pi_p) * e_m * sp.Matrix(list(m_1 + G * s) + [-1])
                            + pi_p * e_p * sp.Matrix(list(m1 + G * s) + [1]))
    # B.1#9: E[X e^<s, X> | Y = c] for a generic mean m_c
    mc = vector_symbols("mc", d)
    src = f"{SRC}, App. B.1 (proof of Lemma B.1)"
    return [
        Derivation("B.1#4 block expansion of z^T U^T z'", src, bil, stated4, assumptions=("U^T blocks (12)",)),
        Derivation("B.1#5 z^T U^T z' = <s, x'> + t y'", src, bil, (s.T * xp)[0, 0] + t * yp,
                   assumptions=("s = U11^T x + y u21, t = u12^T x + y u22",)),
        Derivation("B.1#8 denominator on the LDA token law", src, den, stated8,
                   assumptions=("X | Y = c ~ N(m_c, L L^T), P(Y = 1) = pi_+", "integrand exp(z^T U^T z') (the "
                                "display prints exp(z^T U^T z), a typo)")),
        Derivation("B.1#9 E[X e^<s,X> | Y = c]", src, gi.first_affine(s, mc, L),
                   (mc + G * s) * sp.exp((s.T * mc)[0, 0] + (s.T * G * s)[0, 0] / 2),
                   assumptions=("X | Y = c ~ N(m_c, L L^T)",)),
        Derivation("B.1#10 numerator on the LDA token law", src, num, stated10,
                   assumptions=("X | Y = c ~ N(m_c, L L^T), P(Y = 1) = pi_+",)),
    ]


def b2_steps(d: int = 2) -> list:
    """App. B.2 (proof of Lemma B.3): the gate under condition (C), f_theta under (C), the
    balanced case pi_+ = 1/2 and the symmetric balanced case m_-1 = -m_1."""
    m1, m_1, G, pi_p = problem_symbols(d)
    U11, u12 = matrix_symbols("U11", d), vector_symbols("u12", d)
    v21, v22 = vector_symbols("v21", d), sp.Symbol("v22", real=True)
    x = vector_symbols("x", d)
    dm = m1 - m_1
    C = {u: val for u, val in zip(u12, -U11 * dm / 2)}  # condition (C)
    theta = (U11, u12, v21, v22)
    _, _, _, s, s0 = effective_map(theta, m1, m_1, G, pi_p)
    alpha = sigma(s0 + (s.T * x)[0, 0])  # the gate of f_theta (eq. (6)), B.2#5
    f_C = f_theta_expr(theta, m1, m_1, G, pi_p, x).xreplace(C)
    mbar = (1 - pi_p) * m_1 + pi_p * m1
    lin = (v21.T * G * U11.T * x)[0, 0]
    half = {pi_p: sp.Rational(1, 2)}
    sym = {a: -b for a, b in zip(m_1, m1)}
    P = matrix_symbols("P", d, symmetric=True)  # Gamma^{-1}
    _, bstar = bayes_coefficients(m1, m_1, P, pi_p)
    # b* from Bayes' rule: the log-odds log(pi_+ phi_+(0) / ((1 - pi_+) phi_-(0))) of the two class densities
    # (one shared normalising constant) at x = 0, expanded by SymPy
    x0 = sp.zeros(d, 1)
    dens = lambda m: sp.exp(-((x0 - m).T * P * (x0 - m))[0, 0] / 2)
    # (the prior's log-odds kept whole: split into log pi_+ - log(1 - pi_+) it changes branch off 0 < pi_+ < 1)
    bstar_bayes = sp.log(pi_p / (1 - pi_p)) + sp.expand(sp.expand_log(sp.log(dens(m1) / dens(m_1)), force=True))
    src = f"{SRC}, App. B.2 (proof of Lemma B.3)"
    return [
        Derivation("B.2#7 gate under (C) equals pi_+", src, alpha.xreplace(C), pi_p,
                   assumptions=("(C): u12 = -U11 (m1 - m_-1)/2",)),
        Derivation("B.2#8 f_theta under (C)", src, f_C, lin + (v21.T * mbar)[0, 0] + (2 * pi_p - 1) * v22,
                   assumptions=("(C)", "Gamma symmetric")),
        Derivation("B.2#12 gate 1/2 and m_bar at pi_+ = 1/2", src,
                   sp.Matrix([alpha.xreplace(C).xreplace(half)] + list(mbar.xreplace(half))),
                   sp.Matrix([sp.Rational(1, 2)] + list((m_1 + m1) / 2)), assumptions=("(C)", "pi_+ = 1/2")),
        Derivation("B.2#13 f_theta under (C) at pi_+ = 1/2", src, f_C.xreplace(half),
                   lin + (v21.T * (m_1 + m1) / 2)[0, 0], assumptions=("(C)", "pi_+ = 1/2")),
        Derivation("B.2#15 f_theta under (C), symmetric balanced", src, f_C.xreplace(half).xreplace(sym), lin,
                   assumptions=("(C)", "pi_+ = 1/2", "m_-1 = -m_1")),
        Derivation("B.2#16 b* from Bayes' rule (printed form)", src, bstar_bayes, bstar,
                   assumptions=("P = Gamma^{-1} symmetric",)),
        Derivation("B.2#16 b* = 0 in the symmetric balanced case", src, bstar_bayes.xreplace(half).xreplace(sym), 0,
                   assumptions=("pi_+ = 1/2", "m_-1 = -m_1")),
    ]


def b3_steps(d: int = 1) -> list:
    """App. B.3 (proofs of Lemma B.4 and Remark B.5): conditioning on X, the pointwise minimiser
    of the conditional logistic loss, and the conditional mean E[Y | X]."""
    x = vector_symbols("x", d)
    m1, m_1 = vector_symbols("mp", d), vector_symbols("mm", d)
    P = matrix_symbols("P", d, symmetric=True)
    pi_p = sp.Symbol("pi_p", positive=True)
    f = sp.Symbol("f", real=True)  # the value f(X) of a measurable score at X = x
    phi = lambda m: sp.exp(-((x - m).T * P * (x - m))[0, 0] / 2)  # class densities up to one shared constant
    joint = {1: pi_p * phi(m1), -1: (1 - pi_p) * phi(m_1)}
    px = joint[1] + joint[-1]
    eta = joint[1] / px  # P(Y = 1 | X = x), Bayes' rule
    # E_(X,Y)[l(Y, f(X))] = int sum_c pi_c phi_c(x) l(c, f(x)) dx: the integrands agree
    lhs = joint[1] * logistic_loss(1, f) + joint[-1] * logistic_loss(-1, f)
    rhs = px * (logistic_loss(1, f) * eta + logistic_loss(-1, f) * (1 - eta))
    e, t = sp.Symbol("eta", positive=True), sp.Symbol("t", real=True)
    g = logistic_loss(1, t) * e + logistic_loss(-1, t) * (1 - e)
    crit = sp.solve(sp.Eq(sp.diff(g, t), 0), t)
    g2 = sp.diff(g, t, 2)
    ysq = sp.Symbol("c", real=True)
    sq = sp.solve(sp.Eq(sp.diff(e * (1 - ysq)**2 + (1 - e) * (-1 - ysq)**2, ysq), 0), ysq)
    src = f"{SRC}, App. B.3 (proof of Lemma B.4, Remark B.5)"
    return [
        Derivation("B.3#1 conditioning on X (integrand)", src, lhs, rhs,
                   assumptions=("X | Y = c ~ N(m_c, Gamma)", "eta = P(Y = 1 | X) by Bayes' rule")),
        Derivation("B.3#2 the critical point of g_X", src, sp.Matrix(crit), sp.Matrix([sp.log(e / (1 - e))]),
                   assumptions=("0 < eta < 1",), notes="g_X' = sigma(t) - eta has exactly this root"),
        Derivation("B.3#2 g_X'' = sigma(t)(1 - sigma(t)) > 0", src, g2, sigma(t) * (1 - sigma(t)),
                   notes="strict convexity: the root is the unique minimiser"),
        Derivation("B.3#5 E[Y | X] = 2 eta - 1", src, sp.Matrix([1 * eta + (-1) * (1 - eta)] + sq),
                   sp.Matrix([2 * eta - 1, 2 * e - 1]),
                   notes="second entry: the minimiser of the conditional square loss E[(Y - c)^2 | X]"),
    ]
