"""Assertions for your own test suite: :func:`assert_claim`, :func:`assert_agrees`,
:func:`assert_float64_agrees` (implemented in :mod:`softmix.checks.testing`; see docs/testing.md).
The pytest plugin that collects claim files as test items is :mod:`softmix.checks.pytest_plugin`."""
from softmix.checks.testing import *  # noqa: F401,F403
from softmix.checks.testing import __all__  # noqa: F401
