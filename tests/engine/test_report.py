"""The HTML report: self-contained, lists every verdict and embeds the figures."""
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser


class _Imgs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.ids = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if "id" in a:
            self.ids.append(a["id"])


def test_report_lists_verdicts_and_embeds_figures(tmp_path):
    exe = shutil.which("softmix")
    cmd = [exe] if exe else [sys.executable, "-m", "softmix"]
    out, js = tmp_path / "r.html", tmp_path / "r.json"
    r = subprocess.run(cmd + ["verify", "fp-lln", "prop-2.1-shared", "--quiet", "--report", str(out), "--json",
                              str(js)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    p = _Imgs()
    p.feed(text)
    assert p.imgs and all(s.startswith("data:image/png;base64,") for s in p.imgs)  # self-contained
    doc = json.loads(js.read_text())
    from softmix.checks.schema import validate

    validate(doc)
    for c in doc["claims"]:
        assert c["id"] in p.ids and re.search(rf">{c['verdict']}<", text)
    assert "git_commit" in text and "seed" in text


def test_report_needs_html_suffix(tmp_path):
    exe = shutil.which("softmix")
    cmd = [exe] if exe else [sys.executable, "-m", "softmix"]
    r = subprocess.run(cmd + ["verify", "prop-2.1-shared", "--report", str(tmp_path / "x.txt")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def test_report_renders_in_a_headless_browser(tmp_path):
    """Opens the report in headless Chromium: the page's own script counts images that decoded."""
    import pytest

    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium on this machine (.ci/run installs it)")
    exe = shutil.which("softmix")
    cmd = [exe] if exe else [sys.executable, "-m", "softmix"]
    out = tmp_path / "r.html"
    r = subprocess.run(cmd + ["verify", "fp-lln", "fp-bias", "--quiet", "--report", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                          "--disable-background-networking", "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000", "--dump-dom",
                          out.as_uri()], capture_output=True, text=True, timeout=120).stdout
    p = _Imgs()
    p.feed(dom)
    m = re.search(r'data-figures-rendered="(\d+)"', dom)
    assert m, "the report's script did not run"
    assert int(m.group(1)) == len(p.imgs) >= 2
    assert "fp-lln" in p.ids and "fp-bias" in p.ids
