"""Ball-arithmetic certificate of the normal Hessian at a regular Bayes point (Thm 3.5 / Lemma B.26, C1).

* :func:`normal_hessian_certificate` -- on an LDA configuration with d = 2 and Gamma = I, at the point
  theta* of Theta_1^reg with s* = c w*: the risk Hessian in effective coordinates (w, b, r) as balls
  (six 1-D integrals E[kappa t^j gate^k] over [-T, T] enlarged by an explicit Gaussian tail bound),
  the Jacobian DC(theta*) of Lemma B.14, and a certified lower bound on the smallest non-zero (normal)
  eigenvalue of DC^T H DC (ball Cholesky), or, when s* = 0, an exact null normal direction;
* :func:`hessian_integrals_reference` -- the same six integrals over the whole line by mpmath
  Gauss-Legendre, without ball or truncation bound (the independent path the certificate's balls are
  checked against);
* :func:`hessian_wbr_reference` -- H = E[kappa F F^T] in the original coordinates (w1, w2, b, r) by a
  two-dimensional float64 Gauss-Hermite rule, without the one-dimensional reduction or the rotation the
  certificate assembles H from (the independent path its Hessian balls are checked against);
* :func:`enclosure_rows` -- does each ball contain its reference value (tri-state)?

Needs python-flint (``ModuleNotFoundError`` otherwise).  Tested in tests/numerics/test_lda_certificates.py.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath as mpm
import numpy as np

from . import balls as B

__all__ = ["KAPPA_MOMENTS", "normal_hessian_certificate", "hessian_integrals_reference", "hessian_wbr_reference",
           "enclosure_rows"]

#: the (j, k) of the integrals E[kappa(t) t^j gate(t)^k] the Hessian is made of
KAPPA_MOMENTS = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)]


def _F(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x))


def _geometry(m1, mm, pi, c_s, T):
    """Balls of the one-dimensional reduction: t = e.X with e = dm / |dm| (Gamma = I), v = e_perp.X."""
    dm = [a - b for a, b in zip(m1, mm)]
    nd = B.to_arb(dm[0] ** 2 + dm[1] ** 2).sqrt()
    g: dict[str, Any] = {"dm": dm, "nd": nd, "e": [B.to_arb(v) / nd for v in dm]}
    g["ep"] = [-g["e"][1], g["e"][0]]
    g["mu_p"] = B.to_arb(dm[0] * m1[0] + dm[1] * m1[1]) / nd  # e . m_1
    g["mu_m"] = B.to_arb(dm[0] * mm[0] + dm[1] * mm[1]) / nd  # e . m_{-1}
    g["n_p"] = B.to_arb(-dm[1] * m1[0] + dm[0] * m1[1]) / nd  # e_perp . X ~ N(n_p, 1) for both classes
    g["s0"] = (B.to_arb(pi) / B.to_arb(1 - pi)).log()
    g["bstar"] = -B.to_arb(Fraction(1, 2) * (m1[0] ** 2 + m1[1] ** 2 - mm[0] ** 2 - mm[1] ** 2)) + g["s0"]
    g["pia"], g["pib"], g["cs"] = B.to_arb(pi), B.to_arb(1 - pi), B.to_arb(c_s)
    # |kappa t^j gate^k| <= (1/4)(1 + t^2) for j <= 2: explicit Gaussian tail bound
    g["tail"] = (g["pia"] * (B.poly2_tail(T, g["mu_p"]) + B.poly2_tail(T, -g["mu_p"]))
                 + g["pib"] * (B.poly2_tail(T, g["mu_m"]) + B.poly2_tail(T, -g["mu_m"]))) / 4
    return g


def _gate(g, pi, c_s):
    """sigma(s0 + s*^T X) with s* = c w* (a function of t only); the constant sigma(s0) = pi+ when c = 0."""
    if c_s == 0:
        if 1 / (1 + (1 - pi) / pi) != pi:  # sigma(log(pi/(1-pi))) = pi in exact rational arithmetic
            raise ArithmeticError("sigma(log(pi/(1-pi))) != pi")
        const = B.to_arb(pi)
        return lambda t: const
    return lambda t: B.sigmoid(g["s0"] + g["cs"] * g["nd"] * t)


def _integrals(g, gate, T):
    """Balls of E[kappa t^j gate^k] (kappa = eta (1 - eta)), integral over [-T, T] plus the tail bound."""
    def dens(t):
        return g["pia"] * B.phi(t - g["mu_p"]) + g["pib"] * B.phi(t - g["mu_m"])

    def eta(t):
        return B.sigmoid(g["nd"] * t + g["bstar"])

    out = {}
    for j, k in KAPPA_MOMENTS:
        def f(t, j=j, k=k):
            et = eta(t)
            return et * (1 - et) * t ** j * gate(t) ** k * dens(t)
        out[(j, k)] = B.with_error(B.integrate(f, -B.to_arb(T), B.to_arb(T)), g["tail"])
    return out


def _hessian_wbr(g, I):
    """H = E[kappa F F^T] in (w1, w2, b, r), F = (t, v, 1, gate) rotated back by w^T X = (w.e) t + (w.e_perp) v."""
    Ev, Ev2 = g["n_p"], 1 + g["n_p"] * g["n_p"]
    HF = [[I[2, 0], I[1, 0] * Ev, I[1, 0], I[1, 1]],
          [I[1, 0] * Ev, I[0, 0] * Ev2, I[0, 0] * Ev, I[0, 1] * Ev],
          [I[1, 0], I[0, 0] * Ev, I[0, 0], I[0, 1]],
          [I[1, 1], I[0, 1] * Ev, I[0, 1], I[0, 2]]]
    e, ep = g["e"], g["ep"]
    R = [[B.to_arb(x) for x in r] for r in [[e[0], e[1], 0, 0], [ep[0], ep[1], 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]]
    return B.matmul(B.transpose(R), B.matmul(HF, R))


def _theta_star(g, m1, mm):
    """theta* in Theta_1^reg (Gamma = I): v21 = b* mbar/|mbar|^2, U11 = w* v21^T/|v21|^2, v22 = -v21.dm/2,
    u12 = (s* - U11 dm)/2 with s* = c w*; whether Phi(theta*) = (w*, b*, 0, s*) on the balls; and the
    Jacobian DC(theta*) of Lemma B.14 (columns dU11 row-major, du12, dv21, dv22)."""
    from flint import arb

    mbar = [(a + b) / 2 for a, b in zip(m1, mm)]
    nm2 = mbar[0] ** 2 + mbar[1] ** 2
    if nm2 == 0:
        raise ValueError("m_1 = -m_{-1}: Theorem 3.5 assumes asymmetric means")
    v21 = [g["bstar"] * B.to_arb(x / nm2) for x in mbar]
    nv2 = v21[0] * v21[0] + v21[1] * v21[1]
    U11 = [[B.to_arb(g["dm"][i]) * v21[j] / nv2 for j in range(2)] for i in range(2)]
    dm, mm = [B.to_arb(x) for x in g["dm"]], [B.to_arb(x) for x in mm]
    v22 = -(v21[0] * dm[0] + v21[1] * dm[1]) / 2
    U11dm = [U11[i][0] * dm[0] + U11[i][1] * dm[1] for i in range(2)]
    u12 = [(g["cs"] * dm[i] - U11dm[i]) / 2 for i in range(2)]
    w_chk = [U11[i][0] * v21[0] + U11[i][1] * v21[1] for i in range(2)]
    realizes = (all(w_chk[i].overlaps(dm[i]) for i in range(2))
                and (v21[0] * mm[0] + v21[1] * mm[1] - v22).overlaps(g["bstar"])
                and (v21[0] * dm[0] + v21[1] * dm[1] + 2 * v22).overlaps(arb(0))
                and all((2 * u12[i] + U11dm[i]).overlaps(g["cs"] * dm[i]) for i in range(2)))
    DC = [[arb(0)] * 9 for _ in range(4)]
    for i in range(2):
        for j in range(2):
            DC[i][2 * i + j] = v21[j]  # dU11 Gamma v21
            DC[i][6 + j] = U11[i][j]  # U11 Gamma dv21
    for j in range(2):
        DC[2][6 + j], DC[3][6 + j] = mm[j], dm[j]
    DC[2][8], DC[3][8] = arb(-1), arb(2)
    theta = {"U11": [[B.fmt(x, 12) for x in r] for r in U11], "u12": [B.fmt(x, 12) for x in u12],
             "v21": [B.fmt(x, 12) for x in v21], "v22": B.fmt(v22, 12),
             "s_star": [str(g["cs"] * dm[i]) for i in range(2)]}
    return theta, realizes, DC


def _lambda_lower(A):
    """(status, c, pivots): lambda_min(A) > c certified by a ball Cholesky of A - cI, c just below the float
    estimate."""
    a = np.array([[float(x.mid()) for x in r] for r in A])
    ev = float(np.linalg.eigvalsh(a)[0])
    c = Fraction(ev * (1 - 2.0 ** -20)).limit_denominator(10 ** 12) if ev > 0 else Fraction(0)
    status, piv = B.min_eig_lower(A, c)
    return status, c, piv


def _normal_spectrum(L, G):
    """Non-zero spectrum of DC^T H DC = spectrum of K = L^T (DC DC^T) L (H = L L^T): certified lower bound and
    a Rayleigh-quotient upper bound of its smallest eigenvalue."""
    K = B.matmul(B.transpose(L), B.matmul(G, L))
    stK, cK, pivK = _lambda_lower(K)
    w, V = np.linalg.eigh(np.array([[float(x.mid()) for x in r] for r in K]))
    ray = B.rayleigh(K, [Fraction(float(v)) for v in V[:, 0]])
    info = {"method": "nonzero spectrum of DC^T H DC = spectrum of L^T (DC DC^T) L, H = L L^T (ball Cholesky)",
            "float_estimates": [float(x) for x in w], "certified_lower_smallest": str(cK) if stK else None,
            "status": stK, "cholesky_pivots_of_K_minus_cI": [B.fmt(p, 10) for p in pivK],
            "rayleigh_upper_smallest": B.fmt(ray, 15)}
    return (cK if stK else None), ray, info


def _null_normal_direction(H, pi, chol_status, pivots):
    """s* = 0: the features F = (t, v, 1, gate) satisfy pi+ * 1 - gate = 0 identically, so z = (0, 0, pi+, -1)
    has z^T H z = 0 exactly; with DC DC^T invertible, y = DC^T (DC DC^T)^{-1} z is a normal direction with
    y^T Hess y = 0: the smallest normal eigenvalue is <= 0 (an exact upper bound)."""
    z = [Fraction(0), Fraction(0), pi, Fraction(-1)]
    return {"method": "exact null direction of H (s* = 0: the r-feature sigma(s0) = pi+ is a multiple of the "
                      "b-feature 1), lifted to the normal space by y = DC^T (DC DC^T)^{-1} z",
            "null_direction_z_wbr": [str(x) for x in z],
            "ball_rayleigh_of_H_at_z (must contain 0)": B.fmt(B.rayleigh(H, z), 10),
            "rayleigh_upper_smallest": "0 (exact: F . z = 0 identically)",
            "cholesky_of_H": {"status": chol_status, "pivots": [B.fmt(p, 10) for p in pivots]}}


def normal_hessian_certificate(m1, m_minus1, pi_plus, s_scale=1, truncation=12, prec: int = 128) -> dict:
    """Certify the normal Hessian of the LDA risk at theta* in Theta_1^reg with s* = ``s_scale`` w* (d = 2,
    Gamma = I).  Returns the evidence (balls as strings), ``lower`` (a certified Fraction lower bound on the
    smallest normal eigenvalue, or None), ``upper`` (an arb upper bound, or None), ``integral_balls`` (the
    six balls E[kappa t^j gate^k], keyed by (j, k); ``integrals`` holds them as strings) and ``hessian_balls``
    (the 4 x 4 balls of H in (w1, w2, b, r); ``H_wbr`` holds them as strings)."""
    from flint import arb

    m1, mm, pi, c_s, T = [_F(v) for v in m1], [_F(v) for v in m_minus1], _F(pi_plus), _F(s_scale), _F(truncation)
    if len(m1) != 2 or len(mm) != 2:
        raise ValueError("this certificate handles d = 2 and Gamma = I (configuration C1)")
    with B.precision(int(prec)):
        g = _geometry(m1, mm, pi, c_s, T)
        I = _integrals(g, _gate(g, pi, c_s), T)
        H = _hessian_wbr(g, I)
        theta, realizes, DC = _theta_star(g, m1, mm)
        G = B.matmul(DC, B.transpose(DC))
        stH, cH, pivH = _lambda_lower(H)
        stG, cG, pivG = _lambda_lower(G)
        chol_status, pivots, L = B.cholesky(H)
        out = {"prec": int(prec), "realizes_bayes_minimizer": realizes, "truncation_T": str(T),
               "tail_bound": B.fmt(g["tail"], 6),
               "integrals": {f"E[kappa t^{j} gate^{k}]": B.fmt(v, 25) for (j, k), v in I.items()},
               "H_wbr": [[B.fmt(x, 15) for x in r] for r in H], "theta_star": theta,
               "DC_DCt": [[B.fmt(x, 15) for x in r] for r in G],
               "lambda_min_H_wbr": {"certified_gt": str(cH), "status": stH,
                                    "cholesky_pivots_of_H_minus_cI": [B.fmt(p, 10) for p in pivH]},
               "lambda_min_DC_DCt": {"certified_gt": str(cG), "status": stG,
                                     "cholesky_pivots_of_G_minus_cI": [B.fmt(p, 10) for p in pivG]}}
        lower, upper = None, None
        if chol_status is True and stG is True and realizes:
            lower, upper, out["normal_eigenvalues"] = _normal_spectrum(L, G)
            out["normal_eigenvalues"]["product_bound_lambda_min(H)*sigma_min+(DC)^2"] = \
                str(cH * cG) if (stH and stG) else None
        elif c_s == 0 and stG is True and realizes:
            upper, out["normal_eigenvalues"] = arb(0), _null_normal_direction(H, pi, chol_status, pivots)
        out.update({"lower": lower, "upper": upper, "integral_balls": I, "hessian_balls": H})
        return out


def hessian_integrals_reference(m1, m_minus1, pi_plus, s_scale=1, dps: int = 30) -> dict:
    """E[kappa(t) t^j gate(t)^k] over the whole real line at ``dps`` digits by mpmath Gauss-Legendre: t = e.X with
    e = dm / |dm| is a two-component mixture pi+ N(e.m1, 1) + pi- N(e.m-1, 1) (Gamma = I), eta(t) = sigma(|dm| t + b*),
    b* = (|m-1|^2 - |m1|^2)/2 + log(pi+/pi-), kappa = eta (1 - eta), gate = sigma(s0 + c |dm| t) (c = s_scale; the
    constant pi+ when c = 0).  Pieces of length <= 2 on [min centre - 15, max centre + 15] (beyond, the integrand
    is below (1 + t^2) phi(15) ~ 1e-47), 48 nodes each; the same sum with 24 nodes gives the error estimate.  No
    truncation bound, no ball.  Returns {(j, k): value, 'error': estimate}."""
    from mpmath.calculus.quadrature import GaussLegendre

    with mpm.workdps(dps + 10):
        q = lambda x: mpm.mpf(_F(x).numerator) / _F(x).denominator
        m1, mm = [q(v) for v in m1], [q(v) for v in m_minus1]
        pi, c = q(pi_plus), q(s_scale)
        dm = [a - b for a, b in zip(m1, mm)]
        nd = mpm.sqrt(mpm.fsum(x * x for x in dm))
        mu_p, mu_m = mpm.fsum(a * b for a, b in zip(dm, m1)) / nd, mpm.fsum(a * b for a, b in zip(dm, mm)) / nd
        s0 = mpm.log(pi / (1 - pi))
        bstar = (mpm.fsum(x * x for x in mm) - mpm.fsum(x * x for x in m1)) / 2 + s0
        sig = lambda x: 1 / (1 + mpm.exp(-x))
        a0, a1 = min(mu_p, mu_m) - 15, max(mu_p, mu_m) + 15
        n_pieces = int(mpm.ceil((a1 - a0) / 2))
        h = (a1 - a0) / n_pieces  # pieces of length <= 2
        gl = GaussLegendre(mpm.mp)

        def sums(degree):
            tot = {jk: mpm.mpf(0) for jk in KAPPA_MOMENTS}
            for x, w in gl.calc_nodes(degree, mpm.mp.prec):
                w = w * h / 2
                for i in range(n_pieces):
                    t = a0 + h * (i + (x + 1) / 2)
                    et = sig(nd * t + bstar)
                    base = w * et * (1 - et) * (pi * mpm.npdf(t, mu_p, 1) + (1 - pi) * mpm.npdf(t, mu_m, 1))
                    g = pi if c == 0 else sig(s0 + c * nd * t)
                    for j, k in KAPPA_MOMENTS:
                        tot[(j, k)] += base * t ** j * g ** k
            return tot
        hi, lo = sums(5), sums(4)
        out: dict = dict(hi)
        # the 24-node rule's error bounds the 48-node one's
        out["error"] = max(abs(hi[jk] - lo[jk]) for jk in KAPPA_MOMENTS)
        return out


def hessian_wbr_reference(m1, m_minus1, pi_plus, s_scale=1, n: int = 60) -> tuple:
    """H = E[kappa(X) F F^T], F = (x1, x2, 1, gate(X)), from its definition in the original coordinates (d = 2,
    Gamma = I): X ~ pi+ N(m1, I) + pi- N(m-1, I), kappa = eta (1 - eta), eta = sigma(w*^T X + b*), w* = m1 - m-1,
    b* = (|m-1|^2 - |m1|^2)/2 + log(pi+/pi-), gate = sigma(s0 + c w*^T X) (s0 = log(pi+/pi-), c = s_scale).
    Tensor Gauss-Hermite rule, ``n`` nodes per axis, float64.  Returns (H as a 4 x 4 array, error estimate
    = the largest difference to the rule with 1.5 n + 2 nodes + 1e3 eps max|H|)."""
    from scipy.special import expit

    m1, mm = np.array([float(_F(v)) for v in m1]), np.array([float(_F(v)) for v in m_minus1])
    pi, c = float(_F(pi_plus)), float(_F(s_scale))
    ws, s0 = m1 - mm, np.log(pi / (1 - pi))
    bs = (mm @ mm - m1 @ m1) / 2 + s0

    def rule(k):
        x, wt = np.polynomial.hermite_e.hermegauss(k)
        X0 = np.stack(np.meshgrid(x, x, indexing="ij"), -1).reshape(-1, 2)
        W0 = np.outer(wt, wt).ravel() / (2 * np.pi)
        H = np.zeros((4, 4))
        for pc, mc in ((pi, m1), (1 - pi, mm)):
            X = mc + X0
            eta = expit(X @ ws + bs)
            F = np.column_stack([X, np.ones(len(X)), expit(s0 + c * (X @ ws))])
            H += pc * (F * (W0 * eta * (1 - eta))[:, None]).T @ F
        return H

    H, H2 = rule(n), rule(int(1.5 * n) + 2)
    return H2, float(np.max(np.abs(H - H2))) + 1e3 * np.finfo(float).eps * float(np.abs(H2).max())


def enclosure_rows(balls: dict, refs: dict, dps: int, err=0) -> list:
    """Does each ball E[kappa t^j gate^k] contain its reference value?  The reference (computed at ``dps``
    digits, quadrature error estimate ``err``) is taken as a ball of radius 10 err + 10^(2-dps) |value|;
    ``contains`` is True when the certificate's ball certainly contains it, False when certainly not, None
    when undecided (:func:`softmix.numerics.balls.ball_contains`)."""
    rows = []
    for key, ball in balls.items():
        ref = refs[key]
        with mpm.workdps(dps + 10):
            rad = 10 * mpm.mpf(err) + mpm.mpf(10) ** (2 - dps) * max(abs(ref), mpm.mpf(10) ** -30)
            st = B.ball_contains(ball, ref, rad)
        rows.append({"integral": f"E[kappa t^{key[0]} gate^{key[1]}]", "ball": B.fmt(ball, 20),
                     "reference": mpm.nstr(ref, 25), "contains": st})
    return rows
