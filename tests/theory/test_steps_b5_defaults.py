"""softmix.theory.steps_b5: a builder called without a dimension derives in the claims' d = 2 (the step claims
steps-lemma-3.2, steps-lemma-b.22 and steps-prop-3.4 pass d=2; a default no claim reads is pinned here)."""
import pytest
import sympy as sp

from softmix.theory import steps_b5 as T


def _key(ders):
    return [(d.name, sp.srepr(d.derived), sp.srepr(d.stated)) for d in ders]


@pytest.mark.parametrize("build", [T.b53_steps, T.b54_steps, T.b55_steps])
def test_default_dimension_is_two(build):
    assert _key(build()) == _key(build(2))
