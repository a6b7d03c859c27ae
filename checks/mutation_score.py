"""The generated-mutant score (``softmix mutation-score``): sample mutants of the library
(:mod:`softmix.checks.mutation`: theory/ and numerics/, judged by the claims and the tests) and of
the engine (:mod:`softmix.checks.mutation_engine`: its stage and the tests), score them, and
summarise.  It sits above both targets' modules, so they import one way (docs/records.md, "How the
mutation score is measured")."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from . import mutation as _library
from .mutation import DEFAULT_SEED, _parallel, require_source_checkout

__all__ = ["generated_mutation_score", "summarize"]


def summarize(rows: list[dict]) -> dict:
    """Counts and scores.  Equivalent mutants and verify timeouts are left out of the denominator:
    a timeout decides nothing (on a loaded machine a clean claim can overrun its limit too), so it
    is neither a kill nor a survivor.  ``not_covered``: mutants no claim (library) or the engine
    stage (engine) executes."""
    from .mutation_engine import NOT_EXECUTED

    n = len(rows)
    eq = sum(r["status"] == "equivalent" for r in rows)
    timeouts = sum(r["status"] == "timeout" for r in rows)
    by_verify = sum(r["status"] == "killed" and r["stage"] == "verify" for r in rows)
    by_tests = sum(r["status"] == "killed" and r["stage"] == "tests" for r in rows)
    denom = n - eq - timeouts
    return {"total": n, "equivalent": eq, "scored": denom,
            "killed_by_verify": by_verify, "timeouts": timeouts,
            "killed_by_tests": by_tests, "survived": sum(r["status"] == "survived" for r in rows),
            "not_covered": sum(r["equivalence"] in ("not covered by any claim", NOT_EXECUTED) for r in rows),
            "score_verify": by_verify / denom if denom else 0.0,
            "score_verify_plus_tests": (by_verify + by_tests) / denom if denom else 0.0}


def _stage_summaries(erec, target: str, out: list, chosen: list) -> dict[str, Any]:
    """The engine stage's record (when engine mutants ran) and, for ``target="all"``, a summary per target."""
    from .mutants import target_of

    extra: dict[str, Any] = {}
    if erec is not None:
        extra["engine_stage"] = {"claims": sorted(erec["claims"]), "engine_controls": sorted(erec["engine_controls"]),
                                 "seconds": erec["seconds"], "engine_hash": erec["hash"],
                                 "reproducible": erec["reproducible"]}
    if target == "all":
        extra["by_target"] = {t: summarize([r for r, m in zip(out, chosen) if target_of(m.path) == t])
                              for t in ("library", "engine")}
    return extra


def generated_mutation_score(sample: int, seed: int = DEFAULT_SEED, jobs: int = 2, tests: bool = True,
                             verify_seed: int = DEFAULT_SEED, progress=None, root: Path | None = None,
                             map_progress=None, test_timeout: float = 120, checkpoint: Path | None = None,
                             test_selection: str = "lines", target: str = "library") -> dict:
    """Sample ``sample`` generated mutants with ``seed`` and score them (see the module docstring).
    ``verify_seed`` is the seed of the claims' runs (the coverage map is recorded with it).

    ``target``: ``"library"`` (default: ``theory/`` and ``numerics/``),
    ``"engine"`` (``checks/*.py``: the engine stage of :mod:`softmix.checks.mutation_engine`) or
    ``"all"`` (both populations in one sample; each mutant goes through its own target's stages).

    ``checkpoint``: a JSON-lines file that receives each mutant's row as soon as it is decided;
    rows already in it (from a run with the same sources, seeds and test settings) are reused, so
    a stopped run resumes where it stopped and its partial result is never lost.

    ``test_selection``: ``"lines"`` (default) runs, for a mutant that survives verify, the tests
    that execute its line (:func:`test_map`); ``"files"`` the test files that import its module."""
    from softmix.numerics.errors import InputError

    from .checkpoint import Checkpoint
    from .mutants import TARGETS, generate_mutants, sample_mutants, sources_hash, target_of
    from .mutation_engine import engine_hash, engine_record, run_engine_mutant

    root = Path(root or require_source_checkout())
    if test_selection not in ("lines", "files"):
        raise InputError(f"test selection must be 'lines' or 'files', got {test_selection!r}")
    if target not in TARGETS:
        raise InputError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    header = {"sources_hash": sources_hash(root), "sample_seed": seed, "verify_seed": verify_seed,
              "tests": tests, "test_timeout": test_timeout, "test_selection": test_selection}
    if target != "library":  # the library header is unchanged: its checkpoints stay resumable
        header.update(target=target, engine_hash=engine_hash(root))
    # checked before any work: a wrong file is a one-line input error
    ck = Checkpoint(checkpoint, header, key="id", what="mutation-score") if checkpoint is not None else None
    done = ck.done if ck else {}
    population = generate_mutants(root, target)
    chosen = sample_mutants(population, sample, seed, root)
    kinds = {target_of(m.path) for m in chosen}
    cmap = _library.coverage_map(verify_seed, jobs, root, progress=map_progress) if "library" in kinds else None
    erec = engine_record(verify_seed, root) if "engine" in kinds else None
    tmap = _library.test_map(jobs, root, engine="engine" in kinds) if tests and test_selection == "lines" else None
    import resource

    wanted = {m.id for m in chosen}
    rows = {k: v for k, v in done.items() if k in wanted}
    if ck:
        ck.start_segment()
    todo = [m for m in chosen if m.id not in rows]

    def one(m):
        if target_of(m.path) == "engine":
            assert erec is not None  # recorded above whenever an engine mutant is chosen
            return run_engine_mutant(m, erec, verify_seed, tests, test_timeout, root=root, tmap=tmap)
        assert cmap is not None
        return _library.run_mutant(m, cmap, verify_seed, tests, test_timeout, root=root, tmap=tmap)

    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    for i, (m, row) in enumerate(_parallel(one, todo, jobs)):
        rows[m.id] = row
        if ck:
            ck.append(row)
        if progress:
            progress(len(chosen) - len(todo) + i + 1, len(chosen), row)
    out = [rows[m.id] for m in chosen]
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    extra = _stage_summaries(erec, target, out, chosen)
    return {"cpu_seconds": round(cpu, 1), "kind": "generated", "target": target, "population": len(population),
            "sample": len(chosen), "sample_seed": seed,
            "verify_seed": verify_seed, "jobs": jobs, "test_timeout": test_timeout, "test_selection": test_selection,
            "tests_hash": tmap["hash"] if tmap else None,
            "sources_hash": cmap["hash"] if cmap else sources_hash(root),
            "wall_seconds": round(time.perf_counter() - t0, 1), "resumed": len(chosen) - len(todo),
            **extra, **summarize(out), "mutants": out}
