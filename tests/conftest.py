import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=12, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("full", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
_profile = os.environ.get("SOFTMIX_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default")
settings.load_profile(_profile)
