"""The compact event alignment gives what the straightforward one gave, row for row.

The alignment keeps index arrays and makes rows when asked (a 100,000-payload pair would
otherwise hold a copy of every payload and its pieces); :mod:`.reference_events` is the
object-per-payload version it replaced, kept as the oracle. The golden traces and the diff
fixtures (each against itself and a few others), and hypothesis-made pairs of streams (re-chunked, edited, with keep-alives,
comments, text, reasoning, several calls, errors, malformed lines, data after ``[DONE]``, a
missing ``[DONE]``) must give the same rows, the same event-to-row maps, the same call rows
and the same outcomes.
"""

from __future__ import annotations

import json
import random
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay_tui.core.diff import TraceDiff, diff_traces
from replay_tui.core.diff_events import TextRun
from replay_tui.core.discovery import discover
from replay_tui.core.trace import Trace, load_trace
from replay_tui.core.translator import Behavior

from . import reference_events as ref
from .helpers import trace_of

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = [ROOT / "tests" / "data" / "corpus", ROOT / "tests" / "data" / "diff", ROOT / "traces"]


def _traces() -> list[Trace]:
    found = discover([p for p in CORPUS if p.exists()])
    return [load_trace(s) for s in found.sources]


TRACES = _traces()

_ROW_FIELDS = (
    "status",
    "a",
    "b",
    "a_lines",
    "b_lines",
    "kind",
    "note",
    "same_content",
    "inert",
    "replayed",
)


def _row(row: Any) -> tuple[Any, ...]:
    values = tuple(getattr(row, f) for f in _ROW_FIELDS)
    fields = tuple((f.path, f.a, f.b) for f in row.fields)  # the reference has its own class
    return (*values, fields, row.more_fields)


def assert_same_as_reference(a: Trace, b: Trace, include_volatile: bool = False) -> TraceDiff:
    """The product's diff of ``a`` and ``b`` against the reference alignment."""
    d = diff_traces(a, b, include_volatile=include_volatile)
    sa, sb = ref.Streams(a), ref.Streams(b)
    expected = ref.align_events(sa, sb, include_volatile=include_volatile)
    rows = d.events.rows
    assert len(rows) == len(expected.rows)
    assert [_row(r) for r in rows] == [_row(r) for r in expected.rows]
    assert [d.events.row_of_a(i) for i in range(len(expected.row_of_a))] == expected.row_of_a
    assert [d.events.row_of_b(i) for i in range(len(expected.row_of_b))] == expected.row_of_b
    assert [_row(r) for r in d.events.differences] == [
        _row(r) for r in expected.rows if r.status != "same"
    ]
    assert d.events.changed_count == sum(1 for r in expected.rows if r.status != "same")
    assert d.events.same_runs(3) == _runs([r.status == "same" for r in expected.rows])
    from replay_tui.core.diff import _same

    for cd in d.calls:
        want = ref.reference_call_rows(cd.a, cd.b, expected, _same)
        got = [(r.status, r.a, r.b, r.changes) for r in cd.rows]
        assert got == want
        assert cd.changed_count == sum(1 for r in want if _changed(r))
        assert cd.rows.same_runs(3) == _runs([r[0] == "same" for r in want])
        assert [cd.rows[k] for k in cd.rows.changed_indexes] == cd.changed_rows
        assert cd.changed == (bool(cd.differences) or any(_changed(r) for r in want))
    for behavior in Behavior:
        assert d.outcome(behavior).a == _reference_outcome(a, sa, behavior)
        assert d.outcome(behavior).b == _reference_outcome(b, sb, behavior)
    return d


def _runs(same: list[bool], least: int = 3) -> list[tuple[int, int]]:
    """``[start, end)`` of every run of at least ``least`` true values (as the compare model
    first found its foldable runs, from every row's status)."""
    runs: list[tuple[int, int]] = []
    start = None
    for k, s in enumerate([*same, False]):
        if s and start is None:
            start = k
        elif not s and start is not None:
            if k - start >= least:
                runs.append((start, k))
            start = None
    return runs


def _changed(r: tuple[str, Any, Any, tuple[str, ...]]) -> bool:
    status, x, y, _ = r
    if status == "same":
        return False
    if status == "changed":
        return True
    row = x if y is None else y
    from replay_tui.core.wire import UNSET

    return not (row.raw_id is UNSET and row.raw_name is UNSET)


def _reference_outcome(trace: Trace, streams: ref.Streams, behavior: Behavior) -> Any:
    """The agent's outcome read from the reference streams, as ``core/diff.py`` first did."""
    from replay_tui.core.diff import AgentOutcome, Block
    from replay_tui.core.translator import usage_chunk
    from replay_tui.core.wire import UNSET

    analysis = trace.analysis
    result = analysis.outcomes[behavior]
    events = streams.events
    closed = analysis.done and result.verdict != "malformed-tool-call"
    blocks: list[Block] = []
    seen: set[Any] = set()
    usage_event = finish_event = None
    for ev in events[: streams.cut]:
        if not ev.replayed:
            break
        for channel, _ in ev.pieces:
            kind = channel[0]
            if kind in ("text", "reasoning", "call") and channel not in seen:
                seen.add(channel)
                if kind != "call":
                    run = streams.channels.get(channel)
                    text = run.text_before(streams.cut) if run is not None else ""
                    blocks.append(Block(kind, len(blocks), ev.line, closed, text))
                    continue
                k = channel[1]
                ct = analysis.calls[k]
                cid, name = ct.final(behavior)
                if closed:
                    cid = "" if cid is UNSET or cid is None else cid
                    name = "" if name is UNSET or name is None else name
                blocks.append(
                    Block("tool-call", len(blocks), ev.line, closed, ct.arguments, k, cid, name)
                )
            elif kind == "usage":
                usage_event = ev
            elif kind == "finish":
                finish_event = ev
    usage = usage_line = None
    if analysis.done and usage_event is not None:
        decoded = trace.decoded[usage_event.index]
        if decoded is not None and decoded.chunk is not None:
            usage = usage_chunk(decoded.chunk.usage)["usage"]
            usage_line = usage_event.line
    finish = result.finish
    code = finish.get("failure", {}).get("code") if finish.get("kind") == "error" else None
    if code == "STREAM_CLOSED":
        finish_line = None
    elif code in ("MALFORMED_RESPONSE", "UNKNOWN") and result.position is not None:
        finish_line = events[result.position].line
    elif finish_event is not None and code != "MALFORMED_TOOL_CALL":
        finish_line = finish_event.line
    else:
        finish_line = events[result.position].line if result.position is not None else None
    return AgentOutcome(behavior, result.verdict, blocks, usage, usage_line, finish, finish_line)


# --- the golden traces ---------------------------------------------------------------------


PARTNERS = 4


@pytest.mark.parametrize("a", TRACES, ids=[t.address for t in TRACES])
def test_golden_pairs_align_as_the_reference_does(a: Trace) -> None:
    # Each trace against itself and a few others (drawn, the same every run): every pair of
    # the ~75 would take minutes and find nothing more.
    rng = random.Random(a.address)
    for b in [a, *rng.sample(TRACES, PARTNERS)]:
        assert_same_as_reference(a, b)


def test_volatile_keys_included_align_as_the_reference_does() -> None:
    for a in TRACES[:6]:
        for b in TRACES[:6]:
            assert_same_as_reference(a, b, include_volatile=True)


# --- made-up streams -----------------------------------------------------------------------

_ENV = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def _chunk(choices: list[Any], **extra: Any) -> str:
    return "data: " + json.dumps({**_ENV, "choices": choices, **extra}) + "\n\n"


def _delta(delta: dict[str, Any], finish: Any = None) -> str:
    return _chunk([{"index": 0, "delta": delta, "finish_reason": finish}])


_IDS = st.sampled_from([None, "", "call_1", "call_2", 7, "absent"])
_NAMES = st.sampled_from([None, "", "f", "g", "null", "absent"])
_TEXT = st.text('ab{}":, é\n', max_size=5)
# Strategies made once, not in each draw (hypothesis validates each new one again).
_INDEXES = st.sampled_from([0, 0, 1, 2, "0", None])
_OPS = st.sampled_from(["drop", "insert", "replace", "swap"])
_TAILS = st.sampled_from(["data: [DONE]\n\n", "", "data: [DONE]\n\n" + _chunk([])])


@st.composite
def _tool(draw: st.DrawFn) -> str:
    call: dict[str, Any] = {"index": draw(_INDEXES)}
    cid, name = draw(_IDS), draw(_NAMES)
    if cid != "absent":
        call["id"] = cid
    fn: dict[str, Any] = {"arguments": draw(_TEXT)}
    if name != "absent":
        fn["name"] = name
    call["function"] = fn
    if call["index"] is None:
        del call["index"]
    calls = [call] * draw(st.integers(1, 2))
    return _delta({"tool_calls": calls})


_EVENT = st.one_of(
    _tool(),
    _tool(),
    _tool(),
    _TEXT.map(lambda t: _delta({"content": t})),
    _TEXT.map(lambda t: _delta({"reasoning_content": t})),
    st.just(_chunk([])),
    st.just(_delta({}, "tool_calls")),
    st.just(_delta({}, "")),
    st.just(_chunk([], usage={"prompt_tokens": 1, "total_tokens": 2})),
    st.just(_chunk([], error={"message": "boom"})),
    st.just(": keep-alive\n\n"),
    st.just(": OPENROUTER PROCESSING\n\n"),
    st.just("data: not json\n\n"),
    st.just('data: {"choices": 3}\n\n'),
    st.just("data: [DONE]\n\n"),
)


_EVENTS = st.lists(_EVENT, max_size=14)


@st.composite
def _pair(draw: st.DrawFn) -> tuple[bytes, bytes]:
    base = draw(_EVENTS)
    other = list(base)
    for _ in range(draw(st.integers(0, 4))):
        op = draw(_OPS)
        if op == "insert" or not other:
            other.insert(draw(st.integers(0, len(other))), draw(_EVENT))
        elif op == "drop":
            del other[draw(st.integers(0, len(other) - 1))]
        elif op == "replace":
            other[draw(st.integers(0, len(other) - 1))] = draw(_EVENT)
        elif len(other) > 1:
            k = draw(st.integers(0, len(other) - 2))
            other[k], other[k + 1] = other[k + 1], other[k]
    return ("".join(base) + draw(_TAILS)).encode(), ("".join(other) + draw(_TAILS)).encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_pair())
def test_made_up_pairs_align_as_the_reference_does(pair: tuple[bytes, bytes]) -> None:
    a, b = trace_of(pair[0], "a.sse"), trace_of(pair[1], "b.sse")
    assert_same_as_reference(a, b)
    assert_same_as_reference(b, a)
    assert_same_as_reference(a, a)


@settings(max_examples=60, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=10), st.data())
def test_rechunked_arguments_align_as_the_reference_does(
    fragments: list[str], data: st.DataObject
) -> None:
    text = "".join(fragments)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=len(text) + 1)))
    pieces = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    first = {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}

    def body(parts: list[str]) -> bytes:
        events = [_delta({"tool_calls": [first]})]
        events += [
            _delta({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in parts
        ]
        return ("".join(events) + _delta({}, "tool_calls") + "data: [DONE]\n\n").encode()

    assert_same_as_reference(trace_of(body(fragments)), trace_of(body(pieces)))


# --- the packed segments of a text run -----------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0, 0, 1, 1, 2, 254, 255, 256, 70_000]), st.integers(0, 600)),
        min_size=1,
        max_size=300,
    ),
    st.integers(-1, 100_000),
    st.integers(-1, 2_000),
)
def test_a_text_runs_packed_segments_read_back_as_added(
    pieces: list[tuple[int, int]], event: int, offset: int
) -> None:
    run = TextRun(("args", 0), "i")
    plain: list[tuple[int, int, int]] = []
    ev = end = 0
    for step, length in pieces:
        ev += step
        plain.append((ev, end, end + length))
        run.add(ev, length)
        end += length
    run.text = "x" * end
    assert list(run.segs()) == plain
    assert run.first_event == plain[0][0]
    assert list(run.segs_after(offset)) == [s for s in plain if s[2] > offset]
    before = max((e for ev_, _, e in plain if ev_ < event), default=0)
    assert run.text_before(event) == run.text[:before]
    last = None
    found = None
    for ev_, s, e in plain:
        if s <= offset < e:
            found = ev_
            break
        if s > offset:
            break
        last = ev_
    assert run.event_at(offset) == (found if found is not None else last)


def test_long_rechunked_streams_align_as_the_reference_does() -> None:
    # Hundreds of segments per run: the packed segments' checkpoints are crossed.
    first = {"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}
    fragments = [f"part{k}/" + "y" * (k % 300) for k in range(400)]

    def body(parts: list[str], keepalive: int) -> bytes:
        events = [_delta({"tool_calls": [first]})]
        for k, p in enumerate(parts):
            if keepalive and k % keepalive == 0:
                events.append(_chunk([]))
            events.append(_delta({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}))
        return ("".join(events) + _delta({}, "tool_calls") + "data: [DONE]\n\n").encode()

    text = "".join(fragments)
    rechunked = [text[k : k + 97] for k in range(0, len(text), 97)]
    edited = list(fragments)
    edited[200] = "changed/"
    a = trace_of(body(fragments, 0))
    for b in (trace_of(body(rechunked, 7)), trace_of(body(edited, 0)), a):
        d = assert_same_as_reference(a, b)
        assert d.events.rows


@st.composite
def _interleaved(draw: st.DrawFn) -> bytes:
    """Text, reasoning and two calls' arguments, each cut at drawn places and interleaved in
    a drawn order: two draws of one content make crossing links, groups that merge."""
    texts = {
        "content": "hello there",
        "reasoning_content": "thinking…",
        0: '{"a": 1}',
        1: '{"b": [2, 3]}',
    }
    queues: list[list[tuple[Any, str]]] = []
    for channel, text in texts.items():
        cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=4)))
        bounds = [0, *cuts, len(text)]
        queues.append([(channel, text[i:j]) for i, j in pairwise(bounds)])
    events: list[str] = []
    opened: set[Any] = set()
    while any(queues):
        q = draw(st.sampled_from([q for q in queues if q]))
        channel, piece = q.pop(0)
        if isinstance(channel, str):
            events.append(_delta({channel: piece}))
            continue
        call: dict[str, Any] = {"index": channel, "function": {"arguments": piece}}
        if channel not in opened:
            opened.add(channel)
            call.update(id=f"call_{channel}", type="function")
            call["function"]["name"] = "f"
        events.append(_delta({"tool_calls": [call]}))
    return ("".join(events) + _delta({}, "tool_calls") + "data: [DONE]\n\n").encode()


@settings(max_examples=150, deadline=None)
@given(_interleaved(), _interleaved())
def test_interleaved_rechunked_channels_align_as_the_reference_does(a: bytes, b: bytes) -> None:
    assert_same_as_reference(trace_of(a), trace_of(b))
