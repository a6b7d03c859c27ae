"""``softmix.claim(independence=...)``: the claim's independence line is an argument, written once."""
from __future__ import annotations

from dataclasses import dataclass

import softmix
from softmix.checks.api import claim


@dataclass
class _P:
    x: int = 1


def _check(p: _P, ctx):
    return softmix.part("numeric", [{"passed": True}])


def test_independence_is_a_claim_argument():
    line = "derived side: a; stated side: b; shared: nothing"
    c = claim(id="tmp-independence", title="t", source="s", controls={"c": "d"}, independence=line,
              register=False)(_check)
    assert c.independence == line
    bare = claim(id="tmp-no-line", title="t", source="s", controls={"c": "d"}, register=False)(_check)
    assert bare.independence == ""
