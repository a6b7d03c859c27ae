"""Public hypothesis strategies and seeded generators for mixtures and attention parameters.

Use them in your own property tests::

    from hypothesis import given
    from softmix.checks.strategies import mixtures, attention_params

    @given(mixtures(max_dim=3), attention_params(dim=...))
    ...

Entries are small rationals (so exact and 40-digit paths see the same numbers); covariances
are L L^T with L possibly rank deficient (degenerate components).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from softmix.numerics.mixture import GaussianMixture

__all__ = ["mixtures", "attention_params", "queries", "random_mixture", "random_matrix", "rational"]


def rational(lo: int = -6, hi: int = 6, den: int = 4):
    return st.builds(lambda n, d: Fraction(n, d), st.integers(lo, hi), st.integers(1, den))


def _cov_from_factor(Lf, D):
    return [[sum(Lf[i][k] * Lf[j][k] for k in range(len(Lf[0]))) for j in range(D)] for i in range(D)]


@st.composite
def mixtures(draw, min_components: int = 1, max_components: int = 3, min_dim: int = 1, max_dim: int = 3,
             dim: int | None = None, allow_degenerate: bool = True, shared: bool = False):
    """Random GaussianMixture with rational entries (degenerate covariances allowed)."""
    D = dim if dim is not None else draw(st.integers(min_dim, max_dim))
    K = draw(st.integers(min_components, max_components))
    raw = draw(st.lists(st.integers(1, 9), min_size=K, max_size=K))
    w = [Fraction(r, sum(raw)) for r in raw]
    means = [[draw(rational(-4, 4, 2)) for _ in range(D)] for _ in range(K)]

    def one_cov():
        r = draw(st.integers(0 if allow_degenerate else D, D)) if allow_degenerate else D
        Lf = [[draw(rational(-2, 2, 2)) for _ in range(max(r, 1))] for _ in range(D)]
        if r == 0:
            Lf = [[Fraction(0)] for _ in range(D)]
        if not allow_degenerate:
            for i in range(D):  # diagonal dominance keeps it definite
                Lf[i] = [Fraction(0)] * D
                Lf[i][i] = Fraction(draw(st.integers(1, 3)), 2)
        return _cov_from_factor(Lf, D)

    if shared:
        G = one_cov()
        covs = [G] * K
    else:
        covs = [one_cov() for _ in range(K)]
    return GaussianMixture.from_values(w, means, covs)


def attention_params(dim: int, out_dim: int | None = None, scale: int = 1):
    """(U, V) as float arrays with small rational entries."""
    p = dim if out_dim is None else out_dim
    ent = rational(-3 * scale, 3 * scale, 4)
    U = st.lists(st.lists(ent, min_size=dim, max_size=dim), min_size=dim, max_size=dim)
    V = st.lists(st.lists(ent, min_size=dim, max_size=dim), min_size=p, max_size=p)
    return st.tuples(U, V).map(lambda t: (np.array(t[0], dtype=float), np.array(t[1], dtype=float)))


def queries(dim: int, n: int = 3):
    ent = rational(-4, 4, 4)
    return st.lists(st.lists(ent, min_size=dim, max_size=dim), min_size=1, max_size=n).map(
        lambda q: np.array(q, dtype=float))


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
