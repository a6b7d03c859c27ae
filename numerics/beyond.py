"""Numerics for the 'beyond' claims (predecessor and neighbouring results).

Exact up to rounding: closed-form constants (float64 or mpmath), Gauss-Hermite quadrature of
the per-query constants (error *estimated* by comparing two rules), the gradient-flow right-hand
sides.  Random: every sampler takes an explicit ``numpy.random.Generator``.

* query-averaged finite-prompt error (Gaussian or mixture tokens, Gaussian queries);
* gradient flow of the in-context-regression risk R(A, b) and finite-prompt training;
* denoising with an atomic clean prompt; linear-attention regression loss (Zhang-Frei-Bartlett).
"""
from __future__ import annotations

import itertools
import math

import mpmath as mpm
import numpy as np

from .attention import log_gates, tilted_moments
from .mixture import GaussianMixture, psd_sqrt
from .precision import exact_inputs, mp_matrix, to_mpf, workdps

__all__ = [
    "sym_sqrt", "threshold_lambda", "gaussian_averaged_constant", "gaussian_averaged_constant_mp",
    "per_query_mse_constants", "averaged_constant", "simulate_query_errors",
    "regression_risk", "regression_grad", "flow_mp", "flow_float", "balanced_init", "stated_limit",
    "regression_finite_prompt_outputs", "train_finite_prompt_regression",
    "posterior_mean", "atomic_prompt_outputs", "zfb_gamma", "zfb_loss_closed_form", "zfb_sample_losses",
]


# ================================================================================================
# query-averaged finite-prompt error
# ================================================================================================
def sym_sqrt(S):
    w, Q = np.linalg.eigh(np.asarray(S, float))
    return (Q * np.sqrt(np.clip(w, 0, None))) @ Q.T


def threshold_lambda(mix: GaussianMixture, Sigma, U) -> float:
    """max_k lambda_max(S U^T G_k U S), S = Sigma^(1/2).  rho(Uz) grows like exp(max_k (Uz)^T G_k (Uz))
    along rays, so E_nu rho(Uz) < oo iff this is < 1/2 (for one Gaussian it is exact)."""
    S = sym_sqrt(Sigma)
    U = np.asarray(U, float)
    _w, _m, G = mix.arrays()
    return float(max(np.linalg.eigvalsh(S @ U.T @ Gk @ U @ S)[-1] for Gk in G))


def gaussian_averaged_constant(Gamma, Sigma, U, V) -> dict:
    """K = E_z[rho(Uz) tr(V (Gamma + Gamma U z z^T U^T Gamma) V^T)], z ~ N(0, Sigma), tokens N(0, Gamma):
    det(I - 2B)^(-1/2) [tr(V Gamma V^T) + tr((I - 2B)^(-1) Q)] (theory.beyond); inf if lambda >= 1/2."""
    Gamma, Sigma, U, V = (np.asarray(x, float) for x in (Gamma, Sigma, U, V))
    S = sym_sqrt(Sigma)
    B = S @ U.T @ Gamma @ U @ S
    Q = S @ U.T @ Gamma @ V.T @ V @ Gamma @ U @ S
    lam = float(np.linalg.eigvalsh(B)[-1])
    if lam >= 0.5:
        return {"K": float("inf"), "lambda_max": lam, "finite": False}
    M = np.eye(len(B)) - 2 * B
    K = np.linalg.det(M) ** -0.5 * (np.trace(V @ Gamma @ V.T) + np.trace(np.linalg.solve(M, Q)))
    return {"K": float(K), "lambda_max": lam, "finite": True,
            "K_without_mean_shift": float(np.linalg.det(M) ** -0.5 * np.trace(V @ Gamma @ V.T))}


@exact_inputs("Gamma", "Sigma_root", "U", "V")
def gaussian_averaged_constant_mp(Gamma, Sigma_root, U, V, dps: int = 40):
    """The same K at ``dps`` digits (Sigma given through a square root S, S S^T = Sigma)."""
    with workdps(dps):
        G, S, U, V = (mp_matrix(x) for x in (Gamma, Sigma_root, U, V))
        B = S.T * U.T * G * U * S
        Q = S.T * U.T * G * V.T * V * G * U * S
        M = mpm.eye(B.rows) - 2 * B
        tr = lambda X: mpm.fsum(X[i, i] for i in range(X.rows))
        return mpm.det(M) ** mpm.mpf(-0.5) * (tr(V * G * V.T) + tr(mpm.inverse(M) * Q))


def per_query_mse_constants(mix: GaussianMixture, U, V, Z) -> np.ndarray:
    """Vectorised rho(a) tr(V C V^T) (notes/finite-prompt.md) at a = U z for each row z of Z."""
    U, V, Z = (np.asarray(x, float) for x in (U, V, Z))
    A = Z @ U.T
    _w, _m, G = mix.arrays()
    s1, g1 = tilted_moments(mix, A)
    s2, g2 = tilted_moments(mix, 2 * A)
    lse = lambda s: s.max(1) + np.log(np.exp(s - s.max(1, keepdims=True)).sum(1))
    rho = np.exp(lse(s2) - 2 * lse(s1))
    w1, w2 = np.exp(log_gates(s1)), np.exp(log_gates(s2))
    grad1 = np.einsum("nk,nkd->nd", w1, g1)
    VGV = np.einsum("pd,kde,qe->kpq", V, G, V)
    trVGV = np.einsum("kpp->k", VGV)
    dlt = g2 - grad1[:, None, :]  # (n, K, D)
    Vd = np.einsum("pd,nkd->nkp", V, dlt)
    trC = w2 @ trVGV + np.einsum("nk,nkp->n", w2, Vd**2)
    return rho * trC


def averaged_constant(mix: GaussianMixture, Sigma, U, V, n: int = 40, max_points: int = 250000,
                      mc_samples: int = 400000,
                      rng: np.random.Generator | None = None, fn=None) -> dict:
    """E_z fn(z), z ~ N(0, Sigma) (fn defaults to per_query_mse_constants), in any dimension.

    Tensor Gauss-Hermite (``method='quadrature'``, a-posteriori ``error_estimate`` from two node counts)
    when (1.5 n + 2)^D <= max_points, else importance-sampled Monte Carlo (``method='monte-carlo'`` with
    ``standard_error``): xi ~ N(0, tau^2 I), tau^2 = 1 / (1 - 2 lambda) with lambda = threshold_lambda,
    so that the estimator has finite variance whenever the average is finite (lambda < 1/2)."""
    fn = fn or (lambda Z: per_query_mse_constants(mix, U, V, Z))
    S = sym_sqrt(Sigma)
    D = S.shape[0]
    n2 = int(1.5 * n) + 2
    if n2**D <= max_points:
        def rule(m):
            x, w = np.polynomial.hermite_e.hermegauss(m)
            w = w / np.sqrt(2 * np.pi)
            pts = np.array(list(itertools.product(x, repeat=D)))
            wts = np.prod(np.array(list(itertools.product(w, repeat=D))), axis=1)
            return float(wts @ fn(pts @ S.T))
        a, b = rule(n), rule(n2)
        return {"value": b, "error_estimate": abs(b - a), "nodes": [n, n2], "method": "quadrature"}
    lam = threshold_lambda(mix, Sigma, U)
    if lam >= 0.5:
        return {"value": float("inf"), "method": "monte-carlo", "standard_error": None}
    rng = rng or np.random.default_rng(0)
    tau2 = 1.0 / (1.0 - 2 * lam)
    xi = rng.standard_normal((int(mc_samples), D)) * math.sqrt(tau2)
    wt = np.exp(0.5 * D * math.log(tau2) - 0.5 * (xi**2).sum(1) * (1 - 1 / tau2))
    vals = wt * fn(xi @ S.T)
    return {"value": float(vals.mean()), "standard_error": float(vals.std(ddof=1) / math.sqrt(len(vals))),
            "samples": int(mc_samples), "method": "monte-carlo", "tau2": tau2}


def simulate_query_errors(mix: GaussianMixture, U, V, Z, L: int, rng: np.random.Generator, limit=None,
                          chunk: int = 1 << 12) -> np.ndarray:
    """Squared errors ||T[mu_hat_L](z_j) - T[mu](z_j)||^2, one fresh L-token prompt per query row z_j
    (vectorised over queries; tokens streamed in chunks with an online log-sum-exp)."""
    from .attention import softmax_attention

    U, V, Z = (np.asarray(x, float) for x in (U, V, Z))
    n, D = Z.shape
    A = Z @ U.T
    w, m, G = mix.arrays()
    roots = np.stack([psd_sqrt(g) for g in G])
    cw = np.cumsum(w)
    cw[-1] = 1.0
    run_max = np.full(n, -np.inf)
    num = np.zeros((n, D))
    den = np.zeros(n)
    step = max(1, min(chunk, (1 << 21) // max(n, 1)))
    done = 0
    while done < L:
        c = min(step, L - done)
        lab = np.searchsorted(cw, rng.random((n, c)), side="right")
        xi = rng.standard_normal((n, c, D))
        x = m[lab] + np.einsum("nckd,ncd->nck", roots[lab], xi) if len(w) > 1 else m[0] + xi @ roots[0].T
        s = np.einsum("ncd,nd->nc", x, A)
        new_max = np.maximum(run_max, s.max(1))
        scale = np.exp(run_max - new_max)
        e = np.exp(s - new_max[:, None])
        num = num * scale[:, None] + np.einsum("nc,ncd->nd", e, x)
        den = den * scale + e.sum(1)
        run_max = new_max
        done += c
    out = (num / den[:, None]) @ V.T
    lim = softmax_attention(mix, U, V, Z) if limit is None else np.asarray(limit)
    return ((out - lim) ** 2).sum(1)


# ================================================================================================
# in-context linear regression: R(A, b) and its gradient flow
# ================================================================================================
def regression_risk(A, b, Sig):
    M = b * Sig @ A - np.eye(len(Sig))
    return 0.5 * np.trace(M @ Sig @ M.T)


def regression_grad(A, b, Sig):
    """(grad_A R, dR/db) = (b Sigma M Sigma, tr(M Sigma A^T Sigma)), M = b Sigma A - I
    (checked against the SymPy gradient in the tests)."""
    M = b * Sig @ A - np.eye(len(Sig))
    return b * Sig @ M @ Sig, np.trace(M @ Sig @ A.T @ Sig)


def balanced_init(alpha, d, unbalanced: float = 1.0):
    """A(0) = alpha I_d / sqrt(d), b(0) = unbalanced * alpha (balanced: ||A(0)||_F = b(0))."""
    return alpha * np.eye(d) / np.sqrt(d), unbalanced * alpha


def stated_limit(Sig):
    Si = np.linalg.inv(Sig)
    t = np.trace(Si @ Si)
    return Si * t ** -0.25, t ** 0.25


@exact_inputs("A0", "b0", "Sig", "T")
def flow_mp(A0, b0, Sig, T, dps: int = 30):
    """Gradient flow at dps digits with mpmath.odefun (Taylor method, error ~ working precision).
    Returns (A(T), b(T)) as mpmath objects."""
    d = len(Sig)
    with workdps(dps):
        S = mp_matrix(Sig.tolist() if hasattr(Sig, "tolist") else Sig)
        I = mpm.eye(d)

        def rhs(t, y):
            A = mpm.matrix(d, d)
            for i in range(d):
                for j in range(d):
                    A[i, j] = y[i * d + j]
            b = y[-1]
            M = b * S * A - I
            gA = b * S * M * S
            MSAS = M * S * A.T * S
            gb = mpm.fsum(MSAS[i, i] for i in range(d))
            return [-gA[i, j] for i in range(d) for j in range(d)] + [-gb]

        A0m = mp_matrix(A0.tolist() if hasattr(A0, "tolist") else A0)
        y0 = [A0m[i, j] for i in range(d) for j in range(d)] + [to_mpf(b0)]
        f = mpm.odefun(rhs, 0, y0)
        y = f(to_mpf(T))
        A = mpm.matrix(d, d)
        for i in range(d):
            for j in range(d):
                A[i, j] = y[i * d + j]
        return A, y[-1]


def flow_float(A0, b0, Sig, T, rtol=1e-11, atol=1e-13):
    from scipy.integrate import solve_ivp

    d = len(Sig)

    def rhs(t, y):
        gA, gb = regression_grad(y[:-1].reshape(d, d), y[-1], Sig)
        return np.append(-gA.ravel(), -gb)

    sol = solve_ivp(rhs, (0, T), np.append(np.asarray(A0).ravel(), b0), method="DOP853", rtol=rtol, atol=atol)
    y = sol.y[:, -1]
    return y[:-1].reshape(d, d), float(y[-1]), sol


def regression_finite_prompt_outputs(a, x, xq):
    """d = 1: T_L = sum_i softmax_i(a x_i x_q) x_i, prompts x (n, L), queries xq (n,)."""
    s = a * x * xq[:, None]
    s = s - s.max(1, keepdims=True)
    e = np.exp(s)
    return (e * x).sum(1) / e.sum(1)


def train_finite_prompt_regression(L: int, s2: float, n_train: int, n_test: int, rng: np.random.Generator,
                                   a_bounds=(0.01, 20.0)) -> dict:
    """Train (a, b) (d = 1, Sigma = s2) on the empirical finite-prompt risk
    1/2 mean (b T_L - x_q)^2 (E over w done exactly: E w^2 = 1); b is optimal in closed form for each a,
    a by bounded scalar minimisation.  The trained parameters' risk is re-estimated on fresh prompts."""
    from scipy.optimize import minimize_scalar

    sd = np.sqrt(s2)
    x, xq = sd * rng.standard_normal((n_train, L)), sd * rng.standard_normal(n_train)

    def best_b(a, x, xq):
        T = regression_finite_prompt_outputs(a, x, xq)
        b = (T @ xq) / (T @ T)
        return b, 0.5 * np.mean((b * T - xq) ** 2)

    res = minimize_scalar(lambda la: best_b(np.exp(la), x, xq)[1], bounds=tuple(np.log(a_bounds)), method="bounded",
                          options={"xatol": 1e-6})
    a = float(np.exp(res.x))
    b, train_risk = best_b(a, x, xq)
    xt, xqt = sd * rng.standard_normal((n_test, L)), sd * rng.standard_normal(n_test)
    loss = 0.5 * (b * regression_finite_prompt_outputs(a, xt, xqt) - xqt) ** 2
    return {"L": int(L), "a": a, "b": float(b), "b_a_Sigma": float(a * b * s2), "train_risk": float(train_risk),
            "test_risk": float(loss.mean()), "test_risk_se": float(loss.std(ddof=1) / np.sqrt(n_test))}


# ================================================================================================
# denoising with an atomic clean prompt
# ================================================================================================
def posterior_mean(means, weights, z, sigma2):
    """E[X | z] for X ~ sum_k pi_k delta_{m_k}, z = X + N(0, sigma2 I) (log-space softmax)."""
    means, z = np.asarray(means, float), np.atleast_2d(np.asarray(z, float))
    sc = np.log(weights)[None] - ((z[:, None, :] - means[None]) ** 2).sum(-1) / (2 * sigma2)
    g = np.exp(log_gates(sc))
    return g @ means


def atomic_prompt_outputs(means, weights, z, U, L: int, R: int, rng: np.random.Generator):
    """R finite-prompt outputs on L tokens drawn i.i.d. from sum_k pi_k delta_{m_k}: the head output is
    sum_k n_k e^{<Uz, m_k>} m_k / sum_k n_k e^{<Uz, m_k>} with counts n ~ Multinomial(L, pi)."""
    means = np.asarray(means, float)
    counts = rng.multinomial(L, np.asarray(weights, float), size=R)
    s = means @ (np.asarray(U, float) @ np.asarray(z, float))
    e = np.exp(s - s.max())
    wgt = counts * e[None]
    return (wgt @ means) / wgt.sum(1, keepdims=True)


# ================================================================================================
# linear attention on in-context regression (Zhang-Frei-Bartlett)
# ================================================================================================
def zfb_gamma(Lam, N):
    Lam = np.asarray(Lam, float)
    return (1 + 1 / N) * Lam + np.trace(Lam) / N * np.eye(len(Lam))


def zfb_loss_closed_form(Lam, N, A):
    """1/2 tr(Lam (A E[hh^T] A^T - 2 A Lam + I)) with E[hh^T] = Lam Gamma_N (the derived moment)."""
    Lam, A = np.asarray(Lam, float), np.asarray(A, float)
    H = Lam @ Lam + (Lam @ Lam + np.trace(Lam) * Lam) / N
    return 0.5 * np.trace(Lam @ (A @ H @ A.T - A @ Lam - Lam @ A.T + np.eye(len(Lam))))


def zfb_sample_losses(Lam, N: int, A, n: int, rng: np.random.Generator) -> np.ndarray:
    """n i.i.d. draws of the loss given the prompt, E[1/2 (x_q^T A h - x_q^T w)^2 | x_1..x_N]
    = 1/2 tr((A S - I)^T Lam (A S - I)), S = (1/N) sum_i x_i x_i^T, h = S w.

    Exact conditioning (Rao-Blackwell) over the task w ~ N(0, I) and the query x_q ~ N(0, Lam): the
    draws have the loss's mean and a much lighter tail than the plain squared error, whose sample mean
    was skewed enough to refute a true statement at z = -3.7 (seed 8108).  Measured at Gamma_N^-1, N = 10,
    40000 samples, 300 replicates: z below -3 in 0.7 % with the plain squared error, in none with this
    estimator (whose standard error is also 6 x smaller).  Only the prompt is simulated."""
    Lam, A = np.asarray(Lam, float), np.asarray(A, float)
    d = len(Lam)
    x = rng.standard_normal((n, N, d)) @ psd_sqrt(Lam).T
    S = np.einsum("nid,nie->nde", x, x) / N
    M = np.einsum("de,nef->ndf", A, S) - np.eye(d)
    return 0.5 * np.einsum("ndf,de,nef->n", M, Lam, M)
