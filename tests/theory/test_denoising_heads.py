"""theory.denoising_heads: single heads derived from T = f* (Props. C.3, C.4), exactly."""
from __future__ import annotations

import pytest
import sympy as sp

from softmix.theory import denoising as TD
from softmix.theory.denoising_heads import (
    circle_family_facts,
    derived_single_heads,
    exchanged_endpoint_conditions,
    exp_groups,
    identity_solutions,
    positive_gamma_roots,
    solve_polynomial_system,
    stated_single_heads,
)


def test_exp_groups_and_identity_solutions_on_a_known_identity():
    """c exp(u z) - exp(z) = 0 for all z iff (u, c) = (1, 1): the exponent classes {u, 1} merge only at u = 1."""
    z, u, c = sp.symbols("z u c")
    groups = exp_groups([c * sp.exp(u * z) - sp.exp(z)], [z])
    assert identity_solutions(groups, [z], [u, c]) == [{u: 1, c: 1}]


def test_derived_single_heads_at_balance_pinned():
    """gamma = xi = 2, pi1 = 1/2 (Fig. 2 means): exactly U = I/8, V = I/2 and the exchanged orientation."""
    R = sp.Rational
    U, V, _z, _e, sols = derived_single_heads([3, 0], [0, 3], 2, 2, R(1, 2))
    got = sorted(tuple(str(s[x]) for x in list(U) + list(V)) for s in sols)
    assert got == sorted([("1/8", "0", "0", "1/8", "1/2", "0", "0", "1/2"), ("0", "1/8", "1/8", "0", "0", "1/2",
                                                                             "1/2", "0")])
    st = stated_single_heads(U, V, [3, 0], [0, 3], 2, 2, R(1, 2))
    assert set(st) == {"(1)-(3)", "exchanged endpoints"} and len(st["(1)-(3)"]) == 1
    assert len(derived_single_heads([3, 0], [0, 3], 2, 2, R(3, 10))[4]) == 1  # pi1 != 1/2: one orientation
    assert derived_single_heads([3, 0], [0, 3], 1, 2, R(1, 2))[4] == []  # gamma != xi: none


def test_elimination_roots_generic_families():
    m1, m2, _ = TD.circle_means(2)
    assert [str(r) for r in positive_gamma_roots(m1, m2)[1]] == ["xi"]


def test_circle_families_are_what_they_say(monkeypatch):
    facts = circle_family_facts()
    assert facts["passed"] and facts["unequal_norm_gap"] == "k*(k + 2)*(p**2 + q**2)"
    real = TD.circle_means

    def unequal_by_k(d=2, kind="generic"):  # m2 = k R m1: for k = 1 the 'unequal' family has equal norms
        m1, m2, syms = real(d, kind)
        if kind == "unequal":
            k = syms[-1]
            m2 = (m2 / (1 + k) * k).applyfunc(sp.cancel)
        return m1, m2, syms

    monkeypatch.setattr(TD, "circle_means", unequal_by_k)
    assert circle_family_facts()["passed"] is False


def test_exchanged_endpoint_conditions_hold_exactly_at_exchanged_heads_in_three_dimensions():
    """Prop. C.4's 'for completeness' orientation, d = 3, gamma = xi, pi1 = 1/2, generic equal-norm means
    (m1 . m2 != 0): a head built by hand with V m1 = a m2, V m2 = a m1 (a = xi^2/s) and V n = x (m1 + m2) + w n
    (n = m1 x m2; V not symmetric), U = (gamma^2/s^2) V^-1, satisfies the conditions and realises f*; the
    head with the transposed conditions (V^T m1 = a m2, V^T m2 = a m1, V^T n = w n + c m2 x n) satisfies
    V m2 = a m1 and U^T dm = -dm/s but not V m1 = a m2, and does not realise f*.  In d = 2 with equal norms
    V is forced symmetric (eigenvectors m1 + m2 and m1 - m2), so only d = 3 separates V from V^T."""
    R = sp.Rational
    g = xi = R(3, 2)
    s, half = g**2 + xi**2, [R(1, 2), R(1, 2)]
    a = xi**2 / s
    m1, m2 = sp.Matrix([2, 1, 2]), sp.Matrix([2, -2, 1])  # |m1| = |m2| = 3, m1 . m2 = 4
    n = m1.cross(m2)
    basis = sp.Matrix.hstack(m1, m2, n)
    V_ok = sp.Matrix.hstack(a * m2, a * m1, R(2, 3) * (m1 + m2) + R(5, 4) * n) * basis.inv()
    V_tr = (sp.Matrix.hstack(a * m2, a * m1, R(5, 4) * n + R(3, 7) * m2.cross(n)) * basis.inv()).T
    Us, Vs = sp.Matrix(3, 3, sp.symbols("U1:10")), sp.Matrix(3, 3, sp.symbols("V1:10"))
    eqs = exchanged_endpoint_conditions(Us, Vs, m1, m2, g, xi)
    z = sp.Matrix(sp.symbols("z1:4"))
    fstar = TD.bayes_denoiser_conditioning(half, [m1, m2], g**2 * sp.eye(3), xi, z)

    def conditions_hold(V):
        at = dict(zip(list(Us) + list(Vs), list(g**2 / s**2 * V.inv()) + list(V)))
        return all(sp.simplify(e.xreplace(at)) == 0 for e in eqs)

    def residual(V):  # max |display - f*| at two rational queries, 40 digits
        e = TD.single_head_display(half, [m1, m2], s * sp.eye(3), g**2 / s**2 * V.inv(), V, z) - fstar
        qs = ([R(1, 3), R(-2, 5), R(7, 4)], [R(-3, 2), R(1, 7), R(2, 9)])
        return max(abs(sp.N(v, 40)) for q in qs for v in e.xreplace(dict(zip(z, q))))

    assert not V_ok.is_symmetric() and (V_ok * m1 - a * m2).is_zero_matrix
    assert conditions_hold(V_ok) and residual(V_ok) < R(1, 10**30)
    assert (V_tr * m2 - a * m1).is_zero_matrix and not (V_tr * m1 - a * m2).is_zero_matrix
    assert not conditions_hold(V_tr) and residual(V_tr) > R(1, 100)


def test_stated_exchanged_endpoints_in_three_dimensions_are_a_family_that_holds_the_hand_built_head():
    """In d = 3 the exchanged endpoints form a positive-dimensional family, on which SymPy's solve of the
    Groebner basis returns [] (the solutions were lost, silently).  The solved family must be non-empty,
    hold the hand-built non-symmetric head of the test above, and each solution must solve the system."""
    R = sp.Rational
    g = xi = R(3, 2)
    s = g**2 + xi**2
    a = xi**2 / s
    m1, m2 = sp.Matrix([2, 1, 2]), sp.Matrix([2, -2, 1])
    n = m1.cross(m2)
    V_ok = sp.Matrix.hstack(a * m2, a * m1, R(2, 3) * (m1 + m2) + R(5, 4) * n) * sp.Matrix.hstack(m1, m2, n).inv()
    Us, Vs = sp.Matrix(3, 3, sp.symbols("U1:10")), sp.Matrix(3, 3, sp.symbols("V1:10"))
    sols = stated_single_heads(Us, Vs, m1, m2, g, xi, R(1, 2))["exchanged endpoints"]
    assert sols
    at = dict(zip(list(Vs), list(V_ok)))
    U_ok = g**2 / s**2 * V_ok.inv()
    held = [sol for sol in sols
            if all(sp.simplify(sol.get(v, v).xreplace(at) - at[v]) == 0 for v in Vs)
            and all(sp.simplify(sol.get(u, u).xreplace(at) - w) == 0 for u, w in zip(Us, U_ok))]
    assert held


def test_solve_polynomial_system_never_returns_an_unchecked_or_silently_empty_answer(monkeypatch):
    """[] only for an inconsistent system; a consistent one SymPy cannot solve, or a wrong solution, raises."""
    x, y = sp.symbols("x y")
    assert solve_polynomial_system([x**2 + 1, x - 1], [x]) == []
    assert solve_polynomial_system([x - 1], [x, y]) == [{x: 1}]
    monkeypatch.setattr(sp, "solve", lambda *a, **k: [])
    with pytest.raises(ArithmeticError, match="no solution"):  # a consistent system never solves to []
        solve_polynomial_system([x - 1], [x])
    monkeypatch.setattr(sp, "solve", lambda *a, **k: [{x: 2}])
    with pytest.raises(ArithmeticError, match="does not solve"):  # an unchecked solution is never returned
        solve_polynomial_system([x - 1], [x])
