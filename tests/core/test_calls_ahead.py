"""The first tool call looked for in a capture's bytes (issue 27): where its event starts, and
a first screen decoded from there on, exact in what it shows; the lines before it counted
apart (after the first frame), and a ``[DONE]`` among them found."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from replay_tui.core.trace import (
    CallsAhead,
    Form,
    Source,
    Trace,
    count_lines,
    find_calls,
    load_trace,
    trace_from_event,
)


def _event(payload: dict[str, Any], eol: str = "\n", fields: str = "") -> str:
    return fields + "data: " + json.dumps(payload, separators=(",", ":")) + eol + eol


def _text(k: int) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": f"word {k} "}}]}


def _call(n: int) -> dict[str, Any]:
    """Delta ``n`` of one call: the first names it, every third erases its id (null)."""
    if n == 0:
        tc: dict[str, Any] = {"index": 0, "id": "call_a", "function": {"name": "f"}}
    elif n % 3 == 0:
        tc = {"index": 0, "id": None, "function": {"arguments": "x"}}
    else:
        tc = {"index": 0, "function": {"arguments": "x"}}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [tc]}}]}


def _capture(texts: int, calls: int, eol: str = "\n", before: str = "") -> bytes:
    body = "".join(_event(_text(k), eol) for k in range(texts)) + before
    body += "".join(_event(_call(n), eol) for n in range(calls))
    return (body + f"data: [DONE]{eol}{eol}").encode()


def _scanned(data: bytes, step: int, *, jsonl: bool = False, keep: int | None = None) -> CallsAhead:
    ahead = CallsAhead(jsonl=jsonl)
    if keep is not None:
        ahead.KEEP = keep
    for at in range(0, len(data), step):
        ahead.feed(data[at : at + step])
        if ahead.unusable:
            break
    return ahead


def _reader(data: bytes, step: int) -> Callable[[bytearray], int]:
    """A file's ``readinto`` over ``data`` that gives at most ``step`` bytes at a time."""
    at = 0

    def readinto(buf: bytearray) -> int:
        nonlocal at
        piece = data[at : at + min(step, len(buf))]
        buf[: len(piece)] = piece
        at += len(piece)
        return len(piece)

    return readinto


def _lines(data: bytes, end: int, step: int, *, jsonl: bool = False) -> int | None:
    return count_lines(_reader(data, step), end, jsonl=jsonl)


def _source(tmp_path: Path, data: bytes, form: Form = Form.SSE) -> Source:
    path = tmp_path / ("t.jsonl" if form is Form.JSONL else "t.sse")
    path.write_bytes(data)
    return Source(path, path.name, form)


def _rows(trace: Trace, n: int) -> list[tuple[Any, ...]]:
    """The first ``n`` deltas of the first call as the calls view lists them: number, line,
    id and name as sent and as each behavior holds them, flags (not the payload's position
    in the stream: the first screen counts from its first payload)."""
    rows = trace.analysis.delta_rows(0)
    return [
        (
            r.delta,
            r.line,
            r.raw_id,
            r.raw_name,
            r.arguments,
            r.id_accept,
            r.name_accept,
            r.id_assign,
            r.name_assign,
            [(f.kind, f.line) for f in r.flags],
            r.id_set_line,
            r.name_set_line,
        )
        for r in (rows[k] for k in range(n))
    ]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("step", [7, 1000, 1 << 16])
def test_the_first_call_is_found_where_its_event_starts_after_the_lines_before(
    eol: str, step: int
) -> None:
    data = _capture(300, 50, eol)
    ahead = _scanned(data, step)
    start = data.index(b"data: " + json.dumps(_call(0), separators=(",", ":")).encode())
    assert ahead.start == start
    assert ahead.line is None  # (not counted on the way: count_lines, after the first frame)
    assert _lines(data, start, step) == len(data[:start].splitlines()) == 600
    assert bytes(ahead.tail).startswith(data[start : start + 100])


def test_a_crlf_cut_between_two_slices_is_one_line_ending() -> None:
    data = _capture(40, 5, "\r\n")
    cut = data.index(b"\r\n") + 1  # the first CRLF cut in two
    ahead = _scanned(data, 50, keep=16)
    assert ahead.start is not None
    pieces = [data[:cut], *(data[a : a + 50] for a in range(cut, len(data), 50))]
    slices = iter(pieces)

    def readinto(buf: bytearray) -> int:
        piece = next(slices, b"")
        buf[: len(piece)] = piece
        return len(piece)

    lines = count_lines(readinto, ahead.start, jsonl=False)
    assert lines == len(data[: ahead.start].splitlines()) == 80


def test_a_key_cut_between_two_slices_is_found() -> None:
    data = _capture(30, 5)
    key = data.index(b'"tool_calls"')
    for cut in range(key - 2, key + 20):
        ahead = CallsAhead(jsonl=False)
        ahead.feed(data[:cut])
        ahead.feed(data[cut:])
        assert ahead.start == data.rindex(b"\n\n", 0, key) + 2, cut


def test_keys_that_hold_no_call_are_passed_over() -> None:
    """Gateways send ``"tool_calls": null`` or ``[]`` beside text; a JSON string may quote the
    key (escaped); neither is a call."""
    texts = "".join(
        _event({"choices": [{"index": 0, "delta": {"content": "x", "tool_calls": v}}]})
        for v in (None, [], None)
    )
    quoted = _event(_text(0) | {"x": '"tool_calls": [{"index": 0}]'})
    data = (texts + quoted).encode() + _capture(2, 3)
    assert find_calls(data) == data.index(b'"tool_calls":[{"index":0,"id":"call_a"')
    assert find_calls(b'{"tool_calls" :\n [ {"index":0}]}') == 1
    assert find_calls(b'{"tool_calls":[]} {"tool_calls":null}') == -1


@pytest.mark.parametrize("cut", [3, 10, 1 << 16])
def test_a_done_before_the_calls_is_found_when_the_lines_are_counted(cut: int) -> None:
    """After a ``[DONE]`` the calls are not replayed: a first screen from them says they
    were, until the lines before it are counted, which finds it (a ``[DONE]`` cut between
    two slices too)."""
    data = _capture(100, 5, before="data: [DONE]\n\n")
    ahead = _scanned(data, cut, keep=64)
    assert ahead.start is not None and not ahead.unusable
    assert _lines(data, ahead.start, cut) is None
    done = data.index(b"[DONE]")
    for at in range(done - 3, done + 7):  # (cut inside it)
        pieces = iter((data[:at], data[at:]))

        def readinto(buf: bytearray, pieces: Iterator[bytes] = pieces) -> int:
            piece = next(pieces, b"")
            buf[: len(piece)] = piece
            return len(piece)

        assert count_lines(readinto, ahead.start, jsonl=False) is None, at
    clean = _capture(100, 5)
    assert _lines(clean, _scanned(clean, cut).start or 0, cut) == 200


def test_calls_in_the_first_event_or_an_event_longer_than_what_is_kept_are_not_skipped_to() -> None:
    assert _scanned(_capture(0, 5), 1 << 16).unusable
    # One event of 200 KB holding text, then the call, kept 64 KB back: where it starts is gone.
    long = {"choices": [{"index": 0, "delta": {"content": "y" * 200_000, "tool_calls": []}}]}
    data = _capture(5, 0).replace(b"data: [DONE]\n\n", b"") + _event(long).encode()
    data += _capture(0, 3)
    ahead = _scanned(data, 4096, keep=65536)
    assert ahead.start is not None  # the `[]` is not a call: the next event is
    big = json.dumps(long).replace('"tool_calls": []', '"tool_calls": [{"index": 0}]')
    data = _capture(5, 0).replace(b"data: [DONE]\n\n", b"") + f"data: {big}\n\n".encode()
    assert _scanned(data, 4096, keep=65536).unusable


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_the_first_screen_shows_the_rows_the_whole_trace_has(tmp_path: Path, eol: str) -> None:
    """Reasoning, text, then a call: the first screen's rows (line, id and name as sent,
    flags) are those of the trace decoded from the start; its block numbers are unknown, and
    it says how many bytes it did not decode."""
    reasoning = "".join(
        _event({"choices": [{"index": 0, "delta": {"reasoning_content": f"r{k}"}}]}, eol)
        for k in range(2000)
    )
    data = reasoning.encode() + _capture(3000, 3000, eol)
    source = _source(tmp_path, data)
    ahead = _scanned(data, 1 << 20)
    uncounted = ahead.trace(source, 100)
    whole = load_trace(source)
    assert uncounted is not None and ahead.start is not None
    lines = _lines(data, ahead.start, 1 << 20)
    assert lines == 2 * 5000  # (each event two lines)
    first = trace_from_event(source, ahead.start, lines, bytes(uncounted.raw))
    assert first is not None
    assert first.skipped == ahead.start > 0 and whole.skipped == 0
    assert first.in_progress and 100 <= first.analysis.deltas < 3000
    n = first.analysis.deltas
    assert _rows(first, n) == _rows(whole, n)
    assert _rows(first, 1)[0][1] == 2 * 5000 + 1
    # Before the lines are counted: the same rows, their lines counted from the event on,
    # and the trace says so.
    assert first.lines_known and not uncounted.lines_known and whole.lines_known
    assert uncounted.analysis.deltas == n
    shifted = [(r[0], r[1] + lines, *r[2:9]) for r in _rows(uncounted, n)]
    assert shifted == [r[:9] for r in _rows(whole, n)]
    assert dict(uncounted.meta)["lines"] == "not counted yet"
    assert any(row[-3] for row in _rows(first, n))  # (the nulls erase the id: flagged)
    assert whole.analysis.calls[0].block_index == 2  # what the first screen does not know
    # Its payloads are counted from the first call on, and said to be.
    assert dict(first.meta)["payloads"] == f"{len(first.payloads):,} after byte {ahead.start:,}"


def test_a_chunk_log_is_searched_line_by_line(tmp_path: Path) -> None:
    lines = [json.dumps(_text(k)) for k in range(500)] + [json.dumps(_call(n)) for n in range(200)]
    data = ("\n".join(lines) + "\n").encode()
    ahead = _scanned(data, 1000, jsonl=True)
    assert ahead.start == data.index(b'{"choices": [{"index": 0, "delta": {"tool_calls"')
    ahead.line = _lines(data, ahead.start, 1000, jsonl=True)
    assert ahead.line == 500
    source = _source(tmp_path, data, Form.JSONL)
    first = ahead.trace(source, 100)
    whole = load_trace(source)
    assert first is not None
    assert _rows(first, 100) == _rows(whole, 100)
    assert _rows(first, 1)[0][1] == 501


def test_event_fields_before_the_data_line_are_part_of_the_event(tmp_path: Path) -> None:
    body = "".join(_event(_text(k), fields=f"event: message\nid: {k}\n") for k in range(300))
    body += "".join(_event(_call(n), fields=f"event: message\nid: c{n}\n") for n in range(150))
    data = (body + "data: [DONE]\n\n").encode()
    source = _source(tmp_path, data)
    ahead = _scanned(data, 1 << 12)
    assert ahead.start == data.index(b"event: message\nid: c0\n")
    ahead.line = _lines(data, ahead.start, 1 << 12)
    first = ahead.trace(source, 100)
    assert first is not None
    assert _rows(first, 100) == _rows(load_trace(source), 100)
    assert _rows(first, 1)[0][1] == 4 * 300 + 3


_PIECES = [
    b"data: ",
    b"\n",
    b"\r\n",
    b"\r",
    b"\n\n",
    b"\r\n\r\n",
    b"\r\r",
    b'"tool_calls"',
    b":[{",
    b": [ {",
    b"null",
    b"[DONE]",
    b'{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0}]}}]}',
    b"xx",
    b"event: x",
]
_BLANK_ENDS = (b"\n\n", b"\r\n\r\n", b"\r\r", b"\r\r\n", b"\n\r\n", b"\r\n\n")


def test_random_bytes_cut_anywhere_are_skipped_only_to_an_event_holding_the_first_call() -> None:
    """Line endings, keys, ``[DONE]``s and calls in any order, fed in slices of 1 to 30
    bytes: where the scan skips to, an event starts (after a blank line; a chunk log's
    line) and no call comes before it; counted in such slices, the lines before it are
    those there are, or none when a ``[DONE]`` is among them."""
    rng = random.Random(2)
    found = 0
    for _ in range(3000):
        data = b"".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 60)))
        jsonl = rng.random() < 0.3
        ahead = CallsAhead(jsonl=jsonl)
        ahead.KEEP = rng.choice([4, 64, 1 << 20])
        step = rng.randint(1, 30)
        for at in range(0, len(data), step):
            ahead.feed(data[at : at + step])
        if ahead.start is None:
            continue
        found += 1
        before = data[: ahead.start]
        assert before.endswith(b"\n") if jsonl else before.endswith(_BLANK_ENDS), data
        lines = _lines(data, ahead.start, rng.randint(1, 30), jsonl=jsonl)
        if b"[DONE]" in before:
            assert lines is None, data
        else:
            assert lines == (before.count(b"\n") if jsonl else len(before.splitlines())), data
        first = re.search(rb'"tool_calls"\s*:\s*\[\s*\{', data)
        assert first is not None and first.start() >= ahead.start, data
        assert bytes(ahead.tail) == data[ahead.start :]
    assert found > 300
