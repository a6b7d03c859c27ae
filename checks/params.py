"""Parameter types of claims, and the validation of ``--config`` values against them.

Every claim parameter has a *type*, known before anything runs:

* claims written with :func:`softmix.claim` declare it: the fields of their parameter dataclass
  (``int``, ``float``, ``bool``, ``str``, ``list[...]``, ``dict``, :data:`NonNegative`,
  :data:`Covariance`...), and the dataclass's ``__post_init__`` may add cross-field checks;
* for claims registered the old way the type is *inferred from the default value*: an ``int``
  default takes integers, a ``float`` or a decimal string (``"0.6"``, ``"1/3"``) takes any finite
  number (decimal strings included), a list of numbers takes a list of numbers, a list of rows
  takes a rectangular matrix, a dict takes the same keys with values of the defaults' types
  (nested mixtures ``{"weights", "means", "covariances"}`` are checked as mixtures), and the
  default's *name* adds the ranges the paper's notation implies (a standard deviation or
  variance such as ``gamma``, ``xi``, ``sigma``, ``tau`` is non-negative; a covariance such as
  ``Gamma``, ``Sigma``, ``G`` is a symmetric positive semidefinite matrix; a class proportion
  ``pi_plus``, ``pi1`` lies in (0, 1); a seed is never negative, and a count or size such as
  ``samples``, ``reps``, ``nodes``, ``dps``, ``L``, ``d`` or the entries of ``Ls``, ``dims`` is at
  least 1; inside one object the vectors and square matrices share one dimension, and an object
  of a shape a claim module registered (:func:`register_shape`; the paper's LDA problem with keys
  ``m1``, ``m_1``, ``Gamma``, ``pi_plus``) is checked as numerics will require it).

:func:`validate_value` raises :class:`softmix.numerics.errors.InputError` with a one-line message
naming the parameter (the CLI exits 2); it returns the value unchanged otherwise.
"""
from __future__ import annotations

import dataclasses
import math
import re
import typing
from fractions import Fraction

from softmix.numerics.errors import InputError

__all__ = ["NonNegative", "Positive", "Covariance", "Number", "Exact", "Real", "exact_default", "infer_type",
           "register_shape", "validate_value", "validate_params", "coerce_dataclass", "PARAM_CHECKS"]


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return self.name


#: markers for ``typing.Annotated``: ``gamma: NonNegative = 1.0``
_NONNEG, _POS, _COV, _NUM = _Marker("nonnegative"), _Marker("positive"), _Marker("covariance"), _Marker("number")
_EXACT, _REAL = _Marker("exact"), _Marker("real")
Number = typing.Annotated[float, _NUM]  # any finite number: int, float or decimal string; arrives as float
NonNegative = typing.Annotated[float, _NONNEG]  # arrives as float
Positive = typing.Annotated[float, _POS]  # arrives as float
Covariance = typing.Annotated[list, _COV]  # symmetric positive semidefinite matrix; arrives as rows of Fractions
#: a number that arrives in the check as an exact ``fractions.Fraction`` ("1/3" is exactly 1/3)
Exact = typing.Annotated[Fraction, _EXACT]
#: a number that arrives as an ``mpmath.mpf`` rounded once from its exact value, at the precision
#: of the dataclass's ``dps`` field (decimal digits) when it has one, else at 50 digits
Real = typing.Annotated[typing.Any, _REAL]
REAL_DEFAULT_DPS = 50

#: what an ``Exact`` default is written as: a number, a decimal or fraction string, or a Fraction
_Written = str | int | Fraction


@typing.overload
def exact_default(value: _Written) -> Fraction: ...
@typing.overload
def exact_default(value: list[_Written]) -> list[Fraction]: ...
@typing.overload
def exact_default(value: list[list[_Written]]) -> list[list[Fraction]]: ...
def exact_default(value):
    """The default of an :data:`Exact` field (a number, a vector or a matrix) as it is written,
    e.g. ``pi1: Exact = exact_default("1/2")`` or ``m: list[Exact] = field(default_factory=lambda:
    exact_default([3, "0.5"]))``.

    Returned unchanged: the default stays as written (``softmix show`` prints ``"1/2"``,
    and a run records it so) and reaches the check as a Fraction, like any ``--config`` value
    (:func:`coerce_dataclass`).  It is typed as the Fraction the check receives, so that a type
    checker accepts the field; this is the one place where the written form and the delivered
    type meet."""
    return value


#: names that denote a standard deviation, a variance or a scale (non-negative), and a covariance
_SCALE_NAMES = re.compile(r"^(gamma|xi|sigma|tau|std|sd|var|variance|noise|eps|rbf_tau)(\d*|_.*)$")
_COV_NAMES = re.compile(r"^(Gamma|Sigma|G|S|cov|covariance|covariances)(\d*|_.*)$")
#: names that denote a class proportion or probability, in the open interval (0, 1)
_PROB_NAMES = re.compile(r"^(pi|pi_plus|pi_minus|pi\d+|prob|proportion)$")
#: integer names that denote a count or a size (at least 1): samples, replicates, quadrature
#: nodes, digits, prompt lengths, dimensions, steps
_COUNT_NAMES = re.compile(r"^(samples|reps|replicates|prompts|trials|batch|steps|max_steps|iterations|"
                          r"nodes|dps|prec|L|N|d|dim|components|grid|starts|points|n_.*|.*_nodes|nodes_.*|"
                          r"queries|queries_.*|.*_samples|L_.*|.*_dps|max_nodes|n)$")
#: integer names that denote a seed or a number of optional extras (zero allowed, never negative)
_NONNEG_INT_NAMES = re.compile(r"^(seed|.*_seed|seed_.*|perturbations|random_.*|near_.*|truncation|guard|"
                               r"max_depth|.*_boxes|extra_.*)$")
#: integer list names whose entries are counts (prompt lengths, dimensions)
_COUNT_LIST_NAMES = re.compile(r"^(Ls|Ls_.*|.*_Ls|Ns|dims|.*_dims|lengths|.*_lengths)$")
#: object shapes registered by the claim modules that use them: an object holding all of ``keys`` is
#: also checked by ``validator(value, where)`` (which raises InputError), e.g. the LDA problem of the
#: paper's Section 3, registered by ``checks/paper/lda.py``; the engine itself knows no shape
_SHAPES: dict[frozenset, typing.Callable[..., object]] = {}


def register_shape(keys, validator) -> None:
    """Validate every ``--config`` object that holds all of ``keys`` with ``validator(value, where)``
    before anything runs (a plugin may register its own problem objects the same way)."""
    _SHAPES[frozenset(keys)] = validator


def _is_number_string(s) -> bool:
    if not isinstance(s, str):
        return False
    try:
        from softmix.numerics.mixture import parse_number

        parse_number(s, "")
        return True
    except InputError:
        return False


def _number(x, where) -> Fraction:
    from softmix.numerics.mixture import parse_number

    if isinstance(x, float) and not math.isfinite(x):
        raise InputError(f"{where}: non-finite number {x}")
    return parse_number(x, where)


def _is_matrix(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(r, list) for r in v)


def _is_vector(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                       or _is_number_string(x) for x in v)


# ---- inferred types (a small tagged structure) ------------------------------------------------
def infer_type(default, name: str = ""):
    """A type description inferred from a default value (see the module docstring)."""
    if isinstance(default, bool):
        return ("bool",)
    if isinstance(default, int):
        if _SCALE_NAMES.match(name):  # a scale written as an integer default (gamma = 1) is real
            return ("number", "nonnegative")
        if _PROB_NAMES.match(name):
            return ("number", "probability")
        # a count or a size is at least 1, a seed or a number of optional extras at least 0; any other
        # integer (a user's offset, shift or exponent) keeps its sign free
        if _COUNT_NAMES.match(name):
            return ("int", "positive")
        return ("int", "nonnegative" if _NONNEG_INT_NAMES.match(name) else None)
    if isinstance(default, float) or _is_number_string(default) or isinstance(default, Fraction):
        if _PROB_NAMES.match(name):
            return ("number", "probability")
        return ("number", "nonnegative" if _SCALE_NAMES.match(name) else None)
    if isinstance(default, str):
        return ("str",)
    if isinstance(default, dict):
        if {"weights", "means", "covariances"} <= set(default):
            return ("mixture",)
        return ("dict", {k: infer_type(v, k) for k, v in default.items()})
    if isinstance(default, (list, tuple)):
        default = list(default)
        if _is_matrix(default) and all(_is_vector(r) for r in default):
            return ("matrix", "covariance" if _COV_NAMES.match(name) else None)
        if _is_vector(default) and default:
            ints = all(isinstance(x, int) and not isinstance(x, bool) for x in default)
            counts = ints and (_COUNT_LIST_NAMES.match(name) or name.endswith(("dims", "Ls", "lengths")))
            return ("list", ("int", "positive") if counts else ("number", None))
        if default and all(isinstance(x, str) for x in default):
            return ("list", ("str",))
        if default:
            return ("list", infer_type(default[0], ""))
        return ("any",)
    if default is None:
        return ("any",)
    return ("any",)


def _check(t, v, where):
    kind = t[0]
    if kind == "any":
        return
    if kind == "optional":  # X | None: null is allowed, anything else is checked as X
        if v is not None:
            _check(t[1], v, where)
        return
    if kind == "bool":
        if not isinstance(v, bool):
            raise InputError(f"{where}: expected true or false, got {v!r}")
        return
    if kind == "str":
        if not isinstance(v, str):
            raise InputError(f"{where}: expected a string, got {v!r}")
        return
    if kind == "int":
        if isinstance(v, bool) or not (isinstance(v, int) or (isinstance(v, float) and v.is_integer())):
            raise InputError(f"{where}: expected an integer, got {v!r}")
        _number(v, where)  # within the number limits
        if t[1] == "nonnegative" and v < 0:
            raise InputError(f"{where}: must be non-negative, got {v!r}")
        if t[1] == "positive" and v < 1:
            raise InputError(f"{where}: must be a positive integer (a count or a size), got {v!r}")
        return
    if kind == "number":
        if isinstance(v, (list, dict, bool)) or v is None:
            raise InputError(f"{where}: expected a number, got {v!r}")
        x = _number(v, where)
        if t[1] == "nonnegative" and x < 0:
            raise InputError(f"{where}: must be non-negative (a standard deviation, variance or scale), got {v!r}")
        if t[1] == "positive" and x <= 0:
            raise InputError(f"{where}: must be positive, got {v!r}")
        if t[1] == "probability" and not 0 < x < 1:
            raise InputError(f"{where}: must be a proportion in (0, 1), got {v!r}")
        return
    if kind == "list":
        if not isinstance(v, list):
            raise InputError(f"{where}: expected a list, got {v!r}")
        for i, x in enumerate(v):
            _check(t[1], x, f"{where}[{i}]")
        return
    if kind == "matrix":
        if not _is_matrix(v):
            raise InputError(f"{where}: expected a matrix (a non-empty list of rows), got {v!r}")
        n = len(v[0])
        for i, r in enumerate(v):
            if len(r) != n or n == 0:
                raise InputError(f"{where}: rows have different lengths (row {i} has {len(r)}, row 0 has {n})")
        M = [[_number(x, f"{where}[{i}][{j}]") for j, x in enumerate(r)] for i, r in enumerate(v)]
        if t[1] == "covariance":
            _check_psd(M, where)
        return
    if kind == "mixture":
        from softmix.numerics.mixture import GaussianMixture

        if not isinstance(v, dict):
            raise InputError(f"{where}: expected a mixture object with weights, means, covariances")
        GaussianMixture.from_json_obj(v, where=where)
        return
    if kind == "dict":
        if not isinstance(v, dict):
            raise InputError(f"{where}: expected an object, got {v!r}")
        bad = sorted(set(v) - set(t[1]))
        if bad:
            from softmix.numerics.parsing import suggest

            raise InputError(f"{where}: unknown key(s) {', '.join(bad)}{suggest(bad[0], t[1])} "
                             f"(accepted: {', '.join(sorted(t[1]))})")
        for k, x in v.items():
            _check(t[1][k], x, f"{where}.{k}")
        _check_common_dimension(t[1], v, where)
        check_mixture_pieces(v, where)  # weights and means side by side form a mixture
        for keys, validator in _SHAPES.items():  # registered shapes (an LDA problem: Gamma definite, m1 != m_1)
            if keys <= set(v):
                validator(v, where)
        return
    raise AssertionError(kind)  # pragma: no cover


def _check_psd(M, where):
    import numpy as np

    n = len(M)
    if any(len(r) != n for r in M):
        raise InputError(f"{where}: a covariance must be square, got {n}x{len(M[0])}")
    for i in range(n):
        for j in range(i + 1, n):
            if M[i][j] != M[j][i]:
                raise InputError(f"{where}: covariance is not symmetric (entry [{i}][{j}] = {M[i][j]} vs [{j}][{i}] = "
                                 f"{M[j][i]})")
    ev = np.linalg.eigvalsh(np.array([[float(x) for x in r] for r in M]))
    scale = max(1.0, float(np.max(np.abs(ev))))
    if ev[0] < -1e-12 * scale:
        raise InputError(f"{where}: covariance is not positive semidefinite (smallest eigenvalue {ev[0]:.3g})")


def _check_common_dimension(types, v, where):
    """Inside one object, the number vectors and the square matrices describe one space: they
    must share its dimension (m1, m_1 and Gamma of an LDA problem)."""
    dims = {}
    for k, t in types.items():
        if k not in v:
            continue
        if t[0] == "matrix" and t[1] == "covariance":
            dims[k] = len(v[k])
        elif t[0] == "list" and t[1][0] == "number" and isinstance(v[k], list):
            dims[k] = len(v[k])
    if len(set(dims.values())) > 1:
        desc = ", ".join(f"{k} has dimension {d}" for k, d in dims.items())
        raise InputError(f"{where}: dimensions disagree ({desc})")


# ---- declared types (dataclass fields) ------------------------------------------------------
def _from_annotation(tp, name: str, default):
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *meta = typing.get_args(tp)
        if _COV in meta:
            return ("matrix", "covariance")
        if _NONNEG in meta:
            return ("number", "nonnegative")
        if _POS in meta:
            return ("number", "positive")
        if _NUM in meta or _EXACT in meta or _REAL in meta:
            return ("number", None)
        return _from_annotation(base, name, default)
    if tp is bool:
        return ("bool",)
    if tp is int:
        return ("int", None)
    if tp in (float, Fraction):
        return ("number", None)
    if tp is str:
        return ("str",)
    if origin in (list, tuple) or tp in (list, tuple):
        args = typing.get_args(tp)
        if args and args[0] is not Ellipsis:
            inner = _from_annotation(args[0], "", None)
            if inner[0] == "list":  # list[list[float]]: a matrix
                return ("matrix", None)
            return ("list", inner)
        return infer_type(default, name) if default is not None else ("list", ("any",))
    if origin is typing.Union or type(tp).__name__ == "UnionType":
        members = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(members) != 1:
            return ("any",)
        inner = _from_annotation(members[0], name, default)
        return ("optional", inner) if type(None) in typing.get_args(tp) else inner
    if tp is dict or origin is dict:
        return infer_type(default, name) if isinstance(default, dict) else ("any",)
    return infer_type(default, name) if default is not None else ("any",)


def _field_default(f):
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def param_types(claim) -> dict:
    """name -> type description for every parameter of ``claim``."""
    P = getattr(claim, "params_type", None)
    if P is not None:
        hints = typing.get_type_hints(P, include_extras=True)
        return {f.name: _from_annotation(hints.get(f.name, typing.Any), f.name, _field_default(f))
                for f in dataclasses.fields(P)}
    return {k: infer_type(v, k) for k, v in claim.defaults.items()}


def validate_value(claim, name: str, value, where: str):
    types = param_types(claim)
    if name not in types:
        from softmix.numerics.parsing import suggest

        raise InputError(f"{where}: claim {claim.id!r} has no parameter {name!r}{suggest(name, types)}")
    _check(types[name], value, where)
    return value


#: further checks of a claim's whole parameter set, run last by :func:`validate_params`:
#: ``fn(claim, values, overrides, where)`` raises InputError (the hook for declared assumptions)
PARAM_CHECKS: list = []


def validate_params(claim, overrides: dict, where: str, profile: str | None = None) -> dict:
    """The one gate of a claim's ``--config`` values, before anything runs: each override against
    the claim's parameter type, then the parameters as a whole (defaults, ``profile``'s
    replacements and the overrides merged): a mixture given in pieces (``weights``, ``means``,
    optional ``covariances``) is checked as a mixture when an override touches it; a decorated
    claim's dataclass is built so that its ``__post_init__`` checks run; then the claim's declared
    assumptions (:mod:`softmix.checks.assumption_runs`, exit 2 naming the one broken); then
    :data:`PARAM_CHECKS`."""
    for k, v in overrides.items():
        validate_value(claim, k, v, f"{where}.{k}")
    values = claim.params(profile, overrides) if profile else {**claim.defaults, **overrides}
    if set(_PIECES) & set(overrides):
        check_mixture_pieces(values, where)
    P = getattr(claim, "params_type", None)
    if P is not None:
        coerce_dataclass(P, values, where)
    from .assumption_runs import check_values

    check_values(claim, values, where)
    for fn in PARAM_CHECKS:
        fn(claim, values, overrides, where)
    return overrides


_PIECES = ("weights", "means", "covariances")


def check_mixture_pieces(values: dict, where: str) -> None:
    """``weights`` and ``means`` (and ``covariances`` when present) among ``values`` form a mixture:
    positive weights summing to one, one mean per weight, of one dimension, one D x D symmetric PSD
    covariance per weight.  Raises InputError naming the piece."""
    if not {"weights", "means"} <= set(values):
        return
    from softmix.numerics.mixture import GaussianMixture

    covs = values.get("covariances")
    if covs is None:  # no covariances among the pieces: zero ones (PSD), so only weights and means are checked
        means = values["means"]
        D = len(means[0]) if isinstance(means, list) and means and isinstance(means[0], list) else 1
        n = len(values["weights"]) if isinstance(values["weights"], list) else 1
        covs = [[[0] * D for _ in range(D)] for _ in range(n)]
    GaussianMixture.from_values(values["weights"], values["means"], covs,
                                where=f"{where} (weights, means{', covariances' if 'covariances' in values else ''} "
                                      "form a mixture)")


def coerce_dataclass(P, values: dict, where: str = "parameters"):
    """``P(**values)`` with each value delivered as its field's type says (:func:`parsed_value`), turning
    any ValueError/TypeError of ``__post_init__`` into InputError."""
    conv = _converters(P)
    dps = values.get("dps")
    try:
        vals = {k: (conv[k](v, dps) if k in conv and v is not None else v) for k, v in values.items()}
        return P(**vals)
    except InputError:
        raise
    except (TypeError, ValueError) as e:
        raise InputError(f"{where}: {e}") from None


def _converters(P) -> dict:
    """field name -> ``convert(value, dps)`` for the fields of ``P`` whose type delivers parsed values
    (remembered in the run's memo)."""
    from softmix.numerics.memo import remember

    def make():
        hints = typing.get_type_hints(P, include_extras=True)
        out = {}
        for f in dataclasses.fields(P):
            c = _converter(hints.get(f.name, typing.Any))
            if c is not None:
                out[f.name] = c
        return out

    return remember("params.converters", P, make)


def _exact(v, dps=None) -> Fraction:
    from softmix.numerics.parsing import parse_number

    return parse_number(v, "value")


def _float(v, dps=None) -> float:
    return float(_exact(v))


def _real(v, dps=None):
    import mpmath as mpm

    f = _exact(v)
    digits = int(dps) if isinstance(dps, int) and not isinstance(dps, bool) and dps > 0 else REAL_DEFAULT_DPS
    with mpm.workdps(digits):
        return mpm.mpf(f.numerator) / f.denominator


def _int(v, dps=None) -> int:
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _converter(tp):
    """How a value of annotation ``tp`` is delivered: ``Exact`` and ``Fraction`` as Fraction, ``Real``
    as mpf, ``float`` (and ``Number``, ``NonNegative``, ``Positive``) as float, ``Covariance`` as rows
    of Fractions, ``int`` as int, lists elementwise; None when the value is delivered as given."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *meta = typing.get_args(tp)
        if _EXACT in meta:
            return _exact
        if _REAL in meta:
            return _real
        if _COV in meta:
            return lambda v, dps=None: [[_exact(x) for x in r] for r in v]
        if {_NUM, _NONNEG, _POS} & set(meta):
            return _float
        return _converter(base)
    if tp is Fraction:
        return _exact
    if tp is float:
        return _float
    if tp is int:
        return _int
    if origin is list:
        args = typing.get_args(tp)
        inner = _converter(args[0]) if args else None
        if inner is not None:
            return lambda v, dps=None: [inner(x, dps) for x in v]
        return None
    if origin is typing.Union or type(tp).__name__ == "UnionType":
        members = [a for a in typing.get_args(tp) if a is not type(None)]
        conv = _converter(members[0]) if len(members) == 1 else None
        if conv is None:
            return None
        return lambda v, dps=None: None if v is None else conv(v, dps)  # X | None: null stays None
    return None
