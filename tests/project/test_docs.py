"""The front door: the README stays short, its two commands stay where CI reads them, its links and
its risk example stay true; docs/findings.md names every claim that carries a finding."""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()

#: claims whose evidence carries ``findings`` under the default seed (``softmix verify --json``)
FINDING_CLAIMS = ("lemma-b.8", "prop-4.4", "prop-b.35", "fig-1", "lemma-b.16", "lemma-b.17", "lemma-b.33",
                  "remark-b.5", "bb-prop-3.1", "bb-thm-5.1")


def test_readme_is_a_short_front_door():
    lines = README.splitlines()
    assert len(lines) <= 150
    assert max(len(line) for line in lines) <= 110
    # the two commands are the first lines after the title, byte-identical (.ci/run reads them)
    assert README.startswith(
        "# softmix\n\n<!-- verify-command -->\n```bash\npip install . && softmix verify\n```\n"
        "<!-- test-command -->\n```bash\npip install \".[test]\" && pytest\n```\n")
    ci = ROOT / ".ci" / "run"
    assert not ci.exists() or "<!-- test-command -->" in ci.read_text()


def test_readme_links_resolve():
    links = re.findall(r"\]\(([^)#]+)\)", README)
    assert links
    for link in links:
        if not link.startswith("http"):
            assert (ROOT / link).exists(), link


def test_readme_risk_example_prints_the_numbers_it_quotes():
    block = re.search(r"```bash\n(softmix risk .*?)```", README, re.DOTALL).group(1)
    args = block.replace("\\\n", " ").split()[1:]
    r = subprocess.run([sys.executable, "-m", "softmix", *args], capture_output=True, text=True, timeout=300,
                       cwd=ROOT, check=False)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    quoted = re.search(r"R_∞ = ([\d.]+) and\s+K = ([\d.]+).*?λ\* = ([\d.]+)", README, re.DOTALL)
    r_inf, k, lam = (float(x) for x in quoted.groups())
    assert abs(float(out["risk_infinite"]) - r_inf) < 5e-5
    assert abs(float(out["coefficient_1_over_L"]) - k) < 5e-5
    assert abs(float(out["threshold"]) - lam) < 5e-4 and out["finite"] is True


def test_findings_document_names_every_claim_with_a_finding_and_only_registered_claims():
    text = (ROOT / "docs" / "findings.md").read_text()
    for cid in FINDING_CLAIMS:
        assert f"`{cid}`" in text, cid
    code = "import json; from softmix.checks.registry import load_all; print(json.dumps(list(load_all())))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    registered = set(json.loads(r.stdout.strip().splitlines()[-1]))
    named = set(re.findall(r"\(claim `([a-z0-9.\-]+)`", text)) | set(re.findall(r"^\* `([a-z0-9.\-]+)`", text,
                                                                                re.MULTILINE))
    assert named and named <= registered, named - registered


def test_license_matches_pyproject():
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text()
    lic = (ROOT / "LICENSE").read_text()
    assert lic.startswith("MIT License") and "Copyright (c) 2026 the softmix developers" in lic
