"""Displayed steps of Sec. 4.2 and Appendix C (display ledger): the denoising proofs, one
claim per proof.  Derivations: :mod:`softmix.theory.steps_c`; the probabilistic steps (Bayes' formula, total
expectation, the law of large numbers, orthogonality) by the numeric rows of :mod:`.steps_c_rows`."""
from __future__ import annotations

from softmix.theory import steps_c as T

from .steps_c_rows import C1_CHECKS, C7_CHECKS, C8_CHECKS, bayes_rows, c7_rows, orthogonality_rows
from .steps_common import step_claim

__all__: list = []

_SEC = "denoising"
step_claim("steps-sec-4.2", "Sec. 4.2: a head at U = S^-1 reproduces the gate and reads V z + V sum beta_k m_k",
           "Sec. 4.2 (before Thm 4.1)", T.sec42_steps, section=_SEC, d=2)
step_claim("steps-prop-c.1", "Proof of Prop. C.1: the conditional mean rewritten with I - Gamma S^-1 = xi^2 S^-1",
           "App. C.1", T.c1_steps, section=_SEC, d=2,
           numeric=bayes_rows, checks=C1_CHECKS)
step_claim("steps-prop-c.3", "Proof of Prop. C.3 (Gamma = 0): the head on mu_Z and the two-head construction",
           "App. C.3", T.c3_steps, section=_SEC, d=2)
step_claim("steps-prop-4.3", "Proof of Prop. 4.3: f* as c + delta tanh and the recursion on the segment",
           "App. C.4", T.c4_steps, section=_SEC, d=2)
step_claim("steps-prop-c.4", "Proof of Prop. C.4: the single head with Gamma = gamma^2 I", "App. C.5", T.c5_steps,
           section=_SEC, d=2)
step_claim("steps-prop-c.5", "Proof of Prop. C.5: the value matrices of the two-head construction", "App. C.6",
           T.c6_steps, section=_SEC, d=3)
step_claim("steps-thm-4.1-gap", "Thm 4.1, strict gap (App. C.7): the risk of a linear map and the excess of A*",
           "App. C.7", T.c7_steps, section=_SEC, d=2, numeric=c7_rows, checks=C7_CHECKS, findings=[
               {"kind": "typo", "where": "App. C.7, display C.7 #5", "detail": "|A|_F printed for ||A||_F"}])
step_claim("steps-prop-4.4", "Proof of Prop. 4.4: the two heads U1 = S^-1, V1 = a I and U2 = V2 = 0", "App. C.8",
           T.c8_steps, section=_SEC, d=2, numeric=orthogonality_rows, checks=C8_CHECKS)
