"""Hypothesis settings for the core's properties.

``--hypothesis-profile=mutation`` (what ``mutmut`` runs the core's tests with, see the README's
Development section) runs each property derandomized, on a fifth of its examples: every mutant
meets the same examples, and a run over a thousand mutants ends the same afternoon.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "mutation",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
