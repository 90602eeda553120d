"""Suite-wide settings.

In CI (``CI`` set) hypothesis runs derandomized: every property still explores its examples,
but the same ones on every run, so a red build is a regression and never a draw of luck.
Exploration with fresh examples is what a local run and the long ``fuzz`` profile are for.
"""

from __future__ import annotations

import os

from hypothesis import settings

if os.environ.get("CI"):
    settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
    settings.load_profile("ci")
