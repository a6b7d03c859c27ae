"""Operator statements written with the statement language (covariance=, symbols=, U=, V=, assume=),
true and false, for tests/engine/test_operator_language.py.  The Prop. 4 statements themselves live in
examples/smart_2025_prop4.py; here is the variant with the gate at sigma0^2 (false) and statements
of our own."""

import sympy as sp

import softmix


def _gates(scores):
    e = [sp.exp(s) for s in scores]
    return [x / sum(e) for x in e]


# ---- Smart et al. Prop. 4 with the gate at sigma0^2 instead of s (false) ------------------------------
def _prop4(mix, z, sigma_Z, gate):
    v = mix.variances[0]
    s = v + sigma_Z**2
    g = gate(v, s)
    w = _gates([sp.log(p) + (m.T * z)[0] / g - (m.T * m)[0] / (2 * g) for p, m in zip(mix.weights, mix.means)])
    post = v / s * z + sigma_Z**2 / s * sum((a * m for a, m in zip(w, mix.means)), sp.zeros(mix.dim, 1))
    return post - v**2 / s**2 * z


def prop4_gate_at_sigma0(mix, U, V, z, sigma_Z):
    """Prop. 4 with the posterior gate at sigma0^2: w_a ~ pi_a exp(mu_a^T z / sigma0^2 - |mu_a|^2 / (2 sigma0^2))"""
    return _prop4(mix, z, sigma_Z, lambda v, s: v)


PROP4 = dict(components=3, dim=2, covariance="shared-isotropic", symbols="sigma_Z",
             U=lambda mix, sigma_Z: sp.eye(mix.dim) / (mix.variances[0] + sigma_Z**2),
             V=lambda mix, sigma_Z: sigma_Z**2 / (mix.variances[0] + sigma_Z**2) * sp.eye(mix.dim),
             assume=("equal-norms",))
softmix.operator_claim("prop4-gate-at-sigma0", prop4_gate_at_sigma0, **PROP4,
                       source="Prop. 4, gate at sigma0^2 (false)")


# ---- isotropic covariances, one per component: the quadratic term stays in the gate ---------------
def isotropic_gated(mix, U, V, z):
    """T = V sum_k alpha_k (m_k + v_k U z), alpha ~ pi_k exp(m_k^T U z + v_k |U z|^2 / 2)"""
    a = U * z
    al = _gates([sp.log(p) + (m.T * a)[0] + v * (a.T * a)[0] / 2
                 for p, m, v in zip(mix.weights, mix.means, mix.variances)])
    return V * sum((w * (m + v * a) for w, m, v in zip(al, mix.means, mix.variances)), sp.zeros(mix.dim, 1))


def isotropic_cancelled(mix, U, V, z):
    """(false) as if the quadratic term cancelled: alpha ~ pi_k exp(m_k^T U z)"""
    a = U * z
    al = _gates([sp.log(p) + (m.T * a)[0] for p, m in zip(mix.weights, mix.means)])
    return V * sum((w * (m + v * a) for w, m, v in zip(al, mix.means, mix.variances)), sp.zeros(mix.dim, 1))


softmix.operator_claim("iso-gated", isotropic_gated, components=2, dim=2, covariance="isotropic")
softmix.operator_claim("iso-cancelled", isotropic_cancelled, components=2, dim=2, covariance="isotropic")


# ---- two antipodal components with one shared covariance: a tanh gate ------------------------------
def antipodal_tanh(mix, U, V, z):
    """T = V G U z + V tanh(m_1^T U z + log(pi_1/pi_2)/2) m_1   (m_2 = -m_1, G_k = G)"""
    a = U * z
    m1, G = mix.means[0], mix.covariances[0]
    t = sp.tanh((m1.T * a)[0] + sp.log(mix.weights[0] / mix.weights[1]) / 2)
    return V * G * a + V * t * m1


softmix.operator_claim("antipodal-tanh-unneeded", antipodal_tanh, components=2, dim=2,  # equal weights not needed
                       covariance="shared", assume=("antipodal", "equal-weights"))


# ---- a statement true on the model but not as a polynomial identity in the weights ----------------
def complement_weight(mix, U, V, z):
    """eq. (3) with pi_2 written as 1 - pi_1 (true for mixtures: the weights sum to one)"""
    a = U * z
    p1, p2 = mix.weights[0], 1 - mix.weights[0]
    al = _gates([sp.log(p1) + (mix.means[0].T * a)[0], sp.log(p2) + (mix.means[1].T * a)[0]])
    return V * mix.covariances[0] * a + V * (al[0] * mix.means[0] + al[1] * mix.means[1])


softmix.operator_claim("complement-weight", complement_weight, components=2, dim=1, covariance="shared")
