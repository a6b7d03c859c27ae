"""Known answers for the assumption machinery (checks/assumptions.py, checks/assumption_views.py).

Each built-in's *break* (the change its assumption-dropped control makes) is the documented change
(docs/writing-claims.md, the catalogue table) on small mixtures with distinct, non-symmetric values
(three components, so that the first, the second and the last differ; means of unequal norms;
non-diagonal covariances), written back in the style of the value it replaces, and it breaks the
assumption; views read and write the slot they name; a predicate that cannot tell (None) means
"cannot tell" end to end, as ``Assumption.holds`` / ``holds_for`` document.
"""
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from softmix.checks.assumption_runs import BASE_FAMILY, check_values
from softmix.checks.assumptions import Assumption
from softmix.checks.operator_family import Head
from softmix.checks.operator_model import model_violations
from softmix.theory.mixtures import SymbolicMixture

R = sp.Rational


def smix(weights, means, covs):
    return SymbolicMixture([R(w) for w in weights], [sp.Matrix(m) for m in means], [sp.Matrix(G) for G in covs])


SMIX = smix(["1/5", "3/10", "1/2"], [[3, 1], [-2, 2], [0, 5]], [[[2, 1], [1, 3]], [[1, 0], [0, 4]], [[5, 2], [2, 1]]])


# ---- None is "cannot tell", end to end ---------------------------------------------------------------
def test_a_predicate_that_cannot_tell_gives_none_not_broken():
    unsure = Assumption("unsure", "cannot be read from an instance", holds=lambda v: None,
                        holds_for=lambda mix: None)
    assert unsure.holds_for(SMIX) is None
    assert unsure.holds({"x": 1}) is None
    # truthy / falsy results that are not bool are still read as True / False
    assert Assumption("a", "t", holds_for=lambda m: np.bool_(True)).holds_for(SMIX) is True
    assert Assumption("b", "t", holds_for=lambda m: 0).holds_for(SMIX) is False
    assert Assumption("c", "t", holds=lambda v: []).holds({}) is False


def test_model_violations_does_not_report_an_assumption_it_cannot_tell():
    unsure = Assumption("unsure", "cannot tell", holds_for=lambda mix: None)
    never = Assumption("never", "never holds", holds_for=lambda mix: False)
    assert model_violations(SMIX, [unsure]) == []
    assert model_violations(SMIX, [unsure, never]) == ["breaks the assumption never (never holds)"]


def test_check_values_accepts_values_an_assumption_cannot_judge():
    claim = SimpleNamespace(assumption_objects=(Assumption("unsure", "cannot tell", holds=lambda v: None),))
    check_values(claim, {"x": 1}, "--config")  # no InputError: "cannot tell" is not "breaks"
    broken = SimpleNamespace(assumption_objects=(Assumption("never", "never holds", holds=lambda v: False),))
    with pytest.raises(Exception, match="break the claim's assumption never"):
        check_values(broken, {"x": 1}, "--config")


def test_an_instance_draw_requiring_an_assumption_it_cannot_tell_succeeds():
    """``Head.draw(require=...)`` rejects only instances a required assumption *breaks*."""
    h = Head(K=2, D=2, base=dict(BASE_FAMILY))
    unsure = Assumption("unsure", "cannot tell", holds_for=lambda mix: None)
    inst = h.draw(np.random.default_rng(1), 2, h.spec(), False, require=(unsure,))
    assert len(inst.smix.weights) == 2
    never = Assumption("never", "never holds", holds_for=lambda mix: False)
    with pytest.raises(ValueError, match="satisfies never"):
        h.draw(np.random.default_rng(1), 2, h.spec(), False, require=(never,))
