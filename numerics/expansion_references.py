"""An independent reference for :mod:`softmix.numerics.expansion_reach` (docs/finite-prompt.md, sec. 10).

expansion_reach computes the weight moments from the tilted mixture at k a (log-space gates, tilted means
and covariances) and the coefficients c3, c4, d3, d4 from joint *cumulants* of (A, B) = (w u, w - 1).  This
module computes the same numbers by other routes, at ``dps`` digits:

* :func:`weight_moments_mp` -- E[w^k], E[w^k u] and E[w^k u_c^2] (per output entry c) from the *raw* moments
  of the exponential family: E[e^{<b, x>}] = M(b), E[x e^{<b, x>}] = grad M(b) and E[x x^T e^{<b, x>}] =
  grad^2 M(b) at b = k a (SymPy's derivatives of each component's MGF,
  :func:`~softmix.numerics.finite_prompt_references.cgf_derivatives_mp`), u = V x - T expanded by hand;
* :func:`expansion_from_moments_mp` -- the formal series E[N / D] = sum_j (-1)^j E[N delta^j] and
  E[|N|^2 / D^2] = sum_j (-1)^j (j + 1) E[|N|^2 delta^j], each expectation of a product of n sample means of
  i.i.d. tokens written with *raw* joint moments: sum over the set partitions pi of the n factors of
  (L)_{|pi|} / L^n prod_{blocks} E[prod of the block's variables] (falling factorial (L)_r = L (L - 1) ...
  (L - r + 1); blocks of size 1 vanish, E A = E B = 0), expanded in x = 1/L and kept to x^3.

A partition contributes from order x^(n - |pi|) and blocks have size >= 2, so only n <= 6 factors reach
x^3: the series below stop where no partition is left (nothing is truncated by hand), and no block needs
more than the fourth weight moment.  Exact: the identities; approximate: mpmath at ``dps`` digits.
"""
from __future__ import annotations

import math

import mpmath as mpm

from .finite_prompt_references import cgf_derivatives_mp
from .mixture import GaussianMixture
from .precision import to_mpf

__all__ = ["weight_moments_mp", "expansion_from_moments_mp", "expansion_reference_mp"]

#: orders of x = 1/L kept: x^1 (first order), x^2 (c3, d3), x^3 (c4, d4)
ORDER = 3


def weight_moments_mp(mix: GaussianMixture, U, V, z, dps: int = 30) -> dict:
    """``rho[k] = E w^k``, ``e[k] = E[w^k u]`` (list over output entries) and ``s[k] = E[w^k u_c^2]`` (list
    over c) for k = 1..4, w = e^{<a, x>} / M(a), u = V x - T, T = V grad M(a) / M(a), a = U z from exact
    inputs; also ``T`` and ``M1 = M(a)``.  rho[1] = 1 and e[k = 1] = 0 are computed, not assumed."""
    with mpm.workdps(dps):
        Um = mpm.matrix([[to_mpf(x) for x in r] for r in U])
        Vm = mpm.matrix([[to_mpf(x) for x in r] for r in V])
        a = Um * mpm.matrix([to_mpf(x) for x in z])
        M1, g1, _H = cgf_derivatives_mp(mix, a)
        T = Vm * g1
        p = Vm.rows
        out: dict = {"rho": {}, "e": {}, "s": {}, "T": [T[c] for c in range(p)], "M1": M1}
        for k in range(1, 5):
            Mk, gk, Hk = cgf_derivatives_mp(mix, k * a)
            dM = Mk * gk                        # E[x e^{<ka, x>}]
            d2M = Mk * (Hk + gk * gk.T)         # E[x x^T e^{<ka, x>}]
            VdM, VHV = Vm * dM, Vm * d2M * Vm.T
            norm = M1**k
            out["rho"][k] = Mk / norm
            out["e"][k] = [(VdM[c] - T[c] * Mk) / norm for c in range(p)]
            out["s"][k] = [(VHV[c, c] - 2 * T[c] * VdM[c] + T[c] ** 2 * Mk) / norm for c in range(p)]
        return out


def _partitions(items: list):
    """Every set partition of ``items`` (a list of labels) as a list of blocks (lists of labels)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]


def _falling_over_power(r: int, n: int) -> list:
    """Coefficients of x^0..x^ORDER of (L)_r / L^n = x^(n - r) prod_{i < r} (1 - i x), x = 1/L."""
    poly = [mpm.mpf(1)] + [mpm.mpf(0)] * ORDER
    for i in range(r):
        poly = [poly[d] - (i * poly[d - 1] if d else 0) for d in range(ORDER + 1)]
    shift = n - r
    return [poly[d - shift] if d >= shift else mpm.mpf(0) for d in range(ORDER + 1)]


def _product_of_means(labels: str, raw) -> list:
    """E[prod of the sample means named by ``labels``] (``"A"``: mean of A, ``"B"``: mean of B) as
    coefficients of x^0..x^ORDER; ``raw(alpha, beta)`` = E[A^alpha B^beta] of one token."""
    n, total = len(labels), [mpm.mpf(0)] * (ORDER + 1)
    for pi in _partitions(list(labels)):
        if min(len(b) for b in pi) < 2 or n - len(pi) > ORDER:
            continue
        weight = mpm.fprod(raw(b.count("A"), b.count("B")) for b in pi)
        total = [t + weight * f for t, f in zip(total, _falling_over_power(len(pi), n))]
    return total


def expansion_from_moments_mp(mom: dict, dps: int = 30) -> dict:
    """(m2, c3, c4) of L * MSE = m2 + c3 / L + c4 / L^2 and (bias, d3, d4) of L * E[T_L - T] = bias + d3 / L +
    d4 / L^2 (bias and d's as lists over output entries) from ``mom`` as :func:`weight_moments_mp` returns it
    (``rho``, ``e``, ``s`` keyed by k = 1..4; any token law), by raw moments and falling factorials."""
    with mpm.workdps(dps):
        p = len(mom["e"][1])
        ew = {0: mpm.mpf(1), **{k: mpm.mpf(v) for k, v in mom["rho"].items()}}
        mse, bias = [mpm.mpf(0)] * (ORDER + 1), []
        for c in range(p):
            # E[w^k u_c^alpha]: alpha = 0, 1, 2
            wu = {0: ew, 1: {k: mpm.mpf(v[c]) for k, v in mom["e"].items()},
                  2: {k: mpm.mpf(v[c]) for k, v in mom["s"].items()}}

            def raw(alpha, beta, wu=wu):  # E[(w u_c)^alpha (w - 1)^beta]
                return mpm.fsum(math.comb(beta, i) * (-1) ** (beta - i) * wu[alpha][alpha + i] for i in range(beta + 1))

            b_c = [mpm.mpf(0)] * (ORDER + 1)
            for j in range(2 * ORDER):      # N delta^j: 1 + j factors; none reaches x^ORDER past j = 2 ORDER - 1
                b_c = [t + (-1) ** j * f for t, f in zip(b_c, _product_of_means("A" + "B" * j, raw))]
            for j in range(2 * ORDER - 1):  # |N|^2 delta^j: 2 + j factors
                mse = [t + (-1) ** j * (j + 1) * f for t, f in zip(mse, _product_of_means("AA" + "B" * j, raw))]
            bias.append(b_c)
        return {"m2": mse[1], "c3": mse[2], "c4": mse[3], "zeroth": mse[0],
                "bias": [b[1] for b in bias], "d3": [b[2] for b in bias], "d4": [b[3] for b in bias],
                "bias_zeroth": [b[0] for b in bias]}


def expansion_reference_mp(mix: GaussianMixture, U, V, z, dps: int = 30) -> dict:
    """:func:`weight_moments_mp` and :func:`expansion_from_moments_mp` at one configuration (exact inputs):
    the moments in expansion_reach's names (``rho1..rho4``, ``e1..e4``, ``m3``, ``m4`` = sum_c s[k]_c; ``m2`` is
    the coefficient, E[w^2 |u|^2]) and the coefficients ``m2 c3 c4 bias d3 d4`` (mpmath numbers; vectors as
    lists)."""
    with mpm.workdps(dps):
        mom = weight_moments_mp(mix, U, V, z, dps)
        out = {f"rho{k}": mom["rho"][k] for k in (1, 2, 3, 4)}
        out.update({f"e{k}": mom["e"][k] for k in (1, 2, 3, 4)})
        out.update({f"m{k}": mpm.fsum(mom["s"][k]) for k in (3, 4)})  # m2 is the coefficient m2 = E[w^2 |u|^2]
        out.update(expansion_from_moments_mp(mom, dps))
        return out
