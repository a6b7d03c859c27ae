"""theory.beyond's Gaussian-integral lemmas (claim fp-query-averaged-rate): known answers on the
lemma's own domain, computed by hand and by mpmath quadrature (not by the derivation's code)."""
import mpmath as mpm
import sympy as sp

from softmix.theory import beyond as TB


def test_exp_moment_lemma_is_stated_for_t_below_one_half_and_has_the_quadrature_value():
    """E exp(t X^2) = (1 - 2t)^(-1/2) holds for t = 1/2 - s < 1/2 only (the expectation is +oo for
    t >= 1/2): the parameter s must be declared positive, which makes both sides positive (E of a
    positive variable); at t = 1/4 the value is sqrt(2) by hand and by quadrature."""
    d = TB.gauss_exp_quadratic_1d_derivation()
    (s,) = d.derived.free_symbols | d.stated.free_symbols
    assert s.is_positive is True  # the lemma's domain t < 1/2, as its hypothesis "s = 1/2 - t > 0" says
    assert d.derived.is_positive is True and d.stated.is_positive is True
    quad = mpm.quad(lambda x: mpm.exp(x**2 / 4 - x**2 / 2), [-mpm.inf, mpm.inf]) / mpm.sqrt(2 * mpm.pi)
    for side in (d.derived, d.stated):
        val = side.subs(s, sp.Rational(1, 4))  # t = 1/4
        assert sp.simplify(val - sp.sqrt(2)) == 0
        assert abs(mpm.mpf(sp.N(val, 30)) - quad) < mpm.mpf(10) ** -12
