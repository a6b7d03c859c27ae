"""Errors raised for bad input, and the base class of the warnings softmix emits.  The CLI turns
:class:`InputError` into exit code 2."""

__all__ = ["InputError", "SoftmixWarning"]


class InputError(ValueError):
    """Invalid user input (shapes, PSD-ness, weights, non-finite numbers, unreadable files)."""


class SoftmixWarning(UserWarning):
    """The base class of every warning softmix itself emits (:class:`softmix.PrecisionWarning`,
    :class:`softmix.testing.InconclusiveClaimWarning`).  One filter covers them all, e.g. in a test
    suite that wants them as errors: ``warnings.simplefilter("error", softmix.SoftmixWarning)`` or
    pytest's ``filterwarnings = ["error::softmix.SoftmixWarning"]`` (as this project's own suite
    does; docs/contributing.md)."""
