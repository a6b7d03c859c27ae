"""The Section 4 setting shared by the denoising claims: the task's parameters and their draws.

X ~ pi1 N(m1, gamma^2 I) + (1 - pi1) N(m2, gamma^2 I), Z = X + N(0, xi^2 I), s = gamma^2 + xi^2
(Gabet-Boursier-Boyer 2026, Sec. 4).  :class:`TaskParams` is the parameter dataclass of every
claim about one task (defaults: the Fig. 2 configuration); :func:`draw_task` draws generic tasks
(pi1 away from 1/2, gamma != xi, unequal norms unless the statement assumes equal norms).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from softmix.numerics.denoising import DenoisingTask

from .. import configs as C
from ..params import Exact, exact_default

SOURCE = "Gabet-Boursier-Boyer 2026"
SECTION = "denoising"


@dataclass
class TaskParams:
    """One Section 4 task (the Fig. 2 configuration by default)."""
    m1: list[Exact] = field(default_factory=lambda: exact_default([3, 0]))
    m2: list[Exact] = field(default_factory=lambda: exact_default([0, 3]))
    gamma: Exact = exact_default(1)
    xi: Exact = exact_default(2)
    pi1: Exact = exact_default("1/2")

    def __post_init__(self):  # --config values: an inadmissible task is refused before any work
        from fractions import Fraction

        if Fraction(str(self.gamma)) < 0:
            raise ValueError(f"gamma must be non-negative, got {self.gamma}")
        if not 0 < Fraction(str(self.pi1)) < 1:
            raise ValueError(f"pi1 must be a proportion in (0, 1), got {self.pi1}")
        task(self)


@dataclass
class DegenerateTaskParams(TaskParams):
    """A degenerate task (Gamma = 0, Prop. C.3)."""
    gamma: Exact = exact_default(0)


def task(p: TaskParams) -> DenoisingTask:
    """The task of the parameters (input errors for an inadmissible one)."""
    return DenoisingTask.from_params({"m1": p.m1, "m2": p.m2, "gamma": p.gamma, "xi": p.xi, "pi1": p.pi1})


def sym_task(t: DenoisingTask):
    """``(m1, m2, gamma, xi, pi1)`` of ``t`` as exact SymPy objects."""
    r = lambda f: sp.Rational(f.numerator, f.denominator)
    return sp.Matrix([r(v) for v in t.m1]), sp.Matrix([r(v) for v in t.m2]), r(t.gamma), r(t.xi), r(t.pi1)


def draw_task(equal_norms: bool, gamma_zero: bool = False, dims=(2, 3), gamma_ne_xi: bool = True, **extra):
    """``draw(rng, p, i)`` of a generic task: dimension from ``dims``, pi1 away from 1/2, xi and gamma
    drawn (gamma != xi unless not required; gamma = 0 when ``gamma_zero``), unequal-norm means unless
    the statement assumes equal norms (then equal norms, m1 != +-m2 in general); ``extra`` overrides
    are added to every draw."""
    def draw(rng, p, i):
        d = int(dims[int(rng.integers(len(dims)))])
        m = C.means(rng, 2, d, equal_norms=equal_norms)
        xi = C.rational(rng, 0.6, 2.5, 1)
        g = "0" if gamma_zero else C.rational(rng, 0.4, 2.5, 1, avoid=(xi,) if gamma_ne_xi else ())
        return {"m1": m[0], "m2": m[1], "gamma": g, "xi": xi, "pi1": C.weights(rng, 2)[0], **extra}
    return draw


def violated(reason: str) -> dict:
    """A row that cannot decide: the configuration breaks an assumption of the statement."""
    return {"passed": None, "assumption_violated": reason,
            "reason": f"the configuration breaks an assumption ({reason})"}
