"""What a ``softmix verify`` run answers, read from the claims' results (the JSON objects).

The engine knows nothing of any claim: everything here is extracted generically from the shape of
the evidence that the claim-writing API and the rule objects produce.

* :func:`explain` turns one claim's result into an :class:`Answer` -- its title, every finding
  (kind, place, detail, counterexample), for an inconclusive claim the reasons and what would
  settle it, for a refuted claim the smallest counterexample, for an errored claim the exception,
  and the negative controls that survived;
* :func:`render_answers` prints those answers for a terminal (wrapped to at most 100 columns);
* :func:`claims_table` is the one-line-per-claim table (all ``softmix verify --quiet`` prints
  besides the summary line).

Where things are found in the evidence:

* findings: the result's ``findings`` (dicts with ``kind``, ``where``, ``detail`` or ``text``,
  ``finding`` (a headline), ``counterexample`` or ``smallest_counterexample``, ``configuration``;
  or plain strings); the same finding on several configurations is shown once;
* inconclusive: every undecided node of the evidence (``verdict`` inconclusive or unproven,
  ``passed`` None, ``decidable`` False) with its ``reason``; ``to_settle`` and
  ``samples_to_settle`` / ``samples_unit`` (what would settle it); an interval wider than its
  margin (``precise_enough`` False); ``undecided`` lists and ``unresolved_*`` flags; decided
  subtrees (confirmed, verified) are not searched;
* refuted: an operator statement's ``counterexample`` (a shrunk numeric instance) and
  ``symbolic_counterexample`` (an algebraic point; labelled *outside the model* when it carries
  ``inside_model: false`` or when its weights or covariances, recognisable by the symbol names of
  :func:`softmix.theory.mixtures.symbolic_mixture`, leave the model); otherwise the failing leaves
  of the evidence (``verdict`` refuted, ``passed`` False, ``status`` refuted), the one of lowest
  ``dim`` first.
"""
from __future__ import annotations

import re
import shutil
import textwrap
from dataclasses import dataclass, field

__all__ = ["Answer", "claims_table", "explain", "outside_model_reason", "render_answer",
           "render_answers", "terminal_width"]

#: at most this many reasons or counterexamples are printed per claim (the JSON has them all)
MAX_ITEMS = 4
_LABEL_KEYS = ("name", "id", "point", "derivation", "configuration", "label", "dim", "L")
_SKIP_KEYS = ("evidence", "rows", "configurations", "parts")
_META_KEYS = ("rule", "verdict", "passed", "test", "traceback", "alpha", "decidable", "status")


@dataclass
class Answer:
    """What one claim's result answers (see the module docstring); plain data, JSON-friendly."""

    id: str
    title: str
    verdict: str
    findings: list = field(default_factory=list)        # {kind, place, detail, counterexample, configurations}
    reasons: list = field(default_factory=list)         # {place, kind: reason|settle, reason} if inconclusive
    counterexamples: list = field(default_factory=list)  # {label, place, text} for a refuted claim
    error: str = ""
    surviving_controls: list = field(default_factory=list)  # {id, verdict, description}


def terminal_width(limit: int = 100) -> int:
    """The terminal's width, at most ``limit`` (100 when stdout is not a terminal)."""
    return max(60, min(limit, shutil.get_terminal_size((limit, 24)).columns))


# ---- compact text of values ------------------------------------------------------------------
def _compact(v) -> str:
    """A value as short text: numbers and strings as they are, lists in brackets, dicts k = v."""
    if isinstance(v, dict):
        return ", ".join(f"{k} = {_compact(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_compact(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _clip(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "\u2026"


# ---- walking the evidence ---------------------------------------------------------------------
def _label(item, i: int) -> str:
    if isinstance(item, dict):
        for k in _LABEL_KEYS:
            v = item.get(k)
            if isinstance(v, (str, int, float)) and not isinstance(v, bool) and len(str(v)) <= 60:
                return str(v) if k in ("name", "id", "point", "derivation", "configuration", "label") else f"{k} = {v}"
    return f"#{i + 1}"


def _walk(x, path=(), prune=None, root=True):
    """Yield (path, dict) for every dict in ``x``; ``prune(d)`` True skips a dict's subtree (never
    the root's)."""
    if isinstance(x, dict):
        if prune and not root and prune(x):
            return
        yield path, x
        for k, v in x.items():
            yield from _walk(v, path if k in _SKIP_KEYS else path + (str(k),), prune, False)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            label = _label(v, i)
            yield from _walk(v, path if len(x) == 1 and label.startswith("#") else path + (label,), prune, False)


def _place(path) -> str:
    return " > ".join(path)


def _decided(d: dict) -> bool:
    if "verdict" in d:
        return d["verdict"] in ("verified", "confirmed")
    return d.get("passed") is True or d.get("status") == "proven"


def _failing(d: dict) -> bool:
    return d.get("verdict") == "refuted" or d.get("passed") is False or d.get("status") == "refuted"


def _passing(d: dict) -> bool:
    return d.get("verdict") in ("verified", "confirmed", "inconclusive") or d.get("passed") is True


# ---- findings -----------------------------------------------------------------------------------
def _finding(f, source: str) -> dict:
    if not isinstance(f, dict):
        return {"kind": "finding", "place": source, "detail": str(f), "counterexample": "", "configuration": None,
                "headline": ""}
    detail = f.get("detail") or f.get("text") or f.get("what") or f.get("description") or ""
    headline = f.get("finding")
    if headline and not isinstance(headline, str):
        headline = _compact(headline)
    if headline:
        detail = f"{headline}: {detail}" if detail else headline
    ce = f.get("smallest_counterexample", f.get("counterexample", ""))
    why = outside_model_reason(ce) if isinstance(ce, dict) else ""
    if why:
        ce = f"algebraic point outside the model ({why}): {_compact(ce)}"
    return {"kind": str(f.get("kind") or "finding"), "place": str(f.get("where") or source or ""),
            "detail": str(detail), "counterexample": ce if isinstance(ce, str) else _compact(ce),
            "configuration": f.get("configuration"), "headline": headline or ""}


def _findings(res: dict) -> list:
    out: dict = {}
    for f in res.get("findings") or []:
        g = _finding(f, res.get("source", ""))
        key = (g["kind"], g["place"], g.pop("headline") or g["detail"])
        conf = g.pop("configuration") or "given"
        if key in out:
            out[key]["configurations"].append(conf)
        else:
            out[key] = {**g, "configurations": [conf]}
    return list(out.values())


# ---- inconclusive: reasons and what would settle them ------------------------------------------
def _reasons_of(d: dict) -> list:
    """(kind, text) pairs a single evidence node gives for not deciding: kind "reason" (why) or
    "settle" (what would settle it); empty if it gives none."""
    out = []
    undecided = d.get("verdict") in ("inconclusive", "unproven") or ("passed" in d and d["passed"] is None) \
        or d.get("decidable") is False or d.get("status") == "unproven"
    if undecided and d.get("reason"):
        out.append(("reason", str(d["reason"])))
    if d.get("precise_enough") is False and d.get("half_width") is not None and d.get("margin") is not None:
        out.append(("reason", (f"interval half-width {_compact(d['half_width'])} is wider than the declared "
                               f"margin {_compact(d['margin'])}")))
    if d.get("samples_to_settle"):
        out.append(("settle", f"about {d['samples_to_settle']} {d.get('samples_unit') or 'samples'}"))
    if d.get("to_settle"):
        out.append(("settle", _compact(d["to_settle"])))
    if d.get("undecided"):
        out.append(("reason", f"undecided: {_clip(_compact(d['undecided']), 160)}"))
    for k, v in d.items():
        if k.startswith("unresolved") and v is True:
            out.append(("reason", k.replace("_", " ")))
    if d.get("status") == "unproven" and d.get("derivation") and not out:
        out.append(("reason", "SymPy neither proved nor refuted this derivation"))
    return out


def _inconclusive(res: dict) -> list:
    seen, out = set(), []
    for path, d in _walk(res.get("evidence") or {}, prune=_decided):
        for kind, text in _reasons_of(d):
            if (kind, text, path) not in seen:
                seen.add((kind, text, path))
                out.append({"place": _place(path), "kind": kind, "reason": text})
    out.sort(key=lambda r: r["kind"] == "settle")  # stable: reasons first, then what would settle them
    if not out:
        parts = [k for k, v in (res.get("evidence") or {}).items()
                 if isinstance(v, dict) and v.get("verdict") in ("inconclusive", "unproven")]
        what = f" (undecided part(s): {', '.join(parts)})" if parts else ""
        out.append({"place": "", "kind": "reason", "reason": f"no reason recorded in the evidence{what}; see --json"})
    return out


# ---- refuted: counterexamples -------------------------------------------------------------------
_WEIGHT = re.compile(r"^(?:\w*_)?pi(?:\d+|_\w+)?$")
_COV = re.compile(r"^(?P<pre>.*?)G(?P<k>\d*)_(?P<ij>\d+(?:_\d+)?)$")


def _rational(s):
    import sympy as sp

    try:
        v = sp.Rational(str(s))
    except (TypeError, ValueError, SyntaxError):
        return None
    return v


def _entry_index(ij: str):
    if "_" in ij:
        i, j = ij.split("_")
        return int(i) - 1, int(j) - 1
    return int(ij[0]) - 1, int(ij[1:]) - 1


def outside_model_reason(point: dict) -> str:
    """Why an algebraic point (symbol name -> exact value, as in a SymPy counterexample) lies
    outside the Gaussian-mixture model, or "" when it does not or cannot be told.

    Weights (class proportions) are recognised as ``pi1``, ``pi2``, ... or ``pi_<name>``, and
    covariance entries as ``G1_11``, ``G1_12``, ... (``G_11`` for a shared covariance), the names of
    :func:`softmix.theory.mixtures.symbolic_mixture`: a weight must lie in (0, 1], numbered weights
    must sum to 1, a covariance must be positive semidefinite."""
    import sympy as sp

    weights: dict = {}
    covs: dict = {}
    for name, val in point.items():
        v = _rational(val)
        if v is None:
            continue
        if _WEIGHT.match(name):
            weights[name] = v
            continue
        m = _COV.match(name)
        if m and len(m.group("ij")) >= 2:
            covs.setdefault(m.group("pre") + "G" + m.group("k"), {})[_entry_index(m.group("ij"))] = v
    why = []
    bad = {k: w for k, w in weights.items() if w <= 0 or w > 1}
    if bad:
        why.append(", ".join(f"{k} = {w}" for k, w in sorted(bad.items())) + " not in (0, 1]")
    numbered = [w for k, w in weights.items() if re.search(r"\d+$", k)]
    if len(numbered) >= 2 and sum(numbered) != 1:
        why.append(f"weights sum to {sum(numbered)}, not 1")
    for name, entries in sorted(covs.items()):
        n = 1 + max(max(i, j) for i, j in entries)
        try:
            G = sp.Matrix(n, n, lambda i, j, e=entries: e.get((i, j), e.get((j, i))))
        except TypeError:
            continue
        if any(x is None for x in G):
            continue
        if not G.is_positive_semidefinite:
            why.append(f"{name} = {_compact(G.tolist())} is not positive semidefinite")
    return "; ".join(why)


def _operator_instance(ce: dict) -> str:
    mix = ce.get("mixture") or {}
    parts = [f"weights {_compact(mix.get('weights'))}", f"means {_compact(mix.get('means'))}",
             f"covariances {_compact(mix.get('covariances'))}"]
    parts += [f"{k} {_compact(ce[k])}" for k in ("U", "V", "z") if k in ce]
    text = ", ".join(parts)
    if "stated_value" in ce:
        text += f": stated {_compact(ce['stated_value'])} vs operator {_compact(ce.get('operator_value'))}"
    if ce.get("residual") is not None:
        text += f" (residual {ce['residual']})"
    return text


def _point_item(pt, label: str, place: str) -> dict:
    """A counterexample item; labelled an algebraic point outside the model when it is one."""
    meta = ("inside_model", "outside_model_reason", "point")
    point = pt.get("point") if isinstance(pt.get("point"), dict) else {k: v for k, v in pt.items() if k not in meta}
    if pt.get("inside_model") is False:
        why = pt.get("outside_model_reason") or outside_model_reason(point) or "see --json"
    elif pt.get("inside_model") is True:
        why = ""
    else:
        why = outside_model_reason(point)
    if why:
        label = f"algebraic point outside the model ({why})"
    return {"label": label, "place": place, "text": _compact(point)}


def _leaf_text(d: dict) -> str:
    if isinstance(d.get("counterexample"), dict):
        head = f"{d['derivation']}: " if d.get("derivation") else ""
        return head + "differs at " + _compact(d["counterexample"])
    keep = {k: v for k, v in d.items() if k not in _META_KEYS and k not in ("name", "values")
            and not k.startswith("_") and not (isinstance(v, str) and len(v) > 160) and not isinstance(v, dict)}
    return _compact(keep)  # "" for a bare configuration row: its evidence is listed elsewhere


def _has_failing_descendant(x) -> bool:
    vals = x.values() if isinstance(x, dict) else x
    return any(isinstance(v, (dict, list)) and ((isinstance(v, dict) and _failing(v)) or _has_failing_descendant(v))
               for v in vals)


def _failing_leaves(ev: dict) -> list:
    leaves = []
    for path, d in _walk(ev, prune=lambda x: _passing(x) and not _failing(x)):
        if _failing(d) and not _has_failing_descendant(d) and _leaf_text(d):
            leaves.append((path, d))
    leaves.sort(key=lambda t: (t[1].get("dim") if isinstance(t[1].get("dim"), int) else 10**6))
    return leaves


def _counterexamples(res: dict) -> list:
    ev = res.get("evidence") or {}
    out = []
    ce = ev.get("counterexample")
    if isinstance(ce, dict) and "mixture" in ce:
        item = {"label": f"smallest counterexample (dimension {ce.get('dim', '?')})", "place": "",
                "text": _operator_instance(ce)}
        if ce.get("inside_model") is False:
            item["label"] = f"algebraic point outside the model ({ce.get('outside_model_reason') or 'see --json'})"
        out.append(item)
    elif isinstance(ce, dict):
        out.append(_point_item(ce, "counterexample", ""))
    sym = ev.get("symbolic_counterexample")
    if isinstance(sym, dict):
        out.append(_point_item(sym, "symbolic counterexample (SymPy, a random rational point)", ""))
    if not out:
        for path, d in _failing_leaves(ev)[:MAX_ITEMS]:
            label = "counterexample" if isinstance(d.get("counterexample"), dict) else "fails"
            out.append({"label": label, "place": _place(path), "text": _leaf_text(d)})
    refuted_on = ev.get("refuted_on")
    if refuted_on:
        rows = {r.get("name"): r for r in (res.get("configurations") or {}).get("rows", []) if isinstance(r, dict)}
        for name in refuted_on:
            vals = (rows.get(name) or {}).get("values")
            out.append({"label": "refuted on configuration", "place": str(name),
                        "text": _compact(vals) if vals else "(values in --json)"})
    if not out:
        out = _refutation_without_rows(ev)
    return out


def _refutation_without_rows(ev: dict) -> list:
    """A refuted outcome whose evidence marks no failing row: its stated reasons, else the values
    it decided on (top-level scalars and short lists) and its rule."""
    out = [{"label": "refuted because", "place": _place(path), "text": str(d["reason"])}
           for path, d in _walk(ev, prune=lambda x: _passing(x) and not _failing(x))
           if isinstance(d.get("reason"), str)][:MAX_ITEMS]
    if out:
        return out
    values = {k: v for k, v in ev.items() if k not in _META_KEYS and k not in _SKIP_KEYS
              and (isinstance(v, (int, float, str)) and len(str(v)) <= 60
                   or isinstance(v, list) and len(v) <= 6 and all(isinstance(x, (int, float, str)) for x in v))}
    if values:
        out.append({"label": "refuted on the values", "place": "", "text": _compact(values)})
    if isinstance(ev.get("rule"), str):
        out.append({"label": "by the rule", "place": "", "text": ev["rule"]})
    return out or [{"label": "counterexample", "place": "", "text": "none recorded in the evidence; see --json"}]


def _exception(ev) -> str:
    for _, d in _walk(ev):
        if d.get("exception"):
            return str(d["exception"])
    return "the check crashed (no exception recorded)"


def explain(res: dict) -> Answer:
    """One claim's result (a ``softmix verify --json`` claim object) -> its :class:`Answer`."""
    verdict = res.get("verdict", "error")
    a = Answer(id=str(res.get("id", "")), title=str(res.get("title", "")), verdict=verdict,
               findings=_findings(res))
    if verdict == "inconclusive":
        a.reasons = _inconclusive(res)
    elif verdict == "refuted":
        a.counterexamples = _counterexamples(res)
    elif verdict == "error":
        a.error = _exception(res.get("evidence") or {})
    from .assumption_runs import control_failed  # a dropped assumption that is not needed is a scope finding

    a.surviving_controls = [{"id": c.get("id"), "verdict": c.get("verdict"), "description": c.get("description", "")}
                            for c in res.get("negative_controls", []) if control_failed(c)]
    return a


# ---- rendering ------------------------------------------------------------------------------------
def _wrap(text: str, width: int, indent: str, max_lines: int = 2) -> list:
    lines = textwrap.wrap(" ".join(str(text).split()), width=width, initial_indent=indent,
                          subsequent_indent=indent + "  ", break_long_words=True, break_on_hyphens=False)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: width - 1].rstrip() + "\u2026"
    return lines


def render_answer(a: Answer, width: int = 100) -> list:
    """The lines of one claim's answer: ``id [verdict] title``, then indented findings, reasons,
    counterexamples, the exception and surviving controls, each wrapped to ``width`` (runs of
    whitespace collapsed)."""
    lines = _wrap(f"{a.id} [{a.verdict}] {a.title}", width, "", 2)
    for f in a.findings:
        where = f" at {f['place']}" if f["place"] else ""
        confs = [c for c in f["configurations"] if c != "given"]
        on = f" (also on {', '.join(confs)})" if confs and "given" in f["configurations"] else \
            (f" (on {', '.join(confs)})" if confs else "")
        kind = "" if f["kind"] == "finding" else f" ({f['kind']})"
        lines += _wrap(f"finding{kind}{where}{on}", width, "  ", 2)
        lines += _wrap(f["detail"], width, "      ", 2)
        if f["counterexample"]:
            lines += _wrap(f"counterexample: {f['counterexample']}", width, "      ", 2)
    for r in a.reasons[:MAX_ITEMS]:
        where = f" ({r['place']})" if r["place"] else ""
        head = "would settle it" if r["kind"] == "settle" else "inconclusive"
        lines += _wrap(f"{head}{where}: {r['reason']}", width, "  ", 3)
    if len(a.reasons) > MAX_ITEMS:
        lines.append(f"  ... {len(a.reasons) - MAX_ITEMS} more reason(s) in --json")
    for c in a.counterexamples[:MAX_ITEMS]:
        where = f" at {c['place']}" if c["place"] else ""
        lines += _wrap(f"{c['label']}{where}:", width, "  ", 2)
        lines += _wrap(c["text"], width, "      ", 4)
    if a.error:
        lines += _wrap(f"error: {a.error}", width, "  ", 3)
    for c in a.surviving_controls:
        lines += _wrap(f"control {c['id']} SURVIVED ({c['verdict']}): {c['description']}", width, "  ", 2)
    return lines


def render_answers(results, width: int | None = None) -> str:
    """Every claim's answer, one block per claim (see :func:`render_answer`)."""
    width = width or terminal_width()
    return "\n".join(line for r in results for line in render_answer(explain(r), width))


def claims_table(results) -> str:
    """One line per claim: id, verdict, controls refuted, seconds, and a flag for a surviving
    control or findings (what ``softmix verify --quiet`` prints above the summary line)."""
    from .assumption_runs import control_failed

    lines = [f"{'claim':28s} {'verdict':13s} {'controls':9s} {'seconds':>8s}", "-" * 62]
    for r in results:
        n = len(r["negative_controls"])
        k = sum(c["refuted"] for c in r["negative_controls"])
        flag = "  <- control survived" if any(control_failed(c) for c in r["negative_controls"]) else ""
        if r.get("findings"):
            nf = len(_findings(r))
            flag += f"  ({nf} finding{'s' if nf != 1 else ''} about the source)"
        lines.append(f"{r['id']:28s} {r['verdict']:13s} {k}/{n:<7d} {r['seconds']:8.1f}{flag}")
    return "\n".join(lines)
