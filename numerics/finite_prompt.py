"""Finite prompts: attention over L sampled tokens, samplers, and the notes' exact first-order
constants (``shared/notes/finite-prompt.md``; beyond the paper, which stops at L = infinity).

Exact: the constants' formulas (float64 or mpmath).  Approximate: the constants describe the
L -> infinity behaviour only (delta method; remainders O(L^-2)); Monte Carlo is random.
"""
from __future__ import annotations

import mpmath as mpm
import numpy as np

from .attention import _mpmat, _mpvec, _scores_grads_mp, _softmax_mp, check_params, log_gates, tilted_moments
from .errors import InputError
from .mixture import GaussianMixture, psd_sqrt
from .precision import workdps

__all__ = ["finite_prompt_attention", "sample_tokens", "projected_law", "sample_projected",
           "simulate_outputs", "finite_prompt_constants", "finite_prompt_constants_mp",
           "NORMALS_PER_TOKEN"]


def finite_prompt_attention(tokens, U, V, z) -> np.ndarray:
    """T[mu_hat_L](z) = sum_i exp(<U z, z_i>) V z_i / sum_j exp(<U z, z_j>) over tokens of shape
    (L, D) or (R, L, D); log-space softmax (stable for scores of any float64 size)."""
    tokens = np.asarray(tokens, dtype=float)
    single = tokens.ndim == 2
    if single:
        tokens = tokens[None]
    U = np.asarray(U, dtype=float)
    V = np.asarray(V, dtype=float)
    z = np.asarray(z, dtype=float).reshape(-1)
    if tokens.shape[-1] != z.shape[0] or U.shape != (z.shape[0], z.shape[0]) or V.shape[1] != z.shape[0]:
        raise InputError("shape mismatch between tokens, U, V and query")
    a = U @ z
    s = tokens @ a  # (R, L)
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s)
    out = np.einsum("rl,rld->rd", e, tokens) / e.sum(axis=1, keepdims=True)
    out = out @ V.T
    return out[0] if single else out


def sample_tokens(mix: GaussianMixture, n: int, rng: np.random.Generator, size: tuple = ()) -> np.ndarray:
    """Full D-dimensional tokens, shape size + (n, D)."""
    w, m, G = mix.arrays()
    shape = tuple(size) + (n,)
    lab = rng.choice(len(w), size=shape, p=w)
    xi = rng.standard_normal(shape + (mix.dim,))
    Ls = np.stack([psd_sqrt(g) for g in G])
    return m[lab] + np.einsum("...ij,...j->...i", Ls[lab], xi)


def projected_law(mix: GaussianMixture, a: np.ndarray, V: np.ndarray):
    """Per component, the mean (1+p,) and a square root (1+p, 1+p) of the covariance of the pair
    (<a, z>, V z) for z ~ N(m_k, G_k) (notes, 'Exact low-dimensional sampling')."""
    w, m, G = mix.arrays()
    B = np.vstack([a[None, :], V])  # (1+p, D)
    means = m @ B.T
    roots = np.stack([psd_sqrt(B @ g @ B.T) for g in G])
    return w, means, roots


NORMALS_PER_TOKEN = "1 + p (plus one uniform for the component label)"


def sample_projected(mix: GaussianMixture, a, V, n: int, rng: np.random.Generator, R: int = 1):
    """Exact low-dimensional sampler: (scores (R, n), values (R, n, p)) with the same joint law as
    (<a, z_i>, V z_i) for i.i.d. tokens z_i ~ mix, at a cost independent of D."""
    w, means, roots = projected_law(mix, np.asarray(a, float), np.asarray(V, float))
    q = means.shape[1]
    cw = np.cumsum(w)
    cw[-1] = 1.0
    lab = np.searchsorted(cw, rng.random((R, n)), side="right")
    xi = rng.standard_normal((R, n, q))
    out = np.empty((R, n, q))
    for k in range(len(w)):
        mask = lab == k
        if mask.any():
            out[mask] = means[k] + xi[mask] @ roots[k].T
    return out[..., 0], out[..., 1:]


def simulate_outputs(mix: GaussianMixture, U, V, z, L: int, R: int, rng: np.random.Generator,
                     method: str = "projected", chunk: int = 1 << 15) -> np.ndarray:
    """R independent finite-prompt outputs T[mu_hat_L](z), shape (R, p).

    Streams over chunks of tokens with an online log-sum-exp, so memory is O(R * chunk)
    whatever L.  ``method='full'`` samples D-dimensional tokens (reference path)."""
    U, V = check_params(mix, U, V)
    z = np.asarray(z, float).reshape(-1)
    a = U @ z
    p = V.shape[0]
    run_max = np.full(R, -np.inf)
    num = np.zeros((R, p))
    den = np.zeros(R)
    step = max(1, min(chunk, (1 << 22) // max(R, 1)))
    done = 0
    while done < L:
        c = min(step, L - done)
        if method == "projected":
            s, y = sample_projected(mix, a, V, c, rng, R)
        elif method == "full":
            toks = sample_tokens(mix, c, rng, size=(R,))
            s, y = toks @ a, toks @ V.T
        else:
            raise ValueError(f"unknown method {method!r}")
        new_max = np.maximum(run_max, s.max(axis=1))
        scale = np.exp(run_max - new_max)
        e = np.exp(s - new_max[:, None])
        num = num * scale[:, None] + np.einsum("rl,rlp->rp", e, y)
        den = den * scale + e.sum(axis=1)
        run_max = new_max
        done += c
    return num / den[:, None]


def finite_prompt_constants(mix: GaussianMixture, U, V, z) -> dict:
    """float64 constants of the notes at a = U z:
    rho = exp(Lambda(2a) - 2 Lambda(a)); bias = rho V (grad Lambda(a) - grad Lambda(2a));
    covariance = rho V C V^T; mse = tr(covariance); effective_sample_fraction = 1 / rho."""
    U, V = check_params(mix, U, V)
    z = np.asarray(z, float).reshape(-1)
    a = U @ z
    _w, _m, G = mix.arrays()
    s1, g1 = tilted_moments(mix, a[None])
    s2, g2 = tilted_moments(mix, 2 * a[None])
    lam1 = _lse(s1[0])
    lam2 = _lse(s2[0])
    w1 = np.exp(log_gates(s1))[0]
    w2 = np.exp(log_gates(s2))[0]
    grad1 = w1 @ g1[0]
    grad2 = w2 @ g2[0]
    rho = float(np.exp(lam2 - 2 * lam1))
    C = np.zeros((mix.dim, mix.dim))
    for k in range(mix.n_components):
        d = g2[0, k] - grad1  # m_k + 2 G_k a - grad Lambda(a)
        C += w2[k] * (G[k] + np.outer(d, d))
    cov = rho * V @ C @ V.T
    return {"rho": rho, "bias": rho * V @ (grad1 - grad2), "covariance": cov,
            "mse": float(np.trace(cov)), "effective_sample_fraction": 1.0 / rho,
            "limit": V @ grad1}


def _lse(s):
    mx = s.max()
    return mx + np.log(np.exp(s - mx).sum())


def finite_prompt_constants_mp(mix: GaussianMixture, U, V, z, dps: int = 50) -> dict:
    """The same constants at ``dps`` digits (mpmath matrices / mpf)."""
    with workdps(dps):
        Um, Vm, zm = _mpmat(U), _mpmat(V), _mpvec(z)
        a = Um * zm
        s1, g1 = _scores_grads_mp(mix, a)
        s2, g2 = _scores_grads_mp(mix, 2 * a)
        lse = lambda s: max(s) + mpm.log(mpm.fsum(mpm.exp(x - max(s)) for x in s))
        w1, w2 = _softmax_mp(s1), _softmax_mp(s2)
        D = mix.dim
        grad1 = mpm.matrix(D, 1)
        grad2 = mpm.matrix(D, 1)
        for k in range(len(s1)):
            grad1 += w1[k] * g1[k]
            grad2 += w2[k] * g2[k]
        rho = mpm.exp(lse(s2) - 2 * lse(s1))
        _w, _m, G = mix.mp()
        C = mpm.matrix(D, D)
        for k in range(len(s1)):
            d = g2[k] - grad1
            C += w2[k] * (G[k] + d * d.T)
        cov = rho * Vm * C * Vm.T
        tr = mpm.fsum(cov[i, i] for i in range(cov.rows))
        return {"rho": rho, "bias": rho * Vm * (grad1 - grad2), "covariance": cov, "mse": tr,
                "effective_sample_fraction": 1 / rho, "limit": Vm * grad1}
