"""Explicit precision: exact rationals in, mpmath at a stated dps, float64 only by request."""
from __future__ import annotations

from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

import mpmath as mpm

__all__ = ["workdps", "to_fraction", "to_mpf", "fmt_mp"]


@contextmanager
def workdps(dps: int):
    """Set mpmath's working precision for the block and restore it afterwards."""
    with mpm.workdps(int(dps)):
        yield


def to_fraction(x) -> Fraction:
    """Exact rational from int, Fraction, Decimal, decimal string or float (a float is taken at
    its exact binary value).  Strings and Decimals past the input limits of
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
    if isinstance(x, str):
        return Fraction(Decimal(x.strip()))
    if isinstance(x, mpm.mpf):
        if not mpm.isfinite(x):
            raise ValueError(f"non-finite number {x}")
        man, exp = x.man_exp
        return Fraction(int(man)) * (Fraction(2) ** int(exp))
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
