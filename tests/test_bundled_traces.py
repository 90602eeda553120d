"""Pins what `replay-tui check traces/ --json` must find in the bundled sample traces.

The table below is the contract for `traces/` (documented row by row in `traces/README.md`):
per trace, the verdict under each behavior and the exact assign-always erasure flags as
(kind, line, call). `line` is the 1-based line of the flagged payload's `data:` line in the file
(chunk log: the file line; HAR: the line inside that entry's decoded body); `call` is the wire
`tool_calls[].index`. Editing a trace file means editing its row here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

TRACES = Path(__file__).resolve().parent.parent / "traces"

AA = "assign-always"
AI = "accept-identity"

# fmt: off
# path -> (assign-always verdict, accept-identity verdict, [(flag kind, line, call), ...])
EXPECTED: dict[str, tuple[str, str, list[tuple[str, int, int]]]] = {
    # --- erasing gateways -------------------------------------------------------------------
    "dashscope/qwen3-max-id-empty.sse": (
        "unidentified-call", "ok", [("erased-id", 3, 0)],
    ),
    "dashscope/glm-5.2-id-and-name-empty.sse": (
        "unidentified-call", "ok", [("erased-id", 11, 0), ("erased-name", 11, 0)],
    ),
    "envoy/bedrock-parallel-unterminated-done.sse": (
        "stream-closed", "stream-closed",
        [("erased-id", 9, 0), ("erased-name", 9, 0), ("erased-id", 15, 1), ("erased-name", 15, 1)],
    ),
    "envoy/vertex-anthropic-parallel.sse": (
        "unidentified-call", "ok",
        [("erased-id", 3, 0), ("erased-name", 3, 0), ("erased-id", 9, 1), ("erased-name", 9, 1)],
    ),
    "writer/palmyra-x5-all-null.sse": (
        "unidentified-call", "ok",
        [("erased-id", 5, 0), ("erased-name", 5, 0), ("erased-id", 11, 1), ("erased-name", 11, 1)],
    ),
    "mistral/glm-5.2-name-empty.sse": (
        "unidentified-call", "ok", [("erased-name", 3, 0)],
    ),
    "opencode/zen-null-identity-data-after-done.sse": (
        "unidentified-call", "ok", [("erased-id", 5, 0), ("erased-name", 5, 0)],
    ),
    "litellm/proxy-curl-i.txt": (
        # "name":"null" is a non-empty string: not an erasure, and accept-identity takes it.
        "unidentified-call", "ok", [("erased-id", 14, 0)],
    ),
    "volcengine/ark-chunk-log.jsonl": (
        "unidentified-call", "ok", [("erased-name", 3, 0)],
    ),
    "captures/crlf-framed.sse": (
        "unidentified-call", "ok", [("erased-id", 7, 0)],
    ),
    "captures/mitmproxy-export.har#4": (
        "unidentified-call", "ok", [("erased-id", 3, 0)],
    ),
    "captures/mitmproxy-export.har#5": (
        "unidentified-call", "ok", [("erased-name", 3, 0)],
    ),
    # --- never identified: refused by the fix, closed empty by the old code, nothing to flag ---
    "ollama/qwen3-no-id.sse": ("unidentified-call", "malformed-tool-call", []),
    "captures/name-never-sent.sse": ("unidentified-call", "malformed-tool-call", []),
    # --- identity arrives late: fine under both ----------------------------------------------
    "nvidia-nim/glm-4.7-name-null-then-real.sse": ("ok", "ok", []),
    "captures/late-id.sse": ("ok", "ok", []),
    # --- clean ---------------------------------------------------------------------------------
    "openai/gpt-4.1-text-then-call.sse": ("ok", "ok", []),
    "azure/gpt-4o-mini-usage-tail.sse": ("ok", "ok", []),
    "deepseek/reasoner-reasoning-then-call.sse": ("ok", "ok", []),
    "openrouter/processing-comments.sse": ("ok", "ok", []),
    "captures/parallel-out-of-order.sse": ("ok", "ok", []),
    "captures/mitmproxy-export.har#2": ("ok", "ok", []),
    # --- broken for reasons other than identity ----------------------------------------------
    "captures/truncated-no-done.sse": ("stream-closed", "stream-closed", []),
    "captures/empty-response.sse": ("empty-response", "empty-response", []),
    "captures/empty-finish-reason.sse": ("model-error", "model-error", []),
    "openrouter/error-midstream.sse": ("model-error", "model-error", []),
}
# fmt: on

# A few notes whose presence is certain (path -> note kinds that must be among its notes).
EXPECTED_NOTES: dict[str, set[str]] = {
    "volcengine/ark-chunk-log.jsonl": {"done-implied"},
    "opencode/zen-null-identity-data-after-done.sse": {"data-after-done"},
    "litellm/proxy-curl-i.txt": {"name-string-null", "gateway-pattern"},
    "nvidia-nim/glm-4.7-name-null-then-real.sse": {"late-identity"},
    "captures/late-id.sse": {"late-identity"},
    "openrouter/error-midstream.sse": {"error-object"},
}

# HAR entries whose response is not a stream (GET /v1/models, a 429 JSON error).
NOT_TRACES = ["captures/mitmproxy-export.har#1", "captures/mitmproxy-export.har#3"]


def _run_check(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    from replay_tui.cli import main

    capsys.readouterr()
    try:
        code = main(["check", str(TRACES), "--json"])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr().out
    if code is None:
        code = 0
    assert isinstance(code, int), f"exit status is not an int: {code!r}"
    return code, json.loads(out)


_CACHE: dict[str, tuple[int, dict[str, Any]]] = {}


@pytest.fixture
def checked(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    """One in-process `check` run, shared by every test of this module (capsys is per test)."""
    if "run" not in _CACHE:
        _CACHE["run"] = _run_check(capsys)
    return _CACHE["run"]


def _by_path(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    traces = doc["traces"]
    paths = [t["path"] for t in traces]
    assert len(paths) == len(set(paths)), f"a trace is listed twice: {sorted(paths)}"
    return {t["path"]: t for t in traces}


def test_exit_status_is_1_because_traces_are_flagged(checked: tuple[int, dict[str, Any]]) -> None:
    code, _ = checked
    assert code == 1


def test_exactly_the_bundled_streams_are_traces(checked: tuple[int, dict[str, Any]]) -> None:
    _, doc = checked
    assert set(_by_path(doc)) == set(EXPECTED)
    for path in NOT_TRACES:
        assert path not in _by_path(doc)


def test_non_trace_files_are_skipped(checked: tuple[int, dict[str, Any]]) -> None:
    _, doc = checked
    skipped = {s["path"] for s in doc["skipped"]}
    assert "captures/request-body.json" in skipped
    assert not skipped & set(EXPECTED)


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_verdicts(path: str, checked: tuple[int, dict[str, Any]]) -> None:
    _, doc = checked
    trace = _by_path(doc)[path]
    want_aa, want_ai, _ = EXPECTED[path]
    assert trace["verdicts"] == {AA: want_aa, AI: want_ai}


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_flags(path: str, checked: tuple[int, dict[str, Any]]) -> None:
    _, doc = checked
    trace = _by_path(doc)[path]
    got = sorted((f["kind"], f["line"], f["call"]) for f in trace["flags"])
    want = sorted(EXPECTED[path][2])
    assert got == want


@pytest.mark.parametrize("path", sorted(EXPECTED_NOTES))
def test_certain_notes(path: str, checked: tuple[int, dict[str, Any]]) -> None:
    _, doc = checked
    kinds = {n["kind"] for n in _by_path(doc)[path]["notes"]}
    assert EXPECTED_NOTES[path] <= kinds, f"{path}: notes {sorted(kinds)}"


def test_table_matches_the_files_on_disk() -> None:
    """Guards the table itself: every expected trace names a file that exists."""
    for path in EXPECTED:
        assert (TRACES / path.split("#", 1)[0]).is_file(), path
