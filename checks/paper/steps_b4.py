"""Displayed steps of Appendix B.4 (display ledger): the proofs of Lemma B.6, Lemma B.9,
Lemma B.11, Prop. B.12 and Lemma B.16, one claim per proof.  Derivations:
:mod:`softmix.theory.steps_b4`."""
from __future__ import annotations

from softmix.theory import steps_b4 as T

from .steps_common import step_claim

__all__: list = []


def _named(build, *prefixes):
    return lambda d: [x for x in build(d) if x.name.startswith(prefixes)]


step_claim("steps-lemma-b.6", "Proof of Lemma B.6: the five lines computing E[X_+] for a Gaussian X",
           "App. B.4, Lemma B.6", lambda d: T.b4_lemma_b6_steps(), d=1)
step_claim("steps-lemma-b.9", "Proof of Lemma B.9: grad of the integrand l(y, g_zeta(x)) by the chain rule",
           "App. B.4, Lemma B.9", _named(T.b4_chain_rule_steps, "B.4#12"), d=2)
step_claim("steps-lemma-b.11", "Proof of Lemma B.11: first and second variations of the integrand",
           "App. B.4, Lemma B.11", _named(T.b4_chain_rule_steps, "B.4#22", "B.4#23"), d=2)
step_claim("steps-prop-b.12", "Proof of Prop. B.12: the Hessian of the effective risk at a Bayes point and its kernel",
           "App. B.4, Prop. B.12",
           lambda d: _named(T.b4_chain_rule_steps, "B.4#31")(d) + T.b4_bayes_point_steps(d), d=2)
step_claim("steps-lemma-b.16", "Proof of Lemma B.16: the criticality combinations at a saddle with v21 = 0",
           "App. B.4, Lemma B.16", T.b4_saddle_steps, d=2)
