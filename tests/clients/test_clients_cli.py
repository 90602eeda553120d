"""``replay-tui check --clients`` on the bundled sample traces: JSON, table, exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from replay_tui.cli import main
from replay_tui.clientlibs import LIBRARIES, POLICIES

TRACES = Path(__file__).resolve().parent.parent.parent / "traces"


def _check_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["check", *args, "--json", str(TRACES)])
    return code, json.loads(capsys.readouterr().out)


def _by_path(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["path"]: t for t in doc["traces"]}


def test_plain_check_json_has_no_clients_key(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = _check_json(capsys)
    assert code == 1
    assert doc["traces"]
    assert all(set(t) == {"path", "verdicts", "flags", "notes"} for t in doc["traces"])


def test_clients_json_gives_every_policy_per_trace(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = _check_json(capsys, "--clients")
    assert code == 1  # the bundled folder has flagged traces whatever the clients say
    for trace in doc["traces"]:
        clients = trace["clients"]
        assert list(clients) == list(POLICIES)
        for outcome in clients.values():
            assert set(outcome) in ({"ok", "outcome"}, {"ok", "outcome", "cause"})
            assert outcome["ok"] == (outcome["outcome"] == "ok")
            assert not outcome["ok"] or "cause" not in outcome
    # a throw says the field that triggered it and its line
    [litellm] = [t for t in doc["traces"] if t["path"].endswith("proxy-curl-i.txt")]
    assert litellm["clients"]["openai-python"]["cause"] == (
        'line 14: choices[0].delta.tool_calls[0].type = "FUNCTION"'
    )


# What the bundled traces do to some libraries (the full matrix is in docs/clients.md).
EXPECTED = {
    ("openai/gpt-4.1-text-then-call.sse", "openai-python"): "ok",
    ("dashscope/qwen3-max-id-empty.sse", "haystack"): 'id erased to ""',
    ("dashscope/qwen3-max-id-empty.sse", "openai-python"): "ok",
    (
        "mistral/glm-5.2-name-empty.sse",
        "openai-node-strict",
    ): "throws Error: Chat completion stream contains a changed tool call identity"
    " (ChatCompletionStream, strict tool)",
    (
        "writer/palmyra-x5-all-null.sse",
        "openai-python",
    ): "throws AssertionError (ChatCompletionStreamState: a call's type stays function)",
    ("captures/late-id.sse", "ai-sdk-openai-compatible"): "id generated",
    (
        "captures/late-id.sse",
        "refuse-first-delta-without-id",
    ): "refuses MALFORMED_TOOL_CALL: model streamed a tool call whose first delta has no id",
    (
        "nvidia-nim/glm-4.7-name-null-then-real.sse",
        "ai-sdk-openai",
    ): "throws AI_InvalidResponseDataError: Expected 'function.name' to be a string."
    " (StreamingToolCallTracker)",
    ("nvidia-nim/glm-4.7-name-null-then-real.sse", "ai-sdk-openai-compatible"): "ok",
    ("ollama/qwen3-no-id.sse", "litellm"): "call dropped (no id: not built)",
    ("ollama/qwen3-no-id.sse", "pydantic-ai"): "id generated",
    ("captures/name-never-sent.sse", "pydantic-ai"): "call dropped (never named: not a part)",
    (
        "captures/parallel-out-of-order.sse",
        "openai-python",
    ): "throws IndexError: list index out of range",
    ("litellm/proxy-curl-i.txt", "llamaindex"): "name concatenated: get_weathernullnullnull",
    (
        "opencode/zen-null-identity-data-after-done.sse",
        "concatenate-identity",
    ): "id concatenated: call_qEQ1zqOeKw2EuuBFUm24pZLJnullnull,"
    " name concatenated: read_filenullnull",
}


@pytest.mark.parametrize(("path", "key"), list(EXPECTED), ids="{0[0]}-{0[1]}".format)
def test_bundled_trace_outcome(capsys: pytest.CaptureFixture[str], path: str, key: str) -> None:
    _, doc = _check_json(capsys, "--clients")
    outcome = _by_path(doc)[path]["clients"][key]
    assert outcome["outcome"] == EXPECTED[(path, key)]
    assert outcome["ok"] == (EXPECTED[(path, key)] == "ok")


def test_clean_traces_break_no_client(capsys: pytest.CaptureFixture[str]) -> None:
    _, doc = _check_json(capsys, "--clients")
    for path in (
        "openai/gpt-4.1-text-then-call.sse",
        "azure/gpt-4o-mini-usage-tail.sse",
        "deepseek/reasoner-reasoning-then-call.sse",
    ):
        assert all(o["ok"] for o in _by_path(doc)[path]["clients"].values()), path


def test_fail_on_clients_sets_the_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    clean = str(TRACES / "openai")
    late = str(TRACES / "captures" / "late-id.sse")  # clean for the harness, not for the AI SDK
    assert main(["check", "--clients", clean]) == 0
    assert main(["check", "--clients", "--fail-on-clients", clean]) == 0
    assert main(["check", "--clients", late]) == 0
    assert main(["check", "--clients", "--fail-on-clients", late]) == 1
    assert main(["check", "--fail-on-clients", late]) == 2  # needs --clients
    assert "needs --clients" in capsys.readouterr().err


def test_table_has_a_clients_column(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", "--clients", "-v", str(TRACES / "dashscope")])
    out = capsys.readouterr().out.splitlines()
    assert "CLIENTS" in out[0]
    assert any(
        "qwen3-max-id-empty.sse" in line and f"1/{len(LIBRARIES)} break" in line for line in out
    )
    assert '    client  haystack: id erased to ""' in out
    # a throw: its outcome, then the field that triggered it and the payload's line
    assert (
        "    client  openai-node-strict: throws Error: Chat completion stream contains a changed"
        " tool call identity (ChatCompletionStream, strict tool)"
        ' · line 11: choices[0].delta.tool_calls[0].function.name = ""'
    ) in out
    assert out[-1].endswith("2 break some client library")
    main(["check", str(TRACES / "dashscope")])
    assert "CLIENTS" not in capsys.readouterr().out


def test_plain_check_does_not_import_the_clients_package() -> None:
    code = (
        "import sys; from replay_tui.cli import main; main(['check', '--json', sys.argv[1]]);"
        " print('replay_tui.clientlibs' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(TRACES / "openai")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_a_trace_judged_with_its_clients_is_let_go_when_the_next_is_judged() -> None:
    """``check --clients`` keeps the trace it judged last, and what its models made, until
    the next trace is judged (a run of one trace exits without freeing them); the next one
    lets them go before it is loaded; a plain ``check`` keeps nothing; and outside of a
    judgement nothing is kept."""
    import importlib

    from replay_tui.clientlibs import assess_json
    from replay_tui.core.discovery import discover

    result = importlib.import_module("replay_tui.core.result")
    first, second = sorted(discover([TRACES]).sources, key=lambda s: s.address)[:2]
    seen: list[Any] = []

    def assess(trace: Any) -> dict[str, Any]:
        seen.append(trace)
        return assess_json(trace)

    assert isinstance(result.judge_source(first, assess=assess), result.TraceResult)
    kept = list(result._LATER)
    assert len(kept) == 3  # its stream of frames, the libraries' outcomes and the trace
    assert kept[2] is seen[0]
    assert isinstance(kept[1], dict) and list(kept[1]) == list(POLICIES)
    result.judge_source(second, assess=assess)
    assert all(x is not y for x in result._LATER for y in kept)
    assert result._LATER[2] is seen[1]
    result.judge_source(first)
    assert result._LATER == []
    result.let_go_later(seen)
    assess_json(seen[0])
    assert result._LATER == []
