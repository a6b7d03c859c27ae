"""The reference side of an operator statement, independent of the user's code.

``T_{U,V}[mu](z)`` for a rational mixture ``mu`` computed two ways: exactly, as ``V grad
Lambda(U z)`` differentiated from the cumulant generating function (:func:`exact_operator`), and
by definition (1) of Gabet, Boursier & Boyer (2026) with Gauss-Hermite quadrature
(:func:`definition_by_quadrature`).  ``U`` and ``V`` are rows of exact numbers or exact SymPy
matrices (algebraic entries are evaluated at the working precision by quadrature).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath as mpm
import sympy as sp

from softmix.numerics.precision import to_mpf, workdps
from softmix.numerics.quadrature import expect_mixture
from softmix.theory.mixtures import SymbolicMixture, cgf, gradient, vector_symbols

__all__ = ["exact_operator", "definition_by_quadrature", "sym_mixture", "rational_matrix", "compare", "to_mp",
           "exact_matrix"]


def _R(x):
    if isinstance(x, sp.Basic):
        return x
    x = Fraction(x)
    return sp.Rational(x.numerator, x.denominator)


def sym_mixture(mix) -> SymbolicMixture:
    """A numeric rational GaussianMixture as a SymbolicMixture of exact rationals."""
    return SymbolicMixture([_R(w) for w in mix.weights], [sp.Matrix([_R(v) for v in m]) for m in mix.means],
                           [sp.Matrix([[_R(v) for v in r] for r in G]) for G in mix.covariances])


def exact_matrix(M) -> sp.Matrix:
    """Rows of exact numbers (Fractions, ints, SymPy numbers) or a SymPy matrix, as a SymPy matrix."""
    if isinstance(M, sp.MatrixBase):
        return sp.Matrix(M)
    return sp.Matrix([[_R(v) for v in r] for r in M])


_mat = exact_matrix


def rational_matrix(M) -> sp.Matrix:
    """Rows of Fractions (or a flat list: a column) as an exact SymPy matrix."""
    M = list(M)
    return _mat(M if M and isinstance(M[0], (list, tuple)) else [[v] for v in M])


def _column(z) -> sp.Matrix:
    if isinstance(z, sp.MatrixBase):
        return sp.Matrix(z)
    return sp.Matrix([_R(v) for v in z])


def compare(rule, value, reference, quadrature_error=None, **keys) -> dict:
    """One evidence row: ``rule.decide(max |value - reference|, max |reference|)`` (mpmath columns)
    with ``keys`` first; a quadrature whose error estimate exceeds the rule's tolerance makes the
    row undecidable (``passed`` None: inconclusive, never refuted)."""
    res = max(abs(x - y) for x, y in zip(value, reference))
    row = {**keys, **rule.decide(res, max(abs(x) for x in reference))}
    if quadrature_error is not None:
        row["quadrature_error_estimate"] = mpm.nstr(quadrature_error, 3)
        if quadrature_error > mpm.mpf(10) ** (rule.guard - rule.dps):
            row.update(passed=None, verdict="inconclusive", reason="quadrature error estimate above the tolerance")
    return row


def exact_operator(mix, U, V, z) -> sp.Matrix:
    """V grad Lambda(U z) at exact values (differentiated from the CGF)."""
    smix = sym_mixture(mix)
    a = vector_symbols("a", mix.dim)
    point = dict(zip(a, _mat(U) * _column(z)))  # exact numbers: xreplace is exact and fast
    return _mat(V) * gradient(cgf(smix, a), a).xreplace(point)


def _mpf(v):
    if isinstance(v, sp.Basic):
        if v.is_Rational:
            return mpm.mpf(int(v.p)) / int(v.q)
        return mpm.mpf(str(sp.N(v, mpm.mp.dps + 10)))
    return to_mpf(v)


def definition_by_quadrature(mix, U, V, z, dps: int, nodes: int, tol=None, max_nodes: int = 160):
    """Eq. (1) literally: int e^{<Uz, x>} V x dmu / int e^{<Uz, x>} dmu by Gauss-Hermite
    quadrature with n = ``nodes``, 1.5 n + 2, ... nodes per direction of each covariance's range,
    until two successive rules agree to ``tol`` (relative; default 10^(10 - dps)) or n would pass
    ``max_nodes``.  Returns the last value and |last - previous| relative (an a-posteriori
    estimate of the previous rule's error, hence conservative for the last; not a bound)."""
    U, V = _mat(U), _mat(V)
    with workdps(dps):
        Um = mpm.matrix([[_mpf(U[i, j]) for j in range(U.cols)] for i in range(U.rows)])
        Vm = mpm.matrix([[_mpf(V[i, j]) for j in range(V.cols)] for i in range(V.rows)])
        a = Um * mpm.matrix([_mpf(v) for v in _column(z)])
        tol = mpm.mpf(10) ** (10 - dps) if tol is None else mpm.mpf(tol)

        def f(x):
            e = mpm.exp(sum(a[i] * x[i] for i in range(len(x))))
            y = Vm * x
            return mpm.matrix([e] + [e * y[i] for i in range(y.rows)])

        def T(val):
            return mpm.matrix([val[i + 1] / val[0] for i in range(val.rows - 1)])

        n = int(nodes)
        prev = expect_mixture(f, mix, n=n, dps=dps)
        while True:
            n = int(1.5 * n) + 2
            cur = expect_mixture(f, mix, n=n, dps=dps)
            err = max(abs(x - y) for x, y in zip(cur, prev)) / abs(cur[0])
            if err <= tol or int(1.5 * n) + 2 > max_nodes:
                return T(cur), err
            prev = cur


def to_mp(M: sp.Matrix, dps: int):
    """An exact SymPy column rounded to ``dps`` digits (mpmath column); non-finite -> ArithmeticError."""
    out = []
    with workdps(dps + 10):  # the mpf keep these digits whatever the caller's context
        for e in M:
            v = sp.N(e, dps + 10)
            if not v.is_number or v.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or not v.is_real:
                raise ArithmeticError(f"stated value {sp.sstr(e)[:80]} is not a finite real number")
            out.append(mpm.mpf(str(v)))
        return mpm.matrix(out)
