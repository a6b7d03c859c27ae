"""Numeric rows deciding the probabilistic steps of App. C (display ledger), at drawn generic
configurations from ``ctx.stream``:

* C.1#3 (Bayes' formula) and C.1#4 (total expectation): the posterior and the conditional mean
  computed from the definitions by two different Gauss-Hermite quadratures (the convolution of each
  component with the noise; the mixture density integrated against the noise kernel around z),
  agreeing to 9 digits (:class:`softmix.Residual`);
* C.7#2 (law of large numbers for linear attention) and C.8#4 (orthogonality of the conditional
  expectation): Monte Carlo z-tests (:class:`softmix.ZTest`) at the claim's family-wise alpha.

``perturb`` (the control): the stated side altered by 2/11 in its first entry; the same rows must
refute it."""
from __future__ import annotations

import numpy as np

from ..rules import AlphaFamily, Bound, Residual, ZTest

__all__ = ["C1_CHECKS", "C7_CHECKS", "C8_CHECKS", "bayes_rows", "lln_rows", "orthogonality_rows", "c7_rows",
           "linear_excess_rows"]

C1_CHECKS = ("C.1#3 Bayes' formula by quadrature", "C.1#4 total expectation by quadrature")
C7_CHECKS = ("C.7#2 law of large numbers (Monte Carlo)", "C.7#7 A* minimises R over linear maps",
             "C.7#7 R(A*) - R(f*) = E|A* Z - f*(Z)|^2 (Monte Carlo)")
C8_CHECKS = ("C.8#4 orthogonality of E[X|Z] (Monte Carlo)",)
_BUMP = 2 / 11


def _spd(rng, d, lo, hi):
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    return Q @ np.diag(rng.uniform(lo, hi, d)) @ Q.T


def _gauss(x, m, S):
    r = x - m
    Si = np.linalg.inv(S)
    q = np.einsum("...i,ij,...j->...", r, Si, r)
    return np.exp(-q / 2) / np.sqrt((2 * np.pi) ** len(m) * np.linalg.det(S))


def _grid(d, n):
    x, w = np.polynomial.hermite.hermgauss(n)
    g = np.stack(np.meshgrid(*[np.sqrt(2) * x] * d, indexing="ij"), -1).reshape(-1, d)
    p = np.prod(np.stack(np.meshgrid(*[w / np.sqrt(np.pi)] * d, indexing="ij"), -1).reshape(-1, d), axis=1)
    return g, p


def bayes_rows(ctx, perturb: bool, n_cfg: int = 3, d: int = 2, n: int = 90) -> list:
    """C.1#3 and C.1#4 at drawn (pi, m_k, Gamma, xi, z), M = 3 components."""
    rng, rows, bump = ctx.stream("bayes-quadrature"), [], (_BUMP if perturb else 0.0)
    g, p = _grid(d, n)
    for i in range(n_cfg):
        pi = rng.dirichlet(np.ones(3))
        ms = rng.normal(size=(3, d))
        G, xi = _spd(rng, d, 0.3, 1.2), rng.uniform(0.6, 1.0)
        S, Lc = G + xi**2 * np.eye(d), np.linalg.cholesky(G)
        z = rng.normal(size=d) * 1.5
        noise = lambda r: np.exp(-np.sum(r**2, -1) / (2 * xi**2)) / (2 * np.pi * xi**2) ** (d / 2)
        X = ms[:, None, :] + g @ Lc.T                            # component k's X = m_k + L g
        ker = noise(z - X)                                       # (3, nodes)
        pz = ker @ p                                             # p(z | C = k), the convolution by quadrature
        beta_q = pi * pz / (pi @ pz)
        post_mean = np.einsum("kn,knd,n->kd", ker, X, p) / pz[:, None]    # E[X | Z = z, C = k]
        stated3 = np.array([pi[k] * _gauss(z, ms[k], S) for k in range(3)])
        stated3 = stated3 / stated3.sum()
        stated3[0] += bump
        rows.append({"check": C1_CHECKS[0], "config": i,
                     **Residual(digits=9).decide(np.max(np.abs(beta_q - stated3)), 1)})
        x = z + xi * g                                           # E[X | Z = z] from the mixture density
        mix = sum(pi[k] * _gauss(x, ms[k], G) for k in range(3))
        direct = (mix * p) @ x / (mix @ p)
        stated4 = beta_q @ post_mean
        stated4[0] += bump
        rows.append({"check": C1_CHECKS[1], "config": i,
                     **Residual(digits=9).decide(np.max(np.abs(direct - stated4)), np.max(np.abs(direct)))})
    return rows


def _mixture_samples(rng, n, pi, ms, S):
    k = rng.choice(len(pi), size=n, p=pi)
    return ms[k] + rng.standard_normal((n, len(ms[0]))) @ np.linalg.cholesky(S).T


def c7_rows(ctx, perturb: bool) -> list:
    """The rows of App. C.7 (C.7#2 and C.7#7), one family-wise alpha split in halves."""
    fam = AlphaFamily(name="steps-thm-4.1-gap")
    return (lln_rows(ctx, perturb, fam=fam.sub("C.7#2", 0.5))
            + linear_excess_rows(ctx, perturb, fam=fam.sub("C.7#7", 0.5)))


def linear_excess_rows(ctx, perturb: bool, fam=None, n: int = 200_000, d: int = 2, n_cfg: int = 2) -> list:
    """C.7#7 at a drawn task pi_1 N(m_1, Gamma) + pi_2 N(m_2, Gamma) with N(0, xi^2 I) noise: A* from the normal
    equations of the risk C.7#5 (R(A) = tr((I - A) E[XX^T] (I - A)^T) + xi^2 |A|_F^2) is not beaten by drawn A
    (exact closed forms, float64), and R(A*) - R(f*) = E|A* Z - f*(Z)|^2 by a Monte Carlo z-test of
    |A* Z - X|^2 - |f*(Z) - X|^2 - |A* Z - f*(Z)|^2 (mean 0), f* the Bayes denoiser of Prop. C.1."""
    rng, rows = ctx.stream("linear-excess"), []
    fam = fam if fam is not None else AlphaFamily(name="C.7#7")
    k = 4.0 if perturb else 1.0
    for i in range(n_cfg):
        pi1 = rng.uniform(0.2, 0.8)
        pi, ms = np.array([pi1, 1 - pi1]), rng.normal(size=(2, d))
        G, xi2 = _spd(rng, d, 0.3, 1.2), rng.uniform(0.3, 1.5)
        Exx = G + sum(pi[j] * np.outer(ms[j], ms[j]) for j in range(2))
        risk = lambda A: float(np.trace((np.eye(d) - A) @ Exx @ (np.eye(d) - A).T) + xi2 * np.sum(A * A))
        A_star = Exx @ np.linalg.inv(Exx + xi2 * np.eye(d))
        for _ in range(4):
            A = A_star + rng.normal(size=(d, d)) * rng.uniform(0.01, 1.0)
            lhs = risk(A_star) + (k - 1) * (risk(A) - risk(A_star))
            rows.append({"check": C7_CHECKS[1], "config": i, **Bound(slack=1e-12).decide(lhs, risk(A))})
        X = _mixture_samples(rng, n, pi, ms, G)
        Z = X + np.sqrt(xi2) * rng.standard_normal((n, d))
        S = G + xi2 * np.eye(d)
        w = np.stack([pi[j] * _gauss(Z, ms[j], S) for j in range(2)], 1)
        beta = w / w.sum(1, keepdims=True)
        fstar = Z @ (G @ np.linalg.inv(S)).T + xi2 * (beta @ ms) @ np.linalg.inv(S).T
        D = (np.sum((Z @ A_star.T - X) ** 2, 1) - np.sum((fstar - X) ** 2, 1)
             - np.sum((Z @ A_star.T - fstar) ** 2, 1))
        test = ZTest(fam.take(f"config {i}", n_cfg), margin=0.1, name="C.7#7 z-test")
        rows.append({"check": C7_CHECKS[2], "config": i, "samples": n,
                     **test.decide(D.mean(), D.std(ddof=1) / np.sqrt(n), -_BUMP if perturb else 0.0, n_samples=n)})
    return rows


def lln_rows(ctx, perturb: bool, fam=None, n: int = 200_000, d: int = 2, n_cfg: int = 2) -> list:
    """C.7#2: (1/L) sum_k (Z_k^T U z) V Z_k against V (int z' z'^T dmu) U z, Z_k from a drawn mixture."""
    rng, rows = ctx.stream("lln-samples"), []
    fam = fam if fam is not None else AlphaFamily(name="C.7#2")
    for i in range(n_cfg):
        pi1 = rng.uniform(0.2, 0.8)
        pi, ms, S = np.array([pi1, 1 - pi1]), rng.normal(size=(2, d)), _spd(rng, d, 0.3, 1.5)
        U, V, z = rng.normal(size=(d, d)) / 2, rng.normal(size=(d, d)) / 2, rng.normal(size=d)
        Z = _mixture_samples(rng, n, pi, ms, S)
        Y = (Z @ (U @ z))[:, None] * (Z @ V.T)
        second = S + sum(pi[k] * np.outer(ms[k], ms[k]) for k in range(2))
        pred = V @ second @ U @ z
        pred[0] += _BUMP if perturb else 0.0
        test = ZTest(fam.take(f"config {i}", n_cfg), margin=0.1, name="C.7#2 z-test")
        rows.append({"check": C7_CHECKS[0], "config": i, "samples": n,
                     **test.decide(Y.mean(0), Y.std(0, ddof=1) / np.sqrt(n), pred, n_samples=n)})
    return rows


def orthogonality_rows(ctx, perturb: bool, n: int = 200_000, d: int = 2, n_cfg: int = 2) -> list:
    """C.8#4: R(f) - R(f*) - E||f(Z) - f*(Z)||^2 = 2 E<f - f*, f* - X> = 0 for a drawn affine f, f* the
    Bayes denoiser (Prop. C.1) of a drawn task pi_1 N(m_1, g^2 I) + pi_2 N(m_2, g^2 I) plus N(0, xi^2 I) noise."""
    rng, fam, rows = ctx.stream("orthogonality-samples"), AlphaFamily(name="C.8#4"), []
    for i in range(n_cfg):
        pi1 = rng.uniform(0.2, 0.8)
        pi, ms = np.array([pi1, 1 - pi1]), rng.normal(size=(2, d))
        gam2, xi2 = rng.uniform(0.3, 1.5), rng.uniform(0.3, 1.5)
        X = _mixture_samples(rng, n, pi, ms, gam2 * np.eye(d))
        Z = X + np.sqrt(xi2) * rng.standard_normal((n, d))
        S = (gam2 + xi2) * np.eye(d)
        w = np.stack([pi[k] * _gauss(Z, ms[k], S) for k in range(2)], 1)
        beta = w / w.sum(1, keepdims=True)
        fstar = gam2 / (gam2 + xi2) * Z + xi2 / (gam2 + xi2) * beta @ ms
        A, b = rng.normal(size=(d, d)), rng.normal(size=d)
        f = Z @ A.T + b
        D = np.sum((f - X) ** 2, 1) - np.sum((fstar - X) ** 2, 1) - np.sum((f - fstar) ** 2, 1)
        pred = -_BUMP if perturb else 0.0
        test = ZTest(fam.take(f"config {i}", n_cfg), margin=0.1, name="C.8#4 z-test")
        rows.append({"check": C8_CHECKS[0], "config": i, "samples": n,
                     **test.decide(D.mean(), D.std(ddof=1) / np.sqrt(n), pred, n_samples=n)})
    return rows
