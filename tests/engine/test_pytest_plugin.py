"""Claims in a user's own test suite: the pytest plugin (checks/pytest_plugin.py, tested as pytest
processes in a temporary directory), softmix.testing (checks/testing.py) and the example test in
examples/ that a user would write."""
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import mpmath as mpm
import numpy as np
import pytest

import softmix
from softmix.testing import InconclusiveClaimWarning, assert_agrees, assert_claim, assert_float64_agrees, claim_report

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "tests" / "plugins"


def _pytest(args, cwd, **env):
    """``python -m pytest ARGS`` in ``cwd`` with no ini file of this project (a user's repository)."""
    full_env = {**os.environ, **env}
    full_env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600, env=full_env)


def test_a_claim_file_gives_one_item_per_claim_true_pass_false_fail_with_counterexample(tmp_path):
    shutil.copy(PLUGINS / "pytest_user_claims.py", tmp_path / "user_claims.py")
    out = _pytest(["--softmix-claims", "user_claims.py", "--softmix-seed", "11", "-rA"], tmp_path)
    text = out.stdout + out.stderr
    assert out.returncode == 1, text
    assert "softmix claims: 1 file(s), seed 11, profile quick (--softmix-seed, --softmix-profile)" in text
    assert "2 failed, 2 passed" in text
    for cid in ("pt-true-affine", "pt-true-sum"):
        assert f"PASSED user_claims.py::{cid}" in text
    for cid in ("pt-false-prior", "pt-false-squares"):
        assert f"FAILED user_claims.py::{cid}" in text
    # the operator statement's failure names its (shrunk) counterexample and the reproducing command
    prior = text[text.index("claim pt-false-prior: refuted (seed 11, profile quick)"):]
    assert "counterexample:" in prior and "stated_value = " in prior and "operator_value = " in prior
    assert "negative controls: 3/3 refuted" in prior
    assert "reproduce: pytest 'user_claims.py::pt-false-prior'" in prior and "--softmix-seed 11" in prior
    squares = text[text.index("claim pt-false-squares: refuted"):]
    assert "failing row: numeric: " in squares and "negative controls: 1/1 refuted" in squares


def test_surviving_controls_fail_inconclusive_skips_and_strict_fails(tmp_path):
    shutil.copy(PLUGINS / "pytest_edge_claims.py", tmp_path / "edge_claims.py")
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "SOFTMIX_NO_ENTRY_POINTS": "1"}  # -p loads it by name
    out = _pytest(["-p", "softmix.checks.pytest_plugin", "--softmix-claims", "edge_*.py", "-rA"], tmp_path, **env)
    text = out.stdout + out.stderr
    assert out.returncode == 1, text
    assert "1 failed, 1 skipped" in text
    weak = text[text.index("claim pt-weak-control: confirmed"):]
    assert "negative controls: 0/1 refuted; survived" in weak and "plus-one (confirmed)" in weak
    assert "SKIPPED" in text and "pt-undecided: inconclusive" in text and "zero or non-finite standard error" in text
    strict = _pytest(["-p", "softmix.checks.pytest_plugin", "--softmix-claims", "edge_claims.py", "--softmix-strict",
                      "-k", "undecided"], tmp_path, **env)
    assert strict.returncode == 1 and "1 failed" in strict.stdout, strict.stdout + strict.stderr


def test_the_plugin_is_inert_unless_asked_and_bad_paths_are_usage_errors(tmp_path):
    shutil.copy(PLUGINS / "pytest_edge_claims.py", tmp_path / "edge_claims.py")
    (tmp_path / "test_plain.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    out = _pytest(["-q"], tmp_path)
    assert out.returncode == 0 and "1 passed" in out.stdout and "softmix claims" not in out.stdout, out.stdout
    bad = _pytest(["--softmix-claims", "missing_*.py"], tmp_path)
    assert bad.returncode == 4 and "--softmix-claims missing_*.py: no such .py file" in bad.stderr, bad.stderr
    neg = _pytest(["--softmix-claims", "edge_claims.py", "--softmix-seed", "-3"], tmp_path)
    assert neg.returncode == 4 and "non-negative" in neg.stderr, neg.stderr


def test_the_example_test_a_user_would_write_passes():
    out = subprocess.run([sys.executable, "-m", "pytest", "examples/test_my_operator.py", "-n", "0",
                          "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and "3 passed" in out.stdout, out.stdout + out.stderr


# ---- softmix.testing, in process -----------------------------------------------------------------
USER = str(PLUGINS / "pytest_user_claims.py")
EDGE = str(PLUGINS / "pytest_edge_claims.py")


def test_assert_claim_passes_true_claims_and_raises_the_report_on_false_ones():
    res = assert_claim("pt-true-sum", plugins=USER, seed=3)
    assert res["verdict"] == "confirmed"
    with pytest.raises(AssertionError) as e:
        assert_claim("pt-false-squares", plugins=[USER], seed=3)
    msg = str(e.value)
    assert msg.startswith("claim pt-false-squares: refuted (seed 3, profile quick)")
    assert "failing row: numeric:" in msg
    assert f"reproduce: softmix verify --plugin {USER} pt-false-squares --seed 3" in msg


def test_assert_claim_on_inconclusive_warns_or_fails_when_strict():
    with pytest.warns(InconclusiveClaimWarning, match="zero or non-finite standard error"):
        assert assert_claim("pt-undecided", plugins=EDGE)["verdict"] == "inconclusive"
    with pytest.raises(AssertionError, match="pt-undecided: inconclusive"):
        assert_claim("pt-undecided", plugins=EDGE, strict=True)
    with pytest.raises(AssertionError, match=r"survived .*\n    plus-one"):
        assert_claim("pt-weak-control", plugins=EDGE)


def test_claim_report_shows_an_error_and_its_exception():
    text = claim_report({"id": "x", "verdict": "error", "evidence": {"exception": "ZeroDivisionError: boom",
                                                                     "traceback": "a\nb\nc"}, "negative_controls": []},
                        seed=1, profile="quick")
    assert "claim x: error (seed 1, profile quick)" in text and "exception: ZeroDivisionError: boom" in text


def _mix():
    return softmix.GaussianMixture.from_values(["2/7", "5/7"], [["1/3", "-1/2"], ["3/4", "1/5"]],
                                               [[["1", "1/3"], ["1/3", "1/2"]], [["2/3", "0"], ["0", "1/4"]]])


def test_assert_float64_agrees_passes_on_the_operator_and_catches_a_wrong_float_path():
    mix, U, V, z = _mix(), np.array([[0.5, -1.0], [0.25, 2.0]]), np.array([[1.0, -0.75], [0.5, 0.25]]), [0.5, -1.5]
    mp = lambda: softmix.softmax_attention_mp(mix, U, V, z, dps=40)
    ok = assert_float64_agrees(lambda: softmix.softmax_attention(mix, U, V, [z])[0], mp)
    assert ok["verdict"] == "confirmed" and ok["ulps_used"] <= 64
    with pytest.raises(AssertionError, match=r"(?s)refuted: float64-agreement.*worst entry \[0\]"):
        assert_float64_agrees(lambda: softmix.softmax_attention(mix, U, V, [z])[0] * (1 + 1e-12), mp)
    with pytest.raises(AssertionError, match="(?s)inconclusive.*non-finite"):
        assert_float64_agrees(lambda: [np.nan, 0.0], mp)
    with pytest.raises(AssertionError, match="2 entries but the reference has 1"):
        assert_float64_agrees(lambda: [1.0, 2.0], lambda: mpm.mpf(1))


def test_float64_agreement_known_tolerances():
    r = softmix.Float64Agreement(condition=10)
    assert r.rtol == 64 * 10 * 2.0 ** -52 and r.tolerance(1e-3) == r.rtol and r.tolerance(-5) == 5 * r.rtol
    eps = 2.0 ** -52
    assert r.decide(600 * eps)["verdict"] == "confirmed" and r.decide(700 * eps)["verdict"] == "refuted"
    assert r.decide(np.array([1e-20, 600 * eps * 3]), scale=[3.0, -1.0])["verdict"] == "confirmed"
    assert softmix.Float64Agreement(floor=0).decide(1e-300, scale=0)["verdict"] == "refuted"
    with pytest.raises(ValueError):
        softmix.Float64Agreement(condition=0.5)


def test_residual_digits_say_what_they_mean():
    assert softmix.Residual(digits=12).dps == 22 and softmix.Residual(12).digits == 2
    assert softmix.Residual(dps=50, guard=5).digits == 45
    r = softmix.Residual(digits=12)
    assert r.decide(mpm.mpf("9e-13"))["verdict"] == "confirmed" and r.decide(mpm.mpf("2e-12"))["verdict"] == "refuted"
    from fractions import Fraction
    assert r.decide(Fraction(1, 10**11), scale=Fraction(-100))["verdict"] == "confirmed"  # 1e-11 <= 1e-12 * 100
    with pytest.raises(TypeError):
        softmix.Residual()
    with pytest.raises(TypeError):
        softmix.Residual(40, digits=30)
    with pytest.raises(ValueError, match="leaves 0 digit"):
        softmix.Residual(10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_agrees([Fraction(1, 3)], [Fraction(1, 3)], softmix.Residual(digits=30))
