"""Trace-derived text turned into fixed-width table cells, safely.

Every string that came out of a capture passes through :func:`replay_tui.core.visible.visible`
here before it reaches a Segment, so control characters (ESC, OSC 52, bidi overrides) are shown
as escapes. Nothing here parses markup: cells are plain strings with Rich styles beside them.
"""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len, set_cell_size

from ..core.trace import Trace
from ..core.visible import visible
from ..core.wire import UNSET, describe_value

__all__ = [
    "ValueKind",
    "cell_len",
    "failure_text",
    "finish_text",
    "fit",
    "line_shown",
    "middle_cut",
    "middle_fit",
    "middle_split",
    "show_value",
    "value_kind",
]

ELLIPSIS = "…"
_MEASURED = 4
"""Characters per cell :func:`fit` measures of a long text at most (a character takes one or
two cells; a few, combining marks, none)."""


def fit(text: str, width: int) -> str:
    """``text`` cut (with an ellipsis) or padded to exactly ``width`` cells.

    A text far longer than the cell is measured only as far as it can show: the arguments a
    call had so far, 100 KB of CJK at the end of a long call, were split into graphemes
    whole for each row drawn (80 ms a row; an appended delta took 0.4-0.5 s to show with
    the cursor on the last row)."""
    if width <= 0:
        return ""
    if len(text) > _MEASURED * width + 64:
        return set_cell_size(text[: _MEASURED * width + 64], width - 1) + ELLIPSIS
    length = cell_len(text)
    if length <= width:
        return text + " " * (width - length)
    return set_cell_size(text, width - 1) + ELLIPSIS


def middle_fit(text: str, width: int) -> str:
    """Like :func:`fit`, but cuts the middle: ids differ at both ends."""
    if width <= 0:
        return ""
    length = cell_len(text)
    if length <= width:
        return text + " " * (width - length)
    if width < 5 or not text.isascii():
        return fit(text, width)
    return middle_cut(text, width)


def middle_cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, cut in its middle with "…" when longer: its start
    and its end stay (names differ at their end: ``bedrock-par…term-17.sse``)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    start, end = middle_split(text, width)
    return text[:start] + ELLIPSIS + text[end:]


def middle_split(text: str, width: int) -> tuple[int, int]:
    """Where :func:`middle_cut` cuts ``text`` (longer than ``width`` cells):
    ``text[:start] + "…" + text[end:]`` fits in ``width``, the start getting the odd cell."""
    keep = width - 1
    tail = keep // 2
    start, end = _chars_within(text, keep - tail), len(text) - _chars_within(text[::-1], tail)
    # An escape that stands for an invisible character (``\u202e``) is kept whole or cut
    # whole: ``"call_\u…2eevil"`` would read as text that was never sent.
    around = _escape_around(text, start)
    if around is not None:
        start = around[0]
    around = _escape_around(text, end)
    if around is not None:
        end = around[1]
    return start, end


def _escape_around(text: str, at: int) -> tuple[int, int] | None:
    """The escape (``\\u202e``, ``\\n``, ``\\\\``) ``at`` falls strictly inside, if any: found
    from the backslash before it that starts one (an even run of backslashes before it)."""
    for b in range(at - 1, max(-1, at - 6), -1):
        if text[b] != "\\":
            continue
        k = b
        while k > 0 and text[k - 1] == "\\":
            k -= 1
        if (b - k) % 2:  # the second of an escaped backslash: what it ends is before ``at``
            return None
        m = _ESCAPE.match(text, b)
        return m.span() if m is not None and m.end() > at else None
    return None


_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{4}|[nrt"\\])')


def _chars_within(text: str, cells: int) -> int:
    """How many of ``text``'s first characters fit in ``cells`` cells."""
    used = 0
    for n, char in enumerate(text):
        used += cell_len(char)
        if used > cells:
            return n
    return len(text)


class ValueKind:
    """How a raw identity value reads: the distinction the product is about."""

    ABSENT = "absent"
    NULL = "null"
    EMPTY = "empty"
    STRING = "string"
    OTHER = "other"


def value_kind(value: Any) -> str:
    if value is UNSET:
        return ValueKind.ABSENT
    if value is None:
        return ValueKind.NULL
    if type(value) is str:
        return ValueKind.STRING if value else ValueKind.EMPTY
    return ValueKind.OTHER


def show_value(value: Any) -> str:
    """A raw value as the tables show it: ``absent``, ``null``, ``""``, ``"x"``, ``7``."""
    return visible(describe_value(value))


def _code(code: Any) -> str:
    return visible(code) if isinstance(code, str) and code else show_value(code)


def finish_text(reason: dict[str, Any]) -> str:
    """A finish in a word: ``stop``, ``tool-calls``, ``error CONTENT_FILTER``; an empty
    ``finish_reason`` gives the code ``""``, shown as such (never as nothing)."""
    if reason.get("kind") != "error":
        return visible(str(reason.get("kind")))
    failure = reason.get("failure")
    return "error " + _code(failure.get("code") if isinstance(failure, dict) else None)


def failure_text(failure: dict[str, Any]) -> str:
    """An error finish's ``code: message``, an empty code or stop reason shown as ``""``."""
    message = failure.get("message", "")
    if isinstance(message, str) and message.endswith(": "):  # "model stopped: " + ""
        message += '""'
    return _code(failure.get("code")) + ": " + visible(str(message))


def line_shown(trace: Trace, line: int, sep: str = "") -> str:
    """Line ``line`` of ``trace`` as the screen says it (``sep``: "," groups its thousands):
    "…" while the trace's lines are not counted yet (:attr:`Trace.lines_known`: a first
    screen read from the first call on, its numbers counted from there)."""
    if not trace.lines_known:
        return "…"
    return f"{line:,}" if sep == "," else str(line)
