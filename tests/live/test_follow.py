"""Following a capture while it is written (README, Live reload): incremental, truncation-proof, honest."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from replay_tui.core.trace import Badge, Form, Source, load_trace
from replay_tui.live.follow import LiveTrace
from tests.core.helpers import call, chunk, sse, tools, write

HEAD = sse(tools(call(0, id="call_1", name="f", arguments="")), done=False)
MORE = sse(tools(call(0, id="", arguments="{}")), chunk(finish="tool_calls"), done=False)
DONE = b"data: [DONE]\n\n"


def live(path: Path, quiet: float = 5.0) -> LiveTrace:
    return LiveTrace(Source(path, path.name, Form.SSE), quiet=quiet)


def test_a_growing_capture_is_in_progress_then_judged(tmp_path: Path) -> None:
    path = write(tmp_path, "x.sse", HEAD)
    follower = live(path)
    first = follower.update(now=100.0)
    assert first.trace is not None and first.trace.badge is Badge.IN_PROGRESS
    with path.open("ab") as fh:
        fh.write(MORE[:40])  # half an event: nothing new to judge yet
    upd = follower.update(now=101.0)
    assert upd.changed and not upd.reloaded and upd.appended == 40
    with path.open("ab") as fh:
        fh.write(MORE[40:] + DONE)
    upd = follower.update(now=102.0)
    assert upd.changed and not upd.reloaded and upd.appended == len(MORE) - 40 + len(DONE)
    assert upd.trace is not None and upd.trace.badge is Badge.ERASING
    assert upd.trace.verdicts == load_trace(Source(path, "x.sse", Form.SSE)).verdicts
    assert not follower.update(now=103.0).changed


def test_appending_reads_only_what_was_appended(tmp_path: Path) -> None:
    path = write(tmp_path, "x.sse", HEAD * 50)
    follower = live(path)
    follower.update(now=0.0)
    start = follower.offset
    with path.open("ab") as fh:
        fh.write(MORE)
    upd = follower.update(now=1.0)
    assert upd.appended == len(MORE) and follower.offset == start + len(MORE)


def test_a_quiet_stream_without_done_settles_as_stream_closed(tmp_path: Path) -> None:
    path = write(tmp_path, "x.sse", HEAD)
    time_now = 1000.0
    # Written just now: still in progress a second later, judged once the quiet period passed.
    follower2 = live(path, quiet=5.0)
    assert follower2.update(now=time_now).trace.badge is Badge.IN_PROGRESS  # type: ignore[union-attr]
    assert not follower2.update(now=time_now + 1).changed
    settled = follower2.update(now=time_now + 6)
    assert settled.changed and settled.settled
    assert (
        settled.trace is not None and settled.trace.verdicts["accept-identity"] == "stream-closed"
    )


def test_a_recording_the_recorder_finished_is_judged_at_once(tmp_path: Path) -> None:
    """Cut by the upstream, a recorded stream was "in progress" for the quiet period though
    its recorder's sidecar already said the recording had finished (incomplete)."""
    import json

    from replay_tui.core.trace import read_sidecar

    path = write(tmp_path, "x.sse", HEAD)
    meta = tmp_path / "x.sse.meta.json"
    meta.write_text(json.dumps({"complete": False, "incomplete_reason": None, "finished": None}))
    follower = LiveTrace(Source(path, path.name, Form.SSE, sidecar=read_sidecar(path)), quiet=5)
    assert follower.update(now=1000.0).trace.badge is Badge.IN_PROGRESS  # type: ignore[union-attr]
    assert not follower.update(now=1001.0).changed  # still recording: in progress
    meta.write_text(
        json.dumps(
            {
                "complete": False,
                "incomplete_reason": "upstream disconnected mid-stream",
                "finished": "2026-12-01T21:49:09Z",
            }
        )
    )
    settled = follower.update(now=1001.5)
    assert settled.changed and settled.settled
    assert settled.trace is not None and settled.trace.badge is Badge.BROKEN


def test_an_old_capture_is_judged_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, "x.sse", HEAD)
    os.utime(path, (1, 1))
    trace = live(path).update().trace
    assert trace is not None and trace.badge is Badge.BROKEN


@pytest.mark.parametrize("how", ["truncate", "rewrite-same-size", "rename-over"])
def test_a_file_rewritten_is_read_again_from_the_start(tmp_path: Path, how: str) -> None:
    path = write(tmp_path, "x.sse", HEAD + MORE + DONE)
    follower = live(path)
    assert follower.update(now=0.0).trace.badge is Badge.ERASING  # type: ignore[union-attr]
    clean = sse(chunk({"content": "hello"}, finish="stop"))
    if how == "truncate":
        path.write_bytes(clean)
    elif how == "rewrite-same-size":
        body = HEAD + MORE + DONE
        path.write_bytes(body.replace(b"call_1", b"call_9"))
    else:
        write(tmp_path, ".x.sse.tmp", clean)
        os.replace(tmp_path / ".x.sse.tmp", path)
    upd = follower.update(now=1.0)
    assert upd.changed and upd.reloaded
    assert upd.trace is not None
    assert upd.trace.raw == path.read_bytes()


def test_a_vanished_file_is_reported_once_and_can_come_back(tmp_path: Path) -> None:
    path = write(tmp_path, "x.sse", HEAD)
    follower = live(path)
    follower.update(now=0.0)
    path.unlink()
    gone = follower.update(now=1.0)
    assert gone.changed and gone.trace is None and gone.gone
    again = follower.update(now=2.0)
    assert not again.changed and again.gone is None
    write(tmp_path, "x.sse", HEAD + MORE + DONE)
    back = follower.update(now=3.0)
    assert back.changed and back.reloaded and back.trace is not None


def test_a_growing_chunk_log_settles_with_done_implied(tmp_path: Path) -> None:
    path = write(
        tmp_path, "x.jsonl", b'{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}\n'
    )
    os.utime(path, (1, 1))
    trace = LiveTrace(Source(path, "x.jsonl", Form.JSONL)).update().trace
    assert trace is not None and trace.verdicts["accept-identity"] == "ok"


def test_a_settled_stream_is_decoded_once_and_read_again_if_it_grows(tmp_path: Path) -> None:
    path = write(tmp_path, "x.sse", HEAD)
    follower = live(path, quiet=5.0)
    follower.update(now=0.0)
    settled = follower.update(now=6.0)
    assert settled.settled and settled.trace is not None
    assert settled.trace.verdicts["accept-identity"] == "stream-closed"
    # Judged by closing the one builder: the analysis is the same object's, not a re-read.
    assert follower.offset == len(HEAD)
    with path.open("ab") as fh:
        fh.write(MORE + DONE)
    grown = follower.update(now=7.0)
    assert grown.reloaded and grown.trace is not None
    assert grown.trace.verdicts == load_trace(Source(path, "x.sse", Form.SSE)).verdicts


def test_invalid_utf8_appended_to_an_ascii_capture_is_noted_in_the_next_state(
    tmp_path: Path,
) -> None:
    """A snapshot looks at what was appended for non-ASCII bytes (not the whole capture
    again): invalid UTF-8 that comes after many ASCII states is still noted, on its line."""
    from replay_tui.core.trace import TraceBuilder

    path = tmp_path / "g.sse"
    builder = TraceBuilder(Source(path, "g.sse", Form.SSE))
    ascii_event = b'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n'
    for _ in range(3):
        builder.feed(ascii_event)
        assert not [n for n in builder.build().notes if n.kind == "invalid-utf8"]
    builder.feed(b'data: {"choices":[{"index":0,"delta":{"content":"\xff"}}]}\n\n')
    [note] = [n for n in builder.build().notes if n.kind == "invalid-utf8"]
    assert note.line == 7
    builder.feed(ascii_event)  # and it stays noted as the capture grows on
    assert [n.line for n in builder.build().notes if n.kind == "invalid-utf8"] == [7]
