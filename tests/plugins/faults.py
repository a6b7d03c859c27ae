"""Cheap claims for tests/engine/test_faults.py, some of which kill the process that runs them.

``SOFTMIX_FAULTS_DIR`` (set by the test) is a folder shared with the worker processes:
* every run of a claim appends ``"<id> <pid>"`` to ``runs.log`` (so the test can count runs);
* ``fault-kill-once`` kills its own process with SIGKILL the first time it runs (the marker file
  ``kill-once.done`` decides "first time"), then passes;
* ``fault-kill-always`` kills its own process every time it runs;
* ``fault-slow`` writes its pid to ``slow.pid`` and sleeps (the test kills it from outside).
Each claim has one negative control, which the same check refutes.
"""
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import softmix

DIR = Path(os.environ.get("SOFTMIX_FAULTS_DIR", "."))


@dataclass
class P:
    sleep: float = 0.3


def _log(cid: str) -> None:
    with open(DIR / "runs.log", "a") as fh:
        fh.write(f"{cid} {os.getpid()}\n")


def _decide(ctx) -> softmix.Outcome:
    return softmix.Outcome("refuted" if ctx.control("wrong") else "verified", {"pid": os.getpid()})


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)  # never reached


def _ok(cid):
    def check(p: P, ctx):
        if not ctx.control("wrong"):
            _log(cid)
            time.sleep(p.sleep)
        return _decide(ctx)
    return check


for _i in range(1, 7):
    _cid = f"fault-ok-{_i}"
    softmix.claim(id=_cid, title=f"a cheap true claim ({_i})", source="tests", controls={"wrong": "refuted"},
                  configurations_note="test claim")(_ok(_cid))


@softmix.claim(id="fault-kill-once", title="kills its worker the first time", source="tests",
               controls={"wrong": "refuted"}, configurations_note="test claim")
def kill_once(p: P, ctx):
    if not ctx.control("wrong"):
        _log("fault-kill-once")
        marker = DIR / "kill-once.done"
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            _die()
    return _decide(ctx)


@softmix.claim(id="fault-kill-always", title="kills its worker every time", source="tests",
               controls={"wrong": "refuted"}, configurations_note="test claim")
def kill_always(p: P, ctx):
    if not ctx.control("wrong"):
        _log("fault-kill-always")
        if os.environ.get("SOFTMIX_FAULTS_SPARE") != "1":  # a resume may spare it
            _die()
    return _decide(ctx)


@softmix.claim(id="fault-slow", title="sleeps until killed from outside once", source="tests",
               controls={"wrong": "refuted"}, configurations_note="test claim")
def slow(p: P, ctx):
    if not ctx.control("wrong"):
        _log("fault-slow")
        first = not (DIR / "slow.pid").exists()
        (DIR / "slow.tmp").write_text(str(os.getpid()))
        os.replace(DIR / "slow.tmp", DIR / ("slow.pid" if first else "slow.again.pid"))
        time.sleep(20 if first else 0.1)  # the first run is killed from outside long before that
    return _decide(ctx)


@softmix.claim(id="fault-raises", title="its check raises", source="tests", controls={"wrong": "refuted"},
               configurations_note="test claim")
def raises(p: P, ctx):
    if not ctx.control("wrong"):
        raise RuntimeError("the check crashed")
    return _decide(ctx)
