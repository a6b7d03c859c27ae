"""Each automatic control of ``operator_claim`` is exactly the documented perturbation of the statement
(checks/operator.py, ``CONTROLS`` and the module docstring): every exponential's argument scaled by
6/5, one additive term of the first entry dropped, one term's sign flipped, U transposed.

A control that is weakened (another factor, another term) may still be refuted on a true statement,
so "the control is refuted" does not pin it: these tests compare the perturbed map with the
statement on fixed small instances, with known answers.
"""
import pytest
import sympy as sp

from softmix.checks.assumption_runs import BASE_FAMILY
from softmix.checks.operator import CONTROLS, _controls, _probe, perturb
from softmix.checks.operator_family import Head
from softmix.theory.mixtures import symbolic_mixture

R = sp.Rational
U0 = sp.Matrix([[1, 2], [0, 1]])  # not symmetric
V0 = sp.eye(2)
Z0 = sp.Matrix([1, 1])  # U0 z = (3, 1), U0^T z = (1, 3)
MIX = symbolic_mixture(2, 2)


def test_the_automatic_controls_are_the_four_documented_ones():
    assert set(CONTROLS) == {"dropped-term", "flipped-sign", "gate-argument", "transposed-U"}
    assert "6/5" in CONTROLS["gate-argument"]


def exps(mix, U, V, z):
    a = U * z
    return V * sp.Matrix([sp.exp(a[0]), 2 * sp.exp(-a[1]) + 1])


def test_gate_argument_scales_every_exponential_argument_by_six_fifths():
    out = perturb(exps, "gate-argument")(MIX, U0, V0, Z0)
    assert out == sp.Matrix([sp.exp(R(18, 5)), 2 * sp.exp(R(-6, 5)) + 1])
    st = exps(MIX, U0, V0, Z0)
    assert sp.log(out[0]) / sp.log(st[0]) == R(6, 5)  # the documented factor, exactly
    # symbolically: exp(x) -> exp(6x / 5) wherever it occurs, nothing else changes
    x, y = sp.symbols("x y")
    f = perturb(lambda mix, U, V, z: sp.Matrix([x * sp.exp(x) + sp.exp(y) / (1 + sp.exp(x)), y]), "gate-argument")
    assert sp.simplify(f(MIX, U0, V0, Z0) - sp.Matrix(
        [x * sp.exp(6 * x / 5) + sp.exp(6 * y / 5) / (1 + sp.exp(6 * x / 5)), y])) == sp.zeros(2, 1)


def lin(mix, U, V, z):
    return sp.Matrix([z[0] + 2 * z[1], z[0] - z[1]])


ZS = sp.Matrix(sp.symbols("z1 z2"))  # the perturbations act on the expression the statement returns


@pytest.mark.parametrize("z,drop,flip", [((3, 5), {3, 10}, {-7, 7}), ((2, -7), {2, -14}, {16, -16})])
def test_dropped_term_and_flipped_sign_change_one_term_of_the_first_entry(z, drop, flip):
    at = dict(zip(ZS, z))
    st = lin(MIX, U0, V0, ZS).xreplace(at)
    d = perturb(lin, "dropped-term")(MIX, U0, V0, ZS).xreplace(at)
    f = perturb(lin, "flipped-sign")(MIX, U0, V0, ZS).xreplace(at)
    assert d[1] == st[1] and f[1] == st[1]  # only the first entry changes
    assert d[0] in drop and f[0] in flip
    # the term dropped is the term whose sign is flipped: statement = kept + t, flipped = kept - t
    assert st[0] - d[0] == (st[0] - f[0]) / 2


def test_an_entry_without_a_sum_is_dropped_to_zero_or_negated_and_a_zero_entry_changes():
    one = lambda mix, U, V, z: sp.Matrix([3 * z[0] * z[1], z[1]])  # noqa: E731
    at = dict(zip(ZS, (2, 5)))
    assert perturb(one, "dropped-term")(MIX, U0, V0, ZS).xreplace(at) == sp.Matrix([0, 5])
    assert perturb(one, "flipped-sign")(MIX, U0, V0, ZS).xreplace(at) == sp.Matrix([-30, 5])
    zero = lambda mix, U, V, z: sp.Matrix([0, z[1]])  # noqa: E731
    for name in ("dropped-term", "flipped-sign"):
        assert perturb(zero, name)(MIX, U0, V0, Z0)[0] != 0


def test_transposed_u_applies_the_statement_to_u_transposed():
    st = lambda mix, U, V, z: V * U * z  # noqa: E731
    assert st(MIX, U0, V0, Z0) == sp.Matrix([3, 1])
    assert perturb(st, "transposed-U")(MIX, U0, V0, Z0) == sp.Matrix([1, 3])
    # V and z are left alone
    st2 = lambda mix, U, V, z: V * z + U[0, 1] * z  # noqa: E731
    assert perturb(st2, "transposed-U")(MIX, U0, 2 * V0, Z0) == sp.Matrix([2, 2])


def gated(mix, U, V, z):
    a = U * z
    s = [sp.log(w) + (m.T * a)[0] + (a.T * G * a)[0] / 2 for w, m, G in zip(mix.weights, mix.means, mix.covariances)]
    den = sum(sp.exp(x) for x in s)
    return V * sum((sp.exp(x) / den * (m + G * a) for x, m, G in zip(s, mix.means, mix.covariances)),
                   sp.zeros(U.rows, 1))


def affine(mix, U, V, z):
    return V * (mix.means[0] + mix.covariances[0] * U * z)


def _built(stated, K, D, **head):
    h = Head(K=K, D=D, base=dict(BASE_FAMILY), **head)
    probe = _probe(h, stated, "unit")
    return _controls(h, stated, probe, "unit")


@pytest.mark.parametrize("D", [2, 3])
def test_the_controls_built_per_dimension_and_why_one_is_not(D):
    controls, not_built = _built(gated, 2, D)
    assert set(controls) == set(CONTROLS) and not_built == {}
    controls, not_built = _built(affine, 1, D)
    assert set(controls) == {"dropped-term", "flipped-sign", "transposed-U"} and not_built == {}
    assert all(controls[k] == CONTROLS[k] for k in controls)
    # a given symmetric head: U transposed is the statement itself, so that control is not built, and says why
    controls, not_built = _built(gated, 2, D, U=sp.eye(D) / 2)
    assert set(controls) == {"dropped-term", "flipped-sign", "gate-argument"}
    assert set(not_built) == {"transposed-U"} and "cannot differ" in not_built["transposed-U"]
