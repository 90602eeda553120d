"""The raw view: the capture as it is on disk, with line numbers.

Lines are indexed once (their byte offsets), and decoded only when on screen. The selected
delta's lines are highlighted, decode problems and erasing fields are noted under their line
(each its own row: a line can have both), comments are dimmed, and so is every line after
the one that ended the replay (``[DONE]``, or the payload that made the harness fail), each
payload there marked "not replayed"; every character a terminal would act on is shown as an
escape.
"""

from __future__ import annotations

import json
import re
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add, sub
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events, on

from ...core.sse import PayloadTable
from ...core.trace import Trace, gc_paused, utf8_error
from ...core.visible import visible
from ...core.wire import UNSET, describe_value
from ..screens.payload import PayloadScreen
from .line_view import LineView, Row
from .model_view import ModelView

__all__ = ["RawModel", "RawView", "build_raw_model"]

_EOL = re.compile(rb"\r\n|\r|\n")
MAX_WIDTH = 4000
"""Cells of one line shown at most; the rest is summarised (copy takes it all)."""


@dataclass(slots=True)
class RawModel:
    trace: Trace
    index: LineIndex
    """Where each line starts and ends, found as far as a row shown needs (then all of it,
    in a worker after the first screen)."""
    error_lines: list[int] = field(default_factory=list)
    """The line each note row is under, in order: a line with two notes (invalid UTF-8 and
    an erasing field) is in it twice, and has two rows under it."""
    error_rows: list[int] = field(default_factory=list)
    error_kinds: list[str] = field(default_factory=list)
    """What each note row says: ``"problem"`` (``messages``) or ``"erased"`` (``erased``)."""
    messages: dict[int, str] = field(default_factory=dict)
    """The decode problem shown under each line that has one."""
    erasing: dict[int, re.Pattern[str]] = field(default_factory=dict)
    """On each line holding a delta that erased an identity (a flag): what to mark in it, the
    field and the value that erased it (``"id": ""``)."""
    erased: dict[int, str] = field(default_factory=dict)
    """The note shown under each such line: what erased which call's identity, and at which
    column (a long line is cut by the view's width: the note says where to look)."""
    ascii: bool = False
    """Every byte of the capture is ASCII (a line's characters are its bytes)."""
    lengths: dict[int, int] = field(default_factory=dict)
    """The characters of each line longer than a row shows, once counted (:meth:`head`)."""
    width: int = 0
    """Cells of the widest row: of the lines indexed so far (all of them once
    ``index.done``: :meth:`measure` says it again then)."""
    stop: int | None = None
    """The line of the payload that ended the replay: ``[DONE]``, or the one that made the
    harness fail (None: it has not ended, or nothing follows)."""
    stopped_at_done: bool = True
    after_stop: array[int] = field(default_factory=lambda: array("q"))
    """First line of each payload after ``stop`` (sorted): each is marked "not replayed"."""

    @property
    def lines(self) -> int:
        return self.index.count

    @property
    def rows(self) -> int:
        return self.index.count + len(self.error_lines)

    def measure(self) -> None:
        """``width`` again, from the lines indexed so far."""
        gutter = len(str(self.lines)) + 3
        width = min(self.index.longest, MAX_WIDTH) + gutter
        width += max(24, len(self.not_replayed_note()) + 4)
        for message in [*self.messages.values(), *self.erased.values()]:
            width = max(width, len(message) + gutter + 8)
        self.width = width

    def locate(self, row: int) -> tuple[int, bool]:
        """``(line, is_error_row)`` of display row ``row`` (lines are 1-based)."""
        m = bisect_left(self.error_rows, row)
        if m < len(self.error_rows) and self.error_rows[m] == row:
            return self.error_lines[m], True
        return row - m + 1, False

    def note(self, row: int) -> tuple[str, str] | None:
        """``(kind, text)`` of the note on display row ``row`` (None: a line of the capture)."""
        m = bisect_left(self.error_rows, row)
        if m < len(self.error_rows) and self.error_rows[m] == row:
            line, kind = self.error_lines[m], self.error_kinds[m]
            return kind, (self.messages if kind == "problem" else self.erased)[line]
        return None

    def replayed(self, line: int) -> bool:
        """False for every line after the one that ended the replay (the one rule)."""
        return self.stop is None or line <= self.stop

    def payload_after_stop(self, line: int) -> bool:
        """Line ``line`` starts a payload the replay never reached."""
        k = bisect_left(self.after_stop, line)
        return k < len(self.after_stop) and self.after_stop[k] == line

    def not_replayed_note(self) -> str:
        if self.stop is None:
            return ""
        if self.stopped_at_done:
            return "not replayed: after [DONE]"
        return f"not replayed: the replay stopped on line {self.stop:,}"

    def row_of(self, line: int) -> int:
        return line - 1 + bisect_left(self.error_lines, line)

    def _bounds(self, line: int, framed: bool) -> tuple[int, int]:
        """Where line ``line`` starts and ends: from the index (as far as it, indexed on),
        or with ``framed``, for a payload's line the index has not reached, from where the
        framer found the payload (the notes under the lines of flags all over a capture do
        not index all of it)."""
        index = self.index
        if framed and len(index.ends) < line and not index.done:
            found = _framed_line(self.trace, line)
            if found is not None:
                return found
        index.index_to(line)
        return index.bounds(line) if line <= len(index.ends) else (0, 0)

    def head(self, line: int, limit: int) -> tuple[str, int]:
        """The first ``limit`` characters of line ``line`` and how many it has: a line of 50
        MB is not decoded whole each time it is drawn (its length is counted once)."""
        start, end = self._bounds(line, False)
        if end - start <= limit:  # (a character is at least a byte: the line is shorter)
            text = self.text(line)
            return text, len(text)
        length = self.lengths.get(line)
        raw = self.trace.raw
        if length is None:  # (a capture all ASCII: its bytes; else decoded once)
            length = end - start if self.ascii else len(self.text(line))
            self.lengths[line] = length
        # 4 bytes a character at most: the first ``limit`` (a cut character is one of the
        # more, not shown). A first line's byte order mark is not a character of it.
        skip = 3 if line == 1 and raw.startswith(b"\xef\xbb\xbf") else 0
        text = raw[start + skip : min(end, start + skip + 4 * limit)].decode("utf-8", "replace")
        return text[:limit], length

    def text(self, line: int, *, framed: bool = False) -> str:
        """Line ``line`` (1-based), decoded (``framed``: see :meth:`_bounds`)."""
        start, end = self._bounds(line, framed)
        raw = self.trace.raw[start:end]
        if line == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        return raw.decode("utf-8", "replace")


def _framed_line(trace: Trace, line: int) -> tuple[int, int] | None:
    """Where line ``line`` starts and ends, when a payload's data starts on it, read from the
    framer's table of payloads (None: no payload starts there, or the table does not say)."""
    payloads = trace.payloads
    if not isinstance(payloads, PayloadTable):
        return None
    columns = payloads.columns()
    k = bisect_right(columns.lines, line) - 1
    if k < 0 or columns.lines[k] != line or columns.skip[k] < 0 or columns.raw is not trace.raw:
        return None
    start, end = columns.start[k], columns.end[k]
    raw = trace.raw
    lf = raw.find(b"\n", start, end)  # (an event of several data lines: its first)
    end = end if lf < 0 else lf
    cr = raw.find(b"\r", start, end)
    return start, end if cr < 0 else cr


LINELESS = ("har-body", "truncated-head")
"""Problems of the capture as a whole, shown above its first line."""
MAX_UTF8_LINES = 1000
"""Lines with invalid UTF-8 marked at most (Details notes the first anyway)."""


def _problems(trace: Trace, index: LineIndex, ascii: bool) -> dict[int, str]:
    """The raw model's one read of the trace's decode problems: the message under each line.

    Invalid JSON (and chunks the harness cannot walk), invalid UTF-8, an event cut off before
    its blank line, a HAR entry saved without its body; line 0 is above the first line."""
    out: dict[int, list[str]] = {}
    for line in trace.errors:
        out.setdefault(line, []).append(trace.error_text(line))
    for line in [] if ascii else _invalid_utf8_lines(trace.raw, index):
        out.setdefault(line, []).append(
            "invalid UTF-8: shown (and replayed, as the harness does) as U+FFFD �"
        )
    for note in trace.notes:
        if note.kind == "truncated-event" and note.line is not None:
            out.setdefault(note.line, []).append(
                "unterminated event: the capture ends before the blank line that would close it,"
                " so it is not replayed (truncation)"
            )
        elif note.kind in LINELESS:
            out.setdefault(0, []).append(note.message)
    return {line: "; ".join(messages) for line, messages in out.items()}


def _invalid_utf8_lines(raw: bytes | bytearray, index: LineIndex) -> list[int]:
    """The (1-based) lines holding bytes that are not UTF-8 (one pass over the bytes)."""
    if raw.isascii():
        return []
    bad, _ = utf8_error(raw)  # (a window at a time: never the whole as one string)
    if bad is None:
        return []
    index.index_all()  # (the lines of a capture with invalid UTF-8: all of them, at once)
    starts = index.starts
    first = bisect_right(starts, bad)
    lines: list[int] = []
    bounds = [*starts, len(raw)]
    for line in range(first, len(starts) + 1):
        chunk = raw[bounds[line - 1] : bounds[line]]
        if chunk.isascii():
            continue
        try:
            chunk.decode("utf-8")
        except UnicodeDecodeError:
            lines.append(line)
            if len(lines) >= MAX_UTF8_LINES:
                break
    return lines


def _erasing(trace: Trace) -> dict[int, re.Pattern[str]]:
    """Per flagged line, a pattern matching each ``"field": value`` that erased an identity
    (as it is shown: through :func:`visible`). A field left out erased nothing to point at."""
    found: dict[int, set[str]] = {}
    for flag in trace.analysis.flags:
        if flag.value is UNSET:
            continue
        try:
            value = visible(json.dumps(flag.value, ensure_ascii=False, separators=(",", ":")))
        except (TypeError, ValueError):
            continue
        # the value as the gateway wrote it may have spaces after its colons and commas
        spaced = r"\s*".join(re.escape(part) for part in re.split(r"(?<=[:,])", value))
        found.setdefault(flag.line, set()).add(rf'"{flag.field}"\s*:\s*{spaced}')
    return {line: re.compile("|".join(sorted(alts))) for line, alts in found.items()}


def _marks(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of ``pattern`` among a payload's tool calls (not the chunk's own ``id``)."""
    start = text.find('"tool_calls"')
    return pattern.finditer(text, start) if start >= 0 else iter(())


def _erased_notes(trace: Trace, model: RawModel) -> dict[int, str]:
    """The note under each line where an identity was erased (see ``RawModel.erased``)."""
    parts: dict[int, list[str]] = {}
    for flag in trace.analysis.flags:
        if not 1 <= flag.line <= model.lines:
            continue
        whose = f"call {visible(describe_value(flag.call))}'s {flag.field}"
        pattern = model.erasing.get(flag.line)
        text = visible(model.text(flag.line, framed=True)) if pattern is not None else ""
        found = None
        if pattern is not None:
            wanted = rf'"{flag.field}"'
            found = next((m for m in _marks(pattern, text) if m.group().startswith(wanted)), None)
        if flag.value is UNSET:
            part = f"no {flag.field} in this delta: it erases {whose}"
        elif found is not None:
            part = f"{found.group()} (column {found.start() + 1:,}) erases {whose}"
        else:
            part = f"{flag.field} {visible(describe_value(flag.value))} erases {whose}"
        parts.setdefault(flag.line, []).append(part)
    return {line: "⚑ " + "; ".join(p) + " (assign-always)" for line, p in parts.items()}


def _mark_after_stop(trace: Trace, model: RawModel) -> None:
    """Where the replay ended, and the payloads after it (see ``RawModel.stop``)."""
    stop = trace.analysis.end_line
    if stop is None or stop >= model.lines:
        return
    model.stop = stop
    done = trace.framing.done_line
    model.stopped_at_done = done is not None and done == stop
    payloads = trace.payloads
    k = bisect_right(payloads, stop, key=lambda p: p.line)
    model.after_stop = array("q", (payloads[i].line for i in range(k, len(payloads))))


_PIECE = 1 << 20
"""Bytes indexed at a time."""


class LineIndex:
    """Where each line of a capture starts and where its line break is, found a megabyte at
    a time as far as asked (:meth:`bounds`): a first screen indexes the lines it shows, not
    the 78 MB of a capture. How many lines there are is counted at once (in bulk: a count
    of the breaks). Thread-safe: a worker indexes the rest while the view reads."""

    def __init__(self, raw: bytes | bytearray, count: int | None = None) -> None:
        """``count``: the lines the framer counted as it read ``raw`` (else counted here)."""
        self._raw = raw
        self._code = code = "I" if len(raw) < 1 << 32 else "q"
        """The offsets' type: four bytes each but in a capture of 4 GB or more."""
        self.starts = array(code, [0])
        """Offset of each line indexed (compact: a capture can have 200,000 lines)."""
        self.ends = array(code)
        """Offset of the line break of each line indexed (once ``done``, of every line)."""
        self.longest = 0
        """Bytes of the longest line indexed."""
        self._at = 0
        """Bytes indexed so far."""
        self._lock = threading.Lock()
        size = self._size = len(raw)
        """(A capture being written may grow in place: its lines as they were when made.)"""
        if count is None:
            # _EOL's matches: every \r\n, lone \r and lone \n (each counted in bulk).
            breaks = raw.count(b"\n")
            if b"\r" in raw:
                breaks += raw.count(b"\r") - raw.count(b"\r\n")
            count = 0 if not size else breaks + (0 if raw.endswith((b"\n", b"\r")) else 1)
        self.count = count
        """Lines in the capture (the last one's break, if any, ends it): as counted, then
        as indexed once ``done``."""
        self.done = False
        if not size:
            self.starts = array(code)
            self.done = True
            self.count = 0

    def bounds(self, line: int) -> tuple[int, int]:
        """The first byte of line ``line`` (1-based) and the end of it (its break's)."""
        if len(self.ends) < line and not self.done:
            self.index_to(line)
        return self.starts[line - 1], self.ends[line - 1]

    def index_to(self, line: int) -> None:
        """Index at least the first ``line`` lines (all of them when there are fewer)."""
        while len(self.ends) < line and not self.done:
            self.step()

    def index_all(self, cancelled: Callable[[], bool] | None = None) -> bool:
        """Index every line (False: ``cancelled`` said to stop first)."""
        while not self.done:
            if cancelled is not None and cancelled():
                return False
            self.step()
        return True

    def step(self) -> None:
        """Index the next megabyte (the next line break, for a longer line)."""
        with self._lock:
            if self.done:
                return
            raw, at = self._raw, self._at
            size = self._size
            before = len(self.ends)
            end = min(at + _PIECE, size)
            lf = raw.find(b"\n", at, size)
            cr = raw.find(b"\r", at, size if lf < 0 else lf)
            first = size if lf < 0 and cr < 0 else lf if cr < 0 else cr
            if first >= end:  # a line longer than a piece: found, not copied
                after = first + (2 if raw[first : min(first + 2, size)] == b"\r\n" else 1)
                if first < size:
                    self.longest = max(self.longest, first - self.starts[-1])
                    self.ends.append(first)
                    self.starts.append(after)
                self._at = end = min(after, size)
                if end >= size:
                    self._close(size)
                return
            if end < size and raw[end - 1 : end + 1] == b"\r\n":  # (end + 1 <= size)
                end += 1  # (a \r\n is one break: not cut in two)
            piece = raw[at:end]
            sep: bytes | None = b"\n"
            if b"\r" in piece:  # CRLF alone is split as fast as LF; a lone CR break by break
                crlf = piece.count(b"\r\n")
                sep = b"\r\n" if piece.count(b"\r") == crlf == piece.count(b"\n") else None
            if sep is None:
                for m in _EOL.finditer(raw, at, end):
                    self.ends.append(m.start())
                    self.starts.append(m.end())
            else:
                width = len(sep)
                lines = piece.split(sep)
                # Each line's end: the lengths before it, and a break after each before it.
                lengths = map(add, map(len, lines[:-1]), repeat(width))
                breaks = array(self._code, accumulate(lengths, initial=at))
                del breaks[0], lines
                self.ends.extend(map(sub, breaks, repeat(width)))
                self.starts.extend(breaks)
            del piece
            self._at = end
            if end >= size:
                self._close(size)
            n = len(self.ends)
            if n > before:
                new = map(sub, self.ends[before:n], self.starts[before:n])
                self.longest = max(self.longest, max(new))

    def _close(self, size: int) -> None:
        """Every byte indexed: the last line ends the capture (unless a break ended it)."""
        starts, ends = self.starts, self.ends
        if starts[-1] == size and len(starts) > 1:
            starts.pop()
        else:
            ends.append(size)
            self.longest = max(self.longest, size - starts[-1])
        self.count = len(ends)
        self.done = True


def build_raw_model(trace: Trace) -> RawModel:
    """The lines of ``trace.raw`` as far as a first screen shows them, and the notes under
    them (pure: worker-safe; :meth:`LineIndex.index_all` indexes the rest)."""
    with gc_paused():  # (what is made here forms no cycles)
        index = LineIndex(trace.raw, trace.framing.lines if trace.source.entry is None else None)
        index.step()  # (the first megabyte: a first screen's lines, its width)
        model = RawModel(trace, index, ascii=trace.raw.isascii())
        model.messages = _problems(trace, index, model.ascii)
        model.erasing = _erasing(trace)
        model.erased = _erased_notes(trace, model)
        # A line may have both a decode problem and an erasing field: a row for each.
        notes = sorted(
            [(line, 0, "problem") for line in model.messages]
            + [(line, 1, "erased") for line in model.erased]
        )
        model.error_lines = [line for line, _, _ in notes]
        model.error_kinds = [kind for _, _, kind in notes]
        model.error_rows = [line + k for k, line in enumerate(model.error_lines)]
        _mark_after_stop(trace, model)
        model.measure()
    return model


class RawView(ModelView[RawModel]):
    """The capture with line numbers (see the module docstring)."""

    CURSOR_MARK = "▶"
    MARK_LEFT_CUT = True

    COMPONENT_CLASSES: ClassVar[set[str]] = LineView.COMPONENT_CLASSES | {
        "raw-view--number",
        "raw-view--field",
        "raw-view--comment",
        "raw-view--after-done",
        "raw-view--head",
        "raw-view--selected",
        "raw-view--error",
        "raw-view--error-line",
        "raw-view--done",
        "raw-view--more",
        "raw-view--erasing",
        "raw-view--erased-note",
    }

    DEFAULT_CSS = """
    RawView {
        & > .raw-view--number { color: $text-disabled; }
        & > .raw-view--field { color: $text-accent; }
        & > .raw-view--comment { color: $text-muted; text-style: italic; }
        & > .raw-view--after-done { color: $text-disabled; text-style: italic; }
        & > .raw-view--head { color: $text-secondary; }
        & > .raw-view--selected { background: $primary 30%; }
        & > .raw-view--error { color: $text-error; text-style: bold; }
        & > .raw-view--error-line { background: $error 15%; }
        & > .raw-view--done { color: $text-success; text-style: bold; }
        & > .raw-view--more { color: $text-muted; text-style: italic; }
        & > .raw-view--erasing { color: $text-error; background: $error 25%; text-style: bold; }
        & > .raw-view--erased-note { color: $text-error; text-style: italic; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.selected: tuple[int, int] | None = None
        """First and last line of the selected delta's payload."""
        self._sideways_to: int | None = None
        """Where this view scrolled sideways to bring an erasing field into view (None: it
        did not, or the user has scrolled since)."""
        self._keeps_in_sight: tuple[int, int] | None = None
        """The selected lines whose erasing field the view keeps in sight as it is laid out
        and resized (None once the user scrolls sideways: where they scrolled is theirs)."""

    @staticmethod
    def build(trace: Trace) -> RawModel:
        return build_raw_model(trace)

    def show(self, model: RawModel, *, keep_position: bool = False) -> None:
        scroll = self.scroll_offset
        cursor = self.cursor
        self.model = model
        self.sticky = self._digits() + 3  # the line numbers stay when long lines scroll
        self.set_shape(model.rows, model.width)
        if keep_position:
            self.scroll_to(scroll.x, scroll.y, animate=False, immediate=True)
            self.set_reactive(RawView.cursor, min(cursor, model.rows - 1))
        else:
            self.scroll_to(0, 0, animate=False, immediate=True)
            self.set_reactive(RawView.cursor, 0 if model.rows else -1)
            if self.selected is not None:
                self.select_lines(*self.selected)

    def rest(self, model: RawModel) -> Iterator[None] | None:
        return None if model.index.done else self._index_rest(model)

    def _index_rest(self, model: RawModel) -> Iterator[None]:
        """Every line indexed, a megabyte a step; then the sideways scroll reaching the
        widest line (and the rows, if the framer counted other lines)."""
        while not model.index.done:
            model.index.step()
            yield
        model.measure()
        if model is self.model:
            self.set_shape(model.rows, model.width)

    def _digits(self) -> int:
        return len(str(self.model.lines)) if self.model is not None else 1

    def cursor_mark_x(self) -> int:
        # Over the mark column (▌ selected, ⚠ problem): the number stays readable.
        return self._digits() + 1

    def _is_note(self, index: int) -> bool:
        return self.model is not None and self.model.locate(index)[1]

    def row_scroll(self, index: int, scroll_x: int, length: int) -> int:
        # A note under a line (a decode problem, an erasing field's column) stays where it is
        # read while the long line above scrolls to the column it names: scrolled with it, a
        # long note lost its start ('"id":null (column 127)'). Cut, it ends in "…"; enter
        # shows it whole. A line goes sideways only as far as its end: a short one stays
        # whole where a long one scrolled to a column (`data: [DONE]` read "…" at 80 cells).
        if self._is_note(index):
            return 0
        return self.up_to_its_end(scroll_x, length)

    def is_prose(self, index: int) -> bool:
        return self._is_note(index)

    def select_lines(self, first: int, last: int) -> None:
        """Highlight lines ``first``–``last`` (a delta's payload) and bring them into view:
        down to them, and sideways to the field that erased an identity, if one of them
        has it (past a narrow view's edge: column 127 at 80 columns)."""
        self.selected = (first, last)
        self.invalidate()
        if self.model is not None and first <= self.model.lines:
            self.move_cursor(self.model.row_of(first), user=False, center=True)
            self._keeps_in_sight = (first, last)
            self._sideways_to_erasing(first, last)

    def _sideways_to_erasing(self, first: int, last: int) -> None:
        """Scroll sideways to the first erasing field in lines ``first``–``last``; lines
        with none take the view back to their start if it went sideways for the last ones
        (and the user has not scrolled since)."""
        model = self.model
        assert model is not None
        found: tuple[int, int] | None = None
        for line in range(first, min(last, model.lines) + 1):
            pattern = model.erasing.get(line)
            if pattern is not None:
                match = next(_marks(pattern, visible(model.text(line))), None)
                if match is not None:
                    found = (match.start(), match.end())
                    break
        x = int(self.scroll_offset.x)
        if found is None:
            if self._sideways_to is not None and x == self._sideways_to:
                self.scroll_to(x=0, animate=False, immediate=True)
            self._sideways_to = None
            return
        width = self.scrollable_content_region.width or self.size.width
        if not width:  # not laid out yet: once it is (where the field lands needs the width)
            return
        room = width - self.sticky
        start, end = found
        if x <= start and end <= x + room:
            return  # in view already
        # As little as brings it in, with a few cells after it: what the line says before
        # the field (the call's index, its other fields) stays in view.
        target = min(start, max(0, end + min(8, room // 4) - room))
        target = max(0, min(target, self.virtual_size.width - width))
        self.scroll_to(x=target, animate=False, immediate=True, force=True)
        self._sideways_to = target

    @on(events.Resize)
    def _sideways_when_laid_out(self) -> None:
        # Its first width, or a new one, a new scroll: wider, the line may fit from its
        # start; narrower, the field may have gone past the edge.
        lines = self._keeps_in_sight
        if lines is None or lines != self.selected or self.model is None:
            return
        if self._sideways_to is not None:
            self.scroll_to(x=0, animate=False, immediate=True, force=True)
            self._sideways_to = None
        self._sideways_to_erasing(*lines)

    def action_scroll_left(self) -> None:
        self._keeps_in_sight = None
        super().action_scroll_left()

    def action_scroll_right(self) -> None:
        self._keeps_in_sight = None
        super().action_scroll_right()

    def render_row(self, index: int) -> Row:
        model = self.model
        if model is None:
            return [], Style()
        style = self.piece_style
        trace = model.trace
        line, is_error = model.locate(index)
        digits = len(str(model.lines))
        if is_error:
            kind, note = model.note(index) or ("problem", "")
            if kind == "erased":  # a flag's note: not a problem of the capture
                text = f"{' ' * digits}  {note}"
                return [Segment(text, style("raw-view--erased-note"))], Style()
            text = f"{' ' * digits}  ⚠ {visible(note)}"
            return [Segment(text, style("raw-view--error"))], self.fill_style(
                "raw-view--error-line"
            )
        selected = self.selected is not None and self.selected[0] <= line <= self.selected[1]
        fill = self.fill_style("raw-view--selected") if selected else Style()
        problem = line in model.messages
        if problem:
            fill = self.fill_style("raw-view--error-line")
        number = Segment(f"{line:>{digits}} ", style("raw-view--number"))
        mark = Segment(
            "▌" if selected else "⚠" if problem else " ",
            style("raw-view--error") if problem else style("raw-view--field"),
        )
        content, length = model.head(line, MAX_WIDTH)
        more = ""
        if length > MAX_WIDTH:
            more = f" … {length - MAX_WIDTH:,} more characters (c copies the line)"
        shown = visible(content)
        head = trace.head
        done = trace.framing.done_line
        segs = [number, mark, Segment(" ")]
        if head is not None and line <= head.body_line:
            segs.append(Segment(shown, style("raw-view--head")))
        elif not model.replayed(line):
            segs.append(Segment(shown, style("raw-view--after-done")))
            if model.payload_after_stop(line):
                note = "   " + model.not_replayed_note()
                segs.append(Segment(note, style("raw-view--more")))
        elif content.startswith(":"):
            segs.append(Segment(shown, style("raw-view--comment")))
        elif line == done:
            segs.append(Segment(shown, style("raw-view--done")))
        else:
            name, colon, value = shown.partition(":")
            if not (colon and name.isidentifier()):
                name, colon, value = "", "", shown
            if name:
                segs.append(Segment(name + colon, style("raw-view--field")))
            pattern = model.erasing.get(line)
            if pattern is None:
                segs.append(Segment(value))
            else:  # the field and value that erased an identity, marked
                at = 0
                for found in _marks(pattern, value):
                    segs += [
                        Segment(value[at : found.start()]),
                        Segment(found.group(), style("raw-view--erasing")),
                    ]
                    at = found.end()
                segs.append(Segment(value[at:]))
        if more:
            segs.append(Segment(more, style("raw-view--more")))
        return segs, fill

    def copy_text(self) -> tuple[str, str] | None:
        model = self.model
        if model is None or self.cursor < 0 or model.rows == 0:
            return None
        line, _ = model.locate(self.cursor)
        note = model.note(self.cursor)
        if note is not None and note[0] == "erased":
            return note[1], f"the note under line {line}"
        if note is not None:
            return note[1], f"the error on line {line}"
        return model.text(line), f"line {line}"

    def action_inspect(self) -> None:
        """The payload the selected line belongs to (or the line itself), in full."""
        model = self.model
        if model is None or self.cursor < 0 or model.rows == 0:
            return
        line, is_error = model.locate(self.cursor)
        trace = model.trace
        payloads = trace.payloads
        if isinstance(payloads, PayloadTable):  # (found without a payload made per probe)
            k = bisect_right(payloads.columns().lines, line) - 1
        else:
            k = bisect_right(payloads, line, key=lambda p: p.line) - 1
        p = payloads[k] if not is_error and k >= 0 else None
        if p is not None and p.line <= line <= p.end_line:
            # c copies the line: decoded when copied (a 50 MB line is decoded once, here
            # for the window, not twice)
            what = f"line {line}"
            title = f"payload, lines {p.line}–{p.end_line}" if p.end_line > p.line else what
            sections = [("", p.data.decode("utf-8", "replace"))]
            if line in model.messages:
                sections.append(("decode problem", model.messages[line]))
            for at in range(p.line, p.end_line + 1):
                if at in model.erased:  # what in it erased an identity, and at which column
                    sections.append((f"line {at}", model.erased[at]))
            self.app.push_screen(PayloadScreen(title, sections, lambda: model.text(line)))
            return
        got = self.copy_text()
        if got is None:
            return
        text, what = got
        self.app.push_screen(PayloadScreen(what, [("", text)], text))
