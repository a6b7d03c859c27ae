"""Ball-arithmetic certificates for Section 3 (Thm 3.5 / Lemma B.26 normal Hessian; Lemma B.32 coercivity).

The certificate machinery and its negative-control scheme are described in :mod:`softmix.checks.paper.certify`.
"""
from __future__ import annotations

import json
import time
from fractions import Fraction

import mpmath as mpm
import numpy as np

from ..registry import Claim, Control, Outcome, register
from .certify import SOURCE, _MAX_ROWS, _F, _cached, _flint, _no_flint, _verdict


# =============================================================================================
# (1) Theorem 3.5 / Lemma B.26: positive normal Hessian eigenvalues on configuration C1
# =============================================================================================
def _normal_hessian_certificate(params):
    B = _flint()
    from flint import arb

    prec = int(params["prec"])
    with B.precision(prec):
        m1 = [_F(v) for v in params["m1"]]
        mm = [_F(v) for v in params["m_minus1"]]
        pi = _F(params["pi_plus"])
        c_s = _F(params["s_scale"])
        T = _F(params["truncation"])
        if len(m1) != 2 or params.get("Gamma", "identity") != "identity":
            raise ValueError("this certificate handles d = 2 and Gamma = I (configuration C1)")
        dm = [a - b for a, b in zip(m1, mm)]
        nd2 = dm[0] ** 2 + dm[1] ** 2
        nd = B.to_arb(nd2).sqrt()
        e = [B.to_arb(v) / nd for v in dm]  # unit vector along w* = Gamma^{-1} dm = dm
        ep = [-e[1], e[0]]
        mu_p = (B.to_arb(dm[0] * m1[0] + dm[1] * m1[1])) / nd  # e . m_1
        mu_m = (B.to_arb(dm[0] * mm[0] + dm[1] * mm[1])) / nd  # e . m_{-1}
        # orthogonal coordinate v = e_perp . X ~ N(n, 1) for both classes (e_perp . dm = 0)
        n_p = (B.to_arb(-dm[1] * m1[0] + dm[0] * m1[1])) / nd
        s0 = (B.to_arb(pi) / B.to_arb(1 - pi)).log()
        bstar = -B.to_arb(Fraction(1, 2) * (m1[0] ** 2 + m1[1] ** 2 - mm[0] ** 2 - mm[1] ** 2)) + s0
        pia, pib = B.to_arb(pi), B.to_arb(1 - pi)
        cs = B.to_arb(c_s)

        def dens(t):
            return pia * B.phi(t - mu_p) + pib * B.phi(t - mu_m)

        def eta(t):
            return B.sigmoid(nd * t + bstar)

        if c_s == 0:
            # s* = 0 (Lemma B.13, second case): the gate is the constant sigma(s0) = pi+ exactly
            # (1 / (1 + (1 - pi)/pi) = pi in exact rational arithmetic)
            if 1 / (1 + (1 - pi) / pi) != pi:
                raise ArithmeticError("sigma(log(pi/(1-pi))) != pi")
            gate_const = B.to_arb(pi)

            def gate(t):
                return gate_const
        else:
            def gate(t):  # sigma(s0 + s*^T X) with s* = c w*: depends on t = e . X only
                return B.sigmoid(s0 + cs * nd * t)

        # |kappa t^j gate^k| <= (1/4)(1 + t^2) for j <= 2: explicit Gaussian tail bound
        tail = (pia * (B.poly2_tail(T, mu_p) + B.poly2_tail(T, -mu_p))
                + pib * (B.poly2_tail(T, mu_m) + B.poly2_tail(T, -mu_m))) / 4
        I = {}
        for j, k in [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)]:
            def f(t, j=j, k=k):
                et = eta(t)
                return et * (1 - et) * t ** j * gate(t) ** k * dens(t)
            I[(j, k)] = B.with_error(B.integrate(f, -B.to_arb(T), B.to_arb(T)), tail)
        I_balls = dict(I)
        Ev, Ev2 = n_p, 1 + n_p * n_p
        # H_F = E[kappa F F^T], F = (t, v, 1, gate), v independent of (t, Y)
        HF = [[I[2, 0], I[1, 0] * Ev, I[1, 0], I[1, 1]],
              [I[1, 0] * Ev, I[0, 0] * Ev2, I[0, 0] * Ev, I[0, 1] * Ev],
              [I[1, 0], I[0, 0] * Ev, I[0, 0], I[0, 1]],
              [I[1, 1], I[0, 1] * Ev, I[0, 1], I[0, 2]]]
        # back to (w1, w2, b, r): w^T X = (w.e) t + (w.e_perp) v
        R = [[e[0], e[1], 0, 0], [ep[0], ep[1], 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
        R = [[B.to_arb(x) for x in r] for r in R]
        H = B.matmul(B.transpose(R), B.matmul(HF, R))
        # theta* in Theta_1^reg: v21 = b* mbar/|mbar|^2, U11 = w* v21^T/|v21|^2, v22 = -v21.dm/2,
        # u12 = (s* - U11 dm)/2 with s* = c w*  (Gamma = I)
        mbar = [(a + b) / 2 for a, b in zip(m1, mm)]
        nm2 = mbar[0] ** 2 + mbar[1] ** 2
        if nm2 == 0:
            raise ValueError("m_1 = -m_{-1}: Theorem 3.5 assumes asymmetric means")
        v21 = [bstar * B.to_arb(x / nm2) for x in mbar]
        nv2 = v21[0] * v21[0] + v21[1] * v21[1]
        U11 = [[B.to_arb(dm[i]) * v21[j] / nv2 for j in range(2)] for i in range(2)]
        dm = [B.to_arb(x) for x in dm]
        mm = [B.to_arb(x) for x in mm]
        v22 = -(v21[0] * dm[0] + v21[1] * dm[1]) / 2
        U11dm = [U11[i][0] * dm[0] + U11[i][1] * dm[1] for i in range(2)]
        u12 = [(cs * dm[i] - U11dm[i]) / 2 for i in range(2)]
        # Phi(theta*) must be (w*, b*, 0, s*): checked on the balls
        w_chk = [U11[i][0] * v21[0] + U11[i][1] * v21[1] for i in range(2)]
        b_chk = v21[0] * mm[0] + v21[1] * mm[1] - v22
        r_chk = v21[0] * dm[0] + v21[1] * dm[1] + 2 * v22
        s_chk = [2 * u12[i] + U11dm[i] for i in range(2)]
        realizes = (all(w_chk[i].overlaps(dm[i]) for i in range(2)) and b_chk.overlaps(bstar)
                    and r_chk.overlaps(arb(0)) and all(s_chk[i].overlaps(cs * dm[i]) for i in range(2)))
        # DC(theta*) (Lemma B.14), columns: dU11 (row-major, 4), du12 (2), dv21 (2), dv22
        DC = [[arb(0)] * 9 for _ in range(4)]
        for i in range(2):
            for j in range(2):
                DC[i][2 * i + j] = v21[j]  # dU11 Gamma v21
                DC[i][6 + j] = U11[i][j]  # U11 Gamma dv21
        for j in range(2):
            DC[2][6 + j] = mm[j]
            DC[3][6 + j] = dm[j]
        DC[2][8], DC[3][8] = arb(-1), arb(2)
        G = B.matmul(DC, B.transpose(DC))
        # certified bounds
        def lam_lower(A):
            a = np.array([[float(x.mid()) for x in r] for r in A])
            ev = float(np.linalg.eigvalsh(a)[0])
            c = Fraction(ev * (1 - 2.0 ** -20)).limit_denominator(10 ** 12) if ev > 0 else Fraction(0)
            status, piv = B.min_eig_lower(A, c)
            return status, c, piv
        stH, cH, pivH = lam_lower(H)
        stG, cG, pivG = lam_lower(G)
        chol_status, pivots, L = B.cholesky(H)
        out = {"prec": prec, "realizes_bayes_minimizer": realizes, "truncation_T": str(T),
               "tail_bound": B.fmt(tail, 6),
               "integrals": {f"E[kappa t^{j} gate^{k}]": B.fmt(v, 25) for (j, k), v in I.items()},
               "H_wbr": [[B.fmt(x, 15) for x in r] for r in H],
               "theta_star": {"U11": [[B.fmt(x, 12) for x in r] for r in U11], "u12": [B.fmt(x, 12) for x in u12],
                              "v21": [B.fmt(x, 12) for x in v21], "v22": B.fmt(v22, 12),
                              "s_star": [str(cs * dm[i]) for i in range(2)]},
               "DC_DCt": [[B.fmt(x, 15) for x in r] for r in G],
               "lambda_min_H_wbr": {"certified_gt": str(cH), "status": stH, "cholesky_pivots_of_H_minus_cI":
                                    [B.fmt(p, 10) for p in pivH]},
               "lambda_min_DC_DCt": {"certified_gt": str(cG), "status": stG,
                                     "cholesky_pivots_of_G_minus_cI": [B.fmt(p, 10) for p in pivG]}}
        lower, upper, status = None, None, None
        if chol_status is True and stG is True and realizes:
            # nonzero eigenvalues of DC^T H DC = eigenvalues of K = L^T (DC DC^T) L  (4 x 4)
            K = B.matmul(B.transpose(L), B.matmul(G, L))
            stK, cK, pivK = lam_lower(K)
            kf = np.array([[float(x.mid()) for x in r] for r in K])
            w, V = np.linalg.eigh(kf)
            y = [Fraction(float(v)) for v in V[:, 0]]
            ray = B.rayleigh(K, y)
            out["normal_eigenvalues"] = {
                "method": "nonzero spectrum of DC^T H DC = spectrum of L^T (DC DC^T) L, H = L L^T (ball Cholesky)",
                "float_estimates": [float(x) for x in w],
                "certified_lower_smallest": str(cK) if stK else None, "status": stK,
                "cholesky_pivots_of_K_minus_cI": [B.fmt(p, 10) for p in pivK],
                "rayleigh_upper_smallest": B.fmt(ray, 15),
                "product_bound_lambda_min(H)*sigma_min+(DC)^2": str(cH * cG) if (stH and stG) else None}
            if stK:
                lower = cK
            upper = ray
        elif c_s == 0 and stG is True and realizes:
            # exact null direction: with s* = 0 the features F = (t, v, 1, gate) satisfy
            # pi+ * 1 - gate = 0 identically, so z = (0, 0, pi+, -1) in (w1, w2, b, r) has
            # z^T H z = E[kappa (F . z)^2] = 0 exactly.  DC DC^T is certified invertible, so
            # y = DC^T (DC DC^T)^{-1} z is a normal direction (in range DC^T, DC y = z != 0) with
            # y^T Hess y = z^T H z = 0: the smallest normal eigenvalue is <= 0 (an exact upper bound).
            z = [Fraction(0), Fraction(0), pi, Fraction(-1)]
            upper = arb(0)
            out["normal_eigenvalues"] = {
                "method": "exact null direction of H (s* = 0: the r-feature sigma(s0) = pi+ is a multiple of the "
                          "b-feature 1), lifted to the normal space by y = DC^T (DC DC^T)^{-1} z",
                "null_direction_z_wbr": [str(x) for x in z],
                "ball_rayleigh_of_H_at_z (must contain 0)": B.fmt(B.rayleigh(H, z), 10),
                "rayleigh_upper_smallest": "0 (exact: F . z = 0 identically)",
                "cholesky_of_H": {"status": chol_status, "pivots": [B.fmt(p, 10) for p in pivots]}}
        out["lower"], out["upper"] = lower, upper
        out["_I"] = I_balls
        return out


JK = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)]


def _hessian_integrals_reference(params, dps: int = 30) -> dict:
    """E[kappa(t) t^j gate(t)^k] over the whole real line at ``dps`` digits by mpmath Gauss-Legendre: t = e.X with
    e = dm / |dm| is a two-component mixture pi+ N(e.m1, 1) + pi- N(e.m-1, 1) (Gamma = I), eta(t) = sigma(|dm| t + b*),
    b* = (|m-1|^2 - |m1|^2)/2 + log(pi+/pi-), kappa = eta (1 - eta), gate = sigma(s0 + c |dm| t) (c = s_scale; the
    constant pi+ when c = 0).  Pieces of length <= 2 on [min centre - 15, max centre + 15] (beyond, the integrand
    is below (1 + t^2) phi(15) ~ 1e-47), 48 nodes each; the same sum with 24 nodes gives the error estimate.  No
    truncation bound, no ball: an independent path to the certificate's integrals.  Returns {(j, k): value, 'error': estimate}."""
    from mpmath.calculus.quadrature import GaussLegendre

    with mpm.workdps(dps + 10):
        q = lambda x: mpm.mpf(_F(x).numerator) / _F(x).denominator
        m1, mm = [q(v) for v in params["m1"]], [q(v) for v in params["m_minus1"]]
        pi, c = q(params["pi_plus"]), q(params["s_scale"])
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
            tot = {jk: mpm.mpf(0) for jk in JK}
            for x, w in gl.calc_nodes(degree, mpm.mp.prec):
                w = w * h / 2
                for i in range(n_pieces):
                    t = a0 + h * (i + (x + 1) / 2)
                    et = sig(nd * t + bstar)
                    base = w * et * (1 - et) * (pi * mpm.npdf(t, mu_p, 1) + (1 - pi) * mpm.npdf(t, mu_m, 1))
                    g = pi if c == 0 else sig(s0 + c * nd * t)
                    for j, k in JK:
                        tot[(j, k)] += base * t ** j * g ** k
            return tot
        hi, lo = sums(5), sums(4)
        out = dict(hi)
        out["error"] = max(abs(hi[jk] - lo[jk]) for jk in JK)  # the 24-node rule's error bounds the 48-node one's
        return out


def _ball_contains(B, ball, ref, rad):
    """Tri-state: does ``ball`` contain the number known to lie within ``rad`` of the mpf ``ref``?  True when
    certainly (lower <= [ref +- rad] <= upper), False when certainly not (the ball misses it), None otherwise (a
    ball narrower than the reference's accuracy, e.g. an exact point: consistent, but not decided)."""
    from flint import arb

    r = arb(mpm.nstr(ref, max(mpm.mp.dps, 30) + 15), mpm.nstr(mpm.mpf(rad), 5))
    lo, hi = B.le(ball.lower(), r), B.le(r, ball.upper())
    return True if (lo is True and hi is True) else (False if (lo is False or hi is False) else None)


def _enclosure_rows(B, balls: dict, refs: dict, dps: int, err=0) -> list:
    """Does each ball contain the reference value?  The reference (computed at ``dps`` digits, quadrature error
    estimate ``err``) is turned into a ball of radius 10 err + 10^(2-dps) |value|; True when the certificate's ball
    certainly contains it (lower <= ref and ref <= upper, tri-state), False when certainly not, None when undecided."""
    rows = []
    for key, ball in balls.items():
        ref = refs[key]
        with mpm.workdps(dps + 10):
            rad = 10 * mpm.mpf(err) + mpm.mpf(10) ** (2 - dps) * max(abs(ref), mpm.mpf(10) ** -30)
            st = _ball_contains(B, ball, ref, rad)
        rows.append({"integral": f"E[kappa t^{key[0]} gate^{key[1]}]", "ball": B.fmt(ball, 20),
                     "reference": mpm.nstr(ref, 25), "contains": st})
    return rows


def _check_normal_hessian(params, ctx):
    p = dict(params)
    if ctx.variant == "s-star-zero":
        p["s_scale"] = 0  # wrong quantity: the Bayes point with s* = 0 (constant gate sigma(s0))
    try:
        cert = _cached("hess", p, lambda: _normal_hessian_certificate(p))
    except ModuleNotFoundError as e:
        return _no_flint(e)
    B = _flint()
    thr = Fraction(0)
    if ctx.variant == "shifted-threshold":
        thr = (cert["lower"] or Fraction(0)) + 1
    status = None
    with B.precision(cert["prec"]):
        if cert["lower"] is not None and cert["lower"] >= thr:
            status = True
        elif cert["upper"] is not None and B.le(cert["upper"], thr) is True:
            status = False
    # rigour: the six integral balls contain a 40-digit whole-line mpmath value, at the claim's truncation T and at
    # a short T = 4 where the Gaussian tail bound (~1e-5, not the quadrature) is what makes them enclosures
    enc = {"note": "checked in the claim's run (the wrong-quantity control changes the integrals, not the method)"}
    if ctx.variant != "s-star-zero":
        refs = _cached("hess-ref", {k: p[k] for k in ("m1", "m_minus1", "pi_plus", "s_scale")},
                       lambda: {"I": _hessian_integrals_reference(p, 40)})["I"]
        short = _cached("hess", {**p, "truncation": 4}, lambda: _normal_hessian_certificate({**p, "truncation": 4}))
        with B.precision(cert["prec"]):
            enc = {"T": _enclosure_rows(B, cert["_I"], refs, 40, refs["error"]),
                   "T=4": _enclosure_rows(B, short["_I"], refs, 40, refs["error"]),
                   "reference_error_estimate": mpm.nstr(refs["error"], 3)}
        enc_status = [r["contains"] for rows in (enc["T"], enc["T=4"]) for r in rows]
        if False in enc_status:
            status = False  # a ball that certainly misses its integral: not a certificate
    ev = {"statement": f"every normal eigenvalue of the risk Hessian at theta* > {thr}", "threshold": str(thr),
          "s_scale": str(p["s_scale"]),
          "certificate": {k: v for k, v in cert.items() if k not in ("lower", "upper") and not k.startswith("_")},
          "integral_enclosures": {**enc, "rule": "each ball E[kappa t^j gate^k] (integral over [-T, T] enlarged by the "
                                                 "tail bound) contains the 40-digit whole-line mpmath value (taken as a "
                                                 "ball of radius 10 x its error estimate + 1e-38 |value|); a ball that "
                                                 "certainly misses it refutes (no certificate), a partial overlap (a ball "
                                                 "narrower than the reference's accuracy) is reported as null"},
          "rule": "verified iff the certified lower bound >= threshold and every integral ball contains its 40-digit "
                  "value; refuted iff a Rayleigh quotient (an upper bound on the smallest normal eigenvalue) is "
                  "certainly <= threshold, or a ball certainly misses its value"}
    return Outcome(_verdict(status), ev)


register(Claim(
    id="cert-thm-3.5-normal-hessian", title="Certified positive normal curvature at a regular Bayes point (C1)",
    independence="derived side: ball-arithmetic (python-flint) enclosure of the normal Hessian; stated side: positivity; rigour: its integral balls against 40-digit mpmath Gauss-Legendre over the whole line (at T and T = 4); shared: nothing",
    source=f"{SOURCE}, Thm 3.5, Lemma B.26, Prop B.12, Lemma B.13, Lemma B.14",
    statement="On C1 (d=2, m1=(1,0), m-1=(0,1), Gamma=I, pi+=0.6), at theta* in Theta_1^reg with s* = w*, "
              "the nonzero (normal) eigenvalues of the Hessian of R are > 0, with a certified lower bound",
    section="certificates", check=_check_normal_hessian, kind="numeric",
    configurations_note="certifies the curvature at one stated Bayes point of configuration C1 (a specific constant)",
    assumptions=("m1 != -m-1", "theta* in Theta_1 with s(theta*) != 0", "Gamma = I2 (closed-form orthogonal part)"),
    defaults={"m1": [1, 0], "m_minus1": [0, 1], "pi_plus": "0.6", "Gamma": "identity", "s_scale": 1,
              "truncation": 12, "prec": 128},
    controls=(Control("shifted-threshold", "claim the smallest normal eigenvalue exceeds the certified bound + 1"),
              Control("s-star-zero", "wrong quantity: the Hessian at the Bayes point with s* = 0 (gate "
                                     "sigma(s0 + s^T X) collapsed to the constant sigma(s0) = pi+, Lemma B.13 "
                                     "second case); threshold 0 kept: a normal eigenvalue is exactly 0")),
))


# =============================================================================================


# =============================================================================================
# (5) Lemma B.32: coercivity constant C_1 = c0 sqrt(lambda_min(Gamma)) on configuration C2
# =============================================================================================
def _vec(params, key, d):
    v = params[key]
    if isinstance(v, str) and v.startswith("e"):
        i = int(v[1:]) - 1
        return [Fraction(int(j == i)) for j in range(d)]
    return [_F(x) for x in v]


def _softplus_lower(B, mu, sigma, K, N):
    """Rigorous lower bound of E[log(1 + exp(-(mu + sigma U)))], U ~ N(0, 1): the integrand is >= 0
    (drop |u| > K) and convex in u (on each piece it lies above its tangent at the midpoint)."""
    from flint import arb

    total = arb(0)
    edges = [Fraction(-K) + Fraction(2 * K * j, N) for j in range(N + 1)]
    for a, b in zip(edges[:-1], edges[1:]):
        c = B.to_arb((a + b) / 2)
        x = -(mu + sigma * c)
        fc = (1 + x.exp()).log()
        dfc = -sigma * B.sigmoid(x)
        P = B.normal_mass(a, b)
        first = B.phi(a) - B.phi(b)
        total += fc * P + dfc * (first - c * P)
    return total


def _softplus_upper(B, mu, sigma, K, N):
    """Rigorous upper bound of E[log(1 + exp(-(mu + sigma U)))], U ~ N(0, 1), sigma >= 0: on each piece of
    [-K, K] the convex integrand lies below its chord; for |u| > K, log(1 + e^x) <= log 2 + |x| and
    |x| <= |mu| + sigma |u| (closed-form Gaussian tails)."""
    from flint import arb

    def sp(u):
        return (1 + (-(mu + sigma * B.to_arb(u))).exp()).log()

    total = arb(0)
    edges = [Fraction(-K) + Fraction(2 * K * j, N) for j in range(N + 1)]
    vals = [sp(u) for u in edges]
    for j, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        slope = (vals[j + 1] - vals[j]) / B.to_arb(b - a)
        P = B.normal_mass(a, b)
        first = B.phi(a) - B.phi(b)
        total += vals[j] * P + slope * (first - B.to_arb(a) * P)
    tail = (arb(2).log() + abs(mu)) * 2 * B.Phi(-K) + sigma * 2 * B.phi(K)
    return total + tail


def _isqrt_exact(n: int):
    import math

    r = math.isqrt(n)
    return r if r * r == n else None


def _coercivity_certificate(params):
    B = _flint()
    import sympy as sp
    from flint import arb, fmpq, fmpq_mat

    prec = int(params["prec"])
    d = int(params["d"])
    m1 = _vec(params, "m1", d)
    G = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)] if params["Gamma"] == "identity" else \
        [[_F(x) for x in r] for r in params["Gamma"]]
    with B.precision(prec):
        Gq = fmpq_mat(d, d, [fmpq(x.numerator, x.denominator) for r in G for x in r])
        mq = fmpq_mat(d, 1, [fmpq(x.numerator, x.denominator) for x in m1])
        M2q = (mq.transpose() * Gq.solve(mq))[0, 0]
        M2 = Fraction(int(M2q.p), int(M2q.q))
        M = B.to_arb(M2).sqrt()
        # lambda_min(Gamma): exact for diagonal Gamma; otherwise Cholesky lower / Rayleigh upper bounds
        if all(G[i][j] == 0 for i in range(d) for j in range(d) if i != j):
            lmin = min(G[i][i] for i in range(d))
            lam_lo, lam_up, lam_note = B.to_arb(lmin), B.to_arb(lmin), f"diagonal Gamma: lambda_min = {lmin} exactly"
        else:
            a = np.array([[float(x) for x in r] for r in G])
            w, V = np.linalg.eigh(a)
            c = Fraction(float(w[0]) * (1 - 2.0 ** -20))
            st, _ = B.min_eig_lower([[B.to_arb(x) for x in r] for r in G], c)
            lam_lo = B.to_arb(c) if st else arb(0)
            lam_up = B.rayleigh([[B.to_arb(x) for x in r] for r in G], [Fraction(float(v)) for v in V[:, 0]]).upper()
            lam_note = "Cholesky of Gamma - cI (lower) and a Rayleigh quotient (upper)"
        # g(t) = t Phi(t) + phi(t); g' = Phi proven symbolically, then Phi > 0 certified on [-M, M]
        t = sp.symbols("t", real=True)
        Phis = (1 + sp.erf(t / sp.sqrt(2))) / 2
        phis = sp.exp(-t ** 2 / 2) / sp.sqrt(2 * sp.pi)
        gprime_is_Phi = sp.simplify(sp.diff(t * Phis + phis, t) - Phis) == 0
        n = int(params["monotonicity_boxes"])
        rn, rd = _isqrt_exact(M2.numerator), _isqrt_exact(M2.denominator)
        if rn is not None and rd is not None:
            Mup = Fraction(rn, rd)  # M rational: exact
        else:
            man, ex = M.upper().man_exp()
            Mup = Fraction(int(man)) * Fraction(2) ** int(ex)  # exact dyadic upper endpoint of the ball
        mono_rows, mono_ok = [], bool(B.ge(B.to_arb(Mup), M))
        for j in range(n):
            lo, hi = -Mup + 2 * Mup * Fraction(j, n), -Mup + 2 * Mup * Fraction(j + 1, n)
            v = B.Phi(B.hull(lo, hi))
            ok = B.gt(v, 0) is True
            mono_ok &= ok
            mono_rows.append({"box": [str(lo), str(hi)], "Phi_on_box": v.str(8, more=True), "certainly_positive": ok})
        endpoint = params.get("c0_endpoint", "-M")  # "+M": a control's mistake (the max of g, not its min)
        if endpoint == "-M":
            c0 = -M * B.Phi(-M) + B.phi(M)  # g(-M)
        elif endpoint == "+M":
            c0 = M * B.Phi(M) + B.phi(M)  # g(+M)
        else:
            raise ValueError(f"unknown c0_endpoint {endpoint!r}")
        C1 = c0 * B.hull(lam_lo, lam_up).sqrt()
        out = {"prec": prec, "d": d, "M^2": str(M2), "M": B.fmt(M, 30), "lambda_min_Gamma": lam_note,
               "g_prime_equals_Phi_symbolic": gprime_is_Phi,
               "monotonicity": {"statement": "g'(t) = Phi(t) > 0 on [-M, M], so min_{|t|<=M} g = g(-M)",
                                "boxes": mono_rows, "all_certain": mono_ok},
               "c0_evaluated_at": endpoint, "c0": B.fmt(c0, 30), "C1": B.fmt(C1, 30)}
        # optional: L(w) >= C1 ||w|| on sampled directions (w^T Y X ~ N(w.m1, w^T Gamma w))
        rng = np.random.default_rng(int(params["direction_seed"]))
        dirs = [("e1-aligned (worst q = -M)", [float(x) for x in m1]), ("anti-aligned", [-float(x) for x in m1])]
        for i in range(int(params["random_directions"])):
            dirs.append((f"random {i}", list(rng.standard_normal(d))))
        rows, samp_ok, counterexamples, sp_rows = [], True, [], []
        for name, u in dirs:
            nu = float(np.linalg.norm(u))
            for rad in params["radii"]:
                w = [Fraction(float(rad) * x / nu) for x in u]  # exact dyadic rationals
                mu = B.to_arb(sum(wi * mi for wi, mi in zip(w, m1)))
                s2 = sum(w[i] * G[i][j] * w[j] for i in range(d) for j in range(d) if G[i][j] != 0)
                sig = B.to_arb(s2).sqrt()
                nw = B.to_arb(sum(x * x for x in w)).sqrt()
                Lw = _softplus_lower(B, mu, sig, int(params["softplus_K"]), int(params["softplus_pieces"]))
                Lu = _softplus_upper(B, mu, sig, int(params["softplus_K"]), int(params["softplus_pieces"]))
                gap = Lw - C1 * nw
                ok = B.gt(gap, 0) is True
                bad = B.lt(Lu, C1 * nw) is True  # L(w) < C1 ||w|| certainly: a counterexample
                samp_ok &= ok
                rows.append({"direction": name, "radius": str(rad), "L(w)_ge": Lw.str(10, more=True),
                             "L(w)_le": Lu.str(10, more=True),
                             "C1_norm_w": (C1 * nw).str(10, more=True), "certified": ok, "counterexample": bad,
                             "_Lw": Lw, "_Lu": Lu})
                sp_rows.append((name, u, rad))
                if bad:
                    counterexamples.append(rows[-1])
        out["sampled_directions"] = {"statement": "L(w) >= C1 ||w|| (L bounded below by a convex tangent-line "
                                                  "partition of the 1-D Gaussian integral, |u| <= K, tail dropped; "
                                                  "above by chords plus an explicit tail bound)",
                                     "rows": rows, "all_certain": samp_ok,
                                     "n_certain_counterexamples": len(counterexamples)}
        out["_C1"], out["_ok"] = C1, bool(mono_ok and gprime_is_Phi and samp_ok)
        out["_counterexample"] = bool(counterexamples)
        with mpm.workdps(40):
            Mm = mpm.sqrt(mpm.mpf(M2.numerator) / M2.denominator)
            c0m = mpm.npdf(Mm) - Mm * mpm.ncdf(-Mm) if endpoint == "-M" else Mm * mpm.ncdf(Mm) + mpm.npdf(Mm)
            out["c0_mpmath"] = mpm.nstr(mpm.npdf(Mm) - Mm * mpm.ncdf(-Mm), 30)
            # rigour: the balls contain 40-digit mpmath values of M, c0 (the endpoint used) and, for a diagonal Gamma,
            # C1 = c0 sqrt(lambda_min); and the softplus lower / upper bounds of the first and last sampled rows
            # enclose E[log(1 + exp(-(mu + sigma U)))] by mpmath quadrature
            rad = mpm.mpf(10) ** -36
            enc = [{"quantity": "M", "contains": _ball_contains(B, M, Mm, rad)},
                   {"quantity": f"c0 = g({endpoint})", "contains": _ball_contains(B, c0, c0m, rad)}]
            if "diagonal" in lam_note:
                lmm = mpm.mpf(lmin.numerator) / lmin.denominator
                enc.append({"quantity": "C1", "contains": _ball_contains(B, C1, c0m * mpm.sqrt(lmm), rad)})
            from scipy.integrate import quad as _quad

            for row, (name, u, rad_w) in [(rows[0], sp_rows[0]), (rows[-1], sp_rows[-1])]:
                # the bounds are a partition's tangents and chords (gap ~1e-4): a float64 quadrature with its
                # own error estimate is accurate enough to test them
                nu = float(np.linalg.norm(u))
                w = [Fraction(float(rad_w) * x / nu) for x in u]
                mu_ = float(sum(wi * mi for wi, mi in zip(w, m1)))
                sg = float(sum(w[i] * G[i][j] * w[j] for i in range(d) for j in range(d) if G[i][j] != 0)) ** 0.5
                val, aerr = _quad(lambda x: np.logaddexp(0.0, -(mu_ + sg * x)) * np.exp(-x * x / 2) / np.sqrt(2 * np.pi),
                                  -np.inf, np.inf, epsabs=1e-14, epsrel=1e-13, limit=200)
                ref = B.with_error(B.to_arb(val), 10 * aerr + 1e-12 * abs(val))  # the double, exactly, +- its error
                lo_ok, hi_ok = B.le(row["_Lw"], ref), B.le(ref, row["_Lu"])
                enc.append({"quantity": f"E softplus, {name}, radius {rad_w}", "value": val, "quad_error": aerr,
                            "contains": True if (lo_ok is True and hi_ok is True) else
                            (False if (lo_ok is False or hi_ok is False) else None)})
        out["enclosures"] = {"rows": enc, "rule": "each ball (or [lower, upper] bound pair) contains the 40-digit "
                                                  "mpmath value (the softplus bounds: a float64 quadrature, radius 10 x "
                                                  "its error estimate + 1e-12 relative); one that certainly misses it refutes (no certificate), a partial "
                                                  "overlap (a ball narrower than the reference's accuracy) is reported as null"}
        out["_enclosures_ok"] = [r["contains"] for r in enc]
        for r in rows:
            r.pop("_Lw", None), r.pop("_Lu", None)
        return out


def _check_coercivity(params, ctx):
    p = dict(params)
    if ctx.variant == "c0-at-plus-M":
        p["c0_endpoint"] = "+M"  # wrong quantity: c0 = g(+M) (the max of g on [-M, M]), statement kept
    try:
        cert = _cached("coer", p, lambda: _coercivity_certificate(p))
    except ModuleNotFoundError as e:
        return _no_flint(e)
    B = _flint()
    thr = Fraction(0)
    if ctx.variant == "shifted-threshold":
        thr = Fraction(cert["c0_mpmath"]) + Fraction(1, 1000)
    with B.precision(cert["prec"]):
        s = B.gt(cert["_C1"], thr)
    status = (True if cert["_ok"] else None) if s is True else (False if s is False else None)
    if cert["_counterexample"]:
        status = False  # a sampled w with L(w) < C1 ||w|| certainly (upper bound of L below C1 ||w||)
    if False in cert["_enclosures_ok"]:
        status = False  # a ball that certainly misses its value: not a certificate
    ev = {"statement": f"C1 = c0 sqrt(lambda_min(Gamma)) > {thr}, c0 = min_(|t|<=M) t Phi(t) + phi(t) = g(-M), "
                       "and L(w) >= C1 ||w|| on the sampled directions",
          "rule": "verified iff C1 > threshold certainly and every sampled inequality is certified; refuted iff "
                  "C1 <= threshold certainly or some sampled w has an upper bound of L(w) certainly below C1 ||w||",
          "threshold": str(thr), "certificate": {k: v for k, v in cert.items() if not k.startswith("_")}}
    return Outcome(_verdict(status), ev)


register(Claim(
    id="cert-lemma-b.32-coercivity", title="Certified coercivity constant C1 of the reduced linear logistic risk (C2)",
    independence="derived side: ball-arithmetic enclosure of the reduced risk on boxes; stated side: the coercivity constant; rigour: M, c0, C1 against mpmath and the softplus bounds against a float64 quadrature; shared: nothing",
    source=f"{SOURCE}, Lemma B.32, Lemma B.6",
    statement="C2 (d=20, m1=e1=-m-1, Gamma=I, pi+=1/2): M = 1, c0 = g(-1) = phi(1) - Phi(-1), C1 = c0 > 0, "
              "and L(w) >= C1 ||w|| on sampled directions",
    section="certificates", check=_check_coercivity, kind="numeric",
    configurations_note="certifies the stated coercivity constant of configuration C2 (a specific constant)",
    assumptions=("m1 = -m-1", "Gamma symmetric positive definite"),
    defaults={"d": 20, "m1": "e1", "Gamma": "identity", "monotonicity_boxes": 8, "direction_seed": 0,
              "random_directions": 2, "radii": ["0.5", "2", "8"], "softplus_K": 9, "softplus_pieces": 160,
              "prec": 96},
    profiles={"full": {"random_directions": 6, "radii": ["0.25", "1", "4", "16"], "softplus_pieces": 640}},
    controls=(Control("shifted-threshold", "claim C1 > c0 + 1e-3 (c0 from mpmath)"),
              Control("c0-at-plus-M", "wrong quantity: c0 = g(+M) = M Phi(M) + phi(M) (the max of g on [-M, M]); "
                                      "statement kept: L(w) >= C1 ||w|| then fails certainly on a sampled w")),
))


# =============================================================================================
# (6) finite-prompt constant rho(a) = M(2a) / M(a)^2 >= 1 over a box of tilts
