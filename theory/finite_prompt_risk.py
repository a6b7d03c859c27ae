"""Finite-prompt risk of several heads sharing one prompt (pure SymPy, exact).

Beyond the paper (which stops at L = infinity).  Three derivations, each from definitions:

* ``risk_expansion_derivation``: the second-order delta method for H ratios of sample means
  T_h = Nbar_h / Dbar_h sharing the same tokens, with the fluctuations written eps * X and the
  moment rules E X = 0, E X X^T = c (one token's covariances); the eps^2 coefficient of
  E (r - sum_h w_h (T_h - t_h))^2 is the risk coefficient K.  Stated: K = sum w_h w_k C_hk
  - 2 r sum w_h b_h with C_hk = (c_NN - t_k c_ND - t_h c_DN + t_h t_k c_DD) / (d_h d_k) and
  b_h = (t_h c_DD - c_ND) / d_h^2.
* ``multihead_covariance_derivation``: the single-token moments of a 1-D K-component Gaussian
  mixture, E[e^{b x}] = M(b), E[e^{b x} x] = M'(b), E[e^{b x} x^2] = M''(b) (derivatives of the
  MGF), substituted into C_hk and b_h.  Stated: the tilted-mixture closed forms
  C_hk = rho_hk v_h v_k sum_j w_j(a_h + a_k) [G_j + (mu_j - g_h)(mu_j - g_k)],
  rho_hk = M(a_h + a_k) / (M(a_h) M(a_k)), b_h = rho_hh v_h (g(a_h) - g(2 a_h)).
* ``gaussian_average_derivation``: E[exp(s z^2)(alpha + beta z + q z^2)], z ~ N(mu, sigma^2), by
  integration, against the closed form of numerics.risk (finite iff s sigma^2 < 1/2).
"""
from __future__ import annotations

import sympy as sp

from .derivation import Derivation
from .variants import variants

__all__ = ["delta_method_risk", "risk_coefficient_stated", "risk_expansion_derivation",
           "multihead_covariance_derivation", "gaussian_average_derivation", "gaussian_average_stated"]

HALF = sp.Rational(1, 2)


def delta_method_risk(H: int = 2):
    """Symbols and the derived eps^2 coefficient of E (r - sum_h w_h (N_h/D_h - t_h))^2 where
    N_h = d_h t_h + eps X_{N_h}, D_h = d_h + eps X_{D_h}."""
    eps, r = sp.symbols("epsilon r", real=True)
    d = sp.symbols(f"d0:{H}", positive=True)
    t = sp.symbols(f"t0:{H}", real=True)
    w = sp.symbols(f"w0:{H}", real=True)
    names = [f"N{h}" for h in range(H)] + [f"D{h}" for h in range(H)]
    X = sp.symbols(" ".join(f"X_{n}" for n in names), real=True)
    c = {}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            key = tuple(sorted((a, b)))
            c[(i, j)] = sp.Symbol(f"c_{key[0]}_{key[1]}", real=True)
    XN, XD = X[:H], X[H:]
    err = r - sum(w[h] * ((d[h] * t[h] + eps * XN[h]) / (d[h] + eps * XD[h]) - t[h]) for h in range(H))
    loss = sp.series(sp.expand(err**2), eps, 0, 3).removeO()
    loss = sp.expand(loss)
    coeff2 = loss.coeff(eps, 2)
    coeff1 = loss.coeff(eps, 1)
    # expectation: E X_i X_j = c_ij; at order eps^2 every monomial is quadratic in X (each eps comes with one X and
    # the eps^2 terms of the expansion carry two), so no constant or linear monomial has to be handled
    poly = sp.Poly(coeff2, *X)
    expect = 0
    for mon, co in poly.terms():
        idx = [i for i, e in enumerate(mon) for _ in range(e)]
        if len(idx) == 2:
            expect += co * c[(idx[0], idx[1])]
    first = sp.Poly(coeff1, *X)
    first_mean = sum(co for mon, co in first.terms() if sum(mon) == 0)  # must vanish
    return {"eps": eps, "r": r, "d": d, "t": t, "w": w, "c": c, "names": names,
            "coefficient": sp.expand(expect), "first_order_mean": sp.expand(first_mean)}


def risk_coefficient_stated(H: int = 2):
    """The stated K from its own symbols, made by name (d_h, t_h, w_h, r and c_{x}_{y} for the covariance of the
    single-token fluctuations X_x, X_y, x <= y in name order): it shares no symbol table with the derivation, so a
    derivation that confused two covariances could not agree with it."""
    r = sp.Symbol("r", real=True)
    d = sp.symbols(f"d0:{H}", positive=True)
    t = sp.symbols(f"t0:{H}", real=True)
    w = sp.symbols(f"w0:{H}", real=True)

    def cv(x, y):
        a, b = sorted((x, y))
        return sp.Symbol(f"c_{a}_{b}", real=True)

    C = lambda h, k: (cv(f"N{h}", f"N{k}") - t[k] * cv(f"N{h}", f"D{k}") - t[h] * cv(f"D{h}", f"N{k}")
                      + t[h] * t[k] * cv(f"D{h}", f"D{k}")) / (d[h] * d[k])
    b = lambda h: (t[h] * cv(f"D{h}", f"D{h}") - cv(f"N{h}", f"D{h}")) / d[h] ** 2
    return sum(w[h] * w[k] * C(h, k) for h in range(H) for k in range(H)) - 2 * r * sum(w[h] * b(h) for h in range(H))


def risk_expansion_derivation(H: int = 2) -> Derivation:
    """L (R_L - R_inf) -> K from the delta method, H heads sharing the tokens (eps^2 <-> 1/L)."""
    sy = delta_method_risk(H)
    return Derivation(f"finite-prompt risk coefficient, {H} heads sharing one prompt (delta method)",
                      "docs/finite-prompt.md §3 (beyond the paper)", sy["coefficient"],
                      sp.expand(risk_coefficient_stated(H)),
                      ("sample means Nbar_h = d_h t_h + eps X_N, Dbar_h = d_h + eps X_D, eps^2 = 1/L",
                       "E X = 0, E X_i X_j = c_ij (one token's covariances); remainder O(eps^3)"),
                      notes=f"the eps^1 mean vanishes: {sy['first_order_mean']}")


def _mix1d(K: int):
    pi = sp.symbols(f"pi0:{K}", positive=True)
    m = sp.symbols(f"m0:{K}", real=True)
    G = sp.symbols(f"G0:{K}", positive=True)
    return pi, m, G


@variants("no-shift")
def multihead_covariance_derivation(K: int = 2, variant: str | None = None) -> Derivation:
    """Two heads, D = 1, K-component mixture, values v_h x, tilts a_h: C_01 and b_0 from the raw
    single-token moments (MGF derivatives) against the tilted-mixture closed forms.  ``variant``
    'no-shift' drops the mean-shift products from the stated side (a control)."""
    pi, m, G = _mix1d(K)
    b_, a0, a1, v0, v1 = sp.symbols("b a0 a1 v0 v1", real=True)
    Mexpr = sum(pi[j] * sp.exp(b_ * m[j] + G[j] * b_**2 / 2) for j in range(K))
    M = lambda x: Mexpr.subs(b_, x)
    M1 = lambda x: sp.diff(Mexpr, b_).subs(b_, x)  # E e^{bx} x
    M2 = lambda x: sp.diff(Mexpr, b_, 2).subs(b_, x)  # E e^{bx} x^2
    a = (a0, a1)
    v = (v0, v1)
    t = [v[h] * M1(a[h]) / M(a[h]) for h in range(2)]
    d = [M(a[h]) for h in range(2)]
    # one token's covariances of (e^{a_h x} v_h x, e^{a_h x})
    cNN = v0 * v1 * M2(a0 + a1) - d[0] * t[0] * d[1] * t[1]
    cND01 = v0 * M1(a0 + a1) - d[0] * t[0] * d[1]
    cDN01 = v1 * M1(a0 + a1) - d[0] * d[1] * t[1]
    cDD01 = M(a0 + a1) - d[0] * d[1]
    C01 = (cNN - t[1] * cND01 - t[0] * cDN01 + t[0] * t[1] * cDD01) / (d[0] * d[1])
    cDD00 = M(2 * a0) - d[0] ** 2
    cND00 = v0 * M1(2 * a0) - d[0] * t[0] * d[0]
    b0 = (t[0] * cDD00 - cND00) / d[0] ** 2
    derived = sp.Matrix([C01, b0])
    # stated: tilted mixture at a0 + a1
    sc = lambda x, j: sp.log(pi[j]) + x * m[j] + G[j] * x**2 / 2
    wts = lambda x: [sp.exp(sc(x, j)) / M(x) for j in range(K)]
    mu = lambda x, j: m[j] + G[j] * x
    g = lambda x: sum(wts(x)[j] * mu(x, j) for j in range(K))
    rho01 = M(a0 + a1) / (M(a0) * M(a1))
    shift = 0 if variant == "no-shift" else 1
    C01s = rho01 * v0 * v1 * sum(wts(a0 + a1)[j] * (G[j] + shift * (mu(a0 + a1, j) - g(a0)) * (mu(a0 + a1, j) - g(a1)))
                                 for j in range(K))
    b0s = M(2 * a0) / M(a0) ** 2 * v0 * (g(a0) - g(2 * a0))
    stated = sp.Matrix([C01s, b0s])
    return Derivation(f"cross-head covariance and bias, {K}-component mixture (D = 1)",
                      "docs/finite-prompt.md §3 (beyond the paper)", derived, stated,
                      ("tokens i.i.d. sum_j pi_j N(m_j, G_j)", "two heads with tilts a_0, a_1 and values v_h x"))


def gaussian_average_stated(s, alpha, beta, q, mu, sig2):
    """The closed form of numerics.risk.gaussian_exp_quadratic_mean in D = 1."""
    Mm = 1 - 2 * sig2 * s
    Sp = sig2 / Mm
    mup = mu + 2 * Sp * s * mu
    return Mm ** (-HALF) * sp.exp(s * mu**2 + 2 * mu**2 * s**2 * Sp) * (alpha + beta * mup + q * mup**2 + q * Sp)


def gaussian_average_derivation() -> Derivation:
    """E[exp(s z^2)(alpha + beta z + q z^2)], z = mu + sigma x, x ~ N(0, 1), by integration (s sigma^2 < 1/2,
    written s = (1 - c) / (2 sigma^2) with c = 1 - 2 s sigma^2 > 0)."""
    x = sp.Symbol("x", real=True)
    sig, c = sp.symbols("sigma c", positive=True)
    alpha, beta, q, mu = sp.symbols("alpha beta q mu", real=True)
    s = (1 - c) / (2 * sig**2)
    sig2 = sig**2
    z = mu + sig * x
    f = sp.exp(s * z**2) * (alpha + beta * z + q * z**2)
    dens = sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)
    integrand = sp.expand(f * dens)
    integrand = integrand.replace(sp.exp, lambda arg: sp.exp(sp.collect(sp.expand(arg), x)))
    derived = sp.integrate(integrand, (x, -sp.oo, sp.oo), conds="none")
    derived = sp.simplify(derived.replace(sp.polar_lift, lambda u: u))
    stated = sp.simplify(gaussian_average_stated(s, alpha, beta, q, mu, sig2))
    return Derivation("Gaussian query average of exp(quadratic) x quadratic (D = 1, non-zero mean)",
                      "docs/finite-prompt.md §4 (beyond the paper)", derived, stated,
                      ("c = 1 - 2 s sigma^2 > 0 (below the threshold)",))
