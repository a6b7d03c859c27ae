"""The configurations the Section 3 landscape and dynamics claims are decided on, beside the paper's C1, C2.

Fixed extra configurations (a non-isotropic Gamma with pi_+ != 1/2, d = 1, d = 3, Remark B.5's witness,
symmetric balanced ones with a proper Krylov space), and the draws of configurations from the run's
seed for claims written with ``@softmix.claim(..., configurations=softmix.Draws(...))``: each takes
``(rng, p, i)`` with ``p`` the claim's parameter dataclass (its LDA problem in the field ``lda``).
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from softmix.numerics import lda as N, lda_dynamics as D
from softmix.numerics.lda_flow_references import random_rotation

from .lda import draw_lda, draw_lda_symmetric

__all__ = ["CFG_ANISO", "CFG_1D", "CFG_3D", "CFG_WITNESS", "CFG_SYMBAL", "DIAG3", "ROT3", "cayley4", "problems",
           "draw_generic", "draw_symmetric", "draw_symmetric_balanced", "draw_krylov",
           "symmetric_balanced_violations"]

#: non-isotropic Gamma, pi_+ != 1/2
CFG_ANISO = {"m1": [1, 0], "m_1": [0, 1], "Gamma": [[2, "0.5"], ["0.5", 1]], "pi_plus": "0.3"}
#: d = 1
CFG_1D = {"m1": [1], "m_1": ["-0.5"], "Gamma": [[2]], "pi_plus": "0.3"}
#: d = 3, every entry of Gamma's upper band non-zero
CFG_3D = {"m1": [1, "0.5", 0], "m_1": [0, -1, "0.5"], "Gamma": [[2, "0.3", 0], ["0.3", 1, "0.2"], [0, "0.2", "0.5"]],
          "pi_plus": "0.45"}
#: Remark B.5 witness: q = m1^T G^-1 m1 - m_-1^T G^-1 m_-1 = -3 != 0
CFG_WITNESS = {"m1": [1, 0], "m_1": [0, 2], "Gamma": [[1, 0], [0, 1]], "pi_plus": "0.6"}
#: generic symmetric balanced configuration (non-isotropic Gamma, unequal entries), Sections B.9-B.12
CFG_SYMBAL = {"m1": [1, "0.5"], "m_1": [-1, "-0.5"], "Gamma": [[2, "0.5"], ["0.5", 1]], "pi_plus": "0.5"}
#: non-isotropic symmetric balanced configurations (d = 3)
DIAG3 = {"m1": [1, 1, 0], "m_1": [-1, -1, 0], "Gamma": [[1, 0, 0], [0, 2, 0], [0, 0, 3]], "pi_plus": "0.5"}
ROT3 = {"m1": [1, 0, 0], "m_1": [-1, 0, 0], "Gamma": [[2, 1, 1], [1, 2, 1], [1, 1, 2]], "pi_plus": "0.5"}


def cayley4() -> dict:
    """d = 4, Gamma = Q diag(1,2,3,4) Q^T, m = Q (1,1,0,0)^T with a rational Cayley Q: dim K = 2, K not
    aligned with the axes (so out-of-T_K components are not structurally zero in floating point)."""
    A = sp.Matrix([[0, 1, -2, 1], [-1, 0, 1, 3], [2, -1, 0, 1], [-1, -3, -1, 0]]) / 3
    Q = D.cayley_orthogonal(A)
    G = Q * sp.diag(1, 2, 3, 4) * Q.T
    m = Q * sp.Matrix([1, 1, 0, 0])
    s = lambda x: str(sp.nsimplify(x))
    return {"m1": [s(x) for x in m], "m_1": [s(-x) for x in m],
            "Gamma": [[s(G[i, j]) for j in range(4)] for i in range(4)],
            "pi_plus": "0.5"}


def problems(lda: dict, extra=()) -> list:
    """The LDA problems of ``lda`` and of each configuration in ``extra``, duplicates removed (in order)."""
    out, seen = [], set()
    for c in [lda] + list(extra):
        P = N.LDAProblem.from_params(c)
        if repr(P) not in seen:
            seen.add(repr(P))
            out.append(P)
    return out


def symmetric_balanced_violations(P) -> list:
    """Which of the symmetric balanced setting's conditions (m_-1 = -m1, pi_+ = 1/2) ``P`` breaks."""
    return [name for name, ok in (("m1 = -m_-1", P.symmetric), ("pi_+ = 1/2", P.balanced)) if not ok]


def draw_generic(rng, p, i) -> dict:
    """A generic LDA problem (checks.paper.lda.draw_lda: pi_+ away from 1/2, unequal-norm means,
    non-isotropic Gamma) in the dimension of ``p.lda``."""
    return draw_lda(rng, {"lda": p.lda}, i)


def draw_symmetric(rng, p, i) -> dict:
    """A generic problem within m_-1 = -m1 (checks.paper.lda.draw_lda_symmetric), d <= 3."""
    return draw_lda_symmetric(rng, {"lda": p.lda}, i)


def draw_symmetric_balanced(rng, p, i) -> dict:
    """A generic problem within m_-1 = -m1, pi_+ = 1/2 (checks.paper.lda.draw_lda_symmetric), d <= 3."""
    return draw_lda_symmetric(rng, {"lda": p.lda}, i, balanced=True)


def draw_krylov(rng, p, i, d: int = 3) -> dict:
    """A symmetric balanced problem with a proper Krylov space, generic within the assumptions of
    Lemmas B.34, B.37 and Thm 3.6 (m_-1 = -m1, pi_+ = 1/2, K != R^d): Gamma = Q diag(lam) Q^T with d
    distinct eigenvalues drawn from {1, 3/2, ..., 4} and a random rational Cayley rotation Q, m = Q c
    with exactly one zero entry of c (the others +-1 or +-1/2), so dim K = d - 1 exactly (Prop. B.35).
    A parameter ``extra`` (the fixed extra configurations) is switched off for the drawn one."""
    for _ in range(1000):
        lam = [sp.Rational(int(x), 2) for x in rng.choice(np.arange(2, 9), size=d, replace=False)]
        c = [sp.Rational(int(rng.choice([1, 2])), 2) * (1 if rng.random() < 0.5 else -1) for _ in range(d)]
        c[int(rng.integers(0, d))] = 0
        Q = random_rotation(rng, d)
        G = (Q * sp.diag(*lam) * Q.T).applyfunc(sp.cancel)  # exact rationals
        m = (Q * sp.Matrix(c)).applyfunc(sp.cancel)
        if all(G[a, b] != 0 for a in range(d) for b in range(d)) and all(x != 0 for x in m):
            break
    # str(sp.Rational): sp.nsimplify "simplified" the rational 82828/24649 into a product of irrational
    # powers (seed 7777), and lemma-b.37 errored on the drawn configuration
    s = lambda x: str(sp.Rational(x))
    return {"lda": {"m1": [s(x) for x in m], "m_1": [s(-x) for x in m],
                    "Gamma": [[s(G[a, b]) for b in range(d)] for a in range(d)], "pi_plus": "0.5"},
            **({"extra": False} if hasattr(p, "extra") else {})}
