""" "What to change": per pattern, what the stream sent (read here from the capture's own
JSON), what the OpenAI streaming format sends instead, and what the agent saw."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from replay_tui.cli.traces import resolve_trace
from replay_tui.share.report import build_report

from .samples import CORPUS, TRACES

Cli = Callable[..., tuple[int, str, str]]

ERASING = [
    TRACES / "writer" / "palmyra-x5-all-null.sse",
    TRACES / "dashscope" / "qwen3-max-id-empty.sse",
    TRACES / "dashscope" / "glm-5.2-id-and-name-empty.sse",
    TRACES / "mistral" / "glm-5.2-name-empty.sse",
    TRACES / "envoy" / "vertex-anthropic-parallel.sse",
    TRACES / "litellm" / "proxy-curl-i.txt",
    CORPUS / "writer__palmyra-x-004__parallel-2-calls__all-null.sse",
]


def _text(spans: list[tuple[str, bool]]) -> str:
    return "".join(t for t, _ in spans)


def _first_erasing_delta(path: Path) -> tuple[int, dict[str, Any]]:
    """The line and tool call of the first delta whose id or name is present and not a
    non-empty string, after one that was (found by reading the capture's JSON)."""
    named: set[int] = set()
    for n, line in enumerate(path.read_text().splitlines(), 1):
        start = line.find("{")
        if not line.startswith("data:") or start < 0:
            continue
        chunk = json.loads(line[start:])
        for choice in chunk.get("choices") or []:
            for call in (choice.get("delta") or {}).get("tool_calls") or []:
                idx = call.get("index")
                fields = {
                    "id": call.get("id", ...),
                    "name": (call.get("function") or {}).get("name", ...),
                }
                if idx in named and any(
                    v is not ... and not (isinstance(v, str) and v) for v in fields.values()
                ):
                    return n, fields
                if isinstance(fields["id"], str) and fields["id"]:
                    named.add(idx)
    raise AssertionError("no erasing delta")


@pytest.mark.parametrize("path", ERASING, ids=lambda p: p.name)
def test_the_first_change_quotes_what_the_stream_sent(path: Path) -> None:
    line, fields = _first_erasing_delta(path)
    changes = build_report(resolve_trace(str(path))).changes
    sent = _text(changes[0].sent)
    assert sent.startswith(f"Line {line}: a continuation delta of call ")
    carried = ", ".join(f'"{k}": {json.dumps(v)}' for k, v in fields.items() if v is not ...)
    assert (carried, True) in changes[0].sent, (sent, carried)
    should = _text(changes[0].should)
    assert "once, on a call's first delta: omit" in should
    assert "or repeat the same value" in should
    assert _text(changes[0].saw)


def test_a_stream_without_done_is_told_to_send_it() -> None:
    trace = resolve_trace(str(CORPUS / "writer__palmyra-x-004__parallel-2-calls__all-null.sse"))
    changes = build_report(trace).changes
    assert [s for s in changes[-1].sent if s[1]] == [("data: [DONE]", True)]
    assert "No call closed" in _text(changes[0].saw)
    assert "unknown tool" not in _text(changes[0].saw)


def test_a_call_never_identified_is_a_change_with_its_wire_line(cli: Cli) -> None:
    path = TRACES / "ollama" / "qwen3-no-id.sse"
    report = build_report(resolve_trace(str(path)))
    assert report.flags == 0
    (change,) = report.changes
    assert (
        _text(change.sent)
        == "Line 1: call 0 carries no id on its first delta, and no later delta names it"
    )
    assert "non-empty id on its first delta" in _text(change.should)
    assert "refuses the response and retries" in _text(change.saw)
    # Its wire line is shown, around the tool call, though nothing was flagged.
    (excerpt,) = report.excerpts
    shown = next(r for r in excerpt.lines if r.flagged)
    assert shown.number == 1 and '"tool_calls":[{"index":0' in shown.text
    code, md, _ = cli("report", str(path), "--md")
    assert code == 0 and "**What to change**" in md and "call 0 never identified" in md


def test_a_clean_trace_has_nothing_to_change() -> None:
    report = build_report(resolve_trace(str(CORPUS / "openai__gpt-5__parallel-2-calls.sse")))
    assert report.changes == []
