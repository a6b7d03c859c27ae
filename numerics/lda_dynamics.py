"""Section 3.3 dynamics helpers (Thm 3.6, Lemmas B.34/B.37, Prop. B.35, Figs. 1, 4, 5).

Builds on numerics.lda (projected Gauss-Hermite population risk, Phi, constructions).  Adds:
the Krylov space K = span{m, Gamma m, ...} (exact, SymPy rationals) and its projector, the
decomposition of an attention parameter into its T_K and out-of-T_K parts, a generic RK4 for
float64 / mpmath object arrays with a pluggable vector field, a DPhi^T application without the
dense Jacobian (cheap in d = 20, mpmath included), a vectorised online SGD on the infinite-prompt
predictor f_theta, and a least-squares exponential-rate fit with a confidence interval.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath as mpm
import numpy as np
import sympy as sp
from scipy import stats
from scipy.special import expit

from . import lda as N
from .precision import to_mpf, workdps

__all__ = ["sym_vec", "sym_mat", "krylov_matrix", "krylov_projector", "projector_numeric", "tk_parts",
           "random_tk_point", "balance", "factor_mass", "dphi_T_apply", "grad_theta_fast", "rk4",
           "sgd_fast", "fit_exp_rate", "cayley_orthogonal"]


# ---- exact Krylov space ---------------------------------------------------------------------------
def _rat(x):
    x = Fraction(x) if not isinstance(x, Fraction) else x
    return sp.Rational(x.numerator, x.denominator)


def sym_vec(v):
    return sp.Matrix([_rat(x) for x in v])


def sym_mat(G):
    return sp.Matrix([[_rat(x) for x in r] for r in G])


def krylov_matrix(G: sp.Matrix, m: sp.Matrix) -> sp.Matrix:
    """[m, G m, ..., G^{d-1} m] (exact)."""
    cols, v = [], m
    for _ in range(G.shape[0]):
        cols.append(v)
        v = G * v
    return sp.Matrix.hstack(*cols)


def krylov_projector(G: sp.Matrix, m: sp.Matrix):
    """(P_K exact rational orthogonal projector, dim K); m != 0 (so dim K >= 1: in the LDA setting
    m = m1 = -m_-1 and m1 != m_-1)."""
    B = sp.Matrix.hstack(*krylov_matrix(G, m).columnspace())
    return B * (B.T * B).inv() * B.T, B.shape[1]


def projector_numeric(P: sp.Matrix, dps=None):
    d = P.shape[0]
    if dps is None:
        return np.array([[float(P[i, j]) for j in range(d)] for i in range(d)])
    with workdps(dps):
        return np.array([[to_mpf(Fraction(int(sp.fraction(P[i, j])[0]), int(sp.fraction(P[i, j])[1])))
                          for j in range(d)] for i in range(d)], dtype=object)


def _nrm2(a):
    a = np.asarray(a).ravel()
    return a @ a


def tk_parts(theta, d, PK):
    """Squared norms of the out-of-T_K components of an attention parameter (or of a gradient):
    u12, v22, P_K v21, U11 P_K.  Works for float and mpf object arrays."""
    U, u, v, v22 = N.unpack_theta(theta, d)
    parts = {"u12": _nrm2(u), "v22": v22 * v22, "PK_v21": _nrm2(PK @ v), "U11_PK": _nrm2(U @ PK)}
    tot = sum(parts.values())
    return parts, (mpm.sqrt(tot) if isinstance(tot, mpm.mpf) else float(np.sqrt(tot)))


def random_tk_point(rng, PKsym: sp.Matrix, d: int, u_scale=(1, 4), v_den=2):
    """Exact rational point of T_K: U11 = A (I - P_K), v21 = (I - P_K) z, u12 = 0, v22 = 0.
    Returns the flat theta as a list of sympy Rationals."""
    Q = sp.eye(d) - PKsym
    A = sp.Matrix(d, d, lambda i, j: sp.Rational(int(rng.integers(-4, 5)), int(rng.integers(*u_scale)) + 3))
    z = sp.Matrix([sp.Rational(int(rng.integers(-6, 7)), v_den) for _ in range(d)])
    U = A * Q
    v = Q * z
    return list(U) + [0] * d + list(v) + [0]


def to_theta(vals, dps=None):
    if dps is None:
        return np.array([float(x) for x in vals])
    with workdps(dps):
        out = []
        for x in vals:
            x = sp.Rational(x)
            out.append(mpm.mpf(int(x.p)) / int(x.q))
        return np.array(out, dtype=object)


def balance(theta, d):
    U, u, v, v22 = N.unpack_theta(theta, d)
    return _nrm2(U) - _nrm2(v)


def factor_mass(theta, d):
    U, u, v, v22 = N.unpack_theta(theta, d)
    return _nrm2(U) + _nrm2(v)


# ---- gradients --------------------------------------------------------------------------------------
def dphi_T_apply(prob, theta, ge, mp=False):
    """DPhi(theta)^T ge without forming the Jacobian (Lemma B.14 transposed)."""
    d = prob.d
    m1, m_1, G, L, pi, s0 = prob.arrays(mp)
    U, u, v, v22 = N.unpack_theta(theta, d)
    dm = m1 - m_1
    gw, gb, gr, gs = ge[:d], ge[d], ge[d + 1], ge[d + 2:]
    dU = np.outer(gw, G @ v) + np.outer(gs, dm)
    du = 2 * gs
    dv = G @ (U.T @ gw) + m_1 * gb + dm * gr
    dv22 = -gb + 2 * gr
    return N.pack_theta(dU, du, dv, dv22) if not mp else np.concatenate(
        [dU.ravel(), du, dv, np.array([dv22], dtype=object)])


def grad_theta_fast(prob, theta, n=40, dps=None):
    """(R, grad R) as numerics.lda.grad_theta, with DPhi^T applied directly (O(d^2))."""
    mp = dps is not None
    with workdps(dps or 15):
        th = N._cast(theta, dps)
        R, g, _ = N.eff_risk(prob, N.phi(prob, th, mp), 1, n, dps)
        return R, dphi_T_apply(prob, th, g, mp)


rk4 = N.rk4  # one RK4 integrator for Section 3 (numerics.lda.rk4)


# ---- SGD ----------------------------------------------------------------------------------------------
def sgd_fast(prob, theta0, step, steps, batch, rng, eval_every, n=24):
    """Online SGD on the logistic loss of f_theta(x) = w^T x + b + r sigma(s0 + s^T x) (the
    infinite-prompt attention layer), fresh (X, Y) each step; population risk by projected GH at
    every ``eval_every`` steps.  Same algorithm (and sampling) as numerics.lda.sgd_attention,
    vectorised with the problem arrays computed once (fig-5 decides the two equal on the same stream,
    and the first step against central differences of the batch loss)."""
    th = np.array(theta0, float)
    d = prob.d
    m1, m_1, G, L, pi, s0 = prob.arrays()
    dm = m1 - m_1
    iu, iv = d * d, d * d + d
    curve = []
    for k in range(steps + 1):
        if k % eval_every == 0 or k == steps:
            curve.append((k, float(N.risk_theta(prob, th, n))))
        if k == steps:
            break
        y = np.where(rng.random(batch) < pi, 1.0, -1.0)
        X = np.where(y[:, None] > 0, m1, m_1) + rng.standard_normal((batch, d)) @ L.T
        U, u, v, v22 = th[:iu].reshape(d, d), th[iu:iv], th[iv:iv + d], th[-1]
        Gv = G @ v
        w, b, r, s = U @ Gv, v @ m_1 - v22, v @ dm + 2 * v22, 2 * u + U @ dm
        sz = expit(s0 + X @ s)
        g = X @ w + b + r * sz
        l1 = -y * expit(-y * g)
        gw, gb, gr = X.T @ l1 / batch, l1.sum() / batch, (sz * l1).sum() / batch
        gs = X.T @ (l1 * r * sz * (1 - sz)) / batch
        grad = np.concatenate([(np.outer(gw, Gv) + np.outer(gs, dm)).ravel(), 2 * gs,
                               G @ (U.T @ gw) + m_1 * gb + dm * gr, [-gb + 2 * gr]])
        th = th - step * grad
    return th, curve


# ---- rates ---------------------------------------------------------------------------------------------
def fit_exp_rate(t, y, alpha=1e-3):
    """Least squares log y = a - rate t.  Returns rate, its standard error, the two-sided
    (1 - alpha) t-interval and R^2 (y > 0 entries only)."""
    t, y = np.asarray(t, float), np.asarray(y, float)
    m = y > 0
    t, ly = t[m], np.log(y[m])
    n = len(t)
    if n < 3:
        return {"rate": None, "se": None, "ci": None, "r2": None, "points": n}
    A = np.vstack([t, np.ones(n)]).T
    coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
    res = ly - A @ coef
    s2 = float(res @ res) / (n - 2)
    cov = s2 * np.linalg.inv(A.T @ A)
    se = float(np.sqrt(cov[0, 0]))
    q = float(stats.t.isf(alpha / 2, n - 2))
    rate = -float(coef[0])
    tot = float(((ly - ly.mean()) ** 2).sum())
    return {"rate": rate, "se": se, "ci": [rate - q * se, rate + q * se],
            "r2": (1 - float(res @ res) / tot) if tot > 0 else 0.0, "points": n}


def cayley_orthogonal(A: sp.Matrix) -> sp.Matrix:
    """Rational orthogonal Q = (I - A)(I + A)^{-1} for skew-symmetric rational A."""
    I = sp.eye(A.shape[0])
    return (I - A) * (I + A).inv()
