"""Assumption objects and the structured families, in process (fast): the catalogue, reading and
breaking parameter fields, family options, the symbolic families' exact constraints, and
operator_claim's input errors."""
from fractions import Fraction

import pytest
import sympy as sp

from softmix.checks.assumption_runs import control_failed, family_spec, scope_findings
from softmix.checks.assumptions import (
    CATALOGUE,
    Antipodal,
    Assumption,
    Below,
    Centred,
    Diagonal,
    EqualNorms,
    EqualWeights,
    PiNotHalf,
    SharedCovariance,
    SharedIsotropic,
    resolve,
)
from softmix.numerics.errors import InputError
from softmix.theory.derivation import simplify_zero
from softmix.theory.families import stereographic, structured_mixture

MIX = {"weights": ["0.5", "0.5"], "means": [[0.6, 0.8], [-0.6, -0.8]],
       "covariances": [[["1", "0"], ["0", "1"]], [["1", "0"], ["0", "1"]]]}


def test_catalogue_and_resolve():
    assert {"equal-norms", "antipodal", "equal-weights", "centred", "shared-covariance", "isotropic",
            "shared-isotropic", "diagonal", "singular", "pi-not-half", "distinct-means"} <= set(CATALOGUE)
    assert resolve("centered").name == "centred" and resolve("shared").name == "shared-covariance"
    with pytest.raises(InputError, match="unknown assumption 'equal-norm'"):
        resolve("equal-norm")
    a = Assumption("mine", "x > 0", holds=lambda v: v["x"] > 0, violate=lambda v, rng: {"x": -1})
    assert resolve(a) is a and a.control_id == "without:mine"
    assert a.holds({"x": 1}) and a.violate({"x": 1}, None) == [{"x": -1}]


@pytest.mark.parametrize("a", [EqualNorms("mix"), Antipodal("mix"), EqualWeights("mix"), Centred("mix"),
                               SharedCovariance("mix"), SharedIsotropic("mix"), Diagonal("mix")])
def test_builtins_hold_on_a_mixture_field_and_every_break_breaks_them(a):
    values = {"mix": MIX}
    assert a.holds(values) is True
    cands = a.violate(values, None)
    assert cands
    for over in cands:
        assert a.holds({**values, **over}) is False, over


def test_breaks_keep_the_style_of_the_values_and_other_assumptions():
    v = {"m1": ["0.6", "0.8"], "m_1": ["-0.6", "-0.8"], "pi_plus": 0.3}
    first = Antipodal("m1", "m_1").violate(v, None)[0]  # a rotation: same norm, not antipodal
    assert all(isinstance(x, str) for x in first["m_1"])
    assert EqualNorms("m1", "m_1").holds({**v, **first}) and not Antipodal("m1", "m_1").holds({**v, **first})
    assert PiNotHalf("pi_plus").violate(v, None) == [{"pi_plus": 0.5}]
    assert EqualNorms("means").holds({"means": [[0.6, 0.8], [1, 0]]})  # floats read as the decimals they print


def test_below_breaks_by_scaling_its_fields():
    b = Below("x-small", lambda v: Fraction(v["x"]), Fraction(1, 2), fields=("x",))
    assert b.holds({"x": "0.2"}) and b.violate({"x": "0.2"}, None)[0] == {"x": "4/5"}


def test_bind_finds_the_field_or_asks_for_it():
    assert EqualNorms().bind({"means": [[1, 0]]}).fields == ("means",)
    assert EqualNorms().bind({"problem": MIX}).fields == ("problem",)
    with pytest.raises(KeyError, match="name the parameter field"):
        EqualNorms().bind({"x": 1})


def test_family_spec_merges_and_drops():
    en, anti, cen = resolve("equal-norms"), resolve("antipodal"), resolve("centred")
    assert family_spec([en, anti])["means"] == "antipodal"
    assert family_spec([anti, cen])["weights"] == "equal"
    assert family_spec([en, cen], components=2)["means"] == "antipodal"
    with pytest.raises(InputError):
        family_spec([en, cen], components=3)
    iso = resolve("shared-isotropic")
    assert family_spec([iso, en], drop=iso)["covariance"] == "isotropic"
    assert family_spec([iso, en], drop=en)["means"] == "generic"
    assert family_spec([resolve("pi-not-half")], drop=resolve("pi-not-half"))["weights"] == "equal"
    # a user assumption may ask for generic weights: it keeps what the others ask (equal wins, generic stays)
    gen = Assumption("generic-w", "generic weights", holds=lambda v: True, family={"weights": "generic"})
    assert family_spec([gen])["weights"] == "generic"
    assert family_spec([gen, resolve("equal-weights")])["weights"] == "equal"
    assert family_spec([gen], base={**family_spec([]), "weights": "equal"})["weights"] == "equal"


def test_family_spec_meets_a_family_with_itself_and_with_the_general_one():
    """Two assumptions asking for the same covariance (or means) family meet in it; a family asking for
    "general" covariances or "generic" means leaves what another asked; Singular asks for a degenerate
    component and its dropped control for none."""
    shared = Assumption("shared-too", "also shared", holds=lambda v: True, family={"covariance": "shared"})
    assert family_spec([resolve("shared-covariance"), shared])["covariance"] == "shared"
    gen = Assumption("any-cov", "any covariance", holds=lambda v: True,
                     family={"covariance": "general", "means": "generic"})
    assert family_spec([resolve("isotropic"), gen])["covariance"] == "isotropic"
    assert family_spec([resolve("equal-norms"), gen])["means"] == "equal-norms"
    anti = Assumption("anti-too", "also antipodal", holds=lambda v: True, family={"means": "antipodal"})
    assert family_spec([resolve("antipodal"), anti])["means"] == "antipodal"
    sing = resolve("singular")
    assert family_spec([sing])["degenerate"] is True and family_spec([sing], drop=sing)["degenerate"] is False


def test_scope_findings_and_failures():
    ok = {"id": "without:a", "kind": "assumption-dropped", "assumption": "a", "verdict": "verified", "refuted": False}
    assert not control_failed(ok) and scope_findings(None, [ok])[0]["needed"] is False
    assert control_failed({**ok, "verdict": "error"}) and control_failed({"id": "x", "verdict": "verified",
                                                                          "refuted": False})


def test_structured_families_are_exactly_the_model():
    t = sp.symbols("t1:3", real=True)
    u = stereographic(t)
    assert sp.simplify(sum(x**2 for x in u) - 1) == 0
    assert sum(x * x for x in stereographic([Fraction(1, 3), Fraction(-2)])) == 1  # rational points of the sphere
    mix = structured_mixture(3, 3, covariance="isotropic", means="equal-norms")
    assert all(sp.cancel((m.T * m)[0] - mix.radius**2) == 0 for m in mix.means) and len(mix.variances) == 3
    cen = structured_mixture(3, 2, centred=True)
    assert sp.simplify(sum((w * m for w, m in zip(cen.weights, cen.means)), sp.zeros(2, 1))) == sp.zeros(2, 1)
    assert structured_mixture(2, 2, means="antipodal").means[1] == -structured_mixture(2, 2, means="antipodal").means[0]


def test_prover_cancels_equal_norm_offsets():
    mix = structured_mixture(2, 2, means="equal-norms")
    z = sp.Matrix(sp.symbols("z_1:3", real=True))
    s = sp.Symbol("s", positive=True)
    with_offsets = [sp.exp((m.T * z)[0] / s - (m.T * m)[0] / (2 * s)) for m in mix.means]
    plain = [sp.exp((m.T * z)[0] / s) for m in mix.means]
    assert simplify_zero(with_offsets[0] / sum(with_offsets) - plain[0] / sum(plain))


def test_operator_claim_input_errors():
    import softmix

    ok = lambda mix, U, V, z: V * mix.means[0]  # noqa: E731
    with pytest.raises(InputError, match="covariance must be one of"):
        softmix.operator_claim("bad-cov", ok, components=1, dim=1, covariance="spherical")
    with pytest.raises(InputError, match="degenerate=True needs"):
        softmix.operator_claim("bad-deg", ok, components=1, dim=1, covariance="isotropic", degenerate=True)
    with pytest.raises(InputError, match="unknown assumption"):
        softmix.operator_claim("bad-assume", ok, components=2, dim=1, assume=("equal-norm",))
    with pytest.raises(InputError, match="cannot name an extra symbol"):
        softmix.operator_claim("bad-sym", ok, components=1, dim=1, symbols="v")
    with pytest.raises(InputError, match="does not shape a family"):
        softmix.operator_claim("bad-user", ok, components=1, dim=1, assume=(Assumption("x", "text"),))
    uses_radius = lambda mix, U, V, z: V * mix.means[0] * mix.radius  # noqa: E731
    with pytest.raises(InputError, match="without the assumption equal-norms"):
        softmix.operator_claim("bad-drop", uses_radius, components=2, dim=2, assume=("equal-norms",))


def test_a_covariance_that_contradicts_shared_covariance_says_how_to_ask_for_it():
    """(kills operator.py:194, the hint dropped from the message)"""
    import softmix

    ok = lambda mix, U, V, z: V * mix.means[0]  # noqa: E731
    with pytest.raises(InputError, match=r"covariance must be one of general, .*\(shared_covariance=True is "
                                         r"covariance='shared'\)"):
        softmix.operator_claim("bad-shared", ok, components=2, dim=1, shared_covariance=True, covariance="isotropic")


def test_check_defaults_names_the_defaults_or_the_profile_that_breaks_an_assumption():
    """Registration fails with one line naming what breaks the assumption: the defaults themselves, or a
    profile's overrides (merged over the defaults)."""
    from softmix.checks.assumption_runs import check_defaults

    en = resolve("equal-norms")
    good, bad = {"means": [[3, 4], [5, 0]]}, {"means": [[3, 4], [1, 0]]}
    assert [a.name for a in check_defaults("c", [en], good, {"full": good})] == ["equal-norms"]
    with pytest.raises(ValueError, match=r"^claim c: its defaults break its assumption equal-norms \("):
        check_defaults("c", [en], bad)
    with pytest.raises(ValueError, match=r"^claim c: its profile 'full' breaks its assumption equal-norms \("):
        check_defaults("c", [en], good, {"full": bad})
