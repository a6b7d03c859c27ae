"""Subtly false operator statements (and one true one in dimension 1) for tests/engine/test_api.py."""
import sympy as sp

import softmix


def _gates(scores):
    den = sum(sp.exp(s) for s in scores)
    return [sp.exp(s) / den for s in scores]


def shared_form(mix, U, V, z):
    """eq. (3) form: V G_1 U z + V sum_k softmax(log pi_k + m_k^T U z) m_k"""
    a = U * z
    be = _gates([sp.log(p) + (m.T * a)[0] for p, m in zip(mix.weights, mix.means)])
    return V * mix.covariances[0] * a + V * sum((b * m for b, m in zip(be, mix.means)), sp.zeros(U.rows, 1))


def transposed_u(mix, U, V, z):
    """eq. (2) with U^T z in place of U z"""
    a = U.T * z
    al = _gates([sp.log(p) + (m.T * a)[0] + (a.T * G * a)[0] / 2
                 for p, m, G in zip(mix.weights, mix.means, mix.covariances)])
    return V * sum((w * (m + G * a) for w, m, G in zip(al, mix.means, mix.covariances)), sp.zeros(U.rows, 1))


def wrong_prior(mix, U, V, z):
    """eq. (2) with the prior weight squared in the gate"""
    a = U * z
    al = _gates([2 * sp.log(p) + (m.T * a)[0] + (a.T * G * a)[0] / 2
                 for p, m, G in zip(mix.weights, mix.means, mix.covariances)])
    return V * sum((w * (m + G * a) for w, m, G in zip(al, mix.means, mix.covariances)), sp.zeros(U.rows, 1))


def gaussian_affine(mix, U, V, z):
    """one component: T(z) = V (m + G U z)"""
    return V * (mix.means[0] + mix.covariances[0] * U * z)


softmix.operator_claim("false-shared-form", shared_form, components=2, dim=2)
softmix.operator_claim("false-transposed-u", transposed_u, components=2, dim=2)
softmix.operator_claim("false-prior-weight", wrong_prior, components=2, dim=1)
softmix.operator_claim("true-gaussian-affine", gaussian_affine, components=1, dim=1, degenerate=True)
