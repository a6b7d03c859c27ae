"""Validated numeric Gaussian mixtures with exact JSON input (paper Sec. 2 setting).

A :class:`GaussianMixture` keeps the exact rational entries it was built from (decimal strings
in JSON are parsed exactly, so inputs can carry 40 digits) and derives float64 arrays and
mpmath matrices from them on demand.  Validation is strict: positive weights summing to one,
symmetric PSD covariances (degenerate allowed), consistent shapes, finite numbers.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

import mpmath as mpm
import numpy as np

from .errors import InputError
from .precision import inexact_floats, to_fraction, to_mpf

__all__ = ["GaussianMixture", "read_matrix", "parse_number", "load_json_file", "psd_sqrt"]

WEIGHT_SUM_TOL = Fraction(1, 10**12)


def _show(x) -> str:
    """Short JSON-ish rendering of any parsed value (Decimals included) for error messages."""
    text = json.dumps(x, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_number(x, where: str) -> Fraction:
    if isinstance(x, bool) or x is None or isinstance(x, (list, dict)):
        raise InputError(f"{where}: expected a number, got {_show(x)}")
    try:
        if isinstance(x, float) and not math.isfinite(x):
            raise InputError(f"{where}: non-finite number {x}")
        if isinstance(x, str) and "/" in x:
            num, den = x.split("/", 1)
            f = Fraction(Decimal(num.strip())) / Fraction(Decimal(den.strip()))
            return f
        if isinstance(x, str):
            d = Decimal(x.strip())
            if not d.is_finite():
                raise InputError(f"{where}: non-finite number {x!r}")
            return Fraction(d)
        if isinstance(x, Decimal):
            if not x.is_finite():
                raise InputError(f"{where}: non-finite number {x}")
            return Fraction(x)
        return to_fraction(x)
    except (InvalidOperation, ValueError, TypeError, ZeroDivisionError) as e:
        if isinstance(e, InputError):
            raise
        raise InputError(f"{where}: not a number: {x!r}") from None


def _reject_constant(c):
    raise InputError(f"non-finite number {c} in JSON")


def load_json_file(path) -> object:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise InputError(f"{path}: cannot read file ({e.strerror or e})") from None
    try:
        return json.loads(text, parse_float=Decimal, parse_constant=_reject_constant)
    except InputError as e:
        raise InputError(f"{path}: {e}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: invalid JSON ({e.msg} at line {e.lineno})") from None


def _as_matrix(obj, where: str) -> list[list[Fraction]]:
    if not isinstance(obj, list) or not obj:
        raise InputError(f"{where}: expected a non-empty list of rows")
    rows = []
    for i, r in enumerate(obj):
        if not isinstance(r, list) or not r:
            raise InputError(f"{where}: row {i} is not a non-empty list")
        rows.append([parse_number(v, f"{where}[{i}][{j}]") for j, v in enumerate(r)])
    n = len(rows[0])
    if any(len(r) != n for r in rows):
        raise InputError(f"{where}: rows have different lengths")
    return rows


def read_matrix(path_or_obj, where: str | None = None) -> list[list[Fraction]]:
    """A matrix file is a JSON list of rows."""
    if isinstance(path_or_obj, (str, Path)):
        obj = load_json_file(path_or_obj)
        where = where or str(path_or_obj)
    else:
        obj = path_or_obj
        where = where or "matrix"
    return _as_matrix(obj, where)


def psd_sqrt(G: np.ndarray) -> np.ndarray:
    """L with L L^T = G for symmetric PSD G (eigen-decomposition; works for singular G)."""
    w, Q = np.linalg.eigh(G)
    w = np.clip(w, 0.0, None)
    return Q * np.sqrt(w)


@dataclass(frozen=True)
class GaussianMixture:
    """sum_k pi_k N(m_k, G_k) with exact entries (tuples of Fractions).

    ``inexact_floats`` names the entries that were given as floats not exactly equal to the decimal
    they print as (kept at their binary value); an ``_mp`` function given this mixture warns about
    them (:class:`softmix.numerics.precision.PrecisionWarning`).  It takes no part in equality."""

    weights: tuple
    means: tuple
    covariances: tuple
    inexact_floats: tuple = field(default=(), compare=False, repr=False)

    # ---- construction & validation ----------------------------------------------------------
    @classmethod
    def from_values(cls, weights, means, covariances, where: str = "mixture", normalize: bool = False) -> "GaussianMixture":
        if not isinstance(weights, (list, tuple, np.ndarray)) or len(weights) == 0:
            raise InputError(f"{where}: 'weights' must be a non-empty list")
        w = [parse_number(v, f"{where}: weights[{k}]") for k, v in enumerate(list(weights))]
        K = len(w)
        if not isinstance(means, (list, tuple, np.ndarray)) or len(means) != K:
            raise InputError(f"{where}: expected {K} means (one per weight), got "
                             f"{len(means) if isinstance(means, (list, tuple, np.ndarray)) else type(means).__name__}")
        ms = []
        for k, m in enumerate(list(means)):
            if not isinstance(m, (list, tuple, np.ndarray)) or len(m) == 0:
                raise InputError(f"{where}: means[{k}] must be a non-empty list")
            ms.append(tuple(parse_number(v, f"{where}: means[{k}][{i}]") for i, v in enumerate(list(m))))
        D = len(ms[0])
        if any(len(m) != D for m in ms):
            raise InputError(f"{where}: means have different dimensions")
        if not isinstance(covariances, (list, tuple, np.ndarray)) or len(covariances) != K:
            raise InputError(f"{where}: expected {K} covariances (one per weight)")
        covs = []
        for k, G in enumerate(list(covariances)):
            G = [list(r) for r in G] if isinstance(G, (list, tuple, np.ndarray)) else G
            rows = _as_matrix(G, f"{where}: covariances[{k}]")
            if len(rows) != D or len(rows[0]) != D:
                raise InputError(f"{where}: covariances[{k}] must be {D}x{D}, got {len(rows)}x{len(rows[0])}")
            covs.append(tuple(tuple(r) for r in rows))
        for k, wk in enumerate(w):
            if wk <= 0:
                raise InputError(f"{where}: weights[{k}] = {float(wk)} is not positive")
        total = sum(w)
        if normalize:
            w = [wk / total for wk in w]
        elif abs(total - 1) > WEIGHT_SUM_TOL:
            raise InputError(f"{where}: weights sum to {float(total)!r}, not 1")
        else:
            w = [wk / total for wk in w]  # exact renormalisation of a <=1e-12 rounding slip
        for k, G in enumerate(covs):
            for i in range(D):
                for j in range(i + 1, D):
                    if G[i][j] != G[j][i]:
                        a, b = float(G[i][j]), float(G[j][i])
                        if abs(a - b) > 1e-12 * max(1.0, abs(a), abs(b)):
                            raise InputError(f"{where}: covariances[{k}] is not symmetric (entry [{i}][{j}] = {a} vs [{j}][{i}] = {b})")
            # symmetrise exactly (average) so that tiny asymmetries do not propagate
            covs[k] = tuple(tuple((G[i][j] + G[j][i]) / 2 for j in range(D)) for i in range(D))
            arr = np.array([[float(v) for v in r] for r in covs[k]])
            ev = np.linalg.eigvalsh(arr)
            scale = max(1.0, float(np.max(np.abs(arr))))
            if ev[0] < -1e-10 * scale:
                raise InputError(f"{where}: covariances[{k}] is not positive semidefinite (smallest eigenvalue {ev[0]:.3g})")
        flagged = tuple(inexact_floats(weights, "weights") + inexact_floats(means, "means")
                        + inexact_floats(covariances, "covariances"))
        return cls(tuple(w), tuple(ms), tuple(covs), flagged)

    @classmethod
    def from_json_obj(cls, obj, where: str = "mixture") -> "GaussianMixture":
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object with keys weights, means, covariances")
        missing = [k for k in ("weights", "means", "covariances") if k not in obj]
        if missing:
            raise InputError(f"{where}: missing key(s) {', '.join(missing)}")
        extra = sorted(set(obj) - {"weights", "means", "covariances"})
        if extra:
            raise InputError(f"{where}: unknown key(s) {', '.join(extra)}")
        return cls.from_values(obj["weights"], obj["means"], obj["covariances"], where=where)

    @classmethod
    def load(cls, path) -> "GaussianMixture":
        return cls.from_json_obj(load_json_file(path), where=str(path))

    def to_json_obj(self, exact: bool = True) -> dict:
        conv = (lambda f: _frac_to_str(f)) if exact else float
        return {
            "weights": [conv(w) for w in self.weights],
            "means": [[conv(v) for v in m] for m in self.means],
            "covariances": [[[conv(v) for v in r] for r in G] for G in self.covariances],
        }

    def save(self, path, exact: bool = True) -> None:
        Path(path).write_text(json.dumps(self.to_json_obj(exact), indent=1))

    # ---- views ----------------------------------------------------------------------------
    @property
    def n_components(self) -> int:
        return len(self.weights)

    @property
    def dim(self) -> int:
        return len(self.means[0])

    def arrays(self):
        """float64 (weights (K,), means (K, D), covariances (K, D, D))."""
        w = np.array([float(x) for x in self.weights])
        m = np.array([[float(x) for x in r] for r in self.means])
        G = np.array([[[float(x) for x in r] for r in C] for C in self.covariances])
        return w, m, G

    def mp(self):
        """mpmath views at the current precision: (weights list, means list of column matrices,
        covariance matrices)."""
        w = [to_mpf(x) for x in self.weights]
        m = [mpm.matrix([to_mpf(x) for x in r]) for r in self.means]
        G = [mpm.matrix([[to_mpf(x) for x in r] for r in C]) for C in self.covariances]
        return w, m, G

    def with_covariances(self, covs) -> "GaussianMixture":
        new = GaussianMixture.from_values(self.weights, self.means, covs)
        return replace(new, inexact_floats=self.inexact_floats + new.inexact_floats) if self.inexact_floats else new


def _frac_to_str(f: Fraction) -> str:
    if f.denominator == 1:
        return str(f.numerator)
    # exact decimal if the denominator is of the form 2^a 5^b, else 40 significant digits
    d = f.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d == 1:
        from decimal import localcontext
        with localcontext() as ctx:
            ctx.prec = 200
            return format(Decimal(f.numerator) / Decimal(f.denominator), "f")
    with mpm.workdps(45):
        return mpm.nstr(mpm.mpf(f.numerator) / f.denominator, 40)
