"""Trace content is untrusted: ``check`` and ``replay`` never let it act on the terminal.

Control sequences (ESC, OSC 52 clipboard writes, cursor movement, OSC 8 hyperlinks, C1
controls, bidi overrides) reach the output as visible escapes; markup (``[bold]``,
``[link=…]``) is printed as the literal text it is, since the human output is plain text.
Each place a trace's text can surface is covered: file names, payload values in notes and
flags, wire call indexes, HTTP headers, HAR URLs, decode errors on stderr, replayed chunks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import RAW_CONTROL, run_cli

HOSTILE = {
    "escape": ("\x1b[31mred", "\\u001b[31mred"),
    "osc52": ("\x1b]52;c;cHduZWQ=\x07", "\\u001b]52;c;cHduZWQ=\\u0007"),
    "cursor": ("\x1b[2J\x1b[H\x1b[10A", "\\u001b[2J\\u001b[H\\u001b[10A"),
    "osc8": (
        "\x1b]8;;https://evil.example\x1b\\x\x1b]8;;\x1b\\",
        "\\u001b]8;;https://evil.example\\u001b\\x",
    ),
    "c1": ("\x9b2J", "\\u009b2J"),
    "bell": ("\x07\x08", "\\u0007\\u0008"),
    "bidi": ("\u202eevil", "\\u202eevil"),
    # invisible: a name that reads "get_weather" and is not (the registry's "unknown tool")
    "zero-width": ("get\u200b_weather", "get\\u200b_weather"),
    "joiners": ("a\u2060b\ufeffc\u00add\u200ee", "a\\u2060b\\ufeffc\\u00add\\u200ee"),
    "rich": ("[bold red]markup[/]", "[bold red]markup[/]"),
    "link": ("[link=https://evil.example]x[/link]", "[link=https://evil.example]x[/link]"),
}


def _sse_with(text: str, *, broken: bool = False) -> bytes:
    """A trace carrying ``text`` everywhere a string goes: content, name, index, arguments
    (which do not parse, so a note quotes them), an erasing value, finish reason, error."""
    s = json.dumps(text)
    events = [
        '{"choices":[{"delta":{"content":' + s + "}}]}",
        '{"choices":[{"delta":{"tool_calls":[{"index":' + s + ',"id":"call_1",'
        '"function":{"name":' + s + ',"arguments":""}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":' + s + ',"id":{"m":' + s + "},"
        '"function":{"arguments":' + s + "}}]}}]}",
        '{"choices":[{"delta":{},"finish_reason":' + s + '}],"error":{"message":' + s + "}}",
    ]
    if broken:
        events.append("{" + text)
    events.append("[DONE]")
    return "".join(f"data: {e}\n\n" for e in events).encode("utf-8")


def _assert_shown_escaped(output: str, raw: str, shown: str) -> None:
    assert RAW_CONTROL.search(output) is None, output
    if raw != shown:
        assert raw not in output
    assert shown in output, (shown, output)


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_check_table_shows_hostile_text_escaped(tmp_path: Path, kind: str) -> None:
    raw, shown = HOSTILE[kind]
    (tmp_path / "t.sse").write_bytes(_sse_with(raw))
    code, out, err = run_cli(["check", "-v", str(tmp_path)])
    assert code == 1
    _assert_shown_escaped(out.decode("utf-8"), raw, shown)
    assert RAW_CONTROL.search(err) is None


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_replay_text_shows_hostile_text_escaped(tmp_path: Path, kind: str) -> None:
    raw, _ = HOSTILE[kind]
    (tmp_path / "t.sse").write_bytes(_sse_with(raw))
    for behavior in ("assign-always", "accept-identity"):
        code, out, err = run_cli(["replay", str(tmp_path / "t.sse"), "--behavior", behavior])
        assert code == 0
        text = out.decode("utf-8")
        assert RAW_CONTROL.search(text) is None, text
        assert RAW_CONTROL.search(err) is None, err
        if kind in ("rich", "link"):
            assert raw in text or json.dumps(raw)[1:-1] in text


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_replay_errors_on_stderr_are_escaped(tmp_path: Path, kind: str) -> None:
    raw, _ = HOSTILE[kind]
    (tmp_path / "t.sse").write_bytes(_sse_with(raw, broken=True))
    code, out, err = run_cli(["replay", str(tmp_path / "t.sse")])
    assert code == 0
    assert RAW_CONTROL.search(err) is None, err
    assert err.startswith(f"replay-tui: {tmp_path / 't.sse'}:9: ") and "column" in err
    text = out.decode("utf-8")
    assert RAW_CONTROL.search(text) is None, text
    assert "MALFORMED_RESPONSE" in text


@pytest.mark.parametrize("kind", ["escape", "osc52", "cursor", "c1", "bidi", "link"])
def test_file_names_headers_and_har_fields_are_escaped(tmp_path: Path, kind: str) -> None:
    raw, shown = HOSTILE[kind]
    safe_raw = raw.replace("/", "|")  # a file name cannot hold a slash
    safe_shown = shown.replace("/", "|")
    folder = tmp_path / "caps"
    folder.mkdir()
    (folder / f"{safe_raw}.sse").write_bytes(_sse_with("x"))
    (folder / f"bad{safe_raw}.bin").write_bytes(b"\x00\x01")  # skipped: named on stderr
    head = f"HTTP/1.1 200 {raw}\r\nx-gw: {raw}\r\ncontent-type: text/event-stream\r\n\r\n"
    (folder / "curl.txt").write_bytes(head.encode("utf-8") + _sse_with("x"))
    har = {
        "log": {
            "entries": [
                {
                    "request": {"method": raw, "url": f"https://gw/{raw}"},
                    "response": {
                        "statusText": raw,
                        "content": {
                            "mimeType": "text/event-stream",
                            "text": _sse_with(raw).decode(),
                        },
                    },
                }
            ]
        }
    }
    (folder / "x.har").write_text(json.dumps(har))
    code, out, err = run_cli(["check", "-v", str(folder)])
    text = out.decode("utf-8")
    assert RAW_CONTROL.search(text) is None and RAW_CONTROL.search(err) is None
    assert f"{safe_shown}.sse" in text
    assert f"bad{safe_shown}.bin" in err
    code, out, _ = run_cli(["check", "--json", str(folder)])
    doc = json.loads(out)  # JSON carries the same text as \u escapes, exactly
    assert f"{safe_raw}.sse" in {t["path"] for t in doc["traces"]}
    code, out, err = run_cli(["replay", str(folder / "x.har#1")])
    assert code == 0
    assert RAW_CONTROL.search(out.decode("utf-8")) is None and RAW_CONTROL.search(err) is None


def test_json_output_escapes_controls_and_keeps_text_exact(tmp_path: Path) -> None:
    everything = "".join(raw for raw, _ in HOSTILE.values()) + "\ud800"
    (tmp_path / "t.sse").write_bytes(_sse_with(everything).replace(b"\\ud800", b"\\ud800"))
    code, out, _ = run_cli(["check", "--json", str(tmp_path)])
    assert not any(b < 0x20 for b in out.rstrip(b"\n"))  # no raw control byte at all
    assert b"\x1b" not in out and b"\xc2\x9b" not in out.replace(b"\\u009b", b"")
    doc = json.loads(out)
    [trace] = doc["traces"]
    assert trace["flags"][0]["value"] == {"m": everything}  # the exact erasing value
    code, out, _ = run_cli(["replay", str(tmp_path / "t.sse"), "--json"])
    assert code == 0
    chunks = [json.loads(line) for line in out.splitlines()]
    assert any(c.get("text") == everything for c in chunks)
