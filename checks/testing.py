"""Assertions for a user's own test suite (public as :mod:`softmix.testing`; docs/testing.md).

* :func:`assert_claim` -- run a registered claim and its negative controls; raise
  ``AssertionError`` with the verdict, the counterexample or finding, the failing rows, the
  surviving controls and the command that reproduces the run (the same text as a failing item of
  the pytest plugin, :mod:`softmix.checks.pytest_plugin`).
* :func:`assert_agrees` -- one rule decision (:class:`softmix.Residual`,
  :class:`softmix.Float64Agreement`, ...) of ``value - reference`` must be ``confirmed``.
* :func:`assert_float64_agrees` -- a float64 function agrees with a high-precision one on the same
  arguments, by :class:`softmix.Float64Agreement` (or a rule you give): for hypothesis tests.

Nothing here depends on pytest; any test runner that reports ``AssertionError`` works.
"""
from __future__ import annotations

import json
import warnings

from softmix.numerics.errors import SoftmixWarning

from .verdicts import verdict_of

__all__ = ["assert_claim", "assert_agrees", "assert_float64_agrees", "claim_report", "InconclusiveClaimWarning",
           "DEFAULT_SEED"]

#: the master seed ``softmix verify`` uses when none is given
DEFAULT_SEED = 20261130


class InconclusiveClaimWarning(SoftmixWarning):
    """:func:`assert_claim` on a claim that came back ``inconclusive`` (not a failure unless
    ``strict=True``, as with ``softmix verify``): the reason and what would settle it."""


# ---- the text of a claim's result --------------------------------------------------------------
def _compact(x, limit: int = 400) -> str:
    text = x if isinstance(x, str) else json.dumps(x, default=str, separators=(",", ":"))
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _parts(evidence: dict):
    """(name, part) for every part of the evidence (dicts with rows and a verdict)."""
    for name, part in (evidence or {}).items():
        if isinstance(part, dict) and isinstance(part.get("rows"), list) and "verdict" in part:
            yield name, part


def _rows_with(evidence: dict, verdicts, limit: int = 3) -> list[str]:
    out = []
    for name, part in _parts(evidence):
        for row in part["rows"]:
            if not (isinstance(row, dict) and {"verdict", "status", "passed"} & row.keys()):
                continue
            if verdict_of(row, part.get("kind", "numeric")) in verdicts:
                slim = {k: v for k, v in row.items() if k not in ("rule", "test", "traceback")}
                out.append(f"{name}: {_compact(slim)}")
                if len(out) >= limit:
                    return out
    return out


def _counterexample_lines(evidence: dict) -> list[str]:
    out = []
    for key in ("counterexample", "symbolic_counterexample"):
        ce = evidence.get(key)
        if isinstance(ce, dict) and ce:
            out.append(f"{key.replace('_', ' ')}:")
            out += [f"    {k} = {_compact(v, 300)}" for k, v in ce.items()]
        elif ce:
            out.append(f"{key.replace('_', ' ')}: {_compact(ce)}")
    return out


def _finding_lines(findings) -> list[str]:
    out = []
    for f in findings or []:
        if isinstance(f, dict):
            head = " / ".join(str(f[k]) for k in ("kind", "finding", "where", "place") if f.get(k))
            detail = f.get("detail") or f.get("text") or f.get("summary") or _compact(f, 300)
            out.append(f"finding: {head + ': ' if head else ''}{_compact(detail, 300)}")
        else:
            out.append(f"finding: {_compact(f, 300)}")
    return out


def claim_report(result: dict, seed: int | None = None, profile: str | None = None, plugins=(),
                 rerun: str | None = None) -> str:
    """A few lines about one result of :func:`softmix.checks.runner.run_claim`: verdict, title and
    source, counterexample(s), findings, the failing (or undecided) rows, the negative controls that
    survived, an error's exception, and how to rerun it (``softmix verify --plugin ... --seed ...``
    unless ``rerun`` says otherwise)."""
    ev = result.get("evidence") or {}
    v = result.get("verdict", "error")
    where = ", ".join(x for x in (f"seed {seed}" if seed is not None else "",
                                  f"profile {profile}" if profile else "") if x)
    lines = [f"claim {result.get('id')}: {v}" + (f" ({where})" if where else "")]
    if result.get("title"):
        lines.append(f"  title: {result['title']}")
    if result.get("source"):
        lines.append(f"  source: {result['source']}")
    body = _counterexample_lines(ev) + _finding_lines(result.get("findings") or ev.get("findings"))
    if v in ("refuted", "error"):
        body += [f"failing row: {r}" for r in _rows_with(ev, ("refuted", "error"))]
    if v == "inconclusive":
        body += [f"undecided row: {r}" for r in _rows_with(ev, ("inconclusive", "unproven"))]
    if ev.get("exception"):
        body.append(f"exception: {ev['exception']}")
        tb = [t for t in str(ev.get("traceback", "")).strip().splitlines() if t.strip()]
        body += [f"    {t}" for t in tb[-4:]]
    lines += [f"  {b}" for b in body]
    controls = result.get("negative_controls") or []
    survived = [c for c in controls if not c.get("refuted")]
    lines.append(f"  negative controls: {len(controls) - len(survived)}/{len(controls)} refuted"
                 + ("" if not survived else "; survived (the check did not refute a perturbed statement):"))
    lines += [f"    {c['id']} ({c.get('verdict')}): {c.get('description', '')}" for c in survived]
    if rerun is None:
        plug = " ".join(f"--plugin {p}" for p in plugins or ())
        rerun = (f"softmix verify {plug + ' ' if plug else ''}{result.get('id')}"
                 + (f" --seed {seed}" if seed is not None else "") + (f" --profile {profile}" if profile else ""))
    lines.append(f"  reproduce: {rerun}")
    return "\n".join(lines)


def assert_claim(claim_id: str, profile: str = "quick", seed: int = DEFAULT_SEED, plugins=(), overrides=None,
                 strict: bool = False) -> dict:
    """Run claim ``claim_id`` (and its negative controls) as ``softmix verify`` does and return its
    result; raise ``AssertionError`` with :func:`claim_report` when it is refuted or errored or a
    negative control survived, or, with ``strict``, when it is inconclusive.  An inconclusive claim
    without ``strict`` passes with an :class:`InconclusiveClaimWarning` carrying the reason.

    ``plugins``: ``.py`` files or module names that register claims (loaded first); ``overrides``:
    parameter values for this claim (validated against its parameter types)."""
    from .runner import claim_passed, run_claim

    plugins = tuple([plugins] if isinstance(plugins, str) else plugins or ())
    res = run_claim(claim_id, profile=profile, seed=seed, overrides=overrides, plugins=plugins)
    if not claim_passed(res, strict=strict):
        raise AssertionError(claim_report(res, seed, profile, plugins))
    if res["verdict"] == "inconclusive":
        warnings.warn(claim_report(res, seed, profile, plugins), InconclusiveClaimWarning, stacklevel=2)
    return res


# ---- agreement of numbers ----------------------------------------------------------------------
def _flat_mp(x) -> list:
    """Entries of a number, a sequence, a NumPy array or an mpmath matrix, as a flat list."""
    import mpmath as mpm
    import numpy as np

    if isinstance(x, mpm.matrix):
        return [x[i, j] for i in range(x.rows) for j in range(x.cols)]
    if isinstance(x, (list, tuple, np.ndarray)):
        return [v for item in (x.tolist() if isinstance(x, np.ndarray) else x) for v in _flat_mp(item)]
    return [x]


def _as_mpf(v):
    import mpmath as mpm

    from softmix.numerics.precision import to_mpf

    if isinstance(v, mpm.mpf):
        return v
    if isinstance(v, float):
        return mpm.mpf(v)  # the float64 value itself, exactly
    return to_mpf(v.item() if hasattr(v, "item") else v)


def assert_agrees(value, reference, rule, dps: int = 40) -> dict:
    """``rule.decide(value - reference, scale=max |reference|)`` must be ``confirmed`` (entrywise
    for arrays / mpmath matrices of the same size; the differences are taken at ``dps`` digits).
    Returns the decision; raises ``AssertionError`` with the rule's text, the residual and the worst
    entry otherwise (also when the rule cannot decide)."""
    import mpmath as mpm

    a, b = _flat_mp(value), _flat_mp(reference)
    if len(a) != len(b):
        raise AssertionError(f"value has {len(a)} entries but the reference has {len(b)}")
    with mpm.workdps(dps):
        diffs = [_as_mpf(x) - _as_mpf(y) for x, y in zip(a, b)]
        ref = [_as_mpf(y) for y in b]
        scale = max((abs(r) for r in ref), default=mpm.mpf(0))
        out = rule.decide(diffs if len(diffs) != 1 else diffs[0], scale=scale)
        if out.get("verdict") != "confirmed":
            worst = max(range(len(diffs)), key=lambda i: abs(diffs[i]) if mpm.isfinite(diffs[i]) else mpm.inf) \
                if diffs else None
            detail = "" if worst is None else (f"; worst entry [{worst}]: value {mpm.nstr(_as_mpf(a[worst]), 17)}, "
                                               f"reference {mpm.nstr(ref[worst], 25)}")
            tol = f", tolerance {out['tolerance']}" if out.get("tolerance") is not None else ""
            raise AssertionError(f"{out.get('verdict')}: {out.get('rule', '')}\n  residual {out.get('residual')}"
                                 f"{tol}{detail}"
                                 + (f"\n  reason: {out['reason']}" if out.get("reason") else ""))
    return out


def assert_float64_agrees(f64_fn, mp_fn, *args, rule=None, dps: int = 40, **kwargs) -> dict:
    """``f64_fn(*args, **kwargs)`` (float64) agrees with ``mp_fn(*args, **kwargs)`` (run under
    ``mpmath.workdps(dps)``; a function with its own ``dps`` argument uses that) by ``rule``,
    default :class:`softmix.Float64Agreement` ``()`` (64 ulps, condition 1: give the problem's
    condition number, e.g. ``Float64Agreement(condition=1 + max |score|)`` for a softmax).  The
    outputs may be numbers, arrays, lists or mpmath matrices with the same number of entries.
    Returns the decision; raises ``AssertionError`` as :func:`assert_agrees` does.

    The arguments reach both functions unchanged: give exact values (``softmix.strategies.problems``
    draws Fractions) and convert inside ``f64_fn`` (``np.asarray(U, float)``), or floats wrapped in
    ``softmix.exact_floats`` for ``mp_fn``."""
    import mpmath as mpm

    from .rules import Float64Agreement

    rule = Float64Agreement() if rule is None else rule
    value = f64_fn(*args, **kwargs)
    with mpm.workdps(dps):
        reference = mp_fn(*args, **kwargs)
    return assert_agrees(value, reference, rule, dps=dps)
