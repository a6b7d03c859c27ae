"""Ball-arithmetic lower bounds of the finite-prompt constant ``rho(a) = M(2a) / M(a)^2`` over a box of tilts
(docs/finite-prompt.md; python-flint required, imported lazily).

:func:`rho_lower_bounds` cuts the box into ``grid^D`` sub-boxes and encloses ``log rho = Lambda(2a) -
k Lambda(a)`` (``k = 2``; another power computes another quantity) on each from below, two ways:

* ``direct`` -- the ball evaluation of ``Lambda(2a) - k Lambda(a)``, intersected with its mean-value form;
* ``curvature`` (``k = 2`` only) -- the integral form of the second difference ``Lambda(2a) - 2 Lambda(a) +
  Lambda(0) = int_0^2 min(s, 2 - s) a^T Cov_{sa} a ds >= |a|^2 min_b sum_k w_k(b) lambda_min(G_k)``, ``b`` over the
  hull of 0 and twice the box (the tilted covariance dominates ``sum_k w_k G_k``): ``>= 0`` always, ``> 0`` off 0.

Exact: every bound is rigorous (outward-rounded balls); a ball is tested against a high-precision reference by
:func:`softmix.numerics.balls.ball_contains`.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .mixture import GaussianMixture

__all__ = ["rho_lower_bounds", "log_rho_gradient", "require_flint", "MAX_ROWS"]

#: boxes listed in the result (all are decided)
MAX_ROWS = 12


def require_flint():
    """:mod:`softmix.numerics.balls` (python-flint's balls); raises ModuleNotFoundError without python-flint."""
    from . import balls

    return balls


def _frac(x) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x))


class _LogRho:
    """``Lambda``, ``log rho = Lambda(2a) - k Lambda(a)`` and its gradient on balls, at the caller's precision."""

    def __init__(self, B, mix: GaussianMixture, kpow: int):
        from flint import arb

        self.B, self.arb, self.kpow, self.D = B, arb, kpow, mix.dim
        self.lw = [B.to_arb(Fraction(w)).log() for w in mix.weights]
        self.ms = [[B.to_arb(Fraction(x)) for x in m] for m in mix.means]
        self.Gs = [[[B.to_arb(Fraction(x)) for x in r] for r in G] for G in mix.covariances]

    def scores(self, a):
        arb, D = self.arb, self.D
        return [lw + sum((a[i] * m[i] for i in range(D)), arb(0))
                + sum((a[i] * G[i][j] * a[j] for i in range(D) for j in range(D)), arb(0)) / 2
                for lw, m, G in zip(self.lw, self.ms, self.Gs)]

    def Lam(self, a):
        s = self.scores(a)
        mx = max(float(x.mid()) for x in s)
        return sum(((x - mx).exp() for x in s), self.arb(0)).log() + mx

    def F(self, a):
        return self.Lam([2 * x for x in a]) - self.kpow * self.Lam(a)

    def grad_lambda(self, x):
        """grad Lambda(x) = sum_k w_k(x) (m_k + G_k x)."""
        arb, D = self.arb, self.D
        sc = self.scores(x)
        mx = max(float(v.mid()) for v in sc)
        e = [(v - mx).exp() for v in sc]
        S = sum(e, arb(0))
        return [sum((e[k] / S * (self.ms[k][i] + sum((self.Gs[k][i][j] * x[j] for j in range(D)), arb(0)))
                     for k in range(len(e))), arb(0)) for i in range(D)]

    def gradF(self, a):
        g2, g1 = self.grad_lambda([2 * x for x in a]), self.grad_lambda(a)
        return [2 * u - self.kpow * v for u, v in zip(g2, g1)]

    def weights_lower(self, b):
        """Lower bounds of the tilted weights over the box ``b`` (monotone in each score difference)."""
        s = self.scores(b)
        return [(1 / (1 + sum(((s[j] - s[k]).upper().exp() for j in range(len(s)) if j != k), self.arb(0)))).lower()
                for k in range(len(s))]


def _lambda_min_lowers(B, mix: GaussianMixture) -> list:
    """A certified lower bound of lambda_min(G_k) per component (Cholesky of G_k - c I; 0 for singular ones)."""
    out = []
    for G in mix.covariances:
        ev = float(np.linalg.eigvalsh(np.array([[float(x) for x in r] for r in G]))[0])
        if ev > 1e-9:
            c = Fraction(ev * (1 - 2.0 ** -20)).limit_denominator(10 ** 9)
            ok, _ = B.min_eig_lower([[B.to_arb(Fraction(x)) for x in r] for r in G], c)
            out.append(c if ok else Fraction(0))
        else:
            out.append(Fraction(0))
    return out


def _box_bound(f: _LogRho, lam, lo, hi):
    """(lower bound of log rho on the box [lo, hi], method)."""
    B, arb = f.B, f.arb
    a = [B.hull(lv, h) for lv, h in zip(lo, hi)]
    c = [(lv + h) / 2 for lv, h in zip(lo, hi)]
    Fb = f.F(a)  # naive ball evaluation, intersected with the mean-value form
    mv = f.F([B.to_arb(x) for x in c]) + sum((g * (ai - B.to_arb(ci)) for g, ai, ci in zip(f.gradF(a), a, c)), arb(0))
    try:
        Fb = Fb.intersection(mv)
    except ValueError:
        pass
    direct = Fb.lower()
    if f.kpow != 2:  # the integral form is the second difference Lambda(2a) - 2 Lambda(a) + Lambda(0) only
        return direct, "direct"
    hb = [B.hull(min(Fraction(0), 2 * lv), max(Fraction(0), 2 * h)) for lv, h in zip(lo, hi)]
    wk = f.weights_lower(hb)
    kappa = sum((wk[k] * B.to_arb(lam[k]) for k in range(len(lam))), arb(0))
    amin2 = sum((Fraction(0) if lv <= 0 <= h else min(lv * lv, h * h)) for lv, h in zip(lo, hi))
    curv = (B.to_arb(amin2) * kappa).lower()
    curv = arb(0) if curv < 0 else curv
    if direct > 0 and direct >= curv:
        return direct, "direct"
    return (curv if curv >= direct else direct), "curvature"


def log_rho_gradient(mixture: GaussianMixture, point, denominator_power: int = 2) -> list:
    """Balls enclosing grad log rho(a) = 2 grad Lambda(2a) - k grad Lambda(a) (``k = denominator_power``) at the
    exact ``point`` -- the gradient the mean-value form of :func:`rho_lower_bounds` uses -- at the caller's ball
    precision (:func:`softmix.numerics.balls.precision`)."""
    from . import balls as B

    return _LogRho(B, mixture, int(denominator_power)).gradF([B.to_arb(Fraction(x)) for x in point])


def rho_lower_bounds(mixture: dict, tilt_box, grid: int, prec: int = 96, denominator_power: int = 2) -> dict:
    """Certified lower bounds of ``log(M(2a) / M(a)^k)`` (``k = denominator_power``) on the ``grid^D`` sub-boxes of
    ``tilt_box`` (``[[lo, hi], ...]`` exact), at ``prec`` bits.  Returns ``boxes`` (each with ``box``, ``method``,
    ``bound`` (an arb), ``log_rho_ge``), ``probe`` ``(point, rho ball)``: the smallest rho among the exact probe
    points (box centres, and 0 when a box holds it), and a summary (counts, lambda_min lower bounds, the worst box)."""
    from . import balls as B

    mix = GaussianMixture.from_json_obj(mixture, where="rho certificate mixture")
    D, n, box = mix.dim, int(grid), [[_frac(x) for x in r] for r in tilt_box]
    with B.precision(int(prec)):
        f = _LogRho(B, mix, int(denominator_power))
        lam = _lambda_min_lowers(B, mix)
        rows, probe = [], None
        for idx in np.ndindex(*([n] * D)):
            lo = [box[i][0] + (box[i][1] - box[i][0]) * Fraction(idx[i], n) for i in range(D)]
            hi = [box[i][0] + (box[i][1] - box[i][0]) * Fraction(idx[i] + 1, n) for i in range(D)]
            bound, method = _box_bound(f, lam, lo, hi)
            rows.append({"box": [[str(lv), str(h)] for lv, h in zip(lo, hi)], "method": method, "bound": bound,
                         "log_rho_ge": bound.str(8, radius=False)})
            pts = [[(lv + h) / 2 for lv, h in zip(lo, hi)]]
            if all(lv <= 0 <= h for lv, h in zip(lo, hi)):
                pts.append([Fraction(0)] * D)
            for pt in pts:  # counterexample probes at exact points
                r = f.F([B.to_arb(x) for x in pt]).exp()
                if probe is None or float(r.mid()) < float(probe[1].mid()):
                    probe = (pt, r)
        worst = min(rows, key=lambda r: float(r["bound"]))
        return {"prec": int(prec), "rho_definition": f"M(2a) / M(a)^{int(denominator_power)}",
                "tilt_box": [[str(x) for x in r] for r in box], "grid": f"{n}^{D} = {n ** D} boxes",
                "lambda_min_lower_G_k": [str(x) for x in lam],
                "n_direct": sum(r["method"] == "direct" for r in rows),
                "n_curvature": sum(r["method"] == "curvature" for r in rows),
                "n_boxes_log_rho_certainly_positive": sum(bool(r["bound"] > 0) for r in rows),
                "worst_box": {k: v for k, v in worst.items() if k != "bound"},
                "boxes": rows, "probe": probe}
