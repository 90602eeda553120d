"""``curl -i`` captures: an HTTP status line and headers, a blank line, then the SSE body."""

from __future__ import annotations

import re

import msgspec

__all__ = ["HttpHead", "looks_like_http", "may_start_head", "parse_head"]

_STATUS = re.compile(rb"HTTP/(?:1\.[01]|2(?:\.0)?|3) (\d{3})(?: ([^\r\n]*))?")


_STATUS_START = re.compile(rb"(?:H(?:T(?:T(?:P(?:/(?:[0-9.]{1,3}(?: [0-9]{0,2})?)?)?)?)?)?)?")


def may_start_head(data: bytes) -> bool:
    """Whether ``data`` (what follows a head so far) could still grow into a status line.

    curl -i prints a head per response (``100 Continue``, redirects), so the bytes after a
    head's blank line are a body only once they cannot be the start of another head.
    """
    return _STATUS_START.fullmatch(data) is not None


def looks_like_http(data: bytes) -> bool:
    """Whether ``data`` starts with an HTTP response status line."""
    return _STATUS.match(data.removeprefix(b"\xef\xbb\xbf")) is not None


class HttpHead(msgspec.Struct):
    """The response head of a ``curl -i`` capture."""

    status: int
    reason: str
    version: str
    headers: list[tuple[str, str]] = msgspec.field(default_factory=list)
    body_offset: int = 0
    """Byte offset where the body starts."""
    body_line: int = 0
    """Lines before the body (the body's first line is ``body_line + 1``)."""
    interim: list[int] = msgspec.field(default_factory=list)
    """Status codes of interim responses curl printed first (``100 Continue``, redirects)."""
    complete: bool = True
    """False when the capture ends inside the headers."""

    def header(self, name: str) -> str | None:
        lname = name.lower()
        for key, value in self.headers:
            if key.lower() == lname:
                return value
        return None


def parse_head(data: bytes) -> HttpHead:
    """Parse the status line(s) and headers; the body is whatever follows the blank line.

    curl prints one head per response it saw (``100 Continue``, redirects with ``-L``); the
    last one is the response whose body follows.
    """
    pos = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    line_no = 0
    head: HttpHead | None = None
    while True:
        m = _STATUS.match(data, pos)
        if m is None:
            break
        if head is not None:
            head.interim.append(head.status)
        interim = head.interim if head is not None else []
        version = data[pos + 5 : data.index(b" ", pos)].decode("ascii", "replace")
        head = HttpHead(
            int(m.group(1)),
            (m.group(2) or b"").decode("latin-1").strip(),
            version,
            interim=interim,
        )
        pos, line_no = _next_line(data, m.end(), line_no)
        while pos < len(data):
            end, nxt = _line_end(data, pos)
            line = data[pos:end]
            pos, line_no = nxt, line_no + 1
            if not line:
                break
            name, _, value = line.partition(b":")
            head.headers.append((name.decode("latin-1").strip(), value.decode("latin-1").strip()))
        else:
            head.complete = False
        head.body_offset, head.body_line = pos, line_no
    assert head is not None, "parse_head needs a capture that looks_like_http"
    return head


def _line_end(data: bytes, pos: int) -> tuple[int, int]:
    lf = data.find(b"\n", pos)
    if lf < 0:
        return len(data), len(data)
    end = lf - 1 if lf > pos and data[lf - 1] == 0x0D else lf
    return end, lf + 1


def _next_line(data: bytes, pos: int, line_no: int) -> tuple[int, int]:
    _, nxt = _line_end(data, pos)
    return nxt, line_no + 1
