"""Known answers for the mixture views of the assumption machinery (checks/assumption_views.py).

A view reads the slot it names and a break is written back into that slot in the style of the value
it replaces: decimal strings stay strings, floats floats, NumPy arrays arrays; instances
(GaussianMixture, SymbolicMixture, NumPy or nested lists) are read component by component.  Moved
out of test_engine_assumptions_known.py, which keeps the breaks themselves.
"""
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from softmix.checks.assumption_views import MixtureView, assign, number, view_of
from softmix.checks.assumptions import (
    Centred,
    Diagonal,
    DistinctMeans,
    EqualNorms,
    EqualWeights,
    Isotropic,
    SharedCovariance,
    SharedIsotropic,
    Singular,
)
from softmix.numerics.mixture import GaussianMixture

from .test_engine_assumptions_known import exact, smix

# ---- views: the slot read is the slot written ---------------------------------------------------------
W3 = ["1/5", "3/10", "1/2"]
M3 = [[3, 1], [-2, 2], [0, 5]]
C3 = [[[2, 1], [1, 3]], [[1, 0], [0, 4]], [[5, 2], [2, 1]]]  # distinct, two not diagonal


@pytest.mark.parametrize("form", ["GaussianMixture", "SymbolicMixture", "numpy", "nested lists"])
def test_a_mixture_instance_is_read_component_by_component(form):
    """``MixtureView.of_mixture`` reads each covariance entry (i, j) of each component whether the
    covariances are tuples of tuples, SymPy or numpy matrices, or nested lists."""
    if form == "GaussianMixture":
        mix = GaussianMixture.from_values(W3, M3, C3)
    elif form == "SymbolicMixture":
        mix = smix(W3, M3, C3)
    else:
        covs = [np.array(G, dtype=float) for G in C3] if form == "numpy" else C3
        mix = SimpleNamespace(weights=W3, means=M3, covariances=covs)
    view = MixtureView.of_mixture(mix)
    assert view.weights == exact(W3) and view.means == exact(M3) and view.covs == exact(C3)


def test_holds_for_on_an_instance_agrees_with_holds_on_its_values():
    mix = GaussianMixture.from_values(W3, M3, [[[2, 0], [0, 2]]] * 3)
    values = {"mix": {"weights": W3, "means": M3, "covariances": [[[2, 0], [0, 2]]] * 3}}
    for cls in (EqualNorms, Centred, EqualWeights, SharedCovariance, SharedIsotropic, Isotropic, Diagonal,
                Singular, DistinctMeans):
        assert cls().holds_for(mix) == cls("mix").holds(values), cls.NAME
    assert SharedIsotropic().holds_for(mix) is True and EqualNorms().holds_for(mix) is False
    assert Diagonal().holds_for(GaussianMixture.from_values(W3, M3, C3)) is False


def test_view_of_reads_each_kind_from_its_shape_and_remembers_the_slot():
    values = {"S": [[2, 1], [1, 3]], "covs": C3[1:], "w": W3, "m": [1, 2], "ms": M3[1:], "p": "0.4"}
    v = view_of(values, ("S", "covs"), ("covariances",))  # one matrix, then a list of matrices
    assert v.covs == exact(C3) and v.cov_slots == [("S", None), ("covs", 0), ("covs", 1)]
    v = view_of(values, ("m", "ms"), ("means",))
    assert v.means == exact([[1, 2]] + M3[1:]) and v.mean_slots == [("m", None), ("ms", 0), ("ms", 1)]
    v = view_of(values, ("w", "ms"), ("weights", "means"))
    assert v.weights == exact(W3) and v.means == exact(M3[1:])
    v = view_of(values, ("p",), ("weights",))  # a proportion: weights p, 1 - p; only p has a slot
    assert v.weights == [Fraction(2, 5), Fraction(3, 5)] and v.weight_slots == [("p", "proportion"), None]
    with pytest.raises(TypeError, match="does not hold covariances"):
        view_of({"x": [1, 2]}, ("x",), ("covariances",))
    # a string that is not a number is no number: the field is named, not read as a weight
    with pytest.raises(TypeError, match=r"field 'w' does not hold weights \(got abc\)"):
        view_of({"w": "abc"}, ("w",), ("weights",))


@pytest.mark.parametrize("old,new,want", [
    (3, Fraction(6), 6), (3, Fraction(9, 2), 4.5), (-2, Fraction(-1, 4), -0.25), (0.5, Fraction(3), 3.0),
    ("0.6", Fraction(9, 10), "9/10"), (Fraction(1, 3), Fraction(1, 2), Fraction(1, 2))])
def test_assign_writes_in_the_style_of_the_old_value(old, new, want):
    """Module docstring: a decimal string stays a string, a float a float; an int stays an int when
    the new value is an integer and becomes a float otherwise (never truncated)."""
    values = {"outer": {"v": [old, old], "x": old}}
    assign(values, ("outer.v", 1), new)
    assign(values, ("outer.x", None), new)
    for got in (values["outer"]["v"][1], values["outer"]["x"]):
        assert got == want and type(got) is type(want)
    assert values["outer"]["v"][0] == old  # the other slot untouched


def test_number_reads_numpy_floats_as_the_decimals_they_print():
    assert number(np.float64(0.6)) == Fraction(3, 5) and number(np.int64(-3)) == -3 and number(0.1) == Fraction(1, 10)


def test_numpy_array_fields_are_read_and_written_back_as_arrays():
    v = {"means": np.array([[1.0, 2.0], [1.0, 2.0]]), "covs": np.array([[[2.0, 0.0], [0.0, 1.0]]] * 2)}
    assert EqualNorms("means").holds(v) is True and Diagonal("covs").holds(v) is True
    for a in (EqualNorms("means"), Diagonal("covs"), SharedCovariance("covs")):
        cands = a.violate(v, None)
        assert cands
        for over in cands:
            assert all(isinstance(x, np.ndarray) for x in over.values())
            assert a.holds({**v, **over}) is False


def test_view_reads_weights_and_covariances_by_depth():
    w, S0, S1 = ["1/4", "3/4"], [["1", "0"], ["0", "2"]], [["3", "1"], ["1", "3"]]
    view = view_of({"w": w, "S": [S0, S1]}, ("w", "S"), ("weights", "covariances"))
    assert view.weights == [Fraction(1, 4), Fraction(3, 4)] and view.cov_slots == [("S", 0), ("S", 1)]
    assert view.covs == [[[1, 0], [0, 2]], [[3, 1], [1, 3]]]
    view = view_of({"w": w, "S0": S0, "S1": S1}, ("w", "S0", "S1"), ("weights", "covariances"))
    assert view.weight_slots == [("w", 0), ("w", 1)] and view.cov_slots == [("S0", None), ("S1", None)]


def test_a_field_of_the_wrong_shape_is_named_with_its_first_60_characters():
    v = [[[[i, i + 1]] for i in range(40)]]
    with pytest.raises(TypeError) as e:
        view_of({"m": v}, ("m",), ("means",))
    assert str(e.value) == f"field 'm' does not hold means (got {str(v)[:60]})"


def test_a_whole_numpy_field_is_written_back_as_an_array_of_the_new_values():
    """A vector field held as a NumPy array (its slot is the whole field): the break is written as an array
    holding the new values, of floats."""
    v = {"m1": np.array([3.0, 4.0]), "m2": np.array([0.0, 5.0])}
    a = EqualNorms("m1", "m2")
    assert a.holds(v) is True
    cands = a.violate(v, None)
    assert cands
    for over in cands:
        (name,) = over
        new = over[name]
        assert isinstance(new, np.ndarray) and new.dtype.kind == "f"
        assert np.array_equal(new, 1.5 * v[name]) or np.array_equal(new, v[name] / 1.5)
        assert a.holds({**v, **over}) is False


def test_assign_over_a_sympy_matrix_writes_the_new_value_as_it_is():
    """Only NumPy arrays (``ndim`` and ``tolist``) are written back as arrays: an object with ``tolist`` alone
    (a SymPy matrix) is replaced by the new value itself."""
    values = {"m": sp.Matrix([[1, 2]])}
    assign(values, ("m", None), [Fraction(3, 2), 3])
    assert values["m"] == [Fraction(3, 2), 3] and not isinstance(values["m"], np.ndarray)


def test_a_one_component_instance_is_read_in_its_own_dimension():
    """MixtureView.of_mixture reads every covariance in the dimension of the means, with one component too."""
    g = GaussianMixture.from_json_obj({"weights": ["1"], "means": [["1", "2"]],
                                       "covariances": [[["2", "1/2"], ["1/2", "1"]]]})
    v = MixtureView.of_mixture(g)
    assert v.means == [[1, 2]] and v.covs == [[[2, Fraction(1, 2)], [Fraction(1, 2), 1]]]
    assert Diagonal().holds_for(g) is False and EqualNorms().holds_for(g) is True


def test_a_number_field_feeds_the_weights_whatever_the_order_of_the_kinds():
    """Documented (view_of): numbers -> weights, also when the assumption lists the means first; one number
    is a proportion (weights p, 1 - p)."""
    view = view_of({"p": "1/3", "m": [[1, 2], [3, -1]]}, ("p", "m"), ("means", "weights"))
    assert view.weights == [Fraction(1, 3), Fraction(2, 3)] and view.weight_slots == [("p", "proportion"), None]
    assert view.means == [[1, 2], [3, -1]] and view.mean_slots == [("m", 0), ("m", 1)]


def test_a_field_that_is_no_number_is_not_read_as_a_weight():
    """A text that parses as no number (or a missing value) has no shape (assumption_views._is_num, a branch no test
    ran): a weights view refuses it by name, where a number string is read as the proportion p, 1 - p."""
    for bad in ("abc", None):
        with pytest.raises(TypeError, match="field 'p' does not hold weights"):
            view_of({"p": bad}, ("p",), ("weights",))
    assert view_of({"p": "0.3"}, ("p",), ("weights",)).weights == [Fraction(3, 10), Fraction(7, 10)]
