"""lemma-b.16's proof steps (theory.lda_appendix.lemma_b16_derivations) and its wrong-combination control:
the sides are compared with hand computations and with the float f_theta of numerics.lda (eqs. (6)-(7)),
not with the derivation code."""
import math

import numpy as np
import sympy as sp

from softmix.numerics import lda as N
from softmix.theory import lda_appendix as TA


def _syms(der, *names):
    by_name = {s.name: s for s in sp.Matrix([der.derived, der.stated]).free_symbols}
    return [by_name[n] for n in names]


def test_v21_block_step_and_its_wrong_combination_control():
    """Step (1): with d_b = 2 d_r, m_-1 d_b + (m1 - m_-1) d_r = (m1 + m_-1) d_r (by hand); the control's
    stated side is exactly the documented wrong reduction (m1 - m_-1) d_r, off by -2 m_-1 d_r."""
    true, wrong = TA.lemma_b16_derivations(2)[0], TA.lemma_b16_derivations(2, "wrong-combination")[0]
    dr, mp1, mp2, mm1, mm2 = _syms(true, "d_r", "mp_1", "mp_2", "mm_1", "mm_2")
    m1, m_1 = sp.Matrix([mp1, mp2]), sp.Matrix([mm1, mm2])
    for der in (true, wrong):
        assert (der.derived - (m1 + m_1) * dr).applyfunc(sp.expand).is_zero_matrix
    assert (true.stated - (m1 + m_1) * dr).applyfunc(sp.expand).is_zero_matrix
    assert (wrong.stated - (m1 - m_1) * dr).applyfunc(sp.expand).is_zero_matrix
    assert true.decide(seed=1)[0] == "proven" and wrong.decide(seed=1)[0] == "refuted"


def test_second_step_is_about_the_residual_sigma_f_minus_eta():
    """Step (2), (sigma(f) - eta) f = v22 (2 e sigma(z) - e), e = sigma(f) - eta, at v21 = 0: at a generic
    point (no zero entry, f far from 0) both sides equal (sigma(f) - eta) f with f from
    numerics.lda.f_theta_batch; eta enters (the step is E[(sigma(f) - eta) f], the d_b R~ residual, not
    E[sigma(f) f])."""
    der = TA.lemma_b16_derivations(2)[1]
    m1, m_1, x, u12 = np.array([1.5, -0.5]), np.array([-1.0, 0.25]), np.array([1.0, -1.5]), np.array([0.5, -0.75])
    G = np.array([[2.0, 0.5], [0.5, 1.0]])
    U11, v22, pi, eta = np.array([[-1.0, 1 / 3], [2 / 3, -0.5]]), 0.7, 0.3, 0.8
    P = N.LDAProblem.from_params({"m1": m1.tolist(), "m_1": m_1.tolist(), "Gamma": G.tolist(), "pi_plus": pi})
    f = float(N.f_theta_batch(P, N.pack_theta(U11, u12, [0.0, 0.0], v22), x[None, :])[0])
    expected = (1 / (1 + math.exp(-f)) - eta) * f
    names = {"pi_p": pi, "eta": eta, "v22": v22, "G_1_1": G[0, 0], "G_1_2": G[0, 1], "G_2_2": G[1, 1]}
    names.update({f"{n}_{i + 1}": v[i] for n, v in (("mp", m1), ("mm", m_1), ("x", x), ("u12", u12)) for i in range(2)})
    names.update({f"U11_{i + 1}{j + 1}": U11[i, j] for i in range(2) for j in range(2)})
    free = der.derived.free_symbols | der.stated.free_symbols
    assert {s.name for s in free} <= set(names), {s.name for s in free} - set(names)
    at = {s: sp.Float(names[s.name], 30) for s in free}
    for side in (der.derived, der.stated):
        assert abs(float(side.xreplace(at)) - expected) < 1e-12
