"""A negative control is a named perturbation of the statement, and only that.

A control whose false statement drifts into another false statement is still refuted, so the claim's verdict
cannot see the drift (survivors theory/lda.py:114 and :138 of the library run on acffd0d).  What pins a
control's exact form is where its perturbation vanishes: a transpose control coincides with the statement on
symmetric matrices, a dropped factor of 2 where the term it multiplies is zero -- and differs elsewhere.
Both sides are evaluated at drawn rational points, at 40 digits.
"""
import random

import sympy as sp

from softmix.theory import lda as T
from softmix.theory.mixtures import matrix_symbols, vector_symbols

D = 2


def _point(symbols, rnd, symmetric_pairs=(), zero=()):
    """Rational values for ``symbols``: entries of each pair equal, those in ``zero`` zero, pi_p in (0, 1);
    small, so no sigma saturates."""
    vals = {s: sp.Rational(rnd.randint(-3, 3) or 1, rnd.randint(2, 5)) for s in symbols}
    for s in symbols:
        if s.name == "pi_p":
            vals[s] = sp.Rational(rnd.randint(1, 8), 9)
    for a, b in symmetric_pairs:
        vals[b] = vals[a]
    for s in zero:
        vals[s] = 0
    return vals


def _gap(control, stated, vals) -> float:
    diff = sp.Matrix([control - stated]).xreplace(vals)
    return max(abs(float(sp.N(e, 40))) for e in diff)


def _pairs(M):
    return [(M[i, j], M[j, i]) for i in range(M.rows) for j in range(i + 1, M.cols)]


def _free(*exprs):
    return sorted(set().union(*(sp.Matrix([e]).free_symbols for e in exprs)), key=str)


def test_f_theta_transpose_controls_vanish_exactly_on_a_symmetric_U11():
    rnd = random.Random(20261205)
    m1, m_1, G, pi_p = T.problem_symbols(D)
    theta = T.theta_symbols(D)
    x = vector_symbols("x", D)
    stated = T.f_theta_expr(theta, m1, m_1, G, pi_p, x)
    for variant in ("transposed-s", "transposed-w"):
        control = T.f_theta_expr(theta, m1, m_1, G, pi_p, x, variant=variant)
        syms = _free(control, stated)
        for _ in range(3):
            assert _gap(control, stated, _point(syms, rnd, _pairs(theta[0]))) < 1e-30, variant
        assert max(_gap(control, stated, _point(syms, rnd)) for _ in range(3)) > 1e-3, variant


def test_lemma_b1_controls_vanish_exactly_where_their_perturbation_does():
    rnd = random.Random(20261206)
    m1, m_1, G, pi_p = T.problem_symbols(D)
    U11, u12, v21, v22 = T.theta_symbols(D)
    u21, u22 = vector_symbols("u21", D), sp.Symbol("u22", real=True)
    th = (U11, u12, u21, u22, matrix_symbols("V11", D), vector_symbols("v12", D), v21, v22)
    x, y = vector_symbols("x", D), sp.Symbol("y", real=True)
    stated = T.lemma_b1_stated(th, m1, m_1, G, pi_p, x, y)
    for variant, vanish in (("untransposed-U11", {"symmetric_pairs": _pairs(U11)}),
                            ("dropped-2", {"zero": list(u12) + [u22]})):
        control = T.lemma_b1_stated(th, m1, m_1, G, pi_p, x, y, variant=variant)
        syms = _free(control, stated)
        for _ in range(3):
            assert _gap(control, stated, _point(syms, rnd, **vanish)) < 1e-30, variant
        assert max(_gap(control, stated, _point(syms, rnd)) for _ in range(3)) > 1e-3, variant
