"""The diff view: the assign-always and accept-identity chunk streams side by side.

Both streams are read from the trace's analysis and aligned by :class:`BehaviorPairs`: until
the end they pair chunk for chunk, and where the end differs (the fix emits no ``block-end``
when it refuses a call) one side shows a gap.
Runs of identical rows collapse into one row that ``enter`` or a click expands. Each side
keeps half the view; a chunk longer than its half is not lost: ``←``/``→`` scroll the
``key=value`` part of both sides together (the line, marker and chunk type stay put), and
``enter`` shows a chunk pair whole.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.strip import Strip

from ...core import jsontext
from ...core.indexed import Indexed
from ...core.stream import BehaviorPairs
from ...core.trace import Trace, gc_paused
from ...core.translator import Chunk
from ...core.visible import visible
from ..cells import cell_len, fit
from ..screens.payload import PayloadScreen
from .line_view import LineView, Row
from .model_view import ModelView

__all__ = ["DiffModel", "DiffView", "build_diff_model"]

MIN_RUN = 3
"""Identical rows in a run of at least this many collapse."""
TYPE_W = 16
"""The chunk type column of each side."""
LEAD = 8
"""The line number and the difference marker, left of both sides (they stay put)."""
MAX_SIDE = 4000
"""Cells of one side shown at most; longer chunks are cut (``enter`` shows them whole)."""

Side = tuple[int | None, Chunk] | None

SHORT_TYPES = {
    "block-start": "start",
    "block-end": "end",
    "tool-call-delta": "tool Δ",
    "text-delta": "text Δ",
    "reasoning-delta": "reas Δ",
}
"""A chunk's type where its column is narrow: cut, ``block-start`` and ``block-end`` (or
``text-delta`` and ``tool-call-delta``) were the same "block…"."""


def header_sides(differing: int, rows: int, left_w: int, right_w: int) -> tuple[str, str]:
    """The two sides' headings, each naming its behavior, the right one how many rows differ:
    the most each says that fits both (the behaviors as the trace's header shortens them, old
    and fix, then the count in fewer words)."""
    summary = f"{differing:,} of {rows:,}"
    right = (
        f"accept-identity (fix) · {summary} rows differ",
        f"fix · {summary} rows differ",
        f"fix · {summary} differ",
        f"fix · {differing:,}/{rows:,} differ",
        f"fix · {differing:,}/{rows:,}",
        "fix",
    )
    for text in right:
        left = "assign-always (old)" if text.startswith("accept") else "old"
        if cell_len(text) <= right_w and cell_len(left) <= left_w:
            return left, text
    return "old", "fix"


class _Side(Indexed[Side]):
    """One behavior's column of the aligned rows, made on demand (``None``: a gap)."""

    __slots__ = ("_pairs", "_which")

    def __init__(self, pairs: BehaviorPairs, which: int) -> None:
        self._pairs = pairs
        self._which = which

    def __len__(self) -> int:
        return len(self._pairs)

    def _at(self, index: int) -> Side:
        return self._pairs[index][self._which]


@dataclass(slots=True)
class DiffModel:
    """The aligned chunk streams of one trace, read from its analysis (:class:`BehaviorPairs`:
    one byte per row is kept; the chunks are made when a row is drawn)."""

    trace: Trace
    pairs: BehaviorPairs
    left: _Side = field(init=False)
    """assign-always, aligned (``None``: a gap)."""
    right: _Side = field(init=False)
    """accept-identity, aligned."""
    runs: list[tuple[int, int]] = field(default_factory=list)
    """Runs of identical rows ``[start, end)`` long enough to collapse."""
    expanded: set[int] = field(default_factory=set)
    display: array[int] = field(default_factory=lambda: array("i"))
    """Each display row: a pair index (>= 0) or a collapsed run ``-(run + 1)``."""
    row_of_pair: array[int] = field(default_factory=lambda: array("i"))
    lines: array[float] = field(default_factory=lambda: array("d"))
    """The payload line of each pair (end of input: infinity), for finding a line."""
    differing: int = 0
    side_widths: tuple[int, int] = (0, 0)
    """The longest chunk of each side, in cells (capped at ``MAX_SIDE``): at first measured
    on the rows a first screen can show (:data:`FIRST_ROWS` at either end), then on every
    row once :func:`measure_side_widths` has run (``widths_measured``)."""
    widths_measured: bool = False
    """``side_widths`` is the widest of every row, not an estimate from the first ones."""

    def __post_init__(self) -> None:
        self.left = _Side(self.pairs, 0)
        self.right = _Side(self.pairs, 1)

    @property
    def same(self) -> bytearray:
        """Per pair: are the two sides equal?"""
        return self.pairs.same

    def layout(self) -> None:
        """Recompute the display rows after runs were collapsed or expanded: a slice of
        rows at a time between the runs (a Python step per row took 40 ms at 100,000)."""
        display = array("i")  # 4 bytes a row, not a list's pointer and int object
        row_of = array("i")
        at = 0  # the next pair
        for k, (start, end) in enumerate(self.runs):
            if k in self.expanded:
                continue
            row_of.extend(range(len(display), len(display) + start - at))
            display.extend(range(at, start))
            row_of.extend(array("i", [len(display)]) * (end - start))
            display.append(-(k + 1))
            at = end
        n = len(self.pairs)
        row_of.extend(range(len(display), len(display) + n - at))
        display.extend(range(at, n))
        self.display = display
        self.row_of_pair = row_of

    def line_of(self, pair: int) -> int | None:
        return self.pairs.line(pair)


def _streams(trace: Trace) -> BehaviorPairs:
    """The diff model's one read of the trace: both behaviors' streams, aligned, from the
    analysis (nothing is decoded again)."""
    return BehaviorPairs(trace.analysis)


def side_text(chunk: Chunk) -> list[tuple[str, str]]:
    """A chunk as the diff shows it: its type, then each ``key=value``, as ``(key, value)``."""
    return [(f" {key}=", _value(value)) for key, value in chunk.items() if key != "type"]


FIRST_ROWS = 256
"""Rows at either end whose widths the first screen's estimate of ``side_widths`` reads."""


def _side_widths(pairs: BehaviorPairs, rows: Iterable[int]) -> tuple[int, int]:
    """The widest chunk of each side among ``rows``."""
    widest = [0, 0]
    body = pairs.assign.body
    for k in rows:
        # The body's chunks as made (their strings are the analysis' own, not copies), the
        # end's with each block's whole text cut to what a side shows.
        pair = pairs.light(k) if k < body else pairs.head(k, MAX_SIDE)
        for which, item in enumerate(pair):
            if item is not None and widest[which] < MAX_SIDE:
                width = _width(item[1])
                widest[which] = min(MAX_SIDE, max(widest[which], width))
        if widest[0] >= MAX_SIDE and widest[1] >= MAX_SIDE:
            break
    return widest[0], widest[1]


STEP_ROWS = 256
"""Rows measured in one step of :func:`measure_side_widths` (about 1.5 ms)."""


def _first_rows(n: int) -> range | list[int]:
    """The rows a first screen can show: the first and the last :data:`FIRST_ROWS`."""
    if n <= 2 * FIRST_ROWS:
        return range(n)
    return [*range(FIRST_ROWS), *range(n - FIRST_ROWS, n)]


def measure_side_widths(model: DiffModel) -> Generator[None, None, tuple[int, int]]:
    """The widest chunk of each side over every row of ``model``, a step of
    :data:`STEP_ROWS` rows at each ``yield`` (the view's first screen is drawn before: a
    chunk's width is made from its values, so it costs as much as drawing every row, 0.6 s at
    100,000 rows). Its value is the widths."""
    widest = [0, 0]
    rows = len(model.pairs)
    for start in range(0, rows, STEP_ROWS):
        with gc_paused():
            part = _side_widths(model.pairs, range(start, min(start + STEP_ROWS, rows)))
        widest = [max(widest[0], part[0]), max(widest[1], part[1])]
        if min(widest) >= MAX_SIDE:
            break
        yield
    return widest[0], widest[1]


_KEY_CELLS: dict[str, int] = {}


def _width(chunk: Chunk) -> int:
    """The cells :func:`side_text` makes of ``chunk`` beside its type (capped near
    ``MAX_SIDE``), without encoding a printable ASCII string: its JSON is itself, quoted, with
    a backslash before each quote and backslash."""
    width = TYPE_W
    for key, value in chunk.items():
        if key == "type":
            continue
        cells = _KEY_CELLS.get(key)
        if cells is None:
            cells = _KEY_CELLS[key] = cell_len(f" {key}=")
        width += cells
        if type(value) is str and len(value) > MAX_SIDE:
            value = value[:MAX_SIDE]  # (as wide as a side shows: a 50 MB one read once less)
        if type(value) is str and value.isascii() and value.isprintable():
            width += len(value) + 2 + value.count('"') + value.count("\\")
        elif type(value) is int:  # (each delta's index: written as Python writes it)
            width += len(str(value))
        elif value is None:  # (``null``: a name withheld on every delta, crlf-keepalive's)
            width += 4
        else:
            width += cell_len(_value(value))
        if width >= MAX_SIDE:
            return MAX_SIDE
    return width


def build_diff_model(trace: Trace) -> DiffModel:
    """Both behaviors' streams of ``trace``, aligned (pure: worker-safe). What a first
    screen needs, in bulk steps: the sides' widths are estimated from the rows a first
    screen can show (:func:`measure_side_widths` measures every row afterwards)."""
    with gc_paused():  # (what is made here forms no cycles: the passes cost a third more)
        pairs = _streams(trace)
        model = DiffModel(trace, pairs)
        model.side_widths = _side_widths(pairs, _first_rows(len(pairs)))
        # (no row can be wider than a side shows: the widest measured, nothing is left)
        model.widths_measured = len(pairs) <= 2 * FIRST_ROWS or min(model.side_widths) >= MAX_SIDE
        same = pairs.same
        model.differing = same.count(0)
        inf = float("inf")
        body = pairs.assign.body
        model.lines = array("d", map(float, trace.analysis.events.lines[:body]))  # (in bulk)
        model.lines.extend(
            inf if (line := pairs.line(k)) is None else float(line) for k in range(body, len(same))
        )
        model.runs = [m.span() for m in _RUN.finditer(same)]
        model.layout()
    return model


_RUN = re.compile(b"\x01{%d,}" % MIN_RUN)
"""A run of identical rows (``same`` holds a byte per row, 1 where the sides are equal)."""


AT_ONCE = 400_000
"""The work (rows, and calls weighted by :data:`CALL_COST`) of a diff model built on the
screen's thread (:meth:`DiffView.at_once`): up to some 100 ms of CPU on the 2-core machine."""
CALL_COST = 40
"""A call's steps in :func:`build_diff_model`, in rows' (each call's end chunks under both
behaviors, aligned and compared, and its identity history read)."""


def _value(value: Any) -> str:
    return visible(jsontext.dumps(value))  # (a lone surrogate: its escape)


class DiffView(ModelView[DiffModel]):
    """The two behaviors' chunk streams, aligned, differences marked."""

    SCROLLS_INSIDE = True

    COMPONENT_CLASSES: ClassVar[set[str]] = LineView.COMPONENT_CLASSES | {
        "diff-view--header",
        "diff-view--line",
        "diff-view--type",
        "diff-view--key",
        "diff-view--value",
        "diff-view--changed",
        "diff-view--differ-row",
        "diff-view--gap",
        "diff-view--run",
        "diff-view--marker",
    }

    DEFAULT_CSS = """
    DiffView {
        & > .diff-view--header { color: $text-muted; text-style: bold; }
        & > .diff-view--line { color: $text-muted; }
        & > .diff-view--type { color: $text-primary; }
        & > .diff-view--key { color: $text-muted; }
        & > .diff-view--value { color: $text; }
        & > .diff-view--changed { color: $text-error; text-style: bold underline; }
        & > .diff-view--differ-row { background: $warning 10%; }
        & > .diff-view--gap { color: $text-disabled; }
        & > .diff-view--run { color: $text-muted; text-style: italic; background: $boost; }
        & > .diff-view--marker { color: $text-warning; text-style: bold; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_row", "Expand / inspect", id="toggle-run"),
        Binding("z", "toggle_all_runs", "Expand all", id="toggle-all-runs"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._width = 0
        self.selected_line: int | None = None
        """The payload line of the delta selected in the calls view (shown on a new model)."""

    @staticmethod
    def build(trace: Trace) -> DiffModel:
        return build_diff_model(trace)

    def at_once(self, trace: Trace) -> bool:
        # Its first screen is made in bulk from the analysis, a Python step per call, not per
        # delta (:func:`build_diff_model`): 8-55 ms of CPU on every shape of 100,000 deltas,
        # 5,000 calls the most, built in a worker its first paint cost 160-230 ms of CPU.
        analysis = trace.analysis
        return analysis.event_count + CALL_COST * len(analysis.calls) <= AT_ONCE

    def show(self, model: DiffModel, *, keep_position: bool = False) -> None:
        scroll = self.scroll_offset
        cursor = self.cursor
        if keep_position and self.model is not None:
            model.expanded = {k for k in self.model.expanded if k < len(model.runs)}
            model.layout()
            if not model.widths_measured:  # (what the last state measured, until measured)
                widest = self.model.side_widths
                model.side_widths = (
                    max(model.side_widths[0], widest[0]),
                    max(model.side_widths[1], widest[1]),
                )
        self.model = model
        self.set_shape(len(model.display) + 1, self._table_width())
        if keep_position:
            self.scroll_to(0, scroll.y, animate=False, immediate=True)
            self.set_reactive(DiffView.cursor, min(cursor, len(model.display)))
        else:
            self.scroll_to(0, 0, animate=False, immediate=True)
            self.set_reactive(DiffView.cursor, 1 if model.display else -1)
            if self.selected_line is not None:
                self.goto_line(self.selected_line)

    def rest(self, model: DiffModel) -> Iterator[None] | None:
        if model.widths_measured:
            return None
        return self._measure(model)

    def _measure(self, model: DiffModel) -> Iterator[None]:
        """Every row measured (:func:`measure_side_widths`), then the sideways scroll
        reaching the widest."""
        widths = yield from measure_side_widths(model)
        model.side_widths, model.widths_measured = widths, True
        if model is self.model:
            self.set_shape(len(model.display) + 1, self._table_width())

    def on_resize(self, event: events.Resize) -> None:
        if self.model is not None and self._width != self.size.width:
            self._width = self.size.width
            self.set_shape(len(self.model.display) + 1, self._table_width())

    def is_selectable(self, index: int) -> bool:
        return index > 0

    def _halves(self) -> tuple[int, int]:
        """The width of each side: half the view."""
        width = max(self.scrollable_content_region.width or self.size.width, 40)
        lead = self._lead()
        half = (width - lead - 3) // 2
        return half, width - lead - 3 - half

    def _lead(self) -> int:
        """The line column and the marker: wide enough for the trace's last line number
        with a space after it ("100007≠" ran the two together)."""
        lines = self.model.trace.framing.lines if self.model is not None else 0
        return max(LEAD, len(str(lines)) + 3)

    def _table_width(self) -> int:
        """The view, plus how far the longest chunk runs past its half (the sideways scroll)."""
        left, right = self._halves()
        over = 0
        if self.model is not None:
            widest = self.model.side_widths
            over = max(widest[0] - left, widest[1] - right, 0)
        return self._lead() + left + 3 + right + (over + 1 if over else 0)

    def sideways_step(self) -> int:
        """Half of what a side shows of the values: the next part overlaps the last."""
        return max(4, (min(self._halves()) - TYPE_W) // 2)

    def watch_scroll_x(self, old: float, new: float) -> None:
        # Rows are cut inside each side by the scroll, not as a whole: render them again.
        self._cache.clear()
        super().watch_scroll_x(old, new)

    def render_row(self, index: int) -> Row:
        model = self.model
        if model is None:
            return [], Style()
        left_w, right_w = self._halves()
        style = self.piece_style
        if index == 0:
            left, right = header_sides(model.differing, len(model.left), left_w, right_w)
            head = (  # each word over its column: line numbers, then each side's chunks
                fit("line", self._lead()) + fit(left, left_w) + " │ " + fit(right, right_w)
            )
            return [Segment(head, style("diff-view--header"))], Style()
        entry = model.display[index - 1]
        if entry < 0:
            start, end = model.runs[-entry - 1]
            first, last = model.line_of(start), model.line_of(end - 1)
            span = f"lines {first}–{last}" if first != last else f"line {first}"
            text = f"  ⋯ {end - start:,} identical chunks ({span}) — enter or click to expand"
            return [Segment(text, style("diff-view--run"))], self.fill_style("diff-view--run")
        a, b = model.pairs.head(entry, MAX_SIDE)  # what a side can show, nothing longer
        same = bool(model.same[entry])
        line = (a or b or (None, {}))[0]
        marker = (
            " " if same else ("≠" if a is not None and b is not None else "◀" if b is None else "▶")
        )
        segs = [
            Segment(
                fit(str(line) if line is not None else "EOF", self._lead() - 2),
                style("diff-view--line"),
            ),
            Segment(marker + " ", style("diff-view--marker")),
        ]
        other_a = b[1] if b is not None else None
        other_b = a[1] if a is not None else None
        shift = int(self.scroll_offset.x)
        segs += self._side(a, other_a, left_w, same, shift)
        segs.append(Segment(" │ ", style("diff-view--line")))
        segs += self._side(b, other_b, right_w, same, shift)
        return segs, Style() if same else self.fill_style("diff-view--differ-row")

    def _side(
        self, side: Side, other: Chunk | None, width: int, same: bool, shift: int = 0
    ) -> list[Segment]:
        """One side of a row, ``width`` cells; the ``key=value`` part starts ``shift`` in."""
        style = self.piece_style
        if side is None:
            return [Segment(fit("  —", width), style("diff-view--gap"))]
        chunk = side[1]
        # A narrow side gives the values the room: the chunk's type is cut first.
        type_w = TYPE_W if width >= TYPE_W + 14 else max(7, width // 3)
        kind = str(chunk.get("type", "?"))
        if cell_len(kind) > type_w - 1:
            kind = SHORT_TYPES.get(kind, kind)
        out: list[Segment] = [  # a space after the type even when it is cut
            Segment(fit(kind, type_w - 1) + " ", style("diff-view--type"))
        ]
        rest: list[Segment] = []
        at, first_change = 0, -1
        for (key, value), (key_text, value_text) in zip(
            ((k, v) for k, v in chunk.items() if k != "type"), side_text(chunk), strict=True
        ):
            changed = not same and (other is None or other.get(key, _MISSING) != value)
            if changed and first_change < 0:
                first_change = at
            at += cell_len(key_text) + cell_len(value_text)
            rest.append(Segment(key_text, style("diff-view--key")))
            rest.append(
                Segment(value_text, style("diff-view--changed" if changed else "diff-view--value"))
            )
        room = max(0, width - type_w)
        if not shift and first_change > 0 and first_change + 8 > room:
            # Not scrolled, and what differs would be past the edge: the row starts with it
            # ("…" says what comes before), so a narrow diff still shows the difference.
            shift = first_change - 1
        full = Strip(rest)
        strip = full.crop_extend(shift, shift + room, None)
        more = Strip([Segment("…", style("diff-view--key"))])
        if room > 2 and full.cell_length > shift + room:  # more to the right: → shows it
            strip = Strip.join([strip.crop(0, room - 1), more])
        if room > 2 and shift and full.cell_length > shift:  # the start is scrolled away
            strip = Strip.join([more, strip.crop(1)])
        out += list(strip)
        return out

    def on_row_clicked(self, index: int) -> None:
        self.action_toggle_run()

    def action_inspect(self) -> None:
        self.action_open_row()

    def action_open_row(self) -> None:
        """A collapsed run expands; a chunk pair opens in full."""
        model = self.model
        if model is None or self.cursor < 1:
            return
        entry = model.display[self.cursor - 1]
        if entry < 0 or any(s <= entry < e for s, e in model.runs):
            self.action_toggle_run()
            return
        got = self.copy_text()
        if got is None:
            return
        sections = []
        for label, side in (
            ("assign-always", model.left[entry]),
            ("accept-identity", model.right[entry]),
        ):
            body = jsontext.dumps(side[1]) if side is not None else '"(no chunk)"'
            sections.append((label, body))
        line = model.line_of(entry)
        where = f"line {line}" if line is not None else "end of input"
        self.app.push_screen(PayloadScreen(f"chunks from {where}", sections, got[0]))

    def action_toggle_run(self) -> None:
        model = self.model
        if model is None or self.cursor < 1:
            return
        entry = model.display[self.cursor - 1]
        if entry < 0:
            model.expanded.add(-entry - 1)
        else:
            run = next((k for k, (s, e) in enumerate(model.runs) if s <= entry < e), None)
            if run is None:
                return
            model.expanded.discard(run)
            entry = model.runs[run][0]
        model.layout()
        self.set_shape(len(model.display) + 1, self._table_width())
        self.move_cursor(model.row_of_pair[entry] + 1, user=False)

    def action_toggle_all_runs(self) -> None:
        model = self.model
        if model is None:
            return
        if len(model.expanded) < len(model.runs):
            model.expanded = set(range(len(model.runs)))
        else:
            model.expanded = set()
        model.layout()
        self.set_shape(len(model.display) + 1, self._table_width())

    def goto_line(self, line: int) -> None:
        """Bring the first chunk of payload ``line`` to the cursor."""
        self.selected_line = line
        model = self.model
        if model is None or not model.left:
            return
        pair = bisect_left(model.lines, line)  # lines never decrease along the streams
        if pair < len(model.left):
            self.move_cursor(model.row_of_pair[pair] + 1, user=False, center=True)

    def copy_text(self) -> tuple[str, str] | None:
        model = self.model
        if model is None or self.cursor < 1:
            return None
        entry = model.display[self.cursor - 1]
        if entry < 0:
            start, end = model.runs[-entry - 1]
            pairs = range(start, end)
            what = f"{end - start} identical chunks"
        else:
            pairs = range(entry, entry + 1)
            what = "the chunk pair"
        lines = []
        for p in pairs:
            for label, side in (
                ("assign-always", model.left[p]),
                ("accept-identity", model.right[p]),
            ):
                body = jsontext.dumps(side[1]) if side is not None else "(none)"
                lines.append(f"{label}: {body}")
        return "\n".join(lines), what


_MISSING = object()
