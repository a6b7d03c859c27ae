"""Run claims (and their negative controls): in this process, in local worker processes or on a Dask
cluster, through one loop over a ``concurrent.futures`` executor (:func:`run_claims`)."""
from __future__ import annotations

import concurrent.futures as cf
import platform
import time
import traceback

from softmix.numerics.memo import scope as memo_scope

from .assumption_runs import control_failed, scope_findings
from .jsonable import jsonable as _jsonable
from .registry import Context, Outcome, derivation_key, load_all
from .rules import alpha_accounting

__all__ = ["Result", "run_claim", "run_claim_object", "run_claims", "versions", "claim_passed", "exit_code",
           "verdict_counts", "infrastructure_result", "failure_cause"]


class Result(dict):
    """One claim's result (the JSON object of ``softmix verify --json``): a plain dict that also
    renders as HTML in Jupyter (verdict, controls, evidence)."""

    def _repr_html_(self) -> str:
        import html
        import json

        from .registry import Outcome

        head = Outcome(self.get("verdict", "error"), self.get("evidence", {}))._repr_html_()
        ctl = "".join(f"<li>{html.escape(c['id'])}: {html.escape(c['verdict'])}"
                      f"{' <b>(survived)</b>' if control_failed(c) else ''}</li>" for c in self.get("negative_controls",
                                                                                                    []))
        return (f"<div><b>{html.escape(str(self.get('id')))}</b>: {html.escape(str(self.get('title', '')))}"
                f"<br><i>{html.escape(str(self.get('source', '')))}</i>{head}"
                f"<div>negative controls:<ul>{ctl}</ul></div>"
                f"<details><summary>parameters</summary><pre>"
                f"{html.escape(json.dumps(self.get('parameters', {}), indent=1))}</pre></details></div>")


def _run_one(claim, params, ctx) -> Outcome:
    try:
        out = claim.check(params, ctx)
        if not isinstance(out, Outcome):
            raise TypeError(f"check returned {type(out).__name__}, not Outcome")
    except Exception as e:  # a crashing check is an 'error' verdict, never a pass
        out = Outcome("error", {"exception": f"{type(e).__name__}: {e}",
                                "traceback": traceback.format_exc(limit=6)})
    return out


def _displayed_decided(claim, params: dict, overrides, ctx, out: Outcome) -> Outcome:
    """What ``softmix show`` prints must be what the check decided: each derivation :attr:`Claim.derivations`
    returns for this run's parameters (name and both sides) must be among those ``decide`` decided in the run
    (``ctx.decided``); one that is not makes the claim ``error`` (unless it is refuted already).  A
    ``derivations`` that takes no parameters is compared only on the claim's own parameters (no overrides).  A
    check that errs or refutes keeps its verdict and its own exception."""
    if claim.derivations is None or (overrides and not claim.takes_parameters()) or out.verdict == "error":
        return out
    try:
        shown = claim.shown_derivations(params)
    except Exception as e:  # the display itself cannot be built: the claim cannot say what it decided
        return Outcome("refuted" if out.verdict == "refuted" else "error",
                       {**out.evidence, "exception": f"softmix show's derivations raised {type(e).__name__}: {e}"})
    rows = [{"derivation": d.name, "decided": derivation_key(d) in ctx.decided} for d in shown]
    out.evidence["displayed_derivations"] = rows
    missing = [r["derivation"] for r in rows if not r["decided"]]
    if missing and out.verdict != "refuted":
        return Outcome("error", {**out.evidence, "exception": (
            f"softmix show prints {len(missing)} derivation(s) this run did not decide: {'; '.join(missing)}")})
    return out


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
    return run_claim_object(claims[claim_id], profile, seed, overrides)


def run_claim_object(claim, profile: str = "quick", seed: int = 0, overrides: dict | None = None) -> dict:
    """Run the :class:`~softmix.checks.registry.Claim` object ``claim`` and its negative controls
    (registered or not: the engine's own controls, :mod:`softmix.checks.engine_controls`, are
    claims that are never registered); the result of :func:`run_claim`.  Each check gets a
    :class:`Context` carrying ``claim``.

    The claim and its controls share one memo (:func:`softmix.numerics.memo.scope`): what the claim
    computed (``ctx.data``, decided derivations, quadrature rules, compiled kernels) the controls
    reuse, and it is all dropped when this returns, so a worker's memory does not grow across claims."""
    _check_seed(seed)
    params = claim.params(profile, overrides)
    t0 = time.perf_counter()
    with memo_scope() as memo:
        with alpha_accounting() as roots:
            ctx = Context(claim.id, profile, seed, claim=claim)
            out = _displayed_decided(claim, params, overrides, ctx, _run_one(claim, params, ctx))
        spent = float(sum(f.spent for f in roots))
        controls = []
        for c in claim.controls:
            cout = _run_one(claim, params, Context(claim.id, profile, seed, variant=c.id, claim=claim))
            controls.append({"id": c.id, "description": c.description, "verdict": cout.verdict,
                             "refuted": cout.verdict == "refuted", "evidence": _jsonable(cout.evidence),
                             "kind": getattr(c, "kind", "negative"),
                             **({"assumption": c.assumption} if getattr(c, "assumption", "") else {})})
        memo_use = {k: v for k, v in memo.stats().items() if k != "entries"}
    scope = scope_findings(claim, controls)  # assumption-dropped controls not refuted: assumptions not needed
    if scope:
        out.evidence["findings"] = list(out.evidence.get("findings", [])) + scope
    return Result({"id": claim.id, "title": claim.title, "source": claim.source, "section": claim.section,
            "kind": claim.kind, "statement": claim.statement, "assumptions": list(claim.assumptions),
            "parameters": _jsonable(params), "verdict": out.verdict,
            "configurations": configurations_tried(claim, params, profile, out),
            "evidence": _jsonable(out.evidence),
            "findings": _jsonable(out.evidence.get("findings", [])),
            "negative_controls": controls, "alpha_spent": spent, "memo": memo_use,
            "seconds": round(time.perf_counter() - t0, 3)})


def configurations_tried(claim, params: dict, profile: str, out) -> dict:
    """Every configuration a claim was decided on, whether or not the claim draws any: the rows
    ``{name, values, verdict}`` of a claim that draws configurations from the seed
    (``configurations=softmix.Draws(...)``, :mod:`softmix.checks.configurations`), else one row for the given
    parameters ('paper' when
    they are the claim's defaults), with ``drawn`` = 0 saying that nothing was drawn."""
    rows = out.evidence.get("configurations") if isinstance(out.evidence, dict) else None
    if isinstance(rows, list) and rows and all(isinstance(r, dict) and "name" in r for r in rows):
        slim = [{"name": r["name"], "values": _jsonable(r.get("values", {})), "verdict": r.get("verdict")}
                for r in rows]
        return {"drawn": sum(r["name"].startswith("drawn") for r in slim), "rows": slim}
    name = "paper" if params == claim.params(profile) else "given"
    note = (getattr(claim, "configurations_note", "")
            or "decided on the given configuration only (the claim draws no configurations)")
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
               plugins=None, executor=None) -> list[dict]:
    """Run ``ids`` and return results in the order given.  ``config`` maps claim id -> overrides.
    ``progress(done, total, result)`` is called as each claim finishes.

    Where the claims run, one task per claim (its controls included): ``executor``, any
    ``concurrent.futures.Executor`` (a Dask ``Client.get_executor()``, say; left open); else
    ``scheduler``, a Dask scheduler address or 'local' for a local Dask cluster
    (:func:`softmix.checks.distributed.executor_for`); else ``workers`` > 1 local processes
    (:class:`softmix.checks.pool.WorkerPool`: a worker that dies costs only the claim it was running,
    which is run once more); else this process.  Results are the same wherever they run.

    A result that is not a decision about its claim (its worker died twice while running it, the
    executor broke, lost its scheduler or cancelled the task, the task failed outside the claim's
    check) has verdict ``error``, ``"infrastructure_failure": true`` and its cause in
    ``evidence["cause"]``; ``softmix verify --checkpoint`` does not record it, so that a resumed run
    redoes it.  A claim whose own check raises is a decided ``error``, as always."""
    from .pool import SerialExecutor, WorkerPool
    from .registry import PLUGINS

    _check_seed(seed)
    config = config or {}
    plugins = tuple(PLUGINS if plugins is None else plugins)
    ids = list(ids)
    claims = load_all(plugins)
    unknown = [c for c in ids if c not in claims]
    if unknown:
        from softmix.numerics.errors import InputError

        raise InputError(f"unknown claim id(s): {', '.join(unknown)}")
    jobs = [(cid, (cid, profile, seed, config.get(cid), plugins)) for cid in ids]
    if executor is not None:
        results = _run_on(executor, jobs, claims, progress)
    elif scheduler:
        from .distributed import executor_for

        with executor_for(scheduler) as ex:
            results = _run_on(ex, jobs, claims, progress)
    elif workers > 1 and ids:
        pool = WorkerPool(min(workers, len(ids)))
        try:
            results = _run_on(pool, jobs, claims, progress)
        except BaseException:  # Ctrl-C or a failing progress callback: stop the workers now
            pool.terminate()
            raise
        pool.shutdown()
    else:
        results = _run_on(SerialExecutor(), jobs, claims, progress, window=1)
    return [results[c] for c in ids]


def _run_on(executor, jobs, claims, progress, window: int | None = None, task=None) -> dict:
    """The one submit / progress / error loop: run ``task(*args)`` (default :func:`run_claim`) for
    each ``(id, args)`` of ``jobs`` on ``executor`` and return {id: result}, calling ``progress``
    as each one finishes; ``claims[id]`` names the claim in an infrastructure result.

    At most ``window`` tasks are in flight (default: ``executor.slots()`` when the executor has it,
    as the Dask one does, else all of them); a task's failure becomes an infrastructure result."""
    import collections

    results: dict = {}
    queue = collections.deque(jobs)
    running: dict = {}
    order = {cid: i for i, (cid, _) in enumerate(jobs)}
    task = task or run_claim

    def finish(cid, r):
        results[cid] = r
        if progress:
            progress(len(results), len(jobs), r)

    while queue or running:
        slots = window or _slots(executor, len(jobs))
        while queue and len(running) < slots:
            cid, args = queue.popleft()
            try:
                running[executor.submit(task, *args)] = cid
            except Exception as e:  # the executor is shut down or broken
                finish(cid, infrastructure_result(claims[cid], e))
        if not running:
            continue
        done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
        for f in sorted(done, key=lambda f: order[running[f]]):
            cid = running.pop(f)
            try:
                r = f.result()
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as e:  # worker lost, task cancelled, executor broken
                r = infrastructure_result(claims[cid], e)
            finish(cid, r)
    return results


def _slots(executor, default: int) -> int:
    slots = getattr(executor, "slots", None)
    if not callable(slots):
        return default
    try:
        return max(1, int(slots()))
    except Exception:  # the cluster cannot say: do not throttle
        return default


def infrastructure_result(claim, exc: BaseException) -> Result:
    """The result of a claim that was not decided because its task failed outside its check:
    verdict ``error``, ``infrastructure_failure`` true, the cause in words in ``evidence``."""
    first = (str(exc).strip().splitlines() or [""])[0]
    evidence = {"cause": failure_cause(exc), "exception": f"{type(exc).__name__}: {first}"}
    return Result({"id": claim.id, "title": claim.title, "source": claim.source, "section": claim.section,
                   "verdict": "error", "evidence": evidence, "negative_controls": [], "seconds": 0,
                   "infrastructure_failure": True})


def failure_cause(exc: BaseException) -> str:
    """Why a claim's task failed outside its check, in words."""
    from .pool import WorkerDied, times, unique

    name = type(exc).__name__
    if isinstance(exc, WorkerDied):
        return (f"worker process died {times(len(exc.causes))} ({'; '.join(unique(exc.causes))}) "
                "while running this claim")
    if name == "KilledWorker":  # Dask: the scheduler's allowed-failures were used up
        n = getattr(exc, "allowed_failures", None)
        return (f"Dask worker died {times(n + 1) if isinstance(n, int) else 'repeatedly'} while running this "
                f"claim (KilledWorker; the scheduler's distributed.scheduler.allowed-failures = {n})")
    if isinstance(exc, cf.CancelledError) or name.endswith("CancelledError"):
        return "the executor cancelled the task (scheduler lost, or the executor was shut down)"
    if isinstance(exc, cf.BrokenExecutor):
        return f"the executor broke: {exc}"
    return f"the task failed outside the claim's check: {name}: {exc}"


def versions() -> dict:
    import importlib.metadata as md

    out: dict[str, str | None] = {"python": platform.python_version()}
    for pkg in ("softmix", "sympy", "mpmath", "numpy", "scipy", "hypothesis"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out
