"""Run claims (and their negative controls) in parallel worker processes."""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import platform
import sys
import time
import traceback

from .assumption_runs import control_failed, scope_findings
from .registry import Context, Outcome, load_all
from .rules import alpha_accounting

__all__ = ["Result", "run_claim", "run_claims", "versions", "claim_passed", "exit_code", "verdict_counts"]


def _jsonable(x):
    """Evidence -> JSON by the one number rule of :data:`softmix.checks.schema.NUMBER_RULE`:
    integers -> JSON integers; float64 quantities (Python and NumPy floats) -> JSON numbers,
    non-finite ones -> the strings "inf", "-inf", "nan"; exact rationals (Fraction, SymPy
    Rational) -> strings "p/q" (integers "p"); high-precision reals (mpmath, SymPy Float,
    Decimal) -> decimal strings with 30 significant digits; anything else -> str()."""
    import decimal
    import math
    from fractions import Fraction

    import mpmath as mpm
    import numpy as np
    import sympy as sp

    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, type(None), str)):
        return x
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, mpm.mpf):
        return mpm.nstr(x, 30) if mpm.isfinite(x) else ("nan" if mpm.isnan(x) else ("inf" if x > 0 else "-inf"))
    if isinstance(x, mpm.matrix):
        return [[_jsonable(x[i, j]) for j in range(x.cols)] for i in range(x.rows)]
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, sp.Integer):
        return int(x)
    if isinstance(x, sp.Rational):
        return f"{x.p}/{x.q}"
    if isinstance(x, sp.Float):
        return _jsonable(mpm.mpf(x._mpf_)) if hasattr(x, "_mpf_") else str(x)
    if isinstance(x, decimal.Decimal):
        return str(x) if x.is_finite() else ("nan" if x.is_nan() else ("inf" if x > 0 else "-inf"))
    if isinstance(x, sp.MatrixBase):
        return [[_jsonable(x[i, j]) for j in range(x.cols)] for i in range(x.rows)]
    return str(x)


class Result(dict):
    """One claim's result (the JSON object of ``softmix verify --json``): a plain dict that also
    renders as HTML in Jupyter (verdict, controls, evidence)."""

    def _repr_html_(self) -> str:
        import html
        import json

        from .registry import Outcome

        head = Outcome(self.get("verdict", "error"), self.get("evidence", {}))._repr_html_()
        ctl = "".join(f"<li>{html.escape(c['id'])}: {html.escape(c['verdict'])}"
                      f"{' <b>(survived)</b>' if control_failed(c) else ''}</li>" for c in self.get("negative_controls", []))
        return (f"<div><b>{html.escape(str(self.get('id')))}</b>: {html.escape(str(self.get('title', '')))}"
                f"<br><i>{html.escape(str(self.get('source', '')))}</i>{head}"
                f"<div>negative controls:<ul>{ctl}</ul></div>"
                f"<details><summary>parameters</summary><pre>"
                f"{html.escape(json.dumps(self.get('parameters', {}), indent=1))}</pre></details></div>")


def _run_one(claim, params, ctx) -> tuple[Outcome, float]:
    t0 = time.perf_counter()
    try:
        out = claim.check(params, ctx)
        if not isinstance(out, Outcome):
            raise TypeError(f"check returned {type(out).__name__}, not Outcome")
    except Exception as e:  # a crashing check is an 'error' verdict, never a pass
        out = Outcome("error", {"exception": f"{type(e).__name__}: {e}",
                                "traceback": traceback.format_exc(limit=6)})
    return out, time.perf_counter() - t0


def _check_seed(seed) -> None:
    """A master seed is a non-negative integer (numpy's SeedSequence takes no negative entropy):
    anything else is an input error raised before any work, not an ``error`` verdict."""
    import numbers

    from softmix.numerics.errors import InputError

    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")


def run_claim(claim_id: str, profile: str = "quick", seed: int = 0, overrides: dict | None = None,
              plugins=()) -> dict:
    """Run one claim and its negative controls; ``plugins`` (module names or .py files) are
    loaded first, so that a fresh worker process knows the claims a user's file registers."""
    _check_seed(seed)
    claims = load_all(plugins)
    claim = claims[claim_id]
    params = claim.params(profile, overrides)
    t0 = time.perf_counter()
    with alpha_accounting() as roots:
        out, _ = _run_one(claim, params, Context(claim_id, profile, seed))
    spent = float(sum(f.spent for f in roots))
    controls = []
    for c in claim.controls:
        cout, csec = _run_one(claim, params, Context(claim_id, profile, seed, variant=c.id))
        controls.append({"id": c.id, "description": c.description, "verdict": cout.verdict,
                         "refuted": cout.verdict == "refuted", "evidence": _jsonable(cout.evidence),
                         "kind": getattr(c, "kind", "negative"),
                         **({"assumption": c.assumption} if getattr(c, "assumption", "") else {})})
    scope = scope_findings(claim, controls)  # assumption-dropped controls not refuted: assumptions not needed
    if scope:
        out.evidence["findings"] = list(out.evidence.get("findings", [])) + scope
    return Result({"id": claim.id, "title": claim.title, "source": claim.source, "section": claim.section,
            "kind": claim.kind, "statement": claim.statement, "assumptions": list(claim.assumptions),
            "parameters": _jsonable(params), "verdict": out.verdict,
            "configurations": configurations_tried(claim, params, profile, out),
            "evidence": _jsonable(out.evidence),
            "findings": _jsonable(out.evidence.get("findings", [])),
            "negative_controls": controls, "alpha_spent": spent,
            "seconds": round(time.perf_counter() - t0, 3)})


def configurations_tried(claim, params: dict, profile: str, out) -> dict:
    """Every configuration a claim was decided on, whether or not the claim draws any: the rows
    ``{name, values, verdict}`` of a claim that draws configurations from the seed
    (:func:`softmix.checks.configs.generic`), else one row for the given parameters ('paper' when
    they are the claim's defaults), with ``drawn`` = 0 saying that nothing was drawn."""
    rows = out.evidence.get("configurations") if isinstance(out.evidence, dict) else None
    if isinstance(rows, list) and rows and all(isinstance(r, dict) and "name" in r for r in rows):
        slim = [{"name": r["name"], "values": _jsonable(r.get("values", {})), "verdict": r.get("verdict")} for r in rows]
        return {"drawn": sum(r["name"].startswith("drawn") for r in slim), "rows": slim}
    name = "paper" if params == claim.params(profile) else "given"
    note = getattr(claim, "configurations_note", "") or "decided on the given configuration only (the claim draws no configurations)"
    return {"drawn": 0, "rows": [{"name": name, "values": {}, "verdict": out.verdict}], "note": note}


def claim_passed(res: dict, strict: bool = False) -> bool:
    """A claim passes unless it is refuted or errored or a negative control survived (an
    assumption-dropped control that is not refuted is a scope finding, not a failure:
    :func:`softmix.checks.assumptions.control_failed`); with ``strict``, ``inconclusive`` fails too."""
    bad = ("refuted", "error", "inconclusive") if strict else ("refuted", "error")
    return res["verdict"] not in bad and not any(control_failed(c) for c in res["negative_controls"])


def exit_code(results: list[dict], strict: bool = False) -> int:
    return 0 if all(claim_passed(r, strict) for r in results) else 1


def verdict_counts(results: list[dict]) -> dict:
    """{verdict: number of claims} for every verdict (zeros included), plus surviving controls."""
    from .registry import VERDICTS

    counts = {v: 0 for v in VERDICTS}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    counts["controls_survived"] = sum(control_failed(c) for r in results for c in r["negative_controls"])
    return counts


def run_claims(ids, profile="quick", seed=0, workers=1, config=None, progress=None, scheduler=None,
               plugins=None) -> list[dict]:
    """Run ``ids`` and return results in the order given.  ``config`` maps claim id -> overrides.
    ``progress(done, total, result)`` is called as each claim finishes.  ``scheduler`` (a Dask
    scheduler address, or 'local' for a local Dask cluster) runs the claims as Dask tasks
    instead (see :mod:`checks.distributed`); results are the same as a local run."""
    from .registry import PLUGINS

    _check_seed(seed)
    config = config or {}
    plugins = tuple(PLUGINS if plugins is None else plugins)
    if scheduler:
        from .distributed import run_claims_distributed

        return run_claims_distributed(ids, profile, seed, config, progress, scheduler, plugins=plugins)
    results = {}
    ids = list(ids)
    if workers <= 1 or len(ids) <= 1:
        for i, cid in enumerate(ids):
            r = run_claim(cid, profile, seed, config.get(cid), plugins)
            results[cid] = r
            if progress:
                progress(i + 1, len(ids), r)
    else:
        ctx = mp.get_context("fork") if sys.platform.startswith("linux") else mp.get_context()
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as ex:
            futs = {ex.submit(run_claim, cid, profile, seed, config.get(cid), plugins): cid for cid in ids}
            for i, f in enumerate(cf.as_completed(futs)):
                cid = futs[f]
                try:
                    r = f.result()
                except Exception as e:  # worker died
                    r = {"id": cid, "title": "", "source": "", "verdict": "error",
                         "evidence": {"exception": repr(e)}, "negative_controls": [], "seconds": 0}
                results[cid] = r
                if progress:
                    progress(i + 1, len(ids), r)
    return [results[c] for c in ids]


def versions() -> dict:
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for pkg in ("softmix", "sympy", "mpmath", "numpy", "scipy", "hypothesis"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out
