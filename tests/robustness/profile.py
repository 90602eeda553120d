"""Which hypothesis settings the robustness properties run with (see ``conftest.py``)."""

from __future__ import annotations

from typing import Any

from hypothesis import settings


def fuzzing() -> bool:
    """Whether the long campaign was asked for (``--hypothesis-profile=fuzz``)."""
    return settings.get_current_profile_name() == "fuzz"


def robust(*, scale: float = 1.0, **overrides: Any) -> settings:
    """Settings for one property: the fast profile by default, ``fuzz`` when selected.

    ``scale`` shrinks or grows the example count of an expensive or cheap property in the
    default run (the fuzz campaign runs every property at full length).
    """
    if fuzzing():
        return settings(settings.get_profile("fuzz"), **overrides)
    base = settings.get_profile("robustness")
    return settings(base, max_examples=max(5, int(base.max_examples * scale)), **overrides)
