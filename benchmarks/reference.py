"""A plain reference implementation of finite-prompt Monte Carlo, written the way published
experiment code does it: sample full D-dimensional tokens from the mixture (component labels,
then mean + Cholesky factor times standard normals), take the softmax of the scores over the
prompt and average the values V z_i.  Deliberately straightforward numpy (no projection, no
streaming tricks), but batched over replicates and using one BLAS matmul per component, so it
is a fair, not a strawman, baseline."""
from __future__ import annotations

import numpy as np


def mixture_arrays(mix):
    """(weights, means, Cholesky-like factors) as float64 arrays."""
    w, m, G = mix.arrays()
    chol = []
    for g in G:
        try:
            chol.append(np.linalg.cholesky(g))
        except np.linalg.LinAlgError:  # singular: symmetric square root
            ev, Q = np.linalg.eigh(g)
            chol.append(Q * np.sqrt(np.clip(ev, 0, None)))
    return w, m, np.stack(chol)


def reference_outputs(w, m, chol, U, V, z, L: int, R: int, rng: np.random.Generator,
                      max_floats: int = 1 << 23) -> np.ndarray:
    """R finite-prompt outputs T_L(z) of shape (R, p) from full D-dimensional tokens."""
    D = m.shape[1]
    a = U @ z
    out = np.empty((R, V.shape[0]))
    rb = max(1, min(R, max_floats // max(1, L * D)))
    for r0 in range(0, R, rb):
        nb = min(rb, R - r0)
        labels = rng.choice(len(w), size=(nb, L), p=w)
        xi = rng.standard_normal((nb, L, D))
        tokens = np.empty((nb, L, D))
        for k in range(len(w)):
            mask = labels == k
            tokens[mask] = m[k] + xi[mask] @ chol[k].T
        scores = tokens @ a                                   # (nb, L)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)         # softmax over the prompt
        values = tokens @ V.T                                 # (nb, L, p)
        out[r0:r0 + nb] = np.einsum("rl,rlp->rp", weights, values)
    return out
