"""Shared pieces of the display-step derivations (``theory.steps_*``): Gaussian expectations
obtained by SymPy integration, and the perturbation that a step's negative control applies.

Everything is exact SymPy.  A Gaussian vector ``X = m + L xi`` (``xi`` standard normal in R^k,
``Gamma = L L^T``, singular when ``k < d``) is integrated coordinate by coordinate: the two
one-dimensional integrals ``E exp(a xi)`` and ``E xi exp(a xi)`` are computed once by
:func:`sympy.integrate` against the standard normal density, never typed in.
"""
from __future__ import annotations

from dataclasses import replace

import sympy as sp

from .derivation import Derivation

__all__ = ["GaussianIntegrals", "gaussian_integrals", "generic_jet", "perturbed", "perturbed_all", "sigma",
           "softplus", "logistic_loss"]


def sigma(t):
    """The logistic sigmoid 1 / (1 + exp(-t)), written explicitly."""
    return 1 / (1 + sp.exp(-t))


def softplus(t):
    """log(1 + exp(t))."""
    return sp.log(1 + sp.exp(t))


def logistic_loss(y, t):
    """The logistic loss l(y, t) = log(1 + exp(-y t))."""
    return softplus(-y * t)


class GaussianIntegrals:
    """``E exp(a xi)`` and ``E xi exp(a xi)`` for a standard normal ``xi``, by SymPy integration,
    and the moments of ``X = m + L xi`` they give (independent coordinates of ``xi``)."""

    def __init__(self):
        x = sp.Symbol("x", real=True)
        a = sp.Symbol("a", real=True)
        dens = sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)
        self.a = a
        self.mgf1 = sp.simplify(sp.integrate(sp.exp(a * x) * dens, (x, -sp.oo, sp.oo)))
        self.first1 = sp.simplify(sp.integrate(x * sp.exp(a * x) * dens, (x, -sp.oo, sp.oo)))
        if self.mgf1.has(sp.erfc, sp.erf, sp.Integral) or self.first1.has(sp.erfc, sp.erf, sp.Integral):
            raise ArithmeticError("SymPy did not close the one-dimensional Gaussian integrals")

    def mgf(self, a_vec) -> sp.Expr:
        """E exp(<a, xi>) = prod_i E exp(a_i xi_i)."""
        return sp.Mul(*[self.mgf1.subs(self.a, ai) for ai in a_vec])

    def first(self, a_vec, i) -> sp.Expr:
        """E xi_i exp(<a, xi>) = E xi_i exp(a_i xi_i) prod_{j != i} E exp(a_j xi_j)."""
        return sp.Mul(*[(self.first1 if j == i else self.mgf1).subs(self.a, aj) for j, aj in enumerate(a_vec)])

    def mgf_affine(self, u, m, L, shift=0) -> sp.Expr:
        """E exp(shift + <u, m + L xi>)."""
        a = L.T * u
        return sp.exp(shift + (u.T * m)[0, 0]) * self.mgf(list(a))

    def first_affine(self, u, m, L, shift=0) -> sp.Matrix:
        """E (m + L xi) exp(shift + <u, m + L xi>), a column."""
        a = list(L.T * u)
        e = sp.exp(shift + (u.T * m)[0, 0])
        xi_part = sp.Matrix([self.first(a, i) for i in range(L.shape[1])])
        return e * (m * self.mgf(a) + L * xi_part)


def gaussian_integrals() -> GaussianIntegrals:
    """A fresh :class:`GaussianIntegrals` (the two integrals take about a second)."""
    return GaussianIntegrals()


def generic_jet(variables, name: str = "c"):
    """A quadratic polynomial in ``variables`` with free coefficients: its value, gradient and
    Hessian at a point are free, so a first- or second-order chain-rule identity proven for it
    holds for every twice-differentiable function (the identity only sees the 2-jet)."""
    v = list(variables)
    n = len(v)
    c0 = sp.Symbol(f"{name}0", real=True)
    lin = sum(sp.Symbol(f"{name}_{i}", real=True) * v[i] for i in range(n))
    quad = sum(sp.Symbol(f"{name}_{i}_{j}", real=True) * v[i] * v[j] for i in range(n) for j in range(i, n))
    return c0 + lin + quad


def _bump(expr):
    syms = sorted(sp.sympify(expr).free_symbols, key=lambda s: s.name)
    return sp.Rational(1, 7) * (syms[0] if syms else 1) + sp.Rational(2, 11)


def perturbed(d: Derivation) -> Derivation:
    """The step with its stated side altered by an additive term (``(1/7) s + 2/11``, ``s`` its
    first free symbol; in a matrix, in its first entry): the negative control of a step claim.
    The same check must refute it."""
    st = d.stated
    if isinstance(st, sp.MatrixBase):
        st = sp.Matrix(st)
        st[0] = st[0] + _bump(st)
    else:
        st = sp.sympify(st) + _bump(st)
    return replace(d, name=d.name + " [perturbed]", stated=st)


def perturbed_all(derivations) -> list:
    """:func:`perturbed` applied to every derivation."""
    return [perturbed(d) for d in derivations]
