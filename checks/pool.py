"""Executors for running claims locally: a process pool that survives the death of a worker, and a
serial executor for ``workers=1``.

:class:`WorkerPool` is a ``concurrent.futures.Executor`` whose worker processes each run one task
at a time.  The pool itself hands every task to a chosen worker, so it always knows which task a
worker holds: when a worker dies (killed by a signal, out of memory, ``os._exit``) only the future
of the task that worker held is affected.  That task is run again on a fresh worker, up to
``retries`` times; after ``retries + 1`` deaths its future fails with :class:`WorkerDied`, which
names each death (``signal 9, SIGKILL``).  Every other task, queued or running in another worker,
goes on undisturbed (unlike ``concurrent.futures.ProcessPoolExecutor``, where one dead worker
breaks the whole pool and fails every pending future with ``BrokenProcessPool``).

This module imports nothing from the rest of softmix.
"""
from __future__ import annotations

import atexit
import concurrent.futures as cf
import multiprocessing as mp
import os
import signal
import sys
import threading
import traceback
import weakref
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait as _wait
from multiprocessing.reduction import ForkingPickler
from typing import Any

__all__ = ["WorkerPool", "WorkerDied", "SerialExecutor", "WORKER_DEATH_RETRIES", "describe_exit"]

#: how many times a task whose worker died is run again before it fails with :class:`WorkerDied`
#: (also the ``allowed-failures`` of the local Dask cluster, :mod:`softmix.checks.distributed`)
WORKER_DEATH_RETRIES = 1


class WorkerDied(RuntimeError):
    """The worker process running a task died (``causes``: one entry per death, e.g.
    ``"signal 9, SIGKILL"``) more often than the pool retries a task."""

    def __init__(self, causes: list[str]):
        self.causes = list(causes)
        super().__init__(f"worker process died {times(len(self.causes))} ({'; '.join(unique(self.causes))}) "
                         "while running this task")


def times(n: int) -> str:
    """'once', 'twice', 'n times'."""
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def unique(items) -> list:
    """``items`` without repeats, in first-seen order."""
    return list(dict.fromkeys(items))


def describe_exit(exitcode) -> str:
    """A process's exit code in words: negative codes are the signal that killed it."""
    if exitcode is None:
        return "exit status unknown"
    if exitcode < 0:
        try:
            return f"signal {-exitcode}, {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"


def _watch_parent(parent_pid: int) -> None:
    """End this worker, even in the middle of a task, once the process that started it is gone."""
    import time

    while os.getppid() == parent_pid:
        time.sleep(1.0)
    os._exit(1)


def _worker_main(conn, parent_pid: int) -> None:
    """A worker process: receive ``(fn, args, kwargs)``, send back ``(ok, value, traceback)``;
    ``None`` or a closed pipe ends it, and so does the parent's death (checked every second)."""
    if hasattr(signal, "SIGINT"):  # Ctrl-C is the parent's to handle: it stops the pool
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="softmix-watch-parent", daemon=True).start()
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        fn, args, kwargs = msg
        try:
            reply: tuple[bool, Any, str | None] = (True, fn(*args, **kwargs), None)
        except BaseException as e:  # the task's own failure, reported on its future
            reply = (False, e, traceback.format_exc(limit=8))
        try:
            conn.send(reply)
        except Exception as e:  # an unpicklable result or exception
            conn.send((False, RuntimeError(f"the task's {'result' if reply[0] else 'exception'} could not be "
                                           f"sent back: {type(e).__name__}: {e}"), reply[2]))


@dataclass(eq=False)
class _Task:
    future: cf.Future
    payload: bytes
    deaths: list = field(default_factory=list)
    started: bool = False


@dataclass(eq=False)
class _Worker:
    process: Any  # a multiprocessing Process of the pool's context
    conn: Any  # its end of the Pipe
    task: _Task | None = None
    readable: bool = True  # False once its pipe reported EOF (the process is dying)


def default_context():
    """``fork`` on Linux (the first workers inherit the claims already loaded), the platform
    default elsewhere.  A worker started to replace a dead one is spawned (see ``WorkerPool``) and
    loads the claims itself, as :func:`softmix.checks.runner.run_claim` does on any fresh worker."""
    return mp.get_context("fork") if sys.platform.startswith("linux") else mp.get_context()


_LIVE_POOLS: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _terminate_live_pools() -> None:  # runs before multiprocessing joins its children
    for pool in list(_LIVE_POOLS):
        pool.terminate()


class WorkerPool(cf.Executor):
    """A pool of ``max_workers`` processes in which a dead worker costs only the task it was
    running (see the module docstring).  ``retries``: how many times such a task is run again.
    Use as a context manager; :meth:`terminate` stops everything at once (Ctrl-C)."""

    def __init__(self, max_workers: int, mp_context=None, retries: int = WORKER_DEATH_RETRIES):
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self._ctx = mp_context or default_context()
        # replacements are started from the pool's thread: never fork there (a lock another thread
        # holds at that instant, stderr's say, would stay locked in the child); spawn instead
        self._respawn_ctx = mp.get_context("spawn") if self._ctx.get_start_method() == "fork" else self._ctx
        self._retries = retries
        self._lock = threading.RLock()  # future callbacks may submit
        self._queue: deque[_Task] = deque()
        self._closing = self._abort = self._wake_pending = False
        self._broken: str | None = None
        self._wake_r, self._wake_w = self._ctx.Pipe(duplex=False)
        self._workers = [self._start_worker(self._ctx) for _ in range(max_workers)]  # before the thread starts
        self._thread = threading.Thread(target=self._run, name="softmix-worker-pool", daemon=True)
        self._thread.start()
        _LIVE_POOLS.add(self)

    # -- the caller's side -------------------------------------------------------------------
    def submit(self, fn, /, *args, **kwargs) -> cf.Future:
        future: cf.Future = cf.Future()
        try:
            payload = bytes(ForkingPickler.dumps((fn, args, kwargs)))
        except Exception as e:  # unpicklable task: its own failure, not the pool's
            future.set_exception(e)
            return future
        with self._lock:
            if self._broken:
                raise cf.BrokenExecutor(self._broken)
            if self._closing:
                raise RuntimeError("cannot schedule new futures after shutdown")
            self._queue.append(_Task(future, payload))
        self._wake()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closing = True
            if cancel_futures:
                for t in self._queue:
                    if not t.started:
                        t.future.cancel()
                self._queue = deque(t for t in self._queue if not t.future.cancelled())
        self._wake()
        if wait:
            self._thread.join()

    def terminate(self) -> None:
        """Kill every worker now; futures not yet done fail with ``BrokenExecutor``."""
        with self._lock:
            self._closing = self._abort = True
        self._wake()
        self._thread.join(timeout=10)

    def _wake(self) -> None:
        with self._lock:
            if self._wake_pending:
                return
            self._wake_pending = True
        try:
            self._wake_w.send_bytes(b"")
        except OSError:  # the pool has already stopped
            pass

    # -- the dispatcher thread ---------------------------------------------------------------
    def _start_worker(self, ctx) -> _Worker:
        parent, child = ctx.Pipe()
        p = ctx.Process(target=_worker_main, args=(child, os.getpid()), name="softmix-worker")
        p.start()
        child.close()
        return _Worker(p, parent)

    def _run(self) -> None:
        try:
            while self._step():
                pass
        except BaseException as e:  # a fault of the pool itself: fail what is left, never hang
            with self._lock:
                self._fail_all(f"worker pool failed: {type(e).__name__}: {e}")
        finally:
            self._stop_workers()
            _LIVE_POOLS.discard(self)

    def _step(self) -> bool:
        with self._lock:
            if self._abort:
                self._fail_all("worker pool terminated")
                return False
            self._assign()
            if self._closing and not self._queue and not any(w.task for w in self._workers):
                return False
            waits: dict[Any, _Worker | None] = {self._wake_r: None}
            for w in self._workers:
                if w.task is not None and w.readable:
                    waits[w.conn] = w
            sentinels = {w.process.sentinel: w for w in self._workers}
        ready = _wait(list(waits) + list(sentinels))
        if self._wake_r in ready:
            with self._lock:
                self._wake_pending = False
            while self._wake_r.poll():
                self._wake_r.recv_bytes()
        for obj in ready:
            worker = waits.get(obj)
            if worker is not None:
                self._receive(worker)
        for obj in ready:
            if obj in sentinels:
                self._on_death(sentinels[obj])
        return True

    def _assign(self) -> None:
        """Give queued tasks to idle workers (called with the lock held)."""
        for w in self._workers:
            while w.task is None and w.readable and self._queue:
                task = self._queue.popleft()
                if not task.started:
                    if not task.future.set_running_or_notify_cancel():
                        continue  # cancelled while queued
                    task.started = True
                try:
                    w.conn.send_bytes(task.payload)
                except OSError:  # the worker is gone; its sentinel will be seen next
                    self._queue.appendleft(task)
                    w.readable = False
                    break
                w.task = task

    def _receive(self, w: _Worker) -> None:
        try:
            ok, value, tb = w.conn.recv()
        except (EOFError, OSError):  # the worker is dying: decided when its sentinel fires
            w.readable = False
            return
        except Exception as e:  # the reply could not be unpickled
            ok, value, tb = False, RuntimeError(f"the task's reply could not be read: {type(e).__name__}: {e}"), None
        task, w.task = w.task, None
        if task is None:
            return
        if ok:
            task.future.set_result(value)
        else:
            if tb and isinstance(value, BaseException) and hasattr(value, "add_note"):
                value.add_note(f"in the worker process:\n{tb}")
            task.future.set_exception(value)

    def _on_death(self, w: _Worker) -> None:
        w.process.join(timeout=5)
        while w.task is not None and w.readable and w.conn.poll():  # a reply sent just before it died
            self._receive(w)
        with self._lock:
            self._workers.remove(w)
            task, w.task = w.task, None
            if task is not None:
                task.deaths.append(describe_exit(w.process.exitcode))
                if len(task.deaths) > self._retries:
                    task.future.set_exception(WorkerDied(task.deaths))
                else:
                    self._queue.appendleft(task)  # run it again, first
            replace = not self._abort and (self._queue or not self._closing)
        w.conn.close()
        if replace:
            try:
                new = self._start_worker(self._respawn_ctx)
            except Exception as e:  # no process can be started (out of memory, fd limit)
                with self._lock:
                    if not self._workers:
                        self._fail_all(f"no worker process could be started: {type(e).__name__}: {e}")
                return
            with self._lock:
                self._workers.append(new)

    def _fail_all(self, why: str) -> None:
        """Fail every future not yet done (queued or held by a worker) with ``BrokenExecutor``."""
        self._broken = why
        tasks = list(self._queue) + [w.task for w in self._workers if w.task is not None]
        self._queue.clear()
        for w in self._workers:
            w.task = None
        for t in tasks:
            if not t.future.done():
                if not t.started and t.future.cancel():
                    continue
                t.future.set_exception(cf.BrokenExecutor(why))

    def _stop_workers(self) -> None:
        for w in self._workers:
            if self._abort:
                w.process.kill()
            else:
                try:
                    w.conn.send(None)
                except OSError:
                    pass
        for w in self._workers:
            w.process.join(timeout=5)
            if w.process.exitcode is None:
                w.process.kill()
                w.process.join(timeout=5)
            w.conn.close()
        self._workers = []
        self._wake_r.close()
        self._wake_w.close()


class SerialExecutor(cf.Executor):
    """Runs each task in the calling thread, at ``submit`` (``workers=1``): the returned future is
    already done.  A task's exception is set on its future, as in a pool."""

    def submit(self, fn, /, *args, **kwargs) -> cf.Future:
        future: cf.Future = cf.Future()
        future.set_running_or_notify_cancel()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as e:
            future.set_exception(e)
        return future
