"""Public hypothesis strategies and seeded generators for mixtures and attention parameters.

Import them as ``softmix.strategies`` (or ``softmix.checks.strategies``) in your own property
tests::

    from hypothesis import given
    import softmix.strategies as sst

    @given(sst.problems(max_dim=3))           # a mixture, U, V and queries of matching dimensions
    def test_my_identity(pb):
        ...

Contracts common to every strategy here
---------------------------------------
* **Exact.**  Every number is drawn as a :class:`fractions.Fraction` with a small denominator
  (mixtures keep them: ``GaussianMixture`` stores exact entries).  :func:`attention_params` and
  :func:`queries` return float arrays of those rationals for the float64 API; thirds are *not*
  exact in binary, so a high-precision path given them sees the float, not the rational (and
  warns, :class:`softmix.PrecisionWarning`).  :func:`problems` keeps the Fractions and gives the
  float views separately; with ``dyadic=True`` every denominator is a power of two, so the float
  views equal the exact values and a float64 path and an exact path see the same numbers.
* **Degenerate cases are drawn, on purpose and often.**  Hypothesis favours the ends of ranges and
  shrinks towards zero: the zero covariance, rank-deficient covariances, zero means, singular or
  zero ``U`` and ``V``, the zero query and a single component all occur in ordinary runs (a few
  per cent to a third of the examples, depending on the dimension; see each strategy).  Filter
  them with ``hypothesis.assume`` if your statement excludes them.
* **Sizes are small** (dimensions 1-3, up to 3 components by default): enough to break symmetric
  special cases (weights other than 1/2, unequal norms, non-symmetric ``U``), small enough for
  exact and 40-digit arithmetic in every example.

The seeded generators at the end (:func:`random_mixture`, :func:`random_matrix`) are what the
paper library uses inside claims (no hypothesis machinery; same seed, same draw).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from softmix.numerics.mixture import GaussianMixture

__all__ = ["mixtures", "attention_params", "queries", "problems", "Problem", "random_mixture", "random_matrix",
           "rational", "dyadic_rational"]


def rational(lo: int = -6, hi: int = 6, den: int = 4):
    """Fractions ``n / d`` with integers ``lo <= n <= hi`` and ``1 <= d <= den``: exact, and inside
    ``[lo, hi]`` whenever ``lo <= 0 <= hi`` (in general inside ``[min(lo, 0), max(hi, 0)]``).  0 is
    drawn often (hypothesis shrinks towards it); denominators 3 are not exact in float64."""
    return st.builds(lambda n, d: Fraction(n, d), st.integers(lo, hi), st.integers(1, den))


def dyadic_rational(lo: int = -6, hi: int = 6, max_power: int = 2):
    """Fractions ``n / 2^j`` with ``lo <= n <= hi`` and ``0 <= j <= max_power``: exact in float64 too
    (so a float view loses nothing), inside ``[lo, hi]`` whenever ``lo <= 0 <= hi``."""
    return st.builds(lambda n, j: Fraction(n, 2 ** j), st.integers(lo, hi), st.integers(0, max_power))


def _cov_from_factor(Lf, D):
    return [[sum(Lf[i][k] * Lf[j][k] for k in range(len(Lf[0]))) for j in range(D)] for i in range(D)]


def _weights(draw, K: int, dyadic_weights: bool):
    if not dyadic_weights:
        raw = draw(st.lists(st.integers(1, 9), min_size=K, max_size=K))
        return [Fraction(r, sum(raw)) for r in raw]
    total = 2 ** max(3, (K - 1).bit_length() + 2)  # parts of a power of two: dyadic weights summing to 1
    cuts = sorted(draw(st.lists(st.integers(1, total - 1), min_size=K - 1, max_size=K - 1, unique=True)))
    edges = [0, *cuts, total]
    return [Fraction(b - a, total) for a, b in zip(edges, edges[1:])]


@st.composite
def mixtures(draw, min_components: int = 1, max_components: int = 3, min_dim: int = 1, max_dim: int = 3,
             dim: int | None = None, allow_degenerate: bool = True, shared: bool = False, dyadic_weights: bool = False):
    """A valid :class:`~softmix.numerics.mixture.GaussianMixture` with exact rational entries.

    * dimension ``D``: ``dim``, or drawn in ``[min_dim, max_dim]``; ``K`` components drawn in
      ``[min_components, max_components]``;
    * weights: ``r_k / sum r`` with integers ``r_k`` in 1..9 (positive, summing to exactly 1, not
      all equal in general); with ``dyadic_weights`` the parts of a power of two instead
      (denominators powers of 2, exact in float64);
    * means: entries ``n / d`` in ``[-4, 4]``, ``d`` in {1, 2} (exact in float64); the zero mean occurs;
    * covariances ``L L^T`` (exactly symmetric PSD, entries multiples of 1/4, so exact in float64)
      with ``L`` of shape ``D x r``, lower trapezoidal, diagonal entries in {1/2, 1, 3/2} and the
      entries below in ``[-2, 2]`` (halves): the rank is exactly ``r``.  Without
      ``allow_degenerate``, ``r = D`` (definite; not diagonal in general for ``D >= 2``).  With it
      (the default), ``r`` is drawn from ``D, 0, 1, ..., D - 1`` (full rank is the shrink target),
      about uniformly: measured over 1000 draws of :func:`problems`, the zero covariance is 58% of
      the components in dimension 1, 31% in dimension 2 and 25% in dimension 3, and singular
      covariances 58%, 62% and 76%;
    * ``shared``: one covariance for every component.
    """
    D = dim if dim is not None else draw(st.integers(min_dim, max_dim))
    K = draw(st.integers(min_components, max_components))
    w = _weights(draw, K, dyadic_weights)
    means = [[draw(rational(-4, 4, 2)) for _ in range(D)] for _ in range(K)]

    def one_cov():
        # L is D x r, lower trapezoidal with diagonal entries in {1/2, 1, 3/2}: rank exactly r
        r = draw(st.sampled_from([D, *range(D)])) if allow_degenerate else D  # full rank first (shrink target)
        if r == 0:
            return [[Fraction(0)] * D for _ in range(D)]
        Lf = [[draw(rational(-2, 2, 2)) if j < i else Fraction(0) for j in range(r)] for i in range(D)]
        for i in range(r):
            Lf[i][i] = Fraction(draw(st.integers(1, 3)), 2)
        return _cov_from_factor(Lf, D)

    if shared:
        G = one_cov()
        covs = [G] * K
    else:
        covs = [one_cov() for _ in range(K)]
    return GaussianMixture.from_values(w, means, covs)


def attention_params(dim: int, out_dim: int | None = None, scale: int = 1):
    """``(U, V)`` as float64 arrays, ``U`` of shape ``(dim, dim)``, ``V`` of shape ``(out_dim or dim,
    dim)``, entries ``n / d`` in ``[-3 scale, 3 scale]`` with ``d <= 4`` (thirds are rounded to the
    nearest float; use :func:`problems` for exact matrices).  ``U`` and ``V`` may be singular,
    zero included (hypothesis shrinks towards zero entries)."""
    p = dim if out_dim is None else out_dim
    ent = rational(-3 * scale, 3 * scale, 4)
    U = st.lists(st.lists(ent, min_size=dim, max_size=dim), min_size=dim, max_size=dim)
    V = st.lists(st.lists(ent, min_size=dim, max_size=dim), min_size=p, max_size=p)
    return st.tuples(U, V).map(lambda t: (np.array(t[0], dtype=float), np.array(t[1], dtype=float)))


def queries(dim: int, n: int = 3):
    """Queries as a float64 array of shape ``(N, dim)``, ``1 <= N <= n``, entries ``k / d`` in
    ``[-4, 4]`` with ``d <= 4`` (thirds rounded to the nearest float); the zero query occurs."""
    ent = rational(-4, 4, 4)
    return st.lists(st.lists(ent, min_size=dim, max_size=dim), min_size=1, max_size=n).map(
        lambda q: np.array(q, dtype=float))


@dataclass(frozen=True)
class Problem:
    """One consistent attention problem, every entry an exact Fraction.

    ``mix`` (a :class:`GaussianMixture` in dimension ``dim``), ``U`` (``dim x dim``), ``V``
    (``out_dim x dim``), ``Z`` (``n x dim``: the queries; ``z`` is the first).  Matrices are
    tuples of rows of Fractions: pass them as they are to an ``_mp`` function (exact, no warning),
    and :meth:`arrays` to a float64 function."""

    mix: GaussianMixture
    U: tuple
    V: tuple
    Z: tuple

    @property
    def dim(self) -> int:
        return self.mix.dim

    @property
    def out_dim(self) -> int:
        return len(self.V)

    @property
    def z(self) -> tuple:
        """The first query."""
        return self.Z[0]

    def arrays(self):
        """``(U, V, Z)`` as float64 arrays (the nearest floats; equal to the exact values when the
        problem was drawn with ``dyadic=True``)."""
        f = lambda M: np.array([[float(x) for x in r] for r in M], dtype=float)
        return f(self.U), f(self.V), f(self.Z)

    def sympy(self):
        """``(U, V, Z)`` as SymPy matrices of rationals (``Z`` with one query per column)."""
        import sympy as sp

        R = lambda x: sp.Rational(x.numerator, x.denominator)
        return (sp.Matrix([[R(x) for x in r] for r in self.U]), sp.Matrix([[R(x) for x in r] for r in self.V]),
                sp.Matrix([[R(x) for x in q] for q in self.Z]).T)


@st.composite
def problems(draw, min_dim: int = 1, max_dim: int = 3, dim: int | None = None, out_dim: int | None = None,
             min_components: int = 1, max_components: int = 3, n_queries: int = 1, allow_degenerate: bool = True,
             shared: bool = False, dyadic: bool = False, scale: int = 1):
    """A whole consistent :class:`Problem`: a mixture, ``U``, ``V`` and ``n_queries`` queries whose
    dimensions match (``U`` is ``D x D``, ``V`` is ``p x D`` with ``p = out_dim`` or ``D``).

    * the mixture is drawn by :func:`mixtures` (same ranges; ``allow_degenerate`` and ``shared``
      passed on);
    * ``U``, ``V``: entries ``n / d`` in ``[-3 scale, 3 scale]``, ``d <= 4``; singular and zero
      matrices occur;
    * queries: entries ``n / d`` in ``[-4, 4]``, ``d <= 4``; the zero query occurs;
    * ``dyadic=True``: every denominator (weights included) is a power of two, so
      :meth:`Problem.arrays` is exact and a float64 path sees exactly the numbers an exact or
      high-precision path sees -- what a float64-versus-mp agreement test needs.

    Scores ``log pi_k + m_k^T U z + (U z)^T G_k (U z) / 2`` reach a few hundred at the upper
    ends (scale 1, D = 3): the float64 softmax then loses about ``log10(max |score|)`` digits,
    which :class:`softmix.Float64Agreement` accounts for through its ``condition``.
    """
    D = dim if dim is not None else draw(st.integers(min_dim, max_dim))
    p = D if out_dim is None else int(out_dim)
    mix = draw(mixtures(min_components=min_components, max_components=max_components, dim=D,
                        allow_degenerate=allow_degenerate, shared=shared, dyadic_weights=dyadic))
    ent = dyadic_rational(-3 * scale, 3 * scale, 2) if dyadic else rational(-3 * scale, 3 * scale, 4)
    qent = dyadic_rational(-4, 4, 2) if dyadic else rational(-4, 4, 4)
    row = lambda e, n: st.lists(e, min_size=n, max_size=n).map(tuple)
    U = draw(st.lists(row(ent, D), min_size=D, max_size=D).map(tuple))
    V = draw(st.lists(row(ent, D), min_size=p, max_size=p).map(tuple))
    Z = draw(st.lists(row(qent, D), min_size=n_queries, max_size=n_queries).map(tuple))
    return Problem(mix, U, V, Z)


# ---- seeded generators used inside claims (no hypothesis machinery) --------------------------
def random_matrix(rng: np.random.Generator, rows: int, cols: int, num: int = 3, den: int = 4):
    return [[Fraction(int(rng.integers(-num, num + 1)), int(rng.integers(1, den + 1))) for _ in range(cols)]
            for _ in range(rows)]


def _exact_rank(M) -> int:
    """Rank of a matrix of Fractions by exact Gaussian elimination."""
    A = [list(r) for r in M]
    rank, rows, cols = 0, len(A), len(A[0]) if A else 0
    for c in range(cols):
        piv = next((r for r in range(rank, rows) if A[r][c] != 0), None)
        if piv is None:
            continue
        A[rank], A[piv] = A[piv], A[rank]
        for r in range(rows):
            if r != rank and A[r][c] != 0:
                f = A[r][c] / A[rank][c]
                A[r] = [a - f * b for a, b in zip(A[r], A[rank])]
        rank += 1
    return rank


def random_mixture(rng: np.random.Generator, K: int, D: int, degenerate: bool = True,
                   shared: bool = False) -> GaussianMixture:
    """Seeded rational mixture.  Every covariance has rank exactly D, except, with ``degenerate``,
    the last one, whose rank is exactly D - 1 (0 if D = 1).  (A factor of deficient rank is
    redrawn from the same stream, so the draws are unchanged whenever the first factor is fine.)"""
    raw = [int(rng.integers(1, 10)) for _ in range(K)]
    w = [Fraction(r, sum(raw)) for r in raw]
    means = random_matrix(rng, K, D, 3, 2)

    def cov(rank):
        while True:
            Lf = random_matrix(rng, D, D, 2, 2)
            for i in range(D):
                Lf[i][i] += 1
            for i in range(D):
                for j in range(rank, D):
                    Lf[i][j] = Fraction(0)
            if _exact_rank(Lf) == rank:
                return _cov_from_factor(Lf, D)

    if shared:
        G = cov(D)
        covs = [G] * K
    else:
        covs = [cov(D) for _ in range(K)]
        if degenerate:
            covs[-1] = cov(D - 1)
    return GaussianMixture.from_values(w, means, covs)
