"""Trace forms and discovery (README, Trace files): curl -i, chunk logs, HAR, folders, skipped files."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from replay_tui.core.discovery import discover
from replay_tui.core.trace import Form, load_trace

from .helpers import call, chunk, only_trace, sse, tools, write

ERASING = sse(
    tools(call(0, id="call_1", name="f", arguments="")),
    tools(call(0, id="", arguments="{}")),
    chunk(finish="tool_calls"),
)


def test_curl_i_capture_keeps_status_and_headers_and_file_line_numbers(tmp_path: Path) -> None:
    head = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/2 200\r\ncontent-type: text/event-stream\r\nx-request-id: abc\r\n\r\n"
    trace = only_trace(write(tmp_path, "cap.txt", head + ERASING))
    assert trace.source.form is Form.HTTP
    assert ("status", "HTTP/2 200") in trace.meta
    assert ("header x-request-id", "abc") in trace.meta
    assert ("interim responses", "100") in trace.meta
    assert trace.payloads[0].line == 7  # lines counted from the top of the file
    assert [(f.kind, f.line) for f in trace.analysis.flags] == [("erased-id", 9)]


def test_chunk_log_with_implied_done(tmp_path: Path) -> None:
    lines = [
        json.dumps(tools(call(0, id="c", name="f", arguments="{}"))),
        "",
        json.dumps(chunk(finish="tool_calls")),
    ]
    trace = only_trace(write(tmp_path, "log.jsonl", "\n".join(lines) + "\n"))
    assert trace.verdicts == {"assign-always": "ok", "accept-identity": "ok"}
    assert [p.line for p in trace.payloads] == [1, 3]
    assert "done-implied" in {n.kind for n in trace.notes}
    assert trace.replay("accept-identity")[-1][1] == {
        "type": "finish",
        "reason": {"kind": "tool-calls"},
    }


def test_chunk_log_with_done_line_and_data_prefixes(tmp_path: Path) -> None:
    text = "data: " + json.dumps(chunk({"content": "x"}, finish="stop")) + "\r\n[DONE]\r\n"
    trace = only_trace(write(tmp_path, "log.ndjson", text))
    assert trace.verdicts["accept-identity"] == "ok"
    kinds = {n.kind for n in trace.notes}
    assert "data-prefix" in kinds and "done-implied" not in kinds


def har(*entries: object) -> bytes:
    return json.dumps({"log": {"version": "1.2", "entries": list(entries)}}).encode()


def entry(
    body: bytes,
    mime: str = "text/event-stream",
    b64: bool = False,
    url: str = "https://gw/v1/chat/completions",
) -> dict[str, object]:
    content: dict[str, object] = {"mimeType": mime, "size": len(body)}
    if b64:
        content.update(text=base64.b64encode(body).decode(), encoding="base64")
    else:
        content["text"] = body.decode()
    return {
        "startedDateTime": "2026-09-01T10:00:00Z",
        "request": {
            "method": "POST",
            "url": url,
            "headers": [],
            "postData": {
                "mimeType": "application/json",
                "text": json.dumps(
                    {
                        "model": "qwen3-max",
                        "tools": [{"type": "function", "function": {"name": "f"}}],
                    }
                ),
            },
        },
        "response": {"status": 200, "statusText": "OK", "headers": [], "content": content},
    }


def test_har_streams_are_addressed_by_entry_position(tmp_path: Path) -> None:
    models = entry(b'{"data": []}', mime="application/json", url="https://gw/v1/models")
    data = har(
        models, entry(ERASING), entry(ERASING, b64=True), entry(b"data: x\n\n", mime="text/plain")
    )
    write(tmp_path, "cap.har", data)
    found = discover([tmp_path])
    assert [s.address for s in found.sources] == ["cap.har#2", "cap.har#3", "cap.har#4"]
    traces = [load_trace(s) for s in found.sources]
    assert [t.verdicts["assign-always"] for t in traces[:2]] == ["unidentified-call"] * 2
    assert ("model", "qwen3-max") in traces[0].meta and ("tools", "f") in traces[0].meta
    assert traces[0].payloads[0].line == 1  # lines inside the entry's body


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"log": {"entries": [}', "not valid JSON at line 1, column 22"),
        (
            b'{\n  "log": {"entries": {}}\n}',
            "not a HAR 1.2 document: Expected `array`, got `object` - at `$.log.entries`",
        ),
        (b"", "empty file"),
        (
            har(entry(b"{}", mime="application/json")),
            "HAR with 1 entry, none of them an SSE stream",
        ),
    ],
)
def test_bad_har_files_are_skipped_with_a_located_reason(
    tmp_path: Path, data: bytes, reason: str
) -> None:
    write(tmp_path, "bad.har", data)
    write(tmp_path, "good.sse", ERASING)
    found = discover([tmp_path])
    assert [s.address for s in found.sources] == ["good.sse"]
    assert [s.path for s in found.skipped] == ["bad.har"]
    assert found.skipped[0].reason.startswith(reason)


def test_an_entry_broken_beside_its_body_is_judged_and_says_what_broke(tmp_path: Path) -> None:
    """A status written as a string breaks HAR's schema, not the stream: the stream was
    thrown away (judged as an empty body, "broken"); it is judged, the note says why."""
    odd = entry(ERASING)
    odd["response"]["status"] = "200 OK"  # type: ignore[index]
    write(tmp_path, "cap.har", har(odd))
    found = discover([tmp_path])
    assert not found.skipped
    [trace] = [load_trace(s) for s in found.sources]
    assert trace.verdicts["assign-always"] == "unidentified-call" and trace.analysis.flags
    [note] = [n.message for n in trace.notes if n.kind == "har-body"]
    assert (
        note.startswith("this entry is not HAR 1.2") and "$.log.entries[0].response.status" in note
    )


def test_an_entry_that_breaks_the_har_schema_costs_that_entry_not_the_file(
    tmp_path: Path,
) -> None:
    """One broken entry threw the whole export away: its erasing streams went unjudged and
    `check` on the folder passed. Each entry is read on its own; a broken stream says where
    it breaks, a broken entry that is no stream is left out like the other non-streams."""
    bad_text = entry(ERASING)
    bad_text["response"]["content"]["text"] = 12345  # type: ignore[index]
    dropped = entry(ERASING)
    del dropped["response"]["content"]  # type: ignore[attr-defined]
    dropped["request"]["postData"]["text"] = json.dumps({"model": "m", "stream": True})  # type: ignore[index]
    write(tmp_path, "cap.har", har(entry(ERASING), "oops", bad_text, dropped, entry(ERASING)))
    found = discover([tmp_path])
    assert [s.address for s in found.sources] == [f"cap.har#{n}" for n in (1, 5)]
    traces = {s.address: load_trace(s) for s in found.sources}
    for address in ("cap.har#1", "cap.har#5"):
        assert traces[address].verdicts["assign-always"] == "unidentified-call"
        assert not [n for n in traces[address].notes if n.kind == "har-body"]
    # the entries whose stream the exporter lost are skipped, each saying why (judged, they
    # read as streams the gateway cut: "broken", STREAM_CLOSED)
    assert [(s.path, s.reason) for s in found.skipped] == [
        (
            "cap.har#3",
            "this entry is not HAR 1.2, so its stream cannot be read: Expected `str | null`,"
            " got `int` - at `$.log.entries[2].response.content.text`",
        ),
        ("cap.har#4", "the exporter saved no response body for this stream"),
    ]


def test_folders_are_searched_recursively_and_odd_files_skipped_once(tmp_path: Path) -> None:
    write(tmp_path, "a/b/deep.sse", ERASING)
    write(tmp_path, "a/raw.log", b": hi\n" + ERASING)
    write(tmp_path, "image.png", b"\x89PNG\r\n\x1a\n\x00\x00")
    write(tmp_path, "notes.json", b'{"not": "a trace"}')
    write(tmp_path, "empty.sse", b"")
    write(tmp_path, "bin.bin", b"\x00\x01\x02")
    write(tmp_path, "sniffed.data", ERASING)  # unknown extension, SSE content
    write(tmp_path, ".hidden.sse", ERASING)
    write(tmp_path, "cap.sse.meta.json", b"{}")
    os.symlink(tmp_path / "missing.sse", tmp_path / "dangling.sse")
    os.symlink(tmp_path / "loop1.sse", tmp_path / "loop2.sse")
    os.symlink(tmp_path / "loop2.sse", tmp_path / "loop1.sse")
    os.symlink(tmp_path / "a", tmp_path / "a" / "b" / "back")  # a folder loop
    found = discover([tmp_path])
    assert sorted(s.address for s in found.sources) == ["a/b/deep.sse", "a/raw.log", "sniffed.data"]
    reasons = {s.path: s.reason for s in found.skipped}
    assert reasons == {
        "bin.bin": "binary file (NUL bytes), not an SSE body",
        "dangling.sse": "dangling symlink (its target does not exist)",
        "empty.sse": "empty file",
        "image.png": "binary file, not a trace",
        "loop1.sse": "symlink loop",
        "loop2.sse": "symlink loop",
        "notes.json": "JSON that is not a trace (a chunk log needs .jsonl; a HAR export needs .har)",
    }


def test_a_compressed_or_utf16_capture_is_skipped_with_what_to_do(tmp_path: Path) -> None:
    """They read as "binary (NUL bytes)", or (a ``curl -i`` of a gzip body) as a stream the
    gateway cut, full of U+FFFD: each now says what it is and how to read it."""
    import gzip

    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    write(tmp_path, "q.sse.gz", gzip.compress(ERASING))
    write(tmp_path, "gz.sse", gzip.compress(ERASING))
    write(tmp_path, "u16.sse", ERASING.decode().encode("utf-16"))
    write(tmp_path, "u16le.sse", ERASING.decode().encode("utf-16-le"))
    write(tmp_path, "curl.txt", head + b"Content-Encoding: gzip\r\n\r\n" + gzip.compress(ERASING))
    # the header says gzip, the body is plain events (a proxy decompressed it): read as such
    write(tmp_path, "plain.txt", head + b"content-encoding: gzip\r\n\r\n" + ERASING)
    found = discover([tmp_path])
    assert [s.address for s in found.sources] == ["plain.txt"]
    gz = "gzip-compressed: decompress it first (gunzip), or capture with curl --compressed"
    u16 = "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)"
    assert {s.path: s.reason for s in found.skipped} == {
        "q.sse.gz": gz,
        "gz.sse": gz,
        "u16.sse": u16,
        "u16le.sse": "UTF-16 text (no byte-order mark): convert it to UTF-8 first"
        " (iconv -f UTF-16LE -t UTF-8)",
        "curl.txt": "the response body is gzip-compressed (content-encoding: gzip):"
        " capture with curl --compressed, or decompress the body",
    }
    assert only_trace(tmp_path / "plain.txt").verdicts["assign-always"] == "unidentified-call"


def test_a_curl_capture_of_an_answer_that_is_no_stream_says_so(tmp_path: Path) -> None:
    """A ``curl -i`` of the gateway's error (a 500 with a JSON error, a 429 sent as
    ``text/event-stream``) or of a whole answer (no ``stream: true``) read as a stream cut
    before its first event ("truncated capture?"), the status never said: each is now a
    file that holds no trace, with its status, content type and the start of its body (its
    control characters escaped). A body of events is read whatever its content type says."""
    error = b'{"error":{"message":"boom","type":"server_error"}}'
    write(
        tmp_path,
        "500.txt",
        b"HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\n\r\n" + error,
    )
    write(
        tmp_path,
        "429.txt",
        b"HTTP/2 429\r\ncontent-type: text/event-stream\r\n\r\n"
        b'{"error": {"message": "slow \x1b[31mdown"}}\n',
    )
    answer = json.dumps(
        {
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "word " * 200}}],
        },
        indent=2,
    ).encode()
    write(
        tmp_path, "200.txt", b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + answer
    )
    write(
        tmp_path,
        "events.txt",
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n" + ERASING,
    )
    found = discover([tmp_path])
    assert [s.address for s in found.sources] == ["events.txt"]
    reasons = {s.path: s.reason for s in found.skipped}
    assert reasons["500.txt"] == (
        "HTTP 500 Internal Server Error (application/json): the gateway's error, not an event"
        ' stream: {"error":{"message":"boom","type":"server_error"}}'
    )
    assert reasons["429.txt"] == (
        "HTTP 429 (text/event-stream): the gateway's error, not an event stream:"
        ' {"error": {"message": "slow \\u001b[31mdown"}}'
    )
    said = reasons["200.txt"]
    assert said.startswith(
        "HTTP 200 OK (application/json): an answer that is not an event stream (the request"
        ' did not ask for stream: true?): { "object": "chat.completion", "choices": [ {'
    )
    assert said.endswith('"content": "word word word w…') and len(said) < 300
    assert only_trace(tmp_path / "events.txt").verdicts["assign-always"] == "unidentified-call"


def test_a_file_given_directly_keeps_its_given_path(tmp_path: Path) -> None:
    path = write(tmp_path, "x.sse", ERASING)
    assert [s.address for s in discover([path]).sources] == [path.as_posix()]


def test_invalid_utf8_is_replaced_as_the_harness_does_and_noted(tmp_path: Path) -> None:
    body = sse(chunk({"content": "cafX"})).replace(b"cafX", b"caf\xe9")
    trace = only_trace(write(tmp_path, "x.sse", body))
    assert (
        next(c for _, c in trace.replay("accept-identity") if c["type"] == "text-delta")["text"]
        == "caf\ufffd"
    )
    assert any(n.kind == "invalid-utf8" and "line 1" in n.message for n in trace.notes)


def test_a_broken_payload_is_located_and_later_payloads_still_decoded(tmp_path: Path) -> None:
    body = sse(chunk({"content": "a"}), '{"choices": [', chunk({"content": "b"}))
    trace = only_trace(write(tmp_path, "x.sse", body))
    assert trace.verdicts["accept-identity"] == "malformed-response"
    assert list(trace.errors) == [3]
    # the capture's column: the payload ends after `data: {"choices": [` (19 characters)
    assert trace.errors[3] == "Expecting value at column 20"
    later = trace.decoded[2]
    assert later is not None and later.chunk is not None  # decoded for display


@pytest.mark.parametrize(
    ("name", "body", "line", "message"),
    [
        ("x.sse", b'data:{"a" 1}\n\n', 1, "Expecting ':' delimiter at column 11"),
        ("x.sse", b'data: {"a":\ndata:   [oops\n\n', 1, "Expecting value at line 2, column 10"),
        (
            "x.sse",
            b'data: {"a":\r\n: kept alive\r\nevent: x\r\ndata:[1,\r\n\r\n',
            1,
            "Expecting value at line 4, column 9",
        ),
        (
            "x.sse",
            b'\xef\xbb\xbfdata: {"a" 1}\ndata: 2\n\n',
            1,
            "Expecting ':' delimiter at column 12",
        ),
        (
            "x.txt",
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"
            b'data: {"a":\r\ndata:   [oops\r\n\r\n',
            4,
            "Expecting value at line 5, column 10",
        ),
        (
            "x.jsonl",
            b'{"choices":[]}\n  data: {"choices": [oops\n',
            2,
            "Expecting value at column 22",
        ),
    ],
    ids=[
        "no-space",
        "second-data-line",
        "crlf-comment-and-field-between",
        "bom",
        "curl-i",
        "jsonl",
    ],
)
def test_a_broken_payload_is_placed_in_the_capture_not_in_the_payload(
    tmp_path: Path, name: str, body: bytes, line: int, message: str
) -> None:
    """The decoder's place is in the joined payload; what is shown beside the payload's first
    line is where that character is in the file: its column there, or its line and column."""
    trace = only_trace(write(tmp_path, name, body))
    assert trace.errors == {line: message}
    assert [n.message for n in trace.notes if n.kind == "malformed-payload"] == [
        f"payload is not valid JSON: {message}"
    ]


def test_deep_nesting_is_parsed_like_json_parse(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    trace = only_trace(write(tmp_path, "x.sse", sse(deep, chunk({"content": "x"}, finish="stop"))))
    assert trace.verdicts["accept-identity"] == "ok"
    assert any(n.kind == "ignored-payload" for n in trace.notes)


def test_a_five_megabyte_line(tmp_path: Path) -> None:
    trace = only_trace(
        write(tmp_path, "x.sse", sse(chunk({"content": "x" * 5_000_000}, finish="stop")))
    )
    assert trace.verdicts["accept-identity"] == "ok"


def test_several_folders_keep_same_named_files_apart_by_their_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two folders given to the TUI, each with an a.sse: both were addressed "a.sse" and one
    hid the other in the list."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "gw1/a.sse", ERASING)
    write(tmp_path, "gw1/x/b.json", b"{}")
    write(tmp_path, "gw2/a.sse", ERASING)
    write(tmp_path, "one.sse", ERASING)
    found = discover(["gw1", "./gw2/", "one.sse", str(tmp_path / "gw2")], prefix_folders=True)
    assert [s.address for s in found.sources] == [
        "gw1/a.sse",
        "gw2/a.sse",
        "one.sse",
        f"{tmp_path.as_posix()}/gw2/a.sse",
    ]
    assert [s.path for s in found.skipped] == ["gw1/x/b.json"]
    # One folder alone: addresses relative to it, as before.
    assert [s.address for s in discover(["gw1"]).sources] == ["a.sse"]
    # The current folder given with another: its files are its own, unprefixed.
    assert [s.address for s in discover([".", "gw2"], prefix_folders=True).sources][-1] == (
        "gw2/a.sse"
    )
    # check reports each folder's files relative to it (as documented).
    assert [s.address for s in discover(["gw1", "gw2"]).sources] == ["a.sse", "a.sse"]


def test_utf8_is_checked_across_megabytes_of_multi_byte_text(tmp_path: Path) -> None:
    # Over a megabyte of four-byte characters (checked a window at a time: a character is
    # never cut in two at a window's end), then one byte that is not UTF-8 near the end.
    text = ["\U0001f600" * 997 + "é" * k for k in range(400)]
    good = sse(*(json.dumps(chunk({"content": t}), ensure_ascii=False) for t in text))
    assert len(good) > 1 << 20
    notes = only_trace(write(tmp_path, "ok.sse", good)).notes
    assert not any(n.kind == "invalid-utf8" for n in notes)
    lines = good.split(b"\n")
    line = 2 * 390  # (each event: its data line, a blank line)
    at = lines[line].index(b"\xc3\xa9")  # the first é of that line
    lines[line] = lines[line][:at] + b"\xff" + lines[line][at + 2 :]
    trace = only_trace(write(tmp_path, "bad.sse", b"\n".join(lines)))
    column = len(lines[line][:at].decode("utf-8")) + 1
    assert [n.message.split(":")[0] for n in trace.notes if n.kind == "invalid-utf8"] == [
        f"invalid UTF-8 at line {line + 1}, column {column}"
    ]
