"""The claims of examples/display_ledger/paper.md, decided with SymPy (see ledger.toml beside it).

Run:  softmix verify --plugin examples/display_ledger/claims.py
      softmix coverage --displays --ledger examples/display_ledger/ledger.toml --plugin examples/display_ledger/claims.py
"""
from dataclasses import dataclass

import sympy as sp

import softmix

x = sp.Symbol("x", real=True)


def derivations(wrong: bool = False) -> list:
    """The derivations the ledger cites by name: derived from the definition q(x) = (x + 1)^2."""
    stated = x**2 + (1 if wrong else 2) * x + 1
    return [softmix.Derivation(name="expanding (x + 1)^2", source="tiny paper, Lemma 2.1 (proof)",
                               derived=sp.expand((x + 1) ** 2), stated=stated)]


@dataclass
class P:
    pass


@softmix.claim(id="tiny-lemma-2.1", title="q(x) = x^2 + 2x + 1", source="tiny paper, Lemma 2.1", kind="symbolic",
               controls={"wrong-coefficient": "the statement with 2x replaced by x"},
               derivations=derivations, configurations_note="a SymPy identity in one real symbol")
def tiny_lemma(p: P, ctx):
    return softmix.decide(derivations(wrong=ctx.control("wrong-coefficient")), ctx)
