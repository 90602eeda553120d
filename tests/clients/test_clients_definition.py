"""docs/clients.md, "What the outcome words mean": the stream's meant identity, a stringified
null after a real value, a reused index, and what is never ok."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from replay_tui.clientlibs import LIBRARIES, assess
from replay_tui.clientlibs.assess import meant_calls
from replay_tui.core.discovery import discover
from replay_tui.core.trace import Trace, load_trace
from replay_tui.core.wire import UNSET
from replay_tui.tui.widgets.clients_model import start_model

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "clients" / "scenarios"


def _trace(tmp_path: Path, *calls: dict[str, Any]) -> Trace:
    env = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunks = [
        {**env, "choices": [{"index": 0, "delta": {"tool_calls": [c]}, "finish_reason": None}]}
        for c in calls
    ]
    chunks[0]["choices"][0]["delta"]["role"] = "assistant"
    chunks.append({**env, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    path = tmp_path / "t.sse"
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")
    return load_trace(discover([path]).sources[0])


def _scenario(name: str) -> Trace:
    return load_trace(discover([SCENARIOS / f"{name}.sse"]).sources[0])


FIRST = {"index": 0, "id": "call_1", "type": "function"}
STRINGIFIED = [
    {**FIRST, "function": {"name": "get_weather", "arguments": ""}},
    {"index": 0, "id": "null", "function": {"name": "null", "arguments": '{"city":'}},
    {"index": 0, "id": "null", "function": {"name": "null", "arguments": ' "Paris"}'}},
]


def test_a_stringified_null_after_a_real_value_means_null(tmp_path: Path) -> None:
    trace = _trace(tmp_path, *STRINGIFIED)
    [meant] = meant_calls(trace.analysis.calls)
    assert (meant.id, meant.name, meant.arguments) == ("call_1", "get_weather", '{"city": "Paris"}')
    out = {k: o.outcome for k, o in assess(trace).items()}
    # the last-wins libraries take the string: not what the stream meant
    assert out["openai-node"] == 'id "null" instead of call_1, name "null" instead of get_weather'
    assert out["litellm"] == out["openai-node"]
    assert (
        out["openai-python"]
        == "id concatenated: call_1nullnull, name concatenated: get_weathernullnull"
    )


def test_the_string_null_as_the_first_name_is_a_name(tmp_path: Path) -> None:
    trace = _trace(tmp_path, {**FIRST, "function": {"name": "null", "arguments": "{}"}})
    [meant] = meant_calls(trace.analysis.calls)
    assert meant.name == "null"
    assert all(o.ok for o in assess(trace).values())


def test_a_new_id_after_complete_arguments_is_a_second_call(tmp_path: Path) -> None:
    trace = _trace(
        tmp_path,
        {**FIRST, "id": "call_a", "function": {"name": "get_weather", "arguments": '{"a": 1}'}},
        {**FIRST, "id": "call_b", "function": {"name": "get_time", "arguments": '{"b": 2}'}},
    )
    meant = meant_calls(trace.analysis.calls)
    assert [(m.id, m.name, m.arguments, m.part) for m in meant] == [
        ("call_a", "get_weather", '{"a": 1}', 0),
        ("call_b", "get_time", '{"b": 2}', 1),
    ]
    outcomes = assess(trace)
    # libraries that correlate by id deliver both calls
    assert outcomes["langchain"].ok and outcomes["ai-sdk-openai-compatible"].ok
    # a last-wins library merges them, as the harness does
    assert outcomes["openai-node"].outcome == (
        "call 0: merged with the next call into one (call_b get_time); "
        "call 0 #2: merged into the call before"
    )
    assert start_model(trace).columns == 3  # the Clients view has a column per meant call


def test_a_new_id_before_the_arguments_are_complete_is_the_same_call(tmp_path: Path) -> None:
    trace = _trace(
        tmp_path,
        {**FIRST, "id": "call_a", "function": {"name": "f", "arguments": '{"a":'}},
        {"index": 0, "id": "call_b", "function": {"arguments": " 1}"}},
    )
    [meant] = meant_calls(trace.analysis.calls)
    assert (meant.id, meant.arguments) == ("call_b", '{"a": 1}')  # the last non-empty id


def test_id_diff_means_the_last_id() -> None:
    out = {k: o.outcome for k, o in assess(_scenario("id_diff")).items()}
    assert out["openai-node"] == "ok"
    assert out["ai-sdk-openai"] == "id call_1 instead of call_x1"


def test_no_library_is_ok_on_a_call_that_never_had_an_id() -> None:
    outcomes = assess(_scenario("eos_no_id"))
    [meant] = meant_calls(_scenario("eos_no_id").analysis.calls)
    assert meant.id is UNSET
    assert not any(outcomes[k].ok for k in LIBRARIES)


def test_an_error_part_is_not_ok_even_when_the_call_is_right() -> None:
    outcome = assess(_scenario("fn_absent"))["ai-sdk-openai-compatible"]
    assert [c.ok for c in outcome.calls] == [True]
    assert not outcome.ok and outcome.outcome == "error part AI_TypeValidationError"


def test_check_clients_json_says_the_same(tmp_path: Path) -> None:
    trace = _trace(tmp_path, *STRINGIFIED)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "replay_tui.cli",
            "check",
            "--clients",
            "--json",
            str(trace.source.path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    clients = json.loads(done.stdout)["traces"][0]["clients"]
    assert clients["openai-node"] == {
        "ok": False,
        "outcome": 'id "null" instead of call_1, name "null" instead of get_weather',
    }
    assert clients["ai-sdk-openai-compatible"]["ok"] is False
