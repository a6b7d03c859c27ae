"""The claim lda-finite-prompt (checks.paper.lda_finite_prompt): confirmed at the quick profile, controls refuted."""

from softmix.checks.runner import run_claim

#: claims whose verdict and controls this file asserts (tests/paper/claim_shards.py skips them: no double runs)
CLAIMS = ["lda-finite-prompt"]


def test_claim_quick_confirmed_controls_refuted():
    r = run_claim("lda-finite-prompt", profile="quick", seed=1)
    assert r["verdict"] == "confirmed", r["evidence"].get("passed")
    assert r["negative_controls"] and all(c["refuted"] for c in r["negative_controls"])
    ev = r["evidence"]
    gaps = [row["gap"] for row in ev["per_L"]]
    assert gaps[-1] < gaps[0] and ev["slope_fit"]["ci"][1] < 0
    fig = ev["figures"][0]
    assert fig["xscale"] == "log" and fig["series"][0]["x"] == [4, 16, 64, 256]
