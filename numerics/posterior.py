"""The Bayes denoiser of a Gaussian mixture observed through Gaussian noise (any number of components).

Clean signal X ~ sum_k pi_k N(m_k, Sigma_k) on R^D, observation Z = X + eps with eps ~ N(0, N)
independent of X.  Given the component k, (X, Z) is jointly Gaussian, so with S_k = Sigma_k + N:

    P(C = k | Z = z) = beta_k(z) = softmax_k( log pi_k - (1/2) log det S_k - (1/2) (z - m_k)^T S_k^-1 (z - m_k) ),
    E[X | Z = z, C = k] = c_k(z) = m_k + Sigma_k S_k^-1 (z - m_k),
    Cov(X | Z = z, C = k) = Sigma_k - Sigma_k S_k^-1 Sigma_k,

and the posterior mean and covariance (the Bayes denoiser under squared loss and its pointwise risk) are

    f*(z) = E[X | Z = z] = sum_k beta_k(z) c_k(z),
    Cov(X | Z = z) = sum_k beta_k(z) [Sigma_k - Sigma_k S_k^-1 Sigma_k + (c_k(z) - f*(z)) (c_k(z) - f*(z))^T].

With Sigma_k = Gamma shared and N = xi^2 I this is the paper's eq. (10) (Sec. 4.1; the log det S_k
and z^T S^-1 z terms are then common to all components and cancel in the softmax).

Exact formulas: float64 (vectorised over queries, the gates in log space so that large scores give
no overflow and no nan) and mpmath at any precision.  Every S_k must be positive definite (a
positive definite noise covariance suffices).

:class:`PosteriorMeanTarget` makes f* a regression target of :mod:`softmix.numerics.risk` (a target
whose conditional mean given the query is not linear).
"""
from __future__ import annotations

from dataclasses import dataclass

import mpmath as mpm
import numpy as np

from .errors import InputError
from .mixture import GaussianMixture, parse_number
from .precision import to_mpf, workdps

__all__ = ["posterior_weights", "posterior_mean", "posterior_covariance", "posterior_mean_mp",
           "noise_matrix", "PosteriorMeanTarget"]


def noise_matrix(noise, dim: int) -> np.ndarray:
    """The noise covariance N as a float64 (D, D) array from a scalar variance (N = noise I), a
    vector (a diagonal) or a matrix; must be symmetric positive semidefinite."""
    arr = np.asarray(noise, dtype=float)
    if arr.ndim == 0:
        arr = float(arr) * np.eye(dim)
    elif arr.ndim == 1:
        arr = np.diag(arr)
    if arr.shape != (dim, dim) or not np.all(np.isfinite(arr)):
        raise InputError(f"noise covariance must be a scalar, a length-{dim} diagonal or a {dim}x{dim} matrix")
    if np.abs(arr - arr.T).max() > 1e-12 * max(1.0, np.abs(arr).max()):
        raise InputError("noise covariance is not symmetric")
    return (arr + arr.T) / 2


def _factors(clean: GaussianMixture, noise):
    """Per component: pi_k, m_k, Sigma_k, the Cholesky factor of S_k = Sigma_k + N, log det S_k."""
    w, m, G = clean.arrays()
    N = noise_matrix(noise, clean.dim)
    chol, logdet = [], []
    for k in range(len(w)):
        try:
            Lk = np.linalg.cholesky(G[k] + N)
        except np.linalg.LinAlgError:
            raise InputError(f"Sigma_{k} + noise covariance is not positive definite: the observation "
                             "law has no density (give a positive definite noise covariance)") from None
        chol.append(Lk)
        logdet.append(2.0 * float(np.log(np.diag(Lk)).sum()))
    return w, m, G, chol, np.array(logdet)


def _scores_and_means(clean, noise, Z):
    """Log-scores (n, K) up to a per-query constant, and the component posterior means (K, n, D).

    score_k = log pi_k - (1/2) log det S_k + q_g(z) + m_k^T S_k^-1 z - (1/2) m_k^T S_k^-1 m_k, where
    q_g = -(1/2) z^T S_g^-1 z is shared by the components with the same S (group g): within a group it
    cancels exactly (no cancellation of two huge squares when |z| is large); between groups only
    q_g - max q matters, formed from the normalised squares so that it is 0 or -inf, never nan."""
    from scipy.linalg import solve_triangular

    w, m, G, chol, logdet = _factors(clean, noise)
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    if Z.shape[1] != clean.dim:
        raise InputError(f"queries must have dimension {clean.dim}, got {Z.shape[1]}")
    n, K = len(Z), len(w)
    groups: list[int] = []  # group of each component: the first component with the same S_k
    for k in range(K):
        groups.append(next((j for j in range(k) if np.array_equal(chol[j], chol[k])), k))
    reps = sorted(set(groups))
    sc = np.empty((n, K))
    cm = np.empty((K, n, clean.dim))
    Y = {}
    for k in range(K):
        y = solve_triangular(chol[k], Z.T, lower=True)  # L^-1 z
        ym = solve_triangular(chol[k], m[k], lower=True)  # L^-1 m
        if k in reps:
            Y[k] = y
        sc[:, k] = np.log(w[k]) - 0.5 * logdet[k] + ym @ y - 0.5 * float(ym @ ym)
        Sinv_d = solve_triangular(chol[k].T, y - ym[:, None], lower=False)  # S^-1 (z - m)
        cm[k] = m[k] + (G[k] @ Sinv_d).T
    if len(reps) > 1:
        with np.errstate(over="ignore", invalid="ignore"):
            t = np.max([np.abs(Y[g]).max(0) for g in reps], axis=0)
            t = np.where(t > 0, t, 1.0)
            nrm = {g: ((Y[g] / t) ** 2).sum(0) for g in reps}
            low = np.min([nrm[g] for g in reps], axis=0)
            for k in range(K):
                d = nrm[groups[k]] - low
                sc[:, k] += np.where(d > 0, -0.5 * t * t * d, 0.0)
    return sc, cm, G, chol


def posterior_weights(clean: GaussianMixture, noise, Z) -> np.ndarray:
    """beta_k(z) = P(C = k | Z = z), shape (n, K), float64; log-space softmax (no overflow, no nan)."""
    sc, _cm, _G, _c = _scores_and_means(clean, noise, Z)
    sc = sc - sc.max(axis=1, keepdims=True)
    e = np.exp(sc)
    return e / e.sum(axis=1, keepdims=True)


def posterior_mean(clean: GaussianMixture, noise, Z) -> np.ndarray:
    """The Bayes denoiser f*(z) = E[X | Z = z] for each row z of Z, shape (n, D), float64.

    ``clean``: the law of X (a :class:`GaussianMixture`, singular covariances allowed); ``noise``:
    the covariance of Z - X (scalar variance, diagonal or matrix)."""
    sc, cm, _G, _c = _scores_and_means(clean, noise, Z)
    sc = sc - sc.max(axis=1, keepdims=True)
    b = np.exp(sc)
    b /= b.sum(axis=1, keepdims=True)
    return np.einsum("nk,knd->nd", b, cm)


def posterior_covariance(clean: GaussianMixture, noise, Z) -> np.ndarray:
    """Cov(X | Z = z) for each row z of Z, shape (n, D, D), float64 (its trace is the pointwise
    Bayes risk E[||X - f*(Z)||^2 | Z = z])."""
    from scipy.linalg import cho_solve

    sc, cm, G, chol = _scores_and_means(clean, noise, Z)
    sc = sc - sc.max(axis=1, keepdims=True)
    b = np.exp(sc)
    b /= b.sum(axis=1, keepdims=True)
    f = np.einsum("nk,knd->nd", b, cm)
    out = np.zeros((len(f), clean.dim, clean.dim))
    for k in range(len(chol)):
        within = G[k] - G[k] @ cho_solve((chol[k], True), G[k])
        dk = cm[k] - f
        out += b[:, k, None, None] * (within[None] + dk[:, :, None] * dk[:, None, :])
    return out


def posterior_mean_mp(clean: GaussianMixture, noise, z, dps: int = 50):
    """f*(z) for one query at ``dps`` digits (a list of mpf).  ``noise``: scalar variance or a matrix
    (exact entries -- Fractions, decimal strings, ints -- are read without rounding)."""
    with workdps(dps + 10):
        w, m, G = clean.mp()
        D = clean.dim
        if isinstance(noise, (list, tuple)):
            rows: list = [list(r) if isinstance(r, (list, tuple)) else None for r in noise]
            if any(r is None for r in rows):
                N = mpm.diag([_mpnum(x) for x in noise])
            else:
                N = mpm.matrix([[_mpnum(x) for x in r] for r in rows])
        else:
            N = _mpnum(noise) * mpm.eye(D)
        zz = mpm.matrix([_mpnum(x) for x in z])
        if zz.rows != D:
            raise InputError(f"query must have dimension {D}, got {zz.rows}")
        scores, cms = [], []
        for k in range(len(w)):
            S = G[k] + N
            det = mpm.det(S)
            if not det > 0:
                raise InputError(f"Sigma_{k} + noise covariance is not positive definite")
            d = zz - m[k]
            Sd = mpm.lu_solve(S, d)
            scores.append(mpm.log(w[k]) - mpm.log(det) / 2 - (d.T * Sd)[0] / 2)
            cms.append(m[k] + G[k] * Sd)
        mx = max(scores)
        e = [mpm.exp(s - mx) for s in scores]
        tot = mpm.fsum(e)
        out = [mpm.fsum(e[k] * cms[k][i] for k in range(len(e))) / tot for i in range(D)]
    with workdps(dps):
        return [+x for x in out]


def _mpnum(x):
    if isinstance(x, mpm.mpf):
        return x
    if isinstance(x, float):
        return mpm.mpf(x)
    return to_mpf(parse_number(x, "posterior_mean_mp input"))


@dataclass(frozen=True)
class PosteriorMeanTarget:
    """A regression target for :mod:`softmix.numerics.risk` whose conditional mean given the query is
    the Bayes denoiser: y = f*(z) (``clean=False``: the risk is the excess over the Bayes risk,
    E||f*(Z) - yhat(Z)||^2) or y = X itself (``clean=True``: E||X - yhat(Z)||^2, which adds the
    Bayes risk E tr Cov(X | Z)).  Not linear in z, so query averages are Monte Carlo."""

    clean_law: GaussianMixture
    noise: tuple  # the noise covariance, exact entries
    clean: bool = False

    linear = False

    def noise_array(self) -> np.ndarray:
        return np.array([[float(x) for x in r] for r in self.noise])

    @property
    def output_dim(self) -> int:
        return self.clean_law.dim

    def conditional_mean(self, Z) -> np.ndarray:
        """E[y | z] = f*(z), (n, D)."""
        return posterior_mean(self.clean_law, self.noise_array(), Z)

    def conditional_trace(self, Z) -> np.ndarray:
        """tr Cov(y | z): 0 for y = f*(z), the posterior variance for y = X, (n,)."""
        Z = np.atleast_2d(np.asarray(Z, float))
        if not self.clean:
            return np.zeros(len(Z))
        return np.trace(posterior_covariance(self.clean_law, self.noise_array(), Z), axis1=1, axis2=2)
