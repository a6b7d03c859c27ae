"""Independent references for the attention-LDA landscape (Sec. 3.2, App. B): definitions computed by
a different rule than the production numerics, to decide those numerics against.

* :func:`square_risk_reference` -- E[(g_zeta(X) - t(X))^2] by a full tensor Gauss-Hermite rule
  (numpy.polynomial.hermite_e) with the target from the class densities (scipy), Remark B.5;
* :func:`escape_l1_reference` -- ||g_zeta - f*||_{L1(mu_X)} by mpmath.quad split at the sign changes,
  Prop. 3.4;
* :func:`linear_hessian` / :func:`linear_hessian_reduced` -- E[sigma'(w^T X) X X^T] by a tensor
  Gauss-Hermite rule, and reduced to three 1-D integrals by Gaussian conditioning (scipy quad), Lemma B.33;
* :func:`krylov_dimension` -- the exact dimension of a Krylov space (python-flint rationals), Remark B.36.

Tested in tests/numerics/test_lda_references.py.
"""

from __future__ import annotations

import mpmath as mpm
import numpy as np
from scipy.special import expit

from .precision import workdps

__all__ = [
    "square_risk_reference",
    "escape_l1_reference",
    "linear_hessian",
    "linear_hessian_reduced",
    "krylov_dimension",
]


def _tensor_rule(n, d):
    """Probabilists' Gauss-Hermite nodes (N, d) and weights (N,) of the n^d tensor rule for N(0, I_d)."""
    x, wt = np.polynomial.hermite_e.hermegauss(n)
    wt = wt / wt.sum()
    Xi = np.stack([g.ravel() for g in np.meshgrid(*([x] * d), indexing="ij")], 1)
    W = np.prod(np.stack(np.meshgrid(*([wt] * d), indexing="ij")).reshape(d, -1), 0)
    return Xi, W


def square_risk_reference(P, zeta, target, n):
    """E[(g_zeta(X) - t(X))^2] from its definition, independently of numerics.lda_landscape.square_risk:
    a tensor Gauss-Hermite rule (n nodes per axis) over all d directions of X = m_c + L xi (L L^T = Gamma),
    t = 2 sigma(f*) - 1 (``target="2eta-1"``) or f* (``"logit"``), f* the log-odds of the class densities
    (scipy.stats.multivariate_normal), g_zeta(x) = w^T x + b + r sigma(s0 + s^T x) (eq. (6))."""
    from scipy.stats import multivariate_normal as mvn

    m1, m_1, G, L, pi, s0 = P.arrays()
    d = P.d
    z = np.asarray(zeta, float)
    w, b, r, s = z[:d], z[d], z[d + 1], z[d + 2 :]
    Xi, W = _tensor_rule(n, d)
    tot = 0.0
    for pc, mc in ((pi, m1), (1 - pi, m_1)):
        X = mc + Xi @ L.T
        fs = np.log(pi / (1 - pi)) + np.atleast_1d(mvn(m1, G).logpdf(X) - mvn(m_1, G).logpdf(X))
        t = 2 * expit(fs) - 1 if target == "2eta-1" else fs
        tot += pc * float(W @ (X @ w + b + r * expit(s0 + X @ s) - t) ** 2)
    return tot


def _sign_changes(delta, mu, sd):
    """Zeros of ``delta`` on a grid of mu + sd [-12, 12] (step sd/8), each refined by 80 bisections."""
    grid = [mu + sd * (mpm.mpf(k) / 8 - 12) for k in range(193)]
    cuts = []
    for a, b in zip(grid[:-1], grid[1:]):
        fa, fb = delta(a), delta(b)
        if fa == 0:
            cuts.append(a)
        elif fa * fb < 0:
            for _ in range(80):
                mid = (a + b) / 2
                if delta(mid) * fa > 0:
                    a, fa = mid, delta(mid)
                else:
                    b = mid
            cuts.append((a + b) / 2)
    return cuts


def escape_l1_reference(P, zeta, c, dps=20):
    """||g_zeta - f*||_{L1(mu_X)} from the definition at ``dps`` digits: g_zeta - f* = (w - w*)^T x + (b - b*)
    + r sigma(s0 + s^T x), which depends on x through u = c^T x only when w - w* and s are multiples of c
    (as for the sequence zeta_R of Prop. 3.4): alpha u + beta + r sigma(s0 + kappa u), u | class k ~
    N(c^T m_k, c^T Gamma c).  mpmath.quad (tanh-sinh) split at the sign changes of the integrand.  Returns
    (value, error estimate), or None when zeta is not of that form."""
    m1, m_1, G, _L, pi, s0 = P.arrays()
    d = P.d
    ws, bs = P.bayes()
    z = np.asarray(zeta, float)
    cc = float(c @ c)
    al, ka = float((z[:d] - ws) @ c) / cc, float(z[d + 2 :] @ c) / cc
    if np.max(np.abs(z[:d] - ws - al * c)) > 1e-12 * max(1.0, abs(al)) or np.max(
        np.abs(z[d + 2 :] - ka * c)
    ) > 1e-12 * max(1.0, abs(ka)):
        return None
    with workdps(dps):
        al, ka, be, r, s0m = (
            mpm.mpf(al),
            mpm.mpf(ka),
            mpm.mpf(float(z[d] - bs)),
            mpm.mpf(float(z[d + 1])),
            mpm.mpf(s0),
        )
        delta = lambda u: al * u + be + r / (1 + mpm.exp(-(s0m + ka * u)))
        sd = mpm.sqrt(mpm.mpf(float(c @ G @ c)))
        tot, err = mpm.mpf(0), mpm.mpf(0)
        for pc, mc in ((pi, m1), (1 - pi, m_1)):
            mu = mpm.mpf(float(c @ mc))
            pts = sorted(set([-mpm.inf, mu - 12 * sd] + _sign_changes(delta, mu, sd) + [mu, mu + 12 * sd, mpm.inf]))
            v, e = mpm.quad(lambda u: abs(delta(u)) * mpm.npdf(u, mu, sd), pts, error=True)
            tot += mpm.mpf(float(pc)) * v
            err += mpm.mpf(float(pc)) * e
        return float(tot), float(err)


def linear_hessian(P, w, n):
    """E[sigma'(w^T X) X X^T] by the tensor Gauss-Hermite rule (n nodes per axis) in float64, X ~ LDA."""
    m1, m_1, _G, L, pi, _ = P.arrays()
    Xi, W = _tensor_rule(n, P.d)
    H = np.zeros((P.d, P.d))
    for m, p_ in ((m1, pi), (m_1, 1 - pi)):
        X = m + Xi @ L.T
        sg = expit(X @ w)
        H += p_ * (X * (W * sg * (1 - sg))[:, None]).T @ X
    return H


def _sigma_prime_moments(c, sv):
    """M_j = E[sigma'(c + sv xi) xi^j], j = 0, 1, 2, xi ~ N(0, 1), by scipy quad split at -c/sv; (M, errors)."""
    from scipy import integrate, special

    M, E = [], []
    x0 = -c / sv
    for j in range(3):
        f = lambda x, j=j: (
            special.expit(c + sv * x) * special.expit(-(c + sv * x)) * x**j * np.exp(-x * x / 2) / np.sqrt(2 * np.pi)
        )
        tot, e = 0.0, 0.0
        for lo, hi in ((-np.inf, x0), (x0, np.inf)):
            r, ee = integrate.quad(f, lo, hi, epsabs=1e-15, epsrel=1e-13, limit=400)
            tot, e = tot + r, e + ee
        M.append(tot)
        E.append(e)
    return M, E


def linear_hessian_reduced(P, w):
    """E[sigma'(w^T X) X X^T] reduced to one dimension by Gaussian conditioning, for points where a tensor
    rule cannot resolve the sigma' bump (|w| large).  In component k, X = m_k + L xi; with v = L^T w,
    s = |v|, a = v / s, b = L a: w^T X = c_k + s xi_1 and E[X X^T | xi_1] = (m_k + b xi_1)(m_k + b xi_1)^T
    + L (I - a a^T) L^T, so the expectation is M0 (m m^T + L (I - a a^T) L^T) + M1 (m b^T + b m^T) + M2 b b^T
    with M_j = E[sigma'(c_k + s xi_1) xi_1^j] (scipy quad).  Returns (H, error estimate) (quad's absolute
    errors, plus 100 eps |H| for rounding)."""
    from scipy import special

    m1, m_1, G, L, pi, _ = P.arrays()
    d = P.d
    w = np.asarray(w, float)
    H, err = np.zeros((d, d)), 0.0
    v = L.T @ w
    sv = float(np.linalg.norm(v))
    for m, p_ in ((m1, pi), (m_1, 1 - pi)):
        c = float(w @ m)
        if sv == 0.0:
            H += p_ * special.expit(c) * special.expit(-c) * (np.outer(m, m) + G)
            continue
        a = v / sv
        b = L @ a
        Pperp = L @ (np.eye(d) - np.outer(a, a)) @ L.T
        M, E = _sigma_prime_moments(c, sv)
        H += p_ * (M[0] * (np.outer(m, m) + Pperp) + M[1] * (np.outer(m, b) + np.outer(b, m)) + M[2] * np.outer(b, b))
        err += p_ * (
            E[0] * float(np.abs(np.outer(m, m) + Pperp).max())
            + 2 * E[1] * float(np.abs(np.outer(m, b)).max())
            + E[2] * float(np.abs(np.outer(b, b)).max())
        )
    return H, err + 1e2 * np.finfo(float).eps * float(np.abs(H).max())


def krylov_dimension(G, m):
    """Exact dimension of K = span{m, G m, ..., G^(d-1) m} for SymPy rational G, m (python-flint rational
    matrices) and the first dim K Krylov vectors as a float64 array (columns: a basis of K).

    >>> import sympy as sp
    >>> krylov_dimension(sp.eye(3), sp.Matrix([1, 2, 3]))[0]
    1
    """
    import flint

    d = G.rows
    q = lambda x: flint.fmpq(int(x.p), int(x.q))
    Gf = flint.fmpq_mat(d, d, [q(x) for x in G])
    v = flint.fmpq_mat(d, 1, [q(x) for x in m])
    cols = []
    for _ in range(d):
        cols.append([v[j, 0] for j in range(d)])
        v = Gf * v
    k = flint.fmpq_mat(d, d, [cols[j][i] for i in range(d) for j in range(d)]).rank()
    basis = np.array([[float(int(x.p)) / float(int(x.q)) for x in c] for c in cols[:k]]).T
    return k, basis
