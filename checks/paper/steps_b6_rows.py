"""Numeric rows deciding the kernel inclusions of App. B.6 (proof of Prop. B.29, display ledger, issue 27):
at a drawn point theta* of the optimal manifold Theta_1 = C^-1(0) (w = w*, b = b*, r = 0) of a drawn
generic LDA problem (d = 2), the Hessian of R is obtained by central finite differences of the risk
(quadrature, independent of the chain rule the proof uses); ker DC(theta*) and the numerical kernel of
the Hessian (rank decided by a singular-value gap) are compared.  ``perturb`` (the control): DC altered
by 2/11 in its first entry and the quadratic forms of B.6#25 by 2/11; the same rows must refute."""
from __future__ import annotations

import numpy as np

from softmix.numerics import lda as N

from ..rules import Bound

__all__ = ["B6_CHECKS", "b6_rows", "optimal_point"]

B6_CHECKS = ("B.6#20 ker DC in ker Hess R", "B.6#25 D^2R(h, h) = D^2R~(DPhi h, DPhi h) = 0 on ker Hess R",
             "B.6#28 ker Hess R in ker DC")


def optimal_point(prob, rng):
    """A generic theta* with Phi(theta*) = (w*, b*, 0, s), s free (eq. (7) solved for v22, v21, U11)."""
    d = prob.d
    m1, m_1, G, _, _, _ = prob.arrays()
    zs = N.bayes_zeta(prob)
    ws, bs, dm, sm = zs[:d], zs[d], m1 - m_1, m1 + m_1
    v0 = rng.normal(size=d)
    v = v0 + (bs - v0 @ sm / 2) / (sm @ sm / 2) * sm      # b = v^T (m1 + m_-1) / 2 = b* once r = 0
    gv = G @ v
    U = np.outer(ws, gv) / (gv @ gv) + rng.normal(size=(d, d)) @ (np.eye(d) - np.outer(gv, gv) / (gv @ gv))
    return N.pack_theta(U, rng.normal(size=d), v, -v @ dm / 2)


def _fd_hessian(prob, th, h=1e-3, n=64):
    R = lambda t: float(N.risk_theta(prob, t, n=n, full_basis=True))
    k, E = th.size, np.eye(th.size)
    H = np.zeros((k, k))
    for i in range(k):
        for j in range(i, k):
            H[i, j] = H[j, i] = (R(th + h * E[i] + h * E[j]) - R(th + h * E[i] - h * E[j])
                                 - R(th - h * E[i] + h * E[j]) + R(th - h * E[i] - h * E[j])) / (4 * h * h)
    return H


def b6_rows(ctx, perturb: bool, n_cfg: int = 2) -> list:
    """B.6#20, #25, #28 at ``n_cfg`` drawn problems and optimal points."""
    rng, rows, d = ctx.stream("b6-optimal-points"), [], 2
    for i in range(n_cfg):
        A = rng.normal(size=(d, d))
        G = A @ A.T + 0.5 * np.eye(d)
        p = {"m1": [float(x) for x in rng.normal(size=d)], "m_1": [float(x) for x in rng.normal(size=d)],
             "Gamma": [[float(G[0, 0]), float(G[0, 1])], [float(G[0, 1]), float(G[1, 1])]],
             "pi_plus": float(rng.uniform(0.3, 0.7))}
        prob = N.LDAProblem.from_params(p)
        th = optimal_point(prob, rng)
        H = _fd_hessian(prob, th)
        J = N.dphi(prob, th)
        DC = J[:d + 2].copy()
        if perturb:
            DC[0, 0] += 2 / 11
        tol = 1e-4 * np.linalg.norm(H, 2)     # finite differences (h = 1e-3) and quadrature
        _, sh, Vh = np.linalg.svd(H)
        rank = int(np.sum(sh > tol))
        KH = Vh[rank:].T
        _, _, Vc = np.linalg.svd(DC)
        KC = Vc[d + 2:].T
        Ht = N.eff_risk(prob, N.phi(prob, th), 2, 64)[2]
        q = max(abs(float(h @ Ht @ h)) for h in (J @ KH).T) + (2 / 11 if perturb else 0.0)
        tag = {"config": i, "rank_hessian": rank, "gap": f"{sh[rank - 1]:.2e} > {tol:.1e} > {sh[rank]:.1e}"}
        rows.append({"check": B6_CHECKS[0], **tag, **Bound().decide(float(np.linalg.norm(H @ KC, 2)), float(tol))})
        rows.append({"check": B6_CHECKS[1], **tag, **Bound().decide(q, float(tol))})
        lim = float(tol / sh[rank - 1] * np.linalg.norm(DC, 2))
        rows.append({"check": B6_CHECKS[2], **tag, **Bound().decide(float(np.linalg.norm(DC @ KH, 2)), lim)})
        rows.append({"check": B6_CHECKS[2], **tag, "part": "dim ker Hess R = dim ker DC",
                     **Bound().decide(int(abs(KH.shape[1] - (th.size - int(np.linalg.matrix_rank(DC))))), 0)})
    return rows
