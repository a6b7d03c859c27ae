"""Decision rules, fixed before any number is seen.

* residual rule: |derived - reference| <= 10^(guard - dps) * scale (precision-derived);
* z-score rule: every |z| <= z_crit with z_crit the two-sided Bonferroni quantile for family-wise
  level ``alpha`` over the number of simultaneous tests;
* slope rule: the predicted log-log slope lies in the fitted slope's (1 - alpha) interval.
"""
from __future__ import annotations

import math

import mpmath as mpm
import numpy as np
from scipy import stats

__all__ = ["ALPHA", "z_critical", "zscore_test", "residual_test", "fit_loglog_slope", "verdict_from",
           "fmt"]

#: Family-wise false-refutation level of every Monte Carlo rule in softmix.
ALPHA = 1e-3


def z_critical(n_tests: int = 1, alpha: float = ALPHA) -> float:
    return float(stats.norm.isf(alpha / (2 * max(1, n_tests))))


def zscore_test(estimate, se, predicted, alpha: float = ALPHA) -> dict:
    """Two-sided z-tests of estimate == predicted, elementwise, Bonferroni over all entries."""
    est = np.atleast_1d(np.asarray(estimate, float)).ravel()
    se = np.atleast_1d(np.asarray(se, float)).ravel()
    pred = np.atleast_1d(np.asarray(predicted, float)).ravel()
    if np.any(se <= 0) or not np.all(np.isfinite(se)):
        return {"passed": False, "reason": "non-positive or non-finite standard error", "z": None}
    z = (est - pred) / se
    zc = z_critical(z.size, alpha)
    return {"passed": bool(np.all(np.abs(z) <= zc)), "z": [round(float(v), 3) for v in z],
            "z_critical": round(zc, 3), "alpha": alpha, "n_tests": int(z.size)}


def residual_test(residual, dps: int, scale=1, guard: int = 10) -> dict:
    tol = mpm.mpf(10) ** (guard - int(dps)) * max(mpm.mpf(1), abs(mpm.mpf(scale)))
    res = abs(mpm.mpf(residual))
    return {"passed": bool(res <= tol), "residual": mpm.nstr(res, 5), "tolerance": mpm.nstr(tol, 3),
            "dps": int(dps)}


def fit_loglog_slope(Ls, values, ses, alpha: float = ALPHA) -> dict:
    """Weighted least squares of log(values) on log(L), SE(log v) = se / v (delta method).
    Returns slope, its standard error and the (1 - alpha) confidence interval."""
    x = np.log(np.asarray(Ls, float))
    v = np.asarray(values, float)
    s = np.asarray(ses, float) / v
    W = 1 / s**2
    X = np.vstack([np.ones_like(x), x]).T
    cov = np.linalg.inv(X.T @ (W[:, None] * X))
    beta = cov @ (X.T @ (W * np.log(v)))
    resid = np.log(v) - X @ beta
    dof = max(1, len(x) - 2)
    chi2 = float(np.sum(W * resid**2))
    # inflate by the reduced chi-square if the model misfits (honest intervals)
    infl = max(1.0, chi2 / dof)
    se = math.sqrt(cov[1, 1] * infl)
    zc = z_critical(1, alpha)
    return {"slope": float(beta[1]), "slope_se": se, "ci": [float(beta[1] - zc * se), float(beta[1] + zc * se)],
            "reduced_chi2": chi2 / dof}


def verdict_from(passed: bool, kind: str = "numeric") -> str:
    if passed:
        return "verified" if kind == "symbolic" else "confirmed"
    return "refuted"


def fmt(x, digits: int = 6) -> str:
    if isinstance(x, mpm.mpf):
        return mpm.nstr(x, digits)
    return f"{float(x):.{digits}g}"
