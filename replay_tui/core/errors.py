"""Locating problems in captures: byte offsets become line and column for people."""

from __future__ import annotations

import re

__all__ = ["line_col", "msgspec_error"]

_BYTE = re.compile(r"\s*\(byte (\d+)\)$")


def line_col(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of byte ``offset`` in ``data`` (LF, CRLF or CR line ends)."""
    offset = max(0, min(offset, len(data)))
    head = data[:offset]
    line = head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1
    start = max(head.rfind(b"\n"), head.rfind(b"\r")) + 1
    column = len(head[start:].decode("utf-8", "replace")) + 1
    return line, column


def msgspec_error(data: bytes, message: str) -> str:
    """Rewrite msgspec's ``(byte N)`` suffix as ``at line L, column C``."""
    if message == "Input data was truncated":
        line, col = line_col(data, len(data))
        return f"not valid JSON: input ends too early at line {line}, column {col}"
    m = _BYTE.search(message)
    text = message.removeprefix("JSON is malformed: ")
    if m is None:
        return f"not valid JSON: {text}"
    line, col = line_col(data, int(m.group(1)))
    return f"not valid JSON at line {line}, column {col}: {text[: m.start() - len(message)]}"
