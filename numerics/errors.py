"""Errors raised for bad input.  The CLI turns :class:`InputError` into exit code 2."""


class InputError(ValueError):
    """Invalid user input (shapes, PSD-ness, weights, non-finite numbers, unreadable files)."""
