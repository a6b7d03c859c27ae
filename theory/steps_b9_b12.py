"""Displayed steps of Appendix B.9, B.11 and B.12 (the symmetric invariant subspace: Lemmas B.32,
B.34, B.36 and the proof of Thm 3.6), derived by SymPy.

The symmetric balanced model: m_-1 = -m_1 = -m, pi_+ = 1/2 (s0 = 0).  On the points where
r = 0 and s = 0 (v22 = -v21^T m, u12 = -U11 m), eq. (7) gives b = 0 and f_theta(x) = w^T x with
w = U11 Gamma v21.  The gradients of the risk are those of its integrand, conditional on X = x
(differentiated by SymPy); G_w = (sigma(w^T x) - eta) x is the integrand of grad L(w).  The flows
are the negative gradients; their consequences are algebra with generic matrices.
"""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .lda import effective_map, f_theta_expr
from .mixtures import gradient, matrix_symbols, vector_symbols
from .steps_common import gaussian_integrals, logistic_loss, sigma

__all__ = ["b9_steps", "b11_steps", "b11_krylov_steps", "krylov_instance", "b12_steps", "reduced_flow"]

SRC = "Gabet-Boursier-Boyer 2026"


def _sym_model(d):
    m = vector_symbols("m", d)
    G = matrix_symbols("G", d, symmetric=True)
    U11, v21 = matrix_symbols("U11", d), vector_symbols("v21", d)
    u12, v22 = vector_symbols("u12", d), sp.Symbol("v22", real=True)
    on = dict(zip(list(u12) + [v22], list(-U11 * m) + [-(v21.T * m)[0, 0]]))  # s = 0, r = 0
    return m, G, U11, u12, v21, v22, on


def reduced_flow(d: int = 2):
    """(-grad_U11, -grad_v21, grad_u12, grad_v22) of the conditional risk integrand at r = s = 0 in the
    symmetric balanced model, and the stated G_w forms; returns (derived, stated, symbols)."""
    m, G, U11, u12, v21, v22, on = _sym_model(d)
    x, eta = vector_symbols("x", d), sp.Symbol("eta", positive=True)
    theta = (U11, u12, v21, v22)
    f = f_theta_expr(theta, m, -m, G, sp.Rational(1, 2), x)
    loss = eta * logistic_loss(1, f) + (1 - eta) * logistic_loss(-1, f)
    gU = sp.Matrix(d, d, lambda i, j: sp.diff(loss, U11[i, j])).xreplace(on)
    gv = gradient(loss, v21).xreplace(on)
    gu = gradient(loss, u12).xreplace(on)
    gv22 = sp.diff(loss, v22).xreplace(on)
    w = U11 * G * v21
    Gw = (sigma((w.T * x)[0, 0]) - eta) * x
    return (gU, gv, gu, gv22), (Gw * (G * v21).T, G * U11.T * Gw), (m, G, U11, v21, x, eta, w, f, on)


def b9_steps(d: int = 2) -> list:
    """B.9#4, #7, #8, #11, #20, #33, #36 (proofs of Lemmas B.32 and B.34)."""
    gi = gaussian_integrals()
    u, tt = sp.Symbol("u", real=True), sp.Symbol("t", real=True)
    (gU, gv, _, _), (sU, sv), (m, G, U11, v21, x, eta, w, f, on) = reduced_flow(d)
    # B.9#7: the MGF of -w^T Y X, Y = +-1 with prob. pi, X | Y ~ N(Y m, L L^T), by integration
    L, wv, pi_p = matrix_symbols("L", d), vector_symbols("w", d), sp.Symbol("pi_p", positive=True)
    mgf = sum(p * gi.mgf_affine(-c * tt * wv, c * m, L) for c, p in ((1, pi_p), (-1, 1 - pi_p)))
    mu_w, var_w = -(wv.T * m)[0, 0], (wv.T * L * L.T * wv)[0, 0]
    mu, s = sp.Symbol("mu", real=True), sp.Symbol("sigma", positive=True)
    phi = lambda z: sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi)
    Phi = lambda z: (1 + sp.erf(z / sp.sqrt(2))) / 2
    z = sp.Symbol("z", real=True)
    gplus = sp.integrate(z * phi(z - tt), (z, 0, sp.oo)).rewrite(sp.erf)  # E[G_+], G ~ N(t, 1)
    F = sum(e**2 for e in U11) - (v21.T * v21)[0, 0]
    Ud, vd = -gU, -gv  # the reduced flow, derived (B.9#33 states it as -sU, -sv)
    Fdot = 2 * sum(a * b for a, b in zip(U11, Ud)) - 2 * (v21.T * vd)[0, 0]
    Gw = (sigma((w.T * x)[0, 0]) - eta) * x
    src = f"{SRC}, App. B.9"
    return [
        Derivation("B.9#4 log(1 + e^u) - u = log(1 + e^-u) > 0 (and log(1 + e^u) > 0)", src + " (Lemma B.32)",
                   sp.exp(sp.log(1 + sp.exp(u)) - u), 1 + sp.exp(-u),
                   notes="compared after exp (injective): exp(log(1 + e^u) - u) = 1 + e^-u > 1, so u < log(1 + e^u); "
                         "both branches of max(u, 0) are below log(1 + e^u)"),
        Derivation("B.9#7 -w^T Y X ~ N(-w^T m1, w^T Gamma w) (its MGF, m_-1 = -m1)", src + " (Lemma B.32)", mgf,
                   sp.exp(tt * mu_w + tt**2 * var_w / 2), assumptions=("m_-1 = -m1", "Gamma = L L^T")),
        Derivation("B.9#8 mu Phi(mu/sigma) + sigma phi(mu/sigma) = sigma [q Phi(q) + phi(q)]", src + " (Lemma B.32)",
                   mu * Phi(mu / s) + s * phi(mu / s), s * ((mu / s) * Phi(mu / s) + phi(mu / s))),
        Derivation("B.9#11 g(t) = E[G_+] = t Phi(t) + phi(t), G ~ N(t, 1)", src + " (Lemma B.32)", gplus,
                   tt * Phi(tt) + phi(tt), notes="integrated by SymPy; Lemma B.6 at mu = t, sigma = 1"),
        Derivation("B.9#20 f_theta(x) = <U11 Gamma v21, x> on r = s = 0 (so R(theta) = L(w))", src + " (Lemma B.34)",
                   f.xreplace(on), (w.T * x)[0, 0], assumptions=("m_-1 = -m1, pi_+ = 1/2", "r = 0, s = 0")),
        Derivation("B.9#33 the reduced flow: -grad_U11 R, -grad_v21 R", src + " (Lemma B.34)",
                   sp.Matrix.hstack(-gU, -gv), sp.Matrix.hstack(-Gw * (G * v21).T, -G * U11.T * Gw),
                   assumptions=("integrand level", "m_-1 = -m1, pi_+ = 1/2, r = s = 0", "Gamma symmetric")),
        Derivation("B.9#36 F' = 0 along the reduced flow, F = |U11|_F^2 - |v21|^2", src + " (Lemma B.34)",
                   sp.Matrix([Fdot, Fdot]),
                   sp.Matrix([-2 * (Gw.T * U11 * G * v21)[0, 0] + 2 * (v21.T * G * U11.T * Gw)[0, 0], 0]),
                   notes=f"F = {sp.sstr(F)[:40]}...; second entry: the two terms cancel (Gamma symmetric)"),
    ]


def krylov_instance():
    """An explicit Krylov instance in d = 3: Gamma = Q diag(l1, l2, l3) Q^T (Q a rational orthogonal Cayley
    matrix, l free), m = a q1 + b q2 (a, b free), so K = span{m, Gamma m, ...} = span(q1, q2) when
    l1 != l2 and a b != 0, K^perp = span(q3); a point of T_K: U11 = A (I - P_K) (A free), u12 = 0,
    v21 = t q3, v22 = 0.  Raises ValueError if m and Gamma m do not span P_K's plane.  Returns (Gamma, m, P_K,
    theta, q)."""
    S = sp.Matrix([[0, sp.Rational(1, 2), sp.Rational(1, 3)], [-sp.Rational(1, 2), 0, sp.Rational(1, 5)],
                   [-sp.Rational(1, 3), -sp.Rational(1, 5), 0]])
    Q = (sp.eye(3) - S) * (sp.eye(3) + S).inv()
    q = [Q[:, i] for i in range(3)]
    lam = sp.symbols("l1 l2 l3", positive=True)
    G = Q * sp.diag(*lam) * Q.T
    a, b, t = sp.symbols("a b t", real=True)
    m = a * q[0] + b * q[1]
    PK = q[0] * q[0].T + q[1] * q[1].T
    U11 = matrix_symbols("A", 3) * (sp.eye(3) - PK)
    # the promise, checked: m and Gamma m lie in P_K's plane and span it (Gram determinant a^2 b^2 (l1 - l2)^2)
    Km = sp.Matrix.hstack(m, G * m)
    if (sp.simplify((sp.eye(3) - PK) * Km) != sp.zeros(3, 2)
            or sp.simplify((Km.T * Km).det() - a**2 * b**2 * (lam[0] - lam[1]) ** 2) != 0):
        raise ValueError("krylov_instance: m and Gamma m do not span the plane P_K projects on")
    return G, m, PK, (U11, sp.zeros(3, 1), t * q[2], sp.Integer(0)), q


def b11_krylov_steps() -> list:
    """B.11#2, #4, #5, #6 on the explicit Krylov instance :func:`krylov_instance` (d = 3), the gradient
    G_w a free vector: b = r = s = 0 on T_K (eq. (7)), U11' x_K = 0, P_K v21' = 0."""
    G, m, PK, theta, q = krylov_instance()
    w, b, r, s, _ = effective_map(theta, m, -m, G, sp.Rational(1, 2))
    U11, _, v21, _ = theta
    g = vector_symbols("Gw", 3)
    c1, c2 = sp.symbols("c1 c2", real=True)
    xK = c1 * q[0] + c2 * q[1]
    Ud, vd = -g * (G * v21).T, -G * U11.T * g
    src, asm = f"{SRC}, App. B.11 (Lemma B.37)", ("d = 3, K = span(q1, q2) (l1 != l2, a b != 0)", "m_-1 = -m")
    return [Derivation("B.11#2 b = r = s = 0 on T_K", src, sp.Matrix([b, r, *s]), sp.zeros(5, 1), assumptions=asm),
            Derivation("B.11#4 U11' x_K = -G_w (Gamma v21)^T x_K = 0", src, sp.Matrix.vstack(Ud * xK, (G * v21).T * xK),
                       sp.zeros(4, 1), assumptions=asm),
            Derivation("B.11#5 v21' = -Gamma U11^T G_w in K^perp", src, PK * vd, sp.zeros(3, 1), assumptions=asm),
            Derivation("B.11#6 U11' P_K = 0, P_K v21' = 0 on T_K", src, sp.Matrix.hstack(Ud * PK, PK * vd),
                       sp.zeros(3, 4), assumptions=asm)]


def b11_steps(d: int = 2) -> list:
    """B.11#3: the gradients on r = s = 0 in the symmetric balanced model (Lemma B.36); B.11#2, #4-#6
    on the explicit Krylov instance (d = 3, :func:`b11_krylov_steps`)."""
    (gU, gv, gu, gv22), (sU, sv), _ = reduced_flow(d)
    return b11_krylov_steps() + [Derivation(
        "B.11#3 the gradients on r = s = 0: u12 and v22 vanish, U11 and v21 through G_w",
                       f"{SRC}, App. B.11 (Lemma B.36)", sp.Matrix.hstack(gU, gv, gu, sp.Matrix([gv22] * d)),
                       sp.Matrix.hstack(sU, sv, sp.zeros(d, 1), sp.zeros(d, 1)),
                       assumptions=("integrand level", "m_-1 = -m1, pi_+ = 1/2 (s0 = 0), r = s = 0"))]


def b12_steps(d: int = 2) -> list:
    """B.12#4-6, #9, #21, #24 (proof of Thm 3.6): the flow of w = U11 Gamma v21, the conserved
    quantity, the curvature bound of L and S' = -4 <w, grad L>."""
    (gU, gv, _, _), (sU, sv), (m, G, U11, v21, x, eta, w, f, on) = reduced_flow(d)
    g = vector_symbols("gL", d)  # grad L(w_t), generic
    Ud, vd = -g * (G * v21).T, -G * U11.T * g  # B.12#4 with grad L
    wdot = Ud * G * v21 + U11 * G * vd
    Gt = ((G * v21).T * (G * v21))[0, 0] * sp.eye(d) + U11 * G**2 * U11.T
    C0 = sp.Symbol("C0", real=True)
    nU, nv = sum(e**2 for e in U11), (v21.T * v21)[0, 0]
    Sdot = 2 * sum(a * b for a, b in zip(U11, Ud)) + 2 * (v21.T * vd)[0, 0]
    u = sp.Dummy("u", real=True)
    sp1 = sp.diff(sigma(u), u)
    crit = sp.solve(sp.diff(sp1, u), u)
    Gw = (sigma((w.T * x)[0, 0]) - eta) * x
    b4 = Derivation("B.12#4 the reduced flow: -grad_U11 R, -grad_v21 R", f"{SRC}, App. B.12 (proof of Thm 3.6)",
                    sp.Matrix.hstack(-gU, -gv), sp.Matrix.hstack(-Gw * (G * v21).T, -G * U11.T * Gw),
                    assumptions=("integrand level: grad L(w) = E[G_w]", "m_-1 = -m1, pi_+ = 1/2, r = s = 0"))
    src = f"{SRC}, App. B.12 (proof of Thm 3.6)"
    return [
        b4,
        Derivation("B.12#5 w' = U11' Gamma v21 + U11 Gamma v21'", src, wdot,
                   -((G * v21).T * (G * v21))[0, 0] * g - U11 * G**2 * U11.T * g, assumptions=("Gamma symmetric",)),
        Derivation("B.12#6 w' = -G_t grad L(w)", src, wdot, -Gt * g, assumptions=("G_t of B.12#7",)),
        Derivation("B.12#9 |v21|^2 = |U11|_F^2 - C0 (C0 = |U11|_F^2 - |v21|^2, B.12#8)", src,
                   (nU - C0).subs(C0, nU - nv), nv, notes=">= -C0 since |U11|_F^2 >= 0"),
        Derivation("B.12#21 sup sigma' = sigma'(0) = 1/4 (so Hess L = E[sigma' X X^T] <= E[X X^T]/4)", src,
                   sp.Matrix([sp.Matrix(crit), sp.Matrix([sp1.subs(u, c) for c in crit])]),
                   sp.Matrix([0, sp.Rational(1, 4)]),
                   notes="the only critical point of sigma' is 0 (a maximum: sigma' -> 0 at +-oo); Hess of the "
                         "integrand is sigma'(w^T x) x x^T (lemma-b.33)"),
        Derivation("B.12#24 S' = -4 <w, grad L(w)>, S = |U11|_F^2 + |v21|^2", src, sp.Matrix([Sdot, Sdot]),
                   sp.Matrix([-2 * sum(a * b for a, b in zip(U11, g * (G * v21).T)) - 2 * (v21.T * G * U11.T * g)[0, 0],
                              -4 * (w.T * g)[0, 0]]), assumptions=("Gamma symmetric",)),
    ]
