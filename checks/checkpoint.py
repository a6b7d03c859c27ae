"""Resumable long runs: a JSON-lines checkpoint (``verify --checkpoint``, ``mutation-score
--checkpoint``).

The file's first line is ``{"header": {...}}``: everything that decides the rows (the sources'
hash, seeds, profile, configuration).  Each later line is one decided row, appended as soon as it
is decided, so a run stopped at any moment loses at most the rows in flight.  Rerunning with the
same file reuses the rows already there; a file written under another header is an input error
(resuming it would mix two trees, seeds or profiles).  Lines ``{"segment_start": t}`` mark each
resumption, so the wall time of a run done in several segments can be summed honestly
(:meth:`Checkpoint.wall_seconds`).

Only decisions are recorded: a row marked ``"infrastructure_failure": true`` (its worker died, its
executor broke or lost its scheduler, see :func:`softmix.checks.runner.infrastructure_result`) is
never written, and is ignored if found in a file, so that a resumed run redoes exactly the rows
that were not decided.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import cast

__all__ = ["Checkpoint", "package_hash"]


def package_hash() -> str:
    """SHA-1 over the Python sources of the imported ``softmix.theory``, ``softmix.numerics`` and
    ``softmix.checks`` (a source checkout or an installed wheel alike)."""
    import softmix.checks
    import softmix.numerics
    import softmix.theory

    h = hashlib.sha1()
    for mod in (softmix.theory, softmix.numerics, softmix.checks):
        base = Path(cast(str, mod.__file__)).resolve().parent
        for p in sorted(base.rglob("*.py")):
            if "__pycache__" in p.parts:
                continue
            h.update(f"{mod.__name__}/{p.relative_to(base).as_posix()}".encode())
            h.update(p.read_bytes())
    return h.hexdigest()


class Checkpoint:
    """One JSON-lines checkpoint.  ``Checkpoint(path, header, key="id", what="verify")`` checks
    the file before any work (folder exists; header matches) and loads ``done``: {key: row}."""

    def __init__(self, path, header: dict, key: str = "id", what: str = "verify"):
        from softmix.numerics.errors import InputError

        self.path, self.header, self.key = Path(path), json.loads(json.dumps(header)), key
        if not self.path.parent.is_dir():
            raise InputError(f"checkpoint {self.path}: folder {self.path.parent} does not exist")
        if self.path.is_dir():
            raise InputError(f"checkpoint {self.path} is a folder, not a file")
        self.done: dict = {}
        self._segments: list[float] = []
        self._finished: list[list[float]] = []
        lines = [ln for ln in self.path.read_text().splitlines() if ln.strip()] if self.path.exists() else []
        if not lines:
            return
        try:
            first = json.loads(lines[0])
        except json.JSONDecodeError:
            first = None
        if not isinstance(first, dict) or "header" not in first:
            raise InputError(f"checkpoint {self.path}: not a {what} checkpoint")
        if first["header"] != self.header:
            diff = sorted(k for k in set(first["header"]) | set(self.header)
                          if first["header"].get(k) != self.header.get(k))
            raise InputError(f"checkpoint {self.path} was written for another run (differs in: "
                             f"{', '.join(diff)}); remove it or choose another path")
        for ln in lines[1:]:
            try:
                row = json.loads(ln)
            except json.JSONDecodeError:  # a line cut off when the earlier run was stopped
                continue
            if "segment_start" in row:
                self._segments.append(float(row["segment_start"]))
                self._finished.append([])
            elif self.key in row and not row.get("infrastructure_failure"):
                self.done[row[self.key]] = row
                if "finished_at" in row and self._finished:
                    self._finished[-1].append(float(row["finished_at"]))

    def start_segment(self) -> None:
        """Write the header (new file) and mark the start of this run's segment."""
        if not self.path.exists() or not self.path.read_text().strip():
            self.path.write_text(json.dumps({"header": self.header}) + "\n")
        now = time.time()
        self._segments.append(now)
        self._finished.append([])
        self._write({"segment_start": now})

    def append(self, row: dict, stamp: bool = False) -> None:
        """Record one decided row (``stamp``: add ``finished_at`` for the wall-time accounting); a row
        marked ``infrastructure_failure`` is not a decision and is not recorded."""
        if row.get("infrastructure_failure"):
            return
        if stamp:
            row = {**row, "finished_at": time.time()}
            if self._finished:
                self._finished[-1].append(row["finished_at"])
        self.done[row[self.key]] = row
        self._write(row)

    def _write(self, obj) -> None:
        with open(self.path, "a") as fh:
            fh.write(json.dumps(obj) + "\n")

    def wall_seconds(self) -> float:
        """Sum over segments of (last row finished - segment start): the wall time of the run
        without the gaps between its segments."""
        return float(sum(max(f) - s for s, f in zip(self._segments, self._finished) if f))

    @property
    def segments(self) -> int:
        return len(self._segments)
