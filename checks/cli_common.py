"""What the ``softmix`` subcommands share: the usage error, the argument types, JSON output."""
from __future__ import annotations

import argparse
import json

__all__ = ["UsageError", "parse_lengths", "parse_query", "seed_arg", "write_json"]


class UsageError(Exception):
    pass


def seed_arg(text: str) -> int:
    """argparse type of every ``--seed``: a non-negative integer (numpy's SeedSequence takes no
    negative entropy), rejected before any work."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {v}")
    return v


def parse_query(text: str, dim: int | None = None):
    """``--query "z1,z2,..."``: comma-separated numbers (the grammar of :func:`softmix.parse_number`),
    at most ``LIMITS.max_dimension`` of them."""
    from softmix.numerics.errors import InputError
    from softmix.numerics.parsing import LIMITS, parse_number

    lim = LIMITS.max_dimension
    if len(text) > lim * (LIMITS.max_number_chars + 1):
        raise InputError(f"--query: {len(text)} characters, more than {lim} numbers can hold")
    parts = [p for p in text.replace(" ", "").split(",") if p != ""]
    if not parts:
        raise InputError("--query: empty query (expected comma-separated numbers such as 0.5,-1/3)")
    if len(parts) > lim:
        raise InputError(f"--query: {len(parts)} entries, more than the limit of {lim}")
    vals = [parse_number(p, f"--query[{i}]") for i, p in enumerate(parts)]
    if dim is not None and len(vals) != dim:
        raise InputError(f"--query has {len(vals)} entries but the mixture has dimension {dim}")
    return vals


def write_json(doc, path):
    if path:
        with open(path, "w") as fh:
            json.dump(doc, fh, indent=1)
    print(json.dumps(doc, indent=1))


def parse_lengths(text: str) -> list[int]:
    """``--mc "L1,L2,..."``: positive integer prompt lengths."""
    from softmix.numerics.errors import InputError

    try:
        Ls = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"--mc: expected comma-separated integers, got {text!r}") from None
    if not Ls or min(Ls) < 1:
        raise InputError("--mc: prompt lengths must be positive integers")
    return Ls
