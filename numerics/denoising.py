"""Section 4 numerics: Bayes denoiser, excess risks, best linear map, heads, iterated denoiser.

Setting: X ~ pi1 N(m1, gamma^2 I) + (1 - pi1) N(m2, gamma^2 I), Z = X + N(0, xi^2 I),
S = s I with s = gamma^2 + xi^2.  f*(z) = (gamma^2/s) z + (xi^2/s) sum_k beta_k(z) m_k with
beta = softmax(log pi_k + m_k^T z / s - |m_k|^2 / (2 s)) (eq. (10)).

Exact / approximate: the Bayes denoiser and head outputs are exact formulas (float64 or mpmath);
excess risks are Gauss-Hermite quadratures with an a-posteriori error estimate (two node counts).
For linear maps the directions orthogonal to E = span(m1, m2) integrate in closed form: given
the component, Z = Z_E + Z_perp with Z_perp ~ N(0, s P_perp) independent and centred, so
E||(A - cI) Z - a b(Z)||^2 = E||(A - cI) Z_E - a b(Z_E)||^2 + s ||(A - cI) P_perp||_F^2.
Inside E the integrand depends on z only through <z, dm> except for a quadratic in the other
coordinate, which a 3-node rule integrates exactly.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath as mpm
import numpy as np

from .errors import InputError
from .mixture import GaussianMixture, parse_number
from .precision import exact_inputs, mp_matrix, to_mpf, workdps
from .quadrature import normal_rule

__all__ = ["DenoisingTask", "bayes_denoiser", "bayes_denoiser_mp", "head_outputs", "heads_loss_grad",
           "gh_nodes", "excess_risk_heads", "best_linear_map", "best_linear_map_mp",
           "linear_map_excess_risk_mp", "linear_excess_risk_mp", "linear_map_excess_risk",
           "optimise_heads", "sgd_heads", "iterate_denoiser", "u_lambda", "u_iterates",
           "residual_architecture_params", "residual_architecture_output", "paper_two_heads"]


@dataclass(frozen=True)
class DenoisingTask:
    m1: tuple
    m2: tuple
    gamma: Fraction
    xi: Fraction
    pi1: Fraction

    @classmethod
    def from_params(cls, params: dict, where: str = "denoising") -> "DenoisingTask":
        for k in ("m1", "m2", "gamma", "xi", "pi1"):
            if k not in params:
                raise InputError(f"{where}: missing parameter {k!r}")
        vec = {}
        for k in ("m1", "m2"):
            v = params[k]
            if not isinstance(v, (list, tuple)) or len(v) < 2:
                raise InputError(f"{where}: {k} must be a list of at least 2 numbers (d >= 2)")
            vec[k] = tuple(parse_number(x, f"{where}: {k}[{i}]") for i, x in enumerate(v))
        if len(vec["m1"]) != len(vec["m2"]):
            raise InputError(f"{where}: m1 and m2 have different dimensions ({len(vec['m1'])} vs {len(vec['m2'])})")
        if vec["m1"] == vec["m2"]:
            raise InputError(f"{where}: the means must be distinct")
        g = parse_number(params["gamma"], f"{where}: gamma")
        x = parse_number(params["xi"], f"{where}: xi")
        p = parse_number(params["pi1"], f"{where}: pi1")
        if g < 0:
            raise InputError(f"{where}: gamma must be >= 0, got {float(g)}")
        if x <= 0:
            raise InputError(f"{where}: xi must be > 0, got {float(x)}")
        if not 0 < p < 1:
            raise InputError(f"{where}: pi1 must lie in (0, 1), got {float(p)}")
        return cls(vec["m1"], vec["m2"], g, x, p)

    # exact scalars
    @property
    def d(self) -> int:
        return len(self.m1)

    @property
    def s(self) -> Fraction:
        return self.gamma**2 + self.xi**2

    @property
    def equal_norm(self) -> bool:
        return sum(v * v for v in self.m1) == sum(v * v for v in self.m2)

    @property
    def collinear(self) -> bool:
        a, b = self.m1, self.m2
        return all(a[i] * b[j] - a[j] * b[i] == 0 for i in range(self.d) for j in range(i + 1, self.d))

    def with_(self, **kw) -> "DenoisingTask":
        vals: dict[str, Any] = dict(m1=self.m1, m2=self.m2, gamma=self.gamma, xi=self.xi, pi1=self.pi1)
        vals.update({k: (tuple(Fraction(x) for x in v) if k in ("m1", "m2") else Fraction(v)) for k, v in kw.items()})
        return DenoisingTask(**vals)

    # float64 views
    def arrays(self):
        M = np.array([[float(v) for v in self.m1], [float(v) for v in self.m2]])  # (2, d)
        pi = np.array([float(self.pi1), float(1 - self.pi1)])
        return M, pi, float(self.s), float(self.gamma**2 / self.s), float(self.xi**2 / self.s)

    def noisy_mixture(self) -> GaussianMixture:
        S = [[self.s if i == j else 0 for j in range(self.d)] for i in range(self.d)]
        return GaussianMixture.from_values([self.pi1, 1 - self.pi1], [list(self.m1), list(self.m2)], [S, S])

    def to_params(self) -> dict:
        return {"m1": [str(v) for v in self.m1], "m2": [str(v) for v in self.m2], "gamma": str(self.gamma),
                "xi": str(self.xi), "pi1": str(self.pi1)}


# --- Bayes denoiser --------------------------------------------------------------------------
def bayes_denoiser(task: DenoisingTask, Z) -> np.ndarray:
    """Eq. (10) with Gamma = gamma^2 I, float64, rows of Z (N, d)."""
    M, pi, s, c, a = task.arrays()
    Z = np.atleast_2d(np.asarray(Z, float))
    sc = np.log(pi)[None, :] + Z @ M.T / s - 0.5 * (M**2).sum(1)[None, :] / s
    sc -= sc.max(1, keepdims=True)
    b = np.exp(sc)
    b /= b.sum(1, keepdims=True)
    return c * Z + a * b @ M


@exact_inputs("z")
def bayes_denoiser_mp(task: DenoisingTask, z, dps: int = 50):
    with workdps(dps):
        s = to_mpf(task.s)
        zz = [to_mpf(v) if not isinstance(v, mpm.mpf) else v for v in z]
        ms = [[to_mpf(v) for v in m] for m in (task.m1, task.m2)]
        pis = [to_mpf(task.pi1), to_mpf(1 - task.pi1)]
        sc = [mpm.log(p) + mpm.fsum(mi * zi for mi, zi in zip(m, zz)) / s - mpm.fsum(mi**2 for mi in m) / (2 * s)
              for p, m in zip(pis, ms)]
        mx = max(sc)
        e = [mpm.exp(x - mx) for x in sc]
        tot = e[0] + e[1]
        g2 = to_mpf(task.gamma) ** 2
        x2 = to_mpf(task.xi) ** 2
        return [g2 / s * zz[i] + x2 / s * (e[0] * ms[0][i] + e[1] * ms[1][i]) / tot for i in range(task.d)]


# --- heads -----------------------------------------------------------------------------------
def _unpack(theta, d, H):
    th = np.asarray(theta, float).reshape(H, 2, d, d)
    return [(th[h, 0], th[h, 1]) for h in range(H)]


def _pack(heads):
    return np.concatenate([np.concatenate([np.asarray(U, float).ravel(), np.asarray(V, float).ravel()]) for U,
                           V in heads])


def head_outputs(task: DenoisingTask, heads, Z, kind: str = "softmax") -> np.ndarray:
    """sum_h T_{U_h,V_h}[mu_Z](z) by the Sec. 4.1 display (shared covariance S = s I):
    V S U z + V M^T alpha, alpha = softmax(log pi + M U z); kind='linear' gives V E[ZZ^T] U z."""
    M, pi, s, _c, _a = task.arrays()
    Z = np.atleast_2d(np.asarray(Z, float))
    out = np.zeros_like(Z)
    MZ = s * np.eye(task.d) + (M.T * pi) @ M
    for U, V in heads:
        if kind == "linear":
            out += Z @ (V @ MZ @ U).T
            continue
        Y = Z @ U.T
        sc = np.log(pi)[None, :] + Y @ M.T
        sc -= sc.max(1, keepdims=True)
        al = np.exp(sc)
        al /= al.sum(1, keepdims=True)
        out += (s * Y + al @ M) @ V.T
    return out


def heads_loss_grad(task: DenoisingTask, theta, Z, w, target, H: int, kind: str = "softmax"):
    """sum_i w_i ||f_theta(z_i) - target_i||^2 and its gradient in theta (analytic)."""
    M, pi, s, _c, _a = task.arrays()
    d = task.d
    heads = _unpack(theta, d, H)
    Z = np.atleast_2d(Z)
    MZ = s * np.eye(d) + (M.T * pi) @ M
    inner: list = []
    als: list = []
    out = np.zeros_like(Z)
    for U, V in heads:
        if kind == "linear":
            Y = Z @ (MZ @ U).T
            inner.append(Y)
            als.append(None)
        else:
            Y = Z @ U.T
            sc = np.log(pi)[None, :] + Y @ M.T
            sc -= sc.max(1, keepdims=True)
            al = np.exp(sc)
            al /= al.sum(1, keepdims=True)
            inner.append(s * Y + al @ M)
            als.append(al)
        out += inner[-1] @ V.T
    r = out - target
    loss = float(np.sum(w * (r**2).sum(1)))
    R2 = 2 * w[:, None] * r  # dloss/dout
    grads = []
    for (_U, V), inn, al in zip(heads, inner, als):
        gV = R2.T @ inn
        G = R2 @ V  # dloss/dinner (N, d)
        if kind == "linear":
            gU = MZ.T @ G.T @ Z
        else:
            gU = s * G.T @ Z
            gb = G @ M.T  # dloss/d(al@M) projected: (N, K)
            gs = al * (gb - (al * gb).sum(1, keepdims=True))  # through softmax
            gU += M.T @ gs.T @ Z
        grads += [gU.ravel(), gV.ravel()]
    return loss, np.concatenate(grads)


def gh_nodes(task: DenoisingTask, n: int = 40):
    """float64 tensor Gauss-Hermite nodes/weights for mu_Z over R^d (n^d nodes per component)."""
    x, w = np.polynomial.hermite_e.hermegauss(n)
    w = w / w.sum()
    M, pi, s, _c, _a = task.arrays()
    d = task.d
    grids = np.meshgrid(*([x] * d), indexing="ij")
    X = np.stack([g.ravel() for g in grids], 1)
    W = np.prod(np.stack(np.meshgrid(*([w] * d), indexing="ij")).reshape(d, -1), 0)
    Zs = [M[k] + np.sqrt(s) * X for k in range(2)]
    return np.vstack(Zs), np.concatenate([pi[0] * W, pi[1] * W])


def excess_risk_heads(task: DenoisingTask, heads, n: int = 40, kind: str = "softmax") -> float:
    Z, W = gh_nodes(task, n)
    r = head_outputs(task, heads, Z, kind) - bayes_denoiser(task, Z)
    return float(np.sum(W * (r**2).sum(1)))


def paper_two_heads(task: DenoisingTask):
    """Float64 heads of Prop. C.5 (non-collinear) or the opposite-means construction, d arbitrary."""
    M, pi, s, c, a = task.arrays()
    m1, m2 = M
    d = task.d
    g2, x2 = float(task.gamma**2), float(task.xi**2)
    dm = m1 - m2
    if not task.collinear:
        B = np.stack([m1, m2], 1)
        dual = np.linalg.solve(B.T @ B, B.T)
        Q = np.eye(d) - B @ dual
        V1 = a * np.outer(m1, dual[0]) + a / 2 * Q
        V2 = a * np.outer(m2, dual[1]) + a / 2 * Q
        c0, c1 = g2 / (x2 * s), (x2 - g2) / (x2 * s)
        U1 = c0 * np.eye(d) + c1 * np.outer(m2, dm) / (m2 @ dm)
        U2 = c0 * np.eye(d) + c1 * np.outer(m1, dm) / (m1 @ dm)
        return [(U1, V1), (U2, V2)]
    m = m1
    e = m / np.linalg.norm(m)
    nvec = np.zeros(d)
    j = int(np.argmin(np.abs(e)))
    nvec[j] = 1.0
    nvec -= (nvec @ e) * e
    nvec /= np.linalg.norm(nvec)
    P = np.outer(e, e)
    Q = np.eye(d) - P
    A = x2 / (2 * s) * P + g2 / (2 * s) * Q
    Bm = (g2 - x2) / (2 * s) * np.outer(e, nvec)
    U1 = (np.eye(d) + np.outer(nvec, e)) / s
    U2 = (np.eye(d) - np.outer(nvec, e)) / s
    return [(U1, A + Bm), (U2, A - Bm)]


# --- linear maps -----------------------------------------------------------------------------
def best_linear_map(task: DenoisingTask) -> np.ndarray:
    """A* = M_X (M_X + xi^2 I)^-1, M_X = E[X X^T] = gamma^2 I + sum_k pi_k m_k m_k^T."""
    M, pi, s, _c, _a = task.arrays()
    MX = float(task.gamma**2) * np.eye(task.d) + (M.T * pi) @ M
    return MX @ np.linalg.inv(MX + float(task.xi**2) * np.eye(task.d))


def best_linear_map_mp(task: DenoisingTask, dps: int = 50):
    with workdps(dps):
        d = task.d
        ms = [mpm.matrix([to_mpf(v) for v in m]) for m in (task.m1, task.m2)]
        pis = [to_mpf(task.pi1), to_mpf(1 - task.pi1)]
        MX = to_mpf(task.gamma) ** 2 * mpm.eye(d)
        for p, m in zip(pis, ms):
            MX += p * m * m.T
        return MX * mpm.inverse(MX + to_mpf(task.xi) ** 2 * mpm.eye(d))


def _basis_mp(task):
    """Orthonormal basis (list of mp column vectors) of E = span(m1, m2), first along dm."""
    m1 = mpm.matrix([to_mpf(v) for v in task.m1])
    m2 = mpm.matrix([to_mpf(v) for v in task.m2])
    dm = m1 - m2
    e1 = dm / mpm.norm(dm)
    r = m1 - (e1.T * m1)[0] * e1
    nr = mpm.norm(r)
    scale = max(mpm.norm(m1), mpm.norm(m2))
    if task.collinear or nr <= mpm.mpf(10) ** (-mpm.mp.dps + 10) * scale:
        return [e1]
    return [e1, r / nr]


@exact_inputs("A")
def linear_map_excess_risk_mp(task: DenoisingTask, A, dps: int = 30, n: int = 160, method: str = "gh"):
    """E||A Z - f*(Z)||^2 at ``dps`` digits.  Per component, z = m_k + sqrt(s)(x1 e1 + x2 e2 + x_perp):
    f* depends on x1 only, so the x2 and x_perp parts are exact Gaussian moments
    (s ||(A - cI) e2||^2 + s ||(A - cI) P_perp||_F^2) and x1 is integrated by n-node Gauss-Hermite
    (method='gh') or by mpmath.quad's tanh-sinh rule on the real line (method='quad', returns
    (value, quad's error estimate))."""
    with workdps(dps + 10):
        d = task.d
        A = mp_matrix(A)
        s = to_mpf(task.s)
        c = to_mpf(task.gamma) ** 2 / s
        a = to_mpf(task.xi) ** 2 / s
        basis = _basis_mp(task)
        Ac = A - c * mpm.eye(d)
        P = mpm.eye(d)
        for e in basis:
            P -= e * e.T
        Y = Ac * P
        const = s * mpm.fsum(Y[i, j] ** 2 for i in range(d) for j in range(d))
        if len(basis) == 2:
            w2 = Ac * basis[1]
            const += s * mpm.fsum(w2[i] ** 2 for i in range(d))
        x1, w1 = normal_rule(n, dps + 10)
        ss = mpm.sqrt(s)
        pis = [to_mpf(task.pi1), to_mpf(1 - task.pi1)]
        ms = [[to_mpf(v) for v in m] for m in (task.m1, task.m2)]
        logpi = [mpm.log(p) - mpm.fsum(v * v for v in m) / (2 * s) for p, m in zip(pis, ms)]
        e1 = [basis[0][i] for i in range(d)]
        # along the line z = m_k + sqrt(s) x e1: scores and A z are affine in x
        m_e1 = [mpm.fsum(m[i] * e1[i] for i in range(d)) for m in ms]
        Ace1 = [mpm.fsum(Ac[i, j] * e1[j] for j in range(d)) for i in range(d)]
        lines = []
        for k in range(2):
            mk = ms[k]
            Acm = [mpm.fsum(Ac[i, j] * mk[j] for j in range(d)) for i in range(d)]
            base_sc = [logpi[j] + mpm.fsum(ms[j][i] * mk[i] for i in range(d)) / s for j in range(2)]
            lines.append((Acm, base_sc))

        def g(x):
            tot = mpm.mpf(0)
            for k in range(2):
                Acm, base_sc = lines[k]
                sc = [base_sc[j] + ss * x * m_e1[j] / s for j in range(2)]
                b1 = 1 / (1 + mpm.exp(sc[1] - sc[0]))
                b2 = 1 - b1
                tot += pis[k] * mpm.fsum((Acm[i] + ss * x * Ace1[i] - a * (b1 * ms[0][i] + b2 * ms[1][i])) ** 2
                                         for i in range(d))
            return tot

        if method == "quad":
            phi = lambda x: mpm.exp(-x * x / 2) / mpm.sqrt(2 * mpm.pi)
            val, err = mpm.quad(lambda x: phi(x) * g(x), [-mpm.inf, -4, 0, 4, mpm.inf], error=True)
            return val + const, err
        total = mpm.mpf(0)
        for k in range(2):
            mk = ms[k]
            Acm = [mpm.fsum(Ac[i, j] * mk[j] for j in range(d)) for i in range(d)]
            base_sc = [logpi[j] + mpm.fsum(ms[j][i] * mk[i] for i in range(d)) / s for j in range(2)]
            acc = mpm.mpf(0)
            for x, w in zip(x1, w1):
                sc = [base_sc[j] + ss * x * m_e1[j] / s for j in range(2)]
                b1 = 1 / (1 + mpm.exp(sc[1] - sc[0]))
                b2 = 1 - b1
                acc += w * mpm.fsum((Acm[i] + ss * x * Ace1[i] - a * (b1 * ms[0][i] + b2 * ms[1][i])) ** 2
                                    for i in range(d))
            total += pis[k] * acc
        return total + const


def linear_excess_risk_mp(task: DenoisingTask, dps: int = 30, n: int = 160, n2: int | None = None,
                          method: str = "gh"):
    """(R(A*) - R(f*), error estimate) at ``dps`` digits: |value(n2) - value(n)| for Gauss-Hermite,
    mpmath.quad's own estimate for method='quad'."""
    n2 = n2 or int(1.4 * n)
    A = best_linear_map_mp(task, dps + 10)
    if method == "quad":
        return linear_map_excess_risk_mp(task, A, dps, method="quad")
    v1 = linear_map_excess_risk_mp(task, A, dps, n)
    v2 = linear_map_excess_risk_mp(task, A, dps, n2)
    with workdps(dps + 10):
        return v2, abs(v2 - v1)


def linear_map_excess_risk(task: DenoisingTask, A, base: float | None = None) -> float:
    """float64 E||A Z - f*(Z)||^2 = R(A*) - R(f*) + tr((A - A*) M_Z (A - A*)^T) (Pythagoras:
    E[(A* Z - f*(Z)) Z^T] = 0 since both A* Z and f*(Z) are L2 projections of X)."""
    M, pi, s, _c, _a = task.arrays()
    MZ = s * np.eye(task.d) + (M.T * pi) @ M
    D = np.asarray(A, float) - best_linear_map(task)
    base = float(linear_excess_risk_mp(task, 20, 60)[0]) if base is None else base
    return base + float(np.trace(D @ MZ @ D.T))


# --- optimisation ----------------------------------------------------------------------------
def optimise_heads(task: DenoisingTask, H: int, starts: int, rng, n: int = 32, kind: str = "softmax",
                   maxiter: int = 300):
    """Multistart L-BFGS on the quadrature excess risk; returns (best risk, best heads, all risks)."""
    from scipy.optimize import minimize

    Z, W = gh_nodes(task, n)
    T = bayes_denoiser(task, Z)
    d = task.d
    fun = lambda th: heads_loss_grad(task, th, Z, W, T, H, kind)
    best, best_th, all_r = np.inf, None, []
    for i in range(starts):
        th0 = rng.normal(scale=0.3, size=H * 2 * d * d)
        if i == 0 and kind == "softmax":  # informed start: the gate-matching head U = S^-1
            s = float(task.s)
            th0 = _pack([(np.eye(d) / s, np.eye(d) * float(task.xi**2 / task.s))] * H) / 1.0
        res = minimize(fun, th0, jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
        all_r.append(float(res.fun))
        if res.fun < best:
            best, best_th = float(res.fun), res.x
    return best, _unpack(best_th, d, H), all_r


def sgd_heads(task: DenoisingTask, H: int, steps: int, lr: float, clip: float, batch: int, rng,
              track_every: int, kind: str = "softmax", init_scale: float = 0.1, n_gh: int = 32):
    """Online SGD on the excess risk (fresh samples of mu_Z each step), gradient-norm clipping;
    the excess risk is tracked by Gauss-Hermite quadrature.  Returns (curve [(step, risk)], theta)."""
    M, pi, s, _c, _a = task.arrays()
    d = task.d
    Zq, Wq = gh_nodes(task, n_gh)
    Tq = bayes_denoiser(task, Zq)
    th = rng.normal(scale=init_scale, size=H * 2 * d * d)
    curve = []
    wb = np.full(batch, 1.0 / batch)
    for t in range(steps + 1):
        if t % track_every == 0 or t == steps:
            curve.append((t, heads_loss_grad(task, th, Zq, Wq, Tq, H, kind)[0]))
        if t == steps:
            break
        lab = rng.random(batch) < pi[0]
        Z = np.where(lab[:, None], M[0], M[1]) + np.sqrt(s) * rng.standard_normal((batch, d))
        _l, g = heads_loss_grad(task, th, Z, wb, bayes_denoiser(task, Z), H, kind)
        gn = np.linalg.norm(g)
        if gn > clip:
            g *= clip / gn
        th -= lr * g
    return curve, _unpack(th, d, H)


# --- Prop. 4.4 -------------------------------------------------------------------------------
def residual_architecture_params(gamma, xi, d: int):
    """Task-independent parameters of Prop. 4.4 (float64): U1 = S^-1, V1 = a I, U2 = V2 = 0,
    W_out = (I, -2a I) acting on the concatenation (T^res_1; T^res_2)."""
    s = float(gamma) ** 2 + float(xi) ** 2
    a = float(xi) ** 2 / s
    I = np.eye(d)
    return (I / s, a * I), (np.zeros((d, d)), np.zeros((d, d))), np.hstack([I, -2 * a * I])


def residual_architecture_output(task: DenoisingTask, Z, head_fn=None, W_out=None) -> np.ndarray:
    """W_out (z + T_1(z) ; z + T_2(z)) with T_h from numerics.attention.softmax_attention."""
    from .attention import softmax_attention

    Z = np.atleast_2d(np.asarray(Z, float))
    h1, h2, W = residual_architecture_params(task.gamma, task.xi, task.d)
    W = W if W_out is None else W_out
    mix = task.noisy_mixture()
    T1 = softmax_attention(mix, h1[0], h1[1], Z)
    T2 = softmax_attention(mix, h2[0], h2[1], Z)
    return np.hstack([Z + T1, Z + T2]) @ W.T


# --- iterated denoiser (Prop. 4.3) -------------------------------------------------------------
def iterate_denoiser(task: DenoisingTask, Z0, n: int) -> np.ndarray:
    Z = np.atleast_2d(np.asarray(Z0, float))
    for _ in range(n):
        Z = bayes_denoiser(task, Z)
    return Z


def u_iterates(lam: float, u0: float, n: int) -> np.ndarray:
    import math

    out = np.empty(n + 1)
    u = float(u0)
    l2 = float(lam) ** 2
    out[0] = u
    for i in range(1, n + 1):
        u = math.tanh(l2 * u)
        out[i] = u
    return out


def u_lambda(lam, dps: int = 50) -> dict:
    """Positive root of H(u) = tanh(lam^2 u) - u for lam > 1: bisection of [lo, 1] at ``dps + 10``
    digits down to a width below 10^-(dps + 2) (int(3.33 (dps + 3)) halvings of a bracket shorter than 1);
    the root is the midpoint of the final bracket, with
    H(lo) > 0 > H(hi) recorded.  The starting lo has H(lo) > 0: tanh x >= x - x^3/3 for x >= 0 gives
    H(u) >= u (lam^2 - 1 - lam^6 u^2 / 3) > 0 for 0 < u < sqrt(3 (lam^2 - 1)) / lam^3, and lo is at most
    half that bound; H(1) = tanh(lam^2) - 1 < 0."""
    with workdps(dps + 10):
        lam = to_mpf(lam) if not isinstance(lam, mpm.mpf) else lam
        l2 = lam**2
        if l2 <= 1:
            raise InputError(f"u_lambda needs lambda > 1, got {mpm.nstr(lam, 8)}")
        H = lambda u: mpm.tanh(l2 * u) - u
        lo = min(mpm.mpf(1) / 2, mpm.sqrt(3 * (l2 - 1)) / l2**1.5 / 2)
        hi = mpm.mpf(1)
        for _ in range(int((dps + 3) * 3.33)):
            mid = (lo + hi) / 2
            if H(mid) > 0:
                lo = mid
            else:
                hi = mid
        root = (lo + hi) / 2
        dF = l2 / mpm.cosh(l2 * root) ** 2
        return {"u": root, "lo": lo, "hi": hi, "width": hi - lo, "H_lo": H(lo), "H_hi": H(hi),
                "F_prime": dF}
