"""Statements about the softmax attention operator, written as a newcomer would.

Run:  softmix verify --plugin examples/operator_statements.py ex-gated-experts ex-shared-covariance

Each ``stated(mix, U, V, z)`` returns the claimed T_{U,V}[mu](z) as a SymPy column, built from
the mixture's ``weights``, ``means`` and ``covariances``.  softmix derives the operator itself
(from the cumulant generating function) and compares.
"""
import sympy as sp

import softmix


def _gates(scores):
    den = sum(sp.exp(s) for s in scores)
    return [sp.exp(s) / den for s in scores]


def gated_experts(mix, U, V, z):
    """T(z) = V sum_k alpha_k(z) (m_k + G_k U z), alpha = softmax(log pi_k + m_k^T U z + (Uz)^T G_k U z / 2)"""
    a = U * z
    al = _gates([sp.log(p) + (m.T * a)[0] + (a.T * G * a)[0] / 2
                 for p, m, G in zip(mix.weights, mix.means, mix.covariances)])
    return V * sum((w * (m + G * a) for w, m, G in zip(al, mix.means, mix.covariances)), sp.zeros(U.rows, 1))


def shared_covariance_form(mix, U, V, z):
    """T(z) = V G U z + V sum_k beta_k(z) m_k, beta = softmax(log pi_k + m_k^T U z)  (G_k = G)"""
    a = U * z
    be = _gates([sp.log(p) + (m.T * a)[0] for p, m in zip(mix.weights, mix.means)])
    return V * mix.covariances[0] * a + V * sum((b * m for b, m in zip(be, mix.means)), sp.zeros(U.rows, 1))


softmix.operator_claim("ex-gated-experts", gated_experts, components=2, dim=2, degenerate=True,
                       title="softmax attention is a softmax-gated mixture of affine experts",
                       source="Gabet, Boursier & Boyer 2026, Prop. 2.1 eq. (2)")
softmix.operator_claim("ex-shared-covariance", shared_covariance_form, components=2, dim=2,
                       shared_covariance=True, title="with one shared covariance the quadratic offsets cancel",
                       source="Gabet, Boursier & Boyer 2026, Prop. 2.1 eq. (3)")
