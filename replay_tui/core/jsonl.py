"""Chunk logs (``.jsonl`` / ``.ndjson``): one payload per non-empty line."""

from __future__ import annotations

from .sse import DONE, Framing, Payload

__all__ = ["JsonlFramer"]

_DATA_PREFIX = b"data:"
_SPACE = b" \t\r"


class JsonlFramer:
    """Incremental line splitter with the same interface and output as :class:`SseFramer`.

    A line ``[DONE]`` is the sentinel. Lines that carry an SSE ``data:`` prefix (a log of the
    raw stream rather than of the chunks) lose it, and :attr:`prefixed` counts them.
    """

    def __init__(self, line_base: int = 0, offset_base: int = 0) -> None:
        self.framing = Framing(lines=line_base)
        self._pending = b""
        self._offset = offset_base
        self.prefixed = 0

    @property
    def offset(self) -> int:
        return self._offset + len(self._pending)

    def feed(self, chunk: bytes) -> list[Payload]:
        buf = self._pending + chunk if self._pending else chunk
        out: list[Payload] = []
        pos = 0
        find = buf.find
        while True:
            lf = find(b"\n", pos)
            if lf < 0:
                break
            self._line(buf, pos, lf, out)
            pos = lf + 1
        self._pending = buf[pos:]
        self._offset += pos
        return out

    def close(self) -> list[Payload]:
        out: list[Payload] = []
        if self._pending:
            self._line(self._pending, 0, len(self._pending), out)
            self._offset += len(self._pending)
            self._pending = b""
        self.framing.closed = True
        return out

    def _line(self, buf: bytes, start: int, end: int, out: list[Payload]) -> None:
        fr = self.framing
        fr.lines += 1
        if fr.lines == 1 and buf.startswith(b"\xef\xbb\xbf", start):
            start += 3
            fr.bom = True
        while start < end and buf[start] in _SPACE:
            start += 1
        while end > start and buf[end - 1] in _SPACE:
            end -= 1
        if start == end:
            return
        if buf.startswith(_DATA_PREFIX, start, end):
            self.prefixed += 1
            start += len(_DATA_PREFIX)
            while start < end and buf[start] in _SPACE:  # (a CR or tab too: b"data: \r0")
                start += 1
        after = fr.done_line is not None
        offset = self._offset
        # The payload points into buf (data is buf[start:end]): nothing is copied out.
        p = Payload(buf, fr.lines, fr.lines, offset + start, offset + end, None, after, offset, 0)
        out.append(p)
        if not after and end - start == len(DONE) and buf.startswith(DONE, start):
            fr.done_line = fr.lines
