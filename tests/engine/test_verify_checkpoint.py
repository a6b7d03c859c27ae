"""``softmix verify --checkpoint PATH``: a long run (the full profile takes hours on two cores)
survives being stopped.  Tested as a real process: the resumed run does no work for the claims
already decided and writes the same claims JSON as an uninterrupted run; a checkpoint written for
another seed, profile or configuration is refused with exit 2 and one line, before any claim runs."""
from __future__ import annotations

import json
import subprocess
import sys

CHEAP = ["remark-c.2", "lemma-b.13", "lemma-b.3"]


def _verify(*args, cwd):
    return subprocess.run([sys.executable, "-m", "softmix", "verify", *args, "--workers", "1"],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


def _claims(path):
    doc = json.loads(path.read_text())

    def strip(x):  # timings differ from run to run; everything else must not
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("seconds",)}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return strip(doc["claims"]), doc


def test_a_stopped_verify_resumes_with_the_same_results(tmp_path):
    ck = tmp_path / "ck.jsonl"
    whole = _verify(*CHEAP, "--seed", "5", "--json", str(tmp_path / "whole.json"), "--quiet", cwd=tmp_path)
    assert whole.returncode == 0, whole.stderr
    # a first segment decides one claim, then "stops"; the second decides the rest
    a = _verify(CHEAP[0], "--seed", "5", "--checkpoint", str(ck), "--quiet", cwd=tmp_path)
    assert a.returncode == 0, a.stderr
    rows = [json.loads(ln) for ln in ck.read_text().splitlines()]
    assert rows[0]["header"]["seed"] == 5 and "segment_start" in rows[1] and rows[2]["id"] == CHEAP[0]
    b = _verify(*CHEAP, "--seed", "5", "--checkpoint", str(ck), "--json", str(tmp_path / "resumed.json"),
                cwd=tmp_path)
    assert b.returncode == 0, b.stderr
    assert f"[1/{len(CHEAP)}]" not in b.stderr and f"[{len(CHEAP)}/{len(CHEAP)}]" in b.stderr  # one claim reused
    got, doc = _claims(tmp_path / "resumed.json")
    want, _ = _claims(tmp_path / "whole.json")
    assert got == want
    assert doc["checkpoint"]["resumed_claims"] == 1 and doc["checkpoint"]["segments"] == 2
    assert doc["checkpoint"]["wall_seconds_all_segments"] > 0
    # a third run with everything decided runs nothing and gives the same document
    c = _verify(*CHEAP, "--seed", "5", "--checkpoint", str(ck), "--json", str(tmp_path / "again.json"),
                "--quiet", cwd=tmp_path)
    assert c.returncode == 0 and _claims(tmp_path / "again.json")[0] == want
    assert json.loads((tmp_path / "again.json").read_text())["checkpoint"]["resumed_claims"] == len(CHEAP)


def test_a_checkpoint_of_another_run_is_refused_before_any_work(tmp_path):
    ck = tmp_path / "ck.jsonl"
    assert _verify(CHEAP[0], "--seed", "5", "--checkpoint", str(ck), "--quiet", cwd=tmp_path).returncode == 0
    before = ck.read_text()
    for extra in (["--seed", "6"], ["--seed", "5", "--profile", "full"]):
        r = _verify(CHEAP[0], *extra, "--checkpoint", str(ck), cwd=tmp_path)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "another run" in r.stderr and ("seed" in r.stderr or "profile" in r.stderr)
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"lemma-b.3": {}}))
    r = _verify(CHEAP[0], "--seed", "5", "--config", str(cfg), "--checkpoint", str(ck), cwd=tmp_path)
    assert r.returncode == 2 and "config" in r.stderr
    assert ck.read_text() == before  # nothing appended by a refused run
    (tmp_path / "junk.jsonl").write_text("not json\n")
    for bad, why in ((tmp_path / "junk.jsonl", "not a verify checkpoint"),
                     (tmp_path / "no" / "x.jsonl", "does not exist"),
                     (tmp_path, "is a folder")):
        r = _verify(CHEAP[0], "--checkpoint", str(bad), cwd=tmp_path)
        assert r.returncode == 2 and why in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
