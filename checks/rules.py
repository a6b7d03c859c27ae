"""Decision rules, fixed before any number is seen, and the per-claim alpha budget.

Statistics by construction
--------------------------
* :class:`AlphaFamily` -- one family-wise false-refutation level per claim (``ALPHA = 1e-3``).
  Every statistical test a claim runs draws its level from the claim's family (``split`` a share,
  ``take`` one of ``k`` equal parts, or open a ``sub`` family); the ledger goes into the evidence and
  spending more than the family's alpha raises :class:`AlphaOverspent`.  By the Bonferroni
  inequality the probability that a true claim is refuted is then at most the family's alpha.
* Rule objects decide AND describe themselves.  Interface (used by ``checks/api.py`` and the paper
  library)::

      rule.decide(...) -> {"passed": bool | None, "verdict": "confirmed" | "refuted" | "inconclusive", ...}
      rule.describe()  -> one-line rule text for the evidence

  ``passed`` is ``True`` when the data do not reject the claim, ``False`` when they do and ``None``
  when the rule cannot decide.  ``verdict`` is ``"confirmed"`` only when the claim is not rejected
  AND the interval is narrower than the margin declared up front; a wide interval gives
  ``"inconclusive"`` with ``samples_to_settle`` (how many samples, in the rule's own unit, would
  bring the half-width under the margin).  A zero or non-finite standard error, or too few points,
  gives ``"inconclusive"``, never ``"refuted"``.

  - :class:`ZTest` -- z-tests of estimate == predicted (two-sided or one-sided), Bonferroni over the
    entries; exact for Gaussian estimates, asymptotic (CLT) for Monte Carlo means.
  - :class:`SlopeRule` -- weighted least squares of log(value) on log(L) (optionally with the
    O(1/L) remainder ``c / L`` as a third column); the Monte Carlo standard errors are taken as
    known (no inflation) so the interval uses a normal quantile, and a chi-square goodness-of-fit
    test with the residual degrees of freedom is kept (a misfit refutes, it does not widen).
    When the standard errors were themselves estimated from the samples, ``decide(..., se_dof=...)``
    (from :func:`mean_se_dof`) switches to the Student quantile and the F goodness of fit, with
    Welch-Satterthwaite degrees of freedom.
    With ``scale="estimated"`` the residual variance is estimated instead and the interval uses the
    Student quantile with ``n - p`` degrees of freedom.
  - :class:`InverseLRule` -- fit ``y(L) = a + b / L`` across prompt lengths (the known O(1/L)
    remainder of an ``L * bias`` or ``L * MSE`` sequence) and z-test the limit ``a``.
  - :class:`Threshold` -- a deterministic bound (no alpha spent).
  - :func:`residual_test` -- precision-derived residual rule for high-precision numerics.
* :func:`combine` -- the claim's verdict from its rules' verdicts: any ``refuted`` refutes (each
  test ran at its share of alpha), else any ``inconclusive`` makes it inconclusive.
"""
from __future__ import annotations

import contextlib
import contextvars
import math

import mpmath as mpm
import numpy as np
from scipy import stats

__all__ = ["ALPHA", "claim_alpha", "alpha_share", "alpha_accounting", "AlphaFamily", "AlphaOverspent", "Rule", "ZTest", "SlopeRule", "InverseLRule", "Threshold",
           "combine", "decay_rate_decision", "z_critical", "t_critical", "mean_se_dof", "zscore_test", "residual_test", "fit_loglog_slope",
           "fit_inverse_L", "verdict_from", "fmt", "Residual", "Bound"]

#: Family-wise false-refutation level of every claim in softmix (all its Monte Carlo tests together).
ALPHA = 1e-3


# ---- alpha budget -----------------------------------------------------------------------------
#: the fraction of ALPHA the running check may spend (1 for a claim decided on one configuration)
_SHARE = contextvars.ContextVar("softmix_alpha_share", default=1.0)


def claim_alpha() -> float:
    """The family-wise level available to the check now running: ``ALPHA`` times the share the
    engine gave it.  A claim decided on n configurations (:func:`softmix.checks.configs.generic`)
    runs its check n times, each under a share of 1/n fixed before any configuration is drawn, so
    the claim as a whole is refuted falsely with probability at most ``ALPHA`` (Bonferroni)."""
    return ALPHA * _SHARE.get()


@contextlib.contextmanager
def alpha_share(share: float, label: str = ""):
    """Run the enclosed check under ``share`` of the current level (shares nest by product)."""
    share = float(share)
    if not (0 < share <= 1):
        raise ValueError(f"alpha share must lie in (0, 1], got {share!r}")
    token = _SHARE.set(_SHARE.get() * share)
    try:
        yield claim_alpha()
    finally:
        _SHARE.reset(token)


#: the root families opened by the running check, when the engine counts them (see alpha_accounting)
_ROOTS = contextvars.ContextVar("softmix_alpha_roots", default=None)


@contextlib.contextmanager
def alpha_accounting():
    """Collect the root :class:`AlphaFamily` objects opened while the enclosed check runs (a
    sub-family is counted through its parent); yields the list.  The runner sums their ``spent``
    into the result's ``alpha_spent``: the claim's actual false-refutation bound, which a record over
    many claims and seeds adds up to the number of type-I refutations it may expect."""
    roots: list = []
    token = _ROOTS.set(roots)
    try:
        yield roots
    finally:
        _ROOTS.reset(token)


class AlphaOverspent(ValueError):
    """A claim asked for more alpha than its family holds (a bug in the claim, never a verdict)."""


class AlphaFamily:
    """The family-wise level of one claim, handed out to its tests.

    >>> fam = AlphaFamily(1e-3)
    >>> fam.split("slope", 0.5)           # half the family for one test
    0.0005
    >>> q = fam.sub("queries", 0.5)       # a sub-family for 4 parallel tests
    >>> [q.take(f"z{i}", 4) for i in range(4)][0]
    0.000125
    >>> fam.spent == fam.alpha
    True

    Amounts are fractions of the family's *total* alpha; asking for more than what is left raises
    :class:`AlphaOverspent`.  ``ledger()`` is the record put into the evidence.
    """

    _TOL = 1e-12

    def __init__(self, alpha: float | None = None, name: str = "claim", _child: bool = False):
        """``alpha`` defaults to :func:`claim_alpha` (ALPHA, or the configuration's share of it)."""
        self.share = _SHARE.get() if alpha is None else None
        alpha = claim_alpha() if alpha is None else float(alpha)
        if not (0 < alpha < 1):
            raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
        self.alpha = alpha
        self.name = name
        self._parts: dict[str, object] = {}  # name -> float (a test) or AlphaFamily (a sub-family)
        roots = _ROOTS.get()
        if roots is not None and not _child:
            roots.append(self)

    # spending
    def _spend(self, name: str, amount: float):
        if name in self._parts:
            raise AlphaOverspent(f"{self.name}: alpha for {name!r} was already handed out")
        if amount <= 0:
            raise ValueError(f"{self.name}: share for {name!r} must be positive")
        if self.spent + amount > self.alpha * (1 + self._TOL):
            raise AlphaOverspent(f"{self.name}: {name!r} asks for {amount:.3g} but only "
                                 f"{self.remaining:.3g} of alpha = {self.alpha:.3g} is left")

    def split(self, name: str, share: float) -> float:
        """Spend ``share`` (a fraction of this family's total alpha) on the test ``name``."""
        amount = float(share) * self.alpha
        self._spend(name, amount)
        self._parts[name] = amount
        return amount

    def take(self, name: str, k: int = 1) -> float:
        """Spend one of ``k`` equal parts of this family's total alpha on the test ``name``."""
        if int(k) < 1:
            raise ValueError("k must be >= 1")
        return self.split(name, 1.0 / int(k))

    def rest(self, name: str) -> float:
        """Spend everything that is left on the test ``name``."""
        amount = self.remaining
        self._spend(name, amount)
        self._parts[name] = amount
        return amount

    def sub(self, name: str, share: float = 1.0) -> "AlphaFamily":
        """A sub-family holding ``share`` of this family's total alpha (e.g. one per configuration)."""
        amount = float(share) * self.alpha
        self._spend(name, amount)
        fam = AlphaFamily(amount, name=f"{self.name}/{name}", _child=True)
        self._parts[name] = fam
        return fam

    # accounting
    @property
    def spent(self) -> float:
        return float(sum(p.alpha if isinstance(p, AlphaFamily) else p for p in self._parts.values()))

    @property
    def remaining(self) -> float:
        return max(0.0, self.alpha - self.spent)

    def tests(self) -> dict:
        """Flat {path: alpha} of every test handed alpha (sub-families expanded)."""
        out = {}
        for k, p in self._parts.items():
            if isinstance(p, AlphaFamily):
                out.update({f"{k}/{kk}": v for kk, v in p.tests().items()})
            else:
                out[k] = p
        return out

    def ledger(self) -> dict:
        t = self.tests()
        out = {"family_alpha": self.alpha, "spent": float(sum(t.values())), "tests": t,
               "rule": "Bonferroni: the tests' levels sum to at most the family's alpha, so a true claim "
                       "is refuted with probability <= family_alpha"}
        if self.share is not None and self.share < 1:
            out["claim_alpha"] = ALPHA
            out["configuration_share"] = self.share
            out["rule"] += (f"; this configuration holds {self.share:.4g} of the claim's alpha = {ALPHA} "
                            "(split equally over its configurations before any was drawn)")
        return out


# ---- quantiles --------------------------------------------------------------------------------
def z_critical(n_tests: int = 1, alpha: float = ALPHA, sides: int = 2) -> float:
    """Normal quantile for level ``alpha`` split over ``n_tests`` tests (two-sided by default)."""
    return float(stats.norm.isf(alpha / (sides * max(1, n_tests))))


def t_critical(dof: int, alpha: float = ALPHA, sides: int = 2) -> float:
    return float(stats.t.isf(alpha / sides, max(1, int(dof))))


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


def _finite_positive(se) -> bool:
    se = np.asarray(se, float)
    return bool(se.size and np.all(np.isfinite(se)) and np.all(se > 0))


def _margin_check(out: dict, half_width: float, margin, n_samples=None, unit: str = "samples") -> dict:
    """Add the precision requirement: half-width <= margin, else inconclusive with a sample size."""
    out["half_width"] = float(half_width)
    out["margin"] = None if margin is None else float(margin)
    precise = margin is None or half_width <= margin
    out["precise_enough"] = bool(precise)
    if not precise and n_samples:
        # half-widths shrink like 1/sqrt(n)
        out["samples_to_settle"] = int(math.ceil(n_samples * (half_width / float(margin)) ** 2))
        out["samples_unit"] = unit
    return out


def _verdict(passed, precise) -> str:
    if passed is None:
        return "inconclusive"
    if not passed:
        return "refuted"
    return "confirmed" if precise else "inconclusive"


# ---- rule objects -----------------------------------------------------------------------------
class Rule:
    """Base class: ``decide(...) -> dict`` (with ``passed`` and ``verdict``) and ``describe() -> str``."""

    name = "rule"
    alpha: float = 0.0

    def describe(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def decide(self, *args, **kwargs) -> dict:  # pragma: no cover - overridden
        raise NotImplementedError

    def _wrap(self, out: dict) -> dict:
        out.setdefault("rule", self.describe())
        out.setdefault("test", self.name)
        return out


class ZTest(Rule):
    """z-tests of ``estimate == predicted`` entrywise, Bonferroni over the entries.

    ``sides``: ``"two"``; ``"upper"`` refutes only when the estimate is significantly ABOVE the
    prediction (a claimed upper bound); ``"lower"`` only when significantly below.
    ``margin``: the largest acceptable half-width of the (1 - alpha) interval of every entry (absolute,
    or relative to the largest |predicted| entry (at least ``floor``) with ``relative=True``); wider
    gives ``inconclusive``.
    """

    def __init__(self, alpha: float, margin=None, relative: bool = False, sides: str = "two", name: str = "z-test",
                 floor: float = 0.0):
        if sides not in ("two", "upper", "lower"):
            raise ValueError("sides must be 'two', 'upper' or 'lower'")
        self.alpha, self.margin, self.relative, self.sides, self.name = float(alpha), margin, relative, sides, name
        self.floor = float(floor)

    def describe(self) -> str:
        side = {"two": "two-sided", "upper": "one-sided (refute if above)", "lower": "one-sided (refute if below)"}
        m = "" if self.margin is None else (
            f"; confirmed only if the interval half-width <= {self.margin:g}" + (" x |predicted|" if self.relative else ""))
        return (f"{self.name}: {side[self.sides]} z-tests of estimate == predicted, Bonferroni over the entries, "
                f"level {self.alpha:.3g}{m}; zero/non-finite standard error -> inconclusive")

    def decide(self, estimate, se, predicted, n_samples=None) -> dict:
        est = np.atleast_1d(np.asarray(estimate, float)).ravel()
        se = np.atleast_1d(np.asarray(se, float)).ravel()
        pred = np.atleast_1d(np.asarray(predicted, float)).ravel()
        if se.size != est.size:
            se = np.broadcast_to(se, est.shape)
        if pred.size != est.size:
            pred = np.broadcast_to(pred, est.shape)
        if not _finite_positive(se) or not np.all(np.isfinite(est)) or not np.all(np.isfinite(pred)):
            return self._wrap({"passed": None, "verdict": "inconclusive", "alpha": self.alpha, "z": None,
                               "reason": "zero or non-finite standard error or estimate: cannot decide"})
        z = (est - pred) / se
        sides = 2 if self.sides == "two" else 1
        zc = z_critical(z.size, self.alpha, sides)
        if self.sides == "two":
            ok = bool(np.all(np.abs(z) <= zc))
        elif self.sides == "upper":
            ok = bool(np.all(z <= zc))
        else:
            ok = bool(np.all(z >= -zc))
        out = {"passed": ok, "z": [round(float(v), 3) for v in z], "z_critical": round(zc, 3), "alpha": self.alpha,
               "n_tests": int(z.size)}
        hw = float(np.max(zc * se))
        m = self.margin
        if m is not None and self.relative:
            m = float(m) * max(float(np.max(np.abs(pred))), self.floor)
        _margin_check(out, hw, m, n_samples)
        out["verdict"] = _verdict(ok, out["precise_enough"])
        return self._wrap(out)


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
                f"chi-square goodness-of-fit test per coordinate (Bonferroni over coordinates); level {self.alpha:.3g} split between them{m}")

    def decide(self, Ls, values, ses, predicted, n_samples=None) -> dict:
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
        zt = ZTest(a_lim, self.margin, self.relative, name="limit").decide(fit["limit"], fit["limit_se"], predicted,
                                                                             n_samples)
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
        for k in ("half_width", "margin", "precise_enough", "samples_to_settle", "samples_unit"):
            if k in zt:
                out[k] = zt[k]
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
                                  f"{se_dof:.4g} effective dof)", "Student-quantile slope interval", "F goodness of fit")
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
            passed = bool(lo <= self.target <= hi)
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
        out["verdict"] = _verdict(passed, out["precise_enough"])
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
    dec["verdict"] = "inconclusive" if passed is None else (
        "refuted" if not passed else ("confirmed" if dec["precise_enough"] else "inconclusive"))
    conf = "" if margin is None else f"; confirmed only if the half-width <= {margin:g}"
    dec["rule"] = (f"{name}: weighted least squares log v = c + s log L with known Monte Carlo standard errors (delta "
                   f"method, no inflation), normal-quantile slope interval at level {alpha:.3g}, no goodness-of-fit test "
                   f"(slowly varying (ln L)^b factors); an infinite coefficient passes iff the interval lies above -1 and "
                   f"meets the slopes {[round(x, 4) for x in allowed]} that a sum of a 1/L part and "
                   f"L^(-1/(2 lambda)) (ln L)^b parts can show (asymptotic band {[round(x, 4) for x in band]}); "
                   f"containing -1 is inconclusive; a finite prediction passes iff the interval contains -1{conf}")
    return dec


class Threshold(Rule):
    """A deterministic bound ``value <= limit`` (or ``>=``); spends no alpha.  ``None``/non-finite
    values are inconclusive."""

    alpha = 0.0

    def __init__(self, limit: float, op: str = "<=", name: str = "threshold"):
        if op not in ("<=", ">=", "<", ">"):
            raise ValueError("op must be one of <=, >=, <, >")
        self.limit, self.op, self.name = float(limit), op, name

    def describe(self) -> str:
        return f"{self.name}: deterministic bound value {self.op} {self.limit:g} (no alpha spent)"

    def decide(self, value) -> dict:
        if value is None or not np.isfinite(float(value)):
            return self._wrap({"passed": None, "verdict": "inconclusive", "value": None,
                               "reason": "non-finite value"})
        v = float(value)
        ok = {"<=": v <= self.limit, ">=": v >= self.limit, "<": v < self.limit, ">": v > self.limit}[self.op]
        return self._wrap({"passed": bool(ok), "verdict": "confirmed" if ok else "refuted", "value": v,
                           "limit": self.limit})


def combine(*decisions) -> str:
    """A claim's verdict from its rules' decisions (dicts with ``verdict``) or verdict strings:
    refuted if any test rejects, else inconclusive if any cannot decide, else confirmed."""
    vs = [d["verdict"] if isinstance(d, dict) else d for d in decisions]
    if "error" in vs:
        return "error"
    if "refuted" in vs:
        return "refuted"
    if "inconclusive" in vs:
        return "inconclusive"
    return "confirmed"


# ---- functional forms kept for callers ---------------------------------------------------------
def zscore_test(estimate, se, predicted, alpha: float = ALPHA) -> dict:
    """Two-sided z-tests of estimate == predicted, elementwise, Bonferroni over all entries
    (``ZTest(alpha).decide`` without a margin).  A zero or non-finite standard error gives
    ``passed = None`` and verdict ``inconclusive``."""
    return ZTest(alpha).decide(estimate, se, predicted)


def residual_test(residual, dps: int, scale=1, guard: int = 10) -> dict:
    """|residual| <= 10^(guard - dps) * max(1, |scale|): precision-derived, no alpha."""
    tol = mpm.mpf(10) ** (guard - int(dps)) * max(mpm.mpf(1), abs(mpm.mpf(scale)))
    res = abs(mpm.mpf(residual))
    return {"passed": bool(res <= tol), "residual": mpm.nstr(res, 5), "tolerance": mpm.nstr(tol, 3),
            "dps": int(dps)}


def verdict_from(passed, kind: str = "numeric") -> str:
    if passed is None:
        return "inconclusive"
    if passed:
        return "verified" if kind == "symbolic" else "confirmed"
    return "refuted"


def fmt(x, digits: int = 6) -> str:
    if isinstance(x, mpm.mpf):
        return mpm.nstr(x, digits)
    return f"{float(x):.{digits}g}"


# ---- exact and high-precision rule objects (the claim API, checks/api.py) ----------------------
def _rule_verdict(passed) -> str:
    return "inconclusive" if passed is None else ("confirmed" if passed else "refuted")


class Residual(Rule):
    """High-precision agreement: |value - reference| <= 10^(guard - dps) * max(1, |scale|) at
    ``dps`` digits (exact arithmetic rounded at ``dps`` digits: the tolerance is derived from the
    precision, not tuned).  No alpha is spent."""

    name = "residual"

    def __init__(self, dps: int, guard: int = 10):
        self.dps, self.guard = int(dps), int(guard)

    def describe(self) -> str:
        return (f"{self.name}: |value - reference| <= 10^({self.guard} - {self.dps}) * max(1, |reference|) "
                f"at {self.dps} digits")

    def decide(self, residual, scale=1) -> dict:
        out = residual_test(residual, self.dps, scale=scale, guard=self.guard)
        out["verdict"] = _rule_verdict(out["passed"])
        return self._wrap(out)


class Bound(Rule):
    """An inequality ``lhs <= rhs + slack`` (``strict``: ``lhs < rhs + slack``) on exact or
    high-precision values (Fractions, SymPy numbers, mpmath); ``slack`` is the declared numerical
    allowance.  No alpha is spent; a non-finite side cannot decide."""

    name = "bound"

    def __init__(self, slack=0, strict: bool = False):
        self.slack, self.strict = slack, bool(strict)

    def describe(self) -> str:
        op = "<" if self.strict else "<="
        return f"{self.name}: lhs {op} rhs" + (f" + {self.slack}" if self.slack else "") + " (exact or high precision)"

    def decide(self, lhs, rhs) -> dict:
        try:
            a, b, slack = _exact_or_mp(lhs), _exact_or_mp(rhs), _exact_or_mp(self.slack)
            if any(isinstance(x, mpm.mpf) for x in (a, b, slack)):  # mixed: compare in mpmath
                a, b, slack = (x if isinstance(x, mpm.mpf) else mpm.mpf(x.numerator) / x.denominator
                               for x in (a, b, slack))
            finite = all(mpm.isfinite(x) if isinstance(x, mpm.mpf) else True for x in (a, b, slack))
        except (TypeError, ValueError):
            finite = False
        if not finite:
            return self._wrap({"passed": None, "verdict": "inconclusive", "reason": "non-finite side"})
        ok = a < b + slack if self.strict else a <= b + slack
        return self._wrap({"passed": bool(ok), "verdict": _rule_verdict(bool(ok)), "lhs": _show(a), "rhs": _show(b)})


def _exact_or_mp(x):
    """Fractions and integers stay exact (compared exactly); SymPy numbers and floats become mpf
    at the current mpmath precision."""
    from fractions import Fraction

    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return Fraction(x)
    if hasattr(x, "is_Rational") and x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    if hasattr(x, "evalf"):
        x = x.evalf(mpm.mp.dps + 5)
        return mpm.mpf(x._mpf_) if hasattr(x, "_mpf_") else mpm.mpf(str(x))
    return mpm.mpf(x)


def _show(x):
    return str(x) if not isinstance(x, mpm.mpf) else mpm.nstr(x, 15)
