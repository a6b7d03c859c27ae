"""Critical points of the attention-LDA risk: searches, curvatures and Hessian kernels (Sec. 3.2, App. B).

The numerical procedures behind the landscape claims (softmix.checks.paper.lda_landscape and
lda_critical), public so that they are tested on their own (tests/numerics/test_lda_critical.py):

* :func:`critical_search` -- trust-region Newton descents of the effective risk R~ from random
  starts, starts near the constant-gate branch E2 and near the origin (Thm 3.1), each limit with its
  risk gap, quadrature error and distances to E1 / E2; :func:`refine_mp` refines one limit by a
  Newton step at high precision;
* :func:`gaussian_well` -- a negative Gaussian well (value, gradient, Hessian), the spurious local
  minimum added by a negative control;
* :func:`v21zero_critical_points` -- critical points of R~ restricted to {v21 = 0} (Lemmas B.16, B.22);
* :func:`curvature_along` -- D^2 R(theta)[h_t, h_t] along the direction h_t of Lemma B.22;
* :func:`adaptive_hessian`, :func:`hessian_kernel` -- a Hessian by Gauss-Hermite refined until two rules
  agree, and its numerical kernel with a spectral-gap test (Prop. B.30, Cor. B.31);
* :func:`fd_hessian` -- the Hessian by central differences of a gradient;
* :func:`square_loss_gap` -- the best square-loss fit of a target inside the effective class (Remark B.5).
"""

from __future__ import annotations

import math

import mpmath as mpm
import numpy as np
from scipy import optimize
from scipy.special import expit

from . import lda as N, lda_landscape as LL
from .precision import workdps

__all__ = [
    "EPS",
    "fd_hessian",
    "gaussian_well",
    "risk_with_well",
    "critical_search",
    "refine_mp",
    "v21zero_critical_points",
    "curvature_along",
    "adaptive_hessian",
    "hessian_kernel",
    "square_loss_gap",
]

#: machine epsilon of float64
EPS = float(np.finfo(float).eps)


def fd_hessian(fun, x, h=1e-5):
    """Symmetrised Hessian of a function by central differences of its gradient: ``fun(x)`` returns
    ``(value, gradient)``; column i is ``(grad(x + h e_i) - grad(x - h e_i)) / (2 h)``.

    >>> H = fd_hessian(lambda x: (x @ x, 2 * x), np.zeros(2))
    >>> bool(np.allclose(H, 2 * np.eye(2)))
    True
    """
    n = x.size
    H = np.zeros((n, n))
    for i in range(n):
        e = np.zeros(n)
        e[i] = h
        H[:, i] = (fun(x + e)[1] - fun(x - e)[1]) / (2 * h)
    return (H + H.T) / 2


def gaussian_well(zeta, A, rho):
    """The negative Gaussian well ``-A exp(-|zeta|^2 / (2 rho^2))`` at the origin: (value, gradient, Hessian)."""
    z = np.asarray(zeta, float)
    e = math.exp(-(z @ z) / (2 * rho**2))
    v = -A * e
    g = A * e * z / rho**2
    H = A * e * (np.eye(z.size) / rho**2 - np.outer(z, z) / rho**4)
    return v, g, H


def risk_with_well(P, n, well=None):
    """``f(zeta, order) -> (R, grad, Hess)``: the effective risk R~ by Gauss-Hermite (n nodes; the full
    tensor rule when d <= 2), plus :func:`gaussian_well` ``(A, rho)`` when ``well`` is given."""
    full = P.d <= 2

    def f(z, order):
        R, g, H = N.eff_risk(P, z, order, n, None, full)
        if well:
            v, gw, Hw = gaussian_well(z, *well)
            R = R + v
            g = g + gw if g is not None else None
            H = H + Hw if H is not None else None
        return R, g, H

    return f


def critical_search(P, rng, nodes, bayes_nodes, random_starts, grad_tol, escape_radius, well=None):
    """Limits of trust-region Newton descents of R~ (initial radius 0.02, gtol 1e-10, then a
    least-squares Newton polish) from ``random_starts`` standard normal starts, two starts near E2
    (r = 1.5 and -1) and one near the origin, drawn from ``rng``.  Returns (rows, R*): per limit its
    start, the limit, |grad|, whether it is critical (|grad| <= grad_tol and |zeta| <= escape_radius),
    R~ - R*, the quadrature error |R~(n) - R~(1.5n+2)|, the tolerances tau_R = 1e3 (GH error + eps R* +
    R* error) + |grad| max(1, |zeta|) and tau_d = 10 tau_R^(1/6), and the distances to E1 and E2."""
    d = P.d
    f = risk_with_well(P, nodes, well)
    ws, bs = P.bayes()
    sg = expit(P.arrays()[5])
    starts = [("random", rng.standard_normal(2 * d + 2)) for _ in range(random_starts)]
    for r in (1.5, -1.0):  # near the constant-gate branch E2
        starts.append(
            ("near-E2", np.concatenate([ws, [bs - r * sg, r], np.zeros(d)]) + 0.05 * rng.standard_normal(2 * d + 2))
        )
    starts.append(("near-origin", 0.05 * rng.standard_normal(2 * d + 2)))
    Rstar, Rerr = N.bayes_risk(P, bayes_nodes, 30)
    Rstar = float(Rstar)
    rows = []
    for kind, z0 in starts:
        # a trust region that starts small keeps the descent in the start's basin (BFGS's first unit-scale
        # step jumped out of a 0.2-wide basin at the origin on seed 8104), then grows where the model holds
        res = optimize.minimize(
            lambda z: f(z, 1)[:2],
            z0,
            jac=True,
            hess=lambda z: f(z, 2)[2],
            method="trust-exact",
            options={"gtol": 1e-10, "maxiter": 2000, "initial_trust_radius": 0.02},
        )
        z, gnorm = LL.newton_polish(lambda z: f(z, 2)[1:], res.x, steps=40, gtol=1e-14)
        Rz = f(z, 0)[0]
        Rz2 = risk_with_well(P, int(1.5 * nodes) + 2, well)(z, 0)[0]
        qerr = abs(Rz2 - Rz)
        tau_R = 1e3 * (qerr + EPS * max(1.0, abs(Rstar)) + float(Rerr)) + gnorm * max(1.0, float(np.linalg.norm(z)))
        rows.append(
            {
                "start": kind,
                "limit": z.tolist(),
                "norm": float(np.linalg.norm(z)),
                "grad_norm": gnorm,
                "critical": bool(gnorm <= grad_tol and np.linalg.norm(z) <= escape_radius),
                "risk_gap": float(Rz - Rstar),
                "quadrature_error": float(qerr),
                "tau_R": float(tau_R),
                "tau_d": float(10 * tau_R ** (1 / 6)),
                "dist_E1": N.dist_E1(P, z),
                "dist_E2": N.dist_E2(P, z),
            }
        )
    return rows, Rstar


def _risk_mp(P, zz, order, n, dps, well):
    zm = np.array([mpm.mpf(float(x)) for x in zz], dtype=object)
    R, g, _ = N.eff_risk(P, zm, order, n, dps)
    if well:
        A, rho = well
        e = mpm.exp(-(zm @ zm) / (2 * mpm.mpf(rho) ** 2))
        R = R - A * e
        g = g + A * e * zm / mpm.mpf(rho) ** 2 if g is not None else None
    return R, g


def refine_mp(P, z, nodes, mp_nodes, bayes_nodes, dps, well=None):
    """One Newton step from the limit ``z`` at ``dps`` digits (mpmath gradient with ``mp_nodes`` nodes,
    float Hessian pseudo-inverse at rcond 1e-6), kept only if it lowers the gradient.  Returns the
    gradient norms before/after, R~, R*, the gap, the quadrature error |R~(n) - R~(1.5n+2)| and the
    tolerance tau = 1e3 (quadrature error + R* error) + |grad| max(1, |zeta|) + 10^(5-dps) (mpf values),
    and the distances to E1 / E2."""
    f = risk_with_well(P, nodes, well)
    with workdps(dps):
        R0, g0 = _risk_mp(P, z, 1, mp_nodes, dps, well)
    H = f(z, 2)[2]
    # Newton step restricted to the well-conditioned eigen-directions (rcond 1e-6); kept only if it
    # lowers the high-precision gradient (the quartic E_flat directions are left alone)
    z1 = z + np.linalg.lstsq(H, -np.array([float(x) for x in g0]), rcond=1e-6)[0]
    with workdps(dps):
        R1, g1 = _risk_mp(P, z1, 1, mp_nodes, dps, well)
        if mpm.sqrt(sum(x * x for x in g1)) > mpm.sqrt(sum(x * x for x in g0)):
            z1, R1, g1 = z, R0, g0
        zm = np.array([mpm.mpf(float(x)) for x in z1], dtype=object)
        R1b = _risk_mp(P, z1, 0, int(1.5 * mp_nodes) + 2, dps, well)[0]
        Rstar, Rerr = N.bayes_risk(P, bayes_nodes, dps)
        n1 = mpm.sqrt(sum(x * x for x in g1))
        qerr = abs(R1b - R1)
        tau = 1e3 * (qerr + Rerr) + n1 * max(1, mpm.sqrt(zm @ zm)) + mpm.mpf(10) ** (5 - dps)
        return {
            "dps": dps,
            "nodes": mp_nodes,
            "grad_norm_before": mpm.sqrt(sum(x * x for x in g0)),
            "grad_norm_after": n1,
            "risk": R1b,
            "R_star": Rstar,
            "risk_gap": R1b - Rstar,
            "quadrature_error": qerr,
            "tau_R": tau,
            "dist_E1": N.dist_E1(P, z1),
            "dist_E2": N.dist_E2(P, z1),
        }


def v21zero_critical_points(P, nodes, starts, rng):
    """Critical points (v22, s) of F(v22, s) = R~(0, -v22, 2 v22, s) (numerics.lda_landscape.restricted_risk):
    BFGS minimisers from (1, w*), (1/2, -w*) and ``starts`` standard normal starts drawn from ``rng``, each
    polished by Newton steps (distinct, |y| < 1e3), and the zero-amplitude family v22 = 0 (a root of
    2 d_r - d_b along s = t w*/|w*| on each side).  Returns a list of (label, y)."""
    d = P.d
    ws = P.bayes()[0]
    pts: list = []
    y0s = [np.concatenate([[1.0], ws]), np.concatenate([[0.5], -ws])] + [
        rng.standard_normal(d + 1) for _ in range(starts)
    ]
    for y0 in y0s:
        r = optimize.minimize(
            lambda y: LL.restricted_risk(P, y, 1, nodes)[:2],
            y0,
            jac=True,
            method="BFGS",
            options={"gtol": 1e-11, "maxiter": 2000},
        )
        y, _gn = LL.newton_polish(lambda y: LL.restricted_risk(P, y, 2, nodes)[1:], r.x)
        if np.linalg.norm(y) < 1e3 and all(np.linalg.norm(y - q) > 1e-6 for _, q in pts):
            pts.append(("minimiser of F", y))
    u = ws / np.linalg.norm(ws)
    h = lambda t: LL.restricted_risk(P, np.concatenate([[0.0], t * u]), 1, nodes)[1][0]
    for lo, hi in ((0.0, 30.0), (-30.0, 0.0)):
        try:
            t = optimize.brentq(h, lo + 1e-9 * np.sign(hi + lo), hi, xtol=1e-15)
            pts.append(("zero-amplitude (v22 = 0)", np.concatenate([[0.0], t * u])))
        except ValueError:
            pass
    return pts


def curvature_along(P, th, gw, nodes, max_nodes, t_grid, sign=-1):
    """q(t) = D^2 R(theta)[h_t, h_t] for the direction h_t of Lemma B.22: dU11 = sign t gw (G dv21)^T,
    du12 = -dU11 dm / 2, dv21 = gw/|gw|, dv22 = 0.  The Hessian by Gauss-Hermite, n doubled from ``nodes``
    until |H(n) - H(1.5n+2)| <= 1e-10 max|H| (or 2n > max_nodes); the grid ``t_grid`` extended past the
    predicted zero crossing.  Returns (ts, q(t), error estimates |H(n) - H(1.5n+2)| |h_t|_1^2 + 1e3 eps
    max|H| |h_t|^2, the predicted slope 2 sign |gw|^2 |G dv21|^2 (Lemma B.22: q is affine in t), the
    Hessian, its quadrature error, n)."""
    d = P.d
    m1, m_1, G, _L, _pi, _s0 = P.arrays()
    dm = m1 - m_1
    n = nodes
    while True:
        H = N.hess_theta(P, th, n, None, d <= 2)[2]
        H2 = N.hess_theta(P, th, int(1.5 * n) + 2, None, d <= 2)[2]
        qerr = float(np.max(np.abs(H - H2)))
        if qerr <= 1e-10 * float(np.abs(H2).max()) or 2 * n > max_nodes:
            break
        n *= 2
    ng = np.linalg.norm(gw)
    dv = gw / ng if ng > 0 else np.eye(d)[0]
    slope_pred = sign * 2 * ng**2 * float((G @ dv) @ (G @ dv))
    hv0 = N.pack_theta(np.zeros((d, d)), np.zeros(d), dv, 0.0)
    q0 = float(hv0 @ H2 @ hv0)
    grid = [float(t) for t in t_grid]
    if slope_pred != 0 and q0 > 0 and 4 * q0 / abs(slope_pred) > max(grid):
        grid += [4 * q0 / abs(slope_pred), 16 * q0 / abs(slope_pred)]
    ts = np.array(grid, float)
    qs, errs = [], []
    for t in ts:
        dU = sign * t * np.outer(gw, G @ dv)
        hv = N.pack_theta(dU, -dU @ dm / 2, dv, 0.0)
        qs.append(float(hv @ H2 @ hv))
        errs.append(qerr * float(np.sum(np.abs(hv))) ** 2 + 1e3 * EPS * float(np.abs(H2).max()) * float(hv @ hv))
    return ts, np.array(qs), np.array(errs), slope_pred, H2, qerr, n


def adaptive_hessian(hess, n, max_nodes, rel="1e-12"):
    """``hess(n)`` at n and 1.5n+2 nodes, n doubled until their largest difference is <= rel x the
    largest entry (or 2n > max_nodes).  Returns (H(n), H(1.5n+2), difference, scale, n)."""
    while True:
        H, H2 = hess(n), hess(int(1.5 * n) + 2)
        qerr = max(abs(a - b) for a, b in zip(H.ravel(), H2.ravel()))
        scale = max(abs(x) for x in H2.ravel())
        if qerr <= mpm.mpf(rel) * scale or 2 * n > max_nodes:
            return H, H2, qerr, scale, n
        n *= 2


def hessian_kernel(H, dps, qerr, scale):
    """The numerical kernel of a symmetric (mpf) matrix at ``dps`` digits: an eigenvalue is zero iff
    |lambda| <= tol = 1e3 max(qerr, 10^(5-dps) max(1, scale)).  Returns (nullity, tol, the non-zero
    eigenvalues by increasing |lambda|, all eigenvalues)."""
    with workdps(dps):
        E, _Q = mpm.eigsy(mpm.matrix(H.tolist()))
        ev = [E[i] for i in range(E.rows)]
        tol = 1e3 * max(qerr, mpm.mpf(10) ** (5 - dps) * max(1, scale))
        zero = [e for e in ev if abs(e) <= tol]
        rest = sorted([e for e in ev if abs(e) > tol], key=abs)
        return len(zero), tol, rest, ev


def square_loss_gap(P, target, n, rng, starts):
    """min_zeta E[(g_zeta(X) - t(X))^2] over the effective predictors (Remark B.5): BFGS (gtol 1e-12) from
    the affine Bayes score, the two sigmoid starts +-(2 sigma(s0 + w*^T x) - 1) and ``starts`` standard
    normal starts from ``rng``; the value by numerics.lda_landscape.square_risk (n nodes).  Returns the
    gap min(R(n), R(1.5n+2)) at the best limit, its quadrature error |R(n) - R(1.5n+2)|, the optimiser
    tolerance (Newton decrement g^T pinv(H) g / 2 with H by :func:`fd_hessian`), the threshold
    100 (quadrature error + Newton decrement + eps E[t^2]), the argmin, |grad|, the number of starts and
    the last start (a random one, for implementation checks)."""
    d = P.d
    ws, _bs = P.bayes()
    fun = lambda z: LL.square_risk(P, z, target, n)
    x0s = [
        np.concatenate([ws, [_bs, 0], np.zeros(d)]),  # affine Bayes score
        np.concatenate([0 * ws, [-1, 2], ws]),  # 2 sigma(s0 + w*^T x) - 1
        np.concatenate([0 * ws, [1, -2], -ws]),
    ]
    x0s += [rng.standard_normal(2 * d + 2) for _ in range(starts)]
    fits = [optimize.minimize(fun, x0, jac=True, method="BFGS", options={"gtol": 1e-12, "maxiter": 3000})
            for x0 in x0s]
    x = min(fits, key=lambda r: r.fun).x  # the first of equal minima, as a running minimum keeps
    val, g = fun(x)
    H = fd_hessian(fun, x)
    opt_tol = abs(0.5 * g @ np.linalg.lstsq(H, g, rcond=1e-12)[0])
    v2 = LL.square_risk(P, x, target, int(1.5 * n) + 2, False)[0]
    qerr = abs(v2 - val)
    scale = LL.square_risk(P, np.zeros(2 * d + 2), target, n, False)[0]  # E[t^2]
    return {
        "gap": float(min(val, v2)),
        "quadrature_error": float(qerr),
        "optimiser_tolerance": float(opt_tol),
        "threshold": float(100 * (qerr + opt_tol + EPS * max(1.0, scale))),
        "argmin_zeta": x,
        "grad_norm": float(np.linalg.norm(g)),
        "starts": len(x0s),
        "last_start": x0s[-1],
    }
