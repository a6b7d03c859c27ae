"""Reading and writing the parameter fields an assumption constrains (helpers of
:mod:`softmix.checks.assumptions`).

A field (a dotted path into the claim's parameter values) holds a vector, a list of vectors, a
scalar proportion, a list of weights, a matrix, a list of matrices, or a mixture ``{"weights",
"means", "covariances"}``.  :func:`view_of` gathers them into a :class:`MixtureView` of exact
Fractions; every entry remembers its *slot*, so that a change can be written back in the style of
the value it replaces (a decimal string stays a string, a float a float).
"""
from __future__ import annotations

from fractions import Fraction

__all__ = ["MixtureView", "view_of", "field_value", "assign", "number"]


def number(x) -> Fraction:
    """An exact Fraction from an int, a Fraction, a SymPy rational, a decimal or 'p/q' string, or
    a float read as the decimal it prints as (0.6 -> 3/5)."""
    if isinstance(x, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):  # float(x): a numpy float64 reprs as 'np.float64(0.6)'
        return Fraction(repr(float(x)))
    if isinstance(x, str):
        from softmix.numerics.mixture import parse_number

        return parse_number(x, "value")
    if hasattr(x, "p") and hasattr(x, "q"):  # SymPy Rational / Integer
        return Fraction(int(x.p), int(x.q))
    return Fraction(x)


def field_value(values: dict, path: str):
    """The value at a dotted ``path`` of ``values`` (KeyError naming the field when absent)."""
    cur = values
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            raise KeyError(f"no parameter field {path!r}")
        cur = cur[part]
    return cur


def _is_num(x) -> bool:
    if isinstance(x, (list, dict, tuple)) or isinstance(x, bool) or x is None:
        return False
    try:
        number(x)
        return True
    except Exception:
        return False


def _depth(v) -> int:
    """0: a number, 1: a vector, 2: a matrix / list of vectors, 3: a list of matrices."""
    d = 0
    while isinstance(v, (list, tuple)) and v:
        v, d = v[0], d + 1
    return d if (d == 0 and _is_num(v)) or d else -1


def _is_mixture(v) -> bool:
    return isinstance(v, dict) and {"weights", "means", "covariances"} <= set(v)


class MixtureView:
    """Weights, means and covariances (exact) read from named fields, with their slots."""

    def __init__(self):
        self.weights, self.weight_slots = [], []
        self.means, self.mean_slots = [], []
        self.covs, self.cov_slots = [], []

    @classmethod
    def of_mixture(cls, mix) -> "MixtureView":
        """The view of a mixture instance (GaussianMixture or a SymbolicMixture of numbers)."""
        v = cls()
        v.weights = [number(w) for w in mix.weights]
        v.means = [[number(x) for x in m] for m in mix.means]
        v.covs = [[[number(G[i, j] if hasattr(G, "shape") else G[i][j]) for j in range(len(v.means[0]))]
                   for i in range(len(v.means[0]))] for G in mix.covariances]
        return v

    def add(self, kind, slot, value):
        if kind == "weights":
            if slot[1] == "proportion":
                p = number(value)
                self.weights += [p, 1 - p]
                self.weight_slots += [slot, None]
            else:
                self.weights.append(number(value))
                self.weight_slots.append(slot)
        elif kind == "means":
            self.means.append([number(x) for x in value])
            self.mean_slots.append(slot)
        else:
            self.covs.append([[number(x) for x in r] for r in value])
            self.cov_slots.append(slot)

    def set_weights(self, new) -> list:
        """The changes writing the weights ``new`` back (a proportion writes its first weight)."""
        return [(s, w) for s, w in zip(self.weight_slots, new) if s is not None]


def view_of(values: dict, fields, kinds) -> MixtureView:
    """The :class:`MixtureView` of ``fields`` of ``values`` for the parts ``kinds`` (``weights``,
    ``means``, ``covariances``).  A mixture field feeds every part; otherwise a field feeds the
    only part, or (several parts) the part its shape says: numbers -> weights, vectors -> means,
    lists of vectors -> means (matrices -> covariances when means are not asked for), lists of
    matrices -> covariances.  A vector is read as the list of weights only when no field is a number
    and another field is a list of vectors (``("weights", "means")``); one number is a proportion
    (weights p, 1 - p), several numbers are one weight each.  NumPy arrays read as nested lists."""
    view = MixtureView()
    read = [(f, _plain(field_value(values, f))) for f in fields]
    plain = [(f, v, _depth(v)) for f, v in read if not _is_mixture(v)]
    numbers = sum(d == 0 for _, _, d in plain)
    vector_lists = any(d == 2 for _, _, d in plain)
    for f, v in read:
        if _is_mixture(v):
            for kind in kinds:
                for i, x in enumerate(v[kind]):
                    view.add(kind, (f"{f}.{kind}", i), x)
            continue
        d = _depth(v)
        kind = _kind_of(d, kinds, weights_vector=numbers == 0 and vector_lists)
        single = {"weights": 0, "means": 1, "covariances": 2}[kind]
        if kind == "weights" and d == 0:
            view.add(kind, (f, "proportion") if numbers == 1 else (f, None), v)
        elif d == single:
            view.add(kind, (f, None), v)
        elif d == single + 1:
            for i, x in enumerate(v):
                view.add(kind, (f, i), x)
        else:
            raise TypeError(f"field {f!r} does not hold {kind} (got {str(v)[:60]})")
    return view


def _kind_of(depth: int, kinds, weights_vector: bool) -> str:
    """The part of the view a (non-mixture) field of nesting ``depth`` feeds (see :func:`view_of`)."""
    if len(kinds) == 1:
        return kinds[0]
    if depth == 1:
        kind = "weights" if weights_vector else "means"
    elif depth == 2:
        kind = "means" if "means" in kinds else "covariances"
    else:
        kind = {0: "weights", 3: "covariances"}.get(depth, kinds[0])
    return kind if kind in kinds else kinds[0]


def _plain(v):
    """A NumPy array (or scalar) as the nested lists (numbers) it holds; anything else unchanged."""
    return v.tolist() if hasattr(v, "tolist") and hasattr(v, "ndim") else v


def _like(old, new):
    """``new`` written in the style of ``old`` (a NumPy array stays an array, of floats if needed)."""
    if hasattr(old, "ndim") and hasattr(old, "tolist"):
        import numpy as np

        return np.asarray(_like(old.tolist(), new))
    if isinstance(old, (list, tuple)):
        return [_like(o, n) for o, n in zip(old, new)]
    if isinstance(old, str):
        return str(new)
    if isinstance(old, float):
        return float(new)
    if isinstance(old, int) and not isinstance(old, bool):
        return int(new) if new.denominator == 1 else float(new)
    return new


def assign(values: dict, slot, value) -> None:
    """Write ``value`` (exact) at ``slot`` of ``values`` (in place), in the style of the old value."""
    path, idx = slot
    parts = path.split(".")
    parent = values
    for p in parts[:-1]:
        parent = parent[p]
    key = parts[-1]
    if idx is None or idx == "proportion":
        parent[key] = _like(parent[key], value)
    else:
        was = parent[key]
        lst = list(_plain(was))
        lst[idx] = _like(lst[idx], value)
        if hasattr(was, "ndim"):
            import numpy as np

            parent[key] = np.asarray(lst)
        else:
            parent[key] = lst
