"""Bounded parsing of the numbers and JSON files a user gives (docs/input.md).

Every number and every JSON file that reaches softmix from outside -- mixture, matrix, heads,
queries, target and ``--config`` files, ``--query`` entries, claim parameters -- is read here, under
the documented limits of :data:`LIMITS`.  Input past a limit is an
:class:`~softmix.numerics.errors.InputError` (one line, exit code 2 from the command line) raised
before any work, in a time that does not grow with the offending number or depth: an exponent of
a billion, a two-million-digit decimal or a hundred thousand nested brackets are refused in
milliseconds, never parsed.

Numbers are exact: :func:`parse_number` returns a :class:`fractions.Fraction`.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from .errors import InputError

__all__ = ["InputLimits", "LIMITS", "parse_number", "load_json_file", "check_json_bounds", "show_value", "suggest"]


@dataclass(frozen=True)
class InputLimits:
    """The bounds every input is parsed under (one instance, :data:`LIMITS`).

    * ``max_digits``: significant digits of one decimal (of each side of ``p/q``);
    * ``max_number_chars``: characters of one number written as a string or a JSON literal;
    * ``min_exponent``, ``max_exponent``: the decimal exponent of a number's leading digit
      (``x = 0`` or ``10**min_exponent <= |x| < 10**(max_exponent + 1)``); the upper bound keeps
      every number inside the float64 range, the lower one keeps exact parsing cheap;
    * ``max_file_bytes``: size of one JSON file;
    * ``max_depth``: nesting of arrays and objects in one JSON document (a mixture file has 4,
      a ``--config`` file about 7);
    * ``max_array_length``: entries of one JSON array;
    * ``max_dimension``: the dimension of a mixture, a vector or a matrix side, the entries of
      ``--query``;
    * ``max_components``: components of a mixture, heads of ``softmix risk``.
    """

    max_digits: int = 1000
    max_number_chars: int = 2100
    min_exponent: int = -1000
    max_exponent: int = 300
    max_file_bytes: int = 8 * 1024 * 1024
    max_depth: int = 32
    max_array_length: int = 100_000
    max_dimension: int = 1024
    max_components: int = 1024


LIMITS = InputLimits()

#: a decimal as the grammar of :func:`parse_number` writes it (ASCII digits only)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?")
_MAX_EXP_DIGITS = 9  # a written exponent longer than this is out of range whatever its mantissa


def show_value(x) -> str:
    """Short rendering of a parsed value (Decimals and Fractions included) for error messages."""
    try:
        text = json.dumps(x, default=str)
    except (ValueError, RecursionError):  # pragma: no cover - circular or too deep
        text = type(x).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def suggest(name: str, names) -> str:
    """`` (did you mean 'x'?)`` for the nearest of ``names`` (difflib), or ``""``."""
    import difflib

    near = difflib.get_close_matches(str(name), [str(n) for n in names], n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _range_error(where: str, text, what: str) -> InputError:
    lim = LIMITS
    shown = text if len(text) <= 40 else text[:20] + "..." + text[-12:] + f" ({len(text)} characters)"
    return InputError(f"{where}: number {shown} {what} (limits: {lim.max_digits} significant digits, "
                      f"magnitude below 1e{lim.max_exponent + 1} and, unless zero, at least 1e{lim.min_exponent})")


def _check_decimal(d: Decimal, where: str, text: str) -> Decimal:
    if not d.is_finite():
        raise InputError(f"{where}: non-finite number {text!r}")
    t = d.as_tuple()
    if len(t.digits) > LIMITS.max_digits:
        raise _range_error(where, text, f"has {len(t.digits)} significant digits")
    if d != 0 and not LIMITS.min_exponent <= d.adjusted() <= LIMITS.max_exponent:
        raise _range_error(where, text, "is out of range")
    return d


def _decimal(text: str, where: str, full: str) -> Decimal:
    s = text.strip()
    m = _DECIMAL.fullmatch(s)
    if m is None and s.lower().lstrip("+-") in ("inf", "infinity", "nan", "snan"):
        raise InputError(f"{where}: non-finite number {full!r} (expected a finite number)")
    if m is None:
        raise InputError(f"{where}: not a number: {full!r} (expected a decimal such as -1.25e-3 or a ratio p/q)")
    if m.group(1) is not None and len(m.group(1).lstrip("+-")) > _MAX_EXP_DIGITS:
        raise _range_error(where, full, "is out of range")
    return _check_decimal(Decimal(s), where, full)


def _bounded_fraction(f: Fraction, where: str, text: str) -> Fraction:
    if f and not (Fraction(1, 10**-LIMITS.min_exponent) <= abs(f) < 10**(LIMITS.max_exponent + 1)):
        raise _range_error(where, text, "is out of range")
    return f


def parse_number(x, where: str = "number") -> Fraction:
    """The exact rational value of ``x``, within the limits of :data:`LIMITS`.

    Accepted: ``int``, finite ``float`` (its exact binary value), ``Fraction``, finite ``Decimal``,
    ``mpmath.mpf``, and strings of the grammar (ASCII digits, surrounding spaces ignored)::

        number   := decimal | decimal "/" decimal
        decimal  := [sign] (digits ["." [digits]] | "." digits) [("e" | "E") [sign] digits]

    e.g. ``"0.6"``, ``"-1.25e-3"``, ``"1/3"``, ``"2.5/7"``.  Limits (:class:`InputLimits`): at most
    1000 significant digits in each decimal and 2100 characters in a string; the value is zero or
    has a magnitude in [1e-1000, 1e301) (each side of ``p/q`` and the quotient); a float, int or
    Fraction obeys the same range.  Anything else -- booleans, ``None``, lists, ``NaN``, ``inf``,
    ``"1e999999999"``, a two-million-digit decimal, a zero denominator -- raises
    :class:`~softmix.numerics.errors.InputError` naming ``where``, in time independent of the size
    of the offending number.

    >>> parse_number("1/3"), parse_number("-1.25e-3")
    (Fraction(1, 3), Fraction(-1, 800))
    >>> parse_number(0.1) == Fraction(1, 10)     # a float is its exact binary value
    False
    >>> parse_number("1/0", "weights[0]")
    Traceback (most recent call last):
    ...
    softmix.numerics.errors.InputError: weights[0]: zero denominator in '1/0'
    """
    if isinstance(x, bool) or x is None or isinstance(x, (list, tuple, dict)):
        raise InputError(f"{where}: expected a number, got {show_value(x)}")
    if isinstance(x, str):
        if len(x) > LIMITS.max_number_chars:
            raise _range_error(where, x, f"has {len(x)} characters, more than {LIMITS.max_number_chars}")
        if "/" in x:
            num, den = x.split("/", 1)
            p, q = _decimal(num, where, x), _decimal(den, where, x)
            if q == 0:
                raise InputError(f"{where}: zero denominator in {x!r}")
            return _bounded_fraction(Fraction(p) / Fraction(q), where, x)
        return Fraction(_decimal(x, where, x))
    if isinstance(x, Decimal):
        return Fraction(_check_decimal(x, where, str(x)))
    if isinstance(x, float):
        if not math.isfinite(x):
            raise InputError(f"{where}: non-finite number {x}")
        return _bounded_fraction(Fraction(x), where, repr(x))
    if isinstance(x, int):
        if x.bit_length() > 1100:  # cheap pre-check before the exact comparison
            raise _range_error(where, f"of {x.bit_length()} bits", "is out of range")
        return _bounded_fraction(Fraction(x), where, str(x))
    if isinstance(x, Fraction):
        bits = LIMITS.max_digits * 3.33 + 10
        if x.numerator.bit_length() > bits or x.denominator.bit_length() > bits:
            raise _range_error(where, f"p/q of {x.numerator.bit_length()}/{x.denominator.bit_length()} bits",
                               "has too many digits")
        return _bounded_fraction(x, where, str(x))
    return _from_other(x, where)


def _from_other(x, where: str) -> Fraction:
    """mpmath numbers and numpy scalars."""
    import mpmath as mpm

    if isinstance(x, mpm.mpf):
        if not mpm.isfinite(x):
            raise InputError(f"{where}: non-finite number {x}")
        if x and not LIMITS.min_exponent * 3.33 <= mpm.mag(x) <= (LIMITS.max_exponent + 1) * 3.33:
            raise _range_error(where, mpm.nstr(x, 5), "is out of range")
        man, exp = x.man_exp  # the mantissa without its sign
        man = -man if x < 0 else man
        return _bounded_fraction(Fraction(int(man)) * Fraction(2) ** int(exp), where, mpm.nstr(x, 5))
    try:
        import numpy as np

        if isinstance(x, np.integer):
            return parse_number(int(x), where)
        if isinstance(x, np.floating):
            return parse_number(float(x), where)
    except ImportError:  # pragma: no cover
        pass
    raise InputError(f"{where}: expected a number, got {type(x).__name__} {show_value(x)}")


# ---- JSON files -----------------------------------------------------------------------------------
class _Literal(Exception):
    def __init__(self, text: str, message: str):
        self.text, self.message = text, message


def _literal(text: str, parse):
    """Parse one JSON number literal with ``parse``; a literal past the limits raises _Literal."""
    try:
        if len(text) > LIMITS.max_number_chars:
            raise _range_error("literal", text, f"has {len(text)} characters, more than {LIMITS.max_number_chars}")
        return parse(text)
    except InputError as e:
        raise _Literal(text, str(e).split(": ", 1)[1]) from None


def _json_float(text: str) -> Decimal:
    if len(text) < 32:  # the common case, without a Python frame more
        d = Decimal(text)
        if d == 0 or LIMITS.min_exponent <= d.adjusted() <= LIMITS.max_exponent:
            return d
    return _literal(text, lambda t: _check_decimal(Decimal(t), "literal", t))


def _reject_constant(c):
    raise _Literal(c, f"non-finite number {c} (JSON allows only finite numbers)")


def _line_of(text: str, literal: str) -> int:
    i = text.find(literal)
    return text.count("\n", 0, i) + 1 if i >= 0 else 0


def check_json_bounds(obj, where: str) -> None:
    """Nesting depth and array lengths of a parsed JSON document within :data:`LIMITS` (iterative:
    a document too deep for recursion is reported, not crashed on)."""
    stack = [(obj, 1, "")]
    while stack:
        node, depth, path = stack.pop()
        if depth > LIMITS.max_depth:
            raise InputError(f"{where}: {path or 'document'}: nested deeper than the limit of {LIMITS.max_depth} "
                             "levels")
        if isinstance(node, list):
            if len(node) > LIMITS.max_array_length:
                raise InputError(f"{where}: {path or 'document'}: an array of {len(node)} entries, more than the "
                                 f"limit of {LIMITS.max_array_length}")
            stack.extend((v, depth + 1, f"{path}[{i}]") for i, v in enumerate(node) if isinstance(v, (list, dict)))
        elif isinstance(node, dict):
            stack.extend((v, depth + 1, f"{path}.{k}" if path else str(k)) for k, v in node.items()
                         if isinstance(v, (list, dict)))


def _max_bracket_depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` outside strings, computed without recursion (numpy)."""
    import numpy as np

    stripped = re.sub(r'"[^"\\]*(?:\\.[^"\\]*)*"', '""', text)
    b = np.frombuffer(stripped.encode("utf-8", "replace"), dtype=np.uint8)
    step = ((b == ord("[")) | (b == ord("{"))).astype(np.int32) - ((b == ord("]")) | (b == ord("}"))).astype(np.int32)
    return int(np.cumsum(step).max()) if len(step) else 0


def load_json_file(path) -> object:
    """Parse a JSON file under :data:`LIMITS`: at most 8 MiB, UTF-8, nesting at most 32 deep,
    arrays of at most 100 000 entries, number literals within the number limits (parsed as
    ``Decimal`` (non-integers) and ``int``, exactly); ``NaN`` and ``Infinity`` are refused.
    Raises :class:`~softmix.numerics.errors.InputError` naming the file (and the line of a bad
    literal)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > LIMITS.max_file_bytes:
            raise InputError(f"{path}: file of {size} bytes, more than the limit of {LIMITS.max_file_bytes} bytes")
        raw = p.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read file ({e.strerror or e})") from None
    if len(raw) > LIMITS.max_file_bytes:  # a file that grew, or a device
        raise InputError(f"{path}: more than the limit of {LIMITS.max_file_bytes} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    depth = _max_bracket_depth(text)
    if depth > LIMITS.max_depth:
        raise InputError(f"{path}: nested {depth} levels deep, more than the limit of {LIMITS.max_depth}")
    try:
        # integer literals are parsed by json itself (C speed; Python refuses more than 4300 digits);
        # their range is checked where they are read as numbers (parse_number)
        obj = json.loads(text, parse_float=_json_float, parse_constant=_reject_constant)
    except _Literal as e:
        line = _line_of(text, e.text)
        raise InputError(f"{path}: {'line %d: ' % line if line else ''}{e.message}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: invalid JSON ({e.msg} at line {e.lineno})") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply (limit {LIMITS.max_depth} levels)") from None
    except ValueError as e:  # an integer literal past Python's digit limit for int()
        why = str(e).split(";")[0]
        raise InputError(f"{path}: an integer literal with too many digits (limit {LIMITS.max_digits}; "
                         f"{why})") from None
    check_json_bounds(obj, str(path))
    return obj
