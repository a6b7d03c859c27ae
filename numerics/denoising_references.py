"""Independent reference computations for the Section 4 claims (denoising).

Each function computes a quantity by a path other than the one :mod:`softmix.numerics.denoising`
uses, so that a claim can compare the two:

* :func:`linear_risk_tensor_gh` -- ``E||A Z - f*(Z)||^2`` from its definition by tensor
  Gauss-Hermite over each component of mu_Z (no 1-D reduction, no closed form);
* :func:`heads_residual_mp` -- ``max_z |sum_h T_h[mu_Z](z) - f*(z)|`` at high precision, heads given
  exactly;
* :func:`fixed_point_by_iteration` -- u_lambda as the limit of ``u <- tanh(lambda^2 u)`` (against the
  bisection root :func:`softmix.numerics.denoising.u_lambda`);
* :func:`trainer_consistency` -- the Gauss-Hermite moments, the loss and the gradient the SGD of
  Fig. 2 relies on, against the moments in closed form, ``head_outputs`` and central differences;
* :func:`isotropic_posterior_mean_quadrature` (and :func:`isotropic_posterior_moments_quadrature`, with
  ``tr Cov(X | Z = z)``) -- ``E[X | X + xi N = z]`` for a mixture of isotropic Gaussians
  from its definition, by 1-D tanh-sinh quadratures (against the conditioning of
  :mod:`softmix.numerics.posterior`);
* :func:`rational_queries`, :func:`random_equal_norm_task` -- exact random queries and tasks.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mpm
import numpy as np

from .attention import softmax_attention_mp
from .denoising import DenoisingTask, bayes_denoiser, bayes_denoiser_mp, gh_nodes, head_outputs, heads_loss_grad
from .memo import remember
from .precision import to_mpf, workdps

__all__ = ["linear_risk_tensor_gh", "heads_residual_mp", "fixed_point_by_iteration", "trainer_consistency",
           "isotropic_posterior_mean_quadrature", "isotropic_posterior_moments_quadrature", "rational_queries",
           "random_equal_norm_task", "PYTHAGOREAN_TRIPLES"]

#: integer right triangles (a, b, c): rational points (a/c, b/c) of the unit circle
PYTHAGOREAN_TRIPLES = [(3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29), (12, 35, 37)]


def _tensor_rule(task: DenoisingTask, A: np.ndarray, m: int) -> float:
    M, pi, s, _c, _a = task.arrays()
    x, w = np.polynomial.hermite_e.hermegauss(m)
    w = w / w.sum()
    X = np.stack([g.ravel() for g in np.meshgrid(*([x] * task.d), indexing="ij")], 1)
    W = np.prod(np.stack([g.ravel() for g in np.meshgrid(*([w] * task.d), indexing="ij")]), 0)
    tot = 0.0
    for k in range(2):
        Z = M[k] + math.sqrt(s) * X
        tot += pi[k] * float(W @ ((Z @ A.T - bayes_denoiser(task, Z)) ** 2).sum(1))
    return tot


def _tensor_pair(task: DenoisingTask, A: np.ndarray, n: int) -> tuple[float, float]:
    key = (task, A.tobytes(), int(n))
    return remember("denoising_references.tensor_gh", key, lambda: _pair(task, A, n))


def _pair(task, A, n):
    a, b = _tensor_rule(task, A, n), _tensor_rule(task, A, int(1.5 * n))
    return b, abs(b - a)


def linear_risk_tensor_gh(task: DenoisingTask, A, n: int, refine: bool = False, cap: int = 1500000):
    """``E||A Z - f*(Z)||^2`` by tensor Gauss-Hermite with ``n`` nodes per direction over each
    component ``N(m_k, s I)`` of mu_Z (float64; f* of eq. (10)).  Returns ``(value at 3n/2 nodes,
    |value(3n/2) - value(n)|)``.

    ``refine``: the estimate is the larger of the last two successive differences (Gauss-Hermite
    converges non-monotonically on a steep gate, so one difference can vanish by accident), and
    ``n`` grows by 3/2 (at most three times, to at most ``cap`` nodes per component) while the
    estimate exceeds 1e-7 of the value.  Remembered in the run's memo.

    >>> t = DenoisingTask.from_params({"m1": [3, 0], "m2": [0, 3], "gamma": 1, "xi": 2, "pi1": "0.5"})
    >>> v, e = linear_risk_tensor_gh(t, np.eye(2) / 5, 24)
    >>> bool(v > 0 and e < 1e-6 * v)
    True
    """
    A = np.array([[float(A[i, j]) for j in range(task.d)] for i in range(task.d)]) \
        if not isinstance(A, np.ndarray) else np.asarray(A, float)
    if not refine:
        return _tensor_pair(task, A, n)

    def est(m):
        v, e = _tensor_pair(task, A, m)
        return v, max(e, _tensor_pair(task, A, max(2, int(round(m / 1.5))))[1])

    val, err = est(n)
    for _ in range(3):
        n2 = int(1.5 * n)
        if err <= 1e-7 * abs(val) or int(1.5 * n2) ** task.d > cap:
            break
        n = n2
        val, err = est(n)
    return val, err


def heads_residual_mp(task: DenoisingTask, heads, queries, dps: int = 50):
    """``max_z max_i |sum_h T_{U_h,V_h}[mu_Z](z)_i - f*(z)_i|`` at ``dps`` digits over ``queries``
    (exact rationals), heads ``(U, V)`` given exactly (SymPy matrices or nested lists of numbers:
    converted at ``dps + 10`` digits).  Softmax attention on mu_Z by
    :func:`softmix.numerics.attention.softmax_attention_mp`, f* by eq. (10) in mpmath."""
    mix = task.noisy_mixture()
    worst = to_mpf(0)
    with workdps(dps):
        hs = [(_mp_matrix(U, dps), _mp_matrix(V, dps)) for U, V in heads]
        for z in queries:
            outs = [softmax_attention_mp(mix, U, V, z, dps) for U, V in hs]
            out = outs[0]
            for o in outs[1:]:
                out = out + o
            f = bayes_denoiser_mp(task, z, dps)
            worst = max(worst, max(abs(out[i] - f[i]) for i in range(task.d)))
    return worst


def _mp_matrix(M, dps):
    import sympy as sp

    rows = M.tolist() if hasattr(M, "tolist") else M
    with workdps(dps):
        return mpm.matrix([[mpm.mpf(sp.N(sp.sympify(x), dps + 10)) for x in r] for r in rows])


def fixed_point_by_iteration(lam, dps: int = 60, max_iter: int = 200000) -> dict:
    """u_lambda as the limit of ``u_{n+1} = tanh(lambda^2 u_n)`` from ``u_0 = 1`` (lambda > 1): the
    iterates decrease monotonically to the positive root and converge geometrically with ratio
    ``F'(u_lambda) < 1``; stopped when a step is below ``10^-(dps - 5)``.  Returns ``{"u": decimal
    string, "iterations", "converged"}``.

    >>> fixed_point_by_iteration(2)["u"][:12]
    '0.9993256730'
    """
    with workdps(dps):
        l2 = to_mpf(Fraction(str(lam))) ** 2
        u, n = mpm.mpf(1), 0
        while n < max_iter:
            v = mpm.tanh(l2 * u)
            n += 1
            if abs(v - u) < mpm.mpf(10) ** -(dps - 5):
                u = v
                break
            u = v
        return {"u": mpm.nstr(u, dps - 5), "iterations": n, "converged": n < max_iter}


def _moments_row(task: DenoisingTask) -> dict:
    M, pi, s, _c, _a = task.arrays()
    Z, W = gh_nodes(task, 8)
    mean, second = W @ Z, (Z * W[:, None]).T @ Z
    second_ref = s * np.eye(task.d) + (M.T * pi) @ M
    err = max(float(np.abs(mean - pi @ M).max()), float(np.abs(second - second_ref).max()))
    scale = max(1.0, float(np.abs(second_ref).max()))
    return {"max_abs_error": err, "tolerance": 1e-12 * scale, "passed": bool(err <= 1e-12 * scale)}


def trainer_consistency(task: DenoisingTask, H: int, rng) -> dict:
    """What the SGD of Fig. 2 (and the single-head search of Prop. C.4) relies on, against
    independent paths (float64): ``gh_nodes`` integrates the first two moments of mu_Z exactly
    (to 1e-12 relative); ``heads_loss_grad``'s loss equals the weighted squared error of
    ``head_outputs`` at a random theta (1e-12 relative), for softmax and linear heads; its gradient
    equals central differences (step 1e-5) to ``1e-6 x max(1, |grad|)``.  ``passed`` is True when all
    hold."""
    d = task.d
    Z, W = gh_nodes(task, 8)
    T = bayes_denoiser(task, Z)
    rows = []
    for kind in ("softmax", "linear"):
        th = rng.normal(scale=0.3, size=H * 2 * d * d)
        heads = lambda v: [(v.reshape(H, 2, d, d)[h, 0], v.reshape(H, 2, d, d)[h, 1]) for h in range(H)]
        ref = lambda v: float(np.sum(W * ((head_outputs(task, heads(v), Z, kind) - T) ** 2).sum(1)))
        loss, grad = heads_loss_grad(task, th, Z, W, T, H, kind)
        eps = 1e-5
        fd = np.array([(ref(th + eps * e) - ref(th - eps * e)) / (2 * eps) for e in np.eye(th.size)])
        r0 = ref(th)
        loss_ok = abs(loss - r0) <= 1e-12 * max(1.0, abs(r0))
        g_err, g_tol = float(np.abs(grad - fd).max()), 1e-6 * max(1.0, float(np.abs(fd).max()))
        rows.append({"kind": kind, "loss": loss, "loss_vs_head_outputs": abs(loss - r0),
                     "grad_max_abs_error_vs_central_differences": g_err, "grad_tolerance": g_tol,
                     "passed": bool(loss_ok and g_err <= g_tol)})
    mom = _moments_row(task)
    return {"gh_moments": mom, "loss_and_gradient": rows,
            "passed": bool(mom["passed"] and all(r["passed"] for r in rows)),
            "rule": "Gauss-Hermite moments of mu_Z exact to 1e-12; loss == head_outputs loss to 1e-12 relative; "
                    "gradient == central differences (step 1e-5) to 1e-6 x max(1, |grad|)"}


def rational_queries(rng, d: int, n: int, scale: int = 4) -> list[list[Fraction]]:
    """``n`` exact queries in ``[-scale, scale]^d`` on the grid of eighths."""
    return [[Fraction(int(v), 8) for v in rng.integers(-8 * int(scale), 8 * int(scale) + 1, size=d)] for _ in range(n)]


def random_equal_norm_task(rng, d: int, opposite: bool = False) -> DenoisingTask:
    """A task with equal-norm rational means (Pythagorean triples; d = 2 or 3), gamma, xi and pi1
    drawn; ``opposite``: m2 = -m1 (also when the draw gives m1 = m2)."""
    r = Fraction(int(rng.integers(1, 5)), int(rng.integers(1, 3)))
    a, b, c = PYTHAGOREAN_TRIPLES[int(rng.integers(len(PYTHAGOREAN_TRIPLES)))]
    a2, b2, c2 = PYTHAGOREAN_TRIPLES[int(rng.integers(len(PYTHAGOREAN_TRIPLES)))]
    sgn = lambda: int(rng.choice([-1, 1]))
    if d == 2:
        m1 = [r * sgn() * Fraction(a, c), r * sgn() * Fraction(b, c)]
        m2 = [r * sgn() * Fraction(a2, c2), r * sgn() * Fraction(b2, c2)]
    else:
        w = Fraction(int(rng.integers(-3, 4)), 2)
        m1 = [r * sgn() * Fraction(a, c), r * sgn() * Fraction(b, c), w]
        m2 = [r * sgn() * Fraction(b2, c2), r * sgn() * Fraction(a2, c2), -w if rng.random() < 0.5 else w]
    if opposite or m1 == m2:
        m2 = [-v for v in m1]
    g = Fraction(int(rng.integers(1, 7)), int(rng.integers(1, 4)))
    x = Fraction(int(rng.integers(1, 7)), int(rng.integers(1, 4)))
    p = Fraction(int(rng.integers(1, 10)), 10)
    return DenoisingTask(tuple(m1), tuple(m2), g, x, p)


def isotropic_posterior_mean_quadrature(weights, means, variances, noise_variance, z, dps: int = 50):
    """``E[X | Z = z]`` for ``X ~ sum_k w_k N(m_k, v_k I)`` and ``Z = X + xi N``, ``N ~ N(0, I)``
    (``noise_variance`` = xi^2), from its definition int x p_X(x) N(z; x, xi^2 I) dx / int p_X(x) N(z; x, xi^2 I) dx:
    for isotropic components both integrals factorise over the coordinates, so each is a product of 1-D
    tanh-sinh quadratures (split at the peak of the integrand), at ``dps`` digits.  Exact inputs (Fractions,
    strings, ints).  Returns (the posterior mean as mpf, the largest relative error estimate of the quadratures).
    No conditioning formula is used."""
    mean, _trace, qerr = isotropic_posterior_moments_quadrature(weights, means, variances, noise_variance, z, dps)
    return mean, qerr


def isotropic_posterior_moments_quadrature(weights, means, variances, noise_variance, z, dps: int = 50):
    """As :func:`isotropic_posterior_mean_quadrature`, with the second moments too: returns (``E[X | Z = z]``,
    ``tr Cov(X | Z = z)`` = sum_i E[X_i^2 | z] - E[X_i | z]^2, the largest relative error estimate), each
    moment int x_i^j p_X(x) N(z; x, xi^2 I) dx a product of 1-D tanh-sinh quadratures of the definition."""
    with workdps(dps):
        n = to_mpf(noise_variance)
        w = [to_mpf(x) for x in weights]
        zs = [to_mpf(x) for x in z]
        qerr = mpm.mpf(0)
        mass, first, second = [], [], []
        for wk, mk, vk in zip(w, means, variances):
            v = to_mpf(vk)
            c = 1 / (2 * mpm.pi * mpm.sqrt(v * n))  # N(x; mi, v) N(zi; x, n)
            I0, I1, I2 = [], [], []
            for mi, zi in zip(map(to_mpf, mk), zs):
                g = lambda x, mi=mi, zi=zi: mpm.exp(-(x - mi) ** 2 / (2 * v) - (zi - x) ** 2 / (2 * n))  # noqa: E731
                cut = [-mpm.inf, (mi * n + zi * v) / (v + n), mpm.inf]
                a, ea = mpm.quad(g, cut, error=True)
                b, eb = mpm.quad(lambda x, g=g: x * g(x), cut, error=True)
                s, es = mpm.quad(lambda x, g=g: x * x * g(x), cut, error=True)
                I0.append(c * a)
                I1.append(c * b)
                I2.append(c * s)
                qerr = max(qerr, (ea + eb) / a, es / s)
            mass.append(wk * mpm.fprod(I0))
            first.append([b / a for a, b in zip(I0, I1)])
            second.append([s / a for a, s in zip(I0, I2)])
        total = mpm.fsum(mass)
        K, D = len(mass), len(zs)
        mean = [mpm.fsum(mass[k] * first[k][i] for k in range(K)) / total for i in range(D)]
        trace = mpm.fsum(mpm.fsum(mass[k] * second[k][i] for k in range(K)) / total - mean[i] ** 2 for i in range(D))
        return mean, trace, qerr
