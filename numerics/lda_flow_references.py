"""References for the gradient-flow and SGD claims of the attention LDA head (Sec. 3.3, App. B.9-B.13).

Each function computes, by a route independent of numerics.lda_dynamics, what a flow claim decides the
production code against (softmix.checks.paper.lda_dynamics, lda_figures); tested in
tests/numerics/test_lda_flow_references.py:

* :func:`exp_rate_reference` -- the exponential rate fit by scipy.stats.linregress;
* :func:`bayes_set_distances` -- distances of zeta to E1 and E2 by least-squares projection (Lemma B.17);
* :func:`krylov_projector_facts`, :func:`distance_to_tk` -- P_K's exact properties and the distance of a
  theta to T_K by least squares;
* :func:`in_tk_exactly` -- exact membership of a rational theta in T_K;
* :func:`rk4_linear_field` -- RK4 on theta' = diag(lam) theta against its exact amplification factor;
* :func:`transverse_amplification` -- how much a float64 flow amplifies a perturbation out of T_K;
* :func:`transverse_amplification_linearised` -- the same amplification to first order, by tangent RK4;
* :func:`sgd_step_references` -- the SGD of Figs. 4/5 against numerics.lda.sgd_attention and finite differences;
* :func:`random_rotation`, :func:`random_krylov_case`, :func:`krylov_criterion` -- Prop. B.35's cases and criterion.
"""

from __future__ import annotations

import mpmath as mpm
import numpy as np
import sympy as sp

from . import lda as N, lda_dynamics as D
from .precision import workdps

__all__ = [
    "EPS64",
    "exp_rate_reference",
    "bayes_set_distances",
    "krylov_projector_facts",
    "distance_to_tk",
    "in_tk_exactly",
    "rk4_linear_field",
    "transverse_amplification",
    "transverse_amplification_linearised",
    "batch_loss",
    "sgd_step_references",
    "random_rotation",
    "random_krylov_case",
    "krylov_criterion",
]

#: machine epsilon of float64
EPS64 = float(np.finfo(float).eps)


def exp_rate_reference(t, y, alpha):
    """The fit of numerics.lda_dynamics.fit_exp_rate by scipy.stats.linregress on the points with y > 0:
    rate = -slope, se from the residuals of linregress's own line (sqrt(sum r^2 / (n-2) / sum (t - tbar)^2);
    scipy's ``stderr`` cancels as sqrt(1 - r^2) for near-exact fits), the (1 - alpha) interval with the
    t quantile, and R^2.  Returns {"points": n} alone when n < 3."""
    from scipy import stats as st

    t, y = np.asarray(t, float), np.asarray(y, float)
    m = y > 0
    n = int(m.sum())
    if n < 3:
        return {"points": n}
    tt, ly = t[m], np.log(y[m])
    lr = st.linregress(tt, ly)
    q = float(st.t.ppf(1 - alpha / 2, n - 2))
    resid = ly - (float(lr.intercept) + float(lr.slope) * tt)
    se = float(np.sqrt(float(resid @ resid) / (n - 2) / float(((tt - tt.mean()) ** 2).sum())))
    rate = -float(lr.slope)
    return {"points": n, "rate": rate, "se": se, "ci": [rate - q * se, rate + q * se], "r2": float(lr.rvalue) ** 2}


def bayes_set_distances(P, zeta):
    """(dist(zeta, E1), dist(zeta, E2)) by least-squares projection onto E1 = p0 + span{(0, 0, 0, e_j)} and
    E2 = p0 + span{(0, -sigma(s0), 1, 0)}, p0 = (w*, b*, 0, 0), w* = Gamma^-1 dm and b* of eq. (5) solved
    here, sigma(s0) = pi_+."""
    m1, m_1, G, _L, pi, s0 = P.arrays()
    d = P.d
    ws = np.linalg.solve(G, m1 - m_1)
    bs = -(m1 @ np.linalg.solve(G, m1) - m_1 @ np.linalg.solve(G, m_1)) / 2 + s0
    p0 = np.concatenate([ws, [bs, 0.0], np.zeros(d)])
    B1 = np.vstack([np.zeros((d + 2, d)), np.eye(d)])
    B2 = np.zeros((2 * d + 2, 1))
    B2[d, 0], B2[d + 1, 0] = -pi, 1.0
    z = np.asarray(zeta, float)
    out = []
    for B in (B1, B2):
        c = np.linalg.lstsq(B, z - p0, rcond=None)[0]
        out.append(float(np.linalg.norm(z - p0 - B @ c)))
    return tuple(out)


def krylov_projector_facts(P, PK, dimK) -> dict:
    """Exact (SymPy) properties a Krylov projector P_K must have: symmetric, idempotent, fixing every
    Gamma^j m (j < d), of rank dim K, and dim K = rank [m, Gamma m, ..., Gamma^(d-1) m] (powers computed here)."""
    d = P.d
    G, m = D.sym_mat(P.Gamma), D.sym_vec(P.m1)
    powers, v = [], m
    for _ in range(d):
        powers.append(v)
        v = G * v
    return {
        "symmetric": bool(PK.T == PK),
        "idempotent": bool((PK * PK - PK).is_zero_matrix),
        "fixes_Gamma^j_m": all((PK * x - x).is_zero_matrix for x in powers),
        "rank_equals_dim_K": PK.rank() == dimK,
        "dim_K_equals_krylov_rank": sp.Matrix.hstack(*powers).rank() == dimK,
    }


def _tk_spanning_set(d, PKf):
    """Columns spanning T_K = span{(e_i q^T, 0, 0, 0), (0, 0, q, 0): q in K^perp} (an orthonormal basis of
    K^perp from numpy.linalg.eigh(I - P_K)), as a (theta size) x k array; None when K = R^d (T_K = {0})."""
    ev, Q = np.linalg.eigh(np.eye(d) - PKf)
    Q = Q[:, ev > 0.5]
    cols = []
    for i in range(d):
        for q in Q.T:
            U = np.zeros((d, d))
            U[i] = q
            cols.append(N.pack_theta(U, np.zeros(d), np.zeros(d), 0.0))
    cols += [N.pack_theta(np.zeros((d, d)), np.zeros(d), q, 0.0) for q in Q.T]
    return np.array(cols).T if cols else None


def distance_to_tk(theta, d, PKf):
    """The distance of theta to T_K = span{(e_i q^T, 0, 0, 0), (0, 0, q, 0): q in K^perp} by least squares
    (an orthonormal basis of K^perp from numpy.linalg.eigh(I - P_K))."""
    B = _tk_spanning_set(d, PKf)
    th = np.asarray(theta, float)
    if B is None:
        return float(np.linalg.norm(th))
    return float(np.linalg.norm(th - B @ np.linalg.lstsq(B, th, rcond=None)[0]))


def in_tk_exactly(vals, PK, d):
    """(inside, non_trivial): whether the exact rational theta ``vals`` lies in T_K = {u12 = 0, v22 = 0,
    P_K v21 = 0, U11 P_K = 0} (SymPy), and whether U11 or v21 is non-zero."""
    U = sp.Matrix(d, d, list(vals[: d * d]))
    u, v, v22 = sp.Matrix(vals[d * d : d * d + d]), sp.Matrix(vals[d * d + d : d * d + 2 * d]), sp.sympify(vals[-1])
    inside = (U * PK).is_zero_matrix and (PK * v).is_zero_matrix and u.is_zero_matrix and v22 == 0
    return bool(inside), bool(not (U.is_zero_matrix and v.is_zero_matrix))


def rk4_linear_field(dps=None, lam=("-1.3", "0.4", "2.1"), th0=("1", "-2", "0.5"), T=0.7, h=0.1, every=3):
    """numerics.lda.rk4 on theta' = diag(lam) theta, where one RK4 step multiplies each coordinate by exactly
    g(z) = 1 + z + z^2/2 + z^3/6 + z^4/24, z = h lam.  At ``dps`` digits (mpmath) or in float64 (None):
    (recorded step indices, expected indices [0, 3, 6, 7], max |theta_k - g(h lam)^k theta_0| over the
    records (None when the records are wrong), max(1, |theta_0|))."""
    with workdps(dps or 15):
        conv = (lambda x: mpm.mpf(x)) if dps else float
        L = np.array([conv(x) for x in lam], dtype=object if dps else float)
        x0 = np.array([conv(x) for x in th0], dtype=object if dps else float)
        traj = D.rk4(lambda th: L * th, x0, T, h, dps, every)
        z = (mpm.mpf(h) if dps else h) * L
        g = 1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24
        ks = [round(float(t) / h) for t, _ in traj]
        expected = [0, 3, 6, 7]
        ok = ks == expected and all(abs(float(t) - k * h) <= 1e-12 for (t, _), k in zip(traj, expected))
        res = max(max(abs(a - b) for a, b in zip(x, g**k * x0)) for (_, x), k in zip(traj, expected)) if ok else None
        return ks, expected, res, max(1, max(abs(v) for v in x0))


def transverse_amplification(field, th, T, h, d, PK, delta=1e-7):
    """max_t |theta_delta(t) out of T_K| / delta (at least 1) for the float64 RK4 flow of ``field`` started
    delta out of T_K (in the u12 and v22 coordinates, zero on T_K): how much a round-off error committed
    at some step can grow along the rest of the flow (to first order; one transverse direction, measured)."""
    t0 = np.asarray(th, float).copy()
    t0[d * d : d * d + d] += delta / np.sqrt(2 * d)
    t0[-1] += delta / np.sqrt(2)
    traj = D.rk4(field, t0, T, h, None, 1)
    return max(1.0, max(D.tk_parts(x, d, PK)[1] for _, x in traj) / delta)


def transverse_amplification_linearised(field, th, T, h, d, PK):
    """The first-order term of :func:`transverse_amplification`, by a different method: max_k |P_perp eta_k|
    / |eta_0| (at least 1), where eta_k = D Phi_k(theta_0) e is the derivative of k float64 RK4 steps of
    ``field`` from theta_0 along the same direction e (u12 = 1/sqrt(2d) each, v22 = 1/sqrt(2): unit, normal
    to T_K) and P_perp = I - the orthogonal projector onto T_K (a QR basis of the spanning set of
    :func:`distance_to_tk`; not tk_parts).

    Tangent RK4: each step is differentiated stage by stage, d k1 = J(x) eta, d k2 = J(x + h/2 k1)(eta +
    h/2 d k1), d k3 = J(x + h/2 k2)(eta + h/2 d k2), d k4 = J(x + h k3)(eta + h d k3), eta <- eta + h/6 (d k1
    + 2 d k2 + 2 d k3 + d k4), with J(y) v = |v| (field(y + s v/|v|) - field(y)) / s, s = sqrt(eps) max(1,
    |y|) (a forward difference at a step rescaled at every stage, so the tangent never leaves the linear
    regime: relative error ~ sqrt(eps) per product).  A perturbation of size delta instead sees the
    second-order remainder, relative O(delta A), and round-off / delta; the two agree to that."""
    x = np.asarray(th, float).copy()
    e = N.pack_theta(np.zeros((d, d)), np.full(d, 1 / np.sqrt(2 * d)), np.zeros(d), 1 / np.sqrt(2))
    B = _tk_spanning_set(d, np.asarray(PK, float))
    Qb = np.linalg.qr(B)[0] if B is not None else np.zeros((x.size, 0))

    def out(v):
        return float(np.linalg.norm(v - Qb @ (Qb.T @ v)))

    def jv(y, fy, v):
        nv = float(np.linalg.norm(v))
        if nv == 0.0:
            return np.zeros_like(v)
        s = np.sqrt(EPS64) * max(1.0, float(np.linalg.norm(y)))
        return (field(y + s * (v / nv)) - fy) / s * nv

    eta, n0 = e.copy(), float(np.linalg.norm(e))
    best = out(eta)
    for _ in range(int(round(float(T) / float(h)))):
        y1 = x
        k1 = field(y1)
        d1 = jv(y1, k1, eta)
        y2 = x + h / 2 * k1
        k2 = field(y2)
        d2 = jv(y2, k2, eta + h / 2 * d1)
        y3 = x + h / 2 * k2
        k3 = field(y3)
        d3 = jv(y3, k3, eta + h / 2 * d2)
        y4 = x + h * k3
        k4 = field(y4)
        d4 = jv(y4, k4, eta + h * d3)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        eta = eta + h / 6 * (d1 + 2 * d2 + 2 * d3 + d4)
        best = max(best, out(eta))
    return max(1.0, best / n0)


def batch_loss(P, th, X, y):
    """Mean logistic loss of f_theta (eqs. (6)-(7) through Phi: numerics.lda.f_theta_batch) on a batch."""
    return float(np.mean(np.logaddexp(0.0, -y * N.f_theta_batch(P, th, X))))


def sgd_step_references(P, rng, steps=4, batch=8, step=0.05, n=8, h=1e-6) -> dict:
    """numerics.lda_dynamics.sgd_fast against (1) numerics.lda.sgd_attention (the Jacobian DPhi of Lemma
    B.14 applied to the effective batch gradient) for ``steps`` steps from a start with every entry non-zero
    (N(0, 1/4)), both fed the same seed (final parameters and risk curves: residual and scale), and (2) its
    first step g = (theta_0 - theta_1) / step against central differences (h = 1e-6) of the batch loss along
    7 random unit directions (one inside each block, three across theta): residual max |g . e - FD_e| and
    |g|.  Also whether both record the steps 0..steps."""
    d = P.d
    th0 = 0.5 * rng.standard_normal(N.theta_size(d))
    seed = int(rng.integers(2**31))
    a, ca = D.sgd_fast(P, th0, step, steps, batch, np.random.default_rng(seed), 1, n)
    b, cb = N.sgd_attention(P, th0, step, steps, batch, np.random.default_rng(seed), 1, n)
    same_k = [x[0] for x in ca] == [y[0] for y in cb] == list(range(steps + 1))
    one, _ = D.sgd_fast(P, th0, step, 1, batch, np.random.default_rng(seed), 1, n)
    g = (th0 - one) / step
    X, y = N.sample(P, np.random.default_rng(seed), batch)
    blocks = [slice(0, d * d), slice(d * d, d * d + d), slice(d * d + d, d * d + 2 * d), slice(th0.size - 1, th0.size)]
    dirs = []
    for blk in blocks + [slice(0, th0.size)] * 3:
        e = np.zeros(th0.size)
        e[blk] = rng.standard_normal(blk.stop - blk.start)
        dirs.append(e / np.linalg.norm(e))
    fd = np.array([(batch_loss(P, th0 + h * e, X, y) - batch_loss(P, th0 - h * e, X, y)) / (2 * h) for e in dirs])
    return {
        "config": P.to_params(),
        "same_steps": bool(same_k),
        "sgd_residual": max(float(np.max(np.abs(a - b))), max(abs(x[1] - y_[1]) for x, y_ in zip(ca, cb))),
        "sgd_scale": max(float(np.max(np.abs(b))), max(abs(y_[1]) for y_ in cb)),
        "fd_residual": float(np.max(np.abs(np.array(dirs) @ g - fd))),
        "grad_norm": float(np.linalg.norm(g)),
    }


def random_rotation(rng, d: int):
    """A rational rotation: the Cayley transform of an antisymmetric matrix with entries a/b,
    a in [-3, 3], b in [1, 3], drawn from ``rng`` (exact; no axis-aligned coincidence in general)."""
    A = sp.zeros(d)
    for i in range(d):
        for j in range(i + 1, d):
            a = sp.Rational(int(rng.integers(-3, 4)), int(rng.integers(1, 4)))
            A[i, j], A[j, i] = a, -a
    return D.cayley_orthogonal(A)


def random_krylov_case(rng, d, repeated, missing):
    """(Gamma, m, Q): Gamma = Q diag(lam) Q^T with a rational Cayley rotation Q and eigenvalues from 1..9
    (``repeated``: the first two equal), m = Q c with c in +-{1, 2, 3} (``missing``: zero on one eigenspace)."""
    lam = list(rng.choice(np.arange(1, 10), size=d, replace=False))
    if repeated:
        lam[1] = lam[0]
    c = [int(rng.integers(1, 4)) * (1 if rng.random() < 0.5 else -1) for _ in range(d)]
    if missing:
        j = int(rng.integers(0, d))
        for i in [i for i in range(d) if lam[i] == lam[j]]:
            c[i] = 0
    Q = random_rotation(rng, d)
    G = Q * sp.diag(*[sp.Integer(int(x)) for x in lam]) * Q.T
    m = Q * sp.Matrix(c)
    return sp.simplify(G), sp.simplify(m), Q


def krylov_criterion(G, m, drop_distinct=False):
    """Prop. B.35's criterion from the exact eigenspaces (SymPy ``eigenvects``): (K = R^d by the criterion,
    d distinct eigenvalues, number of eigenspaces m projects non-trivially on, number of eigenspaces).
    ``drop_distinct`` leaves out the distinct-eigenvalue condition (a wrong criterion)."""
    ev = G.eigenvects()
    distinct = len(ev) == G.shape[0]
    touches = []
    for _lam, _mult, basis in ev:
        B = sp.Matrix.hstack(*basis)
        Pm = B * (B.T * B).inv() * B.T * m
        touches.append(any(sp.simplify(x) != 0 for x in Pm))
    return all(touches) and (distinct or drop_distinct), distinct, sum(touches), len(ev)
