"""The operator front-end's structured draws (checks/operator_family.py) have the structure their family
promises, exactly, over many seeds: equal weights, coincident / antipodal / equal-norm / generic means,
centring, and the generic head (U with entries of the documented grid, V of full rank, a query with U z != 0).
Each family is the one a user's declared assumptions give (``family_spec``); these paths run only when a
statement declares structure, so the paper library and the engine controls never reach them."""
import numpy as np
import pytest
import sympy as sp

from softmix.checks.assumption_runs import BASE_FAMILY
from softmix.checks.operator_family import Head

SEEDS = range(40)


def draw(K, D, seed, **family):
    spec = {**BASE_FAMILY, "transforms": [], **family}
    return Head(K, D, dict(BASE_FAMILY)).draw(np.random.default_rng([seed, K, D]), D, spec, degenerate=False)


def norm2(m):
    return sum(x * x for x in m)


@pytest.mark.parametrize("K,D", [(2, 1), (3, 2), (2, 3)])
def test_equal_weights_are_exactly_one_over_k_and_generic_ones_distinct(K, D):
    for s in SEEDS:
        w = draw(K, D, s, weights="equal").smix.weights
        assert list(w) == [sp.Rational(1, K)] * K
        g = draw(K, D, s, covariance="diagonal").smix.weights  # a structured family: the structured draw
        assert sum(g) == 1 and len(set(g)) == K


@pytest.mark.parametrize("K,D", [(2, 1), (2, 2), (3, 2), (3, 3)])
def test_means_of_each_kind(K, D):
    for s in SEEDS:
        ms = [list(m) for m in draw(K, D, s, means="coincident").smix.means]
        assert all(m == ms[0] for m in ms) and any(x != 0 for x in ms[0])
        ms = [list(m) for m in draw(K, D, s, means="generic").smix.means]
        assert len({tuple(m) for m in ms}) == K
        if K == 2:
            a, b = [list(m) for m in draw(K, D, s, means="antipodal").smix.means]
            assert b == [-x for x in a] and any(x != 0 for x in a)
        if D > 1:  # (in dimension 1: two opposite points, below)
            ms = [list(m) for m in draw(K, D, s, means="equal-norms").smix.means]
            assert len({norm2(m) for m in ms}) == 1 and norm2(ms[0]) > 0
            assert len({tuple(m) for m in ms} | {tuple(-x for x in m) for m in ms}) == 2 * K  # nor equal nor antipodal


@pytest.mark.parametrize("K,D,means", [(2, 2, "generic"), (3, 2, "generic"), (3, 2, "coincident"),
                                       (2, 3, "coincident")])
def test_centred_means_have_weighted_mean_zero(K, D, means):
    for s in SEEDS:
        mix = draw(K, D, s, means=means, centred=True).smix
        mean = sum((w * m for w, m in zip(mix.weights, mix.means)), sp.zeros(D, 1))
        assert mean == sp.zeros(D, 1)
        if means == "coincident":
            assert all(m == sp.zeros(D, 1) for m in mix.means)


@pytest.mark.parametrize("D", [1, 2, 3])
def test_the_generic_head_of_a_structured_family(D):
    """U: entries n / (2 q) with |n| <= 2, q <= 4 (|U_ij| <= 1), non-zero and, in d >= 2, not symmetric; V:
    |entries| <= 3, denominators <= 4, full rank; the query: entries n / q with |n| <= 2, q <= 2, and U z != 0
    (the plain path's _generic_head: U = 0 came out of one draw in five in d = 1, the tilt gone)."""
    for s in SEEDS:
        inst = draw(2, D, s, weights="equal")
        assert all(abs(2 * x) <= 2 and sp.fraction(2 * x)[1] <= 4 for x in inst.U)
        assert all(abs(x) <= 3 and sp.fraction(x)[1] in (1, 2, 3, 4) for x in inst.V) and inst.V.rank() == D
        assert all(abs(x) <= 2 and sp.fraction(x)[1] in (1, 2) for x in inst.z)
        assert any(x != 0 for x in inst.U * inst.z) and (D == 1 or inst.U != inst.U.T)


def test_equal_norm_means_in_dimension_one_are_two_opposite_points():
    for s in SEEDS:
        a, b = draw(2, 1, s, means="equal-norms").smix.means
        assert a[0] == -b[0] != 0
    with pytest.raises(ValueError, match="at most two"):
        draw(3, 1, 0, means="equal-norms")


@pytest.mark.parametrize("K,D", [(2, 2), (3, 3)])
def test_mean_entries_and_diagonal_covariances_on_their_grids(K, D):
    """Drawn means: non-zero vectors with entries n / q, |n| <= 3, q <= 2; diagonal covariances: zero off the
    diagonal, n / q on it with 1 <= n <= 9, q <= 4 (positive definite)."""
    for s in SEEDS:
        mix = draw(K, D, s, means="generic", covariance="diagonal").smix
        for m in mix.means:
            assert any(x != 0 for x in m) and all(abs(x) <= 3 and sp.fraction(x)[1] in (1, 2) for x in m)
        for G in mix.covariances:
            G = sp.Matrix(G)
            assert all(G[i, j] == 0 for i in range(D) for j in range(D) if i != j)
            assert all(0 < G[i, i] <= 9 and 36 % sp.fraction(G[i, i])[1] == 0 for i in range(D))


@pytest.mark.parametrize("D", [1, 2, 3])
def test_the_plain_generic_query_grid(D):
    """The plain path's query: entries n / q with |n| <= 2, q <= 2 (the instances every operator statement
    without structure is decided on)."""
    for s in SEEDS:
        inst = draw(2, D, s)
        assert all(abs(x) <= 2 and sp.fraction(x)[1] in (1, 2) for x in inst.z)


def test_only_a_plain_head_on_the_simple_family_keeps_todays_draw_key():
    """Survivor of the recorded engine run (operator.py:316): today's key (and so today's instances) only for
    a head with no fixed U, V or symbols on the generic family; a head with a fixed U gets the family's key."""
    from softmix.checks.operator import _draw_key

    spec = {**BASE_FAMILY, "transforms": []}
    plain, fixed = Head(2, 2, dict(BASE_FAMILY)), Head(2, 2, dict(BASE_FAMILY), U=[[1, 0], [0, 1]])
    assert _draw_key(plain, spec, 2, None) == [2, 2, False, False]
    assert _draw_key(fixed, spec, 2, None) == [2, 2, False, Head.spec_key(spec), ""]


# ---- survivors of the engine run on f883275 (seed 260584053) --------------------------------------------
@pytest.mark.parametrize("D", [2, 3])
def test_the_mean_grid_is_reached_at_its_extremes_and_halves(D):
    """The documented grid n / q, |n| <= 3, q <= 2 is used whole: over the seeds some entry is +-3 and some a
    half-integer (a narrower grid would pass the bounds alone)."""
    xs = [x for s in SEEDS for m in draw(3, D, s, means="generic", covariance="diagonal").smix.means for x in m]
    assert any(abs(x) == 3 for x in xs) and any(sp.fraction(x)[1] == 2 for x in xs)


def test_equal_norm_radius_is_drawn_on_its_grid_of_halves():
    """The equal-norm radius is n / q with 1 <= n <= 6, q <= 2: some radius over the seeds is a half-integer
    (in d = 1 the means are +-radius)."""
    rs = [abs(draw(2, 1, s, means="equal-norms").smix.means[0][0]) for s in SEEDS]
    assert all(0 < r <= 6 and sp.fraction(r)[1] in (1, 2) for r in rs)
    assert any(sp.fraction(r)[1] == 2 for r in rs) and any(sp.fraction(r)[1] == 1 for r in rs)


def test_extra_symbols_are_drawn_positive_never_zero():
    """Extra symbols are positive: values n / q with 1 <= n <= 9, q <= 4, never 0 (a zero would hide the
    terms the symbol multiplies)."""
    c = sp.Symbol("c", positive=True)
    spec = {**BASE_FAMILY, "transforms": []}
    vals = [Head(2, 2, dict(BASE_FAMILY), symbols=(c,)).draw(np.random.default_rng([s, 7]), 2, spec,
                                                             degenerate=False).symbols["c"] for s in range(60)]
    assert all(sp.Rational(1, 4) <= v <= 9 and 36 % sp.fraction(v)[1] == 0 for v in vals)
    assert min(vals) == sp.Rational(1, 4) and max(vals) == 9  # the grid's ends are drawn: n = 1 and n = 9


@pytest.mark.parametrize("D", [1, 2, 3])
def test_one_centred_component_has_the_zero_mean(D):
    for s in range(5):
        (m,) = draw(1, D, s, centred=True).smix.means
        assert list(m) == [0] * D


@pytest.mark.parametrize("D", [1, 2, 3])
def test_structured_covariance_families_of_a_head_with_a_fixed_U(D):
    """A head with a fixed U is not plain, so every covariance family is drawn by the structured path: shared ->
    one covariance for all; general -> drawn one by one; shared-isotropic -> one v I, v > 0; isotropic -> v_k I."""
    head = Head(3, D, dict(BASE_FAMILY), U=sp.eye(D))
    general_distinct = 0
    for s in range(15):
        def covs(kind):
            spec = {**BASE_FAMILY, "transforms": [], "covariance": kind}
            inst = head.draw(np.random.default_rng([s, D]), D, spec, degenerate=False)
            return [sp.Matrix(G) for G in inst.smix.covariances]

        sh = covs("shared")
        assert len(sh) == 3 and all(G == sh[0] for G in sh)
        general_distinct += len({sp.ImmutableMatrix(G) for G in covs("general")}) > 1
        for kind, n_distinct in (("shared-isotropic", 1), ("isotropic", 3)):
            iso = covs(kind)
            assert len(iso) == 3 and all(G == G[0, 0] * sp.eye(D) and G[0, 0] > 0 for G in iso)
            assert len({G[0, 0] for G in iso}) == n_distinct
    assert general_distinct >= 10  # general: drawn one by one (equal only by chance, on a small grid in D = 1)


@pytest.mark.parametrize("D", [1, 2, 3])
def test_the_plain_generic_head_grid(D):
    """The plain path's head (_instance): U entries n / (2 q), |n| <= 2, q <= 4; V entries n / q, |n| <= 3,
    q <= 4 (the instances every operator statement without structure is decided on)."""
    for s in SEEDS:
        inst = draw(2, D, s)
        assert all(abs(2 * x) <= 2 and sp.fraction(2 * x)[1] <= 4 for x in inst.U)
        assert all(abs(x) <= 3 and sp.fraction(x)[1] <= 4 for x in inst.V)


@pytest.mark.parametrize("D", [1, 2, 3])
@pytest.mark.parametrize("weights", ["equal", "generic"])
def test_the_head_grids_are_reached_at_their_extremes(D, weights):
    """The grids above are the grids drawn, not only bounds: over the seeds |U_ij| reaches 1 and |V_ij|
    reaches 3 and |z_i| reaches 2, on the structured path (equal weights) and on the plain one (a narrower grid
    makes the scores smaller, and small scores hide the gate's terms)."""
    insts = [draw(2, D, s, weights=weights) for s in SEEDS]
    U, V, z = ([abs(x) for i in insts for x in getattr(i, a)] for a in "UVz")
    assert max(U) == 1 and max(V) == 3 and max(z) == 2


@pytest.mark.parametrize("K,D", [(2, 2), (3, 2), (2, 3)])
def test_equal_norm_means_are_off_the_coordinate_planes_their_parameters_avoid(K, D):
    """Equal-norm means are ``r * stereographic(t)`` with every t_i a nonzero rational (a zero t_i puts the mean
    on a coordinate plane, where the terms of that coordinate vanish): the first D - 1 entries of each mean are
    nonzero, over many seeds, and the draw reaches each sign (kills operator_family.py:246, a 0 in t's grid)."""
    signs = set()
    for s in SEEDS:
        for m in draw(K, D, s, means="equal-norms").smix.means:
            assert all(x != 0 for x in list(m)[:D - 1])
            signs |= {x > 0 for x in list(m)[:D - 1]}
    assert signs == {True, False}


def test_a_draw_that_cannot_meet_its_requirement_stops_after_the_documented_50_tries():
    """Head.draw repeats the draw at most 50 times, then names what it could not draw."""
    from softmix.checks.assumptions import Assumption

    never = Assumption("never", "no instance breaks it", holds_for=lambda mix: True)
    head, calls = Head(2, 2, dict(BASE_FAMILY)), []
    once = head._draw_once
    head._draw_once = lambda *a: calls.append(1) or once(*a)
    spec = {**BASE_FAMILY, "transforms": []}
    with pytest.raises(ValueError, match="could not draw an instance in dimension 2 that breaks never"):
        head.draw(np.random.default_rng(3), 2, spec, degenerate=False, avoid=never)
    assert len(calls) == 50
