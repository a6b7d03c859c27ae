"""The one lambdify wrapper: explicit backend, recorded argument order, common subexpressions.

Every numeric routine built from a SymPy expression goes through :func:`compile_expr`.  Calls
are by name (a mapping from symbol name to value), so argument order cannot be silently
permuted; ``signature`` records the positional order used internally.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import sympy as sp

from .memo import remember

__all__ = ["CompiledFunction", "compile_expr", "BACKENDS"]

BACKENDS = ("numpy", "mpmath")


@dataclass(frozen=True)
class CompiledFunction:
    backend: str
    signature: tuple[str, ...]
    fn: Callable[..., Any]
    n_outputs: int
    source_hash: int

    def __call__(self, values: Mapping[str, object]):
        missing = [n for n in self.signature if n not in values]
        if missing:
            raise TypeError(f"missing arguments: {', '.join(missing)}")
        return self.fn(*[values[n] for n in self.signature])


def _key(exprs, args, backend, cse):
    return (tuple(sp.srepr(e) for e in exprs), tuple(a.name for a in args), backend, cse)



def compile_expr(exprs: Sequence, args: Sequence[sp.Symbol], backend: str, cse: bool = True) -> CompiledFunction:
    """Lambdify ``exprs`` (a list of scalar expressions) over ``args``.

    backend "numpy": float64, broadcasting over array arguments.
    backend "mpmath": arbitrary precision; rationals print as mpf ratios, so no Python float
    enters; the caller sets the precision (:func:`numerics.precision.workdps`).
    Returns a list of outputs (one per expression).  Compiled once per run (:mod:`numerics.memo`).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {BACKENDS}")
    exprs = [sp.sympify(e) for e in exprs]
    names = [a.name for a in args]
    if len(set(names)) != len(names):
        raise ValueError("argument names must be unique")
    free = set().union(*[e.free_symbols for e in exprs]) if exprs else set()
    unknown = {s.name for s in free} - set(names)
    if unknown:
        raise ValueError(f"expression has symbols not in the signature: {sorted(unknown)}")
    key = _key(exprs, args, backend, cse)

    def make():
        fn = sp.lambdify(list(args), list(exprs), modules=backend, cse=cse)
        return CompiledFunction(backend, tuple(names), fn, len(exprs), hash(key))

    return remember("lambdify.compile_expr", key, make)
