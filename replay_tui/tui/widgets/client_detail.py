"""Under the clients matrix: the selected cell in detail.

For a call, what the library hands the application (id, name, pretty-printed arguments — or
the pieces it split the call into, what it dropped, what it threw) beside what the stream
meant, differences in red; for the whole-response column, what it raised, the error parts it
surfaced and every call it handed over. Then how the library assembles calls, in a sentence.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, zip_longest
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import get_character_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events

from ...core.visible import visible
from ...core.wire import UNSET, describe_value
from ...core.words import cut_text
from ..cells import cell_len, fit
from .clients_model import ClientsModel, Piece, call_cell, plain, response_cell
from .line_view import LineView, Row

if TYPE_CHECKING:
    from ...clientlibs import (
        AssembledCall,
        ClientOutcome,
        MeantCall,
        Policy,
    )
    from ...clientlibs.base import ClientError

__all__ = [
    "ClientDetail",
    "DetailLine",
    "cause_pieces",
    "detail_lines",
    "wrap_hanging",
    "wrap_pieces",
]

MAX_ARG_LINES = 300
"""Argument lines shown per side (``c`` or ``enter`` on the cell gives them all)."""
MAX_ARG_CHARS = 24_000
"""Argument characters shown per side (about 300 full lines)."""
MAX_PARSED_CHARS = 200_000
"""Arguments longer than this are shown as sent (their start), not parsed to pretty-print."""
MAX_LINE_CHARS = 24_000
"""Characters of one line (or one side of it) the pane wraps, at most."""
MAX_VALUE_CHARS = 2_000
"""An id or name longer than this is shown cut (a gateway may send a 5 MB one)."""
MAX_SAID_CHARS = 4_000
"""An error's message (or an outcome quoting it) longer than this is shown cut: a gateway's
error chunk may carry a 5 MB one, and the pane wraps what it shows."""
LABEL_W = 11


@dataclass(slots=True)
class DetailLine:
    """A full-width line (``left is None``), or a label with what was meant and what was got."""

    pieces: list[Piece]
    left: list[Piece] | None = None
    right: list[Piece] | None = None
    short: tuple[list[Piece], list[Piece]] | None = None
    """Fewer words for the two sides, said when one of them would wrap (a narrow pane)."""
    hang: int = 0
    """Cells the lines it wraps into are indented by (the full line, or its right side)."""


def _value_pieces(value: Any, differs: bool) -> list[Piece]:
    style = "clients-detail--bad" if differs else "clients-detail--value"
    if value is UNSET:
        return [("absent", "clients-detail--dim")]
    if value is None:
        return [("null", "clients-detail--null")]
    return [(visible(cut_text(describe_value(value), MAX_VALUE_CHARS)), style)]


def _argument_lines(arguments: Any, parsed: Any = UNSET) -> list[str]:
    """Arguments pretty-printed when they are JSON (as sent otherwise), cut at a limit: at most
    :data:`MAX_ARG_LINES` lines and :data:`MAX_ARG_CHARS` characters, so that a 5 MB string is
    wrapped (and made visible) only as far as it is shown."""
    if isinstance(arguments, str) and len(arguments) > MAX_PARSED_CHARS:
        parsed = UNSET  # too long to pretty-print as a whole: shown as sent, its start
        arguments = arguments[: MAX_ARG_CHARS + 1]
        lines = [arguments[i : i + 80] for i in range(0, len(arguments), 80)]
        return _cut_lines(lines, more=True)
    if parsed is not UNSET:
        try:
            text = json.dumps(parsed, indent=2, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            text = repr(parsed)
        lines = text.split("\n")
    elif not isinstance(arguments, str):
        lines = [describe_value(plain(arguments))]
    elif not arguments:
        lines = ['""']
    else:
        try:
            lines = json.dumps(json.loads(arguments), indent=2, ensure_ascii=False).split("\n")
        except (ValueError, RecursionError):
            lines = [arguments[i : i + 80] for i in range(0, len(arguments), 80)]
    return _cut_lines(lines)


def _cut_lines(lines: list[str], *, more: bool = False) -> list[str]:
    """``lines`` up to :data:`MAX_ARG_LINES` lines and :data:`MAX_ARG_CHARS` characters, then a
    line that says so (``more``: they were cut before already)."""
    out: list[str] = []
    room = MAX_ARG_CHARS
    for line in lines[:MAX_ARG_LINES]:
        if len(line) > room:
            out.append(line[:room])
            more = True
            break
        room -= len(line)
        out.append(line)
    if more:
        out.append("… more characters (c copies them all)")
    elif len(lines) > MAX_ARG_LINES:
        out.append(f"… {len(lines) - MAX_ARG_LINES:,} more lines (c copies them all)")
    return [visible(line) for line in out]


def _same_arguments(got: AssembledCall, meant: MeantCall) -> bool:
    if got.parsed is not UNSET:
        try:
            return bool(got.parsed == (json.loads(meant.arguments) if meant.arguments else {}))
        except ValueError:
            return False
    return got.arguments == meant.arguments or (
        got.arguments in ("", "{}", None) and meant.arguments in ("", "{}")
    )


Side = list[tuple[str, list[Piece]]]
"""Rows of one side: a label (for the label column) and the value pieces."""


def _meant_side(m: MeantCall) -> Side:
    rows: Side = [
        (
            "id",
            _value_pieces(m.id, False)
            + ([("  (no string id sent)", "clients-detail--dim")] if m.id is UNSET else []),
        ),
        ("name", _value_pieces(m.name, False)),
    ]
    for n, line in enumerate(_argument_lines(m.arguments)):
        rows.append(("arguments" if n == 0 else "", [(line, "clients-detail--value")]))
    return rows


def _paired(left: Side, right: Side, hang: int = 0) -> list[DetailLine]:
    out: list[DetailLine] = []
    for a, b in zip_longest(left, right):
        label = (a[0] if a else "") or (b[0] if b else "")
        out.append(
            DetailLine(
                [(label, "clients-detail--label")],
                a[1] if a else [],
                b[1] if b else [],
                hang=hang,
            )
        )
    return out


def cause_pieces(error: ClientError, where: str) -> list[Piece]:
    """``where`` it happened (``while reading line 14``) and the field that made the library
    throw (or surface an error part), when one did: ``while reading line 14:
    choices[0].delta.tool_calls[0].type = "FUNCTION"``; the payload that sent the field in
    parentheses when it is not that line (a throw at the end of the stream). Trace content:
    made visible, cut (the value is cut when the error is made), never markup."""
    dim, bad = "clients-detail--dim", "clients-detail--bad"
    if not error.field:
        return [(where, dim)]
    pieces: list[Piece] = [(f"{where}: ", dim), (visible(error.field), "clients-detail--value")]
    value = visible(_cut_said(error.value))
    if not value:
        pass
    elif error.expected:
        pieces += [(f": expected {visible(error.expected)}, got ", dim), (value, bad)]
    elif value == "absent":
        pieces.append((" is absent", bad))
    else:
        pieces += [(" = ", dim), (value, bad)]
    if error.field_line is not None:
        pieces.append((f" (line {error.field_line})", dim))
    return pieces


def detail_lines(
    model: ClientsModel | None, policy: Policy | None, column: int
) -> list[DetailLine]:
    """The selected cell in words and side by side (empty: nothing selected)."""
    if model is None or policy is None:
        return []
    kind = "client library" if policy.kind == "library" else "rejected design"
    about = [
        DetailLine([]),
        DetailLine(
            [
                (visible(policy.library), "clients-detail--label"),
                (f" · {kind} · how it assembles calls:", "clients-detail--label"),
            ]
        ),
    ]
    about.append(DetailLine([("  " + visible(policy.rule), "clients-detail--dim")], hang=2))
    outcome = model.outcomes.get(policy.key)
    title: list[Piece] = [(visible(policy.key), "clients-detail--title")]
    if outcome is None:
        return [DetailLine([*title, ("  assessing…", "clients-detail--dim")]), *about]
    if column >= len(model.meant):
        return _response_lines(model, policy, outcome) + about
    call = outcome.calls[column]
    m = call.meant
    text, name = call_cell(call)
    title += [
        (f" · call {visible(describe_value(m.wire_index))} · ", "clients-detail--dim"),
        (text, name.replace("clients-matrix", "clients-detail")),
    ]
    out = [
        DetailLine(title),
        DetailLine(
            [("", "")],
            [(f"what the stream meant (line {m.line})", "clients-detail--heading")],
            [(f"what {visible(policy.key)} hands the application", "clients-detail--heading")],
            short=(
                [(f"stream (line {m.line})", "clients-detail--heading")],
                [("application gets", "clients-detail--heading")],
            ),
        ),
    ]
    raised = outcome.assembly.raised
    if not call.delivered and raised is not None:
        where_line = (
            f"while reading line {raised.line}"
            if raised.line is not None
            else "at the end of the stream"
        )
        right: Side = [
            ("", [(visible(_cut_said(f"✗ {raised.verb} {raised}")), "clients-detail--bad")]),
            ("", cause_pieces(raised, where_line)),
            ("", [("the application gets no tool call at all", "clients-detail--dim")]),
        ]
        return out + _paired(_meant_side(m), right, hang=2) + about
    if call.got:
        valid = [c for c in call.got if not c.invalid]
        if not valid and call.dropped is None:
            out.append(_right_only([("✗ dropped", "clients-detail--bad")]))
        for n, got in enumerate(call.got):
            if len(call.got) > 1:
                piece = f"piece {n + 1} of {len(call.got)}"
                out.append(_right_only([(piece, "clients-detail--heading")]))
            if got.invalid:
                out.append(
                    _right_only([("set aside as invalid_tool_calls", "clients-detail--bad")])
                )
            out += _field_rows(m, n == 0, _got_fields(got, m))
        return out + about
    reason = call.dropped.reason if call.dropped is not None else "never assembled"
    out.append(_right_only([(visible(f"✗ dropped: {reason}"), "clients-detail--bad")]))
    d = call.dropped
    if d is None:
        return out + _paired(_meant_side(m), []) + about
    out.append(_right_only([("what it had assembled before dropping it:", "clients-detail--dim")]))
    dim = "clients-detail--dim"
    fields = (
        [(visible(describe_value(d.id)), dim)],
        [(visible(describe_value(d.name)), dim)],
        [[(line, dim)] for line in _argument_lines(d.arguments)],
    )
    return out + _field_rows(m, True, fields) + about


def _cut_said(text: str) -> str:
    return cut_text(text, MAX_SAID_CHARS)


def _capped(pieces: list[Piece]) -> list[Piece]:
    """``pieces`` cut after :data:`MAX_LINE_CHARS` characters, saying how many more there are:
    what the pane wraps of a line (a library's 5 MB error message was wrapped whole on every
    move); ``c`` copies the line whole."""
    if sum(len(t) for t, _ in pieces) <= MAX_LINE_CHARS:
        return pieces
    out: list[Piece] = []
    room = MAX_LINE_CHARS
    more = 0
    for text, name in pieces:
        if room > 0:
            out.append((text[:room], name))
        more += max(0, len(text) - room)
        room = max(0, room - len(text))
    out.append((f"… {more:,} more characters (c copies them all)", "clients-detail--dim"))
    return out


def _cells(pieces: list[Piece]) -> int:
    return sum(cell_len(text) for text, _ in pieces)


def wrap_pieces(pieces: list[Piece], width: int) -> list[list[Piece]]:
    """``pieces`` in lines of at most ``width`` cells, broken after spaces where there are
    some (mid-word only in a word longer than a line), each piece keeping its style.

    One pass over the text whatever its length (a 300 KB argument is wrapped in milliseconds),
    with each character's width counted (a wide one is never split across the edge).
    """
    text = "".join(t for t, _ in pieces)
    if width < 8 or cell_len(text) <= width:
        return [pieces]
    cuts = _cuts(text, width)
    out: list[list[Piece]] = []
    k, at = 0, 0  # the piece the next line starts in, and where that piece starts
    for a, b in cuts:
        while at + len(pieces[k][0]) <= a and k + 1 < len(pieces):
            at += len(pieces[k][0])
            k += 1
        line: list[Piece] = []
        j, pos = k, at
        while j < len(pieces) and pos < b:
            t, name = pieces[j]
            lo, hi = max(a, pos), min(b, pos + len(t))
            if lo < hi:
                line.append((t[lo - pos : hi - pos], name))
            pos += len(t)
            j += 1
        out.append(line)
    return out


def wrap_hanging(pieces: list[Piece], width: int, hang: int) -> list[list[Piece]]:
    """:func:`wrap_pieces`, the lines after the first indented by ``hang`` cells (and wrapped
    that much narrower)."""
    lines = wrap_pieces(pieces, width)
    if hang <= 0 or len(lines) == 1 or width - hang < 8:
        return lines
    rest = [piece for line in lines[1:] for piece in line]
    pad: Piece = (" " * hang, "")
    return [lines[0], *([pad, *line] for line in wrap_pieces(rest, width - hang))]


def _cuts(text: str, width: int) -> list[tuple[int, int]]:
    """Where :func:`wrap_pieces` breaks ``text``: ``(start, end)`` of each line."""
    # cells[i]: the width of text[:i]
    if text.isascii() and text.isprintable():  # one cell per character: positions are widths
        cells = None
    else:
        cells = [0, *accumulate(get_character_cell_size(c) for c in text)]
    cuts: list[tuple[int, int]] = []
    start, n = 0, len(text)
    while (n - start if cells is None else cells[n] - cells[start]) > width:
        if cells is None:
            end = start + width
        else:
            end = max(start + 1, bisect_right(cells, cells[start] + width) - 1)
        space = text.rfind(" ", start + 1, end + 1)
        cut = space + 1 if space > start else end
        cuts.append((start, cut))
        start = cut
    cuts.append((start, n))
    return cuts


Fields = tuple[list[Piece], list[Piece], list[list[Piece]]]
"""One call's id, name and argument lines, as pieces."""


def _right_only(pieces: list[Piece]) -> DetailLine:
    return DetailLine([("", "")], [], pieces)


def _field_rows(m: MeantCall, beside: bool, got: Fields) -> list[DetailLine]:
    """id, name and arguments, the meant value (when ``beside``) left of what was got."""
    meant = _meant_side(m) if beside else []
    left_id = meant[0][1] if meant else []
    left_name = meant[1][1] if meant else []
    left_args = [pieces for _, pieces in meant[2:]]
    label = "clients-detail--label"
    rows = [
        DetailLine([("id", label)], left_id, got[0]),
        DetailLine([("name", label)], left_name, got[1]),
    ]
    for k, (a, b) in enumerate(zip_longest(left_args, got[2])):
        rows.append(DetailLine([("arguments" if k == 0 else "", label)], a or [], b or []))
    return rows


def _got_fields(call: AssembledCall, meant: MeantCall) -> Fields:
    id_differs = not (call.id == meant.id and type(call.id) is type(meant.id)) or call.id_generated
    name_differs = not (call.name == meant.name and type(call.name) is type(meant.name))
    id_pieces = _value_pieces(call.id, id_differs)
    if call.id_generated:
        id_pieces.append(("  (made up by the library)", "clients-detail--dim"))
    args_style = "clients-detail--value" if _same_arguments(call, meant) else "clients-detail--bad"
    args = [[(line, args_style)] for line in _argument_lines(call.arguments, call.parsed)]
    return id_pieces, _value_pieces(call.name, name_differs), args


def _response_lines(
    model: ClientsModel, policy: Policy, outcome: ClientOutcome
) -> list[DetailLine]:
    a = outcome.assembly
    verdict = response_cell(outcome)
    said = [(verdict[0], verdict[1].replace("clients-matrix", "clients-detail"))]
    if verdict[0] == "—":  # the response is not what broke: its cells in the call columns say
        said.append(
            (
                " no throw, error part or extra call: what breaks is in its calls",
                "clients-detail--dim",
            )
        )
    out = [
        DetailLine(
            [
                (visible(policy.key), "clients-detail--title"),
                (" · whole response · ", "clients-detail--dim"),
                *said,
            ],
            hang=2,
        ),
        DetailLine(
            [
                ("outcome  ", "clients-detail--label"),
                (visible(_cut_said(outcome.outcome)), "clients-detail--value"),
            ],
            hang=9,
        ),
    ]
    if a.raised is not None:
        where = (
            f"while reading line {a.raised.line}"
            if a.raised.line is not None
            else "at the end of the stream"
        )
        out.append(
            DetailLine(
                [
                    (f"{a.raised.verb:<9}", "clients-detail--label"),
                    (visible(_cut_said(str(a.raised))), "clients-detail--bad"),
                ],
                hang=9,
            )
        )
        said = cause_pieces(a.raised, where)
        said.append(("; the application gets no tool call at all", "clients-detail--dim"))
        out.append(DetailLine([(" " * 9, ""), *said], hang=11))
    for err in a.error_parts:
        line = f"line {err.line}" if err.line is not None else "at the end"
        said = [
            ("error part ", "clients-detail--label"),
            (visible(_cut_said(str(err))), "clients-detail--bad"),
        ]
        if err.field:
            out.append(DetailLine(said, hang=11))
            said = [
                (" " * 11, ""),
                *cause_pieces(err, line),
                ("; the stream goes on", "clients-detail--dim"),
            ]
            out.append(DetailLine(said, hang=13))
        else:
            said.append((f"  ({line}; the stream goes on)", "clients-detail--dim"))
            out.append(DetailLine(said, hang=11))
    n = len(a.calls)
    out.append(
        DetailLine(
            [(f"hands over {n} call{'s' if n != 1 else ''}", "clients-detail--heading")]
            + (
                []
                if n or a.raised
                else [("  (the stream meant " + str(len(model.meant)) + ")", "clients-detail--dim")]
            )
        )
    )
    extra = {id(c) for c in outcome.extra}
    for c in a.calls:
        pieces: list[Piece] = [
            ("  " + visible(f"call {describe_value(c.wire_index)}"), "clients-detail--label"),
            ("  id ", "clients-detail--dim"),
            *_value_pieces(c.id, False),
            ("  name ", "clients-detail--dim"),
            *_value_pieces(c.name, False),
        ]
        if id(c) in extra:
            pieces.append(("  ✗ extra: the stream meant no such call", "clients-detail--bad"))
        if c.invalid:
            pieces.append(("  (invalid_tool_calls)", "clients-detail--bad"))
        out.append(DetailLine(pieces))
    for d in a.dropped:
        out.append(
            DetailLine(
                [
                    (
                        "  " + visible(f"call {describe_value(d.wire_index)}"),
                        "clients-detail--label",
                    ),
                    (visible(f"  ✗ dropped: {d.reason}"), "clients-detail--bad"),
                ]
            )
        )
    return out


def _rows(lines: list[DetailLine], width: int, left_w: int, right_w: int) -> list[DetailLine]:
    """``lines`` wrapped at word boundaries: full-width ones to ``width``, the two sides of the
    others to ``left_w`` and ``right_w`` (nothing is cut)."""
    rows: list[DetailLine] = []
    for line in lines:
        if line.left is None:
            rows += [DetailLine(p) for p in wrap_hanging(_capped(line.pieces), width, line.hang)]
            continue
        sides = _capped(line.left), _capped(line.right or [])
        if line.short is not None and (_cells(sides[0]) > left_w or _cells(sides[1]) > right_w):
            sides = line.short
        left = wrap_pieces(sides[0], left_w)
        right = wrap_hanging(sides[1], right_w, line.hang)
        for k, (a, b) in enumerate(zip_longest(left, right)):
            rows.append(DetailLine(line.pieces if k == 0 else [], a or [], b or []))
    return rows


class ClientDetail(LineView):
    """The selected cell: meant on the left, what the library hands over on the right."""

    COMPONENT_CLASSES: ClassVar[set[str]] = LineView.COMPONENT_CLASSES | {
        "clients-detail--title",
        "clients-detail--heading",
        "clients-detail--label",
        "clients-detail--dim",
        "clients-detail--value",
        "clients-detail--null",
        "clients-detail--ok",
        "clients-detail--bad",
    }

    DEFAULT_CSS = """
    ClientDetail {
        height: 1fr;
        min-height: 6;
        border-top: hkey $foreground 10%;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
        & > .clients-detail--title { color: $text; text-style: bold; }
        & > .clients-detail--heading { color: $text-primary; text-style: bold; }
        & > .clients-detail--label { color: $text-muted; }
        & > .clients-detail--dim { color: $text-muted; }
        & > .clients-detail--value { color: $text-success; }
        & > .clients-detail--null { color: $text-secondary; text-style: italic; }
        & > .clients-detail--ok { color: $text-success; text-style: bold; }
        & > .clients-detail--bad { color: $text-error; text-style: bold; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[DetailLine] = []
        self.rows: list[DetailLine] = []
        """``lines`` wrapped at word boundaries to the view's width (nothing is cut)."""

    def show(self, lines: list[DetailLine]) -> None:
        self.lines = lines
        self._wrap()
        self.scroll_to(0, 0, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self._wrap()

    def _widths(self) -> tuple[int, int, int]:
        """The full width, and the widths of the meant and got sides."""
        width = max((self.scrollable_content_region.width or self.size.width) - 2, 40)
        half = (width - LABEL_W - 3) // 2
        return width, half, width - LABEL_W - 3 - half

    def _wrap(self) -> None:
        width, left_w, right_w = self._widths()
        self.rows = _rows(self.lines, width, left_w, right_w)
        self.set_shape(len(self.rows), width + 1)

    def text(self, width: int) -> str:
        """The detail as text wrapped to ``width`` cells as the pane wraps it (what ``enter``
        shows: the two sides apart, a wrapped line indented under its start)."""
        width = max(width, 40)
        half = (width - LABEL_W - 3) // 2
        out = []
        for row in _rows(self.lines, width, half, width - LABEL_W - 3 - half):
            text = "".join(t for t, _ in row.pieces)
            if row.left is not None:
                left = "".join(t for t, _ in row.left)
                right = "".join(t for t, _ in row.right or [])
                text = fit(text, LABEL_W) + fit(left, half) + " │ " + right
            out.append(text.rstrip())
        return "\n".join(out)

    def is_selectable(self, index: int) -> bool:
        return False

    def action_cursor_down(self) -> None:
        self.scroll_to(y=self.scroll_offset.y + 1, animate=False, immediate=True)

    def action_cursor_up(self) -> None:
        self.scroll_to(y=max(0, self.scroll_offset.y - 1), animate=False, immediate=True)

    def _style(self, name: str) -> Style:
        return self.piece_style(name)

    def _segments(self, pieces: list[Piece], width: int | None = None) -> list[Segment]:
        out: list[Segment] = []
        used = 0
        for text, name in pieces:
            if width is not None:
                room = width - used
                if room <= 0:
                    break
                if cell_len(text) > room:
                    # A wrapped line keeps the space it broke at: past the edge, it goes
                    # (not a word's last letter for "…": "list inde…").
                    text = (
                        text.rstrip(" ") if cell_len(text.rstrip(" ")) <= room else fit(text, room)
                    )
            out.append(Segment(text, self._style(name)))
            used += cell_len(text)
        if width is not None and used < width:
            out.append(Segment(" " * (width - used)))
        return out

    def render_row(self, index: int) -> Row:
        line = self.rows[index]
        if line.left is None:
            return [Segment(" "), *self._segments(line.pieces)], Style()
        _, left_w, right_w = self._widths()
        segs = [Segment(" "), *self._segments(line.pieces, LABEL_W)]
        segs += self._segments(line.left, left_w)
        segs.append(Segment(" │ ", self._style("clients-detail--dim")))
        segs += self._segments(line.right or [], right_w)
        return segs, Style()

    def plain(self) -> str:
        """The detail as text (what ``c`` copies from here)."""
        out = []
        for line in self.lines:
            text = "".join(t for t, _ in line.pieces)
            if line.left is not None:
                left = "".join(t for t, _ in line.left)
                right = "".join(t for t, _ in line.right or [])
                text = f"{text:<{LABEL_W}}{left}  |  {right}"
            out.append(text.rstrip())
        return "\n".join(out)
