"""The compact event alignment gives what the straightforward one gave, row for row.

The alignment keeps index arrays and makes rows when asked (a 100,000-payload pair would
otherwise hold a copy of every payload and its pieces). What the object-per-payload version it
replaced gave is frozen in ``tests/data/diff/reference-rows.json.gz`` (:mod:`.frozen`): the
golden traces and the diff fixtures (each against itself and a few others), pairs of made-up
streams (re-chunked, edited, with keep-alives, comments, text, reasoning, several calls, errors,
malformed lines, data after ``[DONE]``, a missing ``[DONE]``), streams whose channels are cut
and interleaved differently, and long re-chunked arguments. Each must give the same rows, the
same event-to-row maps, the same call rows and the same outcomes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay_tui.core.diff import AgentOutcome, TraceDiff, diff_traces
from replay_tui.core.diff_events import TextRun
from replay_tui.core.discovery import discover
from replay_tui.core.trace import Trace, load_trace
from replay_tui.core.translator import Behavior

from .frozen import encode, load, trace_key
from .helpers import trace_of

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = [ROOT / "tests" / "data" / "corpus", ROOT / "tests" / "data" / "diff", ROOT / "traces"]


def _traces() -> dict[str, Trace]:
    found = discover([p for p in CORPUS if p.exists()])
    traces = [load_trace(s) for s in found.sources]
    return {trace_key(t): t for t in traces}


TRACES = _traces()
CASES = load()

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


def _row(row: Any) -> Any:
    values = tuple(getattr(row, f) for f in _ROW_FIELDS)
    fields = tuple((f.path, f.a, f.b) for f in row.fields)
    return encode((*values, fields, row.more_fields))


def _outcome(o: AgentOutcome) -> Any:
    blocks = [[b.kind, b.index, b.line, b.closed, b.text, b.call, b.id, b.name] for b in o.blocks]
    return encode(
        [o.behavior.value, o.verdict, blocks, o.usage, o.usage_line, o.finish, o.finish_line]
    )


def assert_as_frozen(case: dict[str, Any]) -> TraceDiff:
    """The product's diff of a frozen case's traces against the rows frozen for it."""
    a = TRACES.get(case["a"]) or trace_of(case["a"].encode(), "a.sse")
    b = TRACES.get(case["b"]) or trace_of(case["b"].encode(), "b.sse")
    want = case["want"]
    d = diff_traces(a, b, include_volatile=case["volatile"])
    rows = d.events.rows
    assert [_row(r) for r in rows] == want["rows"]
    assert [d.events.row_of_a(i) for i in range(len(want["row_of_a"]))] == want["row_of_a"]
    assert [d.events.row_of_b(i) for i in range(len(want["row_of_b"]))] == want["row_of_b"]
    statuses = [r[0] for r in want["rows"]]
    assert [_row(r) for r in d.events.differences] == [r for r in want["rows"] if r[0] != "same"]
    assert d.events.changed_count == sum(1 for s in statuses if s != "same")
    assert d.events.same_runs(3) == _runs([s == "same" for s in statuses])
    assert len(d.calls) == len(want["calls"])
    for cd, want_rows in zip(d.calls, want["calls"], strict=True):
        got = [
            [
                r.status,
                None if r.a is None else [r.a.delta, r.a.line],
                None if r.b is None else [r.b.delta, r.b.line],
                list(r.changes),
            ]
            for r in cd.rows
        ]
        assert got == want_rows
        changed = [_changed(r) for r in cd.rows]
        assert cd.changed_count == sum(changed)
        assert cd.rows.same_runs(3) == _runs([r[0] == "same" for r in want_rows])
        assert [cd.rows[k] for k in cd.rows.changed_indexes] == cd.changed_rows
        assert cd.changed == (bool(cd.differences) or any(changed))
    for behavior in Behavior:
        outcome = d.outcome(behavior)
        assert [_outcome(outcome.a), _outcome(outcome.b)] == want["outcomes"][behavior.value]
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


def _changed(r: Any) -> bool:
    """A call row that counts as a change: changed, or one-sided and carrying identity."""
    if r.status == "same":
        return False
    if r.status == "changed":
        return True
    row = r.a if r.b is None else r.b
    from replay_tui.core.wire import UNSET

    return not (row.raw_id is UNSET and row.raw_name is UNSET)


def test_every_golden_trace_and_fixture_is_frozen() -> None:
    frozen = {c["a"] for c in CASES if c["a"] in TRACES}
    assert frozen == set(TRACES), "a trace was added or renamed: freeze its rows"


@pytest.mark.parametrize("k", range(len(CASES)))
def test_pairs_align_as_the_straightforward_alignment_did(k: int) -> None:
    assert_as_frozen(CASES[k])


_ENV = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def _chunk(choices: list[Any], **extra: Any) -> str:
    return "data: " + json.dumps({**_ENV, "choices": choices, **extra}) + "\n\n"


def _delta(delta: dict[str, Any], finish: Any = None) -> str:
    return _chunk([{"index": 0, "delta": delta, "finish_reason": finish}])


_TEXT = st.text('ab{}":, é\n', max_size=5)


@settings(max_examples=60, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=10), st.data())
def test_rechunked_arguments_are_the_same_arguments(
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

    d = diff_traces(trace_of(body(fragments)), trace_of(body(pieces)))
    for behavior in Behavior:
        outcome = d.outcome(behavior)
        assert [b.text for b in outcome.a.blocks] == [b.text for b in outcome.b.blocks] == [text]
    assert all(r.same_content for r in d.events.rows)


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
    # From any checkpoint (every 64 segments) and with a cut: the same segments.
    for c in range(0, (len(plain) + 63) // 64):
        assert list(run.segs(c)) == plain[64 * c :]
    hit = None
    for ev_, s, e in plain:
        if ev_ >= event or s > offset:
            break
        hit = ev_
        if offset < e:
            break
    assert run.event_at(offset, event) == hit


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 2**40), max_size=40), min_size=1, max_size=400),
    st.sampled_from([1, 3, 64, 8192]),
)
def test_links_are_read_in_order_whatever_their_runs(runs: list[list[int]], block: int) -> None:
    """The links come in ascending runs; however many runs there are (a few merged as read,
    many sorted a block at a time and the blocks merged), they are read back sorted."""
    from array import array

    from replay_tui.core import diff_events

    links = array("q", [x for run in runs for x in sorted(run)])
    expected = sorted(links)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(diff_events, "_SORTED_BLOCK", block)
        assert list(diff_events._sorted(links)) == expected
