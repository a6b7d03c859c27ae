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
    from softmix.numerics.errors import InputError
    from softmix.numerics.mixture import parse_number

    parts = [p for p in text.replace(" ", "").split(",") if p != ""]
    if not parts:
        raise InputError("--query: empty query")
    vals = [parse_number(p, f"--query entry {i}") for i, p in enumerate(parts)]
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
