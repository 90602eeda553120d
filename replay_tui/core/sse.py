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

from dataclasses import dataclass, field

__all__ = ["DONE", "Framing", "Payload", "SseFramer", "frame"]

DONE = b"[DONE]"
_BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class Payload:
    """One dispatched ``data`` payload and where it came from."""

    data: bytes
    """The joined ``data`` lines, exactly as sent (UTF-8 bytes, not yet validated)."""
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

    @property
    def is_done(self) -> bool:
        return self.data == DONE


@dataclass(slots=True)
class Framing:
    """Everything framing learned about a stream, beyond the payloads themselves."""

    payloads: list[Payload] = field(default_factory=list)
    done_line: int | None = None
    """Line of the ``[DONE]`` sentinel, when the stream reached it."""
    lines: int = 0
    """Lines seen so far (a final line without terminator counts once closed)."""
    comments: int = 0
    fields: dict[str, int] = field(default_factory=dict)
    """Counts of fields other than ``data`` (``event``, ``id``, ``retry``, unknown ones)."""
    truncated_line: int | None = None
    """First line of an event left open at end of input (truncation)."""
    bom: bool = False
    closed: bool = False


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
        return self._offset + len(self._pending)

    def feed(self, chunk: bytes) -> list[Payload]:
        """Frame ``chunk`` and return the payloads it completed."""
        if self.framing.closed:
            raise ValueError("framer is closed")
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
        out: list[Payload] = []
        pos = self._split(buf, base, out, final=False)
        self._pending = buf[pos:]
        self._offset = base + pos
        return out

    def close(self) -> list[Payload]:
        """Signal end of input; returns payloads completed by the last bytes, if any."""
        if self.framing.closed:
            return []
        out: list[Payload] = []
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
        return out

    def _split(self, buf: bytes, base: int, out: list[Payload], *, final: bool) -> int:
        """Handle every complete line of ``buf``; return where the unfinished part starts."""
        pos = 0
        n = len(buf)
        find = buf.find
        while pos < n:
            lf = find(b"\n", pos)
            cr = find(b"\r", pos, lf if lf >= 0 else n)
            if cr >= 0:
                if cr + 1 == n and not final:
                    break  # a CR at the end may be the first half of a CRLF
                end = cr
                nxt = cr + 2 if cr + 1 < n and buf[cr + 1] == 0x0A else cr + 1
            elif lf >= 0:
                end = lf
                nxt = lf + 1
            else:
                break
            self._line(buf[pos:end], base + pos, base + end, out)
            pos = nxt
        return pos

    def _line(self, line: bytes, start: int, end: int, out: list[Payload]) -> None:
        fr = self.framing
        fr.lines += 1
        lineno = fr.lines
        if not line:
            if self._data:
                data = self._data[0] if len(self._data) == 1 else b"\n".join(self._data)
                after = fr.done_line is not None
                p = Payload(
                    data,
                    self._data_line,
                    self._data_end_line,
                    self._data_start,
                    self._data_end,
                    self._event,
                    after,
                )
                out.append(p)
                fr.payloads.append(p)
                if not after and data == DONE:
                    fr.done_line = self._data_line
                self._data = []
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


def frame(body: bytes) -> Framing:
    """Frame a whole SSE body at once."""
    framer = SseFramer()
    framer.feed(body)
    framer.close()
    return framer.framing
