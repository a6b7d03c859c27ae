"""Every registered claim runs with its negative controls in CI (quick profile).

The registry is iterated, so claims that other modules or plugins register later are covered
without editing this file.  Claims whose verdict and controls a section test already asserts
(the lists named in ``CLAIM_LISTS`` of the modules in ``SECTION_TESTS``) are skipped here, so no
claim runs twice in one test session.  The remaining claims are split into ``N_SHARDS`` shards by a
stable hash of their id; each shard file runs ``softmix verify IDS --workers 2 --json`` as a real
process (so CI also exercises the verify command) and asserts, per claim: decided (verified or
confirmed) and every control refuted.
"""
from __future__ import annotations

import functools
import importlib
import json
import os
import subprocess
import sys
import zlib

import pytest

N_SHARDS = 2
SEED = 20261130
#: section test modules with a CLAIMS (or CERT_IDS) list of claims they run with their controls
SECTION_TESTS = ("paper.test_beyond_claims", "paper.test_certificates", "engine.test_cli", "paper.test_coverage",
                 "paper.test_denoising", "paper.test_lda", "paper.test_lda_dynamics", "paper.test_lda_landscape",
                 "paper.test_lda_finite_prompt", "numerics.test_risk")
#: module attributes naming the claims a section test runs with their controls
CLAIM_LISTS = ("CLAIMS", "CERT_IDS", "CLAIMS_ALSO_RUN", "NEW_CLAIMS", "RISK_CLAIMS")


def covered_elsewhere() -> set[str]:
    ids: set[str] = set()
    for name in SECTION_TESTS:
        mod = importlib.import_module(name)
        for attr in CLAIM_LISTS:
            ids |= set(getattr(mod, attr, ()))
    return ids


@functools.lru_cache(maxsize=None)
def _registered() -> tuple:
    # a fresh process: what `softmix verify` sees (entry points), not claims that tests register in-process
    code = "import json; from softmix.checks.registry import load_all; print(json.dumps(list(load_all())))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return tuple(json.loads(r.stdout.strip().splitlines()[-1]))


def registered() -> list[str]:
    """Every claim id registered through the ``softmix.claims`` entry points, in registry order."""
    return list(_registered())


def shard_of(cid: str) -> int:
    return zlib.crc32(cid.encode()) % N_SHARDS


def shard_ids(k: int) -> list[str]:
    skip = covered_elsewhere()
    return [c for c in registered() if c not in skip and shard_of(c) == k]


_RESULTS: dict[int, dict] = {}


def shard_results(k: int, tmp_root) -> dict:
    """Run shard ``k`` once per session as a ``softmix verify`` process; {claim id: result}."""
    if k not in _RESULTS:
        ids = shard_ids(k)
        out = os.path.join(str(tmp_root), f"shard{k}.json")
        cmd = [sys.executable, "-m", "softmix", "verify", *ids, "--profile", "quick", "--seed", str(SEED),
               "--workers", "2", "--quiet", "--json", out]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=1500)
        assert r.returncode in (0, 1), r.stderr[-3000:]
        with open(out) as fh:
            doc = json.load(fh)
        from softmix.checks.schema import validate

        validate(doc)
        _RESULTS[k] = {c["id"]: c for c in doc["claims"]}
    return _RESULTS[k]


def check_claim(res: dict):
    assert res["verdict"] in ("verified", "confirmed"), (res["verdict"], json.dumps(res["evidence"])[:2000])
    led = res["evidence"].get("alpha")
    if isinstance(led, dict) and "family_alpha" in led:  # an AlphaFamily ledger: within the claim's 1e-3
        assert led["family_alpha"] <= 1e-3 * (1 + 1e-12) and led["spent"] <= led["family_alpha"] * (1 + 1e-12), led
    assert res["negative_controls"], f"{res['id']} has no negative control"
    for c in res["negative_controls"]:
        assert c["verdict"] == "refuted" and c["refuted"], (res["id"], c["id"], json.dumps(c["evidence"])[:1500])


def make_test(k: int):
    """The parametrized test of shard ``k`` (one test per claim, one verify process per shard)."""
    ids = shard_ids(k)

    @pytest.mark.parametrize("cid", ids or [pytest.param(None, marks=pytest.mark.skip(reason="empty shard"))])
    def test_registered_claim_and_controls(cid, tmp_path_factory):
        root = tmp_path_factory.getbasetemp()
        check_claim(shard_results(k, root)[cid])

    return test_registered_claim_and_controls
