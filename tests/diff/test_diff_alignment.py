"""Event alignment: content-based, robust to re-chunking, and linear-ish on big traces."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay_tui.core.align import align
from replay_tui.core.diff import diff_traces
from replay_tui.core.discovery import discover
from replay_tui.core.trace import Trace, load_trace
from replay_tui.core.translator import Behavior

from .helpers import finish, sse, tool_delta, trace_of

ROOT = Path(__file__).resolve().parent.parent.parent
BUNDLED = [ROOT / "traces", ROOT / "tests" / "data" / "corpus", ROOT / "tests" / "data" / "diff"]


def _all_traces() -> list[Trace]:
    found = discover([p for p in BUNDLED if p.exists()])
    return [load_trace(s) for s in found.sources]


TRACES = _all_traces()


# --- align() -----------------------------------------------------------------------------------


def _check_opcodes(a: list[Any], b: list[Any]) -> list[tuple[str, int, int, int, int]]:
    ops = align(a, b)
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j), "opcodes must cover both sequences in order"
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
    return ops


@given(st.lists(st.integers(0, 5), max_size=40), st.lists(st.integers(0, 5), max_size=40))
def test_align_covers_both_sequences(a: list[int], b: list[int]) -> None:
    _check_opcodes(a, b)


def test_align_big_inputs_resynchronise_after_insertions() -> None:
    # Beyond SequenceMatcher's size the patience path runs: unique keys anchor the matching.
    a = [f"k{i}" for i in range(60_000)]
    b = list(a)
    for at in (10, 20_000, 45_000):
        b.insert(at, "keep-alive")
    del b[30_000]
    start = time.perf_counter()
    ops = _check_opcodes(a, b)
    assert time.perf_counter() - start < 5
    equal = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    assert equal == len(a) - 1


def test_align_repeated_keys_stay_fast() -> None:
    a = ["x"] * 30_000
    b = ["x"] * 29_000 + ["y"] + ["x"] * 1_000
    start = time.perf_counter()
    _check_opcodes(a, b)
    assert time.perf_counter() - start < 5


# --- re-chunking never changes the outcome nor cascades ----------------------------------------


@st.composite
def rechunked(draw: st.DrawFn) -> tuple[list[str], list[list[str]], list[int], list[int]]:
    """Argument fragments, a re-chunking of their concatenation, and where B inserts noise."""
    fragments = draw(st.lists(st.text('ab{}":, ', min_size=1, max_size=6), min_size=1, max_size=12))
    text = "".join(fragments)
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=len(text))))
    pieces = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True) if text[i:j]]
    keepalives = draw(st.lists(st.integers(0, len(pieces)), max_size=3))
    comments = draw(st.lists(st.integers(0, len(pieces)), max_size=3))
    return fragments, [pieces], keepalives, comments


@settings(max_examples=150, deadline=None)
@given(rechunked())
def test_rechunking_and_keepalives_change_only_the_events(
    case: tuple[list[str], list[list[str]], list[int], list[int]],
) -> None:
    fragments, [pieces], keepalives, comments = case
    events_a: list[dict[str, Any] | str] = [tool_delta("", first=True)]
    events_a += [tool_delta(f) for f in fragments]
    events_a.append(finish())
    events_b: list[dict[str, Any] | str] = [tool_delta("", first=True)]
    for n, piece in enumerate(pieces):
        events_b += [{"choices": []}] * keepalives.count(n)
        events_b += [": keep-alive"] * comments.count(n)
        events_b.append(tool_delta(piece))
    events_b.append(finish())
    a, b = trace_of(sse(events_a, 1)), trace_of(sse(events_b, 2))
    d = diff_traces(a, b)
    for behavior in Behavior:
        assert d.outcome(behavior).same
    for row in d.events.rows:
        # Only reframing and harmless insertions, never a changed or missing piece of content.
        assert row.status in ("same", "split", "merged", "regrouped", "only-b"), row
        assert row.same_content, row
        if row.status == "only-b":
            assert row.inert, row
    # Nothing cascades: the finish and [DONE] pair with their counterparts.
    assert [r.status for r in d.events.rows[-2:]] == ["same", "same"]
    assert not d.calls[0].changed_rows


def test_a_changed_fragment_in_the_middle_does_not_cascade() -> None:
    fragments = [f'"k{i}": {i}, ' for i in range(50)]
    other = list(fragments)
    other[25] = '"k25": 99, '
    a = trace_of(sse([tool_delta("", first=True), *map(tool_delta, fragments), finish()]))
    b = trace_of(sse([tool_delta("", first=True), *map(tool_delta, other), finish()], 2))
    d = diff_traces(a, b)
    [row] = d.events.differences
    assert row.status == "changed" and row.a == row.b == (26,)
    assert [x.what for x in d.outcome().differences] == ["call 0 arguments"]


# --- every bundled trace against itself, and the outcome against the translator -------------


@pytest.mark.parametrize("trace", TRACES, ids=[t.address for t in TRACES])
def test_a_trace_against_itself_is_the_same_at_every_level(trace: Trace) -> None:
    d = diff_traces(trace, trace)
    for behavior in Behavior:
        assert d.outcome(behavior).same
    assert d.events.differences == []
    assert d.changed_calls == []


@pytest.mark.parametrize("trace", TRACES, ids=[t.address for t in TRACES])
def test_the_outcome_is_what_the_translator_emits(trace: Trace) -> None:
    d = diff_traces(trace, trace)
    for behavior in Behavior:
        outcome = d.outcome(behavior).a
        chunks = [c for _, c in trace.replay(behavior)]
        closed = [c["block"] for c in chunks if c["type"] == "block-end"]
        mine: list[dict[str, Any]] = []
        for block in outcome.blocks:
            if not block.closed:
                continue
            if block.kind == "tool-call":
                mine.append(
                    {
                        "type": "tool-call",
                        "id": block.id,
                        "name": block.name,
                        "arguments": block.text,
                    }
                )
            else:
                mine.append({"type": block.kind, "text": block.text})
        assert mine == closed
        assert outcome.finish == chunks[-1]["reason"]
        usage = [c["usage"] for c in chunks if c["type"] == "usage"]
        assert outcome.usage == (usage[0] if usage else None)
        started = [c["blockType"] for c in chunks if c["type"] == "block-start"]
        assert [b.kind for b in outcome.blocks] == started


def test_every_pair_of_bundled_traces_diffs_without_error() -> None:
    rng = random.Random(7)
    pairs = [(rng.choice(TRACES), rng.choice(TRACES)) for _ in range(300)]
    for a, b in pairs:
        d = diff_traces(a, b)
        for behavior in Behavior:
            od = d.outcome(behavior)
            assert od.same == (not od.differences)
            for x in od.differences:
                assert "\x1b" not in x.text()
        for row in d.events.differences:
            row.fields  # noqa: B018 - computed on demand; must not raise
        for c in d.calls:
            c.changed_rows  # noqa: B018


# --- big traces ------------------------------------------------------------------------------


def _big(deltas: int, *, gateway: bool) -> bytes:
    """A one-call stream of ``deltas`` continuation deltas (written by template: fast)."""
    extra = '"id":"","type":"function",' if gateway else ""
    env = f'{{"id":"chatcmpl-{int(gateway)}","object":"chat.completion.chunk","created":1,'
    head = sse([tool_delta("", first=True)], int(gateway), done=False)
    body = "".join(
        f'data: {env}"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,{extra}'
        f'"function":{{"arguments":"part{k}/"}}}}]}},"finish_reason":null}}]}}\n\n'
        for k in range(deltas)
    )
    return head + body.encode() + sse([finish()], int(gateway))


def test_a_long_diff_pairs_every_delta_row() -> None:
    """Every one of 10,000 continuation deltas differs (the gateway adds ``"id":""``): each is
    paired with its counterpart, not realigned, and the outcome differs by the one id. That the
    time stays linear is measured where timing belongs, on 100,000 deltas:
    ``python bench/compare_build.py --changed`` (1.2 s for ``diff_traces``)."""
    a = trace_of(_big(10_000, gateway=False))
    b = trace_of(_big(10_000, gateway=True))
    d = diff_traces(a, b)
    od = d.outcome(Behavior.ASSIGN_ALWAYS)
    rows = d.calls[0].changed_rows
    assert len(d.events.rows) == 10_003
    assert len(d.events.differences) == 10_000
    assert len(rows) == 10_000
    assert [x.what for x in od.differences] == ["call 0 id"]
    assert d.outcome(Behavior.ACCEPT_IDENTITY).same
