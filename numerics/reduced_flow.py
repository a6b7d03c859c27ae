"""The reduced linear logistic risk of App. B.9-B.12 and its factorised gradient flow (float64).

In the symmetric balanced LDA setting (``m_1 = -m_{-1} = m``, ``pi_+ = 1/2``) one has
``V := Y X ~ N(m, Gamma)`` and ``L(w) = E log(1 + exp(-w^T V))``.  The score ``Z = w^T V`` is a
one-dimensional Gaussian ``N(w^T m, w^T Gamma w)`` and ``V | Z`` is Gaussian with mean
``m + Gamma w (Z - mu) / s^2`` and covariance ``Gamma - Gamma w w^T Gamma / s^2``, so ``L``, its
gradient and its Hessian are one-dimensional Gauss-Hermite quadratures in any dimension.  The
reduced flow of Thm 3.6 (display B.12#4) is ``U' = -grad L(w) (Gamma v)^T``, ``v' = -Gamma U^T
grad L(w)``, ``w = U Gamma v``, integrated by :func:`scipy.integrate.solve_ivp` (DOP853).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp
from scipy.special import expit

__all__ = ["LinearLogistic", "ReducedTrajectory", "reduced_flow", "gaussian_positive_part"]


def gaussian_positive_part(mu: float, sigma: float) -> float:
    """E[(Z)_+] for Z ~ N(mu, sigma^2), sigma > 0: mu Phi(mu / sigma) + sigma phi(mu / sigma) (Lemma B.6)."""
    from scipy.stats import norm
    q = mu / sigma
    return float(mu * norm.cdf(q) + sigma * norm.pdf(q))


@dataclass
class LinearLogistic:
    """``L(w) = E log(1 + exp(-w^T V))``, ``V ~ N(m, Gamma)``, by ``n``-point Gauss-Hermite quadrature
    in the score ``Z = w^T V``."""
    m: np.ndarray
    Gamma: np.ndarray
    n: int = 96
    _x: np.ndarray = field(init=False, repr=False)
    _p: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        self.m, self.Gamma = np.asarray(self.m, float), np.asarray(self.Gamma, float)
        x, p = np.polynomial.hermite.hermgauss(self.n)
        self._x, self._p = np.sqrt(2.0) * x, p / np.sqrt(np.pi)

    def _score(self, w):
        mu, s2 = float(w @ self.m), float(w @ self.Gamma @ w)
        return mu, s2, mu + np.sqrt(s2) * self._x

    def value(self, w) -> float:
        """L(w)."""
        _, _, z = self._score(np.asarray(w, float))
        return float(self._p @ np.logaddexp(0.0, -z))

    def grad(self, w) -> np.ndarray:
        """grad L(w) = -E[sigma(-Z) V]."""
        w = np.asarray(w, float)
        mu, s2, z = self._score(w)
        h = -expit(-z)
        if s2 == 0.0:
            return float(self._p @ h) * self.m
        return float(self._p @ h) * self.m + (self.Gamma @ w) * float(self._p @ (h * (z - mu))) / s2

    def hess(self, w) -> np.ndarray:
        """Hessian E[sigma'(Z) V V^T]."""
        w = np.asarray(w, float)
        mu, s2, z = self._score(w)
        h = expit(z) * expit(-z)
        if s2 == 0.0:
            return float(self._p @ h) * (self.Gamma + np.outer(self.m, self.m))
        gw = self.Gamma @ w
        c = self.m[None, :] + np.outer((z - mu) / s2, gw)
        cov = self.Gamma - np.outer(gw, gw) / s2
        return float(self._p @ h) * cov + (c * (self._p * h)[:, None]).T @ c

    def w_star(self) -> np.ndarray:
        """The minimiser 2 Gamma^-1 m (the Bayes log-odds of the symmetric balanced LDA)."""
        return 2.0 * np.linalg.solve(self.Gamma, self.m)

    def second_moment(self) -> np.ndarray:
        """E[X X^T] = Gamma + m m^T."""
        return self.Gamma + np.outer(self.m, self.m)


@dataclass
class ReducedTrajectory:
    """Samples of the reduced flow at times ``t``: ``U`` (k, d, d), ``v`` (k, d), ``w`` (k, d)."""
    t: np.ndarray
    U: np.ndarray
    v: np.ndarray
    w: np.ndarray


def reduced_flow(L: LinearLogistic, U0, v0, T: float, k: int = 400, rtol: float = 1e-11,
                 atol: float = 1e-13) -> ReducedTrajectory:
    """Integrate ``U' = -grad L(w) (Gamma v)^T``, ``v' = -Gamma U^T grad L(w)`` (``w = U Gamma v``) on
    ``[0, T]`` and sample it at ``k`` equally spaced times."""
    U0, v0 = np.asarray(U0, float), np.asarray(v0, float)
    d, G = v0.size, L.Gamma

    def rhs(_t, y):
        U, v = y[:d * d].reshape(d, d), y[d * d:]
        g = L.grad(U @ G @ v)
        return np.concatenate([(-np.outer(g, G @ v)).ravel(), -G @ U.T @ g])

    ts = np.linspace(0.0, T, k)
    sol = solve_ivp(rhs, (0.0, T), np.concatenate([U0.ravel(), v0]), method="DOP853", t_eval=ts, rtol=rtol,
                    atol=atol)
    if not sol.success:
        raise ArithmeticError(f"reduced flow: {sol.message}")
    U = sol.y[:d * d].T.reshape(-1, d, d)
    v = sol.y[d * d:].T
    w = np.einsum("kij,jl,kl->ki", U, G, v)
    return ReducedTrajectory(ts, U, v, w)
