"""``@softmix.claim(independence=...)``: the claim's independence line, written once as an argument."""
from dataclasses import dataclass

import softmix


@dataclass
class _P:
    x: int = 1


def test_independence_is_an_argument_of_the_claim():
    c = softmix.claim(id="indep-demo", title="t", source="s", controls={"c": "d"}, params=_P, register=False,
                      independence="derived side: a; stated side: b; shared: nothing")(lambda p, ctx: None)
    assert c.independence == "derived side: a; stated side: b; shared: nothing"
    d = softmix.claim(id="indep-demo-2", title="t", source="s", controls={"c": "d"}, params=_P,
                      register=False)(lambda p, ctx: None)
    assert d.independence == ""
