"""Independent references for the finite-prompt constants and sampling paths (docs/finite-prompt.md).

Each function computes a quantity of :mod:`softmix.numerics.finite_prompt` by another route, so that a
claim can compare the production path with it:

* :func:`attention_by_definition_mp` -- ``T[mu_hat_L](z)`` of one prompt by its definition at ``dps``
  digits (plain sums, no log-space shift);
* :func:`cgf_derivatives_mp` -- ``M(t)``, ``grad Lambda(t)`` and ``grad^2 Lambda(t)`` of a mixture from
  SymPy's derivatives of each component's moment generating function (:func:`mgf_derivative_kernel`),
  and :func:`constants_from_mgf_mp`, the first-order constants (rho, bias, covariance, limit, mse,
  effective-sample fraction) built from them;
* :func:`dropped_half_limit` -- the operator with the gate score's factor 1/2 dropped (a wrong limit,
  the prediction of a negative control);
* :func:`two_sample_moments` -- two-sample differences of means and second moments about a point.

Exact: the definitions.  Approximate: float64 where stated; the mpmath paths are exact up to ``dps``.
"""
from __future__ import annotations

import mpmath as mpm
import numpy as np

from .attention import log_gates, tilted_moments
from .memo import memoised
from .mixture import GaussianMixture
from .precision import to_mpf

__all__ = ["attention_by_definition_mp", "mgf_derivative_kernel", "cgf_derivatives_mp", "constants_from_mgf_mp",
           "dropped_half_limit", "two_sample_moments"]


def attention_by_definition_mp(tokens, U, V, z, dps: int = 30) -> np.ndarray:
    """``T[mu_hat_L](z) = sum_i exp(<U z, z_i>) V z_i / sum_j exp(<U z, z_j>)`` for one prompt ``tokens``
    (L, D) at ``dps`` digits: mpmath sums over the float64 tokens, no log-space shift.  Returned as float64.

    >>> attention_by_definition_mp(np.array([[0.0], [1.0]]), np.eye(1), np.eye(1), [0.0]).tolist()
    [0.5]
    """
    with mpm.workdps(dps):
        Um, Vm = mpm.matrix(np.asarray(U, float).tolist()), mpm.matrix(np.asarray(V, float).tolist())
        a = Um * mpm.matrix([float(x) for x in np.ravel(z)])
        num, den = mpm.matrix(Vm.rows, 1), mpm.mpf(0)
        for x in np.asarray(tokens, float):
            xm = mpm.matrix(list(x))
            e = mpm.exp((a.T * xm)[0])
            num += e * (Vm * xm)
            den += e
        return np.array([float(v) for v in num / den])


@memoised("finite_prompt_references.mgf_kernel")
def mgf_derivative_kernel(D: int):
    """``exp(lambda(t))`` of one Gaussian component ``N(m, G)`` with its gradient and Hessian in ``t``,
    differentiated by SymPy from :func:`softmix.theory.mixtures.component_log_mgf` with symbolic
    ``(t, m, G)`` and compiled for mpmath: a function of ``(t, m, upper triangle of G)`` returning
    ``[e, grad e (D entries), Hessian e (D x D, row-major)]``."""
    import sympy as sp

    from softmix.theory.mixtures import component_log_mgf, gradient, hessian, matrix_symbols, vector_symbols

    t, m, G = vector_symbols("t", D), vector_symbols("m", D), matrix_symbols("G", D, symmetric=True)
    e = sp.exp(component_log_mgf(t, m, G))
    exprs = [e] + list(gradient(e, t)) + list(hessian(e, t))
    args = list(t) + list(m) + [G[i, j] for i in range(D) for j in range(i, D)]
    return sp.lambdify(args, exprs, "mpmath")


def cgf_derivatives_mp(mix: GaussianMixture, t) -> tuple:
    """``(M(t), grad Lambda(t), grad^2 Lambda(t))`` at the current mpmath precision, ``Lambda = log M``,
    from the components' MGF derivatives (:func:`mgf_derivative_kernel`) and the chain rule for the log:
    ``grad Lambda = grad M / M``, ``grad^2 Lambda = grad^2 M / M - grad Lambda grad Lambda^T``.
    ``t``: an mpmath column (or a sequence) of length ``mix.dim``."""
    D = mix.dim
    kern = mgf_derivative_kernel(D)
    w, m, G = mix.mp()
    M0, dM, d2M = mpm.mpf(0), mpm.matrix(D, 1), mpm.matrix(D, D)
    for k in range(len(w)):
        vals = ([t[i] for i in range(D)] + [m[k][i] for i in range(D)]
                + [G[k][i, j] for i in range(D) for j in range(i, D)])
        out = kern(*vals)
        M0 += w[k] * out[0]
        dM += w[k] * mpm.matrix(out[1:1 + D])
        d2M += w[k] * mpm.matrix([[out[1 + D + i * D + j] for j in range(D)] for i in range(D)])
    g = dM / M0
    return M0, g, d2M / M0 - g * g.T


def constants_from_mgf_mp(mix: GaussianMixture, U, V, z, dps: int = 45) -> dict:
    """The first-order finite-prompt constants of :func:`softmix.numerics.finite_prompt.finite_prompt_constants_mp`
    by another route: ``rho = M(2a) / M(a)^2``, ``C = grad^2 Lambda(2a) + delta delta^T`` with
    ``delta = grad Lambda(2a) - grad Lambda(a)``, covariance ``rho V C V^T``, bias ``rho V (grad Lambda(a) -
    grad Lambda(2a))``, limit ``V grad Lambda(a)``, mse the trace, effective-sample fraction ``1 / rho``
    (``a = U z`` from exact inputs; :func:`cgf_derivatives_mp` at ``dps`` digits).  Also returns the tilt
    ``a``, ``M(a)``, ``M(2a)`` and ``grad^2 Lambda(2a)`` (keys ``tilt``, ``M1``, ``M2``, ``hessian_2a``)."""
    with mpm.workdps(dps):
        Um = mpm.matrix([[to_mpf(x) for x in r] for r in U])
        Vm = mpm.matrix([[to_mpf(x) for x in r] for r in V])
        a = Um * mpm.matrix([to_mpf(x) for x in z])
        M1, g1, _H1 = cgf_derivatives_mp(mix, a)
        M2, g2, H2 = cgf_derivatives_mp(mix, 2 * a)
        rho = M2 / M1**2
        dl = g2 - g1
        cov = rho * Vm * (H2 + dl * dl.T) * Vm.T
        return {"rho": mpm.matrix([rho]), "covariance": cov, "bias": rho * Vm * (g1 - g2), "limit": Vm * g1,
                "mse": mpm.fsum(cov[i, i] for i in range(cov.rows)), "effective_sample_fraction": 1 / rho,
                "tilt": a, "M1": M1, "M2": M2, "hessian_2a": H2}


def dropped_half_limit(mix: GaussianMixture, U, V, z) -> np.ndarray:
    """The limit with the gate score's 1/2 dropped (float64): ``V sum_k softmax(log pi_k + a.m_k + a^T G_k a)_k
    (m_k + G_k a)``, ``a = U z`` -- the operator of eq. (2) with ``(Uz)^T G_k U z`` in place of half of it."""
    U, V, z = (np.asarray(x, float) for x in (U, V, z))
    a = U @ z
    s, g = tilted_moments(mix, a[None])
    _w, _m, G = mix.arrays()
    extra = np.array([0.5 * a @ Gk @ a for Gk in G])
    al = np.exp(log_gates(s + extra[None]))[0]
    return V @ (al @ g[0])


def two_sample_moments(X, Y, point) -> tuple:
    """Differences of two independent samples' means and of their second moments ``E (T - point)_i (T -
    point)_j`` (``i <= j``), with standard errors: ``(mean diff, its se, moment diff, its se)``."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    iu = np.triu_indices(X.shape[1])

    def stats_of(T):
        d = T - np.asarray(point, float)[None, :]
        prods = np.stack([d[:, i] * d[:, j] for i, j in zip(*iu)], axis=1)
        n = len(T)
        return T.mean(0), T.std(0, ddof=1) / np.sqrt(n), prods.mean(0), prods.std(0, ddof=1) / np.sqrt(n)

    mx, sx, px, spx = stats_of(X)
    my, sy, py, spy = stats_of(Y)
    return mx - my, np.hypot(sx, sy), px - py, np.hypot(spx, spy)
