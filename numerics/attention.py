"""Infinite-prompt attention on Gaussian mixtures, float64-vectorised and at any precision.

Lambdified from :func:`theory.attention.component_kernel` (score_k = log pi_k + lambda_k(a) and
grad lambda_k(a), a = U z) and combined with a log-space softmax, so scores of size 1e4 are
exact up to rounding.  Exact up to floating-point rounding (float64 path) or to the working
precision (mpmath path); nothing is approximated.
"""
from __future__ import annotations

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.theory.attention import component_kernel
from softmix.theory.mixtures import component_log_mgf, entry_name, hessian

from .errors import InputError
from .lambdify import compile_expr
from .memo import memoised
from .mixture import GaussianMixture
from .precision import exact_inputs, to_mpf, workdps

__all__ = ["softmax_attention", "linear_attention", "gates", "log_gates", "tilted_moments",
           "softmax_attention_mp", "linear_attention_mp", "gates_mp", "cgf",
           "check_params", "second_moment"]


@memoised("attention.kernel_args")
def _kernel_args(D: int):
    a, m, G, logpi, score, grad = component_kernel(D)
    gsyms = [G[i, j] for i in range(D) for j in range(i, D)]
    args = list(a) + list(m) + gsyms + [logpi]
    return args, [score] + list(grad)


@memoised("attention.second_moment_args")
def _second_moment_args(D: int):
    """E[X X^T] for one component, derived as the Hessian of its MGF at 0."""
    a, m, G, logpi, score, grad = component_kernel(D)
    H = hessian(sp.exp(component_log_mgf(a, m, G)), a).subs({ai: 0 for ai in a})
    gsyms = [G[i, j] for i in range(D) for j in range(i, D)]
    return list(m) + gsyms, list(H)


@memoised("attention.kernel")
def _kernel(D: int, backend: str):
    """The compiled kernel, once per (D, backend) in the run's memo: compile_expr keys its entry on srepr of the
    expressions, which costs ~6 ms per call, paid on every tilted_moments call without this one."""
    args, exprs = _kernel_args(D)
    return compile_expr(exprs, args, backend)


def check_params(mix: GaussianMixture, U, V, Z=None):
    D = mix.dim
    U = np.asarray(U, dtype=float) if not isinstance(U, mpm.matrix) else U
    V = np.asarray(V, dtype=float) if not isinstance(V, mpm.matrix) else V
    if getattr(U, "ndim", 2) != 2 or U.shape != (D, D):
        raise InputError(f"U must be {D}x{D} for a {D}-dimensional mixture, got shape {getattr(U, 'shape', None)}")
    if getattr(V, "ndim", 2) != 2 or V.shape[1] != D:
        raise InputError(f"V must have {D} columns, got shape {getattr(V, 'shape', None)}")
    for name, M in (("U", U), ("V", V)):
        if isinstance(M, np.ndarray) and not np.all(np.isfinite(M)):
            raise InputError(f"{name} has non-finite entries")
    if Z is not None:
        Z = np.atleast_2d(np.asarray(Z, dtype=float))
        if Z.shape[1] != D:
            raise InputError(f"queries must have dimension {D}, got {Z.shape[1]}")
        if not np.all(np.isfinite(Z)):
            raise InputError("queries have non-finite entries")
        return U, V, Z
    return U, V


def _values(mix: GaussianMixture, k: int, A_cols, backend: str, w, m, G):
    D = mix.dim
    vals = {f"a_{i + 1}": A_cols[i] for i in range(D)}
    for i in range(D):
        vals[f"m_{i + 1}"] = m[k][i]
        for j in range(i, D):
            vals[entry_name("G", i, j, D)] = G[k][i, j]
    vals["logpi"] = mpm.log(w[k]) if backend == "mpmath" else np.log(w[k])
    return vals


def tilted_moments(mix: GaussianMixture, A: np.ndarray):
    """float64 scores (N, K) and expert means grad lambda_k (N, K, D) at tilts A (N, D)."""
    w, m, G = mix.arrays()
    A = np.atleast_2d(np.asarray(A, dtype=float))
    N, D = A.shape
    f = _kernel(D, "numpy")
    scores = np.empty((N, mix.n_components))
    grads = np.empty((N, mix.n_components, D))
    cols = [A[:, i] for i in range(D)]
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(mix.n_components):
            out = f(_values(mix, k, cols, "numpy", w, m, G))
            scores[:, k] = np.broadcast_to(out[0], (N,))
            for i in range(D):
                grads[:, k, i] = np.broadcast_to(out[1 + i], (N,))
    if not (np.all(np.isfinite(scores)) and np.all(np.isfinite(grads))):
        raise InputError("attention scores overflow float64 (|U z| too large); use the mpmath path (--dps)")
    return scores, grads


def log_gates(scores: np.ndarray) -> np.ndarray:
    mx = scores.max(axis=1, keepdims=True)
    return scores - (mx + np.log(np.exp(scores - mx).sum(axis=1, keepdims=True)))


def cgf(mix: GaussianMixture, A) -> np.ndarray:
    """Lambda(a) = logsumexp_k score_k(a), float64, vectorised over rows of A."""
    s, _ = tilted_moments(mix, A)
    mx = s.max(axis=1)
    return mx + np.log(np.exp(s - mx[:, None]).sum(axis=1))


def gates(mix: GaussianMixture, U, Z) -> np.ndarray:
    """alpha_k(z) of eq. (2), shape (N, K)."""
    U, _V, Z = check_params(mix, U, np.eye(mix.dim), Z)
    s, _ = tilted_moments(mix, Z @ U.T)
    return np.exp(log_gates(s))


def softmax_attention(mix: GaussianMixture, U, V, Z) -> np.ndarray:
    """T_{U,V}[mu](z) for each row z of Z (eq. (2)), shape (N, p)."""
    U, V, Z = check_params(mix, U, V, Z)
    with np.errstate(over="ignore", invalid="ignore"):
        A = Z @ U.T
    s, g = tilted_moments(mix, A)
    al = np.exp(log_gates(s))
    grad = np.einsum("nk,nkd->nd", al, g)
    return grad @ V.T


def second_moment(mix: GaussianMixture) -> np.ndarray:
    args, H = _second_moment_args(mix.dim)
    f = compile_expr(H, args, "numpy")
    w, m, G = mix.arrays()
    D = mix.dim
    M2 = np.zeros((D, D))
    for k in range(mix.n_components):
        vals = {f"m_{i + 1}": m[k][i] for i in range(D)}
        vals.update({entry_name("G", i, j, D): G[k][i, j] for i in range(D) for j in range(i, D)})
        M2 += w[k] * np.array(f(vals), dtype=float).reshape(D, D)
    return M2


def linear_attention(mix: GaussianMixture, U, V, Z) -> np.ndarray:
    """T_lin[mu](z) = V E[z' z'^T] U z (Sec. 2), shape (N, p)."""
    U, V, Z = check_params(mix, U, V, Z)
    return Z @ (V @ second_moment(mix) @ U).T


# ---- arbitrary precision ------------------------------------------------------------------
def _mpmat(M):
    if isinstance(M, mpm.matrix):
        return M
    return mpm.matrix([[to_mpf(v) for v in r] for r in M])


def _mpvec(z):
    if isinstance(z, mpm.matrix):
        return z
    return mpm.matrix([to_mpf(v) for v in z])


def _scores_grads_mp(mix: GaussianMixture, a):
    D = mix.dim
    f = _kernel(D, "mpmath")
    w, m, G = mix.mp()
    scores, grads = [], []
    for k in range(mix.n_components):
        out = f(_values(mix, k, [a[i] for i in range(D)], "mpmath", w, m, G))
        scores.append(out[0])
        grads.append(mpm.matrix(out[1:]))
    return scores, grads


def _softmax_mp(scores):
    mx = max(scores)
    e = [mpm.exp(s - mx) for s in scores]
    tot = mpm.fsum(e)
    return [x / tot for x in e]


@exact_inputs("mix", "U", "z")
def gates_mp(mix: GaussianMixture, U, z, dps: int = 50):
    """alpha_k(z) of eq. (2) at ``dps`` digits (a list of mpf); inputs as in :mod:`softmix.numerics.precision`."""
    with workdps(dps):
        a = _mpmat(U) * _mpvec(z)
        s, _ = _scores_grads_mp(mix, a)
        return _softmax_mp(s)


@exact_inputs("mix", "U", "V", "z")
def softmax_attention_mp(mix: GaussianMixture, U, V, z, dps: int = 50):
    """T_{U,V}[mu](z) at ``dps`` digits; returns an mpmath column matrix (precision kept).  Numbers in
    ``U``, ``V``, ``z``: exact, strings (``"0.1"``, ``"1/3"``) or mpf; a float that is not exactly its
    decimal warns (:class:`softmix.numerics.precision.PrecisionWarning`)."""
    with workdps(dps):
        Um, Vm, zm = _mpmat(U), _mpmat(V), _mpvec(z)
        if Um.rows != mix.dim or Um.cols != mix.dim or Vm.cols != mix.dim or zm.rows != mix.dim:
            raise InputError("shape mismatch between mixture, U, V and query")
        a = Um * zm
        s, g = _scores_grads_mp(mix, a)
        al = _softmax_mp(s)
        grad = mpm.matrix(mix.dim, 1)
        for wk, gk in zip(al, g):
            grad += wk * gk
        return Vm * grad


@exact_inputs("mix", "U", "V", "z")
def linear_attention_mp(mix: GaussianMixture, U, V, z, dps: int = 50):
    """T_lin[mu](z) = V E[z' z'^T] U z at ``dps`` digits (second moment derived from the MGF)."""
    with workdps(dps):
        Um, Vm, zm = _mpmat(U), _mpmat(V), _mpvec(z)
        if Um.rows != mix.dim or Um.cols != mix.dim or Vm.cols != mix.dim or zm.rows != mix.dim:
            raise InputError("shape mismatch between mixture, U, V and query")
        args, H = _second_moment_args(mix.dim)
        f = compile_expr(H, args, "mpmath")
        w, m, G = mix.mp()
        D = mix.dim
        M2 = mpm.matrix(D, D)
        for k in range(mix.n_components):
            vals = {f"m_{i + 1}": m[k][i] for i in range(D)}
            vals.update({entry_name("G", i, j, D): G[k][i, j] for i in range(D) for j in range(i, D)})
            out = f(vals)
            M2 += w[k] * mpm.matrix([[out[i * D + j] for j in range(D)] for i in range(D)])
        return Vm * M2 * Um * zm
