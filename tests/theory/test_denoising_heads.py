"""theory.denoising_heads: single heads derived from T = f* (Props. C.3, C.4), exactly."""
from __future__ import annotations

import sympy as sp

from softmix.theory import denoising as TD
from softmix.theory.denoising_heads import (
    circle_family_facts,
    derived_single_heads,
    exp_groups,
    identity_solutions,
    positive_gamma_roots,
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
