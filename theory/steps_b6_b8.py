"""Displayed steps of Appendix B.6 (the second-order chain rule for R = R~ o Phi, Prop. B.29) and
B.8 (the constant-gate branch E2, Prop. B.31), derived by SymPy.

R~ is a quadratic with free coefficients in zeta (its value, gradient and Hessian are free, so a
second-order chain rule proven for it holds for every C^2 R~); Phi is eq. (7) itself.  On E2 the
posterior is eta = sigma(f*) (Prop. B.2).
"""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .lda import effective_map, g_expr, problem_symbols, theta_flat_symbols, theta_symbols
from .mixtures import gradient, hessian, vector_symbols
from .steps_b4 import _bayes, _cond, _eff
from .steps_common import generic_jet, sigma

__all__ = ["b6_steps", "b8_steps"]

SRC = "Gabet-Boursier-Boyer 2026"


def b6_steps(d: int = 1) -> list:
    """B.6#18-19: D^2 (R~ o Phi)(h, h') = D^2 R~(DPhi h, DPhi h') + DR~(D^2 Phi(h, h')), and the
    second term vanishing where DR~ = 0."""
    m1, m_1, G, pi_p = problem_symbols(d)
    theta = theta_symbols(d)
    w, b, r, s, _ = effective_map(theta, m1, m_1, G, pi_p)
    Phi = sp.Matrix(list(w) + [b, r] + list(s))
    flat = sp.Matrix(theta_flat_symbols(d))
    n = Phi.shape[0]
    zeta = sp.Matrix(sp.symbols(f"zeta1:{n + 1}", real=True))
    Rt = generic_jet(zeta, "R")
    comp = Rt.xreplace(dict(zip(zeta, Phi)))
    h, hp = vector_symbols("h", len(flat)), vector_symbols("hp", len(flat))
    J = Phi.jacobian(flat)
    H_R = hessian(Rt, zeta).xreplace(dict(zip(zeta, Phi)))
    g_R = gradient(Rt, zeta).xreplace(dict(zip(zeta, Phi)))
    D2Phi = sp.Matrix([(h.T * hessian(Phi[i], flat) * hp)[0, 0] for i in range(n)])
    lhs = (h.T * hessian(comp, flat) * hp)[0, 0]
    first = ((J * h).T * H_R * (J * hp))[0, 0]
    # B.6#19 at a generic theta* (symbols t_i): the jet centred at zeta* = Phi(theta*), its gradient there (the
    # linear coefficients R_i) set to 0 -- not at theta* = 0, where the w-rows of DPhi vanish
    crit = {sp.Symbol(f"R_{i}", real=True): 0 for i in range(n)}
    star = sp.symbols(f"t1:{len(flat) + 1}", real=True)
    at_star = dict(zip(flat, star))
    Rc = generic_jet(zeta - Phi.xreplace(at_star), "R")
    on_phi = dict(zip(zeta, Phi))
    lhs_c = (h.T * hessian(Rc.xreplace(on_phi), flat) * hp)[0, 0]
    first_c = ((J * h).T * hessian(Rc, zeta).xreplace(on_phi) * (J * hp))[0, 0]
    src = f"{SRC}, App. B.6 (proof of Prop. B.29)"
    return [
        Derivation("B.6#18 second-order chain rule for R~ o Phi", src, lhs, first + (g_R.T * D2Phi)[0, 0],
                   assumptions=("R~ a free 2-jet; Phi of eq. (7)",)),
        Derivation("B.6#19 the DR~ term vanishes where DR~(zeta*) = 0", src,
                   lhs_c.xreplace(at_star).xreplace(crit), first_c.xreplace(at_star).xreplace(crit),
                   notes="at a generic theta*: the jet is centred at zeta* = Phi(theta*), its gradient there set to 0"),
    ]


def b8_steps(d: int = 1) -> list:
    """B.8#5-8: E2 = {(w*, b* - sigma(s0) r, r, 0)}: its tangent line, the Hessian integrand there,
    grad g and the quadratic form."""
    x, _, ws, bs = _bayes(d)
    eta = sigma((ws.T * x)[0, 0] + bs)  # the posterior, eta = sigma(f*) (Prop. B.2, decided by prop-b.2)
    w, b, r, s, s0 = _eff(d)
    zeta = sp.Matrix(list(w) + [b, r] + list(s))
    rs = sp.Symbol("rst", real=True)
    E2 = dict(zip(list(w) + [b, r] + list(s), list(ws) + [bs - sigma(s0) * rs, rs] + [0] * d))
    g = g_expr(w, b, r, s, s0, x)
    gstar = g.xreplace(E2)
    curve = sp.Matrix(list(ws) + [bs - sigma(s0) * rs, rs] + [0] * d)
    grad_g = gradient(g, zeta).xreplace(E2)
    e = sp.Symbol("eta", positive=True)  # the value eta(x), once B.8#6 is established
    dw, ds = vector_symbols("dw", d), vector_symbols("ds", d)
    db, dr = sp.symbols("db dr", real=True)
    dz = sp.Matrix(list(dw) + [db, dr] + list(ds))
    sp1 = sigma(s0) * (1 - sigma(s0))
    src = f"{SRC}, App. B.8 (proof of Prop. B.31)"
    return [
        Derivation("B.8#5 E2 realises f* and its tangent is (0, -sigma(s0) dr, dr, 0)", src,
                   sp.Matrix([gstar] + list(curve.diff(rs))), sp.Matrix([(ws.T * x)[0, 0] + bs] + [0] * d
                                                                       + [-sigma(s0), 1] + [0] * d)),
        Derivation("B.8#6 at zeta* in E2: E[l'|X] = 0 and E[l''|X] = eta (1 - eta) in the chain rule (B.4#31)", src,
                   sp.Matrix([_cond(eta, gstar, 1), _cond(eta, gstar, 2)]), sp.Matrix([0, eta * (1 - eta)]),
                   assumptions=("eta = sigma(f*) (Prop. B.2)", "Hessian integrand l'' grad g grad g^T + l' Hess g "
                                "(B.4#31, steps-prop-b.12)")),
        Derivation("B.8#7 grad g at zeta* in E2", src, grad_g,
                   sp.Matrix(list(x) + [1, sigma(s0)] + list(rs * sp1 * x))),
        Derivation("B.8#8 the quadratic form at zeta* in E2", src,
                   (dz.T * (e * (1 - e) * grad_g * grad_g.T) * dz)[0, 0],
                   e * (1 - e) * (((dw + rs * sp1 * ds).T * x)[0, 0] + db + sigma(s0) * dr)**2,
                   notes="the display prints E for the expectation"),
    ]
