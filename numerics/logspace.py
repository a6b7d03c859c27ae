"""float64 products ``exp(l) * x`` and sums of them without ``inf * 0`` or ``inf - inf``.

The finite-prompt constants are ``rho * (finite quantity)`` with ``rho = exp(l)``; past
``l ~ 709.78`` float64 overflows and ``rho * x`` gives ``nan`` wherever ``x`` is zero, and a sum of
two overflowing terms of opposite signs gives ``nan`` too.  Here the scale stays a logarithm until
the end: the result is the correctly signed ``inf`` when its magnitude exceeds float64, exactly 0
when the finite factor is 0, and a finite value otherwise (relative error about ``|l| * 2^-52``
from the exponential; the high-precision ``_mp`` functions give the digits when that matters).
"""
from __future__ import annotations

import numpy as np

__all__ = ["scaled", "scaled_sum"]


def scaled(log_scale, x) -> np.ndarray:
    """``exp(log_scale) * x`` elementwise (``log_scale`` broadcasts against ``x``): ``sign(x) *
    exp(log_scale + log|x|)``, never ``nan`` for finite ``log_scale`` and ``x``."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", over="ignore"):
        mag = np.exp(np.asarray(log_scale, dtype=float) + np.log(np.abs(x)))
    return np.where(x == 0, 0.0, np.sign(x) * mag)


def scaled_sum(terms) -> np.ndarray:
    """``sum_i exp(l_i) * c_i`` for ``terms = [(l_i, c_i), ...]`` (arrays of one shape), by a signed
    log-sum-exp: ``+-inf`` when the sum's magnitude exceeds float64, never ``nan`` for finite input;
    cancellation is resolved as well as float64 resolves it at the largest term's scale."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        L = np.stack([np.asarray(l, float) + np.log(np.abs(np.asarray(c, float))) for l, c in terms])
        S = np.stack([np.sign(np.asarray(c, float)) for _l, c in terms])
        M = L.max(axis=0)
        M = np.where(np.isfinite(M), M, 0.0)
        s = (S * np.exp(L - M)).sum(axis=0)
        out = np.sign(s) * np.exp(M + np.log(np.abs(s)))
    return np.where(s == 0, 0.0, out)
