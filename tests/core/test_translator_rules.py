"""One test per rule of the harness translator's output protocol (core/translator.py ports it;
tests/data/corpus holds the harness's own output)."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import call, chunk, chunks, sse, tools

AA, AI = "assign-always", "accept-identity"
BOTH = pytest.mark.parametrize("behavior", [AA, AI])


def types(cs: list[dict[str, Any]]) -> list[str]:
    return [c["type"] for c in cs]


@BOTH
def test_block_indexes_count_up_in_opening_order(behavior: str) -> None:
    body = sse(
        chunk({"reasoning_content": "think"}),
        chunk({"content": "hi"}),
        tools(call(3, id="a", name="f", arguments="{}")),
        tools(call(1, id="b", name="g", arguments="{}"), finish="tool_calls"),
    )
    starts = [
        (c["index"], c["blockType"]) for c in chunks(body, behavior) if c["type"] == "block-start"
    ]
    assert starts == [(0, "reasoning"), (1, "text"), (2, "tool-call"), (3, "tool-call")]


@BOTH
def test_one_text_and_one_reasoning_block_per_response(behavior: str) -> None:
    body = sse(
        chunk({"content": "a"}),
        chunk({"reasoning_content": "r"}),
        chunk({"content": "b"}),
        chunk(finish="stop"),
    )
    cs = chunks(body, behavior)
    assert types(cs).count("block-start") == 2
    ends = [c["block"] for c in cs if c["type"] == "block-end"]
    assert ends == [{"type": "text", "text": "ab"}, {"type": "reasoning", "text": "r"}]


@BOTH
def test_null_and_empty_content_open_nothing(behavior: str) -> None:
    body = sse(
        chunk({"role": "assistant", "content": None, "reasoning_content": ""}),
        chunk({"content": ""}),
    )
    assert types(chunks(body, behavior)) == ["finish"]


@BOTH
def test_non_string_content_is_ignored(behavior: str) -> None:
    body = sse(
        chunk({"content": [{"type": "thinking"}]}), chunk({"content": "x"}), chunk(finish="stop")
    )
    deltas = [c for c in chunks(body, behavior) if c["type"] == "text-delta"]
    assert deltas == [{"type": "text-delta", "index": 0, "text": "x"}]


@BOTH
def test_one_tool_call_delta_per_wire_delta_even_with_empty_arguments(behavior: str) -> None:
    body = sse(tools(call(0, id="c", name="f")), tools(call(0)), tools(call(0, arguments=None)))
    deltas = [c for c in chunks(body, behavior) if c["type"] == "tool-call-delta"]
    assert [d["argumentsDelta"] for d in deltas] == ["", "", ""]


def test_accept_identity_keeps_the_established_identity() -> None:
    body = sse(
        tools(call(0, id="call_1", name="get_weather", arguments="")),
        tools(call(0, id="", arguments='{"a"')),
        tools(call(0, id=None, name=None, arguments=":1")),
        tools(call(0, id=7, name="", arguments="}"), finish="tool_calls"),
    )
    cs = chunks(body, AI)
    assert {(c["id"], c["name"]) for c in cs if c["type"] == "tool-call-delta"} == {
        ("call_1", "get_weather")
    }
    end = next(c for c in cs if c["type"] == "block-end")
    assert end["block"] == {
        "type": "tool-call",
        "id": "call_1",
        "name": "get_weather",
        "arguments": '{"a":1}',
    }


def test_assign_always_takes_whatever_the_delta_carries() -> None:
    body = sse(
        tools(call(0, id="call_1", name="get_weather")),
        tools(call(0, id="")),
        tools(call(0, id=None, name=None)),
        tools(call(0, id=7)),
        chunk(finish="tool_calls"),
    )
    deltas = [
        (c["id"], c.get("name", "<absent>"))
        for c in chunks(body, AA)
        if c["type"] == "tool-call-delta"
    ]
    # A null id shows as "" while in force; a null name shows as null.
    assert deltas == [("call_1", "get_weather"), ("", "get_weather"), ("", None), (7, None)]
    end = next(c for c in chunks(body, AA) if c["type"] == "block-end")
    assert end["block"]["id"] == 7 and end["block"]["name"] == ""


@BOTH
def test_name_is_absent_until_a_delta_sets_it(behavior: str) -> None:
    body = sse(
        tools(call(0, id="c", arguments="")), tools(call(0, name="f")), chunk(finish="tool_calls")
    )
    deltas = [c for c in chunks(body, behavior) if c["type"] == "tool-call-delta"]
    assert "name" not in deltas[0] and deltas[1]["name"] == "f"
    assert list(deltas[0]) == ["type", "index", "id", "argumentsDelta"]


def test_id_shows_empty_while_there_is_none() -> None:
    body = sse(tools(call(0, name="f")), tools(call(0, id="late")), chunk(finish="tool_calls"))
    ids = [c["id"] for c in chunks(body, AI) if c["type"] == "tool-call-delta"]
    assert ids == ["", "late"]


@pytest.mark.parametrize(
    ("first", "message"),
    [
        (call(0, name="f", arguments="{}"), "model streamed a tool call with no id"),
        (call(0, id="c", arguments="{}"), "model streamed a tool call with no name"),
        (call(0, arguments="{}"), "model streamed a tool call with no id"),
    ],
)
def test_accept_identity_refuses_an_unidentified_call_at_done(
    first: dict[str, Any], message: str
) -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2}
    body = sse(
        tools(call(1, id="ok", name="g")),
        tools(first),
        chunk(finish="tool_calls"),
        {**chunk(), "usage": usage, "choices": []},
    )
    cs = chunks(body, AI)
    # No block-end at all, not even for the complete call; usage, then the refusal.
    assert "block-end" not in types(cs)
    assert types(cs)[-2:] == ["usage", "finish"]
    assert cs[-1]["reason"] == {
        "kind": "error",
        "failure": {"message": message, "code": "MALFORMED_TOOL_CALL"},
    }


def test_assign_always_closes_an_unidentified_call_with_empty_strings() -> None:
    body = sse(tools(call(0, arguments="{}")), chunk(finish="tool_calls"))
    end = next(c for c in chunks(body, AA) if c["type"] == "block-end")
    assert end["block"] == {"type": "tool-call", "id": "", "name": "", "arguments": "{}"}


@BOTH
def test_usage_is_the_latest_truthy_one_and_null_is_ignored(behavior: str) -> None:
    first = {"prompt_tokens": 1, "completion_tokens": 1}
    later = {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
        "prompt_tokens_details": {"cached_tokens": 4},
        "completion_tokens_details": {"reasoning_tokens": 2},
    }
    body = sse(
        {**chunk({"content": "x"}), "usage": first},
        {**chunk(), "usage": later},
        {**chunk(finish="stop"), "usage": None},
    )
    usage = next(c for c in chunks(body, behavior) if c["type"] == "usage")
    assert usage["usage"] == {
        "inputTokens": 6,
        "outputTokens": 5,
        "totalTokens": 15,
        "cacheReadTokens": 4,
        "reasoningTokens": 2,
    }


@pytest.mark.parametrize(
    ("usage", "want"),
    [
        (
            {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 99},
            {"inputTokens": 10, "outputTokens": 5},
        ),
        (
            {"prompt_tokens": 10, "completion_tokens": 5, "prompt_cache_hit_tokens": 3},
            {"inputTokens": 7, "outputTokens": 5, "totalTokens": 15, "cacheReadTokens": 3},
        ),
        (
            {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {}},
            {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        ),
    ],
    ids=["disagreeing-total", "deepseek-cache-hit", "no-details"],
)
def test_usage_fields(usage: dict[str, Any], want: dict[str, Any]) -> None:
    body = sse({**chunk({"content": "x"}, finish="stop"), "usage": usage})
    got = next(c for c in chunks(body, AI) if c["type"] == "usage")
    assert got["usage"] == want


@pytest.mark.parametrize(
    ("reason", "want"),
    [
        ("stop", {"kind": "stop"}),
        ("tool_calls", {"kind": "tool-calls"}),
        ("length", {"kind": "max-tokens"}),
        (
            "content_filter",
            {
                "kind": "error",
                "failure": {"message": "model stopped: content_filter", "code": "CONTENT_FILTER"},
            },
        ),
        ("", {"kind": "error", "failure": {"message": "model stopped: ", "code": ""}}),
    ],
)
def test_finish_reasons(reason: str, want: dict[str, Any]) -> None:
    body = sse(chunk({"content": "x"}), chunk(finish=reason))
    assert chunks(body, AI)[-1]["reason"] == want


def test_the_last_string_finish_reason_wins_and_none_means_stop() -> None:
    body = sse(chunk({"content": "x"}, finish="length"), chunk(finish=None), chunk(finish="stop"))
    assert chunks(body, AI)[-1]["reason"] == {"kind": "stop"}
    assert chunks(sse(chunk({"content": "x"})), AI)[-1]["reason"] == {"kind": "stop"}


def test_stop_with_nothing_opened_is_an_empty_response_after_usage() -> None:
    body = sse({**chunk(finish="stop"), "usage": {"prompt_tokens": 1, "completion_tokens": 0}})
    cs = chunks(body, AI)
    assert types(cs) == ["usage", "finish"]
    assert cs[-1]["reason"]["failure"] == {
        "message": "model returned a completed response with no content",
        "code": "EMPTY_RESPONSE",
    }


def test_invalid_json_fails_with_malformed_response_keeping_earlier_chunks() -> None:
    bad = '{"choices": [' + "x" * 200
    cs = chunks(sse(chunk({"content": "x"}), bad, chunk({"content": "never"})), AI)
    assert types(cs) == ["block-start", "text-delta", "finish"]
    assert cs[-1]["reason"]["failure"] == {
        "message": "malformed SSE payload: " + bad[:120],
        "code": "MALFORMED_RESPONSE",
    }


def test_end_before_done_is_stream_closed_without_usage() -> None:
    body = sse(
        {**chunk({"content": "x"}, finish="stop"), "usage": {"prompt_tokens": 1}}, done=False
    )
    cs = chunks(body, AI)
    assert types(cs) == ["block-start", "text-delta", "finish"]
    assert cs[-1]["reason"]["failure"] == {
        "message": "SSE stream ended without [DONE]",
        "code": "STREAM_CLOSED",
    }


def test_within_a_chunk_reasoning_content_tools_then_finish() -> None:
    body = sse(
        chunk(
            {"tool_calls": [call(0, id="c", name="f")], "content": "t", "reasoning_content": "r"},
            finish="tool_calls",
        )
    )
    assert [c.get("blockType") for c in chunks(body, AI) if c["type"] == "block-start"] == [
        "reasoning",
        "text",
        "tool-call",
    ]


def test_choice_index_is_ignored_and_usage_read_after_choices() -> None:
    two = {
        **chunk(),
        "choices": [
            {"index": 5, "delta": {"content": "a"}},
            {"index": 9, "delta": {"content": "b"}},
        ],
    }
    cs = chunks(sse(two), AI)
    assert [c["text"] for c in cs if c["type"] == "text-delta"] == ["a", "b"]


@pytest.mark.parametrize("payload", ["5", '"text"', "[1,2]", "true"])
def test_valid_json_that_is_not_an_object_is_ignored(payload: str) -> None:
    cs = chunks(sse(payload, chunk({"content": "x"})), AI)
    assert types(cs) == ["block-start", "text-delta", "block-end", "finish"]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("null", "Cannot read properties of null (reading 'choices')"),
        ('{"choices": [null]}', "Cannot read properties of null (reading 'delta')"),
        ('{"choices": {"0": {}}}', "chunk.choices is not iterable"),
        (
            '{"choices": [{"delta": {"tool_calls": [null]}}]}',
            "Cannot read properties of null (reading 'index')",
        ),
        (
            '{"choices": [{"delta": {"tool_calls": {"index": 0}}}]}',
            "delta.tool_calls is not iterable",
        ),
    ],
)
def test_shapes_the_harness_cannot_walk_end_with_unknown(payload: str, message: str) -> None:
    cs = chunks(sse(chunk({"content": "x"}), payload), AI)
    assert cs[-1] == {
        "type": "finish",
        "reason": {"kind": "error", "failure": {"message": message, "code": "UNKNOWN"}},
    }
    assert types(cs) == ["block-start", "text-delta", "finish"]


def test_chunks_before_a_throw_in_the_same_payload_stay() -> None:
    payload = '{"choices": [{"delta": {"content": "a"}}, null]}'
    assert types(chunks(sse(payload), AI)) == ["block-start", "text-delta", "finish"]


def test_a_missing_tool_call_index_is_one_block() -> None:
    body = sse(
        tools({"id": "x", "function": {"name": "f", "arguments": "{"}}),
        tools({"function": {"arguments": "}"}}),
        chunk(finish="tool_calls"),
    )
    cs = chunks(body, AI)
    assert types(cs).count("block-start") == 1
    assert next(c for c in cs if c["type"] == "block-end")["block"]["arguments"] == "{}"


def test_data_after_done_is_not_replayed() -> None:
    body = sse(chunk({"content": "x"}, finish="stop")) + b'data: {"choices":[],"cost":"0"}\n\n'
    assert types(chunks(body, AI)) == ["block-start", "text-delta", "block-end", "finish"]
