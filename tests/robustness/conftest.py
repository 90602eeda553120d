"""Hypothesis profiles for the robustness suite.

Two profiles, registered here so that the suite does not depend on ``tests/conftest.py``:

- the fast one (60 examples per property, no deadline) is what a plain ``pytest`` run uses;
- ``fuzz`` is a long campaign: ``pytest tests/robustness --hypothesis-profile=fuzz``.

Hypothesis' own ``default`` profile is left alone, because loading a profile changes the
settings of every test in the session, including other folders'. The suite's tests take their
settings from :func:`robust` instead, which follows ``--hypothesis-profile=fuzz`` when given.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile(
    "fuzz",
    max_examples=int(os.environ.get("REPLAY_TUI_FUZZ_EXAMPLES", "20000")),
    deadline=None,
    suppress_health_check=_HEALTH,
    print_blob=True,
)
settings.register_profile(
    "robustness",
    max_examples=60,
    derandomize=bool(os.environ.get("CI")),  # see tests/conftest.py
    deadline=None,
    suppress_health_check=_HEALTH,
    print_blob=True,
)
