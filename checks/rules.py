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
  - :class:`~softmix.checks.fits.SlopeRule` (in :mod:`softmix.checks.fits`) -- weighted least squares of
    log(value) on log(L) (optionally with the O(1/L) remainder ``c / L`` as a third column); the Monte Carlo standard
    errors are taken as known (no inflation) so the interval uses a normal quantile, and a chi-square goodness-of-fit
    test with the residual degrees of freedom is kept (a misfit refutes, it does not widen).
    When the standard errors were themselves estimated from the samples, ``decide(..., se_dof=...)``
    (from :func:`mean_se_dof`) switches to the Student quantile and the F goodness of fit, with
    Welch-Satterthwaite degrees of freedom.
    With ``scale="estimated"`` the residual variance is estimated instead and the interval uses the
    Student quantile with ``n - p`` degrees of freedom.
  - :class:`~softmix.checks.fits.InverseLRule` (in :mod:`softmix.checks.fits`) -- fit ``y(L) = a + b / L``
    across prompt lengths (the known O(1/L) remainder of an ``L * bias`` or ``L * MSE`` sequence) and z-test the limit
    ``a``.
  - :class:`Threshold` -- a deterministic bound (no alpha spent).
  - :class:`Residual` -- precision-derived agreement of high-precision numerics
    (``Residual(digits=d)``: agree to d digits; ``Residual(dps=p, guard=g)``: p - g digits).
  - :class:`Float64Agreement` -- a float64 result against an exact or high-precision reference,
    tolerance ``ulps * condition * eps * max(1, |reference|)`` from machine epsilon and the
    problem's condition number.
* Verdicts: a rule's row gets its verdict from :func:`softmix.checks.verdicts.verdict_of` (the one
  row mapper) and rows combine by :func:`softmix.checks.verdicts.combine`: any ``refuted`` refutes
  (each test ran at its share of alpha), else any ``error`` errs, else any ``inconclusive`` makes it
  inconclusive.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
from typing import Any

import mpmath as mpm
import numpy as np
from scipy import stats

from .verdicts import verdict_of

__all__ = ["ALPHA", "claim_alpha", "alpha_share", "alpha_accounting", "AlphaFamily", "AlphaOverspent", "Rule", "ZTest",
           "Threshold", "z_critical", "t_critical", "zscore_test", "residual_test", "fmt",
           "Residual", "Float64Agreement", "EPS64", "Bound", "ChiSquareCalibration"]

#: Family-wise false-refutation level of every claim in softmix (all its Monte Carlo tests together).
ALPHA = 1e-3


# ---- alpha budget -----------------------------------------------------------------------------
#: the fraction of ALPHA the running check may spend (1 for a claim decided on one configuration)
_SHARE = contextvars.ContextVar("softmix_alpha_share", default=1.0)


def claim_alpha() -> float:
    """The family-wise level available to the check now running: ``ALPHA`` times the share the
    engine gave it.  A claim decided on n configurations (``configurations=softmix.Draws(...)``)
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
_ROOTS: contextvars.ContextVar[list | None] = contextvars.ContextVar("softmix_alpha_roots", default=None)


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
        self._parts: dict[str, float | AlphaFamily] = {}  # name -> a test's level, or a sub-family
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
        out: dict[str, Any] = {"family_alpha": self.alpha, "spent": float(sum(t.values())), "tests": t,
                               "rule": "Bonferroni: the tests' levels sum to at most the family's alpha, so a true "
                                       "claim is refuted with probability <= family_alpha"}
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
            f"; confirmed only if the interval half-width <= {self.margin:g}"
            + (" x |predicted|" if self.relative else ""))
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
        out["verdict"] = verdict_of({"passed": ok, "precise_enough": out["precise_enough"]})
        return self._wrap(out)


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


class ChiSquareCalibration(Rule):
    """Calibration of standard errors: over independent runs, ``sum_i z_i^2`` of the z-scores ``(estimate_i -
    exact) / se_i`` is chi-square with ``n`` degrees of freedom when each ``se_i`` is right; two-sided test at
    ``alpha`` (too small a sum: standard errors too large; too large: too small).  A non-finite z cannot decide.

    >>> ChiSquareCalibration(1e-3).decide([0.5, -1.0, 1.2, 0.1])["verdict"]
    'confirmed'
    >>> ChiSquareCalibration(1e-3).decide([9.0, -8.0, 7.0, 9.0])["verdict"]
    'refuted'
    """

    def __init__(self, alpha: float, name: str = "standard-error calibration"):
        self.alpha, self.name = float(alpha), name

    def describe(self) -> str:
        return (f"{self.name}: the sum over independent runs of squared z-scores (estimate - exact) / se lies in the "
                f"two-sided chi-square(n) interval at level {self.alpha:.3g}")

    def decide(self, zs) -> dict:
        z = np.asarray(zs, float).ravel()
        if z.size == 0 or not np.all(np.isfinite(z)):
            return self._wrap({"passed": None, "verdict": "inconclusive", "alpha": self.alpha,
                               "reason": "a run had a zero or non-finite standard error: cannot decide"})
        chi2 = float(np.sum(z**2))
        lo, hi = float(stats.chi2.ppf(self.alpha / 2, z.size)), float(stats.chi2.isf(self.alpha / 2, z.size))
        ok = bool(lo <= chi2 <= hi)
        return self._wrap({"passed": ok, "verdict": verdict_of({"passed": ok}), "chi2": chi2, "dof": int(z.size),
                           "interval": [lo, hi], "alpha": self.alpha})


# ---- functional forms kept for callers ---------------------------------------------------------
def zscore_test(estimate, se, predicted, alpha: float = ALPHA) -> dict:
    """Two-sided z-tests of estimate == predicted, elementwise, Bonferroni over all entries
    (``ZTest(alpha).decide`` without a margin).  A zero or non-finite standard error gives
    ``passed = None`` and verdict ``inconclusive``."""
    return ZTest(alpha).decide(estimate, se, predicted)


def residual_test(residual, dps: int, scale=1, guard: int = 10) -> dict:
    """|residual| <= 10^(guard - dps) * max(1, |scale|): precision-derived, no alpha."""
    tol = mpm.mpf(10) ** (guard - int(dps)) * max(mpm.mpf(1), abs(_real_mp(scale)))
    res = abs(_real_mp(residual))
    return {"passed": bool(res <= tol), "residual": mpm.nstr(res, 5), "tolerance": mpm.nstr(tol, 3),
            "dps": int(dps)}


def _real_mp(x):
    """An mpf from an mpf, float, int, Fraction or SymPy number (exact ones rounded at the current precision)."""
    if isinstance(x, mpm.mpf):
        return x
    v = _exact_or_mp(x.item() if isinstance(x, np.generic) else x)
    return v if isinstance(v, mpm.mpf) else mpm.mpf(v.numerator) / v.denominator


def fmt(x, digits: int = 6) -> str:
    if isinstance(x, mpm.mpf):
        return mpm.nstr(x, digits)
    return f"{float(x):.{digits}g}"


# ---- exact and high-precision rule objects (the claim API, checks/api.py) ----------------------
class Residual(Rule):
    """High-precision agreement, the tolerance derived from the precision (not tuned).  No alpha.

    Say it one of two equivalent ways:

    * ``Residual(digits=d)`` -- the value and the reference agree to ``d`` digits:
      ``|value - reference| <= 10^-d * max(1, |scale|)``; compute them at ``rule.dps = d + guard``
      digits, so the last ``guard`` (default 10) digits absorb rounding;
    * ``Residual(dps=p, guard=g)`` -- the values were computed at ``p`` digits; the tolerance is
      ``10^(g - p) * max(1, |scale|)``, i.e. ``digits = p - g``.

    A positional argument is ``dps`` (kept for existing callers): ``Residual(50)`` checks 40 digits,
    and ``Residual(12)`` checks 2 digits (a tolerance of 1e-2), *not* 12 -- write
    ``Residual(digits=12)`` for that.  ``decide(residual, scale=1)`` takes ``value - reference``
    (any real: mpf, Fraction, float; or an array / mpmath matrix, whose largest entry in absolute
    value is used) and the size of the reference (idem).  A rule that would check no digit
    (``digits < 1``) is refused (ValueError).
    """

    name = "residual"

    def __init__(self, dps: int | None = None, guard: int = 10, *, digits: int | None = None):
        if (dps is None) == (digits is None):
            raise TypeError("Residual takes either dps (the working precision) or digits (the digits that must agree)")
        self.guard = int(guard)
        if self.guard < 0:
            raise ValueError(f"Residual: guard must be >= 0, got {guard!r}")
        self.dps = int(digits) + self.guard if digits is not None else int(dps)  # type: ignore[arg-type]
        if self.digits < 1:
            raise ValueError(f"Residual: dps={self.dps} with guard={self.guard} leaves {self.digits} digit(s) to "
                             "check; raise dps or write Residual(digits=...)")

    @property
    def digits(self) -> int:
        """The number of digits that must agree (``dps - guard``)."""
        return self.dps - self.guard

    def describe(self) -> str:
        return (f"{self.name}: |value - reference| <= 10^-{self.digits} * max(1, |reference|) (agreement to "
                f"{self.digits} digits; values at {self.dps} digits, {self.guard} guard digits)")

    def decide(self, residual, scale=1) -> dict:
        many = (list, tuple, np.ndarray, mpm.matrix)  # arrays: the largest entry in absolute value
        residual, scale = (_max_abs(x) if isinstance(x, many) else x for x in (residual, scale))
        out = residual_test(residual, self.dps, scale=scale, guard=self.guard)
        out["digits"] = self.digits
        out["verdict"] = verdict_of(out)
        return self._wrap(out)


#: machine epsilon of IEEE double precision (the spacing of floats at 1)
EPS64 = 2.0 ** -52


class Float64Agreement(Rule):
    """A float64 result agrees with an exact or high-precision reference to what float64 can give::

        |value - reference| <= ulps * condition * eps * max(floor, |scale|),   eps = 2^-52

    * ``condition`` -- the condition number of the computation: how much relative errors of size
      eps in the inputs and intermediate steps can grow in the result.  1 for sums of positive
      terms and products; for a softmax gate or a log-sum-exp of scores s_k about
      ``1 + max_k |s_k|`` (an absolute error eps |s_k| in a score is a relative error of the gate);
      for a linear solve the matrix's condition number.  You state it from the problem, before
      looking at the residual.
    * ``ulps`` -- allowance for the number of rounding steps (default 64); ``floor`` (default 1):
      below that scale the agreement is absolute, as in :class:`Residual`.

    ``decide(residual, scale=1)`` takes ``value - reference`` (a number, or an array / mpmath
    matrix, whose largest entry in absolute value is used) and the size of the reference (idem).
    The reference's own error must be negligible: exact, or computed at 30 digits or more.  A
    non-finite residual (float64 overflow or NaN) or scale cannot decide: ``inconclusive``.  No alpha.
    """

    name = "float64-agreement"

    def __init__(self, condition: float = 1.0, ulps: float = 64, floor: float = 1.0):
        self.condition, self.ulps, self.floor = float(condition), float(ulps), float(floor)
        if not (math.isfinite(self.condition) and self.condition >= 1):
            raise ValueError(f"Float64Agreement: condition must be a finite number >= 1, got {condition!r}")
        if not (self.ulps > 0 and self.floor >= 0):
            raise ValueError("Float64Agreement: ulps must be > 0 and floor >= 0")

    @property
    def rtol(self) -> float:
        """The relative tolerance ``ulps * condition * eps``."""
        return self.ulps * self.condition * EPS64

    def tolerance(self, scale=1) -> float:
        """The absolute tolerance at reference size ``scale``."""
        return self.rtol * max(self.floor, float(_max_abs(scale)))

    def describe(self) -> str:
        return (f"{self.name}: |value - reference| <= {self.ulps:g} ulps x condition {self.condition:g} x eps "
                f"(2^-52) x max({self.floor:g}, |reference|) = {self.rtol:.3g} x max({self.floor:g}, |reference|)")

    def decide(self, residual, scale=1) -> dict:
        res = _max_abs(residual)
        if not mpm.isfinite(res):
            return self._wrap({"passed": None, "verdict": "inconclusive", "residual": mpm.nstr(res, 5),
                               "reason": "non-finite float64 value (overflow or NaN): cannot decide"})
        if not mpm.isfinite(_max_abs(scale)):
            return self._wrap({"passed": None, "verdict": "inconclusive", "residual": mpm.nstr(res, 5),
                               "reason": "non-finite reference scale: no tolerance to decide with"})
        tol = self.tolerance(scale)
        ok = bool(res <= tol)
        unit = self.condition * EPS64 * max(self.floor, float(_max_abs(scale)))
        return self._wrap({"passed": ok, "verdict": verdict_of({"passed": ok}), "residual": mpm.nstr(res, 5),
                           "tolerance": f"{tol:.3g}", "ulps_used": round(float(res) / unit, 2) if unit else None})


def _max_abs(x):
    """Largest |entry| of a number, a sequence, a NumPy array or an mpmath matrix, as an mpf (inf/nan kept)."""
    if isinstance(x, mpm.matrix):
        vals = [x[i, j] for i in range(x.rows) for j in range(x.cols)]
    elif isinstance(x, (list, tuple, np.ndarray)):
        vals = list(np.asarray(x, dtype=object).ravel())
    else:
        vals = [x]
    with mpm.workdps(30):
        out = mpm.mpf(0)
        for v in vals:
            v = _exact_or_mp(v.item() if isinstance(v, np.generic) else v)
            a = abs(v if isinstance(v, mpm.mpf) else mpm.mpf(v.numerator) / v.denominator)
            if mpm.isnan(a):
                return a
            out = max(out, a)
        return out


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
        return self._wrap({"passed": bool(ok), "verdict": verdict_of({"passed": bool(ok)}), "lhs": _show(a),
                           "rhs": _show(b)})


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
