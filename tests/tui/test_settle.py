"""The tests' own ``settle`` helper: it waits for the app, and fails when the app never gets
there (a test that went on regardless would assert on a half-built screen)."""

from __future__ import annotations

import pytest

from replay_tui.browse import judging as browse_judging
from replay_tui.tui.app import make_app

from .conftest import SIZE, TRACES, held, settle


async def test_settle_fails_when_the_app_is_still_busy_at_its_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reading = held(monkeypatch, browse_judging, "walk")  # (the folder's walk never ends)
    app = make_app([str(TRACES / "captures")])
    async with app.run_test(size=SIZE) as pilot:
        with pytest.raises(AssertionError, match=r"did not settle in 0\.3 s"):
            await settle(app, pilot, limit=0.3)
        reading.set()
        await settle(app, pilot)
        assert app.current is not None
