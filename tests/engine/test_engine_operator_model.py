"""Known answers for "is a counterexample inside the statement's model?" (checks/operator_model.py).

``model_violations`` lists why a numeric mixture is outside the model: weights not in (0, 1) (only
when there are several components: a one-component mixture has weight 1), weights not summing to
one, a covariance not symmetric PSD (a shared covariance judged once), a declared assumption broken,
the covariance structure not met.  ``model_point`` draws a point of the symbolic family that is in
the model.  Each case below is built by hand with the exact list of reasons it must give.
"""
import random

import pytest
import sympy as sp

from softmix.checks.assumptions import Assumption, resolve
from softmix.checks.operator_model import model_point, model_violations
from softmix.theory.mixtures import SymbolicMixture, symbolic_mixture

R = sp.Rational


def mix(weights, covs, means=None, D=None):
    D = D or sp.Matrix(covs[0]).rows
    means = means or [[k + 1] + [0] * (D - 1) for k in range(len(weights))]
    return SymbolicMixture([sp.sympify(w) for w in weights], [sp.Matrix(m) for m in means],
                           [sp.Matrix(G) for G in covs])


I2 = [[1, 0], [0, 1]]
G2 = [[2, R(1, 2)], [R(1, 2), 1]]


def test_one_component_of_weight_one_is_inside_the_model():
    assert model_violations(mix([1], [[[3]]])) == []
    assert model_violations(mix([1], [I2])) == []
    assert model_violations(mix([1], [[[0, 0], [0, 0]]])) == []  # a point mass: PSD, singular


def test_one_component_of_another_weight_only_fails_the_sum():
    assert model_violations(mix([R(1, 2)], [I2])) == ["weights sum to 1/2, not 1"]


def test_a_generic_two_component_mixture_is_inside_the_model():
    assert model_violations(mix([R(1, 3), R(2, 3)], [I2, G2])) == []
    assert model_violations(mix([R(1, 3), R(2, 3)], [[[0, 0], [0, 1]], G2])) == []  # singular but PSD


def test_weights_outside_the_open_interval_but_summing_to_one():
    assert model_violations(mix([R(3, 2), R(-1, 2)], [I2, G2])) == ["weights 3/2, -1/2 not all in (0, 1)"]
    assert model_violations(mix([0, 1], [I2, G2])) == ["weights 0, 1 not all in (0, 1)"]  # a weight 0
    assert model_violations(mix([R(1, 2), R(1, 2), 0], [I2, G2, I2])) == ["weights 1/2, 1/2, 0 not all in (0, 1)"]


def test_a_weight_of_exactly_one_beside_others_is_outside():
    assert model_violations(mix([1, R(1, 2)], [I2, G2])) == ["weights 1, 1/2 not all in (0, 1)",
                                                             "weights sum to 3/2, not 1"]


def test_weights_in_the_interval_not_summing_to_one():
    assert model_violations(mix([R(1, 2), R(1, 4)], [I2, G2])) == ["weights sum to 3/4, not 1"]
    assert model_violations(mix([R(1, 2), R(3, 4)], [I2, G2])) == ["weights sum to 5/4, not 1"]
    # floats are read exactly (nsimplify): 0.25 + 0.75 is one
    assert model_violations(mix([0.25, 0.75], [I2, G2])) == []


def test_a_covariance_not_psd_or_not_symmetric_is_named_by_its_component():
    indefinite = [[1, 2], [2, 1]]  # eigenvalues 3, -1
    assert model_violations(mix([R(1, 3), R(2, 3)], [I2, indefinite])) == [
        "covariance 2 is not symmetric positive semidefinite"]
    assert model_violations(mix([R(1, 3), R(2, 3)], [indefinite, I2])) == [
        "covariance 1 is not symmetric positive semidefinite"]
    asymmetric = [[2, 1], [0, 2]]  # positive definite quadratic form, but not symmetric
    assert model_violations(mix([R(1, 3), R(2, 3)], [I2, asymmetric])) == [
        "covariance 2 is not symmetric positive semidefinite"]
    assert model_violations(mix([R(1, 2), R(1, 2)], [[[-1]], [[2]]])) == [
        "covariance 1 is not symmetric positive semidefinite"]


def test_a_shared_covariance_is_judged_once_and_distinct_ones_each():
    bad = [[1, 2], [2, 1]]
    assert model_violations(mix([R(1, 3), R(2, 3)], [bad, bad])) == [
        "covariance 1 is not symmetric positive semidefinite"]
    other = [[1, 3], [3, 1]]
    assert model_violations(mix([R(1, 3), R(2, 3)], [bad, other])) == [
        "covariance 1 is not symmetric positive semidefinite", "covariance 2 is not symmetric positive semidefinite"]


def test_all_reasons_together_in_order():
    out = model_violations(mix([R(3, 2), R(1, 2)], [I2, [[0, 1], [1, 0]]]))
    assert out == ["weights 3/2, 1/2 not all in (0, 1)", "weights sum to 2, not 1",
                   "covariance 2 is not symmetric positive semidefinite"]


def test_declared_assumptions_and_structure():
    m = mix([R(1, 3), R(2, 3)], [I2, G2], means=[[1, 0], [0, 2]])
    eq = resolve("equal-norms")
    assert model_violations(m, [eq]) == [f"breaks the assumption equal-norms ({eq.text})"]
    assert model_violations(mix([R(1, 3), R(2, 3)], [I2, G2], means=[[1, 0], [0, 1]]), [eq]) == []
    # the covariance structure: shared, isotropic, diagonal (general: no structure check)
    assert model_violations(m, structure="general") == []
    assert model_violations(m, structure="shared") == [
        f"breaks the assumption shared-covariance ({resolve('shared-covariance').text})"]
    assert model_violations(m, structure="isotropic") == [
        f"breaks the assumption isotropic ({resolve('isotropic').text})"]
    assert model_violations(m, structure="diagonal") == [
        f"breaks the assumption diagonal ({resolve('diagonal').text})"]
    iso = mix([R(1, 3), R(2, 3)], [I2, [[2, 0], [0, 2]]])
    assert model_violations(iso, structure="isotropic") == [] and model_violations(iso, structure="diagonal") == []
    assert model_violations(iso, structure="shared-isotropic") == [
        f"breaks the assumption shared-isotropic ({resolve('shared-isotropic').text})"]
    assert model_violations(mix([R(1, 3), R(2, 3)], [I2, I2]), structure="shared-isotropic") == []


def test_a_user_predicate_false_breaks_one_raising_does_not():
    m = mix([R(1, 3), R(2, 3)], [I2, G2])
    no = Assumption("never", "never holds", holds_for=lambda mx: False)

    def boom(mx):
        raise ValueError("cannot read this mixture")

    raising = Assumption("raising", "raises", holds_for=boom)
    assert model_violations(m, [no]) == ["breaks the assumption never (never holds)"]
    assert model_violations(m, [raising]) == []
    assert model_violations(m, [raising, no]) == ["breaks the assumption never (never holds)"]


@pytest.mark.parametrize("K,D,shared", [(1, 1, False), (2, 2, False), (3, 2, True), (2, 3, False)])
def test_model_point_is_inside_the_model(K, D, shared):
    """Weights normalised to sum to one, covariances L L^T + I/2 (positive definite), every other
    symbol a non-zero rational, positive when the symbol is."""
    fam = symbolic_mixture(K, D, shared=shared)
    extra = sp.symbols("a b", positive=True) + (sp.Symbol("c", real=True),)
    for seed in range(20):
        pt = model_point(random.Random(seed), fam, extra)
        at = SymbolicMixture([w.xreplace(pt) for w in fam.weights], [m.xreplace(pt) for m in fam.means],
                             [G.xreplace(pt) for G in fam.covariances])
        assert sum(at.weights) == 1 and all(w > 0 for w in at.weights)
        for G in at.covariances:
            assert G == G.T and G.is_positive_definite
            assert (G - sp.eye(D) / 2).is_positive_semidefinite  # L L^T + I/2: eigenvalues at least 1/2
        assert all(pt[s] > 0 for s in extra if s.is_positive) and all(pt[s] != 0 for s in extra)
        assert model_violations(at) == []
    # a weight fixed by the family is kept, the others share what is left
    fixed = SymbolicMixture([sp.Symbol("p", positive=True), R(1, 4)], fam.means[:2] if K >= 2 else fam.means * 2,
                            [sp.eye(D), sp.eye(D)])
    pt = model_point(random.Random(0), fixed, ())
    assert pt[sp.Symbol("p", positive=True)] == R(3, 4)


def test_model_point_draws_other_symbols_on_the_documented_grid():
    """n / q with 1 <= |n| <= 9 and 2 <= q <= 7: the values lie in [1/7, 9/2] in absolute value and reach both
    ends; a real symbol takes both signs."""
    fam = symbolic_mixture(1, 1)
    a, c = sp.Symbol("a", positive=True), sp.Symbol("c", real=True)
    vals = [model_point(random.Random(seed), fam, (a, c)) for seed in range(400)]
    A, C = [v[a] for v in vals], [v[c] for v in vals]
    assert min(A) == R(1, 7) and max(A) == R(9, 2)
    assert min(C) == -R(9, 2) and max(C) == R(9, 2) and min(abs(x) for x in C) == R(1, 7)


# ---- survivors of the recorded engine run (seed 2084884) ------------------------------------------------
class _D:
    """A derivation-like pair: ``derived`` and ``difference()`` (derived - stated) in symbol x."""

    def __init__(self, derived, difference):
        self.derived, self._diff = derived, difference

    def difference(self):
        return self._diff

    def free_symbols(self):
        return sp.sympify(self.derived).free_symbols | sp.sympify(self._diff).free_symbols


def test_residual_is_relative_to_the_derived_scale_at_the_papers_tolerance():
    """A difference refutes above 10^(5 - digits) x max(1, |derived|): 1e-20 against a derived value of 1e6 at
    30 digits is inside the tolerance (1e-19), 1e-18 is not; against a derived value of 1, 1e-20 refutes."""
    from softmix.checks.operator_model import _residual

    x = sp.Symbol("x")
    big = _D(10 ** 6 * x, sp.Float("1e-20") * x)
    assert not _residual(big, {x: 1}, 30)
    assert _residual(_D(10 ** 6 * x, sp.Float("1e-18") * x), {x: 1}, 30)
    assert _residual(_D(x, sp.Float("1e-24") * x), {x: 1}, 30)  # 1e-24 > 1e-25 x 1
    assert not _residual(_D(x, sp.Float("9e-26") * x), {x: 1}, 30)
    assert not _residual(_D(x, sp.Float("1e-26") * x), {x: 1}, 30)  # below 10^-25 (not 9^-25)


def test_a_refutation_outside_the_model_with_no_point_evaluable_inside_stays_refuted():
    """When every model point fails to evaluate (here: the difference divides by zero there), nothing was
    checked inside the model, so the outside refutation is kept: not 'unproven'."""
    from softmix.checks.operator_model import classify_refutations

    w = sp.Symbol("w")
    m = mix([w, 1 - w], [I2, G2])
    d = _D(w, 1 / (w - w))  # zoo everywhere: no point evaluates
    row = {"status": "refuted", "counterexample": {"w": "3/2"}}  # weights 3/2, -1/2: outside the model
    assert classify_refutations([row], [(d, m)], (), None, seed=1) is True
    assert row["status"] == "refuted" and row["inside_model"] is False


def test_no_refuted_row_means_no_refutation_remains():
    """Rows that are proven (or have no counterexample to judge) leave nothing refuted: False, rows untouched."""
    from softmix.checks.operator_model import classify_refutations

    x = sp.Symbol("x")
    m = mix([sp.Rational(1, 3), sp.Rational(2, 3)], [I2, G2])
    rows = [{"status": "proven"}, {"status": "refuted", "counterexample": None}]
    assert classify_refutations([], [], (), None, seed=1) is False
    assert classify_refutations(rows, [(_D(x, x), m)] * 2, (), None, seed=1) is False
    assert rows == [{"status": "proven"}, {"status": "refuted", "counterexample": None}]


def test_a_refutation_only_outside_the_model_is_unproven_and_counts_the_points_checked_inside():
    """pi_1 + pi_2 - 1 is non-zero at the algebraic point (1, 1) and zero wherever the weights sum to one: the
    refutation is classified as outside the model, 'unproven', with the number of model points at which
    the two sides agreed (kills operator_model.py:133 of the engine run on b2ba873, the count left at 0,
    which kept the outside refutation)."""
    import re

    from softmix.checks.operator_model import classify_refutations

    w, v = sp.symbols("w v")
    m = mix([w, v], [I2, G2])
    row = {"status": "refuted", "counterexample": {"w": "1", "v": "1"}}
    assert classify_refutations([row], [(_D(w, w + v - 1), m)], (), None, seed=1) is False
    assert row["status"] == "unproven" and row["inside_model"] is False
    n = int(re.search(r"at (\d+) random points inside it", row["note"]).group(1))
    assert n == 6  # the default ``tries``: every model point evaluates here
    assert "sum to" in row["outside_model_reason"]


def test_a_refutation_first_found_outside_the_model_is_moved_inside_and_says_why():
    """w - 1/3 is non-zero at (w, v) = (3/2, -1/2) (outside the model) and at almost every model point:
    the counterexample is replaced by a model point, and the note names what the first one broke."""
    from softmix.checks.operator_model import classify_refutations

    w, v = sp.symbols("w v")
    m = mix([w, v], [I2, G2])
    row = {"status": "refuted", "counterexample": {"w": "3/2", "v": "-1/2"}}
    assert classify_refutations([row], [(_D(w, w - sp.Rational(1, 3)), m)], (), None, seed=1) is True
    assert row["inside_model"] is True and row["status"] == "refuted"
    wx = sp.Rational(row["counterexample"]["w"])
    assert 0 < wx < 1 and wx != sp.Rational(1, 3)
    assert row["note"].startswith("the first refuting point was outside the model (") and "weight" in row["note"]


# ---- survivors of the recorded engine run on 2026d72 ---------------------------------------------------------
def test_a_moved_counterexample_note_ends_by_saying_the_new_point_is_inside():
    """operator_model.py:142: the note names what the first point broke and ends '; this one is inside'."""
    from softmix.checks.operator_model import classify_refutations

    w, v = sp.symbols("w v")
    m = mix([w, v], [I2, G2])
    row = {"status": "refuted", "counterexample": {"w": "3/2", "v": "-1/2"}}
    assert classify_refutations([row], [(_D(w, w - sp.Rational(1, 3)), m)], (), None, seed=1) is True
    assert row["note"].startswith("the first refuting point was outside the model (")
    assert row["note"].endswith("); this one is inside")


def test_model_points_refute_at_the_default_30_digits_floor():
    """operator_model.py:108: by default the model points are judged at 30 digits, so a relative difference of
    9e-26 x w (w < 1) is below the floor 10^(5 - 30) = 1e-25 at every model point: the outside refutation
    becomes 'unproven'.  At 31 digits (floor 1e-26) the same difference refutes inside the model."""
    from softmix.checks.operator_model import classify_refutations

    w, v = sp.symbols("w v")
    m = mix([w, v], [I2, G2])

    def row():
        return {"status": "refuted", "counterexample": {"w": "3/2", "v": "-1/2"}}

    d = _D(w, sp.Rational(9, 10**26) * w)
    r30 = row()
    assert classify_refutations([r30], [(d, m)], (), None, seed=1) is False and r30["status"] == "unproven"
    r31 = row()
    assert classify_refutations([r31], [(d, m)], (), None, seed=1, digits=31) is True and r31["inside_model"]


def test_a_refutation_inside_the_model_is_kept_as_it_is():
    """operator_model.py:124-127 (run by no test before): a refuting point that is a mixture of the model keeps
    its counterexample, is labelled inside the model, and a refutation remains."""
    from softmix.checks.operator_model import classify_refutations

    w, v = sp.symbols("w v")
    m = mix([w, v], [I2, G2])
    row = {"status": "refuted", "counterexample": {"w": "1/4", "v": "3/4"}}
    assert classify_refutations([row], [(_D(w, w - sp.Rational(1, 3)), m)], (), None, seed=1) is True
    assert row == {"status": "refuted", "counterexample": {"w": "1/4", "v": "3/4"}, "inside_model": True}
