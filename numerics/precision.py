"""Explicit precision: exact rationals in, mpmath at a stated dps, float64 only by request.

Inputs of the high-precision (``_mp``) functions
------------------------------------------------
Every public ``*_mp`` function of :mod:`softmix.numerics` takes its numeric inputs (matrices,
vectors, scalars; nested lists, tuples, NumPy arrays or mpmath matrices) as

* exact numbers: ``int``, :class:`fractions.Fraction`, :class:`decimal.Decimal`, SymPy rationals,
  and strings -- decimal (``"0.1"``, ``"-2.5e-3"``) or rational (``"1/3"``, ``"-2/7"``) -- all read
  exactly (``"0.1"`` is 1/10, not the float nearest to it);
* mpmath numbers, taken as they are (their precision is the caller's choice);
* Python or NumPy floats, taken at their exact binary value.  A float that is *not* exactly the
  decimal it prints as (``0.1``, ``1/3``, any computed or random float) caps the result near
  1e-16 relative whatever ``dps`` says, so it raises a :class:`PrecisionWarning` naming the
  function and the entry; floats that are exact (``0.5``, ``2.0``, ``0.375``, the entries of
  ``np.eye``) pass silently, since nothing is lost.

To *refuse* such floats instead of warning (an :class:`~softmix.numerics.errors.InputError`),
run under :func:`strict_precision` (a context manager), set ``SOFTMIX_STRICT_PRECISION=1`` in the
environment, or turn the warning into an error with the :mod:`warnings` filters
(``-W error::softmix.PrecisionWarning`` does not work at interpreter start-up for a class in a
package, so use ``warnings.simplefilter("error", softmix.PrecisionWarning)`` or pytest's
``filterwarnings``).  When the float itself is what you mean -- comparing a float64 path with the
high-precision one on the same inputs -- pass :func:`exact_floats` ``(x)``: the floats' binary
values as Fractions, without a warning.  A :class:`~softmix.numerics.mixture.GaussianMixture`
built from such floats is flagged when it is built and warns in the same way when it reaches an
``_mp`` function.
"""
from __future__ import annotations

import contextvars
import functools
import inspect
import os
import warnings
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

import mpmath as mpm

from softmix.numerics.errors import SoftmixWarning

__all__ = ["workdps", "to_fraction", "to_mpf", "fmt_mp", "PrecisionWarning", "strict_precision", "exact_floats",
           "inexact_floats", "exact_inputs", "mp_matrix", "mp_vector"]


@contextmanager
def workdps(dps: int):
    """Set mpmath's working precision for the block and restore it afterwards."""
    with mpm.workdps(int(dps)):
        yield


def to_fraction(x) -> Fraction:
    """Exact rational from int, Fraction, Decimal, a decimal or ``"p/q"`` string, a SymPy rational,
    an mpf or a float (a float is taken at its exact binary value, silently: the ``_mp`` functions
    warn about floats through :func:`exact_inputs`).  Strings and Decimals past the input limits of
    :func:`softmix.numerics.parsing.parse_number` raise InputError (in no time)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(x, (str, Decimal)):  # within the input limits (a huge exponent would never finish)
        from .parsing import parse_number

        parse_number(x, "number")
    if isinstance(x, (int, Decimal)):
        return Fraction(x)
    if isinstance(x, float):
        return Fraction(x)
    if isinstance(x, str) and "/" in x:  # "p/q": each side decimal, read exactly
        num, den = x.split("/", 1)
        return Fraction(Decimal(num.strip())) / Fraction(Decimal(den.strip()))
    if isinstance(x, str):
        return Fraction(Decimal(x.strip()))
    if isinstance(x, mpm.mpf):
        if not mpm.isfinite(x):
            raise ValueError(f"non-finite number {x}")
        man, exp = x.man_exp  # the mantissa without its sign
        return (-1 if x < 0 else 1) * Fraction(int(man)) * (Fraction(2) ** int(exp))
    if getattr(x, "is_Rational", False):  # SymPy Integer / Rational
        return Fraction(int(x.p), int(x.q))
    if _is_numpy_number(x):
        return to_fraction(x.item())
    raise TypeError(f"cannot read {type(x).__name__} as an exact number")


def to_mpf(x):
    """mpf at the current precision from an exact value (never via float for str/Fraction).
    Non-finite input raises :class:`numerics.errors.InputError`."""
    from .errors import InputError

    if isinstance(x, mpm.mpf):
        if not mpm.isfinite(x):
            raise InputError(f"non-finite number {x}")
        return +x
    try:
        f = to_fraction(x)
    except (ValueError, ArithmeticError, TypeError):
        raise InputError(f"not a finite number: {x!r}") from None
    return mpm.mpf(f.numerator) / f.denominator


def fmt_mp(x, digits: int) -> str:
    """Decimal string with ``digits`` significant digits."""
    return mpm.nstr(x, int(digits), strip_zeros=False, min_fixed=-mpm.inf, max_fixed=mpm.inf) if x != 0 else "0"


def mp_matrix(M):
    """An mpmath matrix at the current precision from rows of exact numbers, strings, mpf or floats
    (an mpmath matrix is returned as it is)."""
    if isinstance(M, mpm.matrix):
        return M
    return mpm.matrix([[to_mpf(v) for v in r] for r in M])


def mp_vector(v):
    """An mpmath column at the current precision from a sequence of numbers (see :func:`mp_matrix`)."""
    if isinstance(v, mpm.matrix):
        return v
    return mpm.matrix([to_mpf(x) for x in v])


# ---- floats reaching the high-precision paths ----------------------------------------------------
class PrecisionWarning(SoftmixWarning):
    """A float that is not exactly the decimal it prints as reached a high-precision (``_mp``)
    function: it is used at its binary value, so the result means that value and is exact only to
    about 1e-16 relative to the number you probably meant.  Pass ``"0.1"``, ``"1/3"``,
    ``Fraction(1, 3)`` or an mpmath number instead; or :func:`exact_floats` ``(x)`` when the float is
    what you mean.  Under :func:`strict_precision` the same input raises ``InputError``."""


_STRICT = contextvars.ContextVar("softmix_strict_precision",
                                 default=os.environ.get("SOFTMIX_STRICT_PRECISION", "") not in ("", "0"))


@contextmanager
def strict_precision(strict: bool = True):
    """Inside the block, a float that would raise a :class:`PrecisionWarning` in an ``_mp`` function
    raises :class:`~softmix.numerics.errors.InputError` instead (``strict=False`` restores warnings
    inside a strict block).  ``SOFTMIX_STRICT_PRECISION=1`` makes strict the process default."""
    token = _STRICT.set(bool(strict))
    try:
        yield
    finally:
        _STRICT.reset(token)


def _is_numpy_number(x) -> bool:
    return type(x).__module__ == "numpy" and hasattr(x, "item") and getattr(x, "ndim", None) == 0


def _inexact(x: float) -> bool:
    """True when the float's exact binary value differs from the shortest decimal it prints as."""
    if x != x or x in (float("inf"), float("-inf")) or x.is_integer():
        return False
    return Fraction(x) != Fraction(repr(x))


def inexact_floats(x, where: str = "value", limit: int = 3) -> list[str]:
    """Where ``x`` (a number, a nested sequence, a NumPy array, a dataclass of such, or a mixture)
    holds floats that are not exactly the decimal they print as: ``["U[0][1] = 0.1", ...]`` (at
    most ``limit`` places; an mpmath matrix and mpf entries hold none)."""
    found: list[str] = []
    _scan(x, where, found, limit)
    return found


def _scan(x, where, found, limit):
    import dataclasses

    if len(found) >= limit or isinstance(x, (str, bool, int, Fraction, Decimal, mpm.mpf, mpm.matrix)) or x is None:
        return
    flagged = getattr(x, "inexact_floats", None)  # a GaussianMixture built from floats
    if isinstance(flagged, tuple):
        found.extend(f"{where}: {w}" for w in flagged[:limit - len(found)])
        return
    if isinstance(x, float) or (_is_numpy_number(x) and x.dtype.kind == "f"):
        if _inexact(float(x)):
            found.append(f"{where} = {float(x)!r}")
        return
    if type(x).__module__ == "numpy" and hasattr(x, "dtype"):  # an array
        if x.dtype.kind in "biu":
            return
        x = x.tolist()
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        for f in dataclasses.fields(x):
            _scan(getattr(x, f.name), f"{where}.{f.name}", found, limit)
        return
    if isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            _scan(v, f"{where}[{i}]", found, limit)


def exact_floats(x):
    """``x`` with every float replaced by the Fraction of its exact binary value (nested lists,
    tuples and NumPy arrays become nested lists; other entries are kept): say "I mean these
    floats" to an ``_mp`` function, without a :class:`PrecisionWarning` -- e.g. to compare a float64
    path with the high-precision path on the same inputs."""
    if isinstance(x, bool):
        return x
    if isinstance(x, float) or (_is_numpy_number(x) and x.dtype.kind == "f"):
        return Fraction(float(x))
    if _is_numpy_number(x):
        return x.item()
    if type(x).__module__ == "numpy" and hasattr(x, "tolist"):
        return exact_floats(x.tolist())
    if isinstance(x, (list, tuple)):
        return [exact_floats(v) for v in x]
    return x


def _precision_report(fn_name: str, places: list[str], stacklevel: int) -> None:
    from .errors import InputError

    head = (f"{fn_name}: float input {places[0]} is not exactly that decimal"
            + (f" (nor {', '.join(places[1:])})" if len(places) > 1 else "")
            + "; its binary value is used, which caps the result near 1e-16 relative whatever dps says")
    advice = ("pass decimal or 'p/q' strings, Fractions or mpmath numbers to mean the decimal, or "
              "softmix.exact_floats(x) to mean the float's binary value")
    if _STRICT.get():
        raise InputError(f"{head} (strict precision: {advice})")
    warnings.warn(f"{head}; {advice}", PrecisionWarning, stacklevel=stacklevel + 1)


def exact_inputs(*names: str):
    """Decorator of an ``_mp`` function: before it runs, scan the arguments ``names`` (matrices,
    vectors, numbers, mixtures, dataclasses of matrices) for floats that are not exactly the
    decimal they print as and warn (:class:`PrecisionWarning`, pointing at the caller) or, under
    :func:`strict_precision`, raise :class:`~softmix.numerics.errors.InputError`.  The values are
    passed on unchanged."""
    def wrap(fn):
        sig = inspect.signature(fn)
        missing = [n for n in names if n not in sig.parameters]
        if missing:
            raise TypeError(f"{fn.__name__} has no argument(s) {', '.join(missing)}")

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            bound = sig.bind_partial(*args, **kwargs).arguments
            places: list[str] = []
            for n in names:
                if n in bound and len(places) < 3:
                    places.extend(inexact_floats(bound[n], n, 3 - len(places)))
            if places:
                _precision_report(fn.__name__, places, stacklevel=2)
            return fn(*args, **kwargs)

        return checked

    return wrap
