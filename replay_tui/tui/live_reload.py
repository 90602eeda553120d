"""Live reload for the app: the watcher worker and applying folder updates to the screen.

watchfiles' batches (``replay_tui.live.watch``) go to the core's :class:`LiveFolder` in a thread,
which answers with traces added, updated and removed; :class:`LiveReload` posts those as the
app's trace messages (whose handlers keep the selection and every view's position), re-judges
streams that went quiet without ``[DONE]``, and keeps the header's watch state (on/off, when
the last change arrived) current.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from ..core.trace import Badge
from ..core.visible import visible
from ..live.folder import FolderUpdate, LiveFolder
from ..live.watch import watch_traces
from .messages import TraceAdded, TraceRemoved, TraceUpdated

if TYPE_CHECKING:
    from .app import ReplayApp

__all__ = ["LiveReload"]

SETTLE_EVERY = 1.0
"""Seconds between checks of streams that may have gone quiet without [DONE]."""


class LiveReload:
    """The app's live reload: owns the :class:`LiveFolder`, runs the watcher, applies updates."""

    def __init__(self, app: ReplayApp, paths: list[str]) -> None:
        self.app = app
        self.paths = paths
        self.folder = LiveFolder(paths)
        self.last_change: float | None = None
        """``time.time()`` of the last change that reached the screen (None: none yet)."""
        self._started = False

    def start(self) -> None:
        """Start watching (once the list is filled)."""
        if self._started:
            return
        self._started = True
        app = self.app
        app.run_worker(
            self._watch(), group="watch", exclusive=True, description="watch", exit_on_error=False
        )
        app.set_interval(SETTLE_EVERY, self._settle_quiet_streams)
        self.show_state()

    async def _watch(self) -> None:
        stop = asyncio.Event()
        try:
            async for batch in watch_traces(self.paths, stop):
                update = await asyncio.to_thread(self.folder.apply, batch)
                self.apply(update)
        finally:
            stop.set()

    def _settle_quiet_streams(self) -> None:
        if not any(s.badge is Badge.IN_PROGRESS for s in self.app.store.summaries.values()):
            return
        self.app.run_worker(
            self._settle, thread=True, group="settle", exclusive=True, description="settle"
        )

    def _settle(self) -> None:
        update = self.folder.settle()
        if update:
            # Judging a quiet stream is not a change to the folder: the header's "last change"
            # stays the last write.
            self.app.call_from_thread(self.apply, update, written=False)

    def apply(self, update: FolderUpdate, *, written: bool = True) -> None:
        """Put a folder update on screen (the app's trace messages do the list and views);
        ``written``: it comes from files that changed (not from judging a quiet stream)."""
        if not update:
            return
        app = self.app
        for trace in update.added:
            app.post_message(TraceAdded(trace))
        for trace in update.updated:
            app.post_message(TraceUpdated(trace))
        for address in update.removed:
            app.post_message(TraceRemoved(address))
        if update.skipped or update.unskipped:
            app.store.skipped = list(self.folder.skipped.values())
            app.trace_list.set_skipped(app.store.skipped)
        for problem in update.problems:
            app.notify(visible(problem), severity="warning", timeout=4, markup=False)
        if written:
            self.last_change = time.time()
        self.show_state()

    def show_state(self) -> None:
        text = "● watching"
        if self.last_change is not None:
            text += " · last change " + time.strftime("%H:%M:%S", time.localtime(self.last_change))
        self.app.counts_bar.set_watch_state(text, on=True)
