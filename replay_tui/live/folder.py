"""A folder of traces kept true while its files change (README, Live reload), for the live TUI.

:class:`LiveFolder` turns batches of file changes (from the watcher) into what the list must
do: traces added, traces updated, traces removed, files now skipped or no longer skipped.
Plain SSE, ``curl -i`` and chunk-log files are followed with :class:`~.follow.LiveTrace`, so a
capture still being written shows "in progress" and costs what was appended; a HAR file is
read whole when it changes. Addresses match discovery's (relative to the folder opened, the
path as given for a file opened directly), so the list keeps its selection.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import msgspec

from ..core.discovery import (
    Candidate,
    Discovery,
    Skipped,
    classify,
    discover,
    entry_of,
    folder_prefix,
    is_ignored_name,
    walk,
)
from ..core.trace import Form, Source, Trace, TraceBuilder, load_trace
from .follow import LiveTrace
from .watch import FileChange, Kind

__all__ = ["FolderUpdate", "LiveFolder"]


class FolderUpdate(msgspec.Struct):
    """What one batch of changes means for the list."""

    added: list[Trace] = msgspec.field(default_factory=list)
    updated: list[Trace] = msgspec.field(default_factory=list)
    removed: list[str] = msgspec.field(default_factory=list)
    """Addresses of traces that are gone."""
    renamed: list[tuple[str, Trace]] = msgspec.field(default_factory=list)
    """Traces whose file was renamed (moved within the roots): the old address, the trace
    under its new one. Neither is in ``added`` or ``removed``."""
    skipped: list[Skipped] = msgspec.field(default_factory=list)
    """Files newly skipped (or skipped for a new reason)."""
    unskipped: list[str] = msgspec.field(default_factory=list)
    """Paths no longer skipped (deleted, or now a trace)."""
    problems: list[str] = msgspec.field(default_factory=list)
    """One line per file that vanished or became unreadable while being read."""

    def __bool__(self) -> bool:
        return bool(
            self.added
            or self.updated
            or self.removed
            or self.renamed
            or self.skipped
            or self.unskipped
            or self.problems
        )


_FRESH = 1.0
"""Seconds before the folder was opened within which a capture may still be being written."""


def _abs(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.abspath(path))


def _abspaths(files: Sequence[Candidate]) -> Iterator[str]:
    """``os.path.abspath`` of each file's path, made once per folder: the walk names files
    by their plain names in it (100,000 captures in a few folders: 0.1 s less)."""
    folders: dict[str, str] = {}
    for c in files:
        folder, _, name = c.path.rpartition("/")
        if not name or name in (".", ".."):
            yield os.path.abspath(c.path)
            continue
        folder = folder or ("/" if c.path.startswith("/") else ".")
        base = folders.get(folder)
        if base is None:
            base = folders[folder] = os.path.join(os.path.abspath(folder), "")
        yield base + name


class LiveFolder:
    """The traces under some roots, followed. Methods do file I/O: call them off the UI thread."""

    def __init__(self, roots: Sequence[str], *, quiet: float = 5.0) -> None:
        self.roots = [(str(r), _abs(r)) for r in roots]
        self._prefix = {
            root: folder_prefix(given, len(self.roots) > 1) for given, root in self.roots
        }
        """What the addresses under each folder root start with (:func:`folder_prefix`)."""
        self._folders = {root for _, root in self.roots if root.is_dir()}
        """The roots that are folders: one deleted is still one, for what was skipped in it."""
        self.quiet = quiet
        self.opened_at = time.time()
        """Captures already written when the folder was opened are judged as they stand."""
        self.known: dict[str, str] = {}
        """The absolute path of each trace (a HAR entry: of its file) by address, or of each
        file listed and not yet read (by the file's address)."""
        self.skipped: dict[str, Skipped] = {}
        self._live: dict[str, LiveTrace] = {}
        self._loading: set[str] = set()
        """Addresses the app is reading whole to follow them (:meth:`expect`)."""
        self._reported: set[str] = set()
        self._dropped: dict[tuple[int, int], str] = {}  # inode → address, within one batch
        self._entries: dict[str, set[str]] = {}
        """The addresses of a HAR file's entries, by the file's absolute path: a change to one
        file in a 100,000-trace folder is looked up, not searched for."""
        # The app judges the list in one worker while the watcher applies changes in another.
        self._lock = threading.RLock()

    # -- the initial scan --------------------------------------------------------------------

    def scan(self) -> Discovery:
        """Discover everything under the roots (the list's first content)."""
        found = discover([given for given, _ in self.roots], prefix_folders=True)
        with self._lock:
            self.known = {}
            self._entries = {}
            for source in found.sources:
                self._know(source.address, str(_abs(source.path)), source.entry is not None)
            self.skipped = {s.path: s for s in found.skipped}
        return found

    def track(self, files: Sequence[Candidate], skipped: Sequence[Skipped]) -> None:
        """Start from a walk of the roots (the list's first content, not yet read): each file
        is known by its own address until :meth:`learn` says what it holds."""
        with self._lock:
            self.known = {c.address: path for c, path in zip(files, _abspaths(files), strict=True)}
            self._entries = {}
            self.skipped = {s.path: s for s in skipped}

    @contextlib.contextmanager
    def tracking(self, files: Sequence[Candidate], skipped: Sequence[Skipped]) -> Iterator[None]:
        """:meth:`track`, after the body (the list shown first: knowing where 100,000 files
        are takes a moment), with the folder's lock held from the start: what asks the folder
        meanwhile (catching up, learning, following) waits until it knows them."""
        with self._lock:
            yield
            self.track(files, skipped)

    def learn(self, address: str, traces: Sequence[str], skipped: Sequence[Skipped]) -> None:
        """What the listed file at ``address`` turned out to hold (its traces' addresses, or why
        it holds none), once judged."""
        with self._lock:
            path = self.known.get(address)
            if path is None:
                return
            if address not in traces:
                del self.known[address]
            for trace in traces:
                self._know(trace, path, trace != address)
            for item in skipped:
                self.skipped[item.path] = item

    def _know(self, address: str, path: str, entry: bool) -> None:
        self.known[address] = path
        if entry:
            self._entries.setdefault(path, set()).add(address)

    def load(self, source: Source) -> Trace:
        """Judge a trace as it stands now; a file still being written stays "in progress".

        Raises ``OSError`` when the file cannot be read.
        """
        if source.form is Form.HAR:
            return load_trace(source)
        with self._lock:
            live = self._live.get(source.address)
            if live is None:
                live = self._live[source.address] = LiveTrace(
                    source, quiet=self.quiet, written_before=self.opened_at - _FRESH
                )
            update = live.update()
        if update.trace is None:
            raise OSError(live.gone or "the file vanished")
        return update.trace

    def expect(self, address: str, reading: bool = True) -> None:
        """The app reads the trace at ``address`` whole and hands it over (:meth:`adopt`):
        until then a change to it is not read here too (twice the decoding and the memory,
        in two threads, for one trace). ``reading=False``: it will not (it failed)."""
        with self._lock:
            if reading:
                self._loading.add(address)
            else:
                self._loading.discard(address)

    def adopt(self, builder: TraceBuilder, data: bytes | bytearray) -> Trace:
        """Follow the trace ``builder`` was fed ``data`` of (the whole file as read, not
        closed), from there, while it is being written: an append to it then costs what was
        appended (see :meth:`LiveTrace.adopt`). Not for HAR entries."""
        source = builder.source
        with self._lock:
            self._loading.discard(source.address)
            live = LiveTrace(source, quiet=self.quiet, written_before=self.opened_at - _FRESH)
            trace = live.adopt(builder, data)
            update = live.update()  # what was written while it was being read
            if update.trace is not None:
                trace = update.trace
            if trace.in_progress:  # still being written: followed from here
                self._live[source.address] = live
            else:  # ended: a change reads it again (and the builder is not kept for nothing)
                self._live.pop(source.address, None)
            return trace

    def catch_up(self) -> FolderUpdate:
        """What changed while nothing watched the roots: after the walk that filled the list,
        before the watcher's watches were in place (or a vanished root's were again).

        The roots are walked again (names, sizes and times: no file is read): a file the list
        does not know is added, one it knows that is gone is removed, and one written since
        the folder was opened is read again.
        """
        with self._lock:
            before = set(self.known.values())
        walked = walk([given for given, _ in self.roots], stat=True, prefix_folders=True)
        files = [c for c in walked if isinstance(c, Candidate)]
        since = int((self.opened_at - _FRESH) * 1e9)
        changes: list[FileChange] = []
        with self._lock:
            # The watcher applies what it reports meanwhile: a file it added after the walk
            # went past is in neither; one known before the walk and not found is gone
            # unless it is there now (the walk and a write crossed).
            known = set(self.known.values())
            seen: set[str] = set()
            for c, path in zip(files, _abspaths(files), strict=True):
                seen.add(path)
                if path not in known and c.address not in self.skipped:
                    changes.append(FileChange(Kind.ADDED, Path(path)))
                elif c.stamp is None or c.stamp[1] >= since:
                    changes.append(FileChange(Kind.MODIFIED, Path(path)))
            gone = (p for p in sorted((before & known) - seen) if not os.path.lexists(p))
            changes += [FileChange(Kind.DELETED, Path(p)) for p in gone]
            given = {g for g, _ in self.roots}
            for key in self.skipped:
                at = self._skipped_path(key)
                if at is None or key in given or str(at) in seen:
                    continue
                if not os.path.lexists(at):
                    changes.append(FileChange(Kind.DELETED, at))
            return self.apply(changes)

    # -- changes -----------------------------------------------------------------------------

    def apply(self, changes: Iterable[FileChange]) -> FolderUpdate:
        """Apply a batch of file changes, as the watcher reports them."""
        out = FolderUpdate()
        with self._lock:
            for change in changes:
                path = _abs(change.path)
                if change.kind is Kind.DELETED or not os.path.lexists(path):
                    self._forget_under(path, out)
                elif path.is_dir():
                    self._rescan(path, out)
                else:
                    self._refresh_file(path, out)
            self._pair_renames(out)
        return out

    def in_progress(self) -> bool:
        """Whether some followed stream may still be being written (so :meth:`settle` may judge
        it). Asked from the UI thread: it never waits for the lock a worker holds (busy: say
        yes, and let the settling worker wait for it)."""
        if not self._lock.acquire(blocking=False):
            return True
        try:
            return any(
                live.trace is not None and live.trace.in_progress for live in self._live.values()
            )
        finally:
            self._lock.release()

    def settle(self) -> FolderUpdate:
        """Re-judge streams that stopped growing without ``[DONE]`` once they are quiet."""
        out = FolderUpdate()
        with self._lock:
            for address, live in list(self._live.items()):
                trace = live.trace
                if trace is None or not trace.in_progress:
                    continue
                update = live.update()
                if update.gone is not None:
                    self._gone(address, update.gone, out)
                elif update.changed and update.trace is not None:
                    out.updated.append(update.trace)
        return out

    # -- internals ---------------------------------------------------------------------------

    def _address(self, path: Path) -> str | None:
        """The address ``path`` has under the roots (None: outside every root)."""
        for given, root in self.roots:
            if path == root:
                return given if not root.is_dir() else None
            try:
                rel = path.relative_to(root)
            except ValueError:
                continue
            if any(is_ignored_name(part) for part in rel.parts):
                return None
            return self._prefix[root] + rel.as_posix()
        return None

    def _forget_under(self, path: Path, out: FolderUpdate) -> None:
        gone = str(path)
        below = gone.rstrip(os.sep) + os.sep
        for address, at in list(self.known.items()):
            if at == gone or at.startswith(below):
                self._drop(address, out)
        for key in list(self.skipped):
            skipped_at = self._skipped_path(key)
            if skipped_at is not None and (skipped_at == path or path in skipped_at.parents):
                del self.skipped[key]
                out.unskipped.append(key)

    def _skipped_path(self, key: str) -> Path | None:
        file_part, number = entry_of(key)
        if number is not None:  # a HAR entry skipped (its body lost): the file it is in
            key = file_part
        for given, root in self.roots:
            if key == given:
                return root
            prefix = self._prefix[root]
            if (root in self._folders or root.is_dir()) and key.startswith(prefix):
                return root / key[len(prefix) :].rstrip("/")
        return None

    def _pair_renames(self, out: FolderUpdate) -> None:
        """A trace removed and one added in the same batch, same file (device and inode):
        a rename, which the list shows as the trace moving, not as one dying."""
        gone = self._dropped
        self._dropped = {}
        if not gone or not out.added:
            return
        for trace in list(out.added):
            live = self._live.get(trace.address)
            old = gone.get(live.inode) if live is not None and live.inode else None
            if old is not None and old in out.removed:
                out.removed.remove(old)
                out.added.remove(trace)
                out.renamed.append((old, trace))

    def _drop(self, address: str, out: FolderUpdate) -> None:
        path = self.known.pop(address, None)
        if path is not None and path in self._entries:
            self._entries[path].discard(address)
        live = self._live.pop(address, None)
        if live is not None and live.inode is not None:
            self._dropped[live.inode] = address
        self._reported.discard(address)
        out.removed.append(address)

    def _gone(self, address: str, reason: str, out: FolderUpdate) -> None:
        if address not in self._reported:
            self._reported.add(address)
            out.problems.append(f"{address}: {reason}")
        self._drop(address, out)

    def _rescan(self, folder: Path, out: FolderUpdate) -> None:
        at = self._address(folder)
        root_match = any(folder == root for _, root in self.roots)
        if at is None and not root_match:
            return
        prefix = self._prefix.get(folder, "") if root_match else f"{at}/"
        found = discover([folder])
        seen: set[str] = set()
        for source in found.sources:
            address = prefix + source.address
            source = Source(source.path, address, source.form, source.entry, source.sidecar)
            seen.add(address)
            self._take(source, out)
        for skipped in found.skipped:
            key = prefix + skipped.path
            self._skip(Skipped(key, skipped.reason, skipped.line), out)
        # Traces that were under this folder and are not any more.
        below = str(folder).rstrip(os.sep) + os.sep
        for address, at in list(self.known.items()):
            if at.startswith(below) and address not in seen:
                self._drop(address, out)

    def _refresh_file(self, path: Path, out: FolderUpdate) -> None:
        address = self._address(path)
        if address is None:
            return
        found = Discovery()
        classify(path, address, found)
        fresh = {s.address for s in found.sources}
        had = set(self._entries.get(str(path), ()))
        if address in self.known:
            had.add(address)
        for old in sorted(had - fresh):
            self._drop(old, out)  # a HAR entry gone, or the file is no longer a trace
        if found.sources and address in self.skipped:
            del self.skipped[address]
            out.unskipped.append(address)
        for skipped in found.skipped:
            self._skip(skipped, out)
        for source in found.sources:
            self._take(source, out)

    def _skip(self, skipped: Skipped, out: FolderUpdate) -> None:
        before = self.skipped.get(skipped.path)
        if before is None or before.reason != skipped.reason:
            self.skipped[skipped.path] = skipped
            out.skipped.append(skipped)

    def _take(self, source: Source, out: FolderUpdate) -> None:
        address = source.address
        known = address in self.known
        self._know(address, str(_abs(source.path)), source.entry is not None)
        if source.form is Form.HAR:
            trace = load_trace(source)
        else:
            live = self._live.get(address)
            if live is None and address in self._loading:
                return  # the app is reading it: it hands it over when read (adopt)
            if live is None or live.source.form is not source.form:
                live = self._live[address] = LiveTrace(source, quiet=self.quiet)
            update = live.update()
            if update.trace is None:
                self._gone(address, update.gone or "vanished while being read", out)
                return
            if not update.changed and known:
                return
            trace = update.trace
        self._reported.discard(address)
        (out.updated if known else out.added).append(trace)
