"""Ball-arithmetic certificate of the coercivity constant of Lemma B.32 (reduced linear logistic risk).

With q = w^T Y X ~ N(w.m1, w^T Gamma w) on the symmetric configuration (m_-1 = -m1), the reduced risk is
L(w) = E[log(1 + exp(-q))], M = (m1^T Gamma^-1 m1)^(1/2) and g(t) = t Phi(t) + phi(t); the lemma's constant is
C1 = c0 sqrt(lambda_min(Gamma)) with c0 = min_{|t| <= M} g(t) = g(-M).

* :func:`coercivity_certificate` -- certifies g' = Phi > 0 on [-M, M] (so the minimum is at -M), encloses
  M, c0, C1, and certifies L(w) >= C1 ||w|| on sampled directions and radii (lower and upper bounds of L);
  each ball is checked against an mpmath value (the softplus bounds against a float64 quadrature);
* :func:`softplus_expectation_bounds` -- rigorous lower and upper bounds of E[log(1 + exp(-(mu + sigma U)))],
  U ~ N(0, 1), by tangents and chords of the convex integrand on a partition.

Needs python-flint (``ModuleNotFoundError`` otherwise).  Tested in tests/numerics/test_lda_certificates.py.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mpm
import numpy as np

from . import balls as B

__all__ = ["softplus_expectation_bounds", "softplus_bounds_check", "STRESS_CASES", "coercivity_certificate",
           "unit_vector_or_list"]


def _F(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x))


def unit_vector_or_list(v, d: int) -> list:
    """``"e3"`` -> the third unit vector of length ``d`` (exact); a list -> its entries as Fractions."""
    if isinstance(v, str) and v.startswith("e"):
        i = int(v[1:]) - 1
        return [Fraction(int(j == i)) for j in range(d)]
    return [_F(x) for x in v]


def softplus_expectation_bounds(mu, sigma, K: int, N: int):
    """(lower, upper) arb bounds of E[log(1 + exp(-(mu + sigma U)))], U ~ N(0, 1), sigma >= 0.  Lower: the
    integrand is >= 0 (drop |u| > K) and convex in u (on each of N pieces of [-K, K] above its tangent at the
    midpoint).  Upper: below its chord on each piece; for |u| > K, log(1 + e^x) <= log 2 + |x| and
    |x| <= |mu| + sigma |u| (closed-form Gaussian tails)."""
    from flint import arb

    edges = [Fraction(-K) + Fraction(2 * K * j, N) for j in range(N + 1)]
    sp = lambda u: (1 + (-(mu + sigma * B.to_arb(u))).exp()).log()
    vals = [sp(u) for u in edges]
    lower, upper = arb(0), arb(0)
    for j, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        P, first = B.normal_mass(a, b), B.phi(a) - B.phi(b)
        c = B.to_arb((a + b) / 2)
        x = -(mu + sigma * c)
        lower += (1 + x.exp()).log() * P - sigma * B.sigmoid(x) * (first - c * P)
        slope = (vals[j + 1] - vals[j]) / B.to_arb(b - a)
        upper += vals[j] * P + slope * (first - B.to_arb(a) * P)
    tail = (arb(2).log() + abs(mu)) * 2 * B.Phi(-K) + sigma * 2 * B.phi(K)
    return lower, upper + tail


def _isqrt_exact(n: int):
    r = math.isqrt(n)
    return r if r * r == n else None


def _mahalanobis(m1, G, d):
    """(M^2 exact, M ball) with M^2 = m1^T Gamma^-1 m1 (exact rational solve)."""
    from flint import fmpq, fmpq_mat

    Gq = fmpq_mat(d, d, [fmpq(x.numerator, x.denominator) for r in G for x in r])
    mq = fmpq_mat(d, 1, [fmpq(x.numerator, x.denominator) for x in m1])
    M2q = (mq.transpose() * Gq.solve(mq))[0, 0]
    M2 = Fraction(int(M2q.p), int(M2q.q))
    return M2, B.to_arb(M2).sqrt()


def _lambda_min(G, d):
    """(lower ball, upper ball, note, exact value or None) of lambda_min(Gamma)."""
    from flint import arb

    if all(G[i][j] == 0 for i in range(d) for j in range(d) if i != j):
        lmin = min(G[i][i] for i in range(d))
        return B.to_arb(lmin), B.to_arb(lmin), f"diagonal Gamma: lambda_min = {lmin} exactly", lmin
    w, V = np.linalg.eigh(np.array([[float(x) for x in r] for r in G]))
    c = Fraction(float(w[0]) * (1 - 2.0 ** -20))
    st, _ = B.min_eig_lower([[B.to_arb(x) for x in r] for r in G], c)
    up = B.rayleigh([[B.to_arb(x) for x in r] for r in G], [Fraction(float(v)) for v in V[:, 0]]).upper()
    return (B.to_arb(c) if st else arb(0)), up, "Cholesky of Gamma - cI (lower) and a Rayleigh quotient (upper)", None


def _monotonicity(M2, M, n):
    """g' = Phi proven symbolically, then Phi > 0 certified on n boxes covering [-M, M]."""
    import sympy as sp

    t = sp.symbols("t", real=True)
    Phis = (1 + sp.erf(t / sp.sqrt(2))) / 2
    gprime_is_Phi = sp.simplify(sp.diff(t * Phis + sp.exp(-t ** 2 / 2) / sp.sqrt(2 * sp.pi), t) - Phis) == 0
    rn, rd = _isqrt_exact(M2.numerator), _isqrt_exact(M2.denominator)
    if rn is not None and rd is not None:
        Mup = Fraction(rn, rd)  # M rational: exact
    else:
        man, ex = M.upper().man_exp()
        Mup = Fraction(int(man)) * Fraction(2) ** int(ex)  # exact dyadic upper endpoint of the ball
    rows, ok = [], bool(B.ge(B.to_arb(Mup), M))
    for j in range(n):
        lo, hi = -Mup + 2 * Mup * Fraction(j, n), -Mup + 2 * Mup * Fraction(j + 1, n)
        v = B.Phi(B.hull(lo, hi))
        positive = B.gt(v, 0) is True
        rows.append({"box": [str(lo), str(hi)], "Phi_on_box": v.str(8, more=True), "certainly_positive": positive})
        ok = ok and positive
    return gprime_is_Phi, {"statement": "g'(t) = Phi(t) > 0 on [-M, M], so min_{|t|<=M} g = g(-M)",
                           "boxes": rows, "all_certain": bool(ok)}


def _directions(m1, rng, n_random, d):
    dirs = [("e1-aligned (worst q = -M)", [float(x) for x in m1]), ("anti-aligned", [-float(x) for x in m1])]
    return dirs + [(f"random {i}", list(rng.standard_normal(d))) for i in range(int(n_random))]


def _sampled_rows(m1, G, C1, dirs, radii, K, pieces):
    """L(w) >= C1 ||w|| on each sampled (direction, radius): rows, all certified, certain counterexamples."""
    d = len(m1)
    rows = []
    for name, u in dirs:
        nu = float(np.linalg.norm(u))
        for rad in radii:
            w = [Fraction(float(rad) * x / nu) for x in u]  # exact dyadic rationals
            mu = sum(wi * mi for wi, mi in zip(w, m1))
            s2 = sum(w[i] * G[i][j] * w[j] for i in range(d) for j in range(d) if G[i][j] != 0)
            Lw, Lu = softplus_expectation_bounds(B.to_arb(mu), B.to_arb(s2).sqrt(), K, pieces)
            cn = C1 * B.to_arb(sum(x * x for x in w)).sqrt()
            rows.append({"direction": name, "radius": str(rad), "L(w)_ge": Lw.str(10, more=True),
                         "L(w)_le": Lu.str(10, more=True), "C1_norm_w": cn.str(10, more=True),
                         "certified": B.gt(Lw - cn, 0) is True, "counterexample": B.lt(Lu, cn) is True,
                         "_bounds": (Lw, Lu), "_q": (float(mu), float(s2) ** 0.5)})
    return rows


def _softplus_enclosure(row):
    """Do the row's bounds enclose E softplus(-(mu + s U)) by a float64 quadrature (radius 10 x its error +
    1e-12 relative)?  Tri-state."""
    from scipy.integrate import quad

    mu_, sg = row["_q"]
    val, aerr = quad(lambda x: np.logaddexp(0.0, -(mu_ + sg * x)) * np.exp(-x * x / 2) / np.sqrt(2 * np.pi),
                     -np.inf, np.inf, epsabs=1e-14, epsrel=1e-13, limit=200)
    ref = B.with_error(B.to_arb(val), 10 * aerr + 1e-12 * abs(val))  # the double, exactly, +- its error
    lo_ok, hi_ok = B.le(row["_bounds"][0], ref), B.le(ref, row["_bounds"][1])
    return {"quantity": f"E softplus, {row['direction']}, radius {row['radius']}", "value": val, "quad_error": aerr,
            "contains": True if (lo_ok is True and hi_ok is True) else
            (False if (lo_ok is False or hi_ok is False) else None)}


#: (mu, sigma, K, N) on which every term of the softplus bounds carries weight: K = 1 leaves a third of the mass
#: to the tail term; four pieces of width 1 on a steep, nearly linear integrand make each piece and each chord's
#: slope count (a bound function that passes at the certificate's fine partition can still be wrong in a term
#: that only weighs 1e-20 there)
STRESS_CASES = ((Fraction(0), Fraction(1, 10), 1, 8), (Fraction(-5), Fraction(1, 2), 2, 4))


def softplus_bounds_check(mu, sigma, K: int, N: int) -> dict:
    """The bounds of :func:`softplus_expectation_bounds` at (``mu``, ``sigma``, ``K``, ``N``) against
    E log(1 + exp(-(mu + sigma U))) by mpmath quadrature (30 digits, split at the kink): ``contains`` is True
    when lower <= E <= upper certainly and each bound is within its convexity slack of E -- h^2 sigma^2 / 32
    (tangent and chord of a convex function of curvature <= sigma^2 / 4 on pieces of width h = 2K/N) plus the
    tail E[(log 2 + |mu| + sigma |U|); |U| > K] -- False when a bound certainly misses E or certainly exceeds
    its slack, None otherwise.  On a coarse partition a left-out piece, tail term or chord slope shows."""
    with mpm.workdps(30):
        m, sg = mpm.mpf(_F(mu).numerator) / _F(mu).denominator, mpm.mpf(_F(sigma).numerator) / _F(sigma).denominator
        f = lambda u: mpm.log1p(mpm.exp(-(m + sg * u))) * mpm.npdf(u)  # noqa: E731
        ref = mpm.quad(f, [-mpm.inf, -m / sg, 0, mpm.inf] if sg > 0 else [-mpm.inf, 0, mpm.inf])
        h = mpm.mpf(2 * K) / N
        slack = h ** 2 * sg ** 2 / 32 + (mpm.log(2) + abs(m)) * 2 * mpm.ncdf(-K) + 2 * sg * mpm.npdf(K) \
            + mpm.mpf(10) ** -20
        lo, hi = softplus_expectation_bounds(B.to_arb(_F(mu)), B.to_arb(_F(sigma)), K, N)
        lo_l, lo_u = mpm.mpf(lo.lower().str(30, radius=False)), mpm.mpf(lo.upper().str(30, radius=False))
        hi_l, hi_u = mpm.mpf(hi.lower().str(30, radius=False)), mpm.mpf(hi.upper().str(30, radius=False))
        if lo_l > ref or hi_u < ref or lo_u < ref - slack or hi_l > ref + slack:
            ok = False
        elif lo_u <= ref <= hi_l and lo_l >= ref - slack and hi_u <= ref + slack:
            ok = True
        else:
            ok = None
        return {"quantity": f"softplus bounds at K = {K}, N = {N} (mu = {mpm.nstr(m, 6)}, sigma = {mpm.nstr(sg, 6)})",
                "value": mpm.nstr(ref, 15), "slack": mpm.nstr(slack, 3), "contains": ok}


def _enclosures(M2, M, c0, C1, endpoint, lmin, rows):
    """Balls against 40-digit mpmath values of M, c0 (the endpoint used) and, for a diagonal Gamma, C1; the
    softplus bounds of the first and last sampled rows against a float64 quadrature, and the bound function on
    the :data:`STRESS_CASES` (:func:`softplus_bounds_check`)."""
    with mpm.workdps(40):
        Mm = mpm.sqrt(mpm.mpf(M2.numerator) / M2.denominator)
        c0m = mpm.npdf(Mm) - Mm * mpm.ncdf(-Mm) if endpoint == "-M" else Mm * mpm.ncdf(Mm) + mpm.npdf(Mm)
        rad = mpm.mpf(10) ** -36
        enc = [{"quantity": "M", "contains": B.ball_contains(M, Mm, rad)},
               {"quantity": f"c0 = g({endpoint})", "contains": B.ball_contains(c0, c0m, rad)}]
        if lmin is not None:
            lmm = mpm.mpf(lmin.numerator) / lmin.denominator
            enc.append({"quantity": "C1", "contains": B.ball_contains(C1, c0m * mpm.sqrt(lmm), rad)})
        c0_mpmath = mpm.nstr(c0m, 30)  # the endpoint used, as the c0 ball beside it in the evidence
    stress = [softplus_bounds_check(*case) for case in STRESS_CASES]
    return enc + [_softplus_enclosure(rows[0]), _softplus_enclosure(rows[-1])] + stress, c0_mpmath


def coercivity_certificate(d: int, m1, Gamma, rng, random_directions: int = 2, radii=("0.5", "2", "8"),
                           monotonicity_boxes: int = 8, softplus_K: int = 9, softplus_pieces: int = 160,
                           prec: int = 96, c0_endpoint: str = "-M") -> dict:
    """Certify C1 = c0 sqrt(lambda_min(Gamma)) > 0, c0 = g(-M), and L(w) >= C1 ||w|| on the directions m1, -m1
    and ``random_directions`` drawn from ``rng`` at each radius.  ``m1`` is a list or ``"e<i>"``; ``Gamma`` a
    matrix or ``"identity"``.  ``c0_endpoint="+M"`` evaluates c0 at the wrong end (the max of g: a negative
    control's mistake).  Returns the evidence; ``C1`` (ball), ``ok`` (monotonicity, g' = Phi and every sampled
    inequality certified), ``counterexample`` (a sampled w with L(w) < C1 ||w|| certainly), ``enclosures_ok``
    (the tri-state of each enclosure) and ``c0_mpmath``."""
    if c0_endpoint not in ("-M", "+M"):
        raise ValueError(f"unknown c0_endpoint {c0_endpoint!r}")
    m1 = unit_vector_or_list(m1, d)
    G = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)] if Gamma == "identity" else \
        [[_F(x) for x in r] for r in Gamma]
    with B.precision(int(prec)):
        M2, M = _mahalanobis(m1, G, d)
        lam_lo, lam_up, lam_note, lmin = _lambda_min(G, d)
        gprime_is_Phi, mono = _monotonicity(M2, M, int(monotonicity_boxes))
        c0 = (-M * B.Phi(-M) + B.phi(M)) if c0_endpoint == "-M" else (M * B.Phi(M) + B.phi(M))
        C1 = c0 * B.hull(lam_lo, lam_up).sqrt()
        rows = _sampled_rows(m1, G, C1, _directions(m1, rng, random_directions, d), radii, int(softplus_K),
                             int(softplus_pieces))
        enc, c0_mpmath = _enclosures(M2, M, c0, C1, c0_endpoint, lmin, rows)
        samp_ok = all(r["certified"] for r in rows)
        n_bad = sum(r["counterexample"] for r in rows)
        for r in rows:
            r.pop("_bounds"), r.pop("_q")
        return {"prec": int(prec), "d": d, "M^2": str(M2), "M": B.fmt(M, 30), "lambda_min_Gamma": lam_note,
                "g_prime_equals_Phi_symbolic": gprime_is_Phi, "monotonicity": mono, "c0_evaluated_at": c0_endpoint,
                "c0": B.fmt(c0, 30), "C1_str": B.fmt(C1, 30), "c0_mpmath": c0_mpmath,
                "sampled_directions": {"statement": "L(w) >= C1 ||w|| (L bounded below by a convex tangent-line "
                                                    "partition of the 1-D Gaussian integral, |u| <= K, tail dropped; "
                                                    "above by chords plus an explicit tail bound)",
                                       "rows": rows, "all_certain": samp_ok, "n_certain_counterexamples": n_bad},
                "enclosures": {"rows": enc, "rule": "each ball (or [lower, upper] bound pair) contains the 40-digit "
                               "mpmath value (the softplus bounds: a float64 quadrature, radius 10 x its error "
                               "estimate + 1e-12 relative); one that certainly misses it refutes (no certificate), a "
                               "partial overlap (a ball narrower than the reference's accuracy) is reported as null"},
                "C1": C1, "ok": bool(mono["all_certain"] and gprime_is_Phi and samp_ok), "counterexample": n_bad > 0,
                "enclosures_ok": [r["contains"] for r in enc]}
