"""The one memo: computed values kept for the run of one claim, bounded, least recently used out.

softmix computes the same things many times within one claim: a negative control is the claim's
check run again with the statement altered, on the same data, the same quadrature rules, the same
compiled kernels.  Those values are kept here, and only here: no module keeps a cache of its own.

* :class:`Memo` -- a mapping bounded to ``max_entries`` entries (:data:`MAX_ENTRIES` by default),
  evicting the least recently used entry when full (the one eviction policy); thread-safe.
* :func:`current` -- the memo in use: the one the runner opened for the claim now running
  (:func:`scope`), else a process-wide bounded memo for work outside any claim (tests, the CLI's
  ``softmix risk``, library use).
* :func:`scope` -- a fresh memo for the enclosed block, cleared and dropped when it ends.  The
  runner opens one per claim (the claim and its negative controls share it) so that nothing a
  claim computed outlives it: a worker process's memory does not grow across claims.
* :func:`remember` -- ``remember(namespace, key, factory)``: the value for (namespace, key), made
  by ``factory()`` when absent.
* :func:`memoised` -- a decorator: the function's results remembered by its (hashable) arguments,
  like ``functools.lru_cache`` but in the current memo.
* :func:`by_identity` -- a value derived from one object (``mix.arrays()`` of a mixture), keyed by
  the object's identity; the entry holds the object, so its id is never reused while remembered.

Values must be treated as read-only by their users (they are shared by every caller).

>>> with scope() as m:
...     remember("demo", 2, lambda: 2 ** 10)
...     remember("demo", 2, lambda: 0)      # remembered: the factory is not called
...     len(m)
1024
1024
1
>>> len(m)                              # cleared when the scope ends
0
"""
from __future__ import annotations

import collections
import contextlib
import contextvars
import functools
import threading
from typing import Any, Callable, Hashable, Iterator

__all__ = ["MAX_ENTRIES", "Memo", "current", "scope", "remember", "memoised", "by_identity"]

#: entries a memo holds before it evicts the least recently used one
MAX_ENTRIES = 512


class Memo:
    """A bounded mapping with least-recently-used eviction (see the module doc).

    >>> m = Memo(max_entries=2)
    >>> for k in "abc":
    ...     _ = m.get(("t", k), lambda k=k: k.upper())
    >>> len(m), m.evictions, ("t", "a") in m
    (2, 1, False)
    """

    def __init__(self, max_entries: int = MAX_ENTRIES):
        if int(max_entries) < 1:
            raise ValueError(f"a memo holds at least one entry, got max_entries={max_entries!r}")
        self.max_entries = int(max_entries)
        self._data: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = self.evictions = 0

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key) -> bool:
        return key in self._data

    def get(self, key: Hashable, factory: Callable[[], Any]):
        """The value remembered for ``key``, or ``factory()`` remembered now (evicting the least
        recently used entry when the memo is full).  A factory that raises remembers nothing."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                self.hits += 1
                return self._data[key]
            self.misses += 1
        value = factory()  # outside the lock: a factory may use the memo itself
        with self._lock:
            if key in self._data:  # another thread made it meanwhile: keep the first
                self._data.move_to_end(key)
                return self._data[key]
            self._data[key] = value
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)
                self.evictions += 1
        return value

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._data.clear()

    def stats(self) -> dict:
        """{entries, max_entries, hits, misses, evictions}."""
        return {"entries": len(self._data), "max_entries": self.max_entries, "hits": self.hits,
                "misses": self.misses, "evictions": self.evictions}


_PROCESS = Memo()
_CURRENT: contextvars.ContextVar = contextvars.ContextVar("softmix_memo", default=None)


def current() -> Memo:
    """The memo in use: the innermost :func:`scope`'s, else the process-wide one."""
    m = _CURRENT.get()
    return _PROCESS if m is None else m


@contextlib.contextmanager
def scope(max_entries: int = MAX_ENTRIES) -> Iterator[Memo]:
    """A fresh :class:`Memo` for the enclosed block (what the runner opens per claim); it is
    cleared when the block ends, whether it ends normally or by an exception."""
    m = Memo(max_entries)
    token = _CURRENT.set(m)
    try:
        yield m
    finally:
        _CURRENT.reset(token)
        m.clear()


def remember(namespace: str, key: Hashable, factory: Callable[[], Any]):
    """The value for (``namespace``, ``key``) in the current memo, made by ``factory()`` when absent.

    >>> with scope():
    ...     remember("squares", 12, lambda: 12 * 12)
    144
    """
    return current().get((namespace, key), factory)


def memoised(namespace: str | None = None):
    """Decorator: remember ``fn(*args, **kwargs)`` in the current memo, keyed by the arguments
    (which must be hashable).  ``namespace`` defaults to the function's qualified name.

    >>> @memoised()
    ... def cube(n):
    ...     return n ** 3
    >>> with scope() as m:
    ...     cube(3), cube(3), len(m)
    (27, 27, 1)
    """
    def deco(fn):
        ns = namespace or f"{fn.__module__}.{fn.__qualname__}"

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            return current().get((ns, key), lambda: fn(*args, **kwargs))

        wrapper.memo_namespace = ns  # type: ignore[attr-defined]
        return wrapper
    return deco


def by_identity(namespace: str, obj: Any, factory: Callable[[], Any], *keys: Hashable):
    """``factory()`` remembered for the object ``obj`` itself (and ``keys``): keyed by ``id(obj)``,
    the entry holding ``obj`` so that its id cannot be reused by another object while remembered.

    >>> with scope():
    ...     x = [1, 2]
    ...     by_identity("sum", x, lambda: sum(x)), by_identity("sum", x, lambda: -1)
    (3, 3)
    """
    return current().get((namespace, id(obj), *keys), lambda: (obj, factory()))[1]
