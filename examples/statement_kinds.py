"""Statement kinds beyond the operator: one true statement of each kind (docs/writing-claims.md, "Statement kinds").

Run:  softmix verify --plugin examples/statement_kinds.py
      softmix show --plugin examples/statement_kinds.py ex-kind-identity

* ``ex-kind-identity`` (``softmix.identity_claim``): the standard deviation of sigma X is sigma times that of
  X, an identity of SymPy expressions under ``sigma > 0`` -- verified; its control ``without:sigma-positive``
  is refuted (at sigma < 0 the identity fails: the assumption is needed);
* ``ex-kind-constant`` (``softmix.constant_claim``): the Gaussian moment generating function
  E[exp(t X)] = exp(t^2 / 2), the closed form against mpmath quadrature of the integral, to 30 digits, at the
  given t = 1 and at drawn t -- confirmed;
* ``ex-kind-bound`` (``softmix.bound_claim``): log(1 + x) <= x on [1/10, 5], on drawn points and certified
  on the whole box by interval arithmetic (mpmath.iv) -- verified;
* ``ex-kind-rate`` (``softmix.rate_claim``): finite-prompt attention with U = 0 averages the prompt, so its
  mean squared error is tr(V Sigma_mu V^T) / L -- a rate -1 and a limit of L x MSE, decided by the Monte Carlo
  rules at the claim's alpha, at the given mixture weight and at a drawn one -- confirmed;
* ``ex-kind-flow`` (``softmix.flow_claim``): the gradient flow of f(x) = log cosh(x1) + (x2 - x1)^2 has its
  stationary point at 0 (exact) and converges at the Hessian's smallest eigenvalue (5 - sqrt(17)) / 2 --
  confirmed (the rate is numeric evidence).

Every automatic control of each is refuted; the whole file verifies in seconds.
"""
import mpmath as mp
import numpy as np
import sympy as sp

import softmix


# ---- an identity of derived quantities ------------------------------------------------------------------
def scaled_std_derived(sigma, v):
    """sd(sigma X) from its definition: the square root of Var(sigma X) = sigma^2 Var(X), Var(X) = v"""
    return sp.sqrt(sigma**2 * v) / sp.sqrt(v)


def scaled_std_stated(sigma, v):
    """sd(sigma X) / sd(X) = sigma"""
    return sigma


softmix.identity_claim("ex-kind-identity", derived=scaled_std_derived, stated=scaled_std_stated, symbols="sigma v",
                       assume=("sigma > 0",), title="sd(sigma X) = sigma sd(X) for sigma > 0",
                       source="examples/statement_kinds.py")


# ---- a high-precision identity of constants -----------------------------------------------------------
def mgf_closed_form(t):
    """E[exp(t X)] = exp(t^2 / 2) for X ~ N(0, 1)"""
    return mp.exp(t**2 / 2)


def mgf_by_quadrature(t):
    return mp.quad(lambda x: mp.exp(t * x - x**2 / 2), [-mp.inf, t, mp.inf]) / mp.sqrt(2 * mp.pi)


softmix.constant_claim("ex-kind-constant", value=mgf_closed_form, reference=mgf_by_quadrature, digits=30,
                       at={"t": 1}, over={"t": ("0.1", "2")}, draws=1, title="the Gaussian moment generating function",
                       source="examples/statement_kinds.py")


# ---- an inequality, certified on a box ----------------------------------------------------------------
def log1p_lhs(x, m):
    """log(1 + x) <= x"""
    return m.log(1 + x)


def log1p_rhs(x, m):
    return x


softmix.bound_claim("ex-kind-bound", lhs=log1p_lhs, rhs=log1p_rhs, over={"x": ("1/10", "5")}, certify=True,
                    title="log(1 + x) <= x on [1/10, 5]", source="examples/statement_kinds.py")


# ---- a finite-prompt rate and limit, decided by the Monte Carlo rules ------------------------------------
MEANS = np.array([[1.0, -0.5], [-0.8, 1.2]])
CHOL = [np.linalg.cholesky(np.array(S)) for S in ([[0.5, 0.1], [0.1, 0.4]], [[0.3, 0.0], [0.0, 0.6]])]
VHEAD = np.array([[1.0, 0.3], [0.0, 0.8]])


def averaged_prompt_error(rng, L, n, pi=0.3):
    """finite-prompt attention at U = 0 is V times the prompt's mean: its squared error decays like 1/L"""
    w = np.array([pi, 1 - pi])
    counts = rng.multinomial(L, w, size=n)  # tokens per component; the Gaussian sums are drawn exactly
    sums = counts @ MEANS + sum(np.sqrt(counts[:, [k]]) * (rng.standard_normal((n, 2)) @ CHOL[k].T) for k in range(2))
    mean = w @ MEANS
    return np.sum(((sums / L - mean) @ VHEAD.T) ** 2, axis=1)


def prompt_error_constant(pi=0.3):
    """tr(V Sigma_mu V^T): Sigma_mu the mixture's covariance"""
    w = np.array([pi, 1 - pi])
    mean = w @ MEANS
    cov = sum(w[k] * (CHOL[k] @ CHOL[k].T + np.outer(MEANS[k] - mean, MEANS[k] - mean)) for k in range(2))
    return float(np.trace(VHEAD @ cov @ VHEAD.T))


softmix.rate_claim("ex-kind-rate", simulate=averaged_prompt_error, lengths=[64, 256, 1024], replicates=20000,
                   rate=-1.0, at={"pi": "0.3"}, over={"pi": ("0.15", "0.85")}, draws=1,
                   title="finite-prompt attention at U = 0: MSE = tr(V Sigma V^T) / L",
                   source="examples/statement_kinds.py")
softmix.rate_claim("ex-kind-limit", simulate=lambda rng, L, n, pi: L * averaged_prompt_error(rng, L, n, pi),
                   lengths=[64, 256, 1024], replicates=20000, limit=prompt_error_constant, at={"pi": "0.3"},
                   title="finite-prompt attention at U = 0: L x MSE -> tr(V Sigma V^T)",
                   source="examples/statement_kinds.py")


# ---- a gradient flow: its stationary point and rate ------------------------------------------------------
def descent(x):
    """dx/dt = -grad f, f(x) = log cosh(x1) + (x2 - x1)^2"""
    return [-(sp.tanh(x[0]) - 2 * (x[1] - x[0])), -2 * (x[1] - x[0])]


softmix.flow_claim("ex-kind-flow", field=descent, point=[0, 0], rate=(5 - sp.sqrt(17)) / 2,
                   title="gradient flow of log cosh(x1) + (x2 - x1)^2: stationary at 0, rate (5 - sqrt 17)/2",
                   source="examples/statement_kinds.py")
