"""``replay-tui record … --tui``: the recorder inside the TUI, and what the header says of it.

The recorder runs in the app's own event loop: it starts before the TUI takes the terminal (so
a busy port or an unwritable folder is one ``replay-tui: …`` line, not a broken screen) and
stops when the app exits, which finalizes every capture still being written. Its log lines —
one per capture, and the upstream's failures — would tear the screen if printed: failures
become notifications, the rest is left to the list, where each new capture appears.
"""

from __future__ import annotations

import logging
from typing import Any

from textual.app import App
from textual.content import Content
from textual.widgets import Static

from ..core.visible import visible
from ..record import Recorder, RecorderError

__all__ = ["RECORD_LOGGER", "RecorderInApp", "RecorderStatus", "ToastHandler"]

RECORD_LOGGER = "replay_tui.record"
REFRESH = 0.5
"""Seconds between two looks at the recorder's counters."""


class RecorderStatus(Static):
    """``● REC  127.0.0.1:8787 → upstream · 12 requests · 1 streaming · captures in DIR/``."""

    DEFAULT_CSS = """
    RecorderStatus {
        width: 100%;
        height: 1;
        padding: 0 1;
        background: $error 12%;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;  /* (what _fit leaves out is in the tooltip whole) */
    }
    """

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(id="recorder-status")
        self.recorder = recorder
        self._shown: tuple[bool, str, int, int, int] | None = None
        self._status = Content("")

    def on_mount(self) -> None:
        self.tooltip = (
            f"Point the agent's base URL at {self.recorder.url}: every request goes on to "
            f"{self.recorder.upstream}, and each streamed response is captured into "
            f"{self.recorder.out_dir}/"
        )
        self.refresh_status()
        self.set_interval(REFRESH, self.refresh_status)

    @property
    def status_text(self) -> str:
        """What the line says, as plain text."""
        return self._status.plain

    def on_resize(self) -> None:
        self._fit()

    def refresh_status(self) -> None:
        r = self.recorder
        state = (r.running, r.url, r.request_count, r.active_streams, r.capture_count)
        if state == self._shown:
            return
        self._shown = state
        self._fit()

    def _fit(self) -> None:
        """The fullest line that fits the width: what goes first when it does not is the
        folder, then the upstream (both in the tooltip), never a count cut mid-word."""
        if self._shown is None:
            return
        r = self.recorder
        running, address, requests, streams, captures = self._shown
        head: list[tuple[str, str] | str] = [
            ("● REC" if running else "○ stopped", "bold $text-error" if running else "bold"),
            "  ",
            (visible(address), "bold $text"),
        ]
        counts: list[tuple[str, str] | str] = [
            "  ·  ",
            (f"{requests:,} request{'s' if requests != 1 else ''}", "bold $text"),
        ]
        if streams:
            counts += ["  ·  ", (f"{streams:,} streaming", "bold $text-accent")]
        counts += ["  ·  ", f"{captures:,} capture{'s' if captures != 1 else ''}"]
        upstream: list[tuple[str, str] | str] = [" → ", visible(str(r.upstream))]
        folder: list[tuple[str, str] | str] = [" in ", visible(str(r.out_dir)) + "/"]
        room = self.content_region.width or self.size.width
        for parts in (
            [*head, *upstream, *counts, *folder],
            [*head, *upstream, *counts],
            [*head, *counts],
        ):
            self._status = Content.assemble(*parts)
            if not room or self._status.cell_length <= room:
                break
        self.update(self._status)


class ToastHandler(logging.Handler):
    """The recorder's warnings (upstream errors, unwritable captures) as notifications."""

    def __init__(self, app: App[Any]) -> None:
        super().__init__(logging.WARNING)
        self.app = app

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not take the TUI down
            return
        self.app.notify(
            visible(message), title="recorder", severity="warning", timeout=6, markup=False
        )


class RecorderInApp:
    """The recorder's life in the app: started before the app takes the terminal, its
    warnings shown as notifications meanwhile (not printed), stopped when the app exits."""

    def __init__(self, app: App[Any], recorder: Recorder) -> None:
        self.app = app
        self.recorder = recorder
        self._log: tuple[logging.Logger, logging.Handler, bool] | None = None

    async def start(self) -> str | None:
        """Start the recorder; why it could not (a busy port, an unwritable folder), if so."""
        try:
            await self.recorder.start()
        except RecorderError as exc:
            return str(exc)
        logger = logging.getLogger(RECORD_LOGGER)
        handler = ToastHandler(self.app)
        self._log = (logger, handler, logger.propagate)
        logger.addHandler(handler)
        logger.propagate = False  # its lines would tear the screen
        return None

    async def stop(self) -> None:
        # Stopping the recorder finalizes the captures still being written.
        await self.recorder.stop()
        if self._log is not None:
            logger, handler, propagate = self._log
            logger.removeHandler(handler)
            logger.propagate = propagate
            self._log = None
