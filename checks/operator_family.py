"""What an operator statement is about: the structured family, the head (U, V), extra symbols,
and the rational instances drawn from them (the front-end of :mod:`softmix.checks.operator`).

A :class:`Head` holds the declaration of ``softmix.operator_claim``: ``K`` components in
dimension ``D``, the family options imposed by the covariance structure and the declared
assumptions (:func:`softmix.checks.assumption_runs.family_spec`), the extra positive symbols,
and ``U``, ``V`` (generic symbols, a fixed SymPy matrix, or a callable ``U(mix, **symbols)``).
From one spec it builds the symbolic family (:func:`softmix.theory.families.structured_mixture`)
and draws rational instances of the same structure (equal norms: rational points of the sphere,
``r * stereographic(t)``, times a rational radius), so that both sides are decided on the
statement's own model and nothing else; :func:`softmix.checks.operator_model.model_violations` says
why a point or an instance lies outside that model (:mod:`softmix.checks.operator_model`).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from softmix.numerics.mixture import GaussianMixture
from softmix.theory.families import stereographic, structured_mixture
from softmix.theory.mixtures import SymbolicMixture, matrix_symbols, vector_symbols

from .assumption_runs import family_spec
from .configs import MAX_TRIES, exhausted
from .operator_reference import exact_matrix
from .strategies import _exact_rank, random_matrix, random_mixture

__all__ = ["Head", "Instance", "RESERVED_SYMBOL"]

#: names the family, the head and the derivation use (a user symbol may not take one)
RESERVED_SYMBOL = re.compile(r"^(pi\d+|m\d+_\d+|G\d*_\d+|L\d*_\d+|v\d*|g\d+_\d+|r|t\d+_\d+|z_\d+|U_\d+|V_\d+|a_\d+"
                             r"|_X\d+)$")


def _Q(x) -> sp.Rational:
    x = Fraction(x)
    return sp.Rational(x.numerator, x.denominator)


def _rat(rng, lo: int, hi: int, den: int) -> Fraction:
    return Fraction(int(rng.integers(lo, hi + 1)), int(rng.integers(1, den + 1)))


@dataclass
class Instance:
    """A rational instance: ``mix`` (GaussianMixture, for the references), ``smix`` (the same as
    exact SymPy, with ``variances`` / ``radius`` when the family has them: what the statement
    sees), ``U``, ``V`` (exact SymPy matrices), ``z`` (SymPy column), ``symbols`` (name -> value)."""

    mix: GaussianMixture
    smix: SymbolicMixture
    U: sp.Matrix
    V: sp.Matrix
    z: sp.Matrix
    symbols: dict = field(default_factory=dict)

    @property
    def dim(self) -> int:
        return self.mix.dim

    def describe(self) -> dict:
        """The instance for the evidence, every entry an exact fraction string."""
        s = lambda x: str(sp.nsimplify(x)) if isinstance(x, sp.Basic) else str(Fraction(x))
        mixture = {"weights": [s(w) for w in self.mix.weights], "means": [[s(v) for v in m] for m in self.mix.means],
                   "covariances": [[[s(v) for v in r] for r in G] for G in self.mix.covariances]}
        out = {"mixture": mixture, "U": [[s(v) for v in self.U.row(i)] for i in range(self.U.rows)],
               "V": [[s(v) for v in self.V.row(i)] for i in range(self.V.rows)], "z": [s(v) for v in self.z]}
        if self.symbols:
            out["symbols"] = {k: s(v) for k, v in self.symbols.items()}
        return out


def _smix_of(weights, means, covs, variances=None, radius=None) -> SymbolicMixture:
    return SymbolicMixture([_Q(w) for w in weights], [sp.Matrix([_Q(v) for v in m]) for m in means],
                           [sp.Matrix([[_Q(v) for v in r] for r in G]) for G in covs], variances=variances,
                           radius=radius)


def _to_fraction(x) -> Fraction:
    x = sp.nsimplify(x)
    if not x.is_Rational:
        raise ValueError(f"a family transform produced the irrational entry {x}")
    return Fraction(int(x.p), int(x.q))


def _gm_of(smix: SymbolicMixture) -> GaussianMixture:
    D = smix.dim
    return GaussianMixture.from_values([_to_fraction(w) for w in smix.weights],
                                       [[_to_fraction(v) for v in m] for m in smix.means],
                                       [[[_to_fraction(G[i, j]) for j in range(D)] for i in range(D)]
                                        for G in smix.covariances])


@dataclass
class Head:
    """The declaration of an operator statement (see the module docstring)."""

    K: int
    D: int
    base: dict
    assumptions: tuple = ()
    symbols: tuple = ()
    U: object = None
    V: object = None

    def spec(self, drop=None) -> dict:
        """The family options, with the assumption ``drop`` dropped (its control's family)."""
        return family_spec(self.assumptions, self.base, drop, self.K)

    @staticmethod
    def spec_key(spec: dict) -> str:
        fam = {k: v for k, v in spec.items() if k != "transforms"}
        fam["transforms"] = [getattr(t, "__qualname__", repr(t)) for t in spec.get("transforms", [])]
        return json.dumps(fam, sort_keys=True)

    @property
    def plain(self) -> bool:
        """No structure beyond today's generic / shared families: draws as before (same seeds, same instances)."""
        return self.U is None and self.V is None and not self.symbols

    def head_matrix(self, which: str, mix, values: dict) -> sp.Matrix:
        """``U`` or ``V`` for ``mix`` with the extra symbols at ``values`` (symbols or numbers)."""
        M = self.U if which == "U" else self.V
        D = mix.dim
        if M is None:
            return matrix_symbols(which, D, D)
        if callable(M):
            out = M(mix, **values)
            out = out if isinstance(out, sp.MatrixBase) else sp.Matrix(out)
        else:
            out = sp.Matrix(M)
        sub = {s: values[s.name] for s in self.symbols if s.name in values and values[s.name] is not s}
        return out.xreplace(sub) if sub else out

    # ---- the symbolic family -----------------------------------------------------------------------
    def symbolic(self, spec: dict, degenerate_rank=None):
        """``(mix, U, V, z, symbols)`` on the symbolic family of ``spec`` (``symbols``: name -> Symbol)."""
        mix = structured_mixture(self.K, self.D, spec["covariance"], spec["means"], spec["weights"], spec["centred"],
                                 degenerate_rank)
        for t in spec.get("transforms", []):
            mix = t(mix)
        values = {s.name: s for s in self.symbols}
        U, V = self.head_matrix("U", mix, values), self.head_matrix("V", mix, values)
        return mix, U, V, vector_symbols("z", self.D), values

    # ---- rational instances ------------------------------------------------------------------------
    def draw(self, rng, d: int, spec: dict, degenerate: bool, avoid=None, require=()) -> Instance:
        """A rational instance of ``spec`` in dimension ``d`` (the last covariance of rank d - 1
        when ``degenerate``) on which every assumption of ``require`` holds and ``avoid`` (an
        Assumption, the one a control drops) fails: the draw is repeated from the same stream
        until it does (at most 50 times; a draw that is already fine is unchanged)."""
        for _ in range(50):
            inst = self._draw_once(rng, d, spec, degenerate)
            if (avoid is None or avoid.holds_for(inst.smix) is not True) and \
                    all(a.holds_for(inst.smix) is not False for a in require):
                return inst
        what = ", ".join(([f"breaks {avoid.name}"] if avoid is not None else [])
                         + [f"satisfies {a.name}" for a in require])
        raise ValueError(f"could not draw an instance in dimension {d} that {what}")

    def _draw_once(self, rng, d, spec, degenerate) -> Instance:
        K = self.K
        simple = (spec["means"] == "generic" and spec["weights"] == "generic" and not spec["centred"]
                  and not spec.get("transforms") and spec["covariance"] in ("general", "shared"))
        if self.plain and simple:
            mix, U, V, z = _instance(rng, K, d, degenerate, spec["covariance"] == "shared")
            return Instance(mix, _smix_of(mix.weights, mix.means, mix.covariances), exact_matrix(U), exact_matrix(V),
                            sp.Matrix([_Q(v) for v in z]))
        weights = _draw_weights(rng, K, spec["weights"])
        means, radius = _draw_means(rng, K, d, spec, weights)
        covs, variances = _draw_covariances(rng, K, d, spec["covariance"], degenerate)
        smix = _smix_of(weights, means, covs, [_Q(v) for v in variances] if variances else None,
                        _Q(radius) if radius is not None else None)
        for t in spec.get("transforms", []):
            smix = t(smix)
        values = {s.name: _Q(_rat(rng, 1, 9, 4)) for s in self.symbols}
        U = self._generic_or("U", rng, smix, values, d)
        V = self._generic_or("V", rng, smix, values, d)
        for _ in range(50):
            z = sp.Matrix([_Q(v) for v in random_matrix(rng, 1, d, 2, 2)[0]])
            if any(x != 0 for x in U * z):
                break
        return Instance(_gm_of(smix), smix, U, V, z, values)

    def _generic_or(self, which, rng, smix, values, d) -> sp.Matrix:
        if (self.U if which == "U" else self.V) is not None:
            return self.head_matrix(which, smix, values)
        for _ in range(MAX_TRIES):  # generic as in _generic_head: U non-zero and, for d >= 2, not symmetric;
            M = random_matrix(rng, d, d, 2 if which == "U" else 3, 4)  # V non-singular
            if which == "U":
                if any(x != 0 for r in M for x in r) and (
                        d == 1 or any(M[i][j] != M[j][i] for i in range(d) for j in range(i + 1, d))):
                    return exact_matrix([[x / 2 for x in r] for r in M])
            elif _exact_rank(M) == d:
                return exact_matrix(M)
        raise exhausted(f"a generic {which}")


def _draw_weights(rng, K, kind):
    if kind == "equal":
        return [Fraction(1, K)] * K
    for _ in range(MAX_TRIES):
        raw = [int(rng.integers(1, 10)) for _ in range(K)]
        if K == 1 or len(set(raw)) == K:
            return [Fraction(r, sum(raw)) for r in raw]
    raise exhausted(f"{K} distinct weights")


def _draw_means(rng, K, d, spec, weights):
    kind, radius = spec["means"], None
    if kind == "equal-norms":
        radius = _rat(rng, 1, 6, 2)
        if d == 1:
            if K > 2:
                raise ValueError("at most two distinct means of equal norm in dimension 1")
            means = [[radius], [-radius]][:K]
        else:
            for _ in range(MAX_TRIES):
                means = [[radius * x for x in stereographic([_nonzero_rat(rng) for _ in range(d - 1)])]
                         for _ in range(K)]
                if len({tuple(m) for m in means} | {tuple(-x for x in m) for m in means}) == 2 * K:
                    break  # pairwise neither equal nor antipodal
            else:
                raise exhausted(f"{K} equal-norm means, pairwise neither equal nor antipodal")
    elif kind == "antipodal":
        m = _nonzero_vector(rng, d)
        means = [m, [-x for x in m]]
    elif kind == "coincident":
        means = [_nonzero_vector(rng, d)] * K
    else:
        for _ in range(MAX_TRIES):
            means = [_nonzero_vector(rng, d) for _ in range(K)]
            if len({tuple(m) for m in means}) == K:
                break
        else:
            raise exhausted(f"{K} distinct means")
    if spec["centred"] and K == 1:
        means = [[Fraction(0)] * d]
    elif spec["centred"] and kind in ("generic", "coincident"):
        if kind == "coincident":
            means = [[Fraction(0)] * d] * K
        else:
            means = means[:-1] + [[-sum(w * m[i] for w, m in zip(weights[:-1], means[:-1])) / weights[-1]
                                   for i in range(d)]]
    return means, radius


def _nonzero_rat(rng) -> Fraction:
    return Fraction(int(rng.choice([-4, -3, -2, -1, 1, 2, 3, 4])), int(rng.integers(1, 4)))


def _nonzero_vector(rng, d):
    for _ in range(MAX_TRIES):
        v = random_matrix(rng, 1, d, 3, 2)[0]
        if any(x != 0 for x in v):
            return v
    raise exhausted("a non-zero vector")


def _draw_covariances(rng, K, d, kind, degenerate):
    if kind in ("general", "shared"):
        mix = random_mixture(rng, K, d, degenerate=degenerate and kind == "general", shared=kind == "shared")
        return [[list(r) for r in G] for G in mix.covariances], None
    if kind == "diagonal":
        return [[[_rat(rng, 1, 9, 4) if i == j else Fraction(0) for j in range(d)] for i in range(d)]
                for _ in range(K)], None
    n = 1 if kind == "shared-isotropic" else K
    vs: list = []
    while len(vs) < n:
        v = _rat(rng, 1, 9, 4)
        if v not in vs:
            vs.append(v)
    vs = vs * K if kind == "shared-isotropic" else vs
    return [[[v if i == j else Fraction(0) for j in range(d)] for i in range(d)] for v in vs], vs


# ---- today's generic instances (draws unchanged since before the structured families) ------------
def _instance(rng, K, D, degenerate, shared):
    for _ in range(50):
        mix = random_mixture(rng, K, D, degenerate=degenerate and not shared, shared=shared)
        distinct = len({tuple(m) for m in mix.means}) == K  # equal means would let a gate error cancel
        if distinct and (degenerate or all(sp.Matrix(G).rank() == D for G in mix.covariances)):
            break
    for _ in range(MAX_TRIES):  # redrawn from the same stream, so a draw that is already generic is unchanged
        U = [[x / 2 for x in r] for r in random_matrix(rng, D, D, 2, 4)]
        V = random_matrix(rng, D, D, 3, 4)
        z = random_matrix(rng, 1, D, 2, 2)[0]
        if _generic_head(U, V, z):
            return mix, U, V, z
    raise exhausted("a generic head (U z != 0, V non-singular, U not symmetric)")


def _generic_head(U, V, z) -> bool:
    """U z != 0 (otherwise the tilt vanishes and every law's attention output is its plain mean V m, so a
    statement about the tilt cannot fail), V non-singular (otherwise a component of every error is
    hidden) and, in dimension >= 2, U not symmetric (otherwise the transposed-U control is invisible on
    the instance).  Seed 8017 drew V = 0 (and two equal means) in d = 1 and U = 0 in d = 2, and
    bb-lemma-2.1's control survived; one draw in ten had a symmetric U in d = 2."""
    D = len(z)
    Uz = [sum(U[i][j] * z[j] for j in range(D)) for i in range(D)]
    asymmetric = D == 1 or any(U[i][j] != U[j][i] for i in range(D) for j in range(i + 1, D))
    return any(v != 0 for v in Uz) and _exact_rank(V) == D and asymmetric
