"""Known answers for what ``softmix verify`` answers (checks/answers.py), in process, on results built by hand:
findings in each documented shape, every documented source of an inconclusive reason and of what would settle
it, refutations without failing rows, errors, the rendering limits and the ``--quiet`` table.

Each expected text is written from the module's documentation, not read off its output.
"""
from softmix.checks.answers import Answer, claims_table, explain, render_answer


def res(verdict="inconclusive", evidence=None, **kw):
    return {"id": "c", "title": "T", "verdict": verdict, "evidence": evidence or {}, "negative_controls": [],
            "seconds": 1.0, **kw}


# ---- findings ---------------------------------------------------------------------------------------
def test_a_plain_string_finding_is_a_finding_at_the_claims_source():
    a = explain(res("verified", findings=["eq. (3) has a typo"], source="Prop. 2.1"))
    assert a.findings == [{"kind": "finding", "place": "Prop. 2.1", "detail": "eq. (3) has a typo",
                           "counterexample": "", "configurations": ["given"]}]


def test_a_finding_headline_that_is_not_text_is_compacted_and_leads_the_detail():
    f = {"finding": {"sign": -1}, "text": "the sign of the gap", "kind": "typo", "where": "eq. (7)"}
    (g,) = explain(res("verified", findings=[f])).findings
    assert g["detail"] == "sign = -1: the sign of the gap" and g["kind"] == "typo" and g["place"] == "eq. (7)"
    (g,) = explain(res("verified", findings=[{"finding": "headline only"}])).findings
    assert g["detail"] == "headline only"


def test_a_findings_smallest_counterexample_outside_the_model_says_why():
    f = {"detail": "d", "smallest_counterexample": {"pi1": "3/2", "pi2": "-1/2"}}
    (g,) = explain(res("verified", findings=[f])).findings
    assert g["counterexample"] == ("algebraic point outside the model (pi1 = 3/2, pi2 = -1/2 not in (0, 1]): "
                                   "pi1 = 3/2, pi2 = -1/2")
    f = {"detail": "d", "counterexample": [1, 2.5]}
    assert explain(res("verified", findings=[f])).findings[0]["counterexample"] == "[1, 2.5]"


def test_the_same_finding_keeps_every_configuration_it_was_seen_on_in_order():
    fs = [{"detail": "x", "configuration": "drawn 2"}, {"detail": "x"}, {"detail": "x", "configuration": "drawn 1"}]
    (g,) = explain(res("verified", findings=fs)).findings
    assert g["configurations"] == ["drawn 2", "given", "drawn 1"]
    lines = render_answer(explain(res("verified", findings=fs)))
    assert lines[1] == "  finding (also on drawn 2, drawn 1)"
    lines = render_answer(explain(res("verified", findings=[fs[0]])))
    assert lines[1] == "  finding (on drawn 2)"


# ---- inconclusive: reasons and what would settle them -------------------------------------------
def test_each_documented_source_of_a_reason_and_of_what_would_settle_it():
    ev = {"numeric": {"verdict": "inconclusive", "reason": "too few samples", "precise_enough": False,
                      "half_width": 0.25, "margin": 0.1, "samples_to_settle": 4000, "samples_unit": "prompts",
                      "to_settle": {"L": 512}, "undecided": ["a", "b"], "unresolved_rank": True,
                      "unresolved_sign": False, "unresolved_note": "a flag is True or it is not one"}}
    got = [(r["place"], r["kind"], r["reason"]) for r in explain(res(evidence=ev)).reasons]
    assert got == [("numeric", "reason", "too few samples"),
                   ("numeric", "reason", "interval half-width 0.25 is wider than the declared margin 0.1"),
                   ("numeric", "reason", "undecided: [a, b]"),
                   ("numeric", "reason", "unresolved rank"),
                   ("numeric", "settle", "about 4000 prompts"),
                   ("numeric", "settle", "L = 512")]


def test_samples_to_settle_without_a_unit_are_samples_and_a_decided_subtree_is_not_searched():
    ev = {"a": {"passed": None, "samples_to_settle": 10},
          "b": {"verdict": "confirmed", "reason": "hidden", "to_settle": "hidden"}}
    got = [(r["place"], r["kind"], r["reason"]) for r in explain(res(evidence=ev)).reasons]
    assert got == [("a", "settle", "about 10 samples")]


def test_an_unproven_derivation_without_a_reason_says_sympy_could_not_decide():
    ev = {"symbolic": {"rows": [{"derivation": "B.4#65", "status": "unproven"}]}}
    (r,) = explain(res(evidence=ev)).reasons
    assert r == {"place": "symbolic > B.4#65", "kind": "reason",
                 "reason": "SymPy neither proved nor refuted this derivation"}


def test_a_reason_is_kept_only_where_the_node_is_undecided():
    ev = {"x": {"passed": False, "reason": "a reason of a refuted node"}, "y": {"decidable": False, "reason": "r"}}
    got = [(r["place"], r["reason"]) for r in explain(res(evidence=ev)).reasons]
    assert got == [("y", "r")]


def test_reasons_past_the_limit_are_counted_not_printed():
    ev = {f"p{i}": {"verdict": "inconclusive", "reason": f"r{i}"} for i in range(6)}
    lines = render_answer(explain(res(evidence=ev)))
    assert lines[1:] == [f"  inconclusive (p{i}): r{i}" for i in range(4)] + ["  ... 2 more reason(s) in --json"]


# ---- refuted without failing rows, errors ---------------------------------------------------------
def test_a_refuted_leaf_shows_its_values_and_one_with_only_a_long_reason_shows_the_reason():
    ev = {"part": {"verdict": "refuted", "reason": "the bound is exceeded", "rule": "r"}}
    assert explain(res("refuted", ev)).counterexamples == [
        {"label": "fails", "place": "part", "text": "reason = the bound is exceeded"}]
    long = "the bound is exceeded " * 8  # longer than 160 characters: not a value of the leaf
    ev = {"part": {"verdict": "refuted", "reason": long, "rule": "r"}}
    assert explain(res("refuted", ev)).counterexamples == [
        {"label": "refuted because", "place": "part", "text": long}]


def test_a_refutation_without_rows_or_reasons_gives_its_values_and_rule():
    ev = {"slope": -0.5, "ci": [-0.6, -0.4], "long": "x" * 61, "rule": "a slope rule", "nested": {"k": 1}}
    assert explain(res("refuted", ev)).counterexamples == [
        {"label": "refuted on the values", "place": "", "text": "slope = -0.5, ci = [-0.6, -0.4]"},
        {"label": "by the rule", "place": "", "text": "a slope rule"}]
    assert explain(res("refuted", {"verdict": "refuted"})).counterexamples == [
        {"label": "counterexample", "place": "", "text": "none recorded in the evidence; see --json"}]


def test_an_error_names_the_first_exception_recorded_or_says_none_was():
    ev = {"a": {"x": 1}, "b": {"exception": "ZeroDivisionError: division by zero"}}
    assert explain(res("error", ev)).error == "ZeroDivisionError: division by zero"
    assert explain(res("error", {})).error == "the check crashed (no exception recorded)"
    lines = render_answer(explain(res("error", ev)))
    assert lines == ["c [error] T", "  error: ZeroDivisionError: division by zero"]


def test_an_operator_counterexample_lists_the_instance_and_the_two_values():
    ce = {"dim": 1, "mixture": {"weights": ["1"], "means": [["2"]], "covariances": [[["1"]]]}, "U": [["1"]],
          "z": ["3"], "stated_value": ["4"], "operator_value": ["5"], "residual": "1"}
    (c,) = explain(res("refuted", {"counterexample": ce})).counterexamples
    assert c == {"label": "smallest counterexample (dimension 1)", "place": "",
                 "text": "weights [1], means [[2]], covariances [[[1]]], U [[1]], z [3]: stated [4] vs operator [5] "
                         "(residual 1)"}
    (c,) = explain(res("refuted", {"counterexample": {**ce, "inside_model": False}})).counterexamples
    assert c["label"] == "algebraic point outside the model (see --json)"


# ---- rendering and the table -------------------------------------------------------------------------
def test_a_long_title_wraps_to_two_lines_ending_in_an_ellipsis():
    lines = render_answer(Answer(id="c", title="word " * 60, verdict="verified"), width=60)
    assert len(lines) == 2 and all(len(x) <= 60 for x in lines) and lines[-1].endswith("\u2026")


def test_the_quiet_table_counts_refuted_controls_and_flags_survivors_and_findings():
    r1 = res("verified", negative_controls=[{"id": "k1", "refuted": True, "verdict": "refuted"},
                                            {"id": "k2", "refuted": False, "verdict": "verified"}],
             findings=["one", "two"])
    r2 = res("confirmed", negative_controls=[{"id": "k", "refuted": True, "verdict": "refuted"}], findings=["one"])
    r2["id"], r2["seconds"] = "d", 12.25
    lines = claims_table([r1, r2]).split("\n")
    assert lines[0].split() == ["claim", "verdict", "controls", "seconds"] and lines[1] == "-" * 62
    flags = "  <- control survived  (2 findings about the source)"
    assert lines[2] == f"{'c':28s} {'verified':13s} 1/2       {1.0:8.1f}{flags}"
    assert lines[3] == f"{'d':28s} {'confirmed':13s} 1/1       {12.25:8.1f}  (1 finding about the source)"
