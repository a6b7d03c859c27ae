"""Assumptions as objects: declared once, they shape the draws, check ``--config``, and are tested.

A claim states its result *under assumptions*.  An :class:`Assumption` has a stable ``name``
(``equal-norms``), a one-line ``text`` and hooks:

* ``holds(values)``: a predicate on the claim's parameter values -- ``--config`` values that break
  a declared assumption are rejected before any work (exit 2, one line naming the assumption);
* ``violate(values, rng)``: parameter overrides that *break* it -- the automatic
  **assumption-dropped control** ``without:NAME`` decides the same statement on them;
* ``family``: options that shape a symbolic family and drawn instances (the operator front-end,
  :func:`softmix.checks.configs.mixture`), and ``broken``: the options of a family that breaks it.

The control ``without:NAME`` must be refuted: if the statement still holds without the
assumption, the assumption is not needed for it, and the claim's evidence gets a finding
``{"kind": "scope", ...}`` saying so.  That is a statement about the claim's scope, not a failure
of the verifier: it does not fail the run (:func:`control_failed`).

Built-ins (:data:`CATALOGUE`, by name): ``equal-norms``, ``antipodal`` (m2 = -m1),
``equal-weights``, ``centred``, ``shared-covariance``, ``isotropic``, ``shared-isotropic``,
``diagonal``, ``singular``, ``pi-not-half``, ``distinct-means``; and :class:`Below` (a computed
quantity below a threshold).  Parameter-bound built-ins name the fields they constrain --
``EqualNorms("means")``, ``Antipodal("m1", "m_1")``, ``PiNotHalf("pi_plus")``,
``SharedCovariance("mixture")`` -- a field holding a vector, a list of vectors (matrices, weights),
a scalar proportion, or a mixture ``{"weights", "means", "covariances"}``; dotted paths reach into
nested objects (``"lda.m1"``).  User-defined::

    Assumption("small-tilt", "||U z|| < 1", holds=lambda p: norm(p["U"], p["z"]) < 1,
               violate=lambda p, rng: {"z": [5 * x for x in p["z"]]})

How the engine uses declared assumptions (families, ``--config`` checks, the dropped controls,
scope findings) is in :mod:`softmix.checks.assumption_runs`.  The engine knows nothing of any paper.
"""
from __future__ import annotations

import copy
from fractions import Fraction

from softmix.numerics.errors import InputError

from .assumption_views import MixtureView, assign, field_value, number, view_of

__all__ = ["Assumption", "EqualNorms", "Antipodal", "EqualWeights", "Centred", "SharedCovariance", "Isotropic",
           "SharedIsotropic", "Diagonal", "Singular", "PiNotHalf", "DistinctMeans", "Below", "CATALOGUE",
           "resolve", "control_id", "CONTROL_PREFIX"]

#: the id of the assumption-dropped control of assumption NAME is CONTROL_PREFIX + NAME
CONTROL_PREFIX = "without:"


def control_id(name: str) -> str:
    """The id of the assumption-dropped control of assumption ``name``."""
    return CONTROL_PREFIX + name


class Assumption:
    """A named assumption (see the module docstring).

    ``holds(values) -> bool`` and ``violate(values, rng) -> dict | list[dict] | None`` work on a
    claim's parameter values (a dict); ``family`` is a dict of family options (``covariance``,
    ``means``, ``weights``, ``centred``, ``degenerate``) or a callable ``family(mix) -> mix``
    transforming a :class:`softmix.theory.mixtures.SymbolicMixture` (symbolic or rational),
    ``broken`` the options of a family without it (default: the generic family), and
    ``holds_for(mix) -> bool`` a predicate on a mixture instance (labels instances that break it).
    A predicate may return None when it cannot tell: the assumption then counts neither as held nor
    as broken (``--config`` values are accepted, an instance is not reported outside the model).
    """

    def __init__(self, name: str, text: str, *, holds=None, violate=None, family=None, broken=None,
                 holds_for=None, fields=()):
        if not isinstance(name, str) or not name or any(c.isspace() for c in name):
            raise ValueError(f"an assumption's name is a non-empty word (e.g. 'equal-norms'), got {name!r}")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"assumption {name}: give a one-line text")
        self.name, self.text = name, text.strip().splitlines()[0]
        self.fields = tuple(fields)
        self._holds, self._violate, self._holds_for = holds, violate, holds_for
        self.family = family
        self.broken = broken

    @property
    def control_id(self) -> str:
        return control_id(self.name)

    def holds(self, values: dict):
        """True / False on a claim's parameter values; None when it cannot tell."""
        return None if self._holds is None else _tri(self._holds(values))

    def violate(self, values: dict, rng) -> list[dict]:
        """Candidate overrides of ``values`` that break the assumption (best first)."""
        if self._violate is None:
            return []
        out = self._violate(values, rng)
        return [] if out is None else ([out] if isinstance(out, dict) else list(out))

    def holds_for(self, mix):
        """True / False on a mixture instance (weights, means, covariances); None when it cannot tell."""
        return None if self._holds_for is None else _tri(self._holds_for(mix))

    def bind(self, defaults: dict) -> "Assumption":
        """The assumption with its fields resolved against a claim's defaults (built-ins find a
        ``means`` / ``weights`` / ``covariances`` field or a mixture when none is named)."""
        return self

    def describe(self) -> str:
        return f"{self.name}: {self.text}"

    def __repr__(self):
        f = f" on {', '.join(self.fields)}" if self.fields else ""
        return f"<Assumption {self.name}{f}: {self.text}>"


def _tri(result):
    """A predicate's result as True / False, or None (it cannot tell) when it returned None."""
    return None if result is None else bool(result)


# ---- built-ins -------------------------------------------------------------------------------------
class _Builtin(Assumption):
    """A structural assumption read from a :class:`MixtureView` of the named fields (or of a
    mixture instance).  Subclasses set ``NAME``, ``TEXT``, ``KINDS`` (the parts of the view they
    need), ``FAMILY``, ``BROKEN`` and implement ``_pred(view)`` and ``_breaks(view) -> [changes]``
    (each change a list of (slot, new value))."""

    NAME = TEXT = ""
    KINDS: tuple = ("means",)
    FAMILY: dict = {}
    BROKEN: dict | None = None

    def __init__(self, *fields, name: str | None = None, text: str | None = None):
        super().__init__(name or self.NAME, text or self.TEXT, family=dict(self.FAMILY),
                         broken=None if self.BROKEN is None else dict(self.BROKEN), fields=fields)

    def bind(self, defaults: dict) -> "Assumption":
        if self.fields:
            for f in self.fields:
                field_value(defaults, f)  # raises KeyError naming the field
            return self
        found = [k for k,
                 v in defaults.items() if isinstance(v, dict) and {"weights", "means", "covariances"} <= set(v)]
        found = found or [k for k in self.KINDS if k in defaults]
        if not found:
            raise KeyError(f"assumption {self.name}: name the parameter field(s) it constrains, "
                           f"e.g. {type(self).__name__}({self.KINDS[0]!r})")
        out = copy.copy(self)
        out.fields = tuple(found)
        return out

    def holds(self, values):
        if not self.fields:
            return None
        return self._pred(view_of(values, self.fields, self.KINDS))

    def holds_for(self, mix):
        return self._pred(MixtureView.of_mixture(mix))

    def violate(self, values, rng):
        if not self.fields:
            return []
        view = view_of(values, self.fields, self.KINDS)
        out = []
        for changes in self._breaks(view):
            new = copy.deepcopy(values)
            for slot, value in changes:
                assign(new, slot, value)
            tops = {slot[0].split(".")[0] for slot, _ in changes}
            out.append({t: new[t] for t in tops})
        return out

    def _pred(self, view) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def _breaks(self, view):  # pragma: no cover - abstract
        raise NotImplementedError


def _norm2(v):
    return sum(x * x for x in v)


def _scaled(v, c):
    return [x * c for x in v]


class EqualNorms(_Builtin):
    """All named means (vectors) have the same Euclidean norm."""
    NAME, TEXT, FAMILY = "equal-norms", "the means have equal Euclidean norms", {"means": "equal-norms"}

    def _pred(self, view):
        return len({_norm2(m) for m in view.means}) <= 1

    def _breaks(self, view):
        if len(view.means) < 2:
            return []
        return [[(view.mean_slots[-1], _scaled(view.means[-1], Fraction(3, 2)))],
                [(view.mean_slots[0], _scaled(view.means[0], Fraction(2, 3)))]]


class Antipodal(_Builtin):
    """Two means, the second the negative of the first (m2 = -m1)."""
    NAME, TEXT, FAMILY = "antipodal", "two antipodal means, m2 = -m1", {"means": "antipodal"}

    def _pred(self, view):
        return len(view.means) == 2 and all(a == -b for a, b in zip(*view.means))

    def _breaks(self, view):
        if len(view.means) != 2:
            return []
        b = view.means[1]
        out = []
        if len(b) >= 2:  # same norm, neither antipodal nor equal: rotate m2 by (3/5, 4/5) in a plane it leaves
            i = next((k for k, y in enumerate(b) if y != 0), 0)
            j = 1 if i == 0 else 0
            c, s = Fraction(3, 5), Fraction(4, 5)
            r = list(b)
            r[i], r[j] = c * b[i] - s * b[j], s * b[i] + c * b[j]
            out.append([(view.mean_slots[1], r)])
        out.append([(view.mean_slots[1], _scaled(b, Fraction(3, 2)))])
        return out


class DistinctMeans(_Builtin):
    """The named means are pairwise distinct (m1 != m_1)."""
    NAME, TEXT, FAMILY, BROKEN = "distinct-means", "the means are pairwise distinct", {}, {"means": "coincident"}

    def _pred(self, view):
        return len({tuple(m) for m in view.means}) == len(view.means)

    def _breaks(self, view):
        return [[(view.mean_slots[1], list(view.means[0]))]] if len(view.means) >= 2 else []


class EqualWeights(_Builtin):
    """Equal mixture weights (1/K each)."""
    NAME, TEXT, KINDS, FAMILY = "equal-weights", "the mixture weights are equal", ("weights",), {"weights": "equal"}

    def _pred(self, view):
        return len(set(view.weights)) <= 1

    def _breaks(self, view):
        if len(view.weights) < 2:
            return []
        d = min(view.weights) / 3
        return [view.set_weights([view.weights[0] + d, view.weights[1] - d])]  # the others stay as they are


class PiNotHalf(_Builtin):
    """Two classes of unequal proportions (pi_+ != 1/2)."""
    NAME, TEXT = "pi-not-half", "unequal class proportions, pi_+ != 1/2"
    KINDS, BROKEN = ("weights",), {"weights": "equal"}

    def _pred(self, view):
        return len(set(view.weights)) == len(view.weights)

    def _breaks(self, view):
        K = len(view.weights)
        return [view.set_weights([Fraction(1, K)] * K)] if K >= 2 else []


class Centred(_Builtin):
    """The mixture is centred: sum_k pi_k m_k = 0 (means given without weights: equal weights, so
    sum_k m_k = 0)."""
    NAME, TEXT = "centred", "the mixture is centred, sum_k pi_k m_k = 0"
    KINDS, FAMILY = ("weights", "means"), {"centred": True}

    @staticmethod
    def _weights(view):
        return view.weights or [1] * len(view.means)

    def _pred(self, view):
        D = len(view.means[0])
        return all(sum(w * m[i] for w, m in zip(self._weights(view), view.means)) == 0 for i in range(D))

    def _breaks(self, view):
        """Scale the first nonzero mean of a nonzero weight by 3/2 (the sum moves by half its term);
        when every such mean is zero, move the first of them by the first unit vector."""
        weights = self._weights(view)
        live = [k for k, w in enumerate(weights[:len(view.means)]) if w != 0]
        for k in live:
            if any(view.means[k]):
                return [[(view.mean_slots[k], _scaled(view.means[k], Fraction(3, 2)))]]
        if live:
            k = live[0]
            return [[(view.mean_slots[k], [x + (1 if i == 0 else 0) for i, x in enumerate(view.means[k])])]]
        return []


class SharedCovariance(_Builtin):
    """One covariance shared by every component."""
    NAME, TEXT, KINDS = "shared-covariance", "one covariance shared by every component", ("covariances",)
    FAMILY, BROKEN = {"covariance": "shared"}, {"covariance": "general"}

    def _pred(self, view):
        return len({_frozen(G) for G in view.covs}) <= 1

    def _breaks(self, view):
        if len(view.covs) < 2:
            return []
        return [[(view.cov_slots[-1], [_scaled(r, Fraction(3, 2)) for r in view.covs[-1]])]]


class Isotropic(_Builtin):
    """Every covariance is a multiple of the identity, v_k I."""
    NAME, TEXT, KINDS = "isotropic", "isotropic covariances v_k I", ("covariances",)
    FAMILY, BROKEN = {"covariance": "isotropic"}, {"covariance": "diagonal"}

    def _pred(self, view):
        return all(_is_scalar_matrix(G) for G in view.covs)

    def _breaks(self, view):
        out = []
        for slot, G in zip(view.cov_slots, view.covs):
            if len(G) >= 2:
                out.append([(slot, [[x * Fraction(3, 2) if (i, j) == (0, 0) else x for j, x in enumerate(r)]
                                    for i, r in enumerate(G)])])
                break
        return out


class SharedIsotropic(Isotropic):
    """One isotropic covariance v I shared by every component."""
    NAME, TEXT = "shared-isotropic", "one isotropic covariance v I shared by every component"
    FAMILY, BROKEN = {"covariance": "shared-isotropic"}, {"covariance": "isotropic"}

    def _pred(self, view):
        return super()._pred(view) and len({_frozen(G) for G in view.covs}) <= 1

    def _breaks(self, view):
        if len(view.covs) >= 2:
            return [[(view.cov_slots[-1], [_scaled(r, Fraction(3, 2)) for r in view.covs[-1]])]]
        return super()._breaks(view)


class Diagonal(_Builtin):
    """Diagonal covariances."""
    NAME, TEXT, KINDS = "diagonal", "diagonal covariances", ("covariances",)
    FAMILY, BROKEN = {"covariance": "diagonal"}, {"covariance": "general"}

    def _pred(self, view):
        return all(x == 0 for G in view.covs for i, r in enumerate(G) for j, x in enumerate(r) if i != j)

    def _breaks(self, view):
        """Add the off-diagonal entry min(G_ii, G_jj)/4 at the first pair (i, j) of positive diagonal
        entries (the diagonal and positive definiteness kept); a covariance with fewer than two
        positive variances gets t (e_0 + e_1)(e_0 + e_1)^T, t > 0, instead (still semidefinite)."""
        for slot, G in zip(view.cov_slots, view.covs):
            n = len(G)
            pos = [i for i in range(n) if G[i][i] > 0]
            if len(pos) >= 2:
                i0, j0 = pos[0], pos[1]
                c = min(G[i0][i0], G[j0][j0]) / 4
                return [[(slot, [[c if {i, j} == {i0, j0} else x for j, x in enumerate(r)]
                                 for i, r in enumerate(G)])]]
            if n >= 2:
                t = max(sum(G[i][i] for i in range(n)) / n, Fraction(1)) / 4
                return [[(slot, [[x + (t if i < 2 and j < 2 else 0) for j, x in enumerate(r)]
                                 for i, r in enumerate(G)])]]
        return []


class Singular(_Builtin):
    """Some covariance is singular (a degenerate component)."""
    NAME, TEXT, KINDS = "singular", "some covariance is singular (a degenerate component)", ("covariances",)
    FAMILY, BROKEN = {"degenerate": True}, {"degenerate": False}

    def _pred(self, view):
        import sympy as sp

        return any(sp.Matrix(G).det() == 0 for G in view.covs)

    def _breaks(self, view):
        changes = []
        for slot, G in zip(view.cov_slots, view.covs):
            t = max(sum(G[i][i] for i in range(len(G))) / len(G), Fraction(1))
            changes.append((slot, [[x + (t / 2 if i == j else 0) for j, x in enumerate(r)] for i, r in enumerate(G)]))
        return [changes] if changes else []


class Below(Assumption):
    """A computed quantity strictly below a threshold: ``Below("lambda-star", quantity, c)`` holds
    when ``quantity(values) < c``.  Its control breaks it with ``violate=`` if given, else by
    scaling the numeric ``fields`` by 2, 4, 8, 16 until ``quantity >= c``."""

    def __init__(self, name: str, quantity, threshold, *, text: str = "", fields=(), violate=None):
        self.quantity, self.threshold = quantity, threshold
        super().__init__(name, text or f"{name} < {threshold}", holds=lambda v: quantity(v) < threshold,
                         violate=violate, fields=fields)

    def violate(self, values, rng):
        if self._violate is not None:
            return super().violate(values, rng)
        out = []
        for c in (2, 4, 8, 16):
            over = {f: _scale_number(field_value(values, f), c) for f in self.fields}
            try:
                if self.quantity({**values, **over}) >= self.threshold:
                    out.append(over)
            except Exception:  # the quantity is not defined there
                continue
        return out


def _scale_number(x, c):
    if isinstance(x, str):
        return str(number(x) * c)
    return x * c


def _frozen(G):
    return tuple(tuple(r) for r in G)


def _is_scalar_matrix(G):
    return all((x == G[0][0]) if i == j else x == 0 for i, r in enumerate(G) for j, x in enumerate(r))


#: name -> built-in assumption class (``"equal-norms"`` -> :class:`EqualNorms`)
CATALOGUE = {c.NAME: c for c in (EqualNorms, Antipodal, EqualWeights, Centred, SharedCovariance, Isotropic,
                                 SharedIsotropic, Diagonal, Singular, PiNotHalf, DistinctMeans)}
_ALIASES = {"centered": "centred", "shared": "shared-covariance", "antipodal-means": "antipodal",
            "unequal-weights": "pi-not-half", "degenerate": "singular"}


def resolve(spec) -> Assumption:
    """An :class:`Assumption` from a catalogue name (or alias) or an Assumption (returned as is);
    anything else raises InputError listing the catalogue."""
    if isinstance(spec, Assumption):
        return spec
    if isinstance(spec, str):
        key = _ALIASES.get(spec, spec)
        if key in CATALOGUE:
            return CATALOGUE[key]()
    raise InputError(f"unknown assumption {spec!r} (built-ins: {', '.join(CATALOGUE)}; or an Assumption object)")
