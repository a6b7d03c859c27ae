"""Declared schemas of the input files, validated with pydantic v2 (docs/input.md).

One schema per kind of file softmix reads -- a mixture (``--mixture``, ``--queries``), a matrix
(``--U``, ``--V``), the heads and the target of ``softmix risk`` -- built from a few leaf types:

* :data:`Number`: any number :func:`softmix.numerics.parsing.parse_number` accepts, delivered as
  an exact ``Fraction`` (bounded: digits, exponent, characters);
* :data:`Vector`: a non-empty list of numbers, at most ``LIMITS.max_dimension`` long;
* :data:`Matrix`: a non-empty list of rows of one length (a rectangle);

and the cross-field rules of each file (one mean and one covariance per weight, every mean of one
dimension D, every covariance D x D; every head's U D x D...).  :func:`validate` runs a schema and
turns the first violation into an :class:`~softmix.numerics.errors.InputError` of one line naming
the file, the path inside the JSON (``covariances[1]``, ``heads[0].U[2]``) and what was expected.

Positivity of weights, their sum, symmetry and semi-definiteness are checked after the schema by
the objects built from it (:class:`~softmix.numerics.mixture.GaussianMixture`, ``parse_heads``,
``parse_target``), with the same paths in their messages.
"""
from __future__ import annotations

from typing import Annotated, Any, Optional

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .errors import InputError
from .parsing import LIMITS, parse_number, show_value, suggest

__all__ = ["Number", "Vector", "Matrix", "MixtureSchema", "HeadSchema", "TargetSchema", "MIXTURE", "MATRIX",
           "HEADS", "TARGET", "validate", "format_path"]


def _number(x):
    try:
        return parse_number(x, "")
    except InputError as e:
        raise PydanticCustomError("number", "{msg}", {"msg": str(e).removeprefix(": ")}) from None


def _rectangular(rows):
    n = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != n:
            raise PydanticCustomError("matrix", "rows have different lengths (row {i} has {n}, row 0 has {m}); "
                                      "expected a rectangular list of rows", {"i": i, "n": len(r), "m": n})
    return rows


Number = Annotated[Any, PlainValidator(_number)]
Vector = Annotated[list[Number], Field(min_length=1, max_length=LIMITS.max_dimension)]
Matrix = Annotated[list[Vector], Field(min_length=1, max_length=LIMITS.max_dimension), AfterValidator(_rectangular)]
_Components = Field(min_length=1, max_length=LIMITS.max_components)


def _fail(msg: str, **ctx):
    raise PydanticCustomError("shape", msg, ctx)


class MixtureSchema(BaseModel):
    """``{"weights": [K numbers], "means": [K vectors of length D], "covariances": [K D x D matrices]}``."""

    model_config = ConfigDict(extra="forbid")
    weights: Annotated[list[Number], _Components]
    means: Annotated[list[Vector], _Components]
    covariances: Annotated[list[Matrix], _Components]

    @model_validator(mode="after")
    def _shapes(self):
        K, D = len(self.weights), len(self.means[0])
        if len(self.means) != K:
            _fail("means: expected {K} vectors (one per weight), got {n}", K=K, n=len(self.means))
        for k, m in enumerate(self.means):
            if len(m) != D:
                _fail("means[{k}]: expected {D} entries (the dimension of means[0]), got {n}", k=k, D=D, n=len(m))
        if len(self.covariances) != K:
            _fail("covariances: expected {K} matrices (one per weight), got {n}", K=K, n=len(self.covariances))
        for k, G in enumerate(self.covariances):
            if len(G) != D or len(G[0]) != D:
                _fail("covariances[{k}]: expected a {D}x{D} matrix (the dimension of the means), got {r}x{c}",
                      k=k, D=D, r=len(G), c=len(G[0]))
        return self


class HeadSchema(BaseModel):
    """One head of ``softmix risk``: ``{"U": D x D, "V": p x D, "W": q x p (optional)}``."""

    model_config = ConfigDict(extra="forbid")
    U: Matrix
    V: Matrix
    W: Optional[Matrix] = None

    @model_validator(mode="after")
    def _shapes(self, info: ValidationInfo):
        D = (info.context or {}).get("D", len(self.U))
        if len(self.U) != D or len(self.U[0]) != D:
            _fail("U: expected a {D}x{D} matrix (the token dimension), got {r}x{c}", D=D, r=len(self.U),
                  c=len(self.U[0]))
        if len(self.V[0]) != D:
            _fail("V: expected {D} columns (the side of U), got {c}", D=D, c=len(self.V[0]))
        if self.W is not None and len(self.W[0]) != len(self.V):
            _fail("W: expected {p} columns (the rows of V), got {c}", p=len(self.V), c=len(self.W[0]))
        return self


class TargetSchema(BaseModel):
    """The target of ``softmix risk``: ``{"B": q x D, "noise_covariance": q x q (optional)}``."""

    model_config = ConfigDict(extra="forbid")
    B: Matrix
    noise_covariance: Optional[Matrix] = None


MIXTURE = TypeAdapter(MixtureSchema)
MATRIX = TypeAdapter(Matrix)
HEADS = TypeAdapter(Annotated[list[HeadSchema], _Components])
TARGET = TypeAdapter(TargetSchema)
_KEYS = {MIXTURE: ("weights", "means", "covariances"), HEADS: ("U", "V", "W"), TARGET: ("B", "noise_covariance"),
         MATRIX: ()}


def format_path(loc, root: str = "") -> str:
    """``("covariances", 1, 0)`` -> ``covariances[1][0]`` (``root`` is prefixed: ``heads[0].U``)."""
    out = root
    for p in loc:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _describe(err: Any, keys) -> str:
    t, ctx, inp = err["type"], err.get("ctx") or {}, err.get("input")
    if t in ("list_type", "tuple_type", "iterable_type"):
        return f"expected a list, got {show_value(inp)}"
    if t in ("model_type", "dict_type", "model_attributes_type"):
        return f"expected an object{' with keys ' + ', '.join(keys) if keys else ''}, got {show_value(inp)}"
    if t == "too_short":
        return f"expected a non-empty list, got {show_value(inp)}" if ctx.get("min_length") == 1 else \
            f"expected at least {ctx.get('min_length')} entries, got {ctx.get('actual_length')}"
    if t == "too_long":
        return f"more than the limit of {ctx.get('max_length')} entries"
    if t == "missing":
        return f"missing key {err['loc'][-1]!r} (keys: {', '.join(keys)})"
    if t == "extra_forbidden":
        key = str(err["loc"][-1])
        return f"unknown key {key!r}{suggest(key, keys)} (accepted: {', '.join(keys)})"
    return err["msg"]


def validate(schema: TypeAdapter, obj, where: str, root: str = "", **context):
    """``schema.validate_python(obj, context=context)``; the first violation becomes one InputError
    line: ``{where}: {path}: {what was expected}``."""
    try:
        return schema.validate_python(obj, context=context or None)
    except ValidationError as e:
        errs = e.errors(include_url=False)
        # an unknown key explains a missing one (a typo): report it first
        err = next((x for x in errs if x["type"] == "extra_forbidden"), errs[0])
        loc = err["loc"][:-1] if err["type"] in ("missing", "extra_forbidden") else err["loc"]
        path = format_path(loc, root)
        msg = _describe(err, _KEYS.get(schema, ()))
        if err["type"] == "shape":  # a model-level rule: its message starts with the field's own path
            raise InputError(f"{where}: {path + '.' if path else ''}{msg}") from None
        raise InputError(f"{where}: {path}: {msg}" if path else f"{where}: {msg}") from None
