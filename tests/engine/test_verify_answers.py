"""What `softmix verify` answers in the terminal (titles, findings, why a claim is inconclusive, a
refuted statement's counterexample), tested as processes; the extractor tested on known evidence."""
import json
import os
import re
import subprocess
import sys
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from softmix.checks.answers import explain, outside_model_reason, render_answer

UNDECIDED = '''
from dataclasses import dataclass

import softmix


@dataclass
class P:
    se: float = 0.1
    margin: float = 0.01


@softmix.claim(id="stub-too-wide", title="a mean of one, measured too coarsely", source="test",
               controls={"wrong-mean": "predicts a mean of 3"})
def too_wide(p: P, ctx):
    rule = softmix.ZTest(1e-3, margin=p.margin)
    pred = 3.0 if ctx.control("wrong-mean") else 1.0
    return softmix.part("monte-carlo", [rule.decide(1.0, p.se, pred, n_samples=100)], rule=rule)


@softmix.claim(id="stub-zero-se", title="a mean of one with a zero standard error", source="test",
               controls={"wrong-mean": "predicts a mean of 3"})
def zero_se(p: P, ctx):
    wrong = ctx.control("wrong-mean")
    rule = softmix.ZTest(1e-3)
    return softmix.part("monte-carlo", [rule.decide(1.0, 0.1 if wrong else 0.0, 3.0 if wrong else 1.0)], rule=rule)
'''

WRONG_GATE = '''
import sympy as sp
import softmix


def no_quadratic(mix, U, V, z):
    """T(z) = V sum_k alpha_k (m_k + G_k U z), alpha = softmax(log pi_k + m_k^T U z): quadratic term dropped"""
    a = U * z
    e = [p * sp.exp((m.T * a)[0]) for p, m in zip(mix.weights, mix.means)]
    return V * sum((ek / sum(e) * (m + G * a) for ek, m, G in zip(e, mix.means, mix.covariances)),
                   sp.zeros(U.rows, 1))


softmix.operator_claim("my-wrong-gate", no_quadratic, components=2, dim=1,
                       title="the gate without its quadratic term", source="test")
'''


def _verify(*args, entry_points=True, cwd=None):
    env = dict(os.environ, COLUMNS="100")
    if not entry_points:
        env["SOFTMIX_NO_ENTRY_POINTS"] = "1"
    return subprocess.run([sys.executable, "-m", "softmix", "verify", "--workers", "1", *args],
                          check=False, capture_output=True, text=True, env=env, timeout=600, cwd=cwd)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _assert_fits(text: str, width: int = 100):
    assert all(len(line) <= width for line in text.splitlines()[:-2]), max(text.splitlines(), key=len)


def test_lemma_b8_prints_its_title_and_the_finding():
    r = _verify("lemma-b.8")
    assert r.returncode == 0, r.stderr
    out = _flat(r.stdout)
    assert "First and second variations of f_theta" in out  # the claim's title
    assert "finding (typo (coefficient)) at Lemma B.8, display of D^2 f_theta[h,h]" in out  # kind and place
    assert "must carry a factor 2" in out  # the detail
    # the finding's point is an algebraic point drawn from the seed's stream; at this seed it lies outside
    # the model (pi_+ > 1) and the answer says so and why
    assert re.search(r"algebraic point outside the model \(pi_p = [0-9/]+ not in \(0, 1\]", out), out
    _assert_fits(r.stdout)


def test_inconclusive_claims_print_why_and_what_would_settle_them(tmp_path):
    plug = tmp_path / "undecided.py"
    plug.write_text(UNDECIDED)
    r = _verify("--plugin", str(plug), "stub-too-wide", "stub-zero-se", entry_points=False)
    assert r.returncode == 0, r.stderr
    out = _flat(r.stdout)
    assert "stub-too-wide [inconclusive] a mean of one, measured too coarsely" in out
    assert "interval half-width 0.329053 is wider than the declared margin 0.01" in out
    assert "would settle it (monte-carlo): about 108276 samples" in out  # 100 x (0.329 / 0.01)^2
    assert "inconclusive (monte-carlo): zero or non-finite standard error" in out
    _assert_fits(r.stdout)
    # --quiet: the table and the summary only (no title, no reason); --strict: inconclusive fails
    q = _verify("--plugin", str(plug), "stub-zero-se", "--strict", "--quiet", entry_points=False)
    assert q.returncode == 1 and not [ln for ln in q.stderr.splitlines() if "engine controls were skipped" not in ln]
    lines = q.stdout.strip().splitlines()
    assert lines[0].split() == ["claim", "verdict", "controls", "seconds"]
    assert lines[2].split()[:3] == ["stub-zero-se", "inconclusive", "1/1"]
    assert len(lines) == 5 and lines[-1].startswith("0 verified, 0 confirmed, 0 refuted, 1 inconclusive")
    assert "standard error" not in q.stdout and "a mean of one" not in q.stdout


def test_a_refuted_statement_prints_its_counterexample(tmp_path):
    plug = tmp_path / "wrong_gate.py"
    plug.write_text(WRONG_GATE)
    r = _verify("--plugin", str(plug), "my-wrong-gate", "--json", str(tmp_path / "out.json"), entry_points=False)
    assert r.returncode == 1, r.stderr
    out = _flat(r.stdout)
    assert "my-wrong-gate [refuted] the gate without its quadratic term" in out
    assert "smallest counterexample (dimension 1):" in out
    assert "stated [" in out and "vs operator [" in out  # the two values at the shrunk instance
    # the symbolic point SymPy found is printed, and labelled when it lies outside the model (the
    # prover now looks for refuting points inside the model first)
    assert "symbolic counterexample" in out
    with open(tmp_path / "out.json") as fh:
        sym = json.load(fh)["claims"][0]["evidence"].get("symbolic_counterexample") or {}
    assert ("algebraic point outside the model (" in out) == (sym.get("inside_model") is False)
    _assert_fits(r.stdout)


# ---- the extractor on known evidence --------------------------------------------------------------
def _result(verdict="refuted", evidence=None, findings=(), controls=None):
    return {"id": "c", "title": "t", "source": "src", "verdict": verdict, "evidence": evidence or {},
            "findings": list(findings), "seconds": 0.0,
            "negative_controls": controls if controls is not None else [{"id": "k", "refuted": True,
                                                                         "verdict": "refuted"}]}


def test_the_same_finding_on_several_configurations_is_shown_once():
    f = {"kind": "gap", "where": "Lemma X", "text": "a step is missing"}
    a = explain(_result("confirmed", findings=[f, {**f, "configuration": "drawn-1"}, {"finding": "headline"}]))
    assert [(g["kind"], g["place"], g["configurations"]) for g in a.findings] == [
        ("gap", "Lemma X", ["given", "drawn-1"]), ("finding", "src", ["given"])]
    text = "\n".join(render_answer(a))
    assert "finding (gap) at Lemma X (also on drawn-1)" in text and "finding at src" in text


def test_the_failing_row_of_lowest_dimension_comes_first_and_passing_rows_are_skipped():
    rows = [{"dim": 3, "passed": False, "residual": 2}, {"dim": 1, "passed": True, "residual": 0},
            {"dim": 2, "verdict": "refuted", "passed": False, "residual": 5}]
    a = explain(_result(evidence={"numeric": {"kind": "numeric", "verdict": "refuted", "rows": rows}}))
    assert [c["place"] for c in a.counterexamples] == ["numeric > dim = 2", "numeric > dim = 3"]
    assert a.counterexamples[0]["text"] == "dim = 2, residual = 5"


def test_a_point_marked_outside_the_model_says_so_with_its_reason():
    ce = {"mixture": {"weights": ["1/2", "1/2"], "means": [["0"], ["1"]], "covariances": [[["1"]], [["1"]]]},
          "U": [["1"]], "V": [["1"]], "z": ["1"], "dim": 1, "residual": "0.5",
          "inside_model": False, "outside_model_reason": "covariance 1 is not PSD"}
    a = explain(_result(evidence={"counterexample": ce, "symbolic_counterexample": {
        "point": {"pi1": "1/3", "pi2": "2/3", "G1_11": "1"}, "inside_model": True}}))
    assert a.counterexamples[0]["label"] == "algebraic point outside the model (covariance 1 is not PSD)"
    assert a.counterexamples[1]["label"].startswith("symbolic counterexample")  # inside: not relabelled
    assert a.counterexamples[1]["text"] == "pi1 = 1/3, pi2 = 2/3, G1_11 = 1"


def test_errors_and_surviving_controls_are_named():
    a = explain(_result("error", {"exception": "ValueError: boom"},
                        controls=[{"id": "k", "refuted": False, "verdict": "inconclusive", "description": "wrong"}]))
    text = "\n".join(render_answer(a))
    assert "error: ValueError: boom" in text and "control k SURVIVED (inconclusive): wrong" in text


def test_an_inconclusive_result_without_a_reason_says_so():
    a = explain(_result("inconclusive", {"numeric": {"kind": "numeric", "verdict": "inconclusive", "rows": []}}))
    assert a.reasons[0]["reason"].startswith("no reason recorded in the evidence (undecided part(s): numeric)")


_Q = st.fractions(min_value=-5, max_value=5, max_denominator=7)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(_Q, _Q), min_size=2, max_size=2), _Q, st.integers(1, 9))
def test_outside_model_reason_flags_exactly_the_points_outside(L, shift, k):
    """G = L L^T is PSD (inside); G - c I with c above its largest eigenvalue is not. Weights
    k/(k+1), 1/(k+1) are inside; weights k, 1 sum to k + 1 and k may exceed 1."""
    G = [[sum(L[i][r] * L[j][r] for r in range(2)) for j in range(2)] for i in range(2)]
    inside = {"pi1": str(Fraction(k, k + 1)), "pi2": str(Fraction(1, k + 1))}
    inside.update({f"G1_{i + 1}{j + 1}": str(G[i][j]) for i in range(2) for j in range(2)})
    assert outside_model_reason(inside) == ""
    c = G[0][0] + G[1][1] + abs(shift) + 1  # above the trace, so above every eigenvalue
    outside = {**inside, "pi1": str(k), "pi2": "1"}
    outside.update({f"G1_{i + 1}{i + 1}": str(G[i][i] - c) for i in range(2)})
    why = outside_model_reason(outside)
    assert f"weights sum to {k + 1}, not 1" in why and "G1 = " in why and "not positive semidefinite" in why
    assert ("pi1 = " in why) == (k > 1)


def test_the_html_report_lists_findings_and_open_claims():
    from softmix.checks.report import findings_summary

    finding = {"kind": "typo", "where": "Lemma X", "detail": "a factor <2> is missing"}
    page = findings_summary([_result("verified", findings=[finding]),
                             _result("inconclusive", {"numeric": {"verdict": "inconclusive", "rows": [
                                 {"passed": None, "reason": "quadrature did not converge"}]}})])
    assert "<td>typo</td><td>Lemma X</td><td>a factor &lt;2&gt; is missing</td>" in page
    assert "Open and failed claims" in page and "quadrature did not converge" in page
    assert "No findings." in findings_summary([_result("verified")])
