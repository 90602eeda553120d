"""Event-level diff of two captures: payload by payload, aligned on content, not position.

Two captures of one request rarely line up payload for payload: a gateway inserts comments or
keep-alives, splits one delta in two or merges two into one, rewrites envelope fields. Aligning
by position would turn the first such change into noise for the rest of the stream, so the
alignment works on what each payload *contributes* to the response, as the harness reads it:

1. Each payload becomes pieces: text for the ``text``, ``reasoning`` and per-call ``arguments``
   channels (calls numbered in order of appearance, so a shifted wire index still pairs), and
   marks for everything else (a call opening, a ``finish_reason``, ``usage``, an ``error``
   object, ``[DONE]``, a payload that contributes nothing).
2. Consecutive pieces of one text channel form a run, whatever the payload boundaries; a run's
   key is its channel and its whole text. So a stream split differently has the same runs.
3. The runs of both traces are aligned (:func:`~replay_tui.core.align.align`). Inside matched
   runs, payloads are linked where their character ranges overlap; runs that differ but share a
   channel are linked over their common prefix and suffix, and pairwise in between.
4. Linked payloads form groups (1:1 same or changed, 1:n split, n:1 merged, n:m regrouped);
   what no link reaches is only in one trace. A 1:1 group is compared field by field, per-request
   values (the chunk's ``id``, ``created``, ``system_fingerprint``, ``obfuscation``) left out
   unless asked for.

Comment lines (``: OPENROUTER PROCESSING``, ``: keep-alive``) carry no data; those one trace has
and the other lacks are rows of their own, placed where they occur.

What is kept is compact, for two 100,000-payload captures: per payload one flag byte, per text
run its text and two index arrays (which payload contributed up to which character), and the
rows as stretches of payload indexes (a stretch of 1:1 rows is four numbers). A payload's bytes
stay in the trace; its pieces are cut again (one decode) only when a row that shows them is
made, and rows are made when asked for (:class:`EventRows`): a view asks for the rows on screen.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Generator, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import msgspec

from . import jsontext
from .align import align
from .indexed import Indexed
from .sse import DONE, PayloadTable
from .trace import DecodedPayloads, Trace, gc_paused
from .translator import index_key, truthy
from .wire import UNSET, Decoded, decode_payload, js_string

__all__ = [
    "VOLATILE_KEYS",
    "EventDiff",
    "EventRow",
    "EventRows",
    "FieldDiff",
    "Streams",
    "TextRun",
    "align_events",
    "align_events_steps",
    "event_text",
    "field_diffs",
    "no_gc",
    "same_payload",
]

VOLATILE_KEYS = ("id", "created", "system_fingerprint", "obfuscation")
"""Top-level chunk keys that differ on every request; ignored unless asked for."""

Channel = tuple[Any, ...]
Piece = tuple[Channel, str | None]
"""``(channel, text)`` for text channels, ``(channel, None)`` for marks."""

TEXT, REASONING, INERT = ("text",), ("reasoning",), ("inert",)
_DONE_MARK: Channel = ("done",)
_FIELD_LIMIT = 16
_JOIN = 512
"""Text pieces of a run held apart before they are joined."""
_INERT_PIECES: list[Piece] = [(INERT, None)]

_decode = msgspec.json.Decoder().decode
_top = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode


# Pausing the cyclic collector while building large acyclic structures: one helper for the
# whole core (decoding 100,000 payloads with it running costs 3 s instead of 0.3 s).
no_gc = gc_paused


# --- what each payload contributes -----------------------------------------------------------


class TextRun:
    """Everything one text channel received, over the whole stream.

    A text channel is one run whatever the payload boundaries and whatever comes between its
    pieces, so a stream split or interleaved differently still has the same runs. Segment
    ``k`` is one piece: the event that sent it and the characters ``[start, end)`` of ``text``.

    The segments are packed, about two bytes each, in two containers whatever their number
    (a trace of 5,000 calls has 5,000 runs on each side): ``_seg`` holds per segment one byte
    for the step from the previous event and one for its length (``_FAR`` when it does not
    fit, the value then in ``_far``, a dict made only then, under ``2k`` for the step and
    ``2k + 1`` for the length); ``_cp`` holds every ``_EVERY`` segments the event and offsets
    in full, to start from (three numbers a checkpoint), then the last segment's event and end.
    """

    __slots__ = ("_cp", "_far", "_seg", "channel", "count", "text")

    def __init__(self, channel: Channel, code: str = "q") -> None:
        self.channel = channel
        self.text = ""
        self.count = 0
        self._seg = bytearray()
        self._far: dict[int, int] | None = None
        self._cp: array[int] = array(code, (0, 0))  # no checkpoint yet; the last event, end

    @property
    def key(self) -> Hashable:
        return (self.channel, self.text)

    def add(self, event: int, length: int) -> None:
        """The next piece: ``length`` characters from ``event``."""
        k = self.count
        cp = self._cp
        end = cp[-1]
        if k % _EVERY == 0:
            cp[-2] = event  # the tail becomes a checkpoint, a new tail after it
            cp.extend((end + length, event, end + length))
            self._seg += b"\0\0"
        else:
            step = event - cp[-2]
            cp[-2] = event
            cp[-1] = end + length
            seg = self._seg
            if step < _FAR and length < _FAR:
                seg.append(step)
                seg.append(length)
            else:
                far = self._far
                if far is None:
                    far = self._far = {}
                if step < _FAR:
                    seg.append(step)
                else:
                    seg.append(_FAR)
                    far[2 * k] = step
                if length < _FAR:
                    seg.append(length)
                else:
                    seg.append(_FAR)
                    far[2 * k + 1] = length
        self.count = k + 1

    @property
    def first_event(self) -> int:
        return self._cp[0]

    def _checkpoints(self) -> int:
        return (len(self._cp) - 2) // 3

    def segs(self, checkpoint: int = 0) -> Iterator[tuple[int, int, int]]:
        """``(event, start, end)`` of each segment from checkpoint ``checkpoint`` on."""
        seg, cp = self._seg, self._cp
        far = self._far or {}
        event = end = 0
        for k in range(checkpoint * _EVERY, self.count):
            if k % _EVERY == 0:
                c = 3 * (k // _EVERY)
                event, start, end = cp[c], cp[c + 1], cp[c + 2]
            else:
                step = seg[2 * k]
                event += far[2 * k] if step == _FAR else step
                length = seg[2 * k + 1]
                start = end
                end += far[2 * k + 1] if length == _FAR else length
            yield event, start, end

    def _bisect(self, value: int, at: int, right: bool) -> int:
        """``bisect_right`` (or left) of ``value`` among the checkpoints' ``at``-th numbers."""
        cp = self._cp
        lo, hi = 0, self._checkpoints()
        while lo < hi:
            mid = (lo + hi) // 2
            x = cp[3 * mid + at]
            if x < value or (right and x == value):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def segs_after(self, offset: int) -> Iterator[tuple[int, int, int]]:
        """The segments from the first one ending after ``offset``."""
        c = max(self._bisect(offset, 2, True) - 1, 0)
        for seg in self.segs(c):
            if seg[2] > offset:
                yield seg

    def text_before(self, event: int) -> str:
        """The text contributed by events before ``event`` (the replayed part)."""
        c = self._bisect(event, 0, False) - 1
        if c < 0:
            return ""
        end = 0
        for ev, _, e in self.segs(c):
            if ev >= event:
                break
            end = e
        return self.text[:end]

    def event_at(self, offset: int, before: int | None = None) -> int | None:
        """The event that contributed the character at ``offset`` (else the last one before)."""
        last: int | None = None
        for ev, start, end in self.segs():
            if before is not None and ev >= before:
                break
            if start <= offset < end:
                return ev
            if start > offset:
                break
            last = ev
        return last


_EVERY = 64
STEP_EVENTS = 512
"""Events cut between two ``yield`` of :meth:`Streams.cut_steps` (a millisecond or two)."""
STEP_LINKS = 4096
"""Links made or grouped, groups compared, between two ``yield`` of the alignment's steps."""
STEP_ROWS = 256
"""Rows compared between two ``yield`` of the alignment's steps (a row's payloads may be
decoded again to be compared)."""
_LONG = 1 << 20
"""Characters from which a piece is looked for among the analysis' strings (see
:meth:`Streams._as_known`)."""
_FAR = 255


class Opened(Indexed[tuple[Channel, int]]):
    """Channels in order of first appearance, each with the event that opened it, read as
    ``(channel, event)`` pairs: kept as a list of channels and an array of events (5,000
    calls a side, not a pair and a number each)."""

    __slots__ = ("_channels", "_events")

    def __init__(self, code: str) -> None:
        self._channels: list[Channel] = []
        self._events: array[int] = array(code)

    def append(self, opened: tuple[Channel, int]) -> None:
        channel, event = opened
        self._events.append(event)
        self._channels.append(channel)

    def __len__(self) -> int:
        return len(self._channels)

    def _at(self, index: int) -> tuple[Channel, int]:
        return self._channels[index], self._events[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Opened | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content


class Streams:
    """One trace cut into pieces and runs (computed once, read by the diff).

    Nothing is kept per payload but a flag byte: a payload's pieces are cut again from its
    decoded chunk when asked for (:meth:`pieces`). The runs are the text runs (``TextRun``,
    by channel) and the marks, in stream order: ``run_kind[r]`` is ``-1 - t`` for text run
    ``t`` of ``texts``, else the mark's channel (an index into ``marks``) of event
    ``run_event[r]``.
    """

    def __init__(self, trace: Trace, *, join: bool = True, cut: bool = True) -> None:
        """``cut=False``: the payloads are cut by whoever drives :meth:`cut_steps` (a few
        milliseconds a step, between a view's keys), then :meth:`join`."""
        self.trace = trace
        self._parts: dict[Channel, list[str]] = {}
        """Each text run's pieces, until :meth:`join` makes its text."""
        self._known: dict[int, list[str]] | None = None
        """The analysis' long strings by length (:meth:`_as_known`), once one is met."""
        self.code = _code(len(trace.raw))
        """Typecode of the index arrays: 4 bytes while offsets into the capture fit."""
        payloads = trace.payloads
        self._table = payloads if isinstance(payloads, PayloadTable) else None
        self._columns = self._table.columns() if self._table is not None else None
        self._long: set[int] | None = None
        outcome = next(iter(trace.analysis.outcomes.values()))
        n = self.payload_count = len(payloads)
        self.count = n + 1 if trace.implied_done else n
        """Events: the payloads, and an implied ``[DONE]`` (event ``payload_count``)."""
        # Replay stops at [DONE] or at the payload that made the harness fail.
        self.cut = n + 1 if outcome.position is None else outcome.position + 1
        self.calls: dict[Any, int] = {}
        self.call_wire: list[Any] = []
        self.call_first: list[int] = []
        """The event that opened each call (its first appearance)."""
        self.chunks = bytearray((self.count + 7) // 8)
        """A bit per event: the payload is a chunk the harness reads."""
        self.texts: list[TextRun] = []
        self.channels: dict[Channel, TextRun] = {}
        """The text runs by channel (``TEXT``, ``REASONING``, ``("args", k)``)."""
        self.marks: list[Channel] = []
        self.run_kind: array[int] = array("q")
        self.run_event: array[int] = array("q")
        self.opened = Opened(self.code)
        """Text, reasoning and call channels in order of first appearance in the replayed
        part, each with the event that opened it."""
        self._arguments: list[str | None] = []
        """Each call's :meth:`arguments`, once asked (a list: 5,000 calls, not a dict)."""
        self.usage_event: int | None = None
        """The last replayed event carrying a truthy ``usage``."""
        self.finish_event: int | None = None
        """The last replayed event carrying a string ``finish_reason``."""
        self.done = 0
        """Events cut so far (:meth:`cut_steps`)."""
        if cut:
            for _ in self.cut_steps():
                pass
            if join:
                self.join()

    # -- per event ----------------------------------------------------------------------------

    def line(self, event: int) -> int:
        if event >= self.payload_count:
            return self.trace.framing.lines
        if self._table is not None:
            return self._table.line(event)
        return self.trace.payloads[event].line

    def data(self, event: int) -> bytes:
        if event >= self.payload_count:
            return DONE
        if self._table is not None:
            return self._table.data(event)
        return self.trace.payloads[event].data

    def same_data(self, event: int, other: Streams, other_event: int) -> bool | None:
        """Whether two long payloads (``_LONG`` bytes and more) are the same bytes, compared
        where they lie, a megabyte at a time (None: not both long, or not both in a capture's
        bytes): a 50 MB payload is not copied out of each capture to be compared."""
        here, there = self._span(event), other._span(other_event)
        if here is None or there is None:
            return None
        (raw_a, lo_a, hi_a), (raw_b, lo_b, hi_b) = here, there
        n = hi_a - lo_a
        if n != hi_b - lo_b:
            return False
        for at in range(0, n, _LONG):
            step = min(_LONG, n - at)
            if raw_a[lo_a + at : lo_a + at + step] != raw_b[lo_b + at : lo_b + at + step]:
                return False
        return True

    @property
    def long_events(self) -> set[int]:
        """The payloads of ``_LONG`` bytes and more (the few :meth:`same_data` compares)."""
        found = self._long
        if found is None:
            found = self._long = set()
            columns = self._columns
            if columns is not None:
                pairs = zip(columns.start, columns.end, strict=True)
                found.update(i for i, (s, e) in enumerate(pairs) if e - s >= _LONG)
        return found

    def _span(self, event: int) -> tuple[bytes | bytearray, int, int] | None:
        """Where a long payload's bytes are in the capture (None: short, or kept apart)."""
        columns = self._columns
        if columns is None or event >= self.payload_count:
            return None
        hi, skip = columns.end[event], columns.skip[event]
        lo = columns.start[event] + skip
        if skip < 0 or hi - lo < _LONG:
            return None
        return columns.raw, lo, hi

    def after_done(self, event: int) -> bool:
        if event >= self.payload_count:
            return False
        if self._table is not None:
            return self._table.after_done(event)
        return self.trace.payloads[event].after_done

    def replayed(self, event: int) -> bool:
        """False for payloads after ``[DONE]`` or after the one that made the harness fail."""
        if event >= self.payload_count:
            return True
        return event < self.cut and not self.after_done(event)

    def chunk(self, event: int) -> bool:
        """The payload is a chunk the harness reads (decoded again only when two differ)."""
        return bool(self.chunks[event >> 3] >> (event & 7) & 1)

    def pieces(self, event: int) -> list[Piece]:
        """What ``event`` contributes (its payload decoded again)."""
        if event >= self.payload_count:
            return [(_DONE_MARK, None)]
        return self._pieces(event, self.after_done(event), self.trace.decoded[event])

    def _pieces(self, event: int, after_done: bool, d: Decoded | None) -> list[Piece]:
        if after_done:
            return [(("after-done",), None)]
        if d is None:
            return [(_DONE_MARK, None)]
        if d.malformed is not None:
            return [(("malformed",), None)]
        chunk = d.chunk
        if chunk is None:
            return [(("ignored",), None)]
        out: list[Piece] = []
        for choice in chunk.choices or ():
            delta = choice.delta
            if delta:
                r = delta.reasoning_content
                if type(r) is str and r:
                    out.append((REASONING, r))
                c = delta.content
                if type(c) is str and c:
                    out.append((TEXT, c))
                calls = delta.tool_calls
                opened: set[int] | None = None
                for call in calls or ():
                    idx = call.index
                    key = idx if type(idx) is int else index_key(idx)
                    k = self.calls.get(key)
                    if k is None:  # only while cutting: afterwards every call is known
                        k = self.calls[key] = len(self.call_wire)
                        self.call_wire.append(call.index)
                        self.call_first.append(event)
                    if self.call_first[k] == event:
                        if opened is None:
                            opened = set()
                        if k not in opened:
                            opened.add(k)
                            out.append((("call", k), None))
                    fn = call.function
                    args = fn.arguments if fn else UNSET
                    frag = "" if args is UNSET or args is None else js_string(args)
                    out.append((("args", k), frag))
            if type(choice.finish_reason) is str:
                out.append((("finish",), None))
        usage = chunk.usage
        if usage is not UNSET and usage is not None and truthy(usage):
            out.append((("usage",), None))
        if chunk.error is not UNSET and chunk.error is not None:
            out.append((("error",), None))
        if d.throw is not None:
            out.append((("throw",), None))
        return out or [(INERT, None)]

    # -- the runs -----------------------------------------------------------------------------

    def cut_steps(self) -> Iterator[None]:
        """Cut every event into pieces and runs, a ``yield`` every :data:`STEP_EVENTS` events
        (the same work, whoever drives it and however it is sliced)."""
        channels = self.channels
        parts = self._parts
        marks: dict[Channel, int] = {}
        run_kind, run_event = self.run_kind, self.run_event
        cut = self.cut
        replaying = True
        seen: set[Channel] = set()
        loose: set[Channel] = set()  # runs of several pieces not joined, this step's or older
        touched: set[Channel] = set()  # runs given a piece in this step
        for i, after, pieces in self._cut():
            if replaying and i < cut:
                if not after:
                    self._opening(i, pieces, seen)
                else:
                    replaying = False
            for channel, text in pieces:
                if text is None:
                    # Payloads that contribute nothing are paired afterwards, by place.
                    if channel != INERT:
                        m = marks.get(channel)
                        if m is None:
                            m = marks[channel] = len(self.marks)
                            self.marks.append(channel)
                        run_kind.append(m)
                        run_event.append(i)
                    continue
                run = channels.get(channel)
                if run is None:
                    run = channels[channel] = TextRun(channel, self.code)
                    run_kind.append(-1 - len(self.texts))
                    run_event.append(i)
                    self.texts.append(run)
                    parts[channel] = []
                chunks = parts[channel]
                chunks.append(text if len(text) < _LONG else self._as_known(text))
                if len(chunks) >= _JOIN:  # a few strings at a time, not one per payload
                    chunks[:] = ["".join(chunks)]
                touched.add(channel)
                run.add(i, len(text))
            if i % STEP_EVENTS == STEP_EVENTS - 1:
                self._join_idle(loose, touched)
                self.done = i + 1
                yield
        self.done = self.count

    def _join_idle(self, loose: set[Channel], touched: set[Channel]) -> None:
        """Join the pieces of each run given none in the last step (5,000 calls one after
        the other would otherwise hold 100,000 small strings until the end of the cut); the
        runs given some are joined once idle, a run that goes on after a pause is joined
        again with what follows. Updates ``loose`` and empties ``touched``."""
        parts = self._parts
        for channel in loose - touched:
            chunks = parts[channel]
            # (not a run holding a long piece: joined, it would be a copy of it beside the
            # analysis' own until the cut ends, 50 MB for a 50 MB string)
            if len(chunks) > 1 and all(len(c) < _LONG for c in chunks):
                chunks[:] = ["".join(chunks)]
        loose.clear()
        loose.update(c for c in touched if len(parts[c]) > 1)
        touched.clear()

    def _as_known(self, text: str) -> str:
        """A long piece (``_LONG``) as the analysis holds it when it does: the loaded trace's
        string, not the copy just decoded again (let go with its payload)."""
        known = self._known
        if known is None:
            known = self._known = {}
            analysis = self.trace.analysis
            for pieces in (analysis.events.texts, *(c.args for c in analysis.calls)):
                for piece in pieces:
                    if len(piece) >= _LONG:
                        known.setdefault(len(piece), []).append(piece)
        return next((k for k in known.get(len(text), ()) if k == text), text)

    def join(self, like: Streams | None = None) -> None:
        """Each text run's text, its pieces joined; or, when ``like`` (the other trace's
        streams, joined) has the same text on that channel, that string: two captures of one
        request agree on most, and a 50 MB content is not joined a second time. The two
        traces are cut before either is joined (``join=False``): a long piece then costs one
        copy at a time (its decoding, or A's join), not both sides' at once."""
        for channel, run in self.channels.items():
            chunks = self._parts.pop(channel, None)
            if chunks is not None:  # (not joined already)
                run.text = self._joined(channel, chunks, like)
        # (emptied, but a dict keeps the table it grew to: 5,000 calls' runs, one per side)
        self._parts = {}
        self._known = None

    @staticmethod
    def _joined(channel: Channel, chunks: list[str], other: Streams | None) -> str:
        like = other.channels.get(channel) if other is not None else None
        if like is not None and len(like.text) == sum(map(len, chunks)):
            text, at = like.text, 0
            for chunk in chunks:
                if not text.startswith(chunk, at):
                    break
                at += len(chunk)
            else:
                return text
        return "".join(chunks)

    def _cut(self) -> Iterator[tuple[int, bool, list[Piece]]]:
        """Each event's pieces, once, with whether it came after ``[DONE]``."""
        chunks = self.chunks
        decoded = self.trace.decoded
        each: Iterable[tuple[int, bool, Decoded | None]] = (
            decoded.scan()  # (no copy of each payload's bytes)
            if isinstance(decoded, DecodedPayloads)
            else ((i, self.after_done(i), d) for i, d in enumerate(decoded))
        )
        for i, after, d in each:
            if d is not None and d.chunk is not None:
                chunks[i >> 3] |= 1 << (i & 7)
            yield i, after, self._pieces(i, after, d)
        if self.count > self.payload_count:
            yield self.payload_count, False, [(_DONE_MARK, None)]

    def _opening(self, event: int, pieces: list[Piece], seen: set[Channel]) -> None:
        for channel, _ in pieces:
            kind = channel[0]
            if kind in ("text", "reasoning", "call") and channel not in seen:
                seen.add(channel)
                self.opened.append((channel, event))
            elif kind == "usage":
                self.usage_event = event
            elif kind == "finish":
                self.finish_event = event

    def arguments(self, call: int) -> str:
        """Call ``call``'s whole arguments as the analysis has them: one string, whoever asks
        (the same as its text run's when they agree)."""
        known = self._arguments
        found = known[call] if 0 <= call < len(known) else None
        if found is None:
            found = self.trace.analysis.calls[call].arguments
            run = self.channels.get(("args", call))
            if run is not None and run.text == found:
                found = run.text
            if call >= 0:
                if call >= len(known):
                    known.extend([None] * (call + 1 - len(known)))
                known[call] = found
        return found

    def run_key(self, r: int) -> Hashable:
        kind = self.run_kind[r]
        return self.texts[-1 - kind].key if kind < 0 else self.marks[kind]


def _code(size: int) -> str:
    """The array typecode for indexes and offsets into ``size`` bytes of captures."""
    return "i" if size < 1 << 31 else "q"


# --- the rows ----------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class FieldDiff:
    """One JSON path whose value differs between two aligned payloads."""

    path: str
    """``choices[0].delta.tool_calls[0].id``; ``""`` for the whole payload."""
    a: Any
    """The value in A (``UNSET`` when the key is absent)."""
    b: Any


@dataclass(slots=True)
class EventRow:
    """One row of the side-by-side event view: what A had here, what B had here.

    ``status`` is ``same``, ``changed`` (one payload each, fields differ), ``split`` (one in A,
    several in B), ``merged`` (several in A, one in B), ``regrouped`` (several each),
    ``only-a`` / ``only-b`` (a payload, or with ``kind == "comment"`` comment lines, that the
    other trace lacks).
    """

    status: str
    a: tuple[int, ...]
    """Event indexes into A's payloads (see :func:`event_text`); empty for a B-only row."""
    b: tuple[int, ...]
    a_lines: tuple[int, ...]
    b_lines: tuple[int, ...]
    kind: str = "payload"
    note: str = ""
    """A short plain-text explanation (untrusted content is *not* escaped here)."""
    same_content: bool = True
    """For split/merged/regrouped rows: both sides contribute the same text and marks."""
    inert: bool = False
    """A one-sided payload that contributes nothing the harness reads (a keep-alive)."""
    replayed: bool = True
    """False when the row's payloads come after ``[DONE]`` or after the harness failed."""

    pair: tuple[bytes, bytes, tuple[str, ...]] | None = field(default=None, repr=False)
    """For a ``changed`` row: both payloads and the keys left out (to compare on demand)."""
    _fields: tuple[tuple[FieldDiff, ...], int] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def changed(self) -> bool:
        return self.status != "same"

    @property
    def fields(self) -> tuple[FieldDiff, ...]:
        """For a ``changed`` row, the first few differing JSON paths (computed on first use:
        most of a 100,000-row diff is never looked at)."""
        return self._field_diff()[0]

    @property
    def more_fields(self) -> int:
        """Differing paths left out of :attr:`fields`."""
        return self._field_diff()[1]

    def _field_diff(self) -> tuple[tuple[FieldDiff, ...], int]:
        if self._fields is None:
            self._fields = ((), 0) if self.pair is None else field_diffs(*self.pair)
        return self._fields


# Stretch kinds: each stretch is a run of rows of one shape.
_ONE, _ONLY_A, _ONLY_B, _GROUP, _COMMENT = 0, 1, 2, 3, 4
_GROUP_STATUS = ("split", "merged", "regrouped")


class EventDiff:
    """Aligned rows covering every payload (and differing comment line) of both traces.

    Kept as stretches of rows: ``_ONE`` (1:1 rows, A from ``a0`` and B from ``b0``, one each
    per row; ``changed`` lists the A events whose row differs), ``_ONLY_A`` / ``_ONLY_B`` (one
    payload per row), ``_GROUP`` (one split, merged or regrouped row of ``na`` and ``nb``
    payloads) and ``_COMMENT`` (one row of comment lines, kept whole in ``comments``).
    """

    __slots__ = (
        "_a0",
        "_b0",
        "_by_a",
        "_by_b",
        "_groups",
        "_kind",
        "_last",
        "_na",
        "_nb",
        "_row0",
        "_seg_a",
        "_seg_b",
        "changed",
        "comments",
        "drop",
        "rows",
        "sa",
        "sb",
        "size",
    )

    def __init__(
        self,
        sa: Streams,
        sb: Streams,
        stretches: list[tuple[int, int, int, int, int]],
        changed: array[int],
        comments: list[EventRow],
        drop: tuple[str, ...],
    ) -> None:
        self.sa, self.sb = sa, sb
        self.changed = changed
        """A events whose 1:1 row differs, in order."""
        self.comments = comments
        self.drop = drop
        self._kind = array("b")
        self._row0: array[int] = array("q")
        self._a0: array[int] = array("q")
        self._b0: array[int] = array("q")
        self._na: array[int] = array("q")
        self._nb: array[int] = array("q")
        self._by_a: array[int] = array("q")  # first A event of each stretch holding A events
        self._seg_a: array[int] = array("q")
        self._by_b: array[int] = array("q")
        self._seg_b: array[int] = array("q")
        self._groups: dict[int, tuple[bool, str]] = {}
        self._last = 0  # the stretch found last: rows are mostly asked for in order
        row = 0
        for s, (kind, a0, b0, na, nb) in enumerate(stretches):
            self._kind.append(kind)
            self._row0.append(row)
            self._a0.append(a0)
            self._b0.append(b0)
            self._na.append(na)
            self._nb.append(nb)
            if na and kind != _COMMENT:
                self._by_a.append(a0)
                self._seg_a.append(s)
            if nb and kind != _COMMENT:
                self._by_b.append(b0)
                self._seg_b.append(s)
            row += _height(kind, na, nb)
        self.size = row
        self.rows = EventRows(self)

    # -- where things are ---------------------------------------------------------------------

    def _stretch(self, row: int) -> int:
        row0 = self._row0
        s = self._last
        if row0[s] <= row and (s + 1 == len(row0) or row < row0[s + 1]):
            return s
        s = self._last = bisect_right(row0, row) - 1
        return s

    def row_of_a(self, event: int) -> int:
        """The row A's event ``event`` is in."""
        return self._row_of(event, self._by_a, self._seg_a)

    def row_of_b(self, event: int) -> int:
        return self._row_of(event, self._by_b, self._seg_b)

    def _row_of(self, event: int, starts: array[int], segs: array[int]) -> int:
        k = bisect_right(starts, event) - 1
        if k < 0:
            raise IndexError(event)
        s = segs[k]
        if self._kind[s] == _GROUP:
            return self._row0[s]
        return self._row0[s] + event - starts[k]

    def status(self, row: int) -> str:
        """Row ``row``'s status, without making the row."""
        s = self._stretch(row)
        kind = self._kind[s]
        if kind == _ONE:
            return "changed" if self._is_changed(self._a0[s] + row - self._row0[s]) else "same"
        if kind == _ONLY_A:
            return "only-a"
        if kind == _ONLY_B:
            return "only-b"
        if kind == _GROUP:
            return _group_status(self._na[s], self._nb[s])
        return self.comments[self._a0[s]].status

    def one_to_one(self, row: int) -> bool:
        """Row ``row`` pairs one payload of A with one of B (``same`` or ``changed``)."""
        return self._kind[self._stretch(row)] == _ONE

    def height(self, row: int) -> int:
        """Lines the row takes side by side: one per payload of its longer side."""
        s = self._stretch(row)
        kind = self._kind[s]
        return max(self._na[s], self._nb[s], 1) if kind == _GROUP else 1

    def _is_changed(self, a_event: int) -> bool:
        k = bisect_left(self.changed, a_event)
        return k < len(self.changed) and self.changed[k] == a_event

    # -- summaries ----------------------------------------------------------------------------

    @property
    def changed_count(self) -> int:
        """How many rows differ (are not ``same``)."""
        return (
            self.size
            - sum(self._na[s] for s in range(len(self._kind)) if self._kind[s] == _ONE)
            + len(self.changed)
        )

    def same_runs(self, least: int) -> list[tuple[int, int]]:
        """``[start, end)`` of every run of at least ``least`` consecutive ``same`` rows."""
        runs: list[tuple[int, int]] = drive(self.same_runs_steps(least))
        return runs

    def same_runs_steps(self, least: int) -> Generator[None, None, list[tuple[int, int]]]:
        """:meth:`same_runs`, a ``yield`` every few thousand rows that differ."""
        runs: list[tuple[int, int]] = []
        start = end = -1  # the run being extended: rows [start, end)

        def same(lo: int, hi: int) -> None:
            nonlocal start, end
            if lo >= hi:
                return
            if lo != end:
                if end - start >= least:
                    runs.append((start, end))
                start = lo
            end = hi

        changed = self.changed
        for s in range(len(self._kind)):
            if self._kind[s] != _ONE:
                continue
            row0, a0, n = self._row0[s], self._a0[s], self._na[s]
            lo = row0
            k = bisect_left(changed, a0)
            while k < len(changed) and changed[k] < a0 + n:
                at = row0 + changed[k] - a0
                same(lo, at)
                lo = at + 1
                k += 1
                if k % STEP_LINKS == 0:
                    yield
            same(lo, row0 + n)
        if end - start >= least:
            runs.append((start, end))
        return runs

    @property
    def differences(self) -> list[EventRow]:
        return [self.rows[r] for r in self.changed_rows()]

    def changed_rows(self) -> Iterator[int]:
        """The numbers of the rows that differ, in order."""
        changed = self.changed
        for s in range(len(self._kind)):
            row0 = self._row0[s]
            if self._kind[s] != _ONE:
                yield from range(row0, row0 + _height(self._kind[s], self._na[s], self._nb[s]))
                continue
            a0, n = self._a0[s], self._na[s]
            k = bisect_left(changed, a0)
            while k < len(changed) and changed[k] < a0 + n:
                yield row0 + changed[k] - a0
                k += 1

    # -- one row ------------------------------------------------------------------------------

    def row(self, r: int) -> EventRow:
        sa, sb = self.sa, self.sb
        s = self._stretch(r)
        kind, off = self._kind[s], r - self._row0[s]
        if kind == _ONE:
            i, j = self._a0[s] + off, self._b0[s] + off
            changed = self._is_changed(i)
            return EventRow(
                "changed" if changed else "same",
                (i,),
                (j,),
                (sa.line(i),),
                (sb.line(j),),
                replayed=sa.replayed(i) or sb.replayed(j),
                pair=(sa.data(i), sb.data(j), self.drop) if changed else None,
            )
        if kind == _ONLY_A:
            e = self._a0[s] + off
            return _only("only-a", sa, e)
        if kind == _ONLY_B:
            e = self._b0[s] + off
            return _only("only-b", sb, e)
        if kind == _COMMENT:
            return self.comments[self._a0[s]]
        a0, b0, na, nb = self._a0[s], self._b0[s], self._na[s], self._nb[s]
        ga, gb = range(a0, a0 + na), range(b0, b0 + nb)
        found = self._groups.get(s)
        if found is None:
            same = _contribution(sa, ga) == _contribution(sb, gb)
            what = "same content" if same else "different content"
            found = self._groups[s] = (same, f"{what}: {_payloads(na)} vs {nb}")
        return EventRow(
            _group_status(na, nb),
            tuple(ga),
            tuple(gb),
            tuple(map(sa.line, ga)),
            tuple(map(sb.line, gb)),
            note=found[1],
            same_content=found[0],
            replayed=any(map(sa.replayed, ga)) or any(map(sb.replayed, gb)),
        )


def _height(kind: int, na: int, nb: int) -> int:
    if kind in (_ONE, _ONLY_A):
        return na
    if kind == _ONLY_B:
        return nb
    return 1


def _group_status(na: int, nb: int) -> str:
    return "split" if na == 1 else "merged" if nb == 1 else "regrouped"


def _only(status: str, streams: Streams, e: int) -> EventRow:
    pieces = streams.pieces(e)
    inert = pieces == _INERT_PIECES
    note = "contributes nothing the harness reads" if inert else _summary(pieces)
    side = ((e,), (), (streams.line(e),), ())
    a, b, a_lines, b_lines = side if status == "only-a" else (side[1], side[0], side[3], side[2])
    return EventRow(
        status, a, b, a_lines, b_lines, note=note, inert=inert, replayed=streams.replayed(e)
    )


class EventRows(Indexed[EventRow]):
    """The rows of an :class:`EventDiff`, each made when asked for."""

    __slots__ = ("_diff",)

    def __init__(self, diff: EventDiff) -> None:
        self._diff = diff

    def __len__(self) -> int:
        return self._diff.size

    def _at(self, index: int) -> EventRow:
        return self._diff.row(index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content

    def __repr__(self) -> str:
        return f"EventRows({len(self)} rows)"


# --- the alignment -----------------------------------------------------------------------------


def align_events(sa: Streams, sb: Streams, *, include_volatile: bool = False) -> EventDiff:
    """Align the payloads of two traces on content and compare the aligned ones."""
    diff: EventDiff = drive(align_events_steps(sa, sb, include_volatile=include_volatile))
    return diff


def drive(steps: Generator[None, None, Any]) -> Any:
    """What a generator of steps returns, its steps run one after the other at once."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def align_events_steps(
    sa: Streams, sb: Streams, *, include_volatile: bool = False
) -> Generator[None, None, EventDiff]:
    """:func:`align_events` a few milliseconds at a time: a ``yield`` between the steps (the
    same work, in the same order, whoever drives it)."""
    links: array[int] = array("q")
    ka = [sa.run_key(r) for r in range(len(sa.run_kind))]
    kb = [sb.run_key(r) for r in range(len(sb.run_kind))]
    opcodes = align(ka, kb)
    del ka, kb
    yield
    mark = 0
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            for x, y in zip(range(i1, i2), range(j1, j2), strict=True):
                yield from _link_runs_steps(sa, x, sb, y, links)
                if len(links) - mark >= STEP_LINKS:
                    mark = len(links)
                    yield
        elif tag == "replace":
            _link_replaced(sa, range(i1, i2), sb, range(j1, j2), links)
            yield
    linked = yield from _groups_steps(links, _code(len(sa.trace.raw) + len(sb.trace.raw)))
    del links
    yield
    drop = () if include_volatile else VOLATILE_KEYS
    stretches, changed = yield from _stretches_steps(sa, sb, _pair_gaps(sa, sb, linked), drop)
    del linked
    yield
    stretches, comments = _with_comments(sa, sb, stretches)
    return EventDiff(sa, sb, stretches, changed, comments, drop)


_SHIFT = 32
_MASK = (1 << _SHIFT) - 1


def _link(links: array[int], ea: int, eb: int) -> None:
    links.append(ea << _SHIFT | eb)


def _link_replaced(sa: Streams, xs: range, sb: Streams, ys: range, links: array[int]) -> None:
    """Runs that differ: a channel's text against the same channel's, marks by kind."""
    texts = {sb.texts[-1 - sb.run_kind[r]].channel: r for r in ys if sb.run_kind[r] < 0}
    for x in xs:
        kind = sa.run_kind[x]
        if kind < 0:
            y = texts.get(sa.texts[-1 - kind].channel)
            if y is not None:
                _link_runs(sa, x, sb, y, links)
    ma = [r for r in xs if sa.run_kind[r] >= 0]
    mb = [r for r in ys if sb.run_kind[r] >= 0]
    keys_a = [sa.marks[sa.run_kind[r]] for r in ma]
    keys_b = [sb.marks[sb.run_kind[r]] for r in mb]
    for tag, i1, i2, j1, j2 in align(keys_a, keys_b):
        if tag == "equal":
            for x, y in zip(ma[i1:i2], mb[j1:j2], strict=True):
                _link(links, sa.run_event[x], sb.run_event[y])


def _link_runs(sa: Streams, x: int, sb: Streams, y: int, links: array[int]) -> None:
    drive(_link_runs_steps(sa, x, sb, y, links))


def _link_runs_steps(
    sa: Streams, x: int, sb: Streams, y: int, links: array[int]
) -> Generator[None, None, None]:
    kx, ky = sa.run_kind[x], sb.run_kind[y]
    if kx >= 0 or ky >= 0:
        _link(links, _first_event(sa, x), _first_event(sb, y))
        return
    rx, ry = sa.texts[-1 - kx], sb.texts[-1 - ky]
    ta, tb = rx.text, ry.text
    la, lb = len(ta), len(tb)
    if ta is tb or ta == tb:  # the common case: link segment by overlapping segment
        ry.text = ta  # one string for both, not two equal copies (a 5 MB argument)
        p, s = la, 0
    else:
        p = _common_prefix(ta, tb)
        s = _common_suffix(ta, tb, min(la, lb) - p)
    # Equal stretches: link where character ranges overlap (B offsets mapped onto A's).
    yield from _link_overlaps(_clip(rx, 0, p, 0), _clip(ry, 0, p, 0), links)
    if s:
        shift = la - lb
        yield from _link_overlaps(_clip(rx, la - s, la, 0), _clip(ry, lb - s, lb, shift), links)
    # The differing middle: pair payloads in order.
    mid_a = _clip(rx, p, la - s, 0)
    mid_b = _clip(ry, p, lb - s, 0)
    for u, v in zip(mid_a, mid_b, strict=False):
        _link(links, u[0], v[0])
    # Payloads that contribute nothing to the channel (an identity-only delta): pair those at
    # the same place in the equal stretches; the others stay one-sided.
    za = _zero(rx, p, la - s, 0)
    zb = _zero(ry, p, lb - s, la - lb)
    i = j = 0
    while i < len(za) and j < len(zb):
        if za[i][0] == zb[j][0]:
            _link(links, za[i][1], zb[j][1])
            i += 1
            j += 1
        elif za[i][0] < zb[j][0]:
            i += 1
        else:
            j += 1


def _first_event(streams: Streams, r: int) -> int:
    kind = streams.run_kind[r]
    return streams.texts[-1 - kind].first_event if kind < 0 else streams.run_event[r]


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo], a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    if limit <= 0:
        return 0
    la, lb = len(a), len(b)
    if a[la - limit :] == b[lb - limit :]:
        return limit
    lo, hi = 0, limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid
    return lo


def _clip(run: TextRun, lo: int, hi: int, shift: int) -> Iterator[tuple[int, int, int]]:
    """Non-empty segments cut to ``[lo, hi)``, moved by ``shift``."""
    if hi <= lo:
        return
    for ev, s, e in run.segs_after(lo):
        if s >= hi:
            break
        if s != e:
            yield ev, max(s, lo) + shift, min(e, hi) + shift


def _zero(run: TextRun, mid_lo: int, mid_hi: int, shift: int) -> list[tuple[int, int]]:
    """Empty segments outside the differing middle, as ``(offset, event)``; the suffix part is
    moved by ``shift`` into the other trace's coordinates."""
    out: list[tuple[int, int]] = []
    for ev, s, e in run.segs():
        if s != e:
            continue
        if s <= mid_lo:
            out.append((s, ev))
        elif s >= mid_hi:
            out.append((s + shift, ev))
    return out


def _link_overlaps(
    a: Iterator[tuple[int, int, int]], b: Iterator[tuple[int, int, int]], links: array[int]
) -> Generator[None, None, None]:
    x = next(a, None)
    y = next(b, None)
    n = 0
    while x is not None and y is not None:
        n += 1
        if n % STEP_LINKS == 0:
            yield
        ea, sa_, xa = x
        eb, sb_, xb = y
        if sa_ < xb and sb_ < xa:
            _link(links, ea, eb)
        if xa < xb:
            x = next(a, None)
        elif xb < xa:
            y = next(b, None)
        else:
            x = next(a, None)
            y = next(b, None)


class _Groups:
    """Groups ``[a_lo, a_hi] x [b_lo, b_hi]`` of linked events: the low ends in two arrays,
    the high ends only of the groups wider than one payload a side."""

    __slots__ = ("a_lo", "b_lo", "wide")

    def __init__(self, code: str) -> None:
        self.a_lo: array[int] = array(code)
        self.b_lo: array[int] = array(code)
        self.wide: dict[int, tuple[int, int]] = {}

    def __len__(self) -> int:
        return len(self.a_lo)

    def high(self, k: int) -> tuple[int, int]:
        """``(a_hi, b_hi)`` of group ``k``."""
        found = self.wide.get(k)
        return found if found is not None else (self.a_lo[k], self.b_lo[k])

    def __getitem__(self, k: int) -> tuple[int, int, int, int]:
        a_hi, b_hi = self.high(k)
        return self.a_lo[k], a_hi, self.b_lo[k], b_hi


def _sorted(links: array[int]) -> Iterable[int]:
    """The links in order. They come as a few ascending runs (one per aligned text run, then
    its empty segments), merged as they are read rather than sorted into a list of 100,000
    numbers; in many short runs, sorted."""
    starts = [k + 1 for k in range(len(links) - 1) if links[k] > links[k + 1]]
    if not starts:
        return links
    if len(starts) > _MERGED_RUNS:
        # Sorted a block at a time, in place, the blocks merged as read: sorted at once they
        # would be a list of 100,000 Python numbers (5,000 calls: a quarter of the capture's
        # size, for a moment, on top of everything the compare view holds).
        step, n = _SORTED_BLOCK, len(links)
        del starts
        for lo in range(0, n, step):
            links[lo : lo + step] = array(links.typecode, sorted(links[lo : lo + step]))
        if n <= step:
            return links
        bounds = [*range(0, n, step), n]
    else:
        bounds = [0, *starts, len(links)]
    return heapq.merge(*(map(links.__getitem__, range(lo, hi)) for lo, hi in pairwise(bounds)))


_MERGED_RUNS = 64
_SORTED_BLOCK = 8192


def _groups_steps(links: array[int], code: str) -> Generator[None, None, _Groups]:
    """Connected, order-preserving groups of linked events."""
    g = _Groups(code)
    a_lo, b_lo, wide = g.a_lo, g.b_lo, g.wide
    ordered = _sorted(links)
    yield
    for n, link in enumerate(ordered):
        if n % STEP_LINKS == STEP_LINKS - 1:
            yield
        pa, pb = link >> _SHIFT, link & _MASK
        t = len(a_lo) - 1
        if t >= 0:
            ha, hb = g.high(t)
            if pa <= ha or pb <= hb:
                ha, lb, hb = max(ha, pa), min(b_lo[t], pb), max(hb, pb)
                b_lo[t] = lb
                while t > 0:  # the group now reaches back into the one before: merged
                    prev_ha, prev_hb = g.high(t - 1)
                    if lb > prev_hb:
                        break
                    a_lo.pop()
                    b_lo.pop()
                    wide.pop(t, None)
                    t -= 1
                    ha, lb, hb = max(prev_ha, ha), min(b_lo[t], lb), max(prev_hb, hb)
                    b_lo[t] = lb
                if ha != a_lo[t] or hb != lb:
                    wide[t] = (ha, hb)
                else:
                    wide.pop(t, None)
                continue
        a_lo.append(pa)
        b_lo.append(pb)
    return g


Group = tuple[int, int, int, int]
"""``(a_lo, a_hi, b_lo, b_hi)``: linked events, inclusive."""


def _pair_gaps(sa: Streams, sb: Streams, groups: _Groups) -> Iterator[Group]:
    """Pair the events no content linked (keep-alives, identity-only deltas) by place: in
    each stretch between linked groups, those contributing exactly the same pieces."""
    na, nb = sa.count, sb.count
    prev_a = prev_b = -1
    for k in range(len(groups) + 1):
        g = groups[k] if k < len(groups) else (na, na, nb, nb)
        ga = range(prev_a + 1, g[0])
        gb = range(prev_b + 1, g[2])
        if ga and gb:
            sig_a = [tuple(sa.pieces(e)) for e in ga]
            sig_b = [tuple(sb.pieces(e)) for e in gb]
            for tag, i1, i2, j1, j2 in align(sig_a, sig_b):
                if tag == "equal":
                    for x, y in zip(ga[i1:i2], gb[j1:j2], strict=True):
                        yield x, x, y, y
        if g[0] < na or g[2] < nb:
            yield g
        prev_a, prev_b = g[1], g[3]


Stretch = tuple[int, int, int, int, int]
"""``(kind, a0, b0, na, nb)``."""


def _stretches_steps(
    sa: Streams, sb: Streams, groups: Iterator[Group], drop: tuple[str, ...]
) -> Generator[None, None, tuple[list[Stretch], array[int]]]:
    """The rows, as stretches, and the A events whose 1:1 row differs."""
    out: list[Stretch] = []
    changed: array[int] = array(sa.code)  # A event indexes
    same_trace = sa.trace is sb.trace  # the same payload on both sides: the same
    long_a, long_b = sa.long_events, sb.long_events
    ia = ib = 0

    def only(kind: int, lo: int, hi: int) -> None:
        if hi <= lo:
            return
        if out and out[-1][0] == kind:
            k, a0, b0, na, nb = out[-1]
            if kind == _ONLY_A and a0 + na == lo:
                out[-1] = (k, a0, b0, na + hi - lo, 0)
                return
            if kind == _ONLY_B and b0 + nb == lo:
                out[-1] = (k, a0, b0, 0, nb + hi - lo)
                return
        if kind == _ONLY_A:
            out.append((kind, lo, 0, hi - lo, 0))
        else:
            out.append((kind, 0, lo, 0, hi - lo))

    for n, (a_lo, a_hi, b_lo, b_hi) in enumerate(groups):
        if n % STEP_ROWS == STEP_ROWS - 1:
            yield
        only(_ONLY_A, ia, a_lo)
        only(_ONLY_B, ib, b_lo)
        if a_lo == a_hi and b_lo == b_hi:  # the common case, kept lean for 100,000 rows
            if not (same_trace and a_lo == b_lo) and not (
                a_lo in long_a and b_lo in long_b and sa.same_data(a_lo, sb, b_lo)
            ):
                da, db = sa.data(a_lo), sb.data(b_lo)
                # What the harness reads differs: the payloads differ (no decoding needed).
                same = (
                    da == db
                    or not (sa.chunk(a_lo) and sb.chunk(b_lo))
                    or decode_payload(da).chunk == decode_payload(db).chunk
                ) and same_payload(da, db, drop)
                if not same:
                    changed.append(a_lo)
            last = out[-1] if out else None
            if (
                last is not None
                and last[0] == _ONE
                and last[1] + last[3] == a_lo
                and last[2] + last[4] == b_lo
            ):
                out[-1] = (_ONE, last[1], last[2], last[3] + 1, last[4] + 1)
            else:
                out.append((_ONE, a_lo, b_lo, 1, 1))
        else:
            out.append((_GROUP, a_lo, b_lo, a_hi - a_lo + 1, b_hi - b_lo + 1))
        ia, ib = a_hi + 1, b_hi + 1
    only(_ONLY_A, ia, sa.count)
    only(_ONLY_B, ib, sb.count)
    return out, changed


def _payloads(n: int) -> str:
    return f"{n} payload{'' if n == 1 else 's'}"


def _contribution(streams: Streams, events: range) -> tuple[dict[Channel, str], list[Channel]]:
    texts: dict[Channel, list[str]] = {}
    marks: list[Channel] = []
    for ev in events:
        for channel, text in streams.pieces(ev):
            if text is None:
                if channel != INERT:
                    marks.append(channel)
            else:
                texts.setdefault(channel, []).append(text)
    return {k: "".join(v) for k, v in texts.items() if any(v)}, marks


def _summary(pieces: list[Piece]) -> str:
    """What a one-sided payload carries, in a few words."""
    words: list[str] = []
    for channel, text in pieces:
        kind = channel[0]
        if kind == "args":
            words.append(f"call {channel[1]} arguments {_quote(text or '')}")
        elif kind in ("text", "reasoning"):
            words.append(f"{kind} {_quote(text or '')}")
        elif kind == "call":
            words.append(f"opens call {channel[1]}")
        elif kind == "done":
            words.append("[DONE]")
        elif kind == "finish":
            words.append("finish_reason")
        elif kind == "after-done":
            words.append("after [DONE]")  # the row's replayed=False says the rest
        elif kind == "throw":
            words.append("a shape the harness throws on")
        else:
            words.append(str(kind))
    return ", ".join(words)


def _quote(text: str, limit: int = 40) -> str:
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return jsontext.dumps(short)  # (a lone surrogate: its escape)


# --- field comparison ----------------------------------------------------------------------


def plain(data: bytes, drop: tuple[str, ...] = ()) -> Any:
    """A payload as plain JSON, ``drop`` keys removed at the top level.

    ``[DONE]`` and payloads that are not JSON come back as their text (a ``str``), which never
    equals a decoded object.
    """
    if data == DONE:
        return "[DONE]"
    try:
        value = _decode(data)
    except (msgspec.DecodeError, RecursionError):
        return data.decode("utf-8", "replace")
    if drop and isinstance(value, dict):
        for key in drop:
            value.pop(key, None)
    return value


def same_payload(da: bytes, db: bytes, drop: tuple[str, ...] = ()) -> bool:
    """Whether two payloads are the same JSON, ``drop`` keys left out at the top level.

    Cheap first: equal bytes; then the top-level members as raw bytes (no nested objects
    built); only members whose bytes differ are decoded, to tell formatting from change.
    """
    if da == db:
        return True
    try:
        ta, tb = _top(da), _top(db)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return _strict_equal(plain(da, drop), plain(db, drop))
    for key in drop:
        ta.pop(key, None)
        tb.pop(key, None)
    if ta == tb:
        return True
    if ta.keys() != tb.keys():
        return False
    for key, ra in ta.items():
        rb = tb[key]
        if ra == rb:
            continue
        try:
            va, vb = _decode(ra), _decode(rb)
        except (msgspec.DecodeError, RecursionError):
            return False
        # Python's == is looser than JSON's (1 == 1.0 == True): unequal means different.
        if va != vb or not _strict_equal(va, vb):
            return False
    return True


def field_diffs(
    da: bytes, db: bytes, drop: tuple[str, ...] = ()
) -> tuple[tuple[FieldDiff, ...], int]:
    """The first few differing JSON paths of two payloads, and how many more differ."""
    va, vb = plain(da, drop), plain(db, drop)
    if _strict_equal(va, vb):
        return (), 0
    out: list[FieldDiff] = []
    count = _field_diffs(va, vb, "", out)
    return tuple(out), count - len(out)


def _strict_equal(a: Any, b: Any) -> bool:
    """JSON equality that keeps ``1``, ``1.0`` and ``true`` apart (key order does not count)."""
    return jsontext.same_json(a, b)


def _field_diffs(a: Any, b: Any, path: str, out: list[FieldDiff]) -> int:
    """Record differing leaves under ``path`` (at most a few); return how many differ."""
    if type(a) is dict and type(b) is dict:
        n = 0
        for key in list(a) + [k for k in b if k not in a]:
            n += _field_diffs(
                a.get(key, UNSET), b.get(key, UNSET), f"{path}.{key}" if path else key, out
            )
        return n
    if type(a) is list and type(b) is list:
        n = 0
        for k in range(max(len(a), len(b))):
            n += _field_diffs(
                a[k] if k < len(a) else UNSET, b[k] if k < len(b) else UNSET, f"{path}[{k}]", out
            )
        return n
    if type(a) is type(b) and a == b:
        return 0
    if len(out) < _FIELD_LIMIT:
        out.append(FieldDiff(path, a, b))
    return 1


def event_text(trace: Trace, index: int) -> str:
    """The payload text of an event index (``[DONE]`` for an implied sentinel), unescaped."""
    if index >= len(trace.payloads):
        return "[DONE]"
    return trace.payloads[index].data.decode("utf-8", "replace")


# --- comment lines ---------------------------------------------------------------------------


def _comments(trace: Trace) -> list[tuple[int, str]]:
    """``(line, text)`` of every SSE comment line of the capture."""
    if not trace.framing.comments:
        return []
    # Scanned up to its length now, never copied whole (a 26 MB capture's copy was 1x the
    # file at once): a buffer that grows, appended to by the thread that follows its file,
    # keeps the bytes before its end as they were.
    raw = trace.raw
    n = len(raw)
    at = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    if raw.count(b"\r", at, n) != raw.count(b"\r\n", at, n):  # lone CRs end lines too
        return [
            (k, line.decode("utf-8", "replace"))
            for k, line in enumerate(bytes(raw[at:n]).splitlines(), 1)
            if line[:1] == b":"
        ]
    out: list[tuple[int, str]] = []
    line, counted = 1, at
    start = at if raw[at : at + 1] == b":" else raw.find(b"\n:", at, n)
    while start >= 0:
        if raw[start : start + 1] == b"\n":
            start += 1
        line += raw.count(b"\n", counted, start)
        counted = start
        end = raw.find(b"\n", start, n)
        if end < 0:
            end = n
        out.append((line, bytes(raw[start:end]).rstrip(b"\r").decode("utf-8", "replace")))
        start = raw.find(b"\n:", end, n) if end < n else -1
    return out


def _with_comments(
    sa: Streams, sb: Streams, stretches: list[Stretch]
) -> tuple[list[Stretch], list[EventRow]]:
    """Insert rows for the comment lines one trace has and the other lacks."""
    ca, cb = _comments(sa.trace), _comments(sb.trace)
    if not ca and not cb:
        return stretches, []
    extra_a: list[tuple[int, str]] = []
    extra_b: list[tuple[int, str]] = []
    for tag, i1, i2, j1, j2 in align([t for _, t in ca], [t for _, t in cb]):
        if tag != "equal":
            extra_a.extend(ca[i1:i2])
            extra_b.extend(cb[j1:j2])
    if not extra_a and not extra_b:
        return stretches, []
    plain = EventDiff(sa, sb, stretches, array("q"), [], ())
    inserts: list[tuple[int, int, EventRow]] = []  # (before row, order, row)
    for side, extra in (("a", extra_a), ("b", extra_b)):
        for block in _blocks(extra):
            lines = tuple(n for n, _ in block)
            before = _row_after(plain, side, lines[-1])
            texts = [t for _, t in block]
            note = texts[0] if len(set(texts)) == 1 else " / ".join(dict.fromkeys(texts))
            if len(texts) > 1:
                note = f"{len(texts)} comment lines: {note}"
            row = EventRow(
                "only-" + side,
                (),
                (),
                lines if side == "a" else (),
                lines if side == "b" else (),
                kind="comment",
                note=note,
                inert=True,
            )
            inserts.append((before, 0 if side == "a" else 1, row))
    inserts.sort(key=lambda t: (t[0], t[1]))
    out: list[Stretch] = []
    comments: list[EventRow] = []
    k = done = 0
    for stretch in stretches:
        height = _height(stretch[0], stretch[3], stretch[4])
        while k < len(inserts) and inserts[k][0] < done + height:
            at = inserts[k][0]
            if at > done:
                head, stretch = _split(stretch, at - done)
                out.append(head)
                height -= at - done
                done = at
            out.append((_COMMENT, len(comments), 0, 0, 0))
            comments.append(inserts[k][2])
            k += 1
        out.append(stretch)
        done += height
    for _, _, comment in inserts[k:]:
        out.append((_COMMENT, len(comments), 0, 0, 0))
        comments.append(comment)
    return out, comments


def _row_after(diff: EventDiff, side: str, line: int) -> int:
    """The first row holding ``side`` payloads whose first payload comes after ``line``
    (the rows' number when there is none)."""
    streams = diff.sa if side == "a" else diff.sb
    lo, hi = 0, streams.count
    while lo < hi:  # the first event after ``line`` (lines increase with events)
        mid = (lo + hi) // 2
        if streams.line(mid) <= line:
            lo = mid + 1
        else:
            hi = mid
    if lo == streams.count:
        return diff.size
    row = diff.row_of_a(lo) if side == "a" else diff.row_of_b(lo)
    s = diff._stretch(row)
    first, count = (diff._a0[s], diff._na[s]) if side == "a" else (diff._b0[s], diff._nb[s])
    if diff._kind[s] != _GROUP or first == lo:
        return row
    after = first + count  # inside a group: the row after it
    if after >= streams.count:
        return diff.size
    return diff.row_of_a(after) if side == "a" else diff.row_of_b(after)


def _split(stretch: Stretch, at: int) -> tuple[Stretch, Stretch]:
    """A stretch of one-payload rows cut before its row ``at``."""
    kind, a0, b0, na, nb = stretch
    if kind == _ONE:
        return (kind, a0, b0, at, at), (kind, a0 + at, b0 + at, na - at, nb - at)
    if kind == _ONLY_A:
        return (kind, a0, b0, at, 0), (kind, a0 + at, b0, na - at, 0)
    return (kind, a0, b0, 0, at), (kind, a0, b0 + at, 0, nb - at)


def _blocks(comments: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Comments on consecutive lines (or separated only by blank lines) grouped together."""
    blocks: list[list[tuple[int, str]]] = []
    for n, text in comments:
        if blocks and n - blocks[-1][-1][0] <= 2:
            blocks[-1].append((n, text))
        else:
            blocks.append([(n, text)])
    return blocks
