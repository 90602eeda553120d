"""Live reload for the app: the watcher worker, and folder updates as messages.

watchfiles' batches (``replay_tui.live.watch``) go to :class:`LiveFolder` in a thread, which
answers with traces added, updated, renamed and removed (and, once the watches are in place,
with what changed before they were: :meth:`LiveFolder.catch_up`); :class:`LiveReload` posts
each batch as one :class:`FolderChanged` (whose handler keeps the selection and every view's
position), re-judges streams that went quiet without ``[DONE]``, and says how watching goes
(:class:`WatchState`). It talks to the app only through messages and workers.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

from textual.app import App
from textual.worker import get_current_worker

from ..core.discovery import entry_of
from ..live.folder import FolderUpdate, LiveFolder
from ..live.watch import watch_traces
from .messages import FolderChanged, WatchState

__all__ = ["LiveReload"]

SETTLE_EVERY = 1.0
"""Seconds between checks of streams that may have gone quiet without [DONE]."""


class LiveReload:
    """The app's live reload: owns the :class:`LiveFolder`, runs the watcher, posts updates."""

    def __init__(self, app: App[int], paths: list[str]) -> None:
        self.app = app
        self.paths = paths
        self.files = [entry_of(p)[0] for p in paths]
        """What is on disk: a HAR entry named (``x.har#4``) is its file (a path ``x.har#4``
        exists nowhere: it was taken for a root deleted, "last change" said at once)."""
        self.folder = LiveFolder(paths)
        self.last_change: float | None = None
        """``time.time()`` of the last file change that reached the screen (None: none yet)."""
        self._started = False
        self._watching = False

    def start(self, *, watch: bool = True) -> None:
        """Start following the folder (once the list is filled): streams that go quiet are
        judged, and unless ``watch`` is false, the watcher starts (else :meth:`watch` starts
        it, once the list is judged)."""
        if self._started:
            return
        self._started = True
        self.app.set_interval(SETTLE_EVERY, self._settle_quiet_streams)
        if watch:
            self.watch()
        self.show_state()

    def watch(self) -> None:
        """Start the watcher (once). The app starts it when the list is judged, not while
        the pool's processes read the folder's files: the inotify watches watchfiles sets
        ask for open events, which it then drops, so each file they open costs the watcher's
        thread an event (100,000 captures: a second or more of a core, taken from the
        judging). What changed meanwhile is found by the walk made once the watches are in
        place (:meth:`LiveFolder.catch_up`): a file added, gone, or written since the folder
        was opened (read again)."""
        if self._watching:
            return
        self._watching = True
        self.app.run_worker(
            self._watch_in_thread,
            thread=True,
            group="watch",
            exclusive=True,
            description="watch",
            exit_on_error=False,
        )

    def _watch_in_thread(self) -> None:
        """The watcher in a thread with an event loop of its own: setting up the watches of a
        folder of 100,000 captures takes a moment that the UI's loop must not wait for."""
        worker = get_current_worker()
        asyncio.run(self._watch(lambda: worker.is_cancelled))

    async def _watch(self, cancelled: Callable[[], bool]) -> None:
        stop = asyncio.Event()
        watching = asyncio.Event()
        loop = asyncio.get_running_loop()

        async def stop_when_cancelled() -> None:
            while not cancelled():
                await asyncio.sleep(0.1)
            stop.set()

        async def catch_up() -> None:
            # A capture written after the list was walked and before the watches were in
            # place is reported by no watcher: a second walk finds it.
            while True:
                await watching.wait()
                watching.clear()
                self.post(await asyncio.to_thread(self.folder.catch_up))

        def ready() -> None:  # called from watchfiles' thread
            loop.call_soon_threadsafe(watching.set)

        tasks = [asyncio.create_task(stop_when_cancelled()), asyncio.create_task(catch_up())]
        try:
            async for batch in watch_traces(self.files, stop, ready=ready):
                self.post(self.folder.apply(batch))  # this thread is not the UI's
                if cancelled():
                    break
        finally:
            stop.set()
            for task in tasks:
                task.cancel()

    def _settle_quiet_streams(self) -> None:
        if not self.folder.in_progress():
            return
        self.app.run_worker(
            self._settle, thread=True, group="settle", exclusive=True, description="settle"
        )

    def _settle(self) -> None:
        update = self.folder.settle()
        if update:
            # Judging a quiet stream is not a change to the folder: the header's "last change"
            # stays the last write.
            self.post(update, written=False)

    def post(self, update: FolderUpdate, *, written: bool = True) -> None:
        """Send a folder update to the app (from any thread)."""
        gone = [p for p, f in zip(self.paths, self.files, strict=True) if not os.path.exists(f)]
        if not update and not gone:
            return
        self.app.post_message(FolderChanged(update, written=written, gone_roots=gone))
        if written:
            self.last_change = time.time()
        self.show_state()

    def show_state(self) -> None:
        text = "● watching"
        if self.last_change is not None:
            text += " · last change " + time.strftime("%H:%M:%S", time.localtime(self.last_change))
        self.app.post_message(WatchState(text))
