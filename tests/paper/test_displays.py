"""The display ledger (issue 27): extraction and fingerprints, the shipped paper's ledger (one entry
per $$ display, every named claim and derivation exists), moved or re-converted displays are
noticed, bad ledgers exit 2 with one line, and a user's own paper (examples/display_ledger)."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from softmix.checks import displays as D

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "display_ledger"
PAPER_LEDGER = ROOT / "checks" / "paper" / "data" / "displays.toml"


def softmix(*args, cwd=None):
    exe = shutil.which("softmix")
    cmd = [exe] if exe else [sys.executable, "-m", "softmix"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=300, cwd=cwd, check=False)


# ---- extraction and fingerprints ----------------------------------------------------------------
TEXT = """intro $$a$$
# Title
## 2 Results
text
$$
x = 1 ,
$$
## B.5.1 Bayes minimizers
$$ y \\leq 2 $$
$$
z
$$
"""


def test_extract_sections_ordinals_lines():
    ds = D.extract_displays(TEXT)
    assert [(d.section, d.ordinal) for d in ds] == [("", 1), ("2", 1), ("B.5.1", 1), ("B.5.1", 2)]
    assert [d.line for d in ds] == [1, 5, 9, 10]
    assert ds[1].text == "x = 1 ,"
    assert D.section_key("ABSTRACT") == "ABSTRACT" and D.section_key("3.2 A benign landscape") == "3.2"
    assert D.section_key("C Proofs for Section 4") == "C" and D.section_key("Appendix") == "Appendix"


@pytest.mark.parametrize("a, b", [
    ("x = 1", "x   =\n 1"),
    ("f ( x ) = \\alpha x", "f(x)=\\alpha x ."),
    ("\\left( a \\right) \\, b \\quad c", "(a) b c"),
    ("\\begin{array} { r l } { a } & { = b } \\\\ \\end{array}", "{a}{=b}"),
    ("a = b ,\\tag{3}", "a = b\\tag{3}"),
    ("\\bigl ( x \\bigr )", "(x)"),
])
def test_fingerprint_ignores_layout(a, b):
    assert D.fingerprint(a) == D.fingerprint(b)


@pytest.mark.parametrize("a, b", [("x = 1", "x = 2"), ("\\alpha x", "\\alphax"), ("a \\leq b", "a \\geq b"),
                                  ("\\frac{a}{bc}", "\\frac{ab}{c}"), ("a\\tag{3}", "a\\tag{4}")])
def test_fingerprint_sees_formula_changes(a, b):
    assert D.fingerprint(a) != D.fingerprint(b)


# ---- the shipped paper ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def paper_ledger():
    return D.load_ledger(PAPER_LEDGER)


def test_every_display_of_the_shipped_paper_has_exactly_one_entry(paper_ledger):
    text = paper_ledger.paper.read_text(encoding="utf-8")
    ds = D.extract_displays(text)
    assert len(ds) == text.count("$$") // 2 == 474
    pairs = D.match_displays(paper_ledger, ds)
    assert len(pairs) == len(ds) == len(paper_ledger.entries)
    keys = [(e.section, e.ordinal, e.fingerprint) for e in paper_ledger.entries]
    assert len(set(keys)) == len(keys) and set(keys) == {(d.section, d.ordinal, d.fingerprint) for d in ds}
    assert "CC BY 4.0" in text[:500]  # the attribution ships with the copy


def test_shipped_ledger_names_only_existing_claims_and_derivations(paper_ledger):
    from softmix.checks.registry import load_all

    D.check_names(paper_ledger.entries, load_all())
    rows = D.ledger_rows(D.match_displays(paper_ledger))
    c = D.summary(rows)
    assert c["total"] == 474 and sum(c["class"].values()) == 474
    assert all(r["reason"] and r["needs"] in D.NEEDS for r in rows if r["status"] == "unchecked")
    assert all(r["reads"] for r in rows if r["class"] == "artefact")
    # the numbered statements' own displays are decided by the claims of softmix coverage
    assert c["class_status"]["statement/decided"] >= 55


def test_declared_check_names_occur_in_the_claim_sources():
    from softmix.checks.paper.display_ledger import CHECKS

    src = "".join(p.read_text() for d in ("checks/paper", "theory") for p in (ROOT / d).glob("*.py")
                  if p.name != "display_ledger.py")
    for cid, names in CHECKS.items():
        for n in names:
            assert n.removeprefix("Lemma B.3 ") in src, (cid, n)


def _copy(tmp_path, text, ledger_text):
    (tmp_path / "paper.md").write_text(text)
    (tmp_path / "ledger.toml").write_text(ledger_text)
    return D.load_ledger(tmp_path / "ledger.toml")


def _paper_copy_ledger(paper_ledger):
    return PAPER_LEDGER.read_text().replace(f'paper = "{paper_ledger.paper.name}"', 'paper = "paper.md"')


def test_reconverted_display_is_noticed(tmp_path, paper_ledger):
    text = paper_ledger.paper.read_text(encoding="utf-8")
    old = "\\nabla \\mathcal { R } ( \\theta ) = D \\Phi ( \\theta ) ^ { * } \\nabla"
    assert text.index(old) < text.index("## 3.3")  # its first occurrence is display 3.2 #4, the chain rule
    led = _copy(tmp_path, text.replace(old, old.replace("^ { * }", "^ { \\top }"), 1), _paper_copy_ledger(paper_ledger))
    with pytest.raises(D.LedgerError, match=r"display 3\.2 #4 \(line \d+\): fingerprint \w+ in the paper"):
        D.match_displays(led)
    # a reflow only (more spaces, spacing commands) is the same display
    led = _copy(tmp_path, text.replace(old, old.replace(" ", "  ") + " \\,", 1), _paper_copy_ledger(paper_ledger))
    assert len(D.match_displays(led)) == 474


def test_moved_display_is_noticed(tmp_path, paper_ledger):
    text = paper_ledger.paper.read_text(encoding="utf-8")
    a, b = "$$\nX \\mid Y = c", "$$\n\\begin{array} { l } { { w ^ { \\star } = \\Gamma"  # 3.1 #1 and #2
    i, j = text.index(a), text.index(b)
    ea, eb = text.index("$$", i + 2) + 2, text.index("$$", j + 2) + 2
    swapped = text[:i] + text[j:eb] + text[ea:j] + text[i:ea] + text[eb:]
    led = _copy(tmp_path, swapped, _paper_copy_ledger(paper_ledger))
    with pytest.raises(D.LedgerError, match=r"display 3\.1 #1 .*the entry's display is now 3\.1 #2\) \(and 1 more\)"):
        D.match_displays(led)


def test_missing_and_extra_entries(tmp_path):
    text = (EXAMPLE / "paper.md").read_text()
    led = _copy(tmp_path, text + "\n$$\nw = 0\n$$\n", (EXAMPLE / "ledger.toml").read_text())
    with pytest.raises(D.LedgerError, match=r"display 2 #4 \(line \d+\) has no entry"):
        D.match_displays(led)
    extra = (EXAMPLE / "ledger.toml").read_text() + '\n[[display]]\nsection = "3"\nordinal = 1\nfingerprint = "0"\nclass = "definition"\n'
    led = _copy(tmp_path, text, extra)
    with pytest.raises(D.LedgerError, match=r"display 3 #1 is in the ledger but not in the paper"):
        D.match_displays(led)


@pytest.mark.parametrize("entry, msg", [
    ('class = "lemma"', "class must be one of"),
    ('class = "step"\nclaims = ["a"]', "names the derivation or check"),
    ('class = "step"', "gives a reason"),
    ('class = "step"\nreason = "r"\nneeds = "magic"', "says what it needs"),
    ('class = "definition"\nclaims = ["a"]', "is not decided by a claim"),
    ('class = "artefact"', "should read"),
    ('class = "step"\nderivation = "d"\nreason = "r"\nneeds = "derivation"', "without the claim"),
    ('class = "definition"\ncolour = "red"', "unknown field"),
])
def test_entry_validation(tmp_path, entry, msg):
    (tmp_path / "p.md").write_text("$$x$$")
    f = tmp_path / "l.toml"
    f.write_text(f'paper = "p.md"\n[[display]]\nsection = ""\nordinal = 1\nfingerprint = "{D.fingerprint("x")}"\n{entry}\n')
    with pytest.raises(D.LedgerError, match=msg):
        D.load_ledger(f)


def test_unknown_claim_and_derivation_are_errors():
    from softmix.checks.registry import load_all

    reg = load_all()
    e = D.Entry("2", 1, "f", "step", ("lemma-b.8",), ("no such derivation",))
    with pytest.raises(D.LedgerError, match="no derivation or check named 'no such derivation' in claim"):
        D.check_names([e], reg)
    with pytest.raises(D.LedgerError, match="unknown claim id 'no-such-claim'"):
        D.check_names([D.Entry("2", 1, "f", "statement", ("no-such-claim",))], reg)
    D.check_names([D.Entry("2", 1, "f", "step", ("lemma-b.8",), ("Lemma B.8 Df_theta[h], d=1",))], reg)


def test_undecided_priority_order():
    rows = [{"class": c, "status": s, "needs": n, "i": i} for i, (c, s, n) in enumerate([
        ("step", "unchecked", "numeric"), ("estimate", "unchecked", "derivation"), ("step", "decided", ""),
        ("step", "unchecked", "argument"), ("statement", "unchecked", "derivation"), ("step", "unchecked", "derivation")])]
    assert [r["i"] for r in D.undecided(rows)] == [1, 5, 0]


# ---- the command line -------------------------------------------------------------------------------
def test_example_paper_as_a_process(tmp_path):
    out = tmp_path / "d.json"
    r = softmix("coverage", "--displays", "--ledger", str(EXAMPLE / "ledger.toml"),
                "--plugin", str(EXAMPLE / "claims.py"), "--json", str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    rows = doc["displays"]
    assert [(x["section"], x["ordinal"], x["class"], x["status"]) for x in rows] == [
        ("1", 1, "definition", "n/a"), ("2", 1, "statement", "decided"), ("2", 2, "step", "decided"),
        ("2", 3, "estimate", "unchecked")]
    for x in rows:
        assert set(x) >= {"section", "ordinal", "fingerprint", "class", "status", "claims", "derivation", "reason"}
    assert rows[2]["derivation"] == ["expanding (x + 1)^2"] and rows[2]["claims"] == ["tiny-lemma-2.1"]
    assert "step and estimate displays decided: 1 of 2 (50 %)" in r.stdout
    assert [x["ordinal"] for x in doc["undecided"]] == [3]
    v = softmix("verify", "--plugin", str(EXAMPLE / "claims.py"), "--quiet")
    assert v.returncode == 0 and "verified" in v.stdout


@pytest.mark.parametrize("change, needle", [
    (('derivation = "expanding (x + 1)^2"', 'derivation = "expanding twice"'), "expanding twice"),
    (('claims = ["tiny-lemma-2.1"]\n\n', 'claims = ["tiny-lemma-9"]\n\n'), "tiny-lemma-9"),
    (('fingerprint = "35757324d3"', 'fingerprint = "0123456789"'), "display 2 #2"),
])
def test_bad_ledger_exits_2_with_one_line(tmp_path, change, needle):
    shutil.copy(EXAMPLE / "paper.md", tmp_path / "paper.md")
    text = (EXAMPLE / "ledger.toml").read_text()
    assert change[0] in text
    (tmp_path / "ledger.toml").write_text(text.replace(change[0], change[1], 1))
    r = softmix("coverage", "--displays", "--ledger", str(tmp_path / "ledger.toml"), "--plugin", str(EXAMPLE / "claims.py"))
    assert r.returncode == 2 and needle in r.stderr
    assert r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr and not r.stdout


def test_ledger_options_need_displays():
    r = softmix("coverage", "--undecided")
    assert r.returncode == 2 and "--displays" in r.stderr
