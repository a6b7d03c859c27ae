"""Statement kinds beyond the operator (issue 24, item 3): known answers for each kind.

A true statement is verified or confirmed with every automatic control refuted, a false one refuted, a Monte
Carlo rate the data cannot settle inconclusive, bad input exit 2 with one line -- run as processes for the
example file (one true claim per kind) and the false statements (tests/plugins/statement_kinds_false.py),
and in this process (``register=False``) for the finer points.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

import softmix
from softmix.checks.runner import run_claim_object
from softmix.checks.schema import validate
from softmix.numerics.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statement_kinds.py"
FALSE = ROOT / "tests" / "plugins" / "statement_kinds_false.py"
ENV = {"SOFTMIX_NO_ENTRY_POINTS": "1"}

def _proc(*args, timeout=240):
    return subprocess.run([sys.executable, "-m", "softmix", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env={**os.environ, **ENV})

def _verify(tmp_path, plugin, *extra):
    out = tmp_path / "o.json"
    r = _proc("verify", "--plugin", str(plugin), "--quiet", "--json", str(out), *extra)
    doc = json.loads(out.read_text()) if out.exists() else None
    if doc:
        validate(doc)
    return r, ({c["id"]: c for c in doc["claims"]} if doc else {})

def _ctl(c) -> dict:
    return {n["id"]: n for n in c["negative_controls"]}

def test_the_example_decides_one_true_statement_per_kind_with_every_control_refuted(tmp_path):
    r, by = _verify(tmp_path, EXAMPLE)
    assert r.returncode == 0, r.stderr[-3000:]
    expected = {"ex-kind-identity": "verified", "ex-kind-constant": "confirmed", "ex-kind-bound": "verified",
                "ex-kind-rate": "confirmed", "ex-kind-limit": "confirmed", "ex-kind-flow": "confirmed"}
    assert {k: by[k]["verdict"] for k in expected} == expected
    for cid, c in by.items():
        assert c["negative_controls"] and all(n["refuted"] for n in c["negative_controls"]), cid
        assert not c["findings"], cid
    ident = _ctl(by["ex-kind-identity"])
    assert {"dropped-term", "flipped-sign", "scaled-factor", "without:sigma-positive"} == set(ident)
    assert ident["without:sigma-positive"]["kind"] == "assumption-dropped"
    assert by["ex-kind-identity"]["evidence"]["symbolic"]["verdict"] == "verified"
    assert set(_ctl(by["ex-kind-constant"])) == {"perturbed-half-digits", "perturbed-last-digits"}
    assert [r["point"] for r in by["ex-kind-constant"]["evidence"]["numeric"]["rows"]] == ["given", "drawn-1"]
    assert by["ex-kind-bound"]["evidence"]["certificate"]["rows"][0]["status"] == "proven"
    assert set(_ctl(by["ex-kind-rate"])) == {"wrong-rate"} and set(_ctl(by["ex-kind-limit"])) == {"wrong-limit"}
    rows = by["ex-kind-rate"]["evidence"]["monte-carlo"]["rows"]
    assert [r["point"] for r in rows] == ["given", "drawn-1"] and rows[1]["values"]["pi"] != "0.3"  # drawn, generic
    assert by["ex-kind-rate"]["alpha_spent"] <= 1e-3 + 1e-12
    assert set(_ctl(by["ex-kind-flow"])) == {"shifted-point", "doubled-rate"}
    assert by["ex-kind-flow"]["evidence"]["symbolic"]["verdict"] == "verified"  # field(0) = 0 exactly

def test_false_statements_of_each_kind_are_refuted_and_an_undecided_rate_is_inconclusive(tmp_path):
    r, by = _verify(tmp_path, FALSE)
    assert r.returncode == 1, r.stderr[-3000:]
    for cid in ("false-identity", "false-constant", "false-bound", "false-rate", "false-flow-point",
                "false-flow-rate"):
        assert by[cid]["verdict"] == "refuted", (cid, by[cid]["verdict"])
        assert all(n["refuted"] for n in by[cid]["negative_controls"]), cid
    point = by["false-identity"]["evidence"]["counterexample"]["point"]
    assert set(point) == {"x", "y"} and {v.lstrip("-") for v in point.values()} == {"1"}  # shrunk to +-1
    assert by["false-constant"]["evidence"]["counterexample"]["residual"].startswith("1.0e-20")
    assert by["false-bound"]["evidence"]["certificate"]["rows"][0]["status"] == "refuted"
    assert by["false-flow-point"]["evidence"]["stationary"]["verdict"] == "refuted"
    assert by["false-flow-rate"]["evidence"]["stationary"]["verdict"] == "confirmed"  # the point is right
    und = by["undecided-rate"]
    assert und["verdict"] == "inconclusive"  # never refuted when the data cannot decide
    row = und["evidence"]["monte-carlo"]["rows"][0]
    assert row["precise_enough"] is False and row["samples_to_settle"] > 30

def test_bad_input_is_exit_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import softmix\nsoftmix.bound_claim('b', lhs=lambda x: x, rhs=lambda x: x, over={'x': (1, 2)}, "
                   "certify=True)\n")
    r = _proc("verify", "--plugin", str(bad))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "certify=True needs" in r.stderr
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"ex-kind-identity": {"points": 0}}))
    r = _proc("verify", "--plugin", str(EXAMPLE), "ex-kind-identity", "--config", str(cfg))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "points" in r.stderr, r.stderr

def test_show_lists_the_statement_its_assumptions_controls_and_derivation():
    r = _proc("show", "--plugin", str(EXAMPLE), "ex-kind-identity", "ex-kind-flow")
    assert r.returncode == 0, r.stderr
    assert "assumption: sigma > 0" in r.stdout and "assumption-dropped control without:sigma-positive" in r.stdout
    assert "negative control scaled-factor" in r.stdout and "derived:" in r.stdout
    assert "negative control doubled-rate" in r.stdout

# ---- in this process: the finer points ------------------------------------------------------------------------
def _run(c, seed=0):
    return run_claim_object(c, seed=seed)

@pytest.mark.parametrize("bad", [
    dict(derived=lambda x: x, stated=lambda x: x, symbols=""),
    dict(derived=lambda x: x, stated=lambda x: x, symbols="x", assume=("y > 0",)),
    dict(derived=lambda x: x, stated=lambda x: x, symbols="x", assume=("x is nice",)),
    dict(derived=lambda x: x, stated=lambda x: sp.Matrix([x, x]), symbols="x"),
])
def test_identity_bad_declarations(bad):
    with pytest.raises(InputError):
        softmix.identity_claim("bad", register=False, **bad)

def test_bad_declarations_of_the_other_kinds():
    f = lambda x, m: x
    for kw in (dict(digits=2), dict(value=lambda: 1, reference=lambda: mp.mpf(1) / 0)):
        with pytest.raises(InputError):
            softmix.constant_claim("bad", **{"value": 1, "reference": 1, **kw}, register=False)
    for kw in (dict(over=3), dict(over={"x": (2, 1)}), dict(points=0), dict(over=lambda rng: {}, certify=True)):
        with pytest.raises(InputError):
            softmix.bound_claim("bad", **{"lhs": f, "rhs": f, "over": {"x": (0, 1)}, **kw}, register=False)
    sim = lambda rng, L, n: rng.random(n)
    for kw in (dict(lengths=[10]), dict(rate=None), dict(replicates=1), dict(limit=0), dict(margin=-1)):
        with pytest.raises(InputError):
            softmix.rate_claim("bad", **{"simulate": sim, "lengths": [10, 40], "rate": -1.0, **kw}, register=False)
    field = lambda x: [-x[0]]
    for kw in (dict(rate=-1), dict(margin=0.5), dict(point=[]), dict(field=lambda x: [-x[0], x[0]])):
        with pytest.raises(InputError):
            softmix.flow_claim("bad", **{"field": field, "point": [0], "rate": 1, **kw}, register=False)

def test_identity_relations_and_signs_needed_or_not():
    equal = softmix.Assumption("equal", "b = a", family=lambda s: {s["b"]: s["a"]})
    c = softmix.identity_claim("rel", derived=lambda a, b: (a - b) * (a + b), stated=lambda a, b: 0 * a,
                               symbols="a b", assume=(equal,), register=False)
    r = _run(c)
    assert r["verdict"] == "verified" and _ctl(r)["without:equal"]["refuted"]
    assert set(r["evidence"]["controls_not_built"]) == {"scaled-factor"}  # 6/5 x 0 is still 0
    assert all(n["refuted"] for n in r["negative_controls"])  # a zero stated side is perturbed to 1
    # the logistic derivative holds for every real a: the sign is not needed (a scope finding, not a failure)
    s = lambda x, a: 1 / (1 + sp.exp(-a * x))
    c = softmix.identity_claim("logistic", derived=lambda x, a: sp.diff(s(x, a), x),
                               stated=lambda x, a: a * s(x, a) * (1 - s(x, a)), symbols="x a", assume=("a > 0",),
                               register=False)
    r = _run(c)
    assert r["verdict"] == "verified" and not _ctl(r)["without:a-positive"]["refuted"]
    assert [f["assumption"] for f in r["findings"] if f["kind"] == "scope"] == ["a-positive"]

def test_identity_sympy_cannot_simplify_is_confirmed_never_verified(monkeypatch):
    from softmix.checks import kind_identity

    monkeypatch.setattr(kind_identity, "simplify_zero", lambda e: False)
    monkeypatch.setattr(kind_identity.sp, "simplify", lambda e: e)
    c = softmix.identity_claim("hard", derived=lambda x: sp.sin(x) ** 2 + sp.cos(x) ** 2, stated=lambda x: 1,
                               symbols="x", register=False)
    r = _run(c)
    assert r["verdict"] == "confirmed" and r["evidence"]["symbolic"]["verdict"] == "unproven"

def test_bound_assumption_filters_draws_and_its_control_breaks_them():
    larger = softmix.Assumption("x-above-minus-one", "x >= -1", holds=lambda v: v["x"] >= -1,
                                violate=lambda v, rng: {"x": -3 - v["x"]})
    c = softmix.bound_claim("bernoulli", lhs=lambda x, m: 1 + 3 * x, rhs=lambda x, m: (1 + x) ** 3,
                            over={"x": ("-2", "4")}, assume=[larger], register=False)
    r = _run(c)
    assert r["verdict"] == "confirmed" and all(n["refuted"] for n in r["negative_controls"])
    skipped = r["evidence"]["skipped_points"]
    assert skipped and all("x-above-minus-one" in s["reason"] for s in skipped)  # draws below -1 are not points
    # the tightened bound fails at the worst drawn point by construction; a tight bound is not certified
    c = softmix.bound_claim("log-tight", lhs=lambda x, m: m.log(1 + x), rhs=lambda x, m: x,
                            over={"x": ("-1/2", "2")}, certify=True, boxes=200, register=False)
    r = _run(c)
    assert r["verdict"] == "confirmed" and r["evidence"]["certificate"]["verdict"] == "unproven"
    assert _ctl(r)["tightened-bound"]["refuted"]

def test_constant_an_unconverged_reference_is_inconclusive_not_refuted():

    def drifting():  # a reference that depends on the precision beyond the tolerance: not computed to 30 digits
        return mp.pi + mp.mpf(10) ** (-mp.mp.dps + 15)

    c = softmix.constant_claim("drift", value=lambda: mp.pi, reference=drifting, digits=30, register=False)
    r = _run(c)
    assert r["verdict"] == "inconclusive"
    assert "not computed to 30 digits" in r["evidence"]["numeric"]["rows"][0]["reason"]

def test_rate_controls_see_the_claims_data():
    seen = []

    def sim(rng, L, n):
        seen.append(L)
        return rng.standard_normal((n, L)).mean(axis=1) ** 2

    c = softmix.rate_claim("rate-data", simulate=sim, lengths=[40, 160, 640], replicates=3000, rate=-1.0,
                           register=False)
    r = _run(c)
    assert r["verdict"] == "confirmed" and _ctl(r)["wrong-rate"]["refuted"]
    assert sorted(seen) == [40, 160, 640]  # simulated once: the control reused the claim's data
    assert r["memo"]["hits"] >= 3

def test_flow_numeric_field_and_not_converged():
    def field(x):  # not SymPy-capable: numbers only (mpmath for the residual, NumPy for the flow)
        if isinstance(x[0], sp.Basic):
            raise TypeError("numbers only")
        return [-2 * x[0] * (1 + x[0] ** 2)]

    c = softmix.flow_claim("num-flow", field=field, point=[0], rate=2, register=False)
    r = _run(c)
    assert r["verdict"] == "confirmed" and r["evidence"]["field"] == "numeric"
    assert all(n["refuted"] for n in r["negative_controls"])
    slow = softmix.flow_claim("slow-flow", field=lambda x: [-x[0] / 1000], point=[0], rate=sp.Rational(1, 1000),
                              horizon=10.0, register=False)
    r = _run(slow)
    assert r["verdict"] == "inconclusive" and "raise horizon" in r["evidence"]["rate"]["rows"][0]["reason"]

def test_the_facade_exports_the_kinds():
    from softmix.checks import kind_bound, kind_constant, kind_flow, kind_identity, kind_rate

    assert softmix.identity_claim is kind_identity.identity_claim
    assert softmix.constant_claim is kind_constant.constant_claim
    assert softmix.bound_claim is kind_bound.bound_claim
    assert softmix.rate_claim is kind_rate.rate_claim
    assert softmix.flow_claim is kind_flow.flow_claim
    assert np.isfinite(kind_flow.flow_rate(lambda x: -x, np.zeros(1), np.array([0.01]), 50.0)["rate"])
