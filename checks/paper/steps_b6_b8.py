"""Displayed steps of Appendix B.6-B.8 (display ledger): the second-order chain rule of
Prop. B.29, the Morse-Bott flow of Thm 3.5 (App. B.7) and the branch E2 of Prop. B.31, one claim
per proof.  Derivations: :mod:`softmix.theory.steps_b6_b8`, :mod:`softmix.theory.steps_b7`; the estimates of B.7 along
generic instances of the chart flow by the numeric rows of :mod:`.steps_b7_rows`."""
from __future__ import annotations

from softmix.theory import steps_b6_b8 as T, steps_b7 as T7

from .steps_b6_rows import B6_CHECKS, b6_rows
from .steps_b7_rows import B7_CHECKS, b7_rows
from .steps_common import step_claim

__all__: list = []

step_claim("steps-prop-b.29", "Proof of Prop. B.29: the second-order chain rule for R = R~ o Phi at a critical point",
           "App. B.6, Prop. B.29", T.b6_steps, d=2,
           numeric=b6_rows, checks=B6_CHECKS)
step_claim("steps-thm-3.5", "Proof of Thm 3.5: the flow in Morse-Bott coordinates and the tangential estimate",
           "App. B.7, Thm 3.5", T7.b7_steps, d=2,
           numeric=b7_rows, checks=B7_CHECKS)
step_claim("steps-prop-b.31", "Proof of Prop. B.31: the branch E2, its tangent line and the Hessian's quadratic form",
           "App. B.8, Prop. B.31", T.b8_steps, d=2, findings=[
               {"kind": "typo", "where": "proof of Prop. B.31, display B.8 #8",
                "detail": "E printed for the expectation"}])
