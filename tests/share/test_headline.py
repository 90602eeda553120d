"""The report's headline agrees with the verdicts and the chunks, on every capture we have.

The oracle here reads the verdicts and the assign-always ``block-end`` chunks, and parses the
capture's JSON lines itself (error objects, calls sent on one index); it shares nothing with
the code that writes the sentence.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from replay_tui.cli.traces import resolve_trace
from replay_tui.core.trace import Trace
from replay_tui.share.report import build_report

from .samples import CORPUS, TRACES, gemini_like_sse

CAPTURES = sorted(
    [p for p in TRACES.rglob("*") if p.suffix in (".sse", ".jsonl", ".txt")]
    + list(CORPUS.glob("*.sse"))
)


def _is_identity(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _closed(trace: Trace) -> list[tuple[Any, Any]]:
    """``(id, name)`` of each tool-call ``block-end`` the old translator emits."""
    return [
        (c["block"]["id"], c["block"]["name"])
        for _, c in trace.replay("assign-always")
        if c.get("type") == "block-end" and c["block"].get("type") == "tool-call"
    ]


def _payloads(raw: bytes) -> list[tuple[int, dict[str, Any]]]:
    """Each JSON object on a line of the capture (SSE ``data:`` lines or a chunk log)."""
    out = []
    for n, line in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
        start = line.find("{")
        if start < 0 or not (line.startswith("data:") or start == 0):
            continue
        try:
            value = json.loads(line[start:])
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append((n, value))
    return out


def _calls_on_one_index(raw: bytes) -> dict[int, int]:
    """Per wire index, how many distinct calls arrived on it (a new non-empty id, or name
    other than ``"null"``, after the first): only those with more than one."""
    seen: dict[int, dict[str, list[str]]] = {}
    for _, chunk in _payloads(raw):
        for choice in chunk.get("choices") or []:
            for call in (choice.get("delta") or {}).get("tool_calls") or []:
                idx = call.get("index", 0)
                fields = seen.setdefault(idx, {"id": [], "name": []})
                cid = call.get("id")
                name = (call.get("function") or {}).get("name")
                if _is_identity(cid) and cid not in fields["id"][-1:]:
                    fields["id"].append(cid)
                if _is_identity(name) and name != "null" and name not in fields["name"][-1:]:
                    fields["name"].append(name)
    return {
        i: max(len(f["id"]), len(f["name"]))
        for i, f in seen.items()
        if len(f["id"]) > 1 or len(f["name"]) > 1
    }


def _error_lines(raw: bytes) -> list[int]:
    return [n for n, chunk in _payloads(raw) if chunk.get("error") not in (None, {})]


def _check(trace: Trace, raw: bytes) -> None:
    a = trace.analysis
    va, vb = a.outcomes["assign-always"].verdict, a.outcomes["accept-identity"].verdict  # type: ignore[index]
    report = build_report(trace)
    text = "".join(t for t, _ in report.headline)
    code = [t for t, is_code in report.headline if is_code]
    closed = _closed(trace)
    no_id = [c for c in closed if not _is_identity(c[0])]
    no_name = [c for c in closed if not _is_identity(c[1])]

    # A session breaks only when a call closes without identity, as the chunk says.
    assert ("will not load" in text) == bool(no_id), text
    assert ("unknown tool" in text) == bool(no_name), text
    for cid, _name in closed:
        if not _is_identity(cid):
            assert json.dumps(cid) in code, text  # "" where the chunk said "", never null
    assert "null" not in " ".join(re.findall(r"closes call \S+ with (.*?) —", text))
    if va == vb == "stream-closed":
        assert not closed
        assert "no call is closed" in text or not a.calls or "Both behaviors end" in text
        assert "stream-closed" in code
    if va == vb == "ok" and not (a.flags or _calls_on_one_index(raw) or _error_lines(raw)):
        assert text.startswith("Clean")
    else:
        assert not text.startswith("Clean"), text
    if vb == "malformed-tool-call":
        assert "MALFORMED_TOOL_CALL" in code
    if va not in ("ok", "unidentified-call"):
        assert va in code, text
    if a.flags:
        first = a.flags[0]
        assert f"(line {first.line})" in text
    for index, count in _calls_on_one_index(raw).items():
        assert f"{count} calls sent on index {index} are merged" in text, text
    errors = _error_lines(raw)
    if errors:
        assert f"line {errors[0]} carries an error object" in text, text
    else:
        assert "error object" not in text


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_headline_agrees_with_verdicts_and_chunks(path: Path) -> None:
    _check(resolve_trace(str(path)), path.read_bytes())


def test_headline_names_merged_calls_and_the_error_object(tmp_path: Path) -> None:
    path = tmp_path / "gemini.sse"
    path.write_bytes(gemini_like_sse(15))
    trace = resolve_trace(str(path))
    _check(trace, path.read_bytes())
    text = "".join(t for t, _ in build_report(trace).headline)
    assert "15 calls sent on index 0 are merged into one" in text
    assert '"code":502' in text


def test_headline_of_a_stream_without_done_says_no_call_closed() -> None:
    trace = resolve_trace(str(CORPUS / "writer__palmyra-x-004__parallel-2-calls__all-null.sse"))
    text = "".join(t for t, _ in build_report(trace).headline)
    assert "no call is closed" in text and "did not break that way" in text
    assert "will not load" not in text
    assert "the same pattern as Writer / vLLM / OpenCode" in text


def test_call_heading_shows_what_the_chunk_closes_with() -> None:
    trace = resolve_trace(str(TRACES / "writer" / "palmyra-x5-all-null.sse"))
    title = build_report(trace).calls[0].title
    assert 'closes as "" / "" under assign-always' in title, title
    assert "null" not in title
    writer = resolve_trace(str(CORPUS / "writer__palmyra-x-004__parallel-2-calls__all-null.sse"))
    assert "never closed under assign-always (no [DONE])" in build_report(writer).calls[0].title
