"""Known answers for the parameter machinery (checks/params.py): how a declared annotation or a default
becomes a type, and the one-line errors of a covariance that is not symmetric and of dimensions that
disagree inside one object.  Survivors of the engine run on f883275 (seed 260584053)."""
from __future__ import annotations

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
