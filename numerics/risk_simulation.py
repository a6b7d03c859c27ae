"""Monte Carlo of several softmax heads sharing one prompt: the exact projected sampler
(:class:`MultiHeadEngine`), full-token simulation with a linearised control variate, query
sampling (importance-sampled past lambda* > 1/4) and the per-pair covariance blocks the
constants of :mod:`softmix.numerics.risk` are made of.  Random (seeded by the caller's
generator); the closed forms it is checked against live in :mod:`softmix.numerics.risk`."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .mixture import GaussianMixture, psd_sqrt
from .risk import _arrays, _tilt, risk_constants

__all__ = ["MultiHeadEngine", "simulate_excess", "simulate_excess_averaged", "proposal_scale_for",
           "sample_queries", "covariance_blocks"]


class MultiHeadEngine:
    """Exact projected sampler for ONE query: per token, the jointly Gaussian (within a component)
    vector (<a_1, x>, ..., <a_H, x>, V_1 x, ..., V_H x) of dimension H + sum_h p_h, drawn from its
    per-component mean and covariance square root (cost independent of D).  Streams tokens in
    chunks with an online log-sum-exp per head.  Extends numerics.finite_prompt's projected engine
    (one head) to the joint law of all heads' scores and values."""

    def __init__(self, mix: GaussianMixture, heads, z):
        w, m, G = _arrays(mix)
        z = np.asarray(z, float)
        self.arr = [h.arrays() for h in heads]
        self.a = [U @ z for U, _V, _W in self.arr]
        rows = self.a + [V for _U, V, _W in self.arr]
        Pm = np.vstack([np.atleast_2d(r) for r in rows])  # (H + sum p, D)
        self.H = len(self.arr)
        self.ps = [V.shape[0] for _U, V, _W in self.arr]
        self.means = m @ Pm.T
        self.roots = np.stack([psd_sqrt(Pm @ g @ Pm.T) for g in G])
        self.w = w / w.sum()
        self.cw = np.cumsum(self.w)
        self.cw[-1] = 1.0

    def run(self, L: int, R: int, rng: np.random.Generator, chunk_tokens: int = 1 << 18):
        """(T (H, R, p_h) list, log_sum_exp (H, R)) for R independent prompts of L tokens."""
        H, q = self.H, self.means.shape[1]
        mx = np.full((H, R), -np.inf)
        den = np.zeros((H, R))
        nums = [np.zeros((R, p)) for p in self.ps]
        step = max(1, min(L, chunk_tokens // max(R, 1)))
        done = 0
        off = np.cumsum([H] + self.ps)
        while done < L:
            c = min(step, L - done)
            xi = rng.standard_normal((R, c, q))
            if len(self.w) > 1:
                lab = np.searchsorted(self.cw, rng.random((R, c)), side="right")
                Y = np.empty_like(xi)
                for k in range(len(self.w)):
                    sel = lab == k
                    Y[sel] = self.means[k] + xi[sel] @ self.roots[k].T
            else:
                Y = self.means[0] + xi @ self.roots[0].T
            for h in range(H):
                s = Y[..., h]
                new = np.maximum(mx[h], s.max(1))
                e = np.exp(s - new[:, None])
                sc = np.exp(mx[h] - new)
                den[h] = den[h] * sc + e.sum(1)
                nums[h] = nums[h] * sc[:, None] + np.einsum("rc,rcp->rp", e, Y[..., off[h]:off[h + 1]])
                mx[h] = new
            done += c
        T = [nums[h] / den[h][:, None] for h in range(H)]
        return T, mx + np.log(den)


def simulate_excess(mix, heads, target, z, L: int, R: int, rng) -> dict:
    """R prompts of L tokens for the fixed query z: X = L (||B z - yhat_L||^2 - ||B z - yhat_inf||^2)
    (L times the excess risk given the prompt; the target noise cancels exactly), and the control
    variate Y = L (-2 r^T e_lin + ||e_lin||^2), e_lin = sum_h W_h (Dhat_h / M(a_h)) (T_L^h - T^h), the
    linearised fluctuation, whose mean is exactly the variance part of K(z) at every L.
    Returns per-replicate X, X - Y + E[Y] and E[Y]."""
    eng = MultiHeadEngine(mix, heads, z)
    c = risk_constants(mix, heads, target, np.asarray(z, float)[None])
    w, m, G = _arrays(mix)
    T, lse = eng.run(int(L), int(R), rng)
    r0 = c["residual"][0]
    err: Any = 0.0  # a (queries, d) array after the first head
    lin: Any = 0.0
    for h, (_U, V, W) in enumerate(eng.arr):
        _s, _g, lam, _mu, grad = _tilt(w, m, G, eng.a[h][None])
        d = (T[h] - V @ grad[0]) @ W.T  # W_h (T_L^h - T^h)
        err = err + d
        lin = lin + np.exp(lse[h] - np.log(L) - lam[0])[:, None] * d
    X = L * (-2 * err @ r0 + (err**2).sum(1))
    Y = L * (-2 * lin @ r0 + (lin**2).sum(1))
    EY = float(c["variance"][0])
    return {"X": X, "X_cv": X - Y + EY, "EY": EY}


def _full_tokens(mix, n, c, rng):
    w, m, G = _arrays(mix)
    roots = np.stack([psd_sqrt(g) for g in G])
    cw = np.cumsum(w / w.sum())
    cw[-1] = 1.0
    xi = rng.standard_normal((n, c, len(m[0])))
    if len(w) == 1:
        return m[0] + xi @ roots[0].T
    lab = np.searchsorted(cw, rng.random((n, c)), side="right")
    out = np.empty_like(xi)
    for k in range(len(w)):
        sel = lab == k
        out[sel] = m[k] + xi[sel] @ roots[k].T
    return out


def proposal_scale_for(lam: float) -> float:
    """The query proposal scale s = sqrt(2 / (1 - 2 lambda*)) for :func:`simulate_excess_averaged`.

    Per-query constants grow like exp(lambda* |zeta|^2) in the whitened query zeta, so with queries drawn
    from the query law the k-th moment of the estimator is finite only while k lambda* < 1/2: for
    lambda* in (1/8, 1/4) the variance is finite but the fourth moment is not, the sample mean is skewed
    low and its standard error is unreliable. Drawing zeta = s xi with importance weight
    s^r exp(-(s^2 - 1) |xi|^2 / 2) makes every moment finite iff s^2 (1/2 - lambda*) > 1/2; this s leaves
    a margin of 1/2 in that exponent. Exact (a choice of proposal, not an approximation)."""
    if not (0 <= lam < 0.5):
        raise ValueError(f"the proposal needs 0 <= lambda* < 1/2, got {lam}")
    return math.sqrt(2.0 / (1.0 - 2.0 * lam))


def sample_queries(queries: GaussianMixture, n: int, rng, proposal_scale: float = 1.0):
    """n queries from a Gaussian mixture, with importance weights p(z)/q(z) (all 1 when s = 1).

    s > 1 draws each component's whitened coordinates (on the range of a singular covariance) s times
    wider: z = mu_j + s R_j xi, weight s^r exp(-(s^2 - 1) |xi|^2 / 2) (component by component, so the
    component labels keep their law). Weighted sample means are unbiased for query averages; see
    :func:`proposal_scale_for` for the s that makes every moment finite. Exact (a sampling scheme)."""
    qw, qm, qS = queries.arrays()
    cw = np.cumsum(qw)
    cw[-1] = 1.0
    lab = np.searchsorted(cw, rng.random(n), side="right")
    Z = np.empty((n, len(qm[0])))
    iw = np.ones(n)
    s_ = float(proposal_scale)
    if not (math.isfinite(s_) and s_ >= 1.0):
        raise ValueError(f"proposal_scale must be a finite number >= 1, got {proposal_scale}")
    for j in range(len(qw)):
        sel = lab == j
        if s_ == 1.0:
            Z[sel] = qm[j] + rng.standard_normal((int(sel.sum()), len(qm[0]))) @ psd_sqrt(qS[j]).T
            continue
        ev, Q = np.linalg.eigh(np.asarray(qS[j], float))
        keep = ev > 1e-12 * max(float(ev.max()), 1e-300)
        R = Q[:, keep] * np.sqrt(ev[keep])
        xi = rng.standard_normal((int(sel.sum()), R.shape[1]))
        Z[sel] = qm[j] + s_ * xi @ R.T
        iw[sel] = s_ ** R.shape[1] * np.exp(-0.5 * (s_ * s_ - 1.0) * (xi * xi).sum(1))
    return Z, iw


def simulate_excess_averaged(mix, heads, target, queries: GaussianMixture, L: int, n: int, rng,
                             proposal_scale: float = 1.0) -> dict:
    """n queries z_j ~ queries, one fresh prompt of L full D-dimensional tokens each (exact law):
    X_j = L (||B z_j - yhat_L(z_j)||^2 - ||B z_j - yhat_inf(z_j)||^2), its control-variate version
    X_j + 2 L r(z_j)^T e_lin,j (the linearised fluctuation's mean is exactly 0), and the raw squared output
    error ||yhat_L - yhat_inf||^2 (for rate fits past the threshold).

    ``proposal_scale`` s > 1 draws each query component's whitened coordinates s times wider and
    returns X, X_cv and sq_error already multiplied by the importance weight p(z)/q(z) (component by
    component, on the range of a singular covariance), so their sample means stay unbiased estimates of
    the query averages and their sample standard errors stay valid; ``weights`` holds the weights.
    s = 1 (the default) is plain sampling from the query law with the historical random stream."""
    Z, iw = sample_queries(queries, n, rng, proposal_scale)
    w, m, G = _arrays(mix)
    c = risk_constants(mix, heads, target, Z)
    arr = [h.arrays() for h in heads]
    A = [Z @ U.T for U, _V, _W in arr]
    H = len(arr)
    mx = np.full((H, n), -np.inf)
    den = np.zeros((H, n))
    nums = [np.zeros((n, len(m[0]))) for _ in range(H)]
    step = max(1, min(L, (1 << 20) // max(n, 1)))
    done = 0
    while done < L:
        cc = min(step, L - done)
        X = _full_tokens(mix, n, cc, rng)
        for h in range(H):
            s = np.einsum("ncd,nd->nc", X, A[h])
            new = np.maximum(mx[h], s.max(1))
            e = np.exp(s - new[:, None])
            sc = np.exp(mx[h] - new)
            den[h] = den[h] * sc + e.sum(1)
            nums[h] = nums[h] * sc[:, None] + np.einsum("nc,ncd->nd", e, X)
            mx[h] = new
        done += cc
    err: Any = 0.0  # a (queries, d) array after the first head
    lin: Any = 0.0
    for h, (_U, V, W) in enumerate(arr):
        _s, _g, lam, _mu, grad = _tilt(w, m, G, A[h])
        d = (nums[h] / den[h][:, None] - grad) @ (W @ V).T
        err = err + d
        lin = lin + np.exp(mx[h] + np.log(den[h]) - np.log(L) - lam)[:, None] * d
    r0 = c["residual"]
    Xv = L * (-2 * (err * r0).sum(1) + (err**2).sum(1))
    # control variate with mean exactly 0 given z: the linear term -2 L r^T e_lin only (the quadratic
    # part's mean K_var(z) is heavy-tailed over queries once lambda* > 1/4, so it is not subtracted)
    Y = -2 * L * (lin * r0).sum(1)
    return {"X": iw * Xv, "X_cv": iw * (Xv - Y), "sq_error": iw * (err**2).sum(1), "Z": Z, "weights": iw}


def covariance_blocks(mix: GaussianMixture, heads, z, variant: str | None = None) -> dict:
    """L Cov(T^h, T^k) -> C_hk (p_h x p_k) for one query, every pair (h, k), float64.
    ``variant='no-mean-shift'`` drops the d d^T products (a negative control)."""
    w, m, G = _arrays(mix)
    z = np.asarray(z, float)
    arr = [h.arrays() for h in heads]
    A = [(U @ z)[None] for U, _V, _W in arr]
    one = [_tilt(w, m, G, a) for a in A]
    out = {}
    rhos = {}
    for h in range(len(arr)):
        for k in range(len(arr)):
            _s, g2, lam2, mu2, _gr = _tilt(w, m, G, A[h] + A[k])
            rhos[(h, k)] = float(np.exp(lam2 - one[h][2] - one[k][2])[0])
            C = np.zeros((m.shape[1], m.shape[1]))
            for j in range(len(w)):
                dh = mu2[0, j] - one[h][4][0]
                dk = mu2[0, j] - one[k][4][0]
                C += g2[0, j] * (G[j] + (0 if variant == "no-mean-shift" else 1) * np.outer(dh, dk))
            out[(h, k)] = rhos[(h, k)] * (arr[h][1] @ C @ arr[k][1].T)
    return {"blocks": out, "rho": rhos}
