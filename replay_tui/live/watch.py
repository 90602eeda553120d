"""Watching trace folders with watchfiles: batches of file changes, fast, and resilient.

``watch_traces`` yields one batch per burst of changes (watchfiles collapses a burst within
its debounce window), with hidden files, editor/download temporaries and recorder sidecars
filtered out, as discovery does. It is tuned for a change to reach the screen within a few
hundred milliseconds (watchfiles waits up to 1.6 s by default), and it survives a watched
folder that is deleted and re-created: it waits for the folder to come back and then reports
it as added, so the caller rescans it.

A watch is not in place the moment it is asked for (setting up the watches of a big folder
takes a while), and what changes before is not reported: ``ready`` is called each time the
watches are in place, so that the caller can look for what changed since its own listing.

This module knows nothing of Textual; the TUI runs it in a worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ..core.discovery import is_ignored_name

if TYPE_CHECKING:
    import watchfiles

__all__ = ["FileChange", "Kind", "watch_traces"]

DEBOUNCE_MS = 60
"""How long watchfiles gathers a burst before yielding it."""
STEP_MS = 15
"""How often watchfiles checks for the end of a burst."""
REAPPEAR_POLL_S = 0.25
"""How often a vanished watched folder is looked for."""


class Kind(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"


class FileChange(msgspec.Struct, frozen=True):
    kind: Kind
    path: Path


# watchfiles.Change's values (an IntEnum): watchfiles is imported when watching starts, not
# with the app (a fortieth of the time the TUI takes to show its first rows).
_ADDED, _MODIFIED, _DELETED = 1, 2, 3
_KINDS = {_ADDED: Kind.ADDED, _MODIFIED: Kind.MODIFIED, _DELETED: Kind.DELETED}


def _interesting(change: watchfiles.Change, path: str) -> bool:
    parts = Path(path).parts
    return not any(is_ignored_name(p) or p == "__pycache__" for p in parts[-4:])


def _collapse(raw: set[tuple[watchfiles.Change, str]]) -> list[FileChange]:
    """One change per path, in a stable order; the last word on a path wins.

    A write-to-temp-then-rename shows up as the temporary (filtered out) and the target
    (added or modified); a delete followed by a create of the same path is a modification.
    """
    by_path: dict[str, Kind] = {}
    for change, path in sorted(raw, key=lambda c: (c[1], c[0] != _DELETED)):
        kind = _KINDS[change]
        before = by_path.get(path)
        if before is Kind.DELETED and kind is Kind.ADDED:
            kind = Kind.MODIFIED
        by_path[path] = kind
    return [FileChange(kind, Path(path)) for path, kind in sorted(by_path.items())]


async def watch_traces(
    roots: Sequence[str | os.PathLike[str]],
    stop: asyncio.Event,
    *,
    debounce_ms: int = DEBOUNCE_MS,
    step_ms: int = STEP_MS,
    ready: Callable[[], None] | None = None,
) -> AsyncIterator[list[FileChange]]:
    """Yield batches of changes under ``roots`` (folders or files) until ``stop`` is set.

    ``ready`` (if given) is called, from watchfiles' thread, each time the watches are in
    place: every change after that call is reported, none before it is.
    """
    targets = [Path(r) for r in roots]
    while not stop.is_set():
        present = [t for t in targets if t.exists()]
        missing = [t for t in targets if t not in present]
        if not present:
            if await _wait_for_any(targets, stop):
                yield [FileChange(Kind.ADDED, t) for t in targets if t.exists()]
            continue
        reappeared = False
        import watchfiles

        try:
            async for raw in watchfiles.awatch(
                *present,
                watch_filter=_interesting,
                debounce=debounce_ms,
                step=step_ms,
                stop_event=_StopEither(stop, missing, ready),
                recursive=True,
                yield_on_timeout=bool(missing),
                rust_timeout=int(REAPPEAR_POLL_S * 1000) if missing else None,
            ):
                batch = _collapse(raw)
                if batch:
                    yield batch
                if any(not t.exists() for t in present):
                    break  # a watched root vanished: watch what is left, wait for it
                if any(t.exists() for t in missing):
                    reappeared = True
                    break
        except (FileNotFoundError, RuntimeError, OSError):
            # The watcher lost its root (deleted under it); fall through and start again.
            await asyncio.sleep(REAPPEAR_POLL_S)
        if reappeared:
            yield [FileChange(Kind.ADDED, t) for t in missing if t.exists()]


class _StopEither:
    """The stop event watchfiles polls: the caller's, or a missing root reappearing.

    watchfiles polls it only from the watch loop of a watcher made, whose watches were set up
    as it was made: its first poll is the moment the watch is in place (``ready``).
    """

    def __init__(
        self, stop: asyncio.Event, missing: list[Path], ready: Callable[[], None] | None
    ) -> None:
        self._stop = stop
        self._missing = missing
        self._ready = ready

    def is_set(self) -> bool:
        if self._ready is not None:
            ready, self._ready = self._ready, None
            ready()
        return self._stop.is_set() or any(m.exists() for m in self._missing)

    def set(self) -> None:
        """watchfiles sets its stop event when its task is cancelled: stop watching."""
        self._missing = []
        self._stop.set()


async def _wait_for_any(targets: list[Path], stop: asyncio.Event) -> bool:
    while not stop.is_set():
        if any(t.exists() for t in targets):
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), REAPPEAR_POLL_S)
    return False
