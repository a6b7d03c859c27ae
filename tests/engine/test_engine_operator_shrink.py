"""Known answer for the counterexample shrinking of operator statements (checks/operator.py ``_shrink``):
entries go to 0, then to +-1, each change kept only while the statement still fails."""
from __future__ import annotations

from types import SimpleNamespace

import sympy as sp

import softmix.checks.operator as O


def test_shrink_zeroes_what_it_can_then_moves_the_rest_to_plus_minus_one(monkeypatch):
    # a statement that fails exactly when z_1 != 0: z_2 can be zeroed, z_1 cannot and goes to sign(z_1) = 1
    monkeypatch.setattr(O, "_rebuild", lambda inst, z, U, V, means: SimpleNamespace(z=sp.Matrix(z)))
    monkeypatch.setattr(O, "_fails", lambda stated, inst, rule: (inst.z[0] != 0, None))
    inst = SimpleNamespace(z=sp.Matrix([sp.Rational(3, 2), sp.Rational(-5, 2)]), U=sp.eye(2), V=sp.eye(2),
                           smix=SimpleNamespace(means=[sp.Matrix([1, 2])]))
    head = SimpleNamespace(U=sp.eye(2), V=sp.eye(2))  # U and V given: only z is shrunk
    out, used = O._shrink(None, inst, None, 10, head, {"means": "equal-norms", "centred": False})
    assert list(out.z) == [1, 0] and used == 3  # z_1 -> 0 (reverted), z_2 -> 0 (kept), z_1 -> 1 (kept)
    out, used = O._shrink(None, inst, None, 1, head, {"means": "equal-norms", "centred": False})
    assert used == 1  # the budget bounds the evaluations


def test_shrink_spends_no_evaluation_on_an_entry_already_at_its_target(monkeypatch):
    """An entry that is already 0 is skipped in both passes (0 is its own sign): z = (3/2, 0, -5/2) with a
    statement that fails iff z_1 != 0 costs 3 evaluations, as (3/2, -5/2) does."""
    monkeypatch.setattr(O, "_rebuild", lambda inst, z, U, V, means: SimpleNamespace(z=sp.Matrix(z)))
    monkeypatch.setattr(O, "_fails", lambda stated, inst, rule: (inst.z[0] != 0, None))
    inst = SimpleNamespace(z=sp.Matrix([sp.Rational(3, 2), 0, sp.Rational(-5, 2)]), U=sp.eye(3), V=sp.eye(3),
                           smix=SimpleNamespace(means=[sp.Matrix([1, 2, 3])]))
    head = SimpleNamespace(U=sp.eye(3), V=sp.eye(3))
    out, used = O._shrink(None, inst, None, 10, head, {"means": "equal-norms", "centred": False})
    assert list(out.z) == [1, 0, 0] and used == 3


def test_a_stated_map_that_raises_arithmetic_error_fails_with_a_refuting_row():
    """A stated map that cannot be evaluated at the instance (ArithmeticError) fails it: the row is
    refuted, not passed, and says why."""
    import numpy as np

    from softmix.checks.operator_family import Instance
    from softmix.checks.rules import Residual

    mix, U, V, z = O.random_instance(np.random.default_rng(1), 2, 2)
    inst = Instance(mix, O.sym_mixture(mix), O.exact_matrix(U), O.exact_matrix(V), O.rational_matrix(list(z)))

    def raises(*a, **k):
        raise ArithmeticError("division by zero in the stated map")

    failed, row = O._fails(raises, inst, Residual(30))
    assert failed is True and row["passed"] is False and row["verdict"] == "refuted"
    assert row["reason"] == "division by zero in the stated map"
    exact = lambda smix, U, V, z, **k: O.exact_operator(inst.mix, U, V, z)
    failed, row = O._fails(exact, inst, Residual(30))
    assert failed is False and row["passed"] is True
