"""The mutation suite: every fault applies cleanly, and an injected fault is caught end to end."""
import pytest

from softmix.checks.mutation import FAULTS, NULL_FAULT, ROOT, run_fault


def test_at_least_30_faults_with_unique_ids():
    assert len(FAULTS) >= 30
    assert len({f.id for f in FAULTS}) == len(FAULTS)


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.id)
def test_each_fault_applies_exactly_once(fault):
    text = (ROOT / fault.path).read_text()
    assert text.count(fault.old) == 1
    assert fault.path.startswith(("theory/", "numerics/"))


def test_a_fault_is_caught_and_the_clean_tree_is_not():
    row = run_fault(next(f for f in FAULTS if f.id == "shared-linear-term"))
    assert row["caught"] and any("prop-2.1-shared" in c for c in row["caught_by"])
    clean = run_fault(NULL_FAULT)
    assert not clean["caught"] and clean["caught_by"] == []
