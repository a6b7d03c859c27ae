"""The public hypothesis strategies (implemented in :mod:`softmix.checks.strategies`, whose
docstring states their ranges and contracts; see docs/testing.md)."""
from softmix.checks.strategies import *  # noqa: F401,F403
from softmix.checks.strategies import __all__  # noqa: F401
