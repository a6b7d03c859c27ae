"""Every registered claim is run with its controls by some test (tests/paper/claim_shards.py)."""
from .claim_shards import N_SHARDS, covered_elsewhere, registered, shard_ids


def test_every_registered_claim_is_run_by_exactly_one_test():
    reg = registered()
    covered = covered_elsewhere()
    stale = covered - set(reg)
    assert not stale, f"section tests name claims that are not registered: {sorted(stale)}"
    shards = [shard_ids(k) for k in range(N_SHARDS)]
    in_shards = [c for s in shards for c in s]
    assert len(in_shards) == len(set(in_shards)), "a claim is in two shards"
    assert set(in_shards).isdisjoint(covered), "a claim would run twice"
    assert set(in_shards) | covered == set(reg)
    # the claims the issue found in no test are run
    for cid in ("bb-lemma-2.1", "lemma-b.10", "linear-fixed-proportions", "prop-a.1", "prop-b.12"):
        assert cid in in_shards or cid in covered
