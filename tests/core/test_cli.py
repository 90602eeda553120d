"""The check and replay commands: output, JSON document, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_tui import __version__
from replay_tui.cli import main

from .helpers import call, chunk, sse, tools, write

CLEAN = sse(chunk({"content": "hello"}, finish="stop"))
ERASING = sse(
    tools(call(0, id="call_1", name="f", arguments="")),
    tools(call(0, id="", arguments="{}")),
    chunk(finish="tool_calls"),
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_clean_folder_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "a.sse", CLEAN)
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 0 and err == ""
    assert out.splitlines()[-1] == "1 trace: 1 clean"


def test_check_flagged_folder_exits_1_with_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "a.sse", CLEAN)
    write(tmp_path, "sub/b.sse", ERASING)
    write(tmp_path, "junk.json", b"{}")
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 1
    lines = out.splitlines()
    assert lines[0].split() == [
        "TRACE",
        "ASSIGN-ALWAYS",
        "ACCEPT-IDENTITY",
        "FLAGS",
        "FIRST",
        "FLAG",
    ]
    assert lines[2].split() == [
        "sub/b.sse",
        "unidentified-call",
        "ok",
        "1",
        "line",
        "3",
        "(erased",
        "id,",
        "call",
        "0)",
    ]
    assert lines[-1] == "2 traces: 1 clean, 1 erasing; 1 skipped"
    assert (
        err
        == "replay-tui: junk.json: JSON that is not a trace (a chunk log needs .jsonl; a HAR export needs .har)\n"
    )


def test_check_json_document_is_exactly_the_spec_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "b.sse", ERASING)
    write(tmp_path, "c.txt", b"hello")
    code, out, _ = run(capsys, "check", "--json", str(tmp_path))
    doc = json.loads(out)
    assert code == 1
    assert list(doc) == ["traces", "skipped"]
    (trace,) = doc["traces"]
    assert list(trace) == ["path", "verdicts", "flags", "notes"]
    assert trace["path"] == "b.sse"
    assert trace["verdicts"] == {"assign-always": "unidentified-call", "accept-identity": "ok"}
    assert trace["flags"] == [{"kind": "erased-id", "line": 3, "call": 0, "value": ""}]
    assert all({"kind", "message"} <= set(n) for n in trace["notes"])
    assert doc["skipped"] == [
        {
            "path": "c.txt",
            "reason": "no SSE field in its first 4 KB (expected lines like 'data: {...}')",
        }
    ]


def test_check_nothing_readable_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "x.png", b"\x89PNG\x00")
    code, _, err = run(capsys, "check", str(tmp_path))
    assert code == 2
    assert err.splitlines()[-1] == "replay-tui: no readable trace found"


def test_check_missing_path_and_usage_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "check", str(tmp_path / "nope"))
    assert code == 2 and "no such file or folder" in err
    code, _, err = run(capsys, "check")
    assert code == 2
    assert err.startswith("replay-tui: the following arguments are required: PATH")
    assert "Traceback" not in err


def test_replay_json_streams_one_chunk_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "b.sse", ERASING)
    code, out, _ = run(capsys, "replay", str(path), "--json", "--behavior", "assign-always")
    chunks = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert chunks[-2:] == [
        {
            "type": "block-end",
            "index": 0,
            "block": {"type": "tool-call", "id": "", "name": "f", "arguments": "{}"},
        },
        {"type": "finish", "reason": {"kind": "tool-calls"}},
    ]
    code, out, _ = run(capsys, "replay", str(path))
    heading, first = out.splitlines()[:2]
    assert heading == (
        "#  line  chunk, as replayed under accept-identity"
        " (the fix; --behavior assign-always for the old translator)"
    )
    assert "tool-call-delta" in out and first.split()[:2] == ["1", "block-start"]
    _, out, _ = run(capsys, "replay", str(path), "--behavior", "assign-always")
    assert out.startswith("#  line  chunk, as replayed under assign-always (the old translator;")


def test_replay_cuts_long_strings_but_keeps_every_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A malformed payload's failure quotes the whole payload, then gives its code: the text
    form cuts the long string, not the chunk (the code was cut off), and --json keeps all."""
    payload = '{"choices":[{"delta":{"content":"' + "x" * 300 + '"}}]'  # (a brace short)
    path = write(tmp_path, "bad.sse", f"data: {payload}\n\ndata: [DONE]\n\n")
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0 and err.startswith(f"replay-tui: {path}:1: not valid JSON")
    finish = out.splitlines()[-1]
    assert finish.split()[:2] == ["1", "finish"]
    assert '"code":"MALFORMED_RESPONSE"' in finish
    _, out, _ = run(capsys, "replay", str(path), "--json")
    message = json.loads(out.splitlines()[-1])["reason"]["failure"]["message"]
    assert message.startswith('malformed SSE payload: {"choices":[{"delta":{"content":"xxx')
    assert len(message) > 130 and message not in finish
    assert f'"message":"{message[:60]}' in finish.replace('\\"', '"')
    assert f"… ({len(message):,} characters)" in finish and len(finish) < 250


def test_replay_names_one_har_stream(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = {
        "request": {"method": "POST", "url": "u"},
        "response": {
            "status": 200,
            "content": {"mimeType": "text/event-stream", "text": CLEAN.decode()},
        },
    }
    path = write(tmp_path, "x.har", json.dumps({"log": {"entries": [entry, entry]}}))
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and "holds 2 streams" in err
    code, out, _ = run(capsys, "replay", f"{path}#2", "--json")
    assert code == 0 and json.loads(out.splitlines()[-1])["type"] == "finish"
    code, _, err = run(capsys, "replay", f"{path}#7")
    assert code == 2 and "no SSE stream at entry #7" in err
    sse_file = write(tmp_path, "one.sse", CLEAN)
    code, _, err = run(capsys, "replay", f"{sse_file}#2")
    assert code == 2 and err == (
        f"replay-tui: {sse_file}#2: not a HAR file (#2 names an entry of a HAR export):"
        " name it alone\n"
    )


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"replay-tui {__version__}"
    for command in ("check", "replay"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and out.startswith(f"usage: replay-tui {command}")


def test_the_table_writes_a_long_path_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pasted into replay, grepped, cut with awk: a path in the table is never cut (a row
    whose path is longer than the column runs on after it)."""
    name = "a-very-long-recorder-capture-name-from-the-gateway-qwen3-max-request-00017.sse"
    write(tmp_path, name, CLEAN)
    write(tmp_path, "a.sse", CLEAN)
    _, out, _ = run(capsys, "check", str(tmp_path))
    rows = out.splitlines()
    assert rows[1].split()[0] == name and rows[2].split()[0] == "a.sse"
    assert rows[0].index("ASSIGN-ALWAYS") == rows[2].index("ok")  # the column is kept


def test_human_output_never_passes_terminal_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = sse(
        tools(call(0, id="c", name="\x1b]52;c;cHduZWQ=\x07[bold red]x", arguments="\x1b[2J")),
        chunk(finish="tool_calls"),
    )
    path = write(tmp_path, "evil\x1b[31m.sse", hostile)
    _, out, err = run(capsys, "check", "-v", str(tmp_path))
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "evil\\u001b[31m.sse" in out
    _, out, _ = run(capsys, "replay", str(path))
    assert "\x1b" not in out
    assert "\\u001b]52;c;cHduZWQ=\\u0007[bold red]x" in out  # shown JSON-escaped
