"""Self-contained HTML report of a ``softmix verify`` run (issue: evidence a reviewer can follow).

Figures are drawn with matplotlib from the claims' evidence and embedded as base64 PNG. A claim
contributes figures through an evidence key ``figures`` (or ``figure``): a list of
``{"title", "xlabel", "ylabel", "xscale", "yscale", "series": [{"label", "x", "y"}]}``.
Finite-prompt claims are plotted from their ``per_L`` rows.
"""
from __future__ import annotations

import base64
import html
import io
import json
import subprocess

from .assumption_runs import control_failed

__all__ = ["write_report", "figure_specs", "findings_summary"]


def _fp_specs(res: dict) -> list:
    ev = res.get("evidence", {})
    rows = ev.get("per_L")
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], dict) or "L" not in rows[0]:
        return []
    L = [r["L"] for r in rows]
    specs = []
    if "rmse" in rows[0]:
        specs.append({"title": f"{res['id']}: RMSE of T[mu_hat_L](z) vs L", "xlabel": "L", "ylabel": "RMSE",
                      "xscale": "log", "yscale": "log",
                      "series": [{"label": "Monte Carlo", "x": L, "y": [r["rmse"] for r in rows]},
                                 {"label": "slope -1/2", "x": L,
                                  "y": [rows[0]["rmse"] * (l / L[0]) ** -0.5 for l in L]}]})
    if "L_mean_error" in rows[0]:
        pred = ev.get("predicted_bias_coefficient", [])
        series = []
        for i in range(len(rows[0]["L_mean_error"])):
            series.append({"label": f"L*bias[{i}] (MC)", "x": L, "y": [r["L_mean_error"][i] for r in rows]})
            if i < len(pred):
                series.append({"label": f"predicted[{i}]", "x": L, "y": [pred[i]] * len(L)})
        specs.append({"title": f"{res['id']}: L * mean error vs L", "xlabel": "L", "ylabel": "L (E T_L - T)",
                      "xscale": "log", "series": series})
    return specs


def figure_specs(res: dict) -> list:
    ev = res.get("evidence", {}) if isinstance(res.get("evidence"), dict) else {}
    specs = []
    for key in ("figures", "figure"):
        v = ev.get(key)
        if isinstance(v, dict):
            specs.append(v)
        elif isinstance(v, list):
            specs += [s for s in v if isinstance(s, dict)]
    return specs + _fp_specs(res)


def _render(spec: dict) -> str | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 3.4), dpi=100)
    try:
        for s in spec.get("series", []):
            x, y = s.get("x"), s.get("y")
            if not x or not y:
                continue
            kw = {"label": s.get("label")}
            if s.get("style") == "scatter":
                ax.scatter(x, y, s=8, **kw)
            else:
                ax.plot(x, y, **kw)
        ax.set_xscale(spec.get("xscale", "linear"))
        ax.set_yscale(spec.get("yscale", "linear"))
        ax.set_title(spec.get("title", ""), fontsize=9)
        ax.set_xlabel(spec.get("xlabel", ""))
        ax.set_ylabel(spec.get("ylabel", ""))
        if any(s.get("label") for s in spec.get("series", [])):
            ax.legend(fontsize=7)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return base64.b64encode(buf.getvalue()).decode()
    except Exception:
        return None
    finally:
        plt.close(fig)


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        return out.stdout.strip() or None
    except Exception:
        return None


_CSS = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}
.verified,.confirmed{color:#060}.refuted,.error{color:#a00;font-weight:bold}.inconclusive{color:#a60}
pre{background:#f6f6f6;padding:6px;max-height:360px;overflow:auto;font-size:12px}
figure{display:inline-block;margin:4px}.ctlok{color:#060}.ctlbad{color:#a00;font-weight:bold}"""


def findings_summary(claims) -> str:
    """HTML: every finding about the source documents (claim, kind, place, detail, counterexample),
    then what the inconclusive, refuted and errored claims answer and any surviving control
    (:func:`softmix.checks.answers.explain`)."""
    from .answers import explain

    e = html.escape
    answers = [explain(r) for r in claims]
    rows = "".join(f"<tr><td><a href='#{e(a.id)}'>{e(a.id)}</a></td><td>{e(f['kind'])}</td><td>{e(f['place'])}</td>"
                   f"<td>{e(f['detail'])}</td><td>{e(str(f['counterexample']))}</td></tr>"
                   for a in answers for f in a.findings)
    out = ("<h2>Findings</h2>" + (f"<table><tr><th>claim</th><th>kind</th><th>place</th><th>detail</th>"
                                  f"<th>counterexample</th></tr>{rows}</table>" if rows else "<p>No findings.</p>"))
    items = []
    for a in answers:
        lines = [f"{'would settle it' if r['kind'] == 'settle' else 'inconclusive'}"
                 f"{' (' + r['place'] + ')' if r['place'] else ''}: {r['reason']}" for r in a.reasons]
        lines += [f"{c['label']}{' at ' + c['place'] if c['place'] else ''}: {c['text']}" for c in a.counterexamples]
        lines += [f"error: {a.error}"] if a.error else []
        lines += [f"control {c['id']} survived ({c['verdict']}): {c['description']}" for c in a.surviving_controls]
        if lines:
            items.append(f"<li><a href='#{e(a.id)}'>{e(a.id)}</a> <span class='{e(a.verdict)}'>{e(a.verdict)}</span>"
                         f"<ul>{''.join(f'<li>{e(x)}</li>' for x in lines)}</ul></li>")
    if items:
        out += "<h2>Open and failed claims</h2><ul>" + "".join(items) + "</ul>"
    return out


def _survived(c) -> str:
    if c.get("kind") == "assumption-dropped" and not control_failed(c):
        return f" (the assumption {c.get('assumption', '')} is not needed: a scope finding)"
    return " (control survived: verifier failure)"


def write_report(doc: dict, path: str) -> int:
    """Write the HTML file; returns the number of embedded figures."""
    env = dict(doc.get("versions", {}))
    env.update({"seed": doc.get("seed"), "profile": doc.get("profile"), "git_commit": _git_commit()})
    rows, sections, nfig = [], [], 0
    for r in doc["claims"]:
        k = sum(c["refuted"] for c in r["negative_controls"])
        n = len(r["negative_controls"])
        rows.append(f"<tr><td><a href='#{html.escape(r['id'])}'>{html.escape(r['id'])}</a></td>"
                    f"<td class='{r['verdict']}'>{r['verdict']}</td><td>{k}/{n}</td>"
                    f"<td>{html.escape(r.get('source', ''))}</td><td>{r.get('seconds', 0):.1f}</td></tr>")
        figs = []
        for spec in figure_specs(r):
            png = _render(spec)
            if png:
                nfig += 1
                figs.append(f"<figure><img alt='{html.escape(spec.get('title', 'figure'))}' "
                            f"src='data:image/png;base64,{png}'>"
                            f"<figcaption>{html.escape(spec.get('title', ''))}</figcaption></figure>")
        ctrl = "".join(f"<li><b>{html.escape(c['id'])}</b>: {html.escape(c['description'])} &rarr; "
                       f"<span class='{'ctlbad' if control_failed(c) else 'ctlok'}'>{c['verdict']}"
                       f"{'' if c['refuted'] else _survived(c)}</span></li>" for c in r["negative_controls"])
        ev = {k2: v for k2, v in r.get("evidence", {}).items() if k2 not in ("figures", "figure")}
        sections.append(
            f"<h3 id='{html.escape(r['id'])}'>{html.escape(r['id'])}: {html.escape(r.get('title', ''))}</h3>"
            f"<p><b>Source:</b> {html.escape(r.get('source', ''))}<br><b>Statement:</b> "
            f"{html.escape(r.get('statement', ''))}<br>"
            f"<b>Verdict:</b> <span class='{r['verdict']}'>{r['verdict']}</span></p>"
            + ("<p><b>Assumptions:</b> " + html.escape("; ".join(r.get("assumptions", []))) + "</p>"
               if r.get("assumptions") else "")
            + f"<p><b>Negative controls</b></p><ul>{ctrl}</ul>" + "".join(figs)
            + "<details><summary>evidence</summary>"
            + f"<pre>{html.escape(json.dumps(ev, indent=1)[:60000])}</pre></details>")
    complete = all(r["verdict"] != "error" for r in doc["claims"])
    page = ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>softmix report</title>"
            f"<style>{_CSS}</style></head><body>"
            f"<h1>softmix verification report</h1>"
            f"<p>Gabet, Boursier &amp; Boyer (2026) and neighbouring results. Exit code {doc.get('exit_code')}; "
            f"{len(doc['claims'])} claims; {'complete' if complete else 'INCOMPLETE: some checks errored'}.</p>"
            + (("<p><b>Counts:</b> " + html.escape(", ".join(f"{v} {k}" for k, v in doc["counts"].items())) + "</p>")
               if isinstance(doc.get("counts"), dict) else "")
            + findings_summary(doc["claims"]) +
            f"<h2>Environment</h2><pre>{html.escape(json.dumps(env, indent=1))}</pre>"
            "<h2>Verdicts</h2><table><tr><th>claim</th><th>verdict</th><th>controls refuted</th>"
            "<th>source</th><th>s</th></tr>"
            + "".join(rows) + "</table><h2>Claims</h2>" + "".join(sections)
            + "<script>window.addEventListener('load',function(){var n=0;"
              "document.querySelectorAll('img').forEach(function(i){if(i.naturalWidth>0)n++;});"
              "document.body.setAttribute('data-figures-rendered',String(n));});</script></body></html>")
    with open(path, "w") as fh:
        fh.write(page)
    return nfig
