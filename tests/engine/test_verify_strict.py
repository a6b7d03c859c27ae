"""`softmix verify` summary counts per verdict and --strict (inconclusive fails), as a real process."""
import json
import os
import subprocess
import sys

import pytest

from softmix.checks.schema import validate

PLUGIN = '''
from softmix.checks.registry import Claim, Control, Outcome, register


def _check(params, ctx):
    if ctx.variant == "wrong":
        return Outcome("refuted", {"why": "control"})
    return Outcome(params["verdict"], {"rule": "returns the verdict it is given"})


register(Claim(id="stub-inconclusive", title="stub", source="test", statement="stub", section="user",
               check=_check, defaults={"verdict": "inconclusive"}, controls=(Control("wrong", "refuted"),)))
register(Claim(id="stub-confirmed", title="stub", source="test", statement="stub", section="user",
               check=_check, defaults={"verdict": "confirmed"}, controls=(Control("wrong", "refuted"),)))
'''


def _verify(tmp_path, *extra):
    plug = tmp_path / "stub_plugin.py"
    plug.write_text(PLUGIN)
    out = tmp_path / "v.json"
    env = dict(os.environ, SOFTMIX_NO_ENTRY_POINTS="1")
    r = subprocess.run([sys.executable, "-m", "softmix", "verify", "stub-inconclusive", "stub-confirmed",
                        "--plugin", str(plug), "--workers", "1", "--json", str(out), *extra],
                       capture_output=True, text=True, env=env, timeout=300)
    return r, json.loads(out.read_text())


@pytest.mark.parametrize("strict", [False, True])
def test_summary_counts_and_strict(tmp_path, strict):
    r, doc = _verify(tmp_path, *(["--strict"] if strict else []))
    assert r.returncode == (1 if strict else 0), r.stderr
    validate(doc)
    assert doc["counts"]["inconclusive"] == 1 and doc["counts"]["confirmed"] == 1
    assert doc["counts"]["refuted"] == 0 and doc["counts"]["controls_survived"] == 0
    assert doc["strict"] is strict and doc["exit_code"] == (1 if strict else 0)
    summary = r.stdout.strip().splitlines()[-1]
    assert "0 verified, 1 confirmed, 0 refuted, 1 inconclusive, 0 error" in summary
    assert "0 control(s) survived" in summary
