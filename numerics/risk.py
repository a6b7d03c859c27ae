"""Finite-prompt risk of several softmax heads sharing one prompt (beyond the paper,
which stops at L = infinity -- its predictors are Sec. 3's LDA head and Thm 4.1's two-head
denoiser, both evaluated at infinite prompts).

Predictor  yhat_L(z) = sum_h W_h T_{U_h, V_h}[mu_hat_L](z), all heads reading the SAME L tokens.
Risk       R_L = E || y - yhat_L(z) ||^2  (tokens i.i.d. mu, query z, target y | z).
First order (delta method on the ratio of two sample means; docs/finite-prompt-risk.md):

  L (R_L(z) - R_inf(z)) -> K(z) = sum_{h,h'} tr(W_h C_hh'(z) W_h'^T) - 2 r(z)^T sum_h W_h b_h(z),
  r(z) = E[y | z] - yhat_inf(z),
  C_hh' = rho_hh' V_h [sum_k w_k(a_h + a_h') (G_k + d_k^h d_k^h'^T)] V_h'^T,
  rho_hh' = M(a_h + a_h') / (M(a_h) M(a_h')),  d_k^h = m_k + G_k (a_h + a_h') - grad Lambda(a_h),
  b_h = rho_hh V_h (grad Lambda(a_h) - grad Lambda(2 a_h)).

Exact: the constants (float64 vectorised over queries, or mpmath), the Gaussian closed form of
E_z K(z) and its finiteness condition.  Approximate: K describes L -> infinity only (remainder
O(1/L^2) in the risk); the mixture query averages are importance-sampled Monte Carlo with a
standard error; the Monte Carlo engine is random (seeded).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath as mpm
import numpy as np

from .errors import InputError
from .logspace import scaled, scaled_sum
from .memo import by_identity
from .mixture import GaussianMixture, psd_sqrt
from .precision import exact_inputs, to_mpf, workdps

__all__ = ["Head", "Target", "parse_heads", "parse_target", "risk_constants", "risk_constants_mp",
           "gaussian_exp_quadratic_mean", "gaussian_exp_quadratic_mean_mp", "averaged_risk",
           "threshold_info", "query_norm_point"]


# ================================================================================================
# inputs
# ================================================================================================
@dataclass(frozen=True)
class Head:
    """One head: U (D, D), V (p, D), W (q, p); exact entries kept for the mpmath path."""
    U: tuple
    V: tuple
    W: tuple

    def arrays(self):
        f = lambda M: np.array([[float(x) for x in r] for r in M])
        return f(self.U), f(self.V), f(self.W)


@dataclass(frozen=True)
class Target:
    """y = B z + eps, eps ~ N(0, noise_covariance) independent of z and of the prompt.  A target is
    anything with ``conditional_mean(Z)`` (E[y | z], (n, q)) and ``conditional_trace(Z)`` (tr Cov(y | z),
    (n,)); ``linear = True`` only here (closed forms); e.g. ``posterior.PosteriorMeanTarget`` is not."""
    B: tuple
    noise: tuple

    linear = True

    def arrays(self):
        f = lambda M: np.array([[float(x) for x in r] for r in M])
        return f(self.B), f(self.noise)

    def conditional_mean(self, Z):
        return np.atleast_2d(Z) @ self.arrays()[0].T

    def conditional_trace(self, Z):
        return np.full(len(np.atleast_2d(Z)), float(np.trace(self.arrays()[1])))


def _identity(n):
    return tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))


def parse_heads(obj, D: int, where: str = "--heads") -> list[Head]:
    """A list of {"U", "V", "W"?} (schema :data:`softmix.numerics.input_schema.HEADS`); W defaults to
    the identity; every U is D x D and every head outputs the same q."""
    from .input_schema import HEADS, validate

    heads, q = [], None
    for h, o in enumerate(validate(HEADS, obj, where, root="heads", D=D)):
        w = f"{where}: heads[{h}]"
        U, V = _rows(o.U), _rows(o.V)
        W = _rows(o.W) if o.W is not None else _identity(len(V))
        if q is None:
            q = len(W)
        elif len(W) != q:
            raise InputError(f"{w}.W: has {len(W)} rows but head 0 outputs {q}; all heads must share the output space")
        heads.append(Head(U, V, W))
    return heads


def _rows(M):
    return tuple(tuple(r) for r in M)


def parse_target(obj, D: int, q: int, where: str = "--target") -> Target:
    """{"B": q x D, "noise_covariance": q x q symmetric PSD (default 0)} (schema
    :data:`softmix.numerics.input_schema.TARGET`)."""
    from .input_schema import TARGET, validate

    t = validate(TARGET, obj, where)
    B = _rows(t.B)
    if len(B) != q or len(B[0]) != D:
        raise InputError(f"{where}: B: expected a {q}x{D} matrix (output x token dimension), got {len(B)}x{len(B[0])}")
    N = _rows(t.noise_covariance) if t.noise_covariance is not None \
        else tuple(tuple(Fraction(0) for _ in range(q)) for _ in range(q))
    if len(N) != q or len(N[0]) != q:
        raise InputError(f"{where}: noise_covariance: expected a {q}x{q} matrix, got {len(N)}x{len(N[0])}")
    for i in range(q):
        for j in range(i + 1, q):
            if N[i][j] != N[j][i]:
                raise InputError(f"{where}: noise_covariance is not symmetric (entry [{i}][{j}])")
    arr = np.array([[float(x) for x in r] for r in N])
    if np.linalg.eigvalsh(arr)[0] < -1e-10 * max(1.0, float(np.abs(arr).max())):
        raise InputError(f"{where}: noise_covariance is not positive semidefinite")
    return Target(B, N)


# ================================================================================================
# per-query constants, vectorised over queries (float64)
# ================================================================================================
def _lse(s):
    mx = s.max(axis=-1, keepdims=True)
    return (mx + np.log(np.exp(s - mx).sum(axis=-1, keepdims=True)))[..., 0]


def _tilt(w, m, G, A):
    """Scores (n, K), gates (n, K), cgf (n,), tilted means (n, K, D), grad Lambda (n, D) at tilts A."""
    GA = np.einsum("kde,ne->nkd", G, A)
    s = np.log(w)[None, :] + A @ m.T + 0.5 * np.einsum("nkd,nd->nk", GA, A)
    lam = _lse(s)
    g = np.exp(s - lam[:, None])
    mu = m[None] + GA
    return s, g, lam, mu, np.einsum("nk,nkd->nd", g, mu)


def risk_constants(mix: GaussianMixture, heads, target: Target, Z, block: int = 8192) -> dict:
    """Per-query first-order constants for each row z of Z (n, D), float64:

    variance (n,)      sum_{h,h'} tr(W_h C_hh' W_h'^T)   (= lim L E||yhat_L - yhat_inf||^2)
    cross (n,)         its h != h' part (zero when heads do not share the prompt)
    bias_residual (n,) -2 r^T sum_h W_h b_h
    K (n,)             variance + bias_residual = lim L (R_L(z) - R_inf(z))
    (where some rho_hh' exceeds float64 these are +-inf by a log-space sum, never nan; the _mp
    function gives their digits)
    risk_infinite (n,) ||B z - yhat_inf||^2 + tr(noise)
    residual (n, q), prediction (n, q), bias (H, n, q) = W_h b_h, rho (H, H, n).

    Vectorised: every step is a BLAS product over a block of queries (K and H are small loops)."""
    Z = np.atleast_2d(np.asarray(Z, float))
    if len(Z) > block:
        parts = [risk_constants(mix, heads, target, Z[i:i + block], block) for i in range(0, len(Z), block)]
        out = {}
        for k in parts[0]:
            ax = 2 if k == "rho" else (1 if k == "bias" else 0)
            out[k] = np.concatenate([p[k] for p in parts], axis=ax)
        return out
    w, m, G = _arrays(mix)
    pre = _prepared(mix, heads, target)
    P, PG, Pm, trPGP, Ut, B, trN = pre
    H, Kc = len(P), len(w)
    n, logw = len(Z), np.log(w)
    A = [Z @ Ut[h] for h in range(H)]  # tilts a_h = U_h z, (n, D)

    def tilt(a):
        """gates (n, K), cgf (n,), and per component the D-space products G_j a (list of (n, D))."""
        GA = [a @ G[j] for j in range(Kc)]  # G symmetric
        sc = np.stack([logw[j] + a @ m[j] + 0.5 * np.einsum("nd,nd->n", GA[j], a) for j in range(Kc)], 1)
        lam = _lse(sc)
        return np.exp(sc - lam[:, None]), lam

    one = [tilt(A[h]) for h in range(H)]
    # P_h grad Lambda(a_h) = sum_j w_j (P_h m_j + P_h G_j a_h)
    Pg = [sum(one[h][0][:, j:j + 1] * (Pm[h][j][None, :] + A[h] @ PG[h][j].T) for j in range(Kc)) for h in range(H)]
    pred = sum(Pg)
    r = (Z @ B.T if B is not None else target.conditional_mean(Z)) - pred
    var = np.zeros(n)
    cross = np.zeros(n)
    bias = np.zeros((H, n, r.shape[1]))
    rho = np.zeros((H, H, n))
    terms = []  # (h, k, log rho_hk, unscaled t_hk, unscaled bias_h or None): the log-space path's inputs
    for h in range(H):
        for k in range(h, H):
            b = A[h] + A[k]
            g2, lam2 = tilt(b)
            lrr = lam2 - one[h][1] - one[k][1]
            with np.errstate(over="ignore"):
                rr = np.exp(lrr)
            rho[h, k] = rho[k, h] = rr
            t = np.zeros(n)
            Pg2 = 0.0
            for j in range(Kc):
                Pmu_h = Pm[h][j][None, :] + b @ PG[h][j].T  # P_h (m_j + G_j b)
                Pmu_k = Pm[k][j][None, :] + b @ PG[k][j].T
                t += g2[:, j] * (trPGP[h][k][j] + np.einsum("nq,nq->n", Pmu_h - Pg[h], Pmu_k - Pg[k]))
                if h == k:
                    Pg2 = Pg2 + g2[:, j:j + 1] * Pmu_h
            terms.append((h, k, lrr, t.copy(), Pg[h] - Pg2 if h == k else None))
            with np.errstate(over="ignore", invalid="ignore"):
                t *= rr
                if h == k:
                    var += t
                    bias[h] = rr[:, None] * (Pg[h] - Pg2)
                else:
                    var += 2 * t
                    cross += 2 * t
    with np.errstate(invalid="ignore", over="ignore"):  # +-inf past float64, inf - inf where the log path rewrites
        bres = -2.0 * np.einsum("nq,hnq->n", r, bias)
        K = var + bres
    out = {"variance": var, "cross": cross, "bias_residual": bres, "K": K,
           "risk_infinite": (r**2).sum(1) + (trN if B is not None else target.conditional_trace(Z)), "residual": r,
           "prediction": pred, "bias": bias, "rho": rho}
    over = ~np.all(np.isfinite(rho), axis=(0, 1)) | ~np.isfinite(K)  # a rho or a product past float64
    if over.any():  # those queries' constants in log space (+-inf with the right sign, never nan)
        _log_space_rows(out, terms, r, over)
    return out


def _log_space_rows(out: dict, terms, r, rows) -> None:
    """Recompute, for the queries ``rows`` (a mask) where some rho_hk or K overflows float64, every
    constant as signed sums of exp(log rho_hk) * (finite factor) (:func:`logspace.scaled_sum`):
    +-inf where the value exceeds float64, the right sign, no inf - inf."""
    var, cross, bres = [], [], []
    for h, k, lrr, t, bh in terms:
        l = lrr[rows]
        var.append((l, (1.0 if h == k else 2.0) * t[rows]))
        if h != k:
            cross.append((l, 2.0 * t[rows]))
        else:
            out["bias"][h][rows] = scaled(l[:, None], bh[rows])
            bres.append((l, -2.0 * np.einsum("nq,nq->n", r[rows], bh[rows])))
    out["variance"][rows] = scaled_sum(var)
    out["cross"][rows] = scaled_sum(cross) if cross else 0.0
    out["bias_residual"][rows] = scaled_sum(bres)
    out["K"][rows] = scaled_sum(var + bres)


def _prepared(mix, heads, target):
    """Per (mixture, heads, target), in the run's memo: P_h = W_h V_h, P_h G_j, P_h m_j, tr(P_h G_j P_k^T),
    U_h^T, B, tr(noise)."""
    return by_identity("risk.prepared", mix, lambda: _prepare(mix, heads, target), tuple(heads), target)


def _prepare(mix, heads, target):
    w, m, G = _arrays(mix)
    arr = [h.arrays() for h in heads]
    P = [Wh @ Vh for _U, Vh, Wh in arr]
    PG = [[P[h] @ G[j] for j in range(len(w))] for h in range(len(P))]
    Pm = [[P[h] @ m[j] for j in range(len(w))] for h in range(len(P))]
    trPGP = [[[float(np.trace(P[h] @ G[j] @ P[k].T)) for j in range(len(w))] for k in range(len(P))]
             for h in range(len(P))]
    Ut = [np.ascontiguousarray(U.T) for U, _V, _W in arr]
    B, N = target.arrays() if getattr(target, "linear", False) else (None, np.zeros((1, 1)))  # None: E[y|z] not linear
    return (P, PG, Pm, trPGP, Ut, B, float(np.trace(N)))


def _arrays(mix):
    """``mix.arrays()`` once per mixture object in the run's memo."""
    return by_identity("risk.arrays", mix, mix.arrays)


# ================================================================================================
# per-query constants at arbitrary precision (mpmath, one query)
# ================================================================================================
def _mpm(M):
    return mpm.matrix([[to_mpf(x) for x in r] for r in M])


@exact_inputs("mix", "heads", "target", "z")
def risk_constants_mp(mix: GaussianMixture, heads, target: Target, z, dps: int = 50) -> dict:
    """The same constants for one query at ``dps`` digits (mpf, no overflow; ``bias``: per head, W_h b_h's q
    entries); linear targets only; inputs as in :mod:`softmix.numerics.precision` (inexact floats warn)."""
    if not getattr(target, "linear", False):
        raise InputError("risk_constants_mp needs a linear target y = B z + eps")
    with workdps(dps):
        w, m, G = mix.mp()
        zm = mpm.matrix([to_mpf(x) for x in z])
        Hs = [(_mpm(h.U), _mpm(h.V), _mpm(h.W)) for h in heads]
        B = _mpm(target.B)
        Nn = _mpm(target.noise)
        K = len(w)

        def tilt(a):
            s = [mpm.log(w[k]) + (m[k].T * a)[0] + (a.T * G[k] * a)[0] / 2 for k in range(K)]
            mx = max(s)
            lam = mx + mpm.log(mpm.fsum(mpm.exp(x - mx) for x in s))
            g = [mpm.exp(x - lam) for x in s]
            mu = [m[k] + G[k] * a for k in range(K)]
            grad = mu[0] * g[0]
            for k in range(1, K):
                grad += mu[k] * g[k]
            return g, lam, mu, grad

        P = [Wh * Vh for _U, Vh, Wh in Hs]
        A = [Uh * zm for Uh, _V, _W in Hs]
        one = [tilt(a) for a in A]
        pred = P[0] * one[0][3]
        for h in range(1, len(Hs)):
            pred += P[h] * one[h][3]
        r = B * zm - pred
        tr = lambda X: mpm.fsum(X[i, i] for i in range(X.rows))
        var = cross = mpm.mpf(0)
        bsum = mpm.matrix(B.rows, 1)
        bias = []
        for h in range(len(Hs)):
            for k in range(h, len(Hs)):
                g2, lam2, mu2, grad2 = tilt(A[h] + A[k])
                rr = mpm.exp(lam2 - one[h][1] - one[k][1])
                t = mpm.mpf(0)
                for j in range(K):
                    dh = P[h] * (mu2[j] - one[h][3])
                    dk = P[k] * (mu2[j] - one[k][3])
                    t += g2[j] * (tr(P[h] * G[j] * P[k].T) + (dh.T * dk)[0])
                t *= rr
                var += t if h == k else 2 * t
                if h != k:
                    cross += 2 * t
                else:
                    bias.append(rr * (P[h] * (one[h][3] - grad2)))
                    bsum += bias[-1]
        bres = -2 * (r.T * bsum)[0]
        return {"variance": var, "cross": cross, "bias_residual": bres, "K": var + bres,
                "risk_infinite": (r.T * r)[0] + tr(Nn), "bias": [[b_[i] for i in range(b_.rows)] for b_ in bias]}


# ================================================================================================
# Gaussian integrals E[exp(z^T S z) (alpha + beta^T z + z^T Q z)], z ~ N(mu, Sigma), Sigma PSD
# ================================================================================================
def gaussian_exp_quadratic_mean(S, alpha, beta, Q, mu, Sigma) -> float:
    """det(I - 2 Sigma S)^(-1/2) exp(mu^T S mu + 2 mu^T S Sigma' S mu) [alpha + beta^T mu' + mu'^T Q mu'
    + tr(Q Sigma')], Sigma' = (I - 2 Sigma S)^(-1) Sigma, mu' = mu + 2 Sigma' S mu.  Finite iff every
    eigenvalue of Sigma S (those of R^T S R, R R^T = Sigma) is < 1/2; +inf otherwise (no square root
    of Sigma needed, so singular query covariances are fine)."""
    S, Q, Sigma = (np.asarray(x, float) for x in (S, Q, Sigma))
    mu, beta = np.asarray(mu, float), np.asarray(beta, float)
    I = np.eye(len(S))
    M = I - 2 * Sigma @ S
    if _lam_max(S, Sigma) >= 0.5:
        return float("inf")
    Sp = np.linalg.solve(M, Sigma)
    Sp = (Sp + Sp.T) / 2
    mup = mu + 2 * Sp @ S @ mu
    pref = np.linalg.det(M) ** -0.5 * np.exp(mu @ S @ mu + 2 * mu @ S @ Sp @ S @ mu)
    return float(pref * (alpha + beta @ mup + mup @ Q @ mup + np.trace(Q @ Sp)))


def gaussian_exp_quadratic_mean_mp(S, alpha, beta, Q, mu, Sigma):
    """The same at the current mpmath precision (mpmath matrices / column vectors in)."""
    n = S.rows
    M = mpm.eye(n) - 2 * Sigma * S
    Minv = mpm.inverse(M)
    Sp = Minv * Sigma
    mup = mu + 2 * Sp * S * mu
    pref = mpm.det(M) ** mpm.mpf(-0.5) * mpm.exp((mu.T * S * mu)[0] + 2 * (mu.T * S * Sp * S * mu)[0])
    tr = mpm.fsum((Q * Sp)[i, i] for i in range(n))
    return pref * (alpha + (beta.T * mup)[0] + (mup.T * Q * mup)[0] + tr)


def _lam_max(S, Sigma) -> float:
    R = psd_sqrt(np.asarray(Sigma, float))
    A = R.T @ np.asarray(S, float) @ R
    return float(np.linalg.eigvalsh((A + A.T) / 2)[-1])


def _sym(X):
    return (X + X.T) / 2


def _gaussian_terms(G, m, heads_arr, B):
    """K(z) for N(m, G) tokens as a list of (S, alpha, beta, Q, part) with
    K(z) = sum exp(z^T S z)(alpha + beta^T z + z^T Q z); part in {variance, cross, bias_residual}."""
    P = [Wh @ Vh for _U, Vh, Wh in heads_arr]
    U = [Uh for Uh, _V, _W in heads_arr]
    H = len(P)
    c0 = -sum(Ph @ m for Ph in P)
    R1 = B - sum(P[h] @ G @ U[h] for h in range(H))
    D = len(m)
    terms = []
    for h in range(H):
        for k in range(H):
            S = _sym(U[h].T @ G @ U[k])
            alpha = float(np.trace(P[h] @ G @ P[k].T))
            Q = _sym(U[k].T @ G @ P[h].T @ P[k] @ G @ U[h])  # (P_h G a_k).(P_k G a_h)
            terms.append((S, alpha, np.zeros(D), Q, "variance" if h == k else "cross"))
        S = _sym(U[h].T @ G @ U[h])
        X = P[h] @ G @ U[h]  # -W_h b_h = rho_h P_h G a_h
        terms.append((S, 0.0, 2 * X.T @ c0, _sym(2 * R1.T @ X), "bias_residual"))
    return terms, c0, R1


def threshold_info(mix: GaussianMixture, heads, queries: GaussianMixture, tol: float = 1e-9) -> dict:
    """lambda* = max over heads h (with W_h V_h G_k != 0), token components k, query components j of
    lambda_max(R_j^T U_h^T G_k U_h R_j), R_j R_j^T = Sigma_j.  E_z K finite iff lambda* < 1/2.
    Past it: E(R_L - R_inf) ~ L^(-1/(2 lambda*)) (ln L)^beta with beta = m/2 - 1 + d (m = multiplicity of
    lambda*, d = 1 if the mean shift P_h G_k U_h R_j is non-zero on the top eigenspace, else 0); at
    lambda* = 1/2: L^(-1) (ln L)^(m/2 + d).  The log power is derived for Gaussian tokens and
    centred query components along the top eigenspace; otherwise exp(O(sqrt(ln L))) factors appear
    and it is reported as null."""
    _w, mt, G = mix.arrays()
    qw, qm, qS = queries.arrays()
    best, rows = -np.inf, []
    for h, hd in enumerate(heads):
        U, V, W = hd.arrays()
        P = W @ V
        for k in range(len(G)):
            if np.abs(P @ G[k]).max() <= tol * max(1.0, np.abs(G[k]).max()):
                continue
            for j in range(len(qw)):
                R = psd_sqrt(qS[j])
                A = _sym(R.T @ U.T @ G[k] @ U @ R)
                ev, Qv = np.linalg.eigh(A)
                lam = float(ev[-1])
                top = Qv[:, ev >= lam - tol * max(1.0, abs(lam))]
                mult = int(top.shape[1])
                shift = float(np.abs(P @ G[k] @ U @ R @ top).max()) > tol
                centred = float(np.abs(top.T @ R.T @ U.T @ G[k] @ U @ qm[j]).max()) <= tol
                rows.append({"head": h, "token_component": k, "query_component": j, "lambda": lam,
                             "multiplicity": mult, "mean_shift_on_top": shift, "centred": centred})
                best = max(best, lam)
    if not rows:
        return {"lambda": 0.0, "finite": True, "rows": [], "rate_exponent": -1.0, "log_power": 0}
    top_rows = [r for r in rows if r["lambda"] >= best - tol * max(1.0, abs(best))]
    finite = best < 0.5
    out = {"lambda": best, "finite": finite, "rows": rows}
    if finite:
        out.update({"rate_exponent": -1.0, "log_power": 0})
        return out
    at = abs(best - 0.5) <= tol
    ok = mix.n_components == 1 and all(r["centred"] for r in top_rows)
    betas = [(r["multiplicity"] / 2 + (0 if at else -1) + int(r["mean_shift_on_top"])) for r in top_rows]
    out.update({"rate_exponent": -1.0 if at else -1 / (2 * best),
                "log_power": (max(betas) if ok else None),
                "log_power_note": ("(ln L)^(m/2 - 1 + d), m multiplicity of the top eigenvalue, d = 1 if the mean "
                                   "shift is non-zero on its eigenspace" if ok else
                                   "not a pure power of ln L: mixture tokens or a query mean along the top direction "
                                   "give exp(O(sqrt(ln L))) factors")})
    return out


# ================================================================================================
# query averages
# ================================================================================================
def averaged_risk(mix: GaussianMixture, heads, queries: GaussianMixture, target: Target, dps: int | None = None,
                  n_mc: int = 200000, seed=0, drop: str | None = None) -> dict:
    """E_z of the per-query constants for z ~ queries (a Gaussian mixture, singular covariances allowed).

    Gaussian tokens and a linear target: closed form per query component (``method='closed-form'``; mpmath at
    ``dps`` digits if given).  Otherwise (mixture tokens or a target not linear in z): importance-sampled Monte
    Carlo over queries, per query component xi ~ N(0, tau^2 I) with tau^2 = 1 / (1 - 2 lambda*) so that the estimator
    has finite variance for every lambda* < 1/2 (``method='monte-carlo'`` with ``standard_error``).
    ``drop`` ('bias-residual' or 'cross') removes that term (negative controls)."""
    th = threshold_info(mix, heads, queries)
    base = {"threshold": th["lambda"], "finite": th["finite"], "rate_exponent": th.get("rate_exponent"),
            "log_power": th.get("log_power")}
    if "log_power_note" in th:
        base["log_power_note"] = th["log_power_note"]
    if mix.n_components == 1 and getattr(target, "linear", False):
        return {**base, **_closed_form(mix, heads, queries, target, dps, drop, th["finite"])}
    return {**base, **_mc_average(mix, heads, queries, target, th, n_mc, seed, drop)}


def _closed_form(mix, heads, queries, target, dps, drop, finite):
    _w, mt, Gt = mix.arrays()
    qw, qm, qS = queries.arrays()
    harr = [h.arrays() for h in heads]
    B, N = target.arrays()
    terms, c0, R1 = _gaussian_terms(Gt[0], mt[0], harr, B)
    parts = {"variance": 0.0, "cross": 0.0, "bias_residual": 0.0}
    # risk at L = infinity: E||c0 + R1 z||^2 + tr(noise) (exact)
    rinf = float(np.trace(N))
    for j in range(len(qw)):
        rinf += qw[j] * float((c0 + R1 @ qm[j]) @ (c0 + R1 @ qm[j]) + np.trace(R1 @ qS[j] @ R1.T))
    out: dict[str, Any] = {"method": "closed-form", "standard_error": None}
    if not finite:
        out.update({"risk_infinite": rinf, "K": float("inf"), "variance": None, "bias_residual": None, "cross": None})
        if dps:
            out["risk_infinite"] = _closed_form_mp(mix, heads, queries, target, dps, drop, rinf_only=True)
        return out
    for S, al, be, Q, part in terms:
        for j in range(len(qw)):
            parts[part] += qw[j] * gaussian_exp_quadratic_mean(S, al, be, Q, qm[j], qS[j])
    var = parts["variance"] + (parts["cross"] if drop != "cross" else 0.0)
    bres = parts["bias_residual"] if drop != "bias-residual" else 0.0
    out.update({"risk_infinite": rinf, "K": var + bres, "variance": var, "bias_residual": bres,
                "cross": parts["cross"]})
    if dps:
        mpv = _closed_form_mp(mix, heads, queries, target, dps, drop)
        out.update(mpv)
    return out


def _closed_form_mp(mix, heads, queries, target, dps, drop, rinf_only=False):
    """mpmath version of the closed form (all matrices built from the exact inputs)."""
    with workdps(dps):
        _w, mt, Gt = mix.mp()
        G, m = Gt[0], mt[0]
        qw, qm, qS = queries.mp()
        Hs = [(_mpm(h.U), _mpm(h.V), _mpm(h.W)) for h in heads]
        B, N = _mpm(target.B), _mpm(target.noise)
        P = [Wh * Vh for _U, Vh, Wh in Hs]
        U = [Uh for Uh, _V, _W in Hs]
        H = len(P)
        c0 = -(P[0] * m)
        R1 = B - P[0] * G * U[0]
        for h in range(1, H):
            c0 -= P[h] * m
            R1 -= P[h] * G * U[h]
        tr = lambda X: mpm.fsum(X[i, i] for i in range(X.rows))
        sym = lambda X: (X + X.T) / 2
        rinf = tr(N)
        for j in range(len(qw)):
            e = c0 + R1 * qm[j]
            rinf += qw[j] * ((e.T * e)[0] + tr(R1 * qS[j] * R1.T))
        if rinf_only:
            return rinf
        D = G.rows
        parts = {"variance": mpm.mpf(0), "cross": mpm.mpf(0), "bias_residual": mpm.mpf(0)}
        zero = mpm.matrix(D, 1)
        for h in range(H):
            for k in range(H):
                S = sym(U[h].T * G * U[k])
                Q = sym(U[k].T * G * P[h].T * P[k] * G * U[h])
                al = tr(P[h] * G * P[k].T)
                for j in range(len(qw)):
                    parts["variance" if h == k else "cross"] += qw[j] * gaussian_exp_quadratic_mean_mp(S, al, zero, Q,
                                                                                                       qm[j], qS[j])
            S = sym(U[h].T * G * U[h])
            X = P[h] * G * U[h]
            for j in range(len(qw)):
                parts["bias_residual"] += qw[j] * gaussian_exp_quadratic_mean_mp(
                    S, mpm.mpf(0), 2 * X.T * c0, sym(2 * R1.T * X), qm[j], qS[j])
        var = parts["variance"] + (parts["cross"] if drop != "cross" else 0)
        bres = parts["bias_residual"] if drop != "bias-residual" else mpm.mpf(0)
        return {"risk_infinite": rinf, "K": var + bres, "variance": var, "bias_residual": bres,
                "cross": parts["cross"], "dps": dps}


def _mc_average(mix, heads, queries, target, th, n, seed, drop):
    qw, qm, qS = queries.arrays()
    rng = np.random.default_rng(np.random.SeedSequence(seed) if not isinstance(seed, np.random.SeedSequence) else seed)
    lam_j: dict = {}
    for r in th["rows"]:
        lam_j[r["query_component"]] = max(lam_j.get(r["query_component"], 0.0), r["lambda"])
    keys = ("K", "variance", "bias_residual", "cross", "risk_infinite")
    est = dict.fromkeys(keys, 0.0)
    var = dict.fromkeys(keys, 0.0)
    tau2s = []
    if not th["finite"]:
        est["K"] = float("inf")
    for j in range(len(qw)):
        nj = max(2, int(round(n * qw[j])))
        R = psd_sqrt(qS[j])
        lam = max(0.0, lam_j.get(j, 0.0))
        tau2 = 1.0 / (1.0 - 2 * lam) if th["finite"] else 1.0
        tau2s.append(tau2)
        xi = rng.standard_normal((nj, R.shape[1])) * np.sqrt(tau2)
        lw = 0.5 * R.shape[1] * np.log(tau2) - 0.5 * (xi**2).sum(1) * (1 - 1 / tau2)
        wt = np.exp(lw)
        c = risk_constants(mix, heads, target, qm[j][None] + xi @ R.T)
        c["variance"] = c["variance"] - (c["cross"] if drop == "cross" else 0.0)
        if drop == "bias-residual":
            c["bias_residual"] = 0 * c["bias_residual"]
        c["K"] = c["variance"] + c["bias_residual"]
        for kk in keys:
            if kk == "K" and not th["finite"]:
                continue
            x = wt * c[kk]
            est[kk] += qw[j] * x.mean()
            var[kk] += qw[j] ** 2 * x.var(ddof=1) / nj
    out = {"method": "monte-carlo", "risk_infinite": est["risk_infinite"], "K": est["K"], "variance": est["variance"],
           "bias_residual": est["bias_residual"], "cross": est["cross"],
           "standard_error": {k: float(np.sqrt(var[k])) for k in keys if th["finite"] or k != "K"},
           "queries_sampled": int(sum(max(2, int(round(n * x))) for x in qw)),
           "importance_sampling": "per query component xi ~ N(0, I / (1 - 2 lambda_j)), weights phi/phi_tau",
           "proposal_variance": tau2s}
    if not th["finite"]:
        out.update({"variance": None, "bias_residual": None, "cross": None})
    return out


def query_norm_point(queries: GaussianMixture) -> np.ndarray:
    """The negative control's single query: the mean query plus the mean query norm E||z - E z|| along
    the top principal axis of the query covariance (E||.|| by a fixed 2^16-point quasi-deterministic
    sample, seed 0)."""
    qw, qm, qS = queries.arrays()
    mu = qw @ qm
    Sig = sum(qw[j] * (qS[j] + np.outer(qm[j] - mu, qm[j] - mu)) for j in range(len(qw)))
    ev, Q = np.linalg.eigh(Sig)
    rng = np.random.default_rng(0)
    n = 1 << 16
    lab = np.searchsorted(np.cumsum(qw)[:-1], rng.random(n), side="right")
    Z = qm[lab] + np.einsum("nij,nj->ni", np.stack([psd_sqrt(S) for S in qS])[lab], rng.standard_normal((n, len(mu))))
    return mu + float(np.linalg.norm(Z - mu, axis=1).mean()) * Q[:, -1]
