"""The compare view's cut of two traces: each payload read as indexing reads it, and a text
the two traces agree on kept once (the B side's run is A's string, not a second copy)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from replay_tui.core.diff import diff_traces
from replay_tui.core.diff_events import TEXT, Streams
from replay_tui.core.trace import DecodedPayloads, Form, Source, load_trace

from .helpers import finish, sse, tool_delta, trace_of

ROOT = Path(__file__).resolve().parent.parent.parent
CAPTURES = sorted(
    p
    for folder in (ROOT / "traces", ROOT / "tests" / "data" / "diff")
    for p in folder.rglob("*")
    if p.suffix in (".sse", ".txt", ".jsonl")
)


@pytest.mark.parametrize("path", CAPTURES[:60], ids=lambda p: p.name)
def test_a_scan_reads_every_payload_as_indexing_does(path: Path) -> None:
    form = Form.JSONL if path.suffix == ".jsonl" else Form.SSE
    try:
        trace = load_trace(Source(path, path.name, form))
    except (OSError, ValueError):
        pytest.skip("not a capture this loader reads")
    decoded = trace.decoded
    if not isinstance(decoded, DecodedPayloads):
        pytest.skip("decoded payloads kept as a list")
    expected = [(i, trace.payloads[i].after_done, decoded[i]) for i in range(len(decoded))]
    assert list(decoded.scan()) == expected


def _content(text: str) -> dict[str, object]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def test_a_text_both_traces_have_is_kept_once_whatever_its_pieces() -> None:
    words = "the same words, sent in other pieces " * 50
    a = trace_of(sse([_content(words[:700]), _content(words[700:]), finish("stop")]), "a.sse")
    cuts = [0, 13, 400, 1200, len(words)]
    pieces = [_content(words[x:y]) for x, y in pairwise(cuts)]
    b = trace_of(sse([*pieces, finish("stop")]), "b.sse")
    sa = Streams(a)
    sb = Streams(b, join=False)
    sb.join(like=sa)
    assert sa.channels[TEXT].text == words
    assert sb.channels[TEXT].text is sa.channels[TEXT].text


def test_a_text_that_differs_is_each_traces_own() -> None:
    a = trace_of(sse([_content("abc"), _content("def"), finish("stop")]), "a.sse")
    b = trace_of(sse([_content("abc"), _content("deF"), finish("stop")]), "b.sse")
    c = trace_of(sse([_content("abc"), _content("defg"), finish("stop")]), "c.sse")
    sa = Streams(a)
    for trace, text in ((b, "abcdeF"), (c, "abcdefg")):
        sb = Streams(trace, join=False)
        sb.join(like=sa)
        assert sb.channels[TEXT].text == text
    calls = Streams(trace_of(sse([tool_delta('{"a":', first=True), tool_delta("1}"), finish()])))
    calls.join(like=sa)  # (joined already: nothing left to join)
    assert calls.channels[("args", 0)].text == '{"a":1}'


def test_a_long_piece_is_the_loaded_traces_string_not_a_copy_decoded_again() -> None:
    long = "a long content " * 80_000  # (over a megabyte)
    trace = trace_of(sse([_content(long), finish("stop")]))
    text = Streams(trace).channels[TEXT].text
    assert text == long
    assert any(text is kept for kept in trace.analysis.events.texts)


def test_long_payloads_are_compared_where_they_lie() -> None:
    long = "a long content " * 80_000
    body = sse([_content("hi"), _content(long), finish("stop")])
    other = sse([_content("hi"), _content(long[:-1] + "!"), finish("stop")])
    a, same, differs = (trace_of(b, n) for b, n in ((body, "a"), (body, "b"), (other, "c")))
    sa, sb, sc = Streams(a), Streams(same), Streams(differs)
    assert sa.same_data(1, sb, 1) is True
    assert sa.same_data(1, sc, 1) is False
    assert sa.same_data(0, sb, 0) is None  # short: compared as before
    assert sa.same_data(1, sb, 0) is None
    assert diff_traces(a, same).events.changed_count == 0
    assert diff_traces(a, differs).events.changed_count == 1
