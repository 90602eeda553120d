"""The event alignment as it was first written: one object per payload, pieces and bytes kept.

A test oracle, frozen from ``replay_tui/core/diff_events.py`` before the alignment became
compact (index arrays, rows made on demand): the product must give the same rows, row for
row, as this straightforward version on every pair the tests throw at it. Also the call rows
(``reference_call_rows``) as ``core/diff.py`` first built them, from full ``CallTrace.rows()``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from replay_tui.core.align import align
from replay_tui.core.sse import DONE
from replay_tui.core.trace import Trace, gc_paused
from replay_tui.core.translator import index_key, truthy
from replay_tui.core.wire import UNSET, decode_payload, js_string

__all__ = [
    "VOLATILE_KEYS",
    "EventDiff",
    "EventRow",
    "FieldDiff",
    "Streams",
    "align_events",
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

_decode = msgspec.json.Decoder().decode
_top = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode


# Pausing the cyclic collector while building large acyclic structures: one helper for the
# whole core (decoding 100,000 payloads with it running costs 3 s instead of 0.3 s).
no_gc = gc_paused


# --- what each payload contributes -----------------------------------------------------------


@dataclass(slots=True)
class Event:
    """One payload of a trace, as the event diff sees it."""

    index: int
    """Position in ``trace.payloads``; ``len(trace.payloads)`` for an implied ``[DONE]``."""
    line: int
    data: bytes
    replayed: bool
    pieces: list[Piece]
    chunk: bool = False
    """The payload is a chunk the harness reads (decoded again only when two differ: keeping
    every decoded chunk of two 100,000-payload traces cost thirteen times their size)."""

    @property
    def inert(self) -> bool:
        return self.pieces == [(INERT, None)]


@dataclass(slots=True)
class Run:
    """A unit of alignment: one mark, or everything one text channel received.

    A text channel is one run over the whole stream, whatever the payload boundaries and
    whatever comes between its pieces, so a stream split or interleaved differently still has
    the same runs; ``segs`` says which event contributed which characters.
    """

    channel: Channel
    is_text: bool
    parts: list[str] = field(default_factory=list)
    segs: list[tuple[int, int, int]] = field(default_factory=list)
    """``(event, start, end)``, in event order."""
    length: int = 0
    text: str = ""
    key: Hashable = None

    def text_before(self, event: int) -> str:
        """The text contributed by events before ``event`` (the replayed part)."""
        end = 0
        for ev, _, e in self.segs:
            if ev >= event:
                break
            end = e
        return self.text[:end]

    def event_at(self, offset: int, before: int | None = None) -> int | None:
        """The event that contributed the character at ``offset`` (else the last one before)."""
        last: int | None = None
        for ev, start, end in self.segs:
            if before is not None and ev >= before:
                break
            if start <= offset < end:
                return ev
            if start > offset:
                break
            last = ev
        return last


class Streams:
    """One trace cut into events, pieces, runs and channels (computed once, read by the diff)."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        payloads = trace.payloads
        outcome = next(iter(trace.analysis.outcomes.values()))
        n = len(payloads)
        # Replay stops at [DONE] or at the payload that made the harness fail.
        self.cut = n + 1 if outcome.position is None else outcome.position + 1
        self.calls: dict[Any, int] = {}
        self.call_wire: list[Any] = []
        events: list[Event] = []
        for i, (p, d) in enumerate(zip(payloads, trace.decoded, strict=True)):
            replayed = i < self.cut and not p.after_done
            chunk = d is not None and d.chunk is not None
            events.append(Event(i, p.line, p.data, replayed, self._pieces(p.after_done, d), chunk))
        if trace.implied_done:
            events.append(Event(n, trace.framing.lines, DONE, True, [(_DONE_MARK, None)]))
        self.events = events
        self.runs: list[Run] = []
        self.channels: dict[Channel, Run] = {}
        """The text runs by channel (``TEXT``, ``REASONING``, ``("args", k)``)."""
        self._cut_runs()

    def _pieces(self, after_done: bool, d: Any) -> list[Piece]:
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
                for call in delta.tool_calls or ():
                    idx = call.index
                    key = idx if type(idx) is int else index_key(idx)
                    k = self.calls.get(key)
                    if k is None:
                        k = self.calls[key] = len(self.call_wire)
                        self.call_wire.append(call.index)
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

    def _cut_runs(self) -> None:
        runs = self.runs
        channels = self.channels
        for ev in self.events:
            for channel, text in ev.pieces:
                if text is None:
                    # Payloads that contribute nothing are paired afterwards, by place.
                    if channel != INERT:
                        runs.append(Run(channel, False, segs=[(ev.index, 0, 0)], key=channel))
                    continue
                run = channels.get(channel)
                if run is None:
                    run = channels[channel] = Run(channel, True)
                    runs.append(run)
                end = run.length + len(text)
                run.parts.append(text)
                run.segs.append((ev.index, run.length, end))
                run.length = end
        for run in channels.values():
            run.text = "".join(run.parts)
            run.key = (run.channel, run.text)
            run.parts = []


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
    _fields: tuple[tuple[FieldDiff, ...], int] | None = field(default=None, repr=False)

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


@dataclass(slots=True)
class EventDiff:
    """Aligned rows covering every payload (and differing comment line) of both traces."""

    rows: list[EventRow]
    row_of_a: list[int]
    """For each A event index, the row it is in."""
    row_of_b: list[int]

    @property
    def differences(self) -> list[EventRow]:
        return [r for r in self.rows if r.status != "same"]


def align_events(sa: Streams, sb: Streams, *, include_volatile: bool = False) -> EventDiff:
    """Align the payloads of two traces on content and compare the aligned ones."""
    links: list[tuple[int, int]] = []
    ra, rb = sa.runs, sb.runs
    for tag, i1, i2, j1, j2 in align([r.key for r in ra], [r.key for r in rb]):
        if tag == "equal":
            for x, y in zip(ra[i1:i2], rb[j1:j2], strict=True):
                _link_runs(x, y, links)
        elif tag == "replace":
            _link_replaced(ra[i1:i2], rb[j1:j2], links)
    groups = _pair_gaps(sa, sb, _groups(links))
    rows, row_of_a, row_of_b = _rows(sa, sb, groups, include_volatile)
    rows, row_of_a, row_of_b = _with_comments(sa.trace, sb.trace, rows, row_of_a, row_of_b)
    return EventDiff(rows, row_of_a, row_of_b)


def _link_replaced(xs: list[Run], ys: list[Run], links: list[tuple[int, int]]) -> None:
    """Runs that differ: a channel's text against the same channel's, marks by kind."""
    texts = {r.channel: r for r in ys if r.is_text}
    for x in xs:
        y = texts.get(x.channel) if x.is_text else None
        if y is not None:
            _link_runs(x, y, links)
    ma = [r for r in xs if not r.is_text]
    mb = [r for r in ys if not r.is_text]
    for tag, i1, i2, j1, j2 in align([r.channel for r in ma], [r.channel for r in mb]):
        if tag == "equal":
            for x, y in zip(ma[i1:i2], mb[j1:j2], strict=True):
                _link_runs(x, y, links)


def _pair_gaps(sa: Streams, sb: Streams, groups: list[list[int]]) -> list[list[int]]:
    """Pair the events no content linked (keep-alives, identity-only deltas) by place: in
    each stretch between linked groups, those contributing exactly the same pieces."""
    ea, eb = sa.events, sb.events
    out: list[list[int]] = []
    prev_a = prev_b = -1
    for g in [*groups, [len(ea), len(ea), len(eb), len(eb)]]:
        ga = ea[prev_a + 1 : g[0]]
        gb = eb[prev_b + 1 : g[2]]
        if ga and gb:
            sig_a = [tuple(e.pieces) for e in ga]
            sig_b = [tuple(e.pieces) for e in gb]
            for tag, i1, i2, j1, j2 in align(sig_a, sig_b):
                if tag == "equal":
                    for x, y in zip(ga[i1:i2], gb[j1:j2], strict=True):
                        out.append([x.index, x.index, y.index, y.index])
        if g[0] < len(ea) or g[2] < len(eb):
            out.append(g)
        prev_a, prev_b = g[1], g[3]
    return out


def _link_runs(x: Run, y: Run, links: list[tuple[int, int]]) -> None:
    if not x.is_text or not y.is_text:
        links.append((x.segs[0][0], y.segs[0][0]))
        return
    ta, tb = x.text, y.text
    la, lb = len(ta), len(tb)
    p = _common_prefix(ta, tb)
    s = _common_suffix(ta, tb, min(la, lb) - p)
    # Equal stretches: link where character ranges overlap (B offsets mapped onto A's).
    _link_overlaps(_clip(x.segs, 0, p, 0), _clip(y.segs, 0, p, 0), links)
    if s:
        shift = la - lb
        _link_overlaps(_clip(x.segs, la - s, la, 0), _clip(y.segs, lb - s, lb, shift), links)
    # The differing middle: pair payloads in order.
    mid_a = _clip(x.segs, p, la - s, 0)
    mid_b = _clip(y.segs, p, lb - s, 0)
    links.extend((u[0], v[0]) for u, v in zip(mid_a, mid_b, strict=False))
    # Payloads that contribute nothing to the channel (an identity-only delta): pair those at
    # the same place in the equal stretches; the others stay one-sided.
    za = _zero(x.segs, p, la - s, la - la)
    zb = _zero(y.segs, p, lb - s, la - lb)
    i = j = 0
    while i < len(za) and j < len(zb):
        if za[i][0] == zb[j][0]:
            links.append((za[i][1], zb[j][1]))
            i += 1
            j += 1
        elif za[i][0] < zb[j][0]:
            i += 1
        else:
            j += 1


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


def _clip(
    segs: list[tuple[int, int, int]], lo: int, hi: int, shift: int
) -> list[tuple[int, int, int]]:
    """Non-empty segments cut to ``[lo, hi)``, moved by ``shift``."""
    out: list[tuple[int, int, int]] = []
    if hi <= lo:
        return out
    for ev, s, e in segs:
        if e <= lo or s == e:
            continue
        if s >= hi:
            break
        out.append((ev, max(s, lo) + shift, min(e, hi) + shift))
    return out


def _zero(
    segs: list[tuple[int, int, int]], mid_lo: int, mid_hi: int, shift: int
) -> list[tuple[int, int]]:
    """Empty segments outside the differing middle, as ``(offset, event)``; the suffix part is
    moved by ``shift`` into the other trace's coordinates."""
    out: list[tuple[int, int]] = []
    for ev, s, e in segs:
        if s != e:
            continue
        if s <= mid_lo:
            out.append((s, ev))
        elif s >= mid_hi:
            out.append((s + shift, ev))
    return out


def _link_overlaps(
    a: list[tuple[int, int, int]], b: list[tuple[int, int, int]], links: list[tuple[int, int]]
) -> None:
    i = j = 0
    while i < len(a) and j < len(b):
        ea, sa_, xa = a[i]
        eb, sb_, xb = b[j]
        if sa_ < xb and sb_ < xa:
            links.append((ea, eb))
        if xa < xb:
            i += 1
        elif xb < xa:
            j += 1
        else:
            i += 1
            j += 1


def _groups(links: list[tuple[int, int]]) -> list[list[int]]:
    """Connected, order-preserving groups ``[a_lo, a_hi, b_lo, b_hi]`` of linked events."""
    links.sort()
    stack: list[list[int]] = []
    for pa, pb in links:
        if stack and (pa <= stack[-1][1] or pb <= stack[-1][3]):
            top = stack[-1]
            top[1] = max(top[1], pa)
            top[2] = min(top[2], pb)
            top[3] = max(top[3], pb)
            while len(stack) > 1 and stack[-1][2] <= stack[-2][3]:
                last = stack.pop()
                prev = stack[-1]
                prev[1] = max(prev[1], last[1])
                prev[2] = min(prev[2], last[2])
                prev[3] = max(prev[3], last[3])
        else:
            stack.append([pa, pa, pb, pb])
    return stack


def _rows(
    sa: Streams, sb: Streams, groups: list[list[int]], include_volatile: bool
) -> tuple[list[EventRow], list[int], list[int]]:
    ea, eb = sa.events, sb.events
    rows: list[EventRow] = []
    row_of_a = [0] * len(ea)
    row_of_b = [0] * len(eb)
    ia = ib = 0
    drop = () if include_volatile else VOLATILE_KEYS

    def only(ev: Event, side: str) -> None:
        inert = ev.inert
        note = "contributes nothing the harness reads" if inert else _summary(ev.pieces)
        if side == "a":
            row_of_a[ev.index] = len(rows)
            rows.append(
                EventRow(
                    "only-a",
                    (ev.index,),
                    (),
                    (ev.line,),
                    (),
                    note=note,
                    inert=inert,
                    replayed=ev.replayed,
                )
            )
        else:
            row_of_b[ev.index] = len(rows)
            rows.append(
                EventRow(
                    "only-b",
                    (),
                    (ev.index,),
                    (),
                    (ev.line,),
                    note=note,
                    inert=inert,
                    replayed=ev.replayed,
                )
            )

    for a_lo, a_hi, b_lo, b_hi in groups:
        while ia < a_lo:
            only(ea[ia], "a")
            ia += 1
        while ib < b_lo:
            only(eb[ib], "b")
            ib += 1
        n = len(rows)
        if a_lo == a_hi and b_lo == b_hi:  # the common case, kept lean for 100,000 rows
            x, y = ea[a_lo], eb[b_lo]
            row_of_a[a_lo] = row_of_b[b_lo] = n
            da, db = x.data, y.data
            # What the harness reads differs: the payloads differ (no decoding needed).
            same = (
                da == db
                or not (x.chunk and y.chunk)
                or decode_payload(da).chunk == decode_payload(db).chunk
            ) and same_payload(da, db, drop)
            rows.append(
                EventRow(
                    "same" if same else "changed",
                    (a_lo,),
                    (b_lo,),
                    (x.line,),
                    (y.line,),
                    replayed=x.replayed or y.replayed,
                    pair=None if same else (da, db, drop),
                )
            )
            ia, ib = a_hi + 1, b_hi + 1
            continue
        ga, gb = ea[a_lo : a_hi + 1], eb[b_lo : b_hi + 1]
        for e in ga:
            row_of_a[e.index] = n
        for e in gb:
            row_of_b[e.index] = n
        replayed = any(e.replayed for e in ga) or any(e.replayed for e in gb)
        a_idx = tuple(e.index for e in ga)
        b_idx = tuple(e.index for e in gb)
        a_lines = tuple(e.line for e in ga)
        b_lines = tuple(e.line for e in gb)
        status = "split" if len(ga) == 1 else "merged" if len(gb) == 1 else "regrouped"
        same = _contribution(ga) == _contribution(gb)
        what = "same content" if same else "different content"
        note = f"{what}: {_payloads(len(ga))} vs {len(gb)}"
        rows.append(
            EventRow(
                status,
                a_idx,
                b_idx,
                a_lines,
                b_lines,
                note=note,
                same_content=same,
                replayed=replayed,
            )
        )
        ia, ib = a_hi + 1, b_hi + 1
    while ia < len(ea):
        only(ea[ia], "a")
        ia += 1
    while ib < len(eb):
        only(eb[ib], "b")
        ib += 1
    return rows, row_of_a, row_of_b


def _payloads(n: int) -> str:
    return f"{n} payload{'' if n == 1 else 's'}"


def _contribution(events: list[Event]) -> tuple[dict[Channel, str], list[Channel]]:
    texts: dict[Channel, list[str]] = {}
    marks: list[Channel] = []
    for ev in events:
        for channel, text in ev.pieces:
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
    return msgspec.json.encode(short).decode()


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
    if a is b:
        return True
    try:
        return bool(
            msgspec.json.encode(a, order="sorted") == msgspec.json.encode(b, order="sorted")
        )
    except (msgspec.EncodeError, RecursionError):
        return False


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
    raw = bytes(trace.raw)  # scanned line by line: a growing buffer must not change under it
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if raw.count(b"\r") != raw.count(b"\r\n"):  # lone CRs end lines too: go line by line
        return [
            (n, line.decode("utf-8", "replace"))
            for n, line in enumerate(raw.splitlines(), 1)
            if line[:1] == b":"
        ]
    out: list[tuple[int, str]] = []
    line, counted = 1, 0
    start = 0 if raw[:1] == b":" else raw.find(b"\n:")
    while start >= 0:
        if raw[start : start + 1] == b"\n":
            start += 1
        line += raw.count(b"\n", counted, start)
        counted = start
        end = raw.find(b"\n", start)
        if end < 0:
            end = len(raw)
        out.append((line, raw[start:end].rstrip(b"\r").decode("utf-8", "replace")))
        start = raw.find(b"\n:", end) if end < len(raw) else -1
    return out


def _with_comments(
    ta: Trace, tb: Trace, rows: list[EventRow], row_of_a: list[int], row_of_b: list[int]
) -> tuple[list[EventRow], list[int], list[int]]:
    """Insert rows for the comment lines one trace has and the other lacks."""
    ca, cb = _comments(ta), _comments(tb)
    if not ca and not cb:
        return rows, row_of_a, row_of_b
    extra_a: list[tuple[int, str]] = []
    extra_b: list[tuple[int, str]] = []
    for tag, i1, i2, j1, j2 in align([t for _, t in ca], [t for _, t in cb]):
        if tag != "equal":
            extra_a.extend(ca[i1:i2])
            extra_b.extend(cb[j1:j2])
    if not extra_a and not extra_b:
        return rows, row_of_a, row_of_b
    # Rows are in each side's payload order, so each side's first lines increase.
    firsts = {
        "a": [(r, row.a_lines[0]) for r, row in enumerate(rows) if row.a_lines],
        "b": [(r, row.b_lines[0]) for r, row in enumerate(rows) if row.b_lines],
    }
    first_lines = {side: [n for _, n in pairs] for side, pairs in firsts.items()}
    inserts: list[tuple[int, int, EventRow]] = []  # (before row, order, row)
    for side, extra in (("a", extra_a), ("b", extra_b)):
        for block in _blocks(extra):
            lines = tuple(n for n, _ in block)
            at = bisect_right(first_lines[side], lines[-1])
            before = firsts[side][at][0] if at < len(firsts[side]) else len(rows)
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
    out: list[EventRow] = []
    new_index = [0] * (len(rows) + 1)
    k = 0
    for r in range(len(rows) + 1):
        while k < len(inserts) and inserts[k][0] == r:
            out.append(inserts[k][2])
            k += 1
        new_index[r] = len(out)
        if r < len(rows):
            out.append(rows[r])
    return out, [new_index[r] for r in row_of_a], [new_index[r] for r in row_of_b]


def _blocks(comments: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Comments on consecutive lines (or separated only by blank lines) grouped together."""
    blocks: list[list[tuple[int, str]]] = []
    for n, text in comments:
        if blocks and n - blocks[-1][-1][0] <= 2:
            blocks[-1].append((n, text))
        else:
            blocks.append([(n, text)])
    return blocks


# --- the call rows, as core/diff.py first built them ---------------------------------------

_ROW_ATTRS = (
    "raw_id",
    "raw_name",
    "arguments",
    "id_accept",
    "name_accept",
    "id_assign",
    "name_assign",
)
_LABELS = (
    "raw id",
    "raw name",
    "arguments",
    "id (accept-identity)",
    "name (accept-identity)",
    "id (assign-always)",
    "name (assign-always)",
)
_STRICT_EQ_TYPES = (str, type(UNSET), type(None))


def reference_call_rows(
    xa: Any, xb: Any, events: EventDiff, same: Any
) -> list[tuple[str, Any, Any, tuple[str, ...]]]:
    """``(status, A's DeltaRow, B's DeltaRow, changes)`` per row (``same``: strict equality)."""
    ra = xa.rows() if xa is not None else []
    rb = xb.rows() if xb is not None else []
    row_a, row_b = events.row_of_a, events.row_of_b
    rows = events.rows
    out: list[tuple[str, Any, Any, tuple[str, ...]]] = []
    i = j = 0
    end = len(rows) + 1
    while i < len(ra) or j < len(rb):
        ka = row_a[ra[i].position] if i < len(ra) else end
        kb = row_b[rb[j].position] if j < len(rb) else end
        if ka == kb:
            x, y = ra[i], rb[j]
            i += 1
            j += 1
            vx = tuple(getattr(x, a) for a in _ROW_ATTRS)
            vy = tuple(getattr(y, a) for a in _ROW_ATTRS)
            if vx == vy and all(type(v) in _STRICT_EQ_TYPES for v in vx):
                out.append(("same", x, y, ()))
                continue
            skip = -1 if rows[ka].status in ("same", "changed") else 2
            changes = tuple(
                _LABELS[n]
                for n, (u, v) in enumerate(zip(vx, vy, strict=True))
                if n != skip and not same(u, v)
            )
            out.append(("changed" if changes else "same", x, y, changes))
        elif ka < kb:
            out.append(("only-a", ra[i], None, ()))
            i += 1
        else:
            out.append(("only-b", None, rb[j], ()))
            j += 1
    return out
