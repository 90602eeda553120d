"""The clients view: which client libraries would mis-assemble this trace's tool calls.

A matrix of policies (the client libraries, then the designs the seed record rejected, each
group apart) × the trace's tool calls; each cell says in words what that library makes of that
call (``ok``, ``name doubled: …``, ``call dropped (…)``), and a last column what happens to the
response as a whole (a throw, error parts, extra calls). Under the matrix, the selected cell in
detail: what the library hands the application beside what the stream meant.

Assessing costs a fraction of a second per thousand deltas per library, so it runs in a worker,
one policy at a time; the rows fill in as each finishes and the header says how far it got.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from time import monotonic
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.strip import Strip
from textual.worker import get_current_worker

from ...core.trace import Trace, gc_paused
from ...core.visible import visible
from ...core.wire import UNSET, describe_value
from ...core.words import cut_text
from ..cells import cell_len, fit, middle_fit
from .client_detail import ClientDetail, detail_lines
from .clients_model import (
    GROUPS,
    ClientsModel,
    call_cell,
    plain,
    response_cell,
    start_model,
    tool_name,
)
from .line_view import LineView, Row

if TYPE_CHECKING:  # the policies are imported when the view is first shown, not at start-up
    from ...clientlibs import (
        AssembledCall,
        ClientError,
        ClientOutcome,
        Frame,
        MeantCall,
        Policy,
        Quiet,
    )

__all__ = ["ClientsMatrix", "ClientsPane"]

GUTTER = 1
NAME_W = 32
"""The longest policy key (``refuse-first-delta-without-id``), its mark and a gap."""
CELL_W = 36
RESPONSE_W = 40
"""The fewest cells a call's column and the response's get (narrower, the view scrolls)."""
WIDEST = 80
"""The most they get: a wide view shares its room among them (at 200 columns the cells
were cut beside 100 free ones), up to this."""
STICKY = GUTTER + NAME_W
"""The client column stays put while the calls scroll sideways."""
CHECK_EVERY = 500
"""Frames a policy reads between two looks at whether the worker was cancelled."""


# -- the matrix --------------------------------------------------------------------------------


class ClientsMatrix(LineView):
    """Policies × calls; the cursor is one cell (up/down a policy, left/right a column)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = LineView.COMPONENT_CLASSES | {
        "clients-matrix--header",
        "clients-matrix--dim",
        "clients-matrix--group",
        "clients-matrix--ok",
        "clients-matrix--bad",
        "clients-matrix--pending",
        "clients-matrix--name",
        "clients-matrix--cell",
    }

    DEFAULT_CSS = """
    ClientsMatrix {
        height: auto;
        max-height: 60%;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
        & > .line-view--cursor { background: $primary 8%; }
        &:focus > .line-view--cursor { background: $primary 12%; text-style: none; }
        & > .clients-matrix--header { color: $text-muted; text-style: bold; }
        & > .clients-matrix--dim { color: $text-muted; }
        & > .clients-matrix--group { color: $text-primary; text-style: bold; }
        & > .clients-matrix--ok { color: $text-success; }
        & > .clients-matrix--bad { color: $text-error; }
        & > .clients-matrix--pending { color: $text-disabled; text-style: italic; }
        & > .clients-matrix--name { color: $text; }
        & > .clients-matrix--cell { background: $primary 30%; text-style: bold; }
        &:focus > .clients-matrix--cell { background: $primary 55%; text-style: bold; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cell_left", "Previous column", show=False, id="clients-previous-column"),
        Binding("right", "cell_right", "Next column", show=False, id="clients-next-column"),
    ]

    class CellSelected(Message):
        """The selected cell changed (by the user or the view)."""

        def __init__(self, matrix: ClientsMatrix) -> None:
            super().__init__()
            self.matrix = matrix

        @property
        def control(self) -> ClientsMatrix:
            return self.matrix

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ClientsMatrix.CellSelected) and message.matrix is self.matrix

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: ClientsModel | None = None
        self.column = 0
        self.message = ""
        self.user_moved = False
        self._drawn = range(0)
        """The columns the cached rows drew (:meth:`_window`)."""

    # -- content -------------------------------------------------------------------------

    def show(self, model: ClientsModel, *, keep_position: bool = False) -> None:
        old = self.model
        self.model = model
        self.message = ""
        self.sticky = STICKY  # the client column stays put while the calls scroll sideways
        self.fixed_rows = 2  # and the two heading rows while the libraries scroll
        rows = len(model.layout)
        self.set_shape(rows, self._table_width())
        if keep_position and old is not None and self.cursor >= 0:
            self.column = min(self.column, model.columns - 1)
            self.move_cursor(self.cursor, user=False)
        else:
            self.user_moved = False
            self.column = 0
            self.scroll_to(0, 0, animate=False, immediate=True)
            self.move_cursor(model.row_of(model.policies[0].key), user=False)
        self.invalidate()
        self.post_message(self.CellSelected(self))

    def show_message(self, text: str) -> None:
        self.model = None
        self.message = text
        self.sticky = 0
        self.fixed_rows = 0
        self.set_shape(1, cell_len(text) + 2)
        self.set_reactive(LineView.cursor, -1)
        self.invalidate()
        self.post_message(self.CellSelected(self))

    def selected(self) -> tuple[Policy, int] | None:
        """The policy and column under the cursor."""
        if self.model is None:
            return None
        policy = self.model.policy_at(self.cursor)
        return None if policy is None else (policy, self.column)

    def select(self, row: int, column: int) -> None:
        """Put the cursor on a cell (by the view, not the user)."""
        if self.model is None:
            return
        self.column = max(0, min(column, self.model.columns - 1))
        self.move_cursor(row, user=False)
        self._reveal_column()
        self.invalidate()
        self.post_message(self.CellSelected(self))

    def is_selectable(self, index: int) -> bool:
        return self.model is not None and self.model.policy_at(index) is not None

    # -- geometry ------------------------------------------------------------------------

    def _column_span(self, column: int) -> tuple[int, int]:
        """Content x range of call/response column ``column``."""
        cell, response = self._widths()
        start = STICKY + 1 + column * (cell + 1)
        width = response if self.model is not None and column == len(self.model.meant) else cell
        return start, start + width

    def _column_at(self, x: int) -> int | None:
        if self.model is None or x < STICKY:
            return None
        column = (x - STICKY - 1) // (self._widths()[0] + 1)
        return max(0, min(column, self.model.columns - 1))

    def _reveal_column(self) -> None:
        start, end = self._column_span(self.column)
        width = self.scrollable_content_region.width or self.size.width
        scroll_x = int(self.scroll_offset.x)
        # A column not wholly in view is brought in from its start, beside the names: where
        # a cell's words are, and no sliver of the column before it left between.
        if start - STICKY < scroll_x or end > scroll_x + width:
            self.scroll_to(x=max(0, start - STICKY - 1), animate=False, immediate=True)

    def row_sticky(self, index: int) -> int:
        # A group's row ("client libraries (15) · 1 of 15 break ───") stays whole in place.
        model = self.model
        if model is not None and model.layout[index][0] == "group":
            return self.virtual_size.width
        return super().row_sticky(index)

    # -- rendering -----------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.piece_style(name)

    def _widths(self) -> tuple[int, int]:
        """A call column's width and the response column's: CELL_W and RESPONSE_W, or more
        of a view wider than that (the same to each, up to WIDEST)."""
        calls = len(self.model.meant) if self.model is not None else 0
        room = (self.scrollable_content_region.width or self.size.width) - STICKY - 2 - calls
        if room <= calls * CELL_W + RESPONSE_W:
            return CELL_W, RESPONSE_W
        cell = min(WIDEST, max(CELL_W, room // (calls + 1)))
        return cell, min(WIDEST, max(RESPONSE_W, room - calls * cell))

    def _table_width(self) -> int:
        cell, response = self._widths()
        calls = len(self.model.meant) if self.model is not None else 0
        return STICKY + calls * (cell + 1) + response + 2

    def on_resize(self) -> None:
        if self.model is not None and self.virtual_size.width != self._table_width():
            self.set_shape(len(self.model.layout), self._table_width())
            self.invalidate()

    def _window(self) -> range:
        """The columns a row draws: those in sight and a screen either side (a trace of 5,000
        calls draws some dozens of cells a row, not 5,000; the others are blank)."""
        width = self.size.width or 200
        x = int(self.scroll_offset.x)
        columns = self.model.columns if self.model is not None else 0
        cell = self._widths()[0]
        lo = max(0, (x - width) // (cell + 1))
        return range(lo, min(columns, (x + 2 * width) // (cell + 1) + 1))

    def watch_scroll_x(self, old: float, new: float) -> None:
        super().watch_scroll_x(old, new)
        if self.model is not None and self._window() != self._drawn:
            self.invalidate()  # (the rows are drawn again around the new place)

    def _cells(self, segs: list[Segment], cells: list[tuple[str, Style]], window: range) -> None:
        """Append the columns' cells (``cells[k]`` is column ``window.start + k``), with the
        columns before ``window`` as blank space of their width (those after it are left
        out: the row is padded to the view's width when drawn). The blank comes in short
        pieces, whose widths are remembered, not measured again per row: a trace of 5,000
        calls scrolled to its end has 150,000 cells of it."""
        model = self.model
        assert model is not None
        cell, response = self._widths()
        before = window.start * (cell + 1)
        segs += _pieces(" ", before)
        for k, (text, cell_style) in enumerate(cells):
            column = window.start + k
            width = response if column == len(model.meant) else cell
            segs.append(Segment(" "))
            segs.append(Segment(fit(text, width), cell_style))

    def render_line(self, y: int) -> Strip:
        """A row as the view draws it; scrolled sideways, what shows of a column cut at the
        left (beside the names) is blank: no sliver of a cell's end ("rwB\"", ")")."""
        strip = super().render_line(y)
        scroll_x = int(self.scroll_offset.x)
        index = self.row_at(y)
        model = self.model
        if not scroll_x or model is None or not 0 <= index < len(model.layout):
            return strip
        if model.layout[index][0] == "group":
            return strip  # (in place: not scrolled)
        first = STICKY + scroll_x  # the first cell shown beside the names
        column = self._column_at(first)
        if column is None:
            return strip
        start, end = self._column_span(column)
        cut_to = min(end + 1 - scroll_x, strip.cell_length)  # (with the space after it)
        if first <= start or cut_to <= STICKY:
            return strip
        head, cut, tail = strip.divide([STICKY, cut_to, strip.cell_length])
        style = next((seg.style for seg in cut if seg.style is not None), None)
        return Strip.join([head, Strip.blank(cut.cell_length, style), tail])

    def render_row(self, index: int) -> Row:
        model = self.model
        style = self._style
        if model is None:
            return [Segment(" " + self.message, style("clients-matrix--dim"))], Style()
        kind, key = model.layout[index]
        if kind == "head":
            return self._header(model, key == "1"), Style()
        if kind == "group":
            return self._group(model, key), Style()
        return self._policy_row(model, index, model.by_key[key]), Style()

    def _header(self, model: ClientsModel, first: bool) -> list[Segment]:
        head = self._style("clients-matrix--header")
        dim = self._style("clients-matrix--dim")
        if first:
            segs = [Segment(" " * GUTTER + fit("client", NAME_W), head)]
        else:  # under "client", what the libraries come to: in sight wherever the rows are
            text, name = self._libraries_said(model)
            segs = [Segment(" " * GUTTER), Segment(fit(text, NAME_W), self._style(name))]
        window = self._drawn = self._window()
        cells: list[tuple[str, Style]] = []
        for column in window:
            if column == len(model.meant):
                text = "whole response" if first else "throws, error parts, extra calls"
                cells.append((text, head if first else dim))
                continue
            m = model.meant[column]
            if first:
                text = f"call {visible(describe_value(m.wire_index))} · {tool_name(m.name)}"
                cells.append((text, head))
            else:
                cid = visible(_cut(describe_value(m.id))) if m.id is not UNSET else "no id"
                room = self._widths()[0] - 8 - len(str(m.line))
                text = f"line {m.line} · " + middle_fit(cid, room)
                cells.append((text, dim))
        self._cells(segs, cells, window)
        return segs

    @staticmethod
    def _counted(model: ClientsModel, kind: str) -> tuple[int, int | None]:
        """How many policies of ``kind`` there are, and how many break (None: not all
        assessed yet)."""
        keys = [p.key for p in model.policies if p.kind == kind]
        judged = [model.outcomes[k] for k in keys if k in model.outcomes]
        if len(judged) < len(keys):
            return len(keys), None
        return len(keys), sum(1 for o in judged if not o.ok)

    def _libraries_said(self, model: ClientsModel) -> tuple[str, str]:
        """The client libraries' verdict in a few words, and its style."""
        total, broken = self._counted(model, "library")
        if broken is None:
            done = len(model.outcomes)
            return f"assessing… {done} of {len(model.policies)}", "clients-matrix--pending"
        if broken:
            return f"✗ {broken} of {total} libraries break", "clients-matrix--bad"
        return f"✓ all {total} libraries ok", "clients-matrix--ok"

    def _group(self, model: ClientsModel, kind: str) -> list[Segment]:
        title = dict(GROUPS)[kind]
        total, broken = self._counted(model, kind)
        text = f"{title} ({total})"
        if broken is not None:
            verb = "break" if kind == "library" else "go wrong"
            text += f" · {broken} of {total} {verb}" if broken else " · all ok"
        else:
            done = len(model.outcomes)
            text += f" · assessing… {done} of {len(model.policies)} policies"
        pieces = [Segment(" " * GUTTER + text + " ", self._style("clients-matrix--group"))]
        end = min(self._table_width(), _RULE_MAX) - 1  # (the row stays in place: in sight)
        rule = max(0, end - cell_len(text) - GUTTER - 1)
        pieces += _pieces("─", rule, self._style("clients-matrix--dim"))
        return pieces

    def _policy_row(self, model: ClientsModel, index: int, policy: Policy) -> list[Segment]:
        style = self._style
        outcome = model.outcomes.get(policy.key)
        if outcome is None:
            mark, mark_style = "…", "clients-matrix--pending"
        elif outcome.ok:
            mark, mark_style = "✓", "clients-matrix--ok"
        else:
            mark, mark_style = "✗", "clients-matrix--bad"
        segs = [
            Segment(" " * GUTTER),
            Segment(mark + " ", style(mark_style)),
            Segment(fit(policy.key, NAME_W - 2), style("clients-matrix--name")),
        ]
        window = self._drawn = self._window()
        cells: list[tuple[str, Style]] = []
        for column in window:
            if outcome is None:
                text, name = "…", "clients-matrix--pending"
            elif column == len(model.meant):
                text, name = response_cell(outcome)
            else:
                text, name = call_cell(outcome.calls[column])
            cell_style = style(name)
            if index == self.cursor and column == self.column:
                cell_style = cell_style + style("clients-matrix--cell")
            cells.append((" " + text, cell_style))
        self._cells(segs, cells, window)
        return segs

    # -- moving --------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        super().watch_cursor(old, new)
        self.invalidate()
        if old != new:
            self.post_message(self.CellSelected(self))

    def _move_column(self, step: int) -> None:
        if self.model is None:
            return
        column = max(0, min(self.column + step, self.model.columns - 1))
        if column != self.column:
            self.user_moved = True
            self.column = column
            self._reveal_column()
            self.invalidate()
            self.post_message(self.CellSelected(self))

    def action_cell_left(self) -> None:
        self._move_column(-1)

    def action_cell_right(self) -> None:
        self._move_column(1)

    def move_cursor(self, index: int, *, user: bool = True, center: bool = False) -> None:
        if user:
            self.user_moved = True
        super().move_cursor(index, user=user, center=center)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.model is None:
            return
        x = offset.x if offset.x < STICKY else offset.x + int(self.scroll_offset.x)
        column = self._column_at(x)
        if column is not None and column != self.column:
            self.user_moved = True
            self.column = column
            self.invalidate()
            self.post_message(self.CellSelected(self))
        super().on_click(event)

    # -- copy and inspect ----------------------------------------------------------------

    def action_inspect(self) -> None:
        """The selected cell in full, in a window of its own (values are never cut there)."""
        from ..screens.payload import SECTION, SHOWN, PayloadScreen

        got = self._cell()
        if got is None:
            return
        data, where = got
        sections: list[tuple[str, str]] = []
        detail = self.app.query(ClientDetail)
        # wrapped as the pane wraps it, to the window's width (90% of the screen, less its
        # border, padding and scroll bar), a wrapped line indented under its start
        width = int(self.app.size.width * 0.9) - 6
        said = detail.first().text(width) if detail else ""
        if said.strip():  # what it means first, in words, as the pane beside says it
            sections.append(("what happened", said))
        # What the window shows: each long string cut, saying how much more it has (a 5 MB
        # argument is not encoded whole to be cut); "what happened" is cut by the window.
        left = SHOWN - len(sections[0][1]) if sections else SHOWN
        for key in ("outcome", *(k for k in data if k not in ("outcome", "client"))):
            text = json.dumps(_cut_strings(data[key], max(SECTION, left)))
            left -= len(text)
            sections.append((key, text))
        whole = lambda: json.dumps(data, ensure_ascii=False, indent=2)  # noqa: E731
        self.app.push_screen(PayloadScreen(where, sections, whole, cut=False))

    def copy_text(self) -> tuple[str, str] | None:
        """The selected cell as JSON: what the stream meant and what the library hands over."""
        got = self._cell()
        if got is None:
            return None
        data, where = got
        return json.dumps(data, ensure_ascii=False, indent=2), where

    def _cell(self) -> tuple[dict[str, Any], str] | None:
        """The selected cell's JSON value, and where it is."""
        found = self.selected()
        model = self.model
        if found is None or model is None:
            return None
        policy, column = found
        outcome = model.outcomes.get(policy.key)
        if outcome is None:
            return None
        if column < len(model.meant):
            call = outcome.calls[column]
            data: dict[str, Any] = {
                "client": policy.key,
                "outcome": call.outcome,
                "meant": _meant_json(call.meant),
                "got": [_call_json(c) for c in call.got],
            }
            if call.dropped is not None:
                data["dropped"] = {"reason": call.dropped.reason}
            raised = outcome.assembly.raised
            if raised is not None and not call.delivered:
                data["raised"] = _raised_json(raised)
            where = f"{policy.key} on call {describe_value(call.meant.wire_index)}"
        else:
            data = {
                "client": policy.key,
                "outcome": outcome.outcome,
                "raised": (
                    _raised_json(outcome.assembly.raised) if outcome.assembly.raised else None
                ),
                "error_parts": [_raised_json(e) for e in outcome.assembly.error_parts],
                "calls": [_call_json(c) for c in outcome.assembly.calls],
            }
            where = f"{policy.key} on the whole response"
        return data, where


def _cut_strings(value: Any, limit: int) -> Any:
    """``value`` with each string longer than ``limit`` characters cut to them, saying how many
    more there were (what the inspect window shows of a value; ``c`` copies it whole)."""
    if isinstance(value, str) and len(value) > limit:
        return cut_text(value, limit)
    if isinstance(value, dict):
        return {k: _cut_strings(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_strings(v, limit) for v in value]
    return value


def _raised_json(error: ClientError) -> dict[str, Any]:
    """An error the library raised (or surfaced), whole: its name, message and line, and the
    field that triggered it (its value as shown: cut)."""
    out: dict[str, Any] = {
        "name": error.name,
        "message": error.message,
        "line": error.line,
        "verb": error.verb,
    }
    if error.field:
        out["field"] = error.field
        if error.value:
            out["value"] = error.value
        if error.expected:
            out["expected"] = error.expected
        out["field_line"] = error.where
    return out


def _meant_json(m: MeantCall) -> dict[str, Any]:
    return {"id": plain(m.id), "name": plain(m.name), "arguments": m.arguments}


def _call_json(c: AssembledCall) -> dict[str, Any]:
    out = {"id": plain(c.id), "name": plain(c.name), "arguments": plain(c.arguments)}
    if c.id_generated:
        out["id_generated"] = True
    if c.invalid:
        out["invalid"] = True
    return out


def _cut(text: str, limit: int = 200) -> str:
    """A value's text, cut before it is made visible (a gateway may send a 5 MB id)."""
    return text if len(text) <= limit else text[:limit]


HAND_OVER = 0.15
"""Seconds between two hand-overs of outcomes from the assessment to the view."""

_PIECE = 256
_RULE_MAX = 4096
"""A group's rule ends with the table, or this far (wider than any terminal): the row does
not scroll sideways, so a trace of 5,000 calls draws a screen of it, not 150,000 cells."""


def _pieces(char: str, width: int, style: Style | None = None) -> list[Segment]:
    """``width`` cells of ``char`` as segments of at most :data:`_PIECE` cells: rich measures
    a short string once and remembers it, a long one on every crop of every row."""
    whole, rest = divmod(width, _PIECE)
    out = [Segment(char * _PIECE, style)] * whole
    if rest:
        out.append(Segment(char * rest, style))
    return out


def _frames(trace: Trace) -> list[Frame | Quiet]:
    """The clients model's one read of the trace: what its payloads say to the libraries,
    read from the analysis' event log (docs/clients.md, "Speed")."""
    from ...clientlibs import compact_frames

    return compact_frames(trace)


class _Cancelled(Exception):
    """The worker was cancelled (another trace is shown): stop in the middle of a policy."""


class _Checked(list["Frame | Quiet"]):
    """The frames, checking every few hundred whether the worker was cancelled.

    A trace of thousands of calls gives each policy thousands of frames; when the user moves
    on to another trace, this stops it in the middle rather than at its end.
    """

    def __init__(self, frames: list[Frame | Quiet], cancelled: Callable[[], bool]) -> None:
        super().__init__(frames)
        self._cancelled = cancelled

    def __iter__(self) -> Iterator[Frame | Quiet]:
        # (a slice of frames at a time, walked by the list itself: 5,000 calls' frames, 18
        # libraries, without a step of this generator per frame)
        get = super().__getitem__
        for start in range(0, len(self), CHECK_EVERY):
            if self._cancelled():
                raise _Cancelled
            yield from get(slice(start, start + CHECK_EVERY))


# -- the pane ----------------------------------------------------------------------------------


class ClientsPane(Vertical):
    """The matrix over the detail; owns the assessment worker."""

    DEFAULT_CSS = """
    ClientsPane { height: 100%; }
    """

    class Assessed(Message):
        """Policies ran on the model's trace (``done`` once all have)."""

        def __init__(
            self, model: ClientsModel, outcomes: dict[str, ClientOutcome], done: bool = False
        ) -> None:
            super().__init__()
            self.model = model
            self.outcomes = outcomes
            self.done = done

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.matrix = ClientsMatrix(id="clients-view")
        self.detail = ClientDetail(id="clients-detail")
        self.trace: Trace | None = None

    @property
    def model(self) -> ClientsModel | None:
        return self.matrix.model

    def compose(self) -> ComposeResult:
        yield self.matrix
        yield self.detail

    def show(self, trace: Trace, *, partial: bool = False, keep_position: bool = False) -> None:
        """Assess ``trace`` (again only if it is a new state of the trace)."""
        if trace is self.trace:
            return
        if partial:
            self.workers.cancel_group(self, "clients")
            self.trace = None
            self.matrix.show_message("Waiting for the capture to finish decoding…")
            return
        self.trace = trace
        model = start_model(trace)
        self.matrix.show(model, keep_position=keep_position)
        self._assess(model)

    @work(thread=True, exclusive=True, group="clients", description="clients")
    def _assess(self, model: ClientsModel) -> None:
        worker = get_current_worker()
        from ...clientlibs import assess_frames

        # the collector paused, as while loading: the models make a few small objects per
        # call and per library, none in a cycle (check --clients runs without it too)
        # the outcomes are handed over a few at a time (each hand-over draws the matrix again,
        # in the thread the assessment shares the interpreter with)
        with gc_paused():
            stream = _Checked(_frames(model.trace), lambda: worker.is_cancelled)
            batch: dict[str, ClientOutcome] = {}
            handed = monotonic()
            try:
                for policy in model.policies:
                    got = assess_frames(stream, model.meant, [policy], pool=model.pool)
                    batch[policy.key] = got[policy.key]
                    if monotonic() - handed >= HAND_OVER:
                        self.post_message(self.Assessed(model, batch))
                        batch, handed = {}, monotonic()
            except _Cancelled:
                return
        self.post_message(self.Assessed(model, batch, done=True))

    @on(Assessed)
    def _assessed(self, message: Assessed) -> None:
        model = message.model
        if model is not self.matrix.model:
            return
        model.outcomes.update(message.outcomes)
        if message.done:
            model.done = True
            first = model.first_problem()
            if first is not None and not self.matrix.user_moved:
                self.matrix.select(*first)
        self.matrix.invalidate()
        found = self.matrix.selected()
        if found is not None and found[0].key in message.outcomes:
            self._show_detail()

    @on(ClientsMatrix.CellSelected)
    def _cell_selected(self, message: ClientsMatrix.CellSelected) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        found = self.matrix.selected()
        if found is None:
            self.detail.show([])
            return
        self.detail.show(detail_lines(self.matrix.model, found[0], found[1]))
