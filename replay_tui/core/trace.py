"""A trace: one captured stream, framed, decoded and analysed, with what is known about it.

:class:`TraceBuilder` takes the stream's bytes in as many pieces as they arrive (a whole file
at once for ``check``, appended slices while live-tailing) and keeps framing, decoding and
analysis state between them, so a growing capture costs what was appended.
"""

from __future__ import annotations

import codecs
import gc
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from .files import read_regular
from .har import HarEntry
from .http import HttpHead, looks_like_http, may_start_head, parse_head
from .identity import Analysis, Analyzer, Note
from .indexed import Indexed
from .jsonl import JsonlFramer
from .sse import Framing, Payload, PayloadRun, PayloadTable, SseFramer
from .translator import Behavior, Chunk
from .wire import Decoded, WireChunk, decode_payload, fast_decoder, json_place

if TYPE_CHECKING:
    from .stream import ChunkStream

__all__ = [
    "Badge",
    "CallsAhead",
    "Form",
    "Source",
    "Trace",
    "TraceBuilder",
    "count_lines",
    "find_calls",
    "in_capture",
    "load_trace",
    "trace_from_event",
    "utf8_error",
]

_BOM = b"\xef\xbb\xbf"


class Form(StrEnum):
    SSE = "sse"
    HTTP = "http"
    JSONL = "jsonl"
    HAR = "har"

    @property
    def label(self) -> str:
        return {
            "sse": "raw SSE body",
            "http": "HTTP response with headers (curl -i)",
            "jsonl": "chunk log (JSONL)",
            "har": "HAR entry",
        }[self.value]


class Badge(StrEnum):
    """What the trace list shows per trace."""

    CLEAN = "clean"
    ERASING = "erasing"
    REFUSED = "refused"
    BROKEN = "broken"
    IN_PROGRESS = "in progress"


class Source(msgspec.Struct):
    """Where a trace comes from."""

    path: Path
    address: str
    """The path relative to the folder it was found under, ``#N`` appended for HAR entries."""
    form: Form
    entry: HarEntry | None = None
    sidecar: dict[str, Any] | None = None
    """A recorder's ``.meta.json`` beside the capture, when there is one."""


class Trace(msgspec.Struct):
    """One stream, as far as it has been read."""

    source: Source
    raw: bytes | bytearray
    """What the raw view shows: the file (or the HAR entry's body), as read so far (a
    growing capture's buffer grows in place: read it up to :attr:`size`)."""
    payloads: Sequence[Payload]
    """Compact (:class:`~.sse.PayloadTable`) for a built trace."""
    decoded: Sequence[Decoded | None]
    """Aligned with ``payloads``; ``None`` for the ``[DONE]`` sentinel."""
    framing: Framing
    analysis: Analysis
    form_notes: list[Note]
    meta: list[tuple[str, str]]
    closed: bool
    head: HttpHead | None = None
    errors: dict[int, str] = msgspec.field(default_factory=dict)
    """Decode problems by line, for showing in place."""
    malformed_lines: frozenset[int] = frozenset()
    """Lines of the payloads in ``errors`` that are not JSON at all."""
    implied_done: bool = False
    """A chunk log without a ``[DONE]`` line: the sentinel is implied at its end."""
    skipped: int = 0
    """Bytes at the start of :attr:`raw` not decoded: a first screen read from the first
    tool call on (:func:`trace_from_event`). Its rows are the stream's, but block numbers,
    text blocks, payload counts and what came before are not known yet: the trace decoded
    from the start replaces it."""
    lines_known: bool = True
    """False: a first screen read from the first tool call on before the lines before it
    were counted (:func:`trace_from_event`): its line numbers count from the event that
    holds the call (1: its first line), not from the capture's start; what shows them says
    they are not known yet."""

    @property
    def address(self) -> str:
        return self.source.address

    def error_text(self, line: int) -> str:
        """The decode problem on ``line`` (one of :attr:`errors`) as it is said to people: a
        payload that is not JSON at all says so first."""
        error = self.errors[line]
        return f"not valid JSON: {error}" if line in self.malformed_lines else error

    @property
    def notes(self) -> list[Note]:
        return self.form_notes + self.analysis.notes

    @property
    def verdicts(self) -> dict[str, str]:
        return self.analysis.verdicts

    @property
    def in_progress(self) -> bool:
        return not self.closed and not self.analysis.done and not self._failed

    @property
    def _failed(self) -> bool:
        return any(o.position is not None for o in self.analysis.outcomes.values())

    @property
    def badge(self) -> Badge:
        a = self.analysis
        if self.in_progress:
            return Badge.IN_PROGRESS
        if a.flags:
            return Badge.ERASING
        accept = a.outcomes[Behavior.ACCEPT_IDENTITY].verdict
        if accept == "malformed-tool-call":
            return Badge.REFUSED
        if any(o.verdict != "ok" for o in a.outcomes.values()):
            return Badge.BROKEN
        return Badge.CLEAN

    def items(self) -> Iterator[tuple[bytes, Decoded | None]]:
        """The replayed part of the stream: payloads up to ``[DONE]``, as replay takes them."""
        for p, d in zip(self.payloads, self.decoded, strict=True):
            if p.after_done:
                return
            yield p.data, d
        if self.implied_done:
            yield b"[DONE]", None

    def replay(self, behavior: Behavior | str) -> ChunkStream:
        """The translator's chunks under ``behavior``, each with its payload's line, read from
        the analysis (nothing is decoded again).

        Chunks emitted because input ended (``STREAM_CLOSED``) have no line (``None``).
        """
        from .stream import ChunkStream  # only here: check never replays, nor imports difflib

        return ChunkStream(self.analysis, behavior)

    def iter_replay(self, behavior: Behavior | str) -> Iterator[tuple[int | None, Chunk]]:
        """:meth:`replay`, one chunk at a time (for streaming output)."""
        return iter(self.replay(behavior))


def _wrapped(decoded: Decoded | WireChunk | None) -> Decoded | None:
    return Decoded(decoded) if type(decoded) is WireChunk else decoded  # type: ignore[return-value]


_WINDOW = 1 << 20
"""Bytes framed at a time: framing splits what it is given, so a whole 500 MB capture would
be split at once, doubling its memory for a moment; windows bound that to a megabyte."""


def _windows(data: bytes) -> Iterator[bytes]:
    """``data`` in slices of about :data:`_WINDOW` bytes, each ending at a blank line when
    there is one (an event boundary: LF, CRLF or CR): the framer then starts each window with
    no line or event left over from the last, so nothing is copied to join them."""
    size = len(data)
    if size <= _WINDOW:
        yield data
        return
    at = 0
    while at < size:
        stop = at + _WINDOW
        if stop < size:
            stop = _blank_before(data, at, stop)
        yield data[at:stop]
        at = stop


_BLANK_LINES = (b"\n\n", b"\r\n\r\n", b"\r\r")
"""A blank line after a line, by line ending (a CR last waits for the next window: it could
be half a CRLF)."""

_LOOK_BACK = 1 << 16
"""Bytes before a window's end searched first for a blank line (events are shorter)."""


def _blank_before(data: bytes, at: int, stop: int) -> int:
    """Just past the last blank line (of any line ending) in ``data[at:stop]``; ``stop``
    when there is none. Searched back from the last line ending (a byte search), its last
    64 KiB first: a blank line of an ending the capture does not use is then looked for in
    64 KiB, not in the whole window."""
    last = max(data.rfind(b"\n", at, stop), data.rfind(b"\r", at, stop)) + 1
    if last <= 0:  # no line ends in the window (the middle of a 50 MB line)
        return stop
    for lower in (max(at, last - _LOOK_BACK), at):
        for blank in _BLANK_LINES:
            end = data.rfind(blank, lower, last)
            if end >= 0:
                return end + len(blank)
        if lower == at:
            break
    return stop


_BATCH = 4096
"""Payloads decoded before the analyzer takes them (and their decoded chunks are freed)."""


class DecodedPayloads(Indexed[Decoded | None]):
    """Each payload as the harness sees it, aligned with ``Trace.payloads``; ``None`` is
    the ``[DONE]`` sentinel.

    Decoded on access (msgspec decodes a chunk in about a microsecond), so keeping a trace open
    does not keep every decoded chunk alive; payloads that are not well-shaped chunks were
    decoded once while loading and are kept.
    """

    __slots__ = ("_payloads", "_unusual")

    def __init__(self, payloads: PayloadTable, unusual: dict[int, Decoded]) -> None:
        self._payloads = payloads
        self._unusual = unusual

    def __len__(self) -> int:
        return len(self._payloads)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DecodedPayloads | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, compared by content

    def _at(self, index: int) -> Decoded | None:
        special = self._unusual.get(index)
        if special is not None:
            return special
        payloads = self._payloads
        return _decoded(payloads.data(index), payloads.after_done(index), fast_decoder())

    def scan(self) -> Iterator[tuple[int, bool, Decoded | None]]:
        """Every payload in order, with whether it came after ``[DONE]``: what reading each
        (``self[i]``) gives, without a copy of its bytes nor a lookup per field (the compare
        view cuts two 100,000-payload captures with it)."""
        unusual = self._unusual
        _, after, _, raw, start, end, skip = self._payloads.columns()
        decode = fast_decoder()
        view = memoryview(raw) if isinstance(raw, bytes) else None  # (a bytearray may grow)
        try:
            for i in range(len(self._payloads)):
                done = bool(after[i])
                special = unusual.get(i)
                if special is not None:
                    yield i, done, special
                    continue
                s = skip[i]
                if s < 0:
                    data: bytes | memoryview = self._payloads.data(i)
                else:
                    lo, hi = start[i] + s, end[i]
                    data = view[lo:hi] if view is not None else bytes(raw[lo:hi])
                yield i, done, _decoded(data, done, decode)
        finally:
            if view is not None:
                view.release()


def _decoded(
    data: bytes | memoryview, after_done: bool, decode: Callable[[Any], Any]
) -> Decoded | None:
    """A payload as :class:`DecodedPayloads` gives it: ``None`` for the ``[DONE]`` sentinel
    (not after one), else decoded by ``decode`` (:func:`.wire.fast_decoder`), or the way
    loading decoded it when that fails."""
    if len(data) == 6 and not after_done and data == b"[DONE]":
        return None
    try:
        return Decoded(decode(data))
    except Exception:  # decoded the same way as while loading
        return decode_payload(bytes(data))


def in_capture(decoded: Decoded, lines: list[tuple[int, int]]) -> Decoded:
    """``decoded``'s malformed place, a line and column of the payload, made one of the
    capture, from each data line's (file line, characters before the value): the message is
    read beside the payload's first line, so there it says ``at column C`` (the capture's
    column), on a later line ``at line L, column C``."""
    message, at = decoded.malformed, decoded.malformed_at
    if message is None or at is None or not 0 < at[0] <= len(lines):
        return decoded
    suffix = json_place(*at)
    if not message.endswith(suffix):
        return decoded
    line, before = lines[at[0] - 1]
    column = before + at[1]
    place = f"column {column}" if line == lines[0][0] else f"line {line}, column {column}"
    return msgspec.structs.replace(decoded, malformed=f"{message[: -len(suffix)]} at {place}")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a capture is decoded.

    Decoding allocates a few small containers per payload and keeps them all; with the
    collector running, its passes over that growing heap cost more than the decoding itself.
    Nothing built here forms reference cycles, so reference counting frees all of it.

    The pauses of every thread are counted: the collector is on again when the last one ends
    (if it was on when the first began). Each thread's own on-and-off turned it back on while
    another thread's pause went on: a trace decoded beside a folder's judging.
    """
    global _pauses, _resume
    with _pause_lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()


_pause_lock = threading.Lock()
_pauses = 0
"""Pauses of :func:`gc_paused` under way, in every thread."""
_resume = False
"""Whether the collector was on when the first of them began."""


class TraceBuilder:
    """Builds a :class:`Trace` from bytes fed in order.

    ``lean``: judge only (``check``): verdicts, flags, notes and metadata; the payloads and
    the per-delta record the views read are not kept, so the trace cannot be replayed.
    ``keep_decoded``: keep every decoded chunk (``Trace.decoded`` is then a plain list).
    Faster for a one-shot command that reads the trace once and exits, since freeing a
    hundred thousand small objects costs as much as decoding them; an open trace in the TUI
    keeps only the analysis and decodes again on demand, to stay small.
    """

    def __init__(
        self,
        source: Source,
        *,
        keep_decoded: bool = False,
        lean: bool = False,
        compact: bool = True,
    ) -> None:
        self.source = source
        self._lean = lean
        self._kept: list[Decoded | None] | None = [] if keep_decoded else None
        self.on_progress: Callable[[int], None] | None = None
        """Called with the file offset reached, every few thousand payloads while decoding
        (a loader's progress bar; it may raise to abandon the load)."""
        self._raw: bytes | bytearray = b""  # the capture as read; grown in place when appended
        self._utf8 = 0
        """Bytes of ``_raw``, from its start, known to be valid UTF-8 and to end at a
        character's end (a snapshot of a capture being written looks at what was appended,
        not at the whole capture again)."""
        self._size = 0
        self._head: HttpHead | None = None
        self._framer: SseFramer | JsonlFramer | None = None
        self._analyzer = Analyzer(record=not lean, compact=compact)
        self._payloads = PayloadTable()
        self._payload_count = 0
        self._unusual: dict[int, Decoded] = {}
        self._errors: dict[int, str] = {}
        self._malformed: set[int] = set()
        self._notes: dict[str, Note] = {}
        self._closed = False
        self._implied_done = False
        self._skipped = 0
        self._lines_known = True
        if source.entry is not None and source.entry.problem:
            self._note("har-body", source.entry.problem, None)
        if source.form is Form.JSONL:
            self._framer = JsonlFramer()
        elif source.form is not Form.HTTP:
            self._framer = SseFramer()

    @property
    def size(self) -> int:
        return self._size

    def raw(self) -> bytes | bytearray:
        """Every byte fed so far."""
        raw = self._raw
        return raw if len(raw) == self._size else raw[: self._size]

    def feed_from(self, whole: bytes, end: int) -> bool:
        """Take the capture's bytes up to ``end`` of ``whole``: the capture read at once,
        starting with every byte fed so far. ``whole`` becomes the raw bytes, as they are (a
        buffer grown a slice at a time holds an eighth more than its bytes, and a huge payload
        is copied out of it to be read, since a view would stop it growing). False, and
        nothing taken, when ``whole`` does not start with the bytes fed so far."""
        if self._raw is not whole:
            with memoryview(self._raw) as view:
                if not whole.startswith(view[: self._size]):
                    return False
            self._raw = whole
        if end > self._size:
            with gc_paused():
                self._feed(whole[self._size : end], kept=True)
        return True

    @property
    def deltas(self) -> int:
        """Tool-call deltas decoded so far (a snapshot's ``analysis.deltas``, none made)."""
        return self._analyzer.deltas

    @property
    def finished(self) -> bool:
        """The replay is over (``[DONE]``, or the harness failed): no later byte changes what
        a snapshot shows but for its notes."""
        return self._analyzer.finished

    def feed(self, data: bytes) -> None:
        """Take the next bytes of the capture."""
        if not data:
            return
        with gc_paused():
            self._feed(data)

    def _feed(self, data: bytes, kept: bool = False) -> None:
        """``kept``: ``data`` is in the raw bytes already (:meth:`feed_from`)."""
        if kept:
            pass
        elif not self._raw:
            self._raw = data  # read whole: the file's own bytes, never copied
        else:
            if isinstance(self._raw, bytes):
                # appended to: copied once (as far as it was fed: feed_from), then grown
                self._raw = bytearray(self.raw())
            self._raw += data
        self._size += len(data)
        if self._framer is None:  # curl -i: wait for the end of the head
            raw = bytes(self.raw())
            if not looks_like_http(raw):
                if len(raw) < 16:
                    return  # too little to tell yet
                self._framer = SseFramer()  # the file no longer starts with a status line
                self._take(self._framer.feed_runs(raw))
                return
            head = parse_head(raw)
            if not head.complete or may_start_head(raw[head.body_offset : head.body_offset + 16]):
                return  # the head goes on, or another (after a 100 Continue) may follow
            self._head = head
            self._framer = SseFramer(line_base=head.body_line, offset_base=head.body_offset)
            data = raw[head.body_offset :]
        framer = self._framer
        feed = framer.feed_runs if isinstance(framer, SseFramer) else framer.feed
        for window in _windows(data):
            framed = feed(window)
            del window  # a slice of a long line is not kept beside its decoded string
            self._take(framed)

    def close(self) -> None:
        """No more bytes will come: frame what is left and judge the stream as it ended."""
        if self._closed:
            return
        self._closed = True
        with gc_paused():
            self._close()

    def _close(self) -> None:
        if self._framer is None:
            raw = bytes(self.raw())  # not framed yet: the head is all there is
            self._head = parse_head(raw) if looks_like_http(raw) else None
            self._framer = SseFramer()
            head = self._head
            if head is None:
                self._take(self._framer.feed_runs(raw))
            elif head.complete:  # the body could have become another head, and did not
                self._framer = SseFramer(line_base=head.body_line, offset_base=head.body_offset)
                self._take(self._framer.feed_runs(raw[head.body_offset :]))
            else:
                self._note(
                    "truncated-head", "the capture ends inside the HTTP headers: no body", None
                )
                self._framer = SseFramer(line_base=head.body_line, offset_base=len(raw))
        self._take(self._framer.close())
        framing = self._framer.framing
        if (
            self.source.form is Form.JSONL
            and framing.done_line is None
            and not self._analyzer.finished
        ):
            self._note(
                "done-implied",
                "the log has no [DONE] line: [DONE] is implied at the end of the file",
                None,
            )
            self._analyzer.payload(framing.lines, None)
            self._implied_done = True
        if framing.truncated_line is not None:
            self._note(
                "truncated-event",
                f"the event starting on line {framing.truncated_line} is not terminated by a"
                " blank line: truncation, not a payload",
                framing.truncated_line,
            )

    def _take(self, items: Sequence[Payload | PayloadRun]) -> None:
        """Decode and analyse newly framed payloads, in order (runs column by column)."""
        single: list[Payload] = []
        for item in items:
            if isinstance(item, PayloadRun):
                if single:
                    self._take_payloads(single)
                    single = []
                self._take_run(item)
            else:
                single.append(item)
        self._take_payloads(single)

    def _take_payloads(self, payloads: list[Payload]) -> None:
        """Decode and analyse newly framed payloads (the per-payload hot loop).

        Decoded chunks are not kept: the analysis keeps what it needs, and the trace decodes a
        payload again when a view asks for it (:class:`DecodedPayloads`), so an open trace
        costs its bytes plus the analysis, not a second, larger copy of itself. Only payloads
        off the fast path are remembered, with what was wrong with them.
        """
        start = self._payload_count
        self._payload_count += len(payloads)
        if not self._lean:
            self._payloads.extend(payloads)
        typed = fast_decoder()
        unusual = self._unusual
        feed = self._analyzer.feed
        kept = self._kept
        batch: list[tuple[int, Decoded | WireChunk | None]] = []
        for i, p in enumerate(payloads, start):
            data = p.data
            if data == b"[DONE]" and not p.after_done:
                batch.append((p.line, None))
                continue
            try:
                decoded: Decoded | WireChunk = typed(data)
            except Exception:  # anything the typed decoder refuses takes the lenient path
                decoded = unusual[i] = self._slow(data, p.line, p)
            batch.append((p.line, decoded))
            if len(batch) >= _BATCH:  # bounded: the decoded chunks of a batch are let go
                feed(batch)
                if kept is not None:
                    kept += [_wrapped(d) for _, d in batch]
                batch = []
                if self.on_progress is not None:
                    self.on_progress(p.end)
        feed(batch)
        if kept is not None:
            kept += [_wrapped(d) for _, d in batch]

    def _take_run(self, run: PayloadRun) -> None:
        """:meth:`_take_payloads` for a run, in bulk: its data decoded :data:`_BATCH` at a time
        by one ``map`` of the typed decoder, with the same results payload for payload."""
        first = self._payload_count
        n = len(run)
        self._payload_count += n
        if not self._lean:
            self._payloads.extend_run(run)
        # The table reads the payloads' bytes from the capture, and the decode below from
        # ``run.datas``: the buffer the run was framed from (a window, or a long line joined
        # whole) is not kept beside its decoded chunks.
        run.source = b""
        feed = self._analyzer.feed
        kept = self._kept
        done = run.done
        lines = run.lines
        for a in range(0, n, _BATCH):
            b = min(a + _BATCH, n)
            if a <= done < b:  # the sentinel: no chunk, the end of the replay
                decoded = self._decode_run(run, first, a, done)
                decoded.append(None)
                decoded += self._decode_run(run, first, done + 1, b)
            else:
                decoded = self._decode_run(run, first, a, b)
            feed(zip(lines[a:b], decoded, strict=True))
            if kept is not None:
                kept += map(_wrapped, decoded)
            if self.on_progress is not None:
                self.on_progress(run.end(b - 1))

    def _decode_run(
        self, run: PayloadRun, first: int, a: int, b: int
    ) -> list[Decoded | WireChunk | None]:
        """Payloads ``a`` to ``b`` of ``run`` (payload ``first`` of the trace is its first),
        decoded as :meth:`_take_payloads` decodes each."""
        datas = run.datas[a:b]
        typed = fast_decoder()
        try:
            return list(map(typed, datas))  # nearly always: every chunk well-shaped
        except Exception:  # some payload is not: decode one by one, to know which
            pass
        out: list[Decoded | WireChunk | None] = []
        for k, data in enumerate(datas, a):
            try:
                out.append(typed(data))
            except Exception:  # anything the typed decoder refuses takes the lenient path
                decoded = self._unusual[first + k] = self._slow(data, run.lines[k], None, run.skip)
                out.append(decoded)
        return out

    def _places(self, payload: Payload | None, line: int, skip: int) -> list[tuple[int, int]]:
        """Where each line of a payload's data is in the capture, as (line, characters before
        it there): for :func:`in_capture`."""
        if payload is None:  # one of a run: a single line, `data: ` (or `data:`, skip 5)
            return [(line, skip)]
        if isinstance(self._framer, JsonlFramer):  # its line, maybe indented or `data:`-led
            raw = self._raw
            head = raw[raw.rfind(b"\n", 0, payload.start) + 1 : payload.start]
            return [(line, len(head.removeprefix(_BOM).decode("utf-8", "replace")))]
        return payload.data_lines(self._raw)

    def _slow(self, data: bytes, line: int, payload: Payload | None, skip: int = 6) -> Decoded:
        """The lenient decode of a payload the typed decoder refused (``payload``: where it
        is; None for one of a run, a single line with ``skip`` bytes before the value)."""
        decoded = decode_payload(data)
        if decoded.malformed is not None:
            decoded = in_capture(decoded, self._places(payload, line, skip))
            assert decoded.malformed is not None  # placed, never dropped
            self._errors[line] = decoded.malformed
            self._malformed.add(line)
        elif decoded.throw is not None:
            self._errors[line] = "the harness cannot walk this chunk: " + decoded.throw
        elif decoded.ignored is not None:
            self._errors[line] = decoded.ignored
        return decoded

    def _note(self, kind: str, message: str, line: int | None) -> None:
        self._notes.setdefault(kind, Note(kind, message, line))

    def build(self) -> Trace:
        """A snapshot of the trace as read so far."""
        framer = self._framer
        framing = framer.framing if framer is not None else Framing()
        notes = list(self._notes.values())
        if isinstance(framer, JsonlFramer) and framer.prefixed:
            notes.append(
                Note(
                    "data-prefix",
                    f"{framer.prefixed} log line(s) carry an SSE 'data:' prefix; it was removed",
                    None,
                )
            )
        # (the capture read at once and fed from, feed_from: the whole of it, as a buffer
        # grown in place holds more than a snapshot taken before it grew)
        raw = self._raw
        table = self._payloads.view(raw)
        # (read from an event on: its lines would be those of what was read; the trace read
        # from the start says where)
        bad = self._invalid_utf8(raw) if not self._skipped else None
        if bad is not None:
            from .errors import line_col

            line, col = line_col(bytes(raw), bad)
            notes.append(
                Note(
                    "invalid-utf8",
                    f"invalid UTF-8 at line {line}, column {col}: decoded with U+FFFD"
                    " replacement characters, as the harness does",
                    line,
                )
            )
        return Trace(
            source=self.source,
            raw=raw,
            payloads=table,
            decoded=(
                list(self._kept)
                if self._kept is not None
                else DecodedPayloads(table, dict(self._unusual))
            ),
            framing=framing,
            analysis=self._analyzer.result(closed=self._closed),
            form_notes=notes,
            meta=self._meta(framing),
            closed=self._closed,
            head=self._head,
            errors=dict(self._errors),
            malformed_lines=frozenset(self._malformed),
            implied_done=self._implied_done,
            skipped=self._skipped,
            lines_known=self._lines_known,
        )

    def _invalid_utf8(self, raw: bytes | bytearray) -> int | None:
        """The byte offset where ``raw`` stops being UTF-8 (None: it is), checked from where
        the last check got to (a snapshot of a capture being written looks at what was
        appended, not at the whole capture again)."""
        if len(raw) > self._size:  # (fed as far as size: feed_from)
            with memoryview(raw) as view:
                bad, self._utf8 = utf8_error(view[: self._size], self._utf8)
            return bad
        bad, self._utf8 = utf8_error(raw, self._utf8)
        return bad

    def _meta(self, framing: Framing) -> list[tuple[str, str]]:
        src = self.source
        meta: list[tuple[str, str]] = [("form", src.form.label), ("file", str(src.path))]
        entry = src.entry
        if entry is not None:
            meta += [
                ("HAR entry", f"#{entry.number}"),
                ("request", f"{entry.method} {entry.url}"),
                ("started", entry.started),
                ("status", f"{entry.status} {entry.status_text}".rstrip()),
                ("content type", entry.mime_type),
            ]
            if entry.model:
                meta.append(("model", entry.model))
            if entry.tools:
                meta.append(("tools", ", ".join(entry.tools)))
        head = self._head
        if head is not None:
            meta.append(("status", f"HTTP/{head.version} {head.status} {head.reason}".rstrip()))
            if head.interim:
                meta.append(("interim responses", ", ".join(map(str, head.interim))))
            meta += [(f"header {k}", v) for k, v in head.headers]
        if src.sidecar is not None:
            meta += _sidecar_meta(src.sidecar)
        meta += [
            ("size", f"{self._size:,} bytes"),
            ("lines", f"{framing.lines:,}" if self._lines_known else "not counted yet"),
            (
                "payloads",
                f"{self._payload_count:,}"
                # (the count of a first screen read from the first call on: those after it)
                + (f" after byte {self._skipped:,}" if self._skipped else ""),
            ),
            ("comments", f"{framing.comments:,}"),
        ]
        for name, count in sorted(framing.fields.items()):
            meta.append((f"field {name}", f"{count:,}"))
        return meta


def _sidecar_meta(side: dict[str, Any]) -> list[tuple[str, str]]:
    """What a recorder sidecar adds: the request, the response head, completeness."""
    out: list[tuple[str, str]] = []
    req = side.get("request")
    if isinstance(req, dict):
        out.append(("request", f"{req.get('method', '')} {req.get('url', '')}".strip()))
        if req.get("model"):
            out.append(("model", str(req["model"])))
        tools = req.get("tools")
        if isinstance(tools, list) and tools:
            out.append(("tools", ", ".join(map(str, tools))))
        headers = req.get("headers")
        if isinstance(headers, dict):
            out += [(f"request header {k}", str(v)) for k, v in headers.items()]
    resp = side.get("response")
    if isinstance(resp, dict):
        out.append(("status", f"{resp.get('status', '')} {resp.get('reason', '')}".strip()))
        headers = resp.get("headers")
        if isinstance(headers, dict):
            out += [(f"header {k}", str(v)) for k, v in headers.items()]
    for key in ("started", "finished"):
        if side.get(key):
            out.append((key, str(side[key])))
    if "complete" in side:
        complete = side.get("complete")
        reason = side.get("incomplete_reason")
        out.append(
            ("recording", "complete" if complete else f"incomplete: {reason or 'still recording'}")
        )
    return out


def utf8_error(raw: bytes | bytearray | memoryview, start: int = 0) -> tuple[int | None, int]:
    """Where ``raw`` stops being UTF-8, as a strict decode of the whole would say (None: it
    is UTF-8, from ``start``, known to be UTF-8 up to a character's end), and how far it is
    known to be UTF-8. Checked a window at a time, each cut before a character's first byte:
    a capture of multi-byte text is never held as one string of up to four times its size."""
    size = len(raw)
    at = start
    if at >= size:
        return None, at
    view = memoryview(raw)
    try:
        while at < size:
            stop = min(at + _WINDOW, size)
            while at < stop < size and raw[stop] & 0xC0 == 0x80:  # (inside a character)
                stop -= 1
            if stop == at:  # (a window shorter than the character at its start)
                stop = at + 1
                while stop < size and stop < at + 4 and raw[stop] & 0xC0 == 0x80:
                    stop += 1
            try:
                codecs.utf_8_decode(view[at:stop], "strict", True)
            except UnicodeDecodeError as exc:
                return at + exc.start, at
            at = stop
    finally:
        view.release()
    return None, at


def load_trace(
    source: Source,
    data: bytes | None = None,
    *,
    keep_decoded: bool = False,
    lean: bool = False,
    compact: bool = True,
) -> Trace:
    """Read (unless ``data`` is given), frame, decode and analyse a whole trace.

    ``keep_decoded``, ``lean``: see :class:`TraceBuilder`; ``compact``: see
    :class:`.identity.Analyzer`. Raises ``OSError`` when the file cannot be read.
    """
    builder = TraceBuilder(source, keep_decoded=keep_decoded, lean=lean, compact=compact)
    if data is None:
        data = source.entry.body if source.entry is not None else read_regular(source.path)
    builder.feed(data)
    builder.close()
    return builder.build()


CALLS_KEY = b'"tool_calls"'
"""The key of a delta's tool calls, as it is in a chunk's JSON. Inside a JSON string its
quotes are escaped: found bare, it is a key (or a string value) of the chunk itself."""
_CALLS = re.compile(re.escape(CALLS_KEY) + rb"[ \t\r\n]*:[ \t\r\n]*\[[ \t\r\n]*\{")
"""The key where it holds a call (not ``null``, nor ``[]``): searched for in one pass (a
gateway that sends ``"tool_calls": null`` beside every text delta has thousands of keys
before its first call)."""
_OVERLAP = 64
"""Bytes of a slice searched again with the next one: a key (and what follows it), a
``[DONE]`` or a CRLF cut between two slices."""


def find_calls(data: bytes | bytearray, start: int = 0) -> int:
    """Where in ``data`` (from ``start``) the first ``"tool_calls"`` key holding a non-empty
    array is (its opening quote), -1 where none is. A byte search: nothing is decoded."""
    at = data.find(CALLS_KEY, start)  # (a text before the calls has no key at all: found
    if at < 0:  # by a plain byte search, several times the regular expression's speed)
        return -1
    found = _CALLS.search(data, at)
    return found.start() if found is not None else -1


class CallsAhead:
    """A capture's first tool call, looked for in its bytes a slice at a time, none of them
    decoded: where the event that holds it starts, and the bytes from there on, for a first
    screen of calls that come after a long text (50,000 text deltas, a 50 MB string):
    :meth:`trace`.

    Each slice is searched while it is at hand and let go once :data:`KEEP` bytes follow it:
    the text before the calls is never held whole. The lines before the event are not
    counted, nor a ``[DONE]`` among them looked for, on the way (two more passes over every
    byte, as long as the search itself: a 20 MB text cost 20 ms more before the first
    frame): :func:`count_lines` does that once the first screen is shown. An SSE body or a
    chunk log (its events are its lines)."""

    STEP = 1 << 20
    """Bytes read at a time by :meth:`read`."""
    KEEP = 1 << 20
    """Bytes kept before the slice being searched: the event holding the key may start in
    them (one longer than that is not skipped to)."""

    def __init__(self, *, jsonl: bool) -> None:
        self.jsonl = jsonl
        self._kept: list[bytes | bytearray] = []  # the last slices
        self._kept_size = 0
        self._offset = 0  # bytes before them, let go
        self._recent = b""  # the last bytes fed
        self.start: int | None = None
        """Where the event that holds the first call starts (None: not found yet)."""
        self.line: int | None = None
        """Lines before :attr:`start`, once counted (:func:`count_lines`); None: not yet."""
        self.tail = bytearray()
        """The capture's bytes from :attr:`start` to the last slice fed."""
        self.unusable = False
        """Found, but not to be skipped to: its event starts where nothing is skipped (the
        capture's start) or before the bytes kept."""

    @property
    def size(self) -> int:
        """Bytes fed."""
        if self.start is not None:
            return self.start + len(self.tail)
        return self._offset + self._kept_size

    def read(
        self, readinto: Callable[[bytearray], int], stop: Callable[[], bool], limit: int
    ) -> bool:
        """Feed the capture's next bytes, read with ``readinto`` (a file's) a :data:`STEP` at
        a time, until the first call is found and a step after it is read, ``stop()``, its
        end, or ``limit`` bytes fed; whether it was found. The slices are read into buffers
        of its own, used again once let go (a process just started pays for each page of
        memory it touches first: a fresh slice each time cost as much as the search)."""
        ring = [bytearray(self.STEP) for _ in range(self.KEEP // self.STEP + 2)]
        turn = 0
        while self.size < limit and not self.unusable and not stop():
            if self.start is not None and len(self.tail) >= self.STEP:
                return True
            buf = ring[turn % len(ring)]
            turn += 1
            n = readinto(buf)
            if not n:
                break
            self.feed(buf if n == len(buf) else buf[:n])
        return self.start is not None

    def feed(self, chunk: bytes | bytearray) -> bool:
        """Take the next slice of the capture (kept, not copied, until :data:`KEEP` bytes
        follow it); whether the first call was found in what was fed (a slice fed after
        that is appended to :attr:`tail`)."""
        if self.start is not None or self.unusable:
            if self.start is not None:
                self.tail += chunk
            return self.start is not None
        if not chunk:
            return False
        before = self._recent
        at = self._offset + self._kept_size  # (where ``chunk`` starts in the capture)
        # A key that begins in the bytes before, cut from what follows it, then the slice.
        key = find_calls(before + chunk[:_OVERLAP]) if before else -1
        key = at - len(before) + key if 0 <= key < len(before) else -1
        if key < 0:
            key = find_calls(chunk)
            key = at + key if key >= 0 else -1
        self._recent = (before + chunk[-_OVERLAP:])[-_OVERLAP:]
        self._kept.append(chunk)
        self._kept_size += len(chunk)
        if key >= 0:
            self._found(key)
            return self.start is not None
        while self._kept_size - len(self._kept[0]) >= self.KEEP:
            self._kept_size -= len(self._kept[0])
            self._offset += len(self._kept.pop(0))
        return False

    def _found(self, key: int) -> None:
        """The key is at ``key`` of the capture: the event that holds it starts after the
        last blank line before it (a chunk log: line ending), in the bytes kept."""
        kept = b"".join(self._kept)
        self._kept.clear()
        self._kept_size = 0
        key -= self._offset
        start = _event_start(kept, key, self.jsonl) if key >= 0 else -1
        if start < 0 or (start == 0 and self._offset == 0):
            self.unusable = True
            return
        self.start = self._offset + start
        self.tail = bytearray(kept[start:])

    def trace(self, source: Source, rows: int) -> Trace | None:
        """The first screen: the capture decoded from the event that holds the first call
        on, until it holds ``rows`` tool-call deltas, the bytes before left undecoded
        (:func:`trace_from_event`). None when the call was not found, or no tool-call delta
        comes (the key was elsewhere than in a delta)."""
        if self.start is None:
            return None
        return trace_from_event(source, self.start, self.line, bytes(self.tail), rows)


def trace_from_event(
    source: Source, start: int, line: int | None, data: bytes, rows: int | None = None
) -> Trace | None:
    """The capture decoded from byte ``start`` on, where an event starts (``data``: its bytes
    from there), until it holds ``rows`` tool-call deltas (None: all of ``data``), the bytes
    before left undecoded (:attr:`Trace.skipped`; its :attr:`Trace.raw` starts at the event).
    Its rows are the stream's: deltas, identities and flags depend on nothing before the
    first call; block numbers and the text before are not known, nor a payload there that
    was not JSON and ended the replay, nor a ``[DONE]`` there (the trace decoded from the
    start says so). ``line``: the lines before ``start``, which its line numbers follow;
    None: not counted yet, its lines are counted from the event on (1: the event's first)
    and :attr:`Trace.lines_known` is False. None when no tool-call delta comes."""
    builder = TraceBuilder(source)
    base = line if line is not None else 0
    builder._framer = JsonlFramer(base) if source.form is Form.JSONL else SseFramer(base)
    builder._skipped = builder._size = start
    builder._lines_known = line is not None
    at = 0
    while at < len(data) and (rows is None or builder.deltas < rows) and not builder.finished:
        builder.feed(data[at : at + _STEP_AHEAD])
        at += _STEP_AHEAD
    if not builder.deltas:
        return None
    return builder.build()


class _LineCount:
    """Lines in a capture's first bytes, and whether a ``[DONE]`` is among them, counted a
    slice at a time: a CRLF, or a ``[DONE]``, may be cut between two."""

    def __init__(self, *, jsonl: bool) -> None:
        self.jsonl = jsonl
        self.lines = 0
        self.done = False
        self._last = b""  # the last bytes counted

    def feed(self, data: bytes | bytearray) -> None:
        """``data``, the bytes after those counted, counted: their lines, and whether a
        ``[DONE]`` is in them (a line of its own: a slice with no line ending, the middle of
        a 50 MB line, holds none, and has no line to count)."""
        last = self._last
        edge = last + data[:_OVERLAP]
        lf = b"\n" in data
        cr = not self.jsonl and b"\r" in data
        if lf:
            self.lines += data.count(b"\n")
        if cr:
            self.lines += data.count(b"\r") - data.count(b"\r\n")
        if not self.jsonl and last.endswith(b"\r") and data[:1] == b"\n":
            self.lines -= 1  # (a CRLF cut in two: counted as a CR and an LF)
        self.done = self.done or ((lf or cr) and b"[DONE]" in data) or b"[DONE]" in edge
        self._last = bytes(last + data[-_OVERLAP:])[-_OVERLAP:]


def count_lines(readinto: Callable[[bytearray], int], end: int, *, jsonl: bool) -> int | None:
    """The lines in a capture's first ``end`` bytes (those before a first screen's event:
    :attr:`Trace.skipped`), read with ``readinto`` (a file's, at its start) a megabyte at a
    time; None when a ``[DONE]`` is among them (the calls after it are not replayed: a first
    screen from them says what is not so), or the capture is shorter than ``end``."""
    counter = _LineCount(jsonl=jsonl)
    buf = bytearray(CallsAhead.STEP)
    done = 0
    while done < end:
        n = readinto(buf)
        if not n:
            return None
        take = min(n, end - done)
        counter.feed(buf if take == len(buf) else buf[:take])
        done += n
        if counter.done:
            return None
    return counter.lines


_STEP_AHEAD = 1 << 14
"""Bytes decoded at a time from the first call on: about a hundred deltas (each step more
costs a few milliseconds before the first frame, where events go line by line)."""


def _event_start(data: bytes | bytearray, at: int, jsonl: bool) -> int:
    """The first byte of the event (a chunk log's line) that byte ``at`` is in: just past
    the last blank line (of any line ending) before it; -1 when there is none."""
    if jsonl:
        return data.rfind(b"\n", 0, at) + 1 or -1
    start = -1
    # The last 64 KiB first: a blank line of an ending the capture does not use is then
    # looked for in them, not in every byte kept.
    for lower in (max(0, at - _LOOK_BACK), 0):
        for blank in _BLANK_LINES:  # (each searched back no further than the last found)
            found = data.rfind(blank, max(start, lower), at)
            if found >= 0:
                end = found + len(blank)
                if blank == b"\r\r" and data[end : end + 1] == b"\n":
                    end += 1  # (a line ended by CR, then a blank line ended by CRLF)
                start = max(start, end)
        if start >= 0:
            break
    return start


def read_sidecar(path: Path) -> dict[str, Any] | None:
    """The recorder sidecar ``<capture>.meta.json`` of ``path``, if it exists and is sane."""
    side = path.with_name(path.name + ".meta.json")
    try:
        value = msgspec.json.decode(read_regular(side))
    except (OSError, msgspec.DecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
