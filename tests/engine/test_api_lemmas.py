"""softmix.claim(independence=...) and softmix.decide(kind="lemma") (added by the paper port, issue 25)."""
from dataclasses import dataclass

import sympy as sp

from softmix.checks.api import claim, combine, decide, part
from softmix.checks.registry import Context
from softmix.theory.derivation import Derivation

x = sp.Symbol("x", positive=True)


@dataclass
class P:
    n: int = 1


def _claim(**kw):
    return claim(id="lemma-demo", title="t", source="s", controls={"c": "d"}, register=False, **kw)(
        lambda p, ctx: part("numeric", [{"passed": True}]))


def test_independence_is_an_argument_of_the_claim():
    assert _claim(params=P, independence="derived side: a; stated side: b; shared: nothing").independence.startswith(
        "derived side: a")
    assert _claim(params=P).independence == ""


def test_lemmas_refute_but_never_verify():
    ctx = Context("lemma-demo", "quick", 1, claim=_claim(params=P))
    true, false = Derivation("2x", "s", x + x, 2 * x), Derivation("3x", "s", x + x, 3 * x)
    numeric = part("numeric", [{"passed": True}])
    lemma = decide([true], ctx, kind="lemma")
    assert lemma.kind == "lemma" and lemma.verdict == "verified"
    assert combine([lemma, numeric]) == "confirmed"  # a lemma is evidence, not a proof of the statement
    assert combine([decide([true], ctx), numeric]) == "verified"  # the same derivation as the proof
    assert combine([decide([false], ctx, kind="lemma"), numeric]) == "refuted"
