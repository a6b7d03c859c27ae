"""Displayed steps of App. B.4 (issue 27): every derivation is proven from the definitions and its
perturbation refuted; the chain-rule steps fail for a wrong loss derivative."""
import pytest
import sympy as sp

import softmix
from softmix.theory import steps_b4 as T
from softmix.theory.steps_common import perturbed


@pytest.mark.parametrize("build", [T.b4_lemma_b6_steps, lambda: T.b4_chain_rule_steps(1),
                                   lambda: T.b4_saddle_steps(2)])
def test_each_display_is_proven_and_its_perturbation_refuted(build):
    for der in build():
        assert der.decide(seed=1)[0] == "proven", der.name
        assert perturbed(der).decide(seed=1)[0] == "refuted", der.name


def test_lemma_b6_chain_with_phi_in_place_of_Phi_is_refuted():
    """B.4#2: the last line with phi(mu/sigma) and Phi(mu/sigma) exchanged is refuted."""
    der = T.b4_lemma_b6_steps()[0]
    mu, s = sp.Symbol("mu", real=True), sp.Symbol("sigma", positive=True)
    phi = sp.exp(-(mu / s)**2 / 2) / sp.sqrt(2 * sp.pi)
    Phi = (1 + sp.erf(mu / s / sp.sqrt(2))) / 2
    wrong = sp.Matrix(list(der.stated[:3]) + [mu * phi + s * Phi])
    assert softmix.Derivation("swapped", "", der.derived, wrong).decide(seed=2)[0] == "refuted"


def test_prop_b12_claim_verified_with_its_control_refuted():
    r = softmix.run_claim("steps-lemma-b.16", seed=5)
    assert r["verdict"] == "verified"
    assert [c["verdict"] for c in r["negative_controls"]] == ["refuted"]
