"""Every drawn configuration has the property it promises, over 200 seeds (issue 23 scope 2).

A draw that silently loses its property (weights at 1/2, equal norms, a symmetric matrix, a
covariance of full rank where a singular one was asked) makes every claim decided on it blind to the
terms that vanish there.  Properties are checked exactly (Fractions) where the draw is exact.
"""
import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest
import sympy as sp

from softmix.checks import configs as C
from softmix.checks.operator import _generic_head, random_instance
from softmix.checks.strategies import _exact_rank, random_matrix, random_mixture

SEEDS = range(200)


def rng(seed, *keys):
    return np.random.default_rng([seed, *keys])


def fr(x):
    return F(x)


def frm(M):
    return [[F(x) for x in r] for r in M]


def norm2(v):
    return sum(F(x) ** 2 for x in v)


def rank(M):
    return _exact_rank(frm(M))


def psd(M):
    return all(ev >= -1e-12 for ev in np.linalg.eigvalsh(np.array([[float(x) for x in r] for r in M])))


# ---- configs.py ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("K", [1, 2, 3, 4])
def test_weights_sum_to_one_exactly_distinct_and_away_from_one_over_K(K):
    for s in SEEDS:
        w = [fr(x) for x in C.weights(rng(s, K), K, away=0.1)]
        assert sum(w) == 1 and len(w) == K
        if K > 1:
            assert min(w) >= F(1, 10) and len(set(w)) == K
            assert all(abs(x - F(1, K)) >= F(1, 100) for x in w), w  # 'equal weights' never by accident
            if K == 2:
                assert F(1, 2) not in w


@pytest.mark.parametrize("K,D", [(2, 1), (2, 2), (3, 2), (2, 3), (4, 3)])
def test_means_have_unequal_norms_unless_asked(K, D):
    for s in SEEDS:
        ms = C.means(rng(s, K, D), K, D, min_ratio=1.2)
        n = [norm2(m) for m in ms]
        assert len(ms) == K and all(len(m) == D for m in ms)
        assert all(all(fr(x) != 0 for x in m) for m in ms)
        assert max(n) >= F(144, 100) * min(n) * F(99, 100), (s, ms)  # ratio of norms >= 1.2 (rounding slack)


@pytest.mark.parametrize("K,D", [(2, 1), (2, 2), (3, 2), (2, 3), (3, 3), (3, 4)])
def test_equal_norm_means_are_exactly_equal_and_otherwise_generic(K, D):
    for s in SEEDS:
        ms = [[fr(x) for x in m] for m in C.means(rng(s, K, D), K, D, equal_norms=True)]
        assert len({norm2(m) for m in ms}) == 1 and norm2(ms[0]) > 0
        if D == 1:
            assert ms[0][0] == -ms[1][0]
            continue
        for a, b in itertools.combinations(ms, 2):  # neither equal nor opposite nor collinear
            assert any(a[i] * b[j] - a[j] * b[i] != 0 for i in range(D) for j in range(i + 1, D)), (a, b)
        if D <= 3:
            assert all(x != 0 for m in ms for x in m)
        # written as short decimals (at most 3 places), never as fractions
        raw = C.means(rng(s, K, D), K, D, equal_norms=True)
        assert all("/" not in x and len(x.split(".")[-1] if "." in x else "") <= 3 for m in raw for x in m), raw


@pytest.mark.parametrize("D,r", [(1, None), (2, None), (3, None), (4, None), (5, None), (2, 1), (3, 2), (3, 1),
                                 (4, 3)])
def test_spd_is_symmetric_psd_of_the_asked_rank_and_not_isotropic(D, r):
    for s in SEEDS:
        M = C.spd(rng(s, D, r or 0), D, rank=r)
        Mf = frm(M)
        assert all(Mf[i][j] == Mf[j][i] for i in range(D) for j in range(D)) and psd(M)
        assert rank(M) == (D if r is None else r), (s, M)
        if D > 1:
            ev = np.linalg.eigvalsh(np.array([[float(x) for x in row] for row in M]))
            k = D - (r or D)  # the kernel: eigenvalue 0 with multiplicity D - r
            spectrum = ev[k:] if k == 0 else np.concatenate([[0.0], ev[k:]])
            if len(spectrum) > 1:
                assert np.min(np.diff(spectrum)) >= 0.05 - 1e-12  # distinct eigenvalues: never isotropic
            assert any(Mf[i][j] != 0 for i in range(D) for j in range(D) if i != j)  # never diagonal
        # L L^T with L in tenths: short decimals in hundredths, never fractions (a survivor of the engine run on
        # 79d04be drew L in twentieths)
        assert all("/" not in x and (F(x) * 100).denominator == 1 for row in M for x in row), M
        if r is None:
            assert np.linalg.eigvalsh(np.array([[float(x) for x in row] for row in M])).min() >= 0.03 - 1e-12


@pytest.mark.parametrize("rows,cols,sym", [(2, 2, False), (3, 3, False), (4, 4, False), (2, 3, False), (3, 3, True),
                                           (1, 1, False)])
def test_matrix_is_asymmetric_unless_asked_and_in_range(rows, cols, sym):
    for s in SEEDS:
        A = frm(C.matrix(rng(s, rows, cols), rows, cols, -0.7, 0.7, symmetric=sym, min_asymmetry=0.3))
        assert len(A) == rows and all(len(r) == cols for r in A)
        assert all(-F(7, 10) <= x <= F(7, 10) for r in A for x in r)
        if rows == cols and rows > 1:
            asym = max(abs(A[i][j] - A[j][i]) for i in range(rows) for j in range(cols))
            assert (asym == 0) if sym else (asym >= F(3, 10)), (s, A)


@pytest.mark.parametrize("K,D,singular,shared", [(2, 2, 1, False), (3, 3, 2, False), (2, 1, 1, False),
                                                 (3, 2, 0, False), (2, 3, 1, True), (4, 2, 4, False)])
def test_mixture_has_the_asked_singular_components_and_generic_weights_and_means(K, D, singular, shared):
    for s in SEEDS:
        mix = C.mixture(rng(s, K, D, singular), K, D, singular=singular, shared=shared)
        w = [fr(x) for x in mix["weights"]]
        assert sum(w) == 1 and len(set(w)) == K and all(abs(x - F(1, K)) >= F(1, 100) for x in w)
        covs = mix["covariances"]
        ranks = [rank(G) for G in covs]
        if shared:
            assert all(G == covs[0] for G in covs) and ranks == [D] * K
        elif D == 1:
            assert ranks == [1] * K  # rank D - 1 = 0 is no covariance: dimension 1 stays non-singular
        else:
            assert ranks == [D - 1] * min(singular, K) + [D] * (K - min(singular, K)), (s, ranks)
        assert all(psd(G) for G in covs)
        n = [norm2(m) for m in mix["means"]]
        assert max(n) >= F(144, 100) * min(n) * F(99, 100)


def test_large_scores_are_large_distinct_and_of_both_signs():
    for s in SEEDS:
        for n in (2, 3, 5):
            v = [fr(x) for x in C.large_scores(rng(s, n), n, low=1000.0, high=5000.0)]
            assert len(set(v)) == n and all(1000 <= abs(x) <= 5000 for x in v)
            assert min(v) < 0 < max(v), (s, v)  # both signs, as promised


@pytest.mark.parametrize("D", [1, 2, 3, 5])
def test_vector_has_no_zero_entry_and_the_asked_norm(D):
    for s in SEEDS:
        v = [fr(x) for x in C.vector(rng(s, D), D, -2.0, 2.0)]
        assert all(x != 0 for x in v) and all(-2 <= x <= 2 for x in v)
        w = [float(x) for x in C.vector(rng(s, D, 1), D, norm_range=(0.5, 2.5))]
        assert 0.5 - 0.006 * math.sqrt(D) <= math.hypot(*w) <= 2.5 + 0.006 * math.sqrt(D) and all(w)


def test_rational_stays_in_range_and_away_from_what_it_avoids():
    for s in SEEDS:
        x = fr(C.rational(rng(s), 0.1, 0.9, 2, avoid=(0.5, "1/3")))
        assert F(1, 10) <= x <= F(9, 10) and abs(x - F(1, 2)) >= F(1, 100) and abs(x - F(1, 3)) >= F(1, 100)


def test_configuration_streams_depend_on_seed_claim_and_index_only():
    from softmix.checks.registry import Context

    def draws(ctx, i):
        return ctx.stream("configuration", i).integers(0, 2**30, 3)

    a = draws(Context("c", "quick", 1), 1)
    assert np.array_equal(a, draws(Context("c", "full", 1, variant="x"), 1))
    assert not np.array_equal(a, draws(Context("d", "quick", 1), 1))
    assert not np.array_equal(a, draws(Context("c", "quick", 1), 2))


# ---- strategies.py ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("K,D,degenerate,shared", [(1, 1, True, False), (2, 1, True, False), (2, 2, True, False),
                                                   (3, 3, True, False), (2, 3, False, False), (3, 2, False, True),
                                                   (2, 2, True, True)])
def test_random_mixture_ranks(K, D, degenerate, shared):
    for s in SEEDS:
        mix = random_mixture(rng(s, K, D), K, D, degenerate=degenerate, shared=shared)
        w = [F(x) for x in mix.weights]
        assert sum(w) == 1 and all(x > 0 for x in w)
        ranks = [_exact_rank(G) for G in mix.covariances]
        if shared:  # one full-rank covariance, whatever 'degenerate' says
            assert all(G == mix.covariances[0] for G in mix.covariances) and ranks == [D] * K
        else:
            assert ranks == [D] * (K - 1) + [D - 1 if degenerate else D], (s, ranks)
        assert all(psd(G) for G in mix.covariances)


def test_random_matrix_entries():
    for s in SEEDS:
        M = random_matrix(rng(s), 3, 2, 3, 4)
        assert len(M) == 3 and all(len(r) == 2 for r in M)
        assert all(isinstance(x, F) and abs(x) <= 3 and x.denominator <= 4 for r in M for x in r)


# ---- operator.random_instance ------------------------------------------------------------------------------
@pytest.mark.parametrize("K,D,degenerate,shared", [(2, 1, False, False), (2, 2, True, False), (3, 2, False, False),
                                                   (2, 3, True, False), (2, 2, False, True), (3, 3, False, True)])
def test_random_instance_is_generic(K, D, degenerate, shared):
    for s in range(100 if D == 3 else 200):
        mix, U, V, z = random_instance(rng(s, K, D), K, D, degenerate=degenerate, shared=shared)
        assert len({tuple(m) for m in mix.means}) == K  # distinct means
        assert _generic_head(U, V, z)
        assert any(sum(U[i][j] * z[j] for j in range(D)) != 0 for i in range(D)) and _exact_rank(V) == D
        if D >= 2:
            assert any(U[i][j] != U[j][i] for i in range(D) for j in range(D))
        assert all(abs(x) <= 1 for r in U for x in r)
        ranks = [_exact_rank(G) for G in mix.covariances]
        if shared:
            assert all(G == mix.covariances[0] for G in mix.covariances) and ranks == [D] * K
        elif degenerate:
            assert ranks == [D] * (K - 1) + [D - 1], ranks
        else:
            assert ranks == [D] * K


def test_the_instances_are_exact_rationals():
    mix, U, V, z = random_instance(rng(1), 2, 2, degenerate=True)
    assert all(isinstance(x, F) for r in U + V for x in r) and all(isinstance(x, F) for x in z)
    assert sp.Matrix(mix.covariances[-1]).rank() == 1


@pytest.mark.parametrize("D,base", [(2, (3, 4)), (3, (1, 2, 2)), (4, (1, 2, 2))])
def test_equal_norm_means_are_scaled_signed_permutations_of_the_documented_integers(D, base):
    """'every coordinate non-zero when D <= 3 (signed permutations of (3, 4) or (1, 2, 2))'; zeros past them."""
    for s in range(50):
        for m in C.means(rng(s, 3, D), 3, D, equal_norms=True):
            v = [abs(fr(x)) for x in m]
            head, tail = v[:len(base)], v[len(base):]
            assert all(x == 0 for x in tail)
            c = min(head)  # the common scale
            assert c > 0 and sorted(x / c for x in head) == sorted(F(b, min(base)) for b in base), (s, m)


@pytest.mark.parametrize("K,D", [(2, 2), (3, 2), (2, 3)])
def test_mixture_draws_keep_each_declared_assumption(K, D):
    """configs.mixture(assume=...): the draw satisfies what it is asked for, generic otherwise."""
    for s in range(40):
        def draw(*assume, K=K):
            return C.mixture(rng(s, K, D, len(assume)), K, D, assume=assume)
        m = draw("equal-norms")
        assert len({norm2(x) for x in m["means"]}) == 1
        w = [fr(x) for x in draw("equal-weights")["weights"]]
        assert w == [F(1, K)] * K
        c = draw("centred")
        cw = [fr(x) for x in c["weights"]]
        assert all(sum(wk * fr(mk[i]) for wk, mk in zip(cw, c["means"])) == 0 for i in range(D))
        assert len(set(cw)) == K  # centred, weights still generic
        a = draw("antipodal", K=2)
        assert [fr(x) for x in a["means"][1]] == [-fr(x) for x in a["means"][0]]
        for name in ("isotropic", "shared-isotropic", "diagonal"):
            covs = [frm(G) for G in draw(name)["covariances"]]
            assert all(G[i][j] == 0 for G in covs for i in range(D) for j in range(D) if i != j), name
            assert all(G[i][i] > 0 for G in covs for i in range(D))
            if name != "diagonal":
                assert all(len({G[i][i] for i in range(D)}) == 1 for G in covs), name
            if name == "shared-isotropic":
                assert all(G == covs[0] for G in covs)
            if name == "isotropic":
                assert len({G[0][0] for G in covs}) == K  # one variance per component, distinct
            if name == "diagonal":
                assert any(len({G[i][i] for i in range(D)}) > 1 for G in covs)  # not isotropic
        sh = draw("shared-covariance")["covariances"]
        assert all(G == sh[0] for G in sh) and rank(sh[0]) == D
        sg = [rank(G) for G in draw("singular")["covariances"]]
        assert D - 1 in sg and all(r in (D - 1, D) for r in sg)  # a singular component, rank D - 1


def test_a_user_assumption_with_coincident_means_draws_k_equal_means():
    """A user assumption whose family asks for coincident means (family={"means": "coincident"}) gets K
    copies of one drawn mean, the weights and covariances still generic."""
    from softmix.checks.assumptions import Assumption

    same = Assumption("same-mean", "all components share one mean", family={"means": "coincident"})
    for s in range(5):
        for K in (2, 3):
            m = C.mixture(rng(s, K, 2, 9), K, 2, assume=(same,))
            assert len(m["means"]) == K and all(mk == m["means"][0] for mk in m["means"])
            assert len(set(m["weights"])) == K


# ---- survivors of the recorded engine run (seed 2084884) -------------------------------------------------
def test_default_mean_norms_use_the_whole_default_range():
    """``means`` draws norms over its whole default range (0.5, 2.5), not a part of it."""
    norms = [math.sqrt(float(norm2(m))) for s in SEEDS for m in C.means(rng(s, 2, 2), 2, 2)]
    assert min(norms) < 0.75 and max(norms) > 2.25


def test_equal_norm_means_in_dimension_one_are_at_most_two():
    assert len(C.means(rng(0, 2, 1), 2, 1, equal_norms=True)) == 2
    with pytest.raises(ValueError, match="at most two"):
        C.means(rng(0, 3, 1), 3, 1, equal_norms=True)


def test_large_scores_default_to_the_thousands():
    for s in SEEDS:
        v = [fr(x) for x in C.large_scores(rng(s, 4), 4)]
        assert all(1000 <= abs(x) <= 5000 for x in v)


class _OneSign:
    """A generator whose coin always gives the same sign (negative: ``random() >= 1/2``), so the one-sign fix
    must act, and whose integers count up (distinct scores)."""

    def __init__(self):
        self.k = 0

    def random(self):
        return 0.9

    def integers(self, lo, hi):
        self.k += 1
        return lo + self.k


class _OnePositiveSign(_OneSign):
    """The same, with the coin always giving a positive score (``random() < 1/2``)."""

    def random(self):
        return 0.1


@pytest.mark.parametrize("n", [2, 3, 5])
def test_large_scores_of_one_sign_flip_the_last_only(n):
    v = C.large_scores(_OneSign(), n)
    assert [x.startswith("-") for x in v] == [True] * (n - 1) + [False]
    assert len(set(abs(fr(x)) for x in v)) == n
    w = C.large_scores(_OnePositiveSign(), n)
    assert [x.startswith("-") for x in w] == [False] * (n - 1) + [True]
    assert [abs(fr(x)) for x in w] == [abs(fr(x)) for x in v]  # the same magnitudes, only the last sign flipped


def test_rational_draws_every_point_of_its_decimal_grid_and_keeps_signs():
    """``rational(rng, low, high, digits)`` draws from the grid of multiples of 10^-digits in [low, high]:
    over many draws every point appears (and nothing else); a one-point range returns that point, with
    its sign even at the smallest magnitude, -10^-digits."""
    rng = np.random.default_rng(5)
    got = {C.rational(rng, 0, 1, digits=1) for _ in range(600)}
    assert got == {"0", "1"} | {f"0.{k}" for k in range(1, 10)}
    assert C.rational(rng, 0.5, 0.5) == "0.5"
    assert C.rational(rng, -0.01, -0.01) == "-0.01" and C.rational(rng, -0.001, -0.001, digits=3) == "-0.001"
    assert C.rational(rng, -0.05, -0.05) == "-0.05" and C.rational(rng, -1.25, -1.25) == "-1.25"


@pytest.mark.parametrize("K", [2, 3, 4])
def test_centred_draws_are_exactly_centred_over_many_seeds(K):
    """The last mean -sum_{k<K} w_k m_k / w_K is written exactly (a decimal only when it has at most 6 places,
    a fraction otherwise): rounding it would leave the mixture off-centre on about one draw in a hundred."""
    for D in (1, 2, 3):
        for s in range(300):
            c = C.mixture(rng(s, K, D), K, D, assume=("centred",))
            w = [fr(x) for x in c["weights"]]
            assert all(sum(wk * fr(mk[i]) for wk, mk in zip(w, c["means"])) == 0 for i in range(D)), (s, D)


@pytest.mark.parametrize("K,D", [(2, 2), (3, 3)])
def test_the_singular_assumption_gives_a_singular_component_even_with_singular_zero(K, D):
    """``singular=0`` asks for no rank-deficient component, but a declared ``singular`` assumption wins: one
    component of rank D - 1."""
    for s in range(10):
        ranks = [rank(G) for G in C.mixture(rng(s, K, D), K, D, singular=0, assume=("singular",))["covariances"]]
        assert sorted(ranks) == [D - 1] + [D] * (K - 1), (s, ranks)
        assert all(rank(G) == D for G in C.mixture(rng(s, K, D), K, D, singular=0)["covariances"])


def test_default_draws_reach_their_documented_ranges():
    """The defaults are part of each draw's contract: ``vector`` entries fill [-2, 2], ``large_scores`` reach
    5000 in absolute value, and a full-rank ``spd`` keeps its smallest eigenvalue at 0.1 x 0.3 = 0.03 or above
    and reaches below 0.06 (nearly singular covariances are drawn too).  Fast known answers for survivors
    configs.py:64, :127, :222 of the recorded engine run on c23bd1c, which only the slow seed-contract tests
    (pinned draws) killed."""
    v = [float(fr(x)) for s in SEEDS for x in C.vector(rng(s, 3), 3)]
    assert min(v) < -1.75 and max(v) > 1.75 and all(-2 <= x <= 2 for x in v)
    scores = [abs(float(fr(x))) for s in SEEDS for x in C.large_scores(rng(s, 4), 4)]
    assert max(scores) > 4500 and min(scores) < 1500
    for D in (2, 3):
        lows = [np.linalg.eigvalsh(np.array(frm(C.spd(rng(s, D, 0), D)), dtype=float)).min() for s in range(60)]
        assert min(lows) >= 0.03 - 1e-12 and any(x < 0.06 for x in lows)


# ---- survivors of the recorded engine run on 4532f9a ----------------------------------------------------
def test_rational_keeps_the_grid_points_exactly_one_step_from_what_it_avoids():
    """Documented: away ``>= 10^-digits`` from each avoided value, so the grid neighbours of an avoided
    point are allowed: in [0.49, 0.51] avoiding 0.5, both neighbours are drawn and 0.5 never; a range whose
    every grid point is avoided raises instead of returning an avoided value."""
    rng = np.random.default_rng(11)
    got = {C.rational(rng, 0.49, 0.51, avoid=(0.5,)) for _ in range(200)}
    assert got == {"0.49", "0.51"}
    with pytest.raises(RuntimeError, match="could not draw"):
        C.rational(rng, 0.5, 0.5, avoid=(0.5,))


@pytest.mark.parametrize("K,D", [(2, 2), (3, 3)])
def test_drawn_means_are_short_decimals_of_two_digits_by_default(K, D):
    """The module's promise ("numbers are short decimals"): means drawn with the default ``digits`` have at
    most two decimals, like weights and vectors."""
    for s in SEEDS:
        for m in C.means(rng(s, K, D), K, D):
            assert all(len(x.split(".")[1]) <= 2 if "." in x else True for x in m), m


# ---- a diagnostic sample of engine mutants (seed 5151) -----------------------------------------------
@pytest.mark.parametrize("K,D", [(2, 4), (3, 5)])
def test_equal_norm_means_above_dimension_three_are_padded_to_the_dimension(K, D):
    """Above D = 3 the signed permutations of (1, 2, 2) are padded with zeros: D coordinates, equal norms."""
    for s in range(20):
        ms = C.means(rng(s, K, D), K, D, equal_norms=True)
        assert all(len(m) == D for m in ms) and len({sum(fr(x) ** 2 for x in m) for m in ms}) == 1


def test_matrix_asymmetry_is_at_least_the_default_bound_and_reaches_it():
    """The default min_asymmetry is 0.1: every square draw has ||A - A^T||_max >= 0.1, and the bound is
    not stricter than documented (draws between 0.1 and 0.2 occur)."""
    asym = []
    for s in SEEDS:
        A = [[fr(x) for x in r] for r in C.matrix(rng(s, 2), 2)]
        asym.append(max(abs(A[i][j] - A[j][i]) for i in range(2) for j in range(2)))
    assert min(asym) >= F(1, 10) and any(a < F(2, 10) for a in asym)


def test_a_draw_whose_promise_cannot_be_met_raises_instead_of_hanging():
    """Every rejection loop stops after MAX_TRIES draws: entries in [-1, 1] cannot be 5 apart, and a vector
    drawn from [0, 0] has only zero entries."""
    with pytest.raises(RuntimeError, match=r"configs\.matrix: no draw met its promise in 10000 tries"):
        C.matrix(rng(1), 2, min_asymmetry=5.0)
    with pytest.raises(RuntimeError, match=r"configs\.vector"):
        C.vector(rng(1), 2, low=0.0, high=0.0)
