"""Displayed steps of Appendix B.9-B.12 (display ledger): the proofs of
Lemma B.32, Lemma B.34, Lemma B.35, Lemma B.36 and Thm 3.6 on the symmetric invariant subspace, one claim per
proof.  Derivations: :mod:`softmix.theory.steps_b9_b12`, :mod:`softmix.theory.steps_b10`; the estimates of
Lemma B.32 and along the reduced flow of Thm 3.6 (with B.9#21 of Lemma B.33's proof) by the numeric rows of
:mod:`.steps_flow_rows`."""
from __future__ import annotations

from softmix.theory import steps_b9_b12 as T, steps_b10 as T10

from .steps_common import step_claim
from .steps_flow_rows import COERCIVITY_CHECKS, FLOW_CHECKS, coercivity_rows, flow_rows

__all__: list = []


def _named(build, *prefixes):
    return lambda d: [x for x in build(d) if x.name.startswith(prefixes)]


step_claim("steps-lemma-b.32", "Proof of Lemma B.32: the logistic loss above (-yt)_+ and the Gaussian positive part",
           "App. B.9, Lemma B.32", _named(T.b9_steps, "B.9#4", "B.9#7", "B.9#8", "B.9#11"), d=2,
           numeric=coercivity_rows, checks=COERCIVITY_CHECKS)
step_claim("steps-lemma-b.34", "Proof of Lemma B.34: the linear predictor, the reduced flow and its conserved quantity",
           "App. B.9, Lemma B.34", _named(T.b9_steps, "B.9#20", "B.9#33", "B.9#36"), d=2)
step_claim("steps-lemma-b.36", "Proof of Lemma B.36: the gradients on r = s = 0", "App. B.11, Lemma B.36",
           T.b11_steps, d=2)
step_claim("steps-thm-3.6", "Proof of Thm 3.6: the flow of w, the conserved balance, the curvature bound, S'",
           "App. B.12, Thm 3.6", T.b12_steps, d=2,
           numeric=flow_rows, checks=FLOW_CHECKS)
step_claim("steps-lemma-b.35", "Proof of Lemma B.35: the Krylov space in an eigenbasis and the Vandermonde determinant",
           "App. B.10, Lemma B.35", lambda d: T10.b10_steps(d), d=3)
