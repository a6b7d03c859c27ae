"""Small parsers shared by the CLI subcommands (one-line InputError on bad input)."""
from __future__ import annotations

__all__ = ["parse_lengths"]


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
