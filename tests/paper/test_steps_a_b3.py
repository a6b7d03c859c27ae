"""Displayed steps of App. A.1 and B.1-B.3 (issue 27): every derivation is proven from the
definitions, its perturbation is refuted, a misprint is refuted, and one step claim runs end to end."""
import pytest
import sympy as sp

import softmix
from softmix.theory import steps_a_b3 as T
from softmix.theory.steps_common import perturbed


@pytest.mark.parametrize("build, d", [(T.a1_steps, 2), (T.b1_steps, 2), (T.b2_steps, 2), (T.b3_steps, 1)])
def test_each_display_is_proven_and_its_perturbation_refuted(build, d):
    for der in build(d):
        assert der.decide(seed=1)[0] == "proven", der.name
        assert perturbed(der).decide(seed=1)[0] == "refuted", der.name


def test_b1_8_as_printed_exp_ztUtz_is_refuted():
    """B.1#8 prints the integrand exp(z^T U^T z) (no prime): a constant, not the denominator."""
    der = next(x for x in T.b1_steps(1) if x.name.startswith("B.1#8"))
    # the printed integrand integrates to exp(z^T U^T z) (mu is a probability measure)
    x1, y = sp.Symbol("x_1", real=True), sp.Symbol("y", real=True)
    printed = sp.exp(sp.Symbol("U11_11", real=True) * x1**2 + sp.Symbol("u12_1", real=True) * x1 * y
                     + sp.Symbol("u21_1", real=True) * x1 * y + sp.Symbol("u22", real=True) * y**2)
    assert softmix.Derivation("printed", "", der.derived, printed).decide(seed=2)[0] == "refuted"


def test_step_claim_verified_with_its_control_refuted():
    r = softmix.run_claim("steps-lemma-b.3", seed=5)
    assert r["verdict"] == "verified"
    assert [c["verdict"] for c in r["negative_controls"]] == ["refuted"]


class _Ctx:
    def stream(self, *purpose):
        import numpy as np
        return np.random.default_rng([4, len(purpose[0])])


def test_bayes_risk_is_below_drawn_predictors_and_the_tightening_is_refuted():
    from softmix.checks.paper.steps_a_b3 import bayes_risk_rows
    assert all(r["passed"] for r in bayes_risk_rows(_Ctx(), False))
    assert all(r["passed"] is False for r in bayes_risk_rows(_Ctx(), True))
