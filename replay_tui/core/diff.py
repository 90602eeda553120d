"""What a gateway changed between two captures of the same request, and whether it matters.

Three levels, from what the agent sees to what was on the wire:

- **outcome** (per behavior): what the agent receives — the assembled blocks (text, reasoning,
  each tool call's id, name and arguments), usage and the finish. Two captures with the same
  outcome are interchangeable for the agent, whatever else differs.
- **calls**: each tool call's identity evolution, delta against delta (calls paired in order of
  appearance), with the erasures each side has.
- **events**: payload by payload, aligned on content (:mod:`.diff_events`).

:func:`diff_traces` computes all three; the outcome under a behavior is computed on first use
and kept. Nothing here renders for a terminal: :meth:`Difference.text` is plain text with
control characters escaped, for the CLI and the TUI alike.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import jsontext
from .diff_events import (
    REASONING,
    TEXT,
    VOLATILE_KEYS,
    EventDiff,
    EventRow,
    EventRows,
    FieldDiff,
    Streams,
    align_events_steps,
    drive,
    event_text,
    no_gc,
)
from .identity import CallTrace, DeltaRow, DeltaRows, Flag
from .indexed import Indexed
from .pieces import WireCalls
from .trace import Trace
from .translator import Behavior, index_key, takes_identity, usage_chunk
from .visible import visible
from .wire import UNSET, describe_value

__all__ = [
    "ROW_ATTRIBUTES",
    "VOLATILE_KEYS",
    "AgentOutcome",
    "Block",
    "Blocks",
    "CallDiff",
    "CallRow",
    "CallRows",
    "Difference",
    "EventDiff",
    "EventRow",
    "EventRows",
    "FieldDiff",
    "OutcomeDiff",
    "TraceDiff",
    "diff_json",
    "diff_steps",
    "diff_traces",
    "event_text",
    "render_value",
]


def _same(a: Any, b: Any) -> bool:
    """Strict JSON equality: ``1``, ``1.0``, ``true`` and ``"1"`` all differ; absent ≠ null."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict | list):
        return jsontext.same_json(a, b)
    return bool(a == b)


# --- differences -------------------------------------------------------------------------------


@dataclass(slots=True)
class Difference:
    """One thing that differs, located in both traces.

    ``a``/``b`` are the raw values (``UNSET`` when absent on that side); ``kind`` says how to
    show them: ``identity`` (absent / null / "" / values kept apart), ``text`` (an excerpt
    around the first differing character), ``finish``, ``list`` or ``value``.
    """

    what: str
    a: Any
    b: Any
    a_line: int | None
    b_line: int | None
    kind: str = "value"

    def text(self) -> str:
        """``call 0 id: "call_9" vs ""``: one line, control characters escaped."""
        return f"{visible(self.what)}: {self.a_text()} vs {self.b_text()}"

    def a_text(self) -> str:
        return render_value(self.a, self.kind, self.b)

    def b_text(self) -> str:
        return render_value(self.b, self.kind, self.a)


def render_value(value: Any, kind: str, other: Any = UNSET) -> str:
    """A value as one escaped line; ``other`` (the value it differs from) places text excerpts."""
    if value is UNSET:
        return "absent"
    if kind == "text" and isinstance(value, str):
        return visible(_excerpt(value, other if isinstance(other, str) else ""))
    if kind == "finish" and isinstance(value, dict):
        label = finish_label(value)
        if isinstance(other, dict) and finish_label(other) == label:
            # the same kind and code: where what they say beside it (the failure's message)
            # first differs
            said = _excerpt(_finish_detail(value), _finish_detail(other))
            return visible(f"{label}: {said}")
        return visible(label)
    if kind == "list" and isinstance(value, list):
        return visible(", ".join(map(str, value))) if value else "none"
    if kind == "erasures" and isinstance(value, list):
        return visible(", ".join(map(_erasure_text, value))) if value else "none"
    return visible(_short(describe_value(_jsonable(value))))


def _erasure_text(e: dict[str, Any]) -> str:
    label = "erased id" if e.get("kind") == "erased-id" else "erased name"
    text = f"{label} by {describe_value(e.get('value'))} on delta {e.get('delta')}"
    text += f" (line {e.get('line')}"
    if e.get("repaired_line") is not None:
        text += f", repaired on line {e['repaired_line']}"
    return text + ")"


def finish_label(reason: dict[str, Any]) -> str:
    """``stop`` / ``tool-calls`` / ``max-tokens`` / ``error STREAM_CLOSED``."""
    kind = reason.get("kind")
    if kind == "error":
        failure = reason.get("failure")
        code = failure.get("code", UNSET) if isinstance(failure, dict) else UNSET
        if isinstance(code, str) and code:
            return f"error {code}"
        # An error chunk's code as sent: "" and null are told apart from no code at all.
        return "error" if code is UNSET else f"error {describe_value(code)}"
    return str(kind)


def _finish_detail(reason: dict[str, Any]) -> str:
    """What a finish says beside its kind and code: its failure's message, else the rest."""
    failure = reason.get("failure")
    message = failure.get("message") if isinstance(failure, dict) else None
    if isinstance(message, str):
        return message
    return describe_value(_jsonable(reason))


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _excerpt(text: str, other: str, width: int = 40) -> str:
    """``text`` as a JSON string, around where it first differs from ``other``."""
    p = _prefix(text, other)
    start = max(0, p - 12)
    piece = text[start : start + width]
    out = jsontext.dumps(piece)  # (a lone surrogate: its escape)
    if start:
        out = "…" + out
    if start + width < len(text):
        out += "…"
    return out


def _prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


# --- outcome -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Block:
    """One block as the agent assembles it."""

    kind: str
    """``text``, ``reasoning`` or ``tool-call``."""
    index: int
    """Block index (opening order), as in the harness's chunks."""
    line: int
    """Line of the payload that opened it."""
    closed: bool
    """The harness closed it (``block-end``); false when the stream failed or was refused."""
    text: str = ""
    """Text, reasoning, or the call's concatenated arguments."""
    call: int | None = None
    """For a tool call: its number in order of appearance (how calls are paired)."""
    id: Any = UNSET
    """For a tool call: the id the agent gets (as the ``block-end`` has it once closed)."""
    name: Any = UNSET


@dataclass(slots=True)
class AgentOutcome:
    """What the agent receives from one trace under one behavior."""

    behavior: Behavior
    verdict: str
    blocks: Blocks
    usage: dict[str, Any] | None
    usage_line: int | None
    finish: dict[str, Any]
    finish_line: int | None
    """Where the finish comes from (``None``: the end of the file)."""

    @property
    def calls(self) -> list[Block]:
        return self.blocks.of_kind("tool-call")

    def block(self, kind: str) -> Block | None:
        found = self.blocks.of_kind(kind, 1)
        return found[0] if found else None


class Blocks(Indexed[Block]):
    """An outcome's blocks in opening order, each made when read: a trace of 5,000 calls
    would otherwise keep 5,000 blocks a side for as long as the compare view is open."""

    __slots__ = ("_behavior", "_closed", "_streams", "_trace")

    def __init__(self, trace: Trace, streams: Streams, behavior: Behavior, closed: bool) -> None:
        self._trace, self._streams = trace, streams
        self._behavior, self._closed = behavior, closed

    def __len__(self) -> int:
        return len(self._streams.opened)

    def _at(self, index: int) -> Block:
        streams = self._streams
        channel, event = streams.opened[index]
        line = streams.line(event)
        return _block(self._trace, streams, channel, index, line, self._behavior, self._closed)

    def of_kind(self, kind: str, most: int | None = None) -> list[Block]:
        """The blocks of ``kind`` (``text``, ``reasoning``, ``tool-call``), at most ``most``:
        only those are made."""
        channel_kind = "call" if kind == "tool-call" else kind
        out: list[Block] = []
        for i, (channel, _) in enumerate(self._streams.opened):
            if channel[0] == channel_kind:
                out.append(self._at(i))
                if most is not None and len(out) >= most:
                    break
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Blocks | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Blocks({list(self)!r})"


def _outcome(trace: Trace, streams: Streams, behavior: Behavior) -> AgentOutcome:
    analysis = trace.analysis
    result = analysis.outcomes[behavior]
    closed = analysis.done and result.verdict != "malformed-tool-call"
    blocks = Blocks(trace, streams, behavior, closed)
    usage = None
    usage_line = None
    usage_event, finish_event = streams.usage_event, streams.finish_event
    if analysis.done and usage_event is not None:
        decoded = trace.decoded[usage_event]
        if decoded is not None and decoded.chunk is not None:
            usage = usage_chunk(decoded.chunk.usage)["usage"]
            usage_line = streams.line(usage_event)
    finish = result.finish
    code = finish.get("failure", {}).get("code") if finish.get("kind") == "error" else None
    if code == "STREAM_CLOSED":
        finish_line = None
    elif code in ("MALFORMED_RESPONSE", "UNKNOWN") and result.position is not None:
        finish_line = streams.line(result.position)
    elif finish_event is not None and code != "MALFORMED_TOOL_CALL":
        finish_line = streams.line(finish_event)
    else:
        finish_line = streams.line(result.position) if result.position is not None else None
    return AgentOutcome(behavior, result.verdict, blocks, usage, usage_line, finish, finish_line)


def _block(
    trace: Trace,
    streams: Streams,
    channel: tuple[Any, ...],
    index: int,
    line: int,
    behavior: Behavior,
    closed: bool,
) -> Block:
    if channel[0] != "call":
        run = streams.channels.get(channel)
        text = run.text_before(streams.cut) if run is not None else ""
        return Block(channel[0], index, line, closed, text)
    k = channel[1]
    ct = trace.analysis.calls[k]
    cid, name = ct.final(behavior)
    if closed:  # block-end turns a missing (or null) identity into ""
        cid = "" if cid is UNSET or cid is None else cid
        name = "" if name is UNSET or name is None else name
    return Block("tool-call", index, line, closed, streams.arguments(k), k, cid, name)


@dataclass(slots=True)
class OutcomeDiff:
    """The outcome of both traces under one behavior, and how they differ."""

    behavior: Behavior
    a: AgentOutcome
    b: AgentOutcome
    differences: list[Difference]

    @property
    def same(self) -> bool:
        return not self.differences

    def headline(self) -> str:
        """One line: the first outcome difference, or that there is none."""
        if self.same:
            return f"same outcome under {self.behavior.value} ({self.a.verdict})"
        first = self.differences[0].text()
        more = len(self.differences) - 1
        tail = f" (+{more} more)" if more else ""
        return f"outcome differs under {self.behavior.value}: {first}{tail}"


def _outcome_differences(
    ta: Trace, sa: Streams, oa: AgentOutcome, tb: Trace, sb: Streams, ob: AgentOutcome
) -> list[Difference]:
    out: list[Difference] = []
    if not _same(oa.finish, ob.finish):
        out.append(
            Difference("finish", oa.finish, ob.finish, oa.finish_line, ob.finish_line, "finish")
        )
    ca, cb = oa.calls, ob.calls
    for k in range(max(len(ca), len(cb))):
        xa = ca[k] if k < len(ca) else None
        xb = cb[k] if k < len(cb) else None
        if xa is None or xb is None:
            out.append(
                Difference(
                    f"call {k}",
                    _call_value(xa),
                    _call_value(xb),
                    xa.line if xa else None,
                    xb.line if xb else None,
                )
            )
            continue
        for fld in ("id", "name"):
            va, vb = getattr(xa, fld), getattr(xb, fld)
            if not _same(va, vb):
                out.append(
                    Difference(
                        f"call {k} {fld}",
                        va,
                        vb,
                        _identity_line(ta.analysis.calls[k], fld, oa.behavior),
                        _identity_line(tb.analysis.calls[k], fld, ob.behavior),
                        "identity",
                    )
                )
        if xa.text != xb.text:
            out.append(
                _text_difference(f"call {k} arguments", ("args", k), xa.text, xb.text, sa, sb)
            )
    for kind, channel in (("text", TEXT), ("reasoning", REASONING)):
        xa, xb = oa.block(kind), ob.block(kind)
        if xa is None and xb is None:
            continue
        va = xa.text if xa else UNSET
        vb = xb.text if xb else UNSET
        if xa is None or xb is None:
            out.append(
                Difference(kind, va, vb, xa.line if xa else None, xb.line if xb else None, "text")
            )
        elif va != vb:
            out.append(_text_difference(kind, channel, xa.text, xb.text, sa, sb))
    order_a = [_block_label(b) for b in oa.blocks]
    order_b = [_block_label(b) for b in ob.blocks]
    if order_a != order_b and sorted(order_a) == sorted(order_b):
        out.append(
            Difference(
                "block order",
                order_a,
                order_b,
                oa.blocks[0].line if oa.blocks else None,
                ob.blocks[0].line if ob.blocks else None,
                "list",
            )
        )
    ua, ub = oa.usage, ob.usage
    if ua is None or ub is None:
        if ua is not ub:
            out.append(
                Difference(
                    "usage",
                    UNSET if ua is None else ua,
                    UNSET if ub is None else ub,
                    oa.usage_line,
                    ob.usage_line,
                )
            )
    else:
        for key in list(ua) + [k for k in ub if k not in ua]:
            va, vb = ua.get(key, UNSET), ub.get(key, UNSET)
            if not _same(va, vb):
                out.append(Difference(f"usage {key}", va, vb, oa.usage_line, ob.usage_line))
    return out


def _call_value(block: Block | None) -> Any:
    if block is None:
        return UNSET
    return {"id": block.id, "name": block.name, "arguments": block.text}


def _block_label(block: Block) -> str:
    return f"call {block.call}" if block.kind == "tool-call" else block.kind


def _text_difference(
    what: str, channel: tuple[Any, ...], a: str, b: str, sa: Streams, sb: Streams
) -> Difference:
    """A text difference located at the payloads holding its first differing character."""
    p = _prefix(a, b)
    return Difference(what, a, b, _line_at(sa, channel, p), _line_at(sb, channel, p), "text")


def _line_at(streams: Streams, channel: tuple[Any, ...], offset: int) -> int | None:
    ch = streams.channels.get(channel)
    if ch is None:
        return None
    ev = ch.event_at(offset, streams.cut)
    return streams.line(ev) if ev is not None else None


def _identity_line(ct: CallTrace, fld: str, behavior: Behavior) -> int | None:
    """Line of the last delta whose ``fld`` the behavior took (``None``: it took none)."""
    found: int | None = None
    at = 0 if fld == "id" else 1
    for line, sent in zip(ct.lines, _identities(ct), strict=True):
        if takes_identity(behavior, sent[at]):
            found = line
    return found


def _identities(ct: CallTrace) -> Iterator[tuple[Any, Any]]:
    """Each delta's ``(id, name)`` as sent (``UNSET`` where absent)."""
    calls = ct.calls
    if isinstance(calls, WireCalls):  # (read from the skeletons: no tool call made again)
        return calls.identities()
    return ((c.id, c.function.name if c.function else UNSET) for c in calls)


# --- calls ---------------------------------------------------------------------------------


_ROW_FIELDS: tuple[tuple[str, str], ...] = (
    ("raw_id", "raw id"),
    ("raw_name", "raw name"),
    ("arguments", "arguments"),
    ("id_accept", "id (accept-identity)"),
    ("name_accept", "name (accept-identity)"),
    ("id_assign", "id (assign-always)"),
    ("name_assign", "name (assign-always)"),
)
ROW_ATTRIBUTES = {label: attr for attr, label in _ROW_FIELDS}
"""``DeltaRow`` attribute behind each :attr:`CallRow.changes` label."""


@dataclass(slots=True)
class CallRow:
    """One row of a call's side-by-side identity evolution: a delta of A against one of B.

    Deltas are paired through the event alignment. In a split or merged event row the
    arguments fragments differ by construction, so only identity is compared there.
    """

    status: str
    """``same``, ``changed``, ``only-a`` or ``only-b``."""
    a: DeltaRow | None
    b: DeltaRow | None
    changes: tuple[str, ...] = ()
    """What differs: ``raw id``, ``raw name``, ``arguments``, ``id (assign-always)``, …"""

    @property
    def neutral(self) -> bool:
        """A one-sided delta that carries neither ``id`` nor ``name``: identity unaffected."""
        row = self.a if self.b is None else self.b if self.a is None else None
        return row is not None and row.raw_id is UNSET and row.raw_name is UNSET

    @property
    def changed(self) -> bool:
        """Worth reporting: a paired delta that differs, or a one-sided one touching identity."""
        if self.status == "same":
            return False
        return self.status == "changed" or not self.neutral


@dataclass(slots=True)
class CallDiff:
    """One tool call (paired by order of appearance) in both traces."""

    call: int
    a: CallTrace | None
    b: CallTrace | None
    differences: list[Difference]
    events: EventDiff = field(repr=False)
    counts: tuple[int | None, int | None]
    """Each side's deltas in its trace's snapshot (:attr:`Analysis.counts`; None: no such
    call): a capture being followed goes on growing its calls in another thread."""
    _rows: CallRows | None = field(default=None, repr=False)
    _same_rows: bool | None = field(default=None, repr=False)

    @property
    def rows(self) -> CallRows:
        """Every delta of both sides, aligned (same rows included), for a side-by-side view.

        Worked out on first use (a 100,000-delta call costs a second or so), kept compact:
        each row is made when read."""
        if self._rows is None:
            with no_gc():
                drive(self.rows_steps())
        assert self._rows is not None
        return self._rows

    def rows_steps(self) -> Generator[None, None, None]:
        """Work out :attr:`rows` a few milliseconds at a time (a ``yield`` between steps)."""
        if self._rows is None:
            if self._same_rows is None:
                same = yield from _rows_identical_steps(self.a, self.b, self.events, self.counts)
                self._same_rows = same
            rows = yield from _call_rows_steps(
                self.a, self.b, self.events, self._same_rows, self.counts
            )
            self._rows = rows

    def _identical(self) -> bool:
        if self._same_rows is None:
            self._same_rows = _rows_identical(self.a, self.b, self.events, self.counts)
        return self._same_rows

    @property
    def changed(self) -> bool:
        if self.differences:
            return True
        if self._rows is None and self._identical():
            return False
        return self.rows.changed_count > 0

    @property
    def changed_count(self) -> int:
        """How many delta rows differ."""
        if self._rows is None and self._identical():
            return 0
        return self.rows.changed_count

    @property
    def changed_rows(self) -> list[CallRow]:
        if not self.changed:
            return []
        rows = self.rows
        return [rows[r] for r in rows.changed_indexes]


_NO_ROWS: array[int] = array("i")
_NO_CHANGES: array[int] = array("h")
_NO_LABELS: dict[tuple[str, ...], int] = {}
"""What :class:`CallRows` share until a row differs (never appended to)."""


class CallRows(Indexed[CallRow]):
    """A call's delta rows, kept as stretches and made when read.

    A stretch is ``_PAIR`` (A's delta ``i0 + k`` against B's ``j0 + k``), ``_ONLY_A`` or
    ``_ONLY_B``; the rows that differ are listed (``changed_indexes``) with, for a pair, what
    differs (an index into a few distinct ``changes`` tuples).

    Kept small (5,000 calls compared, most of them one stretch of rows that pair): the
    stretches in one array, four numbers each (kind, first row, A's and B's first delta),
    and each side's :class:`DeltaRows` made when a row is first read.
    """

    __slots__ = (
        "_changes",
        "_counts",
        "_labels",
        "_ra",
        "_rb",
        "_size",
        "_stretches",
        "_xa",
        "_xb",
        "changed_indexes",
    )

    def __init__(
        self, xa: CallTrace | None, xb: CallTrace | None, counts: tuple[int | None, int | None]
    ) -> None:
        self._xa, self._xb, self._counts = xa, xb, counts
        self._ra: DeltaRows | None = None
        self._rb: DeltaRows | None = None
        # rows and deltas: a call's, far below 2**31
        self._stretches: array[int] = array("i")
        self._size = 0
        self.changed_indexes: array[int] = _NO_ROWS
        """The rows that differ, in order (until one does, an empty array every call shares:
        of 5,000 calls compared, most have none)."""
        self._changes = _NO_CHANGES
        """For each of ``changed_indexes``: its ``_labels`` entry (-1: a one-sided row)."""
        self._labels: dict[tuple[str, ...], int] = _NO_LABELS

    def _add(self, kind: int, i: int, j: int, rows: int = 1) -> None:
        st = self._stretches
        if st and st[-4] == kind:
            self._size += rows
            return
        st.extend((kind, self._size, i, j))
        self._size += rows

    def _side(self, b: bool) -> DeltaRows:
        """A's (``b`` false) or B's delta rows, made on first use."""
        if b:
            if self._rb is None:
                assert self._xb is not None
                self._rb = DeltaRows(self._xb, self._counts[1])
            return self._rb
        if self._ra is None:
            assert self._xa is not None
            self._ra = DeltaRows(self._xa, self._counts[0])
        return self._ra

    def _stretch(self, index: int) -> int:
        """The stretch holding row ``index`` (its first number's place in ``_stretches``)."""
        st = self._stretches
        if len(st) == 4:
            return 0
        with memoryview(st) as view, view[1::4] as firsts:
            return (bisect_right(firsts, index) - 1) * 4

    def _mark(self, row: int, changes: tuple[str, ...] | None) -> None:
        if self.changed_indexes is _NO_ROWS:  # the first row that differs: this call's own
            self.changed_indexes, self._changes, self._labels = array("i"), array("h"), {}
        self.changed_indexes.append(row)
        if changes is None:
            self._changes.append(-1)
        else:
            self._changes.append(self._labels.setdefault(changes, len(self._labels)))

    @property
    def changed_count(self) -> int:
        return len(self.changed_indexes)

    def __len__(self) -> int:
        return self._size

    def _at(self, index: int) -> CallRow:
        st = self._stretches
        s = self._stretch(index)
        kind, off = st[s], index - st[s + 1]
        if kind == _ONLY_A:
            return CallRow("only-a", self._side(False)[st[s + 2] + off], None)
        if kind == _ONLY_B:
            return CallRow("only-b", None, self._side(True)[st[s + 3] + off])
        x, y = self._side(False)[st[s + 2] + off], self._side(True)[st[s + 3] + off]
        k = bisect_left(self.changed_indexes, index)
        if k < len(self.changed_indexes) and self.changed_indexes[k] == index:
            changes = next(c for c, n in self._labels.items() if n == self._changes[k])
            return CallRow("changed", x, y, changes)
        return CallRow("same", x, y)

    def same_runs(self, least: int) -> list[tuple[int, int]]:
        """``[start, end)`` of every run of at least ``least`` consecutive ``same`` rows."""
        runs: list[tuple[int, int]] = []
        marked = self.changed_indexes
        st = self._stretches
        for s in range(0, len(st), 4):
            if st[s] != _PAIR:
                continue
            lo = st[s + 1]
            end = st[s + 5] if s + 4 < len(st) else self._size
            k = bisect_left(marked, lo)
            for at in [*marked[k : bisect_left(marked, end)], end]:
                if at - lo >= least:
                    runs.append((lo, at))
                lo = at + 1
        return runs

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CallRows | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content

    def __iter__(self) -> Iterator[CallRow]:
        return map(self._at, range(self._size))

    def __repr__(self) -> str:
        return f"CallRows({len(self)} rows)"


_PAIR, _ONLY_A, _ONLY_B = 0, 1, 2


def _rows_identical(
    xa: CallTrace | None,
    xb: CallTrace | None,
    events: EventDiff,
    counts: tuple[int | None, int | None],
) -> bool:
    same: bool = drive(_rows_identical_steps(xa, xb, events, counts))
    return same


def _rows_identical_steps(
    xa: CallTrace | None,
    xb: CallTrace | None,
    events: EventDiff,
    counts: tuple[int | None, int | None],
) -> Generator[None, None, bool]:
    """Cheaply: every delta pairs with one that carries exactly the same tool call (a
    ``yield`` every ``_STEP_ROWS`` deltas: each delta's tool call is made again to be
    compared, a 100,000-delta call's in a few tenths of a second)."""
    n = counts[0]
    if xa is None or xb is None or n is None or n != counts[1]:
        return False
    for lo in range(0, n, _STEP_ROWS):
        hi = min(n, lo + _STEP_ROWS)
        # (each step over a stretch at once: its deltas compared, then the rows they are in)
        cas = xa.calls[lo:hi]
        if cas != xb.calls[lo:hi]:
            return False
        rows_a = list(map(events.row_of_a, xa.positions[lo:hi]))
        if rows_a != list(map(events.row_of_b, xb.positions[lo:hi])):
            return False
        for ca in cas:
            fn = ca.function
            name = fn.name if fn else None
            args = fn.arguments if fn else None
            # == is not strict for numbers and booleans; let the full comparison judge those.
            for v in (ca.id, name, args):
                if v is not None and v is not UNSET and type(v) is not str:
                    return False
        yield
    return True


def _call_diffs_steps(
    ta: Trace, tb: Trace, events: EventDiff, out: list[CallDiff]
) -> Generator[None, None, None]:
    ca, cb = ta.analysis.calls, tb.analysis.calls
    na, nb = ta.analysis.counts, tb.analysis.counts
    for k in range(max(len(ca), len(cb))):
        if k % STEP_CALLS == STEP_CALLS - 1:
            yield
        xa = ca[k] if k < len(ca) else None
        xb = cb[k] if k < len(cb) else None
        counts = (_held(xa, na, k), _held(xb, nb, k))
        differences = _call_differences(k, ta, xa, tb, xb)
        out.append(CallDiff(k, xa, xb, differences, events, counts))
        if max(counts[0] or 0, counts[1] or 0) >= _STEP_ROWS:
            yield  # (a long call's identity lines were read)


def _held(ct: CallTrace | None, counts: list[int], k: int) -> int | None:
    """The deltas of call ``k`` its snapshot holds, all of them recorded (a lean analysis
    records the first few; a snapshot that does not say: all recorded; None: no call)."""
    if ct is None:
        return None
    recorded = len(ct.positions)
    return min(counts[k], recorded) if k < len(counts) else recorded


def _call_differences(
    k: int, ta: Trace, xa: CallTrace | None, tb: Trace, xb: CallTrace | None
) -> list[Difference]:
    if xa is None or xb is None:
        return [
            Difference(
                f"call {k}",
                _wire(xa),
                _wire(xb),
                xa.first_line if xa else None,
                xb.first_line if xb else None,
            )
        ]
    out: list[Difference] = []
    if not _same(xa.wire_index, xb.wire_index):
        out.append(
            Difference(
                "wire index", xa.wire_index, xb.wire_index, xa.first_line, xb.first_line, "identity"
            )
        )
    if len(xa.deltas) != len(xb.deltas):
        out.append(
            Difference("deltas", len(xa.deltas), len(xb.deltas), xa.first_line, xb.first_line)
        )
    for behavior in (Behavior.ASSIGN_ALWAYS, Behavior.ACCEPT_IDENTITY):
        fa, fb = xa.final(behavior), xb.final(behavior)
        for n, fld in enumerate(("id", "name")):
            if not _same(fa[n], fb[n]):
                out.append(
                    Difference(
                        f"{fld} ({behavior.value})",
                        fa[n],
                        fb[n],
                        _identity_line(xa, fld, behavior),
                        _identity_line(xb, fld, behavior),
                        "identity",
                    )
                )
    fa_, fb_ = _flags(ta, xa), _flags(tb, xb)
    if [_erasure_key(f) for f in fa_] != [_erasure_key(f) for f in fb_]:
        out.append(
            Difference(
                "erasures",
                [_erasure(f) for f in fa_],
                [_erasure(f) for f in fb_],
                fa_[0].line if fa_ else None,
                fb_[0].line if fb_ else None,
                "erasures",
            )
        )
    for fld, attr in (("id", "id_first_delta"), ("name", "name_first_delta")):
        da, db = getattr(xa, attr), getattr(xb, attr)
        if da != db:
            out.append(
                Difference(
                    f"{fld} arrives on delta",
                    da or UNSET,
                    db or UNSET,
                    xa.first_line,
                    xb.first_line,
                )
            )
    return out


def _wire(ct: CallTrace | None) -> Any:
    return UNSET if ct is None else {"wire_index": ct.wire_index, "deltas": len(ct.deltas)}


def _flags(trace: Trace, ct: CallTrace) -> list[Flag]:
    """The erasure flags of one call (the analysis keeps them per trace, by wire index)."""
    return [f for f in trace.analysis.flags if index_key(f.call) == ct.key]


def _erasure_key(f: Flag) -> tuple[Any, ...]:
    """What makes two erasures the same, wherever they sit in their file."""
    return (f.kind, f.delta, describe_value(f.value), f.repaired_line is not None)


def _erasure(f: Flag) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": f.kind, "line": f.line, "delta": f.delta, "value": f.value}
    if f.repaired_line is not None:
        out["repaired_line"] = f.repaired_line
    return out


def _row_values(r: DeltaRow) -> tuple[Any, ...]:
    """A row's values in ``_ROW_FIELDS`` order."""
    return (
        r.raw_id,
        r.raw_name,
        r.arguments,
        r.id_accept,
        r.name_accept,
        r.id_assign,
        r.name_assign,
    )


_LABELS = tuple(label for _, label in _ROW_FIELDS)
_ARGUMENTS = 2
_STRICT_EQ_TYPES = (str, type(UNSET), type(None))


_STEP_ROWS = 512
"""A call's delta rows paired between two ``yield`` of :func:`_call_rows_steps`."""


def _call_rows_steps(
    xa: CallTrace | None,
    xb: CallTrace | None,
    events: EventDiff,
    identical: bool,
    counts: tuple[int | None, int | None],
) -> Generator[None, None, CallRows]:
    out = CallRows(xa, xb, counts)
    na, nb = counts[0] or 0, counts[1] or 0
    if identical:  # every delta pairs with its twin, and they are the same
        if na:
            out._add(_PAIR, 0, 0, na)
        return out
    ra = DeltaRows(xa, counts[0]) if xa is not None else None
    rb = DeltaRows(xb, counts[1]) if xb is not None else None
    row_a, row_b = events.row_of_a, events.row_of_b
    i = j = 0
    end = len(events.rows) + 1
    step = 0
    while i < na or j < nb:
        step += 1
        if step % _STEP_ROWS == 0:
            yield
        ka = row_a(xa.positions[i]) if xa is not None and i < na else end
        kb = row_b(xb.positions[j]) if xb is not None and j < nb else end
        row = len(out)
        if ka == kb:
            assert ra is not None and rb is not None
            x, y = ra[i], rb[j]
            out._add(_PAIR, i, j)
            i += 1
            j += 1
            vx, vy = _row_values(x), _row_values(y)
            if vx == vy and all(type(v) in _STRICT_EQ_TYPES for v in vx):
                continue
            # In a split or merged event row the argument fragments differ by construction.
            skip = -1 if events.one_to_one(ka) else _ARGUMENTS
            changes = tuple(
                _LABELS[n]
                for n, (u, v) in enumerate(zip(vx, vy, strict=True))
                if n != skip and not _same(u, v)
            )
            if changes:
                out._mark(row, changes)
        elif ka < kb:
            assert xa is not None
            out._add(_ONLY_A, i, j)
            if _touches_identity(xa, i):
                out._mark(row, None)
            i += 1
        else:
            assert xb is not None
            out._add(_ONLY_B, i, j)
            if _touches_identity(xb, j):
                out._mark(row, None)
            j += 1
    return out


def _touches_identity(ct: CallTrace, delta: int) -> bool:
    """The delta sent an ``id`` or a ``name`` (a one-sided row that is not neutral)."""
    call = ct.calls[delta]
    fn = call.function
    return call.id is not UNSET or (fn is not None and fn.name is not UNSET)


# --- the whole diff ------------------------------------------------------------------------


@dataclass(slots=True, repr=False)
class TraceDiff:
    """Two traces compared at the three levels."""

    a: Trace
    b: Trace
    include_volatile: bool
    events: EventDiff
    calls: list[CallDiff]
    streams: tuple[Streams, Streams]
    _outcomes: dict[Behavior, OutcomeDiff] = field(default_factory=dict)

    def outcome(self, behavior: Behavior | str = Behavior.ACCEPT_IDENTITY) -> OutcomeDiff:
        """The outcome comparison under ``behavior`` (computed once)."""
        behavior = Behavior(behavior)
        found = self._outcomes.get(behavior)
        if found is None:
            sa, sb = self.streams
            with no_gc():
                oa = _outcome(self.a, sa, behavior)
                ob = _outcome(self.b, sb, behavior)
                found = OutcomeDiff(
                    behavior, oa, ob, _outcome_differences(self.a, sa, oa, self.b, sb, ob)
                )
            self._outcomes[behavior] = found
        return found

    def __repr__(self) -> str:
        return f"TraceDiff({self.a.address!r}, {self.b.address!r}, rows={len(self.events.rows)})"

    @property
    def changed_calls(self) -> list[CallDiff]:
        return [c for c in self.calls if c.changed]


def diff_traces(
    a: Trace,
    b: Trace,
    *,
    include_volatile: bool = False,
    progress: Callable[[str], None] | None = None,
) -> TraceDiff:
    """Compare two traces at every level (``progress`` hears each stage's name).

    ``include_volatile`` also compares the per-request values (``VOLATILE_KEYS``).
    """
    with no_gc():
        diff: TraceDiff = drive(
            diff_steps(a, b, include_volatile=include_volatile, progress=progress)
        )
    return diff


STEP_CALLS = 64
"""Calls compared between two ``yield`` of :func:`diff_steps`."""


def diff_steps(
    a: Trace,
    b: Trace,
    *,
    include_volatile: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Generator[None, None, TraceDiff]:
    """:func:`diff_traces` a few milliseconds at a time: a ``yield`` between the steps, the
    diff returned at the end (the same work in the same order, whoever drives it: a view
    runs it between its keys). Whoever drives it pauses the cyclic collector around each
    slice (:func:`no_gc`)."""
    if progress:
        progress("cutting payloads")
    sa, sb = Streams(a, join=False, cut=False), Streams(b, join=False, cut=False)
    yield from sa.cut_steps()
    yield from sb.cut_steps()
    sa.join()
    yield
    sb.join(like=sa)
    yield
    if progress:
        progress("aligning events")
    events = yield from align_events_steps(sa, sb, include_volatile=include_volatile)
    if progress:
        progress("comparing calls")
    calls: list[CallDiff] = []
    yield from _call_diffs_steps(a, b, events, calls)
    return TraceDiff(a, b, include_volatile, events, calls, (sa, sb))


# --- JSON ----------------------------------------------------------------------------------


def _where(trace: Trace, line: int | None, value: Any = UNSET) -> dict[str, Any]:
    out: dict[str, Any] = {"trace": trace.address, "line": line}
    if value is not UNSET:
        out["value"] = _jsonable(value)
    return out


def _jsonable(value: Any) -> Any:
    """``value`` with absent (``UNSET``) members left out, as JSON has no absent value."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items() if v is not UNSET}
    if isinstance(value, list):
        return [_jsonable(v) for v in value if v is not UNSET]
    return value


def _difference_json(d: Difference, a: Trace, b: Trace) -> dict[str, Any]:
    return {
        "what": d.what,
        "a": _where(a, d.a_line, d.a),
        "b": _where(b, d.b_line, d.b),
        "text": d.text(),
    }


def _row_json(row: EventRow, a: Trace, b: Trace) -> dict[str, Any]:
    out: dict[str, Any] = {
        "status": row.status,
        "kind": row.kind,
        "a": [_where(a, n) for n in row.a_lines],
        "b": [_where(b, n) for n in row.b_lines],
    }
    if row.fields:
        fields = []
        for f in row.fields:
            item: dict[str, Any] = {"path": f.path}
            if f.a is not UNSET:
                item["a"] = _jsonable(f.a)
            if f.b is not UNSET:
                item["b"] = _jsonable(f.b)
            fields.append(item)
        out["fields"] = fields
        if row.more_fields:
            out["more_fields"] = row.more_fields
    if row.note:
        out["note"] = row.note
    if row.status in ("split", "merged", "regrouped"):
        out["same_content"] = row.same_content
    if row.inert:
        out["inert"] = True
    if not row.replayed:
        out["replayed"] = False
    return out


def _delta_json(trace: Trace, row: DeltaRow | None) -> dict[str, Any] | None:
    if row is None:
        return None
    out: dict[str, Any] = {"trace": trace.address, "line": row.line, "delta": row.delta}
    for attr, key in (("raw_id", "id"), ("raw_name", "name"), ("arguments", "arguments")):
        value = getattr(row, attr)
        if value is not UNSET:
            out[key] = _jsonable(value)
    return out


def _changes_json(row: CallRow) -> list[dict[str, Any]]:
    out = []
    for label in row.changes:
        attr = ROW_ATTRIBUTES[label]
        item: dict[str, Any] = {"what": label}
        for side, delta in (("a", row.a), ("b", row.b)):
            value = getattr(delta, attr) if delta is not None else UNSET
            if value is not UNSET:
                item[side] = _jsonable(value)
        out.append(item)
    return out


def diff_json(
    diff: TraceDiff, behavior: Behavior | str = Behavior.ACCEPT_IDENTITY
) -> dict[str, Any]:
    """The ``diff --json`` document: differences only, each located as (trace, line)."""
    a, b = diff.a, diff.b
    od = diff.outcome(behavior)
    calls = []
    for c in diff.calls:
        calls.append(
            {
                "call": c.call,
                "differences": [_difference_json(d, a, b) for d in c.differences],
                "deltas": [
                    {
                        "status": r.status,
                        "a": _delta_json(a, r.a),
                        "b": _delta_json(b, r.b),
                        "changes": _changes_json(r),
                    }
                    for r in c.changed_rows
                ],
            }
        )
    return {
        "a": a.address,
        "b": b.address,
        "behavior": od.behavior.value,
        "include_volatile": diff.include_volatile,
        "same_outcome": od.same,
        "verdicts": {"a": od.a.verdict, "b": od.b.verdict},
        "outcome": [_difference_json(d, a, b) for d in od.differences],
        "calls": calls,
        "events": [_row_json(r, a, b) for r in diff.events.differences],
    }
