"""Spec-strict SSE framing: bytes in, payloads with their origin out.

The harness reads SSE the way the WHATWG event-stream parser does, so this module does too:
lines end at CRLF, LF or a lone CR; ``:`` starts a comment; ``field: value`` loses one
optional space; ``data`` lines of one event are joined with ``\\n``; an event is dispatched
only by a blank line; an event still open at end of input is truncation, not a payload.

The framer is incremental (``feed`` then ``close``) so that a growing capture can be tailed
at the cost of what was appended, and it tracks 1-based line numbers and byte offsets so that
every payload can be traced back to the capture.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable
from contextlib import suppress
from itertools import accumulate, compress, repeat
from operator import add, contains, itemgetter, ne, not_
from typing import NamedTuple

import msgspec

from .indexed import Indexed

__all__ = [
    "DONE",
    "Framing",
    "Payload",
    "PayloadRun",
    "PayloadTable",
    "SseFramer",
    "expanded",
    "frame",
]

DONE = b"[DONE]"
_BOM = b"\xef\xbb\xbf"
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


class Payload(msgspec.Struct, gc=False):
    """One dispatched ``data`` payload and where it came from.

    The payload's bytes are not copied out of the capture: a payload keeps a reference to the
    buffer it was framed from (for a file read whole, the file's bytes themselves, which the
    trace holds anyway) and :attr:`data` slices them when asked. ``Payload(data, line, ...)``
    still builds a payload from bytes of its own.
    """

    source: bytes
    """The bytes :attr:`data` is cut from (shared by the payloads of one read), or the data."""
    line: int
    """1-based line number of the event's first ``data`` line."""
    end_line: int
    """1-based line number of the event's last ``data`` line."""
    start: int
    """Byte offset of the first ``data`` line."""
    end: int
    """Byte offset just past the last ``data`` line (its line ending excluded)."""
    event: str | None = None
    """The event's ``event:`` field, when it had one (``error`` for Groq's failures)."""
    after_done: bool = False
    """Sent after the ``[DONE]`` sentinel: shown, never replayed."""
    base: int = 0
    """File offset of ``source[0]``."""
    skip: int = -1
    """Bytes before the value on its line (``data:`` and a space); -1: ``source`` is the data."""

    @property
    def data(self) -> bytes:
        """The joined ``data`` lines, exactly as sent (UTF-8 bytes, not yet validated)."""
        if self.skip < 0:
            return self.source
        return self.source[self.start - self.base + self.skip : self.end - self.base]

    @property
    def is_done(self) -> bool:
        return self.data == DONE

    def data_lines(self, capture: bytes | bytearray) -> list[tuple[int, int]]:
        """Each ``data`` line's line number and the characters before its value (``data:`` and
        a space), in order: line ``k`` of :attr:`data` is the ``k``-th. ``capture`` holds the
        bytes :attr:`start` and :attr:`end` count in (what was framed)."""
        raw = capture[self.start : self.end]
        return [
            (self.line + i, 4 if text == b"data" else 6 if text.startswith(b"data: ") else 5)
            for i, text in enumerate(_LINE_BREAK.split(raw))
            if text == b"data" or text.startswith(b"data:")
        ]

    def __eq__(self, other: object) -> bool:
        # Equal payloads carry the same data from the same place, whatever buffer holds it.
        if not isinstance(other, Payload):
            return NotImplemented
        return (
            self.line == other.line
            and self.start == other.start
            and self.end == other.end
            and self.end_line == other.end_line
            and self.event == other.event
            and self.after_done == other.after_done
            and self.data == other.data
        )

    def __repr__(self) -> str:  # never the whole buffer
        return (
            f"Payload(data={self.data!r}, line={self.line}, end_line={self.end_line},"
            f" start={self.start}, end={self.end}, event={self.event!r},"
            f" after_done={self.after_done})"
        )


class PayloadRun:
    """Consecutive single-line ``data:`` events framed at once, held as columns.

    That is how nearly every large capture looks (``data: {...}``, a blank line, again and
    again). The framer cuts such a run out of its buffer with one C-level split and hands it
    over whole (:meth:`SseFramer.feed_runs`) instead of as one :class:`Payload` per event, so
    that a reader that wants the payloads' data in bulk (decoding, ``check``) never makes the
    per-payload objects. :meth:`payloads` makes them, exactly as :meth:`SseFramer.feed` returns
    them.

    Payload ``i`` of the run has data ``datas[i]``; its ``data:`` line is line
    ``line + 2 * i`` (each event is its data line and a blank line) and starts at file offset
    ``starts()[i]``. Index ``done`` is the ``[DONE]`` sentinel (``len(run)`` when the run does
    not reach it); the payloads after it are after ``[DONE]``. Every line of a run ends the
    same way (``newline`` bytes: LF or CR, or CRLF), and every value follows ``skip`` bytes
    (``data: ``, or ``data:`` without the space).

    A run of events that each have more lines before their ``data:`` line (an ``id:``, an
    ``event:``, a comment: the same fields in each) has a ``stride`` of more lines per event,
    each ``data:`` line's offset in ``offsets`` (the lines before it differ in length), and
    the ``event:`` value all its events share in ``event``.
    """

    __slots__ = (
        "base",
        "datas",
        "done",
        "event",
        "line",
        "newline",
        "offsets",
        "skip",
        "source",
        "start",
        "stride",
    )

    def __init__(
        self,
        source: bytes,
        base: int,
        start: int,
        line: int,
        datas: list[bytes],
        done: int,
        newline: int = 1,
        skip: int = 6,
        *,
        stride: int = 2,
        offsets: list[int] | None = None,
        event: str | None = None,
    ) -> None:
        self.source = source
        """The buffer the run was framed from (payloads made by :meth:`payloads` point into
        it)."""
        self.base = base
        """File offset of ``source[0]``."""
        self.start = start
        """File offset of the first ``data:`` line."""
        self.line = line
        """Line of the first ``data:`` line."""
        self.datas = datas
        """Each payload's data, exactly as sent."""
        self.done = done
        self.newline = newline
        """Bytes of each line ending (2: CRLF)."""
        self.skip = skip
        """Bytes before each value on its line (``data: `` or ``data:``)."""
        self.stride = stride
        """Lines per event."""
        self.offsets = offsets
        """Each ``data:`` line's file offset, when the events are not all alike but for
        their data (None: they are, and :meth:`starts` adds up their sizes)."""
        self.event = event
        """The ``event:`` field of every event of the run, when they have one."""

    def __len__(self) -> int:
        return len(self.datas)

    @property
    def lines(self) -> range:
        """The line of each payload."""
        return range(self.line, self.line + self.stride * len(self.datas), self.stride)

    def starts(self) -> list[int]:
        """File offset of each payload's ``data:`` line."""
        if self.offsets is not None:
            return self.offsets
        # Each event is "data: ", its data and two line endings: 8 bytes beside the data
        # for LF, 10 for CRLF, 7 for "data:" and LF.
        sizes = map(len, self.datas[:-1])
        beside = self.skip + 2 * self.newline
        return list(accumulate(map(add, sizes, repeat(beside)), initial=self.start))

    def ends(self, starts: list[int]) -> list[int]:
        """File offset just past each payload's data (``starts``: :meth:`starts`)."""
        return list(map(add, map(add, starts, map(len, self.datas)), repeat(self.skip)))

    def end(self, index: int) -> int:
        """File offset just past the data of payload ``index``."""
        if self.offsets is not None:
            return self.offsets[index] + self.skip + len(self.datas[index])
        beside = self.skip + 2 * self.newline
        return self.start + sum(map(len, self.datas[: index + 1])) + beside * index + self.skip

    def payloads(self) -> list[Payload]:
        """The run as the :class:`Payload` objects :meth:`SseFramer.feed` hands out."""
        buf, base, done, skip = self.source, self.base, self.done, self.skip
        lines = self.lines
        starts = self.starts()
        ends = self.ends(starts)
        # Payloads point into buf (after "data: " or "data:"): the data is not copied out.
        out = list(
            map(
                Payload,
                repeat(buf, done),
                lines,
                lines,
                starts,
                ends,
                repeat(self.event),
                repeat(False),
                repeat(base),
                repeat(skip),
            )
        )
        if done < len(self.datas):
            event = self.event
            out.append(Payload(DONE, lines[done], lines[done], starts[done], ends[done], event))
            out += [
                Payload(buf, ln, ln, a, b, event, True, base, skip)
                for ln, a, b in zip(
                    lines[done + 1 :], starts[done + 1 :], ends[done + 1 :], strict=True
                )
            ]
        return out

    def __repr__(self) -> str:
        return f"PayloadRun({len(self)} payloads from line {self.line})"


def expanded(items: list[Payload | PayloadRun]) -> list[Payload]:
    """``items`` with each run replaced by its payloads."""
    out: list[Payload] = []
    for item in items:
        if isinstance(item, PayloadRun):
            out += item.payloads()
        else:
            out.append(item)
    return out


class TableColumns(NamedTuple):
    """:meth:`PayloadTable.columns`: per payload its line, whether it came after ``[DONE]``,
    its SSE event name (by position, when it has one), and where its bytes are: ``raw[start +
    skip : end]`` (``skip`` -1: the payload keeps bytes of its own)."""

    lines: array[int]
    after: bytearray
    events: dict[int, str]
    raw: bytes | bytearray
    start: array[int]
    end: array[int]
    skip: array[int]


class PayloadTable(Indexed[Payload]):
    """A stream's payloads in compact arrays: 40 bytes each instead of a 170-byte object.

    Payload bytes are not stored: they are the capture's own bytes (``raw``, as fed to the
    builder, file offsets) cut out on access; only a payload whose data is not one slice of
    the capture (``data`` lines joined) keeps bytes of its own. The table grows as a live
    capture is appended to; a snapshot (:meth:`view`) sees the payloads it was made with.
    """

    __slots__ = (
        "_after",
        "_count",
        "_end",
        "_end_line",
        "_events",
        "_line",
        "_own",
        "_raw",
        "_skip",
        "_start",
    )

    def __init__(self) -> None:
        self._line: array[int] = array("q")
        self._end_line: array[int] = array("q")
        self._start: array[int] = array("q")
        self._end: array[int] = array("q")
        self._skip: array[int] = array("b")
        self._after = bytearray()
        self._own: dict[int, bytes] = {}
        self._events: dict[int, str] = {}
        self._raw: bytes | bytearray = b""
        self._count = -1  # -1: the live table (everything appended so far)

    def extend(self, payloads: Iterable[Payload]) -> None:
        """Append payloads as a framer handed them out."""
        for p in payloads:
            i = len(self._line)
            self._line.append(p.line)
            self._end_line.append(p.end_line)
            self._start.append(p.start)
            self._end.append(p.end)
            self._after.append(p.after_done)
            if p.skip < 0 or p.start - p.base + p.skip < 0:
                self._skip.append(-1)
                self._own[i] = p.data
            else:
                self._skip.append(p.skip)
            if p.event is not None:
                self._events[i] = p.event

    def extend_run(self, run: PayloadRun) -> None:
        """Append a run's payloads, column by column (as :meth:`extend` of its payloads)."""
        i = len(self._line)
        n = len(run)
        lines = run.lines
        self._line.extend(lines)
        self._end_line.extend(lines)
        starts = run.starts()
        self._start.extend(starts)
        self._end.extend(run.ends(starts))
        self._skip.frombytes(bytes([run.skip]) * n)  # "data: " before each value, in the capture
        if run.event is not None:
            self._events.update(zip(range(i, i + n), repeat(run.event)))
        done = run.done
        if done < n:
            self._skip[i + done] = -1  # the sentinel keeps bytes of its own, as in extend
            self._own[i + done] = DONE
            self._after += bytes(done + 1) + b"\x01" * (n - done - 1)
        else:
            self._after += bytes(n)

    def view(self, raw: bytes | bytearray) -> PayloadTable:
        """A snapshot of the payloads so far, reading their bytes from ``raw``."""
        snap = PayloadTable.__new__(PayloadTable)
        for name in self.__slots__:
            setattr(snap, name, getattr(self, name))
        snap._raw = raw
        snap._count = len(self._line)
        return snap

    def __len__(self) -> int:
        return len(self._line) if self._count < 0 else self._count

    def line(self, index: int) -> int:
        return self._line[index]

    def data(self, index: int) -> bytes:
        """Payload ``index``'s data, exactly as sent."""
        skip = self._skip[index]
        if skip < 0:
            return self._own[index]
        return bytes(self._raw[self._start[index] + skip : self._end[index]])

    def after_done(self, index: int) -> bool:
        return bool(self._after[index])

    def columns(self) -> TableColumns:
        """The table's columns as they are (read, never written: the client-library models
        walk 100,000 payloads without making a payload object for each)."""
        return TableColumns(
            self._line, self._after, self._events, self._raw, self._start, self._end, self._skip
        )

    def _at(self, i: int) -> Payload:
        return Payload(
            self.data(i),
            self._line[i],
            self._end_line[i],
            self._start[i],
            self._end[i],
            self._events.get(i),
            bool(self._after[i]),
        )

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PayloadTable | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content

    def __repr__(self) -> str:
        return f"PayloadTable({len(self)} payloads)"


class Framing(msgspec.Struct):
    """Everything framing learned about a stream, beyond the payloads themselves."""

    payloads: list[Payload] = msgspec.field(default_factory=list)
    """Filled in by :func:`frame` only: a framer hands each payload out once and keeps none."""
    done_line: int | None = None
    """Line of the ``[DONE]`` sentinel, when the stream reached it."""
    lines: int = 0
    """Lines seen so far (a final line without terminator counts once closed)."""
    comments: int = 0
    fields: dict[str, int] = msgspec.field(default_factory=dict)
    """Counts of fields other than ``data`` (``event``, ``id``, ``retry``, unknown ones)."""
    truncated_line: int | None = None
    """First line of an event left open at end of input (truncation)."""
    bom: bool = False
    closed: bool = False


_LONG = 1 << 20
"""A first line longer than this is cut out of its buffer in one copy (a 50 MB string:
splitting then trimming its ``data:`` prefix would hold it three times at once)."""


class SseFramer:
    """Incremental SSE framer.

    ``feed`` accepts arbitrary byte slices (a line or even a CRLF may be split across
    them) and returns the payloads that became complete; ``close`` marks end of input.
    """

    __slots__ = (
        "_data",
        "_data_end",
        "_data_end_line",
        "_data_line",
        "_data_start",
        "_event",
        "_held",
        "_held_bytes",
        "_offset",
        "_pending",
        "_started",
        "framing",
    )

    def __init__(self, line_base: int = 0, offset_base: int = 0) -> None:
        """``line_base``/``offset_base``: lines and bytes that precede the stream in its file
        (the head of a ``curl -i`` capture), so that origins point into the file."""
        self.framing = Framing(lines=line_base)
        self._pending = b""  # bytes of an unfinished line
        self._held: list[bytes] = []  # ... and chunks of it that held no line ending
        self._held_bytes = 0
        self._offset = offset_base  # byte offset of the start of _pending in the file
        self._started = False  # BOM handled
        self._data: list[bytes] = []
        self._data_line = 0
        self._data_end_line = 0
        self._data_start = 0
        self._data_end = 0
        self._event: str | None = None

    @property
    def offset(self) -> int:
        """Bytes consumed so far, including a partial line held back."""
        return self._offset + len(self._pending) + self._held_bytes

    def feed(self, chunk: bytes) -> list[Payload]:
        """Frame ``chunk`` and return the payloads it completed."""
        return expanded(self.feed_runs(chunk))

    def feed_runs(self, chunk: bytes) -> list[Payload | PayloadRun]:
        """:meth:`feed`, with runs of single-line events handed over as :class:`PayloadRun`
        columns rather than one payload each."""
        if self.framing.closed:
            raise ValueError("framer is closed")
        if (
            self._started
            and not self._pending.endswith(b"\r")
            and b"\n" not in chunk
            and b"\r" not in chunk
        ):
            # The middle of a long line (a 50 MB string fed a slice at a time): held, joined
            # once when its end comes, not copied and searched again for every slice.
            self._held.append(chunk)
            self._held_bytes += len(chunk)
            return []
        if self._held:  # a long line ends here: joined with its end in one copy, not two
            self._held.append(chunk)
            chunk = self._joined_held()
        buf = self._pending + chunk if self._pending else chunk
        base = self._offset
        if not self._started:
            if len(buf) < len(_BOM) and _BOM.startswith(buf):
                self._pending = buf
                return []
            self._started = True
            if buf.startswith(_BOM):
                self.framing.bom = True
                buf = buf[len(_BOM) :]
                base += len(_BOM)
        out: list[Payload | PayloadRun] = []
        pos = self._split(buf, base, out, final=False)
        self._pending = buf[pos:]
        self._offset = base + pos
        return out

    def close(self) -> list[Payload]:
        """Signal end of input; returns payloads completed by the last bytes, if any."""
        if self.framing.closed:
            return []
        out: list[Payload | PayloadRun] = []
        self._join_held()
        buf = self._pending
        base = self._offset
        if not self._started:
            self._started = True
            if buf.startswith(_BOM):
                self.framing.bom = True
                buf = buf[len(_BOM) :]
                base += len(_BOM)
        pos = self._split(buf, base, out, final=True)
        if pos < len(buf):  # a last line with no line ending: still a line, never a dispatch
            self._line(buf[pos:], base + pos, base + len(buf), out)
        self._pending = b""
        self._offset = base + len(buf)
        if self._data:
            self.framing.truncated_line = self._data_line
        self.framing.closed = True
        return expanded(out)

    def _join_held(self) -> None:
        if self._held:
            self._pending = self._joined_held()

    def _joined_held(self) -> bytes:
        """What is pending and every held slice, as one ``bytes`` (nothing is held after)."""
        parts = [self._pending, *self._held]
        self._pending = b""
        self._held.clear()
        self._held_bytes = 0
        return b"".join(parts)

    def _split(self, buf: bytes, base: int, out: list[Payload | PayloadRun], *, final: bool) -> int:
        """Handle every complete line of ``buf``; return where the unfinished part starts.

        An event left open by the previous buffer is finished line by line; then runs of
        single-line ``data:`` events are cut out at C speed (:meth:`_uniform`); whatever is
        left is cut at blank lines into events, and an event that is one ``data`` line is
        dispatched right there, anything else goes line by line (:meth:`_blocks`). Events are
        cut at the blank lines of the buffer's own line ending (LF, CRLF, or CR in a buffer
        with no LF: where a blank line cannot be half of a CRLF): a capture of one line ending,
        nearly every one, is framed in bulk whichever it is; where another ending comes, the
        events around it are framed line by line. Behaves exactly as the line loop (the tests
        hold the two to each other); it exists because framing runs over captures with
        hundreds of thousands of events.
        """
        if b"\r" not in buf:
            stop = buf.rfind(b"\n") + 1
            eol = b"\n"
        else:
            stop = _complete(buf, final)
            eol = _ending_at(buf, final)
            if eol == b"\r" and b"\n" in buf:
                eol = b"\n"  # two CRs can be a line and half of a CRLF: cut at LFs instead
        pos = 0
        if self._data or self._event is not None:  # an event begun in an earlier feed
            pos = self._finish_event(buf, base, stop, out)
        if pos < stop:
            pos = self._uniform(buf, base, pos, stop, out, eol)
        if pos < stop:
            self._blocks(buf, base, pos, stop, out, eol)
        return stop

    def _finish_event(
        self, buf: bytes, base: int, stop: int, out: list[Payload | PayloadRun]
    ) -> int:
        """Frame the lines of ``buf[:stop]`` line by line while an event is open; returns
        where that stopped."""
        pos = 0
        n = len(buf)
        # The next LF (stop when there is none) is searched again only once passed:
        # searching per line would rescan the rest of a CR-only buffer for every line.
        lf = -1
        while pos < stop and (self._data or self._event is not None):
            if lf < pos:
                lf = buf.find(b"\n", pos, stop)
                if lf < 0:
                    lf = stop
            cr = buf.find(b"\r", pos, lf)
            if cr >= 0:
                end = cr
                nxt = cr + 2 if cr + 1 < n and buf[cr + 1] == 0x0A else cr + 1
            else:
                end = lf
                nxt = lf + 1
            self._line(buf[pos:end], base + pos, base + end, out)
            pos = nxt
        return pos

    def _blocks(
        self,
        buf: bytes,
        base: int,
        pos: int,
        stop: int,
        out: list[Payload | PayloadRun],
        eol: bytes = b"\n",
    ) -> None:
        """Frame the complete lines of ``buf[pos:stop]`` (no event open at ``pos``), block
        by block: cut at each blank line of ``eol`` endings; a block that is one ``data``
        line (no line ending of any kind in it) is dispatched at once, any other is framed
        line by line."""
        fr = self.framing
        size = len(eol)
        whole = pos == 0 and stop == len(buf)
        blocks = (buf if whole else buf[pos:stop]).split(eol + eol)
        tail = blocks.pop()  # complete lines after the last blank line
        append = out.append
        start = base + pos
        lineno = fr.lines
        # Payloads after the first [DONE] are kept for display, marked: find it at C speed.
        done_at = len(blocks)
        if fr.done_line is None:
            for sentinel in (b"data: [DONE]", b"data:[DONE]"):
                with suppress(ValueError):  # not there
                    done_at = min(done_at, blocks.index(sentinel))
        else:
            done_at = 0
        for i, block in enumerate(blocks):
            if 10 in block or 13 in block or not block.startswith(b"data:"):
                fr.lines = lineno
                start = self._general_block(block, start, out, eol)
                lineno = fr.lines
                continue
            length = len(block)
            lineno += 2
            ln = lineno - 1
            cut = 6 if block[5:6] == b" " else 5  # "data:" and the optional space
            if i < done_at and fr.done_line is None:  # a multi-line block may have had it
                append(Payload(buf, ln, ln, start, start + length, None, False, base, cut))
            else:
                after = i > done_at or fr.done_line is not None
                append(Payload(buf, ln, ln, start, start + length, None, after, base, cut))
                if not after:
                    fr.done_line = lineno - 1
            start += length + 2 * size
        fr.lines = lineno
        if tail:
            self._lines(tail, start, out)

    def _lines(self, text: bytes, start: int, out: list[Payload | PayloadRun]) -> int:
        """Frame ``text`` (complete lines, the last one ending it) line by line, whatever
        their line endings; returns the offset past them."""
        pos = start
        if 13 not in text or 10 not in text:  # one kind of line ending (nearly always)
            ending = b"\r" if 13 in text else b"\n"
            for line in text.split(ending)[:-1]:
                self._line(line, pos, pos + len(line), out)
                pos += len(line) + 1
            return pos
        parts = _LINE_ENDING.split(text)
        for k in range(0, len(parts) - 1, 2):
            line = parts[k]
            self._line(line, pos, pos + len(line), out)
            pos += len(line) + len(parts[k + 1])
        return pos

    RUN_MIN = 64
    """Events a run must have to be cut out as one (fewer are framed one by one)."""

    def _uniform(
        self,
        buf: bytes,
        base: int,
        pos: int,
        stop: int,
        out: list[Payload | PayloadRun],
        eol: bytes = b"\n",
    ) -> int:
        """Frame the complete events of ``buf[pos:stop]`` (``pos`` starting one), their runs
        of single-line ``data:`` events cut out at C speed; returns where the events left to
        the block path start (``pos`` when none were worth a run).

        Splitting at a blank line (two ``eol``) and ``data: `` (or ``data:``, when the first
        event has no space) gives each event's data directly: a piece with no line ending
        in it is exactly that, a single-line event (its two ``eol`` are then the only line
        endings between it and the next). The others (an event with more lines, other events
        before the next ``data:``, another line ending, the other spelling) are framed line
        by line, and the runs between them as runs.
        """
        fr = self.framing
        if self._data or self._event is not None or fr.done_line is not None:
            return pos
        size = len(eol)
        blank = eol + eol
        if not buf.startswith(b"data:", pos):
            after = self._fielded(buf, base, pos, stop, out, eol)
            if after > pos:  # events of a field line and a data line each
                return self._uniform(buf, base, after, stop, out, eol)
            # odd events first (a gateway's comment)
            head = buf.find(blank + b"data:", pos, stop)
            if head < 0:
                return pos
            self._blocks(buf, base, pos, head + 2 * size, out, eol)
            return self._uniform(buf, base, head + 2 * size, stop, out, eol)
        prefix = b"data: " if buf.startswith(b"data: ", pos) else b"data:"
        end = buf.rfind(blank, pos, stop)  # the blank line ending the last event
        if end < 0:
            return pos
        skip = len(prefix)
        sep = blank + prefix
        # The first event's end: its line's end (a byte search), nearly always where it is.
        first_end = buf.find(eol, pos, end)
        if first_end < 0 or not buf.startswith(sep, first_end):
            first_end = buf.find(sep, pos, end)
            if first_end < 0:
                first_end = end
        if first_end - pos > _LONG:  # (a 50 MB string: cut out once, not copied twice)
            datas = [buf[pos + skip : first_end]]
            if first_end < end:
                datas += buf[first_end + len(sep) : end].split(sep)
        elif pos == 0 and end == len(buf) - 2 * size:  # the whole buffer: split it, copy nothing
            datas = buf.split(sep)
            datas[0] = datas[0][skip:]
            datas[-1] = datas[-1][: -2 * size]
        else:
            datas = buf[pos + skip : end].split(sep)
        n = len(datas)
        if n < self.RUN_MIN:
            return pos
        # The pieces that are not one line: a line ending in them (an LF; a CR too, unless
        # the buffer has none), or, spelled "data:", a space that was the other spelling's.
        every = range(n)
        odd = set(compress(every, map(contains, datas, repeat(10))))
        if eol != b"\n" or b"\r" in buf:
            odd.update(compress(every, map(contains, datas, repeat(13))))
        if skip == 5:
            odd.update(compress(every, map(bytes.startswith, datas, repeat(b" "))))
        at = pos
        first = 0  # the first piece of the run so far
        for i in sorted(odd):
            at = self._run(buf, base, at, datas[first:i], out, eol, skip)
            after = at + skip + len(datas[i]) + 2 * size  # the prefix, the piece, a blank line
            self._blocks(buf, base, at, after, out, eol)
            at = after
            first = i + 1
        return self._run(buf, base, at, datas[first:] if first else datas, out, eol, skip)

    def _fielded(
        self,
        buf: bytes,
        base: int,
        pos: int,
        stop: int,
        out: list[Payload | PayloadRun],
        eol: bytes,
    ) -> int:
        """Frame the complete events of ``buf[pos:stop]`` as :meth:`_uniform` does, where
        each is some field lines and then one ``data:`` line (``id: 7``, or ``event: message``
        and ``id: 7``, or a comment: the same fields in the same order in every event; an
        ``event:`` the same value too): the runs of them cut out at C speed, as
        :class:`PayloadRun` columns with a stride of that many lines, the data line and a
        blank line. Returns where the events left start (``pos`` when these were not such
        events).

        Splitting at a line ending and ``data:`` gives each event's value followed by a blank
        line and the next event's field lines; a value with no line ending in it and field
        lines cut where the first event's were are exactly that. The events that are not
        (another line, another field, a keep-alive between) are framed line by line, the runs
        between them as runs.
        """
        fr = self.framing
        size = len(eol)
        blank = eol + eol
        head_end = buf.find(eol + b"data:", pos, stop)  # the first event's lines before data
        if head_end <= pos:
            return pos
        first = buf[pos:head_end]
        heads = first.split(eol)
        k = len(heads)
        names: list[bytes | None] = []  # each line's field (None: a comment)
        for line in heads:
            if not line or 10 in line or 13 in line:
                return pos
            if line[0] == 0x3A:
                names.append(None)
                continue
            colon = line.find(b":")
            if colon < 0 or line[:colon] == b"data":
                return pos
            names.append(line[:colon])
        at = head_end + size
        prefix = b"data: " if buf.startswith(b"data: ", at) else b"data:"
        end = buf.rfind(blank, at, stop)  # the blank line ending the last event
        if end < 0:
            return pos
        sep = eol + prefix
        pieces = buf[pos:end].split(sep)
        n = len(pieces) - 1
        if n < self.RUN_MIN:
            return pos
        parts = list(map(bytes.partition, pieces[1:-1], repeat(blank)))
        values = list(map(itemgetter(0), parts))
        values.append(pieces[-1])
        fields = list(map(itemgetter(2), parts))
        fields.insert(0, first)  # fields[i]: the lines before values[i]
        # The events that are not these field lines and one data line.
        every = range(n)
        odd = set(compress(every, map(contains, values, repeat(10))))
        odd.update(compress(every, map(contains, values, repeat(13))))
        if len(prefix) == 5:
            odd.update(compress(every, map(bytes.startswith, values, repeat(b" "))))
        for byte in (10, 13):  # no line ending but the k - 1 between the field lines
            expected = k - 1 if byte in eol else 0
            odd.update(
                compress(every, map(ne, map(bytes.count, fields, repeat(byte)), repeat(expected)))
            )
        if k == 1:
            columns = [fields]
        else:
            for i in odd:
                fields[i] = first  # (odd already: a stand-in with k lines to cut)
            cut = list(map(bytes.split, fields, repeat(eol)))
            odd.update(compress(every, map(ne, map(len, cut), repeat(k))))
            columns = [list(map(itemgetter(j), cut)) for j in range(k)]
        event: str | None = None
        for line, field, column in zip(heads, names, columns, strict=True):
            start = b":" if field is None else field + b":"
            odd.update(compress(every, map(not_, map(bytes.startswith, column, repeat(start)))))
            if field == b"event":  # the same name in each event: the run's
                odd.update(compress(every, map(ne, column, repeat(line))))
                value = line[6:]
                event = (value[1:] if value[:1] == b" " else value).decode("utf-8", "replace")
        # A piece with no blank line in it ended no event there (the value went on into
        # more data lines): that event is framed with the next, until one does.
        found = list(map(bool, map(itemgetter(1), parts)))
        found.append(True)  # the last event ends at the blank line found above
        odd.update(compress(every, map(not_, found)))
        if 0 in odd:  # not these events (a comment, then single-line events): not this path
            return pos
        # Piece k starts at starts[k]; event i's data line at starts[i + 1] - len(prefix),
        # and the event ends (its blank line too) at its boundary.
        starts: list[int] = list(
            accumulate(map(add, map(len, pieces), repeat(len(sep))), initial=pos)
        )

        def boundary(i: int) -> int:
            return starts[i + 1] + len(values[i]) + 2 * size

        keys = [None if f is None else f.decode("utf-8", "replace") for f in names]
        stride = k + 2  # the field lines, the data line, a blank line
        begin = pos  # where the first event not yet framed starts
        a = 0  # ... and its index
        for b in [*sorted(odd), n]:
            if b < a:
                continue  # framed with an odd one before it
            if b - a >= self.RUN_MIN and fr.done_line is None:
                datas = values[a:b]
                count = b - a
                offsets = list(map(add, starts[a + 1 : b + 1], repeat(base - len(prefix))))
                try:
                    done = datas.index(DONE)
                except ValueError:
                    done = count
                lineno = fr.lines
                fr.lines = lineno + stride * count
                if done < count:
                    fr.done_line = lineno + k + 1 + stride * done
                for key in keys:
                    if key is None:
                        fr.comments += count
                    else:
                        fr.fields[key] = fr.fields.get(key, 0) + count
                out.append(
                    PayloadRun(
                        buf,
                        base,
                        offsets[0],
                        lineno + k + 1,
                        datas,
                        done,
                        size,
                        len(prefix),
                        stride=stride,
                        offsets=offsets,
                        event=event,
                    )
                )
                begin = boundary(b - 1)
            elif b > a:
                after = boundary(b - 1)
                self._blocks(buf, base, begin, after, out, eol)
                begin = after
            if b == n:
                break
            c = b  # an odd one, line by line, with those after it until an event ends
            while not found[c]:
                c += 1
            after = boundary(c)
            self._blocks(buf, base, begin, after, out, eol)
            begin = after
            a = c + 1
        return begin

    def _run(
        self,
        buf: bytes,
        base: int,
        pos: int,
        datas: list[bytes],
        out: list[Payload | PayloadRun],
        eol: bytes = b"\n",
        skip: int = 6,
    ) -> int:
        """Frame the single-line events at ``pos`` whose data are ``datas`` (each line ending
        ``eol``, ``skip`` bytes of ``data:`` before each value): as one :class:`PayloadRun`
        when there are :data:`RUN_MIN` of them and no ``[DONE]`` came before, else event by
        event. Returns the offset (in ``buf``) past them."""
        n = len(datas)
        size = len(eol)
        after = pos + sum(map(len, datas)) + (skip + 2 * size) * n
        fr = self.framing
        if n < self.RUN_MIN or fr.done_line is not None:
            if n:
                self._blocks(buf, base, pos, after, out, eol)
            return after
        try:
            done = datas.index(DONE)
        except ValueError:
            done = n
        lineno = fr.lines
        fr.lines = lineno + 2 * n
        if done < n:
            fr.done_line = lineno + 1 + 2 * done
        out.append(PayloadRun(buf, base, base + pos, lineno + 1, datas, done, size, skip))
        return after

    def _general_block(
        self, block: bytes, start: int, out: list[Payload | PayloadRun], eol: bytes = b"\n"
    ) -> int:
        """Frame one block that a blank line of ``eol`` endings ended, line by line; returns
        the next offset.

        A block of ``data: `` lines alone (a JSON chunk written over several lines, as
        sse-starlette writes a multi-line data) is one event, its data the lines' values
        joined with ``\\n``: cut at C speed, not a step of Python per line."""
        k = block.count(eol)
        if (
            k
            and not self._data
            and block.startswith(b"data: ")
            and block.count(eol + b"data: ") == k
            and block.count(b"\r") + block.count(b"\n") == k * len(eol)
        ):
            first = self.framing.lines + 1
            self.framing.lines = first + k + 1  # (its lines, and the blank line)
            data = block[6:].replace(eol + b"data: ", b"\n")
            self._dispatch(data, first, first + k, start, start + len(block), out)
            return start + len(block) + 2 * len(eol)
        pos = self._lines(block + eol, start, out)
        self._line(b"", pos, pos, out)
        return pos + len(eol)

    def _dispatch(
        self,
        data: bytes,
        line: int,
        end_line: int,
        start: int,
        end: int,
        out: list[Payload | PayloadRun],
    ) -> None:
        """An event's data, its first and last data lines and their offsets, dispatched: a
        payload (marked when it comes after the first ``[DONE]``, or that one's line kept);
        the event's type is then reset."""
        fr = self.framing
        after = fr.done_line is not None
        out.append(Payload(data, line, end_line, start, end, self._event, after))
        if not after and data == DONE:
            fr.done_line = line
        self._event = None

    def _line(self, line: bytes, start: int, end: int, out: list[Payload | PayloadRun]) -> None:
        fr = self.framing
        fr.lines += 1
        lineno = fr.lines
        if not line:
            if self._data:
                data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
                self._data = []
                self._dispatch(
                    data, self._data_line, self._data_end_line, self._data_start,
                    self._data_end, out,
                )  # fmt: skip
            self._event = None
            return
        if line[0] == 0x3A:  # ':' comment
            fr.comments += 1
            return
        colon = line.find(b":")
        if colon < 0:
            name, value = line, b""
        else:
            name = line[:colon]
            value = line[colon + 1 :]
            if value[:1] == b" ":
                value = value[1:]
        if name == b"data":
            if not self._data:
                self._data_line = lineno
                self._data_start = start
            self._data.append(value)
            self._data_end_line = lineno
            self._data_end = end
            return
        key = name.decode("utf-8", "replace")
        fr.fields[key] = fr.fields.get(key, 0) + 1
        if name == b"event":
            self._event = value.decode("utf-8", "replace")


_LINE_ENDING = re.compile(rb"(\r\n|\r|\n)")


def _complete(buf: bytes, final: bool) -> int:
    """Where the complete lines of ``buf`` end (a CR at the end of a buffer that more may
    follow could be half of a CRLF: its line is not complete yet)."""
    lf = buf.rfind(b"\n")
    cr = buf.rfind(b"\r")
    if cr < lf:
        return lf + 1
    if cr == len(buf) - 1 and not final:
        return max(buf.rfind(b"\n", 0, cr), buf.rfind(b"\r", 0, cr)) + 1
    return cr + 1


def _ending_at(buf: bytes, final: bool) -> bytes:
    """The ending of the first line of ``buf`` that has one (LF when that cannot be told)."""
    lf = buf.find(b"\n")
    cr = buf.find(b"\r", 0, lf if lf >= 0 else len(buf))
    if cr < 0 or (cr + 1 == len(buf) and not final):
        return b"\n"
    return b"\r\n" if buf[cr + 1 : cr + 2] == b"\n" else b"\r"


def frame(body: bytes) -> Framing:
    """Frame a whole SSE body at once (``payloads`` filled in: framers do not keep them)."""
    framer = SseFramer()
    payloads = framer.feed(body)
    payloads += framer.close()
    framer.framing.payloads = payloads
    return framer.framing
