"""The CLI as a real process: exit codes, JSON shape, 40-digit agreement, bad input."""
import json
import shutil
import subprocess
import sys

import mpmath as mpm
import pytest

from softmix.checks.schema import validate
from softmix.numerics.mixture import GaussianMixture
from softmix.numerics.quadrature import expect_mixture


def softmix(*args, cwd=None):
    exe = shutil.which("softmix")
    cmd = [exe] if exe else [sys.executable, "-m", "softmix"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, cwd=cwd, timeout=600)


MIX = {"weights": ["0.25", "0.75"], "means": [["1.5", "-1"], ["0", "0.5"]],
       "covariances": [[["1", "0.2"], ["0.2", "0.5"]], [["0.25", "0.5"], ["0.5", "1"]]]}  # 2nd is singular
U = [["0.5", "0.1"], ["-0.2", "0.4"]]
V = [["1", "0"], ["0.5", "-1"]]


@pytest.fixture
def files(tmp_path):
    def write(name, obj):
        p = tmp_path / name
        p.write_text(json.dumps(obj))
        return str(p)
    return write


def test_list_and_show():
    r = softmix("list")
    assert r.returncode == 0 and "prop-2.1" in r.stdout and "fp-bias" in r.stdout
    r = softmix("show", "prop-2.1-shared")
    assert r.returncode == 0 and "derived" in r.stdout and "negative control" in r.stdout


def test_attention_40_digits_matches_independent_quadrature(files):
    m, u, v = files("m.json", MIX), files("u.json", U), files("v.json", V)
    r = softmix("attention", "--mixture", m, "--U", u, "--V", v, "--query", "0.7,-1.2", "--dps", "40")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    mix = GaussianMixture.from_json_obj(MIX)
    with mpm.workdps(60):
        Um = mpm.matrix([[mpm.mpf(x) for x in row] for row in U])
        Vm = mpm.matrix([[mpm.mpf(x) for x in row] for row in V])
        a = Um * mpm.matrix([mpm.mpf("0.7"), mpm.mpf("-1.2")])
        f = lambda x: mpm.exp(a[0] * x[0] + a[1] * x[1]) * mpm.matrix([1, x[0], x[1]])
        q = expect_mixture(f, mix, n=50, dps=60)
        ref = Vm * mpm.matrix([q[1] / q[0], q[2] / q[0]])
        for got, want in zip(doc["softmax"], ref):
            assert abs(mpm.mpf(got) - want) <= mpm.mpf(10) ** -30 * abs(want)
    assert len(doc["gates"]) == 2 and len(doc["linear"]) == 2


def test_finite_prompt_constants_and_monte_carlo(files):
    m, u, v = files("m.json", MIX), files("u.json", U), files("v.json", V)
    r = softmix("finite-prompt", "--mixture", m, "--U", u, "--V", v, "--query", "0.7,-1.2", "--dps", "30")
    assert r.returncode == 0, r.stderr
    hi = json.loads(r.stdout)
    r = softmix("finite-prompt", "--mixture", m, "--U", u, "--V", v, "--query", "0.7,-1.2",
                "--mc", "50,400", "--reps", "4000", "--seed", "3")
    assert r.returncode == 0, r.stderr
    lo = json.loads(r.stdout)
    assert abs(float(lo["rho"]) - float(hi["rho"])) < 1e-12 * float(hi["rho"])
    for a, b in zip(lo["bias_coefficient"], hi["bias_coefficient"]):
        assert abs(a - float(b)) < 1e-12 * max(1, abs(float(b)))
    mc, dec = lo["monte_carlo"], lo["decision"]
    assert [row["L"] for row in mc["per_L"]] == [50, 400]
    # the verdict on lim L * MSE (checks.mc_verdict): inside the expansion's reach here, one alpha for the run
    assert dec["reach"]["inside"] and dec["verdict"] == "confirmed" and "confirmed" in r.stderr
    assert abs(dec["alpha"]["spent"] - 1e-3) < 1e-12 and list(dec["alpha"]["tests"]) == ["limit"]


@pytest.mark.parametrize("mix,msg", [
    ({"weights": [0.5, 0.6], "means": [[0], [1]], "covariances": [[[1]], [[1]]]}, "sum to"),
    ({"weights": [1], "means": [[0, 0]], "covariances": [[[1, 2], [2, 1]]]}, "semidefinite"),
    ({"weights": [1], "means": [[0, 0]], "covariances": [[[1, 0.3], [0, 1]]]}, "symmetric"),
    ({"weights": [1], "means": [[0, 0, 0]], "covariances": [[[1, 0], [0, 1]]]}, "3x3"),
    ({"weights": [1], "means": [[0, "NaN"]], "covariances": [[[1, 0], [0, 1]]]}, "non-finite"),
])
def test_bad_input_exit_2_one_line(files, mix, msg):
    m = files("m.json", mix)
    u, v = files("u.json", [[1, 0], [0, 1]]), files("v.json", [[1, 0], [0, 1]])
    r = softmix("attention", "--mixture", m, "--U", u, "--V", v, "--query", "0,0")
    assert r.returncode == 2
    assert msg in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_usage_errors_exit_2(files, tmp_path):
    assert softmix("verify", "no-such-claim").returncode == 2
    assert softmix("frobnicate").returncode == 2
    cfg = files("c.json", {"no-such-section": {}})
    r = softmix("verify", "prop-2.1", "--config", cfg)
    assert r.returncode == 2 and "unknown claim id or section" in r.stderr
    r = softmix("verify", "prop-2.1", "--quiet", "--verbose")
    assert r.returncode == 2
    (tmp_path / "bad.json").write_text("{not json")
    r = softmix("verify", "prop-2.1", "--config", str(tmp_path / "bad.json"))
    assert r.returncode == 2 and "invalid JSON" in r.stderr


#: claims whose verdict and controls this file asserts (tests/paper/claim_shards.py skips them: no double runs)
CLAIMS = ["prop-2.1-shared", "fp-covariance"]


def test_verify_json_shape_and_verdicts(tmp_path):
    """One run: schema, keys and verdicts (same seed -> same JSON is tests/engine/test_seeds.py's job)."""
    out1 = tmp_path / "a.json"
    r = softmix("verify", *CLAIMS, "--seed", "5", "--json", str(out1), "--quiet")
    assert r.returncode == 0, r.stderr
    d1 = json.loads(out1.read_text())
    validate(d1)
    assert set(d1) >= {"claims", "seed", "profile", "versions"}
    c = d1["claims"][0]
    assert set(c) >= {"id", "title", "source", "verdict", "evidence", "negative_controls", "seconds"}
    for c in d1["claims"]:  # decided, every control refuted (these claims are not rerun by the shards)
        assert c["verdict"] in ("verified", "confirmed"), (c["id"], c["verdict"])
        assert c["negative_controls"] and all(n["refuted"] for n in c["negative_controls"])


def test_config_overrides_reach_the_claim(files, tmp_path):
    cfg = files("c.json", {"finite-prompt": {"reps": 3000}, "fp-covariance": {"L": 50}})
    out = tmp_path / "o.json"
    softmix("verify", "fp-covariance", "--config", cfg, "--json", str(out), "--quiet")
    doc = json.loads(out.read_text())
    validate(doc)
    assert doc["claims"][0]["parameters"]["L"] == 50 and doc["claims"][0]["parameters"]["reps"] == 3000
