"""Appendix B statements without a derivation of their own elsewhere: exact SymPy.

Each function returns :class:`~softmix.theory.derivation.Derivation` objects, ``derived`` from
the definitions (the logistic loss l(y, t) = log(1 + exp(-y t)), the effective predictor
g_zeta(x) = w^T x + b + r sigma(s0 + s^T x), the map Phi of eq. (7)) and ``stated`` as the paper
writes it.  ``variant`` selects a deliberately wrong stated side (negative control).

* Lemma B.7  -- E[l'(Y, t) | X] = sigma(t) - eta(X), with l'(y, t) = -y / (1 + e^{y t});
* Lemma B.15 -- grad R = DPhi^* grad R~ for a generic smooth R~ (adjoint written blockwise);
* Lemma B.16 -- two algebraic steps of the proof (the criticality combination (m1 + m_-1) d_r and
  E[(sigma(f) - eta) f] = v22 (2 d_r - d_b) on {v21 = 0});
* Lemma B.17 -- both branches E1, E2 realise f*, and the x-Hessian of g_zeta is
  r sigma''(s0 + s^T x) s s^T (so g_zeta is affine only if r = 0 or s = 0);
* Lemma B.19 -- the partial risk in (w, b, r) has integrand Hessian sigma'(g) phi phi^T,
  phi = (x, 1, sigma(s0 + s^T x)) (convex), while the full zeta-Hessian is not of that form;
* Lemma B.33 -- the linear logistic risk has integrand Hessian sigma'(w^T x) x x^T.

Everything here is exact (symbolic identities at the integrand level, i.e. conditional on X = x;
expectation is linear, so the identities pass to the risks).
"""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .lda import SRC, effective_map, g_expr, problem_symbols, sigma, softplus, theta_flat_symbols, theta_symbols
from .mixtures import gradient, hessian, vector_symbols

__all__ = ["logistic_loss", "lemma_b7_derivations", "lemma_b15_derivation", "lemma_b17_derivations",
           "lemma_b19_derivations", "lemma_b33_derivation", "lemma_b16_derivations"]


def _tag(name, variant):
    return name + (f" [control {variant}]" if variant else "")


def logistic_loss(y, t):
    """l_log(y, t) = log(1 + exp(-y t))."""
    return softplus(-y * t)


def _sigma_prime(t):
    s = sigma(t)
    return s * (1 - s)


def lemma_b7_derivations(variant=None) -> list:
    """(1) l'(y, t) = -y / (1 + e^{y t}) for y = +1 and y = -1 (the proof's first step);
    (2) eta l'(1, t) + (1 - eta) l'(-1, t) = sigma(t) - eta (the lemma)."""
    t = sp.Symbol("t", real=True)
    eta = sp.Symbol("eta", positive=True)
    rows = []
    for y in (1, -1):
        rows.append(Derivation(name=_tag(f"Lemma B.7 step: l'({y}, t)", None), source=f"{SRC}, Lemma B.7 (proof)",
                               derived=sp.diff(logistic_loss(y, t), t), stated=-y / (1 + sp.exp(y * t)),
                               assumptions=("l_log(y, t) = log(1 + exp(-y t))",)))
    cond = eta * sp.diff(logistic_loss(1, t), t) + (1 - eta) * sp.diff(logistic_loss(-1, t), t)
    stated = sigma(t) - eta
    if variant == "flipped-sign":
        stated = eta - sigma(t)
    elif variant == "unweighted":
        stated = sigma(t) - sp.Rational(1, 2)
    rows.append(Derivation(name=_tag("Lemma B.7: E[l'(Y, t) | X]", variant), source=f"{SRC}, Lemma B.7",
                           derived=cond, stated=stated,
                           assumptions=("Y in {-1, 1}", "eta = P(Y = 1 | X)", "t = f_theta(X)")))
    return rows


def _test_function(a, c, z):
    cz = (c.T * z)[0, 0]
    return (a.T * z)[0, 0] + cz ** 2 / 2


def lemma_b15_derivation(d: int = 2, variant=None) -> Derivation:
    """grad_theta [F(Phi(theta))] versus DPhi(theta)^* (grad F)(Phi(theta)) with the adjoint written
    blockwise: (gw (Gamma v21)^T + gs dm^T, 2 gs, Gamma U11^T gw + m_-1 gb + dm gr, -gb + 2 gr).
    F is a generic smooth function of all 2d + 2 effective coordinates,
    F(zeta) = a^T zeta + (c^T zeta)^2 / 2 with symbolic vectors a, c: its gradient a + c (c^T zeta) is
    an arbitrary vector at every point (a is free), which is all the first-order chain rule sees."""
    m1, m_1, G, pi_p = problem_symbols(d)
    theta = theta_symbols(d)
    U11, u12, v21, v22 = theta
    w, b, r, s, _ = effective_map(theta, m1, m_1, G, pi_p)
    n = 2 * d + 2
    a, c = vector_symbols("a", n), vector_symbols("c", n)
    zeta = sp.Matrix(list(w) + [b, r] + list(s))
    F = _test_function(a, c, zeta)
    derived = gradient(F, sp.Matrix(theta_flat_symbols(d)))
    # grad F at zeta, as a function of zeta's blocks
    Z = vector_symbols("zz", n)
    gF = gradient(_test_function(a, c, Z), Z).xreplace(dict(zip(Z, zeta)))
    gw, gb, gr, gs = gF[:d, 0], gF[d, 0], gF[d + 1, 0], gF[d + 2:, 0]
    dm = m1 - m_1
    gU = gw * (G.T * v21).T + gs * dm.T
    gu = 2 * gs if variant != "dropped-2" else gs
    gv = (G * U11.T * gw if variant != "untransposed" else U11 * G * gw) + m_1 * gb + dm * gr
    gv22 = -gb + 2 * gr
    stated = sp.Matrix(list(gU) + list(gu) + list(gv) + [gv22])
    return Derivation(name=_tag(f"Lemma B.15 chain rule, d={d}", variant), source=f"{SRC}, Lemma B.15",
                      derived=derived, stated=stated,
                      assumptions=("R = R~ o Phi", "R~ replaced by a generic smooth F (affine + quadratic)",
                                   "Gamma symmetric"),
                      notes="flattened order: U11 (row-major), u12, v21, v22")


def lemma_b17_derivations(d: int = 2, variant=None) -> list:
    """(1) g on E1 = (w*, b*, 0, s) equals f*; (2) g on E2 = (w*, b* - r sigma(s0), r, 0) equals f*;
    (3) Hess_x g_zeta(x) = r sigma''(s0 + s^T x) s s^T with sigma'' = sigma'(1 - 2 sigma)."""
    x = vector_symbols("x", d)
    ws, s = vector_symbols("ws", d), vector_symbols("s", d)
    bs, r, s0 = sp.symbols("bs r s0", real=True)
    fstar = (ws.T * x)[0, 0] + bs
    zero = sp.zeros(d, 1)
    off = -r * sigma(s0) if variant != "E2-offset-sign" else r * sigma(s0)
    rows = [Derivation(name=_tag("Lemma B.17: g on E1 = f*", None), source=f"{SRC}, Lemma B.17",
                       derived=g_expr(ws, bs, 0, s, s0, x), stated=fstar, assumptions=("zeta = (w*, b*, 0, s)",)),
            Derivation(name=_tag("Lemma B.17: g on E2 = f*", variant if variant == "E2-offset-sign" else None),
                       source=f"{SRC}, Lemma B.17", derived=g_expr(ws, bs + off, r, zero, s0, x), stated=fstar,
                       assumptions=("zeta = (w*, b* - r sigma(s0), r, 0)",))]
    w = vector_symbols("w", d)
    b = sp.Symbol("b", real=True)
    z = s0 + (s.T * x)[0, 0]
    curv = _sigma_prime(z) * (1 - 2 * sigma(z)) if variant != "no-curvature" else _sigma_prime(z)
    rows.append(Derivation(name=_tag("Lemma B.17 proof step: Hess_x g = r sigma'' s s^T",
                                     variant if variant == "no-curvature" else None),
                           source=f"{SRC}, Lemma B.17 (proof: 'one of the following two situations')",
                           derived=hessian(g_expr(w, b, r, s, s0, x), x), stated=r * curv * s * s.T,
                           assumptions=("sigma'' = sigma (1 - sigma)(1 - 2 sigma)",)))
    return rows


def lemma_b19_derivations(d: int = 2, variant=None) -> list:
    """Convexity of the partial risk R~_s in (w, b, r), at the integrand level.  By the chain rule
    Hess l(y, g) = l''(y, g) grad g grad g^T + l'(y, g) Hess g, so the three derived facts are:
    (1) l''(y, t) = sigma'(t) >= 0 for y = +1 and y = -1;
    (2) grad_(w,b,r) g = phi = (x, 1, sigma(s0 + s^T x));
    (3) Hess_(w,b,r) g = 0 (g is affine in (w, b, r)), hence Hess = sigma'(g) phi phi^T (PSD).
    The control 'joint-convexity' states (3) for the full zeta = (w, b, r, s), which is false
    (the s-block of Hess g is r sigma'' x x^T and the (r, s) block sigma' x)."""
    x = vector_symbols("x", d)
    w, s = vector_symbols("w", d), vector_symbols("s", d)
    b, r, s0, t = sp.symbols("b r s0 t", real=True)
    g = g_expr(w, b, r, s, s0, x)
    sg = sigma(s0 + (s.T * x)[0, 0])
    rows = [Derivation(name=f"Lemma B.19: l_log''({y}, t) = sigma'(t)", source=f"{SRC}, Lemma B.19 (proof)",
                       derived=sp.diff(logistic_loss(y, t), t, 2), stated=_sigma_prime(t),
                       assumptions=("l_log(y, t) = log(1 + exp(-y t))",)) for y in (1, -1)]
    var = sp.Matrix(list(w) + [b, r])
    rows.append(Derivation(name="Lemma B.19: grad_(w,b,r) g = (x, 1, sigma(s0 + s^T x))",
                           source=f"{SRC}, Lemma B.19 (proof)", derived=gradient(g, var),
                           stated=sp.Matrix(list(x) + [1, sg])))
    hvar = var if variant != "joint-convexity" else sp.Matrix(list(w) + [b, r] + list(s))
    where = "(w, b, r)" if variant != "joint-convexity" else "zeta"
    rows.append(Derivation(name=_tag("Lemma B.19: Hess g = 0 in " + where,
                                     variant),
                           source=f"{SRC}, Lemma B.19 (proof: R~_s convex in (w, b, r))",
                           derived=hessian(g, hvar), stated=sp.zeros(hvar.rows, hvar.rows),
                           assumptions=("s fixed",)))
    return rows


def lemma_b33_derivation(d: int = 2, variant=None) -> list:
    """Hess_w l_log(y, w^T x) = sigma'(w^T x) x x^T for y = +1, -1 (the proof's Hessian of L)."""
    x, w = vector_symbols("x", d), vector_symbols("w", d)
    t = (w.T * x)[0, 0]
    rows = []
    for y in (1, -1):
        fac = _sigma_prime(t) if variant != "no-sigma-prime" else sigma(t)
        rows.append(Derivation(name=_tag(f"Lemma B.33: Hess_w of l_log(y, w^T x), y={y}", variant),
                               source=f"{SRC}, Lemma B.33 (proof)", derived=hessian(logistic_loss(y, t), w),
                               stated=fac * x * x.T, assumptions=("L(w) = E[l_log(Y, w^T X)]",)))
    return rows


def lemma_b16_derivations(d: int = 2, variant=None) -> list:
    """Two algebraic steps of the proof of Lemma B.16 (integrand level, effective gradients written
    as in Lemma B.9: d_b -> e, d_r -> e sigma(z), e = sigma(f) - eta, z = s0 + s^T x):
    (1) on {v21 = 0}, with grad_w R~ = 0 and the v22-criticality 2 d_r = d_b, the v21-block
        m_-1 d_b + dm d_r of grad R (Lemma B.10) equals (m1 + m_-1) d_r;
    (2) on {v21 = 0}, (sigma(f) - eta) f = v22 (2 e sigma(z) - e), i.e.
        E[(sigma(f) - eta) f] = v22 (2 d_r R~ - d_b R~), with f = f_theta of eqs. (6)-(7) at v21 = 0."""
    from .lda import f_theta_expr

    m1, m_1, G, pi_p = problem_symbols(d)
    dr = sp.Symbol("d_r", real=True)
    db = 2 * dr  # the v22 block of grad R vanishes: -d_b + 2 d_r = 0
    dm = m1 - m_1
    stated1 = (m1 + m_1) * dr if variant != "wrong-combination" else dm * dr
    rows = [Derivation(name=_tag("Lemma B.16 step: v21-block at grad_w R~ = 0",
                                 variant if variant == "wrong-combination" else None),
                       source=f"{SRC}, Lemma B.16 (proof)", derived=m_1 * db + dm * dr, stated=stated1,
                       assumptions=("v21 = 0", "grad_w R~ = 0 (for contradiction)", "-d_b + 2 d_r = 0"))]
    U11, u12, v21, v22 = theta_symbols(d)
    theta0 = (U11, u12, sp.zeros(d, 1), v22)
    x = vector_symbols("x", d)
    eta = sp.Symbol("eta", positive=True)
    f = f_theta_expr(theta0, m1, m_1, G, pi_p, x)
    z = sp.log(pi_p / (1 - pi_p)) + ((2 * u12 + U11 * dm).T * x)[0, 0]
    e = sigma(f) - eta
    rows.append(Derivation(name="Lemma B.16 step: (sigma(f) - eta) f = v22 (2 e sigma(z) - e) on {v21 = 0}",
                           source=f"{SRC}, Lemma B.16 (proof)", derived=e * f, stated=v22 * (2 * e * sigma(z) - e),
                           assumptions=("v21 = 0",)))
    return rows
