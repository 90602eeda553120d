"""A library's throw (or error part) names the field that triggered it and the payload's line.

The oracle is the capture itself: the line a test expects is found by reading the file for the
offending text, never through the models' own bookkeeping.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from replay_tui.clientlibs import assess
from replay_tui.clientlibs.ai_sdk import chunk_ok, chunk_problem
from replay_tui.clientlibs.base import ClientError
from replay_tui.core.discovery import discover
from replay_tui.core.trace import load_trace

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "traces"
SCENARIOS = ROOT / "tests" / "data" / "clients" / "scenarios"


def _assemblies(path: Path) -> dict[str, Any]:
    trace = load_trace(discover([path]).sources[0])
    return {k: o.assembly for k, o in assess(trace).items()}


def _raised(path: Path, key: str) -> ClientError:
    raised = _assemblies(path)[key].raised
    assert raised is not None, key
    return raised


def _lines_with(path: Path, text: str) -> list[int]:
    """1-based numbers of the file's lines holding ``text``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [n for n, line in enumerate(lines, 1) if text in line]


def _sse(tmp_path: Path, *chunks: dict[str, Any], name: str = "t.sse") -> Path:
    path = tmp_path / name
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")
    return path


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _call(**fields: Any) -> dict[str, Any]:
    return {"tool_calls": [{"index": 0, **fields}]}


_FIRST = _call(id="call_1", type="function", function={"name": "f", "arguments": ""})
"""A call's first delta, as every gateway sends it."""

LITELLM = TRACES / "litellm" / "proxy-curl-i.txt"
PALMYRA = TRACES / "writer" / "palmyra-x5-all-null.sse"


def test_openai_python_names_the_type_that_failed_its_assertion() -> None:
    raised = _raised(LITELLM, "openai-python")
    assert raised.name == "AssertionError"
    assert raised.field == "choices[0].delta.tool_calls[0].type"
    assert raised.value == '"FUNCTION"'
    assert raised.line == _lines_with(LITELLM, '"type":"FUNCTION"')[0] == 14
    assert raised.cause() == 'choices[0].delta.tool_calls[0].type = "FUNCTION"'
    # type: null on a continuation, in another capture
    raised = _raised(PALMYRA, "openai-python")
    assert (raised.field, raised.value) == ("choices[0].delta.tool_calls[0].type", "null")
    assert raised.line == _lines_with(PALMYRA, '"type":null')[0]


def test_openai_node_strict_names_the_identity_field_that_changed() -> None:
    raised = _raised(LITELLM, "openai-node-strict")
    assert raised.message == "Chat completion stream contains a changed tool call identity"
    assert (raised.field, raised.value) == ("choices[0].delta.tool_calls[0].type", '"FUNCTION"')
    assert raised.line == 14
    path = TRACES / "dashscope" / "glm-5.2-id-and-name-empty.sse"
    raised = _raised(path, "openai-node-strict")
    assert (raised.field, raised.value) == ("choices[0].delta.tool_calls[0].function.name", '""')
    assert raised.line == _lines_with(path, '"name":""')[0]


def test_ai_sdk_type_validation_says_which_field_failed_which_schema() -> None:
    parts = _assemblies(LITELLM)["ai-sdk-openai"].error_parts
    lines = _lines_with(LITELLM, '"type":"FUNCTION"')
    assert [p.line for p in parts] == lines and len(lines) == 3
    for part in parts:
        assert part.message == "Type validation failed"
        assert part.field == "choices[0].delta.tool_calls[0].type"
        assert (part.expected, part.value) == ('"function" or null', '"FUNCTION"')
        assert part.cause() == (
            'choices[0].delta.tool_calls[0].type: expected "function" or null, got "FUNCTION"'
        )
    # the openai-compatible schema takes any type, but not a name that is not a string
    path = SCENARIOS / "id_number_cont.sse"
    parts = _assemblies(path)["ai-sdk-openai-compatible"].error_parts
    assert parts and all(p.field == "choices[0].delta.tool_calls[0].id" for p in parts)
    assert [p.line for p in parts] == _lines_with(path, '"id": 0}')
    assert {(p.expected, p.value) for p in parts} == {("string or null", "0")}


def test_chunk_problem_paths_and_chunk_ok_agree() -> None:
    name_null = {"choices": [{"index": 0, "delta": _call(function={"name": 7})}]}
    assert chunk_problem(name_null, True) == (
        "choices[0].delta.tool_calls[0].function.name",
        "string or null",
        7,
    )
    no_fn = {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0}, {"index": 1}]}}]}
    found = chunk_problem(no_fn, False)
    assert found is not None
    assert found[:2] == ("choices[0].delta.tool_calls[0].function", "object")
    second = {"choices": [{"index": 0, "delta": {}}, {"delta": {}}]}  # openai wants an index
    found = chunk_problem(second, False)
    assert found is not None and found[:2] == ("choices[1].index", "number")
    assert chunk_problem(second, True) is None and chunk_ok(second, True)
    usage = {"choices": [], "usage": {"completion_tokens_details": {"reasoning_tokens": "1"}}}
    found = chunk_problem(usage, True)
    assert found is not None
    assert found[0] == "usage.completion_tokens_details.reasoning_tokens"
    assert not chunk_ok(usage, True) and not chunk_ok(usage, False)


def test_a_throw_at_the_end_of_the_stream_points_at_the_payload_that_opened_the_call() -> None:
    path = TRACES / "captures" / "name-never-sent.sse"
    raised = _raised(path, "ai-sdk-openai-compatible")
    assert raised.message == "Expected 'function.name' to be a string."  # verbatim, names it
    assert raised.line is None  # thrown when the stream ended…
    assert raised.field == "choices[0].delta.tool_calls[0].function.name"
    assert raised.field_line == _lines_with(path, '"tool_calls"')[0]  # …over the first delta
    buffered = _raised(path, "openai-agents-buffered")
    assert buffered.field == "choices[0].delta.tool_calls[0].function.name"
    assert buffered.field_line == raised.field_line and buffered.line is None


def test_a_delta_without_function_is_named_by_the_libraries_that_trip_on_it() -> None:
    path = SCENARIOS / "fn_absent.sse"
    line = _lines_with(path, '"tool_calls": [{"index": 0}]}')[0]
    for key, name in (
        ("openai-python", "AssertionError"),
        ("langchain", "AttributeError"),
        ("llamaindex", "AssertionError"),
    ):
        raised = _raised(path, key)
        assert raised.name == name
        assert raised.field == "choices[0].delta.tool_calls[0].function", key
        assert raised.cause() == "choices[0].delta.tool_calls[0].function is absent", key
        assert raised.line == line, key


def test_validation_errors_name_the_field_pydantic_rejects(tmp_path: Path) -> None:
    path = _sse(
        tmp_path,
        _chunk({"role": "assistant", **_FIRST}),
        _chunk(_call(id=7, function={"arguments": "{}"})),
        _chunk({}, "tool_calls"),
    )
    line = _lines_with(path, '"id": 7')[0]
    for key in ("langchain", "semantic-kernel"):
        raised = _raised(path, key)
        assert raised.name == "ValidationError", key
        assert (raised.field, raised.value, raised.line) == (
            "choices[0].delta.tool_calls[0].id",
            "7",
            line,
        ), key


def test_an_error_object_is_named_as_the_field_that_made_the_sdks_throw() -> None:
    path = TRACES / "openrouter" / "error-midstream.sse"
    raised = _raised(path, "openai-python")
    assert raised.name == "APIError" and raised.field == "error"
    assert "Upstream provider disconnected" in raised.value
    assert raised.line == _lines_with(path, '"error"')[0]


def test_the_line_is_each_payload_s_own_in_a_folded_run(tmp_path: Path) -> None:
    """A long run of continuations folds into one frame; each error part (and a throw inside
    the run) still says its own payload's line."""
    pieces = ['{"a": "', *("x" for _ in range(60)), '"}']
    chunks = [_chunk({"role": "assistant", **_FIRST})]
    chunks += [_chunk(_call(type="FUNCTION", function={"arguments": p})) for p in pieces]
    chunks.append(_chunk({}, "tool_calls"))
    path = _sse(tmp_path, *chunks)
    upper = _lines_with(path, '"FUNCTION"')
    assert len(upper) == len(pieces)
    parts = _assemblies(path)["ai-sdk-openai"].error_parts
    assert [p.line for p in parts] == upper
    assert {p.field for p in parts} == {"choices[0].delta.tool_calls[0].type"}
    raised = _raised(path, "openai-python")
    assert raised.line == upper[0] and raised.value == '"FUNCTION"'


def test_a_huge_value_is_said_cut(tmp_path: Path) -> None:
    huge = "n" * 5_000_000
    path = _sse(
        tmp_path,
        _chunk({"role": "assistant", **_FIRST}),
        _chunk(_call(function={"name": huge, "arguments": "{}"})),
        _chunk({}, "tool_calls"),
    )
    raised = _raised(path, "openai-node-strict")
    assert raised.field == "choices[0].delta.tool_calls[0].function.name"
    assert len(raised.value) < 300 and raised.value.startswith('"nnnn')
    assert "4,999,800 more characters" in raised.value


def test_arguments_that_do_not_parse_point_at_the_call_s_first_delta() -> None:
    path = TRACES / "captures" / "parallel-out-of-order.sse"
    raised = _raised(path, "openai-node-strict")
    assert raised.message == "Error reading response: invalid structured output JSON."
    assert raised.field == "choices[0].delta.tool_calls[0].function.arguments"
    assert raised.expected == "complete JSON" and raised.value.startswith('"{')
    opened = _lines_with(path, '"tool_calls"')
    assert raised.field_line == opened[0] and raised.line is not None
    assert raised.line > raised.field_line  # thrown when the next call started


def test_a_throw_about_the_stream_as_a_whole_names_no_field() -> None:
    raised = _raised(TRACES / "captures" / "truncated-no-done.sse", "openai-node")
    assert raised.message == "missing finish_reason for choice 0"
    assert raised.field == "" and raised.cause() == "" and raised.explained() == ""


def test_a_sort_that_fails_at_the_end_names_the_index_that_broke_it(tmp_path: Path) -> None:
    """Haystack sorts its calls by index when the stream ends: a second delta without an
    index beside a numbered one throws there, naming that delta's index and its line."""
    second = {"function": {"name": "g", "arguments": "{}"}, "id": "call_2"}
    path = _sse(
        tmp_path,
        _chunk({"role": "assistant", **_FIRST}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}, second]}),
        _chunk({}, "tool_calls"),
    )
    raised = _raised(path, "haystack")
    assert raised.name == "TypeError" and raised.line is None
    assert raised.cause() == "choices[0].delta.tool_calls[1].index is absent"
    assert raised.field_line == _lines_with(path, '"call_2"')[0]


def _cont(**fields: Any) -> dict[str, Any]:
    """A continuation of call 0 carrying ``fields`` beside an arguments piece."""
    return _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}, **fields}]})


CASES = [
    # (library, second payload, its marker in the file, error name, field, value)
    ("openai-node", _cont(index=200), '"index": 200', "Error", "index", "200"),
    ("llamaindex", _cont(id=7), '"id": 7', "TypeError", "id", "7"),
    ("openai-agents", _cont(id=7), '"id": 7', "ValidationError", "id", "7"),
    ("openai-agents-buffered", _cont(id=7), '"id": 7', "ValidationError", "id", "7"),
    (
        "refuse-conflicting-identity",
        _chunk(_call(function={"name": "g", "arguments": "{}"})),
        '"name": "g"',
        "MALFORMED_TOOL_CALL",
        "function.name",
        '"g"',
    ),
    (  # the SDK builds chunks unvalidated: a number reaches the parts manager's `+=`
        "pydantic-ai",
        _chunk(_call(function={"name": 7, "arguments": "{}"})),
        '"name": 7',
        "TypeError",
        "function.name",
        "7",
    ),
    (
        "langchain-js",
        _chunk(_call(function={"name": 7, "arguments": "{}"})),
        '"name": 7',
        "Error",
        "function.name",
        "7",
    ),
]


def test_each_library_names_the_field_of_the_payload_it_threw_on(tmp_path: Path) -> None:
    for n, (key, second, marker, name, field, value) in enumerate(CASES):
        path = _sse(
            tmp_path,
            _chunk({"role": "assistant", **_FIRST}),
            second,
            _chunk({}, "tool_calls"),
            name=f"{n}.sse",
        )
        raised = _raised(path, key)
        assert raised.name == name, key
        assert raised.field == f"choices[0].delta.tool_calls[0].{field}", key
        assert raised.value == value, key
        assert raised.where == _lines_with(path, marker)[0], key


def test_an_index_past_the_calls_is_named(tmp_path: Path) -> None:
    path = TRACES / "captures" / "parallel-out-of-order.sse"
    raised = _raised(path, "openai-python")
    assert raised.name == "IndexError"
    assert raised.cause() == "choices[0].delta.tool_calls[0].index = 1"
    assert raised.line == _lines_with(path, '"tool_calls"')[0]


def test_a_huge_error_message_is_said_cut_in_every_outcome(tmp_path: Path) -> None:
    """An error chunk's 5 MB message: each library that throws it says its start and how much
    more there is (not a 5 MB copy per library); a message of 2,000 characters is said whole."""
    for size, whole in ((5_000_000, False), (2_000, True)):
        message = "m" * size
        error = {"error": {"message": message, "code": 400}, "choices": []}
        path = _sse(tmp_path, _chunk({"role": "assistant", **_FIRST}), error)
        (source,) = discover([path]).sources
        outcomes = assess(load_trace(source))
        thrown = [o for o in outcomes.values() if o.assembly.raised is not None]
        assert len(thrown) >= 10  # (the SDKs and every Python library on openai-python)
        for o in thrown:
            assert o.assembly.raised is not None and o.assembly.raised.message == message
            if o.assembly.raised.name != "APIError":
                continue
            if whole:
                assert message in o.outcome and "more characters" not in o.outcome
            else:
                assert len(o.outcome) < 2_200 and "m" * 2_000 + "…" in o.outcome
                assert "(4,998,000 more characters)" in o.outcome


def test_an_emoji_cut_in_two_between_deltas_is_read_as_json_parse_reads_it(
    tmp_path: Path,
) -> None:
    # A gateway written in JavaScript cuts strings by UTF-16 units: the emoji's two halves
    # go out as lone surrogate escapes in two payloads ("\ud83d", then "\ude00"). JSON.parse
    # and Python's json take them (msgspec does not): every library delivers the call, and
    # no schema reads the payload as "null".
    first, second = '{"t":"hi \ud83d', '\ude00 there"}'
    path = _sse(
        tmp_path,
        _chunk({"role": "assistant", **_FIRST}),
        _chunk(_call(function={"arguments": first})),
        _chunk(_call(function={"arguments": second})),
        _chunk({}, "tool_calls"),
    )
    assert "\\ud83d" in path.read_text(encoding="utf-8")  # (json.dumps wrote the escapes)
    outcomes = assess(load_trace(discover([path]).sources[0]))
    assert {k: o.outcome for k, o in outcomes.items() if not o.ok} == {}
    for key in ("ai-sdk-openai", "ai-sdk-openai-compatible", "langchain-js", "openai-agents-js"):
        (got,) = [c for o in outcomes[key].calls for c in o.got]
        assert got.arguments == first + second, key
        assert outcomes[key].assembly.error_parts == [], key
