"""Symbolic Gaussian mixtures and their moment / cumulant generating functions (paper Sec. 2).

Exact, symbolic only.  A component N(m, G) has log-MGF  lambda(a) = <a, m> + a^T G a / 2, which
holds for every PSD G, degenerate ones included (the MGF of m + L xi with G = L L^T).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = [
    "SymbolicMixture",
    "symbolic_mixture",
    "component_log_mgf",
    "component_log_mgf_gradient",
    "mgf",
    "cgf",
    "gradient",
    "hessian",
    "vector_symbols",
    "matrix_symbols",
    "entry_name",
]


def vector_symbols(name: str, n: int, **kw) -> sp.Matrix:
    return sp.Matrix(sp.symbols(f"{name}_1:{n + 1}", real=True, **kw))


def entry_name(name: str, i: int, j: int, size: int) -> str:
    """Symbol name of entry (i, j) (0-based): ``G_12`` below size 10, ``G_1_12`` from 10 on so that
    names stay unique."""
    return f"{name}_{i + 1}{j + 1}" if size < 10 else f"{name}_{i + 1}_{j + 1}"


def matrix_symbols(name: str, rows: int, cols: int | None = None, symmetric: bool = False) -> sp.Matrix:
    cols = rows if cols is None else cols
    if symmetric:
        if rows != cols:
            raise ValueError("a symmetric matrix must be square")
        entries = {}
        for i in range(rows):
            for j in range(i, rows):
                entries[(i, j)] = entries[(j, i)] = sp.Symbol(entry_name(name, i, j, rows), real=True)
        return sp.Matrix(rows, cols, lambda i, j: entries[(i, j)])
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(entry_name(name, i, j, max(rows, cols)), real=True))


@dataclass
class SymbolicMixture:
    """sum_k pi_k N(m_k, G_k) with symbolic entries."""

    weights: list  # sympy expressions, positive
    means: list  # sympy column matrices (D x 1)
    covariances: list  # sympy symmetric matrices (D x D), PSD
    #: isotropic families (G_k = v_k I): the variances v_k (one per component, equal when shared); else None
    variances: list | None = None
    #: equal-norm families: the common norm r of the means; else None
    radius: object = None

    @property
    def n_components(self) -> int:
        return len(self.weights)

    @property
    def dim(self) -> int:
        return self.means[0].shape[0]


def symbolic_mixture(K: int, D: int, shared: bool = False, degenerate_rank: int | None = None,
                     prefix: str = "") -> SymbolicMixture:
    """Generic symbolic mixture.  ``degenerate_rank=r`` makes every covariance L_k L_k^T with
    L_k of size D x r (PSD, singular when r < D); ``shared`` uses one covariance for all k."""
    weights = list(sp.symbols(f"{prefix}pi1:{K + 1}", positive=True))
    means = [vector_symbols(f"{prefix}m{k + 1}", D) for k in range(K)]

    def one_cov(tag):
        if degenerate_rank is None:
            return matrix_symbols(f"{prefix}G{tag}", D, symmetric=True)
        Lk = matrix_symbols(f"{prefix}L{tag}", D, degenerate_rank)
        return Lk * Lk.T

    if shared:
        G = one_cov("")
        covs = [G for _ in range(K)]
    else:
        covs = [one_cov(k + 1) for k in range(K)]
    return SymbolicMixture(weights, means, covs)


def component_log_mgf(a: sp.Matrix, m: sp.Matrix, G: sp.Matrix):
    """log E exp(<a, X>) for X ~ N(m, G):  <a, m> + a^T G a / 2  (exact, any PSD G)."""
    return (a.T * m)[0, 0] + sp.Rational(1, 2) * (a.T * G * a)[0, 0]


def gradient(expr, a: sp.Matrix) -> sp.Matrix:
    return sp.Matrix([sp.diff(expr, ai) for ai in a])


def hessian(expr, a: sp.Matrix) -> sp.Matrix:
    return sp.Matrix(len(a), len(a), lambda i, j: sp.diff(expr, a[i], a[j]))


def component_log_mgf_gradient(a: sp.Matrix, m: sp.Matrix, G: sp.Matrix) -> sp.Matrix:
    """Gradient of :func:`component_log_mgf` in ``a``, obtained by differentiation."""
    return gradient(component_log_mgf(a, m, G), a)


def mgf(mix: SymbolicMixture, a: sp.Matrix):
    """E exp(<a, X>) = sum_k pi_k exp(lambda_k(a))."""
    return sp.Add(*[p * sp.exp(component_log_mgf(a, m, G))
                    for p, m, G in zip(mix.weights, mix.means, mix.covariances)])


def cgf(mix: SymbolicMixture, a: sp.Matrix):
    """Lambda(a) = log E exp(<a, X>)."""
    return sp.log(mgf(mix, a))
