"""The single pass the product runs is held to the identity rule, applied delta by delta.

:class:`~replay_tui.core.translator.Translator` applies :func:`takes_identity` to every wire
delta with no fast path; the product runs the single pass (:class:`~.identity.Analyzer`, which
skips what cannot change anything) and re-derives the chunks from its record
(:class:`~.stream.ChunkStream`). On generated streams whose ids and names are drawn from small
pools, so that they repeat, change mid-stream, go empty, null or non-string and come back, the
two must give the same chunks, verdicts, flags and final identities. The literal expectations
below (hand-computed, no product code in them) pin what a shared piece could get wrong in both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from replay_tui.core.stream import BehaviorPairs
from replay_tui.core.trace import Trace
from replay_tui.core.translator import Behavior, Chunk, is_identity, js_head, takes_identity
from replay_tui.core.translator import replay as translate
from replay_tui.core.verdicts import (
    VERDICTS,
    consequence,
    describe,
    is_clean,
    unidentified,
    verdict,
    verdict_of_chunks,
)
from replay_tui.core.wire import UNSET

from .helpers import ENVELOPE, call, chunk, chunks, examples, sse, tools, trace_of

AA, AI = Behavior.ASSIGN_ALWAYS, Behavior.ACCEPT_IDENTITY
CAPTURES = sorted((Path(__file__).parent.parent / "data" / "corpus").glob("*.sse"))
ABSENT = object()
IDS = st.sampled_from([ABSENT, ABSENT, None, "", "a", "a", "b", 7, "null", [1]])
NAMES = st.sampled_from([ABSENT, ABSENT, None, "", "f", "f", "g", 0, "null", {"x": 1}])
ARGS = st.sampled_from([ABSENT, None, "", "{", '"k":1', "}", 5])
INDEXES = st.sampled_from([0, 0, 1, 1.0, "0", True, None, ABSENT, [0]])
COUNTS = st.sampled_from([ABSENT, 0, 3, 10, 2.0, 2.5, -1, "4", None])
FINISHES = st.sampled_from(["stop", "tool_calls", "length", "", "content_filter", None, 3])
TEXTS = st.sampled_from(["", "x", None, 1])
KINDS = st.sampled_from(["tools"] * 6 + ["text"] * 3 + ["finish", "usage", "odd", "model"])
ODD = st.sampled_from(
    ["{bad json", "null", "[1]", '{"choices": [null]}', '{"choices": 3}', '{"error": {}}']
)


@st.composite
def tool_call(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    index = draw(INDEXES)
    if index is not ABSENT:
        out["index"] = index
    cid = draw(IDS)
    if cid is not ABSENT:
        out["id"] = cid
    fn: dict[str, Any] = {}
    for key, strategy in (("name", NAMES), ("arguments", ARGS)):
        value = draw(strategy)
        if value is not ABSENT:
            fn[key] = value
    if fn or draw(st.booleans()):
        out["function"] = fn
    return out


@st.composite
def usage(draw: st.DrawFn) -> Any:
    shape = draw(st.sampled_from(["dict", "dict", "dict", "null", "number", "list", "text"]))
    if shape != "dict":
        return {"null": None, "number": 5, "list": [1], "text": "u"}[shape]
    out: dict[str, Any] = {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens", "prompt_cache_hit_tokens"):
        value = draw(COUNTS)
        if value is not ABSENT:
            out[key] = value
    for key, inner in (
        ("prompt_tokens_details", "cached_tokens"),
        ("completion_tokens_details", "reasoning_tokens"),
    ):
        value = draw(COUNTS)
        if value is not ABSENT:
            out[key] = {inner: value} if draw(st.booleans()) else value
    return out


@st.composite
def wire_chunk(draw: st.DrawFn) -> dict[str, Any] | str:
    kind = draw(KINDS)
    if kind == "odd":
        return draw(ODD)
    delta: dict[str, Any] = {}
    choice: dict[str, Any] = {"index": 0, "delta": delta}
    top: dict[str, Any] = {}
    if kind == "tools":
        delta["tool_calls"] = draw(st.lists(tool_call(), min_size=1, max_size=2))
    elif kind == "text":
        delta[draw(st.sampled_from(["content", "reasoning_content"]))] = draw(TEXTS)
    elif kind == "finish":
        choice["finish_reason"] = draw(FINISHES)
    elif kind == "usage":
        top["usage"] = draw(usage())
    else:
        top["model"] = draw(st.sampled_from(["m1", "", None]))
    return {**ENVELOPE, "choices": [choice], **top}


def body_of(payloads: list[dict[str, Any] | str], done: bool, after: bool) -> bytes:
    text = "".join(
        "data: " + (p if isinstance(p, str) else json.dumps(p)) + "\n\n" for p in payloads
    )
    if done:
        text += "data: [DONE]\n\n"
    if after:
        text += 'data: {"choices":[]}\n\n'
    return text.encode()


STREAMS = st.tuples(st.lists(wire_chunk(), max_size=14), st.booleans(), st.booleans())
SETTINGS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

TEXT_AND_REASONING = (
    [
        chunk({"content": "x"}),
        chunk({"reasoning_content": "r"}),
        chunk({"content": "y", "reasoning_content": "s"}),
        tools(call(0, id="a", name="f")),
    ],
    True,
    False,
)
MID_STREAM_CHANGE = (
    [
        tools(call(0, id="a", name="f", arguments="{")),
        tools(call(0, id="b", arguments="}")),
        tools(call(0, name="g")),
    ],
    True,
    False,
)


def erasures(chunks: list[tuple[int, Chunk]]) -> list[tuple[str, int, int | None]]:
    """Where an assign-always identity stops being a non-empty string, read off the
    translator's ``tool-call-delta`` chunks: ``(kind, payload position, position of the
    delta that made it one again)``."""
    held: dict[int, dict[str, Any]] = {}
    out: list[list[Any]] = []
    open_: dict[tuple[int, str], list[Any]] = {}
    for position, c in chunks:
        if c["type"] != "tool-call-delta":
            continue
        before = held.setdefault(c["index"], {"id": "", "name": None})
        for field in ("id", "name"):
            now = c.get(field)
            if is_identity(before[field]) and not is_identity(now):
                out.append(["erased-" + field, position, None])
                open_[c["index"], field] = out[-1]
            elif not is_identity(before[field]) and is_identity(now):
                erased = open_.pop((c["index"], field), None)
                if erased is not None:
                    erased[2] = position
            before[field] = now
    return [(kind, p, repaired) for kind, p, repaired in out]


@SETTINGS
@given(STREAMS)
@example(MID_STREAM_CHANGE)
@example(TEXT_AND_REASONING)
@example(([], False, False))
def test_the_single_pass_gives_what_the_rule_gives_delta_by_delta(
    stream: tuple[list[Any], bool, bool],
) -> None:
    assert_single_pass_is_stepwise(trace_of(body_of(*stream)))


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.stem)
def test_the_golden_captures_too(capture: Path) -> None:
    assert_single_pass_is_stepwise(trace_of(capture.read_bytes(), name=capture.name))


def assert_single_pass_is_stepwise(trace: Trace) -> None:
    analysis = trace.analysis
    payloads = trace.payloads
    for behavior in (AA, AI):
        stepwise = list(translate(trace.items(), behavior))
        want = [c for _, c in stepwise]
        replayed = list(trace.replay(behavior))
        assert [c for _, c in replayed] == want
        assert [list(c) for _, c in replayed] == [list(c) for c in want]
        lines = [payloads[p].line if p < len(payloads) else None for p, _ in stepwise]
        assert [line for line, _ in replayed] == lines
        outcome = analysis.outcomes[behavior]
        assert outcome.verdict == verdict_of_chunks(want)
        assert outcome.finish == want[-1]["reason"]
        ends = {c["index"]: c["block"] for c in want if c["type"] == "block-end"}
        for ct in analysis.calls:
            closed = ct.closes_with(behavior)
            if ct.block_index in ends:
                block = ends[ct.block_index]
                assert closed == (block["id"], block["name"])
                assert ct.arguments == block["arguments"]
            elif outcome.verdict == "malformed-tool-call" and closed is not None:
                assert is_identity(closed[0]) and is_identity(closed[1])
        if behavior is AA:
            lines = {p.line: k for k, p in enumerate(payloads)}
            flagged = [
                (f.kind, f.position, None if f.repaired_line is None else lines[f.repaired_line])
                for f in analysis.flags
            ]
            assert flagged == erasures(stepwise)
    assert_rows_are_the_deltas(trace)
    assert_pairs_are_the_two_streams(trace)


def _shown(value: Any) -> Any:
    """An identity in force as a ``tool-call-delta`` shows it (none or null: ``""``)."""
    return "" if value is UNSET or value is None else value


def assert_rows_are_the_deltas(trace: Trace) -> None:
    """Each call's identity evolution, row by row, is what each behavior's stepwise
    translation showed at that delta; a delta's flags are the analysis' flags of it; the
    line that set the accept-identity value in force is the last one its value changed on."""
    analysis = trace.analysis
    payloads = trace.payloads
    deltas: dict[Behavior, dict[int, list[tuple[int, Chunk]]]] = {}
    for behavior in (AA, AI):
        per_block: dict[int, list[tuple[int, Chunk]]] = {}
        for p, c in translate(trace.items(), behavior):
            if c["type"] == "tool-call-delta":
                per_block.setdefault(c["index"], []).append((p, c))
        deltas[behavior] = per_block
    for k, ct in enumerate(analysis.calls):
        rows = ct.rows()
        assert list(analysis.delta_rows(k)) == rows
        assert len(rows) == ct.count == len(ct.deltas)
        assert [(r.position, r.line) for r in rows] == [(p, line) for p, line, _ in ct.deltas]
        set_line: dict[str, int | None] = {"id": None, "name": None}
        for n, (row, (p, assign), (_, accept)) in enumerate(
            zip(rows, deltas[AA][ct.block_index], deltas[AI][ct.block_index], strict=True)
        ):
            assert (row.delta, row.position, row.line) == (n + 1, p, payloads[p].line)
            assert assign["id"] == _shown(row.id_assign)
            assert accept["id"] == _shown(row.id_accept)
            assert assign.get("name", UNSET) == row.name_assign
            assert accept.get("name", UNSET) == row.name_accept
            assert assign["argumentsDelta"] == _shown(row.arguments)
            if row.raw_id is not UNSET:
                assert assign["id"] == _shown(row.raw_id)
            if row.raw_name is not UNSET:
                assert assign["name"] == row.raw_name
            for field, value in (("id", row.id_accept), ("name", row.name_accept)):
                previous = rows[n - 1] if n else None
                before = getattr(previous, field + "_accept") if previous else UNSET
                if value is not UNSET and value != before:
                    set_line[field] = row.line
            assert (row.id_set_line, row.name_set_line) == (set_line["id"], set_line["name"])
            assert list(row.flags) == [f for f in ct.flags if f.delta == n + 1]
        firsts = [
            next((r.delta for r in rows if getattr(r, f + "_accept") is not UNSET), 0)
            for f in ("id", "name")
        ]
        assert [ct.id_first_delta, ct.name_first_delta] == firsts
    assert analysis.clean == (
        not analysis.flags and all(o.verdict == "ok" for o in analysis.outcomes.values())
    )


def assert_pairs_are_the_two_streams(trace: Trace) -> None:
    """Both behaviors side by side: each side, read down, is its behavior's stream; rows pair
    chunk k with chunk k until the end, where the ends pair by kind (the first of each kind
    with the first, a refused side leaving gaps); ``same`` says whether a row's two differ."""
    pairs = BehaviorPairs(trace.analysis)
    rows = list(pairs)
    left, right = list(trace.replay(AA)), list(trace.replay(AI))
    assert [a for a, _ in rows if a is not None] == left
    assert [b for _, b in rows if b is not None] == right
    body = pairs.assign.body
    assert body == pairs.accept.body == trace.analysis.event_count
    assert all(a is not None and b is not None for a, b in rows[:body])
    for k, (a, b) in enumerate(rows):
        assert a is not None or b is not None
        if a is not None and b is not None and k >= body:
            assert (a[1]["type"], a[1].get("index")) == (b[1]["type"], b[1].get("index"))
        assert pairs.same[k] == (a is not None and b is not None and a[1] == b[1])
        assert pairs.line(k) == (a if a is not None else b)[0]  # type: ignore[index]
    assert len(pairs) == len(rows)
    ends_a = [(c["type"], c.get("index")) for _, c in left[body:]]
    ends_b = [(c["type"], c.get("index")) for _, c in right[body:]]
    paired = [
        (
            None if a is None else (a[1]["type"], a[1].get("index")),
            None if b is None else (b[1]["type"], b[1].get("index")),
        )
        for a, b in rows[body:]
    ]
    common = [x for x in ends_a if x in ends_b]
    assert [a for a, b in paired if a is not None and b is not None] == common


VALUES = [UNSET, None, "", "a", "b", 0, 7, 1.5, True, "null", [1], {"x": 1}]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_the_rule_itself(value: Any) -> None:
    """accept-identity takes a non-empty string only; assign-always any value sent."""
    assert takes_identity(AI, value) is (value in ("a", "b", "null"))
    assert takes_identity(AA, value) is (value is not UNSET)
    assert is_identity(value) is takes_identity(AI, value)


# -- literal expectations ----------------------------------------------------------------------


def test_a_mid_stream_identity_change_closes_with_the_new_id_and_name() -> None:
    body = sse(*MID_STREAM_CHANGE[0])
    for behavior in (AA, AI):
        got = chunks(body, behavior)
        assert [c for c in got if c["type"] == "tool-call-delta"] == [
            {"type": "tool-call-delta", "index": 0, "id": "a", "name": "f", "argumentsDelta": "{"},
            {"type": "tool-call-delta", "index": 0, "id": "b", "name": "f", "argumentsDelta": "}"},
            {"type": "tool-call-delta", "index": 0, "id": "b", "name": "g", "argumentsDelta": ""},
        ]
        assert got[-2] == {
            "type": "block-end",
            "index": 0,
            "block": {"type": "tool-call", "id": "b", "name": "g", "arguments": "{}"},
        }
    notes = [n.kind for n in trace_of(body).analysis.notes]
    assert notes.count("identity-changed") == 2 and "late-identity" not in notes


def test_identity_arriving_on_the_first_delta_is_not_late_but_on_the_second_it_is() -> None:
    first = trace_of(sse(tools(call(0, id="a", name="f")), tools(call(0, arguments="{}"))))
    assert [n.kind for n in first.analysis.notes] == []
    second = trace_of(sse(tools(call(0, arguments="{")), tools(call(0, id="a", name="f"))))
    late = [n for n in second.analysis.notes if n.kind == "late-identity"]
    assert [(n.line, n.message) for n in late] == [
        (3, 'call 0: id "a" first arrives on delta 2, not the call\'s first'),
        (3, 'call 0: name "f" first arrives on delta 2, not the call\'s first'),
    ]


@pytest.mark.parametrize(
    ("first", "second", "blocks"),
    [
        (1, 1.0, 1),
        (0, False, 2),
        (0, "0", 2),
        (1, True, 2),
        (None, None, 1),
        (2.5, 2.5, 1),
        (2.5, "2.5", 2),
        (True, [True], 2),
        ([1], [1], 1),
        ([1], [2], 2),
        ({"a": 1}, {"a": 1}, 1),
        (None, "null", 2),
        (2.5, [2.5], 2),
        (None, ["null"], 2),
    ],
    ids=[
        "int-float",
        "int-bool",
        "int-string",
        "int-true",
        "null",
        "fraction",
        "fraction-string",
        "true-array",
        "same-array",
        "other-array",
        "same-object",
        "null-string",
        "fraction-array",
        "null-array",
    ],
)
def test_calls_are_keyed_by_index_as_javascript_compares_numbers(
    first: Any, second: Any, blocks: int
) -> None:
    body = sse(tools(call(first, id="a", name="f")), tools(call(second, arguments="{}")))
    got = chunks(body, AA)
    assert [c["index"] for c in got if c["type"] == "block-start"] == list(range(blocks))
    assert len(trace_of(body).analysis.calls) == blocks


@pytest.mark.parametrize(
    ("usage", "want"),
    [
        ({"completion_tokens": 5}, {"inputTokens": 0, "outputTokens": 5}),
        ({"prompt_tokens": 10}, {"inputTokens": 10, "outputTokens": 0}),
        (
            {"prompt_tokens": 10.0, "completion_tokens": 5.0, "total_tokens": 15.0},
            {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        ),
        ({"prompt_tokens": 2.5, "completion_tokens": 1}, {"inputTokens": 2.5, "outputTokens": 1}),
        ({"prompt_tokens": -1, "completion_tokens": 1}, {"inputTokens": -1, "outputTokens": 1}),
        ({"prompt_tokens": 4, "completion_tokens": -2}, {"inputTokens": 4, "outputTokens": -2}),
        (
            {"prompt_tokens": 0, "completion_tokens": 0},
            {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0},
        ),
        ({"prompt_tokens": "4", "completion_tokens": "2"}, {"inputTokens": 0, "outputTokens": 0}),
        (
            {"prompt_tokens": 10, "completion_tokens": 5, "prompt_cache_hit_tokens": 2.0},
            {"inputTokens": 8, "outputTokens": 5, "totalTokens": 15, "cacheReadTokens": 2},
        ),
        (
            {
                "prompt_tokens": 10,
                "completion_tokens": 5,
                "prompt_tokens_details": {"cached_tokens": 4},
                "prompt_cache_hit_tokens": 2,
            },
            {"inputTokens": 6, "outputTokens": 5, "totalTokens": 15, "cacheReadTokens": 4},
        ),
        (
            {"prompt_tokens": 10, "prompt_tokens_details": 3, "prompt_cache_hit_tokens": 2},
            {"inputTokens": 8, "outputTokens": 0, "cacheReadTokens": 2},
        ),
        (
            {"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": None}},
            {"inputTokens": 10, "outputTokens": 0},
        ),
        (
            {"completion_tokens": 3, "completion_tokens_details": {"reasoning_tokens": 2.0}},
            {"inputTokens": 0, "outputTokens": 3, "reasoningTokens": 2},
        ),
        (
            {"completion_tokens": 3, "completion_tokens_details": {"reasoning_tokens": "2"}},
            {"inputTokens": 0, "outputTokens": 3},
        ),
        (
            {"completion_tokens": 3, "completion_tokens_details": 2},
            {"inputTokens": 0, "outputTokens": 3},
        ),
        (
            {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": None},
            {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
        ),
        (
            {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": "3"},
            {"inputTokens": 1, "outputTokens": 2},
        ),
        (5, {"inputTokens": 0, "outputTokens": 0}),
        ([1], {"inputTokens": 0, "outputTokens": 0}),
        ("u", {"inputTokens": 0, "outputTokens": 0}),
    ],
)
def test_usage_counts_as_javascript_would_add_them(usage: Any, want: dict[str, Any]) -> None:
    body = sse({**chunk({"content": "x"}, finish="stop"), "usage": usage})
    for behavior in (AA, AI):
        got = [c for c in chunks(body, behavior) if c["type"] == "usage"]
        assert got == [{"type": "usage", "usage": want}]


@pytest.mark.parametrize(
    ("value", "truthy"),
    [(0, False), ("", False), (False, False), (None, False), ([], True), ({}, True), (0.5, True)],
)
def test_a_falsy_usage_is_ignored_as_javascript_would(value: Any, truthy: bool) -> None:
    body = sse({**chunk({"content": "x"}, finish="stop"), "usage": value})
    got = [c for c in chunks(body, AA) if c["type"] == "usage"]
    assert got == (
        [{"type": "usage", "usage": {"inputTokens": 0, "outputTokens": 0}}] if truthy else []
    )


def test_the_usage_before_a_refusal_keeps_its_counts() -> None:
    body = sse(
        tools(call(0, name="f", arguments="{}")),
        {**chunk(finish="tool_calls"), "usage": {"prompt_tokens": 7, "completion_tokens": 3}},
    )
    assert chunks(body, AI)[-2:] == [
        {
            "type": "usage",
            "usage": {"inputTokens": 7, "outputTokens": 3, "totalTokens": 10},
        },
        {
            "type": "finish",
            "reason": {
                "kind": "error",
                "failure": {
                    "message": "model streamed a tool call with no id",
                    "code": "MALFORMED_TOOL_CALL",
                },
            },
        },
    ]
    assert trace_of(body).analysis.outcomes[AI].finish == chunks(body, AI)[-1]["reason"]


# -- verdicts, and what they cost --------------------------------------------------------------


def test_the_verdict_table_is_read_in_order() -> None:
    stop, calls = {"kind": "stop"}, {"kind": "tool-calls"}
    error = {"kind": "error", "failure": {"message": "m", "code": "CONTENT_FILTER"}}
    assert verdict(stop, [("a", "f")]) == "ok"
    assert verdict(calls, []) == "ok"
    assert verdict({"kind": "max-tokens"}, []) == "ok"
    assert verdict(stop, [("a", "f"), ("", "g")]) == "unidentified-call"
    assert verdict(error, [("a", None)]) == "unidentified-call"
    assert verdict(error, [("a", "f")]) == "model-error"
    assert verdict(None, []) == "in-progress"
    assert verdict(None, [(7, "f")]) == "unidentified-call"
    for code, name in (
        ("MALFORMED_TOOL_CALL", "malformed-tool-call"),
        ("EMPTY_RESPONSE", "empty-response"),
        ("MALFORMED_RESPONSE", "malformed-response"),
        ("STREAM_CLOSED", "stream-closed"),
        ("UNKNOWN", "model-error"),
    ):
        assert verdict({"kind": "error", "failure": {"code": code}}, []) == name
    assert verdict({"kind": "error"}, []) == "model-error"
    assert verdict_of_chunks([]) == "in-progress"
    assert (
        verdict_of_chunks(
            [
                {"type": "block-end", "index": 0, "block": {"type": "text", "text": ""}},
                {"type": "block-end", "index": 1, "block": {"type": "tool-call", "id": "a"}},
                {"type": "finish", "reason": stop},
            ]
        )
        == "unidentified-call"
    )
    assert verdict_of_chunks([{"type": "finish", "reason": stop}, {"type": "usage"}]) == "ok"


def test_each_verdict_says_what_it_meant() -> None:
    assert [v for v, info in VERDICTS.items() if info.ok] == ["ok"]
    assert all(info.name == v and info.when and info.consequence for v, info in VERDICTS.items())
    assert describe("ok") is VERDICTS["ok"]
    unknown = describe("no-such-verdict")
    assert (unknown.name, unknown.when, unknown.consequence, unknown.ok) == (
        "no-such-verdict",
        "no-such-verdict",
        "unknown",
        False,
    )


def test_what_a_call_closing_without_identity_costs() -> None:
    assert unidentified("a", "f") == []
    assert unidentified("", "f") == ["id"]
    assert unidentified("a", None) == ["name"]
    assert unidentified(7, "") == ["id", "name"]
    assert consequence("name", '""') == 'the registry refuses it: unknown tool ""'
    assert consequence("id", '""') == "an empty callId: the saved session will not load"
    # a number is not empty: said as what it is (the calls view read "an empty callId" for 0)
    assert consequence("id", "0") == "callId 0 is not a string: the saved session will not load"
    assert is_clean(0, ["ok", "ok"]) and is_clean(0, [])
    assert not is_clean(1, ["ok", "ok"]) and not is_clean(0, ["ok", "model-error"])


# -- the translator's own edges ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "head"),
    [
        ("a" * 130, "a" * 120),
        ("é" * 130, "é" * 120),
        ("😀" * 60, "😀" * 60),  # 120 UTF-16 units exactly
        ("😀" * 61, "😀" * 60),
        ("a" + "😀" * 70, "a" + "😀" * 59),  # the pair that would pass 120 is not split
        ("é" * 59 + "😀" * 2, "é" * 59 + "😀" * 2),
        ("😀" * 30 + "a" * 70, "😀" * 30 + "a" * 60),
        ("", ""),
    ],
    ids=[
        "ascii",
        "bmp",
        "astral-exact",
        "astral-over",
        "astral-boundary",
        "short",
        "mixed",
        "empty",
    ],
)
def test_a_malformed_payload_is_quoted_by_its_first_120_utf16_units(text: str, head: str) -> None:
    assert js_head(text) == head
    body = sse("{" + text[:-1] if text else "{")
    want = "malformed SSE payload: " + js_head("{" + text[:-1] if text else "{")
    for behavior in (AA, AI):
        assert chunks(body, behavior)[-1]["reason"]["failure"] == {
            "message": want,
            "code": "MALFORMED_RESPONSE",
        }


def test_the_translator_says_where_each_chunk_came_from() -> None:
    trace = trace_of(sse(chunk({"content": "x"}), '{"choices": [null]}', chunk()))
    got = list(translate(trace.items(), AA))
    assert [(p, c["type"]) for p, c in got] == [
        (0, "block-start"),
        (0, "text-delta"),
        (1, "finish"),
    ]
    assert got[-1][1]["reason"] == {
        "kind": "error",
        "failure": {
            "message": "Cannot read properties of null (reading 'delta')",
            "code": "UNKNOWN",
        },
    }
    closed = trace_of(sse(chunk({"content": "x"}), chunk(), done=False))
    assert [(p, c["type"]) for p, c in translate(closed.items(), AI)][-1] == (2, "finish")
    assert list(translate([], AI)) == [
        (
            0,
            {
                "type": "finish",
                "reason": {
                    "kind": "error",
                    "failure": {
                        "message": "SSE stream ended without [DONE]",
                        "code": "STREAM_CLOSED",
                    },
                },
            },
        )
    ]
    done = trace_of(sse(chunk({"content": "x"}, finish="stop")) + b"data: {}\n\n")
    assert [p for p, _ in translate(done.items(), AA)] == [0, 0, 1, 1]


def test_a_long_calls_rows_read_a_block_at_a_time_as_a_sequence() -> None:
    body = sse(
        tools(call(0, id="a", name="f", arguments="[")),
        *[tools(call(0, **_every_97th(k), arguments=f"{k},")) for k in range(600)],
        tools(call(1, id="b", name="g")),
        chunk(finish="tool_calls"),
    )
    analysis = trace_of(body).analysis
    ct = analysis.calls[0]
    rows = ct.rows()
    seq = analysis.delta_rows(0)
    assert len(seq) == 601 and list(seq) == rows
    for i in (0, 1, 255, 256, 257, 511, 512, 600, -1, -601):
        assert seq[i] == rows[i]
    for window in (slice(250, 260), slice(-5, None), slice(0, 601, 97), slice(600, 700)):
        assert seq[window] == rows[window]
    for outside in (601, -602):
        with pytest.raises(IndexError):
            seq[outside]
    assert seq[300] == rows[300]  # a block read again after another
    assert ct.rows(598) == rows[598:] and ct.rows(2, 4) == rows[2:4]
    deltas = ct.deltas
    assert list(deltas) == [
        (p, line, c) for p, line, c in zip(ct.positions, ct.lines, ct.calls, strict=True)
    ]
    assert deltas[1] == (ct.positions[1], ct.lines[1], ct.calls[1])
    assert deltas[3:5] == list(deltas)[3:5]
    assert deltas == list(deltas) and deltas == ct.deltas and deltas != analysis.calls[1].deltas
    assert (deltas == 5) is False
    assert analysis.delta_rows(1)[0].delta == 1
    assert [f.delta for f in ct.flags] == [k + 2 for k in range(600) if k % 97 == 0]
    assert {r.delta for r in rows if r.flags} == {k + 2 for k in range(600) if k % 97 == 0}
    assert all(f.repaired_line == f.line + 2 for f in ct.flags)


def _every_97th(k: int) -> dict[str, Any]:
    """The id erased on every 97th continuation, re-sent on the next."""
    return {"id": ""} if k % 97 == 0 else {"id": "a"} if k % 97 == 1 else {}


def test_a_capture_still_being_written_ends_in_nothing_yet() -> None:
    from replay_tui.core.identity import Analyzer
    from replay_tui.core.stream import ChunkStream
    from replay_tui.core.wire import decode_payload

    analyzer = Analyzer()
    analyzer.payload(1, decode_payload(b'{"choices":[{"delta":{"content":"x"}}]}'))
    growing = analyzer.result(closed=False)
    assert growing.verdicts == {"assign-always": "in-progress", "accept-identity": "in-progress"}
    for behavior in (AA, AI):
        assert [c["type"] for _, c in ChunkStream(growing, behavior)] == [
            "block-start",
            "text-delta",
        ]
    closed = analyzer.result()
    assert [c["type"] for _, c in ChunkStream(closed, AA)][-1] == "finish"
