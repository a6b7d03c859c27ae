"""Claims whose pytest items must fail or skip for other reasons (tests/engine/test_pytest_plugin.py): a
true statement whose negative control survives (the check cannot fail), and an undecidable one."""
from dataclasses import dataclass

import softmix


@dataclass
class P:
    n: int = 5


@softmix.claim(id="pt-weak-control", title="n + 0 = n, checked without looking at the control", source="test",
               controls={"plus-one": "n + 1 = n (the check ignores it)"})
def weak_control(p: P, ctx):
    ctx.control("plus-one")  # asked, then ignored: the control survives
    return softmix.part("numeric", [{"n": p.n, **softmix.Residual(digits=20).decide(p.n + 0 - p.n)}])


@softmix.claim(id="pt-undecided", title="a Monte Carlo mean whose standard error is zero", source="test",
               controls={"shifted": "predicted mean shifted by one, with a real standard error"})
def undecided(p: P, ctx):
    if ctx.control("shifted"):
        return softmix.part("monte-carlo", [softmix.ZTest(1e-3).decide(1.0, 0.01, 2.0)])  # refuted
    return softmix.part("monte-carlo", [softmix.ZTest(1e-3).decide(1.0, 0.0, 1.0)])  # zero s.e.: cannot decide
