"""Behaviour read from the libraries' sources that the recorded scenarios do not exercise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from replay_tui.clientlibs import assess
from replay_tui.core.discovery import discover
from replay_tui.core.trace import load_trace

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "clients" / "scenarios"


def _sse(tmp_path: Path, *deltas: dict[str, Any], finish: str = "tool_calls") -> Path:
    chunks = [{"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    if chunks:  # the first delta names the role, as every OpenAI-compatible server does
        chunks[0]["choices"][0]["delta"] = {"role": "assistant", **deltas[0]}
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    path = tmp_path / "t.sse"
    path.write_text(body)
    return path


def _outcomes(path: Path) -> dict[str, str]:
    trace = load_trace(discover([path]).sources[0])
    return {k: o.outcome for k, o in assess(trace).items()}


def _call(index: int, cid: str | None, name: str | None, args: str) -> dict[str, Any]:
    fn: dict[str, Any] = {"arguments": args}
    if name is not None:
        fn["name"] = name
    tc: dict[str, Any] = {"index": index, "function": fn}
    if cid is not None:
        tc.update(id=cid, type="function")
    return tc


def test_two_calls_in_one_delta(tmp_path: Path) -> None:
    # LlamaIndex reads only the first tool-call delta of a chunk.
    path = _sse(
        tmp_path,
        {"tool_calls": [_call(0, "a", "f", "{}"), _call(1, "b", "g", "{}")]},
    )
    out = _outcomes(path)
    assert out["llamaindex"] == "call 1: call dropped"
    assert out["openai-python"] == out["langchain"] == out["haystack"] == "ok"


def test_first_index_is_one(tmp_path: Path) -> None:
    # openai-python inserts index 1 at position 0 of an empty list, then looks up [1].
    path = _sse(tmp_path, {"role": "assistant"}, {"tool_calls": [_call(1, "a", "f", "{}")]})
    out = _outcomes(path)
    assert out["openai-python"] == "throws IndexError: list index out of range"
    assert out["openai-node"] == out["litellm"] == "ok"


def test_missing_index(tmp_path: Path) -> None:
    tc = _call(0, "a", "f", "{}")
    del tc["index"]
    out = _outcomes(_sse(tmp_path, {"role": "assistant"}, {"tool_calls": [tc]}))
    assert out["openai-python"].startswith("throws TypeError")
    assert out["openai-node"].startswith("throws Error: Chat completion stream contains an invalid")
    assert out["ai-sdk-openai"].startswith("call dropped; error part AI_TypeValidationError")
    assert out["ai-sdk-openai-compatible"] == out["litellm"] == out["pydantic-ai"] == "ok"


def test_name_arrives_on_the_second_delta(tmp_path: Path) -> None:
    # openai-compatible buffers until a name arrives; @ai-sdk/openai throws at once.
    path = _sse(
        tmp_path,
        {"tool_calls": [_call(0, "a", None, '{"x":')]},
        {"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": " 1}"}}]},
    )
    out = _outcomes(path)
    assert out["ai-sdk-openai-compatible"] == "ok"
    assert out["ai-sdk-openai"].startswith("throws AI_InvalidResponseDataError")
    assert out["pydantic-ai"] == "ok"


def test_text_beside_tool_calls_in_one_chunk(tmp_path: Path) -> None:
    path = _sse(tmp_path, {"content": "Let me look.", "tool_calls": [_call(0, "a", "f", "{}")]})
    out = _outcomes(path)
    assert out["haystack"].startswith("throws ValueError: Only one of `content`")
    assert out["openai-python"] == "ok"


def test_a_changed_id_splits_or_renames(tmp_path: Path) -> None:
    path = _sse(
        tmp_path,
        {"tool_calls": [_call(0, "a", "f", '{"x":')]},
        {"tool_calls": [{"index": 0, "id": "b", "function": {"arguments": " 1}"}}]},
    )
    out = _outcomes(path)
    assert out["openai-node"] == "ok"  # last non-empty id, as accept-identity
    assert out["ai-sdk-openai"] == "id a instead of b"
    assert out["semantic-kernel"] == "split into 2 calls"
    assert out["openai-python"] == "id concatenated: ab"
    assert out["refuse-conflicting-identity"].startswith("refuses MALFORMED_TOOL_CALL")


def test_the_clients_package_does_not_import_textual() -> None:
    code = "import sys, replay_tui.clientlibs; print('textual' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_core_does_not_import_the_client_library_models() -> None:
    # The models are a plug-in layer beside the core: importing every core module leaves them out.
    code = (
        "import sys, pkgutil, importlib, replay_tui.core as core\n"
        "for m in pkgutil.iter_modules(core.__path__):\n"
        "    importlib.import_module('replay_tui.core.' + m.name)\n"
        "print('replay_tui.clientlibs' in sys.modules, len(sys.modules) > 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False True"


def test_a_stream_that_never_names_the_role(tmp_path: Path) -> None:
    # recorded as no_role: openai-node's finalChatCompletion throws, LangChain.js reads the
    # chunks as a ChatMessageChunk without tool calls, the Python libraries do not care
    path = tmp_path / "t.sse"
    path.write_text((SCENARIOS / "no_role.sse").read_text())
    out = _outcomes(path)
    assert out["openai-node"] == "throws Error: missing role for choice 0 (finalChatCompletion)"
    assert out["langchain-js"] == "call dropped"
    assert out["openai-python"] == out["openai-agents-js"] == "ok"
