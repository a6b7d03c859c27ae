"""Known answers for the parameter machinery (checks/params.py): how a declared annotation or a default
becomes a type, and the one-line errors of a covariance that is not symmetric and of dimensions that
disagree inside one object (survivors of the engine run on f883275, seed 260584053); every branch of the value
check by a table of accepted and refused values."""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from softmix.checks import params as PR
from softmix.numerics.errors import InputError


def test_only_strings_are_number_strings():
    assert PR._is_number_string("1/3") and PR._is_number_string("-2.5e-3")
    assert not any(PR._is_number_string(x) for x in (1, 0.5, None, ["1"], {"a": "1"}, "abc"))
    # so a list or dict default is never read as a number
    assert PR.infer_type([["1", "0"], ["0", "1"]], "Gamma")[0] == "matrix"
    assert PR.infer_type({"a": "1"}, "opts") == ("dict", {"a": ("number", None)})


def test_a_non_symmetric_covariance_names_both_entries():
    with pytest.raises(InputError) as e:
        PR._check_psd([[1, 2], [3, 1]], "config 'c': G")
    assert str(e.value) == "config 'c': G: covariance is not symmetric (entry [0][1] = 2 vs [1][0] = 3)"


def test_a_covariance_and_a_vector_of_one_object_must_share_the_dimension():
    types = {"m1": ("list", ("number", None)), "Gamma": ("matrix", "covariance"), "name": ("str",)}
    PR._check_common_dimension(types, {"m1": [1, 0], "Gamma": [[1, 0], [0, 1]], "name": "x"}, "w")
    with pytest.raises(InputError, match=r"w: dimensions disagree \(m1 has dimension 2, Gamma has dimension 3\)"):
        PR._check_common_dimension(types, {"m1": [1, 0], "Gamma": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "w")
    # a matrix that is not declared a covariance is not a point of the space
    PR._check_common_dimension({"m1": types["m1"], "B": ("matrix", None)}, {"m1": [1, 0], "B": [[1, 2, 3]]}, "w")


def test_annotations_optional_unions_and_dicts():
    assert PR._from_annotation(int | None, "n", None) == ("optional", ("int", None))
    assert PR._from_annotation(int | str, "n", 1) == ("any",)  # a union of two types: not checked
    assert PR._from_annotation(dict, "opts", {"a": 1}) == ("dict", {"a": ("int", None)})
    assert PR._from_annotation(dict[str, int], "opts", None) == ("any",)
    assert PR._from_annotation(dict, "opts", "x") == ("any",)  # a dict annotation reads only a dict default


# ---- every branch of the value check, by known answers (validate_value, the one gate of --config) -------


@dataclass
class _Typed:
    n: int = 1
    x: PR.Number = 0.5
    s: PR.NonNegative = 1.0
    p: PR.Positive = 1.0
    G: PR.Covariance = field(default_factory=lambda: [[1, 0], [0, 1]])
    flag: bool = False
    label: str = "a"
    xs: list[float] = field(default_factory=lambda: [1.0])
    M: list[list[float]] = field(default_factory=lambda: [[1.0]])
    maybe: int | None = None


TYPED = SimpleNamespace(id="typed", params_type=_Typed, defaults={})
#: a claim registered the old way: types from the defaults and their names
OLD = SimpleNamespace(id="old", params_type=None,
                      defaults={"pi_plus": 0.3, "samples": 10, "seed": 0, "shift": -1, "gamma": 1,
                                "opts": {"a": 1}, "Ls": [10, 20]})

ACCEPTED = [(TYPED, "n", 2), (TYPED, "n", 2.0), (TYPED, "x", "1/3"), (TYPED, "x", -3), (TYPED, "s", 0),
            (TYPED, "p", 1e-9), (TYPED, "G", [[1, 1], [1, 1]]), (TYPED, "flag", True), (TYPED, "label", "b"),
            (TYPED, "xs", []), (TYPED, "M", [[1, 2], [3, 4]]), (TYPED, "maybe", None), (TYPED, "maybe", 3),
            (OLD, "pi_plus", "0.99"), (OLD, "samples", 1), (OLD, "seed", 0), (OLD, "shift", -5), (OLD, "gamma", 0),
            (OLD, "opts", {"a": 2}), (OLD, "Ls", [1, 5])]

REFUSED = [
    (TYPED, "n", True, "w: expected an integer, got True"),
    (TYPED, "n", 2.5, "w: expected an integer, got 2.5"),
    (TYPED, "x", [1], "w: expected a number, got [1]"),
    (TYPED, "x", None, "w: expected a number, got None"),
    (TYPED, "x", True, "w: expected a number, got True"),
    (TYPED, "s", -0.1, "w: must be non-negative (a standard deviation, variance or scale), got -0.1"),
    (TYPED, "p", 0, "w: must be positive, got 0"),
    (TYPED, "G", [[1, 0], [0, -1]], "w: covariance is not positive semidefinite (smallest eigenvalue -1)"),
    (TYPED, "G", [[1, 0]], "w: a covariance must be square, got 1x2"),
    (TYPED, "G", [[1, 0], [0]], "w: rows have different lengths (row 1 has 1, row 0 has 2)"),
    (TYPED, "M", [[]], "w: rows have different lengths (row 0 has 0, row 0 has 0)"),
    (TYPED, "M", [1, 2], "w: expected a matrix (a non-empty list of rows), got [1, 2]"),
    (TYPED, "flag", 1, "w: expected true or false, got 1"),
    (TYPED, "label", 1, "w: expected a string, got 1"),
    (TYPED, "xs", "1", "w: expected a list, got '1'"),
    (TYPED, "xs", [1, "a"], "w[1]"),
    (TYPED, "maybe", "x", "w: expected an integer, got 'x'"),
    (OLD, "pi_plus", 1, "w: must be a proportion in (0, 1), got 1"),
    (OLD, "pi_plus", 0, "w: must be a proportion in (0, 1), got 0"),
    (OLD, "samples", 0, "w: must be a positive integer (a count or a size), got 0"),
    (OLD, "seed", -1, "w: must be non-negative, got -1"),
    (OLD, "gamma", -1, "w: must be non-negative (a standard deviation, variance or scale), got -1"),
    (OLD, "opts", [1], "w: expected an object, got [1]"),
    (OLD, "opts", {"b": 1}, "w: unknown key(s) b"),
    (OLD, "opts", {"a": "x"}, "w.a: expected an integer, got 'x'"),
    (OLD, "Ls", [10, 0], "w[1]: must be a positive integer (a count or a size), got 0"),
]


@pytest.mark.parametrize("claim,name,value", ACCEPTED)
def test_values_of_the_declared_type_pass_unchanged(claim, name, value):
    assert PR.validate_value(claim, name, value, "w") is value


@pytest.mark.parametrize("claim,name,value,message", REFUSED)
def test_each_refusal_is_one_line_naming_the_value(claim, name, value, message):
    with pytest.raises(InputError) as e:
        PR.validate_value(claim, name, value, "w")
    assert str(e.value).startswith(message) and "\n" not in str(e.value), str(e.value)


def test_an_unknown_parameter_is_refused_with_the_nearest_name():
    with pytest.raises(InputError, match=r"w: claim 'typed' has no parameter 'lable'.*label"):
        PR.validate_value(TYPED, "lable", "x", "w")


def test_a_tuple_annotation_with_an_ellipsis_is_a_list_of_its_first_type():
    assert PR._from_annotation(tuple[float, ...], "t", None) == ("list", ("number", None))
    assert PR._from_annotation(list[int], "t", None) == ("list", ("int", None))
    assert PR._from_annotation(tuple, "t", None) == ("list", ("any",))


def test_a_real_parameter_arrives_rounded_once_at_50_digits_or_at_the_dataclass_dps():
    import mpmath as mpm

    @dataclass
    class R:
        r: PR.Real = "1/3"

    @dataclass
    class RD:
        r: PR.Real = "1/3"
        dps: int = 20

    with mpm.workdps(80):
        err50 = abs(PR.coerce_dataclass(R, {"r": "1/3"}).r - mpm.mpf(1) / 3)
        err20 = abs(PR.coerce_dataclass(RD, {"r": "1/3", "dps": 20}).r - mpm.mpf(1) / 3)
        assert mpm.mpf("1e-52") < err50 < mpm.mpf("1e-49") and mpm.mpf("1e-22") < err20 < mpm.mpf("1e-19")
    assert PR.REAL_DEFAULT_DPS == 50


def test_weights_given_in_pieces_are_checked_as_a_mixture_before_anything_runs():
    claim = SimpleNamespace(id="pieces", params_type=None, defaults={"weights": ["0.5", "0.5"], "means": [[0], [1]]},
                            params=lambda profile, over: None)
    PR.validate_params(claim, {"weights": ["0.25", "0.75"]}, "config 'pieces'")
    with pytest.raises(InputError, match=r"config 'pieces' \(weights, means form a mixture\)"):
        PR.validate_params(claim, {"weights": ["0.5", "0.4"]}, "config 'pieces'")


def test_mixture_pieces_without_covariances_read_the_dimension_of_the_first_mean():
    """One component given as weights and means only (no covariances): a valid mixture in R^2, checked without
    reading a second mean; a second mean of another dimension is named (kills params.py:408 of the engine run
    on b2ba873, ``means[0]`` -> ``means[1]``: an IndexError on one component)."""
    import pytest

    from softmix.checks.params import check_mixture_pieces
    from softmix.numerics.errors import InputError

    check_mixture_pieces({"weights": [1], "means": [[0, 2]]}, "x")
    check_mixture_pieces({"weights": ["1/3", "2/3"], "means": [[0, 2], [1, -1]]}, "x")
    with pytest.raises(InputError, match="form a mixture"):
        check_mixture_pieces({"weights": ["1/3", "2/3"], "means": [[0, 2], [1]]}, "x")


def test_the_semidefinite_tolerance_is_1e_12_of_the_largest_eigenvalue_and_at_least_1e_12():
    """A negative eigenvalue is refused below -1e-12 x max(1, |largest eigenvalue|): at scale 1/2 the floor 1 sets
    the tolerance (-1.5e-12 refused, -0.5e-12 accepted as rounding); at scale 100 the eigenvalue sets it."""
    PR._check_psd([[0.5, 0], [0, -0.5e-12]], "G")
    with pytest.raises(InputError, match="not positive semidefinite"):
        PR._check_psd([[0.5, 0], [0, -1.5e-12]], "G")
    PR._check_psd([[100.0, 0], [0, -50e-12]], "G")
    with pytest.raises(InputError, match="not positive semidefinite"):
        PR._check_psd([[100.0, 0], [0, -150e-12]], "G")


# ---- lines no test ran (the test map of the engine run on 2026d72) ----------------------------------------------
def test_an_annotation_with_unknown_metadata_or_an_unknown_class_falls_back_as_documented():
    """params.py:309, :334: ``Annotated[T, x]`` with metadata softmix does not know is read as ``T``; a class it
    does not know is typed from the default (``("any",)`` without one)."""
    import typing

    class Unknown:
        pass

    assert PR._from_annotation(typing.Annotated[int, "a note"], "n", 3) == ("int", None)
    assert PR._from_annotation(typing.Annotated[list[float], "a note"], "xs", None) == ("list", ("number", None))
    assert PR._from_annotation(Unknown, "x", 0.5) == PR.infer_type(0.5, "x") != ("any",)
    assert PR._from_annotation(Unknown, "x", None) == ("any",)


def test_param_checks_run_last_on_the_claim_the_merged_values_the_overrides_and_the_place(monkeypatch):
    """params.py:390: each :data:`PARAM_CHECKS` hook is called as ``fn(claim, values, overrides, where)``."""
    seen = []
    monkeypatch.setattr(PR, "PARAM_CHECKS", [lambda *a: seen.append(a)])
    claim = SimpleNamespace(id="hooked", params_type=None, defaults={"a": 1, "b": 2}, params=lambda profile, over: None)
    assert PR.validate_params(claim, {"b": 5}, "cfg") == {"b": 5}
    assert seen == [(claim, {"a": 1, "b": 5}, {"b": 5}, "cfg")]
