"""The raw view: the capture as it is on disk, with line numbers.

Lines are indexed once (their byte offsets), and decoded only when on screen. The selected
delta's lines are highlighted, decode problems are shown in place under their line, comments
and everything after ``[DONE]`` are dimmed; every character a terminal would act on is shown
as an escape.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style

from ...core.trace import Trace
from ...core.visible import visible
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
    starts: array[int] = field(default_factory=lambda: array("q"))
    """Byte offset of each line (compact: a capture can have 200,000 lines)."""
    ends: array[int] = field(default_factory=lambda: array("q"))
    error_lines: list[int] = field(default_factory=list)
    error_rows: list[int] = field(default_factory=list)
    messages: dict[int, str] = field(default_factory=dict)
    """The decode problem shown under each line that has one."""
    width: int = 0

    @property
    def lines(self) -> int:
        return len(self.starts)

    @property
    def rows(self) -> int:
        return len(self.starts) + len(self.error_lines)

    def locate(self, row: int) -> tuple[int, bool]:
        """``(line, is_error_row)`` of display row ``row`` (lines are 1-based)."""
        m = bisect_left(self.error_rows, row)
        if m < len(self.error_rows) and self.error_rows[m] == row:
            return self.error_lines[m], True
        return row - m + 1, False

    def row_of(self, line: int) -> int:
        return line - 1 + bisect_left(self.error_lines, line)

    def text(self, line: int) -> str:
        raw = self.trace.raw[self.starts[line - 1] : self.ends[line - 1]]
        if line == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        return raw.decode("utf-8", "replace")


LINELESS = ("har-body", "truncated-head")
"""Problems of the capture as a whole, shown above its first line."""
MAX_UTF8_LINES = 1000
"""Lines with invalid UTF-8 marked at most (Details notes the first anyway)."""


def _problems(trace: Trace, starts: Sequence[int]) -> dict[int, str]:
    """The raw model's one read of the trace's decode problems: the message under each line.

    Invalid JSON (and chunks the harness cannot walk), invalid UTF-8, an event cut off before
    its blank line, a HAR entry saved without its body; line 0 is above the first line."""
    out: dict[int, list[str]] = {}
    malformed = trace.malformed_lines
    for line, error in trace.errors.items():
        out.setdefault(line, []).append(("not valid JSON: " if line in malformed else "") + error)
    for line in _invalid_utf8_lines(trace.raw, starts):
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


def _invalid_utf8_lines(raw: bytes | bytearray, starts: Sequence[int]) -> list[int]:
    """The (1-based) lines holding bytes that are not UTF-8 (one pass over the bytes)."""
    if raw.isascii():
        return []
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        first = bisect_right(starts, exc.start)
    else:
        return []
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


def build_raw_model(trace: Trace) -> RawModel:
    """Index the lines of ``trace.raw`` (pure: worker-safe)."""
    raw = trace.raw
    starts = array("q", [0])
    ends = array("q")
    for m in _EOL.finditer(raw):
        ends.append(m.start())
        starts.append(m.end())
    if starts[-1] == len(raw) and len(starts) > 1:
        starts.pop()
    else:
        ends.append(len(raw))
    if not raw:
        starts, ends = array("q"), array("q")
    model = RawModel(trace, starts, ends)
    model.messages = _problems(trace, starts)
    model.error_lines = sorted(model.messages)
    model.error_rows = [line + k for k, line in enumerate(model.error_lines)]
    longest = max((e - s for s, e in zip(starts, ends, strict=True)), default=0)
    gutter = len(str(len(starts))) + 3
    model.width = min(longest, MAX_WIDTH) + gutter + 24
    for message in model.messages.values():
        model.width = max(model.width, len(message) + gutter + 8)
    return model


class RawView(ModelView[RawModel]):
    """The capture with line numbers (see the module docstring)."""

    CURSOR_MARK = "▶"

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
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.selected: tuple[int, int] | None = None
        """First and last line of the selected delta's payload."""

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

    def _digits(self) -> int:
        return len(str(self.model.lines)) if self.model is not None else 1

    def cursor_mark_x(self) -> int:
        # Over the mark column (▌ selected, ⚠ problem): the number stays readable.
        return self._digits() + 1

    def select_lines(self, first: int, last: int) -> None:
        """Highlight lines ``first``–``last`` (a delta's payload) and bring them into view."""
        self.selected = (first, last)
        self.invalidate()
        if self.model is not None and first <= self.model.lines:
            self.move_cursor(self.model.row_of(first), user=False, center=True)

    def render_row(self, index: int) -> Row:
        model = self.model
        if model is None:
            return [], Style()
        style = self.piece_style
        trace = model.trace
        line, is_error = model.locate(index)
        digits = len(str(model.lines))
        if is_error:
            text = f"{' ' * digits}  ⚠ {visible(model.messages[line])}"
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
        content = model.text(line)
        more = ""
        if len(content) > MAX_WIDTH:
            more = f" … {len(content) - MAX_WIDTH:,} more characters (c copies the line)"
            content = content[:MAX_WIDTH]
        shown = visible(content)
        head = trace.head
        done = trace.framing.done_line
        segs = [number, mark, Segment(" ")]
        if head is not None and line <= head.body_line:
            segs.append(Segment(shown, style("raw-view--head")))
        elif done is not None and line > done:
            segs.append(Segment(shown, style("raw-view--after-done")))
            if content.startswith("data:"):
                segs.append(Segment("   after [DONE]: not replayed", style("raw-view--more")))
        elif content.startswith(":"):
            segs.append(Segment(shown, style("raw-view--comment")))
        elif line == done:
            segs.append(Segment(shown, style("raw-view--done")))
        else:
            name, colon, value = shown.partition(":")
            if colon and name.isidentifier():
                segs += [Segment(name + colon, style("raw-view--field")), Segment(value)]
            else:
                segs.append(Segment(shown))
        if more:
            segs.append(Segment(more, style("raw-view--more")))
        return segs, fill

    def copy_text(self) -> tuple[str, str] | None:
        model = self.model
        if model is None or self.cursor < 0 or model.rows == 0:
            return None
        line, is_error = model.locate(self.cursor)
        if is_error:
            return model.messages[line], f"the error on line {line}"
        return model.text(line), f"line {line}"

    def action_inspect(self) -> None:
        """The payload the selected line belongs to (or the line itself), in full."""
        model = self.model
        got = self.copy_text()
        if model is None or got is None:
            return
        text, what = got
        line, is_error = model.locate(self.cursor)
        payloads = model.trace.payloads
        k = bisect_right(payloads, line, key=lambda p: p.line) - 1
        if not is_error and k >= 0 and payloads[k].line <= line <= payloads[k].end_line:
            p = payloads[k]
            title = f"payload, lines {p.line}–{p.end_line}" if p.end_line > p.line else what
            sections = [("", p.data.decode("utf-8", "replace"))]
            if line in model.messages:
                sections.append(("decode problem", model.messages[line]))
            self.app.push_screen(PayloadScreen(title, sections, text))
            return
        self.app.push_screen(PayloadScreen(what, [("", text)], text))
