"""The automatic negative controls of ``softmix.operator_claim``, exactly, per dimension and covariance
shape (issue 23 scope 2): dropped-term and flipped-sign always; gate-argument exactly when the
statement has exponentials; transposed-U exactly in dimension >= 2.  On a true statement every one
of them is refuted (dimension 3 with general covariances: the engine control engine/operator-d3,
tests/engine/test_engine_controls.py)."""
import pytest
import sympy as sp

from softmix.checks.operator import CONTROLS, operator_claim, perturb
from softmix.checks.runner import run_claim_object
from softmix.numerics.errors import InputError
from softmix.theory.mixtures import matrix_symbols, symbolic_mixture, vector_symbols


def gated_experts(mix, U, V, z):
    """eq. (2): V sum_k alpha_k (m_k + G_k U z), alpha = softmax(log pi_k + m_k^T U z + (Uz)^T G_k U z / 2)"""
    a = U * z
    s = [sp.log(w) + (m.T * a)[0] + (a.T * G * a)[0] / 2 for w, m, G in zip(mix.weights, mix.means, mix.covariances)]
    den = sum(sp.exp(x) for x in s)
    terms = (sp.exp(x) / den * (m + G * a) for x, m, G in zip(s, mix.means, mix.covariances))
    return V * sum(terms, sp.zeros(U.rows, 1))


def affine(mix, U, V, z):
    """one component: V (m + G U z) -- no exponential"""
    return V * (mix.means[0] + mix.covariances[0] * U * z)


SHAPES = {"general": {}, "shared": {"shared_covariance": True}, "degenerate": {"degenerate": True}}


def _expected(D, exps=True):
    out = {"dropped-term", "flipped-sign"}
    if exps:
        out.add("gate-argument")
    if D >= 2:
        out.add("transposed-U")
    return out


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("D", [1, 2, 3])
def test_the_set_of_automatic_controls_is_exact(D, shape):
    c = operator_claim(f"unit-set-{D}-{shape}", gated_experts, components=2, dim=D, register=False, **SHAPES[shape])
    assert {x.id for x in c.controls} == _expected(D)
    assert all(x.description == CONTROLS[x.id] for x in c.controls)
    a = operator_claim(f"unit-set-affine-{D}-{shape}", affine, components=1, dim=D, register=False, **SHAPES[shape])
    assert {x.id for x in a.controls} == _expected(D, exps=False)  # no exponential: no gate-argument control


def _cheap(D):
    return {"quadrature_dims": [1] if D == 1 else [], "exact_dims": [D], "dps": 30, "nodes": 10, "shrink_budget": 0}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("D", [1, 2])
def test_every_automatic_control_is_refuted_on_a_true_statement(D, shape):
    c = operator_claim(f"unit-refute-{D}-{shape}", gated_experts, components=2, dim=D, register=False, **SHAPES[shape])
    res = run_claim_object(c, seed=11, overrides=_cheap(D))
    assert res["verdict"] == "verified", res["evidence"]
    ctl = {x["id"]: x for x in res["negative_controls"]}
    assert set(ctl) == _expected(D)
    for name, x in ctl.items():
        assert x["verdict"] == "refuted" and x["refuted"], (name, x["evidence"])
        # refuted by the exact comparison, not only by the symbolic search
        assert x["evidence"]["numeric"]["verdict"] == "refuted", (name, x["evidence"]["numeric"])


def test_controls_of_a_statement_without_exponentials_are_refuted():
    c = operator_claim("unit-refute-affine", affine, components=1, dim=2, register=False, degenerate=True)
    res = run_claim_object(c, seed=5, overrides=_cheap(2))
    assert res["verdict"] == "verified"
    assert {x["id"]: x["verdict"] for x in res["negative_controls"]} == {
        "dropped-term": "refuted", "flipped-sign": "refuted", "transposed-U": "refuted"}


@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_each_perturbation_changes_the_statement(name):
    """Each control is a different map from the statement on the generic family (so that a
    control which cannot differ is never built silently)."""
    fam = symbolic_mixture(2, 2)
    U, V, z = matrix_symbols("U", 2), matrix_symbols("V", 2, 2), vector_symbols("z", 2)
    diff = sp.Matrix(perturb(gated_experts, name)(fam, U, V, z)) - gated_experts(fam, U, V, z)
    syms = sorted(diff.free_symbols, key=str)
    point = {s: sp.Rational((i % 3) + 1, (i % 4) + 5) * (1 if s.is_positive else (-1) ** i) for i, s in enumerate(syms)}
    assert any(abs(sp.N(e.xreplace(point), 30)) > 1e-4 for e in diff), name
    with pytest.raises(KeyError):
        perturb(gated_experts, "no-such-control")


def test_a_statement_undefined_in_another_dimension_is_skipped_there_and_refused_in_its_own():
    """operator.py's dimension guard: a statement that raises a shape error in a dimension other than its own is
    not decided there (the row says why) and the claim is still decided in its own dimension; the same error in
    its own dimension is not hidden -- operator_claim refuses the statement, naming the dimension."""
    def only_2x2(mix, U, V, z):
        if U.rows != 2:
            raise sp.ShapeError(f"written for 2 x 2 heads, not {U.rows} x {U.rows}")
        return gated_experts(mix, U, V, z)

    c = operator_claim("unit-only-2x2", only_2x2, components=2, dim=2, register=False)
    res = run_claim_object(c, seed=11, overrides={**_cheap(2), "exact_dims": [2, 3]})
    assert res["verdict"] == "verified", res["evidence"]
    num = res["evidence"]["numeric"]
    assert {r["dim"] for r in num["rows"]} == {2}
    skipped = res["evidence"]["skipped"]
    assert [s["dim"] for s in skipped] == [3]
    assert skipped[0]["reason"] == "statement not defined in dimension 3: written for 2 x 2 heads, not 3 x 3"
    with pytest.raises(InputError, match="failed on the symbolic 2-component family in dimension 3: ShapeError"):
        operator_claim("unit-only-2x2-in-3", only_2x2, components=2, dim=3, register=False)


def test_the_documented_parameters_of_an_operator_claim_are_its_defaults():
    """docs/writing-claims.md's parameter table of operator claims, read from the page (a default that drifts
    from it is seen here; operator.py:389, a survivor of the engine run on 79d04be, changed the shrink budget)."""
    import dataclasses
    import pathlib
    import re

    page = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "writing-claims.md").read_text()
    table = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", page, flags=re.M))
    for D in (1, 2, 3):
        c = operator_claim(f"unit-params-{D}", gated_experts, components=2, dim=D, register=False)
        got = {f.name: (f.default if f.default is not dataclasses.MISSING else f.default_factory())
               for f in dataclasses.fields(c.params_type)}
        assert set(got) == {"quadrature_dims", "exact_dims", "instances", "dps", "nodes", "shrink_budget"}
        for name in ("instances", "dps", "nodes", "shrink_budget"):
            assert str(got[name]) == table[name].strip(), name
        assert got["quadrature_dims"] == ([D] if D <= 2 else []) and got["exact_dims"] == [D, D + 2]
    assert table["quadrature_dims"].strip() == "`[dim]` when `dim <= 2`, else `[]`"
    assert table["exact_dims"].strip() == "`[dim, dim + 2]`; `[dim]` with a fixed `U` or `V`"
    fixed = operator_claim("unit-params-fixed", gated_experts, components=2, dim=2, register=False,
                           U=sp.Matrix([[1, 2], [0, 1]]))
    assert [f.default_factory() for f in dataclasses.fields(fixed.params_type) if f.name == "exact_dims"] == [[2]]


def test_a_family_that_cannot_be_built_is_not_blamed_on_the_statement():
    """A U (or V, or a family transform) that raises while the symbolic family is built is refused at
    registration as the family's failure, not as "stated(mix, U, V, z) failed"."""
    def bad_U(mix):
        raise ZeroDivisionError("no inverse here")

    with pytest.raises(InputError, match=r"family in dimension 2 \(with its U and V\) could not be built: "
                                         "ZeroDivisionError: no inverse here"):
        operator_claim("unit-bad-U", gated_experts, components=2, dim=2, U=bad_U, register=False)
