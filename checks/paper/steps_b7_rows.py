"""Numeric rows deciding the estimates of App. B.7 (proof of Thm 3.5, display ledger) on
generic instances of the chart system B.7#31, ``x' = -2 B(x, y) y``, ``y' = -2 C(x, y) y``.

The proof uses only that, on a compact box ``K`` (``|x_i| <= rho_x``, ``|y_j| <= rho_y``),
``C`` is symmetric with ``lambda = min_K lambda_min(C) > 0`` and ``M = sup_K ||B||_op``; the instance
draws smooth ``B``, ``C`` (constant parts plus trigonometric terms, ``x`` in R^2, ``y`` in R^3) from
``ctx.stream``, computes ``lambda`` (sampling, then L-BFGS-B from the best points) and ``M`` (idem,
maximised), takes ``eps_x, eps_y`` and ``(x0, y0)`` satisfying B.7#34-35, integrates the flow
(DOP853, rtol 1e-11) and evaluates each displayed estimate at the sampled times.  ``perturb``: every
right-hand side divided by 4 (the control)."""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import minimize

from ..rules import Bound

__all__ = ["B7_CHECKS", "b7_rows", "ChartSystem"]

B7_CHECKS = ("B.7#39 <y, C y> >= lambda |y|^2", "B.7#40 dV/dt <= -4 lambda V", "B.7#41 V(y_t) <= e^(-4 lambda t) V(y0)",
             "B.7#45 |x'| <= 2M e^(-2 lambda t)|y0|", "B.7#46 |x_t| <= |x0| + int |x'|",
             "B.7#48-49 the trajectory stays in the half box", "B.7#51 |y_t| <= e^(-2 lambda t)|y0|, t >= 0",
             "B.7#53 |x_t| <= |x0| + (M/lambda)|y0|")
_SLACK = 1e-9


class ChartSystem:
    """A drawn smooth instance of B.7#31: ``C(z)`` symmetric positive definite on the box, ``B(z)`` generic."""

    def __init__(self, rng, n: int = 2, p: int = 3, rho=(1.0, 1.0)):
        self.n, self.p, self.rho = n, p, rho
        Q, _ = np.linalg.qr(rng.normal(size=(p, p)))
        self.C0 = Q @ np.diag(rng.uniform(1.0, 2.0, p)) @ Q.T
        self.Wc, self.Pc = rng.normal(size=(p, p, n + p)), rng.uniform(0, 2 * np.pi, (p, p))
        self.B0, self.Wb, self.Pb = rng.normal(size=(n, p)), rng.normal(size=(n, p, n + p)), rng.uniform(0, 6, (n, p))

    def C(self, z):
        s = 0.15 * np.sin(self.Wc @ z + self.Pc)
        return self.C0 + (s + s.T) / 2

    def B(self, z):
        return self.B0 + 0.3 * np.cos(self.Wb @ z + self.Pb)

    def _box(self):
        return [(-self.rho[0], self.rho[0])] * self.n + [(-self.rho[1], self.rho[1])] * self.p

    def _extremum(self, f, rng, k=1500):
        lo, hi = np.array(self._box()).T
        pts = rng.uniform(lo, hi, size=(k, self.n + self.p))
        vals = np.array([f(z) for z in pts])
        best = min(minimize(f, pts[i], method="L-BFGS-B", bounds=self._box()).fun for i in np.argsort(vals)[:4])
        return min(best, float(vals.min()))

    def constants(self, rng):
        """(lambda, M) on the box."""
        lam = self._extremum(lambda z: float(np.linalg.eigvalsh(self.C(z))[0]), rng)
        M = -self._extremum(lambda z: -float(np.linalg.norm(self.B(z), 2)), rng)
        return lam, M

    def flow(self, x0, y0, T, k=600):
        n = self.n

        def rhs(_t, z):
            y = z[n:]
            return np.concatenate([-2 * self.B(z) @ y, -2 * self.C(z) @ y])

        ts = np.linspace(0, T, k)
        sol = solve_ivp(rhs, (0, T), np.concatenate([x0, y0]), method="DOP853", t_eval=ts, rtol=1e-11, atol=1e-13)
        if not sol.success:
            raise ArithmeticError(sol.message)
        return ts, sol.y.T


def b7_rows(ctx, perturb: bool, n_cfg: int = 2) -> list:
    """The estimates B.7#39-#53 at ``n_cfg`` drawn chart systems."""
    rng, k, rows = ctx.stream("b7-chart-systems"), (4.0 if perturb else 1.0), []
    for i in range(n_cfg):
        S = ChartSystem(rng)
        lam, M = S.constants(rng)
        ey = min(0.45 * S.rho[1], 0.2 * lam * S.rho[0] / M)  # B.7#34: eps_x + (M / lambda) eps_y < rho_x / 2
        ex = 0.2 * S.rho[0]
        u, v = rng.normal(size=S.n), rng.normal(size=S.p)
        x0, y0 = ex * rng.uniform(0.3, 0.99) * u / np.linalg.norm(u), ey * rng.uniform(0.3, 1.0) * v / np.linalg.norm(v)
        ts, Z = S.flow(x0, y0, T=6.0 / lam)
        rows += _rows(S, lam, M, ex, ey, x0, y0, ts, Z, rng, k, i)
    return rows


def _rows(S, lam, M, ex, ey, x0, y0, ts, Z, rng, k, i) -> list:
    n, rows = S.n, []
    r = lambda c, lhs, rhs, **kw: rows.append({"check": B7_CHECKS[c], "config": i, **kw,
                                               **Bound(slack=_SLACK).decide(float(lhs), float(rhs) / k)})
    lo, hi = np.array(S._box()).T
    for z in rng.uniform(lo, hi, size=(40, S.n + S.p)):  # B.7#39 anywhere in K, any y
        y = rng.normal(size=S.p)
        r(0, lam * (y @ y), y @ S.C(z) @ y)
    xd = np.array([-2 * S.B(z) @ z[n:] for z in Z])
    nxd = np.linalg.norm(xd, axis=1)
    Ix = np.concatenate([[0.0], np.cumsum((nxd[1:] + nxd[:-1]) / 2 * np.diff(ts))])
    Ix_err = float(np.max(np.abs(np.diff(nxd)))) * float(ts[1] - ts[0])  # trapezoid allowance (monotone pieces)
    ny0, nx0 = np.linalg.norm(y0), np.linalg.norm(x0)
    for j in range(0, len(ts), 25):
        t, x, y = ts[j], Z[j, :n], Z[j, n:]
        V, dV = y @ y, 2 * y @ (-2 * S.C(Z[j]) @ y)
        r(1, 4 * lam * V, -dV, t=round(float(t), 3))
        r(2, V, np.exp(-4 * lam * t) * ny0**2, t=round(float(t), 3))
        r(3, nxd[j], 2 * M * np.exp(-2 * lam * t) * ny0, t=round(float(t), 3))
        r(4, np.linalg.norm(x), nx0 + Ix[j] + Ix_err, t=round(float(t), 3))
        r(5, np.linalg.norm(x), ex + M / lam * ey, t=round(float(t), 3))
        r(5, ex + M / lam * ey, S.rho[0] / 2)
        r(5, np.linalg.norm(y), ey, t=round(float(t), 3))
        r(6, np.linalg.norm(y), np.exp(-2 * lam * t) * ny0, t=round(float(t), 3))
        r(7, np.linalg.norm(x), nx0 + M / lam * ny0, t=round(float(t), 3))
    return rows
