"""Identity analysis: how each tool call's ``id`` and ``name`` evolve, under both behaviors.

One pass over the decoded payloads tracks both behaviors at once, without building output
chunks: per call (keyed by wire ``tool_calls[].index``, as the harness keys blocks) it keeps
the identity in force under ``accept-identity`` and ``assign-always``, flags every delta at
which the assign-always identity stops being a non-empty string, and collects the
informational notes. The outcome per behavior (what the harness would finish with) comes from
the same state, so ``check`` never has to run the translator twice; the tests hold this
analysis to the translator's own chunks.

The per-delta table the TUI shows is derived on demand (:meth:`CallTrace.rows`), so that a
100,000-delta trace costs one small tuple per delta until someone looks at it.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

import msgspec

from .pieces import CallArgs, Pieces, Skeletons, WireCalls
from .translator import (
    STREAM_CLOSED_MESSAGE,
    Behavior,
    done_end,
    error_reason,
    index_key,
    is_identity,
    js_head,
    takes_identity,
    truthy,
)
from .verdicts import is_clean, verdict
from .visible import visible
from .wire import UNSET, Decoded, ToolCall, WireChunk, describe_value, js_string

__all__ = [
    "Analysis",
    "Analyzer",
    "CallTrace",
    "DeltaRow",
    "DeltaRows",
    "EventLog",
    "Flag",
    "Note",
    "Outcome",
    "Timeline",
    "call_named",
]

ACCEPT = Behavior.ACCEPT_IDENTITY
ASSIGN = Behavior.ASSIGN_ALWAYS
_NESTED = (list, dict)
"""Raw values never compared for equality: nested 100,000 deep, ``==`` would recurse too far
(treating them as changed costs nothing: a non-string identity never sets or flags twice)."""


class Flag(msgspec.Struct):
    """A delta at which the assign-always identity of a call was erased."""

    kind: str
    """``erased-id`` or ``erased-name``."""
    line: int
    call: Any
    """The wire ``tool_calls[].index`` of the call (``UNSET`` when the wire sent none)."""
    value: Any
    """The raw value that erased it (``None`` for null, ``""``, or some other JSON value)."""
    position: int
    """Position of the payload in the stream."""
    delta: int
    """1-based number of the delta within its call."""
    repaired_line: int | None = None
    """Line of a later delta that re-established a non-empty identity, if one did."""

    @property
    def field(self) -> str:
        return "id" if self.kind == "erased-id" else "name"

    @property
    def label(self) -> str:
        return "erased id" if self.kind == "erased-id" else "erased name"


class Note(msgspec.Struct):
    """An informational finding, beside the flags."""

    kind: str
    message: str
    line: int | None = None
    call: Any = UNSET


class Deltas(Sequence[tuple[int, int, ToolCall]]):
    """A call's deltas as ``(position, line, wire tool call)``, kept in compact arrays."""

    __slots__ = ("_calls", "_lines", "_positions")

    def __init__(self, positions: array[int], lines: array[int], calls: Sequence[ToolCall]) -> None:
        self._positions = positions
        self._lines = lines
        self._calls = calls

    def __len__(self) -> int:
        return len(self._calls)

    @overload
    def __getitem__(self, index: int) -> tuple[int, int, ToolCall]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, int, ToolCall]]: ...

    def __getitem__(
        self, index: int | slice
    ) -> tuple[int, int, ToolCall] | list[tuple[int, int, ToolCall]]:
        if isinstance(index, slice):
            return list(
                zip(self._positions[index], self._lines[index], self._calls[index], strict=True)
            )
        return self._positions[index], self._lines[index], self._calls[index]

    def __iter__(self) -> Iterator[tuple[int, int, ToolCall]]:
        return zip(self._positions, self._lines, self._calls, strict=True)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Deltas | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content


class _Changes:
    """A :class:`Timeline` of several changes: their deltas and the values they set."""

    __slots__ = ("at", "values")

    def __init__(self, at: array[int], values: list[Any]) -> None:
        self.at = at
        self.values = values


class Timeline:
    """When one field of a call (``id`` or ``name``) took a new value under one behavior.

    :attr:`at` holds the 0-based delta numbers of the changes, :attr:`values` what was in
    force after each: a handful of entries for a call of 100,000 deltas, since gateways repeat
    themselves, and nearly always one. Kept in one slot, as small as what it holds: nothing
    (``None``), one change (a ``(delta, value)`` tuple, shared by both behaviors' timelines
    when a call's first delta names it) or several (a :class:`_Changes`). An agent loop's
    5,000 calls have four each (a slot replaced whole, so that a reader in another thread
    sees one state or the next)."""

    __slots__ = ("_state",)

    def __init__(self) -> None:
        self._state: tuple[int, Any] | _Changes | None = None

    @property
    def at(self) -> Sequence[int]:
        state = self._state
        if state is None:
            return ()
        if type(state) is tuple:
            return (state[0],)
        assert isinstance(state, _Changes)
        return state.at

    @property
    def values(self) -> Sequence[Any]:
        state = self._state
        if state is None:
            return ()
        if type(state) is tuple:
            return (state[1],)
        assert isinstance(state, _Changes)
        return state.values

    def change(self, delta: int, value: Any) -> None:
        state = self._state
        if state is None:
            self._state = (delta, value)
        elif type(state) is tuple:
            self._state = _Changes(array("q", (state[0], delta)), [state[1], value])
        else:
            assert isinstance(state, _Changes)
            state.values.append(value)  # (first: a reader finds a change's value once at it)
            state.at.append(delta)

    def _in_force(self, delta: int) -> tuple[int, Any] | None:
        """The change in force after the 0-based ``delta``: ``(its delta, its value)``."""
        state = self._state
        if state is None:
            return None
        if type(state) is tuple:
            return state if delta >= state[0] else None
        assert isinstance(state, _Changes)
        k = bisect_right(state.at, delta) - 1
        return (state.at[k], state.values[k]) if k >= 0 else None

    def value(self, delta: int) -> Any:
        """In force after the 0-based ``delta`` (``UNSET`` before any value arrived)."""
        found = self._in_force(delta)
        return UNSET if found is None else found[1]

    def set_on(self, delta: int) -> int | None:
        """The 0-based delta that set the value in force after ``delta`` (None: none yet)."""
        found = self._in_force(delta)
        return None if found is None else found[0]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Timeline):
            return list(self.at) == list(other.at) and list(self.values) == list(other.values)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content

    def __repr__(self) -> str:
        return f"Timeline(at={list(self.at)!r}, values={list(self.values)!r})"


def _first(assigned: Timeline, accepted: Timeline, value: Any) -> None:
    """A call's first delta set ``value`` under both behaviors (both timelines empty): one
    change, shared."""
    assigned._state = accepted._state = (0, value)


_FIELDS = ("id", "name")

_HISTORY_KEYS = tuple((b, f) for b in (ACCEPT, ASSIGN) for f in _FIELDS)
"""The keys of :attr:`CallTrace.history`, in its order."""


class _Unrecorded:
    """A lean analysis' stand-in for a :class:`Timeline`: takes changes, keeps none."""

    __slots__ = ()

    def change(self, delta: int, value: Any) -> None:
        pass


_UNRECORDED = (_Unrecorded(), _Unrecorded(), _Unrecorded(), _Unrecorded())

_START = 1
"""Event-log bit: this entry is its block's ``block-start``, not its delta."""


class EventLog:
    """The translator's body chunks, in order, as compact references into the analysis.

    Each entry is one chunk of either behavior's output before its end (the two behaviors
    emit the same sequence of chunk kinds until ``[DONE]``; only the identity they carry
    differs): a tool call's ``block-start`` or delta (call and delta number), or a text or
    reasoning ``block-start`` or delta (an index into ``texts``). The chunks themselves are
    made on demand (:mod:`.stream`), so 100,000 deltas cost two array slots each.
    """

    __slots__ = ("lines", "refs", "texts")

    def __init__(self) -> None:
        self.lines: array[int] = array("q")
        """The payload line of each entry."""
        self.refs: array[int] = array("q")
        """``call << 33 | delta << 1 | start`` for a tool call (call: its order of first
        appearance), ``-(text << 2 | reasoning << 1 | start) - 1`` for text."""
        self.texts: list[str] = []

    def __len__(self) -> int:
        return len(self.refs)

    def tool(self, call: int, delta: int, line: int) -> None:
        ref = call << 33 | delta << 1
        if delta == 0:
            self.lines.append(line)
            self.refs.append(ref | _START)
        self.lines.append(line)
        self.refs.append(ref)

    def text(self, reasoning: bool, text: str, line: int, start: bool) -> None:
        ref = len(self.texts) << 2 | reasoning << 1
        self.texts.append(text)
        if start:
            self.lines.append(line)
            self.refs.append(-(ref | _START) - 1)
        self.lines.append(line)
        self.refs.append(-ref - 1)

    @staticmethod
    def decode(ref: int) -> tuple[bool, int, int, bool]:
        """``(is_tool, call_or_text, delta_or_reasoning, start)`` of a ref."""
        if ref >= 0:
            return True, ref >> 33, (ref >> 1) & 0xFFFFFFFF, bool(ref & _START)
        ref = -ref - 1
        return False, ref >> 2, (ref >> 1) & 1, bool(ref & _START)


class DeltaRows(Sequence["DeltaRow"]):
    """A call's identity evolution as a sequence, made a block at a time when read: a view
    of a 100,000-delta call keeps the block on screen, not 100,000 rows."""

    __slots__ = ("_block", "_call", "_count", "_rows")

    BLOCK = 256

    def __init__(self, call: CallTrace, count: int | None = None) -> None:
        """``count``: the deltas of a snapshot (:attr:`Analysis.counts`), while the call
        grows on in the thread that follows its file; None: as many as it has."""
        self._call = call
        self._count = count
        self._block = -1
        self._rows: Sequence[DeltaRow] = ()  # (5,000 calls' views: no list each until read)

    def __len__(self) -> int:
        return self._call.count if self._count is None else self._count

    @overload
    def __getitem__(self, index: int) -> DeltaRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[DeltaRow]: ...

    def __getitem__(self, index: int | slice) -> DeltaRow | list[DeltaRow]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return self._call.rows(start, stop)
            return [self[i] for i in range(start, stop, step)]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        block, at = divmod(index, self.BLOCK)
        if block != self._block or at >= len(self._rows):  # (a block read while it grew)
            start = block * self.BLOCK
            self._rows = self._call.rows(start, min(start + self.BLOCK, len(self)))
            self._block = block
        return self._rows[at]


class DeltaRow(msgspec.Struct):
    """One row of a call's identity evolution."""

    delta: int
    position: int
    line: int
    raw_id: Any
    raw_name: Any
    arguments: Any
    id_accept: Any
    name_accept: Any
    id_assign: Any
    name_assign: Any
    flags: tuple[Flag, ...] = ()
    id_set_line: int | None = None
    """Line of the delta that set the accept-identity ``id`` in force (None: none yet)."""
    name_set_line: int | None = None


_NO_FLAGS: list[Flag] = []
"""The flags of every call the analyzer made that has none (an agent loop's 5,000 calls: one
list; never appended to: a call's first flag gives it a list of its own)."""


class CallTrace(msgspec.Struct):
    """One tool call as the stream sent it."""

    key: Any
    wire_index: Any
    block_index: int
    first_line: int
    order: int = 0
    """The call's place in order of first appearance (``Analysis.calls[order]``)."""
    count: int = 0
    """Deltas seen (the per-delta arrays below hold them all, or none when the analysis is
    lean)."""
    positions: array[int] = msgspec.field(default_factory=lambda: array("q"))
    """Position in the stream of each delta's payload (compact: a call can have 100,000)."""
    lines: array[int] = msgspec.field(default_factory=lambda: array("q"))
    """Line of each delta's payload."""
    calls: WireCalls | list[ToolCall] = msgspec.field(default_factory=list)
    """Each delta's wire tool call, as sent (made again on access: :class:`.pieces.WireCalls`;
    a plain list for a call made by hand)."""
    id_accept: Any = UNSET
    name_accept: Any = UNSET
    id_assign: Any = UNSET
    name_assign: Any = UNSET
    id_first_delta: int = 0
    name_first_delta: int = 0
    flags: list[Flag] = msgspec.field(default_factory=list)
    args: CallArgs | list[str] = msgspec.field(default_factory=list)
    """The argument pieces, in order (compact, :class:`.pieces.CallArgs`, when recorded)."""
    timelines: tuple[Timeline, ...] = msgspec.field(
        default_factory=lambda: tuple(Timeline() for _ in _HISTORY_KEYS)
    )
    """Every change of ``id`` and ``name`` under each behavior, in :data:`_HISTORY_KEYS`
    order (:attr:`history`): none when the analysis is lean (it keeps no per-delta record:
    no view reads it)."""

    @property
    def history(self) -> dict[tuple[Behavior, str], Timeline]:
        """:attr:`timelines` by ``(behavior, field)`` (made when asked: a dict a call was a
        quarter of an agent loop's per-call record)."""
        return dict(zip(_HISTORY_KEYS, self.timelines, strict=True)) if self.timelines else {}

    @property
    def deltas(self) -> Deltas:
        """``(position, line, wire tool call)`` for each delta, in order."""
        return Deltas(self.positions, self.lines, self.calls)

    @property
    def arguments(self) -> str:
        args = self.args
        return args.joined() if isinstance(args, CallArgs) else "".join(args)

    def final(self, behavior: Behavior) -> tuple[Any, Any]:
        """The ``(id, name)`` the block would close with (``UNSET`` where none arrived)."""
        if behavior is ACCEPT:
            return self.id_accept, self.name_accept
        return self.id_assign, self.name_assign

    def closes_with(self, behavior: Behavior) -> tuple[Any, Any] | None:
        """The ``(id, name)`` this call's ``block-end`` carries under ``behavior``, by the
        translator's own end (:func:`done_end`); ``None`` when the fix refuses the call
        for lacking identity."""
        closed, _ = done_end(behavior, [self.final(behavior)], None, True)
        return None if closed is None else closed[0]

    def identity(self, behavior: Behavior, delta: int) -> tuple[Any, Any]:
        """The ``(id, name)`` in force after the 0-based ``delta`` under ``behavior``."""
        t = self.timelines
        if not t:
            return UNSET, UNSET
        k = 0 if behavior is ACCEPT else 2
        return t[k].value(delta), t[k + 1].value(delta)

    def rows(self, start: int = 0, stop: int | None = None) -> list[DeltaRow]:
        """The identity evolution, one row per delta (``start``/``stop``: 0-based, a window);
        read from the recorded history, never re-derived."""
        stop = len(self.calls) if stop is None else min(stop, len(self.calls))
        flags_by_delta: dict[int, list[Flag]] = {}
        for f in self.flags:
            flags_by_delta.setdefault(f.delta, []).append(f)
        ida, na, idw, nw = self.timelines or (Timeline(), Timeline(), Timeline(), Timeline())
        lines = self.lines
        rows: list[DeltaRow] = []
        for d in range(start, stop):
            call = self.calls[d]
            fn = call.function
            id_set, name_set = ida.set_on(d), na.set_on(d)
            rows.append(
                DeltaRow(
                    d + 1,
                    self.positions[d],
                    lines[d],
                    call.id,
                    fn.name if fn else UNSET,
                    fn.arguments if fn else UNSET,
                    ida.value(d),
                    na.value(d),
                    idw.value(d),
                    nw.value(d),
                    tuple(flags_by_delta.get(d + 1, ())),
                    None if id_set is None else lines[id_set],
                    None if name_set is None else lines[name_set],
                )
            )
        return rows


class Outcome(msgspec.Struct):
    """How the harness finishes the response under one behavior."""

    verdict: str
    finish: dict[str, Any]
    """The final ``finish`` chunk's ``reason``."""
    position: int | None = None
    """Position of the payload that ended the stream (None: it ended at end of input)."""


class Analysis(msgspec.Struct):
    """What a stream means under both behaviors."""

    calls: list[CallTrace]
    flags: list[Flag]
    notes: list[Note]
    outcomes: dict[Behavior, Outcome]
    blocks: int
    deltas: int
    """Tool-call deltas seen (replayed)."""
    done: bool
    model: str | None = None
    """The first non-empty string ``model`` a chunk named (what the stream says it is)."""
    events: EventLog = msgspec.field(default_factory=EventLog)
    """The body of both behaviors' output, as references (see :mod:`.stream`)."""
    event_count: int = 0
    """Entries of ``events`` that belong to this snapshot (the log grows while tailing)."""
    counts: list[int] = msgspec.field(default_factory=list)
    """Deltas of each call (in ``calls`` order) that belong to this snapshot: the calls
    themselves grow on while tailing, in another thread (read them through
    :meth:`delta_rows`)."""
    text_blocks: dict[str, int] = msgspec.field(default_factory=dict)
    """Block index of the ``text`` and ``reasoning`` blocks that opened."""
    usage: Any = UNSET
    """The latest truthy wire ``usage``."""
    finish: str | None = None
    """The last string ``finish_reason``."""
    end_line: int | None = None
    """Line of the payload that ended the replay (``[DONE]``, or what made it fail)."""

    @property
    def verdicts(self) -> dict[str, str]:
        return {b.value: self.outcomes[b].verdict for b in (ASSIGN, ACCEPT)}

    def delta_rows(self, k: int) -> DeltaRows:
        """Call ``k``'s identity evolution as of this snapshot."""
        call = self.calls[k]
        return DeltaRows(call, self.counts[k] if k < len(self.counts) else None)

    @property
    def clean(self) -> bool:
        return is_clean(len(self.flags), (o.verdict for o in self.outcomes.values()))


class Analyzer:
    """Single-pass, incremental analysis of a stream's payloads.

    Feed payloads in order with :meth:`payload` (``decoded`` is ``None`` for ``[DONE]``);
    :meth:`result` may be called at any time and does not disturb the state, so a growing
    capture can be fed what was appended and judged again.
    """

    def __init__(self, *, record: bool = True, compact: bool = True) -> None:
        """``record``: keep every delta and the event log the views read; a lean analysis
        (``check``) keeps only what verdicts, flags and notes need. ``compact``: a recorded
        call's wire tool calls and argument pieces kept compact (:mod:`.pieces`: a trace the
        TUI holds); else in plain lists, quicker to fill and read (``check --clients``, which
        lets each trace's analysis go once judged)."""
        self._record = record
        self._compact = compact
        self._calls: dict[Any, CallTrace] = {}
        self._order: list[CallTrace] = []
        self._flags: list[Flag] = []
        self._notes: list[Note] = []
        self._blocks = 0
        self._finish: str | None = None
        self._finish_line: int | None = None
        self._ended: tuple[str, str, int, int] | None = None  # (code, message, position, line)
        self._done_position: int | None = None
        self._done_line: int | None = None
        self._after_done: list[int] = []
        self._position = 0
        self._noted: set[tuple[str, Any, str]] = set()
        self._reused: set[Any] = set()  # the calls a new id and name took over (index-reused)
        self._model: str | None = None
        self._events = EventLog()
        self._text_blocks: dict[str, int] = {}
        self._usage: Any = UNSET
        self._skeletons = Skeletons()
        """What the calls' wire tool calls share (:class:`.pieces.WireCalls`)."""
        self._pieces = Pieces()
        """Every call's argument pieces, in the order they came (:class:`.pieces.CallArgs`)."""
        self._timelines: list[tuple[Timeline | _Unrecorded, ...]] = []
        """Each call's :attr:`CallTrace.history`, by call order, in :data:`_HISTORY_KEYS`
        order (a list index, not a hash of a behavior, per change)."""
        self._shapes: dict[tuple[str, str], tuple[int, int]] = {}
        """Gateway patterns the continuations follow: ``(id, name)`` shape → ``(call order,
        line)`` where the first call that follows it first does."""

    @property
    def finished(self) -> bool:
        """Replay is over: ``[DONE]`` was reached or the harness failed."""
        return self._done_position is not None or self._ended is not None

    @property
    def deltas(self) -> int:
        """Tool-call deltas seen so far (:attr:`Analysis.deltas`, without a snapshot)."""
        return sum(ct.count for ct in self._order)

    def payload(self, line: int, decoded: Decoded | WireChunk | None) -> None:
        """Account for the next payload (``None`` for the ``[DONE]`` sentinel)."""
        self.feed([(line, decoded)])

    def feed(self, items: Iterable[tuple[int, Decoded | WireChunk | None]]) -> None:
        """Account for the next payloads, each as ``(line, decoded)``, in stream order;
        a well-shaped chunk may come bare (a :class:`WireChunk`, as the typed decoder made it).

        This loop runs once per payload of captures with hundreds of thousands of them, so
        state lives in locals and each tool-call delta is handled inline; anything unusual
        goes to a method of its own.
        """
        calls_by_key = self._calls
        new_call = self._new_call
        identity = self._identity
        shape = self._shape
        events = self._events
        record = self._record
        position = self._position
        finished = self.finished
        unnamed = self._model is None  # no model named yet
        texts, event_lines, event_refs = events.texts, events.lines, events.refs
        is_open = self._text_blocks.__contains__
        for line, decoded in items:
            if finished:
                self._after_done.append(line)
                position += 1
                continue
            if decoded is None:
                self._done_position = position
                self._done_line = line
                finished = True
                position += 1
                continue
            throw: str | None = None
            chunk: WireChunk | None
            if type(decoded) is WireChunk:  # the typed fast path hands its chunk over bare
                chunk = decoded
            else:
                assert isinstance(decoded, Decoded)
                chunk = decoded.chunk
                if chunk is None or decoded.lenient is not None:
                    if not self._unusual(decoded, position, line):
                        finished = self.finished
                        position += 1
                        continue
                    assert chunk is not None
                throw = decoded.throw
            choices = chunk.choices
            if choices:
                for choice in choices:
                    delta = choice.delta
                    if delta:
                        calls = delta.tool_calls
                        reasoning = delta.reasoning_content
                        content = delta.content
                        if reasoning or content:
                            # Most text deltas: one kind, its block open (as _text_event,
                            # inline: 50,000 of them come before the calls in some traces).
                            if (
                                not reasoning
                                and type(content) is str
                                and record
                                and is_open("text")
                            ):
                                ref = len(texts) << 2
                                texts.append(content)
                                event_lines.append(line)
                                event_refs.append(-ref - 1)
                            elif (
                                not content
                                and type(reasoning) is str
                                and record
                                and is_open("reasoning")
                            ):
                                ref = len(texts) << 2 | 2
                                texts.append(reasoning)
                                event_lines.append(line)
                                event_refs.append(-ref - 1)
                            else:
                                self._text_event(reasoning, content, line)
                        if calls:
                            for call in calls:
                                idx = call.index
                                ct = calls_by_key.get(idx if type(idx) is int else index_key(idx))
                                if ct is None:
                                    ct = new_call(idx, line)
                                n = ct.count
                                ct.count = n + 1
                                if record:
                                    # (EventLog.tool, inlined: a call per delta was a tenth
                                    # of a recorded load)
                                    ref = ct.order << 33 | n << 1
                                    if n == 0:
                                        event_lines.append(line)
                                        event_refs.append(ref | _START)
                                    event_lines.append(line)
                                    event_refs.append(ref)
                                    ct.positions.append(position)
                                    ct.lines.append(line)
                                    ct.calls.append(call)
                                fn = call.function
                                if fn:
                                    name = fn.name
                                    args = fn.arguments
                                    if type(args) is str:
                                        ct.args.append(args)
                                    elif args is not UNSET and args is not None:
                                        ct.args.append(js_string(args))
                                        self._args_not_text(ct, args, line)
                                else:
                                    name = UNSET
                                cid = call.id
                                if cid is UNSET and name is UNSET:
                                    continue  # most continuations: nothing to take or see
                                if 0 < n < _PATTERN_SAMPLE:
                                    shape(ct, cid, name, line)
                                # Most of the rest repeat what assign-always holds already
                                # (the same "" / null / name again): that changes nothing
                                # under either behavior, so the rule is not consulted. An
                                # absent key is taken under no behavior (tests/core hold this
                                # fast path to takes_identity).
                                # (An id or name re-sent is a new string each time: equal
                                # strings are told apart here, not by a call to _same.)
                                if cid is not UNSET:
                                    cur = ct.id_assign
                                    if (
                                        cid is not cur
                                        and not (type(cid) is str and cid == cur)
                                        and not _same(cid, cur)
                                    ):
                                        identity(ct, "id", cid, position, line, name)
                                if name is not UNSET:
                                    cur = ct.name_assign
                                    if (
                                        name is not cur
                                        and not (type(name) is str and name == cur)
                                        and not _same(name, cur)
                                    ):
                                        identity(ct, "name", name, position, line, name)
                    reason = choice.finish_reason
                    if type(reason) is str:
                        self._finish_reason(reason, line)
            error = chunk.error
            if error is not UNSET and error is not None:
                self._error_object(error, line)
            usage = chunk.usage
            if usage is not UNSET and usage is not None and truthy(usage):
                self._usage = usage
            if unnamed:
                model = chunk.model
                if type(model) is str and model:
                    self._model = model
                    unnamed = False
            if throw is not None:
                self._ended = ("UNKNOWN", throw, position, line)
                self._notes.append(
                    Note("harness-throws", f"the harness throws a TypeError: {throw}", line)
                )
                finished = True
            position += 1
        self._position = position

    def _text_event(self, reasoning: Any, content: Any, line: int) -> None:
        """Non-empty reasoning, then content: each a delta of its block, opened on first use."""
        for kind, text in (("reasoning", reasoning), ("text", content)):
            if text and type(text) is not str:
                self._not_text(kind, text, line)
            if type(text) is str and text:
                start = kind not in self._text_blocks
                if start:
                    self._text_blocks[kind] = self._blocks
                    self._blocks += 1
                if self._record:
                    self._events.text(kind == "reasoning", text, line, start)

    def _args_not_text(self, ct: CallTrace, value: Any, line: int) -> None:
        """``function.arguments`` that is no string, said once per call: the harness joins
        it as JavaScript would (``5`` → ``"5"``, an object → ``"[object Object]"``)."""
        if not self._once("args-not-string", ct, "arguments"):
            return
        self._notes.append(
            Note(
                "arguments-not-string",
                f"{call_named(ct.wire_index)}: arguments is a JSON {_json_type(value)}, not a"
                f" string: the harness joins it as text ({_described(value, 60)} →"
                f" {_described(js_string(value), 60)})",
                line,
                ct.wire_index,
            )
        )

    def _not_text(self, kind: str, value: Any, line: int) -> None:
        """A ``content`` or ``reasoning_content`` that is no string, said once per field:
        the harness shows no text for it, and nothing else would say the text went."""
        key = ("text-not-string", None, kind)
        if key in self._noted:
            return
        self._noted.add(key)
        field = "content" if kind == "text" else "reasoning_content"
        parts = (
            " (Mistral sends its content as parts: [{type: text, …}])"
            if type(value) is list
            else ""
        )
        self._notes.append(
            Note(
                "text-not-string",
                f"{field} is a JSON {_json_type(value)}, not a string: the harness shows no"
                f" text for it{parts}: {_described(value, 80)}",
                line,
            )
        )

    def _new_call(self, idx: Any, line: int) -> CallTrace:
        key = index_key(idx)
        # Built field by field (as the defaults would be): an agent loop opens thousands of
        # calls, and the default factories cost more than the rest of a call's first delta.
        timelines: tuple[Timeline | _Unrecorded, ...]
        recorded: tuple[Timeline, ...] = ()
        if self._record:
            recorded = (Timeline(), Timeline(), Timeline(), Timeline())
            timelines = recorded
        else:  # changes are not recorded (nothing reads them): a stand-in for each
            timelines = _UNRECORDED
        args: CallArgs | list[str] = []
        calls: WireCalls | list[ToolCall] = []
        if self._record and self._compact:
            args = CallArgs(self._pieces)
            calls = WireCalls(self._skeletons, args)
        ct = CallTrace(
            key,
            idx,
            self._blocks,
            line,
            len(self._order),
            0,
            array("q"),
            array("q"),
            calls,
            flags=_NO_FLAGS,
            args=args,
            timelines=recorded,
        )
        self._blocks += 1
        self._calls[key] = ct
        self._order.append(ct)
        self._timelines.append(timelines)
        return ct

    def _unusual(self, decoded: Decoded, position: int, line: int) -> bool:
        """Payloads off the fast path; returns whether a chunk remains to be walked."""
        if decoded.malformed is not None:
            head = js_head(decoded.text or "")
            self._ended = ("MALFORMED_RESPONSE", "malformed SSE payload: " + head, position, line)
            self._notes.append(
                Note("malformed-payload", f"payload is not valid JSON: {decoded.malformed}", line)
            )
            return False
        if decoded.ignored is not None:
            self._notes.append(Note("ignored-payload", decoded.ignored, line))
            return False
        if decoded.lenient is not None:
            self._notes.append(Note("odd-shape", f"unusual chunk shape ({decoded.lenient})", line))
        return decoded.chunk is not None

    def _finish_reason(self, reason: str, line: int) -> None:
        self._finish = reason
        self._finish_line = line
        if not reason:
            self._notes.append(
                Note(
                    "empty-finish-reason",
                    'finish_reason is "": the harness ends with a model error',
                    line,
                )
            )

    def _error_object(self, error: Any, line: int) -> None:
        self._notes.append(
            Note(
                "error-object",
                f"chunk carries an error object: {_short(error)}"
                " (the harness ignores it and goes on)",
                line,
            )
        )

    def _identity(
        self, ct: CallTrace, fld: str, value: Any, position: int, line: int, name: Any
    ) -> None:
        """A delta carried ``fld`` with a ``value`` other than the one assign-always holds
        (the fast path in :meth:`feed` skips the rest: a value equal to it changes nothing
        under either behavior). Each behavior takes it or not by the rule,
        :func:`takes_identity`; then erasures are flagged and the notes written from what
        changed."""
        n = ct.count
        accept_id, accept_name, assign_id, assign_name = self._timelines[ct.order]
        if fld == "id":
            was, kept = ct.id_assign, ct.id_accept
            assigned, accepted = assign_id, accept_id
        else:
            was, kept = ct.name_assign, ct.name_accept
            assigned, accepted = assign_name, accept_name
        if n == 1 and was is UNSET and is_identity(value) and value != "null":
            # How a call nearly always opens: its first delta names it. Nothing was held, so
            # both behaviors take it (it is an identity) and nothing is erased, repaired,
            # changed, late or odd: the rest of the method would only say so.
            if type(assigned) is Timeline and type(accepted) is Timeline:
                _first(assigned, accepted, value)
            if fld == "id":
                ct.id_assign = ct.id_accept = value
                ct.id_first_delta = 1
            else:
                ct.name_assign = ct.name_accept = value
                ct.name_first_delta = 1
            return
        now, taken = was, kept
        if takes_identity(ASSIGN, value) and not _same(value, was):
            now = value
            assigned.change(n - 1, value)
        if takes_identity(ACCEPT, value) and not _same(value, kept):
            taken = value
            accepted.change(n - 1, value)
        if fld == "id":
            ct.id_assign, ct.id_accept = now, taken
        else:
            ct.name_assign, ct.name_accept = now, taken
        if is_identity(was) and not is_identity(now):
            flag = Flag("erased-" + fld, line, ct.wire_index, value, position, n)
            self._flags.append(flag)
            # Per call too: rows() and the repair marking read ct.flags.
            if ct.flags is _NO_FLAGS:
                ct.flags = [flag]
            else:
                ct.flags.append(flag)
        elif was is not UNSET and not is_identity(was) and is_identity(now):
            # Re-established after an erasure: mark the open erasure as repaired.
            for f in reversed(ct.flags):
                if f.field == fld:
                    if f.repaired_line is None:
                        f.repaired_line = line
                    break
        if kept is UNSET and taken is not UNSET:
            if fld == "id":
                ct.id_first_delta = n
            else:
                ct.name_first_delta = n
            if n > 1:
                self._notes.append(
                    Note(
                        "late-identity",
                        f"{call_named(ct.wire_index)}: {fld} {_described(taken)}"
                        f" first arrives on delta {n}, not the call's first",
                        line,
                        ct.wire_index,
                    )
                )
        elif taken is not kept:
            where = call_named(ct.wire_index)
            change = f"({_described(kept)} → {_described(taken)})"
            if fld == "id" and is_identity(name):
                self._reused.add(ct.key)
                note = Note(
                    "index-reused",
                    f"{where}: a new id and name arrive on the same wire index {change}:"
                    " looks like a new call reusing the index; both behaviors merge them",
                    line,
                    ct.wire_index,
                )
            else:
                note = Note(
                    "identity-changed",
                    f"{where}: {fld} changes mid-stream on delta {n} {change};"
                    " both behaviors take the new value",
                    line,
                    ct.wire_index,
                )
            self._notes.append(note)
        if is_identity(value):
            if fld == "name" and value == "null" and self._once("name-string-null", ct, fld):
                self._notes.append(
                    Note(
                        "name-string-null",
                        f'{call_named(ct.wire_index)}: name is the string "null" '
                        "(a gateway stringified a null; both behaviors accept it as a name)",
                        line,
                        ct.wire_index,
                    )
                )
        elif value is not None and type(value) is not str and self._once("non-string", ct, fld):
            self._notes.append(
                Note(
                    "non-string-identity",
                    f"{call_named(ct.wire_index)}: {fld} is a JSON"
                    f" {_json_type(value)} ({_described(value)}); accept-identity ignores it,"
                    " assign-always takes it",
                    line,
                    ct.wire_index,
                )
            )

    def _shape(self, ct: CallTrace, cid: Any, name: Any, line: int) -> None:
        """A continuation delta (one of the first :data:`_PATTERN_SAMPLE` of its call) with
        an ``id`` or ``name``: the gateway pattern it follows, if it follows one."""
        key = (_shape(cid), _shape(name))
        if key in _PATTERN_SHAPES:
            seen = self._shapes.get(key)
            if seen is None or (ct.order, line) < seen:
                self._shapes[key] = (ct.order, line)

    def _once(self, kind: str, ct: CallTrace, fld: str) -> bool:
        """True the first time a per-call note of ``kind`` is due (a note, not one per delta)."""
        key = (kind, ct.key, fld)
        if key in self._noted:
            return False
        self._noted.add(key)
        return True

    def result(self, *, closed: bool = True) -> Analysis:
        """The analysis so far. ``closed``: input has ended (no more payloads will come)."""
        notes = list(self._notes)
        outcomes = {b: self._outcome(b, closed) for b in (ASSIGN, ACCEPT)}
        done = self._done_position is not None
        if done:
            for ct in self._order:
                self._argument_notes(ct, notes)
        if self._after_done:
            # The replay ends at [DONE], or earlier on the payload that made the harness fail
            # (then what follows, a [DONE] included, is not "after [DONE]").
            stop = (
                "[DONE]" if self._ended is None else f"the replay stopped on line {self._ended[3]}"
            )
            notes.append(
                Note(
                    "data-after-done",
                    f"{len(self._after_done)} payload(s) after {stop} "
                    f"(first on line {self._after_done[0]}): shown, not replayed",
                    self._after_done[0],
                )
            )
        for f in self._flags:
            if f.repaired_line is not None:
                notes.append(
                    Note(
                        "erasure-repaired",
                        f"{call_named(f.call)}: {f.field} erased on line {f.line}"
                        f" was re-sent on line {f.repaired_line}",
                        f.line,
                        f.call,
                    )
                )
        if closed and not done and self._ended is None:
            if self._finish is not None:
                why = (
                    f"the stream sent finish_reason {_described(self._finish)} on line"
                    f" {self._finish_line} but never [DONE] (Cerebras/Groq style)"
                )
            else:
                why = "the stream stops without [DONE] (truncated capture?)"
            notes.append(Note("no-done", f"{why}: the harness fails with STREAM_CLOSED"))
        notes.extend(_pattern_notes(self._shapes, self._model))
        return Analysis(
            calls=list(self._order),
            flags=list(self._flags),
            notes=notes,
            outcomes=outcomes,
            blocks=self._blocks,
            deltas=sum(ct.count for ct in self._order),
            done=done,
            model=self._model,
            events=self._events,
            event_count=len(self._events),
            counts=[ct.count for ct in self._order],
            text_blocks=dict(self._text_blocks),
            usage=self._usage,
            finish=self._finish,
            end_line=self._done_line if self._ended is None else self._ended[3],
        )

    def _argument_notes(self, ct: CallTrace, notes: list[Note]) -> None:
        args = ct.arguments
        if not args.strip():
            return
        if not _parses(args):
            hint = ""
            if ct.key in self._reused:
                hint = " (the arguments of the calls that shared its index, joined)"
            elif args.count("{") > 1 and "}{" in args:
                hint = " (looks like arguments re-sent cumulatively: {…}{…})"
            notes.append(
                Note(
                    "arguments-not-json",
                    f"{call_named(ct.wire_index)}: arguments do not parse as JSON"
                    f" at close{hint}: {_short(args)}",
                    ct.first_line,
                    ct.wire_index,
                )
            )

    def _outcome(self, behavior: Behavior, closed: bool) -> Outcome:
        """How ``behavior`` ends (the translator's own end, :func:`done_end`, or the
        failure), and its :func:`verdict`."""
        if self._ended is not None:
            code, message, position, _ = self._ended
            finish = error_reason(code, message)
            return Outcome(verdict(finish, ()), finish, position)
        if self._done_position is None:
            if not closed:
                return Outcome(verdict(None, ()), {"kind": "in-progress"}, None)
            finish = error_reason("STREAM_CLOSED", STREAM_CLOSED_MESSAGE)
            return Outcome(verdict(finish, ()), finish)
        calls = [ct.final(behavior) for ct in self._order]
        ends, finish = done_end(behavior, calls, self._finish, bool(self._blocks))
        return Outcome(verdict(finish, ends or ()), finish, self._done_position)


def _same(value: Any, held: Any) -> bool:
    """Whether a value sent equals the one held: a JSON equality that keeps ``1``, ``1.0``
    and ``true`` apart; nested values always count as changed (``==`` on a 100,000-deep one
    recurses too far; a non-string identity never sets or flags twice for it)."""
    t = type(value)
    return t is type(held) and t not in _NESTED and bool(value == held)


_SHALLOW = 256
"""Brackets few enough that no JSON text holding them nests deep enough to exhaust
``json.loads``' recursion (it takes about 1,000 levels)."""


def _parses(text: str) -> bool:
    """Whether ``json.loads`` takes ``text`` (arguments at close: the harness's
    ``JSON.parse``, as the notes have always said it). msgspec's strict decoder answers for
    nearly every call, several times faster: whatever it accepts, ``json.loads`` accepts too
    (it refuses more: ``NaN``, a lone surrogate), as long as the text cannot nest deep enough
    to make ``json.loads`` recurse out, which few brackets rule out; any other text is
    given to ``json.loads``."""
    if text.count("[") + text.count("{") <= _SHALLOW:
        try:
            msgspec.json.decode(text)
        except Exception:  # (not only DecodeError: a lone surrogate fails to encode)
            pass
        else:
            return True
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    return "object"


def call_named(index: Any) -> str:
    """How a note or a view names a call: by its wire index, or as the one sent with no
    index (Gemini's and Mistral's OpenAI-compatible streams send none)."""
    return "the call with no index" if index is UNSET else f"call {_described(index)}"


def _described(value: Any, limit: int = 120) -> str:
    """:func:`describe_value` cut for a note: a gateway may send a 5 MB id or a 100,000-deep one."""
    text = describe_value(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: Any, limit: int = 80) -> str:
    """A value quoted in a note, cut: a string as it reads, its control characters escaped
    as the notes that quote JSON values have them (a note is printed by scripts that read
    ``check --json``: an ESC in arguments must not reach their terminal as one)."""
    text = visible(value) if isinstance(value, str) else describe_value(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Continuation shapes seen in the wild, keyed by the (id, name) continuations send.
_PATTERNS: list[tuple[str, str, str]] = [
    ('""', "absent", 'the DashScope pattern: continuations repeat id:""'),
    ('""', '""', 'the DashScope-serving-GLM pattern: continuations send id:"" and name:""'),
    ("null", '""', 'the Envoy AI Gateway pattern: continuations send id:null, name:""'),
    ("null", "null", "the Writer / vLLM / OpenCode pattern: continuations send id:null, name:null"),
    ("absent", '""', 'the Mistral-platform-GLM / Volcengine pattern: continuations send name:""'),
    ("absent", "null", "the Fireworks / NIM pattern: continuations send name:null"),
    ('""', '"null"', 'the LiteLLM proxy pattern: continuations send id:"" and name:"null"'),
]


_PATTERN_SHAPES = {(id_shape, name_shape) for id_shape, name_shape, _ in _PATTERNS}

_PATTERN_SAMPLE = 64
"""The continuation shape is a property of the gateway: the first deltas of each call tell."""


def _pattern_notes(shapes: dict[tuple[str, str], tuple[int, int]], model: str | None) -> list[Note]:
    """Name the gateway patterns the continuation deltas follow (and the model that
    streamed them, when a chunk named it)."""
    seen = f" (model {_short(model)})" if model else ""
    return [
        Note("gateway-pattern", f"looks like {text}{seen}", shapes[id_shape, name_shape][1])
        for id_shape, name_shape, text in _PATTERNS
        if (id_shape, name_shape) in shapes
    ]


def _shape(value: Any) -> str:
    if value is UNSET:
        return "absent"
    if value is None:
        return "null"
    if value == "":
        return '""'
    if value == "null":  # a string: LiteLLM's proxy names continuations "null"
        return '"null"'
    return "value"
