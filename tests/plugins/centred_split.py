"""A claim whose assumption reads a mixture given in pieces (a proportion and two mean vectors), for
tests/engine/test_engine_assumptions_known.py: its assumption-dropped control and a --config that breaks it."""
from dataclasses import dataclass, field
from fractions import Fraction

import softmix
from softmix.checks.assumptions import Centred


@dataclass
class Split:
    pi_plus: str = "0.25"
    m1: list = field(default_factory=lambda: ["3", "-6"])
    m_1: list = field(default_factory=lambda: ["-1", "2"])


@softmix.claim(id="centred-split", title="a centred two-component mixture has mean zero", source="test",
               controls={"swapped-weights": "the weights swapped"}, assumptions=[Centred("pi_plus", "m1", "m_1")])
def centred_split(p: Split, ctx):
    pi = Fraction(p.pi_plus)
    pi = 1 - pi if ctx.control("swapped-weights") else pi
    mean = [pi * Fraction(a) + (1 - pi) * Fraction(b) for a, b in zip(p.m1, p.m_1)]
    return softmix.part("exact", [{"mean": [str(x) for x in mean], "passed": all(x == 0 for x in mean)}])
