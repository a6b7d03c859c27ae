"""A user's claim file for the pytest plugin and softmix.testing (tests/engine/test_pytest_plugin.py):
two true claims and two false ones, an operator statement and a @softmix.claim of each kind."""
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

import softmix


def gaussian_affine(mix, U, V, z):
    """one component: T(z) = V (m + G U z)"""
    return V * (mix.means[0] + mix.covariances[0] * U * z)


def squared_prior(mix, U, V, z):
    """eq. (2) with the prior weight squared in the gate (false)"""
    a = U * z
    s = [2 * sp.log(p) + (m.T * a)[0] + (a.T * G * a)[0] / 2 for p, m,
         G in zip(mix.weights, mix.means, mix.covariances)]
    e = [sp.exp(x) for x in s]
    return V * sum((ek / sum(e) * (m + G * a) for ek, m, G in zip(e, mix.means, mix.covariances)), sp.zeros(U.rows, 1))


softmix.operator_claim("pt-true-affine", gaussian_affine, components=1, dim=1, degenerate=True,
                       title="one Gaussian component gives an affine map")
softmix.operator_claim("pt-false-prior", squared_prior, components=2, dim=1, title="squared prior in the gate")


@dataclass
class Sums:
    n: int = 12
    digits: int = 30


@softmix.claim(id="pt-true-sum", title="sum_{k<=n} k = n(n+1)/2", source="Gauss",
               controls={"off-by-one": "n(n-1)/2 instead"})
def true_sum(p: Sums, ctx):
    rhs = Fraction(p.n * (p.n - 1 if ctx.control("off-by-one") else p.n + 1), 2)
    return softmix.part("numeric", [{"n": p.n, **softmix.Residual(digits=p.digits).decide(sum(range(p.n + 1)) - rhs)}])


@softmix.claim(id="pt-false-squares", title="sum_{k<=n} k^2 = n^2(n+1)/3", source="my notes",
               controls={"doubled": "twice the stated value"})
def false_squares(p: Sums, ctx):
    rhs = Fraction(p.n ** 2 * (p.n + 1), 3) * (2 if ctx.control("doubled") else 1)
    lhs = sum(k * k for k in range(p.n + 1))
    return softmix.part("numeric", [{"n": p.n, **softmix.Residual(digits=p.digits).decide(lhs - rhs)}])
