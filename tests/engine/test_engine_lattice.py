"""Known answers for the verdict lattice and the exit codes of ``softmix verify`` (issue 23 scope 2).

Each verdict of a claim (verified, confirmed, inconclusive, refuted, error by a crash or by a
returned verdict) and of a negative control (refuted, surviving as confirmed, inconclusive, in
error) is produced by a tiny claim of a plugin file and run as a real process, alone, with and
without ``--strict``: the exit code, the counts and the claim's JSON are asserted.  The lattice
itself (refuted > error > inconclusive > confirmed > verified, README) is asserted for the one
combine of the engine (:mod:`softmix.checks.verdicts`), on verdicts, decisions, parts and rows.
"""
import itertools
import json
import os
import subprocess
import sys

import pytest

from softmix.checks import api, verdicts
from softmix.checks.registry import Outcome
from softmix.checks.runner import claim_passed, exit_code, verdict_counts
from softmix.checks.schema import validate

PLUGIN = '''
from dataclasses import dataclass

import softmix
from softmix.checks.registry import Claim, Control, Outcome, register


def _fixed(verdict, control):
    def check(params, ctx):
        if ctx.variant is None:
            if verdict == "raise":
                raise RuntimeError("this check raises")
            return Outcome(verdict, {"rule": "returns the verdict it is given"})
        if control == "raise":
            raise RuntimeError("this control raises")
        return Outcome(control, {"rule": "returns the verdict it is given"})
    return check


CASES = {"l-verified": ("verified", "refuted"), "l-confirmed": ("confirmed", "refuted"),
         "l-inconclusive": ("inconclusive", "refuted"), "l-refuted": ("refuted", "refuted"),
         "l-error-raised": ("raise", "refuted"), "l-error-returned": ("error", "refuted"),
         "l-control-survives": ("confirmed", "confirmed"), "l-control-verified": ("verified", "verified"),
         "l-control-inconclusive": ("confirmed", "inconclusive"), "l-control-error": ("confirmed", "raise")}
for cid, (v, c) in CASES.items():
    register(Claim(id=cid, title=cid, source="test", statement=cid, section="user", check=_fixed(v, c),
                   controls=(Control("wrong", "a control returning a fixed verdict"),)))


@dataclass
class P:
    dps: int = 30


@softmix.claim(id="l-parts", title="parts: one refuted control of two", source="test",
               controls={"good": "refuted", "bad": "survives"})
def parts(p: P, ctx):
    rule = softmix.Residual(p.dps)
    if ctx.control("good"):
        return softmix.part("numeric", [rule.decide(1)])
    return softmix.part("numeric", [rule.decide(0)])
'''

#: claim id -> (verdict, {control: verdict}, exit code, exit code with --strict)
EXPECTED = {
    "l-verified": ("verified", {"wrong": "refuted"}, 0, 0),
    "l-confirmed": ("confirmed", {"wrong": "refuted"}, 0, 0),
    "l-inconclusive": ("inconclusive", {"wrong": "refuted"}, 0, 1),
    "l-refuted": ("refuted", {"wrong": "refuted"}, 1, 1),
    "l-error-raised": ("error", {"wrong": "refuted"}, 1, 1),
    "l-error-returned": ("error", {"wrong": "refuted"}, 1, 1),
    "l-control-survives": ("confirmed", {"wrong": "confirmed"}, 1, 1),
    "l-control-verified": ("verified", {"wrong": "verified"}, 1, 1),
    "l-control-inconclusive": ("confirmed", {"wrong": "inconclusive"}, 1, 1),
    "l-control-error": ("confirmed", {"wrong": "error"}, 1, 1),
    "l-parts": ("confirmed", {"good": "refuted", "bad": "confirmed"}, 1, 1),
}


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    p = tmp_path_factory.mktemp("lattice") / "lattice_plugin.py"
    p.write_text(PLUGIN)
    return p


def _verify(plugin, out, ids, *extra):
    env = dict(os.environ, SOFTMIX_NO_ENTRY_POINTS="1")
    r = subprocess.run([sys.executable, "-m", "softmix", "verify", "--plugin", str(plugin), *ids, "--workers", "1",
                        "--quiet", "--no-engine-controls", "--json", str(out), *extra],
                       capture_output=True, text=True, env=env, timeout=300)
    doc = json.loads(out.read_text())
    validate(doc)
    return r, doc


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_each_verdict_of_claims_and_controls_gives_its_exit_code(plugin, tmp_path, cid, strict):
    verdict, controls, code, strict_code = EXPECTED[cid]
    r, doc = _verify(plugin, tmp_path / "o.json", [cid], *(["--strict"] if strict else []))
    want = strict_code if strict else code
    assert r.returncode == want == doc["exit_code"], (r.returncode, r.stderr[-2000:])
    (res,) = doc["claims"]
    assert res["id"] == cid and res["verdict"] == verdict
    assert {c["id"]: c["verdict"] for c in res["negative_controls"]} == controls
    assert {c["id"]: c["refuted"] for c in res["negative_controls"]} == {k: v == "refuted" for k, v in controls.items()}
    survived = sum(v != "refuted" for v in controls.values())
    assert doc["counts"] == {**{v: 0 for v in ("verified", "confirmed", "refuted", "inconclusive", "error")},
                             verdict: 1, "controls_survived": survived}
    assert doc["strict"] is strict and doc["engine_controls_skipped"] is True and doc["engine_controls"] == []
    assert "engine controls were skipped" in r.stderr
    if verdict == "error" and cid.endswith("raised"):
        assert "RuntimeError: this check raises" in res["evidence"]["exception"]
    if "l-control-error" == cid:
        assert "this control raises" in res["negative_controls"][0]["evidence"]["exception"]


def test_one_failing_claim_fails_the_run_and_counts_add_up(plugin, tmp_path):
    ids = sorted(EXPECTED)
    r, doc = _verify(plugin, tmp_path / "o.json", ids)
    assert r.returncode == 1
    by = {c["id"]: c for c in doc["claims"]}
    assert [c["id"] for c in doc["claims"]] == ids
    counts = {v: sum(EXPECTED[c][0] == v for c in ids) for v in ("verified", "confirmed", "refuted", "inconclusive",
                                                                  "error")}
    counts["controls_survived"] = sum(v != "refuted" for c in ids for v in EXPECTED[c][1].values())
    assert doc["counts"] == counts
    passing = [c for c in ids if EXPECTED[c][2] == 0]
    assert passing == ["l-confirmed", "l-inconclusive", "l-verified"]
    assert all(claim_passed(by[c]) == (EXPECTED[c][2] == 0) for c in ids)
    r2, doc2 = _verify(plugin, tmp_path / "p.json", passing)
    assert r2.returncode == 0 == doc2["exit_code"]
    r3, doc3 = _verify(plugin, tmp_path / "q.json", passing, "--strict")
    assert r3.returncode == 1 == doc3["exit_code"]


# ---- the lattice, in-process, for every combine of the engine ---------------------------------------
ORDER = ("refuted", "error", "inconclusive", "confirmed", "verified")  # worst first (README)


def _worst(vs):
    return min(vs, key=ORDER.index)


@pytest.mark.parametrize("vs", [list(p) for n in (1, 2, 3) for p in itertools.product(ORDER, repeat=n)])
def test_the_one_combine_agrees_with_the_lattice(vs):
    """verdicts.combine on settled verdicts (configurations), on rule decisions, on parts (a proof
    verified beside passed evidence is verified; evidence alone at most confirmed), the row mapper
    and the control rule all return the worst verdict; the engine's other names are the same functions."""
    worst = _worst(vs)
    numeric = "confirmed" if worst == "verified" else worst
    assert verdicts.combine(vs) == worst
    assert verdicts.combine([{"verdict": v} for v in vs]) == numeric  # rule decisions are evidence
    assert verdicts.verdict_of([{"verdict": v} for v in vs]) == numeric
    assert verdicts.verdict_of([{"verdict": v} for v in vs], kind="certificate") == worst
    for proof in verdicts.PROOF_KINDS:
        parts = [api.Part(f"p{i}", proof if v == "verified" else "numeric", v) for i, v in enumerate(vs)]
        assert verdicts.combine(parts) == ("verified" if "verified" in vs and set(vs) <= {"verified", "confirmed"}
                                           else worst)
    evidence = [api.Part(f"p{i}", "numeric", v) for i, v in enumerate(vs)]
    assert verdicts.combine(evidence) == numeric
    assert verdicts.combine_control(vs) == ("refuted" if "refuted" in vs else worst)


def test_one_combine_everywhere():
    """api and the facade hand out the one combine, row mapper and control rule."""
    import softmix

    assert api.combine is softmix.combine is verdicts.combine
    assert api.verdict_of is softmix.verdict_of is verdicts.verdict_of
    assert softmix.combine_control is verdicts.combine_control
    assert api.LATTICE is verdicts.LATTICE


def test_lattice_edges():
    assert api.combine([]) == "inconclusive" and api.verdict_of([]) == "inconclusive"
    # an unproven symbolic part blocks 'verified' but does not make a confirmed claim inconclusive
    assert api.combine([api.Part("s", "symbolic", "unproven"), api.Part("n", "numeric", "confirmed")]) == "confirmed"
    assert api.combine([api.Part("s", "symbolic", "unproven")]) == "inconclusive"
    # verified needs a proof: a numeric part marked verified is at most confirmed
    assert api.combine([api.Part("n", "numeric", "verified"), api.Part("m", "numeric", "confirmed")]) == "confirmed"
    assert api.combine([api.Part("n", "numeric", "verified")]) == "confirmed"
    # a certificate is a proof: verified, alone or beside passed evidence; undecided balls are inconclusive
    assert api.combine([api.part("certificate", [{"passed": True}])]) == "verified"
    both = [api.part("certificate", [{"passed": True}]), api.part("numeric", [{"passed": True}])]
    assert api.combine(both) == "verified"
    assert api.part("certificate", [{"passed": True}, {"passed": None}]).verdict == "inconclusive"
    assert api.part("certificate", [{"passed": False}]).verdict == "refuted"
    # settled verdicts (a configuration's, an Outcome's) may be verified
    assert verdicts.combine([Outcome("verified"), "verified"]) == "verified"
    assert verdicts.combine([Outcome("verified"), api.Part("n", "numeric", "confirmed")]) == "verified"
    # rows: passed None (a rule that cannot decide) is inconclusive, never refuted
    assert api.verdict_of([{"passed": None}]) == "inconclusive"
    assert api.verdict_of([{"passed": True, "decidable": False}]) == "inconclusive"
    assert api.verdict_of([{"passed": True, "precise_enough": False}]) == "inconclusive"
    assert api.verdict_of([{"passed": False}, {"passed": None}]) == "refuted"
    assert api.verdict_of([{"verdict": "no-such-verdict"}, {"verdict": "inconclusive"}]) == "error"
    assert verdicts.combine(["no-such-verdict", "confirmed"]) == "error"  # never a pass
    # symbolic rows by status
    assert api.verdict_of([{"status": "proven"}], "symbolic") == "verified"
    assert api.verdict_of([{"status": "proven"}, {"status": "unproven"}], "symbolic") == "unproven"
    assert api.verdict_of([{"status": "unproven"}, {"status": "refuted"}], "symbolic") == "refuted"
    with pytest.raises(TypeError):
        verdicts.combine([3.5])
    # a row's tri-state "passed": a proof kind verified, evidence at most confirmed, None inconclusive
    assert api.verdict_of([{"passed": True}], "symbolic") == "verified"
    assert api.verdict_of([{"passed": None}]) == "inconclusive"


@pytest.mark.parametrize("verdict", ORDER)
@pytest.mark.parametrize("control", ORDER)
def test_claim_passed_exit_code_and_counts_on_every_pair(verdict, control):
    res = {"verdict": verdict, "negative_controls": [{"id": "c", "verdict": control, "refuted": control == "refuted"}]}
    ok = verdict not in ("refuted", "error") and control == "refuted"
    assert claim_passed(res) is ok and exit_code([res]) == (0 if ok else 1)
    ok_strict = ok and verdict != "inconclusive"
    assert claim_passed(res, True) is ok_strict and exit_code([res], True) == (0 if ok_strict else 1)
    c = verdict_counts([res])
    assert c[verdict] == 1 and sum(c[v] for v in ORDER) == 1 and c["controls_survived"] == int(control != "refuted")
