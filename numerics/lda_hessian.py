"""Hessians of the attention-LDA risk and their kernels (Lemma B.11, Lemma B.13, Thm 3.5 / Lemma B.26).

Numerical procedures whose results the claims of :mod:`softmix.checks.paper.lda_hessian` decide:

* :func:`projected_vs_full_rule` -- the projected Gauss-Hermite rule of :func:`numerics.lda.eff_risk`
  against the parameter-independent full tensor rule (the reference for the rule the Hessians use);
* :func:`effective_risk_bivariate` -- R~(zeta) from the bivariate law of (w^T x, s^T x) in each class, in
  any dimension (no projection basis, no Cholesky factor of Gamma);
* :func:`projected_vs_bivariate_law` -- the projected rule's R~ against it at generic points (the check of
  the rule's basis where it matters: d >= 3);
* :func:`derivatives_vs_finite_differences` -- the quadrature gradient / Hessian of R(theta) against
  central finite differences of the risk at more digits;
* :func:`hessian_refined` -- the float64 Hessian of R(theta), its Gauss-Hermite rule refined until
  two successive rules agree;
* :func:`effective_hessian_kernel` -- the kernel dimension of the effective Hessian at a Bayes
  point, with the zero tolerance fixed from the quadrature error before the eigenvalues are read;
* :func:`eigenvalues_mp` -- eigenvalues of a symmetric matrix in mpmath, sorted by modulus.

Tested in tests/numerics/test_lda_hessian.py.
"""
from __future__ import annotations

import mpmath as mpm
import numpy as np

from . import lda as N
from .precision import workdps

__all__ = ["projected_vs_full_rule", "effective_risk_bivariate", "projected_vs_bivariate_law",
           "derivatives_vs_finite_differences", "hessian_refined",
           "effective_hessian_kernel", "eigenvalues_mp"]


def eigenvalues_mp(H, dps: int) -> list:
    """Eigenvalues of the symmetric matrix ``H`` (array of mpf or floats) at ``dps`` digits, by modulus."""
    with workdps(dps):
        E, _ = mpm.eigsy(mpm.matrix(H.tolist()))
        return sorted([E[i] for i in range(E.rows)], key=lambda x: abs(x))


def projected_vs_full_rule(P, rng, n: int = 40) -> dict:
    """numerics.lda.eff_risk's projected rule (Gauss-Hermite on span{L^T w, L^T s}, the orthogonal
    complement added exactly through Cov = Gamma - L Q (L Q)^T) against the parameter-independent tensor
    rule in all d directions (full_basis), float64, at three generic effective points drawn from ``rng``:
    w, s independent (k = min(d, 2)), s = 0.7 w (k = 1: the complement corrections are non-zero) and
    w = s = 0 (k = 0), each with b, r != 0.  R~, its gradient and its Hessian must agree within
    10 (|rule(n) - rule(1.5n+2)| of both rules) + 1e3 eps max(1, scale), entrywise maximum.  Run it for
    d <= 2 (the full rule has n^d nodes: 4.5 s in d = 3).  Returns {"points": rows, "nodes", "passed"}."""
    d = P.d
    w, s = rng.standard_normal(d), rng.standard_normal(d)
    b, r = rng.standard_normal(2)
    pts = [("k = min(d, 2)", np.concatenate([w, [b, r], s])),
           ("k = 1 (s = 0.7 w)", np.concatenate([w, [b, r], 0.7 * w])),
           ("k = 0 (w = s = 0)", np.concatenate([0 * w, [b, r], 0 * s]))]
    rows, ok = [], True
    flat = lambda t: np.concatenate([[t[0]], t[1], t[2].ravel()])
    n2 = int(1.5 * n) + 2
    for label, z in pts:
        a1, a2 = flat(N.eff_risk(P, z, 2, n)), flat(N.eff_risk(P, z, 2, n2))
        f1, f2 = flat(N.eff_risk(P, z, 2, n, None, True)), flat(N.eff_risk(P, z, 2, n2, None, True))
        eps = np.finfo(float).eps
        tol = 10 * (np.max(np.abs(a1 - a2)) + np.max(np.abs(f1 - f2))) + 1e3 * eps * max(1.0, np.max(np.abs(f2)))
        res = float(np.max(np.abs(a2 - f2)))
        rows.append({"point": label, "residual": res, "tolerance": float(tol), "passed": bool(res <= tol)})
        ok &= res <= tol
    return {"points": rows, "nodes": [n, n2], "passed": bool(ok)}


def effective_risk_bivariate(P, zeta, n: int = 40) -> float:
    """R~(zeta) = sum_c pi_c E_{x ~ N(m_c, Gamma)} softplus(-c g(x)), g(x) = w^T x + b + r sigmoid(s0 + s^T x),
    from the law of (u, v) = (w^T x, s^T x): bivariate Gaussian with mean (w^T m_c, s^T m_c) and covariance
    [[w^T Gamma w, w^T Gamma s], [s^T Gamma w, s^T Gamma s]].  E f(u, v) by a tensor Gauss-Hermite rule of
    n^2 nodes (numpy's hermegauss) through the symmetric square root of that 2 x 2 covariance (singular
    when s is parallel to w or either vanishes).  float64, any d: it shares neither the projection basis of
    numerics.lda.eff_risk nor Gamma's Cholesky factor."""
    m1, m_1, G, _L, pi, s0 = P.arrays(False)
    d = P.d
    z = np.asarray(zeta, float)
    w, b, r, s = z[:d], z[d], z[d + 1], z[d + 2:]
    C = np.array([[w @ G @ w, w @ G @ s], [s @ G @ w, s @ G @ s]])
    lam, V = np.linalg.eigh(C)
    R = V @ np.diag(np.sqrt(np.clip(lam, 0.0, None))) @ V.T
    x, wt = np.polynomial.hermite_e.hermegauss(n)
    wt = wt / np.sqrt(2 * np.pi)
    e1, e2 = (a.ravel() for a in np.meshgrid(x, x, indexing="ij"))
    W = np.outer(wt, wt).ravel()
    total = 0.0
    for c, pc, mc in ((1, pi, m1), (-1, 1 - pi, m_1)):
        u = w @ mc + R[0, 0] * e1 + R[0, 1] * e2
        v = s @ mc + R[1, 0] * e1 + R[1, 1] * e2
        g = u + b + r / (1 + np.exp(-(s0 + v)))
        total += pc * float(W @ np.logaddexp(0.0, -c * g))
    return total


def projected_vs_bivariate_law(P, rng, n: int = 40) -> dict:
    """numerics.lda.eff_risk's R~ (projected rule) against :func:`effective_risk_bivariate` at two generic
    effective points drawn from ``rng`` (w, s independent, b, r != 0; and s = 0.7 w, k = 1).  In d <= 2 the
    projected basis spans R^d at a generic point, so only d >= 3 tests which directions the basis keeps.
    Pass: |R~ - reference| <= 10 (|rule(n) - rule(1.5n+2)| of both) + 1e3 eps max(1, |R~|).  float64.
    Returns {"points": rows, "dimension", "nodes", "passed"}."""
    d = P.d
    w, s = rng.standard_normal(d), rng.standard_normal(d)
    b, r = rng.standard_normal(2)
    pts = [("w, s independent", np.concatenate([w, [b, r], s])),
           ("s = 0.7 w", np.concatenate([w, [b, r], 0.7 * w]))]
    n2 = int(1.5 * n) + 2
    rows, ok = [], True
    for label, z in pts:
        a1, a2 = float(N.eff_risk(P, z, 0, n)[0]), float(N.eff_risk(P, z, 0, n2)[0])
        f1, f2 = effective_risk_bivariate(P, z, n), effective_risk_bivariate(P, z, n2)
        tol = 10 * (abs(a1 - a2) + abs(f1 - f2)) + 1e3 * np.finfo(float).eps * max(1.0, abs(f2))
        res = abs(a2 - f2)
        rows.append({"point": label, "projected": a2, "bivariate": f2, "residual": res, "tolerance": float(tol),
                     "passed": bool(res <= tol)})
        ok = ok and bool(res <= tol)
    return {"points": rows, "dimension": d, "nodes": [n, n2], "passed": bool(ok)}


def derivatives_vs_finite_differences(P, theta, dps: int, n: int):
    """(|grad - FD grad|, |Hess - FD Hess|, scale): the population gradient and Hessian of R at ``theta``
    (full tensor Gauss-Hermite rule with ``n`` nodes, at dps + 15 digits) against central finite
    differences of the risk and of the gradient (step 10^(2 - dps/2), error O(h^2) = 10^(4 - dps)), entrywise
    maxima; ``scale`` is the largest entry of the gradient and Hessian.  mpf values."""
    th = list(theta)
    with workdps(dps + 15):
        _R, g, H = N.hess_theta(P, th, n, dps + 15, True)
        h = mpm.mpf(10) ** (-(dps // 2) + 2)
        fd_g, fd_H = [], []

        def risk(t):
            return N.risk_theta(P, t, n, dps + 15, True)

        def grad(t):
            return N.grad_theta(P, t, n, dps + 15, True)[1]

        for i in range(len(th)):
            tp = [a + (h if k == i else 0) for k, a in enumerate(th)]
            tm = [a - (h if k == i else 0) for k, a in enumerate(th)]
            fd_g.append((risk(tp) - risk(tm)) / (2 * h))
            fd_H.append((grad(tp) - grad(tm)) / (2 * h))
        rg = max(abs(a - b) for a, b in zip(fd_g, g))
        rH = max(abs(fd_H[i][j] - H[i, j]) for i in range(len(th)) for j in range(len(th)))
        sc = max([abs(x) for x in g] + [abs(x) for x in H.ravel()])
    return rg, rH, sc


def hessian_refined(P, theta, n: int, max_nodes: int):
    """Hessian of R at theta in float64, Gauss-Hermite rule refined n -> 1.5 n + 2 until two successive
    rules agree to 1e-10 x max|H| or the next rule would pass ``max_nodes``; tensor rule in all d
    directions for d <= 2 (the projected rule converges slowly when |s| is large: |s| = 10.5 gave a
    spurious negative eigenvalue -1.7e-3 at 40 nodes).  Returns (H, |grad R|, quadrature error
    max|H(n) - H(n')|, n).  The error is an a-posteriori estimate of the coarser rule's."""
    full = P.d <= 2
    _R, _g, H = N.hess_theta(P, theta, n, None, full)
    while True:
        n2 = int(1.5 * n) + 2
        _R, g2, H2 = N.hess_theta(P, theta, n2, None, full)
        qerr = float(np.max(np.abs(H2 - H)))
        if qerr <= 1e-10 * float(np.abs(H2).max()) or int(1.5 * n2) + 2 > max_nodes:
            return (H2 + H2.T) / 2, float(np.linalg.norm(g2)), qerr, n2
        H, n = H2, n2


def _kernel_at(P, z, m, dps, H2_prev):
    """One rule: eigenvalues of the effective Hessian at rule 1.5m + 2, the quadrature error against rule m
    (and the previous finest rule), the zero tolerance and the classification."""
    mp = dps is not None
    H = N.eff_risk(P, z, 2, m, dps)[2]
    H2 = N.eff_risk(P, z, 2, int(1.5 * m) + 2, dps)[2]
    qerr = max(abs(a - b) for a, b in zip(H.ravel(), H2.ravel()))
    if H2_prev is not None:  # refined: also the previous finest rule, against an accidental agreement
        qerr = max(qerr, max(abs(a - b) for a, b in zip(H2_prev.ravel(), H2.ravel())))
    eigs = eigenvalues_mp(H2, dps) if mp else sorted(np.linalg.eigvalsh(H2.astype(float)), key=abs)
    sc = max(abs(x) for x in eigs)
    floor = (mpm.mpf(10) ** (10 - dps)) if mp else 1e-13
    tol = max(floor * sc, 100 * qerr)  # fixed from the precision and the quadrature error, not from the spectrum
    rest = [e for e in eigs if abs(e) > tol]
    return H2, tol, len(eigs) - len(rest), rest, all(abs(e) > 10 * tol for e in rest)


def effective_hessian_kernel(P, zeta, n: int, max_nodes: int, dps: int | None = None) -> dict:
    """Kernel dimension of the effective Hessian grad^2 R~(zeta) (Gauss-Hermite, float64 or ``dps`` digits).

    An eigenvalue is zero iff |lambda| <= tol = max(floor x max|lambda|, 100 x |H(n) - H(1.5n+2)|), floor
    10^(10-dps) (float64: 1e-13); the non-zero ones must exceed 10 tol (``resolved``).  While one lies in
    between, the rule is refined (n x 1.5, up to ``max_nodes``): the rule is the same at every n, only the
    quadrature error shrinks.  Returns {"nullity", "smallest_nonzero_eigenvalue", "zero_tolerance",
    "nodes", "resolved"} (mpf or float values)."""
    m, H2_prev = n, None
    while True:
        with workdps(dps or 15):
            H2_prev, tol, nul, rest, resolved = _kernel_at(P, zeta, m, dps, H2_prev)
        if resolved or int(1.5 * m) > max_nodes:
            break
        m = int(1.5 * m)
    return {"nullity": nul, "smallest_nonzero_eigenvalue": min(rest, key=abs) if rest else None,
            "zero_tolerance": tol, "nodes": m, "resolved": resolved}
