"""Displayed steps of Appendix B.4 (differential identities: Lemma B.6, Lemmas B.9 and B.11,
Prop. B.12, Lemma B.16), derived by SymPy from the definitions.

Risks are expectations; the identities are derived at the integrand level, conditional on
``X = x`` (expectation is linear, so they pass to the risks), with ``eta(x)`` either a free
symbol in (0, 1) or, where the step uses Bayes optimality, the posterior obtained by Bayes' rule
from the two class densities (precision matrix ``P = Gamma^{-1}``).  ``l(y, t) = log(1 + e^{-y t})``
and ``g_zeta(x) = w^T x + b + r sigma(s0 + s^T x)`` are the definitions; derivatives are taken by
SymPy, never transcribed.
"""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .lda import attention_output_derived, bayes_coefficients, g_expr, problem_symbols, theta_symbols
from .mixtures import gradient, hessian, matrix_symbols, vector_symbols
from .steps_common import generic_jet, logistic_loss, sigma

__all__ = ["b4_lemma_b6_steps", "b4_chain_rule_steps", "b4_bayes_point_steps", "b4_saddle_steps"]

SRC = "Gabet-Boursier-Boyer 2026"


def b4_lemma_b6_steps() -> list:
    """B.4#2: the five lines of the proof of Lemma B.6 (E[X_+] for X ~ N(mu, sigma^2)), each
    line integrated by SymPy and compared with the next."""
    x, z = sp.Symbol("x", real=True), sp.Symbol("z", real=True)
    mu, s = sp.Symbol("mu", real=True), sp.Symbol("sigma", positive=True)
    phi = lambda t: sp.exp(-t**2 / 2) / sp.sqrt(2 * sp.pi)
    Phi = lambda t: (1 + sp.erf(t / sp.sqrt(2))) / 2
    c = -mu / s
    l1 = sp.integrate(x * phi((x - mu) / s) / s, (x, 0, sp.oo)).rewrite(sp.erf)  # erfc = 1 - erf
    l2 = sp.integrate((mu + s * z) * phi(z), (z, c, sp.oo)).rewrite(sp.erf)
    l3 = (mu * sp.integrate(phi(z), (z, c, sp.oo)) + s * sp.integrate(z * phi(z), (z, c, sp.oo))).rewrite(sp.erf)
    l4 = mu * (1 - Phi(c)) + s * (0 + phi(c))  # [-phi(z)]_c^oo = phi(c)
    l5 = mu * Phi(mu / s) + s * phi(mu / s)
    src = f"{SRC}, App. B.4 (proof of Lemma B.6)"
    return [Derivation("B.4#2 lines 1-4 of the proof of Lemma B.6", src, sp.Matrix([l1, l2, l3, l4]),
                       sp.Matrix([l2, l3, l4, l5]), assumptions=("X ~ N(mu, sigma^2), sigma > 0", "c = -mu/sigma"),
                       notes="each line (integrals evaluated by SymPy) equals the next; the last is Lemma B.6"),
            Derivation("B.4#2 phi'(z) = -z phi(z)", src, sp.diff(phi(z), z), -z * phi(z))]


def _eff(d):
    w, s = vector_symbols("w", d), vector_symbols("s", d)
    b, r, s0 = sp.symbols("b r s0", real=True)
    return w, b, r, s, s0


def _lprime(y, t, k=1):
    u = sp.Dummy("u", real=True)
    return sp.diff(logistic_loss(y, u), u, k).subs(u, t)


def b4_chain_rule_steps(d: int = 1) -> list:
    """B.4#12, #22, #23, #31: gradient, first and second variations and Hessian of the integrand
    l(y, .) composed with a score, against the displays (chain rule), for y = +1 and y = -1.  The
    score is a quadratic with free coefficients in zeta (or in eps along a curve theta + eps h):
    these identities see only the score's value, gradient and Hessian at the point, which are
    free, so they hold for g_zeta and f_theta (and every C^2 score).  Evaluated at zeta = 0 (any point
    is one, after translation)."""
    n = 2  # an entry (i, j) of a gradient or Hessian involves two coordinates only: n = 2 covers every entry
    zeta = sp.Matrix(sp.symbols(f"zeta1:{n + 1}", real=True))
    g = generic_jet(zeta, "g")
    grad_g = gradient(g, zeta)
    eps = sp.Symbol("eps", real=True)
    f = generic_jet([eps], "f")  # f(theta + eps h): f0 + Df[h] eps + D^2 f[h, h] eps^2 / 2
    f0, Df, D2f = f.subs(eps, 0), sp.diff(f, eps).subs(eps, 0), sp.diff(f, eps, 2).subs(eps, 0)
    at0 = {v: 0 for v in zeta}  # the point: the jet's value, gradient and Hessian there are free
    cols = lambda fn: sp.Matrix.hstack(*[fn(y).xreplace(at0) for y in (1, -1)])
    both = lambda fn: sp.Matrix([fn(1), fn(-1)])
    src = f"{SRC}, App. B.4"
    return [
        Derivation("B.4#12 grad_zeta l(y, g_zeta(x)) = l'(y, g) grad g", src + " (proof of Lemma B.9)",
                   cols(lambda y: gradient(logistic_loss(y, g), zeta)), cols(lambda y: _lprime(y, g) * grad_g),
                   assumptions=("integrand level: derivative and expectation interchange (dominated convergence)",
                                "g: a quadratic with free coefficients (its 1-jet at the point is free)")),
        Derivation("B.4#22 first variation of the integrand", src + " (proof of Lemma B.11)",
                   both(lambda y: sp.diff(logistic_loss(y, f), eps).subs(eps, 0)), both(lambda y: _lprime(y, f0) * Df),
                   assumptions=("f(eps) = f_theta+eps h(x): a quadratic in eps with free coefficients",)),
        Derivation("B.4#23 second variation of the integrand", src + " (proof of Lemma B.11)",
                   both(lambda y: sp.diff(logistic_loss(y, f), eps, 2).subs(eps, 0)),
                   both(lambda y: _lprime(y, f0, 2) * Df**2 + _lprime(y, f0) * D2f),
                   assumptions=("f(eps) = f_theta+eps h(x): a quadratic in eps with free coefficients",)),
        Derivation("B.4#31 Hessian of the integrand l(y, g_zeta(x))", src + " (proof of Prop. B.12)",
                   cols(lambda y: hessian(logistic_loss(y, g), zeta)),
                   cols(lambda y: _lprime(y, g, 2) * grad_g * grad_g.T + _lprime(y, g) * hessian(g, zeta)),
                   assumptions=("g: a quadratic with free coefficients (its 2-jet at the point is free)",)),
    ]


def _bayes(d):
    """The Bayes posterior eta(x) from the class densities and (w*, b*) of eq. (5), with P = Gamma^{-1}."""
    m1, m_1, P, pi_p = problem_symbols(d, precision=True)
    x = vector_symbols("x", d)
    q = lambda m: ((x - m).T * P * (x - m))[0, 0]
    num = pi_p * sp.exp(-q(m1) / 2)
    eta = num / (num + (1 - pi_p) * sp.exp(-q(m_1) / 2))
    ws, bs = bayes_coefficients(m1, m_1, P, pi_p)
    return x, eta, ws, bs


def _cond(eta, t, k):
    """E[l^(k)(Y, t) | X] with P(Y = 1 | X) = eta."""
    return eta * _lprime(1, t, k) + (1 - eta) * _lprime(-1, t, k)


def b4_bayes_point_steps(d: int = 1) -> list:
    """B.4#33, #35, #43, #47, #49 (proof of Prop. B.12): at zeta* = (w*, b*, 0, s*) in E1, with
    eta the Bayes posterior from the class densities."""
    x, eta, ws, bs = _bayes(d)
    w, b, r, s, s0 = _eff(d)
    zeta = sp.Matrix(list(w) + [b, r] + list(s))
    st = vector_symbols("sst", d)
    at = dict(zip(list(w) + [b, r] + list(s), list(ws) + [bs, 0] + list(st)))
    g = g_expr(w, b, r, s, s0, x)
    gstar = g.xreplace(at)
    H_g = hessian(g, zeta).xreplace(at)
    # the conditional Hessian integrand at zeta*: E[l'' | X] grad g grad g^T + E[l' | X] Hess g
    grad_g = gradient(g, zeta).xreplace(at)
    H = _cond(eta, gstar, 2) * grad_g * grad_g.T + _cond(eta, gstar, 1) * H_g
    dw, ds = vector_symbols("dw", d), vector_symbols("ds", d)
    db, dr = sp.symbols("db dr", real=True)
    dz = sp.Matrix(list(dw) + [db, dr] + list(ds))
    lin = (dw.T * x)[0, 0] + db + dr * sigma(s0 + (st.T * x)[0, 0])
    at0 = {v: 0 for v in st}
    v0 = sp.Matrix([0] * d + [-dr * sigma(s0), dr] + list(ds))
    src = f"{SRC}, App. B.4 (proof of Prop. B.12)"
    return [
        Derivation("B.4#33 E[l'(Y, g*) | X] Hess g = 0 at a Bayes point", src, _cond(eta, gstar, 1) * H_g,
                   sp.zeros(len(zeta), len(zeta)), assumptions=("zeta* = (w*, b*, 0, s*) in E1",
                                                                "eta from Bayes' rule (class densities)")),
        Derivation("B.4#35 E[l''(Y, g*) | X] = eta (1 - eta)", src,
                   sp.Matrix([_lprime(1, gstar, 2), _lprime(-1, gstar, 2)]), sp.Matrix([eta * (1 - eta)] * 2),
                   notes="l''(y, g*) does not depend on y = +-1, so the display holds pointwise"),
        Derivation("B.4#43 quadratic form of the Hessian integrand at dzeta' = dzeta", src,
                   (dz.T * H * dz)[0, 0], eta * (1 - eta) * lin**2,
                   notes="'= 0' is the hypothesis that dzeta is in the kernel (B.4#42)"),
        Derivation("B.4#47 sigma(s0 + s*^T x) at s* = 0", src, sigma(s0 + (st.T * x)[0, 0]).xreplace(at0), sigma(s0)),
        Derivation("B.4#49 (0, -dr sigma(s0), dr, ds) is in the kernel at s* = 0", src, (H * v0).xreplace(at0),
                   sp.zeros(len(zeta), 1)),
    ]


def b4_saddle_steps(d: int = 2) -> list:
    """B.4#64, #65, #68, #69 (proof of Lemma B.16) at a critical point theta_sp with v21 = 0."""
    x, eta, ws, bs = _bayes(d)
    w, b, r, s, s0 = _eff(d)
    zeta = sp.Matrix(list(w) + [b, r] + list(s))
    g = g_expr(w, b, r, s, s0, x)
    grad_cond = gradient(_cond_loss(eta, g), zeta)  # Lemma B.9's integrands, derived
    fstar = (ws.T * x)[0, 0] + bs
    # f_theta_sp = -v22 + 2 v22 sigma(s0 + s^T x) (B.4#65): zeta = (0, -v22, 2 v22, s)
    v22 = sp.Symbol("v22", real=True)
    at = dict(zip(list(w) + [b, r], [0] * d + [-v22, 2 * v22]))
    f_sp = g.xreplace(at)
    # B.4#65 itself, the point B.4#68-69 are read at: derived from definition (1) on the LDA token law (the
    # last output coordinate at the query (x, 0), every other block of U, V generic) at v21 = 0; stated as printed,
    # with s and s0 of eq. (7) typed out
    m1, m_1, G, pi_p = problem_symbols(d)
    U11, u12, _v21, _ = theta_symbols(d)
    theta_full = (U11, u12, vector_symbols("u21", d), sp.Symbol("u22", real=True), matrix_symbols("V11", d),
                  vector_symbols("v12", d), sp.zeros(d, 1), v22)
    f_theta_sp = attention_output_derived(theta_full, m1, m_1, G, pi_p, x, 0)[d]
    s_sp, s0_sp = 2 * u12 + U11 * (m1 - m_1), sp.log(pi_p / (1 - pi_p))
    e = sp.Symbol("eta_x", positive=True)  # a generic posterior value for the purely algebraic steps
    dr_, db_ = sp.symbols("dR_r dR_b", real=True)
    sol = sp.solve([2 * dr_ - db_, dr_], [dr_, db_], dict=True)[0]
    src = f"{SRC}, App. B.4 (proof of Lemma B.16)"
    return [
        Derivation("B.4#64 2 d_r R~ - d_b R~ = 0 and d_r R~ = 0 give d_b R~ = 0", src, sol[db_], 0),
        Derivation("B.4#65 f_theta_sp = -v22 + 2 v22 sigma(s0 + s^T x) on {v21 = 0}", src,
                   f_theta_sp, -v22 + 2 * v22 * sigma(s0_sp + (s_sp.T * x)[0, 0]),
                   assumptions=("v21 = 0 at theta_sp", "query (x, 0), last output coordinate")),
        Derivation("B.4#68 E[(sigma(f) - eta) f*] = w*^T grad_w R~ + b* d_b R~ (integrands)", src,
                   ((ws.T * grad_cond[:d, 0])[0, 0] + bs * grad_cond[d, 0]).xreplace(at),
                   (sigma(f_sp) - eta) * fstar, assumptions=("integrand level (Lemma B.9)",
                                                             "'= 0' is criticality: grad R~ = 0 at Phi(theta_sp)")),
        Derivation("B.4#69 B.4#66 minus B.4#68 with eta = sigma(f*)", src,
                   ((sigma(f_sp) - e) * f_sp - (sigma(f_sp) - e) * fstar).subs(e, eta),
                   (sigma(f_sp) - sigma(fstar)) * (f_sp - fstar),
                   assumptions=("eta = sigma(f*) (Prop. B.2): the posterior from Bayes' rule",)),
    ]


def _cond_loss(eta, t):
    return eta * logistic_loss(1, t) + (1 - eta) * logistic_loss(-1, t)
