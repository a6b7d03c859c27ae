"""Numeric rows deciding the estimates of App. B.9 and B.12 (display ledger): Lemma B.32's
coercivity chain, and the estimates along the reduced gradient flow of Thm 3.6 (B.12#4), integrated
by :func:`softmix.numerics.reduced_flow.reduced_flow` at drawn generic configurations.

A configuration (``ctx.stream``): ``d = 3``, ``Gamma = Q diag(lambda) Q^T`` (``Q`` a random rotation,
``lambda`` in [0.5, 2]), ``m = a q1 + b q2`` (so the Krylov space is ``K = span(q1, q2)`` and
``K^perp = span(q3)``), ``U11(0) = 0``, ``v21(0) = c q3`` (the theorem's initialisation).  Every
constant of the proof is computed, none tuned: ``nu = ||v21(0)||``, ``alpha = lambda_min^2 nu^2``,
``mu0`` the least Hessian eigenvalue over points of the convex hull of the sampled trajectory and
``w*`` (an over-estimate of the true minimum over the hull, which only makes every bound tighter),
``M = ||E[XX^T]||_op / 4``.  ``perturb``: every right-hand side divided by 4 (the control)."""
from __future__ import annotations

import numpy as np
from scipy.integrate import cumulative_simpson

from softmix.numerics.reduced_flow import LinearLogistic, gaussian_positive_part, reduced_flow

from ..rules import Bound

__all__ = ["COERCIVITY_CHECKS", "FLOW_CHECKS", "coercivity_rows", "flow_rows", "draw_symmetric_lda"]

_SLACK = 1e-8  # float64 quadrature and an ODE solved at rtol 1e-11

COERCIVITY_CHECKS = ("B.9#5 L >= E(-w^T YX)_+", "B.9#13 E(Z_w)_+ >= c0 sigma_w", "B.9#14 sigma_w >= sqrt(lmin)|w|")
FLOW_CHECKS = ("B.9#21 L(w_t) <= L(w_0)", "B.12#10-11 |Gamma v21| >= lmin nu", "B.12#14 PL inequality",
               "B.12#15 dL/dt <= -2 alpha mu0 (L - L*)", "B.12#16 Gronwall", "B.12#18 quadratic growth",
               "B.12#22 M-smoothness", "B.12#25 |S'| <= 4|w||grad L|", "B.12#26-27 S(t) = S(0) + int S'",
               "B.12#29 |v21'| bound", "B.12#31 v21 tail", "B.12#33 |U11'| bound", "B.12#35 U11 tail",
               "B.12#12 G_t >= |Gamma v21|^2 I >= alpha I")


def draw_symmetric_lda(rng, d: int = 3):
    """(m, Gamma, v0): a generic symmetric balanced LDA with K^perp = span(q3) and v21(0) in K^perp."""
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    lam = rng.uniform(0.5, 2.0, d)
    G = Q @ np.diag(lam) @ Q.T
    a, b = rng.uniform(0.4, 1.2, 2) * rng.choice([-1, 1], 2)
    m = a * Q[:, 0] + b * Q[:, 1]
    v0 = rng.uniform(0.5, 1.5) * rng.choice([-1, 1]) * Q[:, d - 1]
    return m, G, v0


def _row(check, lhs, rhs, k, **extra):
    return {"check": check, **extra, **Bound(slack=_SLACK).decide(float(lhs), float(rhs) / k)}


def coercivity_rows(ctx, perturb: bool, n: int = 4) -> list:
    """B.9#5, #13, #14 at drawn (m, Gamma) and directions w (several norms)."""
    rng, k, rows = ctx.stream("coercivity-points"), (4.0 if perturb else 1.0), []
    from scipy.optimize import minimize_scalar
    for i in range(n):
        m, G, _ = draw_symmetric_lda(rng)
        L = LinearLogistic(m, G)
        M = float(np.sqrt(m @ np.linalg.solve(G, m)))
        g = lambda t: gaussian_positive_part(t, 1.0)
        c0 = min(g(-M), g(M), minimize_scalar(g, bounds=(-M, M), method="bounded").fun)
        lmin = float(np.linalg.eigvalsh(G)[0])
        for r in (0.3, 1.0, 4.0):
            w = r * rng.normal(size=3)
            mu, sig = -float(w @ m), float(np.sqrt(w @ G @ w))
            ez = gaussian_positive_part(mu, sig)
            rows.append(_row(COERCIVITY_CHECKS[0], ez, L.value(w), k, config=i,
                             norm_w=round(float(np.linalg.norm(w)), 4)))
            rows.append(_row(COERCIVITY_CHECKS[1], c0 * sig, ez, k, config=i))
            rows.append(_row(COERCIVITY_CHECKS[2], np.sqrt(lmin) * np.linalg.norm(w), sig, k, config=i))
    return rows


def _hull_mu0(L, tr, w_star, rng, extra: int = 200):
    pts = list(tr.w[::10]) + [w_star]
    P = np.array(pts)
    lam = rng.dirichlet(np.full(3, 0.5), size=extra)  # random points of the hull (triples of sampled points)
    idx = rng.integers(0, len(P), size=(extra, 3))
    pts += list(np.einsum("kj,kjd->kd", lam, P[idx]))
    return min(float(np.linalg.eigvalsh(L.hess(p))[0]) for p in pts)


def flow_rows(ctx, perturb: bool, n: int = 2, T: float = 40.0, k_pts: int = 2001) -> list:
    """The estimates of B.9#21 and B.12 along the reduced flow at ``n`` drawn configurations."""
    rng, k, rows = ctx.stream("flow-configurations"), (4.0 if perturb else 1.0), []
    for i in range(n):
        m, G, v0 = draw_symmetric_lda(rng)
        L = LinearLogistic(m, G)
        tr = reduced_flow(L, np.zeros((3, 3)), v0, T, k=k_pts)
        rows += _flow_config_rows(L, G, v0, tr, rng, k, i)
    return rows


def _flow_config_rows(L, G, v0, tr, rng, k, i) -> list:
    ws = L.w_star()
    Ls = L.value(ws)
    lmin, gop = float(np.linalg.eigvalsh(G)[0]), float(np.linalg.norm(G, 2))
    nu = float(np.linalg.norm(v0))
    alpha, mu0 = lmin**2 * nu**2, _hull_mu0(L, tr, ws, rng)
    M = float(np.linalg.norm(L.second_moment(), 2)) / 4
    Lv = np.array([L.value(w) for w in tr.w])
    gr = np.array([L.grad(w) for w in tr.w])
    gn = np.linalg.norm(gr, axis=1)
    Cw = np.sqrt(2 * (Lv[0] - Ls) / mu0)  # B.12#16-19: |w_t - w*| <= Cw exp(-alpha mu0 t)
    Gv = np.einsum("ij,kj->ki", G, tr.v)
    Ud = -np.einsum("ki,kj->kij", gr, Gv)                     # U11' (B.12#4)
    vd = -np.einsum("ij,kjl,kl->ki", G, np.transpose(tr.U, (0, 2, 1)), gr)  # v21' (B.12#4)
    Sd = 2 * np.einsum("kij,kij->k", tr.U, Ud) + 2 * np.einsum("ki,ki->k", tr.v, vd)
    S = np.einsum("kij,kij->k", tr.U, tr.U) + np.einsum("ki,ki->k", tr.v, tr.v)
    t, e = tr.t, np.exp(-alpha * mu0 * tr.t)
    dw = np.linalg.norm(tr.w - ws, axis=1)
    Uop = np.array([np.linalg.norm(U, 2) for U in tr.U])
    cum = lambda f: cumulative_simpson(f, x=t, initial=0.0)
    Iv, IU, IS = cum(np.linalg.norm(vd, axis=1)), cum(np.linalg.norm(Ud, axis=(1, 2))), cum(Sd)
    quad_tol = 1e-6 * (1 + float(np.max(np.abs(Sd))))  # Simpson's rule's allowance on the sampled grid
    Kv = gop * Uop.max() * M * Cw    # B.12#29: |v21'| <= Kv exp(-alpha mu0 t)
    KU = M * Cw * gop * float(np.sqrt(S.max()))  # B.12#33: |U11'|_F <= KU exp(-alpha mu0 t)
    rows = []
    for j in range(0, len(t), max(1, len(t) // 24)):
        r = lambda c, lhs, rhs: rows.append(_row(FLOW_CHECKS[c], lhs, rhs, k, config=i, t=round(float(t[j]), 3)))
        r(0, Lv[j], Lv[0])
        r(1, nu, np.linalg.norm(tr.v[j]))
        r(1, lmin * nu, np.linalg.norm(Gv[j]))
        r(2, 2 * mu0 * (Lv[j] - Ls), gn[j] ** 2)
        Gt = np.dot(Gv[j], Gv[j]) * np.eye(3) + tr.U[j] @ G @ G @ tr.U[j].T
        r(3, 2 * alpha * mu0 * (Lv[j] - Ls), gr[j] @ Gt @ gr[j])
        # B.12#12 as a chain: lambda_min(G_t) >= |Gamma v21|^2 >= lmin^2 |v21|^2 >= lmin^2 nu^2 = alpha
        gv2, lv2 = float(np.dot(Gv[j], Gv[j])), lmin**2 * float(np.dot(tr.v[j], tr.v[j]))
        for link, (lhs, rhs) in enumerate(((gv2, np.linalg.eigvalsh(Gt)[0]), (lv2, gv2), (alpha, lv2))):
            rows.append(_row(FLOW_CHECKS[13], lhs, rhs, k, config=i, t=round(float(t[j]), 3), link=link))
        r(4, Lv[j] - Ls, e[j] ** 2 * (Lv[0] - Ls))
        r(5, mu0 / 2 * dw[j] ** 2, Lv[j] - Ls)
        r(6, gn[j], M * dw[j])
        r(6, M * dw[j], M * Cw * e[j])
        r(7, abs(Sd[j]), 4 * np.linalg.norm(tr.w[j]) * gn[j])
        r(8, abs(S[j] - S[0] - IS[j]), quad_tol * k)
        r(8, S[j], S[0] + 4 * float(np.max(np.linalg.norm(tr.w, axis=1))) * M * Cw / (alpha * mu0))
        r(9, np.linalg.norm(vd[j]), gop * Uop[j] * gn[j])
        r(9, gop * Uop[j] * gn[j], Kv * e[j])
        r(10, np.linalg.norm(tr.v[j] - tr.v[-1]), Iv[-1] - Iv[j] + quad_tol)
        r(10, Iv[-1] - Iv[j], Kv * e[j] / (alpha * mu0))
        r(11, np.linalg.norm(Ud[j]), gn[j] * gop * np.linalg.norm(tr.v[j]))
        r(11, gn[j] * gop * np.linalg.norm(tr.v[j]), KU * e[j])
        r(12, np.linalg.norm(tr.U[j] - tr.U[-1]), IU[-1] - IU[j] + quad_tol)
        r(12, IU[-1] - IU[j], KU * e[j] / (alpha * mu0))
    return rows
