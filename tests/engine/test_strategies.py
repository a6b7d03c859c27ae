"""Contracts of the public hypothesis strategies and seeded generators (checks/strategies.py)."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from softmix.checks.strategies import attention_params, mixtures, queries, random_matrix, random_mixture, rational


def _psd_rank(G, tol=1e-10):
    ev = np.linalg.eigvalsh(np.array(G, dtype=float))
    assert ev.min() >= -tol * max(1.0, abs(ev).max()), ev
    return int(np.sum(ev > tol * max(1.0, abs(ev).max())))


@given(st.data())
def test_rational_stays_in_range_with_bounded_denominator(data):
    lo, hi, den = -3, 5, 4
    x = data.draw(rational(lo, hi, den))
    assert isinstance(x, Fraction) and x.denominator <= den and lo <= x <= hi


@given(mixtures(min_components=1, max_components=3, min_dim=1, max_dim=3))
def test_mixtures_are_valid_exact_mixtures(mix):
    assert 1 <= mix.n_components <= 3 and 1 <= mix.dim <= 3
    assert all(isinstance(w, Fraction) and w > 0 for w in mix.weights)
    assert sum(mix.weights) == 1  # exact, not to rounding
    for m in mix.means:
        assert len(m) == mix.dim and all(isinstance(v, Fraction) and v.denominator <= 2 and abs(v) <= 4 for v in m)
    for G in mix.covariances:
        assert all(G[i][j] == G[j][i] for i in range(mix.dim) for j in range(mix.dim))  # exactly symmetric
        _psd_rank(G)


@given(mixtures(dim=2, allow_degenerate=False, max_components=2))
def test_non_degenerate_mixtures_are_definite_and_dimension_is_honoured(mix):
    assert mix.dim == 2
    assert all(_psd_rank(G) == 2 for G in mix.covariances)


@given(mixtures(dim=3, shared=True, min_components=2))
def test_shared_mixtures_share_one_covariance(mix):
    assert mix.n_components >= 2
    assert all(G == mix.covariances[0] for G in mix.covariances)


@settings(max_examples=30)
@given(mixtures(dim=2, max_components=4))
def test_degenerate_components_do_occur(mix):
    # the default allows degenerate components; ranks are in 0..D
    assert all(0 <= _psd_rank(G) <= 2 for G in mix.covariances)


def test_default_mixtures_reach_degenerate_covariances():
    seen = set()

    @settings(max_examples=60, derandomize=True, database=None)
    @given(mixtures(dim=2, max_components=1))
    def collect(mix):
        seen.add(_psd_rank(mix.covariances[0]))

    collect()
    assert seen & {0, 1}, "no degenerate covariance was ever drawn"
    assert 2 in seen


@pytest.mark.parametrize("dim,out_dim,scale", [(2, None, 1), (3, 1, 2)])
def test_attention_params_shapes_and_entries(dim, out_dim, scale):
    @given(attention_params(dim, out_dim, scale))
    def check(UV):
        U, V = UV
        p = dim if out_dim is None else out_dim
        assert U.shape == (dim, dim) and V.shape == (p, dim)
        for A in (U, V):
            assert np.all(np.abs(A) <= 3 * scale)
            assert np.allclose(A * 12, np.round(A * 12))  # denominators 1..4 divide 12

    check()


@given(queries(3, n=4))
def test_queries_shape_and_entries(Z):
    assert Z.ndim == 2 and Z.shape[1] == 3 and 1 <= Z.shape[0] <= 4
    assert np.all(np.abs(Z) <= 4) and np.allclose(Z * 12, np.round(Z * 12))


def test_random_matrix_is_seeded_and_bounded():
    a = random_matrix(np.random.default_rng(3), 2, 3, num=3, den=4)
    b = random_matrix(np.random.default_rng(3), 2, 3, num=3, den=4)
    c = random_matrix(np.random.default_rng(4), 2, 3, num=3, den=4)
    assert a == b and a != c
    assert len(a) == 2 and all(len(r) == 3 for r in a)
    assert all(abs(x) <= 3 and x.denominator <= 4 for r in a for x in r)


@pytest.mark.parametrize("D", [1, 2, 3])
def test_random_mixture_ranks_and_reproducibility(D):
    m1 = random_mixture(np.random.default_rng(7), 3, D)
    m2 = random_mixture(np.random.default_rng(7), 3, D)
    m3 = random_mixture(np.random.default_rng(8), 3, D)
    assert m1 == m2 and m1 != m3
    assert sum(m1.weights) == 1 and m1.dim == D and m1.n_components == 3
    ranks = [_psd_rank(G) for G in m1.covariances]
    assert ranks[:-1] == [D, D] and ranks[-1] == D - 1  # the last component is degenerate
    full = random_mixture(np.random.default_rng(7), 3, D, degenerate=False)
    assert all(_psd_rank(G) == D for G in full.covariances)
    sh = random_mixture(np.random.default_rng(7), 2, D, shared=True)
    assert sh.covariances[0] == sh.covariances[1]


# ---- problems(): a whole consistent problem -------------------------------------------------------
from softmix.checks.strategies import dyadic_rational, problems  # noqa: E402


@given(problems(max_dim=3, out_dim=None, n_queries=2))
def test_problems_have_matching_dimensions_and_exact_entries(pb):
    D = pb.dim
    assert pb.mix.dim == D and len(pb.U) == D and all(len(r) == D for r in pb.U)
    assert pb.out_dim == D and all(len(r) == D for r in pb.V) and len(pb.Z) == 2 and pb.z == pb.Z[0]
    ents = [x for M in (pb.U, pb.V) for r in M for x in r]
    assert all(isinstance(x, Fraction) and x.denominator <= 4 and abs(x) <= 3 for x in ents)
    assert all(isinstance(x, Fraction) and abs(x) <= 4 for q in pb.Z for x in q)
    U, V, Z = pb.arrays()
    assert U.shape == (D, D) and V.shape == (D, D) and Z.shape == (2, D)
    Us, Vs, Zs = pb.sympy()
    assert Us.shape == (D, D) and Zs.shape == (D, 2)


@given(problems(dim=2, out_dim=1, dyadic=True, scale=2))
def test_dyadic_problems_are_exact_in_float64(pb):
    U, V, Z = pb.arrays()
    assert V.shape == (1, 2) and np.all(np.abs(U) <= 6)
    for M, A in ((pb.U, U), (pb.V, V), (pb.Z, Z)):
        assert all(Fraction(float(A[i, j])) == M[i][j] for i in range(len(M)) for j in range(len(M[0])))
    w, m, G = pb.mix.arrays()
    assert [Fraction(x) for x in w] == list(pb.mix.weights) and sum(pb.mix.weights) == 1


def test_problems_draw_degenerate_and_full_rank_covariances_and_singular_U():
    ranks, singular_U = set(), []

    @settings(max_examples=80, derandomize=True, database=None)
    @given(problems(dim=2, max_components=1))
    def collect(pb):
        ranks.add(_psd_rank(pb.mix.covariances[0]))
        singular_U.append(abs(np.linalg.det(pb.arrays()[0])) < 1e-12)

    collect()
    assert ranks == {0, 1, 2}, ranks
    assert any(singular_U) and not all(singular_U)


@settings(max_examples=40)
@given(mixtures(dim=2, allow_degenerate=False, max_components=1))
def test_non_degenerate_covariances_are_definite(mix):
    assert _psd_rank(mix.covariances[0]) == 2


def test_non_degenerate_covariances_are_not_all_diagonal():
    off = []

    @settings(max_examples=40, derandomize=True, database=None)
    @given(mixtures(dim=2, allow_degenerate=False, max_components=1))
    def collect(mix):
        off.append(mix.covariances[0][0][1] != 0)

    collect()
    assert any(off)


@given(st.data())
def test_dyadic_rational_is_exact_in_float64(data):
    x = data.draw(dyadic_rational(-3, 5, 2))
    assert -3 <= x <= 5 and x.denominator in (1, 2, 4) and Fraction(float(x)) == x


def test_the_short_import_name_is_the_same_module():
    import softmix.strategies as sst

    assert sst.problems is problems and sst.mixtures is mixtures and "problems" in sst.__all__
