"""False statements of each kind, for tests/engine/test_statement_kinds.py: each must be refuted (a rate the data
cannot settle is inconclusive), and the automatic controls of each must still be refuted."""
import mpmath as mp
import sympy as sp

import softmix


def _square_of_sum(x, y):
    return (x + y) ** 2


def _sum_of_squares(x, y):
    """(x + y)^2 = x^2 + y^2 (false: the cross term is missing)"""
    return x**2 + y**2


softmix.identity_claim("false-identity", derived=_square_of_sum, stated=_sum_of_squares, symbols="x y")

softmix.constant_claim("false-constant", value=lambda: mp.pi**2 / 6 + mp.mpf(10) ** -20,
                       reference=lambda: mp.nsum(lambda k: 1 / k**2, [1, mp.inf]), digits=30)

softmix.bound_claim("false-bound", lhs=lambda x, m: m.exp(x), rhs=lambda x, m: 1 + x + x**2 / 2,
                    over={"x": ("-1", "1")}, certify=True)


def _squared_mean(rng, L, n):
    """the squared mean of L standard Gaussian tokens (its mean is 1/L)"""
    return rng.standard_normal((n, L)).mean(axis=1) ** 2


softmix.rate_claim("false-rate", simulate=_squared_mean, lengths=[50, 200, 800], replicates=4000, rate=-0.5)
softmix.rate_claim("undecided-rate", simulate=_squared_mean, lengths=[50, 200, 800], replicates=30, rate=-1.0,
                   margin=0.05)


def _quadratic_descent(x):
    """dx/dt = -grad f, f = (x1 - 1)^2 / 2 + 2 (x2 + 1/2)^2"""
    return [-(x[0] - 1), -4 * (x[1] + sp.Rational(1, 2))]


softmix.flow_claim("false-flow-point", field=_quadratic_descent, point=[1, "1/2"], rate=1)
softmix.flow_claim("false-flow-rate", field=_quadratic_descent, point=[1, "-1/2"], rate=4)
