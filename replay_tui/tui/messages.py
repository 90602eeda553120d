"""App-level messages: what the app's workers and the file watcher tell the screen.

Widgets send user intent up as their own messages; these carry data that arrived from outside
the UI thread. All are safe to post from a worker thread. A message that a newer one makes
stale says so (``can_replace``), so a burst of them is handled once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from textual.message import Message

from ..core.discovery import Discovery, Skipped
from ..core.trace import Trace
from ..live.folder import FolderUpdate

__all__ = [
    "DiscoveryDone",
    "FolderChanged",
    "LoadProgress",
    "MarkedLoaded",
    "TraceAdded",
    "TraceOpened",
    "TraceRemoved",
    "TraceUpdated",
    "TracesJudged",
    "WatchState",
]


@dataclass
class DiscoveryDone(Message):
    """The paths were scanned: these sources are traces, these files are not."""

    discovery: Discovery


@dataclass
class TracesJudged(Message):
    """A batch of traces was loaded and judged in the background (list badges fill in)."""

    traces: list[Trace]
    failed: list[Skipped] = field(default_factory=list)
    finished: bool = False
    """The last batch: every source was judged."""


@dataclass
class LoadProgress(Message):
    """Decoding the opened trace: ``done`` of ``total`` bytes."""

    address: str
    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LoadProgress) and message.address == self.address


@dataclass
class TraceOpened(Message):
    """The opened trace (or, while a big one decodes, its first part) is ready to show."""

    trace: Trace
    partial: bool = False
    """Only the start of the capture: more is being decoded."""
    shown: threading.Event | None = None
    """Set once this is on screen: the loader waits for it before decoding the rest, so the
    first paint does not compete with decoding for the interpreter."""


@dataclass
class TraceAdded(Message):
    """A new trace appeared (a file was created under a watched folder)."""

    trace: Trace


@dataclass
class TraceUpdated(Message):
    """A trace changed (a file grew or was rewritten): the new state replaces the old."""

    trace: Trace

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TraceUpdated) and message.trace.address == self.trace.address


@dataclass
class TraceRemoved(Message):
    """A trace disappeared (its file was deleted)."""

    address: str


@dataclass
class MarkedLoaded(Message):
    """The trace marked as A was read for the compare view (``trace`` is ``None``: it failed)."""

    address: str
    trace: Trace | None
    error: str = ""


@dataclass
class FolderChanged(Message):
    """A batch of changes to the watched folders, applied to the list and views at once."""

    update: FolderUpdate
    written: bool = True
    """From files that changed (not from judging a stream that went quiet)."""
    gone_roots: list[str] = field(default_factory=list)
    """Watched folders that no longer exist (deleted: the list says so until they return)."""


@dataclass
class WatchState(Message):
    """What the header says about watching (on, and when the last change arrived)."""

    text: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, WatchState)
