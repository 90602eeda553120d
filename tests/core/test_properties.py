"""Rules that hold for every stream, checked on generated ones (hypothesis)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay_tui.core.translator import is_identity
from replay_tui.core.verdicts import verdict_of_chunks

from .helpers import ENVELOPE, chunks, examples, trace_of

ABSENT = object()
IDENTITY = st.sampled_from(
    [ABSENT, None, "", "call_a", "call_b", "get_weather", 7, {"x": 1}, "null"]
)
ARGS = st.sampled_from([ABSENT, None, "", "{", '"a":1', "}"])
# Strategies made once, not in each draw (hypothesis validates each new one again).
INDEXES = st.sampled_from([0, 1, 2, ABSENT])
TYPES = st.sampled_from([ABSENT, None, "function"])
KINDS = st.sampled_from(["tools", "tools", "tools", "text", "finish", "usage", "odd"])
ODD = st.sampled_from(["{bad json", "null", "[1]", '{"choices": [null]}', '{"choices": 3}'])
TEXT_KEYS = st.sampled_from(["content", "reasoning_content"])
TEXTS = st.sampled_from(["", "x", None])
FINISHES = st.sampled_from(["stop", "tool_calls", "length", "", "content_filter", None])
USAGES = st.sampled_from([None, {"prompt_tokens": 5, "completion_tokens": 2}])


@st.composite
def tool_call(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {"index": draw(INDEXES)}
    for key in ("id", "type"):
        value = draw(IDENTITY if key == "id" else TYPES)
        if value is not ABSENT:
            out[key] = value
    if draw(st.booleans()):
        fn: dict[str, Any] = {}
        for key, strategy in (("name", IDENTITY), ("arguments", ARGS)):
            value = draw(strategy)
            if value is not ABSENT:
                fn[key] = value
        out["function"] = fn
    if out["index"] is ABSENT:
        del out["index"]
    return out


CALL_LISTS = st.lists(tool_call(), min_size=1, max_size=2)


@st.composite
def wire_chunk(draw: st.DrawFn) -> dict[str, Any] | str:
    kind = draw(KINDS)
    if kind == "odd":
        return draw(ODD)
    delta: dict[str, Any] = {}
    choice: dict[str, Any] = {"index": 0, "delta": delta}
    top: dict[str, Any] = {}
    if kind == "tools":
        delta["tool_calls"] = draw(CALL_LISTS)
    elif kind == "text":
        delta[draw(TEXT_KEYS)] = draw(TEXTS)
    elif kind == "finish":
        choice["finish_reason"] = draw(FINISHES)
    else:
        top["usage"] = draw(USAGES)
    return {**ENVELOPE, "choices": [choice], **top}


def body_of(payloads: list[dict[str, Any] | str], done: bool) -> bytes:
    text = "".join(
        "data: " + (p if isinstance(p, str) else json.dumps(p)) + "\n\n" for p in payloads
    )
    return (text + ("data: [DONE]\n\n" if done else "")).encode()


STREAMS = st.tuples(st.lists(wire_chunk(), max_size=12), st.booleans())
SETTINGS = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(STREAMS)
def test_every_replay_ends_in_exactly_one_finish(stream: tuple[list[Any], bool]) -> None:
    body = body_of(*stream)
    for behavior in ("assign-always", "accept-identity"):
        types = [c["type"] for c in chunks(body, behavior)]
        assert types.count("finish") == 1 and types[-1] == "finish"


@SETTINGS
@given(STREAMS)
def test_usage_comes_before_an_error_finish(stream: tuple[list[Any], bool]) -> None:
    for behavior in ("assign-always", "accept-identity"):
        cs = chunks(body_of(*stream), behavior)
        usage = [i for i, c in enumerate(cs) if c["type"] == "usage"]
        assert len(usage) <= 1
        if usage:
            assert usage[0] == len(cs) - 2


@SETTINGS
@given(STREAMS)
def test_accept_identity_never_loses_an_established_identity(
    stream: tuple[list[Any], bool],
) -> None:
    seen: dict[int, tuple[Any, Any]] = {}
    for c in chunks(body_of(*stream), "accept-identity"):
        if c["type"] != "tool-call-delta":
            continue
        before_id, before_name = seen.get(c["index"], ("", None))
        if before_id:
            assert c["id"] == before_id or is_identity(c["id"])
            assert is_identity(c["id"])
        if before_name is not None:
            assert is_identity(c.get("name"))
        seen[c["index"]] = (c["id"], c.get("name"))


def _all_identity_is_proper(payloads: list[Any]) -> bool:
    """Every identity value sent is a non-empty string, and every call gets both fields."""
    got: dict[Any, set[str]] = {}
    for p in payloads:
        if isinstance(p, str):
            continue
        for choice in p["choices"]:
            for tc in choice["delta"].get("tool_calls", []):
                fields = got.setdefault(tc.get("index", "absent"), set())
                fn = tc.get("function", {})
                for key, holder in (("id", tc), ("name", fn)):
                    if key in holder:
                        if not is_identity(holder[key]):
                            return False
                        fields.add(key)
    return all(fields == {"id", "name"} for fields in got.values())


@SETTINGS
@given(STREAMS)
def test_behaviors_differ_only_when_identity_fields_are_not_non_empty_strings(
    stream: tuple[list[Any], bool],
) -> None:
    body = body_of(*stream)
    if _all_identity_is_proper(stream[0]):
        assert chunks(body, "assign-always") == chunks(body, "accept-identity")


@SETTINGS
@given(STREAMS)
def test_one_pass_verdicts_equal_the_translators(stream: tuple[list[Any], bool]) -> None:
    body = body_of(*stream)
    trace = trace_of(body)
    for behavior, verdict in trace.verdicts.items():
        assert verdict == verdict_of_chunks(chunks(body, behavior))
