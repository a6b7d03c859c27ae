"""How far the finite-prompt expansion reaches: its next coefficients and the prompt lengths from which
a fit y(L) = a + b/L of a Monte Carlo sequence can decide its limit (docs/finite-prompt.md, sec. 10).

One head, one query.  With the normalised softmax weight w = e^{<a, x>} / M(a) (E w = 1) and the centred
value u = V x - T (E[w u] = 0), the prompt's output is T_L - T = N / D with N = mean_i(w_i u_i) and
D = 1 + delta, delta = mean_i(w_i - 1).  Expanding 1/D (1/D^2 for the squared error) in powers of delta
and taking expectations with the joint cumulants of (A, B) = (w u, w - 1) -- a product of sample means
is a sum over set partitions into blocks of size >= 2, a block of size r weighing kappa_r / L^(r - 1) --
gives the exact coefficients

    L E||T_L - T||^2 = m2 + c3 / L + c4 / L^2 + O(L^-3),
      c3 = -2 k(AAB) + 3 [k(AA) k(BB) + 2 |k(AB)|^2],
      c4 = 3 k(AABB) - 4 [k(AA) k(BBB) + 6 k(AB).k(ABB) + 3 k(BB) k(AAB)] + 5 [3 k(AA) k(BB)^2 + 12 |k(AB)|^2 k(BB)],
    L E[T_L - T] = -k(AB) + d3 / L + d4 / L^2 + O(L^-3),
      d3 = k(ABB) - 3 k(AB) k(BB),
      d4 = -k(ABBB) + 4 k(AB) k(BBB) + 6 k(ABB) k(BB) - 15 k(AB) k(BB)^2,

(products of A-entries contracted).  The cumulants are polynomials in the moments
rho_k = E w^k = M(k a) / M(a)^k, e_k = E[w^k u] and m_k = E[w^k |u|^2] (k = 2, 3, 4), and for Gaussian-
mixture tokens each is a moment of the tilted mixture at k a (closed under tilting, Prop. 2.1):
e_k = rho_k (V grad Lambda(k a) - T), m_k = rho_k (tr(V Cov_{ka} V^T) + |V grad Lambda(k a) - T|^2).
For one Gaussian, rho_k = exp(k (k - 1) a^T G a / 2): the series is asymptotic (its terms grow like
rho^((k + 1)/2) / L), usable at L only where its terms still decrease.

Exact formulas in float64; the expansion itself is asymptotic (no bound on the O(L^-3) term).
"""
from __future__ import annotations

import math

import numpy as np

from .mixture import GaussianMixture

__all__ = ["weight_moments", "expansion_coefficients", "mse_expansion", "first_order_reach",
           "averaged_tilt_ratio"]


def _tilt_stats(w, m, G, b):
    """Lambda(b), grad Lambda(b) (D,), Cov of the tilted law (D, D) at one tilt b."""
    s = np.log(w) + m @ b + 0.5 * np.einsum("d,kde,e->k", b, G, b)
    mx = s.max()
    lam = mx + math.log(float(np.exp(s - mx).sum()))
    g = np.exp(s - lam)
    mu = m + np.einsum("kde,e->kd", G, b)
    grad = g @ mu
    dev = mu - grad
    cov = np.einsum("k,kde->de", g, G) + np.einsum("k,kd,ke->de", g, dev, dev)
    return lam, grad, cov


def weight_moments(mix: GaussianMixture, U, V, z) -> dict:
    """rho_k, e_k (vectors) and m_k for k = 2, 3, 4 at a = U z (module docstring); ``m2`` is the
    first-order MSE coefficient rho tr(V C V^T).  Values overflow to inf for extreme tilts."""
    w, m, G = mix.arrays()
    U, V = np.asarray(U, float), np.atleast_2d(np.asarray(V, float))
    a = U @ np.asarray(z, float).reshape(-1)
    lam1, grad1, _c = _tilt_stats(w, m, G, a)
    T = V @ grad1
    out = {"T": T}
    with np.errstate(over="ignore"):
        for k in (2, 3, 4):
            lam, grad, cov = _tilt_stats(w, m, G, k * a)
            rho = math.exp(min(lam - k * lam1, 700.0)) if lam - k * lam1 < 700 else math.inf
            shift = V @ grad - T
            out[f"rho{k}"] = rho
            out[f"e{k}"] = rho * shift
            out[f"m{k}"] = rho * (float(np.trace(V @ cov @ V.T)) + float(shift @ shift))
    return out


def expansion_coefficients(mom: dict) -> dict:
    """(m2, c3, c4) of L * MSE and (bias, d3, d4) of L * bias from the moments rho_k, e_k, m_k
    (any token law with finite fourth weight moments: the formulas of the module docstring)."""
    r2, r3 = mom["rho2"], mom["rho3"]
    e2, e3, e4 = (np.atleast_1d(np.asarray(mom[f"e{k}"], float)) for k in (2, 3, 4))
    m2, m3, m4 = mom["m2"], mom["m3"], mom["m4"]
    kAA, kAB, kBB = m2, e2, r2 - 1.0
    kAAB, kABB, kBBB = m3 - m2, e3 - 2 * e2, r3 - 3 * r2 + 2.0
    kAABB = (m4 - 2 * m3 + m2) - m2 * kBB - 2 * float(kAB @ kAB)
    kABBB = (e4 - 3 * e3 + 3 * e2) - 3 * kAB * kBB
    ab2 = float(kAB @ kAB)
    c3 = -2 * kAAB + 3 * (kAA * kBB + 2 * ab2)
    c4 = (3 * kAABB - 4 * (kAA * kBBB + 6 * float(kAB @ kABB) + 3 * kBB * kAAB)
          + 5 * (3 * kAA * kBB**2 + 12 * ab2 * kBB))
    d3 = kABB - 3 * kAB * kBB
    d4 = -kABBB + 4 * kAB * kBBB + 6 * kABB * kBB - 15 * kAB * kBB**2
    return {"m2": float(m2), "c3": float(c3), "c4": float(c4), "bias": -kAB, "d3": d3, "d4": d4}


def mse_expansion(mix: GaussianMixture, U, V, z) -> dict:
    """The coefficients of L * MSE = m2 + c3 / L + c4 / L^2 + O(L^-3) for Gaussian-mixture tokens,
    with the weight moments rho2, rho3, rho4 they come from."""
    mom = weight_moments(mix, U, V, z)
    if not all(math.isfinite(mom[f"rho{k}"]) for k in (2, 3, 4)):
        return {"m2": mom["m2"], "c3": math.inf, "c4": math.inf, "rho2": mom["rho2"], "rho3": mom["rho3"],
                "rho4": mom["rho4"]}
    co = expansion_coefficients(mom)
    return {"m2": co["m2"], "c3": co["c3"], "c4": co["c4"], "rho2": mom["rho2"], "rho3": mom["rho3"],
            "rho4": mom["rho4"]}


#: the reach rule: at the shortest prompt, the kept correction |c3| / L at most this fraction of m2 and the
#: first omitted term |c4| / L^2 at most its square (terms of an asymptotic series shrinking by 4x or more)
TERM_RATIO = 0.25


def first_order_reach(m2: float, c3: float, c4: float, Ls) -> dict:
    """Whether a + b/L fitted over the prompt lengths ``Ls`` is within the expansion's reach: at the shortest
    L, |c3| / (m2 L) <= 1/4 and |c4| / (m2 L^2) <= 1/16.  Returns the two ratios, the verdict ``inside``
    and ``L_reach``, the shortest prompt length satisfying both."""
    Lmin = float(min(Ls))
    scale = abs(m2) if m2 != 0 else 1.0
    r3 = abs(c3) / (scale * Lmin)
    r4 = abs(c4) / (scale * Lmin**2)
    lr = max(abs(c3) / (scale * TERM_RATIO), math.sqrt(abs(c4) / (scale * TERM_RATIO**2)))
    return {"first_correction": r3, "first_omitted": r4, "inside": bool(r3 <= TERM_RATIO and r4 <= TERM_RATIO**2),
            "L_reach": (int(math.ceil(lr)) if math.isfinite(lr) else None)}


def averaged_tilt_ratio(mix: GaussianMixture, heads, target, queries: GaussianMixture, lam: float,
                        n: int = 1 << 14, seed: int = 0) -> dict:
    """The query-averaged size of the first correction, r3 = E_z[max_h (rho3_h / rho2_h)(z) K_var(z)] /
    E_z[K_var(z)] (K_var the variance part of the 1/L coefficient; rho3 / rho2 = rho^2 for Gaussian tokens):
    the per-query first correction of L (R_L(z) - R_inf(z)) is dominated by -2 E[w^3 |u|^2] / L against
    E[w^2 |u|^2], about 2 r3 / L relative.  Finite iff lambda* < 1/6.  A fixed query sample (``seed``), importance
    sampled with s^2 = 1 + 1 / (1 - 6 lambda*) so that the estimate has finite variance; a property of the
    setting, not a random verdict."""
    from .risk import _arrays, _tilt, risk_constants
    from .risk_simulation import sample_queries

    if not lam < 1 / 6:
        return {"ratio": math.inf, "queries": 0}
    s = math.sqrt(1.0 + 1.0 / (1.0 - 6.0 * max(lam, 0.0)))
    Z, iw = sample_queries(queries, n, np.random.default_rng(seed), proposal_scale=s)
    w, m, G = _arrays(mix)
    c = risk_constants(mix, heads, target, Z)
    ratio = np.zeros(len(Z))
    for h in heads:
        A = Z @ h.arrays()[0].T
        l1, l2, l3 = (_tilt(w, m, G, k * A)[2] for k in (1, 2, 3))
        with np.errstate(over="ignore"):
            ratio = np.maximum(ratio, np.exp(np.minimum(l3 - l2 - l1, 700.0)))
    kv = iw * np.clip(c["variance"], 0.0, None)
    den = float(kv.sum())
    return {"ratio": float((kv * ratio).sum() / den) if den > 0 else 1.0, "queries": int(n),
            "proposal_scale": s}
