"""The engine controls (checks/engine_controls.py): canaries with known judgements, run by every
``softmix verify``; breaking the engine must make verify exit 1 through them alone (issue 23).

* in process: every canary judged right; none of them registered; each of a dozen one-line breaks
  of the engine (the verdict lattice, claim_passed, exit_code, verdict_counts, the z-test's guard,
  the alpha budget, Context.control) makes a named canary judged wrongly;
* as processes on a patched copy of the source tree: letting ``error`` pass, and counting an
  inconclusive control as refuted, each make ``softmix verify eq-11`` (a true claim that passes)
  exit 1 with an ENGINE FAILURE line naming the canary; the unpatched copy exits 0 and lists every
  canary as judged right in its JSON.
"""
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import softmix
from softmix.checks import api, engine_controls as E, registry, rules, runner, verdicts
from softmix.checks.registry import REGISTRY, Claim, Context, Control, Outcome
from softmix.checks.schema import VERIFY_SCHEMA, validate

ROOT = Path(__file__).resolve().parents[2]
SEED = 20261130
IDS = ["engine/true", "engine/undisplayed", "engine/false", "engine/error-part", "engine/raises", "engine/overspent",
       "engine/inconclusive",
       "engine/control-survives", "engine/control-inconclusive", "engine/operator-d2", "engine/operator-d3",
       "engine/operator-assumptions", "engine/input-front-end"]
CHEAP = set(IDS) - {"engine/operator-d2", "engine/operator-d3", "engine/operator-assumptions"}


@pytest.fixture(scope="module")
def entries():
    return E.run_engine_controls(SEED)


def test_every_canary_is_judged_right(entries):
    assert [e["id"] for e in entries] == IDS
    assert all(e["judged_right"] and e["wrong"] == [] for e in entries), [e for e in entries if not e["judged_right"]]
    by = {e["id"]: e for e in entries}
    # the expected judgements, spelled out (a change to canaries() must change this test too)
    exp = {i: (by[i]["expected"]["verdict"], by[i]["expected"]["passed"], by[i]["expected"]["passed_strict"])
           for i in IDS}
    assert exp == {"engine/true": ("verified", True, True), "engine/undisplayed": ("error", False, False),
                   "engine/false": ("refuted", False, False),
                   "engine/error-part": ("error", False, False), "engine/raises": ("error", False, False),
                   "engine/overspent": ("error", False, False), "engine/inconclusive": ("inconclusive", True, False),
                   "engine/control-survives": ("confirmed", False, False),
                   "engine/control-inconclusive": ("confirmed", False, False),
                   "engine/operator-d2": ("verified", True, True), "engine/operator-d3": ("verified", True, True),
                   "engine/operator-assumptions": ("verified", True, True),
                   "engine/input-front-end": ("confirmed", True, True)}
    assert by["engine/input-front-end"]["observed"]["controls"] == {"perturbed-reference": "refuted"}
    for d in (2, 3):
        assert by[f"engine/operator-d{d}"]["observed"]["controls"] == {
            c: "refuted" for c in ("dropped-term", "flipped-sign", "gate-argument", "transposed-U")}
    assert by["engine/control-inconclusive"]["observed"]["controls"] == {"shifted": "inconclusive"}
    assert "AlphaOverspent" in by["engine/overspent"]["exception"]
    assert "raises by design" in by["engine/raises"]["exception"]
    assert "this run did not decide: two-expert gate (prior^2)" in by["engine/undisplayed"]["exception"]
    assert by["engine/inconclusive"]["observed"]["exit_code"] == 0 and by["engine/inconclusive"]["observed"][
        "exit_code_strict"] == 1
    # about 13 s of CPU on an idle machine; CPU, not wall time, which doubles when other work shares the cores
    assert sum(e["cpu_seconds"] for e in entries) < 60
    doc = {"claims": [], "seed": SEED, "profile": "quick", "versions": {}, "exit_code": 0,
           "engine_controls": entries, "engine_controls_skipped": False}
    validate(json.loads(json.dumps(doc)), VERIFY_SCHEMA)
    assert E.summary_line(entries).startswith("engine controls: 13/13 judged right")
    assert E.failure_lines(entries) == [] and E.judge_verify({**doc, "exit_code": 0}) == 0


def test_canaries_are_never_registered(entries):
    before = set(registry.load_all())
    E.canaries()
    built = [c.build() for c in E.canaries() if c.id in CHEAP]
    assert all(isinstance(c, Claim) for c in built)
    assert set(registry.load_all()) == before and not [k for k in REGISTRY if k.startswith("engine/")]


# ---- one-line breaks of the engine, in process --------------------------------------------------------
def _lets_error_pass(res, strict=False):
    bad = ("refuted", "inconclusive") if strict else ("refuted",)
    return res["verdict"] not in bad and all(c["refuted"] for c in res["negative_controls"])


def _ignores_controls(res, strict=False):
    return res["verdict"] not in (("refuted", "error", "inconclusive") if strict else ("refuted", "error"))


def _lax_strict(res, strict=False):
    return res["verdict"] not in ("refuted", "error") and all(c["refuted"] for c in res["negative_controls"])


def _combine_error_first(parts):
    vs = [p.verdict for p in parts]
    for v in ("error", "refuted", "inconclusive"):
        if v in vs:
            return v
    return "verified" if all(p.verdict == "verified" for p in parts) else "confirmed"


def _combine_inconclusive_first(parts):
    vs = [p.verdict for p in parts]
    for v in ("refuted", "inconclusive", "error"):
        if v in vs:
            return v
    return "verified" if all(p.verdict == "verified" for p in parts if p.kind == "symbolic") else "confirmed"


_RESIDUAL = rules.residual_test


def _no_survivor_count(results):
    from softmix.checks.registry import VERDICTS

    counts = {v: 0 for v in VERDICTS}
    for r in results:
        counts[r["verdict"]] += 1
    counts["controls_survived"] = 0
    return counts


BREAKS = {  # name -> (module, attribute, replacement, a canary that must then be judged wrongly)
    "claim_passed lets error pass": (runner, "claim_passed", _lets_error_pass, "engine/raises"),
    "claim_passed ignores controls": (runner, "claim_passed", _ignores_controls, "engine/control-inconclusive"),
    "--strict ignores inconclusive": (runner, "claim_passed", _lax_strict, "engine/inconclusive"),
    "combine ranks error above refuted": (verdicts, "combine", _combine_error_first, "engine/false"),
    "combine ranks inconclusive above error": (verdicts, "combine", _combine_inconclusive_first, "engine/error-part"),
    "exit_code always 0": (runner, "exit_code", lambda results, strict=False: 0, "engine/false"),
    "surviving controls not counted": (runner, "verdict_counts", _no_survivor_count, "engine/control-survives"),
    "z-test without its zero-se guard": (rules, "_finite_positive", lambda se: True, "engine/control-inconclusive"),
    "AlphaFamily never overspent": (rules.AlphaFamily, "_spend", lambda self, name, amount: None, "engine/overspent"),
    "Context.control never true": (Context, "control", lambda self, name: False, "engine/true"),
    "displays never compared": (runner, "_displayed_decided", lambda claim, params, over, ctx, out: out,
                                "engine/undisplayed"),
    "Residual tolerance of order one": (rules, "residual_test", lambda r, dps, scale=1, guard=10: _RESIDUAL(
        r, dps, scale, guard + dps), "engine/error-part"),  # a numeric-only control is no longer refuted
}

@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(BREAKS))
def test_each_break_of_the_engine_is_caught_by_a_canary(monkeypatch, name):
    mod, attr, repl, canary = BREAKS[name]
    monkeypatch.setattr(mod, attr, repl)
    entries = E.run_engine_controls(SEED, only=CHEAP)
    wrong = {e["id"] for e in entries if not e["judged_right"]}
    assert canary in wrong, (name, wrong)
    doc = {"exit_code": 0, "engine_controls": entries}
    assert E.judge_verify(doc) == 1
    assert any(canary in line and "ENGINE FAILURE" in line for line in E.failure_lines(entries))


def _spec_never_drops(self, drop=None):
    from softmix.checks.operator_family import family_spec

    return family_spec(self.assumptions, self.base, None, self.K)


ASSUMPTION_BREAKS = {  # the declared assumptions' machinery, seen by the operator canary that declares two
    "an assumption-dropped control run on the assumed family": ("softmix.checks.operator_family.Head.spec",
                                                                _spec_never_drops),
    "a needless assumption fails the run": ("softmix.checks.runner.control_failed", lambda c: not c.get("refuted")),
}


@pytest.mark.parametrize("name", sorted(ASSUMPTION_BREAKS))
def test_each_break_of_the_assumptions_is_caught_by_the_operator_canary(monkeypatch, name):
    target, repl = ASSUMPTION_BREAKS[name]
    monkeypatch.setattr(target, repl)
    (e,) = E.run_engine_controls(SEED, only={"engine/operator-assumptions"})
    assert not e["judged_right"], (name, e["observed"])


def test_a_crashing_engine_is_an_engine_failure_not_a_traceback(monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("runner broken")

    monkeypatch.setattr(runner, "run_claim_object", boom)
    (e,) = E.run_engine_controls(SEED, only={"engine/true"})
    assert not e["judged_right"] and e["observed"] == {"crash": "RuntimeError: runner broken"}
    assert "crash RuntimeError: runner broken" in E.failure_lines([e])[0]


# ---- Context carries its claim; register=False ---------------------------------------------------------
def test_context_uses_its_own_claim_not_the_registry():
    def check(params, ctx):
        return Outcome("refuted" if ctx.control("mine") else "confirmed", {})

    registered = Claim(id="unit-ctx-claim", title="t", source="s", statement="s", section="user", check=check,
                       controls=(Control("theirs", "registered"),))
    registry.register(registered)
    try:
        mine = Claim(id="unit-ctx-claim", title="t", source="s", statement="s", section="user", check=check,
                     controls=(Control("mine", "not registered"),))
        assert Context("unit-ctx-claim", "quick", 1, "mine", claim=mine).control("mine") is True
        with pytest.raises(KeyError, match="mine"):
            Context("unit-ctx-claim", "quick", 1, claim=registered).control("mine")  # not that claim's control
        with pytest.raises(ValueError, match="without its claim"):
            Context("unit-ctx-claim", "quick", 1).control("theirs")  # never looked up in the registry
        res = runner.run_claim_object(mine, seed=1)
        assert res["verdict"] == "confirmed" and res["negative_controls"][0]["refuted"]
    finally:
        REGISTRY.pop("unit-ctx-claim", None)


def test_configurations_name_the_given_configuration_of_an_unregistered_claim():
    @dataclass
    class GP:
        x: int = 1

    def check(p: GP, ctx):
        return api.part("numeric", [{"passed": not (ctx.control("c") and p.x == 2)}])

    c = api.claim(id="unit-generic-unregistered", title="t", source="s", controls={"c": "c"}, register=False,
                  configurations=softmix.Draws(lambda rng, p, i: {"x": 2}, quick=1))(check)
    assert "unit-generic-unregistered" not in REGISTRY
    res = runner.run_claim_object(c, "quick", seed=3)
    assert [r["name"] for r in res["evidence"]["configurations"]] == ["paper", "drawn-1"]
    res = runner.run_claim_object(c, "quick", seed=3, overrides={"x": 5})
    assert res["evidence"]["configurations"][0]["name"] == "given"


def test_register_false_returns_the_claim_unregistered():
    @dataclass
    class P:
        k: int = 1

    def chk(p: P, ctx):
        return api.part("numeric", [rules.Residual(30).decide(1 if ctx.control("x") else 0)])

    c = api.claim(id="unit-unregistered", title="t", source="s", controls={"x": "y"}, register=False)(chk)
    assert isinstance(c, Claim) and "unit-unregistered" not in REGISTRY
    res = runner.run_claim_object(c, seed=0)
    assert res["verdict"] == "confirmed" and res["negative_controls"][0]["refuted"]
    with pytest.raises(TypeError):  # the parameter dataclass is still required
        api.claim(id="u2", title="t", source="s", controls={"x": "y"}, register=False)(lambda p, ctx: None)
    from softmix.checks.operator import operator_claim

    op = operator_claim("unit-op-unregistered", lambda mix, U, V, z: V * mix.means[0], components=1, dim=1,
                        register=False)
    assert isinstance(op, Claim) and "unit-op-unregistered" not in REGISTRY
    assert {c.id for c in op.controls} == {"dropped-term", "flipped-sign"}


# ---- as processes, on a copy of the source tree --------------------------------------------------------
PATCHES = {
    "unpatched": None,
    "error passes": ("checks/runner.py",
                     'bad = ("refuted", "error", "inconclusive") if strict else ("refuted", "error")',
                     'bad = ("refuted", "inconclusive") if strict else ("refuted",)', "engine/raises"),
    "inconclusive control refuted": ("checks/runner.py", '"refuted": cout.verdict == "refuted"',
                                     '"refuted": cout.verdict in ("refuted", "inconclusive")',
                                     "engine/control-inconclusive"),
}


def _copy(tmp: Path) -> Path:
    for d in ("softmix", "theory", "numerics", "checks"):
        shutil.copytree(ROOT / d, tmp / d, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp


@pytest.mark.parametrize("name", list(PATCHES))
def test_breaking_the_lattice_makes_verify_exit_1_through_the_engine_controls(tmp_path, name):
    tree = _copy(tmp_path / "tree")
    patch = PATCHES[name]
    if patch:
        path, old, new, _ = patch
        src = (tree / path).read_text()
        assert src.count(old) == 1, f"{path}: the patched line moved"
        (tree / path).write_text(src.replace(old, new))
    out = tmp_path / "out.json"
    code = ("import sys; sys.path.insert(0, %r); import softmix.checks.runner as r; assert r.__file__.startswith(%r); "
            "from softmix.checks.cli import main; sys.exit(main(sys.argv[1:]))" % (str(tree), str(tree)))
    env = {k: v for k, v in os.environ.items() if k != "SOFTMIX_NO_ENGINE_CONTROLS"}
    env["PYTHONPATH"] = str(tree)
    r = subprocess.run([sys.executable, "-c", code, "verify", "eq-11", "--workers", "1", "--json", str(out)],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    doc = json.loads(out.read_text())
    validate(doc)
    (claim,) = doc["claims"]
    assert claim["id"] == "eq-11" and claim["verdict"] in ("verified", "confirmed") and doc["counts"]["refuted"] == 0
    assert doc["engine_controls_skipped"] is False and [e["id"] for e in doc["engine_controls"]] == IDS
    wrong = [e["id"] for e in doc["engine_controls"] if not e["judged_right"]]
    if patch is None:
        assert r.returncode == 0 == doc["exit_code"], r.stderr[-3000:]
        assert wrong == [] and "ENGINE FAILURE" not in r.stderr
        assert "engine controls: 13/13 judged right" in r.stdout
    else:
        canary = patch[3]
        assert r.returncode == 1 == doc["exit_code"], r.stderr[-3000:]
        assert canary in wrong
        lines = [ln for ln in r.stderr.splitlines() if "ENGINE FAILURE" in ln]
        assert any(f"engine control {canary} judged wrongly" in ln for ln in lines), r.stderr[-3000:]
        assert f"engine controls: {len(IDS) - len(wrong)}/{len(IDS)} judged right" in r.stdout


def test_no_engine_controls_skips_them_with_a_warning(tmp_path):
    plug = tmp_path / "p.py"
    plug.write_text("from softmix.checks.registry import Claim, Control, Outcome, register\n"
                    "register(Claim(id='ok', title='t', source='s', statement='s', section='user', controls="
                    "(Control('c', 'c'),), check=lambda p, ctx: Outcome('refuted' if ctx.variant else 'confirmed')))\n")
    out = tmp_path / "o.json"
    env = {k: v for k, v in os.environ.items() if k != "SOFTMIX_NO_ENGINE_CONTROLS"}
    env["SOFTMIX_NO_ENTRY_POINTS"] = "1"
    r = subprocess.run([sys.executable, "-m", "softmix", "verify", "--plugin", str(plug), "ok", "--workers", "1",
                        "--no-engine-controls", "--json", str(out)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "warning: --no-engine-controls: the engine controls were skipped" in r.stderr
    assert "engine controls:" not in r.stdout
    doc = json.loads(out.read_text())
    validate(doc)
    assert doc["engine_controls"] == [] and doc["engine_controls_skipped"] is True
    listed = subprocess.run([sys.executable, "-m", "softmix", "list", "--plugin", str(plug)], capture_output=True,
                            text=True, env=env, timeout=300)
    assert listed.returncode == 0 and [ln.split()[0] for ln in listed.stdout.splitlines()] == ["ok"]
