"""Section 3.3 / Appendix B.9-B.13 claims: gradient-flow dynamics of the attention LDA head.

lemma-b.34 (balance conservation), lemma-b.37 (Krylov subspace invariance), prop-b.35 (Krylov
dimension criterion, exact rationals), thm-3.6 (global exponential convergence on T_K), fig-1
(GD near Theta1 vs Theta2), fig-4 / fig-5 (SGD in d = 20 from two initialisations).

Every decision rule is written in the check before the numbers are computed; tolerances come
from the working precision (checks.rules.residual_test) or from an RK4 step-doubling error
estimate; rates are least-squares fits of log-distances with (1 - ALPHA) t-intervals.  Negative
controls run the same check with ``ctx.variant`` set.
"""
from __future__ import annotations

import mpmath as mpm
import numpy as np
import sympy as sp

from softmix.numerics import lda as N
from softmix.numerics import lda_dynamics as D
from softmix.numerics.precision import workdps

from ..configs import generic
from ..registry import Claim, Control, Outcome, register
from .lda import start_check
from ..rules import ALPHA, residual_test

SOURCE = "Gabet-Boursier-Boyer 2026"
SEC = "lda"

#: non-isotropic symmetric balanced configs (d = 3)
DIAG3 = {"m1": [1, 1, 0], "m_1": [-1, -1, 0], "Gamma": [[1, 0, 0], [0, 2, 0], [0, 0, 3]], "pi_plus": "0.5"}
ROT3 = {"m1": [1, 0, 0], "m_1": [-1, 0, 0], "Gamma": [[2, 1, 1], [1, 2, 1], [1, 1, 2]], "pi_plus": "0.5"}


def _fit_reference(t, y, fit, alpha=ALPHA):
    """numerics.lda_dynamics.fit_exp_rate decided against scipy.stats.linregress on the same points
    (y > 0): rate = -slope, se = the slope's standard error, the (1 - alpha) interval rate +- t_{n-2} se
    (scipy.stats.t.ppf) and R^2 = r^2.  Deterministic: |difference| <= 10^(6-16) max(1, |value|) per entry
    (two float64 least-squares algorithms; the design matrix of a time grid is well conditioned).

    The reference standard error is computed from the residuals of linregress's own line,
    sqrt(sum r_i^2 / (n - 2) / sum (t_i - tbar)^2), not taken from ``lr.stderr``: scipy forms it as
    sqrt((1 - r^2) ssym / ssxm / df), and 1 - r^2 cancels for a near-exact fit (relative error about
    eps / (1 - r^2); 0.0 once r rounds to 1).  The full profile's drawn configuration of thm-3.6
    (a672031, seed 20261130, drawn-2: 3 points, 1 - r^2 = 4e-10, t quantile 637 at 1 dof) refuted the
    true theorem through that reference error alone (2.3e-9 against 1e-10)."""
    from scipy import stats as st

    t, y = np.asarray(t, float), np.asarray(y, float)
    m = y > 0
    n = int(m.sum())
    if n < 3:
        ok = fit["rate"] is None and fit["points"] == n
        return {"passed": bool(ok), "points": n, "note": "fewer than 3 points: no fit on either side"}
    tt, ly = t[m], np.log(y[m])
    lr = st.linregress(tt, ly)
    q = float(st.t.ppf(1 - alpha / 2, n - 2))
    resid = ly - (float(lr.intercept) + float(lr.slope) * tt)
    se = float(np.sqrt(float(resid @ resid) / (n - 2) / float(((tt - tt.mean()) ** 2).sum())))
    rate = -float(lr.slope)
    ref = [rate, se, rate - q * se, rate + q * se, float(lr.rvalue) ** 2]
    got = [fit["rate"], fit["se"], fit["ci"][0], fit["ci"][1], fit["r2"]]
    res = [abs(a - b) / max(1.0, abs(b)) for a, b in zip(got, ref)]
    return {"passed": bool(max(res) <= 1e-10 and fit["points"] == n), "max_relative_residual": max(res),
            "tolerance": 1e-10, "reference": "scipy.stats.linregress (its line; se from that line's residuals)",
            "points": n}


def _dist_reference(P, thetas):
    """numerics.lda.dist_E1 / dist_E2 at Phi(theta) decided against least-squares projections onto the two
    Bayes sets written from their definitions (Lemma B.17): E1 = p0 + span{(0, 0, 0, e_j)}, E2 = p0 +
    span{(0, -sigma(s0), 1, 0)}, p0 = (w*, b*, 0, 0), with w* = Gamma^-1 dm and b* of eq. (5) solved here
    (numpy) and sigma(s0) = pi_+ (exact for s0 = log(pi_+ / (1 - pi_+))).  Deterministic: |difference| <=
    10^(4-16) max(1, |zeta|)."""
    m1, m_1, G, _L, pi, s0 = P.arrays()
    d = P.d
    ws = np.linalg.solve(G, m1 - m_1)
    bs = -(m1 @ np.linalg.solve(G, m1) - m_1 @ np.linalg.solve(G, m_1)) / 2 + s0
    p0 = np.concatenate([ws, [bs, 0.0], np.zeros(d)])
    B1 = np.vstack([np.zeros((d + 2, d)), np.eye(d)])
    B2 = np.zeros((2 * d + 2, 1))
    B2[d, 0], B2[d + 1, 0] = -pi, 1.0
    worst = 0.0
    for th in thetas:
        z = N.phi(P, np.asarray(th, float))
        ref = []
        for B in (B1, B2):
            c = np.linalg.lstsq(B, z - p0, rcond=None)[0]
            ref.append(float(np.linalg.norm(z - p0 - B @ c)))
        got = [N.dist_E1(P, z), N.dist_E2(P, z)]
        worst = max(worst, max(abs(a - b) for a, b in zip(got, ref)) / max(1.0, float(np.linalg.norm(z))))
    return {"passed": bool(worst <= 1e4 * EPS64), "max_residual": worst, "tolerance": 1e4 * EPS64,
            "points": len(thetas)}


def _krylov_reference(P, PK, dimK, rng):
    """The Krylov projector and the out-of-T_K norm decided from their definitions, deterministically.
    (1) exact (SymPy rationals): P_K is symmetric and idempotent, of rank dim K, fixes every Gamma^j m
    (j < d) and dim K = rank [m, Gamma m, ..., Gamma^(d-1) m] (the powers computed here).
    (2) float64: at a random theta, numerics.lda_dynamics.tk_parts' out-of-T_K norm equals the distance of
    theta to T_K = span{(e_i q^T, 0, 0, 0), (0, 0, q, 0): q in K^perp} (an orthonormal basis of K^perp from
    numpy.linalg.eigh(I - P_K), least-squares projection), |difference| <= 10^(4-16) max(1, |theta|)."""
    d = P.d
    G, m = D.sym_mat(P.Gamma), D.sym_vec(P.m1)
    powers, v = [], m
    for _ in range(d):
        powers.append(v)
        v = G * v
    exact = {"symmetric": PK.T == PK, "idempotent": (PK * PK - PK).is_zero_matrix,
             "fixes_Gamma^j_m": all((PK * x - x).is_zero_matrix for x in powers),
             "rank_equals_dim_K": PK.rank() == dimK, "dim_K_equals_krylov_rank": sp.Matrix.hstack(*powers).rank() == dimK}
    PKf = D.projector_numeric(PK)
    ev, Q = np.linalg.eigh(np.eye(d) - PKf)
    Q = Q[:, ev > 0.5]
    cols = []
    for i in range(d):
        for q in Q.T:
            U = np.zeros((d, d))
            U[i] = q
            cols.append(N.pack_theta(U, np.zeros(d), np.zeros(d), 0.0))
    cols += [N.pack_theta(np.zeros((d, d)), np.zeros(d), q, 0.0) for q in Q.T]
    th = rng.standard_normal(N.theta_size(d))
    if cols:
        B = np.array(cols).T
        ref = float(np.linalg.norm(th - B @ np.linalg.lstsq(B, th, rcond=None)[0]))
    else:
        ref = float(np.linalg.norm(th))
    got = D.tk_parts(th, d, PKf)[1]
    res = abs(got - ref) / max(1.0, float(np.linalg.norm(th)))
    ok = all(exact.values()) and res <= 1e4 * EPS64
    return {"exact_projector": {k: bool(v) for k, v in exact.items()}, "out_of_T_K_norm": got,
            "distance_to_T_K_by_projection": ref, "relative_residual": res, "tolerance": 1e4 * EPS64,
            "passed": bool(ok)}


def _fast_gradient_reference(P, n, dps, rng):
    """numerics.lda_dynamics.grad_theta_fast (DPhi^T applied blockwise, Lemma B.15) against
    numerics.lda.grad_theta (the dense Jacobian DPhi of Lemma B.14, transposed; lemma-b.11 checks it against
    finite differences) at a generic rational theta (every entry non-zero, not in T_K), same rule, at dps
    digits: |difference| <= 10^(10-dps) max(1, |grad|)."""
    th = [mpm.mpf(int(k)) / 7 for k in rng.choice([-5, -4, -3, -2, -1, 1, 2, 3, 4, 5], N.theta_size(P.d))]
    with workdps(dps):
        a = D.grad_theta_fast(P, th, n, dps)[1]
        b = N.grad_theta(P, th, n, dps)[1]
        res = max(abs(x - y) for x, y in zip(a, b))
        t = residual_test(res, dps, max(abs(y) for y in b))
    return t


def _in_tk_exact(vals, PK, d):
    """Whether an exact rational theta lies in T_K = {u12 = 0, v22 = 0, P_K v21 = 0, U11 P_K = 0} (SymPy,
    exact), and whether it is non-trivial (U11 or v21 non-zero)."""
    U = sp.Matrix(d, d, list(vals[:d * d]))
    u, v, v22 = sp.Matrix(vals[d * d:d * d + d]), sp.Matrix(vals[d * d + d:d * d + 2 * d]), sp.sympify(vals[-1])
    inside = (U * PK).is_zero_matrix and (PK * v).is_zero_matrix and u.is_zero_matrix and v22 == 0
    return {"in_T_K_exactly": bool(inside), "non_trivial": bool(not (U.is_zero_matrix and v.is_zero_matrix)),
            "passed": bool(inside)}


def _rk4_reference(dps=30):
    """numerics.lda.rk4 on the linear field theta' = diag(lam) theta, where one classical RK4 step multiplies
    each coordinate by exactly g(z) = 1 + z + z^2/2 + z^3/6 + z^4/24, z = h lam: every recorded state must
    equal g(h lam)^k theta_0 at step k (and time k h), at dps digits within 10^(10-dps) max(1, |theta|) and in
    float64 within 10^3 eps k max(1, |theta|); T = 0.7, h = 0.1, record_every = 3 (records 0, 3, 6, 7)."""
    lam, th0, T, h, every = ["-1.3", "0.4", "2.1"], ["1", "-2", "0.5"], 0.7, 0.1, 3
    out = {}
    for label, dd in (("mpmath", dps), ("float64", None)):
        with workdps(dd or 15):
            L = np.array([mpm.mpf(x) for x in lam], dtype=object) if dd else np.array([float(x) for x in lam])
            x0 = np.array([mpm.mpf(x) for x in th0], dtype=object) if dd else np.array([float(x) for x in th0])
            hh = mpm.mpf(h) if dd else h
            traj = D.rk4(lambda th: L * th, x0, T, h, dd, every)
            z = hh * L
            g = 1 + z + z ** 2 / 2 + z ** 3 / 6 + z ** 4 / 24
            ks = [0, 3, 6, 7]
            ok = [round(float(t) / h) for t, _ in traj] == ks and all(abs(float(t) - k * h) <= 1e-12 for (t, _), k in zip(traj, ks))
            res = max(max(abs(a - b) for a, b in zip(x, g ** k * x0)) for (_, x), k in zip(traj, ks)) if ok else None
            tol = (mpm.mpf(10) ** (10 - dd) if dd else 1e3 * EPS64 * 7) * max(1, max(abs(v) for v in x0))
            out[label] = {"steps_recorded": [round(float(t) / h) for t, _ in traj], "residual": _s(res),
                          "tolerance": _s(tol), "passed": bool(ok and res <= tol)}
    out["passed"] = all(v["passed"] for v in out.values())
    return out


def _s(x):
    return mpm.nstr(x, 5) if isinstance(x, mpm.mpf) else (None if x is None else float(x))


def _random_rotation(rng, d: int):
    """A rational rotation: the Cayley transform of an antisymmetric matrix with entries a/b,
    a in [-3, 3], b in [1, 3], drawn from ``rng`` (exact; no axis-aligned coincidence in general)."""
    A = sp.zeros(d)
    for i in range(d):
        for j in range(i + 1, d):
            a = sp.Rational(int(rng.integers(-3, 4)), int(rng.integers(1, 4)))
            A[i, j], A[j, i] = a, -a
    return D.cayley_orthogonal(A)


def cayley4():
    """d = 4, Gamma = Q diag(1,2,3,4) Q^T, m = Q (1,1,0,0)^T with a rational Cayley Q: dim K = 2, K not
    aligned with the axes (so out-of-T_K components are not structurally zero in floating point)."""
    A = sp.Matrix([[0, 1, -2, 1], [-1, 0, 1, 3], [2, -1, 0, 1], [-1, -3, -1, 0]]) / 3
    Q = D.cayley_orthogonal(A)
    G = Q * sp.diag(1, 2, 3, 4) * Q.T
    m = Q * sp.Matrix([1, 1, 0, 0])
    s = lambda x: str(sp.nsimplify(x))
    return {"m1": [s(x) for x in m], "m_1": [s(-x) for x in m], "Gamma": [[s(G[i, j]) for j in range(4)] for i in range(4)],
            "pi_plus": "0.5"}


#: what each side of the decision shares (softmix show); a claim's own line wins over checks.paper.independence:
#: the implementation checks added for issue 11 are listed after the table's text
_INDEPENDENCE = {
    "lemma-b.34":
        "derived side: integrated gradient flow on T_K; stated side: conserved ||U11||_F^2 - ||v21||^2; "
        "shared: the gradient code; the RK4 integrator against its exact amplification factor on a linear "
        "field and the start's T_K membership exactly, shared: nothing",
    "lemma-b.37":
        "derived side: gradient at points of T_K; stated side: it stays in T_K; shared: the gradient code; "
        "P_K and tk_parts against their definitions (exact, least squares), grad_theta_fast against the dense "
        "Jacobian, shared: the effective gradient",
    "prop-b.35":
        "derived side: exact rational Krylov ranks; stated side: the dimension criterion; shared: nothing; "
        "the Cayley rotations are checked orthogonal exactly",
    "thm-3.6":
        "derived side: integrated flow on T_K from several starts; stated side: global exponential "
        "convergence; shared: the gradient code; the rate fits against scipy.stats.linregress, shared: "
        "nothing",
    "fig-1":
        "derived side: GD trajectories near Theta1 and Theta2; stated side: fast vs slow convergence of Fig. "
        "1; shared: the risk code; the rate fits against scipy.stats.linregress and dist_E1 / dist_E2 against "
        "least-squares projections, shared: nothing",
    "fig-5":
        "derived side: SGD in d = 20 from the paper's start; stated side: near-Bayes risk of Fig. 5; shared: "
        "the risk code; the SGD against numerics.lda.sgd_attention on the same stream and its step against "
        "central differences of the batch loss of f_theta, shared: the sampling stream",
}


def reg(id, title, source, statement, check, controls, kind="numeric", defaults=None, profiles=None,
        assumptions=(), configurations_note=""):
    register(Claim(id=id, title=title, source=f"{SOURCE}, {source}", statement=statement, section=SEC,
                   check=check, assumptions=tuple(assumptions), defaults=dict(defaults or {"lda": N.C2}),
                   profiles=profiles or {}, controls=tuple(Control(a, b) for a, b in controls), kind=kind,
                   configurations_note=configurations_note, independence=_INDEPENDENCE.get(id, "")))


def _sub(xs, ys, k=200):
    idx = np.unique(np.linspace(0, len(xs) - 1, min(k, len(xs))).round().astype(int))
    return [float(xs[i]) for i in idx], [float(ys[i]) for i in idx]


def draw_krylov(rng, params, i, d=3):
    """Drawn symmetric balanced configuration with a proper Krylov space (issue 11): generic within
    the assumptions of Lemmas B.34, B.37 and Thm 3.6 (m_-1 = -m1, pi_+ = 1/2, K != R^d).
    Gamma = Q diag(lam) Q^T with d distinct eigenvalues drawn from {1, 3/2, ..., 4} and a random
    rational Cayley rotation Q (non-diagonal, K not aligned with the axes), m = Q c with c having
    exactly one zero entry (the others +-1 or +-1/2), so dim K = d - 1 exactly (Prop. B.35).
    The claim's fixed extra configurations are not re-run with the drawn one (``extra``: False)."""
    for _ in range(1000):
        lam = [sp.Rational(int(x), 2) for x in rng.choice(np.arange(2, 9), size=d, replace=False)]
        c = [sp.Rational(int(rng.choice([1, 2])), 2) * (1 if rng.random() < 0.5 else -1) for _ in range(d)]
        c[int(rng.integers(0, d))] = 0
        Q = _random_rotation(rng, d)
        G = (Q * sp.diag(*lam) * Q.T).applyfunc(sp.cancel)  # exact rationals
        m = (Q * sp.Matrix(c)).applyfunc(sp.cancel)
        if all(G[a, b] != 0 for a in range(d) for b in range(d)) and all(x != 0 for x in m):
            break
    # str(sp.Rational): sp.nsimplify "simplified" the rational 82828/24649 into a product of irrational
    # powers (seed 7777), and lemma-b.37 errored on the drawn configuration
    s = lambda x: str(sp.Rational(x))
    return {"lda": {"m1": [s(x) for x in m], "m_1": [s(-x) for x in m],
                    "Gamma": [[s(G[a, b]) for b in range(d)] for a in range(d)], "pi_plus": "0.5"},
            **({"extra": False} if "extra" in params else {})}


def _symbal(P):
    bad = []
    if not P.symmetric:
        bad.append("m1 = -m_-1")
    if not P.balanced:
        bad.append("pi_+ = 1/2")
    return bad


def _krylov(P, span_m_only=False):
    G, m = D.sym_mat(P.Gamma), D.sym_vec(P.m1)
    if span_m_only:
        return m * (m.T * m).inv() * m.T, 1
    return D.krylov_projector(G, m)


def _gradfield(P, n, dps, variant=None):
    d = P.d

    def f(th):
        g = D.grad_theta_fast(P, th, n, dps)[1]
        if variant == "wrong-v21-gradient":
            g = g.copy()
            g[d * d + d:d * d + 2 * d] = 2 * g[d * d + d:d * d + 2 * d]
        return -g
    return f


def _vnorm(x):
    s = x @ x
    return mpm.sqrt(s) if isinstance(s, mpm.mpf) else float(np.sqrt(s))


# ---- Lemma B.34 -----------------------------------------------------------------------------------
@generic(draw_krylov, quick=0)  # a drawn configuration costs ~3x the claim's quick time: drawn in full only
def _chk_b34(p, ctx):
    P = N.LDAProblem.from_params(p["lda"])
    if _symbal(P):
        return Outcome("inconclusive", {"assumption_violated": _symbal(P)})
    d = P.d
    PK, dimK = _krylov(P)
    if dimK == d:
        return Outcome("inconclusive", {"assumption_violated": "K = R^d: T_K = {0}, nothing to conserve",
                                        "to_settle": "a configuration with dim K < d"})
    rng = ctx.rng("theta0")
    vals = D.random_tk_point(rng, PK, d)
    start = _in_tk_exact(vals, PK, d)
    rk = _rk4_reference()
    cU, cv = sp.Rational(1, d), sp.Rational(1, int(np.ceil(np.sqrt(d))))
    vals = [x * cU for x in vals[:d * d]] + vals[d * d:d * d + d] + [x * cv for x in vals[d * d + d:-1]] + [0]
    quantity = D.factor_mass if ctx.variant == "sum-not-balance" else D.balance
    qname = "||U11||_F^2 + ||v21||^2" if ctx.variant == "sum-not-balance" else "||U11||_F^2 - ||v21||^2"
    field = lambda dps: _gradfield(P, p["nodes"], dps, ctx.variant)
    ev = {"quantity": qname, "dim_K": dimK, "theta0_in_T_K": "exact rational point U11 = A(I-P_K), v21 = (I-P_K)z",
          "rule": "max_t |Q(t)-Q(0)| <= 10 * 2 max||theta|| * (16/15) max_t ||theta_h - theta_{h/2}|| "
                  "(RK4 step-doubling error bound) + floor; floor = 10^(10-dps) * max(1,|Q0|) (mpmath) or "
                  "steps * 1e-14 * max(1,|Q0|) (float64); the start is in T_K exactly (SymPy) and the integrator "
                  "reproduces the exact RK4 amplification factor on a linear field (rk4_exactness)",
          "start_in_T_K": start, "rk4_exactness": rk}
    ok = start["passed"] and rk["passed"]
    runs = []
    for label, dps, T, h in (("mpmath", p["dps"], p["T_mp"], p["h_mp"]), ("float64", None, p["T"], p["h"])):
        th0 = D.to_theta(vals, dps)
        with workdps(dps or 15):
            a = D.rk4(field(dps), th0, T, h, dps, 1)
            b = D.rk4(field(dps), th0, T, h / 2, dps, 2)
            Q0 = quantity(a[0][1], d)
            drift_h = max(abs(quantity(x, d) - Q0) for _, x in a)
            drift_h2 = max(abs(quantity(x, d) - Q0) for _, x in b)
            err = max(_vnorm(x - y) for (_, x), (_, y) in zip(a, b)) * 16 / 15
            thmax = max(_vnorm(x) for _, x in a)
            steps = len(a) - 1
            if dps is not None:
                floor = mpm.mpf(10) ** (10 - dps) * max(1, abs(Q0))
            else:
                floor = steps * 1e-14 * max(1.0, abs(float(Q0)))
            tol = 10 * 2 * thmax * err + floor
            passed = bool(drift_h <= tol)
        ok &= passed
        row = {"integrator": label, "dps": dps, "T": T, "h": h, "Q0": Q0, "max_drift_h": drift_h,
               "max_drift_h_over_2": drift_h2, "drift_ratio_h_vs_h2": (drift_h / drift_h2) if drift_h2 else None,
               "step_doubling_error": err, "tolerance": tol, "passed": passed}
        runs.append({k: (mpm.nstr(v, 6) if isinstance(v, mpm.mpf) else v) for k, v in row.items()})
        if dps is None:
            ts = [t for t, _ in a]
            ys = [max(abs(float(quantity(x, d) - Q0)), 1e-17) for _, x in a]
            xs, ys = _sub(ts, ys)
            ev["figures"] = [{"title": f"lemma-b.34: |Q(t) - Q(0)|, Q = {qname} (float64 RK4, h={h})",
                              "xlabel": "t", "ylabel": "|drift|", "xscale": "linear", "yscale": "log",
                              "series": [{"label": "drift", "x": xs, "y": ys}]}]
    ev["runs"] = runs
    return Outcome("confirmed" if ok else "refuted", ev)


reg("lemma-b.34", "Conserved balance ||U11||_F^2 - ||v21||^2 on T_K", "Lemma B.34",
    "Along gradient flow in T_K, ||U11(t)||_F^2 - ||v21(t)||^2 is constant", _chk_b34,
    [("wrong-v21-gradient", "flow with the v21-gradient doubled (a wrong gradient)"),
     ("sum-not-balance", "claims ||U11||_F^2 + ||v21||^2 is conserved instead")],
    defaults={"lda": N.C2, "dps": 30, "nodes": 8, "T_mp": 0.1, "h_mp": 0.05, "T": 5.0, "h": 0.1},
    profiles={"full": {"T_mp": 0.5, "T": 50.0, "h": 0.05}},
    assumptions=("m1 = -m_-1", "pi_+ = 1/2", "theta_0 in T_K"))


# ---- Lemma B.37 -----------------------------------------------------------------------------------
@generic(draw_krylov)
def _chk_b37(p, ctx):
    span_m = ctx.variant == "span-m-only"
    cfgs = [("user", p["lda"])] + [(k, c) for k, c in (("DIAG3", DIAG3), ("ROT3", ROT3), ("CAYLEY4", cayley4()))
                                   if p.get("extra", True)]
    rows, ok = [], True
    dps, n = p["dps"], p["nodes"]
    for name, c in cfgs:
        P = N.LDAProblem.from_params(c)
        if _symbal(P):
            return Outcome("inconclusive", {"assumption_violated": _symbal(P), "config": name})
        d = P.d
        PK, dimK = _krylov(P, span_m)
        if dimK == d:
            rows.append({"config": name, "dim_K": dimK, "note": "K = R^d: T_K = {0} (trivially invariant)"})
            continue
        rng = ctx.rng("points", name)
        # the Krylov projector and tk_parts themselves (on the true K, whatever the control)
        ref = ctx.data(("krylov-reference", name), lambda r: {**_krylov_reference(P, *_krylov(P), r),
                                                              "grad_theta_fast_vs_dense_jacobian":
                                                              _fast_gradient_reference(P, n, dps, r)},
                       {"config": P.to_params(), "nodes": n, "dps": dps})
        ok &= ref["passed"] and ref["grad_theta_fast_vs_dense_jacobian"]["passed"]
        PKmp, PKf = D.projector_numeric(PK, dps), D.projector_numeric(PK)
        grows = []
        for i in range(p["points"]):
            vals = D.random_tk_point(rng, PK, d)
            ok &= _in_tk_exact(vals, PK, d)["passed"]  # (exact membership of the subspace the point was built in)
            th = D.to_theta(vals, dps)
            with workdps(dps):
                g = D.grad_theta_fast(P, th, n, dps)[1]
                parts, out = D.tk_parts(g, d, PKmp)
                t = residual_test(out, dps, _vnorm(g), guard=10)
            grows.append({"out_of_T_K": t["residual"], "tolerance": t["tolerance"], "passed": t["passed"],
                          "parts": {k: mpm.nstr(mpm.sqrt(v), 3) for k, v in parts.items()}})
            ok &= t["passed"]
        row = {"config": name, "d": d, "dim_K": dimK, "subspace": "span(m)" if span_m else "Krylov K",
               "gradient_points": grows, "krylov_reference": ref}
        # flows: mpmath short horizon, float64 long horizon
        if d <= p["flow_max_d"]:
            vals = D.random_tk_point(ctx.rng("flow", name), PK, d)
            for label, dd, T, h in (("mpmath", dps, p["T_mp"], p["h_mp"]), ("float64", None, p["T"], p["h"])):
                traj = D.rk4(_gradfield(P, n, dd), D.to_theta(vals, dd), T, h, dd, 1)
                with workdps(dd or 15):
                    outs = [D.tk_parts(x, d, PKmp if dd else PKf)[1] for _, x in traj]
                    sc = max(_vnorm(x) for _, x in traj)
                    mx = max(outs)
                    amp = None if dd else _transverse_amplification(P, n, D.to_theta(vals), T, h, PKf)
                    tol = (mpm.mpf(10) ** (10 - dd) * max(1, sc) * len(traj)) if dd else \
                        max(1e-8, 100 * len(traj) * EPS64 * amp) * max(1.0, sc)
                    passed = bool(mx <= tol)
                ok &= passed
                row[f"flow_{label}"] = {"T": T, "h": h, "max_out_of_T_K": mpm.nstr(mx, 4) if dd else float(mx),
                                        "tolerance": mpm.nstr(tol, 3) if dd else tol, "passed": passed,
                                        **({} if dd else {"transverse_amplification": amp})}
        rows.append(row)
    return Outcome("confirmed" if ok else "refuted",
                   {"configs": rows, "rule": "at random exact points of T_K, |grad outside T_K| <= 10^(10-dps) "
                    "||grad||; mpmath RK4 out-of-T_K <= steps * 10^(10-dps) * max||theta||; float64 RK4 "
                    "out-of-T_K <= max(1e-8, 100 * steps * eps * A) * max(1, max||theta||), A the measured "
                    "amplification of a perturbation out of T_K along the same flow (round-off leaves T_K at every "
                    "step and an unstable transverse direction amplifies it); krylov_reference: P_K exactly "
                    "symmetric, idempotent, of rank dim K = rank[m, ..., Gamma^(d-1) m] and fixing each Gamma^j m, "
                    "and tk_parts' out-of-T_K norm = the least-squares distance to T_K (<= 1e4 eps max(1, |theta|)); "
                    "grad_theta_fast = the dense-Jacobian gradient at a generic theta (<= 10^(10-dps) |grad|)"})


EPS64 = float(np.finfo(float).eps)


def _transverse_amplification(P, n, th, T, h, PK, delta=1e-7):
    """max_t |theta_delta(t) out of T_K| / delta for the float64 flow started delta out of T_K (in the
    u12 and v22 coordinates, which are zero on T_K), at least 1.  A round-off error committed at
    some step grows at most like this along the rest of the flow (to first order).  Approximate: one
    transverse direction, measured rather than bounded."""
    d = P.d
    t0 = np.asarray(th, float).copy()
    t0[d * d:d * d + d] += delta / np.sqrt(2 * d)
    t0[-1] += delta / np.sqrt(2)
    traj = D.rk4(_gradfield(P, n, None), t0, T, h, None, 1)
    return max(1.0, max(D.tk_parts(x, d, PK)[1] for _, x in traj) / delta)


reg("lemma-b.37", "The Krylov subspace T_K is invariant under gradient flow", "Lemma B.37 / Thm 3.6",
    "T_K = {u12 = 0, v22 = 0, v21 in K^perp, U11 P_K = 0} is invariant: grad R(theta) in T_K for theta in T_K",
    _chk_b37, [("span-m-only", "K replaced by span(m) (v21 orthogonal to m only, U11 m = 0)")],
    defaults={"lda": N.C2, "dps": 30, "nodes": 8, "points": 2, "flow_max_d": 5, "T_mp": 0.2, "h_mp": 0.05,
              "T": 20.0, "h": 0.05, "extra": True},
    profiles={"full": {"points": 5, "flow_max_d": 20, "T": 50.0}},
    assumptions=("m1 = -m_-1", "pi_+ = 1/2"))


# ---- Prop. B.35 -----------------------------------------------------------------------------------
def _random_case(rng, d, kind):
    """Gamma = Q diag Q^T (Q rational orthogonal, Cayley), m = Q c.  kind: (repeated, missing)."""
    repeated, missing = kind
    lam = list(rng.choice(np.arange(1, 10), size=d, replace=False))
    if repeated:
        lam[1] = lam[0]
    c = [int(rng.integers(1, 4)) * (1 if rng.random() < 0.5 else -1) for _ in range(d)]
    if missing:
        j = int(rng.integers(0, d))
        grp = [i for i in range(d) if lam[i] == lam[j]]
        for i in grp:
            c[i] = 0
    Q = _random_rotation(rng, d)
    G = Q * sp.diag(*[sp.Integer(int(x)) for x in lam]) * Q.T
    m = Q * sp.Matrix(c)
    return sp.simplify(G), sp.simplify(m), Q


def _criterion(G, m, drop_distinct=False):
    ev = G.eigenvects()
    distinct = len(ev) == G.shape[0]
    touches = []
    for lam, mult, basis in ev:
        B = sp.Matrix.hstack(*basis)
        Pm = B * (B.T * B).inv() * B.T * m
        touches.append(any(sp.simplify(x) != 0 for x in Pm))
    full = all(touches) and (distinct or drop_distinct)
    return full, distinct, sum(touches), len(ev)


def _chk_b35(p, ctx):
    rng = ctx.rng("cases")
    drop = ctx.variant == "no-distinct-condition"
    rows, ok, ce = [], True, None
    kinds = [(False, False), (False, True), (True, False), (True, True)]
    cases, orth_ok = [], True
    # pinned hand case: Gamma = diag(1,2,3), m = (1,1,0): K = span(e1, e2), dim 2
    cases.append(("pinned diag(1,2,3), m=(1,1,0)", sp.diag(1, 2, 3), sp.Matrix([1, 1, 0])))
    P = N.LDAProblem.from_params(p["lda"])
    if P.d <= p["max_user_d"]:
        cases.append(("user config (m = m1)", D.sym_mat(P.Gamma), D.sym_vec(P.m1)))
    for i in range(p["trials"]):
        d = p["dims"][i % len(p["dims"])]
        kind = kinds[(i // len(p["dims"])) % 4] if d > 1 else (False, False)
        G, m, Q = _random_case(rng, d, kind)
        # the construction's premise, exactly: Q is a rational rotation (numerics.lda_dynamics.cayley_orthogonal),
        # so G has the drawn spectrum with the drawn multiplicities
        orth_ok &= bool((Q.T * Q - sp.eye(d)).applyfunc(sp.cancel).is_zero_matrix and all(x.is_rational for x in Q))
        cases.append((f"random d={d} repeated={kind[0]} missing={kind[1]}", G, m))
    for label, G, m in cases:
        d = G.shape[0]
        rank = D.krylov_matrix(G, m).rank()
        full, distinct, n_touch, n_eig = _criterion(G, m, drop)
        agree = (rank == d) == full
        # finer form implied by the proof: dim K = number of eigenspaces m touches
        finer = rank == n_touch
        rows.append({"case": label, "d": d, "krylov_rank": int(rank), "criterion_says_full": bool(full),
                     "distinct_eigenvalues": bool(distinct), "eigenspaces_touched": int(n_touch),
                     "n_eigenspaces": int(n_eig), "agree": bool(agree), "dimK_equals_touched": bool(finer)})
        ok &= agree and finer
        if not agree and (ce is None or d < ce["d"]):
            ce = {"d": d, "Gamma": sp.sstr(G), "m": sp.sstr(m.T), "krylov_rank": int(rank)}
    ok &= orth_ok
    ev = {"cases": rows, "rotations_orthogonal": orth_ok,
          "method": "exact sympy rank of [m, Gm, ..., G^{d-1}m]; criterion from G.eigenvects() "
                    "(exact rational eigenspaces); Gamma = Q diag Q^T with Cayley Q (Q^T Q = I checked exactly)"}
    if ce:
        ev["counterexample"] = ce
    ev["findings"] = [{"kind": "typo", "where": "proof of Prop. B.35, second contraposition",
                       "detail": "'the projection of Delta m onto the eigenspace' should read 'of m' (harmless in the "
                                 "symmetric setting, Delta m = 2m)"}]
    return Outcome("verified" if ok else "refuted", ev)


reg("prop-b.35", "Krylov dimension criterion", "Prop. B.35",
    "K = R^d iff Gamma has d distinct eigenvalues and m has a nonzero projection on every eigenspace",
    _chk_b35, [("no-distinct-condition", "criterion without the 'd distinct eigenvalues' condition")],
    kind="symbolic", defaults={"lda": N.C2, "trials": 12, "dims": [2, 3, 4], "max_user_d": 20},
    profiles={"full": {"trials": 40, "dims": [2, 3, 4, 5]}},
    configurations_note="the check draws its own cases from the run's seed: `trials` random (Gamma, m) per dimension "
                        "in `dims` and per kind (distinct or repeated eigenvalues, m touching every eigenspace or "
                        "not), Gamma = Q diag Q^T with a random rational Cayley Q; exact ranks, no quadrature")


# ---- Theorem 3.6 ----------------------------------------------------------------------------------
@generic(draw_krylov, quick=0)  # a drawn configuration adds ~the claim's quick time: drawn in full only
def _chk_36(p, ctx):
    cfgs = [("user", p["lda"])] + ([("ROT3", ROT3)] if p.get("extra", True) else [])
    rows, ok, figs = [], True, []
    for name, c in cfgs:
        P = N.LDAProblem.from_params(c)
        if _symbal(P):
            return Outcome("inconclusive", {"assumption_violated": _symbal(P), "config": name})
        d, n = P.d, p["nodes"]
        PK, dimK = _krylov(P)
        if dimK == d:
            return Outcome("inconclusive", {"assumption_violated": "K = R^d: K^perp = {0}", "config": name})
        PKf = D.projector_numeric(PK)
        z = ctx.rng("v21", name).standard_normal(d)
        v = (np.eye(d) - PKf) @ z
        v *= np.sqrt(d - dimK) / np.linalg.norm(v)
        if ctx.variant == "v21-in-K":
            m = np.array([float(x) for x in P.m1])
            v = m * np.linalg.norm(v) / np.linalg.norm(m)
        elif ctx.variant == "v21-zero":
            v = np.zeros(d)
        th0 = N.pack_theta(np.zeros((d, d)), np.zeros(d), v, 0.0)
        st = start_check(P, th0, "krylov") if ctx.variant != "v21-zero" else {"passed": True, "kind": "control"}
        if ctx.variant is None:  # the claim's start has v21 in K^perp
            st["v21_in_K_perp"] = float(np.linalg.norm(PKf @ v)) <= 1e-10 * max(1.0, float(np.linalg.norm(v)))
            st["passed"] = bool(st["passed"] and st["v21_in_K_perp"])
        if not st["passed"]:
            return Outcome("refuted", {"start_check": st, "config": name,
                                       "reason": "the start is not on T_K with v21 in K^perp"})
        T, h = p["T"] * (p["T_scale_small"] if d < 5 else 1.0), p["h"]
        traj = D.rk4(_gradfield(P, n, None), th0, T, h, None, max(1, int(round(T / h / 100))))
        wst, bst = P.bayes()
        Rst = float(N.eff_risk(P, N.bayes_zeta(P), 0, n)[0])  # same quadrature as the flow
        ts = np.array([t for t, _ in traj])
        dw = np.array([np.linalg.norm(N.phi(P, x)[:d] - wst) for _, x in traj])
        gap = np.array([float(N.risk_theta(P, x, n)) - Rst for _, x in traj])
        out = np.array([D.tk_parts(x, d, PKf)[1] for _, x in traj])
        sc = max(np.linalg.norm(x) for _, x in traj)
        # quadrature floor: the n-node risk is minimised at w*_n != w*; ||w*_n - w*|| ~ ||grad_w R_n(w*)|| / lambda_min
        _, gz, Hz = N.eff_risk(P, N.bayes_zeta(P), 2, n)
        floor = float(np.linalg.norm(gz[:d]) / np.linalg.eigvalsh(Hz[:d, :d])[0])
        above = np.nonzero(dw > 100 * floor)[0]
        last = int(above[-1]) if above.size else 0
        win = np.arange(last // 2, last + 1)
        fit = D.fit_exp_rate(ts[win], dw[win], ALPHA)
        gfit = D.fit_exp_rate(ts[win], np.maximum(gap[win], 0), ALPHA)
        conv = dw[-1] <= 1e-2 * dw[0]
        rate_ok = fit["rate"] is not None and fit["ci"][0] > 0 and fit["r2"] >= 0.95
        in_tk = out.max() <= 1e-8 * max(1.0, sc)
        gap_ok = gap[-1] <= 1e-3 * max(gap[0], 1e-300)
        fit_ref = [_fit_reference(ts[win], dw[win], fit), _fit_reference(ts[win], np.maximum(gap[win], 0), gfit)]
        fits_ok = all(f_["passed"] for f_ in fit_ref)
        thT = traj[-1][1]
        U, u, vv, v22 = N.unpack_theta(thT, d)
        rows.append({"config": name, "d": d, "dim_K": dimK, "v21_0": v.tolist(), "T": T, "h": h,
                     "dist_w_initial": float(dw[0]), "dist_w_final": float(dw[-1]),
                     "risk_gap_initial": float(gap[0]), "risk_gap_final": float(gap[-1]),
                     "rate_dist_w": fit, "rate_risk_gap": gfit, "quadrature_floor_dist_w": floor,
                     "fit_window_t": [float(ts[win[0]]), float(ts[win[-1]])], "max_out_of_T_K": float(out.max()),
                     "balance_initial": float(D.balance(th0, d)), "balance_final": float(D.balance(thT, d)),
                     "lower_bound_alpha_nu2": float(np.linalg.eigvalsh(P.arrays()[2])[0] ** 2 * (v @ v)),
                     "limit_factor_norms": {"U11": float(np.linalg.norm(U)), "v21": float(np.linalg.norm(vv))},
                     "passed": {"dist_w_decreased_100x": bool(conv), "rate_ci_positive_r2": bool(rate_ok),
                                "stays_in_T_K": bool(in_tk), "risk_gap_decreased_1000x": bool(gap_ok),
                                "fits_equal_linregress": fits_ok},
                     "fits_vs_linregress": fit_ref})
        ok &= conv and rate_ok and in_tk and gap_ok and fits_ok
        xs, ys = _sub(ts, np.maximum(dw, 1e-16))
        xg, yg = _sub(ts, np.maximum(gap, 1e-16))
        figs.append({"title": f"thm-3.6 ({name}, d={d}): convergence from U11=0, v21(0) in K^perp", "xlabel": "t",
                     "ylabel": "distance / excess risk", "xscale": "linear", "yscale": "log",
                     "series": [{"label": "||w_t - w*||", "x": xs, "y": ys},
                                {"label": "R(theta_t) - R*", "x": xg, "y": yg}]})
    return Outcome("confirmed" if ok else "refuted",
                   {"configs": rows, "figures": figs,
                    "rule": "float64 RK4 on the population gradient (GH): ||w_T - w*|| <= 1e-2 ||w_0 - w*||; "
                            "least-squares rate of log||w_t - w*|| on the second half of the window where ||w_t - w*|| > 100 x the quadrature floor ||grad_w R_n(w*)|| / lambda_min has (1-1e-3) CI > 0 and "
                            "R^2 >= 0.95; risk gap (same quadrature) drops 1000x; out-of-T_K <= 1e-8 max||theta||; both "
                            "fits equal scipy.stats.linregress on the same points (<= 1e-10 relative)"})


reg("thm-3.6", "Global exponential convergence on the Krylov subspace", "Thm 3.6 / App. B.12",
    "From U11 = 0, u12 = 0, v22 = 0, v21(0) in K^perp \\ {0}, the flow converges exponentially to theta_inf in "
    "T_K with f_theta_inf = f*", _chk_36,
    [("v21-in-K", "v21(0) = m (in K, hypothesis violated): the trajectory leaves T_K"),
     ("v21-zero", "v21(0) = 0: stuck at the saddle, no convergence")],
    defaults={"lda": N.C2, "nodes": 24, "T": 8.0, "h": 0.05, "T_scale_small": 3.0, "extra": True},
    profiles={"full": {"T": 30.0, "nodes": 40}},
    assumptions=("m1 = -m_-1", "pi_+ = 1/2", "K != R^d"))


# ---- Figure 1 -------------------------------------------------------------------------------------
def _chk_fig1(p, ctx):
    P = N.LDAProblem.from_params(p["lda"])
    bad = []
    if P.symmetric:
        bad.append("m1 != -m_-1 (Theta1^reg)")
    if P.balanced:
        bad.append("pi_+ != 1/2 (Theta2 construction of Lemma B.3 case 1)")
    if bad:
        return Outcome("inconclusive", {"assumption_violated": bad})
    d, n = P.d, p["nodes"]
    th1, th2 = N.construct_theta1(P), N.construct_theta2(P)
    z1, z2 = N.phi(P, th1), N.phi(P, th2)
    starts = {"Theta1": start_check(P, th1, "theta1"), "Theta2": start_check(P, th2, "theta2")}
    if not all(v["passed"] for v in starts.values()):
        return Outcome("refuted", {"start_check": starts, "reason": "a start is not the point the figure names"})
    ev = {"initialisations": {
        "Theta1": "numerics.lda.construct_theta1 (r = 0, w = w*, b = b*, s != 0; u12 = 1)",
        "Theta2": "Lemma B.3 case 1 = Table 3 row theta^(2): U11 = I, u12 = -dm/2, v21 = Gamma^-1 w*, "
                  "v22 = (v21^T m_-1 + pi v21^T dm - b*)/(1 - 2 pi)  [eq. (7): b + r sigma(s0) = b*; the brief's "
                  "(b* - v21^T m_-1 - pi v21^T dm)/(1 - 2 pi) has the opposite sign]",
        "theta1": th1.tolist(), "theta2": th2.tolist(), "zeta1": z1.tolist(), "zeta2": z2.tolist(),
        "dist_E1(theta1)": N.dist_E1(P, z1), "dist_E2(theta2)": N.dist_E2(P, z2),
        "perturbation": f"{p['eps']} * N(0, I) in attention coordinates"},
        "findings": [{"kind": "garbled source (conversion)", "where": "Table 3, row theta^(1)",
                      "detail": "entries unreadable (U11 shows '1 0 / 2b*', u12 '10 10', v21 '2b 0', v22 '-b*'); "
                                "consistent reading v21 = (2b*, 0), v22 = -b* gives b = b*, r = 0 on C1; the Theta1 "
                                "start here is numerics.lda.construct_theta1, an equivalent Theta1^reg point"},
                     {"kind": "checked, no discrepancy", "where": "Table 3, row theta^(2), v22",
                      "detail": "(v21^T m_-1 - b* + pi v21^T dm)/(1 - 2 pi) agrees with eq. (7) and Lemma B.3 case 1"}],
        "protocol": f"population GD (GH, {n} nodes per projected direction), step {p['step']}, {p['steps']} steps"
                    + ("" if p["step"] == 1e-4 else " (quick: larger step and shorter horizon than the paper's 1e-4)")}
    res, figs = {}, []
    for lab, th, dist in (("Theta1", th1, N.dist_E1), ("Theta2", th2, N.dist_E2)):
        th0 = th + p["eps"] * ctx.rng("pert", lab).standard_normal(th.size)
        out = N.gradient_descent(P, th0, p["step"], p["steps"], n=n, record_every=max(1, p["steps"] // 200))
        t = np.array([k * p["step"] for k, _, _ in out])
        ds = np.array([dist(P, N.phi(P, x)) for _, x, _ in out])
        m = (t >= 0.1 * t[-1]) & (ds > p["floor"])
        fit = D.fit_exp_rate(t[m], ds[m], ALPHA)
        res[lab] = {"fit": fit, "dist_initial": float(ds[0]), "dist_final": float(ds[-1]),
                    "fit_vs_linregress": _fit_reference(t[m], ds[m], fit),
                    "distances_vs_projection": _dist_reference(P, [x for _, x, _ in out][::max(1, len(out) // 8)])}
        figs.append({"label": f"dist to E{lab[-1]} from near {lab}", "x": t.tolist(), "y": ds.tolist()})
    r1, r2 = res["Theta1"]["fit"], res["Theta2"]["fit"]
    impl_ok = all(v["fit_vs_linregress"]["passed"] and v["distances_vs_projection"]["passed"] for v in res.values())
    if ctx.variant == "reversed":
        ok = r2["rate"] is not None and r1["rate"] is not None and r2["ci"][0] > 0 and r2["ci"][0] > r1["ci"][1]
    else:
        # a clear decrease (halved): at the quick horizon the Theta1 rate (~0.0055 on C1) predicts a factor
        # exp(-0.0055 x 400) = 0.11, so the former "divided by 10" failed on some perturbations (seed 8131: 6.8x)
        decay1 = res["Theta1"]["dist_final"] <= 0.5 * res["Theta1"]["dist_initial"]
        ok = (r1["rate"] is not None and r1["ci"][0] > 0 and decay1
              and (r2["rate"] is None or r1["ci"][0] > r2["ci"][1]))
    ok = ok and impl_ok
    ev.update({"runs": res, "rate_Theta1": r1["rate"], "rate_Theta2": r2["rate"], "start_check": starts,
               "rule": "fit log dist vs t (t = k*step) on t >= 0.1 T and dist > floor; Theta1: rate (1-1e-3) CI > 0, "
                       "distance at least halved over the horizon, and the rate's lower CI end above the Theta2 "
                       "rate's upper CI end (R^2 is reported, not used: transients make it seed-dependent); the rate "
                       "fits equal scipy.stats.linregress (<= 1e-10 relative) and dist_E1 / dist_E2 at 9 points of each "
                       "run equal the least-squares projections onto E1 / E2 (<= 1e-12 max(1, dist))",
               "figures": [{"title": "fig-1: effective distance under population GD (C1)", "xlabel": "t = k * step",
                            "ylabel": "distance to E1 / E2", "xscale": "linear", "yscale": "log",
                            "series": [dict(s, **dict(zip(("x", "y"), _sub(s["x"], s["y"])))) for s in figs]}]})
    return Outcome("confirmed" if ok else "refuted", ev)


reg("fig-1", "GD converges exponentially near Theta1, markedly slower near Theta2", "Fig. 1 / Table 3 / App. B.13",
    "Population GD from 1e-6-perturbations of a Theta1 point and a Theta2 point: distance to E1 decays "
    "exponentially, distance to E2 markedly slower", _chk_fig1,
    [("reversed", "claims the Theta2 rate exceeds the Theta1 rate")], kind="experiment",
    defaults={"lda": N.C1, "step": 0.5, "steps": 800, "nodes": 40, "eps": 1e-6, "floor": 1e-9},
    profiles={"full": {"step": 1e-4, "steps": 600000}},
    assumptions=("m1 != -m_-1", "pi_+ != 1/2"),
    configurations_note="specific to the paper's configuration: reproduces Fig. 1 (configuration C1, d = 2, the "
                        "initialisations of Table 3); the general statements behind it (thm-3.5, cor-b.31) draw "
                        "configurations")


# ---- Figures 4 and 5 --------------------------------------------------------------------------------
def _sgd_runs(P, p, ctx, kind, step, starts=None, streams=None):
    """SGD replicates; ``streams(*keys)`` gives the random streams (default ``ctx.rng``, per variant;
    ``ctx.shared_rng`` where a control must be decided on the claim's own runs)."""
    d, n = P.d, p["nodes"]
    streams = streams or ctx.rng
    Rst = float(N.eff_risk(P, N.bayes_zeta(P), 0, n)[0])
    runs = []
    for r in range(p["replicates"]):
        rng = streams("init", kind, r)
        if kind == "fig-4":
            th0 = rng.standard_normal(N.theta_size(d))
        else:
            th0 = N.pack_theta(np.zeros((d, d)), np.zeros(d), rng.standard_normal(d), 0.0)
        if starts is not None:
            starts.append(start_check(P, th0, "gaussian" if kind == "fig-4" else "krylov"))
        _, curve = D.sgd_fast(P, th0, step, p["steps"], p["batch"], streams("sgd", kind, r), p["eval_every"], n)
        k = np.array([c[0] for c in curve])
        ex = np.array([c[1] for c in curve]) - Rst
        runs.append((k, ex))
    return runs, Rst


def _fig_spec(title, runs):
    series = []
    for i, (k, ex) in enumerate(runs):
        xs, ys = _sub(k, np.maximum(ex, 1e-12))
        series.append({"label": f"replicate {i}", "x": xs, "y": ys})
    return {"title": title, "xlabel": "SGD step", "ylabel": "excess population risk", "xscale": "linear",
            "yscale": "log", "series": series}


def _tail(ex, frac=0.1):
    return float(np.mean(ex[-max(1, int(round(frac * len(ex)))):]))


def _batch_loss(P, th, X, y):
    """Mean logistic loss of f_theta (eqs. (6)-(7) through Phi: numerics.lda.f_theta_batch) on a batch."""
    return float(np.mean(np.logaddexp(0.0, -y * N.f_theta_batch(P, th, X))))


def _sgd_reference(P, rng, steps=4, batch=8, step=0.05, n=8, h=1e-6):
    """The SGD of figs. 4/5 (numerics.lda_dynamics.sgd_fast, closed-form blocks of DPhi^T) decided on one
    configuration, deterministically (float64 rounding tolerances, no alpha):

    (1) against the reference implementation numerics.lda.sgd_attention (the Jacobian DPhi of Lemma B.14
        applied to the effective-coordinate batch gradient) for ``steps`` steps from a start with every
        entry non-zero (N(0, 1/4): no block of the gradient vanishes, unlike the figures' U11 = 0 starts),
        the two fed the same seed and the population risk read at every step: the final parameters and the
        risk curves must agree to 10^(4-16) max(1, scale) (two orderings of the same float64 arithmetic);
    (2) sgd_fast's first step, g = (theta_0 - theta_1) / step, against central finite differences (h = 1e-6)
        of the batch's mean logistic loss of f_theta (the batch redrawn from the same seed with
        numerics.lda.sample) along 7 random unit directions e: one inside each block (U11, u12, v21, v22)
        and three across all of theta; |g . e - FD_e| <= 10^(-6) max(1, |g|) (truncation O(h^2), rounding
        eps / h).  Directional differences cost 14 loss evaluations whatever d (d^2 + 2d + 1 = 441 in C2)."""
    d = P.d
    th0 = 0.5 * rng.standard_normal(N.theta_size(d))
    seed = int(rng.integers(2 ** 31))
    a, ca = D.sgd_fast(P, th0, step, steps, batch, np.random.default_rng(seed), 1, n)
    b, cb = N.sgd_attention(P, th0, step, steps, batch, np.random.default_rng(seed), 1, n)
    res = max(float(np.max(np.abs(a - b))), max(abs(x[1] - y[1]) for x, y in zip(ca, cb)))
    same_k = [x[0] for x in ca] == [y[0] for y in cb] == list(range(steps + 1))
    agree = residual_test(res, 16, max(float(np.max(np.abs(b))), max(abs(y[1]) for y in cb)), guard=4)
    agree["passed"] = bool(agree["passed"] and same_k)
    one, _ = D.sgd_fast(P, th0, step, 1, batch, np.random.default_rng(seed), 1, n)
    g = (th0 - one) / step
    X, y = N.sample(P, np.random.default_rng(seed), batch)
    blocks = [slice(0, d * d), slice(d * d, d * d + d), slice(d * d + d, d * d + 2 * d), slice(th0.size - 1, th0.size)]
    dirs = []
    for blk in blocks + [slice(0, th0.size)] * 3:
        e = np.zeros(th0.size)
        e[blk] = rng.standard_normal(blk.stop - blk.start)
        dirs.append(e / np.linalg.norm(e))
    fd = np.array([(_batch_loss(P, th0 + h * e, X, y) - _batch_loss(P, th0 - h * e, X, y)) / (2 * h) for e in dirs])
    grad = residual_test(float(np.max(np.abs(np.array(dirs) @ g - fd))), 6, float(np.linalg.norm(g)), guard=0)
    return {"config": P.to_params(), "sgd_fast_vs_sgd_attention": agree, "first_step_vs_finite_differences": grad,
            "steps": steps, "batch": batch, "step": step, "nodes": n}, bool(agree["passed"] and grad["passed"])


def _sgd_reference_part(P, ctx):
    """_sgd_reference on the claim's configuration (C2: symmetric, balanced, isotropic, so several blocks
    coincide there) and on one drawn generic configuration (draw_lda in d = 3), made once per seed."""
    def make(rng):
        from .lda import draw_lda
        drawn = N.LDAProblem.from_params(draw_lda(rng, {"lda": {"m1": [0, 0, 0]}}, 0)["lda"])
        return [_sgd_reference(Q, rng) for Q in (P, drawn)]
    res = ctx.data("sgd-reference", make, {"config": P.to_params()})
    return [r[0] for r in res], all(r[1] for r in res)


def _chk_fig5(p, ctx):
    P = N.LDAProblem.from_params(p["lda"])
    if _symbal(P):
        return Outcome("inconclusive", {"assumption_violated": _symbal(P)})
    step = 0.0 if ctx.variant == "step-zero" else p["step"]
    starts = []
    runs, Rst = _sgd_runs(P, p, ctx, "fig-5", step, starts)
    impl, impl_ok = _sgd_reference_part(P, ctx)
    rows, ok = [], all(s_["passed"] for s_ in starts) and impl_ok
    for k, ex in runs:
        fin = _tail(ex)
        passed = fin <= ex[0] / 10 and fin <= p["threshold"]
        ok &= passed
        rows.append({"initial_excess": float(ex[0]), "final_excess_tail_mean": fin, "passed": bool(passed)})
    return Outcome("confirmed" if ok else "refuted", {
        "runs": rows, "bayes_risk_quadrature": Rst, "start_check": starts, "sgd_implementation": impl,
        "protocol": f"online SGD, step {step}, batch {p['batch']}, {p['steps']} steps, fresh samples; effective "
                    f"predictor w^T x + b + r sigma(s0 + s^T x); population risk by projected GH ({p['nodes']} nodes) "
                    f"every {p['eval_every']} steps; init U11 = 0, u12 = 0, v22 = 0, v21 ~ N(0, I)",
        "rule": f"every replicate: mean excess risk over the last 10% of checkpoints <= initial/10 and <= "
                f"{p['threshold']}; the SGD itself (sgd_implementation, on C2 and a drawn configuration): sgd_fast "
                "equals the reference numerics.lda.sgd_attention step by step on the same stream (<= 1e-12 max(1, "
                "scale)) and its first step equals minus the step times the central finite difference of the batch "
                "loss of f_theta (<= 1e-6 max(1, |grad|))",
        "figures": [_fig_spec("fig-5: SGD from U11=0, u12=0, v22=0, v21~N(0,I) (C2)", runs)]})


def _chk_fig4(p, ctx):
    P = N.LDAProblem.from_params(p["lda"])
    if _symbal(P):
        return Outcome("inconclusive", {"assumption_violated": _symbal(P)})
    # the control (the reversed comparison) is decided on the claim's own runs: with runs of its own it
    # survived at seed 8156 where its two fig-5 replicates happened to be slow (0.0020, 0.0047) -- a chance
    # reversal, not a property of the statement.  The runs are made once per (seed, parameters).
    def make(_rng):
        st = []
        r4, Rst = _sgd_runs(P, p, ctx, "fig-4", p["step"], st, streams=ctx.shared_rng)
        r5, _ = _sgd_runs(P, p, ctx, "fig-5", p["step"], st, streams=ctx.shared_rng)
        return r4, r5, Rst, st
    r4, r5, Rst, starts = ctx.data("fig-4-runs", make, {k: p[k] for k in ("lda", "step", "steps", "batch",
                                                                         "eval_every", "nodes", "replicates")})
    if not all(s_["passed"] for s_ in starts):
        return Outcome("refuted", {"start_check": starts, "reason": "an initialisation is not the one the figure names"})
    rows, A4, A5 = [], [], []
    for (k4, e4), (k5, e5) in zip(r4, r5):
        h = len(k4) // 2
        a4, a5 = float(np.mean(e4[h:])), float(np.mean(e5[h:]))
        A4.append(a4)
        A5.append(a5)
        rows.append({"fig4_initial_excess": float(e4[0]), "fig4_final_excess": float(e4[-1]),
                     "fig4_second_half_mean": a4, "fig5_final_excess": float(e5[-1]), "fig5_second_half_mean": a5})
    # averaged over the replicate pairs: single pairs can go either way (an all-Gaussian start
    # sometimes lands well); the paper's point is the difficulty on average
    m4, m5 = float(np.mean(A4)), float(np.mean(A5))
    ok = (m4 < m5) if ctx.variant == "reversed" else (m5 < m4)
    return Outcome("confirmed" if ok else "refuted", {
        "runs": rows, "bayes_risk_quadrature": Rst,
        "protocol": f"online SGD, step {p['step']}, batch {p['batch']}, {p['steps']} steps; fig-4 init: all "
                    f"entries N(0,1); paired with fig-5 init (U11=0,u12=0,v22=0,v21~N(0,I))",
        "mean_over_replicates": {"fig4": m4, "fig5": m5},
        "rule": "averaged over the replicate pairs, the mean excess risk over the second half of the checkpoints "
                "is lower for the fig-5 initialisation than for the all-Gaussian one (matched steps)",
        "figures": [_fig_spec("fig-4: SGD from all-Gaussian initialisation (C2)", r4),
                    _fig_spec("fig-4 vs fig-5 (paired): fig-5 initialisation", r5)]})


SGD_DEFAULTS = {"lda": N.C2, "step": 1e-2, "steps": 2000, "batch": 64, "eval_every": 50, "nodes": 24,
                "replicates": 2, "threshold": 0.01}
SGD_FULL = {"steps": 20000, "eval_every": 200, "replicates": 5}
#: fig-4 averages over more replicate pairs: with 2, a chance reversal of the mean happens (seed 8156)
FIG4_DEFAULTS = {**SGD_DEFAULTS, "replicates": 4}

reg("fig-5", "SGD from U11=0, u12=0, v22=0, v21~N(0,I) reaches near-Bayes risk", "Fig. 5 / App. B.13",
    "d = 20 (C2), SGD step 1e-2: rapid decrease toward a small excess risk", _chk_fig5,
    [("step-zero", "same run with step size 0")], kind="experiment", defaults=SGD_DEFAULTS,
    profiles={"full": SGD_FULL}, assumptions=("m1 = -m_-1", "pi_+ = 1/2"),
    configurations_note="specific to the paper's configuration: reproduces Fig. 5 (configuration C2, d = 20, SGD step "
                        "1e-2, Table 3); the general statement behind it (thm-3.6) draws configurations")

reg("fig-4", "All-Gaussian initialisation approaches the Bayes risk with difficulty", "Fig. 4 / App. B.13",
    "d = 20 (C2), SGD step 1e-2 from all-Gaussian parameters: excess risk stays above the fig-5 run at matched steps",
    _chk_fig4, [("reversed", "claims the all-Gaussian run is below the fig-5 run")], kind="experiment",
    defaults=FIG4_DEFAULTS, profiles={"full": SGD_FULL}, assumptions=("m1 = -m_-1", "pi_+ = 1/2"),
    configurations_note="specific to the paper's configuration: reproduces Fig. 4 (configuration C2, d = 20, SGD step "
                        "1e-2, all-Gaussian start, Table 3)")
