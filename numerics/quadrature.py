"""Arbitrary-precision Gauss-Hermite quadrature for expectations under Gaussians and mixtures.

Nodes come from numpy's float64 rule refined by Newton's method on the Hermite recurrence at the
working precision, so a rule with n nodes is exact for polynomials of degree 2n - 1 up to the
working precision.  For smooth non-polynomial integrands the error is estimated by comparing n
and a larger rule (:func:`expect_with_error`): an estimate, not a bound.
"""
from __future__ import annotations

import itertools

import mpmath as mpm
import numpy as np

from .memo import memoised
from .precision import workdps

__all__ = ["hermite_rule", "normal_rule", "expect_gaussian", "expect_mixture", "expect_with_error",
           "psd_sqrt_mp"]


@memoised("quadrature.hermite_rule")
def _hermite_rule_cached(n: int, dps: int):
    x0, _ = np.polynomial.hermite.hermgauss(n)
    with workdps(dps + 10):
        nodes, weights = [], []
        for x in x0:
            x = mpm.mpf(float(x))
            for _ in range(100):
                # physicists' Hermite H_n and H_{n-1} by recurrence
                h0, h1 = mpm.mpf(1), 2 * x
                for k in range(1, n):
                    h0, h1 = h1, 2 * x * h1 - 2 * k * h0
                # H_n = h1, H_{n-1} = h0, H_n' = 2 n H_{n-1}
                dx = h1 / (2 * n * h0)
                x -= dx
                if abs(dx) < mpm.mpf(10) ** (-(dps + 5)) * max(1, abs(x)):
                    break
            h0, h1 = mpm.mpf(1), 2 * x
            for k in range(1, n):
                h0, h1 = h1, 2 * x * h1 - 2 * k * h0
            w = 2 ** (n - 1) * mpm.factorial(n) * mpm.sqrt(mpm.pi) / (n**2 * h0**2)
            nodes.append(x)
            weights.append(w)
        return tuple(nodes), tuple(weights)


def hermite_rule(n: int, dps: int):
    """(nodes, weights) for int f(x) exp(-x^2) dx, at ``dps`` digits."""
    return _hermite_rule_cached(int(n), int(dps))


def normal_rule(n: int, dps: int):
    """(nodes, weights) for E f(X), X ~ N(0, 1): x = sqrt(2) t, w / sqrt(pi)."""
    t, w = hermite_rule(n, dps)
    with workdps(dps):
        s2, sp_ = mpm.sqrt(2), mpm.sqrt(mpm.pi)
        return [s2 * x for x in t], [x / sp_ for x in w]


def psd_sqrt_mp(G, tol=None):
    """L (D x r) with L L^T = G, r the numerical rank, via mpmath's symmetric eigensolver."""
    G = mpm.matrix(G)
    D = G.rows
    E, Q = mpm.eigsy(G)
    tol = tol if tol is not None else mpm.mpf(10) ** (-mpm.mp.dps + 5) * max(1, mpm.mnorm(G, 1))
    cols = [i for i in range(D) if E[i] > tol]
    L = mpm.matrix(D, max(1, len(cols)))
    for c, i in enumerate(cols):
        s = mpm.sqrt(E[i])
        for r in range(D):
            L[r, c] = Q[r, i] * s
    return L, len(cols)


def expect_gaussian(f, mean, cov, n: int = 40, dps: int = 50):
    """E f(X) for X ~ N(mean, cov) (cov PSD, possibly singular), tensor Gauss-Hermite with n
    nodes per direction in the range of cov.  ``f`` maps an mpmath column vector to an mpf or
    an mpmath matrix."""
    with workdps(dps):
        mean = mpm.matrix(mean)
        L, r = psd_sqrt_mp(mpm.matrix(cov))
        x, w = normal_rule(n, dps)
        total = None
        for idx in itertools.product(range(n), repeat=r if r > 0 else 0):
            if r == 0:
                pt, wt = mean, mpm.mpf(1)
            else:
                xi = mpm.matrix([x[i] for i in idx])
                pt = mean + L * xi
                wt = mpm.fprod(w[i] for i in idx)
            val = f(pt)
            total = wt * val if total is None else total + wt * val
        return total


def expect_mixture(f, mix, n: int = 40, dps: int = 50):
    """E f(X) for X ~ mix (a numerics.mixture.GaussianMixture)."""
    with workdps(dps):
        w, m, G = mix.mp()
        total = None
        for wk, mk, Gk in zip(w, m, G):
            v = wk * expect_gaussian(f, mk, Gk, n=n, dps=dps)
            total = v if total is None else total + v
        return total


def _absmax(v):
    if isinstance(v, mpm.matrix):
        return max(abs(x) for x in v)
    return abs(v)


def expect_with_error(f, mix, n: int = 40, dps: int = 50, n2: int | None = None):
    """(value with n2 nodes, |value(n2) - value(n)|) as an a-posteriori error estimate."""
    n2 = n2 if n2 is not None else int(1.5 * n) + 2
    a = expect_mixture(f, mix, n=n, dps=dps)
    b = expect_mixture(f, mix, n=n2, dps=dps)
    with workdps(dps):
        return b, _absmax(b - a)
