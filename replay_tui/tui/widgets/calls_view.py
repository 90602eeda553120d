"""The calls view: each tool call's identity evolution, delta by delta, and how it closed.

The model (:class:`CallsModel`) is computed from a trace once, off the UI thread when the trace
is big; the view renders only the rows on screen. Rows of one call:

- a title (wire index, block, deltas, flags), then a two-line column header;
- one row per delta: delta number, capture line, the erasure label when the delta erased the
  assign-always identity, the raw ``id`` and ``name`` as sent (absent / null / "" / string kept
  apart), the arguments fragment, and the identity in force under each behavior;
- the assembled call under both behaviors (or why the fix refuses it) and its arguments,
  pretty-printed when they parse as JSON.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, overload

from rich.segment import Segment
from rich.style import Style

from ...core.identity import CallTrace, DeltaRow, Flag, call_named
from ...core.pieces import CallArgs
from ...core.trace import Badge, Trace
from ...core.translator import Behavior, index_key, missing_identity
from ...core.verdicts import consequence, unidentified
from ...core.visible import visible
from ...core.wire import UNSET
from ..cells import (
    ValueKind,
    cell_len,
    failure_text,
    fit,
    line_shown,
    middle_fit,
    show_value,
    value_kind,
)
from ..screens.payload import PayloadScreen
from .line_view import LineView, Row
from .model_view import ModelView

__all__ = ["CallsModel", "CallsView", "build_calls_model", "no_flags_text"]

ACCEPT = Behavior.ACCEPT_IDENTITY
ASSIGN = Behavior.ASSIGN_ALWAYS
HEAD = 3  # title, group header, column header
PINNED = 2
"""A call's heading rows (group, column) kept on the top lines while its deltas scroll."""
ARGS_WIDTH = 30
MAX_ARG_LINES = 400
ARG_WRAP = 100
MAX_PRETTY = 64 * 1024
"""Arguments longer than this are shown as sent, their first lines only: pretty-printing
them whole (a call's 5 MB fragment) cost the view a rebuild's worth for lines never shown."""

Piece = tuple[str, str]
"""A run of text and the name of the component style it takes ("" for the base style)."""

GUTTER = 2
GAP = 2
TAIL_LABEL_W = 20
"""The label of a line below the table (``assign-always``, ``arguments``): kept in place."""
SEP = " │ "


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a call's delta table."""

    key: str
    title: str
    width: int
    sep: bool = False
    """Drawn after a ``│`` separator (the start of a group) rather than a gap."""
    group: str = ""


def _columns(
    heads: tuple[int, int, int],
    w_id: int,
    w_name: int,
    shared: dict[tuple[int, ...], list[Column]] | None = None,
) -> list[Column]:
    """The columns of one call; ``heads`` (Δ, line, flag widths) are the same for every call,
    so the row headers line up and stay put together when the table scrolls sideways.
    ``shared``: the lists made so far, by widths (calls alike share one: 5,000 calls kept
    50,000 columns)."""
    key = (*heads, w_id, w_name)
    if shared is not None and key in shared:
        return shared[key]
    w_delta, w_line, w_flag = heads
    cols = [Column("delta", "Δ", w_delta), Column("line", "line", w_line)]
    if w_flag:
        cols.append(Column("flag", "flag", w_flag))
    cols += [
        Column("raw_id", "id", w_id, group="as sent"),
        Column("raw_name", "name", w_name, group="as sent"),
        Column("assign_id", "id", w_id, sep=True, group="assign-always (old)"),
        Column("assign_name", "name", w_name, group="assign-always (old)"),
        Column("accept_id", "id", w_id, sep=True, group="accept-identity (fix)"),
        Column("accept_name", "name", w_name, group="accept-identity (fix)"),
        Column("args", "arguments fragment", ARGS_WIDTH, sep=True),
    ]
    if shared is not None:
        shared[key] = cols
    return cols


@dataclass(slots=True)
class Section:
    """One call's rows."""

    call: CallTrace
    rows: Sequence[DeltaRow]
    start: int
    tail: Tail
    labels: dict[int, str]
    """Erasure label per delta number (only deltas that erased something)."""
    columns: list[Column]
    stamp: tuple[Any, ...] = ()
    """What the section was made of besides its call (see :func:`build_calls_model`)."""
    width: int = field(init=False)
    """Cells of its table's rows."""
    label_width: int = field(init=False)
    """Cells of its widest erasure label."""

    def __post_init__(self) -> None:
        self.width = GUTTER + sum(c.width + (len(SEP) if c.sep else GAP) for c in self.columns)
        self.label_width = max(map(cell_len, self.labels.values()), default=0)

    @property
    def tail_width(self) -> int:
        """Cells of the widest line of ``tail``."""
        return self.tail.width

    @property
    def size(self) -> int:
        return HEAD + len(self.rows) + len(self.tail)


@dataclass(slots=True)
class CallsModel:
    """Everything the calls view shows for one trace."""

    trace: Trace
    sections: list[Section] = field(default_factory=list)
    starts: array[int] = field(default_factory=lambda: array("q"))
    """Each section's first row (an array: 5,000 calls' numbers, not 5,000 ints)."""
    intro: list[list[Piece]] = field(default_factory=list)
    total: int = 0
    width: int = 0
    by_key: dict[Any, Section] = field(default_factory=dict)
    sticky: int = 0
    """Width of the row headers (gutter, Δ, line, flag): they stay put when scrolled sideways."""
    counts: list[int] = field(default_factory=list)
    """Deltas of each call shown (the sections, in order)."""
    widest: list[tuple[int, int, int]] = field(default_factory=list)
    """For each section, the largest (capture line, erasure label's cells, width) of it and
    every section before it: a next state of the trace reads them for the calls it takes
    over as they were."""
    made_with: tuple[Any, ...] = ()
    """What every section was made with (the fix's verdict and finish, the row headers'
    widths): a next state that changes it makes every section again."""

    def locate(self, index: int) -> tuple[Section | None, int]:
        """The section row ``index`` belongs to and its offset in it (``None``: intro)."""
        if index < len(self.intro) or not self.sections:
            return None, index
        k = bisect_right(self.starts, index) - 1
        section = self.sections[k]
        return section, index - section.start

    def flag_row(self, flag: Flag) -> int | None:
        section = self.by_key.get(index_key(flag.call))
        if section is None:
            return None
        return section.start + HEAD + flag.delta - 1

    def delta_at(self, index: int) -> tuple[Section, DeltaRow] | None:
        section, offset = self.locate(index)
        if section is None or not HEAD <= offset < HEAD + len(section.rows):
            return None
        return section, section.rows[offset - HEAD]

    def flag_stops(self) -> list[tuple[int, int, list[int]]]:
        """``(position, row, flag indexes)`` per row holding flags, in stream order.

        One stop per delta (a delta that erased both id and name holds two flags), numbered
        by the analysis' flags, so the toast counts what the header and the details count."""
        stops: dict[int, tuple[int, int, list[int]]] = {}
        for k, f in enumerate(self.trace.analysis.flags):
            row = self.flag_row(f)
            if row is None:
                continue
            stop = stops.setdefault(row, (f.position, row, []))
            stop[2].append(k)
        return sorted(stops.values(), key=lambda s: (s[0], s[1]))

    def walk_flags(
        self, cursor: int, position: int | None, forward: bool
    ) -> tuple[int, str] | None:
        """``n`` (``forward``) or ``N`` from the row ``cursor`` (the delta under it at stream
        ``position``, if any): the row of the next (previous) flag and what to say of it,
        rounding to the other end past the last (first). None: no flags to walk."""
        stops = self.flag_stops()
        if not stops:
            return None
        rows = [row for _, row, _ in stops]
        if cursor in rows:
            here = rows.index(cursor)
            at = (here + (1 if forward else -1)) % len(stops)
            wrapped = at <= here if forward else at >= here
        else:
            key = (position, cursor) if position is not None else (-1, cursor)
            later = [k for k, (p, r, _) in enumerate(stops) if (p, r) > key]
            earlier = [k for k, (p, r, _) in enumerate(stops) if (p, r) < key]
            if forward:
                at, wrapped = (later[0], False) if later else (0, True)
            else:
                at, wrapped = (earlier[-1], False) if earlier else (len(stops) - 1, True)
        _, row, indexes = stops[at]
        flags = self.trace.analysis.flags
        total = len(flags)
        first, last = indexes[0] + 1, indexes[-1] + 1
        labels = " + ".join(dict.fromkeys(flags[k].label for k in indexes))
        which = f"Flag {first:,}" if first == last else f"Flags {first:,}–{last:,}"
        again = ""
        if wrapped and len(stops) > 1:  # past the last (first): round to the other end
            again = " · back to the first" if forward else " · back to the last"
        line = line_shown(self.trace, flags[indexes[0]].line)
        return row, f"{which} of {total:,}: {labels} on line {line}{again}"


def no_flags_text(trace: Trace | None) -> str:
    """What ``n`` says on a trace without flags: nothing was erased, and whether it works
    all the same (a model that never sent an id has no flag, and still breaks)."""
    if trace is None:
        return "No trace open yet: no flags to walk."
    if trace.badge is Badge.CLEAN:
        return "No flags in this trace: nothing was erased."
    verdicts = ", ".join(f"{b} {v}" for b, v in trace.verdicts.items())
    return (
        f"No flags: nothing was erased, yet it is {trace.badge.value} ({verdicts})."
        " Details says why."
    )


def flag_label(flags: tuple[Flag, ...] | list[Flag], lines_known: bool = True) -> str:
    """``erased id`` / ``erased name`` (both when one delta erased both), repairs marked
    (on a line said "…" while the lines are not counted: :attr:`Trace.lines_known`)."""
    parts = []
    for f in flags:
        text = f.label
        if f.repaired_line is not None:
            text += f" (repaired l.{f.repaired_line if lines_known else '…'})"
        parts.append(text)
    return " · ".join(parts)


def _width(values: list[Any], cap: int, header: str) -> int:
    return min(cap, max([len(header), 6] + [cell_len(show_value(v)) for v in values]))


def build_calls_model(trace: Trace, previous: CallsModel | None = None) -> CallsModel:
    """Compute the calls view of ``trace`` (pure: safe to run in a worker thread).

    ``previous``: the model of an earlier state of the same trace (a capture being written).
    The calls before the first one that changed since are taken over as they are, in one
    slice, and of the others each that has not changed is taken over too: a delta appended
    to the last of 5,000 calls makes one section, and reads none of the others (each
    read was a tenth of a second per append there)."""
    model = CallsModel(trace)
    analysis = trace.analysis
    if not analysis.calls:
        blocks = analysis.blocks
        said = (
            "No tool calls in what has been read so far."
            if trace.in_progress
            else "No tool calls in this trace: no identity to erase."
        )
        model.intro = [
            [(said, "calls-view--title")],
            [
                (
                    f"{blocks} text/reasoning block{'s' if blocks != 1 else ''}"
                    " · see Details for the verdicts and Diff for the chunks.",
                    "calls-view--dim",
                )
            ],
        ]
    accept = analysis.outcomes.get(ACCEPT)
    verdict = accept.verdict if accept else ""
    finish = accept.finish if accept else {}
    calls = analysis.calls
    counts = analysis.counts
    if len(counts) != len(calls):  # (a snapshot made without them: the calls as they are)
        counts = [len(analysis.delta_rows(k)) for k in range(len(calls))]
    model.counts = list(counts)
    prev = previous
    if prev is not None and (prev.trace.address != trace.address or prev.intro or model.intro):
        prev = None
    same = 0  # calls taken over as they were, from the first
    if prev is not None and prev.made_with[:2] == (verdict, finish):
        n = min(len(prev.counts), len(counts))
        same = n if prev.counts[:n] == counts[:n] else _first_difference(prev.counts, counts)
        if same and prev.sections[same - 1].call is not calls[same - 1]:
            same = 0  # (not the same calls: made again)
    taken: dict[int, Section] = {}
    if prev is not None:
        taken = {id(s.call): s for s in prev.sections[same:]}
    fresh = range(same, len(calls))
    labels_of = [_labels(calls[k], taken.get(id(calls[k])), trace.lines_known) for k in fresh]
    line_max, label_max, _ = prev.widest[same - 1] if prev is not None and same else (0, 0, 0)
    for k, labels in zip(fresh, labels_of, strict=True):
        if counts[k]:
            line_max = max(line_max, calls[k].lines[counts[k] - 1])
        label_max = max(label_max, max(map(cell_len, labels.values()), default=0))
    heads = (
        max(2, len(f"{max(counts, default=0):,}")),
        max(4, len(str(line_max)) if line_max else 0),
        label_max,
    )
    model.made_with = (verdict, finish, heads)
    if prev is not None and same and prev.made_with != model.made_with:
        # The row headers widen (delta 10,000): every section is made again.
        same = 0
        fresh = range(len(calls))
        labels_of = [_labels(calls[k], taken.get(id(calls[k])), trace.lines_known) for k in fresh]
    model.sticky = GUTTER + heads[0] + GAP + heads[1] + (GAP + heads[2] if heads[2] else 0)
    index = len(model.intro)
    if same:
        assert prev is not None
        model.sections = prev.sections[:same]
        model.starts = prev.starts[:same]
        model.widest = prev.widest[:same]
        model.by_key = dict(prev.by_key)
        last = prev.sections[same - 1]
        index = last.start + last.size
    shared: dict[tuple[int, ...], list[Column]] = {}
    line_max, label_max, width_max = model.widest[-1] if same else (0, 0, 0)
    for k, label_text in zip(fresh, labels_of, strict=True):
        ct = calls[k]
        rows = analysis.delta_rows(k)
        accepted, assigned = ct.final(ACCEPT), ct.final(ASSIGN)
        stamp = (len(rows), verdict, finish, len(ct.flags), accepted, assigned, heads)
        old = taken.get(id(ct))
        if old is not None and old.call is ct and old.stamp == stamp:
            section = old
            if old.start != index:  # (a call before it grew: the same, further down)
                section = Section(ct, old.rows, index, old.tail, old.labels, old.columns, stamp)
        else:
            sample = rows[:200]
            ids = [r.raw_id for r in sample] + list(_finals(ct, 0))
            names = [r.raw_name for r in sample] + list(_finals(ct, 1))
            section = Section(
                call=ct,
                rows=rows,
                start=index,
                tail=Tail(
                    ct,
                    verdict,
                    finish,
                    old.tail if old is not None else None,
                    finals=(assigned, accepted),
                ),
                labels=label_text,
                columns=_columns(heads, _width(ids, 16, "id"), _width(names, 16, "name"), shared),
                stamp=stamp,
            )
        model.sections.append(section)
        model.starts.append(index)
        model.by_key[ct.key] = section
        if len(rows):
            line_max = max(line_max, ct.lines[len(rows) - 1])
        label_max = max(label_max, section.label_width)
        width_max = max(width_max, section.width, section.tail_width)
        model.widest.append((line_max, label_max, width_max))
        index += section.size
    model.total = index
    widths = [sum(len(t) for t, _ in line) for line in model.intro]
    model.width = max([*widths, width_max if model.sections else 0], default=0)
    return model


def _first_difference(a: list[int], b: list[int]) -> int:
    """The first index where ``a`` and ``b`` differ (the shorter's length if none does)."""
    for k, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return k
    return min(len(a), len(b))


def _calls(trace: Trace) -> list[tuple[CallTrace, Sequence[DeltaRow]]]:
    """The calls model's one read of the trace: each call with its delta rows (made a block
    at a time as they are drawn, from the analysis' record)."""
    analysis = trace.analysis
    return [(ct, analysis.delta_rows(k)) for k, ct in enumerate(analysis.calls)]


_NO_LABELS: dict[int, str] = {}
"""The labels of every call without a flag (5,000 calls, one dict; never written to: a call
that gets a flag is labelled in a dict of its own)."""


def _labels(ct: CallTrace, old: Section | None, lines_known: bool = True) -> dict[int, str]:
    """The erasure label of each delta of ``ct`` that erased something (``old``: its section
    in the model of an earlier state, whose labels stand but for the deltas of the flags
    added since and of its last flag of each field, which a later delta may have repaired:
    a call of 30,000 erasures labels its new ones, not all again)."""
    flags = ct.flags[:]  # (grown on, and repaired, by the thread that follows the file)
    if not flags:
        return _NO_LABELS
    if old is None or old.call is not ct or not old.stamp or old.stamp[3] > len(flags):
        return {d: flag_label(fs, lines_known) for d, fs in _flags_by_delta(flags).items()}
    had = old.stamp[3]
    touched = {f.delta for f in flags[had:]}
    for fld in ("id", "name"):  # (a repair marks the last flag of its field when it comes)
        last = next((f for f in reversed(flags[:had]) if f.field == fld), None)
        if last is not None:
            touched.add(last.delta)
    if not touched:
        return old.labels
    labels = dict(old.labels)
    deltas = [f.delta for f in flags]  # (in delta order: a delta's flags are side by side)
    for d in touched:
        labels[d] = flag_label(flags[bisect_left(deltas, d) : bisect_right(deltas, d)], lines_known)
    return labels


def _flags_by_delta(flags: list[Flag]) -> dict[int, list[Flag]]:
    out: dict[int, list[Flag]] = {}
    for f in flags:
        out.setdefault(f.delta, []).append(f)
    return out


def _finals(ct: CallTrace, which: int) -> tuple[Any, Any]:
    return ct.final(ACCEPT)[which], ct.final(ASSIGN)[which]


class Tail(Sequence[list[Piece]]):
    """A call's lines under its rows (:func:`_tail`), measured when the section is made and
    made again when drawn: 5,000 calls keep their sizes and widths, not their lines (those of
    the sections drawn are kept once made). Made from what the call was then (its identities
    and arguments grow on in the thread that follows a capture being written)."""

    __slots__ = ("_joined", "_lines", "_made_of", "size", "width")

    def __init__(
        self,
        ct: CallTrace,
        accept_verdict: str,
        accept_finish: dict[str, Any],
        previous: Tail | None = None,
        finals: tuple[tuple[Any, Any], tuple[Any, Any]] | None = None,
    ) -> None:
        """``previous``: the call's tail before a delta was appended; ``finals``:
        ``(ct.final(ASSIGN), ct.final(ACCEPT))`` when the caller has them."""
        if finals is None:
            finals = (ct.final(ASSIGN), ct.final(ACCEPT))
        closes = (
            _shared(ct.closes_with(ASSIGN), finals[0]),
            _shared(ct.closes_with(ACCEPT), finals[1]),
        )
        if closes[0] is finals[0] and closes[1] is finals[1]:
            closes = finals  # (nearly always: one pair of pairs, not two)
        n = len(ct.args)
        self._made_of = (finals, closes, ct.args, n, accept_verdict, accept_finish)
        self._joined: str | None = None
        """The arguments joined, kept when made from ``previous`` (the call's tail before a
        delta was appended): joined again, the pieces of two calls streamed side by side
        were read one by one, 50,000 of them (50 ms), at each delta appended."""
        if previous is not None and previous._made_of[2] is ct.args:
            had = previous._made_of[3]
            if had <= n:
                self._joined = previous._arguments() + "".join(ct.args[had:n])
        lines = self._make()
        self.size = len(lines)
        self.width = max((sum(cell_len(t) for t, _ in line) for line in lines), default=0)
        self._lines: list[list[Piece]] | None = None

    def _arguments(self) -> str:
        if self._joined is not None:
            return self._joined
        args, n = self._made_of[2], self._made_of[3]
        return args.joined(n) if isinstance(args, CallArgs) else "".join(args[:n])

    def _make(self) -> list[list[Piece]]:
        finals, closes, _, _, verdict, finish = self._made_of
        return _tail(finals, closes, self._arguments(), verdict, finish)

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> list[Piece]: ...

    @overload
    def __getitem__(self, index: slice) -> list[list[Piece]]: ...

    def __getitem__(self, index: int | slice) -> list[Piece] | list[list[Piece]]:
        if self._lines is None:
            self._lines = self._make()
        return self._lines[index]


def _shared(closed: tuple[Any, Any] | None, final: tuple[Any, Any]) -> tuple[Any, Any] | None:
    """``closed``, or ``final`` itself when they hold the same strings: 5,000 calls keep one
    pair each, not two."""
    if (
        closed is not None
        and type(closed[0]) is str
        and type(closed[1]) is str
        and type(final[0]) is str
        and type(final[1]) is str
        and closed == final
    ):
        return final
    return closed


def _tail(
    finals: tuple[tuple[Any, Any], tuple[Any, Any]],
    closes: tuple[tuple[Any, Any] | None, tuple[Any, Any] | None],
    arguments: str,
    accept_verdict: str,
    accept_finish: dict[str, Any],
) -> list[list[Piece]]:
    """The assembled call under assign-always and accept-identity (``finals``: its final id
    and name under each, ``closes``: what its end carries), then its ``arguments``."""
    out: list[list[Piece]] = []
    for b, label in enumerate(("assign-always  ", "accept-identity")):
        line: list[Piece] = [(f"   {label}".ljust(TAIL_LABEL_W), "calls-view--header")]
        closed = closes[b]
        if closed is None:
            missing = missing_identity(*finals[b])
            why = f"refused: the call never got a non-empty {missing}"
            if accept_verdict == "malformed-tool-call":
                failure = accept_finish.get("failure", {})
                why += " → " + failure_text(failure)
            elif accept_verdict == "in-progress":
                why = f"no {missing} in what has been read so far"
            line.append(("✗ " + visible(why), "calls-view--bad"))
            out.append(line)
            continue
        cid, name = closed
        line += [
            ("id ", "calls-view--dim"),
            (show_value(cid), _kind_style(cid)),
            ("  name ", "calls-view--dim"),
            (show_value(name), _kind_style(name)),
            ("  ", ""),
        ]
        lacking = unidentified(cid, name)
        if not lacking:
            line.append(("✓ identified", "calls-view--ok"))
        else:  # the name is what the harness trips on first
            fld = "name" if "name" in lacking else "id"
            shown = show_value(name if fld == "name" else cid)
            line.append(("✗ " + consequence(fld, shown), "calls-view--bad"))
        out.append(line)
    out.extend(_argument_lines(arguments))
    out.append([])
    return out


def _argument_lines(args: str) -> list[list[Piece]]:
    head: list[Piece] = [("   arguments".ljust(TAIL_LABEL_W), "calls-view--header")]
    if not args:
        return [
            [
                *head,
                ('""', "calls-view--empty"),
                ("  (no arguments were streamed)", "calls-view--dim"),
            ]
        ]
    count = 0
    if len(args) > MAX_PRETTY:  # more than the lines shown: never parsed nor wrapped whole
        count = -(-len(args) // ARG_WRAP)
        lines = [args[i : i + ARG_WRAP] for i in range(0, MAX_ARG_LINES * ARG_WRAP, ARG_WRAP)]
        note = f"  ({len(args):,} characters: shown as sent)"
    else:
        try:
            pretty = json.dumps(json.loads(args), indent=2, ensure_ascii=False)
            lines = pretty.split("\n")
            note = ""
        except (ValueError, RecursionError):
            lines = [args[i : i + ARG_WRAP] for i in range(0, len(args), ARG_WRAP)]
            note = "  (does not parse as JSON: shown as sent)"
        count = len(lines)
    out: list[list[Piece]] = []
    for n, text in enumerate(lines[:MAX_ARG_LINES]):
        prefix = head if n == 0 else [(" " * TAIL_LABEL_W, "")]
        out.append([*prefix, (visible(text), "calls-view--args")])
    if note:
        out[0].append((note, "calls-view--dim"))
    if count > MAX_ARG_LINES:
        rest = count - MAX_ARG_LINES
        out.append(
            [
                (" " * TAIL_LABEL_W, ""),
                (f"… {rest:,} more lines (c on the call title copies it all)", "calls-view--dim"),
            ]
        )
    return out


def _kind_style(value: Any) -> str:
    return {
        ValueKind.ABSENT: "calls-view--absent",
        ValueKind.NULL: "calls-view--null",
        ValueKind.EMPTY: "calls-view--empty",
        ValueKind.STRING: "calls-view--string",
        ValueKind.OTHER: "calls-view--other",
    }[value_kind(value)]


class CallsView(ModelView[CallsModel]):
    """Per tool call, its identity evolution as a table (see the module docstring)."""

    CURSOR_MARK = "▶"

    COMPONENT_CLASSES: ClassVar[set[str]] = LineView.COMPONENT_CLASSES | {
        "calls-view--title",
        "calls-view--header",
        "calls-view--dim",
        "calls-view--absent",
        "calls-view--null",
        "calls-view--empty",
        "calls-view--string",
        "calls-view--other",
        "calls-view--args",
        "calls-view--erased-row",
        "calls-view--erased-cursor",
        "calls-view--erased-label",
        "calls-view--erased-value",
        "calls-view--repaired",
        "calls-view--ok",
        "calls-view--bad",
        "calls-view--refused",
        "calls-view--gutter",
    }

    DEFAULT_CSS = """
    CallsView {
        & > .calls-view--title { text-style: bold; color: $text; }
        & > .calls-view--header { color: $text-muted; text-style: bold; }
        & > .calls-view--dim { color: $text-muted; }
        & > .calls-view--absent { color: $text-disabled; text-style: italic; }
        & > .calls-view--null { color: $text-secondary; text-style: italic; }
        & > .calls-view--empty { color: $text-warning; text-style: bold; }
        & > .calls-view--string { color: $text-success; }
        & > .calls-view--other { color: $text-accent; text-style: italic; }
        & > .calls-view--args { color: $text; }
        & > .calls-view--erased-row { background: $error 18%; }
        & > .calls-view--erased-cursor { background: $error 30%; }
        &:focus > .calls-view--erased-cursor { background: $error 45%; text-style: bold; }
        & > .calls-view--erased-label { color: $text-error; text-style: bold; }
        & > .calls-view--erased-value { color: $text-error; text-style: bold reverse; }
        & > .calls-view--repaired { color: $text-success; }
        & > .calls-view--ok { color: $text-success; text-style: bold; }
        & > .calls-view--bad { color: $text-error; text-style: bold; }
        & > .calls-view--refused { color: $text-warning; text-style: bold; }
        & > .calls-view--gutter { color: $error; }
    }
    """

    @staticmethod
    def build(trace: Trace) -> CallsModel:
        return build_calls_model(trace)

    def build_from(self, trace: Trace, previous: CallsModel | None) -> CallsModel:
        return build_calls_model(trace, previous)

    @property
    def trace(self) -> Trace | None:
        return self.model.trace if self.model is not None else None

    def show(self, model: CallsModel, *, keep_position: bool = False) -> None:
        """Show ``model``; with ``keep_position``, the cursor and scroll stay where they were."""
        scroll = self.scroll_offset
        cursor = self.cursor
        self.model = model
        self.sticky = model.sticky
        self.fixed_rows = PINNED  # the cursor is kept below the pinned headings (row_at)
        self.set_shape(model.total, model.width)
        if keep_position:
            self.scroll_to(scroll.x, scroll.y, animate=False, immediate=True)
            if 0 <= cursor < model.total and self.is_selectable(cursor):
                self.set_reactive(CallsView.cursor, cursor)
            else:
                # The file was rewritten under the cursor (its row is now a heading, or
                # prose, or gone): the first delta, as a fresh open puts it.
                target = self._first_delta()
                if target is not None:
                    self.move_cursor(target, user=False)
                    self.post_message(self.CursorMoved(self, target))
                else:
                    self.set_reactive(CallsView.cursor, -1)
        else:
            self.scroll_to(0, 0, animate=False, immediate=True)
            first = (
                model.flag_row(model.trace.analysis.flags[0])
                if model.trace.analysis.flags
                else None
            )
            target = first if first is not None else self._first_delta()
            if target is not None:
                self.move_cursor(target, user=False, center=first is not None)
                self.post_message(self.CursorMoved(self, target))
            else:
                self.set_reactive(CallsView.cursor, -1)

    def _first_delta(self) -> int | None:
        if self.model is None or not self.model.sections:
            return None
        return self.model.sections[0].start + HEAD

    def is_selectable(self, index: int) -> bool:
        if self.model is None:
            return False
        section, offset = self.model.locate(index)
        return section is not None and (offset == 0 or HEAD <= offset < HEAD + len(section.rows))

    def is_table_row(self, index: int) -> bool:
        if self.model is None:
            return False
        section, offset = self.model.locate(index)
        return section is not None and 1 <= offset < HEAD + len(section.rows)

    def row_at(self, y: int) -> int:
        """The row on line ``y``: the call's two heading rows stay on the top lines while its
        deltas scroll under them (a 20,000-delta call opened on its flag keeps its columns
        named)."""
        top = int(self.scroll_offset.y)
        model = self.model
        if y < PINNED and model is not None and top > 0:
            section, offset = model.locate(top + PINNED)
            headings = section.start + 1 if section is not None else 0
            if section is not None and HEAD <= offset < HEAD + len(section.rows) and top > headings:
                return headings + y
        return top + y

    def row_sticky(self, index: int) -> int:
        model = self.model
        if model is None:
            return 0
        section, offset = model.locate(index)
        if section is None or offset == 0:
            return 0  # the call's title goes sideways as far as its end (row_scroll)
        if offset < HEAD + len(section.rows):
            return self.sticky
        return TAIL_LABEL_W  # assign-always / accept-identity / arguments stay beside the values

    def is_prose(self, index: int) -> bool:
        # A call's title ("▸ call 0   ✗ erased id (1 flag)   block 0 · 3 deltas from line 5").
        if self.model is None:
            return False
        section, offset = self.model.locate(index)
        return section is not None and offset == 0

    def row_scroll(self, index: int, scroll_x: int, length: int) -> int:
        # The lines below a call's table follow a sideways scroll only as far as their end:
        # one that fits stays whole while the columns above scroll.
        if self.model is None or self.is_table_row(index):
            return scroll_x
        return self.up_to_its_end(scroll_x, length)

    def column_stops(self) -> list[int]:
        """Where each column of the call at the cursor (or at the top) starts."""
        model = self.model
        if model is None or not model.sections:
            return []
        section, _ = model.locate(self.cursor if self.cursor >= 0 else int(self.scroll_offset.y))
        cols = (section or model.sections[0]).columns
        stops = []
        x = GUTTER
        for k, col in enumerate(cols):
            stops.append(x)
            x += (len(SEP) if col.sep else (0 if k == 0 else GAP)) + col.width
        return stops

    def cursor_style(self, fill: Style) -> Style:
        # The cursor on an erasing delta stays red: the erasure is what the row is about.
        if fill.bgcolor is not None:
            return self.fill_style("calls-view--erased-cursor")
        return super().cursor_style(fill)

    def selected_delta(self) -> tuple[Section, DeltaRow] | None:
        if self.model is None or self.cursor < 0:
            return None
        return self.model.delta_at(self.cursor)

    def _pieces(self, pieces: list[Piece], fill: str = "") -> Row:
        style = self.piece_style
        return [Segment(text, style(name)) for text, name in pieces], style(fill)

    def render_row(self, index: int) -> Row:
        model = self.model
        if model is None:
            return [], Style()
        section, offset = model.locate(index)
        if section is None:
            return self._pieces(model.intro[offset]) if offset < len(model.intro) else ([], Style())
        if offset == 0:
            return self._pieces(self._title(section))
        if offset == 1:
            return self._pieces(self._groups(section))
        if offset == 2:
            return self._pieces(self._columns(section))
        k = offset - HEAD
        if k < len(section.rows):
            return self._delta_row(section, section.rows[k])
        return self._pieces(section.tail[k - len(section.rows)])

    def _title(self, s: Section) -> list[Piece]:
        ct = s.call
        n = len(s.rows)
        plural = "s" if n != 1 else ""
        # What is wrong first: in a narrow view the end of the line is off screen.
        pieces: list[Piece] = [
            ("▸ ", "calls-view--dim"),
            (visible(call_named(ct.wire_index)), "calls-view--title"),
        ]
        if ct.flags:
            kinds = ", ".join(sorted({f.label for f in ct.flags}))
            count = len(ct.flags)
            pieces.append(
                (
                    f"   ✗ {kinds} ({count} flag{'s' if count != 1 else ''})",
                    "calls-view--erased-label",
                )
            )
            repaired = sum(1 for f in ct.flags if f.repaired_line is not None)
            if repaired:
                pieces.append((f" · {repaired} repaired", "calls-view--repaired"))
        missing = missing_identity(*ct.final(ACCEPT))
        model = self.model
        if missing is not None and model is not None:
            # The fix refuses the call (its closing line below says why): said here too.
            if model.trace.verdicts.get("accept-identity") == "in-progress":
                pieces.append((f"   ◌ no {missing} yet", "calls-view--dim"))
            else:
                pieces.append((f"   ⊘ refused: no {missing}", "calls-view--refused"))
        # (a first screen read from the first call on: the blocks before it are not counted)
        block = "…" if model is not None and model.trace.skipped else ct.block_index
        # (and, until they are counted, the lines before it: said "…")
        first = ct.first_line if model is None else line_shown(model.trace, ct.first_line)
        pieces.append(
            (
                f"   block {block} · {n:,} delta{plural} from line {first}",
                "calls-view--dim",
            )
        )
        return pieces

    def _groups(self, s: Section) -> list[Piece]:
        pieces: list[Piece] = [(" " * GUTTER, "")]
        k = 0
        cols = s.columns
        while k < len(cols):
            col = cols[k]
            lead = SEP if col.sep else ("" if k == 0 else " " * GAP)
            if not col.group:
                pieces.append((lead + " " * col.width, ""))
                k += 1
                continue
            span = col.width
            k += 1
            while k < len(cols) and cols[k].group == col.group:
                span += GAP + cols[k].width
                k += 1
            style = "calls-view--dim" if col.group == "as sent" else "calls-view--header"
            pieces += [(lead, "calls-view--dim"), (_rule(col.group, span), style)]
        return pieces

    def _columns(self, s: Section) -> list[Piece]:
        pieces: list[Piece] = [(" " * GUTTER, "")]
        for k, col in enumerate(s.columns):
            lead = SEP if col.sep else ("" if k == 0 else " " * GAP)
            pieces += [(lead, "calls-view--dim"), (fit(col.title, col.width), "calls-view--header")]
        return pieces

    @property
    def _lines_known(self) -> bool:
        model = self.model
        return model is None or model.trace.lines_known

    def _delta_row(self, s: Section, row: DeltaRow) -> Row:
        style = self.piece_style
        label = s.labels.get(row.delta, "")
        erased = bool(label)
        flags = row.flags
        erased_fields = {f.field for f in flags}
        repaired = erased and all(f.repaired_line is not None for f in flags)
        cells: dict[str, tuple[str, str]] = {
            "delta": (f"{row.delta:,}", "calls-view--dim"),
            "line": (str(row.line) if self._lines_known else "…", "calls-view--dim"),
            "flag": (label, "calls-view--repaired" if repaired else "calls-view--erased-label"),
            "raw_id": (show_value(row.raw_id), _kind_style(row.raw_id)),
            "raw_name": (show_value(row.raw_name), _kind_style(row.raw_name)),
            "accept_id": (show_value(row.id_accept), _kind_style(row.id_accept)),
            "accept_name": (show_value(row.name_accept), _kind_style(row.name_accept)),
            "args": (
                show_value(row.arguments),
                "calls-view--args"
                if isinstance(row.arguments, str) and row.arguments
                else _kind_style(row.arguments),
            ),
        }
        for fld, value in (("id", row.id_assign), ("name", row.name_assign)):
            hit = fld in erased_fields
            cells[f"assign_{fld}"] = (
                show_value(value),
                "calls-view--erased-value" if hit else _kind_style(value),
            )
        segs = [Segment("▌ " if erased else "  ", style("calls-view--gutter"))]
        for k, col in enumerate(s.columns):
            if col.sep:
                segs.append(Segment(SEP, style("calls-view--dim")))
            elif k:
                segs.append(Segment(" " * GAP))
            text, name = cells[col.key]
            cut = middle_fit if col.key.endswith(("_id", "_name")) else fit
            shown = cut(text, col.width).rstrip(" ")
            segs.append(Segment(shown, style(name)))
            if len(shown) < col.width:
                segs.append(Segment(" " * (col.width - cell_len(shown))))
        return segs, self.fill_style("calls-view--erased-row") if erased else Style()

    def copy_text(self) -> tuple[str, str] | None:
        """What ``c`` copies at the cursor, and how to say what it was."""
        model = self.model
        if model is None or self.cursor < 0:
            return None
        section, offset = model.locate(self.cursor)
        if section is None:
            return None
        ct = section.call
        where = call_named(ct.wire_index)
        if offset == 0:
            data = {
                "call": ct.wire_index if ct.wire_index is not UNSET else None,
                ASSIGN.value: dict(zip(("id", "name"), ct.closes_with(ASSIGN) or (), strict=True)),
                ACCEPT.value: dict(zip(("id", "name"), _plain(ct.final(ACCEPT)), strict=True)),
                "arguments": ct.arguments,
            }
            return json.dumps(data, ensure_ascii=False, indent=2), f"the assembled {where}"
        found = model.delta_at(self.cursor)
        if found is None:
            return None
        _, row = found
        payload = model.trace.payloads[row.position]
        text = model.trace.raw[payload.start : payload.end].decode("utf-8", "replace")
        return text, f"delta {row.delta} of {where} (line {line_shown(model.trace, payload.line)})"

    def action_inspect(self) -> None:
        """The selected delta's payload (or the assembled call) in full."""
        got = self.copy_text()
        model = self.model
        if got is None or model is None:
            return
        text, what = got
        found = model.delta_at(self.cursor)
        if found is None:
            self.app.push_screen(PayloadScreen(what, [("", text)], text))
            return
        payload = model.trace.payloads[found[1].position]
        line = line_shown(model.trace, payload.line)
        sections = [(f"payload, line {line}", payload.data.decode("utf-8", "replace"))]
        problem = model.trace.errors.get(payload.line)
        if problem:
            sections.append(("decode problem", problem))
        self.app.push_screen(PayloadScreen(what, sections, text))


def _plain(pair: tuple[Any, Any]) -> tuple[Any, Any]:
    return tuple(None if v is UNSET else v for v in pair)  # type: ignore[return-value]


def _rule(label: str, width: int) -> str:
    text = f" {label} "
    if len(text) + 2 > width:
        return fit(label, width)
    left = 2
    return "─" * left + text + "─" * (width - left - len(text))
