"""Finite prompts: attention over L sampled tokens, samplers, and the notes' exact first-order
constants (``shared/notes/finite-prompt.md``; beyond the paper, which stops at L = infinity).

Exact: the constants' formulas (float64 or mpmath).  Approximate: the constants describe the
L -> infinity behaviour only (delta method; remainders O(L^-2)); Monte Carlo is random.
"""
from __future__ import annotations

import math
from typing import cast

import mpmath as mpm
import numpy as np

from .attention import _mpmat, _mpvec, _scores_grads_mp, _softmax_mp, check_params, log_gates, tilted_moments
from .errors import InputError
from .logspace import scaled
from .memo import by_identity
from .mixture import GaussianMixture, psd_sqrt
from .precision import exact_inputs, workdps

__all__ = ["finite_prompt_attention", "sample_tokens",
           "simulate_outputs", "finite_prompt_constants", "finite_prompt_constants_mp",
           "normals_per_token", "simulate_outputs_batched", "StreamingAttention",
           "finite_prompt_attention_stream", "iter_token_chunks"]


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


def _float_arrays(mix: GaussianMixture):
    """``mix.arrays()`` computed once per mixture object in the run's memo (the exact Fraction ->
    float conversion costs O(K D^2) Python operations, ~0.1 s at D = 200); read-only arrays."""
    def make():
        arrs = mix.arrays()
        for x in arrs:
            x.setflags(write=False)
        return arrs

    return by_identity("finite_prompt.float_arrays", mix, make)


def normals_per_token(p: int) -> int:
    """Standard normals the projected sampler draws per prompt token (output dimension p)."""
    return 1 + int(p)


def _lower_root(S: np.ndarray) -> np.ndarray:
    """Lower-triangular T with T T^T = S for symmetric PSD S (singular allowed): the transpose of
    the R factor of a QR decomposition of (any square root of S)^T."""
    S = (S + S.T) / 2
    try:
        T = np.linalg.cholesky(S)
        if np.all(np.isfinite(T)):
            return T
    except np.linalg.LinAlgError:
        pass
    r = psd_sqrt(S)  # singular (degenerate component or V rows dependent on a)
    Rf = cast(np.ndarray, np.linalg.qr(r.T, mode="r"))  # numpy's stubs type mode="r" as QRResult
    T = Rf.T.copy()
    sg = np.where(np.diag(T) < 0, -1.0, 1.0)  # make the diagonal non-negative (column signs)
    return T * sg[None, :]


class _ProjectedEngine:
    """Batched exact sampler of the projected pairs (<a, z_i>, V z_i), reduced on the fly.

    For a chunk of n tokens in each of R replicates: component counts per replicate are drawn
    from Multinomial(n, pi) (the only use of the labels, since T_L is invariant under permuting
    a prompt's tokens), then the tokens of component k for all replicates are generated as one
    contiguous block from a single array of standard normals (q = 1 + p per token) with a
    lower-triangular root, so the score needs one normal.  Per (component, replicate) segment the
    max score, the sum of exp and the exp-weighted sums of the normals are formed with
    ``reduceat``; values are affine in the normals, so they are assembled per segment, never per
    token.  Nothing of size n x D is ever built and the cost is independent of D."""

    def __init__(self, mix: GaussianMixture, a, V):
        w, m, G = _float_arrays(mix)
        B = np.vstack([np.asarray(a, float)[None, :], np.asarray(V, float)])  # (1+p, D)
        means = m @ B.T
        covs = B @ G @ B.T  # (K, 1+p, 1+p): covariance of (<a, z>, V z) per component
        self.w = w / w.sum()
        self.means = means
        self.tri = np.stack([_lower_root(c) for c in covs])
        self.K, self.q = means.shape
        self.p = self.q - 1

    def chunk(self, rng: np.random.Generator, R: int, n: int):
        """(max (R,), den (R,), num (R, p)): den = sum exp(s_i - max), num = sum exp(s_i - max) y_i
        over n fresh tokens of each of R replicates."""
        K, q, p = self.K, self.q, self.p
        C = rng.multinomial(n, self.w, size=R) if K > 1 else np.full((R, 1), n, dtype=np.int64)
        X = rng.standard_normal((q, R * n))
        counts = C.T.ravel()  # segments in (component, replicate) order
        nz = counts > 0
        cn = counts[nz]
        starts = np.cumsum(cn) - cn
        comp = np.repeat(np.arange(K), R)[nz]  # component of each non-empty segment
        # score s = m_0 + T_00 x_0 (T lower triangular, T_00 >= 0): its segment max comes from x_0's
        xmax = np.maximum.reduceat(X[0], starts)
        e = np.repeat(xmax, cn)
        np.subtract(X[0], e, out=e)
        t00 = self.tri[:, 0, 0]
        tot = C.sum(axis=0)
        b = 0
        for k in range(K):
            if t00[k] != 1.0:
                e[b:b + int(tot[k])] *= t00[k]
            b += int(tot[k])
        np.exp(e, out=e)
        S = np.add.reduceat(e, starts)
        X *= e[None, :]
        EX = np.add.reduceat(X, starts, axis=1)  # (q, segments): sums of e * x_i
        # values y = m_{1:} + T_{1:,:} x are affine in x: sum e y = m_{1:} S + T_{1:,:} (sum e x)
        segmax = self.means[comp, 0] + t00[comp] * xmax
        YS = self.means[comp, 1:].T * S[None, :] + np.einsum("sji,is->js", self.tri[comp, 1:, :], EX)
        fm = np.full(K * R, -np.inf)
        fm[nz] = segmax
        fS = np.zeros(K * R)
        fS[nz] = S
        fY = np.zeros((p, K * R))
        fY[:, nz] = YS
        fm, fS, fY = fm.reshape(K, R), fS.reshape(K, R), fY.reshape(p, K, R)
        M = fm.max(axis=0)
        f = np.exp(fm - M[None, :])
        return M, (f * fS).sum(axis=0), np.einsum("kr,pkr->rp", f, fY)


#: tokens (replicates x tokens) per chunk of the projected engine: a few MB per array
_TOKEN_BUDGET = 1 << 18


def simulate_outputs(mix: GaussianMixture, U, V, z, L: int, R: int, rng: np.random.Generator,
                     method: str = "projected", chunk: int = 1 << 15) -> np.ndarray:
    """R independent finite-prompt outputs T[mu_hat_L](z), shape (R, p).

    Streams over chunks of tokens with an online log-sum-exp, so memory is O(R * chunk)
    whatever L.  ``method='projected'`` uses the exact low-dimensional batched engine;
    ``method='full'`` samples D-dimensional tokens (reference path)."""
    U, V = check_params(mix, U, V)
    z = np.asarray(z, float).reshape(-1)
    a = U @ z
    p = V.shape[0]
    run_max = np.full(R, -np.inf)
    num = np.zeros((R, p))
    den = np.zeros(R)
    if method == "projected":
        eng = _ProjectedEngine(mix, a, V)
        # ~1/4 M tokens per chunk, but at least 64 tokens per replicate (per-segment overhead) up to 4 M
        step = max(1, min(chunk, max(_TOKEN_BUDGET, min(64 * R, 1 << 22)) // max(R, 1)))
    elif method == "full":
        step = max(1, min(chunk, (1 << 22) // max(R, 1)))
    else:
        raise ValueError(f"unknown method {method!r}")
    done = 0
    while done < L:
        c = min(step, L - done)
        if method == "projected":
            cmax, cden, cnum = eng.chunk(rng, R, c)
            new_max = np.maximum(run_max, cmax)
            scale = np.exp(run_max - new_max)
            f = np.exp(cmax - new_max)
            num = num * scale[:, None] + cnum * f[:, None]
            den = den * scale + cden * f
        else:
            toks = sample_tokens(mix, c, rng, size=(R,))
            s, y = toks @ a, toks @ V.T
            new_max = np.maximum(run_max, s.max(axis=1))
            scale = np.exp(run_max - new_max)
            e = np.exp(s - new_max[:, None])
            num = num * scale[:, None] + np.einsum("rl,rlp->rp", e, y)
            den = den * scale + e.sum(axis=1)
        run_max = new_max
        done += c
    return num / den[:, None]


def simulate_outputs_batched(mix: GaussianMixture, U, V, z, L: int, R: int, seed, batch: int = 4096,
                             method: str = "projected", map=map) -> np.ndarray:
    """``simulate_outputs`` split into replicate batches, batch j drawing from the j-th child of
    ``SeedSequence(seed).spawn(n_batches)``.  ``map`` runs the batches (builtin ``map`` locally,
    e.g. a Dask ``client.map`` wrapper remotely); the result depends only on (seed, R, batch),
    never on where or in which order the batches ran."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    sizes = [min(batch, R - i) for i in range(0, R, batch)]
    children = ss.spawn(len(sizes))
    parts = list(map(_batch_task, [(mix, U, V, z, int(L), n, c, method) for n, c in zip(sizes, children)]))
    return np.concatenate(parts, axis=0)


def _batch_task(args):
    mix, U, V, z, L, n, child, method = args
    return simulate_outputs(mix, U, V, z, L, n, np.random.default_rng(child), method=method)


class StreamingAttention:
    """Finite-prompt attention of ONE prompt fed in chunks (online log-sum-exp): memory is
    O(chunk) whatever the prompt length, and the result equals :func:`finite_prompt_attention`
    on the concatenated tokens up to rounding."""

    def __init__(self, U, V, z):
        self.U = np.asarray(U, float)
        self.V = np.asarray(V, float)
        self.z = np.asarray(z, float).reshape(-1)
        D = self.z.shape[0]
        if self.U.shape != (D, D) or self.V.ndim != 2 or self.V.shape[1] != D:
            raise InputError("shape mismatch between U, V and query")
        self.a = self.U @ self.z
        self.max = -np.inf
        self.den = 0.0
        self.num = np.zeros(self.V.shape[0])
        self.n_tokens = 0

    def update(self, tokens) -> "StreamingAttention":
        """Add tokens of shape (n, D)."""
        t = np.asarray(tokens, float)
        if t.ndim != 2 or t.shape[1] != self.z.shape[0]:
            raise InputError(f"token chunk must have shape (n, {self.z.shape[0]}), got {t.shape}")
        return self.update_projected(t @ self.a, t @ self.V.T)

    def update_projected(self, scores, values) -> "StreamingAttention":
        """Add tokens given by their scores <U z, z_i> (n,) and values V z_i (n, p)."""
        s = np.asarray(scores, float).reshape(-1)
        if s.size == 0:  # an empty chunk (checked first: values of shape (0, p) cannot be reshaped to (0, -1))
            return self
        y = np.asarray(values, float).reshape(s.shape[0], -1)
        cm = s.max()
        new = max(self.max, cm)
        e = np.exp(s - new)
        sc = np.exp(self.max - new)
        self.num = self.num * sc + e @ y
        self.den = self.den * sc + e.sum()
        self.max = new
        self.n_tokens += s.shape[0]
        return self

    def result(self) -> np.ndarray:
        if self.n_tokens == 0:
            raise InputError("empty prompt: no tokens were streamed")
        return self.num / self.den


def finite_prompt_attention_stream(chunks, U, V, z) -> np.ndarray:
    """T[mu_hat_L](z) for one prompt given as an iterable (e.g. a generator) of token chunks of
    shape (n_i, D), in bounded memory (one chunk at a time)."""
    st = StreamingAttention(U, V, z)
    for c in chunks:
        st.update(c)
    return st.result()


def iter_token_chunks(mix: GaussianMixture, L: int, rng: np.random.Generator, chunk: int = 1 << 16):
    """Generator of the i.i.d. D-dimensional tokens of one prompt of length L, ``chunk`` at a time
    (arrays of shape (c, D); labels by inverse CDF, one BLAS product per component)."""
    w, m, G = _float_arrays(mix)
    roots = [psd_sqrt(g).T.copy() for g in G]
    cw = np.cumsum(w / w.sum())
    cw[-1] = 1.0
    done = 0
    while done < L:
        c = min(chunk, L - done)
        lab = np.searchsorted(cw, rng.random(c), side="right")
        xi = rng.standard_normal((c, mix.dim))
        out = m[lab]
        for k in range(len(w)):
            idx = np.flatnonzero(lab == k)
            if idx.size:
                out[idx] += xi[idx] @ roots[k]
        yield out
        done += c


def finite_prompt_constants(mix: GaussianMixture, U, V, z) -> dict:
    """float64 constants of the notes at a = U z:
    rho = exp(Lambda(2a) - 2 Lambda(a)) (also as ``log_rho``, always finite); bias = rho V (grad
    Lambda(a) - grad Lambda(2a)); covariance = rho V C V^T; mse = tr(covariance);
    effective_sample_fraction = 1 / rho.  Where rho exceeds float64 (Lambda(2a) - 2 Lambda(a) > 709.78,
    e.g. scores near 720) the products are formed in log space (:mod:`softmix.numerics.logspace`):
    rho and the non-zero entries are +-inf, zero entries stay 0, never nan;
    :func:`finite_prompt_constants_mp` gives their digits."""
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
    C = np.zeros((mix.dim, mix.dim))
    for k in range(mix.n_components):
        d = g2[0, k] - grad1  # m_k + 2 G_k a - grad Lambda(a)
        C += w2[k] * (G[k] + np.outer(d, d))
    log_rho = float(lam2 - 2 * lam1)
    if log_rho >= _LOG_MAX:  # rho overflows float64
        return _overflowed_constants(log_rho, V @ C @ V.T, V @ (grad1 - grad2), V @ grad1)
    rho = float(np.exp(lam2 - 2 * lam1))
    cov = rho * V @ C @ V.T
    return {"rho": rho, "log_rho": log_rho, "bias": rho * V @ (grad1 - grad2), "covariance": cov,
            "mse": float(np.trace(cov)), "effective_sample_fraction": 1.0 / rho,
            "limit": V @ grad1}


_LOG_MAX = math.log(np.finfo(float).max)


def _overflowed_constants(log_rho: float, VCV, Vdiff, limit) -> dict:
    """The constants when rho = exp(log_rho) exceeds float64: products kept in log space (inf where
    the value is, 0 where the factor is 0; never nan)."""
    return {"rho": math.inf, "log_rho": log_rho, "bias": scaled(log_rho, Vdiff), "covariance": scaled(log_rho, VCV),
            "mse": float(scaled(log_rho, np.trace(VCV))), "effective_sample_fraction": float(np.exp(-log_rho)),
            "limit": limit}


def _lse(s):
    mx = s.max()
    return mx + np.log(np.exp(s - mx).sum())


@exact_inputs("mix", "U", "V", "z")
def finite_prompt_constants_mp(mix: GaussianMixture, U, V, z, dps: int = 50) -> dict:
    """The same constants at ``dps`` digits (mpmath matrices / mpf); inputs as in
    :mod:`softmix.numerics.precision` (strings ``"1/3"`` exact, inexact floats warn)."""
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
