"""Decoding, replay and analysis over generated streams.

- Decoding a payload and building a trace never raise (reading a file may raise ``OSError``,
  which callers report; nothing here reads files).
- Every replay, under either behavior, ends in exactly one ``finish`` chunk, and it is last.
- The single-pass :class:`~replay_tui.core.identity.Analyzer` agrees with the translator's
  chunks: verdicts (the README's Verdicts table), finish reasons and where the stream ended, erasure flags
  and each call's final identity and arguments.
- ``check``'s JSON stays JSON, and its table carries no raw control character.
- Feeding a capture in arbitrary pieces builds the same trace as feeding it whole.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from replay_tui.core.sse import frame
from replay_tui.core.stream import BehaviorPairs
from replay_tui.core.trace import Form, Trace, in_capture
from replay_tui.core.translator import Behavior, index_key
from replay_tui.core.translator import replay as translate
from replay_tui.core.wire import UNSET, decode_payload

from .helpers import RAW_CONTROL, build, check_json, check_table, trace_summary
from .profile import robust
from .reference import flags_from_chunks, verdict_from_chunks
from .strategies import (
    http_captures,
    jsonl_logs,
    payload_texts,
    splits,
    sse_streams,
    wire_chunks,
)

BEHAVIORS = (Behavior.ASSIGN_ALWAYS, Behavior.ACCEPT_IDENTITY)
VERDICTS = {
    "ok",
    "unidentified-call",
    "malformed-tool-call",
    "empty-response",
    "malformed-response",
    "stream-closed",
    "model-error",
}

captures = st.one_of(
    st.tuples(st.just(Form.SSE), sse_streams()),
    st.tuples(st.just(Form.HTTP), http_captures()),
    st.tuples(st.just(Form.JSONL), jsonl_logs()),
)


def _events(payloads: list[str]) -> bytes:
    return "".join(f"data: {p}\n\n" for p in payloads).encode("utf-8", "surrogatepass")


@robust(scale=2)
@given(
    st.one_of(
        st.binary(max_size=64), payload_texts().map(lambda t: t.encode("utf-8", "surrogatepass"))
    )
)
@example(b"[" * 100_000 + b"]" * 100_000)
@example(b'{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"\\ud800"}]}}]}')
@example(b'{"choices":[{"delta":{"tool_calls":[{"index":1e400}]}}]}')
@example(b'{"choices":[{"delta":{"tool_calls":[{"index":123456789012345678901234567890}]}}]}')
def test_decoding_a_payload_never_raises(data: bytes) -> None:
    decoded = decode_payload(data)
    states = [decoded.chunk is not None, decoded.ignored is not None, decoded.malformed is not None]
    assert sum(states) == 1, decoded


def _cut(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    return value[:3] if isinstance(value, str) else value


def _check_trace(trace: Trace) -> None:
    """The properties every closed trace has, whatever it was built from."""
    calls = {c.block_index: c for c in trace.analysis.calls}
    lines = [p.line for p in trace.payloads] + ([trace.framing.lines] if trace.implied_done else [])
    for behavior in BEHAVIORS:
        chunks = list(trace.replay(behavior))
        # What every view reads (the stream re-derived from the one pass's record) is exactly
        # what the translator emits when run over the decoded payloads.
        direct = [
            (lines[pos] if pos < len(lines) else None, c)
            for pos, c in translate(trace.items(), behavior)
        ]
        assert chunks == direct
        # The calls view's rows: the identity in force after each delta is the translator's.
        deltas = [c for _, c in chunks if c["type"] == "tool-call-delta"]
        by_block: dict[int, list[Any]] = {}
        for c in deltas:
            by_block.setdefault(c["index"], []).append(c)
        for block, emitted in by_block.items():
            rows = calls[block].rows()
            assert len(rows) == len(emitted)
            for row, c in zip(rows, emitted, strict=True):
                tid, name = (
                    (row.id_accept, row.name_accept)
                    if behavior is Behavior.ACCEPT_IDENTITY
                    else (row.id_assign, row.name_assign)
                )
                assert c["id"] == ("" if tid is None or tid is UNSET else tid)
                assert c.get("name", UNSET) == name
        kinds = [c["type"] for _, c in chunks]
        assert kinds.count("finish") == 1 and kinds[-1] == "finish", kinds
        plain = [c for _, c in chunks]
        outcome = trace.analysis.outcomes[behavior]
        assert outcome.verdict == verdict_from_chunks(plain), (behavior, plain)
        assert trace.verdicts[behavior.value] == outcome.verdict
        assert outcome.finish == plain[-1]["reason"]
        # Where the stream ended: the payload that did it, or end of input.
        last_line = chunks[-1][0]
        if outcome.position is None:
            assert last_line is None
        elif outcome.position == len(trace.payloads):  # the [DONE] a chunk log implies
            assert trace.implied_done and last_line == trace.framing.lines
        else:
            assert last_line == trace.payloads[outcome.position].line
        ends = [c for c in plain if c["type"] == "block-end" and c["block"]["type"] == "tool-call"]
        for c in ends:
            call = calls[c["index"]]
            cid, name = call.final(behavior)
            assert c["block"]["id"] == ("" if cid is None or cid is UNSET else cid)
            assert c["block"]["name"] == ("" if name is None or name is UNSET else name)
            assert c["block"]["arguments"] == call.arguments
        if behavior is Behavior.ACCEPT_IDENTITY:
            assert flags_from_chunks(chunks) == []
        else:
            by_key = {c.key: c.block_index for c in trace.analysis.calls}
            flags = [(f.kind, f.line, by_key[index_key(f.call)]) for f in trace.analysis.flags]
            assert flags == flags_from_chunks(chunks)
    # The diff view's rows: each side, gaps dropped, is that behavior's whole stream in
    # order, and a row is marked the same exactly when its two chunks are equal.
    pairs = BehaviorPairs(trace.analysis)
    rows = list(pairs)
    assert [a for a, _ in rows if a is not None] == list(trace.replay(Behavior.ASSIGN_ALWAYS))
    assert [b for _, b in rows if b is not None] == list(trace.replay(Behavior.ACCEPT_IDENTITY))
    assert [bool(x) for x in pairs.same] == [
        a is not None and b is not None and a[1] == b[1] for a, b in rows
    ]
    # What the diff view draws of a row: every string cut to its first characters, a block's
    # whole text included, never joined whole.
    for k, row in enumerate(rows):
        assert pairs.head(k, 3) == tuple(None if s is None else (s[0], _cut(s[1])) for s in row)
    assert set(trace.verdicts.values()) <= VERDICTS
    # check --json is JSON, with every trace's verdicts; the table shows no raw controls.
    doc = check_json([trace])
    assert doc["traces"][0]["verdicts"] == trace.verdicts
    assert len(doc["traces"][0]["flags"]) == len(trace.analysis.flags)
    table = check_table([trace])
    assert RAW_CONTROL.search(table) is None, table
    table.encode("utf-8")  # strict: nothing a terminal cannot be sent


@robust()
@given(captures)
def test_replay_and_analysis_agree_on_every_capture(capture: tuple[Form, bytes]) -> None:
    form, body = capture
    _check_trace(build(form, [body]))


@robust()
@given(st.lists(wire_chunks().map(json.dumps), max_size=8), st.booleans())
def test_replay_and_analysis_agree_on_chunk_sequences(chunks: list[str], done: bool) -> None:
    """Well-framed streams of generated chunks: most of the variety is in the chunks."""
    _check_trace(build(Form.SSE, [_events(chunks + (["[DONE]"] if done else []))]))


@robust()
@given(st.data(), captures)
def test_feeding_in_pieces_builds_the_same_trace(data: st.DataObject, capture: Any) -> None:
    form, body = capture
    pieces = data.draw(splits(body))
    whole = build(form, [body])
    assert trace_summary(build(form, pieces)) == trace_summary(whole)
    # A snapshot taken mid-way (the TUI shows one while loading) is a prefix of the whole.
    cut = len(pieces) // 2
    partial = build(form, pieces[:cut], close=False)
    assert partial.payloads == whole.payloads[: len(partial.payloads)]
    assert len(partial.decoded) == len(partial.payloads)


@robust()
@given(
    st.lists(payload_texts(), max_size=5),
    st.sampled_from(["{", '{"choices":[{"delta":', "\x00", "[DONE", "{'a': 1}", ""]),
    st.lists(payload_texts(), max_size=5),
)
def test_nothing_around_a_broken_payload_is_lost(
    before: list[str], broken: str, after: list[str]
) -> None:
    def one_line(texts: list[str]) -> list[str]:
        return [t.replace("\r", " ").replace("\n", " ") for t in texts]

    before, after = one_line(before), one_line(after)
    body = _events([*before, broken, *after])
    trace = build(Form.SSE, [body])
    framed = frame(body).payloads
    assert len(framed) == len(before) + 1 + len(after)
    assert trace.payloads == framed  # every payload stays in the display model
    assert len(trace.decoded) == len(framed)
    for p, d in zip(trace.payloads, trace.decoded, strict=True):
        if p.data == b"[DONE]" and not p.after_done:
            assert d is None
        else:
            # decoded as it would be on its own (a malformed one placed in the capture)
            assert d == in_capture(decode_payload(p.data), p.data_lines(body))
            if d.malformed is not None:
                assert p.line in trace.errors
    decoded = trace.decoded[len(before)]
    assert decoded is not None and decoded.malformed is not None
    assert framed[len(before)].line in trace.errors


def test_a_curl_capture_split_after_an_interim_head_waits_for_the_next_head() -> None:
    body = (
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"
        + _events(['{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}', "[DONE]"])
    )
    whole = build(Form.HTTP, [body])
    assert whole.head is not None and (whole.head.status, whole.head.interim) == (200, [100])
    for cut in range(1, len(body)):
        assert trace_summary(build(Form.HTTP, [body[:cut], body[cut:]])) == trace_summary(whole)
