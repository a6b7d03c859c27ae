"""Section 3.2 / App. B.3, B.5, B.8, B.9 numerics: landscape of the attention-LDA risk.

Helpers for the landscape claims (softmix.checks.paper.lda_landscape), built on numerics.lda:

* square-loss risk of the effective predictor against a target (Remark B.5);
* the restricted risk on {v21 = 0} and the completion of its critical points to critical points
  of R (Lemmas B.16, B.22);
* the escaping sequence zeta_R of Prop. 3.4: L1 distance (1-D adaptive quadrature) and risk gap
  (2-D Gauss-Hermite with cancellation-free integrands);
* an exact-in-mpmath point of Theta2 (constant gate, r != 0) and the E2 / E_flat bases (B.30/B.31);
* the reduced linear risk L(w) of Lemma B.32 by adaptive mpmath quadrature.
"""
from __future__ import annotations

import math
import warnings

import mpmath as mpm
import numpy as np
from scipy import integrate, optimize
from scipy.special import expit

from . import lda as N
from .precision import exact_inputs, to_mpf, workdps

__all__ = ["square_risk", "rstar_relation", "v21zero_map", "restricted_risk", "complete_v21zero_critical",
           "escaping_zeta", "escape_delta", "escape_gap", "escape_l1", "theta2_mp", "e2_flat_basis",
           "linear_risk_mp", "coercivity_c0", "newton_polish"]


# ---- generic projected tensor Gauss-Hermite (float64) -------------------------------------------
def _nodes(prob, dirs, n, full=None):
    """Per class: (pc, c, X (d, N), weights (N,)) for a float tensor GH rule on span{L^T dirs}
    (or on all of R^d when ``full`` / d <= 2)."""
    m1, m_1, G, L, pi, s0 = prob.arrays()
    d = prob.d
    full = d <= 2 if full is None else full
    Q = np.eye(d) if full else N._basis([L.T @ a for a in dirs], False)
    k = 0 if Q is None else Q.shape[1]
    eta, wts = N._rule(n, k, False, None)
    out = []
    for c, pc, mc in ((1, pi, m1), (-1, 1 - pi, m_1)):
        X = mc[:, None] + ((L @ Q) @ eta if k else np.zeros((d, 1)))
        out.append((pc, c, X, wts))
    return out, s0


# ---- Remark B.5: square loss --------------------------------------------------------------------
def square_risk(prob, zeta, target: str = "2eta-1", n: int = 32, grad: bool = True):
    """(E[(g_zeta(X) - t(X))^2], gradient) with t = 2 eta - 1 (``'2eta-1'``) or t = f* (``'logit'``)."""
    d = prob.d
    zeta = np.asarray(zeta, float)
    w, b, r, s = zeta[:d], zeta[d], zeta[d + 1], zeta[d + 2:]
    ws, bs = prob.bayes()
    cls, s0 = _nodes(prob, [w, s, ws], n)
    val, g = 0.0, np.zeros(2 * d + 2)
    for pc, _c, X, wts in cls:
        fs = ws @ X + bs
        t = 2 * expit(fs) - 1 if target == "2eta-1" else fs
        sz = expit(s0 + s @ X)
        e = w @ X + b + r * sz - t
        val += pc * (wts @ e ** 2)
        if grad:
            Dg = np.vstack([X, np.ones_like(sz)[None, :], sz[None, :], (r * sz * (1 - sz))[None, :] * X])
            g += pc * 2 * (Dg @ (wts * e))
    return val, g


def rstar_relation(prob):
    """q = m1^T Gamma^-1 m1 - m_-1^T Gamma^-1 m_-1 as an exact Fraction (b* = s0 - q/2)."""
    from fractions import Fraction

    import sympy as sp
    G = sp.Matrix([[sp.Rational(x.numerator, x.denominator) for x in r] for r in prob.Gamma])
    a = sp.Matrix([sp.Rational(x.numerator, x.denominator) for x in prob.m1])
    c = sp.Matrix([sp.Rational(x.numerator, x.denominator) for x in prob.m_1])
    Gi = G.inv()
    q = sp.nsimplify((a.T * Gi * a)[0, 0] - (c.T * Gi * c)[0, 0])
    return Fraction(int(q.p), int(q.q))


# ---- Thm 3.3: the singular set {v21 = 0} ---------------------------------------------------------
def v21zero_map(d):
    """A (2d+2, d+1): zeta = A (v22, s) on {v21 = 0} (w = 0, b = -v22, r = 2 v22)."""
    A = np.zeros((2 * d + 2, d + 1))
    A[d, 0], A[d + 1, 0] = -1.0, 2.0
    A[d + 2:, 1:] = np.eye(d)
    return A


def restricted_risk(prob, y, order=1, n=32):
    """F(v22, s) = R~(0, -v22, 2 v22, s) with gradient (and Hessian) by the chain rule."""
    A = v21zero_map(prob.d)
    R, g, H = N.eff_risk(prob, A @ np.asarray(y, float), order, n, None, prob.d <= 2)
    return R, (A.T @ g if g is not None else None), (A.T @ H @ A if H is not None else None)


def complete_v21zero_critical(prob, y, n=32):
    """theta_sp with v21 = 0, v22 = y[0], s(theta) = y[1:], and U11 chosen so that the v21-block of
    grad R vanishes (Lemma B.16: requires grad_w R~ != 0).  Returns (theta, grad_w R~, grad R~)."""
    d = prob.d
    m1, m_1, G, L, pi, s0 = prob.arrays()
    dm = m1 - m_1
    A = v21zero_map(d)
    z = A @ np.asarray(y, float)
    _, g, _ = N.eff_risk(prob, z, 1, n, None, d <= 2)
    gw, gb, gr = g[:d], g[d], g[d + 1]
    a = -np.linalg.solve(G, m_1 * gb + dm * gr)  # want U11^T gw = a
    U = np.outer(gw, a) / (gw @ gw)
    u12 = (z[d + 2:] - U @ dm) / 2
    return N.pack_theta(U, u12, np.zeros(d), float(y[0])), gw, g


def newton_polish(fun_g_h, x, steps=30, gtol=1e-14, rcond=1e-12):
    """Least-squares Newton steps x <- x - pinv(H) g (works at degenerate minima)."""
    x = np.array(x, float)
    g = fun_g_h(x)[0]
    for _ in range(steps):
        if np.linalg.norm(g) <= gtol:
            break
        g, H = fun_g_h(x)
        dx = np.linalg.lstsq(H, -g, rcond=rcond)[0]
        xn = x + dx
        gn = fun_g_h(xn)[0]
        if np.linalg.norm(gn) >= np.linalg.norm(g):
            xn = x + dx / 2
            gn = fun_g_h(xn)[0]
            if np.linalg.norm(gn) >= np.linalg.norm(g):
                break
        x, g = xn, gn
    return x, float(np.linalg.norm(g))


# ---- Prop. 3.4: escaping sequences --------------------------------------------------------------
def escaping_zeta(prob, c, R, corrected=True):
    ws, bs = prob.bayes()
    s0 = prob.arrays()[5]
    p = expit(s0)
    c = np.asarray(c, float)
    w = ws - (p * (1 - p) * c if corrected else 0.0)
    return np.concatenate([w, [bs - p * R, R], c / R])


def escape_delta(u, R, s0, corrected=True):
    """g_{zeta_R}(x) - f*(x) as a function of u = c^T x, without cancellation:
    R [sigma(s0 + u/R) - sigma(s0)] - sigma'(s0) u, using sigma(a+v) - sigma(a) = -expm1(-v) sigma(a+v)(1-sigma(a))."""
    u = np.asarray(u, float)
    p = expit(s0)
    v = u / R
    D = -np.expm1(-v) * expit(s0 + v) * (1 - p)
    if not corrected:
        return R * D
    return R * (D - p * (1 - p) * v)


def escape_gap(prob, c, R, n=48, corrected=True):
    """R~(zeta_R) - R* = E[log1p(sigma(-Y f*) expm1(-Y delta))] (cancellation-free), 2-D GH on
    span{L^T w*, L^T c}."""
    ws, bs = prob.bayes()
    c = np.asarray(c, float)
    cls, s0 = _nodes(prob, [ws, c], n, full=False)
    tot = 0.0
    for pc, y, X, wts in cls:
        fs = ws @ X + bs
        dl = escape_delta(c @ X, R, s0, corrected)
        tot += pc * (wts @ np.log1p(expit(-y * fs) * np.expm1(-y * dl)))
    return float(tot)


def escape_l1(prob, c, R, corrected=True):
    """||g_{zeta_R} - f*||_{L1(mu_X)} = sum_c pi_c E|delta(c^T X)|, c^T X | class ~ N(c^T m_c, c^T Gamma c):
    adaptive quadrature split at the sign changes of delta.  Returns (value, error estimate)."""
    m1, m_1, G, L, pi, s0 = prob.arrays()
    c = np.asarray(c, float)
    sd = math.sqrt(c @ G @ c)
    p = expit(s0)
    # non-zero root v1 of sigma(s0 + v) - sigma(s0) - sigma'(s0) v (tangent crosses the sigmoid)
    pts = [0.0]
    if corrected and abs(s0) > 1e-14:
        f = lambda v: -math.expm1(-v) * expit(s0 + v) * (1 - p) - p * (1 - p) * v
        lo, hi = (-40.0, -1e-6) if s0 > 0 else (1e-6, 40.0)
        try:
            pts.append(R * optimize.brentq(f, lo, hi, xtol=1e-15))
        except ValueError:
            pass
    tot, err = 0.0, 0.0
    for pc, mc in ((pi, m1), (1 - pi, m_1)):
        mu = float(c @ mc)
        dens = lambda u: math.exp(-0.5 * ((u - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
        h = lambda u: abs(float(escape_delta(u, R, s0, corrected))) * dens(u)
        # finite panels around the class bulk (mu +- 12 sd) split at the sign changes inside it; infinite tails
        lo_, hi_ = mu - 12 * sd, mu + 12 * sd
        br = sorted(set([lo_, mu, hi_] + [x for x in pts if lo_ < x < hi_]))
        edges = [-np.inf] + br + [np.inf]
        for a, b in zip(edges[:-1], edges[1:]):
            with warnings.catch_warnings():  # roundoff warnings in the negligible tails; error returned anyway
                warnings.simplefilter("ignore", integrate.IntegrationWarning)
                v, e = integrate.quad(h, a, b, epsabs=0, epsrel=1e-12, limit=200)
            tot += pc * v
            err += pc * e
    return tot, err


# ---- Prop. B.30 / Cor. B.31 -----------------------------------------------------------------------
@exact_inputs("r_target")
def theta2_mp(prob, r_target=None, dps=30):
    """A point theta* of Theta2 (s = 0, w = w*, b + r sigma(s0) = b*) in mpmath at ``dps``.
    pi != 1/2: Lemma B.3 case 1 (U11 = I, v21 = Gamma^-1 w*, v22 solves the bias equation);
    pi = 1/2 (needs m1 != -m_-1): v21 = b* a/|a|^2 (a = (m1 + m_-1)/2) or a non-zero vector
    orthogonal to a when b* = 0, v22 = (r_target - v21^T dm)/2, U11 = I - (G v21 - w*)(G v21)^T/|G v21|^2."""
    d = prob.d
    with workdps(dps):
        m1, m_1, G, L, pi, s0 = prob.arrays(True)
        ws, bs = prob.bayes(True)
        Gm = mpm.matrix(G.tolist())
        dm = m1 - m_1
        eye = np.array([[mpm.mpf(int(i == j)) for j in range(d)] for i in range(d)], dtype=object)
        if pi != mpm.mpf(1) / 2:
            vm = mpm.lu_solve(Gm, mpm.matrix(list(ws)))
            v = np.array([vm[i] for i in range(d)], dtype=object)
            v22 = (bs - v @ (m_1 + pi * dm)) / (2 * pi - 1)
            U = eye
        else:
            a = (m1 + m_1) / 2
            if all(x == 0 for x in a):
                raise ValueError("m1 = -m_-1 and pi = 1/2: no r != 0 point of Theta2 by this construction")
            if bs != 0:
                v = bs * a / (a @ a)
            else:
                j = int(np.argmin([abs(x) for x in a]))
                e = np.array([mpm.mpf(int(i == j)) for i in range(d)], dtype=object)
                v = e - (a @ e) / (a @ a) * a
            v22 = ((mpm.mpf(1) if r_target is None else to_mpf(r_target)) - v @ dm) / 2
            Gv = G @ v
            U = eye - np.outer(Gv - ws, Gv) / (Gv @ Gv)
        u12 = -(U @ dm) / 2
        return N.pack_theta(U, u12, v, v22)


def e2_flat_basis(prob, r_star, mp=True, flipped=False):
    """Columns: T E2 = (0, -sigma(s0), 1, 0) and E_flat = (-r* sigma'(s0) e_j, 0, 0, e_j), j < d
    (``flipped``: +r* sigma'(s0) e_j)."""
    d = prob.d
    s0 = prob.arrays(mp)[5]
    p = (1 / (1 + mpm.exp(-s0))) if mp else expit(s0)
    sp_ = p * (1 - p)
    z = mpm.mpf(0) if mp else 0.0
    one = mpm.mpf(1) if mp else 1.0
    cols = []
    t = [z] * (2 * d + 2)
    t[d], t[d + 1] = -p, one
    cols.append(t)
    for j in range(d):
        t = [z] * (2 * d + 2)
        t[j] = (1 if flipped else -1) * r_star * sp_
        t[d + 2 + j] = one
        cols.append(t)
    return np.array(cols, dtype=object if mp else float).T


# ---- Lemma B.32 -----------------------------------------------------------------------------------
@exact_inputs("w")
def linear_risk_mp(prob, w, dps=30):
    """L(w) = R~(w, 0, 0, 0) = sum_c pi_c E softplus(-c w^T X), c w^T X | c ~ N(c w^T m_c, w^T Gamma w),
    by mpmath.quad (tanh-sinh) split at the kink of the integrand (one class when m1 = -m_-1, since
    then Y X ~ N(m1, Gamma)).  Returns (value, error estimate)."""
    with workdps(dps):
        m1, m_1, G, L, pi, s0 = prob.arrays(True)
        w = np.array([to_mpf(x) for x in w], dtype=object)
        sd = mpm.sqrt(w @ G @ w)
        classes = [(1, mpm.mpf(1), m1)] if prob.symmetric else [(1, pi, m1), (-1, 1 - pi, m_1)]
        tot, err = mpm.mpf(0), mpm.mpf(0)
        for c, pc, mc in classes:
            mu = c * (w @ mc)
            if sd == 0:
                tot += pc * mpm.log1p(mpm.exp(-mu))
                continue

            def f(t):
                z = mu + sd * t
                return mpm.npdf(t) * (mpm.log1p(mpm.exp(-z)) if z > 0 else -z + mpm.log1p(mpm.exp(z)))
            k = -mu / sd
            v, e = mpm.quad(f, [-mpm.inf, k, mpm.inf], error=True)
            tot += pc * v
            err += pc * e
        return tot, err


def coercivity_c0(M, dps=30):
    """c0 = min_{|t| <= M} g(t), g(t) = t Phi(t) + phi(t); g' = Phi > 0, so c0 = g(-M); a dense
    grid minimum is returned alongside as a cross-check of the monotonicity."""
    with workdps(dps):
        M = to_mpf(M) if not isinstance(M, mpm.mpf) else M
        g = lambda t: t * mpm.ncdf(t) + mpm.npdf(t)
        grid = min(g(-M + 2 * M * mpm.mpf(j) / 400) for j in range(401))
        return g(-M), grid
