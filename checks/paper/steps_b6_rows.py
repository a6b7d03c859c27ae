"""Numeric rows deciding the kernel inclusions of App. B.6 (proof of Prop. B.29, display ledger): at a
drawn point theta* of the optimal manifold Theta_1 = C^-1(0) (w = w*, b = b*, r = 0) of a drawn generic LDA
problem (d = 2), the Hessian of R is obtained by central finite differences of the gradient (quadrature,
independent of the second-order chain rule the proof uses); ker DC(theta*) and the numerical kernel of the
Hessian are compared. The Hessian is Richardson-extrapolated central differences, and its error is *measured*:
the step halved and the quadrature refined (:func:`hessian_with_error`). Its rank counts the singular values
above ten times that error and is decided only when the smallest of them is another ten times above (a decade
of gap), the step and then the quadrature refined if not; otherwise the kernel rows are inconclusive, never
refuted (a drawn problem with curvatures 10^5 apart once had a fixed relative threshold cut through its
spectrum). ``perturb`` (the control): DC altered by 2/11 in its first entry and the quadratic forms of B.6#25
by 2/11; the same rows must refute."""
from __future__ import annotations

import json

import numpy as np

from softmix.numerics import lda as N
from softmix.numerics.memo import remember

from ..rules import Bound
from .rows import undecided

__all__ = ["B6_CHECKS", "b6_rows", "hessian_with_error", "optimal_point"]

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


def _fd_hessian(prob, th, h, n):
    """Central differences of the gradient (Lemma B.15's first-order chain rule, decided by lemma-b.15),
    symmetrised: independent of the second-order chain rule B.6#25 that the proof uses."""
    k, E = th.size, np.eye(th.size)
    g = lambda t: np.asarray(N.grad_theta(prob, t, n=n, full_basis=True)[1], float)
    H = np.column_stack([(g(th + h * E[j]) - g(th - h * E[j])) / (2 * h) for j in range(k)])
    return (H + H.T) / 2


def hessian_with_error(prob, th, h=2e-3, n=96):
    """The Hessian of R at ``th`` by Richardson-extrapolated central differences of the gradient (steps h/2
    and h, quadrature of 3n/2 nodes), and a measured bound on its error: the change when the step is doubled
    plus the change when the quadrature drops to n nodes, plus a 1e-12 relative floor."""
    rich = lambda hh, nn: (4 * _fd_hessian(prob, th, hh, nn) - _fd_hessian(prob, th, 2 * hh, nn)) / 3
    fine = rich(h / 2, 3 * n // 2)
    err = np.linalg.norm(rich(h, 3 * n // 2) - fine, 2) + np.linalg.norm(rich(h / 2, n) - fine, 2)
    return fine, float(err + 1e-12 * np.linalg.norm(fine, 2))


def _resolved_hessian(prob, th, key):
    """The Hessian refined (step, then quadrature) until its rank is resolved or the schedule ends; kept in
    the run's memo, so the control reuses the claim's (its perturbation does not touch the Hessian)."""
    def make():
        for h, n in ((2e-3, 96), (5e-4, 96), (5e-4, 192)):
            H, err = hessian_with_error(prob, th, h=h, n=n)
            sh = np.linalg.svd(H, compute_uv=False)
            r = int(np.sum(sh > 10 * err))
            if r and sh[r - 1] > 100 * err:
                break
        return H, err, sh
    return remember("b6-hessian", key, make)


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
        H, err, sh = _resolved_hessian(prob, th, key=(json.dumps(p, sort_keys=True), tuple(th.tolist())))
        J = N.dphi(prob, th)
        DC = J[:d + 2].copy()
        if perturb:
            DC[0, 0] += 2 / 11
        zero = 10 * err                          # singular values at most this are zero within the error
        _, _, Vh = np.linalg.svd(H)
        rank = int(np.sum(sh > zero))
        KH = Vh[rank:].T
        _, _, Vc = np.linalg.svd(DC)
        KC = Vc[d + 2:].T
        tag = {"config": i, "rank_hessian": rank, "hessian_error": f"{err:.1e}",
               "gap": f"{sh[rank - 1]:.2e} > {zero:.1e}" + (f" >= {sh[rank]:.1e}" if rank < sh.size else "")}
        rows.append({"check": B6_CHECKS[0], **tag, **Bound().decide(float(np.linalg.norm(H @ KC, 2)), float(zero))})
        if rank == 0 or sh[rank - 1] <= 10 * zero:
            why = (f"the Hessian's rank is not resolved: its smallest singular value above the error band, "
                   f"{sh[max(rank, 1) - 1]:.2e}, is within a decade of ten times its measured error {err:.1e}")
            rows += [undecided(c, why, **tag) for c in B6_CHECKS[1:] + B6_CHECKS[2:]]
            continue
        Ht = N.eff_risk(prob, N.phi(prob, th), 2, 64)[2]
        q = max(abs(float(h @ Ht @ h)) for h in (J @ KH).T) + (2 / 11 if perturb else 0.0)
        q_tol = max(1e-4 * float(np.linalg.norm(H, 2)), float(zero))
        rows.append({"check": B6_CHECKS[1], **tag, **Bound().decide(q, q_tol)})
        lim = float(zero / sh[rank - 1] * np.linalg.norm(DC, 2))  # the kernel basis moves by <= error / gap
        rows.append({"check": B6_CHECKS[2], **tag, **Bound().decide(float(np.linalg.norm(DC @ KH, 2)), lim)})
        rows.append({"check": B6_CHECKS[2], **tag, "part": "dim ker Hess R = dim ker DC",
                     **Bound().decide(int(abs(KH.shape[1] - (th.size - int(np.linalg.matrix_rank(DC))))), 0)})
    return rows
