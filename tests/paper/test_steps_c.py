"""Displayed steps of Sec. 4.2 and App. C (issue 27): derivations proven and perturbations
refuted; the head at U = S^-1 without equal norms does not reproduce the posterior weights."""
import pytest

import softmix
from softmix.theory import steps_c as T
from softmix.theory.denoising import circle_means
from softmix.theory.steps_common import perturbed


@pytest.mark.parametrize("build", [T.c1_steps, T.c3_steps, T.c7_steps])
def test_each_display_is_proven_and_its_perturbation_refuted(build):
    for der in build(2):
        assert der.decide(seed=1)[0] == "proven", der.name
        assert perturbed(der).decide(seed=1)[0] == "refuted", der.name


def test_head_at_inverse_S_needs_equal_norms(monkeypatch):
    """4.2#3 with unequal norms (m2 scaled by 1 + k) is refuted: the offsets no longer cancel."""
    unequal = lambda d, kind="generic": circle_means(d, "unequal")
    monkeypatch.setattr(T, "circle_means", unequal)
    der = T.sec42_steps(2)[0]
    assert der.decide(seed=4)[0] == "refuted"


def test_step_claim_verified_with_its_control_refuted():
    r = softmix.run_claim("steps-prop-c.1", seed=5)
    assert r["verdict"] == "confirmed"  # numeric displays: at most confirmed
    assert [c["verdict"] for c in r["negative_controls"]] == ["refuted"]


class _Ctx:
    def __init__(self, seed):
        self.seed = seed

    def stream(self, *purpose):
        import numpy as np
        return np.random.default_rng([self.seed, len(purpose[0])])


def test_probabilistic_steps_hold_and_their_perturbations_are_refuted():
    from softmix.checks.paper.steps_c_rows import bayes_rows, c7_rows, orthogonality_rows
    for fn in (bayes_rows, c7_rows, orthogonality_rows):
        assert all(r["passed"] for r in fn(_Ctx(3), False)), fn.__name__
        assert all(r["passed"] is False for r in fn(_Ctx(3), True)), fn.__name__

