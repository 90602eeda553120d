"""The compare view: a marked trace (A) against the open one (B), at the three levels of
``replay-tui diff`` (docs/diff.md), side by side.

- **outcome**: what the agent receives under the chosen behavior — a one-line headline above
  the view, then each difference with where it comes from in both captures;
- **calls**: per tool call (paired in order of appearance), the differences, then its identity
  evolution delta against delta — the raw ``id`` / ``name`` each side sent and the identity in
  force under the chosen behavior;
- **events**: the payloads, aligned on content, marked ``changed`` / ``split`` / ``merged`` /
  ``regrouped`` / ``only A`` / ``only B``; a changed row's differing JSON paths under it.

Runs of identical rows (deltas or payloads) collapse into one row that ``enter`` or a click
expands. The rows come from :mod:`.compare_model`, made between the keys by :mod:`.compare_pane`;
this view renders only the rows on screen, so two 100,000-delta captures scroll like two small
ones.
"""

from __future__ import annotations

import bisect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.message import Message

from ...core.diff import CallDiff, CallRow, Difference, EventRow, event_text, render_value
from ...core.identity import DeltaRow
from ...core.trace import Trace
from ...core.translator import Behavior
from ...core.visible import visible
from ...core.wire import describe_value
from ..cells import cell_len, finish_text, fit, middle_fit, show_value
from ..screens.payload import PayloadScreen
from .compare_model import (
    BLANK,
    CALL_DIFF,
    CALL_HEAD,
    CALL_ROW,
    CALL_RUN,
    CALL_TITLE,
    EV_FIELDS,
    EV_HEAD,
    EV_ROW,
    EV_RUN,
    EVENTS,
    NOTE,
    OUT_DIFF,
    OUT_HEAD,
    OUT_SAME,
    SECTION,
    CompareModel,
    Entry,
    nearest,
)
from .line_view import LineView, Row

__all__ = ["CompareView", "Pending"]

STATUS = {
    "same": ("  same", "compare-view--dim"),
    "changed": ("≠ changed", "compare-view--changed-mark"),
    "split": ("⇉ split", "compare-view--regroup-mark"),
    "merged": ("⇇ merged", "compare-view--regroup-mark"),
    "regrouped": ("⇄ regrouped", "compare-view--regroup-mark"),
    "only-a": ("◀ only A", "compare-view--only-mark"),
    "only-b": ("▶ only B", "compare-view--only-mark"),
}
STATUS_W = 12
WHAT_W = 28
"""The most the "what" column of the outcome and call differences takes."""
MIN_WIDTH = 72
"""The width the rows are laid out for at least: A and B each keep room for a value."""
CALL_SIDE = 60
"""The fewest cells each side of a call's delta table gets: narrower, its seven columns were
cut to ``"ca…E"``. A narrower view scrolls the table sideways (→ to B) while the rows
around it, which fit, stay where they are."""
PROSE = (SECTION, CALL_TITLE, EV_FIELDS)
"""Display rows that are lines of words: they stay put sideways and end in "…" when cut."""
IN_FORCE = " ┆ "
"""Between what a delta sent and the identity in force after it."""

# -- while the comparison is made ----------------------------------------------------------


@dataclass(slots=True)
class Pending:
    """What the view shows while the two traces are compared (a few tenths of a second on
    100,000-delta captures, between the keys): the three sections, each call's title as both
    analyses say it (its wire index, deltas and first line), and how far the comparison is.
    Its rows are worked out from their index, none kept (5,000 calls, 15,000 rows)."""

    a: Trace
    b: Trace
    stage: str = "reading both traces' payloads"
    """What the comparison is doing."""

    @property
    def calls(self) -> int:
        return max(len(self.a.analysis.calls), len(self.b.analysis.calls))

    def __len__(self) -> int:
        return 3 + 1 + (3 * self.calls if self.calls else 1) + 2

    def entry(self, index: int) -> tuple[str, int]:
        """Row ``index``: ``(what, call)``."""
        calls = self.calls
        if index < 3:
            return ("outcome", "progress", "blank")[index], -1
        index -= 3
        if index == 0:
            return "calls", -1
        index -= 1
        body = 3 * calls if calls else 1
        if index < body:
            if not calls:
                return "none", -1
            return ("title", "aligning", "blank")[index % 3], index // 3
        return ("events", "events-progress")[min(index - body, 1)], -1

    def row_of_call(self, call: int) -> int:
        return 4 + 3 * call


def _pending_title(pending: Pending, call: int) -> str:
    def side(label: str, trace: Trace) -> str:
        calls = trace.analysis.calls
        if call >= len(calls):
            return f"{label}: no such call"
        ct = calls[call]
        n = len(ct.deltas)
        wire = visible(describe_value(ct.wire_index))
        return f"{label}: wire {wire} · {n:,} delta{'s' if n != 1 else ''} · line {ct.first_line}"

    return f"   {side('A', pending.a)}   {side('B', pending.b)}"


# -- the view --------------------------------------------------------------------------------


class CompareView(LineView):
    """The three levels as one scrolling table (see the module docstring)."""

    MARK_LEFT_CUT = True  # (→ to B: A's values cut at their start say so)

    COMPONENT_CLASSES: ClassVar[set[str]] = LineView.COMPONENT_CLASSES | {
        "compare-view--section",
        "compare-view--header",
        "compare-view--dim",
        "compare-view--label",
        "compare-view--value",
        "compare-view--changed",
        "compare-view--changed-mark",
        "compare-view--regroup-mark",
        "compare-view--only-mark",
        "compare-view--differ-row",
        "compare-view--run",
        "compare-view--ok",
        "compare-view--bad",
        "compare-view--title",
        "compare-view--after-done",
    }

    DEFAULT_CSS = """
    CompareView {
        & > .compare-view--section { color: $text-primary; text-style: bold; }
        & > .compare-view--header { color: $text-muted; text-style: bold; }
        & > .compare-view--dim { color: $text-muted; }
        & > .compare-view--label { color: $text-muted; }
        & > .compare-view--value { color: $text; }
        & > .compare-view--changed { color: $text-error; text-style: bold; }
        & > .compare-view--changed-mark { color: $text-error; text-style: bold; }
        & > .compare-view--regroup-mark { color: $text-warning; text-style: bold; }
        & > .compare-view--only-mark { color: $text-accent; text-style: bold; }
        & > .compare-view--differ-row { background: $warning 8%; }
        & > .compare-view--run { color: $text-muted; text-style: italic; background: $boost; }
        & > .compare-view--ok { color: $text-success; text-style: bold; }
        & > .compare-view--bad { color: $text-error; text-style: bold; }
        & > .compare-view--title { color: $text; text-style: bold; }
        & > .compare-view--after-done { color: $text-disabled; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "b",
            "toggle_behavior",
            "Behavior",
            id="compare-behavior",
            tooltip="Judge the outcome and show identity under accept-identity / assign-always",
        ),
        Binding(
            "n",
            "next_difference",
            "Next difference",
            id="compare-next-difference",
            tooltip="The next row that differs between A and B",
        ),
        Binding(
            "N",
            "previous_difference",
            "Prev difference",
            id="compare-previous-difference",
            tooltip="The previous row that differs",
        ),
        Binding(
            "s",
            "next_section",
            "Next section",
            id="compare-next-section",
            tooltip="Outcome, calls, events, in turn",
        ),
        Binding(
            "enter",
            "toggle_run",
            "Expand / inspect",
            id="compare-toggle-run",
            tooltip="Expand a run of identical rows (or fold the one under the cursor); "
            "a difference or a payload row in full",
        ),
        Binding(
            "z",
            "toggle_all_runs",
            "Expand all",
            show=False,
            id="compare-toggle-all-runs",
            tooltip="Expand or collapse every run of identical rows",
        ),
    ]

    class BehaviorChanged(Message):
        """The behavior the comparison is judged under changed."""

        def __init__(self, behavior: Behavior) -> None:
            super().__init__()
            self.behavior = behavior

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: CompareModel | None = None
        self.pending: Pending | None = None
        """What is shown while the comparison is made (:class:`Pending`)."""
        self._pending_start = 0
        self.on_demand: Callable[[], bool] | None = None
        """Finish the comparison at once (a key that needs it: n, N, s, enter, z); whether
        there was one to finish (the pane that runs it sets this)."""
        self.message = ""
        self.behavior = Behavior.ACCEPT_IDENTITY
        self._what_w = WHAT_W
        """The "what" column's width for this model: its longest label, at most WHAT_W."""

    # -- content -------------------------------------------------------------------------

    def show(self, model: CompareModel, *, keep_position: bool = False) -> None:
        old = self.model
        scroll = self.scroll_offset
        cursor = self.cursor
        pending = self.pending
        moved = pending is not None and cursor != self._pending_start
        if keep_position and old is not None:
            model.expanded = set(old.expanded)
            model.layout()
        self.model = model
        self.pending = None
        self.note_painted()
        self.message = ""
        self.fixed_rows = 1  # the line the section's heading stays on (row_at)
        self._what_w = _what_width(model)
        self._shape()
        if keep_position and old is not None:
            self.scroll_to(0, scroll.y, animate=False, immediate=True)
            self.set_reactive(LineView.cursor, min(cursor, len(model.display) - 1))
        else:
            self.scroll_to(0, 0, animate=False, immediate=True)
            first = self._find(0, 1)
            self.set_reactive(LineView.cursor, first if first is not None else 1)
            if moved and pending is not None:  # moved while it was made: where it was
                self.move_cursor(_after_pending(model, pending, cursor), user=False, center=True)

    def show_pending(self, pending: Pending) -> None:
        """The comparison is being made: its sections and the calls' titles, the cursor on
        the first call (see :class:`Pending`)."""
        self.model = None
        self.pending = pending
        self.message = ""
        self.fixed_rows = 0
        self._shape()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._pending_start = pending.row_of_call(0) if pending.calls else 1
        self.set_reactive(LineView.cursor, self._pending_start)
        self.note_painted()

    def show_progress(self, stage: str) -> None:
        pending = self.pending
        if pending is not None and pending.stage != stage:
            pending.stage = stage
            self.invalidate()

    def _build_now(self) -> bool:
        """The comparison finished at once for a key that needs it (whether it was made)."""
        return self.model is None and self.on_demand is not None and self.on_demand()

    def show_message(self, text: str) -> None:
        self.model = None
        self.pending = None
        self.message = text
        self.fixed_rows = 0
        self._shape()
        self.set_reactive(LineView.cursor, -1)

    def _message_lines(self) -> list[str]:
        """The message, wrapped at word boundaries to the view's width (nothing is cut)."""
        room = (self.scrollable_content_region.width or self.size.width or 80) - 4
        # (not at hyphens: "replay-tui a.sse" stays whole)
        return textwrap.wrap(self.message, max(room, 20), break_on_hyphens=False) or [""]

    def on_resize(self) -> None:
        self._shape()

    def _shape(self) -> None:
        """The rows and the width they scroll over: a wide view's, less a vertical scrollbar
        (rows never run under it); a narrow one's (beside the list at 80x24) MIN_WIDTH,
        and ← → scroll to B."""
        model = self.model
        if model is not None:
            table = self._call_table_width() if model.diff.calls else 0
            self.set_shape(len(model.display), max(MIN_WIDTH, self.size.width - 1, table))
        elif self.pending is not None:
            self.set_shape(len(self.pending), max(MIN_WIDTH, self.size.width - 1))
        else:
            self.set_shape(1 + len(self._message_lines()), self.size.width)

    def row_at(self, y: int) -> int:
        """The row on line ``y``: the top line keeps the heading of the section the rows under
        it belong to (OUTCOME, CALLS, EVENTS), so which one is being read stays said as its
        rows scroll; the rows scroll under it."""
        top = int(self.scroll_offset.y)
        model = self.model
        if y == 0 and model is not None and model.sections:
            at = bisect.bisect_right(model.sections, top + 1) - 1
            heading = model.sections[max(at, 0)]
            return heading if heading < top + 1 else top
        return top + y

    def is_selectable(self, index: int) -> bool:
        model = self.model
        pending = self.pending
        if model is None and pending is not None and 0 <= index < len(pending):
            return pending.entry(index)[0] not in ("blank", "outcome", "calls", "events")
        if model is None or not 0 <= index < len(model.display):
            return False
        return model.display[index][0] not in (BLANK, SECTION)

    # -- rendering -----------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.piece_style(name)

    def _width(self) -> int:
        # The region left of the scrollbar: rows never run under it.
        return max(self.scrollable_content_region.width or self.size.width, MIN_WIDTH)

    def column_stops(self) -> list[int]:
        """Where ← → stop, as scroll offsets (the view scrolls sideways only when narrower
        than MIN_WIDTH): the left edge, and the offset that brings B's half, from its " │ ",
        just past the columns that stay in place, in the widest rows on screen (a call's
        delta table, else the events, else the outcome's; narrower rows scroll only as far
        as their end). B's content x, taken for an offset, went past the kept columns' width
        into B: at 60x20 "B · traces/…" showed as "…s/captures/…", and "B:1" was gone."""
        model = self.model
        top = int(self.scroll_offset.y)
        shown = range(top, min(top + self.size.height, len(model.display) if model else 0))
        kinds = {model.display[i][0] for i in shown} if model is not None else set()
        if kinds & {CALL_HEAD, CALL_ROW}:
            dw, lw = self._call_widths()[:2]
            start, keep = 2 + self._call_halves()[0], 2 + dw + 1 + lw + 1
        else:
            events = bool(kinds & {EV_HEAD, EV_ROW})
            keep = STATUS_W + 2 if events else self._what_w + 2
            start = keep + self._halves(keep)[0]
        return [0, max(0, start - keep)]

    def row_scroll(self, index: int, scroll_x: int, length: int) -> int:
        # A call's delta table scrolls sideways as far as asked; the rows around it (laid out
        # for the view) only as far as their end: one that fits stays whole.
        model = self.model
        if model is None:
            return scroll_x
        kind = model.display[index][0]
        if kind in (CALL_HEAD, CALL_ROW):
            return scroll_x
        if kind in PROSE:
            return 0  # lines of words stay where they are read; "…" says they go on
        return self.up_to_its_end(scroll_x, length)

    def is_prose(self, index: int) -> bool:
        model = self.model
        return model is not None and model.display[index][0] in PROSE

    def row_sticky(self, index: int) -> int:
        """A difference's "what", an event row's status and a delta row's mark and A's delta
        and line stay in place while ← → bring B into a narrow view: which field (which
        pair of deltas) a row is about is never scrolled away."""
        model = self.model
        if model is None or not 0 <= index < len(model.display):
            return 0
        kind = model.display[index][0]
        if kind in (OUT_HEAD, OUT_DIFF, CALL_DIFF):
            return self._what_w + 2
        if kind in (EV_HEAD, EV_ROW):
            return STATUS_W + 2
        if kind in (CALL_HEAD, CALL_ROW):  # the mark, and A's delta and line: which pair
            dw, lw = self._call_widths()[:2]
            return 2 + dw + 1 + lw + 1
        return 0

    def _call_table_width(self) -> int:
        """A call's delta table: as wide as the rows, or two CALL_SIDE sides."""
        return max(self._width(), 2 + 2 * CALL_SIDE + 3)

    def _call_halves(self) -> tuple[int, int]:
        room = self._call_table_width() - 2 - 3
        return room // 2, room - room // 2

    def _halves(self, lead: int) -> tuple[int, int]:
        room = self._width() - lead - 3
        return room // 2, room - room // 2

    def render_row(self, index: int) -> Row:
        model = self.model
        style = self._style
        if model is None and self.pending is not None:
            return self._pending_line(self.pending, index), Style()
        if model is None:
            lines = self._message_lines()
            if 1 <= index <= len(lines):
                return [Segment("  " + lines[index - 1], style("compare-view--dim"))], Style()
            return [], Style()
        kind, x, y = model.display[index]
        if kind == BLANK:
            return [], Style()
        if kind == SECTION:
            return self._section(model, x), Style()
        if kind == NOTE:
            text = "  No tool calls in either trace."
            return [Segment(text, style("compare-view--dim"))], Style()
        if kind == OUT_SAME:
            od = model.outcome
            text = (
                f"  ✓ the agent receives the same thing from both under {od.behavior.value}:"
                f" finish, every call's id, name and arguments, the text, the usage"
            )
            return [Segment(text, style("compare-view--ok"))], Style()
        if kind == OUT_HEAD:
            return self._difference_head(model), Style()
        if kind == OUT_DIFF:
            return self._difference(model.outcome.differences[x], 2), self._differ_fill()
        if kind == CALL_TITLE:
            return self._call_title(model.diff.calls[x], model.changed_rows[x]), Style()
        if kind == CALL_DIFF:
            return self._difference(model.diff.calls[x].differences[y], 4), self._differ_fill()
        if kind == CALL_HEAD:
            return self._call_head(model), Style()
        if kind == CALL_ROW:
            call_row = model.diff.calls[x].rows[y]
            fill = self._differ_fill() if call_row.changed else Style()
            return self._call_row(model, call_row), fill
        if kind == CALL_RUN:
            return self._call_run(model, x, y), self.fill_style("compare-view--run")
        if kind == EV_HEAD:
            return self._event_head(model), Style()
        if kind == EV_ROW:
            row = model.event_rows[x]
            fill = self._differ_fill() if row.changed else Style()
            return self._event_row(model, row, y), fill
        if kind == EV_FIELDS:
            return self._event_fields(model.event_rows[x]), self._differ_fill()
        if kind == EV_RUN:
            return self._event_run(model, x), self.fill_style("compare-view--run")
        return [], Style()

    def _pending_line(self, pending: Pending, index: int) -> list[Segment]:
        style = self._style
        what, call = pending.entry(index)
        dim = style("compare-view--dim")
        if what in ("outcome", "calls", "events"):
            title = {
                "outcome": f"OUTCOME under {self.behavior.value}",
                "calls": "CALLS · identity evolution, delta against delta",
                "events": "EVENTS · payloads aligned on content",
            }[what]
            n = pending.calls
            tail = (
                f"{n:,} call{'s' if n != 1 else ''} · comparing…"
                if what == "calls"
                else "comparing…"
            )
            text = f" {title} · {tail} "
            rule = max(0, self._width() - cell_len(text) - 2)
            return [
                Segment("─", dim),
                Segment(text, style("compare-view--section")),
                Segment("─" * rule, dim),
            ]
        if what == "progress":
            text = (
                f"  ⋯ {pending.stage}… the outcome, each call's deltas and the payloads"
                " follow (n, s, enter: at once)"
            )
            return [Segment(text, style("compare-view--run"))]
        if what == "none":
            return [Segment("  No tool calls in either trace.", dim)]
        if what == "title":
            return [
                Segment("▸ ", dim),
                Segment(f"call {call}", style("compare-view--title")),
                Segment(_pending_title(pending, call), dim),
            ]
        if what == "aligning":
            return [Segment("  ⋯ deltas being aligned…", style("compare-view--run"))]
        if what == "events-progress":
            na, nb = len(pending.a.payloads), len(pending.b.payloads)
            text = f"  ⋯ {na:,} and {nb:,} payloads being aligned…"
            return [Segment(text, style("compare-view--run"))]
        return []

    def _differ_fill(self) -> Style:
        return self.fill_style("compare-view--differ-row")

    def _section(self, model: CompareModel, which: int) -> list[Segment]:
        style = self._style
        if which == 0:
            od = model.outcome
            n = len(od.differences)
            title = f"OUTCOME under {od.behavior.value}"
            tail = "same" if od.same else f"{n} difference{'s' if n != 1 else ''}"
        elif which == 1:
            calls = model.diff.calls
            changed = sum(1 for c in calls if c.changed)
            title = (
                "CALLS · identity evolution, delta against delta: as sent → in force under "
                + model.behavior.value
            )
            tail = f"{changed} of {len(calls)} differ" if calls else "none"
        else:
            rows = model.event_rows
            title = "EVENTS · payloads aligned on content"
            tail = f"{model.events_differ:,} of {len(rows):,} rows differ"
            if not model.diff.include_volatile:
                tail += " (per-request id, created, fingerprint ignored)"
        text = f" {title} · {tail} "
        rule = max(0, self._width() - cell_len(text) - 2)
        return [
            Segment("─", style("compare-view--dim")),
            Segment(text, style("compare-view--section")),
            Segment("─" * rule, style("compare-view--dim")),
        ]

    # outcome and call differences: what | A:line value | B:line value

    def _difference_head(self, model: CompareModel) -> list[Segment]:
        left, right = self._halves(self._what_w + 2)
        head = self._style("compare-view--header")
        return [
            Segment("  " + fit("what", self._what_w), head),
            Segment(fit("A · " + visible(model.a.address), left), head),
            Segment(" │ ", self._style("compare-view--dim")),
            Segment(fit("B · " + visible(model.b.address), right), head),
        ]

    def _difference(self, d: Difference, indent: int) -> list[Segment]:
        style = self._style
        what_w = self._what_w + 2 - indent
        left, right = self._halves(self._what_w + 2)
        segs = [
            Segment(" " * indent + fit(visible(d.what), what_w), style("compare-view--label")),
        ]
        segs += self._located("A", d.a_line, _text(d, d.a, d.a_text), left)
        segs.append(Segment(" │ ", style("compare-view--dim")))
        segs += self._located("B", d.b_line, _text(d, d.b, d.b_text), right)
        return segs

    def _where_w(self) -> int:
        """The "A:12" column: 8 cells, or a line number of both traces and a space more
        ("A:100007" ran into the value after it)."""
        model = self.model
        if model is None:
            return 8
        lines = max(model.a.framing.lines, model.b.framing.lines)
        return max(8, len(str(lines)) + 3)

    def _located(self, side: str, line: int | None, text: str, width: int) -> list[Segment]:
        where = f"{side}:{line}" if line is not None else f"{side}:–"
        where_w = self._where_w()
        return [
            Segment(fit(where, where_w), self._style("compare-view--dim")),
            Segment(fit(text, width - where_w), self._style("compare-view--changed")),
        ]

    # calls

    def _call_title(self, cd: CallDiff, rows: int) -> list[Segment]:
        style = self._style

        def side(label: str, ct: Any) -> str:
            if ct is None:
                return f"{label}: no such call"
            n = len(ct.deltas)
            wire = visible(describe_value(ct.wire_index))
            return (
                f"{label}: wire {wire} · {n:,} delta{'s' if n != 1 else ''} · line {ct.first_line}"
            )

        segs = [
            Segment("▸ ", style("compare-view--dim")),
            Segment(f"call {cd.call}", style("compare-view--title")),
            Segment("   " + side("A", cd.a) + "   " + side("B", cd.b), style("compare-view--dim")),
        ]
        if cd.changed:
            n = len(cd.differences)
            words = []
            if n:
                words.append(f"{n} difference{'s' if n != 1 else ''}")
            if rows:
                words.append(f"{rows:,} delta{'s' if rows != 1 else ''} differ")
            segs.append(Segment("   ✗ " + ", ".join(words), style("compare-view--bad")))
        else:
            segs.append(Segment("   ✓ same evolution", style("compare-view--ok")))
        return segs

    def _call_widths(self) -> tuple[int, int, int, int, int, int]:
        """Per side: the delta, line, id, name and arguments column widths, the side's width.

        Ids are the longest values (and differ at both ends), so they get the most room;
        the arguments fragment the least (the outcome section compares whole arguments)."""
        left, _ = self._call_halves()
        model = self.model
        dw, lw = (model.delta_w, model.line_w) if model is not None else (3, 4)
        room = left - dw - lw - 2 - 6  # the gaps between the columns, and the ┆
        args = max(6, min(24, room // 6))
        id_w = max(6, min(30, (room - args) * 3 // 10))
        name_w = max(5, min(20, (room - args) // 4))  # (a tool's name, whole, says the most)
        return dw, lw, id_w, name_w, max(6, room - 2 * (id_w + name_w)), left

    def _call_head(self, model: CompareModel) -> list[Segment]:
        dw, lw, id_w, name_w, args, left = self._call_widths()
        cols = [
            fit("Δ", dw),
            fit("line", lw),
            fit("sent id", id_w),
            fit("sent name", name_w),
            fit("→ id", id_w),
            fit("→ name", name_w),
            fit("arguments", args),
        ]
        text = " ".join(cols[:4]) + IN_FORCE + " ".join(cols[4:])
        head = self._style("compare-view--header")
        return [
            Segment("  "),
            Segment(fit(text, left), head),
            Segment(" │ ", self._style("compare-view--dim")),
            Segment(text, head),
        ]

    def _call_row(self, model: CompareModel, row: CallRow) -> list[Segment]:
        style = self._style
        marker = {"same": " ", "changed": "≠", "only-a": "◀", "only-b": "▶"}[row.status]
        mark_style = "compare-view--changed-mark" if row.changed else "compare-view--dim"
        accept = model.behavior is Behavior.ACCEPT_IDENTITY
        changed = set(row.changes) if row.status == "changed" else set()
        suffix = "(accept-identity)" if accept else "(assign-always)"
        segs = [Segment(marker + " ", style(mark_style))]
        segs += self._delta_cells(row.a, changed, suffix, accept, row.status == "only-a")
        segs.append(Segment(" │ ", style("compare-view--dim")))
        segs += self._delta_cells(row.b, changed, suffix, accept, row.status == "only-b")
        return segs

    def _delta_cells(
        self, r: DeltaRow | None, changed: set[str], suffix: str, accept: bool, alone: bool
    ) -> list[Segment]:
        dw, lw, id_w, name_w, args, left = self._call_widths()
        style = self._style
        if r is None:
            return [Segment(fit("  —", left), style("compare-view--dim"))]
        value = style("compare-view--changed" if alone else "compare-view--value")
        hit = style("compare-view--changed")
        dim = style("compare-view--dim")
        cells: list[tuple[str, int, str]] = [
            (f"{r.delta:,}", dw, ""),
            (str(r.line), lw, ""),
            (show_value(r.raw_id), id_w, "raw id"),
            (show_value(r.raw_name), name_w, "raw name"),
            (show_value(r.id_accept if accept else r.id_assign), id_w, "id " + suffix),
            (show_value(r.name_accept if accept else r.name_assign), name_w, "name " + suffix),
            (show_value(r.arguments), args, "arguments"),
        ]
        segs: list[Segment] = []
        for k, (text, width, label) in enumerate(cells):
            if k == 4:
                segs.append(Segment(IN_FORCE, dim))
            elif k:
                segs.append(Segment(" "))
            cut = middle_fit if "id" in label or "name" in label else fit
            segs.append(
                Segment(cut(text, width), hit if label in changed else dim if k < 2 else value)
            )
        return segs

    def _call_run(self, model: CompareModel, c: int, run: int) -> list[Segment]:
        start, end = model.call_runs[c][run]
        rows = model.diff.calls[c].rows
        first, last = rows[start], rows[end - 1]
        span = ""
        if (
            first.a is not None
            and last.a is not None
            and first.b is not None
            and last.b is not None
        ):
            span = f" (A:{first.a.line}–{last.a.line} · B:{first.b.line}–{last.b.line})"
        text = f"  ⋯ {end - start:,} identical deltas{span} — enter or click to expand"
        return [Segment(text, self._style("compare-view--run"))]

    # events

    def _event_head(self, model: CompareModel) -> list[Segment]:
        left, right = self._halves(STATUS_W + 2)
        head = self._style("compare-view--header")
        return [
            Segment("  " + fit("row", STATUS_W), head),
            Segment(fit("A · line · payload", left), head),
            Segment(" │ ", self._style("compare-view--dim")),
            Segment(fit("B · line · payload", right), head),
        ]

    def _event_row(self, model: CompareModel, row: EventRow, sub: int) -> list[Segment]:
        style = self._style
        left, right = self._halves(STATUS_W + 2)
        if sub == 0:
            text, name = STATUS[row.status]
            if row.kind == "comment":
                text += " :"
            segs = [Segment("  "), Segment(fit(text, STATUS_W), style(name))]
        else:
            segs = [Segment(" " * (STATUS_W + 2))]
        if row.kind == "comment":
            comment = visible(row.note)
            a = (f"A:{_lines(row.a_lines)}", comment) if row.a_lines else None
            b = (f"B:{_lines(row.b_lines)}", comment) if row.b_lines else None
            segs += self._event_side(a, None, left, "compare-view--dim")
            segs.append(Segment(" │ ", style("compare-view--dim")))
            segs += self._event_side(b, None, right, "compare-view--dim")
            return segs
        texts_a = [visible(event_text(model.a, i)) for i in row.a[sub : sub + 1]]
        texts_b = [visible(event_text(model.b, i)) for i in row.b[sub : sub + 1]]
        start_a, start_b, span = _starts(model, row)
        base = "compare-view--value" if row.replayed else "compare-view--after-done"
        side_a = (f"A:{row.a_lines[sub]}", texts_a[0]) if texts_a else None
        side_b = (f"B:{row.b_lines[sub]}", texts_b[0]) if texts_b else None
        # The row's note goes in the first empty cell (a one-sided row, a split's short side).
        note = visible(row.note) if row.note else None
        note_a = note if sub == len(row.a) else None
        note_b = note if sub == len(row.b) else None
        hi_a: tuple[int, int] | None = None
        hi_b: tuple[int, int] | None = None
        if row.status == "changed" and span is not None:
            hi_a, hi_b = span
        segs += self._event_side(side_a, hi_a, left, base, start_a, note_a)
        segs.append(Segment(" │ ", style("compare-view--dim")))
        segs += self._event_side(side_b, hi_b, right, base, start_b, note_b)
        return segs

    def _event_side(
        self,
        side: tuple[str, str] | None,
        highlight: tuple[int, int] | None,
        width: int,
        base: str,
        start: int = 0,
        note: str | None = None,
    ) -> list[Segment]:
        style = self._style
        if side is None:
            text = f"  — {note}" if note else "  —"
            return [Segment(fit(text, width), style("compare-view--dim"))]
        where, text = side
        where_w = self._where_w()
        segs = [Segment(fit(where, where_w), style("compare-view--dim"))]
        room = width - where_w
        if start > 0:
            text = "…" + text[start:]
            if highlight is not None:
                lo, hi = highlight[0] - start + 1, highlight[1] - start + 1
                highlight = (max(lo, 1), max(hi, 1))
        pieces: list[tuple[str, str]] = []
        if highlight is not None and highlight[0] < highlight[1]:
            lo, hi = highlight
            pieces = [(text[:lo], base), (text[lo:hi], "compare-view--changed"), (text[hi:], base)]
        else:
            pieces = [(text, base)]
        used = 0
        for piece, name in pieces:
            if used >= room or not piece:
                continue
            piece = piece if cell_len(piece) <= room - used else fit(piece, room - used)
            segs.append(Segment(piece, style(name)))
            used += cell_len(piece)
        if used < room:
            segs.append(Segment(" " * (room - used)))
        return segs

    def _event_fields(self, row: EventRow) -> list[Segment]:
        style = self._style
        parts = [
            f"{visible(f.path) or '(payload)'}: {render_value(f.a, 'value')} vs "
            f"{render_value(f.b, 'value')}"
            for f in row.fields[:4]
        ]
        more = len(row.fields) - 4 + row.more_fields
        text = " · ".join(parts) + (f" (+{more} more)" if more > 0 else "")
        return [
            Segment(" " * (STATUS_W + 2) + "↳ ", style("compare-view--dim")),
            Segment(text, style("compare-view--changed")),
        ]

    def _event_run(self, model: CompareModel, run: int) -> list[Segment]:
        start, end = model.event_runs[run]
        rows = model.event_rows
        first, last = rows[start], rows[end - 1]
        span = ""
        if first.a_lines and last.a_lines and first.b_lines and last.b_lines:
            span = (
                f" (A:{first.a_lines[0]}–{last.a_lines[-1]} · B:{first.b_lines[0]}–"
                f"{last.b_lines[-1]})"
            )
        text = f"  ⋯ {end - start:,} identical payloads{span} — enter or click to expand"
        return [Segment(text, self._style("compare-view--run"))]

    # -- actions -------------------------------------------------------------------------

    def _find(self, start: int, step: int) -> int | None:
        model = self.model
        if model is None:
            return None
        display = model.display
        i = start
        while 0 <= i < len(display):
            if model.is_difference(display[i]):
                return i
            i += step
        return None

    def action_next_difference(self) -> None:
        if self._build_now():  # (shown at its first difference)
            return
        self._jump(self._find(self.cursor + 1, 1), "No more differences below.")

    def action_previous_difference(self) -> None:
        if self._build_now():
            return
        self._jump(self._find(self.cursor - 1, -1), "No more differences above.")

    def _jump(self, found: int | None, none: str) -> None:
        if self.model is None:  # nothing compared yet: the message above says what to do
            self.notify(self.message or none, timeout=3, markup=False)
            return
        if found is None:
            self.notify(none, timeout=2, markup=False)
            return
        self.move_cursor(found, center=True)

    def action_next_section(self) -> None:
        self._build_now()
        model = self.model
        if model is None:
            return
        later = [s for s in model.sections if s > self.cursor]
        target = later[0] if later else model.sections[0]
        self.scroll_to(y=target, animate=False, immediate=True)
        self.move_cursor(target + 1)
        self.scroll_to(y=target, animate=False, immediate=True)

    def action_toggle_behavior(self) -> None:
        model = self.model
        new = (
            Behavior.ASSIGN_ALWAYS
            if self.behavior is Behavior.ACCEPT_IDENTITY
            else Behavior.ACCEPT_IDENTITY
        )
        self.behavior = new
        if model is not None:
            before = len(model.display)
            model.behavior = new
            model.layout(calls=False, events=False)
            self._what_w = _what_width(model)
            shift = len(model.display) - before
            cursor = self.cursor
            self._shape()
            if cursor >= model.sections[1] - shift:
                self.set_reactive(LineView.cursor, max(0, cursor + shift))
            self.invalidate()
        self.post_message(self.BehaviorChanged(new))

    def on_row_clicked(self, index: int) -> None:
        model = self.model
        if model is not None and model.display[index][0] in (CALL_RUN, EV_RUN):
            self.action_toggle_run()

    def action_inspect(self) -> None:
        self.action_toggle_run()

    def action_toggle_run(self) -> None:
        if self._build_now():
            return
        model = self.model
        if model is None or not 0 <= self.cursor < len(model.display):
            return
        entry = model.display[self.cursor]
        key = model.run_at(entry)
        if key is None:
            self._inspect(entry)
            return
        if entry[0] in (CALL_RUN, EV_RUN):
            model.expanded.add(key)
        else:
            model.expanded.discard(key)
        self._relayout(key[0], entry)

    def _inspect(self, entry: Entry) -> None:
        """A difference, or a row of payloads, in full in a window: what the row cuts to its
        columns ("call_621bcbeb4…") whole, each side's value as JSON (absent: said so)."""
        model = self.model
        assert model is not None
        kind, x, y = entry
        sections: list[tuple[str, str]]
        if kind in (OUT_DIFF, CALL_DIFF):
            d = (
                model.outcome.differences[x]
                if kind == OUT_DIFF
                else model.diff.calls[x].differences[y]
            )
            sections = [
                (_where("A", model.a.address, d.a_line), describe_value(d.a)),
                (_where("B", model.b.address, d.b_line), describe_value(d.b)),
            ]
            title = f"{d.what} · {'outcome' if kind == OUT_DIFF else 'call'} difference"
        elif kind in (EV_ROW, EV_FIELDS):
            row = model.event_rows[x]
            if row.kind == "comment":
                sections = [("comment lines", row.note)]
            else:
                sections = [
                    (_where(side, trace.address, n), text)
                    for side, trace, n, text in _payloads(model, row)
                ]
            title = f"payloads · {row.status}"
        else:
            return
        copied = self.copy_text()  # (what c copies on this row)
        copy = copied[0] if copied is not None else ""
        self.app.push_screen(PayloadScreen(title, sections, copy))

    def _relayout(self, part: int, entry: Entry) -> None:
        model = self.model
        if model is None:
            return
        events = part == EVENTS
        model.layout(calls=not events, events=events)
        self._shape()
        target = nearest(model, entry)
        self.move_cursor(target, user=False)

    def action_toggle_all_runs(self) -> None:
        self._build_now()
        model = self.model
        if model is None:
            return
        every = {(c, k) for c, runs in enumerate(model.call_runs) for k in range(len(runs))}
        every |= {(EVENTS, k) for k in range(len(model.event_runs))}
        model.expanded = set() if model.expanded >= every else every
        model.layout()
        self._shape()

    def copy_text(self) -> tuple[str, str] | None:
        model = self.model
        if model is None or not 0 <= self.cursor < len(model.display):
            return None
        kind, x, y = model.display[self.cursor]
        if kind == OUT_DIFF:
            return model.outcome.differences[x].text(), "the outcome difference"
        if kind == CALL_DIFF:
            return model.diff.calls[x].differences[y].text(), "the call difference"
        if kind in (EV_ROW, EV_FIELDS):
            row = model.event_rows[x]
            lines = [f"{side}:{n}: {text}" for side, _, n, text in _payloads(model, row)]
            if row.kind == "comment":
                lines = [row.note]
            return "\n".join(lines), f"the {row.status} payload row"
        headline = model.outcome.headline()
        return headline, "the outcome headline"


def _after_pending(model: CompareModel, pending: Pending, cursor: int) -> int:
    """The row of ``model`` for the row ``cursor`` was on while it was made: a call's
    title for its rows, the events' heading for theirs."""
    what, call = pending.entry(cursor)
    if call >= 0:
        return nearest(model, (CALL_TITLE, call, 0))
    if what in ("events", "events-progress"):
        return model.sections[2] + 1
    return model.sections[1] + 1 if what == "calls" else 1


def _what_width(model: CompareModel) -> int:
    """The "what" column's width: its longest label and a space (a call's label is indented
    two more), so that the values have the rest of a narrow terminal (for the behavior the
    outcome is under)."""
    widths = [cell_len(visible(d.what)) + 1 for d in model.outcome.differences]
    widths += [cell_len(visible(d.what)) + 3 for c in model.diff.calls for d in c.differences]
    return min(WHAT_W, max([len("what") + 1, *widths]))


def _text(d: Difference, value: Any, default: Callable[[], str]) -> str:
    """A side of a difference; an error finish says its code as the tables do (``""``)."""
    if d.kind == "finish" and isinstance(value, dict):
        return finish_text(value)
    return default()


def _where(side: str, address: str, line: int | None) -> str:
    return f"{side} · {address}" + (f" · line {line}" if line is not None else "")


def _payloads(model: CompareModel, row: EventRow) -> list[tuple[str, Trace, int, str]]:
    """Each payload of an event row, A's then B's: its side, trace, line and text."""
    return [
        (side, trace, n, event_text(trace, i))
        for side, trace, lines, events in (
            ("A", model.a, row.a_lines, row.a),
            ("B", model.b, row.b_lines, row.b),
        )
        for n, i in zip(lines, events, strict=False)
    ]


def _lines(lines: tuple[int, ...]) -> str:
    if len(lines) > 3:
        return f"{lines[0]}–{lines[-1]}"
    return ",".join(map(str, lines))


_CHOICES = '"choices"'


def _starts(
    model: CompareModel, row: EventRow
) -> tuple[int, int, tuple[tuple[int, int], tuple[int, int]] | None]:
    """Where each side's excerpt starts, and (for a changed row) the differing span of each.

    The chunk envelope (id, object, created, model) says little, so excerpts start at
    ``"choices"``; a changed row whose texts part after that starts a little before where they
    part, and marks the differing span. (When they part in the envelope already, key order or
    a per-request value differs: the row's differing fields, shown under it, say it better.)
    """
    ta = visible(event_text(model.a, row.a[0])) if row.a else ""
    tb = visible(event_text(model.b, row.b[0])) if row.b else ""
    sa = max(ta.find(_CHOICES), 0)
    sb = max(tb.find(_CHOICES), 0)
    if row.status != "changed" or not ta or not tb:
        return sa, sb, None
    n = min(len(ta), len(tb))
    p = 0
    while p < n and ta[p] == tb[p]:
        p += 1
    s = 0
    while s < n - p and ta[len(ta) - 1 - s] == tb[len(tb) - 1 - s]:
        s += 1
    if p < max(sa, sb):
        return sa, sb, None
    if p - 16 > max(sa, sb):
        sa = sb = p - 16
    return sa, sb, ((p, len(ta) - s), (p, len(tb) - s))
