"""Validated numeric Gaussian mixtures with exact JSON input (paper Sec. 2 setting).

A :class:`GaussianMixture` keeps the exact rational entries it was built from (decimal strings
in JSON are parsed exactly, so inputs can carry 40 digits) and derives float64 arrays and
mpmath matrices from them on demand.  Validation is strict: positive weights summing to one,
symmetric PSD covariances (degenerate allowed), consistent shapes, finite numbers.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath as mpm
import numpy as np

from .errors import InputError
from .parsing import load_json_file, parse_number, show_value
from .precision import inexact_floats, to_mpf

__all__ = ["GaussianMixture", "read_matrix", "parse_number", "load_json_file", "psd_sqrt"]

WEIGHT_SUM_TOL = Fraction(1, 10**12)


def _as_matrix(obj, where: str) -> list[list[Fraction]]:
    from .input_schema import MATRIX, validate

    return validate(MATRIX, _plain(obj), where)


def _plain(x):
    """numpy arrays as nested lists (the schemas read lists and tuples)."""
    return x.tolist() if isinstance(x, np.ndarray) else x


def read_matrix(path_or_obj, where: str | None = None) -> list[list[Fraction]]:
    """A matrix file is a JSON list of rows of one length (exact entries; schema
    :data:`softmix.numerics.input_schema.MATRIX`)."""
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
    def from_values(cls, weights, means, covariances, where: str = "mixture",
                    normalize: bool = False) -> "GaussianMixture":
        """Validate and build: the structure by the schema
        :class:`~softmix.numerics.input_schema.MixtureSchema` (one line naming ``where`` and the path,
        e.g. ``covariances[1]``), then positive weights summing to one (within 1e-12, renormalised
        exactly; ``normalize=True`` rescales any positive weights), symmetric PSD covariances."""
        from .input_schema import MIXTURE, validate

        def lists(x, depth):
            x = _plain(x)
            if depth and isinstance(x, (list, tuple)):
                return [lists(v, depth - 1) for v in x]
            return x

        obj = {"weights": lists(weights, 0), "means": lists(means, 1), "covariances": lists(covariances, 2)}
        mix = cls._build(validate(MIXTURE, obj, where), where, normalize)
        flagged = tuple(inexact_floats(weights, "weights") + inexact_floats(means, "means")
                        + inexact_floats(covariances, "covariances"))
        return replace(mix, inexact_floats=flagged) if flagged else mix

    @classmethod
    def _build(cls, m, where: str, normalize: bool = False) -> "GaussianMixture":
        """The semantic rules on a mixture whose structure the schema accepted."""
        w, ms = list(m.weights), [tuple(v) for v in m.means]
        covs = [tuple(tuple(r) for r in G) for G in m.covariances]
        D = len(ms[0])
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
                            raise InputError(f"{where}: covariances[{k}] is not symmetric (entry [{i}][{j}] = {a} vs "
                                             f"[{j}][{i}] = {b})")
            # symmetrise exactly (average) so that tiny asymmetries do not propagate
            covs[k] = tuple(tuple((G[i][j] + G[j][i]) / 2 for j in range(D)) for i in range(D))
            arr = np.array([[float(v) for v in r] for r in covs[k]])
            ev = np.linalg.eigvalsh(arr)
            scale = max(1.0, float(np.max(np.abs(arr))))
            if ev[0] < -1e-10 * scale:
                raise InputError(f"{where}: covariances[{k}] is not positive semidefinite (smallest eigenvalue "
                                 f"{ev[0]:.3g})")
        return cls(tuple(w), tuple(ms), tuple(covs))

    @classmethod
    def from_json_obj(cls, obj, where: str = "mixture") -> "GaussianMixture":
        """A mixture from a parsed JSON object ``{"weights", "means", "covariances"}``."""
        from .input_schema import MIXTURE, validate

        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object with keys weights, means, covariances, "
                             f"got {show_value(obj)}")
        return cls._build(validate(MIXTURE, obj, where), where)

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
