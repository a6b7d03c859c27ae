"""Section 3 numerics: population logistic risk of the attention LDA predictor.

Every expectation is reduced to the Gaussian projections it depends on.  Under class c,
X = m_c + L xi (L L^T = Gamma) and g_zeta(X) depends on xi only through Q^T xi, with Q an
orthonormal basis of span{L^T w, L^T s} (k <= 2; k <= 3 when a third direction is asked for).
A k-dimensional tensor Gauss-Hermite rule integrates the projected part; moments in X add the
exact contribution of the orthogonal complement (E[xi_perp] = 0, Cov = I - Q Q^T), so the cost
does not grow with d.  Two backends share the code: float64 numpy arrays, and numpy object
arrays of mpmath numbers at a stated precision.

Parameter layouts (flat vectors):
  theta = (U11 row-major (d*d), u12 (d), v21 (d), v22)  -- attention coordinates
  zeta  = (w (d), b, r, s (d))                          -- effective coordinates, Phi(theta)
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath as mpm
import numpy as np
from scipy.special import expit

from .errors import InputError
from .memo import memoised
from .mixture import parse_number
from .precision import to_mpf, workdps
from .quadrature import normal_rule

__all__ = ["LDAProblem", "C1", "C2", "theta_size", "pack_theta", "unpack_theta",
           "phi", "dphi", "eff_risk", "risk_theta", "grad_theta", "hess_theta", "bayes_risk",
           "bayes_zeta", "gradient_descent", "sgd_attention", "dist_E1", "dist_E2", "construct_theta1",
           "construct_theta2"]

C1 = {"m1": [1, 0], "m_1": [0, 1], "Gamma": [[1, 0], [0, 1]], "pi_plus": "0.6"}
C2 = {"m1": [1] + [0] * 19, "m_1": [-1] + [0] * 19,
      "Gamma": [[1 if i == j else 0 for j in range(20)] for i in range(20)], "pi_plus": "0.5"}


# ---- problem ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LDAProblem:
    m1: tuple
    m_1: tuple
    Gamma: tuple
    pi: Fraction

    @classmethod
    def from_params(cls, p: dict, where: str = "lda") -> "LDAProblem":
        if not isinstance(p, dict):
            raise InputError(f"{where}: expected an object with keys m1, m_1, Gamma, pi_plus")
        missing = [k for k in ("m1", "m_1", "Gamma", "pi_plus") if k not in p]
        if missing:
            raise InputError(f"{where}: missing key(s) {', '.join(missing)}")
        vec = lambda v, n: (tuple(parse_number(x, f"{where}.{n}[{i}]") for i, x in enumerate(v))
                            if isinstance(v, list) and v else _bad(f"{where}.{n}: expected a non-empty list"))
        m1, m_1 = vec(p["m1"], "m1"), vec(p["m_1"], "m_1")
        d = len(m1)
        if len(m_1) != d:
            raise InputError(f"{where}: m1 has length {d} but m_1 has length {len(m_1)}")
        G = p["Gamma"]
        if not isinstance(G, list) or len(G) != d or any(not isinstance(r, list) or len(r) != d for r in G):
            raise InputError(f"{where}.Gamma: expected a {d}x{d} list of rows")
        Gf = tuple(tuple(parse_number(x, f"{where}.Gamma[{i}][{j}]") for j, x in enumerate(r)) for i, r in enumerate(G))
        for i in range(d):
            for j in range(d):
                if Gf[i][j] != Gf[j][i]:
                    raise InputError(f"{where}.Gamma: not symmetric at [{i}][{j}]")
        ev = np.linalg.eigvalsh(np.array([[float(x) for x in r] for r in Gf]))
        if ev[0] <= 1e-12 * max(1.0, ev[-1]):
            raise InputError(f"{where}.Gamma: not positive definite (smallest eigenvalue {ev[0]:.3g})")
        pi = parse_number(p["pi_plus"], f"{where}.pi_plus")
        if not (0 < pi < 1):
            raise InputError(f"{where}.pi_plus = {float(pi)} is not in (0, 1)")
        if m1 == m_1:
            raise InputError(f"{where}: m1 == m_1 (the two classes must have different means)")
        return cls(m1, m_1, Gf, pi)

    def to_params(self) -> dict:
        s = lambda f: str(f) if f.denominator != 1 else int(f)
        return {"m1": [s(x) for x in self.m1], "m_1": [s(x) for x in self.m_1],
                "Gamma": [[s(x) for x in r] for r in self.Gamma], "pi_plus": s(self.pi)}

    @property
    def d(self) -> int:
        return len(self.m1)

    @property
    def symmetric(self) -> bool:
        return all(a == -b for a, b in zip(self.m1, self.m_1))

    @property
    def balanced(self) -> bool:
        return self.pi == Fraction(1, 2)

    # float / mp views
    def arrays(self, mp: bool = False):
        """(m1, m_1, Gamma, L, pi, s0) as float64 arrays or object arrays of mpf (current dps)."""
        if mp:
            m1 = np.array([to_mpf(x) for x in self.m1], dtype=object)
            m_1 = np.array([to_mpf(x) for x in self.m_1], dtype=object)
            G = np.array([[to_mpf(x) for x in r] for r in self.Gamma], dtype=object)
            Lm = mpm.cholesky(mpm.matrix(G.tolist()))
            L = np.array([[Lm[i, j] for j in range(self.d)] for i in range(self.d)], dtype=object)
            pi = to_mpf(self.pi)
            return m1, m_1, G, L, pi, mpm.log(pi / (1 - pi))
        m1 = np.array([float(x) for x in self.m1])
        m_1 = np.array([float(x) for x in self.m_1])
        G = np.array([[float(x) for x in r] for r in self.Gamma])
        pi = float(self.pi)
        return m1, m_1, G, np.linalg.cholesky(G), pi, float(np.log(pi / (1 - pi)))

    def bayes(self, mp: bool = False):
        """(w*, b*) of eq. (5), lambdified from :func:`theory.lda.bayes_coefficients` (the form that
        ``prop-b.2`` proves equal to the log-odds of the class densities)."""
        m1, m_1, G, L, pi, s0 = self.arrays(mp)
        if mp:
            Gi = mpm.inverse(mpm.matrix(G.tolist()))
            Gi = np.array([[Gi[i, j] for j in range(self.d)] for i in range(self.d)], dtype=object)
        else:
            Gi = np.linalg.inv(G)
        f, names = _bayes_compiled(self.d, "mpmath" if mp else "numpy")
        vals = {names["pi"]: pi}
        for i in range(self.d):
            vals[names["m1"][i]] = m1[i]
            vals[names["m_1"][i]] = m_1[i]
            for j in range(self.d):
                vals[names["P"][i][j]] = Gi[i, j]
        out = f(vals)
        w = np.array(out[:self.d], dtype=object if mp else float)
        return w, out[self.d]


@memoised("lda.bayes_compiled")
def _bayes_compiled(d: int, backend: str):
    import sympy as sp

    from softmix.theory.lda import bayes_coefficients

    from .lambdify import compile_expr

    m1 = sp.Matrix(sp.symbols(f"bm1_1:{d + 1}", real=True))
    m_1 = sp.Matrix(sp.symbols(f"bm_1_1:{d + 1}", real=True))
    P = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"bP_{i + 1}_{j + 1}", real=True))
    pi = sp.Symbol("bpi", positive=True)
    w, b = bayes_coefficients(m1, m_1, P, pi)
    args = list(m1) + list(m_1) + list(P) + [pi]
    f = compile_expr(list(w) + [b], args, backend)
    names = {"m1": [s.name for s in m1], "m_1": [s.name for s in m_1], "pi": pi.name,
             "P": [[P[i, j].name for j in range(d)] for i in range(d)]}
    return f, names


def _bad(msg):
    raise InputError(msg)


# ---- parameter maps ---------------------------------------------------------------------------
def theta_size(d):
    return d * d + 2 * d + 1


def unpack_theta(theta, d):
    theta = np.asarray(theta)
    return theta[:d * d].reshape(d, d), theta[d * d:d * d + d], theta[d * d + d:d * d + 2 * d], theta[-1]


def pack_theta(U11, u12, v21, v22):
    return np.concatenate([np.asarray(U11).ravel(), np.asarray(u12).ravel(), np.asarray(v21).ravel(),
                           np.asarray([v22], dtype=np.asarray(U11).dtype)])


def phi(prob: LDAProblem, theta, mp: bool = False):
    """zeta = Phi(theta) (eq. (7))."""
    d = prob.d
    m1, m_1, G, L, pi, s0 = prob.arrays(mp)
    U, u, v, v22 = unpack_theta(theta, d)
    dm = m1 - m_1
    w = U @ (G @ v)
    b = v @ m_1 - v22
    r = v @ dm + 2 * v22
    s = 2 * u + U @ dm
    return np.concatenate([w, [b, r], s])


def dphi(prob: LDAProblem, theta, mp: bool = False):
    """Jacobian of Phi, shape (2d+2, d^2+2d+1) (Lemma B.14)."""
    d = prob.d
    m1, m_1, G, L, pi, s0 = prob.arrays(mp)
    U, u, v, v22 = unpack_theta(theta, d)
    dm = m1 - m_1
    J = np.zeros((2 * d + 2, theta_size(d)), dtype=object if mp else float)
    Gv = G @ v
    iu, iv = d * d, d * d + d
    for i in range(d):
        for k in range(d):
            J[i, i * d + k] = Gv[k]
            J[d + 2 + i, i * d + k] = dm[k]
        J[d + 2 + i, iu + i] = 2
    J[:d, iv:iv + d] = U @ G
    J[d, iv:iv + d] = m_1
    J[d, -1] = -1
    J[d + 1, iv:iv + d] = dm
    J[d + 1, -1] = 2
    return J


# ---- backends ------------------------------------------------------------------------------------
_mp_exp = np.frompyfunc(lambda t: mpm.exp(t), 1, 1)
_mp_log1p = np.frompyfunc(lambda t: mpm.log1p(t), 1, 1)


def _sig(t, mp):
    if mp:
        return 1 / (1 + _mp_exp(-t))
    return expit(t)


def _softplus(t, mp):
    if mp:
        f = np.frompyfunc(lambda x: (x + mpm.log1p(mpm.exp(-x))) if x > 0 else mpm.log1p(mpm.exp(x)), 1, 1)
        return f(t)
    return np.logaddexp(0.0, t)


@memoised("lda.float_rule")
def _float_rule(n):
    x, w = np.polynomial.hermite.hermgauss(n)
    return x * np.sqrt(2.0), w / np.sqrt(np.pi)


def _rule(n, k, mp, dps):
    """Tensor rule for E f(N(0, I_k)): nodes (k, N), weights (N,)."""
    if mp:
        x, w = normal_rule(n, dps)
        x = np.array(x, dtype=object)
        w = np.array(w, dtype=object)
    else:
        x, w = _float_rule(n)
    if k == 0:
        return np.zeros((0, 1), dtype=x.dtype), np.ones(1, dtype=w.dtype) if not mp else np.array([mpm.mpf(1)],
                                                                                                  dtype=object)
    grids = np.meshgrid(*([x] * k), indexing="ij")
    wg = np.meshgrid(*([w] * k), indexing="ij")
    W = wg[0]
    for a in wg[1:]:
        W = W * a
    return np.vstack([g.ravel() for g in grids]), W.ravel()


def _basis(vectors, mp):
    """Orthonormal basis (d, k) of the span of the given vectors (Gram-Schmidt)."""
    Q: list = []
    for a in vectors:
        a = np.array(a, dtype=object if mp else float)
        na = _norm(a, mp)
        if na == 0:
            continue
        for q in Q:
            a = a - q * (q @ a)
        nr = _norm(a, mp)
        tol = (mpm.mpf(10) ** (8 - mpm.mp.dps)) if mp else 1e-11
        if nr > tol * na:
            Q.append(a / nr)
    if not Q:
        return None
    return np.array(Q).T


def _norm(a, mp):
    s = a @ a
    return mpm.sqrt(s) if mp else float(np.sqrt(s))


# ---- effective risk, gradient, Hessian --------------------------------------------------------
def eff_risk(prob: LDAProblem, zeta, order: int = 0, n: int = 48, dps: int | None = None, full_basis: bool = False):
    """(R~(zeta), grad, Hessian) up to ``order`` (0, 1, 2) by projected Gauss-Hermite quadrature.
    ``dps=None``: float64; else mpmath at ``dps`` digits (call inside or outside workdps)."""
    if dps is not None:
        with workdps(dps):
            return _eff(prob, np.array([to_mpf(x) if not isinstance(x, mpm.mpf) else x for x in zeta], dtype=object),
                        order, n, True, dps, full_basis)
    return _eff(prob, np.asarray(zeta, float), order, n, False, None, full_basis)


def _eff(prob, zeta, order, n, mp, dps, full_basis=False):
    d = prob.d
    m1, m_1, G, L, pi, s0 = prob.arrays(mp)
    w, b, r, s = zeta[:d], zeta[d], zeta[d + 1], zeta[d + 2:]
    if full_basis:  # parameter-independent rule (tensor GH in all d directions; small d only)
        Q = np.eye(d, dtype=object if mp else float)
        if mp:
            Q = np.array([[mpm.mpf(int(i == j)) for j in range(d)] for i in range(d)], dtype=object)
    else:
        Q = _basis([L.T @ w, L.T @ s], mp)
    k = 0 if Q is None else Q.shape[1]
    eta_nodes, wts = _rule(n, k, mp, dps)
    LQ: Any = L @ Q if k else None
    Cperp = (G - LQ @ LQ.T) if k else G
    risk = 0
    grad = np.zeros(2 * d + 2, dtype=object if mp else float)
    hess = np.zeros((2 * d + 2, 2 * d + 2), dtype=object if mp else float)
    for c, pc, mc in ((1, pi, m1), (-1, 1 - pi, m_1)):
        X = mc[:, None] + (LQ @ eta_nodes if k else np.zeros((d, 1), dtype=mc.dtype))  # (d, N)
        z = s0 + s @ X
        sz = _sig(z, mp)
        g = w @ X + b + r * sz
        risk = risk + pc * (wts @ _softplus(-c * g, mp))
        if order == 0:
            continue
        l1 = -c * _sig(-c * g, mp)
        s1 = sz * (1 - sz)
        N = X.shape[1]
        one = np.ones(N, dtype=X.dtype)
        # grad g at the nodes: rows (2d+2, N)
        Dg = np.vstack([X, one[None, :], sz[None, :], (r * s1)[None, :] * X])
        grad = grad + pc * (Dg @ (wts * l1))
        if order < 2:
            continue
        l2 = _sig(g, mp) * _sig(-g, mp)
        hess = hess + pc * ((Dg * (wts * l2)) @ Dg.T)
        # orthogonal-complement corrections for the X X^T blocks
        cw = wts @ l2
        cws = wts @ (l2 * r * s1)
        css = wts @ (l2 * (r * s1) ** 2)
        s2 = s1 * (1 - 2 * sz)
        css2 = wts @ (l1 * r * s2)
        iw, is_ = slice(0, d), slice(d + 2, 2 * d + 2)
        hess[iw, iw] = hess[iw, iw] + pc * cw * Cperp
        hess[iw, is_] = hess[iw, is_] + pc * cws * Cperp
        hess[is_, iw] = hess[is_, iw] + pc * cws * Cperp
        hess[is_, is_] = hess[is_, is_] + pc * (css + css2) * Cperp
        # l' * grad^2 g: (r, s) block sigma'(z) X, (s, s) block r sigma''(z) X X^T
        rs = X @ (wts * l1 * s1)
        hess[d + 1, is_] = hess[d + 1, is_] + pc * rs
        hess[is_, d + 1] = hess[is_, d + 1] + pc * rs
        hess[is_, is_] = hess[is_, is_] + pc * ((X * (wts * l1 * r * s2)) @ X.T)
    return risk, (grad if order >= 1 else None), (hess if order >= 2 else None)


def _second_order_phi(prob, gw, mp):
    """Hessian of theta -> <gw, w(theta)> (w = U11 Gamma v21 is bilinear)."""
    d = prob.d
    G = prob.arrays(mp)[2]
    H = np.zeros((theta_size(d), theta_size(d)), dtype=object if mp else float)
    iv = d * d + d
    for i in range(d):
        for k in range(d):
            for l in range(d):
                H[i * d + k, iv + l] = gw[i] * G[k, l]
                H[iv + l, i * d + k] = gw[i] * G[k, l]
    return H


def risk_theta(prob, theta, n=48, dps=None, full_basis=False):
    with workdps(dps or 15):
        return eff_risk(prob, phi(prob, _cast(theta, dps), dps is not None), 0, n, dps, full_basis)[0]


def grad_theta(prob, theta, n=48, dps=None, full_basis=False):
    """(R(theta), grad R(theta)) = DPhi^T grad R~ (Lemma B.15)."""
    mp = dps is not None
    with workdps(dps or 15):
        th = _cast(theta, dps)
        R, g, _ = eff_risk(prob, phi(prob, th, mp), 1, n, dps, full_basis)
        return R, dphi(prob, th, mp).T @ g


def hess_theta(prob, theta, n=48, dps=None, full_basis=False):
    """(R, grad, Hessian) in attention coordinates: J^T H~ J + sum_k dR~_k grad^2 Phi_k."""
    mp = dps is not None
    with workdps(dps or 15):
        th = _cast(theta, dps)
        R, g, H = eff_risk(prob, phi(prob, th, mp), 2, n, dps, full_basis)
        J = dphi(prob, th, mp)
        return R, J.T @ g, J.T @ H @ J + _second_order_phi(prob, g[:prob.d], mp)


def _cast(theta, dps):
    if dps is None:
        return np.asarray(theta, float)
    return np.array([x if isinstance(x, mpm.mpf) else to_mpf(x) if isinstance(x, (Fraction, str, int)) else mpm.mpf(x)
                     for x in theta], dtype=object)


def bayes_zeta(prob, mp=False, s=None):
    w, b = prob.bayes(mp)
    d = prob.d
    zero = mpm.mpf(0) if mp else 0.0
    s = np.array([zero] * d, dtype=object if mp else float) if s is None else s
    return np.concatenate([w, [b, zero], s])


def bayes_risk(prob, n=160, dps=40):
    """R* = R~(w*, b*, 0, 0) by 1-D Gauss-Hermite (the Bayes score depends on w*^T X only), with
    the difference to a 1.5x larger rule as error estimate.  Returns (value, error) as mpf."""
    with workdps(dps):
        z = bayes_zeta(prob, mp=True)
        a = eff_risk(prob, z, 0, n, dps)[0]
        n2 = int(1.5 * n) + 2
        b_ = eff_risk(prob, z, 0, n2, dps)[0]
        return b_, abs(b_ - a)


# ---- distances to the Bayes sets --------------------------------------------------------------
def dist_E1(prob, zeta):
    d = prob.d
    w, b = prob.bayes()
    return float(np.sqrt(np.sum((zeta[:d] - w) ** 2) + (zeta[d] - b) ** 2 + zeta[d + 1] ** 2))


def dist_E2(prob, zeta):
    """Euclidean distance to the line E2 = {(w*, b* - r sigma(s0), r, 0)}."""
    d = prob.d
    w, b = prob.bayes()
    s0 = prob.arrays()[5]
    sg = float(expit(s0))
    # minimise over r: (b - b* + r sg)^2 + (r_zeta - r)^2
    bz, rz = zeta[d], zeta[d + 1]
    rr = (rz - sg * (bz - b)) / (1 + sg ** 2)
    return float(np.sqrt(np.sum((zeta[:d] - w) ** 2) + (bz - b + rr * sg) ** 2 + (rz - rr) ** 2
                         + np.sum(zeta[d + 2:] ** 2)))


# ---- constructions ----------------------------------------------------------------------------
def construct_theta1(prob, u12=None):
    """A point of Theta1 (r = 0) with s != 0 generically (reconstruction of Table 3, row 1):
    v21 = (2 b*) e1 ... solved so that w = w*, b = b*, r = 0.  Requires b* != 0 and
    (Gamma v21) with non-zero first entry; U11 columns beyond the first are the identity."""
    d = prob.d
    m1, m_1, G, L, pi, s0 = prob.arrays()
    w, b = prob.bayes()
    dm = m1 - m_1
    # choose v21 with v21^T m_1 - v22 = b*, v21^T dm + 2 v22 = 0  =>  v21^T (m_1 + dm/2) = b*
    a = m_1 + dm / 2
    if abs(b) > 1e-12 and np.linalg.norm(a) > 0:
        v = b * a / (a @ a)
    else:
        # b* = 0: v21 orthogonal to a, non-zero
        e = np.zeros(d)
        e[int(np.argmin(np.abs(a)))] = 1.0
        v = e - (a @ e) / max(a @ a, 1e-300) * a if np.linalg.norm(a) > 0 else e
    v22 = -(v @ dm) / 2
    gv = G @ v
    U = np.eye(d) - np.outer(np.eye(d) @ gv, gv) / (gv @ gv) + np.outer(w, gv) / (gv @ gv)
    u = np.ones(d) if u12 is None else np.asarray(u12, float)
    return pack_theta(U, u, v, v22)


def construct_theta2(prob):
    """Lemma B.3 case 1 (U11 = I, u12 = -dm/2, v21 = Gamma^{-1} w*, v22 from b*): s = 0, a point
    of Theta2 with r != 0 (Table 3, row 2).  Requires pi_+ != 1/2."""
    d = prob.d
    m1, m_1, G, L, pi, s0 = prob.arrays()
    w, b = prob.bayes()
    dm = m1 - m_1
    v = np.linalg.solve(G, w)
    mbar = (1 - pi) * m_1 + pi * m1
    v22 = (b - v @ mbar) / (2 * pi - 1)
    return pack_theta(np.eye(d), -dm / 2, v, v22)


# ---- dynamics ---------------------------------------------------------------------------------
def gradient_descent(prob, theta0, step, steps, n=40, record_every=1):
    """Population GD on R(theta) (float64 GH).  Returns list of (k, theta, R)."""
    th = np.array(theta0, float)
    out = []
    for k in range(steps + 1):
        R, g = grad_theta(prob, th, n)
        if k % record_every == 0 or k == steps:
            out.append((k, th.copy(), float(R)))
        th = th - step * g
    return out


def rk4(f, th0, T, h, dps=None, record_every=1):
    """Classical RK4 for theta' = f(theta); float64, or mpmath object arrays at ``dps`` (the start
    point and the step are converted inside the precision context)."""
    steps = int(round(float(T) / float(h)))
    with workdps(dps or 15):
        th = _cast(th0, dps)
        hh = mpm.mpf(h) if dps is not None else float(h)
        out = [(0.0, th.copy())]
        for k in range(1, steps + 1):
            k1 = f(th)
            k2 = f(th + hh / 2 * k1)
            k3 = f(th + hh / 2 * k2)
            k4 = f(th + hh * k3)
            th = th + hh / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            if k % record_every == 0 or k == steps:
                out.append((k * float(h), th.copy()))
    return out


def sample(prob, rng, N):
    m1, m_1, G, L, pi, s0 = prob.arrays()
    y = np.where(rng.random(N) < pi, 1.0, -1.0)
    X = np.where(y[:, None] > 0, m1, m_1) + rng.standard_normal((N, prob.d)) @ L.T
    return X, y


def f_theta_batch(prob, theta, X):
    zeta = phi(prob, theta)
    d = prob.d
    s0 = prob.arrays()[5]
    return X @ zeta[:d] + zeta[d] + zeta[d + 1] * expit(s0 + X @ zeta[d + 2:])


def sgd_attention(prob, theta0, step, steps, batch, rng, eval_every, n=32):
    """Online SGD on the logistic loss of f_theta (the infinite-prompt attention predictor) with
    fresh samples each step; population risk by GH every ``eval_every`` steps.  The reference
    implementation (the dense Jacobian DPhi of Lemma B.14 applied to the effective batch gradient):
    fig-5 decides numerics.lda_dynamics.sgd_fast against it step by step on the same stream."""
    th = np.array(theta0, float)
    d = prob.d
    s0 = prob.arrays()[5]
    curve = []
    for k in range(steps + 1):
        if k % eval_every == 0 or k == steps:
            curve.append((k, float(risk_theta(prob, th, n))))
        if k == steps:
            break
        X, y = sample(prob, rng, batch)
        zeta = phi(prob, th)
        w, b, r, s = zeta[:d], zeta[d], zeta[d + 1], zeta[d + 2:]
        sz = expit(s0 + X @ s)
        g = X @ w + b + r * sz
        l1 = -y * expit(-y * g)  # d loss / d g
        Dg = np.hstack([X, np.ones((batch, 1)), sz[:, None], (r * sz * (1 - sz))[:, None] * X])
        ge = Dg.T @ l1 / batch
        th = th - step * (dphi(prob, th).T @ ge)
    return th, curve

