"""Every guard of the engine shown to act on an instance built to trip it (issue 23 scope 2).

A guard that silently accepts what it should reject (a degenerate attention head, an undecidable
quadrature, a crash, an overspent alpha) turns a broken check into a pass.  Each test below builds
the instance the guard exists for and asserts what the guard must do with it -- and, where it
matters, that the same path without the trigger is not affected.  The list of guards covered is in
docs/engine.md.
"""
import math
from dataclasses import dataclass
from fractions import Fraction as F

import mpmath as mpm
import numpy as np
import pytest
import sympy as sp

import softmix
from softmix.checks import api, operator as O, registry, rules, runner, verdicts
from softmix.checks.fits import InverseLRule, SlopeRule, decay_rate_decision, fit_loglog_slope
from softmix.checks.registry import REGISTRY, Claim, Context, Control, Outcome
from softmix.numerics import memo
from softmix.numerics.errors import InputError
from softmix.numerics.mixture import GaussianMixture
from softmix.theory.derivation import Derivation


# ---- operator front-end ---------------------------------------------------------------------------------
@pytest.mark.parametrize("U,V,z,ok", [
    ([[1, 0], [0, 0]], [[1, 2], [3, 4]], [0, 1], False),          # U z = 0: every law's output is its plain mean
    ([[0, 0], [0, 0]], [[1, 2], [3, 4]], [1, 1], False),          # U = 0
    ([[1, 2], [3, 4]], [[1, 2], [2, 4]], [1, 1], False),          # V singular: a component of every error hidden
    ([[1, 2], [3, 4]], [[0, 0], [0, 0]], [1, -1], False),         # V = 0 (seed 8017 drew it in d = 1)
    ([[1, 2], [3, 4]], [[1, 2], [3, 5]], [1, -1], True),
    ([[1, 2], [2, 4]], [[1, 2], [3, 5]], [1, -1], False),         # U symmetric: transposed-U invisible
    ([[F(1, 8), 0], [0, F(-1, 2)]], [[1, 2], [3, 5]], [1, 1], False),  # the diagonal U that seed 11 drew
    ([[F(1, 2)]], [[F(-3, 4)]], [F(1, 3)], True),
    ([[F(1, 2)]], [[0]], [F(1, 3)], False),
])
def test_generic_head_rejects_degenerate_heads(U, V, z, ok):
    Uf = [[F(x) for x in r] for r in U]
    Vf = [[F(x) for x in r] for r in V]
    assert O._generic_head(Uf, Vf, [F(x) for x in z]) is ok


def test_instance_redraws_degenerate_heads_equal_means_and_singular_covariances(monkeypatch):
    D = 2
    good_U, good_V, good_z = [[F(1), F(2)], [F(-1), F(1)]], [[F(1), F(1)], [F(0), F(3)]], [[F(1), F(2)]]
    draws = iter([[[F(0)] * D] * D, good_V, good_z,                  # U = 0 (the head's U is halved: still 0)
                  good_U, [[F(1), F(2)], [F(2), F(4)]], good_z,      # V singular
                  good_U, good_V, good_z])
    from softmix.checks import operator_family as OF

    monkeypatch.setattr(OF, "random_matrix", lambda rng, r, c, num, den: next(draws))
    equal = GaussianMixture.from_values(["1/2", "1/2"], [[1, 1], [1, 1]], [[[1, 0], [0, 1]]] * 2)
    singular = GaussianMixture.from_values(["1/3", "2/3"], [[1, 0], [0, 1]], [[[1, 0], [0, 1]], [[1, 1], [1, 1]]])
    fine = GaussianMixture.from_values(["1/3", "2/3"], [[1, 0], [0, 1]], [[[1, 0], [0, 1]], [[2, 1], [1, 1]]])
    mixes = iter([equal, singular, fine])
    monkeypatch.setattr(OF, "random_mixture", lambda rng, K, D, degenerate, shared: next(mixes))
    mix, U, V, z = O._instance(np.random.default_rng(0), 2, D, degenerate=False, shared=False)
    assert mix is fine and V == good_V and z == good_z[0] and U == [[x / 2 for x in r] for r in good_U]
    assert next(draws, None) is None  # all three heads were drawn: two were rejected


def test_quadrature_that_cannot_reach_its_tolerance_is_inconclusive_never_refuted():
    # a tilt of 40 on a variance-4 component: 4 -> 8 -> 14 -> 23 Gauss-Hermite nodes are far apart
    mix = GaussianMixture.from_values(["1/3", "2/3"], [["1"], ["-2"]], [[["4"]], [["1"]]])
    U, V, z = [[F(20)]], [[F(1)]], [F(2)]
    with mpm.workdps(30):
        val, err = O.definition_by_quadrature(mix, U, V, z, dps=30, nodes=4, max_nodes=30)
    assert err > mpm.mpf(10) ** -20  # the refinement stopped at max_nodes, not at its tolerance
    exact = O.to_mp(O.exact_operator(mix, U, V, z), 30)
    rule = rules.Residual(30)
    for value in (exact, exact + mpm.matrix([1])):  # right or wrong, the row cannot decide
        row = O.compare(rule, value, val, err, dim=1)
        assert row["passed"] is None and row["verdict"] == "inconclusive", row
        assert "quadrature error estimate above the tolerance" in row["reason"]
    assert api.verdict_of([row]) == "inconclusive"
    # the same quadrature with room to converge decides (and agrees with the exact operator)
    mix2 = GaussianMixture.from_values(["1/3", "2/3"], [["1"], ["-2"]], [[["1/2"]], [["1"]]])
    U2, z2 = [[F(1, 2)]], [F(1, 3)]
    with mpm.workdps(30):
        val2, err2 = O.definition_by_quadrature(mix2, U2, V, z2, dps=30, nodes=10)
    row2 = O.compare(rule, O.to_mp(O.exact_operator(mix2, U2, V, z2), 30), val2, err2)
    assert row2["passed"] is True and row2["verdict"] == "confirmed"


def test_a_stated_value_that_is_not_a_finite_real_refutes_its_row():
    with pytest.raises(ArithmeticError):
        O.to_mp(sp.Matrix([sp.zoo]), 30)
    with pytest.raises(ArithmeticError):
        O.to_mp(sp.Matrix([sp.I]), 30)
    from softmix.checks.operator_family import Instance
    from softmix.checks.operator_reference import sym_mixture

    mix = GaussianMixture.from_values(["1"], [["1"]], [[["1"]]])
    inst = Instance(mix, sym_mixture(mix), sp.Matrix([[1]]), sp.Matrix([[1]]), sp.Matrix([1]))
    failed, row = O._fails(lambda m, U, V, z: sp.Matrix([1 / (z[0] - z[0])]), inst, rules.Residual(30))
    assert failed and row["verdict"] == "refuted" and "not a finite real" in row["reason"]


def test_operator_claim_rejects_bad_statements_at_import():
    with pytest.raises(InputError, match="positive"):
        O.operator_claim("g0", lambda m, U, V, z: V * z, components=0, dim=1, register=False)
    with pytest.raises(InputError, match="function"):
        O.operator_claim("g1", "V z", components=1, dim=1, register=False)
    with pytest.raises(InputError, match="2x1 column"):
        O.operator_claim("g2", lambda m, U, V, z: sp.Matrix([1]), components=1, dim=2, register=False)
    with pytest.raises(InputError, match="failed on (a|the) symbolic"):
        O.operator_claim("g3", lambda m, U, V, z: m.means[3], components=1, dim=1, register=False)
    assert not [k for k in REGISTRY if k in ("g0", "g1", "g2", "g3")]


def test_the_dropped_term_of_a_zero_entry_still_changes_the_map():
    stated = lambda M: (lambda mix, U, V, z: M)  # noqa: E731
    M = O.perturb(stated(sp.Matrix([0, 1])), "dropped-term")(None, None, None, None)
    assert M[0] == 1  # a zero entry cannot be 'dropped' into itself: any change will do
    assert O.perturb(stated(sp.Matrix([sp.Symbol("x")])), "flipped-sign")(None, None, None, None)[0] == -sp.Symbol("x")


def test_the_term_controls_change_exactly_one_term_of_a_longer_sum():
    """dropped-term removes one term of the first sum and flipped-sign negates one, however many terms the sum has
    (a three-term sum tells 'all but the last' from 'the first only')."""
    x, y, w, t = sp.symbols("x y w t")
    e = x + 2 * y + 3 * w + 5 * t
    for how, factor in (("dropped-term", 1), ("flipped-sign", 2)):
        out = O.perturb(lambda mix, U, V, z: sp.Matrix([e, x]), how)(None, None, None, None)
        assert sp.expand((e - out[0]) / factor) in e.args and out[1] == x


# ---- the derivation prover -------------------------------------------------------------------------------
def _no_search(*a, **k):
    raise AssertionError("the numeric search must not run")


def test_exact_zero_shortcut_proves_only_exact_zeros(monkeypatch):
    x = sp.Symbol("x_guard", real=True)
    monkeypatch.setattr(Derivation, "decide", _no_search)
    memo.current().clear()
    same = Derivation("guard-same", "t", sp.Matrix([x + 1, 2 * x]), sp.Matrix([1 + x, x + x]))
    assert api.decide_one(same, 1) == ("proven", {"difference": "exactly 0 after construction", "digits": 30})
    # one entry not exactly zero after construction: no shortcut (the numeric search is asked)
    other = Derivation("guard-other", "t", sp.Matrix([x + 1, (x + 1) ** 2]), sp.Matrix([1 + x, x**2 + 2 * x + 1]))
    with pytest.raises(AssertionError, match="must not run"):
        api.decide_one(other, 1)
    monkeypatch.undo()
    memo.current().clear()
    assert api.decide_one(other, 1)[0] == "proven"
    wrong = Derivation("guard-wrong", "t", sp.Matrix([x + 1, (x + 1) ** 2]), sp.Matrix([1 + x, x**2 + 1]))
    status, info = api.decide_one(wrong, 1)
    assert status == "refuted" and "counterexample" in info


def test_a_derivation_that_cannot_be_evaluated_is_never_refuted(monkeypatch):
    x = sp.Symbol("x_guard2", positive=True)

    def cannot(self, seed=0, digits=30):
        raise TypeError("cannot evaluate at random points")

    monkeypatch.setattr(Derivation, "decide", cannot)
    memo.current().clear()
    wrong = Derivation("guard-unevaluable", "t", x + 1, x + 2)
    status, info = api.decide_one(wrong, 3)
    assert status == "unproven" and "skipped" in info["note"]  # blocks 'verified', never refutes
    right = Derivation("guard-unevaluable-true", "t", (x + 1) ** 2, x**2 + 2 * x + 1)
    assert api.decide_one(right, 3)[0] == "proven"
    part = api.decide([wrong], Context("guard", "quick", 1))
    assert part.verdict == "unproven" and api.combine([part]) == "inconclusive"


# ---- runner, registry, claim API -------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [-1, True, 1.5, "3", None])
def test_a_bad_seed_is_an_input_error_before_any_work(seed):
    with pytest.raises(InputError, match="seed"):
        runner._check_seed(seed)


def test_check_seed_accepts_numpy_integers():
    runner._check_seed(np.int64(5))


_ONE_CONTROL = (Control("c", "c"),)


def _claim(check, controls=_ONE_CONTROL, cid="guard-claim"):
    return Claim(id=cid, title="t", source="s", statement="s", section="user", check=check, controls=controls)


@pytest.mark.parametrize("bad", [lambda p, c: None, lambda p, c: "confirmed", lambda p, c: {"verdict": "confirmed"},
                                 lambda p, c: 1 / 0])
def test_a_check_that_does_not_return_an_outcome_is_an_error(bad):
    res = runner.run_claim_object(_claim(bad), seed=0)
    assert res["verdict"] == "error" and "exception" in res["evidence"]
    assert all(c["verdict"] == "error" and not c["refuted"] for c in res["negative_controls"])
    assert not runner.claim_passed(res)


def test_registry_guards():
    with pytest.raises(ValueError, match="unknown verdict"):
        Outcome("passed")
    c = _claim(lambda p, ctx: Outcome("confirmed"), cid="guard-reg")
    registry.register(c)
    try:
        registry.register(c)  # the same object twice is fine
        with pytest.raises(ValueError, match="duplicate"):
            registry.register(_claim(lambda p, ctx: Outcome("confirmed"), cid="guard-reg"))
        with pytest.raises(ValueError, match="collides"):
            registry.register_section("guard-reg")
    finally:
        REGISTRY.pop("guard-reg", None)
    with pytest.raises(ValueError, match="no negative control"):
        registry.register(_claim(lambda p, ctx: Outcome("confirmed"), controls=(), cid="guard-noctl"))
    bad_section = Claim(id="guard-sec", title="t", source="s", statement="s", section="nowhere",
                        check=lambda p, c: None, controls=(Control("c", "c"),))
    with pytest.raises(ValueError, match="unknown section"):
        registry.register(bad_section)
    assert not [k for k in REGISTRY if k.startswith("guard-")]
    with pytest.raises(KeyError, match="typo"):
        Context("x", "quick", 1, claim=c).control("typo")


def test_claim_decorator_guards():
    @dataclass
    class P:
        a: int = 1

    @dataclass
    class NoDefault:
        a: int

    def fn(p: P, ctx):
        return api.part("numeric", [])

    with pytest.raises(ValueError, match="controls"):
        api.claim(id="g", title="t", source="s", controls={}, register=False)(fn)
    with pytest.raises(TypeError, match="unknown|unexpected"):
        api.claim(id="g", title="t", source="s", controls={"c": "c"}, profiles={"full": {"b": 2}}, register=False)(fn)

    def nd(p: NoDefault, ctx):
        return None

    with pytest.raises(TypeError, match="needs a default"):
        api.claim(id="g", title="t", source="s", controls={"c": "c"}, register=False)(nd)
    with pytest.raises(TypeError, match="Outcome, a Part"):
        api._as_outcome(3)
    # a check returning no rows is inconclusive, never confirmed
    c = api.claim(id="g-empty", title="t", source="s", controls={"c": "c"}, register=False)(fn)
    assert runner.run_claim_object(c)["verdict"] == "inconclusive"


# ---- configurations --------------------------------------------------------------------------------------
def test_a_crash_on_a_drawn_configuration_is_an_error_and_a_skipped_draw_is_not_run():
    seen = []

    @dataclass
    class GP:
        x: int = 0

    def check(p: GP, ctx):
        if not ctx.control("c"):
            seen.append(p.x)
        if p.x == 3:
            raise ValueError("breaks on this configuration")
        return api.part("numeric", [{"passed": True}])

    c = api.claim(id="guard-gen", title="t", source="s", controls={"c": "c"}, register=False,
                  configurations=softmix.Draws(lambda rng, p, i: None if i == 2 else {"x": i}, quick=3))(check)
    res = runner.run_claim_object(c, "quick", seed=2)
    assert seen == [0, 1, 3] and res["verdict"] == "error"
    assert [r["name"] for r in res["evidence"]["configurations"]] == ["paper", "drawn-1", "drawn-3"]
    assert "breaks" in res["evidence"]["configurations"][2]["evidence"]["exception"]
    # a control is refuted by one configuration that refutes it; the others are listed as without power
    assert verdicts.combine_control(["confirmed", "refuted", "inconclusive"]) == "refuted"
    assert verdicts.combine_control(["confirmed", "inconclusive"]) == "inconclusive"
    assert verdicts.combine(["maybe", "confirmed"]) == "error"  # an unknown verdict never passes


# ---- rules -----------------------------------------------------------------------------------------------
def test_alpha_guards():
    with pytest.raises(ValueError):
        rules.AlphaFamily(0.0)
    with pytest.raises(ValueError):
        rules.AlphaFamily(1.0)
    fam = rules.AlphaFamily(1e-3)
    with pytest.raises(ValueError, match="positive"):
        fam.split("zero", 0)
    with pytest.raises(ValueError):
        fam.take("k", 0)
    fam.rest("all")
    with pytest.raises(rules.AlphaOverspent):
        fam.split("more", 1e-9)
    for share in (0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError):
            with rules.alpha_share(share):
                pass
    with pytest.raises(ValueError):
        rules.ZTest(0.01, sides="both")
    with pytest.raises(ValueError):
        rules.Threshold(1.0, op="==")


@pytest.mark.parametrize("lhs,rhs", [(mpm.inf, 1), (1, mpm.nan), (float("inf"), 0), (1, float("nan"))])
def test_bound_with_a_non_finite_side_cannot_decide(lhs, rhs):
    d = rules.Bound().decide(lhs, rhs)
    assert d["passed"] is None and d["verdict"] == "inconclusive"


def test_bound_decides_exactly_at_the_edge():
    assert rules.Bound().decide(F(1, 3), F(1, 3))["verdict"] == "confirmed"
    assert rules.Bound(strict=True).decide(F(1, 3), F(1, 3))["verdict"] == "refuted"
    assert rules.Bound().decide(F(1, 3) + F(1, 10**40), F(1, 3))["verdict"] == "refuted"


@pytest.mark.parametrize("case", ["one-length", "repeated-lengths", "non-positive", "too-few-for-remainder"])
def test_fits_without_enough_data_cannot_decide(case):
    Ls, v, s = [100, 400, 1600], [1.0, 0.5, 0.25], [0.01] * 3
    if case == "one-length":
        Ls, v, s = [100], [1.0], [0.01]
    elif case == "repeated-lengths":
        Ls = [100, 100, 100]
    elif case == "non-positive":
        v = [1.0, 0.0, 0.25]
    slope = SlopeRule(0.01, -0.5, remainder=case == "too-few-for-remainder", scale="known")
    if case == "too-few-for-remainder":
        Ls, v, s = Ls[:2], v[:2], s[:2]
    d = slope.decide(Ls, v, s)
    assert d["passed"] is None and d["verdict"] == "inconclusive", d
    if case in ("one-length", "repeated-lengths"):
        d = InverseLRule(0.01).decide(Ls, v, s, 0.0)
        assert d["passed"] is None and d["verdict"] == "inconclusive"


def test_estimated_scale_needs_a_residual_degree_of_freedom():
    with pytest.raises(ValueError, match="more points"):
        fit_loglog_slope([100, 400], [1.0, 0.5], [0.01, 0.01], scale="estimated")
    d = SlopeRule(0.01, -0.5, scale="estimated").decide([100, 400], [1.0, 0.5], [0.01, 0.01])
    assert d["verdict"] == "inconclusive"


def test_decay_rate_that_cannot_be_told_from_one_over_L_is_inconclusive():
    Ls = np.array([100.0, 400.0, 1600.0])
    v = 3.0 / Ls
    wide = decay_rate_decision(0.01, Ls, v, v * 0.5, False, [-0.8, -0.6], 100, "rate")
    assert wide["passed"] is None and wide["verdict"] == "inconclusive"
    exact = decay_rate_decision(0.01, Ls, v, v * 1e-4, False, [-0.8, -0.6], 100, "rate")
    assert exact["verdict"] == "inconclusive"  # precisely 1/L: the interval contains -1
    faster = 3.0 * Ls**-1.3
    fast = decay_rate_decision(0.01, Ls, faster, faster * 1e-4, False, [-0.8, -0.6], 100, "rate")
    assert fast["verdict"] == "refuted"
    slower = 3.0 * Ls**-0.7
    slow = decay_rate_decision(0.01, Ls, slower, slower * 1e-4, False, [-0.8, -0.6], 100, "rate")
    assert slow["verdict"] == "confirmed"
    assert decay_rate_decision(0.01, Ls, v, v * 1e-4, True, [-0.8, -0.6], 100, "rate")["verdict"] == "confirmed"


def test_margin_guard_says_how_many_samples_would_settle():
    d = rules.ZTest(0.01, margin=0.01).decide(1.0, 0.1, 1.0, n_samples=100)
    zc = rules.z_critical(1, 0.01)
    assert d["verdict"] == "inconclusive" and d["passed"] is True
    assert d["samples_to_settle"] == math.ceil(100 * (zc * 0.1 / 0.01) ** 2)


# ---- survivors of the recorded engine run (seed 2084884) -------------------------------------------------
def test_definition_by_quadrature_refines_n_to_1p5n_plus_2_up_to_max_nodes(monkeypatch):
    """The rule schedule n, 1.5 n + 2, ... stops at the last rule that does not pass max_nodes (one of exactly
    max_nodes included) when two successive rules never agree (a quadrature whose value changes with n)."""
    import mpmath as mpm

    import softmix.checks.operator_reference as OR
    from softmix.numerics.mixture import GaussianMixture

    seen = []

    def fake(f, mix, n, dps):
        seen.append(n)
        return mpm.matrix([1, n])

    monkeypatch.setattr(OR, "expect_mixture", fake)
    mix = GaussianMixture.from_values(["1"], [["0"]], [[["1"]]])
    OR.definition_by_quadrature(mix, [[1]], [[1]], [1], 20, nodes=10, max_nodes=160)
    assert seen == [10, 17, 27, 42, 65, 99, 150]  # 1.5 x 150 + 2 = 227 > 160: stop
    seen.clear()
    OR.definition_by_quadrature(mix, [[1]], [[1]], [1], 20, nodes=10, max_nodes=227)
    assert seen[-2:] == [150, 227]  # a rule of exactly max_nodes is still tried


def test_definition_by_quadrature_stops_at_the_default_tolerance_ten_to_the_ten_minus_dps(monkeypatch):
    """Default tol = 10^(10 - dps): successive rules whose relative difference falls as 10^-(n / 2) stop at the
    first n whose difference is at most 10^-20 for dps = 30 (not at a looser or tighter one)."""
    import mpmath as mpm

    import softmix.checks.operator_reference as OR
    from softmix.numerics.mixture import GaussianMixture

    seen = []

    def fake(f, mix, n, dps):
        seen.append(n)
        with mpm.workdps(dps):
            return mpm.matrix([1, 1 + mpm.mpf(10) ** (-mpm.mpf(n) / 2)])

    monkeypatch.setattr(OR, "expect_mixture", fake)
    mix = GaussianMixture.from_values(["1"], [["0"]], [[["1"]]])
    _val, err = OR.definition_by_quadrature(mix, [[1]], [[1]], [1], 30, nodes=10, max_nodes=400)
    # differences ~ 10^(-prev/2): 10, 17, 27, 42 (diff ~1e-13.5), 65 (diff ~1e-21): stop at 65
    assert seen == [10, 17, 27, 42, 65] and err <= mpm.mpf(10) ** -20


# ---- survivors of the recorded engine run on 2026d72 ---------------------------------------------------------
def test_a_quadrature_error_at_the_tolerance_decides_and_is_reported_to_three_digits():
    """operator_reference.py:66-67: a row is undecidable only when the quadrature's error estimate *exceeds*
    10^(guard - dps); at the tolerance itself it decides.  The estimate is reported to 3 significant digits."""
    rule = rules.Residual(30)
    with mpm.workdps(30):
        tol = mpm.mpf(10) ** (rule.guard - rule.dps)
        ref = mpm.matrix([mpm.mpf(1) / 3])
        at = O.compare(rule, ref, ref, tol)
        above = O.compare(rule, ref, ref, tol * mpm.mpf("1.0001"))
        shown = O.compare(rule, ref, ref, mpm.mpf("1.23456e-45"))
    assert at["passed"] is True and above["passed"] is None and above["verdict"] == "inconclusive"
    assert shown["quadrature_error_estimate"] == "1.23e-45"


def test_an_irrational_sympy_entry_reaches_the_quadrature_correctly_rounded():
    """operator_reference.py:84 (run by no test before): a SymPy number that is not rational (sqrt 2, pi / 7) is
    read with 10 guard digits, so at 50 digits it is the correctly rounded value mpmath computes itself."""
    from softmix.checks.operator_reference import _mpf

    with mpm.workdps(50):
        assert _mpf(sp.sqrt(2)) == mpm.sqrt(2)
        assert _mpf(sp.pi / 7) == mpm.pi / 7
        assert _mpf(sp.Rational(1, 3)) == mpm.mpf(1) / 3
