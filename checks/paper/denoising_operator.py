"""Section 4 / App. C displays about one head on mu_Z, written as operator statements -- the language a user
states a proposition in (:func:`softmix.operator_claim`): the stated map is the display as printed, the family
is the setting of Section 4 (two components, one isotropic covariance S = s I, equal norms), and softmix derives
T_{U,V}[mu_Z] itself from the cumulant generating function, never from this code.  Each assumption gets the
control that drops it: without equal norms the attention gate misses the posterior's offsets -||m_k||^2 / (2 s),
so ``without:equal-norms`` must be refuted.

* ``prop-4.4-head`` -- App. C.8, first display (proof of Prop. 4.4): U1 = S^-1, V1 = a I, a = xi^2 / s;
* ``thm-4.1-balanced-head`` -- App. C.2 (proof of Thm. 4.1): at gamma^2 = xi^2, S = 2 xi^2 I, U = S^-1 and
  V = I / 2 give f*(z) = z / 2 + sum_k beta_k(z) m_k / 2.
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from ..operator import operator_claim
from .denoising_setting import SECTION, SOURCE

__all__ = ["posterior_barycentre", "c8_first_head", "c2_balanced_head"]

_SETTING: dict[str, Any] = dict(components=2, dim=2, covariance="shared-isotropic", assume=("equal-norms",),
                                section=SECTION)


def posterior_barycentre(mix, z):
    """sum_k beta_k(z) m_k, beta_k(z) = pi_k exp(-||z - m_k||^2 / (2 s)) / sum_j (...): the posterior component
    probabilities of z under mu_Z = sum_k pi_k N(m_k, s I) (s = ``mix.variances[0]``)."""
    s = mix.variances[0]
    e = [p * sp.exp(-((z - m).T * (z - m))[0] / (2 * s)) for p, m in zip(mix.weights, mix.means)]
    return sum((ek / sum(e) * m for ek, m in zip(e, mix.means)), sp.zeros(mix.dim, 1))


def c8_first_head(mix, U, V, z, xi):
    """T_{S^-1, a I}[mu_Z](z) = a z + a sum_k beta_k(z) m_k, beta_k the posterior ~ pi_k exp(-||z - m_k||^2 / (2 s)), S = s I, a = xi^2 / s"""  # noqa: E501 (the statement: one line)
    return xi**2 / mix.variances[0] * (z + posterior_barycentre(mix, z))


def c2_balanced_head(mix, U, V, z):
    """T_{S^-1, I/2}[mu_Z](z) = z / 2 + (1/2) sum_k beta_k(z) m_k = f*(z) at gamma^2 = xi^2 (S = 2 xi^2 I = s I)"""
    return (z + posterior_barycentre(mix, z)) / 2


operator_claim("prop-4.4-head", c8_first_head, symbols="xi", U=lambda mix, xi: sp.eye(mix.dim) / mix.variances[0],
               V=lambda mix, xi: xi**2 / mix.variances[0] * sp.eye(mix.dim), **_SETTING,
               source=f"{SOURCE}, Prop. 4.4, App. C.8 first display",
               title="Prop. 4.4's first head on mu_Z: a z + a times the posterior barycentre (Prop. 2.1, equal norms)")
operator_claim("thm-4.1-balanced-head", c2_balanced_head, U=lambda mix: sp.eye(mix.dim) / mix.variances[0],
               V=lambda mix: sp.eye(mix.dim) / 2, **_SETTING,
               source=f"{SOURCE}, Thm. 4.1, App. C.2 display (gamma^2 = xi^2)",
               title="Thm. 4.1 at gamma^2 = xi^2: one head U = S^-1, V = I/2 is the Bayes denoiser (equal norms)")
