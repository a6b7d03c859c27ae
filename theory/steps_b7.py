"""Displayed steps of Appendix B.7 (proof of Thm 3.5: the gradient flow in Morse-Bott
coordinates), derived by SymPy.

The chain-rule steps hold for every C^2 map; they are derived for maps whose value, derivative
(and Hessian) at the point are free symbols (:func:`~softmix.theory.steps_common.generic_jet`),
which is the same statement, at the point 0 (any point, after translation).  The integrals of
the tangential estimate are computed by SymPy.
"""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .mixtures import gradient, matrix_symbols, vector_symbols
from .steps_common import generic_jet

__all__ = ["b7_steps"]

SRC = "Gabet-Boursier-Boyer 2026"


def b7_steps(n: int = 2) -> list:
    """B.7#19, #21-24, #26, #30, #31, #38, #42, #47, #54 in dimension n per block."""
    th = sp.Matrix(sp.symbols(f"th1:{n + 1}", real=True))
    t = sp.Symbol("t", real=True)
    psi = sp.Matrix([generic_jet(th, f"p{i}") for i in range(n)])  # a C^2 map, free 2-jet at 0
    R = generic_jet(th, "R")  # the risk near theta*, free 2-jet
    at0 = {v: 0 for v in th}
    Dpsi = psi.jacobian(th)
    a, b = vector_symbols("a", n), vector_symbols("bb", n)
    curve = {v: a[i] * t + b[i] * t**2 for i, v in enumerate(th)}  # theta_t through 0
    zdot = psi.xreplace(curve).diff(t).subs(t, 0)
    gradR = gradient(R, th)
    # F with R = F o psi: F's gradient at psi(0) read off from the chain rule needs F itself: take F a
    # free 2-jet in z and R := F o psi (the definition F = R o psi^-1)
    zs = sp.Matrix(sp.symbols(f"z1:{n + 1}", real=True))
    F = generic_jet(zs, "F")
    RF = F.xreplace(dict(zip(zs, psi)))
    gradF = gradient(F, zs).xreplace(dict(zip(zs, psi.xreplace(at0))))
    J = Dpsi.xreplace(at0)
    flow = -(J * gradient(RF, th).xreplace(at0))
    Jg = matrix_symbols("J", n)
    K = Jg.inv()
    x, y = vector_symbols("x", n), vector_symbols("y", n)
    c0 = sp.Symbol("c0", real=True)
    gF = gradient(c0 + (y.T * y)[0, 0], sp.Matrix(list(x) + list(y)))  # F(x, y) = R(S) + |y|^2
    A, B, C = matrix_symbols("A", n, symmetric=True), matrix_symbols("B", n), matrix_symbols("C", n, symmetric=True)
    Gm = sp.Matrix(sp.BlockMatrix([[A, B], [B.T, C]]))
    zd = -Gm * gF
    yt = {v: y[i] + zd[n + i] * t for i, v in enumerate(y)}  # y_t to first order: y_0 = y, y'_0 = -2 C y
    V = (y.T * y)[0, 0]
    lam, T = sp.Symbol("lambda", positive=True), sp.Symbol("tau", positive=True)
    Y0, M, X0 = sp.symbols("Y0 M X0", positive=True)
    s = sp.Symbol("s", positive=True)
    src = f"{SRC}, App. B.7 (proof of Thm 3.5)"
    return [
        Derivation("B.7#19 z' = Dpsi theta' = -Dpsi grad R", src, sp.Matrix.hstack(zdot, (J * (-gradR)).xreplace(at0)),
                   sp.Matrix.hstack(J * a, -J * gradR.xreplace(at0)), notes="second column: theta' = -grad R(theta)"),
        Derivation("B.7#21 grad (F o psi) = Dpsi^T grad F", src, gradient(RF, th).xreplace(at0), J.T * gradF),
        Derivation("B.7#22 z' = -J J^T grad F", src, flow, -J * J.T * gradF),
        Derivation("B.7#23 z' = -G grad F with G = J J^T", src, flow, -(J * J.T) * gradF),
        Derivation("B.7#24 G^-1 = K^T K, K = J^-1", src, (Jg * Jg.T).inv(), K.T * K,
                   assumptions=("J invertible (Dpsi^-1 = J^-1 by the inverse function theorem)",)),
        Derivation("B.7#26 grad F(x, y) = (0, 2y)", src, gF, sp.Matrix([0] * n + list(2 * y)),
                   assumptions=("F(x, y) = R(S) + |y|^2 (Morse-Bott)",)),
        Derivation("B.7#30 (x', y') = -G (0, 2y)", src, zd, -Gm * sp.Matrix([0] * n + list(2 * y))),
        Derivation("B.7#31 x' = -2 B y, y' = -2 C y", src, zd, sp.Matrix(list(-2 * B * y) + list(-2 * C * y))),
        Derivation("B.7#38 d/dt |y_t|^2 = 2 <y, y'> = -4 <y, C y>", src,
                   sp.Matrix([V.xreplace(yt).diff(t).subs(t, 0)] * 2),
                   sp.Matrix([2 * (y.T * zd[n:, 0])[0, 0], -4 * (y.T * C * y)[0, 0]])),
        Derivation("B.7#42 square root of e^(-4 lambda t) |y0|^2", src, sp.sqrt(sp.exp(-4 * lam * T) * Y0**2),
                   sp.exp(-2 * lam * T) * Y0, notes="t >= 0; the square root is increasing"),
        Derivation("B.7#47 2M |y0| int_0^t e^(-2 lambda s) ds = (M/lambda)(1 - e^(-2 lambda t)) |y0| <= (M/lambda)|y0|",
                   src, sp.Matrix([X0 + 2 * M * Y0 * sp.integrate(sp.exp(-2 * lam * s), (s, 0, T)),
                                   M / lam * Y0 - M / lam * (1 - sp.exp(-2 * lam * T)) * Y0]),
                   sp.Matrix([X0 + M / lam * (1 - sp.exp(-2 * lam * T)) * Y0, M / lam * Y0 * sp.exp(-2 * lam * T)]),
                   notes="second entry: the slack of the last inequality is (M/lambda)|y0| e^(-2 lambda t) >= 0"),
        Derivation("B.7#54 int_0^oo e^(-2 lambda t) dt = 1/(2 lambda) < oo", src,
                   sp.integrate(sp.exp(-2 * lam * s), (s, 0, sp.oo)), 1 / (2 * lam)),
    ]
