"""Registry-wide CI coverage, shard 0 of claim_shards.N_SHARDS (see tests/paper/claim_shards.py)."""
from .claim_shards import make_test

test_registered_claim_and_controls = make_test(0)
