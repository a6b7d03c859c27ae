"""Named wrong stated sides (negative controls) of the derivations, declared and checked.

Several derivations take ``variant=``: ``None`` builds the paper's statement, a name builds a
deliberately wrong stated side that a negative control must refute.  A name the function does
not know must never fall through to the true statement (the control would then "survive" for
the wrong reason, or a typo would silently test the claim again), so every such function
declares its names with :func:`variants` and raises ``ValueError`` on any other:

>>> @variants("flipped-sign")
... def stated(x, variant=None):
...     return -x if variant == "flipped-sign" else x
>>> stated(2), stated(2, variant="flipped-sign")
(2, -2)
>>> stated(2, "flipped")
Traceback (most recent call last):
...
ValueError: stated: unknown variant 'flipped' (known: None, 'flipped-sign')
>>> stated.variants
('flipped-sign',)
"""
from __future__ import annotations

import functools
import inspect

__all__ = ["variants", "check_variant"]


def check_variant(where: str, variant, known) -> None:
    """Raise ``ValueError`` naming the known variants unless ``variant`` is None or one of ``known``."""
    if variant is None or variant in known:
        return
    names = ", ".join(["None"] + [repr(k) for k in sorted(known)])
    raise ValueError(f"{where}: unknown variant {variant!r} (known: {names})")


def variants(*names: str):
    """Decorator: the function's ``variant`` argument (positional or keyword) must be None or one
    of ``names``; anything else raises ``ValueError`` before the body runs.  The signature is
    unchanged (``functools.wraps``); the names are the attribute ``variants`` of the function."""
    known = frozenset(names)

    def deco(fn):
        sig = inspect.signature(fn)
        if "variant" not in sig.parameters:
            raise TypeError(f"{fn.__qualname__}: @variants needs a parameter named 'variant'")

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            check_variant(fn.__name__, sig.bind_partial(*args, **kwargs).arguments.get("variant"), known)
            return fn(*args, **kwargs)

        wrapper.variants = tuple(sorted(known))  # type: ignore[attr-defined]
        return wrapper

    return deco
