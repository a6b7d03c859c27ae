"""Fitting rules across prompt lengths: the 1/L-limit rule, the log-log slope rule and the decay-rate
decision past a threshold, with the Student / Welch-Satterthwaite machinery for standard errors
estimated from the samples.  Each rule decides and describes itself (the interface of
:mod:`softmix.checks.rules`) and draws its level from the claim's :class:`~softmix.checks.rules.AlphaFamily`.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .rules import ALPHA, Rule, ZTest, _finite_positive, _margin_check, t_critical, z_critical
from .verdicts import verdict_of

__all__ = ["InverseLRule", "SlopeRule", "decay_rate_decision", "fit_inverse_L", "fit_loglog_slope", "mean_se_dof"]


def mean_se_dof(samples) -> float:
    """Effective degrees of freedom of the estimated standard error of a sample mean.

    The standard error s / sqrt(n) is itself estimated. For i.i.d. draws with variance sigma^2 and
    (non-excess) kurtosis kappa, the sample variance has Var(s^2) = sigma^4 (2 / (n - 1) +
    (kappa - 3) / n); matching the scaled chi-square s^2 ~ sigma^2 chi2_nu / nu gives
    nu = 2 / (2 / (n - 1) + (kappa - 3) / n): n - 1 for Gaussian draws, fewer for heavy tails (about
    n / 7 for squared Gaussian errors, kappa = 15).  kappa is the sample kurtosis (an estimate: the
    correction is second order).  Clipped to [1, n - 1] (lighter-than-Gaussian tails are not credited).
    """
    x = np.asarray(samples, float).ravel()
    n = x.size
    if n < 3:
        return 1.0
    c = x - x.mean()
    m2 = float(np.mean(c**2))
    if not (m2 > 0) or not math.isfinite(m2):
        return float(n - 1)
    kappa = float(np.mean(c**4)) / m2**2
    rel_var = 2 / (n - 1) + (kappa - 3) / n
    if rel_var <= 2 / (n - 1):
        return float(n - 1)
    return float(min(n - 1, max(1.0, 2 / rel_var)))


def _satterthwaite(shares, nus) -> float:
    """Welch-Satterthwaite degrees of freedom of sum_i shares_i chi2_{nu_i} / nu_i (shares >= 0)."""
    a = np.asarray(shares, float)
    nus = np.asarray(nus, float)
    den = float(np.sum(a**2 / nus))
    if not den > 0:
        return float(np.min(nus))
    return float(min(np.sum(nus), max(np.min(nus), float(np.sum(a)) ** 2 / den)))


def fit_inverse_L(Ls, values, ses) -> dict:
    """Weighted least squares ``y(L) = a + b / L`` with known standard errors.

    Returns the limit ``a``, its standard error, ``b``, the chi-square and its degrees of freedom.
    Exact for Gaussian ``y`` with the stated variances; the model truncates the O(1/L^2) remainder.
    """
    L = np.asarray(Ls, float)
    y = np.asarray(values, float)
    s = np.asarray(ses, float)
    if y.ndim == 1:
        y, s = y[:, None], s[:, None]
    X = np.vstack([np.ones_like(L), 1 / L]).T
    a, se_a, b, chi2s = [], [], [], []
    for j in range(y.shape[1]):
        W = 1 / s[:, j] ** 2
        cov = np.linalg.inv(X.T @ (W[:, None] * X))
        beta = cov @ (X.T @ (W * y[:, j]))
        a.append(float(beta[0]))
        b.append(float(beta[1]))
        se_a.append(float(math.sqrt(cov[0, 0])))
        chi2s.append(float(np.sum(W * (y[:, j] - X @ beta) ** 2)))
    dof = (len(L) - 2) * y.shape[1]
    # the total chi2 is chi-square with `dof` only for independent coordinates; coordinates estimated from
    # the same replicates are correlated, so InverseLRule tests each coordinate's chi2 (len(L) - 2 dof) instead
    return {"limit": a, "limit_se": se_a, "inverse_L_coefficient": b, "chi2": float(sum(chi2s)), "dof": int(dof),
            "chi2_per_coordinate": chi2s, "dof_per_coordinate": int(len(L) - 2),
            "model": "y(L) = a + b/L (weighted least squares, known standard errors)"}


class InverseLRule(Rule):
    """Limit of a sequence ``y(L) -> a`` with the O(1/L) remainder modelled: fit ``a + b/L`` over the
    prompt lengths and z-test ``a == predicted`` (and, with >= 3 lengths, the chi-square fit of the
    model).  The alpha is split in half between the two tests when both run."""

    def __init__(self, alpha: float, margin=None, relative: bool = False, name: str = "limit-with-1/L-remainder"):
        self.alpha, self.margin, self.relative, self.name = float(alpha), margin, relative, name

    def describe(self) -> str:
        m = "" if self.margin is None else f"; confirmed only if the limit's half-width <= {self.margin:g}" + (
            " x |predicted|" if self.relative else "")
        return (f"{self.name}: fit y(L) = a + b/L by weighted least squares (known Monte Carlo standard errors), "
                f"two-sided z-test of a == predicted (Bonferroni over coordinates) and, with >= 3 prompt lengths, a "
                f"chi-square goodness-of-fit test per coordinate (Bonferroni over coordinates); level {self.alpha:.3g} "
                f"split between them{m}")

    def decide(self, Ls, values, ses, predicted, n_samples=None, predicted_se=None) -> dict:
        """``predicted_se``: the standard error of ``predicted`` when it is itself a Monte Carlo estimate
        (independent of the sequence); the limit's z-test then uses sqrt(se_a^2 + predicted_se^2)."""
        Ls = list(Ls)
        if len(Ls) < 2 or len(set(Ls)) < 2:
            return self._wrap({"passed": None, "verdict": "inconclusive", "alpha": self.alpha,
                               "reason": "need at least two distinct prompt lengths to model the 1/L remainder"})
        if not _finite_positive(ses):
            return self._wrap({"passed": None, "verdict": "inconclusive", "alpha": self.alpha,
                               "reason": "zero or non-finite standard error: cannot decide"})
        fit = fit_inverse_L(Ls, values, ses)
        gof = fit["dof"] > 0
        a_lim = self.alpha / 2 if gof else self.alpha
        se_lim = fit["limit_se"] if predicted_se is None else list(np.hypot(fit["limit_se"], predicted_se))
        zt = ZTest(a_lim, self.margin, self.relative, name="limit").decide(fit["limit"], se_lim, predicted, n_samples)
        out = {"fit": fit, "limit_test": zt, "alpha": self.alpha}
        passed, verdict = zt["passed"], zt["verdict"]
        if gof:
            # one chi-square test per coordinate, Bonferroni over the coordinates: valid whatever their
            # correlation (the summed chi2 over correlated coordinates is not chi-square with the summed dof;
            # the full profile refuted fp-multihead-covariance with it, 23.7 against 22.1 at 5 dof)
            k = len(fit["chi2_per_coordinate"])
            crit = float(stats.chi2.isf(self.alpha / 2 / k, fit["dof_per_coordinate"]))
            fit_ok = max(fit["chi2_per_coordinate"]) <= crit
            out["goodness_of_fit"] = {"chi2": fit["chi2_per_coordinate"], "dof": fit["dof_per_coordinate"],
                                      "critical": crit, "alpha": self.alpha / 2, "n_tests": k,
                                      "rule": "per coordinate, Bonferroni", "passed": bool(fit_ok)}
            if not fit_ok:
                passed, verdict = False, "refuted"
        out.update({"passed": passed, "verdict": verdict})
        for key in ("half_width", "margin", "precise_enough", "samples_to_settle", "samples_unit"):
            if key in zt:
                out[key] = zt[key]
        return self._wrap(out)


def fit_loglog_slope(Ls, values, ses, alpha: float = ALPHA, remainder: bool = False,
                     scale: str = "known", se_dof=None) -> dict:
    """Weighted least squares of log(values) on log(L) (and 1/L with ``remainder=True``);
    SE(log v) = se / v (delta method).

    ``scale="known"`` (default): the standard errors are taken as known; no inflation, normal
    quantile for the (1 - alpha) slope interval; the chi-square statistic and its residual degrees
    of freedom are returned for a goodness-of-fit test (``SlopeRule`` runs it).
    ``scale="estimated"``: residual variance estimated (reduced chi-square, deflation included),
    Student quantile with ``n - p`` degrees of freedom.
    ``se_dof`` (with ``scale="known"``): the standard errors were estimated from samples, each with
    these effective degrees of freedom (:func:`mean_se_dof`); the interval then uses the Student
    quantile with the Welch-Satterthwaite degrees of freedom of the slope, a weighted sum
    sum_i c_i y_i of the points: nu = (sum_i a_i)^2 / sum_i (a_i^2 / nu_i) with a_i = c_i^2 se_i^2
    (each point counts by its share of the slope's variance; nu lies between the smallest and the
    sum of the nu_i).  ``gof_se_dof`` is the same for the chi-square statistic, whose terms weigh
    1 - h_ii under the model (h the leverages).
    """
    x = np.log(np.asarray(Ls, float))
    v = np.asarray(values, float)
    s = np.asarray(ses, float) / v
    W = 1 / s**2
    cols = [np.ones_like(x), x] + ([np.exp(-x)] if remainder else [])
    X = np.vstack(cols).T
    cov = np.linalg.inv(X.T @ (W[:, None] * X))
    beta = cov @ (X.T @ (W * np.log(v)))
    resid = np.log(v) - X @ beta
    dof = len(x) - X.shape[1]
    chi2 = float(np.sum(W * resid**2))
    if scale == "estimated":
        if dof < 1:
            raise ValueError("scale='estimated' needs more points than parameters")
        se = math.sqrt(cov[1, 1] * chi2 / dof)
        q = t_critical(dof, alpha)
        quantile = f"Student t, {dof} dof"
    elif se_dof is not None:
        nus = np.asarray(se_dof, float) * np.ones_like(x)
        c = (cov @ X.T * W)[1]  # slope = c . log(v)
        nu = _satterthwaite(c**2 * s**2, nus)
        lev = 1 - np.einsum("ij,jk,ik->i", X, cov, X) * W  # 1 - h_ii: each chi-square term's expected share
        nu_gof = _satterthwaite(np.clip(lev, 0, None), nus) if dof > 0 else None
        se = math.sqrt(cov[1, 1])
        q = float(stats.t.isf(alpha / 2, max(1.0, nu)))
        quantile = f"Student t, {nu:.4g} dof (standard errors estimated from samples)"
    else:
        se = math.sqrt(cov[1, 1])
        q = z_critical(1, alpha)
        quantile = "normal (known standard errors)"
    out = {"slope": float(beta[1]), "slope_se": se, "ci": [float(beta[1] - q * se), float(beta[1] + q * se)],
           "quantile": quantile, "critical_value": q, "chi2": chi2, "dof": int(dof),
           "reduced_chi2": chi2 / dof if dof > 0 else None, "parameters": X.shape[1]}
    if se_dof is not None and scale != "estimated":
        out["se_dof"] = nu
        out["gof_se_dof"] = nu_gof
        out["point_se_dof"] = [float(v) for v in nus]
    if remainder:
        out["inverse_L_coefficient"] = float(beta[2])
    return out


class SlopeRule(Rule):
    """The log-log slope of ``values`` against ``L`` equals ``target`` (a rate).

    * ``remainder=True`` fits ``log v = c + s log L + d / L`` (the known O(1/L) correction);
    * known standard errors: slope interval with the normal quantile at level alpha/2, plus the
      chi-square goodness-of-fit test at alpha/2 when the fit has residual degrees of freedom
      (otherwise the whole alpha goes to the interval);
    * ``margin``: confirmed only if the interval half-width <= margin (else inconclusive, with the
      replicate count that would settle it, scaling as 1/sqrt(n));
    * ``mode="contains"`` (default) refutes when ``target`` is outside the interval;
      ``mode="below"`` refutes when the interval does not lie below ``target`` ... with a twist:
      it is inconclusive (not refuted) when the interval straddles ``target`` -- a one-sided
      statement "the slope is negative" cannot be refuted by an imprecise fit.
    """

    def __init__(self, alpha: float, target: float = 0.0, margin=None, remainder: bool = False,
                 mode: str = "contains", name: str = "log-log slope", gof: bool = True, scale: str = "known"):
        if mode not in ("contains", "below"):
            raise ValueError("mode must be 'contains' or 'below'")
        if scale not in ("known", "estimated"):
            raise ValueError("scale must be 'known' or 'estimated'")
        self.alpha, self.target, self.margin, self.remainder, self.mode, self.name = (
            float(alpha), float(target), margin, remainder, mode, name)
        self.gof, self.scale = bool(gof) and scale == "known", scale

    def describe(self, se_dof: float | None = None) -> str:
        """The rule's text; ``se_dof`` (the slope's effective degrees of freedom) when the standard errors
        were estimated from the samples (Student interval, F goodness of fit)."""
        model = "log v = c + s log L + d/L" if self.remainder else "log v = c + s log L"
        what = (f"the interval contains s = {self.target:g}" if self.mode == "contains"
                else f"the interval lies below {self.target:g} (straddling it is inconclusive, above refutes)")
        m = "" if self.margin is None else f"; confirmed only if the half-width <= {self.margin:g}"
        if self.scale == "estimated":
            return (f"{self.name}: weighted least squares {model} (delta-method weights), residual scale estimated, "
                    f"Student-t slope interval with n - p degrees of freedom at level {self.alpha:.3g}; pass iff "
                    f"{what}{m}")
        if se_dof is None:
            ses, interval, gof = ("known Monte Carlo standard errors (delta method, no inflation)",
                                  "normal-quantile slope interval", "chi-square goodness of fit")
        else:
            ses, interval, gof = (f"Monte Carlo standard errors (delta method, no inflation; estimated with "
                                  f"{se_dof:.4g} effective dof)", "Student-quantile slope interval",
                                  "F goodness of fit")
        if not self.gof:
            return (f"{self.name}: weighted least squares {model} with {ses}, {interval} at level {self.alpha:.3g} "
                    f"(no goodness-of-fit test: the claim is about the sign/size of the slope, not a power law); "
                    f"pass iff {what}{m}")
        return (f"{self.name}: weighted least squares {model} with {ses}, {interval} and {gof}, level "
                f"{self.alpha:.3g} split between them; pass iff {what} and the model fits{m}")

    def decide(self, Ls, values, ses, n_samples=None, se_dof=None) -> dict:
        """``se_dof``: effective degrees of freedom of each standard error when it was estimated from
        the samples (:func:`mean_se_dof`); the interval then takes the Student quantile and the
        goodness of fit the F quantile (k F(k, nu) for k residual degrees of freedom), each with its
        Welch-Satterthwaite degrees of freedom (:func:`fit_loglog_slope`), instead of the normal and
        chi-square quantiles that treat the standard errors as exact (which makes both tests
        anti-conservative far in the tail)."""
        Ls, v, s = list(Ls), np.asarray(values, float), np.asarray(ses, float)
        p = 3 if self.remainder else 2
        if self.scale == "estimated":
            p += 1  # at least one residual degree of freedom to estimate the scale
        if len(Ls) < p or len(set(Ls)) < p:
            return self._wrap({"passed": None, "verdict": "inconclusive", "alpha": self.alpha,
                               "reason": f"need at least {p} distinct prompt lengths"})
        if not _finite_positive(s) or not np.all(np.isfinite(v)) or np.any(v <= 0):
            return self._wrap({"passed": None, "verdict": "inconclusive", "alpha": self.alpha,
                               "reason": "zero or non-finite standard error, or a non-positive value: cannot decide"})
        gof = self.gof and len(Ls) > p
        a_int = self.alpha / 2 if gof else self.alpha
        if se_dof is not None and (np.size(se_dof) == 0 or not np.all(np.asarray(se_dof, float) >= 1)):
            return self._wrap({"passed": None, "verdict": "inconclusive", "alpha": self.alpha,
                               "reason": "degrees of freedom of the standard errors below 1: cannot decide"})
        studentized = se_dof is not None and self.scale == "known"
        fit = fit_loglog_slope(Ls, v, s, alpha=a_int, remainder=self.remainder, scale=self.scale,
                               se_dof=se_dof if studentized else None)
        lo, hi = fit["ci"]
        out = {"fit": fit, "alpha": self.alpha, "interval_alpha": a_int}
        if self.mode == "contains":
            passed: bool | None = bool(lo <= self.target <= hi)
        else:
            passed = True if hi < self.target else (False if lo > self.target else None)
        if gof:
            k = fit["dof"]
            if studentized:
                crit = float(k * stats.f.isf(self.alpha / 2, k, max(1.0, fit["gof_se_dof"])))
            else:
                crit = float(stats.chi2.isf(self.alpha / 2, k))
            fit_ok = fit["chi2"] <= crit
            out["goodness_of_fit"] = {"chi2": fit["chi2"], "dof": k, "critical": crit,
                                      "distribution": (f"{k} F({k}, {fit['gof_se_dof']:.4g})" if studentized
                                                       else f"chi-square({k})"),
                                      "alpha": self.alpha / 2, "passed": bool(fit_ok)}
            if not fit_ok:
                passed = False
        _margin_check(out, (hi - lo) / 2, self.margin, n_samples, "replicates per prompt length")
        out["passed"] = passed
        out["verdict"] = verdict_of({"passed": passed, "precise_enough": out["precise_enough"]})
        if passed is None:
            out["reason"] = f"the slope interval [{lo:.3g}, {hi:.3g}] straddles {self.target:g}"
            if self.margin is None and "samples_to_settle" not in out and n_samples:
                gap = abs(self.target - fit["slope"])
                if gap > 0:
                    out["samples_to_settle"] = int(math.ceil(n_samples * ((hi - lo) / 2 / gap) ** 2))
                    out["samples_unit"] = "replicates per prompt length"
        if studentized:
            out["rule"] = self.describe(fit["se_dof"])
        return self._wrap(out)


def decay_rate_decision(alpha, Ls, values, ses, finite_pred, band, n_samples, name, margin=None) -> dict:
    """The decay rate of a sum of non-negative parts, one of them possibly slower than 1/L.

    Built on ``SlopeRule`` (known standard errors, normal-quantile slope interval at level ``alpha``,
    ``margin`` on its half-width; no goodness-of-fit test because the power law holds only up to the
    slowly varying (ln L)^b factor that ``band`` allows).

    finite prediction (``finite_pred``): pass iff the interval contains -1 (``SlopeRule`` as is).

    infinite prediction: the values are a sum of non-negative parts, a regular part c / L and
    L^(-p) (ln L)^b parts with slopes in ``band``, the slowest of which dominates only asymptotically.
    The local log-log slope of such a sum is a weighted average of its parts' slopes, so at reachable
    L it lies in [min(-1, band[0]), band[1]], not necessarily in ``band``. Refuted if the interval lies
    entirely outside that range or at or below -1; inconclusive if it contains -1 (the data cannot tell
    the decay from 1/L); else passes (the decay is slower than 1/L, which is what an infinite
    coefficient implies)."""
    rule = SlopeRule(alpha, target=-1.0, margin=margin, gof=False, name=name)
    dec = rule.decide(Ls, values, ses, n_samples=n_samples)
    dec["band"] = band
    dec["predicted_finite"] = bool(finite_pred)
    if finite_pred or dec.get("fit") is None:
        return dec
    allowed = [min(-1.0, band[0]), band[1]]
    dec["allowed_slopes"] = allowed
    lo, hi = dec["fit"]["ci"]
    if hi < allowed[0] or lo > allowed[1] or hi <= -1.0:
        passed = False
    elif lo <= -1.0:
        passed = None
        dec["reason"] = f"the slope interval [{lo:.3g}, {hi:.3g}] contains -1: the decay cannot be told from 1/L"
    else:
        passed = True
    dec["passed"] = passed
    dec["verdict"] = verdict_of({"passed": passed, "precise_enough": dec["precise_enough"]})
    conf = "" if margin is None else f"; confirmed only if the half-width <= {margin:g}"
    dec["rule"] = (f"{name}: weighted least squares log v = c + s log L with known Monte Carlo standard errors (delta "
                   f"method, no inflation), normal-quantile slope interval at level {alpha:.3g}, no goodness-of-fit "
                   "test (slowly varying (ln L)^b factors); an infinite coefficient passes iff the interval lies above "
                   f"-1 and meets the slopes {[round(x, 4) for x in allowed]} that a sum of a 1/L part and "
                   f"L^(-1/(2 lambda)) (ln L)^b parts can show (asymptotic band {[round(x, 4) for x in band]}); "
                   f"containing -1 is inconclusive; a finite prediction passes iff the interval contains -1{conf}")
    return dec


