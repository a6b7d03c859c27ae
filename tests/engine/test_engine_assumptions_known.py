"""Known answers for the assumption machinery (checks/assumptions.py, checks/assumption_views.py).

Each built-in's *break* (the change its assumption-dropped control makes) is the documented change
(docs/writing-claims.md, the catalogue table) on small mixtures with distinct, non-symmetric values
(three components, so that the first, the second and the last differ; means of unequal norms;
non-diagonal covariances), written back in the style of the value it replaces, and it breaks the
assumption; views read and write the slot they name; a predicate that cannot tell (None) means
"cannot tell" end to end, as ``Assumption.holds`` / ``holds_for`` document.
"""
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from softmix.checks.assumption_runs import BASE_FAMILY, check_values
from softmix.checks.assumption_views import number, view_of
from softmix.checks.assumptions import (
    Antipodal,
    Assumption,
    Centred,
    Diagonal,
    DistinctMeans,
    EqualNorms,
    EqualWeights,
    Isotropic,
    PiNotHalf,
    SharedCovariance,
    SharedIsotropic,
    Singular,
)
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


# ---- helpers ----------------------------------------------------------------------------------------
def exact(x):
    """Nested values as exact Fractions (strings, ints, floats read as the decimals they print)."""
    return [exact(y) for y in x] if isinstance(x, (list, tuple)) else number(x)


def one_scaled(old: list, new: list) -> tuple[int, Fraction]:
    """``(k, c)``: exactly one item of ``new`` differs from ``old``, and it is ``c`` times ``old[k]``
    (items are vectors or matrices, compared exactly)."""
    old, new = exact(old), exact(new)
    assert len(old) == len(new)
    diff = [k for k, (a, b) in enumerate(zip(old, new)) if a != b]
    assert len(diff) == 1, f"changed items {diff}, want exactly one"
    k = diff[0]
    flat = lambda v: [x for r in v for x in r] if isinstance(v[0], list) else v  # noqa: E731
    a, b = flat(old[k]), flat(new[k])
    i = next(i for i, x in enumerate(a) if x != 0)
    c = b[i] / a[i]
    assert b == [c * x for x in a], f"item {k} is not a multiple of itself: {a} -> {b}"
    return k, c


def styled_like(old, new) -> bool:
    """``new`` in the documented style of ``old``: a string stays a string, a float a float, an int an
    int when the new value is an integer (else a float)."""
    if isinstance(old, (list, tuple)):
        return len(old) == len(new) and all(styled_like(o, n) for o, n in zip(old, new))
    if isinstance(old, str):
        return isinstance(new, str)
    if isinstance(old, float):
        return isinstance(new, float)
    if isinstance(old, int):
        want = int if exact(new).denominator == 1 else float
        return type(new) is want
    return type(new) is type(old)


# ---- means ------------------------------------------------------------------------------------------
MEANS_EQ = [["0.6", "0.8"], ["-0.8", "0.6"], ["1", "0"]]  # norm 1 each, pairwise not collinear


def test_equal_norms_breaks_scale_one_mean_in_its_own_slot():
    """Documented: "scaling one mean by 3/2" (the first candidate); every candidate scales one mean
    (never another mean's value written in its slot), keeps strings, and breaks equal norms."""
    a, v = EqualNorms("means"), {"means": MEANS_EQ}
    assert a.holds(v) is True
    cands = a.violate(v, None)
    assert len(cands) >= 1 and one_scaled(MEANS_EQ, cands[0]["means"])[1] == Fraction(3, 2)
    for over in cands:
        assert list(over) == ["means"] and styled_like(MEANS_EQ, over["means"])
        _, c = one_scaled(MEANS_EQ, over["means"])
        assert c not in (0, 1, -1)
        assert a.holds({**v, **over}) is False


def test_equal_norms_on_separate_vector_fields_changes_one_field():
    v = {"m1": [18, 24], "m2": [0, -30], "m3": [-24, 18]}  # ints scaled by 3/2 or 2/3 stay ints
    a = EqualNorms("m1", "m2", "m3")
    assert a.holds(v) is True
    for over in a.violate(v, None):
        (name,) = over  # only the changed field is overridden
        k, c = one_scaled([v[name]], [over[name]])
        assert c not in (0, 1, -1) and styled_like(v[name], over[name])
        assert a.holds({**v, **over}) is False


def test_distinct_means_break_sets_the_second_mean_to_the_first():
    """Documented: "setting m2 = m1" -- the third mean untouched."""
    v = {"means": [[1, 2], [3, -1], [-2, 5]]}
    a = DistinctMeans("means")
    assert a.holds(v) is True
    assert a.violate(v, None) == [{"means": [[1, 2], [1, 2], [-2, 5]]}]
    assert a.holds({**v, **a.violate(v, None)[0]}) is False


def centred_mix():
    # 1/5 (5, 5) + 3/10 (0, -10) + 1/2 (-2, 4) = 0; unequal norms, no two means collinear
    return {"weights": ["0.2", "0.3", "0.5"], "means": [[5, 5], [0, -10], [-2, 4]],
            "covariances": [[[2, 1], [1, 3]], [[1, 0], [0, 4]], [[5, 2], [2, 1]]]}


@pytest.mark.parametrize("fields", [("mix",), ("mix.weights", "mix.means")])
def test_centred_break_scales_one_mean_and_nothing_else(fields):
    """Documented: "scaling one mean" -- in its own slot; weights and covariances untouched."""
    v = {"mix": centred_mix()}
    a = Centred(*fields)
    assert a.holds(v) is True
    cands = a.violate(v, None)
    assert cands
    for over in cands:
        new = over["mix"]
        assert new["weights"] == v["mix"]["weights"] and new["covariances"] == v["mix"]["covariances"]
        _, c = one_scaled(v["mix"]["means"], new["means"])
        assert c not in (0, 1) and styled_like(v["mix"]["means"], new["means"])
        assert a.holds({**v, **over}) is False


def test_a_one_component_mixture_is_centred_exactly_when_its_mean_is_zero():
    one = lambda m: {"mix": {"weights": [1], "means": [m], "covariances": [[[1, 0], [0, 2]]]}}  # noqa: E731
    assert Centred("mix").holds(one([0, 0])) is True and Centred("mix").holds(one(["0.5", 0])) is False


# ---- weights ----------------------------------------------------------------------------------------
def test_equal_weights_break_moves_weight_between_two_components():
    """Documented: "moving weight from one to another": the sum stays one, exactly two weights move,
    by opposite amounts, all stay positive, and strings stay strings."""
    w = ["1/3", "1/3", "1/3"]
    a = EqualWeights("weights")
    (over,) = a.violate({"weights": w}, None)
    new = exact(over["weights"])
    assert all(isinstance(x, str) for x in over["weights"])
    assert sum(new) == 1 and all(x > 0 for x in new)
    moved = [x - Fraction(1, 3) for x in new if x != Fraction(1, 3)]
    assert len(moved) == 2 and moved[0] == -moved[1] != 0
    assert a.holds({"weights": over["weights"]}) is False


# ---- covariances ------------------------------------------------------------------------------------
S = [["2", "1/2"], ["1/2", "1"]]  # shared, not diagonal


@pytest.mark.parametrize("form", ["list", "fields"])
def test_shared_covariance_break_scales_one_covariance(form):
    """Documented: "scaling one" -- from a list of matrices or from one matrix per field."""
    if form == "list":
        v, a = {"covs": [S, S, S]}, SharedCovariance("covs")
    else:
        v, a = {"S1": S, "S2": S, "S3": S}, SharedCovariance("S1", "S2", "S3")
    assert a.holds(v) is True
    cands = a.violate(v, None)
    assert cands
    for over in cands:
        old = v["covs"] if form == "list" else [v[k] for k in ("S1", "S2", "S3")]
        new = over["covs"] if form == "list" else [over.get(k, v[k]) for k in ("S1", "S2", "S3")]
        _, c = one_scaled(old, new)
        assert c not in (0, 1) and styled_like(old, new)
        assert a.holds({**v, **over}) is False


def is_pd(G) -> bool:
    M = sp.Matrix(exact(G))
    return M == M.T and M.is_positive_definite


def test_isotropic_break_changes_one_diagonal_entry_and_stays_diagonal():
    """Documented: "changing one diagonal entry" (of one covariance): the result is still diagonal
    and positive definite, no longer isotropic."""
    covs = [[[2, 0], [0, 2]], [["0.5", 0], [0, "0.5"]], [[3, 0], [0, 3]]]
    v, a = {"covs": covs}, Isotropic("covs")
    assert a.holds(v) is True
    cands = a.violate(v, None)
    assert cands
    for over in cands:
        new = over["covs"]
        diffs = [(k, i, j) for k in range(3) for i in range(2) for j in range(2)
                 if exact(covs[k][i][j]) != exact(new[k][i][j])]
        assert len(diffs) == 1 and diffs[0][1] == diffs[0][2]
        assert styled_like(covs, new) and all(is_pd(G) for G in new)
        assert a.holds({**v, **over}) is False and Diagonal("covs").holds({**v, **over}) is True


def test_shared_isotropic_break_scales_one_and_keeps_each_isotropic():
    G = [["3/2", 0], [0, "3/2"]]
    v, a = {"covs": [G, G, G]}, SharedIsotropic("covs")
    assert a.holds(v) is True
    for over in a.violate(v, None):
        _, c = one_scaled([G, G, G], over["covs"])
        assert c > 0 and c != 1
        assert a.holds({**v, **over}) is False and Isotropic("covs").holds({**v, **over}) is True


def test_diagonal_break_adds_one_symmetric_off_diagonal_entry():
    """Documented: "adding an off-diagonal entry": one covariance changes, only off its diagonal,
    symmetrically, and stays positive definite (3 x 3, distinct diagonal entries)."""
    covs = [[[2, 0, 0], [0, 3, 0], [0, 0, 1]], [[1, 0, 0], [0, "0.5", 0], [0, 0, 4]], [[5, 0, 0], [0, 1, 0], [0, 0, 2]]]
    v, a = {"covs": covs}, Diagonal("covs")
    assert a.holds(v) is True
    cands = a.violate(v, None)
    assert cands
    for over in cands:
        new = over["covs"]
        changed = [k for k in range(3) if exact(new[k]) != exact(covs[k])]
        assert len(changed) == 1
        k = changed[0]
        old, G = exact(covs[k]), exact(new[k])
        assert all(G[i][i] == old[i][i] for i in range(3)) and G == [list(r) for r in zip(*G)]
        assert is_pd(new[k]) and styled_like(covs, new)
        assert a.holds({**v, **over}) is False


def test_singular_break_adds_a_positive_multiple_of_the_identity():
    """Documented: "adding a multiple of I": every covariance G becomes G + c I with c > 0, so none is
    singular any more (a rank-1, non-diagonal covariance among three)."""
    covs = [[[3, 1], [1, 2]], [[1, 2], [2, 4]], [[2, "1/2"], ["1/2", 1]]]
    v, a = {"covs": covs}, Singular("covs")
    assert a.holds(v) is True
    (over,) = a.violate(v, None)
    new = over["covs"]
    for old, G in zip(exact(covs), exact(new)):
        c = G[0][0] - old[0][0]
        assert c > 0 and G == [[x + (c if i == j else 0) for j, x in enumerate(r)] for i, r in enumerate(old)]
    assert styled_like(covs, new)
    assert a.holds({**v, **over}) is False


# ---- drawn means keep their declared norm range --------------------------------------------------------
def test_drawn_means_have_norms_in_the_default_range_of_the_signature():
    """``configs.means(rng, K, D)`` draws norms in its default ``norm_range=(0.5, 2.5)`` (up to the
    rounding to two decimals), and in a range passed explicitly."""
    import math

    from softmix.checks import configs as C

    lo, hi = 0.5, 2.5
    for s in range(60):
        for rng_range, (a, b) in ((None, (lo, hi)), ((1.0, 1.5), (1.0, 1.5))):
            kw = {} if rng_range is None else {"norm_range": rng_range}
            for m in C.means(np.random.default_rng(s), 3, 2, **kw):
                n = math.hypot(*map(float, m))
                assert a - 0.01 <= n <= b + 0.01, (s, m)


# ---- fields given in pieces, degenerate values, NumPy arrays ---------------------------------------
def test_centred_reads_a_proportion_and_two_mean_fields_as_weights_and_means():
    """A proportion and two vectors: weights (p, 1 - p) and two means (vectors are means, as the
    docstring of view_of says), not one weight list per vector."""
    v = {"pi_plus": "0.25", "m1": [3, -6], "m_1": [-1, 2]}  # 1/4 (3, -6) + 3/4 (-1, 2) = 0
    a = Centred("pi_plus", "m1", "m_1")
    view = view_of(v, a.fields, a.KINDS)
    assert view.weights == [Fraction(1, 4), Fraction(3, 4)] and view.means == [[3, -6], [-1, 2]]
    assert a.holds(v) is True and a.holds({**v, "m_1": [-1, 3]}) is False
    cands = a.violate(v, None)
    assert cands and all(a.holds({**v, **over}) is False for over in cands)


def test_several_number_fields_are_one_weight_each_not_proportions():
    v = {"w1": "0.5", "w2": "0.5", "m1": [1, 2], "m2": [-1, -2]}
    view = view_of(v, ("w1", "w2", "m1", "m2"), ("weights", "means"))
    assert view.weights == [Fraction(1, 2), Fraction(1, 2)] and view.means == [[1, 2], [-1, -2]]
    assert Centred("w1", "w2", "m1", "m2").holds(v) is True


@pytest.mark.parametrize("means", [[[0, 0], [0, 0]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]])
def test_centred_break_moves_a_zero_mean(means):
    """Every mean zero: scaling cannot break centring; the break moves one mean instead."""
    k, D = len(means), len(means[0])
    eye = [[1 if i == j else 0 for j in range(D)] for i in range(D)]
    v = {"mix": {"weights": [f"1/{k}"] * k, "means": means, "covariances": [eye] * k}}
    a = Centred("mix")
    assert a.holds(v) is True
    cands = a.violate(v, None)
    assert cands and all(a.holds({**v, **over}) is False for over in cands)


def test_centred_break_skips_a_zero_mean_and_a_zero_weight():
    v = {"w": ["0", "0.5", "0.5"], "ms": [[7, 1], [0, 0], [0, 0]]}
    a = Centred("w", "ms")
    cands = a.violate(v, None)
    assert a.holds(v) is True and cands
    for over in cands:
        assert over["ms"][0] == [7, 1] and a.holds({**v, **over}) is False


@pytest.mark.parametrize("G", [[[0, 0], [0, 2]], [[0, 0], [0, 0]], [[0, 0, 0], [0, 3, 0], [0, 0, 0]],
                               [[0, 0, 0], [0, 2, 0], [0, 0, 5]]])
def test_diagonal_break_breaks_a_singular_diagonal_covariance_and_stays_semidefinite(G):
    v, a = {"covs": [G, [[1 if i == j else 0 for j in range(len(G))] for i in range(len(G))]]}, Diagonal("covs")
    assert a.holds(v) is True
    cands = a.violate(v, None)
    assert cands
    for over in cands:
        new = exact(over["covs"][0])
        assert a.holds({**v, **over}) is False and new == [list(r) for r in zip(*new)]
        assert min(np.linalg.eigvalsh(np.array(new, dtype=float))) >= -1e-12


def test_an_assumption_on_a_mixture_in_pieces_works_end_to_end(tmp_path):
    """As a process: Centred("pi_plus", "m1", "m_1") on a claim (it ended in an IndexError before the
    views read vectors as means): verified with both controls refuted, the assumption-dropped one
    included; a --config that breaks it is exit 2 with one line naming the assumption."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    plugin = str(Path(__file__).resolve().parents[1] / "plugins" / "centred_split.py")
    base = [sys.executable, "-m", "softmix", "verify", "centred-split", "--plugin", plugin, "--no-engine-controls"]
    out = tmp_path / "out.json"
    r = subprocess.run([*base, "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    (res,) = json.loads(out.read_text())["claims"]
    assert res["verdict"] in ("verified", "confirmed")
    assert {c["id"]: c["verdict"] for c in res["negative_controls"]} == {"swapped-weights": "refuted",
                                                                        "without:centred": "refuted"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"centred-split": {"m_1": ["-1", "3"]}}))
    r = subprocess.run([*base, "--config", str(bad)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "assumption centred" in r.stderr


# ---- each break exactly: the catalogue table of docs/writing-claims.md, row by row ------------------
# Expected values worked out by hand from the table (not from the code): weights 1/5, 3/10, 1/2;
# means (1, 2), (0, -3), (-2, 1) (unequal norms, a zero coordinate first in the second); covariances
# diag(2, 5), I, diag(4, 2) (distinct traces).
EXACT = {"weights": ["1/5", "3/10", "1/2"], "means": [["1", "2"], ["0", "-3"], ["-2", "1"]],
         "covariances": [[["2", "0"], ["0", "5"]], [["1", "0"], ["0", "1"]], [["4", "0"], ["0", "2"]]]}


def _with(part, k, value):
    mix = {key: list(v) for key, v in EXACT.items()}
    if part == "weights":
        mix["weights"] = value
    else:
        mix[part][k] = value
    return {"mix": mix}


@pytest.mark.parametrize("cls, want", [
    (EqualNorms, [_with("means", 2, ["-3", "3/2"]), _with("means", 0, ["2/3", "4/3"])]),
    (DistinctMeans, [_with("means", 1, ["1", "2"])]),
    (EqualWeights, [_with("weights", None, ["4/15", "7/30", "1/2"])]),
    (PiNotHalf, [_with("weights", None, ["1/3", "1/3", "1/3"])]),
    (Centred, [_with("means", 0, ["3/2", "3"])]),
    (SharedCovariance, [_with("covariances", 2, [["6", "0"], ["0", "3"]])]),
    (Isotropic, [_with("covariances", 0, [["3", "0"], ["0", "5"]])]),
    (SharedIsotropic, [_with("covariances", 2, [["6", "0"], ["0", "3"]])]),
    (Diagonal, [_with("covariances", 0, [["2", "1/2"], ["1/2", "5"]])]),
])
def test_each_break_is_the_documented_change_exactly(cls, want):
    assert cls("mix").violate({"mix": EXACT}, None) == want


def test_singular_break_adds_half_of_each_covariances_own_scale():
    # t = max(trace/n, 1): 7/2, 1, 3 -> + 7/4 I, + 1/2 I, + 3/2 I
    got = Singular("mix").violate({"mix": EXACT}, None)
    assert got == [{"mix": {**EXACT, "covariances": [[["15/4", "0"], ["0", "27/4"]], [["3/2", "0"], ["0", "3/2"]],
                                                       [["11/2", "0"], ["0", "7/2"]]]}}]


@pytest.mark.parametrize("m2, rotated", [
    (["0", "-3"], ["-12/5", "-9/5"]),        # first nonzero coordinate i = 1, j = 0
    (["5", "0"], ["3", "4"]),                # i = 0, j = 1
    (["0", "0", "2"], ["8/5", "0", "6/5"]),   # i = 2, j = 0
])
def test_antipodal_rotates_the_second_mean_in_the_documented_plane_then_scales_it(m2, rotated):
    m1 = [str(-Fraction(x)) for x in m2]
    got = Antipodal("means").violate({"means": [m1, m2]}, None)
    assert got == [{"means": [m1, rotated]}, {"means": [m1, [str(Fraction(x) * Fraction(3, 2)) for x in m2]]}]


def test_diagonal_break_with_one_positive_variance_adds_the_documented_rank_one_block():
    # G = diag(0, 6, 0): t = max(6/3, 1)/4 = 1/2 on the top-left 2x2 block
    G = [["0", "0", "0"], ["0", "6", "0"], ["0", "0", "0"]]
    got = Diagonal("S").violate({"S": [G]}, None)
    assert got == [{"S": [[["1/2", "1/2", "0"], ["1/2", "13/2", "0"], ["0", "0", "0"]]]}]
    # in dimension 2 as well (the smallest covariance that has an off-diagonal entry): diag(0, 2), t = 1/4
    got = Diagonal("S").violate({"S": [[["0", "0"], ["0", "2"]]]}, None)
    assert got == [{"S": [[["1/4", "1/4"], ["1/4", "9/4"]]]}]


def test_below_scales_each_named_field_and_keeps_the_factors_that_break_it():
    from softmix.checks.assumptions import Below

    b = Below("big", lambda v: number(v["s"]) * number(v["t"]), 10, fields=("s", "t"))
    got = b.violate({"s": "3/2", "t": 0.5, "u": "7"}, None)
    # s t = 3/4 c^2: 3, 12, 48, 192 at factors 2, 4, 8, 16: the last three reach 10
    assert got == [{"s": "6", "t": 2.0}, {"s": "12", "t": 4.0}, {"s": "24", "t": 8.0}]


# ---- which other assumptions a dropped-assumption control keeps (assumption_runs.violating_values) ---
def _runs_claim(b_holds):
    a = Assumption("a", "x < 1", holds=lambda v: v["x"] < 1,
                   violate=lambda v, rng: [{"x": 2, "y": 5}, {"x": 3}])
    b = Assumption("b", "y < 1", holds=b_holds)
    return SimpleNamespace(assumption_objects=(a, b)), a


@pytest.mark.parametrize("b_holds, values, want", [
    (lambda v: v["y"] < 1, {"x": 0, "y": 0}, {"x": 3, "y": 0}),     # b held: kept (the second candidate)
    (lambda v: None if v["y"] == 0 else v["y"] < 1, {"x": 0, "y": 0}, {"x": 3, "y": 0}),  # cannot tell: kept
    (lambda v: v["y"] < 1, {"x": 0, "y": 7}, {"x": 2, "y": 5}),     # b already broken: not a constraint
])
def test_a_dropped_assumption_keeps_the_others_that_held_or_could_not_tell(b_holds, values, want):
    from softmix.checks.assumption_runs import violating_values

    claim, a = _runs_claim(b_holds)
    new, info = violating_values(claim, a, values, None)
    assert new == want and "also_breaks" not in info


# ---- survivors of the recorded engine run (seed 2084884): each answered by an exact known answer -----------
def test_distinct_means_break_with_two_means_sets_the_second_to_the_first():
    """Two means (the smallest case the break applies to): m2 := m1 exactly."""
    v = {"means": [[1, 2], [3, -1]]}
    assert DistinctMeans("means").violate(v, None) == [{"means": [[1, 2], [1, 2]]}]
    assert DistinctMeans("means").violate({"means": [[1, 2]]}, None) == []  # one mean: nothing to break


def test_centred_break_moves_the_first_zero_mean_by_the_first_unit_vector():
    """Documented: every live mean zero -> move the first of them by e1 (not by another unit vector)."""
    v = {"w": ["0", "0.5", "0.5"], "ms": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}
    (over,) = Centred("w", "ms").violate(v, None)
    assert over["ms"] == [[0, 0, 0], [1, 0, 0], [0, 0, 0]]  # the first *live* mean (weight 0 skipped)
    # the moved mean is that one's own, whatever the dead means hold (here the last, of weight 0, is not zero)
    v = {"w": ["0.5", "0.5", "0"], "ms": [[0, 0], [0, 0], [5, 5]]}
    (over,) = Centred("w", "ms").violate(v, None)
    assert over["ms"] == [[1, 0], [0, 0], [5, 5]]


def test_centred_on_means_without_weights_reads_equal_weights_in_the_predicate_and_the_break():
    """Means given without weights: centred means sum_k m_k = 0 (equal weights), both when judged and when
    broken -- never vacuously true; the break scales the first nonzero mean (not the first mean)."""
    a = Centred("ms")
    assert a.holds({"ms": [[1, 0], [2, 0]]}) is False
    assert a.holds({"ms": [[1, -2], [-1, 2]]}) is True
    v = {"ms": [[0, 0], [1, 2], [-1, -2]]}
    assert a.holds(v) is True
    assert a.violate(v, None) == [{"ms": [[0, 0], [1.5, 3], [-1, -2]]}]
    assert a.holds({**v, **a.violate(v, None)[0]}) is False


def test_shared_isotropic_break_with_two_components_scales_the_last_covariance():
    """Two covariances (the smallest case of the documented break): the last one times 3/2, the first kept."""
    covs = [[[2, 0], [0, 2]], [[2, 0], [0, 2]]]
    (over,) = SharedIsotropic("covs").violate({"covs": covs}, None)
    assert over["covs"][0] == [[2, 0], [0, 2]]
    assert [[exact(x) for x in r] for r in over["covs"][1]] == [[3, 0], [0, 3]]


# ---- survivors of the recorded engine run on 4532f9a ----------------------------------------------------


def test_shared_isotropic_break_with_one_covariance_breaks_isotropy_instead():
    """One covariance is trivially shared: scaling it cannot break "shared", so the break is the isotropic
    one (one diagonal entry times 3/2), and the result is no longer shared-isotropic."""
    covs = [[[2, 0], [0, 2]]]
    (over,) = SharedIsotropic("covs").violate({"covs": covs}, None)
    assert [[exact(x) for x in r] for r in over["covs"][0]] == [[3, 0], [0, 2]]
    assert SharedIsotropic("covs").holds(over) is False


def test_below_keeps_the_first_factor_two_when_it_already_breaks():
    """The factors are 2, 4, 8, 16: s t = 3/4 at the base, 3 at factor 2, so with threshold 2 all four
    break it, the first being twice the base."""
    from softmix.checks.assumptions import Below

    b = Below("big", lambda v: number(v["s"]) * number(v["t"]), 2, fields=("s", "t"))
    got = b.violate({"s": "3/2", "t": 0.5}, None)
    assert got[0] == {"s": "3", "t": 1.0} and len(got) == 4


# ---- lines no test ran (the test map of the engine run on 2026d72) ----------------------------------------------
def test_check_defaults_names_the_claim_and_the_missing_field():
    """assumption_runs.py:97, assumption_views.py:42: an assumption bound to a field the claim does not have is a
    ValueError naming the claim and the field; a built-in with no field named and nothing to find, the same."""
    from softmix.checks.assumption_runs import check_defaults

    with pytest.raises(ValueError) as e:
        check_defaults("my-claim", [EqualNorms("nope")], {"means": [[1, 0], [0, 2]]})
    assert str(e.value) == "claim my-claim: no parameter field 'nope'"
    with pytest.raises(ValueError) as e:
        check_defaults("my-claim", [EqualNorms()], {"x": 1})
    assert str(e.value) == ("claim my-claim: assumption equal-norms: name the parameter field(s) it constrains, "
                            "e.g. EqualNorms('means')")
    with pytest.raises(ValueError) as e:  # an assumption on two parts suggests its first (engine run on 79d04be)
        check_defaults("my-claim", [Centred()], {"x": 1})
    assert str(e.value).endswith("name the parameter field(s) it constrains, e.g. Centred('weights')")


def test_below_with_its_own_violate_uses_it_with_the_callers_generator():
    """assumptions.py:390: ``Below(..., violate=f)`` breaks by ``f(values, rng)``, not by scaling its fields."""
    from softmix.checks.assumptions import Below

    seen = []

    def violate(values, rng):
        seen.append((values, rng))
        return [{"s": 100}]

    b = Below("small", lambda v: number(v["s"]), 2, fields=("s",), violate=violate)
    rng = np.random.default_rng(0)
    assert b.violate({"s": 1}, rng) == [{"s": 100}] and seen == [({"s": 1}, rng)]
