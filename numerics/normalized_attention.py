"""Normalised attention with a general positive alignment kernel (the paper's Prop. A.1, App. A.2).

``T_a[mu](z) = int a(z, x) x dmu(x) / int a(z, x) dmu(x)`` for a kernel ``a > 0``.  The references
here are independent of each other: per Gaussian component in closed form (softmax and RBF
kernels; the Cauchy kernel in dimension 1 by the Voigt profile), and the whole law by tanh-sinh
quadrature in dimension 1 (any kernel).
All arguments and results are mpmath objects at the caller's working precision
(:func:`softmix.numerics.precision.workdps`).
"""
from __future__ import annotations

import mpmath as mpm

from .precision import workdps

__all__ = ["ALIGNMENTS", "alignment", "component_closed_form", "attention_tanh_sinh_1d"]

#: the kernels :func:`alignment` knows
ALIGNMENTS = ("softmax", "rbf", "cauchy")


def alignment(name: str, U, tau):
    """The kernel ``a(z, x)`` as a function of two mpmath columns: ``softmax`` exp((U z)^T x),
    ``rbf`` exp(-||z - x||^2 / (2 tau)), ``cauchy`` 1 / (1 + ||z - x||^2 / tau).

    >>> a = alignment("cauchy", mpm.eye(1), 2)
    >>> float(a(mpm.matrix([1]), mpm.matrix([3])))
    0.3333333333333333
    """
    if name == "softmax":
        return lambda z, x: mpm.exp(sum((U * z)[i] * x[i] for i in range(len(x))))
    if name == "rbf":
        return lambda z, x: mpm.exp(-sum((z[i] - x[i]) ** 2 for i in range(len(x))) / (2 * tau))
    if name == "cauchy":
        return lambda z, x: 1 / (1 + sum((z[i] - x[i]) ** 2 for i in range(len(x))) / tau)
    raise ValueError(f"unknown alignment {name!r} (known: {', '.join(ALIGNMENTS)})")


def component_closed_form(name: str, m, G, z, U, tau):
    """``(mass, T)`` for one Gaussian component N(m, G) in closed form: ``mass`` is
    int a(z, x) dN(m, G)(x) up to a factor common to all components, ``T`` = T_a[N(m, G)](z).
    softmax: (exp(a^T m + a^T G a / 2), m + G a), a = U z; rbf: the Gaussian product
    (det(G + tau I)^(-1/2) exp(-(z - m)^T (G + tau I)^(-1) (z - m) / 2), m + G (G + tau I)^(-1) (z - m));
    cauchy (dimension 1 only): the Voigt profile, with c = sqrt(tau), s = sqrt(2 G), zeta = (z - m + i c) / s
    and the Faddeeva function W = w(zeta) = exp(-zeta^2) erfc(-i zeta), (c sqrt(pi) Re W / s, z - c Im W / Re W)
    (from int N(x; m, G) / (zeta' - x) dx = -i sqrt(pi) w((zeta' - m) / s) / s for Im zeta' > 0); an atom (G = 0)
    gives (a(z, m), m).  ``G`` may be singular.

    >>> mass, T = component_closed_form("cauchy", mpm.matrix([0]), mpm.matrix([[1]]), mpm.matrix([0]), None, 1)
    >>> round(float(mass), 12), float(T[0])  # E 1/(1 + X^2) = sqrt(pi/2) e^(1/2) erfc(1/sqrt 2); T = 0 by symmetry
    (0.655679542419, 0.0)
    """
    if name == "softmax":
        a = U * z
        return mpm.exp((a.T * m)[0] + (a.T * G * a)[0] / 2), m + G * a
    if name == "cauchy":
        return _cauchy_component(m, G, z, tau)
    if name != "rbf":
        raise ValueError(f"no closed form for the alignment {name!r} (known: {', '.join(ALIGNMENTS)})")
    S = G + tau * mpm.eye(m.rows)
    Si = mpm.inverse(S)
    dz = z - m
    return mpm.det(S) ** (-mpm.mpf(1) / 2) * mpm.exp(-(dz.T * Si * dz)[0] / 2), m + G * Si * dz


def _cauchy_component(m, G, z, tau):
    if m.rows != 1:
        raise ValueError("the Cauchy kernel's closed form (the Voigt profile) is one-dimensional")
    m0, g0, z0, tau = m[0], G[0, 0], z[0], mpm.mpf(tau)
    if g0 == 0:
        return 1 / (1 + (z0 - m0) ** 2 / tau), mpm.matrix([m0])
    with workdps(mpm.mp.dps + 15):  # exp(-zeta^2) erfc(-i zeta): large factors that cancel far from the mean
        c, s = mpm.sqrt(tau), mpm.sqrt(2 * g0)
        zeta = mpm.mpc(z0 - m0, c) / s
        W = mpm.exp(-zeta ** 2) * mpm.erfc(-1j * zeta)
        mass, T = c * mpm.sqrt(mpm.pi) * W.real / s, z0 - c * W.imag / W.real
    return +mass, mpm.matrix([+T])


def attention_tanh_sinh_1d(mix, kernel, z, dps: int):
    """``(T, error)``: T_a[mu](z) in dimension 1 as one normalised integral over the whole mixture,
    mpmath.quad (tanh-sinh) on the density of each non-degenerate component plus the atom of each
    degenerate one (variance 0); ``error`` is the relative difference of the result at ``dps + 5``
    and ``dps + 15`` working digits.  ``kernel(z, x)`` takes mpmath columns (:func:`alignment`)."""
    def once(extra):
        with workdps(dps + extra):
            num = den = mpm.mpf(0)
            for wk, mk, Gk in zip(*mix.mp()):
                var = Gk[0, 0]
                if var == 0:
                    a = kernel(z, mk)
                    num, den = num + wk * a * mk[0], den + wk * a
                    continue
                dens = lambda x, mk=mk, var=var: mpm.exp(-(x - mk[0]) ** 2 / (2 * var)) / mpm.sqrt(2 * mpm.pi * var)
                g = lambda x: kernel(z, mpm.matrix([x]))
                num += wk * mpm.quad(lambda x: g(x) * x * dens(x), [-mpm.inf, mk[0], mpm.inf])
                den += wk * mpm.quad(lambda x: g(x) * dens(x), [-mpm.inf, mk[0], mpm.inf])
            return num / den
    a, b = once(5), once(15)
    with workdps(dps):
        return mpm.matrix([b]), abs(a - b) / max(1, abs(b))
