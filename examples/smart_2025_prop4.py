"""Smart, Bietti & Sengupta (2025), Prop. 4, stated as written.

Run:  softmix verify --plugin examples/smart_2025_prop4.py smart-2025-prop4 smart-2025-prop4-displayed-gate

Setting: X ~ sum_a pi_a N(mu_a, sigma0^2 I) (one isotropic covariance shared by the components,
softmix's ``covariance="shared-isotropic"``, with v = sigma0^2 = ``mix.variances[0]``), a noisy
query X~ = X + sigma_Z Z with Z ~ N(0, I), and s = sigma0^2 + sigma_Z^2.  The head with
U = I / s and V = (sigma_Z^2 / s) I maps the clean distribution p_X to

    T_{U,V}[p_X](z) = E[X | X~ = z] - (sigma0^4 / s^2) z            (centres of equal norms)

where the Bayes posterior mean is sigma0^2 / s z + sigma_Z^2 / s sum_a w_a(z) mu_a with
w_a(z) proportional to pi_a exp(mu_a^T z / s - ||mu_a||^2 / (2 s)).

* ``smart-2025-prop4`` states it with the posterior's gate (its offsets -||mu_a||^2 / (2 s)
  included) under ``assume=("equal-norms",)``: the offsets are equal only when the norms are, so
  the equal-norms-dropped control ``without:equal-norms`` is refuted -- the assumption is needed.
* ``smart-2025-prop4-displayed-gate`` states it with the gate as Prop. 4 displays it
  (w_a proportional to pi_a exp(mu_a^T z / s), no offsets).  That identity holds for every
  mixture of the model, equal norms or not: the control ``without:equal-norms`` is not refuted,
  and softmix reports a finding of kind ``scope`` (equal norms are not needed for this statement)
  without failing the run.

softmix never runs this code to compute the reference: it differentiates the cumulant generating
function of the (equal-norm, shared-isotropic) family and integrates definition (1) by quadrature.
"""
import sympy as sp

import softmix


def _posterior_mean_head(mix, z, sigma_Z, offsets: bool, gate_variance=None):
    """E[X | X~ = z] - (sigma0^4 / s^2) z with the gate at ``gate_variance`` (default s)."""
    v = mix.variances[0]  # sigma0^2
    s = v + sigma_Z**2
    g = s if gate_variance is None else gate_variance(v, sigma_Z)
    scores = [sp.log(p) + (m.T * z)[0] / g - ((m.T * m)[0] / (2 * g) if offsets else 0)
              for p, m in zip(mix.weights, mix.means)]
    e = [sp.exp(x) for x in scores]
    w = [x / sum(e) for x in e]
    posterior = v / s * z + sigma_Z**2 / s * sum((wa * m for wa, m in zip(w, mix.means)), sp.zeros(mix.dim, 1))
    return posterior - v**2 / s**2 * z


def posterior_with_offsets(mix, U, V, z, sigma_Z):
    """T_{I/s, (sigma_Z^2/s) I}[p_X](z) = E[X | X + sigma_Z Z = z] - (sigma0^4/s^2) z, w_a ~ pi_a exp(mu_a^T z/s - |mu_a|^2/(2s))"""  # noqa: E501 (the statement: one line)
    return _posterior_mean_head(mix, z, sigma_Z, offsets=True)


def posterior_displayed_gate(mix, U, V, z, sigma_Z):
    """T_{I/s, (sigma_Z^2/s) I}[p_X](z) = sigma0^2 sigma_Z^2/s^2 z + sigma_Z^2/s sum_a w_a mu_a, w_a ~ pi_a exp(mu_a^T z/s)"""  # noqa: E501 (the statement: one line)
    return _posterior_mean_head(mix, z, sigma_Z, offsets=False)


def U_prop4(mix, sigma_Z):
    """U = I / s, s = sigma0^2 + sigma_Z^2"""
    return sp.eye(mix.dim) / (mix.variances[0] + sigma_Z**2)


def V_prop4(mix, sigma_Z):
    """V = (sigma_Z^2 / s) I"""
    return sigma_Z**2 / (mix.variances[0] + sigma_Z**2) * sp.eye(mix.dim)


PROP4 = dict(components=3, dim=2, covariance="shared-isotropic", symbols="sigma_Z", U=U_prop4, V=V_prop4,
             assume=("equal-norms",), source="Smart, Bietti & Sengupta (2025), Prop. 4")

softmix.operator_claim("smart-2025-prop4", posterior_with_offsets, **PROP4,
                       title="Prop. 4: the head I/s, (sigma_Z^2/s) I is the posterior mean minus (sigma0^4/s^2) z")
softmix.operator_claim("smart-2025-prop4-displayed-gate", posterior_displayed_gate, **PROP4,
                       title="Prop. 4 with the displayed gate (no offsets): equal norms are not needed")
