"""Section 3 / Appendix B: attention-based LDA, exact SymPy.

The LDA token law ((X, Y) with X | Y = c ~ N(m_c, Gamma), P(Y = 1) = pi_+) is a two-component
Gaussian mixture in R^{d+1} with *degenerate* covariances blockdiag(Gamma, 0) and means (m_c, c).
The attention output is derived as V grad Lambda(U z) (theory.attention) and everything
downstream (the effective predictor f_theta, gradients, Hessians, DPhi) is obtained by SymPy
differentiation and compared with the paper's stated formulas through Derivation objects.

Block convention (eq. (12)): U^T = [[U11, u12], [u21^T, u22]], V = [[V11, v12], [v21^T, v22]].
"""
from __future__ import annotations

import sympy as sp

from .attention import softmax_attention_derived
from .derivation import Derivation as _BaseDerivation
from .mixtures import SymbolicMixture, gradient, hessian, matrix_symbols, vector_symbols

__all__ = [
    "sigma", "softplus", "lda_token_mixture", "assemble_UV", "theta_symbols", "effective_map",
    "f_theta_expr", "g_expr", "lemma_b1_derivation", "eq67_derivation", "prop_b2_derivation",
    "lemma_b3_theta", "lemma_b3_derivation", "lemma_b7_derivation", "lemma_b8_derivations",
    "lemma_b9_derivation", "lemma_b10_derivations", "lemma_b11_derivation", "prop_b12_derivation",
    "lemma_b14_derivation", "dphi_matrix", "theta_flat_symbols", "bayes_coefficients",
]

SRC = "Gabet-Boursier-Boyer 2026"


# The base class samples the symbols of both sides and tries 8 points; no subclass needed.
Derivation = _BaseDerivation


def sigma(t):
    """Logistic sigmoid written explicitly: 1 / (1 + exp(-t))."""
    return 1 / (1 + sp.exp(-t))


def softplus(t):
    return sp.log(1 + sp.exp(t))


# --- the token law and the attention parameters ----------------------------------------------
def lda_token_mixture(m1, m_1, Gamma, pi_p) -> SymbolicMixture:
    """Law of (X, Y): pi_+ N((m1, 1), bd(Gamma, 0)) + (1 - pi_+) N((m_{-1}, -1), bd(Gamma, 0))."""
    d = Gamma.shape[0]
    G = sp.zeros(d + 1, d + 1)
    G[:d, :d] = Gamma
    return SymbolicMixture([pi_p, 1 - pi_p],
                           [sp.Matrix(list(m1) + [1]), sp.Matrix(list(m_1) + [-1])], [G, G])


def assemble_UV(U11, u12, u21, u22, V11, v12, v21, v22):
    """U from its transpose's blocks (eq. (12)) and V from its blocks."""
    d = U11.shape[0]
    UT = sp.zeros(d + 1, d + 1)
    UT[:d, :d] = U11
    UT[:d, d] = u12
    UT[d, :d] = u21.T
    UT[d, d] = u22
    V = sp.zeros(d + 1, d + 1)
    V[:d, :d] = V11
    V[:d, d] = v12
    V[d, :d] = v21.T
    V[d, d] = v22
    return UT.T, V


def theta_symbols(d: int):
    """Generic theta = (U11, u12, v21, v22)."""
    return (matrix_symbols("U11", d), vector_symbols("u12", d), vector_symbols("v21", d),
            sp.Symbol("v22", real=True))


def theta_flat_symbols(d: int):
    U11, u12, v21, v22 = theta_symbols(d)
    return list(U11) + list(u12) + list(v21) + [v22]


def problem_symbols(d: int, precision: bool = False):
    """m1, m_{-1}, Gamma (or its inverse P when ``precision``), pi_+ as symbols."""
    m1 = vector_symbols("mp", d)
    m_1 = vector_symbols("mm", d)
    G = matrix_symbols("P" if precision else "G", d, symmetric=True)
    pi_p = sp.Symbol("pi_p", positive=True)
    return m1, m_1, G, pi_p


def effective_map(theta, m1, m_1, Gamma, pi_p):
    """Phi(theta) = (w, b, r, s) of eq. (7), plus s0 (stated formulas)."""
    U11, u12, v21, v22 = theta
    dm = m1 - m_1
    w = U11 * Gamma * v21
    b = (v21.T * m_1)[0, 0] - v22
    r = (v21.T * dm)[0, 0] + 2 * v22
    s = 2 * u12 + U11 * dm
    s0 = sp.log(pi_p / (1 - pi_p))
    return w, b, r, s, s0


def g_expr(w, b, r, s, s0, x):
    """g_{w,b,r,s}(x) = w^T x + b + r sigma(s0 + s^T x)."""
    return (w.T * x)[0, 0] + b + r * sigma(s0 + (s.T * x)[0, 0])


def f_theta_expr(theta, m1, m_1, Gamma, pi_p, x, variant=None):
    """f_theta(x) from eqs. (6)-(7) (stated).  ``variant='transposed-w'`` uses U11^T Gamma v21."""
    w, b, r, s, s0 = effective_map(theta, m1, m_1, Gamma, pi_p)
    if variant == "transposed-w":
        w = theta[0].T * Gamma * theta[2]
    if variant == "transposed-s":
        s = 2 * theta[1] + theta[0].T * (m1 - m_1)
    return g_expr(w, b, r, s, s0, x)


def attention_output_derived(theta_full, m1, m_1, Gamma, pi_p, x, y):
    U11, u12, u21, u22, V11, v12, v21, v22 = theta_full
    U, V = assemble_UV(U11, u12, u21, u22, V11, v12, v21, v22)
    mix = lda_token_mixture(m1, m_1, Gamma, pi_p)
    z = sp.Matrix(list(x) + [y])
    return softmax_attention_derived(mix, U, V, z)


def _full_theta(d):
    U11, u12, v21, v22 = theta_symbols(d)
    return (U11, u12, vector_symbols("u21", d), sp.Symbol("u22", real=True),
            matrix_symbols("V11", d), vector_symbols("v12", d), v21, v22)


def lemma_b1_stated(theta_full, m1, m_1, Gamma, pi_p, x, y, variant=None):
    U11, u12, u21, u22, V11, v12, v21, v22 = theta_full
    dm = m1 - m_1
    sxy = U11.T * x + y * u21
    if variant == "untransposed-U11":
        sxy = U11 * x + y * u21
    two = 1 if variant == "dropped-2" else 2
    al = sigma(sp.log(pi_p / (1 - pi_p)) + two * ((u12.T * x)[0, 0] + y * u22) + (sxy.T * dm)[0, 0])
    top = Gamma * sxy + (1 - al) * m_1 + al * m1
    _, V = assemble_UV(U11, u12, u21, u22, V11, v12, v21, v22)
    return V * sp.Matrix(list(top) + [2 * al - 1])


def lemma_b1_derivation(d: int = 1, variant=None) -> Derivation:
    m1, m_1, G, pi_p = problem_symbols(d)
    th = _full_theta(d)
    x = vector_symbols("x", d)
    y = sp.Symbol("y", real=True)
    return Derivation(
        name=f"Lemma B.1, d={d}" + (f" [control {variant}]" if variant else ""),
        source=f"{SRC}, Lemma B.1",
        derived=attention_output_derived(th, m1, m_1, G, pi_p, x, y),
        stated=lemma_b1_stated(th, m1, m_1, G, pi_p, x, y, variant),
        assumptions=("token law pi_+ N((m1,1), bd(G,0)) + (1-pi_+) N((m_-1,-1), bd(G,0))",
                     "U^T = [[U11,u12],[u21^T,u22]] (eq. (12))"),
        notes="derived = V grad Lambda(U z) with Lambda the CGF of the degenerate token mixture",
    )


def eq67_derivation(d: int = 2, variant=None) -> Derivation:
    m1, m_1, G, pi_p = problem_symbols(d)
    th = _full_theta(d)
    x = vector_symbols("x", d)
    derived = attention_output_derived(th, m1, m_1, G, pi_p, x, 0)[d]
    theta = (th[0], th[1], th[6], th[7])
    return Derivation(
        name=f"eqs. (6)-(7), d={d}" + (f" [control {variant}]" if variant else ""),
        source=f"{SRC}, eqs. (6)-(7)",
        derived=derived, stated=f_theta_expr(theta, m1, m_1, G, pi_p, x, variant),
        assumptions=("query (x, 0)", "last output coordinate"))


# --- Bayes score -------------------------------------------------------------------------------
def bayes_coefficients(m1, m_1, Gamma_inv, pi_p, half=sp.Rational(1, 2)):
    """(w*, b*) of eq. (5) / Prop. B.2 (stated), in terms of Gamma^{-1}."""
    w = Gamma_inv * (m1 - m_1)
    b = -half * ((m1.T * Gamma_inv * m1)[0, 0] - (m_1.T * Gamma_inv * m_1)[0, 0]) + sp.log(pi_p / (1 - pi_p))
    return w, b


def prop_b2_derivation(d: int = 2, variant=None) -> Derivation:
    """eta(x) from Bayes' rule with the two class densities (parametrised by the precision matrix
    P = Gamma^{-1}; the normalising constants are shared and cancel) against sigma(f*(x))."""
    m1, m_1, P, pi_p = problem_symbols(d, precision=True)
    x = vector_symbols("x", d)
    q = lambda m: ((x - m).T * P * (x - m))[0, 0]
    num = pi_p * sp.exp(-q(m1) / 2)
    eta = num / (num + (1 - pi_p) * sp.exp(-q(m_1) / 2))
    w, b = bayes_coefficients(m1, m_1, P, pi_p, half=1 if variant == "dropped-half" else sp.Rational(1, 2))
    if variant == "flipped-sign":
        w = -w
    return Derivation(
        name=f"Prop. B.2 (eta = sigma(f*)), d={d}" + (f" [control {variant}]" if variant else ""),
        source=f"{SRC}, eq. (5) / Prop. B.2", derived=eta, stated=sigma((w.T * x)[0, 0] + b),
        assumptions=("shared covariance", "P = Gamma^{-1} symmetric positive definite"),
        steps=[("log-odds derived", sp.expand(sp.log(pi_p / (1 - pi_p)) - q(m1) / 2 + q(m_1) / 2))])


# --- Lemma B.3: explicit Bayes-realising constructions -----------------------------------------
def lemma_b3_theta(m1, m_1, Gamma, pi_p, variant=None):
    """The construction of the proof of Lemma B.3 for exact (rational) data.
    Returns (case label, theta, notes).  Gamma, m's: sympy matrices; pi_p a Rational."""
    d = Gamma.shape[0]
    Gi = Gamma.inv()
    w, b = bayes_coefficients(m1, m_1, Gi, pi_p)
    dm = m1 - m_1
    mbar = (1 - pi_p) * m_1 + pi_p * m1
    if pi_p != sp.Rational(1, 2):
        U11 = sp.eye(d)
        u12 = -dm / 2
        v21 = Gi * w
        v22 = (b - (v21.T * mbar)[0, 0]) / (1 if variant == "no-division" else (2 * pi_p - 1))
        return "case 1 (pi_+ != 1/2)", (U11, u12, v21, v22)
    mb = (m1 + m_1) / 2
    if any(v != 0 for v in mb):
        if b != 0:
            v21 = b / (mb.T * mb)[0, 0] * mb
            label = "case 2(a), b* != 0"
        else:
            # a non-zero vector orthogonal to mbar: d >= 2 here (in d = 1, pi_+ = 1/2 and b* = 0 force
            # m1 = -m_-1, case 2(b)); v21[j] = mb[i] != 0, so v21 != 0
            i = next(k for k in range(d) if mb[k] != 0)
            j = (i + 1) % d
            v21 = sp.zeros(d, 1)
            v21[i], v21[j] = -mb[j], mb[i]
            label = "case 2(a), b* = 0"
        a = Gamma * v21
        U11 = w * a.T / (a.T * a)[0, 0]
        if variant == "no-division":
            U11 = w * a.T
        return label, (U11, -U11 * dm / 2, v21, sp.Integer(0))
    U11 = sp.eye(d) * (2 if variant == "no-division" else 1)
    return "case 2(b) (symmetric balanced)", (U11, -U11 * dm / 2, Gi * w, sp.Integer(0))


def lemma_b3_derivation(m1, m_1, Gamma, pi_p, variant=None):
    d = Gamma.shape[0]
    x = vector_symbols("x", d)
    label, theta = lemma_b3_theta(m1, m_1, Gamma, pi_p, variant)
    w, b = bayes_coefficients(m1, m_1, Gamma.inv(), pi_p)
    return Derivation(
        name=f"Lemma B.3 {label}" + (f" [control {variant}]" if variant else ""),
        source=f"{SRC}, Lemma B.3 (proof)",
        derived=f_theta_expr(theta, m1, m_1, Gamma, pi_p, x), stated=(w.T * x)[0, 0] + b,
        assumptions=(label,), notes="theta = " + sp.sstr(theta)), label, theta


# --- derivative lemmas -------------------------------------------------------------------------
def _loss_cond(eta, t):
    """E[l(Y, t) | X] = eta log(1 + e^{-t}) + (1 - eta) log(1 + e^{t})."""
    return eta * softplus(-t) + (1 - eta) * softplus(t)


def lemma_b7_derivation(variant=None) -> Derivation:
    eta, t = sp.Symbol("eta", positive=True), sp.Symbol("t", real=True)
    stated = sigma(t) - eta if variant != "flipped-sign" else eta - sigma(t)
    return Derivation(name="Lemma B.7 / g_X'(t)" + (f" [control {variant}]" if variant else ""),
                      source=f"{SRC}, Lemmas B.4 and B.7",
                      derived=sp.diff(_loss_cond(eta, t), t), stated=stated,
                      assumptions=("Y in {-1, 1}", "eta = P(Y=1|X)"))


def _eff_symbols(d):
    w = vector_symbols("w", d)
    s = vector_symbols("s", d)
    b, r, s0 = sp.symbols("b r s0", real=True)
    return w, b, r, s, s0


def lemma_b9_derivation(d: int = 2, variant=None) -> Derivation:
    w, b, r, s, s0 = _eff_symbols(d)
    x = vector_symbols("x", d)
    eta = sp.Symbol("eta", positive=True)
    g = g_expr(w, b, r, s, s0, x)
    zeta = list(w) + [b, r] + list(s)
    derived = gradient(_loss_cond(eta, g), sp.Matrix(zeta))
    z = s0 + (s.T * x)[0, 0]
    e = sigma(g) - eta
    sfac = sigma(z) * (1 - sigma(z)) if variant != "dropped-factor" else sigma(z)
    stated = sp.Matrix([e * xi for xi in x] + [e, e * sigma(z)] + [r * e * sfac * xi for xi in x])
    return Derivation(name=f"Lemma B.9 integrand, d={d}" + (f" [control {variant}]" if variant else ""),
                      source=f"{SRC}, Lemma B.9", derived=derived, stated=stated,
                      assumptions=("conditional on X = x", "sigma' = sigma (1 - sigma)"))


def lemma_b8_derivations(d: int = 2, variant=None):
    m1, m_1, G, pi_p = problem_symbols(d)
    theta = theta_symbols(d)
    U11, u12, v21, v22 = theta
    x = vector_symbols("x", d)
    dU, du, dv, dv22 = matrix_symbols("dU", d), vector_symbols("du", d), vector_symbols("dv", d), sp.Symbol("dv22",
                                                                                                            real=True)
    eps = sp.Symbol("eps", real=True)
    th_e = (U11 + eps * dU, u12 + eps * du, v21 + eps * dv, v22 + eps * dv22)
    f_e = f_theta_expr(th_e, m1, m_1, G, pi_p, x)
    D1 = sp.diff(f_e, eps).subs(eps, 0)
    D2 = sp.diff(f_e, eps, 2).subs(eps, 0)
    dm = m1 - m_1
    z = sp.log(pi_p / (1 - pi_p)) + ((2 * u12 + U11 * dm).T * x)[0, 0]
    sg = sigma(z)
    sp1 = sg * (1 - sg)
    sp2 = sp1 * (1 - 2 * sg)
    ds = ((2 * du + dU * dm).T * x)[0, 0]
    r = (v21.T * dm)[0, 0] + 2 * v22
    dr = (dv.T * dm)[0, 0] + 2 * dv22
    st1 = ((dv.T * G * U11.T * x)[0, 0] + (v21.T * G * dU.T * x)[0, 0] + (dv.T * m_1)[0, 0] - dv22
           + dr * sg + r * sp1 * ds)
    two = 1 if variant == "dropped-2" else 2
    st2_paper = 2 * (dv.T * G * dU.T * x)[0, 0] + dr * sp1 * ds + r * sp2 * ds ** 2
    st2_fixed = two * (dv.T * G * dU.T * x)[0, 0] + 2 * dr * sp1 * ds + r * sp2 * ds ** 2
    if variant == "as-printed":
        st2_fixed = st2_paper
    tag = f" [control {variant}]" if variant else ""
    return [Derivation(name=f"Lemma B.8 Df_theta[h], d={d}", source=f"{SRC}, Lemma B.8",
                       derived=D1, stated=st1, assumptions=("h = (dv21, dv22, dU11, du12)",)),
            Derivation(name=f"Lemma B.8 D^2 f_theta[h,h] as printed, d={d}", source=f"{SRC}, Lemma B.8",
                       derived=D2, stated=st2_paper, assumptions=("sigma'' = sigma'(1 - 2 sigma)",),
                       notes="printed display: cross term (dr)(sigma' ds) appears once"),
            Derivation(name=f"Lemma B.8 D^2 f_theta[h,h] with cross term doubled, d={d}" + tag,
                       source=f"{SRC}, Lemma B.8 (corrected)", derived=D2, stated=st2_fixed,
                       assumptions=("sigma'' = sigma'(1 - 2 sigma)",)),
            Derivation(name=f"Lemma B.8 printed D^2 misses exactly one cross term, d={d}",
                       source=f"{SRC}, Lemma B.8 (the typo, characterised)", derived=D2 - st2_paper,
                       stated=dr * sp1 * ds, assumptions=("sigma'' = sigma'(1 - 2 sigma)",),
                       notes="the typo is a coefficient: derived minus printed is the cross term dr sigma' ds once "
                             "more")]


def lemma_b10_derivations(d: int = 2, variant=None):
    """grad_theta of the conditional risk integrand vs the explicit formulas and the chain-rule form."""
    m1, m_1, G, pi_p = problem_symbols(d)
    theta = theta_symbols(d)
    U11, u12, v21, v22 = theta
    x = vector_symbols("x", d)
    eta = sp.Symbol("eta", positive=True)
    f = f_theta_expr(theta, m1, m_1, G, pi_p, x)
    L = _loss_cond(eta, f)
    flat = list(U11) + list(u12) + list(v21) + [v22]
    derived = gradient(L, sp.Matrix(flat))
    dm = m1 - m_1
    s0 = sp.log(pi_p / (1 - pi_p))
    z = s0 + ((2 * u12 + U11 * dm).T * x)[0, 0]
    sg = sigma(z)
    sp1 = sg * (1 - sg)
    e = sigma(f) - eta
    r = (v21.T * dm)[0, 0] + 2 * v22
    Gv = (G.T * v21) if variant != "untransposed" else (G * U11.T * v21)
    gU = e * (x * Gv.T + r * sp1 * x * dm.T)
    gu = 2 * r * e * sp1 * x
    gv = e * (G * U11.T * x + m_1 + dm * sg)
    gv22 = e * (-1 + 2 * sg)
    if variant == "flipped-sign":
        gv22 = -gv22
    explicit = sp.Matrix(list(gU) + list(gu) + list(gv) + [gv22])
    # chain-rule form with the effective integrands (Lemma B.9)
    nw, nb, nr, ns = e * x, e, e * sg, r * e * sp1 * x
    cU = nw * Gv.T + ns * dm.T
    chain = sp.Matrix(list(cU) + list(2 * ns) + list(G * U11.T * nw + nb * m_1 + nr * dm) + [-nb + 2 * nr])
    if variant == "flipped-sign":
        chain[-1] = -chain[-1]
    return [Derivation(name=f"Lemma B.10 explicit gradients, d={d}" + (f" [control {variant}]" if variant else ""),
                       source=f"{SRC}, Lemma B.10", derived=derived, stated=explicit,
                       assumptions=("conditional on X = x (integrand level)", "Gamma symmetric"),
                       notes="flattened order: U11 (row-major), u12, v21, v22"),
            Derivation(name=f"Lemma B.10 chain-rule form, d={d}" + (f" [control {variant}]" if variant else ""),
                       source=f"{SRC}, Lemma B.10 / B.15", derived=derived, stated=chain,
                       assumptions=("conditional on X = x (integrand level)",))]


def lemma_b11_derivation(d: int = 1, variant=None) -> Derivation:
    """Second variation of the conditional risk along a curve eps -> theta + eps h.  Along the
    curve f(eps) = f0 + f1 eps + f2 eps^2 / 2 + O(eps^3) (f1 = Df[h], f2 = D^2 f[h,h], generic
    symbols: the identity is pure chain rule and does not depend on the form of f_theta)."""
    eta = sp.Symbol("eta", positive=True)
    f0, f1, f2, eps = sp.symbols("f0 f1 f2 eps", real=True)
    f_e = f0 + f1 * eps + f2 * eps ** 2 / 2
    derived = sp.diff(_loss_cond(eta, f_e), eps, 2).subs(eps, 0)
    sg = sigma(f0)
    curv = sg * (1 - sg) if variant != "dropped-curvature" else sg
    stated = curv * f1 ** 2 + (sg - eta) * f2
    return Derivation(name="Lemma B.11 integrand" + (f" [control {variant}]" if variant else ""),
                      source=f"{SRC}, Lemma B.11", derived=derived, stated=stated,
                      assumptions=("conditional on X = x", "f1 = Df_theta[h], f2 = D^2 f_theta[h,h] (Lemma B.8)"))


def prop_b12_derivation(d: int = 2, variant=None) -> Derivation:
    w, b, r, s, s0 = _eff_symbols(d)
    x = vector_symbols("x", d)
    ws, bs = vector_symbols("wst", d), sp.Symbol("bst", real=True)
    eta = sigma((ws.T * x)[0, 0] + bs)
    zeta = list(w) + [b, r] + list(s)
    H = hessian(_loss_cond(eta, g_expr(w, b, r, s, s0, x)), sp.Matrix(zeta))
    at = dict(zip(list(w), list(ws)))
    at.update({b: bs, r: 0})
    derived = H.subs(at)
    sz = sigma(s0 + (s.T * x)[0, 0])
    grad = sp.Matrix(list(x) + [1, sz] + [0] * d)
    if variant == "dropped-zero-block":
        grad = sp.Matrix(list(x) + [1, sz] + list(x))
    stated = eta * (1 - eta) * grad * grad.T
    return Derivation(name=f"Prop. B.12 Hessian integrand on E1, d={d}" + (f" [control {variant}]" if variant else ""),
                      source=f"{SRC}, Prop. B.12", derived=derived, stated=stated,
                      assumptions=("zeta* = (w*, b*, 0, s*)", "eta = sigma(f*)"))


def lemma_b14_derivation(d: int = 2, variant=None) -> Derivation:
    m1, m_1, G, pi_p = problem_symbols(d)
    theta = theta_symbols(d)
    U11, u12, v21, v22 = theta
    w, b, r, s, _ = effective_map(theta, m1, m_1, G, pi_p)
    Phi = sp.Matrix(list(w) + [b, r] + list(s))
    flat = theta_flat_symbols(d)
    J = Phi.jacobian(sp.Matrix(flat))
    dU, du, dv, dv22 = matrix_symbols("dU", d), vector_symbols("du", d), vector_symbols("dv", d), sp.Symbol("dv22",
                                                                                                            real=True)
    h = sp.Matrix(list(dU) + list(du) + list(dv) + [dv22])
    dm = m1 - m_1
    dw = dU * G * v21 + U11 * G * dv
    if variant == "dropped-term":
        dw = dU * G * v21
    stated = sp.Matrix(list(dw) + [(dv.T * m_1)[0, 0] - dv22, (dv.T * dm)[0, 0] + 2 * dv22] + list(2 * du + dU * dm))
    return Derivation(name=f"Lemma B.14 DPhi, d={d}" + (f" [control {variant}]" if variant else ""),
                      source=f"{SRC}, Lemma B.14", derived=J * h, stated=stated,
                      assumptions=("Phi of eq. (7)",))


def dphi_matrix(m1, m_1, Gamma, theta):
    """Exact Jacobian of Phi at a concrete theta (sympy Rationals); columns: U11 row-major, u12, v21, v22."""
    d = Gamma.shape[0]
    sym = theta_symbols(d)
    w, b, r, s, _ = effective_map(sym, m1, m_1, Gamma, sp.Rational(1, 2))
    Phi = sp.Matrix(list(w) + [b, r] + list(s))
    flat = theta_flat_symbols(d)
    J = Phi.jacobian(sp.Matrix(flat))
    U11, u12, v21, v22 = theta
    vals = dict(zip(flat, list(U11) + list(u12) + list(v21) + [v22]))
    return J.xreplace(vals)
