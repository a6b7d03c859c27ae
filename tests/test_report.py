"""The HTML report: self-contained, lists every verdict and embeds the figures."""
import json
import re
import subprocess
import sys
import shutil
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
    cmd = [exe] if exe else [sys.executable, "-m", "checks.cli"]
    out, js = tmp_path / "r.html", tmp_path / "r.json"
    r = subprocess.run(cmd + ["verify", "fp-lln", "prop-2.1-shared", "--quiet", "--report", str(out), "--json", str(js)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    p = _Imgs()
    p.feed(text)
    assert p.imgs and all(s.startswith("data:image/png;base64,") for s in p.imgs)  # self-contained
    doc = json.loads(js.read_text())
    for c in doc["claims"]:
        assert c["id"] in p.ids and re.search(rf">{c['verdict']}<", text)
    assert "git_commit" in text and "seed" in text


def test_report_needs_html_suffix(tmp_path):
    exe = shutil.which("softmix")
    cmd = [exe] if exe else [sys.executable, "-m", "checks.cli"]
    r = subprocess.run(cmd + ["verify", "prop-2.1-shared", "--report", str(tmp_path / "x.txt")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2
