"""Hypothesis profiles, each derived from a built-in one (``register_profile(name, parent=...)``):

* ``default`` (local runs): the built-in default, 12 examples, no deadline;
* ``ci`` (when ``CI`` is set): the built-in ``ci`` profile (derandomized, no deadline, print_blob),
  25 examples;
* ``full``: the built-in default with 300 examples, no deadline;
* ``fuzz``: randomised examples (not derandomised; seeded by ``--hypothesis-seed``), 60 per test,
  no deadline, no example database -- the CI step that fuzzes the input validation
  (tests/engine/test_input_fuzz.py) under several seeds.

``SOFTMIX_HYPOTHESIS_PROFILE`` picks one explicitly.
"""
import os

from hypothesis import HealthCheck, settings

_builtin_default = settings.get_profile("default")
_builtin_ci = settings.get_profile("ci")
_quiet_slow = [HealthCheck.too_slow]

settings.register_profile("softmix-default", parent=_builtin_default, max_examples=12, deadline=None,
                          suppress_health_check=_quiet_slow)
settings.register_profile("softmix-ci", parent=_builtin_ci, max_examples=25)
settings.register_profile("full", parent=_builtin_default, max_examples=300, deadline=None,
                          suppress_health_check=_quiet_slow)
settings.register_profile("fuzz", parent=_builtin_default, max_examples=60, deadline=None, derandomize=False,
                          database=None, suppress_health_check=[*_quiet_slow, HealthCheck.too_slow,
                                                                HealthCheck.data_too_large,
                                                                HealthCheck.filter_too_much])
PROFILES = {"default": "softmix-default", "ci": "softmix-ci", "full": "full", "fuzz": "fuzz"}
_profile = os.environ.get("SOFTMIX_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default")
settings.load_profile(PROFILES.get(_profile, _profile))

# The engine controls (checks/engine_controls.py, a few seconds per `softmix verify` process) are
# exercised by tests/engine/test_engine_controls.py, which clears this variable; the many small verify
# processes of the other tests skip them (with the warning on stderr).
os.environ.setdefault("SOFTMIX_NO_ENGINE_CONTROLS", "1")
