"""Displayed steps of Appendix A.1 and B.1-B.3 (display ledger, issue 27): the proofs of
Prop. 2.1, Lemma B.1, Lemma B.3, Lemma B.4 and Remark B.5, one claim per proof.  Derivations:
:mod:`softmix.theory.steps_a_b3`."""
from __future__ import annotations

from softmix.theory import steps_a_b3 as T

from .steps_common import step_claim

__all__: list = []


def _only(build, prefix):
    return lambda d: [x for x in build(d) if x.name.startswith(prefix)]


step_claim("steps-prop-2.1", "Proof of Prop. 2.1: (1) as a ratio of expectations, the mixture MGF and its derivative",
           "App. A.1", lambda d: T.a1_steps(d), section="attention")
step_claim("steps-lemma-b.1", "Proof of Lemma B.1: block expansion, denominator and numerator on the LDA token law",
           "App. B.1", lambda d: T.b1_steps(d), findings=[
               {"kind": "typo", "where": "proof of Lemma B.1, display B.1 #8",
                "detail": "the integrand is printed exp(z^T U^T z) instead of exp(z^T U^T z'); read literally the left "
                          "side is a constant",
                "counterexample": "d = 1, U = 0 except u22 = 1, z = (0, 1), pi_+ = 1/2: printed e, denominator cosh 1"},
               {"kind": "typo", "where": "proof of Lemma B.1, after display B.1 #10",
                "detail": "'in the last inequality' should read 'in the last equality'"}])
step_claim("steps-lemma-b.3", "Proof of Lemma B.3: the gate and f_theta under (C), balanced and symmetric cases",
           "App. B.2", lambda d: T.b2_steps(d))
step_claim("steps-lemma-b.4", "Proof of Lemma B.4: conditioning on X and the pointwise minimiser of g_X",
           "App. B.3", lambda d: [x for x in T.b3_steps(d) if not x.name.startswith("B.3#5")], d=1)
step_claim("steps-remark-b.5", "Remark B.5: the square-loss target E[Y | X] = 2 eta - 1", "App. B.3, Remark B.5",
           _only(T.b3_steps, "B.3#5"), d=1)
