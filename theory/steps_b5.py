"""Displayed steps of Appendix B.5.3-B.5.5 (proofs of Lemma 3.2 / B.20, Lemma B.22 and Prop. 3.4 /
B.23), derived by SymPy from the definitions: the map Phi of eq. (7) and its Jacobian (obtained
by differentiation), f_theta of eq. (6), g_zeta, the sigmoid and its derivatives.
"""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .lda import effective_map, f_theta_expr, g_expr, problem_symbols, theta_flat_symbols, theta_symbols
from .mixtures import matrix_symbols, vector_symbols
from .steps_common import logistic_loss, sigma

__all__ = ["b53_steps", "b54_steps", "b55_steps", "sigma_derivative"]

SRC = "Gabet-Boursier-Boyer 2026"


def sigma_derivative(t, k: int):
    """The k-th derivative of the sigmoid at t, by differentiation."""
    u = sp.Dummy("u", real=True)
    return sp.diff(sigma(u), u, k).subs(u, t)


def _dphi(d):
    """DPhi(theta)[h] by differentiating Phi of eq. (7) (generic symbols)."""
    m1, m_1, G, pi_p = problem_symbols(d)
    theta = theta_symbols(d)
    w, b, r, s, _ = effective_map(theta, m1, m_1, G, pi_p)
    Phi = sp.Matrix(list(w) + [b, r] + list(s))
    flat = theta_flat_symbols(d)
    dU, du, dv = matrix_symbols("dU", d), vector_symbols("du", d), vector_symbols("dv", d)
    dv22 = sp.Symbol("dv22", real=True)
    h = sp.Matrix(list(dU) + list(du) + list(dv) + [dv22])
    return Phi.jacobian(sp.Matrix(flat)) * h, (m1, m_1, G), theta, (dU, du, dv, dv22)


def b53_steps(d: int = 2) -> list:
    """B.5.3 (proof of Lemma 3.2 / B.20): the image of DPhi when m1 = -m_-1 or v21 = 0, and the
    explicit preimage of an arbitrary (dw, db, dr, ds) when m1 != -m_-1 and v21 != 0; B.5.4#3 (Lemma B.21):
    the injectivity of DPhi^* that the preimage gives."""
    Dh, (m1, m_1, G), (U11, u12, v21, v22), (dU, du, dv, dv22) = _dphi(d)
    dw_, db_, dr_ = Dh[:d, 0], Dh[d, 0], Dh[d + 1, 0]
    anti = {a: -b for a, b in zip(m1, m_1)}  # m1 = -m_-1
    v0 = {v: 0 for v in v21}
    tw, ts = vector_symbols("tw", d), vector_symbols("ts", d)  # an arbitrary target (dw, db, dr, ds)
    tb, tr = sp.symbols("tb tr", real=True)
    msum = m1 + m_1
    sol_v = (tr + 2 * tb) * msum / (msum.T * msum)[0, 0]
    sol_v22 = (sol_v.T * m_1)[0, 0] - tb
    a = G * v21
    sol_U = (tw - U11 * G * sol_v) * a.T / (a.T * a)[0, 0]
    sol_u = (ts - sol_U * (m1 - m_1)) / 2
    sub = dict(zip(list(dU) + list(du) + list(dv) + [dv22], list(sol_U) + list(sol_u) + list(sol_v) + [sol_v22]))
    src = f"{SRC}, App. B.5.3 (proof of Lemma 3.2)"
    return [
        Derivation("B.5.3#7 dr = -2 dv21^T m_-1 + 2 dv22 = -2 db when m1 = -m_-1", src,
                   sp.Matrix([dr_, dr_]).xreplace(anti), sp.Matrix([-2 * (dv.T * m_1)[0, 0] + 2 * dv22, -2 * db_]),
                   assumptions=("m1 = -m_-1", "DPhi by differentiating Phi (eq. (7))")),
        Derivation("B.5.3#8 2 db + dr = 0 on the image of DPhi when m1 = -m_-1", src,
                   (2 * db_ + dr_).xreplace(anti), 0, assumptions=("m1 = -m_-1",)),
        Derivation("B.5.3#9 dw = U11 Gamma dv21 at v21 = 0", src, dw_.xreplace(v0), U11 * G * dv,
                   assumptions=("v21 = 0",)),
        Derivation("B.5.3#14 second equation plus twice the first", src, dr_ + 2 * db_, (dv.T * msum)[0, 0]),
        Derivation("B.5.3#15 dv21 = (dr + 2 db)(m1 + m_-1)/|m1 + m_-1|^2 solves it", src,
                   (sol_v.T * msum)[0, 0], tr + 2 * tb, assumptions=("m1 + m_-1 != 0",)),
        Derivation("B.5.3#17 dU11 = (dw - U11 Gamma dv21)(Gamma v21)^T/|Gamma v21|^2 solves it", src,
                   sol_U * a, tw - U11 * G * sol_v, assumptions=("Gamma v21 != 0",)),
        Derivation("B.5.3#17 the whole construction: DPhi[dtheta] = (dw, db, dr, ds)", src, Dh.xreplace(sub),
                   sp.Matrix(list(tw) + [tb, tr] + list(ts)), assumptions=("m1 + m_-1 != 0", "Gamma v21 != 0"),
                   notes="dv22 = dv21^T m_-1 - db (B.5.3#16), du12 = (ds - dU11 dm)/2 (B.5.3#18)"),
        _adjoint_injective(Dh, sub, (dU, du, dv, dv22), (tw, tb, tr, ts)),
    ]


def _adjoint_injective(Dh, sub, dtheta, target) -> Derivation:
    """B.5.4#3 (proof of Lemma B.21): with R the linear preimage map of B.5.3 (target -> dtheta) and J = DPhi,
    R^T J^T g = g for every g, so J^T g = DPhi^* g = 0 forces g = 0 (here g = grad R~(Phi(theta)))."""
    dU, du, dv, dv22 = dtheta
    tw, tb, tr, ts = target
    h = sp.Matrix(list(dU) + list(du) + list(dv) + [dv22])
    T = sp.Matrix(list(tw) + [tb, tr] + list(ts))
    J = Dh.jacobian(h)  # DPhi(theta) as a matrix (Dh is linear in h)
    R = h.xreplace(sub).jacobian(T)  # the preimage map, linear in the target
    g = vector_symbols("g", T.rows)
    return Derivation("B.5.4#3 DPhi^* is injective: R^T DPhi^* g = g (R the preimage map of B.5.3)",
                      f"{SRC}, App. B.5.4 (proof of Lemma B.21)", R.T * (J.T * g), g,
                      assumptions=("m1 + m_-1 != 0", "Gamma v21 != 0"),
                      notes="so DPhi^* grad R~ = 0 (B.5.4#2) gives grad R~(Phi(theta)) = 0")


def b54_steps(d: int = 2) -> list:
    """B.5.4 (proof of Lemma B.22, strict saddles): Df and D^2 f at theta_sp (v21 = 0) along
    du12 = -dU11 dm/2, dv22 = 0; the dU11-dependence of the second variation (Lemma B.11); the
    trace identity for dU11^(t) = -t grad_w (Gamma dv21)^T."""
    m1, m_1, G, pi_p = problem_symbols(d)
    U11, u12, v21, v22 = theta_symbols(d)
    x = vector_symbols("x", d)
    dU, dv = matrix_symbols("dU", d), vector_symbols("dv", d)
    dm = m1 - m_1
    eps = sp.Symbol("eps", real=True)
    du = -dU * dm / 2
    f_e = f_theta_expr((U11 + eps * dU, u12 + eps * du, v21 + eps * dv, v22), m1, m_1, G, pi_p, x)
    v0 = {v: 0 for v in v21}
    Df = sp.diff(f_e, eps).subs(eps, 0).xreplace(v0)
    D2f = sp.diff(f_e, eps, 2).subs(eps, 0).xreplace(v0)
    s0 = sp.log(pi_p / (1 - pi_p))
    sz = sigma(s0 + ((2 * u12 + U11 * dm).T * x)[0, 0])
    eta = sp.Symbol("eta", positive=True)
    # the second variation of the conditional loss integrand along eps, differentiated by SymPy (Lemma B.11's
    # integrand, not typed); its dU11-dependence against Lemma B.9's w-integrand (sigma(g) - eta) x, with
    # f_theta_sp typed as printed (B.4#65), so that a fault of effective_map / g_expr shows on one side only
    loss_e = eta * logistic_loss(1, f_e) + (1 - eta) * logistic_loss(-1, f_e)
    integrand = sp.diff(loss_e, eps, 2).subs(eps, 0).xreplace(v0)
    f_sp = -v22 + 2 * v22 * sz
    t = sp.Symbol("t", positive=True)
    gg = vector_symbols("gw", d)
    Gs = matrix_symbols("G", d, symmetric=True)
    dUt = -t * gg * (Gs * dv).T
    src = f"{SRC}, App. B.5.4 (proof of Lemma B.22)"
    return [
        Derivation("B.5.4#9 Df at theta_sp along du12 = -dU11 dm/2, dv22 = 0", src, Df,
                   (dv.T * (G * U11.T * x + m_1 + dm * sz))[0, 0],
                   assumptions=("v21 = 0 (theta_sp)", "Gamma symmetric")),
        Derivation("B.5.4#10 D^2 f at theta_sp along the same direction", src, D2f, 2 * (dv.T * G * dU.T * x)[0, 0]),
        Derivation("B.5.4#11 dU11-dependence of the second variation (integrand)", src,
                   integrand - integrand.xreplace({e: 0 for e in dU}),
                   2 * (dv.T * G * dU.T * x)[0, 0] * (sigma(f_sp) - eta),
                   assumptions=("integrand level: d^2/d eps^2 of the conditional logistic loss at theta_sp",
                                "grad_w R~ = E[(sigma(g) - eta) X] (Lemma B.9), g = f_theta_sp of B.4#65"),
                   notes="C collects the terms without dU11 (Df does not involve dU11)"),
        Derivation("B.5.4#13 dv21^T Gamma (dU11^(t))^T g = -t |g|^2 |Gamma dv21|^2", src,
                   (dv.T * Gs * dUt.T * gg)[0, 0], -t * (gg.T * gg)[0, 0] * ((Gs * dv).T * (Gs * dv))[0, 0],
                   assumptions=("Gamma symmetric", "g = grad_w R~(Phi(theta_sp))")),
    ]


def b55_steps(d: int = 2) -> list:
    """B.5.5 (proof of Prop. 3.4 / B.23): g at zeta_R, its distance to f*, the Taylor expansion of
    sigma, the limits R -> oo, the constant C = sup|sigma''|/2 and the Lipschitz derivative."""
    w, s = vector_symbols("w", d), vector_symbols("s", d)
    b, r, s0 = sp.symbols("b r s0", real=True)
    x, c, ws = vector_symbols("x", d), vector_symbols("c", d), vector_symbols("wst", d)
    bs = sp.Symbol("bst", real=True)
    R = sp.Symbol("R", positive=True)
    s1, s2 = sigma_derivative(s0, 1), sigma_derivative(s0, 2)
    zR = dict(zip(list(w) + [b, r] + list(s), list(ws - s1 * c) + [bs - sigma(s0) * R, R] + list(c / R)))
    gR = g_expr(w, b, r, s, s0, x).xreplace(zR)
    cx = (c.T * x)[0, 0]
    fstar = (ws.T * x)[0, 0] + bs
    diff = gR - fstar
    u, h, tt = sp.Symbol("u", real=True), sp.Symbol("h", positive=True), sp.Symbol("t", real=True)
    taylor = sp.series(sigma(s0 + u), u, 0, 3).removeO()
    # the remainder is o(u^2): (sigma(s0 + u) - taylor)/u^2 -> 0 as u -> 0; the same at a rational s0
    s0v = sp.Rational(3, 7)
    rem = sp.limit(((sigma(s0 + u) - taylor) / u**2).subs(s0, s0v), u, 0)
    a = sp.Symbol("a", real=True)  # c^T x
    one_d = (R * (sigma(s0v + a / R) - sigma(s0v) - sigma_derivative(s0v, 1) * a / R))
    lim6 = sp.limit((R * one_d).subs(R, 1 / h), h, 0, "+")
    lim7 = sp.limit(one_d.subs(R, 1 / h), h, 0, "+")
    crit = sp.solve(sp.Eq(sigma_derivative(tt, 3), 0), tt)
    sup2 = sp.Max(*[sp.Abs(sp.simplify(sigma_derivative(t0, 2))) for t0 in crit])
    src = f"{SRC}, App. B.5.5 (proof of Prop. 3.4)"
    return [
        Derivation("B.5.5#3 g at zeta_R", src, gR,
                   ((ws - s1 * c).T * x)[0, 0] + bs - sigma(s0) * R + R * sigma(s0 + cx / R)),
        Derivation("B.5.5#4 g_zeta_R - f*", src, diff, R * (sigma(s0 + cx / R) - sigma(s0) - s1 * cx / R),
                   notes="the display writes zeta_r for zeta_R"),
        Derivation("B.5.5#5 Taylor expansion of sigma at s0 to second order", src,
                   sp.Matrix([taylor, rem]), sp.Matrix([sigma(s0) + s1 * u + s2 * u**2 / 2, 0]),
                   notes="u = c^T x / R; second entry: the remainder is o(u^2) (at s0 = 3/7)"),
        Derivation("B.5.5#6 R (g_zeta_R - f*) -> sigma''(s0)(c^T x)^2/2", src, lim6,
                   (sigma_derivative(s0, 2).subs(s0, s0v) * a**2 / 2), notes="limit R -> oo at s0 = 3/7, a = c^T x"),
        Derivation("B.5.5#7 g_zeta_R(x) -> f*(x)", src, lim7, 0, notes="limit R -> oo at s0 = 3/7, a = c^T x"),
        Derivation("B.5.5#8 sup |sigma''| = sqrt(3)/18 (C = sqrt(3)/36)", src, sup2, sp.sqrt(3) / 18,
                   notes="critical points of sigma'' from sigma''' = 0; sigma'' -> 0 at +-oo"),
        Derivation("B.5.5#10 d/dt log(1 + exp(-y t)) = -y sigma(-y t), |.| <= 1 for y = +-1", src,
                   sp.Matrix([sp.diff(logistic_loss(y, tt), tt) for y in (1, -1)]),
                   sp.Matrix([-y * sigma(-y * tt) for y in (1, -1)]),
                   notes="0 < sigma < 1, so t -> l(y, t) is 1-Lipschitz and |l(y, g) - l(y, f*)| <= |g - f*|"),
    ]
