"""Capture folders holding whatever ends up in them: ``check`` names each problem once, with
where it is, and still judges the good traces beside it.

The core guarantees the TUI relies on are tested here too: discovery and loading report
problems as :class:`Skipped` entries or notes (never exceptions), and a trace read while it
grows is judged as the prefix that was read.
"""

from __future__ import annotations

import base64
import json
import os
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from replay_tui.core import discovery as discovery_module
from replay_tui.core.check import check_paths, load_all
from replay_tui.core.discovery import Skipped, discover
from replay_tui.core.jsonparse import parse_deep
from replay_tui.core.trace import Badge, Form, Source, Trace, TraceBuilder, load_trace

from .helpers import RAW_CONTROL, run_cli

GOOD = (
    b'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function",'
    b'"function":{"name":"get_weather","arguments":""}}]}}]}\n\n'
    b'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}\n\n'
    b'data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    b"data: [DONE]\n\n"
)
ERASING = GOOD.replace(b'"index":0,"function"', b'"index":0,"id":"","function"')


def _check(*paths: Path | str) -> tuple[int, dict[str, Any], str, str]:
    """``check --json`` and ``check -v`` on ``paths``: status, document, table, stderr."""
    code, out, err = run_cli(["check", *map(str, paths), "--json"])
    human_code, table, human_err = run_cli(["check", "-v", *map(str, paths)])
    assert human_code == code
    assert human_err == err  # the same problems, named the same way
    for text in (table.decode("utf-8"), err):
        assert RAW_CONTROL.search(text) is None, text
        assert "Traceback" not in text
    return code, _json(out), table.decode("utf-8"), err


def _json(text: bytes) -> Any:
    """Parse JSON output; values nested deeper than ``json`` recurses are valid JSON too."""
    try:
        return json.loads(text)
    except RecursionError:
        return parse_deep(text.decode("utf-8"))


def _skipped(doc: dict[str, Any]) -> dict[str, str]:
    paths = [s["path"] for s in doc["skipped"]]
    assert len(paths) == len(set(paths)), paths  # each problem once
    return {s["path"]: s["reason"] for s in doc["skipped"]}


def _traces(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["path"]: t for t in doc["traces"]}


def _once_on_stderr(err: str, path: str) -> None:
    hits = [line for line in err.splitlines() if line.startswith(f"replay-tui: {path}")]
    assert len(hits) == 1, (path, err)


# ---- a folder with everything at once ---------------------------------------------------------


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    root = tmp_path / "captures"
    root.mkdir()
    (root / "good.sse").write_bytes(GOOD)
    (root / "erasing.sse").write_bytes(ERASING)
    (root / "random.bin").write_bytes(bytes(range(256)) * 4)
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + os.urandom(64))
    (root / "empty.sse").write_bytes(b"")
    (root / "empty.har").write_bytes(b"")
    (root / "truncated.har").write_bytes(b'{"log": {"entries": [{"request": {"method": "PO')
    (root / "wrong-shape.har").write_bytes(b'{"log": {"entries": {"0": {}}}}')
    (root / "deep.har").write_bytes(
        b'{"log": {"entries": [], "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    )
    (root / "dangling.sse").symlink_to(root / "nowhere.sse")
    (root / "loop-a.sse").symlink_to(root / "loop-b.sse")
    (root / "loop-b.sse").symlink_to(root / "loop-a.sse")
    (root / "sub").mkdir()
    (root / "sub" / "parent").symlink_to(root)  # a folder loop
    (root / "sub" / "good-too.jsonl").write_bytes(
        b'{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n'
    )
    return root


def test_a_hostile_folder_names_each_problem_once_and_judges_the_rest(hostile: Path) -> None:
    code, doc, table, err = _check(hostile)
    assert code == 1  # the erasing trace
    traces = _traces(doc)
    assert traces["good.sse"]["verdicts"] == {"assign-always": "ok", "accept-identity": "ok"}
    assert traces["erasing.sse"]["verdicts"]["assign-always"] == "unidentified-call"
    assert traces["sub/good-too.jsonl"]["verdicts"]["accept-identity"] == "ok"
    skipped = _skipped(doc)
    assert skipped["random.bin"].startswith("binary file")
    assert skipped["image.png"].startswith("binary file")
    assert skipped["empty.sse"] == skipped["empty.har"] == "empty file"
    assert "line 1, column" in skipped["truncated.har"]
    assert "$.log.entries" in skipped["wrong-shape.har"]
    assert "nested too deeply" in skipped["deep.har"]
    assert skipped["dangling.sse"].startswith("dangling symlink")
    assert skipped["loop-a.sse"] == skipped["loop-b.sse"] == "symlink loop"
    assert set(skipped) == {
        "random.bin",
        "image.png",
        "empty.sse",
        "empty.har",
        "truncated.har",
        "wrong-shape.har",
        "deep.har",
        "dangling.sse",
        "loop-a.sse",
        "loop-b.sse",
    }
    # The folder loop is followed once, not forever, and adds nothing twice.
    assert set(traces) == {"good.sse", "erasing.sse", "sub/good-too.jsonl"}
    for path in skipped:
        _once_on_stderr(err, path)
    assert "3 traces: 1 clean, 1 erasing" in table or "3 traces:" in table
    assert f"; {len(skipped)} skipped" in table


def test_nothing_readable_is_exit_status_2(tmp_path: Path) -> None:
    (tmp_path / "empty.sse").write_bytes(b"")
    (tmp_path / "x.bin").write_bytes(b"\x00\x01")
    code, doc, _, err = _check(tmp_path)
    assert code == 2 and doc["traces"] == []
    assert err.splitlines()[-1] == "replay-tui: no readable trace found"


def test_a_missing_path_is_a_usage_error_named_on_one_line(tmp_path: Path) -> None:
    (tmp_path / "good.sse").write_bytes(GOOD)
    for form in ("--json", "-v"):
        code, out, err = run_cli(["check", str(tmp_path / "gone"), str(tmp_path), form])
        assert code == 2 and out == b""  # nothing judged: the command line was wrong
        assert err == f"replay-tui: {tmp_path / 'gone'}: no such file or folder\n"


# ---- content problems ------------------------------------------------------------------------


def test_invalid_utf8_is_noted_with_its_line_and_decoded_as_the_harness_does(
    tmp_path: Path,
) -> None:
    body = GOOD.replace(b'"arguments":"{}"', b'"arguments":"{\\"q\\":\\"\xff\xfe\\"}"')
    (tmp_path / "bad-utf8.sse").write_bytes(b": \xc3\x28 comment\n" + body)
    _, doc, table, _ = _check(tmp_path)
    assert table.count("invalid UTF-8 at line 1, column 3") == 1
    trace = _traces(doc)["bad-utf8.sse"]
    notes = [n for n in trace["notes"] if n["kind"] == "invalid-utf8"]
    assert len(notes) == 1 and notes[0]["line"] == 1
    assert "line 1, column 3" in notes[0]["message"]
    assert trace["verdicts"] == {"assign-always": "ok", "accept-identity": "ok"}
    loaded = load_trace(Source(tmp_path / "bad-utf8.sse", "bad-utf8.sse", Form.SSE))
    assert loaded.analysis.calls[0].arguments == '{"q":"\ufffd\ufffd"}'


def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path: Path) -> None:
    if sys.platform == "darwin":
        pytest.skip("macOS file systems refuse names that are not UTF-8")
    name = os.fsencode(tmp_path) + b"/bad-\xff-\x1b[2J.sse"
    with open(name, "wb") as fh:
        fh.write(GOOD)
    code, doc, table, _ = _check(tmp_path)
    assert code == 0
    [path] = _traces(doc)
    assert path == "bad-\udcff-\x1b[2J.sse"  # JSON carries it as escapes
    assert "bad-\\udcff-\\u001b[2J.sse" in table


def test_a_five_megabyte_line_is_judged_quickly(tmp_path: Path) -> None:
    big = b"x" * (5 * 1024 * 1024)
    content = b'data: {"choices":[{"delta":{"content":"' + big + b'"}}]}\n\n'
    (tmp_path / "long-content.sse").write_bytes(content + GOOD)
    (tmp_path / "long-garbage.sse").write_bytes(b"data: " + big)  # no line end, no event end
    (tmp_path / "long.jsonl").write_bytes(b'{"choices":[{"delta":{"content":"' + big + b'"}}]}')
    # CR-only line ends: once quadratic (each line rescanned the rest for an LF).
    (tmp_path / "long-cr.sse").write_bytes(b"data: {}\r\r" * 200_000 + b"data: [DONE]\r\r")
    started = time.perf_counter()
    code, doc, _, _ = _check(tmp_path)
    assert time.perf_counter() - started < 30  # twice over: --json and the table
    assert code == 1  # the unterminated one
    traces = _traces(doc)
    assert traces["long-content.sse"]["verdicts"]["accept-identity"] == "ok"
    assert traces["long-garbage.sse"]["verdicts"]["accept-identity"] == "stream-closed"
    assert any(n["kind"] == "truncated-event" for n in traces["long-garbage.sse"]["notes"])
    assert traces["long.jsonl"]["verdicts"]["accept-identity"] == "ok"
    assert traces["long-cr.sse"]["verdicts"]["accept-identity"] == "empty-response"


def test_a_payload_nested_100000_deep_does_not_stop_the_trace(tmp_path: Path) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000  # the deepest a payload may be (MAX_DEPTH)
    inner = deep[10:-10]  # inside a chunk, a few levels go to the chunk itself
    deep_id = b'{"choices":[{"delta":{"tool_calls":[{"index":0,"id":' + inner + b"}]}}]}"
    deep_args = (
        b'{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":'
        + inner
        + b"}}]}}]}"
    )
    first, rest = GOOD.split(b"\n\n", 1)
    body = first + b"\n\ndata: " + deep + b"\n\ndata: " + deep_args + b"\n\n" + rest
    (tmp_path / "deep.sse").write_bytes(body)
    (tmp_path / "deep-id.sse").write_bytes(first + b"\n\ndata: " + deep_id + b"\n\n" + rest)
    (tmp_path / "too-deep.sse").write_bytes(b"data: " + b"[" * 300_000 + b"\n\n")
    code, doc, table, _ = _check(tmp_path)
    traces = _traces(doc)
    assert traces["deep.sse"]["verdicts"] == {"assign-always": "ok", "accept-identity": "ok"}
    assert any(
        n["kind"] == "ignored-payload" and n["line"] == 3 for n in traces["deep.sse"]["notes"]
    )
    erasing = traces["deep-id.sse"]
    assert erasing["verdicts"]["assign-always"] == "unidentified-call"
    assert erasing["flags"][0]["kind"] == "erased-id" and erasing["flags"][0]["line"] == 3
    assert isinstance(erasing["flags"][0]["value"], list)  # the whole value, still JSON
    too_deep = traces["too-deep.sse"]
    assert too_deep["verdicts"]["accept-identity"] == "malformed-response"
    assert any("nested deeper than 100,000" in n["message"] for n in too_deep["notes"])
    assert "deep-id.sse" in table
    code, out, _ = run_cli(
        ["replay", str(tmp_path / "deep-id.sse"), "--json", "--behavior", "assign-always"]
    )
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 6 and lines[1].startswith(b'{"type":"tool-call-delta"')
    assert _json(lines[-1]) == {"type": "finish", "reason": {"kind": "tool-calls"}}


# ---- file system problems --------------------------------------------------------------------


def _as_nobody(work: Any) -> Any:
    """Run ``work()`` in a forked child that dropped root to ``nobody``; returns its result.

    Everything is imported before the fork: the interpreter lives under /root, which nobody
    cannot read.
    """
    import pickle

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            data = pickle.dumps(("ok", work()))
        except BaseException as exc:
            data = pickle.dumps(("error", repr(exc)))
            code = 1
        with os.fdopen(write, "wb") as fh:
            fh.write(data)
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    status, value = pickle.loads(data)
    assert status == "ok", value
    return value


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temporary folder that another user can enter (pytest's tmp_path is private)."""
    path = Path(tempfile.mkdtemp(prefix="replay-tui-perm-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for p in sorted(path.rglob("*"), reverse=True):
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
                p.rmdir()
            else:
                p.unlink()
        path.rmdir()


def test_unreadable_files_and_folders_are_named_as_a_non_root_user(shared_tmp: Path) -> None:
    (shared_tmp / "good.sse").write_bytes(GOOD)
    secret = shared_tmp / "secret.sse"
    secret.write_bytes(GOOD)
    secret.chmod(0)
    secret_har = shared_tmp / "secret.har"
    secret_har.write_bytes(b"{}")
    secret_har.chmod(0)
    closed = shared_tmp / "closed"
    closed.mkdir()
    (closed / "inside.sse").write_bytes(GOOD)
    closed.chmod(0)
    for p in (shared_tmp, shared_tmp / "good.sse"):
        p.chmod(p.stat().st_mode | stat.S_IROTH | stat.S_IXOTH)
    (shared_tmp / "good.sse").chmod(0o644)

    def work() -> tuple[int, bytes, str]:
        return run_cli(["check", str(shared_tmp), "--json"])

    if os.geteuid() == 0:
        if not hasattr(os, "fork") or not hasattr(os, "setuid"):
            pytest.skip("running as root and cannot drop privileges on this platform")
        code, out, err = _as_nobody(work)
    else:
        if os.access(secret, os.R_OK):
            pytest.skip("this user can read files without read permission (CAP_DAC_OVERRIDE)")
        code, out, err = work()
    doc = json.loads(out)
    assert code == 3  # incomplete: files asked for could not be read (not 0: "all clean")
    assert doc["incomplete"] == "3 files could not be read"
    assert list(_traces(doc)) == ["good.sse"]
    skipped = _skipped(doc)
    assert skipped == {
        "secret.sse": "cannot read: Permission denied",
        "secret.har": "cannot read: Permission denied",
        "closed/": "cannot list folder: Permission denied",
    }
    for path in skipped:
        _once_on_stderr(err, path)


def test_a_file_that_vanishes_after_listing_is_named(tmp_path: Path) -> None:
    (tmp_path / "stays.sse").write_bytes(GOOD)
    (tmp_path / "goes.sse").write_bytes(GOOD)
    (tmp_path / "goes-early.jsonl").write_bytes(b"{}\n")
    found = discover([tmp_path])
    (tmp_path / "goes.sse").unlink()
    items = list(load_all(found))
    assert [i.address for i in items if isinstance(i, Trace)] == ["goes-early.jsonl", "stays.sse"]
    [gone] = [i for i in items if isinstance(i, Skipped)]
    assert gone == Skipped("goes.sse", "cannot read: No such file or directory")


def test_a_file_that_vanishes_between_listing_and_sniffing_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "stays.sse").write_bytes(GOOD)
    (tmp_path / "goes.sse").write_bytes(GOOD)
    classify = discovery_module.classify

    def vanishing(path: Path, address: str, out: Any) -> None:
        if path.name == "goes.sse":
            path.unlink()
        classify(path, address, out)

    monkeypatch.setattr(discovery_module, "classify", vanishing)
    report = check_paths([tmp_path])
    assert [t.address for t in report.traces] == ["stays.sse"]
    assert report.skipped == [Skipped("goes.sse", "vanished before it could be read")]


def test_special_files_are_skipped_without_blocking(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    os.mkfifo(tmp_path / "pipe.sse")  # opening it for reading would block forever
    (tmp_path / "zero.sse").symlink_to("/dev/zero")  # reading it would never end
    (tmp_path / "good.sse").write_bytes(GOOD)
    code, doc, _, _ = _check(tmp_path)
    assert code == 0
    assert _skipped(doc) == {"pipe.sse": "not a regular file", "zero.sse": "not a regular file"}


def test_a_file_that_grows_while_read_is_judged_as_the_prefix_read(tmp_path: Path) -> None:
    path = tmp_path / "growing.sse"
    path.write_bytes(b"")
    events = GOOD.split(b"\n\n")[:-1]
    stop = threading.Event()

    def writer() -> None:
        with path.open("ab", buffering=0) as fh:
            i = 0
            while not stop.is_set():
                event = events[i % (len(events) - 1)] + b"\n\n"
                for k in range(0, len(event), 7):  # torn writes: events arrive in pieces
                    fh.write(event[k : k + 7])
                i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        results = [check_paths([tmp_path]) for _ in range(20)]
    finally:
        stop.set()
        thread.join()
    final = path.read_bytes()
    for report in results:
        for trace in report.traces:
            assert final.startswith(trace.raw)
            again = load_trace(trace.source, trace.raw)
            assert again.verdicts == trace.verdicts
            assert again.payloads == trace.payloads


def test_a_growing_capture_is_in_progress_until_it_ends_then_judged(tmp_path: Path) -> None:
    """What the TUI's live tail relies on: appended bytes, snapshots, then the end."""
    builder = TraceBuilder(Source(tmp_path / "live.sse", "live.sse", Form.SSE))
    events = [e + b"\n\n" for e in ERASING.split(b"\n\n")[:-1]]
    for event in events[:-1]:
        for k in range(0, len(event), 5):
            builder.feed(event[k : k + 5])
            snapshot = builder.build()
            assert snapshot.badge is Badge.IN_PROGRESS
            assert snapshot.verdicts["accept-identity"] == "in-progress"
    builder.feed(events[-1])
    builder.close()
    trace = builder.build()
    assert trace.badge is Badge.ERASING
    whole = load_trace(Source(tmp_path / "live.sse", "live.sse", Form.SSE), ERASING)
    assert trace.payloads == whole.payloads and trace.verdicts == whole.verdicts


def test_a_har_with_a_broken_entry_keeps_its_good_entries(tmp_path: Path) -> None:
    def entry(body: bytes | None, **content: Any) -> dict[str, Any]:
        c: dict[str, Any] = {"mimeType": "text/event-stream", **content}
        if body is not None:
            c["text"] = body.decode()
        return {"request": {"method": "POST", "url": "https://gw/v1"}, "response": {"content": c}}

    har = {
        "log": {
            "entries": [
                entry(GOOD),
                entry(None),  # the exporter dropped the body
                {
                    "request": {},
                    "response": {
                        "content": {
                            "mimeType": "text/event-stream",
                            "text": "%%%",
                            "encoding": "base64",
                        }
                    },
                },
                entry(None, text=base64.b64encode(ERASING).decode(), encoding="base64"),
                entry(b"data: {\n\n"),
            ]
        }
    }
    (tmp_path / "mixed.har").write_text(json.dumps(har))
    code, doc, _table, err = _check(tmp_path)
    traces = _traces(doc)
    # the bodies the exporter lost (none saved, not base64) are skipped, each saying why, not
    # judged as streams the gateway cut
    assert {s["path"]: s["reason"] for s in doc["skipped"]} == {
        "mixed.har#2": "the exporter saved no response body for this stream",
        "mixed.har#3": "response body is not valid base64: Only base64 data is allowed",
    }
    assert "replay-tui: mixed.har#3: response body is not valid base64" in err
    assert "mixed.har#2" not in traces and "mixed.har#3" not in traces
    assert traces["mixed.har#1"]["verdicts"]["accept-identity"] == "ok"
    assert traces["mixed.har#4"]["verdicts"]["assign-always"] == "unidentified-call"
    assert traces["mixed.har#5"]["verdicts"]["accept-identity"] == "malformed-response"
    assert code == 1


def test_a_file_past_the_size_limit_is_skipped_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(discovery_module, "MAX_TRACE_BYTES", 1 << 20)
    (tmp_path / "huge.sse").write_bytes(GOOD * (1 + (1 << 20) // len(GOOD)))
    (tmp_path / "huge.har").write_bytes(b" " * ((1 << 20) + 1))
    (tmp_path / "good.sse").write_bytes(GOOD)
    code, doc, _, err = _check(tmp_path)
    assert code == 0
    skipped = _skipped(doc)
    assert skipped["huge.har"] == "too large: 1,048,577 bytes (traces are read up to 1 MiB)"
    assert skipped["huge.sse"].startswith("too large: ")
    assert list(_traces(doc)) == ["good.sse"]
    _once_on_stderr(err, "huge.har")
