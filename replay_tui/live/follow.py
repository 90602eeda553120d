"""Following one capture as it changes: appended bytes are framed, decoded and analysed once.

A capture still being written grows at its end. :class:`LiveTrace` remembers how far it has
read, and on each :meth:`~LiveTrace.update` frames, decodes and analyses only what was
appended, carrying framing and translator state forward, so tailing a 100,000-delta capture
costs what was appended, not the file. A file truncated, rewritten in place or replaced by a
rename is noticed (size, inode, a fingerprint of what was read) and read again from the start.
A file that vanishes or cannot be read is reported, once, as such.

Whether a stream without ``[DONE]`` is *still being written* or *broken* is a question of
time: it is "in progress" while it changed within ``quiet`` seconds, and judged as ended
(``stream-closed``) after that, or as soon as its recorder's sidecar says the recording
finished (the upstream cut it, the recorder stopped): the builder is closed then, so
nothing is decoded twice; a stream that starts growing again after being judged is read
again from the start (closing flushed its last line, which cannot be undone).
"""

from __future__ import annotations

import os
import time

import msgspec

from ..core.trace import Form, Source, Trace, TraceBuilder, read_sidecar

__all__ = ["LiveTrace", "Update"]

_PRINT = 4096  # bytes of the file's head that fingerprint it
_TAIL = 256  # bytes before the read offset that must still be there


class Update(msgspec.Struct):
    """What one look at the file found."""

    trace: Trace | None
    """The trace as it now stands (None: the file is gone or unreadable)."""
    changed: bool = False
    """Whether anything changed since the last look (the list needs the new trace)."""
    appended: int = 0
    """Bytes read by this update."""
    reloaded: bool = False
    """Read again from the start: truncated, rewritten, replaced, or back after vanishing."""
    settled: bool = False
    """Nothing was written, but the quiet period passed: now judged as ended."""
    gone: str | None = None
    """Why the file is gone or unreadable, the first time that is noticed."""


class LiveTrace:
    """One trace file, followed. Not for HAR entries (a HAR is read whole when it changes)."""

    def __init__(
        self, source: Source, *, quiet: float = 5.0, written_before: float | None = None
    ) -> None:
        """``written_before`` (wall-clock seconds): a file last written before then is judged as
        ended at its first read, however recent — what was in a folder when it was opened is
        done (a fresh clone's files are all a second old), unless its recorder's sidecar says
        it is still recording."""
        if source.form is Form.HAR:
            raise ValueError("HAR files are re-read whole, not followed")
        self.source = source
        self.quiet = quiet
        side = source.sidecar
        recording = side is not None and side.get("complete") is False and not side.get("finished")
        self._written_before = None if recording else written_before
        self._recording = recording
        """Its recorder's sidecar said it was being recorded: once it says the recording
        finished, the stream is judged as ended at once, not after a quiet period."""
        self._builder = TraceBuilder(source)
        self._offset = 0
        self._inode: tuple[int, int] | None = None
        self._head = b""
        self._tail = b""
        self._changed_at = 0.0
        self._settled = False
        self.trace: Trace | None = None
        self.gone: str | None = None

    @property
    def inode(self) -> tuple[int, int] | None:
        """``(device, inode)`` of the file as last read (None: not read, or gone)."""
        return self._inode

    @property
    def offset(self) -> int:
        """Bytes of the file read so far."""
        return self._offset

    def update(self, now: float | None = None) -> Update:
        """Read what changed since the last update and return the trace as it now stands."""
        now = time.monotonic() if now is None else now
        reloaded = False
        try:
            with self.source.path.open("rb") as fh:
                st = os.fstat(fh.fileno())
                inode = (st.st_dev, st.st_ino)
                if self._needs_reload(fh, st.st_size, inode):
                    self._reset()
                    reloaded = True
                self._inode = inode
                if st.st_size > self._offset and self._settled:
                    self._reset()  # grows again after being judged as ended: start over
                    reloaded = True
                if st.st_size > self._offset:
                    fh.seek(self._offset)
                    data = fh.read(st.st_size - self._offset)
                else:
                    data = b""
        except OSError as exc:
            return self._lost(exc.strerror or str(exc))
        if self.gone is not None:
            self.gone = None
            reloaded = True
        settled = False
        if data:
            self._take(data)
            # How long ago the file was written, by its mtime: a capture that was already
            # old when first read is judged at once, not after a quiet period.
            self._changed_at = now - max(0.0, time.time() - st.st_mtime)
            before = self._written_before
            if self.trace is None and before is not None and st.st_mtime < before:
                self._changed_at = now - self.quiet
        elif not reloaded and self.trace is not None:
            if not self._due_to_settle(now):
                return Update(self.trace)
            settled = True
        self.trace = self._build(now, ended=settled)
        return Update(
            self.trace, changed=True, appended=len(data), reloaded=reloaded, settled=settled
        )

    def adopt(
        self, builder: TraceBuilder, data: bytes | bytearray, now: float | None = None
    ) -> Trace:
        """Follow on from ``builder``, fed (not closed) the file's first ``len(data)`` bytes,
        ``data``, by someone else (the TUI's loader): what is appended next is all the next
        :meth:`update` reads. Returns the trace as it now stands (judged as ended when the
        file was written longer than ``quiet`` ago)."""
        now = time.monotonic() if now is None else now
        self._reset()
        self._builder = builder
        self._head = bytes(data[:_PRINT])
        self._tail = bytes(data[-_TAIL:])
        self._offset = len(data)
        try:
            st = os.stat(self.source.path)
        except OSError:
            st = None  # the next update says it is gone
        if st is not None:
            self._inode = (st.st_dev, st.st_ino)
            self._changed_at = now - max(0.0, time.time() - st.st_mtime)
            before = self._written_before
            if before is not None and st.st_mtime < before:
                self._changed_at = now - self.quiet
        self.trace = self._build(now)
        return self.trace

    def _due_to_settle(self, now: float) -> bool:
        trace = self.trace
        if trace is None or not trace.in_progress or self._settled:
            return False
        return now - self._changed_at >= self.quiet or self._recording_finished()

    def _recording_finished(self) -> bool:
        """The recorder has finished this capture (cut by the upstream, stopped): it will
        not grow again, whatever time says."""
        if not self._recording:
            return False
        side = read_sidecar(self.source.path)
        if side is not None and side.get("finished"):
            self._recording = False
            return True
        return False

    def _needs_reload(self, fh: object, size: int, inode: tuple[int, int]) -> bool:
        if self._offset == 0:
            return False
        if inode != self._inode or size < self._offset:
            return True  # replaced (a rename over it) or truncated
        assert hasattr(fh, "seek") and hasattr(fh, "read")
        fh.seek(0)
        if fh.read(len(self._head)) != self._head:
            return True
        fh.seek(self._offset - len(self._tail))
        return bool(fh.read(len(self._tail)) != self._tail)

    def _reset(self) -> None:
        self._builder = TraceBuilder(self.source)
        self._offset = 0
        self._head = b""
        self._tail = b""
        self._settled = False

    def _take(self, data: bytes) -> None:
        if len(self._head) < _PRINT:
            self._head = self._head + data[: _PRINT - len(self._head)]
        self._tail = (self._tail + data)[-_TAIL:]
        self._offset += len(data)
        self._builder.feed(data)

    def _build(self, now: float, *, ended: bool = False) -> Trace:
        """The trace as read; a stream quiet for ``quiet`` seconds (or ``ended``: its recording
        finished) is judged as ended."""
        trace = self._builder.build()
        if trace.in_progress and (ended or now - self._changed_at >= self.quiet):
            self._settled = True
            self._builder.close()
            trace = self._builder.build()
        return trace

    def _lost(self, reason: str) -> Update:
        first = self.gone is None
        self.gone = reason
        self._reset()
        self._inode = None
        self.trace = None
        return Update(None, changed=first, gone=reason if first else None)
