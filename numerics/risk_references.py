"""Independent references and settings for the finite-prompt risk of several heads (docs/finite-prompt.md).

References (another route to a quantity of :mod:`softmix.numerics.risk`):

* :func:`query_average_by_quadrature` -- ``E_z`` of the per-query constants by tensor Gauss-Hermite quadrature on
  the range of each query component's covariance (singular ones included), refined until two rules agree;
* :func:`threshold_by_eigendecomposition` -- ``lambda*`` and the top eigenspaces' multiplicity, mean shift and
  centring from the NON-symmetric product ``Sigma_j U_h^T G_k U_h`` (no square root, no symmetric solver).

Settings (the paper's tasks written as tokens, heads, queries and target of the risk engine):
:func:`icl_regression_inputs`, :func:`lda_bayes_head`, :func:`denoiser_heads`; and helpers
:func:`scaled_heads`, :func:`head_tails`, :func:`duplicated_gaussian`.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from . import risk as RK
from .attention import cgf
from .mixture import GaussianMixture

__all__ = ["PARTS", "GH_NODES", "GH_MAX_POINTS", "GH_AGREE", "query_average_by_quadrature",
           "threshold_by_eigendecomposition", "icl_regression_inputs", "lda_bayes_head", "denoiser_heads",
           "scaled_heads", "head_tails", "duplicated_gaussian"]

#: the parts of the per-query 1/L coefficient (numerics.risk.risk_constants) and R_inf
PARTS = ("K", "variance", "cross", "bias_residual", "risk_infinite")
#: Gauss-Hermite rules (nodes per direction), refined in this order until two successive rules agree to GH_AGREE
#: (relative to the largest |part|); a rule with more than GH_MAX_POINTS nodes per component is not tried
GH_NODES = (12, 16, 24, 32, 48, 64, 96)
GH_MAX_POINTS = 120000
GH_AGREE = 1e-11


def _range_factors(queries: GaussianMixture) -> list:
    """R_j with Sigma_j = R_j R_j^T on the range of Sigma_j (columns scaled by sqrt of the eigenvalues)."""
    _qw, _qm, qS = queries.arrays()
    out = []
    for S in qS:
        ev, Q = np.linalg.eigh(np.asarray(S, float))
        keep = ev > 1e-12 * max(float(ev.max()), 1e-300)
        out.append(Q[:, keep] * np.sqrt(ev[keep]))
    return out


def _gauss_hermite_rule(mix, heads, target, queries, comps, parts, n) -> dict:
    qw, qm, _qS = queries.arrays()
    x, w = np.polynomial.hermite_e.hermegauss(n)
    w = w / w.sum()
    out = dict.fromkeys(parts, 0.0)
    for j, R in enumerate(comps):
        r = R.shape[1]
        if r == 0:
            c = RK.risk_constants(mix, heads, target, qm[j][None])
            for k in parts:
                out[k] += qw[j] * float(c[k][0])
            continue
        X = np.array(list(itertools.product(x, repeat=r)))
        W = np.prod(np.array(list(itertools.product(w, repeat=r))), axis=1)
        with np.errstate(all="ignore"):
            c = RK.risk_constants(mix, heads, target, qm[j][None] + X @ R.T)
        for k in parts:
            out[k] += qw[j] * float(W @ c[k])
    return out


def query_average_by_quadrature(mix: GaussianMixture, heads, target, queries: GaussianMixture, parts=PARTS) -> dict:
    """``E_z`` of every per-query part (numerics.risk.risk_constants) for ``z ~ queries`` by tensor Gauss-Hermite
    quadrature on the range of each query component's covariance.  Returns ``values``, ``nodes`` (the last rule),
    ``error`` (the relative difference of the last two rules) and ``converged`` (``error <= GH_AGREE``).  Exact up to
    the rule's error; shares neither the closed form nor any Monte Carlo."""
    comps = _range_factors(queries)
    prev, err, used = None, None, None
    rmax = max([R.shape[1] for R in comps] + [1])
    for n in GH_NODES:
        if n ** rmax > GH_MAX_POINTS:
            break
        cur = _gauss_hermite_rule(mix, heads, target, queries, comps, parts, n)
        if prev is not None:
            scale = max(1.0, max(abs(cur[k]) for k in parts))
            err = max(abs(cur[k] - prev[k]) for k in parts) / scale if all(np.isfinite(cur[k]) for k in parts) else None
            used = n
            if err is not None and err <= GH_AGREE:
                return {"values": cur, "nodes": n, "error": err, "converged": True}
        prev = cur
    return {"values": prev, "nodes": used, "error": err, "converged": False}


def threshold_by_eigendecomposition(mix: GaussianMixture, heads, queries: GaussianMixture, tol: float = 1e-9) -> dict:
    """``lambda*`` and, per (head, token component, query component) whose head reads the component (``W_h V_h G_k
    != 0``), the top eigenvalue, its multiplicity, the mean-shift flag (``W_h V_h G_k U_h w != 0`` on the top
    eigenspace) and the centring (``w^T U_h^T G_k U_h mu_j = 0``), from ``eig(Sigma_j U_h^T G_k U_h)`` (same
    non-zero spectrum as ``R_j^T U_h^T G_k U_h R_j``; eigenvectors ``R_j v``).  Another path than
    numerics.risk.threshold_info."""
    _w, _m, G = mix.arrays()
    qw, qm, qS = queries.arrays()
    rows = []
    for h, hd in enumerate(heads):
        U, V, W = hd.arrays()
        P = W @ V
        for k in range(len(G)):
            if np.abs(P @ G[k]).max() <= tol * max(1.0, np.abs(G[k]).max()):
                continue
            A = U.T @ G[k] @ U
            for j in range(len(qw)):
                ev, vec = np.linalg.eig(np.asarray(qS[j], float) @ A)
                ev = ev.real
                lam = float(ev.max())
                top = vec[:, ev >= lam - tol * max(1.0, abs(lam))].real
                size = tol * max(1.0, float(np.abs(top).max()))
                rows.append({"head": h, "token_component": k, "query_component": j, "lambda": lam,
                             "multiplicity": int(top.shape[1]),
                             "mean_shift_on_top": bool(float(np.abs(P @ G[k] @ U @ top).max()) > size),
                             "centred": bool(float(np.abs(top.T @ A @ qm[j]).max()) <= size)})
    return {"lambda": max([r["lambda"] for r in rows], default=0.0), "rows": rows}


def icl_regression_inputs(d: int, beta, noise, heads_A, weights) -> tuple:
    """In-context linear regression as JSON inputs of the risk engine ``(tokens, queries, heads, target)``: tokens
    ``(x, beta^T x + eps)``, ``x ~ N(0, I_d)``, ``eps ~ N(0, noise)``; query ``(x_q, 0)`` with ``x_q ~ N(0, I_d)``
    (a singular query covariance); scalar heads ``U_h = [[A_h, 0], [0, 0]]`` (scores ``<A_h x_q, x_i>``),
    ``V_h = e_{d+1}^T`` (reads the label), ``W_h = [w_h]``; target ``y = beta^T x_q + eps'``."""
    D = d + 1
    b = [float(x) for x in beta]
    G = [[(1.0 if i == j else 0.0) if i < d and j < d else (b[i] if j == d and i < d else (b[j] if i == d and j < d
                                                                                           else 0.0))
          for j in range(D)] for i in range(D)]
    G[d][d] = sum(x * x for x in b) + float(noise)
    tokens = {"weights": ["1"], "means": [["0"] * D], "covariances": [[[repr(x) for x in r] for r in G]]}
    Sq = [[repr(1.0 if (i == j and i < d) else 0.0) for j in range(D)] for i in range(D)]
    queries = {"weights": ["1"], "means": [["0"] * D], "covariances": [Sq]}
    heads = []
    for A, w in zip(heads_A, weights):
        U = [[repr(float(A[i][j])) if (i < d and j < d) else "0" for j in range(D)] for i in range(D)]
        heads.append({"U": U, "V": [["0"] * d + ["1"]], "W": [[repr(float(w))]]})
    target = {"B": [[repr(x) for x in b] + ["0"]], "noise_covariance": [[repr(float(noise))]]}
    return tokens, queries, heads, target


def lda_bayes_head(prob, U0, u) -> tuple:
    """A point ``theta = (c U0, u, v, v22)`` of the Bayes set E1 of Sec. 3 (``Phi(theta) = (w*, b*, 0, s)``, eq. (7)):
    ``v = Gamma^{-1} U11^{-1} w*``, ``v22 = -v^T (m1 - m_-1) / 2`` (r = 0), the scale ``c`` solving ``b = v^T (m1 +
    m_-1) / 2 = b*``.  Returns ``(theta, token mixture of (X, Y), [head], query law)`` in the risk engine's
    convention: ``U = [[U11^T, 0], [u^T, 0]]``, ``V = (v^T, v22)``, queries ``(x, 0)``."""
    from . import lda as N

    m1, m_1, G, _Lc, pi, _s0 = prob.arrays()
    d = prob.d
    w, b = prob.bayes()
    U0, u = np.asarray(U0, float), np.asarray(u, float)
    v0 = np.linalg.solve(G, np.linalg.solve(U0, w))
    U11 = (v0 @ (m1 + m_1) / (2 * b)) * U0
    v = np.linalg.solve(G, np.linalg.solve(U11, w))
    v22 = -v @ (m1 - m_1) / 2
    theta = N.pack_theta(U11, u, v, v22)
    D = d + 1
    f = lambda M: [[repr(float(x)) for x in r] for r in M]
    Gt = np.zeros((D, D))
    Gt[:d, :d] = G
    wts = [repr(float(pi)), repr(1 - float(pi))]
    mix = GaussianMixture.from_json_obj({"weights": wts, "means": [f([list(m1) + [1.0]])[0],
                                                                   f([list(m_1) + [-1.0]])[0]],
                                         "covariances": [f(Gt), f(Gt)]})
    q = GaussianMixture.from_json_obj({"weights": wts, "means": [f([list(m1) + [0.0]])[0], f([list(m_1) + [0.0]])[0]],
                                       "covariances": [f(Gt), f(Gt)]})
    U = np.zeros((D, D))
    U[:d, :d] = U11.T
    U[d, :d] = u
    return theta, mix, RK.parse_heads([{"U": f(U), "V": f([list(v) + [v22]])}], D), q


def denoiser_heads(task) -> tuple:
    """``(noisy mixture mu_Z, the two heads of Thm 4.1 (App. C.6) as risk-engine heads)`` of a
    :class:`softmix.numerics.denoising.DenoisingTask`."""
    from . import denoising as DN

    hs = DN.paper_two_heads(task)
    heads = RK.parse_heads([{"U": [[repr(float(x)) for x in r] for r in U],
                             "V": [[repr(float(x)) for x in r] for r in V]}
                            for U, V in hs], task.d)
    return task.noisy_mixture(), heads


def scaled_heads(heads_obj, t: float) -> list:
    """The heads (JSON) with every U scaled by ``t`` (``lambda*`` scales by ``t^2``)."""
    return [{**h, "U": [[repr(float(x) * t) for x in r] for r in h["U"]]} for h in heads_obj]


def head_tails(mix: GaussianMixture, heads, z) -> list:
    """Per head ``(rho(a_h), M(4 a_h) / M(a_h)^4)``, ``a_h = U_h z``: the effective-sample factor and the fourth
    moment of the softmax weights (how heavy-tailed the Monte Carlo of the first-order terms is), from the
    mixture's CGF (:func:`softmix.numerics.attention.cgf`, log space: finite wherever M is)."""
    out = []
    for h in heads:
        a = h.arrays()[0] @ np.asarray(z, float)
        lam1, lam2, lam4 = cgf(mix, np.stack([a, 2 * a, 4 * a]))
        out.append((math.exp(lam2 - 2 * lam1), math.exp(lam4 - 4 * lam1)))
    return out


def duplicated_gaussian(gaussian: dict, weights) -> GaussianMixture:
    """The Gaussian ``N(m, G)`` (JSON, one component) written as a mixture of ``len(weights)`` identical
    components: the same law, through a mixture code path."""
    k = len(weights)
    return GaussianMixture.from_json_obj({"weights": list(weights), "means": gaussian["means"][:1] * k,
                                          "covariances": gaussian["covariances"][:1] * k}, where="duplicated Gaussian")
