"""Displayed steps of Appendix B.10 (proof of Lemma B.35: when the Krylov space K = span{Gamma^k m}
is all of R^d), derived by SymPy.  Gamma = Q diag(lambda) Q^T with Q the Cayley rotation of a
product of rational plane rotations (an orthonormal eigenbasis e_i = Q[:, i], m_i = <m, e_i>), or, for the
contrapositions, Gamma written in its eigenbasis."""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .mixtures import vector_symbols

__all__ = ["b10_steps"]

SRC = "Gabet-Boursier-Boyer 2026"


def _rotation(d):
    """An orthogonal Q: a rational rotation R_(1,2)(t) of the first two axes, c = (1 - t^2)/(1 + t^2),
    s = 2t/(1 + t^2) (kept to one plane: the powers of Gamma stay cheap)."""
    Q = sp.eye(d)
    for i in range(1):
        t = sp.Symbol(f"q{i + 1}", real=True)
        R = sp.eye(d)
        c, s = (1 - t**2) / (1 + t**2), 2 * t / (1 + t**2)
        R[i, i], R[i, i + 1], R[i + 1, i], R[i + 1, i + 1] = c, -s, s, c
        Q = Q * R
    return Q


def b10_steps(d: int = 3) -> list:
    """B.10#3, #5, #9, #10, #11, #12, #14, #15."""
    lam = sp.symbols(f"lambda1:{d + 1}", real=True)
    m = vector_symbols("mu", d)  # m in the eigenbasis
    e = sp.eye(d)
    # contrapositions, in the eigenbasis: lambda_1 = lambda_2 (P onto span(e1, e2)); m_1 = 0 (P1 onto e1)
    Gd = sp.diag(lam[0], lam[0], *lam[2:])
    P = sp.diag(1, 1, *([0] * (d - 2)))
    G1 = sp.diag(*lam)
    P1 = sp.diag(1, *([0] * (d - 1)))
    m0 = m.subs(m[0], 0)
    ks = range(d)
    # the converse, in a rotated orthonormal eigenbasis
    Q = _rotation(d)
    G = Q * sp.diag(*lam) * Q.T
    mv = Q * m  # m = sum_i m_i e_i
    a = sp.symbols(f"a1:{d + 1}", real=True)
    V = sp.Matrix(d, d, lambda i, l: lam[i]**l)
    prod = sp.Mul(*[lam[j] - lam[i] for i in range(d) for j in range(i + 1, d)])
    X = sp.Symbol("X", real=True)
    Ppoly = sum(a[k] * X**k for k in ks)  # B.10#13: P(X) = sum_l a_l X^(l-1)
    Pl = lambda x: sum(a[k] * x**k for k in ks)
    v = sum((a[k] * G**k * mv for k in ks), sp.zeros(d, 1))
    coords = Q.LUsolve(v)  # the coordinates of v in the basis e_i = Q[:, i]
    src = f"{SRC}, App. B.10 (proof of Lemma B.35)"
    return [
        Derivation("B.10#3 P Gamma^k m = lambda_1^k (m_1 e_1 + m_2 e_2) when lambda_1 = lambda_2", src,
                   sp.Matrix.hstack(*[P * Gd**k * m for k in ks]),
                   sp.Matrix.hstack(*[lam[0]**k * (m[0] * e[:, 0] + m[1] * e[:, 1]) for k in ks]),
                   notes=f"k = 0, ..., {d - 1}"),
        Derivation("B.10#5 P1 Gamma^k m = Gamma^k P1 m = 0 when m_1 = 0", src,
                   sp.Matrix.hstack(*[P1 * G1**k * m0 for k in ks] + [G1**k * P1 * m0 for k in ks]),
                   sp.zeros(d, 2 * d)),
        Derivation("B.10#9 Gamma^(l-1) m = sum_i m_i lambda_i^(l-1) e_i", src,
                   sp.Matrix.hstack(*[G**k * mv for k in ks]),
                   sp.Matrix.hstack(*[sum((m[i] * lam[i]**k * Q[:, i] for i in range(d)), sp.zeros(d, 1)) for k in ks]),
                   assumptions=("Gamma = Q diag(lambda) Q^T, Q orthogonal (rational plane rotations)",)),
        Derivation("B.10#10 sum_l a_l Gamma^(l-1) m = sum_i m_i (sum_l a_l lambda_i^(l-1)) e_i", src,
                   sum((a[k] * G**k * mv for k in ks), sp.zeros(d, 1)),
                   sum((m[i] * sum(a[k] * lam[i]**k for k in ks) * Q[:, i] for i in range(d)), sp.zeros(d, 1))),
        Derivation("B.10#11 the coordinates of sum_l a_l Gamma^(l-1) m in (e_i) are m_i sum_l a_l lambda_i^(l-1)", src,
                   coords, sp.Matrix([m[i] * Pl(lam[i]) for i in range(d)]),
                   notes="coordinates by solving Q c = v (Q invertible: v = 0 iff every coordinate vanishes)"),
        Derivation("B.10#12 dividing coordinate i by m_i != 0 leaves sum_l a_l lambda_i^(l-1)", src,
                   sp.Matrix([coords[i] / m[i] for i in range(d)]), sp.Matrix([Pl(lam[i]) for i in range(d)]),
                   assumptions=("m_i != 0 for every i",)),
        Derivation("B.10#14 P(lambda_i) (P of B.10#13) is the left side of B.10#12", src,
                   sp.Matrix([Ppoly.subs(X, lam[i]) for i in range(d)]),
                   sp.Matrix([sum(a[k] * lam[i]**k for k in ks) for i in range(d)]),
                   notes="so P(lambda_i) = 0 by B.10#12"),
        Derivation("B.10#15 the Vandermonde determinant is prod_{i<j} (lambda_j - lambda_i)", src, V.det(), prod,
                   notes="nonzero for distinct eigenvalues, so V a = 0 forces a = 0"),
    ]
