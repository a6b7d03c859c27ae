"""Independent references for the Bayes points of attention-based LDA (Sec. 3, App. B).

Each function computes a quantity of the paper from its definition by a route that does not go
through the production numerics it is compared with (:mod:`softmix.numerics.lda`):

* :func:`start_check` -- is a parameter vector the kind of starting point an experiment claims
  (a Bayes point of Theta1 / Theta2 against the class densities by scipy, a Krylov start, a
  Gaussian start)?
* :func:`numeric_constructions` -- the numeric constructions of Bayes-realising points
  (Lemma B.3, Table 3) decided on one configuration;
* :func:`bayes_risk_reference` -- R* = sum_c pi_c E softplus(-c f*(X)) by tanh-sinh (Lemma B.4);
* :func:`gaussian_positive_part_reference` -- E[max(X, 0)], X ~ N(mu, s^2), by tanh-sinh (Lemma B.6);

Tested in tests/numerics/test_lda_bayes.py.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath as mpm
import numpy as np

from . import lda as N
from .memo import memoised
from .precision import workdps

__all__ = ["R_TARGET", "start_check", "numeric_constructions", "bayes_risk_reference",
           "gaussian_positive_part_reference"]

#: r(theta*) asked of numerics.lda_landscape.theta2_mp where it is free (pi_+ = 1/2): not 1, its default
R_TARGET = Fraction(-7, 4)


def _bayes_start(P, th, z, kind, seed, out):
    from scipy.stats import multivariate_normal as mvn

    d = P.d
    m1, m_1, G, _L, pi, _s0 = P.arrays()
    X = np.random.default_rng(seed).standard_normal((16, d)) * 2 + (m1 + m_1) / 2
    bayes = (np.log(pi) - np.log(1 - pi) + mvn(m1, G).logpdf(X) - mvn(m_1, G).logpdf(X))
    err = float(np.max(np.abs(N.f_theta_batch(P, th, X) - bayes)))
    tol = 1e-8 * max(1.0, float(np.max(np.abs(bayes))))
    out.update({"max_abs_f_minus_bayes": err, "tolerance": tol})
    s_norm = float(np.linalg.norm(z[d + 2:]))
    out["s_norm"] = s_norm
    if kind == "theta1":
        out["r"] = float(z[d + 1])
        return err <= tol and abs(z[d + 1]) <= 1e-10 and s_norm > 1e-8
    return err <= tol and s_norm <= 1e-10


def start_check(P, theta, kind: str, seed: int = 0) -> dict:
    """Check an experiment's starting point (a row with ``passed``).

    kind = "theta1": f_theta = f* (Bayes log-odds from the Gaussian densities, computed here with
    scipy, not from the problem's Bayes coefficients) at 16 sampled x (``seed``) within
    1e-8 max(1, |f*|), r = 0 and s != 0; "theta2": f_theta = f* and s = 0; "krylov" (fig-5 /
    thm-3.6 starts): blocks U11 = 0, u12 = 0, v22 = 0, v21 != 0, and w = 0, s = 0 in effective
    coordinates; "gaussian" (fig-4): every entry non-zero with sample mean and variance of a
    standard normal (|mean| <= 5/sqrt(n), variance in [1/3, 3])."""
    d = P.d
    th = np.asarray(theta, float)
    z = N.phi(P, th)
    out: dict = {"kind": kind}
    if kind in ("theta1", "theta2"):
        ok = _bayes_start(P, th, z, kind, seed, out)
    elif kind == "krylov":
        U, u, v, v22 = N.unpack_theta(th, d)
        out.update({"U11_max": float(np.max(np.abs(U))), "u12_max": float(np.max(np.abs(u))), "v22": float(v22),
                    "v21_norm": float(np.linalg.norm(v)), "w_norm": float(np.linalg.norm(z[:d])),
                    "s_norm": float(np.linalg.norm(z[d + 2:]))})
        ok = (out["U11_max"] == 0 and out["u12_max"] == 0 and v22 == 0 and out["v21_norm"] > 0
              and out["w_norm"] == 0 and out["s_norm"] == 0)
    elif kind == "gaussian":
        n = th.size
        out.update({"mean": float(th.mean()), "variance": float(th.var()), "zeros": int(np.sum(th == 0))})
        ok = out["zeros"] == 0 and abs(out["mean"]) <= 5 / np.sqrt(n) and 1 / 3 <= out["variance"] <= 3
    else:
        raise ValueError(kind)
    out["passed"] = bool(ok)
    return out


def _theta2_mp_row(P, dps, r_target):
    from . import lda_landscape as LL

    d = P.d
    th = LL.theta2_mp(P, r_target, dps)
    with workdps(dps):
        z = N.phi(P, th, True)
        ws, bs = P.bayes(True)
        r = z[d + 1]
        pi = mpm.mpf(P.pi.numerator) / P.pi.denominator  # sigma(s0) = pi_+ exactly
        res = max([abs(x) for x in z[d + 2:]] + [abs(a - b) for a, b in zip(z[:d], ws)] + [abs(z[d] + r * pi - bs)])
        tol = mpm.mpf(10) ** (10 - dps) * max(1, max(abs(x) for x in z))
        target = mpm.mpf(r_target.numerator) / r_target.denominator
        r_ok = (abs(r - target) <= mpm.mpf(10) ** (10 - dps) * max(1, abs(r))) if P.balanced \
            else abs(r) > mpm.mpf(10) ** (10 - dps)
    st = start_check(P, np.array([float(x) for x in th]), "theta2")
    on_e2 = {"passed": bool(res <= tol), "residual": mpm.nstr(res, 5), "tolerance": mpm.nstr(tol, 3)}
    return {"on_E2": on_e2, "r": mpm.nstr(r, 15), "r_target": str(r_target) if P.balanced else None,
            "r_ok": bool(r_ok), "start_check": st, "passed": bool(on_e2["passed"] and r_ok and st["passed"])}


def numeric_constructions(P, dps: int = 30, r_target: Fraction = R_TARGET) -> tuple[dict, bool]:
    """The numeric constructions of Bayes-realising points (Lemma B.3, Table 3) decided on one configuration.

    * numerics.lda.construct_theta1 (unless m1 = -m_-1 with pi_+ != 1/2, where no r = 0 point has b = b*):
      start_check 'theta1' -- f_theta = the log-odds of the class densities (scipy) at 16 points within
      1e-8 max(1, |f*|), r = 0, s != 0;
    * numerics.lda.construct_theta2 (pi_+ != 1/2): start_check 'theta2' (f_theta = f*, s = 0) and r != 0;
    * numerics.lda_landscape.theta2_mp at ``dps`` digits (both branches; raises ValueError exactly in the
      symmetric balanced case): s = 0, w = w*, b + r sigma(s0) = b* with residuals <= 10^(10-dps) max(1, |.|),
      start_check 'theta2' on its float64 value, and r = ``r_target`` when pi_+ = 1/2 (where r is free),
      r != 0 otherwise;
    * LDAProblem.to_params: the echoed configuration parses back to the same problem (exact Fractions).

    Returns (rows by construction, all passed)."""
    from . import lda_landscape as LL

    d = P.d
    rows: dict[str, dict] = {}
    rows["to_params_round_trip"] = {"passed": bool(N.LDAProblem.from_params(P.to_params()) == P)}
    if not (P.symmetric and not P.balanced):
        rows["construct_theta1"] = start_check(P, N.construct_theta1(P), "theta1")
    if not P.balanced:
        th = N.construct_theta2(P)
        st = start_check(P, th, "theta2")
        st["r"] = float(N.phi(P, th)[d + 1])
        st["passed"] = bool(st["passed"] and abs(st["r"]) > 1e-8)
        rows["construct_theta2"] = st
    if P.balanced and P.symmetric:
        try:
            LL.theta2_mp(P, r_target, dps)
            rows["theta2_mp"] = {"passed": False, "reason": "no ValueError in the symmetric balanced case"}
        except ValueError as e:
            rows["theta2_mp"] = {"passed": True, "raised": str(e)}
    else:
        rows["theta2_mp"] = _theta2_mp_row(P, dps, r_target)
    return rows, all(v["passed"] for v in rows.values())


@memoised("lda_bayes.bayes_risk_reference")
def bayes_risk_reference(P, dps: int):
    """R* = sum_c pi_c E softplus(-c f*(X)) from its definition, independently of numerics.lda.bayes_risk:
    f*(X) | class c ~ N(w*^T m_c + b*, w*^T Gamma w*) with w* = Gamma^-1 dm and b* of eq. (5) solved here in
    mpmath, each class's 1-D integral by mpmath.quad (tanh-sinh) split at the kink of softplus.  Returns
    (value, error estimate) at ``dps`` digits; remembered in the run's memo."""
    with workdps(dps + 5):
        m1, m_1, G, _L, pi, s0 = P.arrays(True)
        Gm = mpm.matrix(G.tolist())
        sol = lambda v: np.array(list(mpm.lu_solve(Gm, mpm.matrix(list(v)))), dtype=object)
        ws = sol(m1 - m_1)
        bs = -(m1 @ sol(m1) - m_1 @ sol(m_1)) / 2 + s0
        sd = mpm.sqrt(ws @ G @ ws)
        tot, err = mpm.mpf(0), mpm.mpf(0)
        for c, pc, mc in ((1, pi, m1), (-1, 1 - pi, m_1)):
            mu = ws @ mc + bs

            def f(t, mu=mu, c=c):
                a = -c * (mu + sd * t)
                return mpm.npdf(t) * (a + mpm.log1p(mpm.exp(-a)) if a > 0 else mpm.log1p(mpm.exp(a)))
            v, e = mpm.quad(f, [-mpm.inf, -mu / sd, mpm.inf], error=True)
            tot += pc * v
            err += pc * e
        return +tot, +err


def gaussian_positive_part_reference(mu, sigma, dps: int):
    """E[max(X, 0)] for X ~ N(mu, sigma^2) from its definition: int_{-mu/s}^oo (mu + s t) phi(t) dt by
    mpmath.quad (tanh-sinh) at ``dps`` + 10 digits in the standardised variable, split at the peak t = 0
    when it lies inside the range (tanh-sinh on [0, oo) in x misses a narrow peak).  Returns (value,
    quadrature error estimate)."""
    with workdps(dps + 10):
        mu, sigma = mpm.mpf(mu), mpm.mpf(sigma)
        q = mu / sigma
        pts = [-q, 0, mpm.inf] if q > 0 else [-q, mpm.inf]
        return mpm.quad(lambda t: (mu + sigma * t) * mpm.npdf(t), pts, error=True)
