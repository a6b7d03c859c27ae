"""What ``softmix show`` prints is what the check decided (checks/runner.py ``_displayed_decided``).

A claim's ``derivations=`` (given the parameter dataclass, or no argument) must return only derivations the
run decided, by name and both sides; otherwise the claim is ``error``.  Known answers on small claims written
here, and the paper library's claims as processes.
"""
import subprocess
import sys
from dataclasses import dataclass

import sympy as sp

import softmix
from softmix.checks.registry import derivation_key, load_all
from softmix.checks.runner import run_claim_object
from softmix.theory.derivation import Derivation

X = sp.Symbol("x", real=True)


def _power(n: int, wrong: bool = False) -> Derivation:
    """d/dx x^n = n x^(n-1) (``wrong``: (n + 1) x^(n-1))."""
    return Derivation(f"power rule, n={n}", "test", sp.diff(X**n, X), (n + wrong) * X ** (n - 1))


@dataclass
class P:
    n: int = 3


def _claim(derivations, decided=lambda p: [_power(p.n)]):
    @softmix.claim(id="test/displayed", title="power rule", source="test", kind="symbolic", register=False,
                   controls={"wrong": "the coefficient n + 1"}, derivations=derivations)
    def check(p: P, ctx):
        return softmix.decide([_power(p.n, wrong=True)] if ctx.control("wrong") else decided(p), ctx)
    return check


def test_a_shown_derivation_the_run_decided_passes_at_any_parameters():
    c = _claim(lambda p: [_power(p.n)])
    for over in (None, {"n": 5}):
        r = run_claim_object(c, overrides=over)
        assert r["verdict"] == "verified", r["evidence"]
        assert r["evidence"]["displayed_derivations"] == [{"derivation": f"power rule, n={(over or {}).get('n', 3)}",
                                                           "decided": True}]
        assert r["negative_controls"][0]["refuted"]
    assert [d.name for d in c.shown_derivations()] == ["power rule, n=3"]  # what softmix show prints: the defaults
    assert [d.name for d in c.shown_derivations({"n": 4})] == ["power rule, n=4"]


def test_a_shown_derivation_the_run_did_not_decide_is_an_error():
    for shown in (lambda: [_power(4)], lambda p: [_power(p.n + 1)], lambda p: [_power(p.n), _power(2)]):
        r = run_claim_object(_claim(shown))
        assert r["verdict"] == "error", r["evidence"]
        assert "softmix show prints 1 derivation(s) this run did not decide" in r["evidence"]["exception"]
    # the same name with another side is not the derivation decided
    same_name = lambda p: [Derivation(f"power rule, n={p.n}", "test", sp.diff(X**p.n, X), p.n * X ** p.n)]  # noqa: E731
    assert run_claim_object(_claim(same_name))["verdict"] == "error"


def test_a_refuted_claim_stays_refuted_and_a_display_that_raises_is_an_error():
    wrong = _claim(lambda p: [_power(4)], decided=lambda p: [_power(p.n, wrong=True)])
    assert run_claim_object(wrong)["verdict"] == "refuted"

    def broken(p):
        raise RuntimeError("no display")
    r = run_claim_object(_claim(broken))
    assert r["verdict"] == "error" and "RuntimeError: no display" in r["evidence"]["exception"]


def test_a_check_that_raises_keeps_its_own_exception():
    @softmix.claim(id="test/raises", title="raises", source="test", register=False, controls={"c": "control"},
                   derivations=lambda p: [_power(p.n)])
    def check(p: P, ctx):
        raise RuntimeError("the check's own crash")
    r = run_claim_object(check)
    assert r["verdict"] == "error" and "the check's own crash" in r["evidence"]["exception"]


def test_a_no_argument_display_is_not_compared_under_overrides():
    r = run_claim_object(_claim(lambda: [_power(3)]), overrides={"n": 5})
    assert r["verdict"] == "verified" and "displayed_derivations" not in r["evidence"]
    assert run_claim_object(_claim(lambda: [_power(3)]))["evidence"]["displayed_derivations"][0]["decided"]


def test_derivation_key_tells_names_and_sides_apart():
    assert derivation_key(_power(3)) == derivation_key(_power(3))
    assert derivation_key(_power(3)) != derivation_key(_power(3, wrong=True))
    renamed = _power(3)
    renamed.name = "another name"
    assert derivation_key(renamed) != derivation_key(_power(3))


def test_show_prints_the_derivations_of_the_defaults_and_a_profile_its_own():
    """lemma-b.10: ``show`` prints d = 2 (the defaults), the quick profile's display is d = 1.  That every library
    claim's display is decided by its run is the verify of every claim (tests/paper/test_registry_claims_*)."""
    r = subprocess.run([sys.executable, "-m", "softmix", "show", "lemma-b.10"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and "Lemma B.10 explicit gradients, d=2" in r.stdout, r.stderr[-2000:]
    c = load_all(())["lemma-b.10"]
    assert [d.name for d in c.shown_derivations(c.params("quick"))] == [
        "Lemma B.10 explicit gradients, d=1", "Lemma B.10 chain-rule form, d=1"]


def test_the_identity_kind_records_the_derivation_it_shows():
    """The identity kind decides its sides by its own route (not ``decide``): it records them, so its display
    is decided; a show that prints another identity is still an error."""
    c = softmix.identity_claim("test/identity-shown", derived=lambda a, b: (a + b) ** 2,
                               stated=lambda a, b: a**2 + 2 * a * b + b**2, symbols="a b", register=False)
    r = run_claim_object(c)
    assert r["verdict"] == "verified", r["evidence"]
    assert r["evidence"]["displayed_derivations"] == [{"derivation": "test/identity-shown", "decided": True}]
    a = sp.Symbol("a")
    c.derivations = lambda: [Derivation("test/identity-shown", "test", a**2, a**2)]
    assert run_claim_object(c)["verdict"] == "error"


def test_a_display_whose_arguments_all_have_defaults_is_called_with_none():
    """``def derivations(wrong=False)`` is called with no argument (the parameters would set ``wrong``: show
    printed the control's derivation for examples/display_ledger); one required argument gets the parameters."""
    def shown(wrong: bool = False):
        return [_power(3, wrong=wrong)]
    c = _claim(shown)
    assert not c.takes_parameters() and c.shown_derivations() == [_power(3)]
    assert run_claim_object(c)["verdict"] == "verified"
    assert _claim(lambda p, extra=1: [_power(p.n)]).takes_parameters()
