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
