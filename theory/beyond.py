"""Beyond the paper: predecessor and neighbouring results (pure SymPy, exact).

* Gaussian integrals of exp(quadratic) times polynomials, derived by integration (1-D, 2-D) and by
  differentiation under the integral sign; the query-averaged first-order MSE constant of a
  finite prompt with Gaussian tokens and Gaussian queries (``fp-query-averaged-rate``);
* the exact L = 1 error of the predecessor's output-concentration bound (``bb-prop-3.1``);
* in-context linear regression with preserved blocks (A, b): the infinite-prompt risk derived
  from the Gaussian attention map, its gradient flow, the conserved quantity and the balanced
  limit (``bb-thm-5.1``);
* denoising with an atomic clean prompt: Bayes posterior mean against one softmax head
  (``smart-2025-mixture``);
* linear attention on in-context regression: Gaussian fourth moments, the population loss, its
  minimiser Gamma_N^{-1} and minimal loss (``zfb-linear-flow``).

Every ``*_derivation`` returns a :class:`theory.derivation.Derivation` whose ``derived`` side is
obtained from definitions (integrals, MGF derivatives, Bayes' rule, gradients) and whose
``stated`` side transcribes the claim.  Nothing numeric happens here.
"""
from __future__ import annotations

import sympy as sp

from .attention import normalized_attention_atomic, softmax_attention_derived
from .derivation import Derivation
from .mixtures import SymbolicMixture, cgf, gradient, hessian, matrix_symbols, vector_symbols
from .variants import variants

__all__ = [
    "std_normal_expectation_1d", "gauss_exp_quadratic_1d_derivation",
    "gauss_exp_quadratic_2d_derivation", "gauss_exp_quadratic_poly_derivation",
    "per_query_constant_gaussian_derivation", "query_averaged_constant_1d_derivation",
    "query_averaged_constant_stated", "l1_error_derivation", "l1_bound_value",
    "regression_prediction", "regression_risk_derived", "regression_risk_stated", "regression_risk_derivation",
    "regression_flow", "conservation_derivation", "balanced_limit", "balanced_limit_derivation",
    "posterior_mean_derived", "posterior_mean_values", "atomic_attention_stated", "denoising_derivation",
    "zfb_second_moment_derived", "zfb_second_moment_stated", "zfb_loss", "zfb_gamma", "zfb_moment_derivation",
    "zfb_minimiser_derivation", "zfb_min_loss_derivation", "gaussian_fourth_moment",
]

HALF = sp.Rational(1, 2)


# ================================================================================================
# Gaussian integrals of exp(quadratic) x polynomial
# ================================================================================================
def std_normal_expectation_1d(f, x):
    """E f(X), X ~ N(0, 1), by SymPy integration (conds='none': caller guarantees convergence)."""
    integrand = sp.powsimp(sp.expand(f * sp.exp(-x**2 / 2)))
    integrand = integrand.replace(sp.exp, lambda arg: sp.exp(sp.factor(sp.expand(arg))))
    return sp.integrate(integrand, (x, -sp.oo, sp.oo), conds="none") / sp.sqrt(2 * sp.pi)


def gauss_exp_quadratic_1d_derivation() -> Derivation:
    """E exp(t X^2) = (1 - 2t)^(-1/2) for t < 1/2, written t = 1/2 - s with s > 0."""
    x = sp.Symbol("x", real=True)
    s = sp.Symbol("s", positive=True)
    t = HALF - s
    derived = std_normal_expectation_1d(sp.exp(t * x**2), x)
    return Derivation("E exp(t X^2), X ~ N(0,1), t = 1/2 - s < 1/2", "docs/finite-prompt.md §4 (beyond the paper)",
                      sp.simplify(derived), (1 - 2 * t) ** -HALF, ("s = 1/2 - t > 0",))


def gauss_exp_quadratic_2d_derivation() -> Derivation:
    """E exp(xi^T B xi) = det(I - 2B)^(-1/2), xi ~ N(0, I_2), B generic symmetric with I - 2B > 0.

    Integrate y first (completing the square), then x.  Parametrised by p = 1/2 - b22 > 0 and
    q = 1/2 - b11 - b12^2 / p > 0 (the Schur complement), which is exactly I - 2B > 0."""
    x, y = sp.symbols("x y", real=True)
    p, q = sp.symbols("p q", positive=True)
    b12 = sp.Symbol("b12", real=True)
    b22 = HALF - p
    b11 = HALF - q - b12**2 / p
    B = sp.Matrix([[b11, b12], [b12, b22]])
    quad = (sp.Matrix([x, y]).T * B * sp.Matrix([x, y]))[0, 0]
    inner = sp.integrate(sp.exp(sp.expand(quad - (x**2 + y**2) / 2)), (y, -sp.oo, sp.oo), conds="none")
    outer = sp.integrate(sp.simplify(inner), (x, -sp.oo, sp.oo), conds="none")
    derived = sp.simplify(outer / (2 * sp.pi))
    stated = sp.sqrt(sp.factor((sp.eye(2) - 2 * B).det())) ** -1
    return Derivation("E exp(xi^T B xi) = det(I - 2B)^(-1/2), 2-D, B generic",
                      "docs/finite-prompt.md §4 (beyond the paper)",
                      derived, sp.simplify(stated), ("I - 2B positive definite",))


def gauss_exp_quadratic_poly_derivation(D: int = 2) -> Derivation:
    """E[xi^T Q xi exp(xi^T B xi)] = det(I - 2B)^(-1/2) tr((I - 2B)^(-1) Q), by differentiating
    E exp(xi^T (B + eps Q) xi) = det(I - 2B - 2 eps Q)^(-1/2) at eps = 0 (differentiation under the
    integral sign, valid inside the convergence region)."""
    B = matrix_symbols("B", D, symmetric=True)
    Q = matrix_symbols("Q", D, symmetric=True)
    eps = sp.Symbol("eps", real=True)
    Dt = sp.Symbol("Delta", positive=True)  # placeholder for det(I - 2B) > 0
    det_eps = (sp.eye(D) - 2 * B - 2 * eps * Q).det()
    derived = sp.diff(det_eps ** -HALF, eps).subs(eps, 0)
    M = sp.eye(D) - 2 * B
    # compare as rational functions after writing det(I - 2B) = Delta (Delta > 0)
    detM = sp.expand(M.det())
    derived = sp.simplify(derived.subs(sp.expand(det_eps.subs(eps, 0)), Dt))
    d_ = sp.together(derived * Dt ** (3 * HALF))
    s_ = sp.together(sp.expand((M.inv() * Q).trace() * detM))
    return Derivation(f"E[xi^T Q xi exp(xi^T B xi)] = det(I-2B)^(-1/2) tr((I-2B)^(-1) Q), D={D}",
                      "docs/finite-prompt.md §4 (beyond the paper)", sp.expand(d_), sp.expand(s_),
                      ("I - 2B positive definite",),
                      notes="both sides multiplied by det(I - 2B)^(3/2)")


def per_query_constant_gaussian_derivation(D: int = 2) -> Derivation:
    """Notes' first-order MSE constant rho(a) tr(V C V^T) specialised to one N(0, Gamma):
    derived from Lambda (rho = exp(Lambda(2a) - 2 Lambda(a)), C = Gamma + (2 Gamma a - grad Lambda(a))(...)^T)
    versus the stated exp(a^T Gamma a) tr(V (Gamma + Gamma a a^T Gamma) V^T)."""
    a = vector_symbols("a", D)
    G = matrix_symbols("G", D, symmetric=True)
    V = matrix_symbols("V", D, D)
    mix = SymbolicMixture([sp.Integer(1)], [sp.zeros(D, 1)], [G])
    lam = sp.expand_log(cgf(mix, a), force=True)
    lam2 = lam.subs({ai: 2 * ai for ai in a}, simultaneous=True)
    rho = sp.exp(sp.expand(lam2 - 2 * lam))
    g1 = gradient(lam, a)
    shift = 2 * G * a - g1  # m + 2 G a - grad Lambda(a), m = 0
    C = G + shift * shift.T
    derived = rho * (V * C * V.T).trace()
    stated = sp.exp((a.T * G * a)[0, 0]) * (V * (G + G * a * a.T * G) * V.T).trace()
    return Derivation(f"per-query MSE constant for N(0, Gamma) tokens, D={D}",
                      "docs/finite-prompt.md §2 (one head, N(0, Gamma) tokens)",
                      derived, stated, ("one zero-mean Gaussian component",))


def query_averaged_constant_stated(Gamma, Sigma, U, V):
    """K = det(I - 2B)^(-1/2) [tr(V Gamma V^T) + tr((I - 2B)^(-1) Q)], B = S U^T Gamma U S,
    Q = S U^T Gamma V^T V Gamma U S, S = Sigma^(1/2) (any square root: only S S^T enters traces
    and determinants).  Works for SymPy matrices (1-D exact) and is transcribed in numerics."""
    S = Sigma.applyfunc(sp.sqrt) if Sigma.shape == (1, 1) else Sigma  # caller passes a root for D > 1
    B = S.T * U.T * Gamma * U * S
    Q = S.T * U.T * Gamma * V.T * V * Gamma * U * S
    M = sp.eye(B.shape[0]) - 2 * B
    return M.det() ** -HALF * ((V * Gamma * V.T).trace() + (M.inv() * Q).trace())


def query_averaged_constant_1d_derivation() -> Derivation:
    """D = 1: tokens N(0, g), query z ~ N(0, s), tilt a = u z, value v:  E_z[rho(a) v^2 (g + g^2 a^2)]
    by integration, against the closed form K (threshold: lambda = s u^2 g < 1/2, here written
    s = (1/2 - e) / (u^2 g) with 0 < e < 1/2)."""
    x = sp.Symbol("x", real=True)
    g, u, v, e = sp.symbols("g u v e", positive=True)
    s = (HALF - e) / (u**2 * g)
    z = sp.sqrt(s) * x
    a = u * z
    integrand = sp.exp(g * a**2) * v**2 * (g + g**2 * a**2)
    derived = sp.simplify(std_normal_expectation_1d(sp.expand(integrand), x))
    stated = query_averaged_constant_stated(sp.Matrix([[g]]), sp.Matrix([[s]]), sp.Matrix([[u]]), sp.Matrix([[v]]))
    return Derivation("query-averaged first-order MSE constant, D = 1", "docs/finite-prompt.md §4 (beyond the paper)",
                      derived, sp.simplify(stated), ("lambda = s u^2 g = 1/2 - e < 1/2",))


# ================================================================================================
# bb-prop-3.1: the L = 1 boundary
# ================================================================================================
def l1_error_derivation(D: int = 2) -> Derivation:
    """At L = 1, T[mu_hat_1](z) = V z_1, so E||V z_1 - V Gamma U z||^2 over z_1 ~ N(0, sigma^2 I),
    z ~ N(0, I) equals sigma^2 ||V||_F^2 + sigma^4 ||V U||_F^2 (derived from the MGF second moments)."""
    sig = sp.Symbol("sigma", positive=True)
    U = matrix_symbols("U", D)
    V = matrix_symbols("V", D)
    t = vector_symbols("t", D)
    second = hessian(sp.exp(sig**2 * (t.T * t)[0, 0] / 2), t).subs({ti: 0 for ti in t})  # E z1 z1^T
    qsecond = hessian(sp.exp((t.T * t)[0, 0] / 2), t).subs({ti: 0 for ti in t})  # E z z^T
    target = V * (sig**2 * sp.eye(D)) * U
    derived = (V * second * V.T).trace() + (target * qsecond * target.T).trace()  # independent, zero-mean
    stated = sig**2 * sum(x**2 for x in V) + sig**4 * sum(x**2 for x in (V * U))
    return Derivation(f"exact L=1 mean squared error, D={D}",
                      "Boursier-Boyer 2026, Prop. 3.1 at L = 1 (docs/findings.md)",
                      sp.expand(derived), sp.expand(stated), ("tokens N(0, sigma^2 I), queries N(0, I)",))


def l1_bound_value():
    """The literal right-hand side c1 sigma^6 ln L / L^(c2/sigma^2) at L = 1 (SymPy evaluates it)."""
    c1, c2, sig, L = sp.symbols("c1 c2 sigma L", positive=True)
    return (c1 * sig**6 * sp.log(L) / L ** (c2 / sig**2)).subs(L, 1)


# ================================================================================================
# bb-thm-5.1: in-context linear regression with preserved blocks (A, b)
# ================================================================================================
def regression_prediction(d: int):
    """Infinite-prompt prediction for tokens (x, w^T x), x ~ N(0, Sigma), query (x_q, 0), with
    U = [[A, 0], [0, 0]] and V = [[0, 0], [0, b]] ((d+1) x (d+1)): derived as the last coordinate
    of V grad Lambda(U z) for the conditional (given w) Gaussian token law."""
    Sig = matrix_symbols("S", d, symmetric=True)
    A = matrix_symbols("A", d)
    b = sp.Symbol("b", real=True)
    w = vector_symbols("w", d)
    xq = vector_symbols("x", d)
    Bm = sp.Matrix.vstack(sp.eye(d), w.T)  # token = Bm x
    Gtok = Bm * Sig * Bm.T
    mix = SymbolicMixture([sp.Integer(1)], [sp.zeros(d + 1, 1)], [Gtok])
    U = sp.zeros(d + 1, d + 1)
    U[:d, :d] = A
    V = sp.zeros(d + 1, d + 1)
    V[d, d] = b
    z = sp.Matrix.vstack(xq, sp.zeros(1, 1))
    out = softmax_attention_derived(mix, U, V, z)
    return sp.simplify(out[d]), dict(Sigma=Sig, A=A, b=b, w=w, xq=xq)


def regression_risk_derived(d: int):
    """R(A, b) = 1/2 E_{w, x_q} (yhat - w^T x_q)^2 with second moments from the MGFs of
    w ~ N(0, I) and x_q ~ N(0, Sigma) (independent)."""
    yhat, s = regression_prediction(d)
    w, xq, Sig = s["w"], s["xq"], s["Sigma"]
    err = sp.expand(yhat - (w.T * xq)[0, 0])
    # E over independent zero-mean Gaussians of a quadratic form in w and in x_q: replace w_i w_j
    # by E[w_i w_j] and x_k x_l by E[x_k x_l] (both from MGF Hessians at 0).
    tw, tx = vector_symbols("tw", d), vector_symbols("tx", d)
    Ew = hessian(sp.exp((tw.T * tw)[0, 0] / 2), tw).subs({t: 0 for t in tw})
    Ex = hessian(sp.exp((tx.T * Sig * tx)[0, 0] / 2), tx).subs({t: 0 for t in tx})
    sq = sp.Poly(sp.expand(err**2), *w, *xq)
    total = 0
    for monom, coeff in sq.terms():
        pw, px = monom[:d], monom[d:]
        if sum(pw) != 2 or sum(px) != 2:
            raise ValueError("unexpected monomial in the squared error")
        iw = [i for i in range(d) for _ in range(pw[i])]
        ix = [i for i in range(d) for _ in range(px[i])]
        total += coeff * Ew[iw[0], iw[1]] * Ex[ix[0], ix[1]]
    return sp.expand(total / 2), s


def regression_risk_stated(Sig, A, b):
    M = b * Sig * A - sp.eye(Sig.shape[0])
    return HALF * (M * Sig * M.T).trace()


def regression_risk_derivation(d: int = 2) -> Derivation:
    R, s = regression_risk_derived(d)
    return Derivation(f"infinite-prompt risk R(A, b), d={d}", "Boursier-Boyer 2026, Sec. 5 / Thm 5.1",
                      R, sp.expand(regression_risk_stated(s["Sigma"], s["A"], s["b"])),
                      ("x ~ N(0, Sigma), w ~ N(0, I_d), query (x_q, 0)", "preserved blocks (A, b)"))


def regression_flow(d: int):
    """Gradient flow of the stated risk: returns (R, A, b, Sigma, dA, db) with dA = -grad_A R,
    db = -dR/db, by differentiation."""
    Sig = matrix_symbols("S", d, symmetric=True)
    A = matrix_symbols("A", d)
    b = sp.Symbol("b", real=True)
    R = sp.expand(regression_risk_stated(Sig, A, b))
    dA = A.applyfunc(lambda x: -sp.diff(R, x))
    db = -sp.diff(R, b)
    return R, A, b, Sig, dA, db


def conservation_derivation(d: int = 2, with_b2: bool = True) -> Derivation:
    """d/dt (||A||_F^2 - b^2) = 0 along the flow (derived: chain rule).  ``with_b2=False`` is a
    control (||A||_F^2 alone is not conserved)."""
    R, A, b, Sig, dA, db = regression_flow(d)
    rate = 2 * sum(A[i, j] * dA[i, j] for i in range(d) for j in range(d))
    if with_b2:
        rate -= 2 * b * db
    return Derivation(f"conservation of ||A||_F^2 - b^2 along the gradient flow, d={d}"
                      + ("" if with_b2 else " [control: ||A||_F^2]"),
                      "Boursier-Boyer 2026, Thm 5.1 (balancedness)", sp.expand(rate), sp.Integer(0))


def balanced_limit(Sig):
    """Stated limit: b* = tr(Sigma^-2)^(1/4), A* = tr(Sigma^-2)^(-1/4) Sigma^-1."""
    t = (Sig.inv() ** 2).trace()
    return Sig.inv() * t ** sp.Rational(-1, 4), t ** sp.Rational(1, 4)


def balanced_limit_derivation(Sig: sp.Matrix, conserved=0) -> Derivation:
    """Derived: the zero-risk set b Sigma A = I (R >= 0 and R = 0 iff b Sigma A = I for Sigma > 0)
    intersected with ||A||_F^2 - b^2 = conserved, b > 0, solved by SymPy; stated: the theorem's
    limit (which presumes conserved = 0, the balanced initialisation).  Output: (vec A, b)."""
    b = sp.Symbol("b", positive=True)
    A = Sig.inv() / b
    eq = sp.together(sum(x**2 for x in A) - b**2 - conserved)
    sols = [s for s in sp.solve(sp.numer(eq), b) if s.is_positive]
    if len(sols) != 1:
        raise ValueError(f"expected one positive root, got {sols}")
    bs = sols[0]
    As, bst = balanced_limit(Sig)
    return Derivation(f"balanced limit, Sigma={sp.sstr(Sig)}, ||A||_F^2 - b^2 = {conserved}",
                      "Boursier-Boyer 2026, Thm 5.1",
                      sp.Matrix(list(Sig.inv() / bs) + [bs]), sp.Matrix(list(As) + [bst]),
                      ("Sigma positive definite", "b(0) > 0", f"||A(0)||_F^2 - b(0)^2 = {conserved}"))


# ================================================================================================
# smart-2025-mixture: denoising with an atomic clean prompt
# ================================================================================================
def posterior_mean_derived(means, weights, z, sigma):
    """E[X | X + sigma N(0, I) = z] for X ~ sum_k pi_k delta_{m_k}: Bayes' rule with the Gaussian
    density built by SymPy (sympy.stats Normal pdf, product over coordinates)."""
    from sympy.stats import Normal, density

    N = Normal("N_", 0, sigma)
    phi = density(N)
    lik = [sp.Mul(*[phi(z[i] - m[i]) for i in range(len(z))]) for m in means]
    num = sp.zeros(len(z), 1)
    for p, l, m in zip(weights, lik, means):
        num += p * l * m
    den = sp.Add(*[p * l for p, l in zip(weights, lik)])
    return num / den


def posterior_mean_values(means, weights, queries, sigma2, digits: int = 30) -> list:
    """:func:`posterior_mean_derived` at numeric inputs read as exact rationals (floats exactly as
    stored, ``sigma2`` as its decimal), evaluated at ``digits`` digits: one list of floats per query."""
    R = lambda x: sp.Rational(repr(float(x)))
    ms = [sp.Matrix([R(x) for x in m]) for m in means]
    ws = [R(x) for x in weights]
    sig = sp.sqrt(sp.Rational(str(sigma2)))
    return [[float(sp.N(v, digits)) for v in posterior_mean_derived(ms, ws, sp.Matrix([R(x) for x in z]), sig)]
            for z in queries]


def atomic_attention_stated(means, weights, z, U, V):
    """One softmax head on the clean atomic prompt sum_k pi_k delta_{m_k}:
    V sum_k pi_k exp(<U z, m_k>) m_k / sum_k pi_k exp(<U z, m_k>)."""
    a = U * z
    align = [sp.exp((a.T * m)[0, 0]) for m in means]
    return V * normalized_attention_atomic(means, weights, align)


def denoising_derivation(K: int = 3, D: int = 2, equal_norms: bool = True, temperature=None) -> Derivation:
    """Posterior mean (derived) vs the head with U = I / sigma^2, V = I (stated).  Equal norms are
    imposed exactly by m_kD = sqrt(r^2 - sum_{i<D} m_ki^2).  ``equal_norms=False`` (control)
    leaves the means free; ``temperature`` overrides U = temperature * I (control)."""
    sigma = sp.Symbol("sigma", positive=True)
    r = sp.Symbol("r", positive=True)
    pis = list(sp.symbols(f"pi1:{K + 1}", positive=True))
    z = vector_symbols("z", D)
    means = []
    for k in range(K):
        free = list(sp.symbols(f"m{k + 1}_1:{D}", real=True))
        if equal_norms:
            last = sp.sqrt(r**2 - sum(x**2 for x in free))
        else:
            last = sp.Symbol(f"m{k + 1}_{D}", real=True)
        means.append(sp.Matrix(free + [last]))
    U = (sp.eye(D) / sigma**2) if temperature is None else temperature * sp.eye(D)
    derived = posterior_mean_derived(means, pis, z, sigma)
    stated = atomic_attention_stated(means, pis, z, U, sp.eye(D))
    # expand exponents so that exp atoms are products of monomials (for simplify_zero)
    derived = derived.applyfunc(lambda e: e.replace(sp.exp, lambda arg: sp.exp(sp.expand(arg))))
    return Derivation(f"Bayes posterior mean = softmax head U = I/sigma^2, V = I, K={K}, D={D}"
                      + ("" if equal_norms else " [equal norms dropped]")
                      + ("" if temperature is None else f" [U = {temperature} I]"),
                      "Smart et al. 2025, in-context denoising (docs/findings.md)", derived, stated,
                      ("clean prompt sum_k pi_k delta_{m_k}",
                       "||m_k|| = r for all k" if equal_norms else "no norm constraint",
                       "noisy query z = x + N(0, sigma^2 I)"))


# ================================================================================================
# zfb-linear-flow: linear attention on in-context linear regression
# ================================================================================================
def gaussian_fourth_moment(Lam: sp.Matrix):
    """E[x_i x_j x_k x_l] for x ~ N(0, Lam), as a function (i, j, k, l) -> expr, by differentiating
    the MGF exp(t^T Lam t / 2) four times at t = 0."""
    d = Lam.shape[0]
    t = vector_symbols("t4", d)
    M = sp.exp((t.T * Lam * t)[0, 0] / 2)
    zero = {ti: 0 for ti in t}
    cache = {}

    def mom(i, j, k, l):
        key = tuple(sorted((i, j, k, l)))
        if key not in cache:
            cache[key] = sp.expand(sp.diff(M, t[key[0]], t[key[1]], t[key[2]], t[key[3]]).subs(zero))
        return cache[key]

    return mom


def zfb_second_moment_derived(Lam: sp.Matrix, N):
    """E[h h^T], h = (1/N) sum_i y_i x_i, y_i = w^T x_i, x_i ~ N(0, Lam) i.i.d., w ~ N(0, I)
    independent.  Pairs i != j contribute E[x x^T w w^T x x^T] over independent copies
    = Lam E[w w^T] Lam; the diagonal contributes E_x[x x^T E(w w^T) x x^T] (fourth moments)."""
    d = Lam.shape[0]
    tw = vector_symbols("tw", d)
    Eww = hessian(sp.exp((tw.T * tw)[0, 0] / 2), tw).subs({t: 0 for t in tw})
    mom = gaussian_fourth_moment(Lam)
    diag = sp.Matrix(d, d, lambda i, l: sp.Add(*[mom(i, j, k, l) * Eww[j, k] for j in range(d) for k in range(d)]))
    off = Lam * Eww * Lam
    return sp.expand((N - 1) / N * off + diag / N), Eww


def zfb_gamma(Lam: sp.Matrix, N, drop_trace: bool = False, infinite: bool = False):
    """Gamma_N = (1 + 1/N) Lam + tr(Lam)/N I (stated).  Controls: drop the trace term, or N = oo."""
    if infinite:
        return Lam
    G = (1 + 1 / N) * Lam
    if not drop_trace:
        G += Lam.trace() / N * sp.eye(Lam.shape[0])
    return G


def zfb_second_moment_stated(Lam, N):
    return Lam**2 + (Lam**2 + Lam.trace() * Lam) / N


def zfb_loss(Lam, N, A):
    """L(A) = 1/2 E (x_q^T A h - x_q^T w)^2 = 1/2 tr(Lam (A E[hh^T] A^T - A E[h w^T] - E[w h^T] A^T + E[w w^T])),
    with E[h w^T] = Lam E[w w^T] and E[h h^T] derived."""
    Hh, Eww = zfb_second_moment_derived(Lam, N)
    Ehw = Lam * Eww
    return HALF * (Lam * (A * Hh * A.T - A * Ehw - Ehw.T * A.T + Eww)).trace()


def zfb_moment_derivation(d: int = 2) -> Derivation:
    Lam = matrix_symbols("L", d, symmetric=True)
    N = sp.Symbol("N", positive=True)
    derived, _ = zfb_second_moment_derived(Lam, N)
    return Derivation(f"E[h h^T] = Lam^2 + (Lam^2 + tr(Lam) Lam)/N, d={d}",
                      "Zhang-Frei-Bartlett 2024, the setting of Thm 4.1 (docs/findings.md)",
                      derived, sp.expand(zfb_second_moment_stated(Lam, N)), ("x_i ~ N(0, Lam)", "w ~ N(0, I_d)"))


@variants("dropped-trace", "infinite-N")
def zfb_minimiser_derivation(d: int = 2, variant: str | None = None) -> Derivation:
    """Stationarity of the derived loss (linear system grad_A L = 0, solved by SymPy) against
    A* = Gamma_N^{-1} (stated).  Diagonal Lam keeps the solve cheap; the loss is strictly convex
    (Hessian Lam (x) E[hh^T] > 0) so the stationary point is the global minimiser."""
    lam = sp.symbols(f"l1:{d + 1}", positive=True)
    Lam = sp.diag(*lam)
    N = sp.Symbol("N", positive=True)
    A = matrix_symbols("A", d)
    Lo = zfb_loss(Lam, N, A)
    eqs = [sp.diff(Lo, x) for x in A]
    sol = sp.solve(eqs, list(A), dict=True)[0]
    derived = A.subs(sol)
    stated = zfb_gamma(Lam, N, drop_trace=variant == "dropped-trace", infinite=variant == "infinite-N").inv()
    return Derivation(f"minimiser of the population loss, d={d}" + (f" [{variant}]" if variant else ""),
                      "Zhang-Frei-Bartlett 2024, Thm 4.1 (fixed point Gamma_N^-1)",
                      derived.applyfunc(sp.simplify), stated.applyfunc(sp.simplify),
                      ("Lam diagonal (w.l.o.g. by rotation)",))


@variants("dropped-trace", "infinite-N")
def zfb_min_loss_derivation(d: int = 2, variant: str | None = None) -> Derivation:
    lam = sp.symbols(f"l1:{d + 1}", positive=True)
    Lam = sp.diag(*lam)
    N = sp.Symbol("N", positive=True)
    Gam = zfb_gamma(Lam, N)
    derived = zfb_loss(Lam, N, Gam.inv())
    Gs = zfb_gamma(Lam, N, drop_trace=variant == "dropped-trace", infinite=variant == "infinite-N")
    stated = HALF * (Lam.trace() - (Gs.inv() * Lam**2).trace())
    return Derivation(f"minimal loss 1/2 [tr Lam - tr(Gamma_N^-1 Lam^2)], d={d}" + (f" [{variant}]" if variant else ""),
                      "Zhang-Frei-Bartlett 2024, Thm 4.1 (docs/findings.md)",
                      sp.simplify(derived), sp.simplify(stated), ("Lam diagonal",))
