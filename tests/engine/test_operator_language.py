"""The statement language, run as a user runs it: ``softmix verify --plugin FILE.py ID...``.

Smart, Bietti & Sengupta (2025) Prop. 4 stated as written (examples/smart_2025_prop4.py): with the
posterior's offsets it is decided with every control refuted, the equal-norms-dropped control
included; with Prop. 4's displayed gate (no offsets) equal norms are reported as not needed (a
``scope`` finding) and the run still passes; with the gate at sigma0^2 it is refuted with a
counterexample inside the model.  Beside it, statements of our own (tests/plugins/operator_language.py)
and decorated claims with Assumption objects (tests/plugins/assumption_claims.py).
"""
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

from softmix.checks.schema import validate

ROOT = Path(__file__).resolve().parents[2]
PROP4 = ROOT / "examples" / "smart_2025_prop4.py"
OWN = ROOT / "tests" / "plugins" / "operator_language.py"
DECORATED = ROOT / "tests" / "plugins" / "assumption_claims.py"
ENV = {"SOFTMIX_NO_ENTRY_POINTS": "1"}


def _proc(*args, timeout=900):
    import os

    return subprocess.run([sys.executable, "-m", "softmix", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env={**os.environ, **ENV})


def _verify(tmp_path, plugin, ids, *extra):
    out = tmp_path / "o.json"
    r = _proc("verify", "--plugin", str(plugin), *ids, "--quiet", "--json", str(out), *extra)
    doc = json.loads(out.read_text()) if out.exists() else None
    if doc:
        validate(doc)
    return r, ({c["id"]: c for c in doc["claims"]} if doc else {})


def _controls(c):
    return {n["id"]: n for n in c["negative_controls"]}


def test_prop4_as_written_is_decided_and_its_displayed_gate_does_not_need_equal_norms(tmp_path):
    r, by = _verify(tmp_path, PROP4, ["smart-2025-prop4", "smart-2025-prop4-displayed-gate"], "--workers", "2")
    assert r.returncode == 0, r.stderr[-3000:]
    c = by["smart-2025-prop4"]
    assert c["verdict"] in ("verified", "confirmed") and c["evidence"]["symbolic"]["verdict"] == "verified"
    ctl = _controls(c)
    dropped = ctl["without:equal-norms"]
    assert dropped["kind"] == "assumption-dropped" and dropped["assumption"] == "equal-norms"
    assert all(n["refuted"] for n in ctl.values()), {k: n["verdict"] for k, n in ctl.items()}
    assert {"dropped-term", "flipped-sign", "gate-argument"} <= set(ctl)
    assert "transposed-U" not in ctl and "transposed-U" in c["evidence"]["controls_not_built"]  # U = I/s is symmetric
    assert not c["findings"]
    fam = c["evidence"]["family"]
    assert fam["covariance"] == "shared-isotropic" and fam["means"] == "equal-norms"
    for row in c["evidence"]["numeric"]["rows"]:  # instances of the model: equal norms, shared v I, sigma_Z drawn
        norms = {sum(Fraction(x) ** 2 for x in m) for m in row["mixture"]["means"]}
        assert len(norms) == 1 and "sigma_Z" in row["symbols"]
        assert len({json.dumps(G) for G in row["mixture"]["covariances"]}) == 1
    assert max(row["dim"] for row in c["evidence"]["numeric"]["rows"]) > 2
    # without equal norms the same statement fails, on instances whose norms differ
    rows = ctl["without:equal-norms"]["evidence"]["numeric"]["rows"]
    assert any(len({sum(Fraction(x) ** 2 for x in m) for m in row["mixture"]["means"]}) > 1 for row in rows)

    g = by["smart-2025-prop4-displayed-gate"]
    assert g["verdict"] in ("verified", "confirmed")
    gctl = _controls(g)
    assert not gctl["without:equal-norms"]["refuted"] and gctl["without:equal-norms"]["verdict"] in ("verified",
                                                                                                     "confirmed")
    assert all(n["refuted"] for k, n in gctl.items() if k != "without:equal-norms")
    scope = [f for f in g["findings"] if f["kind"] == "scope"]
    assert scope and scope[0]["assumption"] == "equal-norms" and scope[0]["needed"] is False


def test_prop4_with_the_gate_at_sigma0_is_refuted_with_a_counterexample_inside_the_model(tmp_path):
    r, by = _verify(tmp_path, OWN, ["prop4-gate-at-sigma0"])
    assert r.returncode == 1, r.stderr[-3000:]
    c = by["prop4-gate-at-sigma0"]
    assert c["verdict"] == "refuted" and c["evidence"]["numeric"]["verdict"] == "refuted"
    ce = c["evidence"]["counterexample"]
    assert ce["inside_model"] is True and float(ce["residual"]) > 1e-6 and "sigma_Z" in ce["symbols"]
    assert len({sum(Fraction(x) ** 2 for x in m) for m in ce["mixture"]["means"]}) == 1  # still equal norms
    assert c["evidence"]["symbolic_counterexample"]["inside_model"] is True
    assert all(n["refuted"] for n in c["negative_controls"])


def test_statements_of_our_own(tmp_path):
    ids = ["iso-gated", "iso-cancelled", "antipodal-tanh-unneeded", "complement-weight"]
    r, by = _verify(tmp_path, OWN, ids, "--workers", "2")
    assert r.returncode == 1, r.stderr[-3000:]  # iso-cancelled is false
    assert by["iso-gated"]["verdict"] == "verified" and all(n["refuted"] for n in by["iso-gated"]["negative_controls"])
    bad = by["iso-cancelled"]
    assert bad["verdict"] == "refuted" and bad["evidence"]["counterexample"]["inside_model"] is True
    un = by["antipodal-tanh-unneeded"]  # m_2 = -m_1 is needed; the log-prior term makes equal weights unnecessary
    assert un["verdict"] == "verified" and _controls(un)["without:antipodal"]["refuted"]
    assert not _controls(un)["without:equal-weights"]["refuted"]
    assert [f["assumption"] for f in un["findings"] if f["kind"] == "scope"] == ["equal-weights"]
    # pi_2 written as 1 - pi_1: false as an identity in free weights, true on the model
    cw = by["complement-weight"]
    assert cw["verdict"] == "confirmed" and cw["evidence"]["symbolic"]["verdict"] == "unproven"
    sce = cw["evidence"]["symbolic_counterexample"]
    assert sce["inside_model"] is False and "sum to" in sce["outside_model_reason"]


def test_decorated_claims_with_assumption_objects(tmp_path):
    r, by = _verify(tmp_path, DECORATED, [])
    assert r.returncode == 0, r.stderr[-3000:]
    for cid in ("gate-at-zero-offsets", "gate-at-zero-drawn", "log-odds-nonzero", "geometric-bound"):
        assert by[cid]["verdict"] == "confirmed" and all(n["refuted"] for n in by[cid]["negative_controls"]), cid
        assert not by[cid]["findings"], cid
    dropped = _controls(by["gate-at-zero-offsets"])["without:equal-norms"]
    assert dropped["kind"] == "assumption-dropped" and dropped["evidence"]["assumption_dropped"]["overrides"]["means"]
    plain = by["gate-at-zero-plain"]
    assert not _controls(plain)["without:equal-norms"]["refuted"] and plain["findings"][0]["kind"] == "scope"
    drawn = by["gate-at-zero-drawn"]["configurations"]
    assert drawn["drawn"] >= 1
    skipped = by["gate-at-zero-bad-draws"]["evidence"]["skipped_configurations"]
    assert skipped and "equal-norms" in skipped[0]["reason"]
    assert _controls(by["log-odds-nonzero"])["without:pi-not-half"]["evidence"]["assumption_dropped"]["overrides"] == \
        {"pi_plus": "1/2"}


def test_config_breaking_a_declared_assumption_exits_2_naming_it(tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"gate-at-zero-offsets": {"means": [["1", "0"], ["0", "2"]]}}))
    r = _proc("verify", "--plugin", str(DECORATED), "gate-at-zero-offsets", "--config", str(cfg))
    assert r.returncode == 2 and "equal-norms" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    cfg.write_text(json.dumps({"user": {"pi_plus": 0.5}}))
    r = _proc("verify", "--plugin", str(DECORATED), "log-odds-nonzero", "--config", str(cfg))
    assert r.returncode == 2 and "pi-not-half" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    cfg.write_text(json.dumps({"gate-at-zero-offsets": {"means": [["0", "1"], ["-0.6", "0.8"]]}}))
    r = _proc("verify", "--plugin", str(DECORATED), "gate-at-zero-offsets", "--config", str(cfg), "--quiet")
    assert r.returncode == 0, r.stderr


def test_show_lists_assumptions_and_their_controls():
    r = _proc("show", "--plugin", str(DECORATED), "gate-at-zero-offsets", "--no-derivation")
    assert r.returncode == 0, r.stderr
    assert "assumption equal-norms: the means have equal Euclidean norms  (control without:equal-norms)" in r.stdout
    assert "assumption: s > 0 is the posterior variance scale" in r.stdout
    assert "assumption-dropped control without:equal-norms" in r.stdout
    r = _proc("show", "--plugin", str(PROP4), "smart-2025-prop4", "--no-derivation")
    assert r.returncode == 0 and "equal-norms: the means have equal Euclidean norms" in r.stdout
    assert "assumption-dropped control without:equal-norms" in r.stdout and "transposed-U" not in r.stdout


def test_an_operator_claim_is_listed_under_the_section_it_names_and_an_unknown_one_is_refused(tmp_path):
    """``operator_claim(section=...)``: the paper library files its operator statements under its own sections
    (prop-4.4-head under denoising); a user's default is "user"; an undeclared section stops the plugin with one
    line, exit 2, before any claim runs."""
    import sympy as sp

    import softmix
    from softmix.checks.registry import REGISTRY, load_all

    def one(mix, U, V, z):
        """T = V (m + G U z) (one component)"""
        return V * (mix.means[0] + mix.covariances[0] * U * z)

    assert softmix.operator_claim("t-sec-1", one, components=1, dim=2, register=False).section == "user"
    assert softmix.operator_claim("t-sec-2", one, components=1, dim=2, section="denoising",
                                  register=False).section == "denoising"
    load_all(())
    assert REGISTRY["prop-4.4-head"].section == "denoising" and "cumulant" in REGISTRY["prop-4.4-head"].independence
    assert sp.Symbol("xi", positive=True) in REGISTRY["prop-4.4-head"].derivations()[0].derived.free_symbols
    bad = tmp_path / "bad_section.py"
    bad.write_text("import softmix\n\n\ndef f(mix, U, V, z):\n    \"\"\"T = V (m + G U z)\"\"\"\n"
                   "    return V * (mix.means[0] + mix.covariances[0] * U * z)\n\n\n"
                   "softmix.operator_claim('t-bad-section', f, components=1, dim=2, section='nope')\n")
    r = _proc("verify", "--plugin", str(bad), timeout=300)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "unknown section 'nope'" in r.stderr
