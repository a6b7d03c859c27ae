"""theory.families: every structure of structured_mixture builds exactly the family its docstring names, and
every combination it does not build raises ValueError naming the structure."""
import pytest
import sympy as sp

from softmix.theory.families import COVARIANCES, MEANS, WEIGHTS, structured_mixture


def _free(expr_list):
    return set().union(*(sp.Matrix(e).free_symbols for e in expr_list))


def test_covariance_structures():
    gen = structured_mixture(2, 3)
    assert all(G == G.T and len(G.free_symbols) == 6 for G in gen.covariances)  # 3 (3 + 1) / 2 symbols each
    assert not gen.covariances[0].free_symbols & gen.covariances[1].free_symbols and gen.variances is None
    shared = structured_mixture(3, 2, covariance="shared")
    assert shared.covariances[0] == shared.covariances[1] == shared.covariances[2] and shared.variances is None
    iso = structured_mixture(3, 2, covariance="isotropic")
    assert [G for G in iso.covariances] == [v * sp.eye(2) for v in iso.variances] and len(set(iso.variances)) == 3
    assert all(v.is_positive for v in iso.variances)
    siso = structured_mixture(2, 3, covariance="shared-isotropic")
    assert siso.variances[0] == siso.variances[1] and siso.covariances[0] == siso.variances[0] * sp.eye(3)
    diag = structured_mixture(2, 3, covariance="diagonal")
    for G in diag.covariances:
        assert G.is_diagonal() and len(G.free_symbols) == 3 and all(G[i, i].is_positive for i in range(3))
    assert not diag.covariances[0].free_symbols & diag.covariances[1].free_symbols and diag.variances is None


def test_degenerate_covariances_have_the_rank_asked_for_and_only_general_or_shared():
    for cov in ("general", "shared"):
        mix = structured_mixture(2, 3, covariance=cov, degenerate_rank=1)
        for G in mix.covariances:
            at = G.subs({s: sp.Rational(k + 2, k + 3) for k, s in enumerate(sorted(G.free_symbols, key=str))})
            assert G == G.T and at.rank() == 1
    for cov in ("isotropic", "shared-isotropic", "diagonal"):
        with pytest.raises(ValueError, match=f"need general or shared covariances, not '{cov}'"):
            structured_mixture(2, 2, covariance=cov, degenerate_rank=1)


def test_mean_structures():
    gen = structured_mixture(3, 2)
    assert len(_free(gen.means)) == 6 and gen.radius is None
    co = structured_mixture(3, 2, means="coincident")
    assert co.means[0] == co.means[1] == co.means[2] and len(_free(co.means)) == 2
    anti = structured_mixture(2, 3, means="antipodal")
    assert anti.means[1] == -anti.means[0]
    eq = structured_mixture(3, 3, means="equal-norms")
    assert all(sp.cancel((m.T * m)[0] - eq.radius ** 2) == 0 for m in eq.means) and eq.radius.is_positive
    one_d = structured_mixture(2, 1, means="equal-norms")  # dimension 1: r and -r
    assert one_d.means == [sp.Matrix([one_d.radius]), sp.Matrix([-one_d.radius])]
    assert structured_mixture(1, 1, means="equal-norms").means == [sp.Matrix([sp.Symbol("r", positive=True)])]


def test_weight_structures_and_centring():
    assert structured_mixture(3, 2, weights="equal").weights == [sp.Rational(1, 3)] * 3
    gen = structured_mixture(3, 2)
    assert all(w.is_positive for w in gen.weights) and len(set(gen.weights)) == 3
    assert sum(gen.weights) != 1  # generic weights are free (identities of the operator are homogeneous in them)
    for K, means, weights in ((3, "generic", "generic"), (2, "antipodal", "equal"), (3, "coincident", "generic")):
        mix = structured_mixture(K, 2, means=means, weights=weights, centred=True)
        assert sp.simplify(sum((w * m for w, m in zip(mix.weights, mix.means)), sp.zeros(2, 1))) == sp.zeros(2, 1)
    assert structured_mixture(3, 2, means="coincident", centred=True).means == [sp.zeros(2, 1)] * 3
    assert structured_mixture(1, 3, centred=True).means == [sp.zeros(3, 1)]
    gen_c = structured_mixture(3, 2, centred=True)
    assert gen_c.means[:2] == gen.means[:2] and gen_c.means[2] != gen.means[2]  # only the last mean is solved for


def test_prefix_names_every_symbol():
    mix = structured_mixture(2, 2, covariance="diagonal", means="equal-norms", prefix="a_")
    syms = _free(mix.means) | _free(mix.covariances) | set(mix.weights)
    assert syms and all(str(s).startswith("a_") for s in syms)


@pytest.mark.parametrize("kwargs, match, names", [
    ({"covariance": "spherical"}, "unknown covariance structure 'spherical'", COVARIANCES),
    ({"means": "orthogonal"}, "unknown mean structure 'orthogonal'", MEANS),
    ({"weights": "uniform"}, "unknown weight structure 'uniform'", WEIGHTS),
    ({"K": 3, "means": "antipodal"}, "antipodal means need exactly two components, not 3", ()),
    ({"K": 3, "D": 1, "means": "equal-norms"}, "at most two distinct means of equal norm in dimension 1", ()),
    ({"means": "equal-norms", "centred": True}, "centred mixture with equal-norms means", ()),
    ({"means": "antipodal", "centred": True}, "centred mixture with antipodal means", ()),
])
def test_structures_not_built_raise_naming_them(kwargs, match, names):
    args = {"K": 2, "D": 2, **kwargs}
    with pytest.raises(ValueError, match=match) as e:
        structured_mixture(args.pop("K"), args.pop("D"), **args)
    assert str(e.value).endswith(f"(one of {', '.join(names)})") if names else "one of" not in str(e.value)


@pytest.mark.parametrize("cov", COVARIANCES)
@pytest.mark.parametrize("means", MEANS)
@pytest.mark.parametrize("weights", WEIGHTS)
def test_every_family_built_keeps_its_promise_and_a_broken_one_is_named(cov, means, weights):
    """promise_broken is '' on every family structured_mixture builds (it checks each one it returns), and names
    what a family breaks once one of its pieces is replaced by a generic one."""
    from softmix.theory.families import promise_broken
    from softmix.theory.mixtures import SymbolicMixture, vector_symbols

    K = 2
    mix = structured_mixture(K, 2, cov, means, weights)
    assert promise_broken(mix, K, 2, cov, means, weights) == ""
    other = vector_symbols("q", 2)
    if means != "generic":  # the second mean replaced by a free one
        bad = SymbolicMixture(mix.weights, [mix.means[0], other], mix.covariances, variances=mix.variances,
                              radius=mix.radius)
        assert promise_broken(bad, K, 2, cov, means, weights) != ""
    if weights == "equal":
        bad = SymbolicMixture([sp.Rational(1, 3), sp.Rational(2, 3)], mix.means, mix.covariances,
                              variances=mix.variances, radius=mix.radius)
        assert promise_broken(bad, K, 2, cov, means, weights) == "weights that are not 1/2"
    if cov != "general":
        G = sp.Matrix([[1, sp.Symbol("c")], [sp.Symbol("c"), 2]])
        bad = SymbolicMixture(mix.weights, mix.means, [mix.covariances[0], G], variances=mix.variances,
                              radius=mix.radius)
        assert promise_broken(bad, K, 2, cov, means, weights) != ""
    centred = structured_mixture(K, 2, "general", "generic", weights, centred=True)
    assert promise_broken(centred, K, 2, centred=True) == ""
    assert promise_broken(structured_mixture(K, 2), K, 2, centred=True) == "a mixture whose weighted mean is not 0"
