"""The step claims' own bookkeeping (checks/paper/steps_common.py): every derivation a step claim decides is
labelled by the display it decides, so the ledger can account for it."""
import pytest
import sympy as sp

from softmix.checks.paper.steps_common import SOURCE, check_labels
from softmix.theory.derivation import Derivation

x = sp.Symbol("x", real=True)


@pytest.mark.parametrize("name", ["B.12#6 w' = -G_t grad L(w)", "B.5.5#3 g at zeta_R", "4.2#3 the head", "C.6#12 x"])
def test_display_labels_pass(name):
    check_labels([Derivation(name, f"{SOURCE}, App. B", x + 1, x + 1)])


@pytest.mark.parametrize("name,source", [
    (f"{SOURCE}, App. B.12 (proof of Theorem 3.6)", "B.12#6 w' = -G_t grad L(w)"),  # name and source swapped
    ("w' = -G_t grad L(w)", f"{SOURCE}, App. B.12"),                                  # no display label
    ("B.12#6 w'", "App. B.12"),                                                        # source not in the paper
])
def test_an_unlabelled_derivation_is_an_error_of_the_claim(name, source):
    with pytest.raises(ValueError, match="not labelled by its display"):
        check_labels([Derivation(f"B.4#1 {x}", f"{SOURCE}, App. B.4", x, x), Derivation(name, source, x + 1, x + 1)])


def test_every_shipped_step_claim_labels_its_derivations():
    from softmix.checks.registry import load_all

    steps = {cid: c for cid, c in load_all().items() if cid.startswith("steps-")}
    assert len(steps) >= 20
    for c in steps.values():
        check_labels(c.derivations())
