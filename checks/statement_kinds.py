"""What the statement kinds share: declaring a kind's claim, its assumptions, its drawn points, its perturbations.

softmix decides statements of several *kinds*, each a public helper on the footing of
:func:`softmix.operator_claim` (a claim registered, or returned with ``register=False``, decided with
automatic controls, shown by ``softmix show``):

* :func:`softmix.identity_claim` (:mod:`softmix.checks.kind_identity`) -- an identity of derived
  quantities, SymPy ``derived`` against ``stated`` under the declared assumptions;
* :func:`softmix.constant_claim` (:mod:`softmix.checks.kind_constant`) -- a high-precision identity of
  constants against an independent reference;
* :func:`softmix.bound_claim` (:mod:`softmix.checks.kind_bound`) -- an inequality on drawn points,
  certified by interval arithmetic on a box where it applies;
* :func:`softmix.rate_claim` (:mod:`softmix.checks.kind_rate`) -- a limit or a rate in the prompt
  length decided by the Monte Carlo rules from the user's simulator;
* :func:`softmix.flow_claim` (:mod:`softmix.checks.kind_flow`) -- a stationary point of a flow and its
  convergence rate.

This module holds the common parts: :func:`register_kind` (the claim, through
:func:`softmix.checks.api.claim`), :func:`point_assumptions` and :func:`dropped_controls` (declared
:class:`~softmix.checks.assumptions.Assumption` objects on the values of a point, their
assumption-dropped controls ``without:NAME``), :func:`draw_points` (the given point and points drawn from
the seed, filtered and broken by the assumptions with the engine's
:func:`~softmix.checks.assumption_runs.admissible`), :func:`perturb_expr` (a term dropped, a sign flipped,
a factor scaled) and the exact-to-mpmath conversion :func:`to_mpf`.
"""
from __future__ import annotations

import dataclasses
import inspect
import re
from fractions import Fraction
from types import SimpleNamespace
from typing import Any, Callable

import mpmath as mpm
import sympy as sp

from softmix.numerics.errors import InputError

from .api import claim
from .assumption_runs import admissible
from .assumptions import Assumption, control_id
from .registry import Control

#: the note of a kind whose points are drawn inside its check (``softmix verify`` shows it under configurations)
DRAWN_NOTE = ("points drawn inside the check from the seed (ctx.stream('points', i)) and filtered by the declared "
              "assumptions: each is a row of the evidence")

__all__ = ["register_kind", "DRAWN_NOTE", "params_type", "point_assumptions", "dropped_controls", "draw_points",
           "perturb_expr", "PERTURBATIONS", "to_mpf", "exact", "check_box", "statement_of", "accepts"]

#: perturbations of a stated expression (automatic negative controls of the symbolic kinds)
PERTURBATIONS = {
    "dropped-term": "the stated side with one additive term dropped (the first sum met in its first entry)",
    "flipped-sign": "the stated side with one term's sign flipped (the first sum met in its first entry)",
    "scaled-factor": "the stated side multiplied by 6/5 (a wrong constant factor)",
}


# ---- perturbations ---------------------------------------------------------------------------------
def _first_add(e):
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Add) and len(node.args) >= 2:
            return node
    return None


def _edit(e, how: str):
    e = sp.sympify(e)
    if how == "scaled-factor":
        return sp.Rational(6, 5) * e
    a = _first_add(e)
    if a is None:
        out = sp.Integer(0) if how == "dropped-term" else -e
        return sp.Integer(1) if out == e else out
    rest, last = sp.Add(*a.args[:-1]), a.args[-1]
    return e.xreplace({a: rest if how == "dropped-term" else rest - last})


def perturb_expr(expr, how: str):
    """``expr`` (a SymPy scalar or matrix) altered by the perturbation ``how`` (:data:`PERTURBATIONS`);
    a matrix is altered in its first entry (scaled: as a whole).

    >>> x, y = sp.symbols("x y")
    >>> perturb_expr(x + y, "flipped-sign") == x - y or perturb_expr(x + y, "flipped-sign") == y - x
    True
    """
    if how not in PERTURBATIONS:
        raise KeyError(f"unknown perturbation {how!r}")
    if isinstance(expr, sp.MatrixBase):
        M = sp.Matrix(expr)
        if how == "scaled-factor":
            return sp.Rational(6, 5) * M
        M[0] = _edit(M[0], how)
        return M
    return _edit(expr, how)


# ---- numbers ---------------------------------------------------------------------------------------
def exact(x) -> Fraction:
    """An exact rational from an int, a Fraction, a decimal or ``p/q`` string, a SymPy rational or a float
    (read as the decimal it prints)."""
    if isinstance(x, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    if isinstance(x, float):
        return Fraction(repr(x))
    if isinstance(x, str):
        return Fraction(x.strip())
    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    raise TypeError(f"not an exact number: {x!r}")


def to_mpf(x):
    """An mpmath number at the current precision from an exact value, a SymPy number, an mpf or a float."""
    if isinstance(x, (mpm.mpf, mpm.mpc)):
        return x
    if isinstance(x, str):
        try:
            x = exact(x)
        except (ValueError, ZeroDivisionError):
            x = sp.sympify(x)
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        f = exact(x)
        return mpm.mpf(f.numerator) / f.denominator
    if isinstance(x, sp.Basic):
        v = sp.N(x, mpm.mp.dps + 5)
        if v.is_real:
            return mpm.mpf(v._mpf_) if hasattr(v, "_mpf_") else mpm.mpf(str(v))
        return mpm.mpc(str(sp.re(v)), str(sp.im(v)))
    return mpm.mpmathify(x)


# ---- declaring --------------------------------------------------------------------------------------
def statement_of(fn, fallback: str) -> str:
    """The first line of ``fn``'s docstring, else ``fallback``."""
    return (inspect.getdoc(fn) or "").split("\n")[0] or fallback


def accepts(fn, name: str) -> bool:
    """Does ``fn`` take a keyword argument ``name`` (or ``**kwargs``)?"""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def point_assumptions(assume, where: str) -> tuple:
    """Declared assumptions on the values of a point: :class:`Assumption` objects with a ``holds`` predicate
    (and a ``violate`` that breaks them, for their control); anything else is an InputError."""
    items = assume if isinstance(assume, (list, tuple)) else (assume,)
    out = []
    for a in items:
        if not isinstance(a, Assumption) or a._holds is None:
            raise InputError(f"{where}: an assumption here is a softmix.Assumption(name, text, "
                             f"holds=predicate(values), violate=...) on the point's values, got {a!r}")
        out.append(a)
    if len({a.name for a in out}) != len(out):
        raise InputError(f"{where}: an assumption is declared twice")
    return tuple(out)


def dropped_controls(assumptions, what: str) -> dict:
    """One assumption-dropped control ``without:NAME`` per declared assumption (``what``: how it is decided)."""
    return {control_id(a.name): Control(
        control_id(a.name), f"the same statement without the assumption {a.name} ({a.text}): {what}; not refuted "
        "means the assumption is not needed (a scope finding)", kind="assumption-dropped", assumption=a.name)
        for a in assumptions}


def register_kind(*, id, check, Params, controls: dict, prose, statement: str, title: str, source: str, kind: str,
                  register: bool, note: str, derivations=None, stated_fn=None, profiles: dict | None = None):
    """Register (or, ``register=False``, only build) the claim of a statement kind: ``check(p, ctx)`` decides
    it, ``Params`` is its parameter dataclass (precision, sample sizes: what ``--config`` may change)."""
    check.__annotations__ = {"p": Params}
    if stated_fn is not None:
        check.__module__ = getattr(stated_fn, "__module__", __name__)
        check.__qualname__ = getattr(stated_fn, "__qualname__", "stated")
    claim(id=id, title=title or f"{kind} statement {id}", source=source or "user statement", controls=controls,
          section="user", kind=kind, statement=statement, assumptions=tuple(prose), params=Params,
          configurations_note=note, derivations=derivations, register=register, profiles=profiles)(check)
    c = check.claim
    if stated_fn is not None:
        c.check.__wrapped__ = stated_fn
    return c


def params_type(id, kind: str, fields: list, check: Callable[[Any], None] | None = None):
    """A parameter dataclass named after the claim: ``fields`` as for :func:`dataclasses.make_dataclass`
    (every one with a default), ``check(p)`` raising ValueError on bad values (exit 2 for ``--config``)."""
    ns = {"__post_init__": (lambda self: check(self))} if check is not None else {}
    P = dataclasses.make_dataclass(f"{kind.title().replace('-', '')}Params_{re.sub(r'[^A-Za-z0-9_]', '_', str(id))}",
                                   fields, namespace=ns)
    P.__doc__ = f"Parameters of {id} ({kind} statement): precision and sample sizes."
    return P


# ---- points ----------------------------------------------------------------------------------------
def check_box(box, where: str) -> dict:
    """A box ``{name: (low, high)}`` with exact endpoints, low < high."""
    if not isinstance(box, dict) or not box:
        raise InputError(f"{where}: over= takes a box {{name: (low, high)}} or a function draw(rng) -> dict")
    out = {}
    for k, v in box.items():
        try:
            lo, hi = (exact(x) for x in v)
        except (TypeError, ValueError, ZeroDivisionError):
            raise InputError(f"{where}: over[{k!r}] must be (low, high) with exact numbers, got {v!r}") from None
        if not (isinstance(k, str) and k.isidentifier()) or not lo < hi:
            raise InputError(f"{where}: over[{k!r}] must name a variable and have low < high, got {v!r}")
        out[k] = (lo, hi)
    return out


def _in_box(rng, box: dict) -> dict:
    """A rational point of ``box``: each coordinate ``low + (high - low) k / 997`` for a random k in (0, 997)."""
    return {k: lo + (hi - lo) * Fraction(int(rng.integers(1, 997)), 997) for k, (lo, hi) in box.items()}


def draw_points(ctx, over, n: int, assumptions, at: dict | None = None) -> tuple[list, list]:
    """``(points, skipped)``: the given point ``at`` (when given), then ``n`` points drawn from
    ``ctx.stream("points", i)`` by ``over`` (a box ``{name: (low, high)}`` or ``draw(rng) -> dict``), each a
    ``(name, values)``.  A point that breaks a declared assumption is skipped (``skipped``: name, values,
    reason); in an assumption-dropped control every point is broken by the assumption's ``violate``
    (:func:`softmix.checks.assumption_runs.admissible`), from ``ctx.stream("points", i, "assumption")``."""
    holder = SimpleNamespace(assumption_objects=tuple(assumptions))
    raw = [("given", dict(at))] if at is not None else []
    for i in range(1, n + 1):
        if over is None:
            break
        rng = ctx.stream("points", i)
        vals = _in_box(rng, over) if isinstance(over, dict) else over(rng)
        if not isinstance(vals, dict):
            raise InputError(f"claim {ctx.claim_id}: over(rng) must return a dict of values, got {type(vals).__name__}")
        raw.append((f"drawn-{i}", vals))
    points, skipped = [], []
    for name, vals in raw:
        key = name.split("-")[-1] if name != "given" else "given"
        ok, why = admissible(holder, ctx.variant, vals, ctx.stream("points", key, "assumption"))
        if ok is None:
            skipped.append({"name": name, "values": vals, "reason": why})
        else:
            points.append((name, ok))
    return points, skipped
