"""App-level messages: what the app's workers and the file watcher tell the screen.

Widgets send user intent up as their own messages; these carry data that arrived from outside
the UI thread. All are safe to post from a worker thread. A message that a newer one makes
stale says so (``can_replace``), so a burst of them is handled once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from ..core.result import Listed
from ..core.trace import Trace
from ..live.folder import FolderUpdate

if TYPE_CHECKING:
    from ..browse.judging import Walked
    from ..scale.judgements import Shown

__all__ = [
    "CacheListed",
    "DiscoveryDone",
    "FolderChanged",
    "LinesCounted",
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
    """The paths were walked (:class:`~replay_tui.browse.judging.Walked`: what is listed,
    what is judged already, what is left to judge)."""

    walked: Walked
    hays: dict[str, str] = field(default_factory=dict)
    """What the list's filter reads of each trace judged, made in the worker."""
    shown: threading.Event | None = None
    """Set once the list is drawn (the walk's worker then tells the live folder the files)."""


@dataclass
class CacheListed(Message):
    """What the judgement cache knew of the folder when it was last open, shown while the
    walk checks the files (a :class:`DiscoveryDone` follows and has the last word)."""

    cached: Shown
    """The list's items and the store's traces, made by the worker."""
    shown: threading.Event | None = None
    """Set once the list is drawn (the walk that checks the files waits for it)."""


@dataclass
class TracesJudged(Message):
    """A batch of listed files was judged in the background (list badges fill in)."""

    judged: list[tuple[str, Listed]]
    """Each file's address and what it holds: its traces' judgements, or why it holds none."""
    traces: list[Trace] = field(default_factory=list)
    """Traces judged in this process (captures still being written, followed as they grow)."""
    hays: dict[str, str] = field(default_factory=dict)
    """What the list's filter reads of each trace judged, made in the worker."""
    finished: bool = False
    """The last batch: every file was judged."""
    taken: threading.Event | None = None
    """Set once this batch is on screen: the judging sends the next one only then."""


@dataclass
class PendingHays(Message):
    """What the list's filter reads of the files listed and not judged yet, made in the
    worker that walked them once the list is drawn: the first key typed into the filter of a
    big folder made 100,000 of them."""

    hays: dict[str, str]


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
class LinesCounted(Message):
    """The lines before a first screen read from the first call on were counted (see
    :func:`~.loading.with_lines_counted`): ``counted`` takes the place of ``first`` if it is
    still on screen."""

    first: Trace
    counted: Trace


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
