"""Ball-arithmetic certificates for Section 4 (python-flint, through :mod:`softmix.numerics.balls`).

* :func:`linear_gap_certificate` -- rigorous lower / upper bounds on the excess risk
  ``E||A* Z - f*(Z)||^2`` of the best linear map (d = 2, two components): a sum over boxes of
  inf / sup of the integrand times the box's mass under mu_Z, plus an explicit tail;
  :func:`linear_gap_1d` is an independent mpmath value (a 1-D reduction) it must enclose;
* :func:`u_lambda_certificate` -- existence, uniqueness and an enclosure of the positive root of
  ``u = tanh(lambda^2 u)`` (lambda > 1);
* :func:`contraction_certificate` -- ``tanh(lambda^2 u) < u - margin`` for every ``u > 0``;
* :func:`ball_contains`, :func:`box_bounds_contain` -- tri-state checks that a ball contains an
  independently computed mpmath value.

Every status is tri-state: True (certainly), False (certainly not), None (the balls overlap).
python-flint is imported when a certificate runs (``ModuleNotFoundError`` without it).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath as mpm

__all__ = ["linear_gap_setup", "linear_gap_1d", "linear_gap_certificate", "u_lambda_certificate",
           "contraction_certificate", "ball_contains", "box_bounds_contain", "cover_evidence", "MAX_BOX_ROWS"]

#: boxes listed in a cover's evidence (the rest are counted)
MAX_BOX_ROWS = 12


def _balls():
    from . import balls  # raises ModuleNotFoundError without python-flint

    return balls


def _F(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x))


def ball_contains(ball, ref, rad):
    """Tri-state: does ``ball`` contain the number known to lie within ``rad`` of the mpf ``ref``?
    (:func:`softmix.numerics.balls.ball_contains`.)"""
    return _balls().ball_contains(ball, ref, rad)


# ---- the linear-attention gap ---------------------------------------------------------------------
def linear_gap_setup(means, weights, gamma, xi):
    """Exact ingredients: ``(means, weights, gamma^2, xi^2, s, d, A*, A* - (gamma^2/s) I)`` with
    ``A* = M_X (M_X + xi^2 I)^-1`` in exact rationals."""
    from flint import fmpq, fmpq_mat

    ms = [[_F(v) for v in m] for m in means]
    pis = [_F(p) for p in weights]
    g2, x2 = _F(gamma) ** 2, _F(xi) ** 2
    d = len(ms[0])
    MX = [[g2 * (i == j) + sum(p * m[i] * m[j] for p, m in zip(pis, ms)) for j in range(d)] for i in range(d)]
    q = lambda rows: fmpq_mat(d, d, [fmpq(x.numerator, x.denominator) for r in rows for x in r])
    A = q(MX) * q([[MX[i][j] + x2 * (i == j) for j in range(d)] for i in range(d)]).inv()
    s2 = g2 + x2
    Aq = [[Fraction(int(A[i, j].p), int(A[i, j].q)) for j in range(d)] for i in range(d)]
    Bm = [[Aq[i][j] - (g2 / s2) * (i == j) for j in range(d)] for i in range(d)]
    return ms, pis, g2, x2, s2, d, Aq, Bm


def linear_gap_1d(means, weights, gamma, xi, dps: int = 30):
    """``E||A* Z - f*(Z)||^2`` reduced to a 1-D integral over ``tau = delta . z`` (``E[z | tau] = n +
    delta tau`` for both components, Cov = s I), by mpmath quadrature at ``dps`` digits."""
    ms, pis, g2, x2, s2, d, Aq, Bm = linear_gap_setup(means, weights, gamma, xi)
    with mpm.workdps(dps):
        mp = lambda x: mpm.mpf(x.numerator) / x.denominator
        Bv = mpm.matrix([[mp(x) for x in r] for r in Bm])
        m = [mpm.matrix([mp(x) for x in mk]) for mk in ms]
        p = [mp(x) for x in pis]
        s2m, x2m = mp(s2), mp(x2)
        delta = (m[0] - m[1]) / mpm.norm(m[0] - m[1])
        n = m[0] - delta * (delta.T * m[0])[0]
        Ezz = sum((pk * (mk * mk.T) for pk, mk in zip(p, m)), mpm.zeros(d, d)) + s2m * mpm.eye(d)
        first = sum((Bv.T * Bv)[i, j] * Ezz[j, i] for i in range(d) for j in range(d))

        def integrand(tau):
            z = n + delta * tau
            sc = [mpm.log(pk) + (mk.T * z)[0] / s2m - (mk.T * mk)[0] / (2 * s2m) for pk, mk in zip(p, m)]
            w = [mpm.exp(v - max(sc)) for v in sc]
            hv = (x2m / s2m) * sum((wk / sum(w) * mk for wk, mk in zip(w, m)), mpm.zeros(d, 1))
            dens = sum(pk * mpm.npdf(tau, (delta.T * mk)[0], mpm.sqrt(s2m)) for pk, mk in zip(p, m))
            return (-2 * (hv.T * (Bv * z))[0] + (hv.T * hv)[0]) * dens

        centers = sorted(float((delta.T * mk)[0]) for mk in m)
        return first + mpm.quad(integrand, [-mpm.inf] + [mpm.mpf(c) for c in centers] + [mpm.inf])


def _wiener_residual(ms, pis, g2, x2, Aq):
    """A* - W, W = M_X (M_X + xi^2 I)^-1 the Wiener filter of a centred Gaussian with second moment M_X (d = 2)."""
    d = 2
    MX = [[g2 * (i == j) + sum(p * m[i] * m[j] for p, m in zip(pis, ms)) for j in range(d)] for i in range(d)]
    D = [[MX[i][j] + x2 * (i == j) for j in range(d)] for i in range(d)]
    det = D[0][0] * D[1][1] - D[0][1] * D[1][0]
    Di = [[D[1][1] / det, -D[0][1] / det], [-D[1][0] / det, D[0][0] / det]]
    W = [[sum(MX[i][k] * Di[k][j] for k in range(d)) for j in range(d)] for i in range(d)]
    return [[Aq[i][j] - W[i][j] for j in range(d)] for i in range(d)]


def _grid_edges(ms, sf, K, n):
    edges = []
    for i in range(2):
        lo = Fraction(min(float(mk[i]) for mk in ms) - float(K) * sf).limit_denominator(64)
        hi = Fraction(max(float(mk[i]) for mk in ms) + float(K) * sf).limit_denominator(64)
        edges.append([lo + (hi - lo) * Fraction(j, n) for j in range(n + 1)])
    return edges


def _tail_bound(B, Ba, ma, pa, c, ms, s, edges):
    """Upper bound of the integral outside the grid: ||Bz - h||^2 <= 2||B||_F^2 |z|^2 + 2 Hmax^2."""
    from flint import arb

    BF2 = sum((x * x for r in Ba for x in r), arb(0))
    Hmax = c * B.to_arb(max(sum((x * x for x in mk), Fraction(0)) for mk in ms)).sqrt()  # |h| <= c max|m_k|
    al, be, tail = 2 * BF2, 2 * Hmax * Hmax, arb(0)
    for k in range(2):
        for i in range(2):
            other = sum(((ma[k][j] ** 2 + s * s) for j in range(2) if j != i), arb(0))
            above, below = (B.to_arb(edges[i][-1]) - ma[k][i]) / s, (B.to_arb(edges[i][0]) - ma[k][i]) / s
            for a_, b_ in ((above, None), (None, below)):
                e2 = B.poly2_mass(ma[k][i] ** 2, 2 * ma[k][i] * s, s * s, a_, b_)
                tail += pa[k] * (al * e2 + (al * other + be) * B.normal_mass(a_, b_))
    return tail


def _box_sums(B, resid, mass1, pa, edges, n):
    """Sum over the n x n boxes of inf (lower) and sup (upper) of the integrand times the box's mass."""
    from flint import arb

    lower, upper, rows = arb(0), arb(0), []
    for j0 in range(n):
        for j1 in range(n):
            r = resid([B.hull(edges[0][j0], edges[0][j0 + 1]), B.hull(edges[1][j1], edges[1][j1 + 1])])
            lo_f = sum((x.abs_lower() ** 2 for x in r), arb(0))
            up_f = sum((x.abs_upper() ** 2 for x in r), arb(0))
            mu = sum((pa[k] * mass1[k][0][j0] * mass1[k][1][j1] for k in range(2)), arb(0))
            lower += lo_f * mu
            upper += up_f * mu
            box = [[str(edges[0][j0]), str(edges[0][j0 + 1])], [str(edges[1][j1]), str(edges[1][j1 + 1])]]
            rows.append({"box": box,
                         "inf_integrand_ge": lo_f.str(6, radius=False), "mass": mu.str(6, radius=True),
                         "_contrib": float((lo_f * mu).mid()), "_pos": bool(lo_f > 0)})
    return lower, upper, rows


def _masses(B, ma, s, edges, n):
    """1-D masses per component, coordinate and interval; and whether, with the two tails, they
    overlap the total mass (a wrong mass formula is seen here)."""
    from flint import arb

    mass1 = [[[B.normal_mass((B.to_arb(edges[i][j]) - ma[k][i]) / s, (B.to_arb(edges[i][j + 1]) - ma[k][i]) / s)
               for j in range(n)] for i in range(2)] for k in range(2)]
    ok = True
    for k in range(2):
        for i in range(2):
            tot = sum(mass1[k][i], arb(0)) + B.normal_mass(None, (B.to_arb(edges[i][0]) - ma[k][i]) / s) + \
                B.normal_mass((B.to_arb(edges[i][-1]) - ma[k][i]) / s, None)
            ok &= bool(tot.overlaps(B.normal_mass(None, None)))
    return mass1, ok


def linear_gap_certificate(means, weights, gamma, xi, grid: int = 96, half_width_sd=6, prec: int = 64,
                           denoiser: str = "bayes") -> dict:
    """Certified bounds ``lower <= E||A* Z - f*(Z)||^2 <= upper`` (d = 2, two components) on a
    ``grid x grid`` box partition of ``half_width_sd`` standard deviations around the means, plus an
    explicit tail.  ``denoiser="wiener"`` takes f* as the Wiener filter of a centred Gaussian with
    second moment M_X (a control's wrong quantity: the gap is then exactly 0).  The balls are under
    ``_lower``, ``_upper``; ``_partition_ok`` says the box masses partition the line."""
    B = _balls()
    from flint import arb

    ms, pis, g2, x2, s2, d, Aq, Bm = linear_gap_setup(means, weights, gamma, xi)
    if d != 2 or len(ms) != 2:
        raise ValueError("box certificate implemented for d = 2, two components")
    if denoiser not in ("bayes", "wiener"):
        raise ValueError(f"unknown denoiser {denoiser!r}")
    cq = x2 / s2 if denoiser == "bayes" else Fraction(0)
    Bm = Bm if denoiser == "bayes" else _wiener_residual(ms, pis, g2, x2, Aq)
    n = int(grid)
    with B.precision(int(prec)):
        s = B.to_arb(s2).sqrt()
        Ba, ma = [[B.to_arb(x) for x in r] for r in Bm], [[B.to_arb(x) for x in mk] for mk in ms]
        lp, c, pa = [B.to_arb(p).log() for p in pis], B.to_arb(cq), [B.to_arb(p) for p in pis]
        off = [sum((B.to_arb(x) ** 2 for x in mk), arb(0)) / (2 * B.to_arb(s2)) for mk in ms]

        def resid(z):
            sc = [lp[k] + (ma[k][0] * z[0] + ma[k][1] * z[1]) / B.to_arb(s2) - off[k] for k in range(2)]
            b1 = B.sigmoid(sc[0] - sc[1])
            return [Ba[i][0] * z[0] + Ba[i][1] * z[1] - c * (b1 * ma[0][i] + (1 - b1) * ma[1][i]) for i in range(2)]

        edges = _grid_edges(ms, float(s.mid()), _F(half_width_sd), n)
        mass1, partition_ok = _masses(B, ma, s, edges, n)
        lower, upper, rows = _box_sums(B, resid, mass1, pa, edges, n)
        tail = _tail_bound(B, Ba, ma, pa, c, ms, s, edges)
        upper = upper + tail
        clean = lambda r: {k: v for k, v in r.items() if not k.startswith("_")}
        return {"prec": int(prec), "A_star": [[str(x) for x in r] for r in Aq], "denoiser_f_star": denoiser,
                ("A_star_minus_Gamma_Sinv" if denoiser == "bayes" else "A_star_minus_W"):
                    [[str(x) for x in r] for r in Bm],
                "grid": f"{n} x {n} boxes on {[[str(e[0]), str(e[-1])] for e in edges]}", "n_boxes": n * n,
                "tail_bound_outside_grid": B.fmt(tail, 6), "masses_partition_the_line": partition_ok,
                "lower_bound": B.fmt(lower, 15), "upper_bound": B.fmt(upper, 15),
                "boxes_largest_contributions": [clean(r) for r in sorted(rows, key=lambda r: -r["_contrib"])[:8]],
                "n_boxes_with_positive_inf": sum(1 for r in rows if r["_pos"]),
                "worst_box": clean(min(rows, key=lambda r: float(r["inf_integrand_ge"]))),
                "method": "sum over boxes of inf(integrand on box) x mu_Z(box) (mass by erfc); the integrand is >= 0 "
                          "so the truncated sum is a lower bound; upper bound adds sup x mass and an explicit tail",
                "_lower": lower, "_upper": upper, "_partition_ok": partition_ok}


# ---- Prop. 4.3: u_lambda and the contraction ----------------------------------------------------
def cover_evidence(res: dict, digits: int = 8) -> dict:
    """The evidence of a :func:`softmix.numerics.balls.cover_sign` result: status, box count, the worst
    box, the first :data:`MAX_BOX_ROWS` boxes, and any counterexample."""
    boxes = res["boxes"]
    ev = {"status": res["status"], "n_boxes": len(boxes)}
    if boxes:
        row = lambda a, b, v: {"box": [str(a), str(b)], "bound": v.str(digits, radius=True, more=True)}
        ev["worst_box"] = row(*min(boxes, key=lambda t: float(t[2].lower())))
        ev["bound_meaning"] = "ball enclosing sign * f over the box; every bound lies certainly above 0"
        ev["boxes"] = [row(*b) for b in boxes[:MAX_BOX_ROWS]] + \
            ([{"...": f"{len(boxes) - MAX_BOX_ROWS} more boxes"}] if len(boxes) > MAX_BOX_ROWS else [])
        ev["smallest_box_width"] = str(min(b - a for a, b, _ in boxes))
    for k in ("counterexample", "reason"):
        if k in res:
            ev[k] = str(res[k])
    if "value_at_counterexample" in res:
        ev["sign_times_f_at_counterexample"] = res["value_at_counterexample"].str(10, more=True) + " (certainly <= 0)"
    return ev


def box_bounds_contain(boxes, sign: int, fn_mp, prec: int, lam2) -> list:
    """For the worst, first and last boxes of a cover, does the ball bounding ``sign * f`` over the box
    contain ``sign * fn_mp(lambda^2, u)`` (mpmath, 40 digits) at the box's ends and midpoint?  Tri-state
    per box: False (a value certainly outside) refutes the certificate."""
    B = _balls()
    if not boxes:
        return []
    worst = min(boxes, key=lambda t: float(t[2].lower()))
    rows = []
    with B.precision(prec), mpm.workdps(40):
        l2 = mpm.mpf(lam2.numerator) / lam2.denominator
        for a, b, ball in {id(x): x for x in (worst, boxes[0], boxes[-1])}.values():
            st = [ball_contains(ball, sign * fn_mp(l2, mpm.mpf(u.numerator) / u.denominator), mpm.mpf(10) ** -35)
                  for u in (a, (a + b) / 2, b)]
            rows.append({"box": [str(a), str(b)], "contains_f_at_ends_and_midpoint":
                         True if all(x is True for x in st) else (False if False in st else None)})
    return rows


def _positive_below(lam2: Fraction) -> Fraction:
    """d0 with lambda^6 d0^2 < 3 (lambda^2 - 1): tanh x >= x - x^3/3 gives H > 0 on (0, d0]."""
    d0 = Fraction(1, 2)
    while lam2 ** 3 * d0 * d0 >= 3 * (lam2 - 1):
        d0 /= 2
    return d0


def u_lambda_certificate(lam, prec: int = 128, n_init: int = 8, power: int = 2) -> dict:
    """Existence, uniqueness and an enclosure of the positive root of ``u = tanh(lambda^power u)``
    (``power`` 2: the paper's; 1: a control's mistake), for ``lambda^power > 1``: H(u) = tanh(L u) - u
    is certified positive on (0, r - eta), decreasing on (r - eta, r + eta), negative on (r + eta, 1);
    the enclosure [lo, hi] (width ~2^-(prec - 29)) has H(lo) > 0 > H(hi).  ``_lo``, ``_hi``: the
    enclosure; ``_covers``: the boxes and signs of the two sign covers of H; ``_derivative_cover``: those of
    the cover of H' near the root (each box's ball encloses -H' there)."""
    B = _balls()
    lam2 = _F(lam) ** int(power)
    if lam2 <= 1:
        raise ValueError("u_lambda exists only for lambda > 1")
    with B.precision(int(prec)):
        L2 = B.to_arb(lam2)
        H = lambda u: (L2 * u).tanh() - u
        dH = lambda u: L2 * (1 - (L2 * u).tanh() ** 2) - 1
        d0 = _positive_below(lam2)
        with mpm.workdps(60):
            l2m = mpm.mpf(lam2.numerator) / lam2.denominator
            r = mpm.findroot(lambda u: mpm.tanh(l2m * u) - u, (mpm.mpf(d0.numerator) / d0.denominator, 1),
                             solver="anderson")
        rq = Fraction(mpm.nstr(r, 50))
        eps = Fraction(1, 2 ** (int(prec) - 28))
        lo, hi = rq - eps, rq + eps
        ex_lo, ex_hi = B.gt(H(B.to_arb(lo)), 0), B.lt(H(B.to_arb(hi)), 0)
        eta = Fraction(1, 64)
        while rq - 2 * eta <= d0:
            eta /= 2
        rq = Fraction(round(float(rq) * 2 ** 24), 2 ** 24)  # simple centre for the partition points
        near = B.cover_sign(dH, rq - eta, rq + eta, -1, n_init=n_init)  # H' < 0 near the root
        left = B.cover_sign(H, d0, rq - eta, +1, df=dH, n_init=n_init)  # H > 0
        right = B.cover_sign(H, rq + eta, 1, -1, df=dH, n_init=n_init) if rq + eta < 1 else {"status": True,
                                                                                             "boxes": []}
        status = bool(ex_lo and ex_hi and near["status"] is True and left["status"] is True and right["status"] is True)
        enclosure = B.hull(lo, hi)
        return {"prec": int(prec), "lambda": str(lam), "slope_used_for_lambda^2": f"lambda^{power} = {lam2}",
                "enclosure": B.ends(enclosure, 40), "enclosure_ball": B.fmt(enclosure, 40),
                "enclosure_width": str(hi - lo),
                "H(lo)>0": ex_lo, "H(hi)<0": ex_hi, "H(lo)": H(B.to_arb(lo)).str(8), "H(hi)": H(B.to_arb(hi)).str(8),
                "near_zero": {"interval": ["0", str(d0)], "argument": "tanh x >= x - x^3/3 for x >= 0, so H(u) >= u "
                              f"(lambda^2 - 1 - lambda^6 u^2/3) > 0 since lambda^6 d0^2 = {lam2 ** 3 * d0 * d0} < "
                              f"3 (lambda^2 - 1) = {3 * (lam2 - 1)}"},
                "H_positive_on": {"interval": [str(d0), str(rq - eta)], **cover_evidence(left)},
                "H_decreasing_near_root": {"interval": [str(rq - eta), str(rq + eta)], "certified": "H' < 0",
                                           **cover_evidence(near)},
                "H_negative_on": {"interval": [str(rq + eta), "1"], **cover_evidence(right)},
                "tail": "u >= 1: tanh(lambda^2 u) < 1 <= u", "uniqueness_and_existence_certified": status,
                "_lo": lo, "_hi": hi, "_covers": {"left": (left["boxes"], +1), "right": (right["boxes"], -1)},
                "_derivative_cover": (near["boxes"], -1),
                "_lam2": lam2}


def contraction_certificate(lam, margin=0, near_zero="1/8", prec: int = 96, n_init: int = 8, max_depth: int = 30,
                            gain: str = "lambda^2") -> dict:
    """``tanh(g u) < u - margin`` for every ``u > 0`` with ``g = lambda^2`` (``gain="2*lambda"``: a
    control's mistake): certified on ``[near_zero, 1 + margin]`` by a sign cover, on ``(0, near_zero]``
    by ``tanh x < x`` when ``margin = 0`` and ``g <= 1`` (else a certain counterexample is looked for
    there), above ``1 + margin`` since tanh < 1.  ``status`` is tri-state; ``_boxes`` the cover."""
    B = _balls()
    lam, margin = _F(lam), _F(margin)
    if gain not in ("lambda^2", "2*lambda"):
        raise ValueError(f"unknown gain {gain!r}")
    lam2 = lam * lam if gain == "lambda^2" else 2 * lam
    with B.precision(int(prec)):
        L2, mg = B.to_arb(lam2), B.to_arb(margin)
        f = lambda u: (L2 * u).tanh() - u + mg
        df = lambda u: L2 * (1 - (L2 * u).tanh() ** 2) - 1
        d0, top = _F(near_zero), 1 + margin
        res = B.cover_sign(f, d0, top, -1, df=df, n_init=int(n_init), max_depth=int(max_depth))
        near_ok = margin == 0 and lam2 <= 1
        probe = None
        if not near_ok and res["status"] is not False:
            for k in range(1, 41):  # no lemma for (0, d0]: look for a certain counterexample there
                u = d0 / 2 ** k
                if f(B.to_arb(u)) >= 0:
                    probe = {"counterexample": str(u), "value": f(B.to_arb(u)).str(10)}
                    break
        certain = res["status"] is True and near_ok
        status = False if (res["status"] is False or probe is not None) else (True if certain else None)
        return {"prec": int(prec), "lambda": str(lam), "gain_multiplying_u": f"{gain} = {lam2}", "margin": str(margin),
                "near_zero": {"interval": ["0", str(d0)], "applies": near_ok,
                              "argument": "tanh x < x for x > 0, hence tanh(lambda^2 u) < lambda^2 u <= u when "
                                          "lambda <= 1"},
                "compact_piece": {"interval": [str(d0), str(top)], "certified": "tanh(lambda^2 u) - u + margin < 0",
                                  **cover_evidence(res, 10)},
                "tail": f"u >= {top}: tanh(lambda^2 u) < 1 <= u - margin", "probe_near_zero": probe, "status": status,
                "_boxes": res["boxes"], "_lam2": lam2, "_margin": margin}
