"""The folded stream the models read (``compact_frames``) gives every library the outcome the
payload-by-payload stream gives, on every capture the project has and on long streams made from
the recorded scenarios by cutting their arguments into one-character pieces."""

from __future__ import annotations

import json
from array import array
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay_tui.clientlibs import POLICIES, Quiet, assess_frames, compact_frames, frames
from replay_tui.clientlibs.assess import meant_calls
from replay_tui.clientlibs.base import Marks
from replay_tui.core.discovery import discover
from replay_tui.core.pieces import Pieces
from replay_tui.core.trace import Trace, load_trace
from replay_tui.core.wire import UNSET

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "data" / "clients" / "scenarios"
CAPTURES = sorted(
    [*(ROOT / "tests" / "data" / "corpus").glob("*.sse"), *SCENARIOS.glob("*.sse")]
    + [p for p in (ROOT / "traces").rglob("*") if p.is_file()]
)


def _traces(path: Path) -> list[Trace]:
    return [load_trace(s) for s in discover([path]).sources]


def _both(trace: Trace) -> tuple[dict[str, Any], dict[str, Any]]:
    meant = meant_calls(trace.analysis.calls)
    full = assess_frames(frames(trace), meant)
    folded = assess_frames(compact_frames(trace), meant)

    def shown(outcomes: dict[str, Any]) -> dict[str, Any]:
        return {
            k: (o.outcome, [(c.id, c.name, c.arguments) for c in o.assembly.calls])
            for k, o in outcomes.items()
        }

    return shown(full), shown(folded)


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_folding_changes_no_outcome_on_the_captures(path: Path) -> None:
    for trace in _traces(path):
        full, folded = _both(trace)
        assert folded == full


def _exploded(text: str) -> str:
    """The capture with every tool-call delta's arguments cut into one-character deltas."""
    out = []
    for block in text.split("\n\n"):
        if not block.startswith("data: {"):
            out.append(block)
            continue
        chunk = json.loads(block[6:])
        tcs = (chunk.get("choices") or [{}])[0].get("delta", {}).get("tool_calls") or []
        fn = tcs[0].get("function") if len(tcs) == 1 else None
        args = fn.get("arguments") if isinstance(fn, dict) else None
        if not isinstance(args, str) or len(args) < 2:
            out.append(block)
            continue
        for k, ch in enumerate(args):
            piece = json.loads(json.dumps(chunk))
            piece_fn = piece["choices"][0]["delta"]["tool_calls"][0]["function"]
            piece_fn["arguments"] = ch
            if k:  # the later pieces repeat the delta's identity fields as they are
                piece["choices"][0].pop("finish_reason", None)
            out.append("data: " + json.dumps(piece))
    return "\n\n".join(out)


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.sse")), ids=lambda p: p.stem)
def test_folding_changes_no_outcome_on_long_streams(path: Path, tmp_path: Path) -> None:
    long = tmp_path / path.name
    long.write_text(_exploded(path.read_text()))
    trace = _traces(long)[0]
    folded = compact_frames(trace)
    assert len(folded) <= len(frames(trace))
    full, compact = _both(trace)
    assert compact == full


def test_a_run_of_blank_continuations_is_one_frame(tmp_path: Path) -> None:
    first = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "f", "arguments": ""},
    }
    chunks = [first] + [{"index": 0, "id": "", "function": {"arguments": c}} for c in '{"a": 1}']
    body = "".join(
        "data: " + json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [tc]}}]}) + "\n\n"
        for tc in chunks
    )
    path = tmp_path / "t.sse"
    path.write_text(
        body
        + 'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}\n\ndata: [DONE]\n\n'
    )
    stream = compact_frames(_traces(path)[0])
    # the call opened, its first id:"" (news to a library that assigns it), then one quiet run
    assert [type(f).__name__ for f in stream] == ["Frame", "Frame", "Quiet", "Frame"]
    run = stream[2]
    assert isinstance(run, Quiet) and list(run.sizes) == [7]
    (frame,) = run.frames()
    assert frame.pieces == list('"a": 1}')
    assert frame.raw["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] == '"a": 1}'
    assert set(POLICIES)  # every policy reads the same folded stream


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_pieces_that_look_like_other_fields_fold_the_same(
    tmp_path: Path, ensure_ascii: bool
) -> None:
    # pieces whose JSON token also occurs elsewhere in the payload (a key, the type), is
    # escaped differently from msgspec's encoding (\u00e9), or is empty
    pieces = ["function", "index", "é", "", "\\", '"', "function", "{", "x", "}", "", "arguments"]
    first = {"index": 0, "id": "call_1", "type": "function"}
    deltas = [{**first, "function": {"name": "f", "arguments": ""}}] + [
        {"index": 0, "id": "", "type": "function", "function": {"arguments": p}} for p in pieces
    ]
    chunks = [
        {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [d]}, "finish_reason": None}]}
        for d in deltas
    ]
    chunks.append(
        {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    )
    path = tmp_path / "t.sse"
    body = "".join(f"data: {json.dumps(c, ensure_ascii=ensure_ascii)}\n\n" for c in chunks)
    path.write_text(body + "data: [DONE]\n\n", encoding="utf-8")
    trace = _traces(path)[0]
    full, compact = _both(trace)
    assert compact == full
    assert len(compact_frames(trace)) < len(frames(trace))


def _huge_body(extra: dict[str, Any], choice_extra: dict[str, Any], reasoning: bool) -> str:
    """A call, a text piece of 1.5 MB (and one of a few characters) beside ``extra`` (in the
    chunk) and ``choice_extra`` (in its choice), then the call again."""
    field = "reasoning_content" if reasoning else "content"
    call = {"index": 0, "id": "call_1", "type": "function"}
    chunks: list[dict[str, Any]] = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", field: "Here: "}}]},
        {"choices": [{"index": 0, "delta": {field: 'é\\"x' * 500_000}, **choice_extra}], **extra},
        {"choices": [{"index": 0, "delta": {field: "then"}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{**call, "function": {"name": "f"}}]}}]},
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]},
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


@pytest.mark.parametrize("reasoning", [False, True])
@pytest.mark.parametrize(
    ("extra", "choice_extra", "folds"),
    [
        ({}, {}, True),
        ({"usage": None, "model": "m"}, {"logprobs": None}, True),
        ({"usage": {"prompt_tokens": "x"}}, {}, False),  # a usage a schema rejects
        ({}, {"finish_reason": "length"}, False),
        ({"error": {"message": "e"}}, {}, False),
        ({}, {"delta": {"content": "é" * 1_500_000, "refusal": "no"}}, False),
    ],
)
def test_a_huge_text_piece_is_judged_where_it_lies_as_any_other(
    tmp_path: Path,
    extra: dict[str, Any],
    choice_extra: dict[str, Any],
    folds: bool,
    reasoning: bool,
) -> None:
    """A text piece of a megabyte or more is judged by one typed decode of its payload where
    it lies in the capture: what it says beside its text makes it a frame of its own, as a
    short piece's shape would, and every library's outcome is the payload-by-payload one."""
    path = tmp_path / "huge.sse"
    path.write_text(_huge_body(extra, choice_extra, reasoning))
    (trace,) = _traces(path)
    full, folded = _both(trace)
    assert folded == full
    stream = compact_frames(trace)
    (huge,) = [f for f in stream if not isinstance(f, Quiet) and f.line == 3]
    assert huge.count == (2 if folds else 1)  # folded: the next piece is read with it
    if folds:  # one copy of the text: the frame's chunk and JSON hold the same string
        field = "reasoning_content" if reasoning else "content"
        text = getattr(huge.chunk.choices[0].delta, field)  # type: ignore[index, union-attr]
        assert len(text) >= 1_500_000 and huge.raw["choices"][0]["delta"][field] is text


def test_a_huge_text_piece_alone_in_its_run_is_one_copy_in_its_frame(tmp_path: Path) -> None:
    """A text run of one huge piece (a 50 MB content string, then the calls): its frame holds
    the analysis' string in its chunk and its JSON, not the payload's bytes too, and every
    library's outcome is the payload-by-payload one."""
    body = _huge_body({}, {}, False).split("\n\n")
    del body[2]  # (the short piece after it)
    path = tmp_path / "huge.sse"
    path.write_text("\n\n".join(body))
    (trace,) = _traces(path)
    full, folded = _both(trace)
    assert folded == full
    (huge,) = [f for f in compact_frames(trace) if not isinstance(f, Quiet) and f.line == 3]
    text = huge.chunk.choices[0].delta.content  # type: ignore[index, union-attr]
    assert huge.count == 1 and huge.data == b"" and len(text) == 2_000_000
    assert huge.raw["choices"][0]["delta"]["content"] is text
    assert huge.raw["choices"][0]["index"] == 0 and "role" not in huge.raw["choices"][0]["delta"]


def test_a_payload_is_looked_at_in_place_only_in_a_capture_that_cannot_grow() -> None:
    """A view of a live capture's growing buffer would stop the buffer from growing while it
    is held: the payload's own bytes are copied out of it instead, once (not a copy of a
    copy, as the table's data() makes: twice a 50 MB payload's size at once)."""
    from replay_tui.clientlibs.compact import _in_place

    data = b'data: {"a":1}\n\n'
    cols = ([0], [len(data) - 2], [6])
    view = _in_place(0, data, *cols, lambda i: b"copy")
    assert isinstance(view, memoryview) and bytes(view) == b'{"a":1}'
    buffer = bytearray(data)
    own = _in_place(0, buffer, *cols, lambda i: b"copy")
    assert own == b'{"a":1}' and not isinstance(own, memoryview)
    buffer += b"more"  # (nothing holds the buffer: it grows)
    assert _in_place(0, data, [0], [len(data) - 2], [-1], lambda i: b"own") == b"own"


@given(st.lists(st.integers(0, 300), max_size=60), st.lists(st.integers(-5, 400), max_size=40))
def test_marks_say_what_a_set_says(marked: list[int], asked: list[int]) -> None:
    """A run's joined stretches (:class:`~replay_tui.clientlibs.base.Marks`, a byte a
    position) answer as the set of them did."""
    marks, want = Marks(), set()
    for k in marked:
        marks.add(k)
        want.add(k)
    assert [k in marks for k in asked] == [k in want for k in asked]
    assert sorted(marks) == sorted(want) and len(marks) == len(want)
    assert bool(marks) == bool(want) and marks == want and "1" not in marks


def test_a_runs_pieces_and_lines_are_kept_compact(tmp_path: Path) -> None:
    """Two calls streamed side by side: their pieces are kept as joined blocks and their lines
    as an array, their stretches' marks a byte each, not an object per piece; the run's frames
    and its views read them back as sent."""

    def call(index: int, piece: str, name: str | None = None) -> dict[str, Any]:
        fn: dict[str, Any] = {"arguments": piece}
        if name is None:
            return {"index": index, "function": fn}
        return {
            "index": index,
            "id": f"call_{name}",
            "type": "function",
            "function": {"name": name, **fn},
        }

    def event(tcs: list[dict[str, Any]], finish: str | None = None) -> str:
        delta = {"tool_calls": tcs} if tcs else {}
        chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return "data: " + json.dumps(chunk) + "\n\n"

    body = event([call(0, "", "f"), call(1, "", "g")])
    body += "".join(event([call(0, f"a{k},"), call(1, f"b{k},")]) for k in range(300))
    path = tmp_path / "t.sse"
    path.write_text(body + event([], "tool_calls") + "data: [DONE]\n\n")
    stream = compact_frames(_traces(path)[0])
    (run,) = [x for x in stream if isinstance(x, Quiet)]
    a, b = run.calls.values()
    assert isinstance(a.pieces, Pieces) and isinstance(a.lines, array)
    assert list(a.pieces) == [f"a{k}," for k in range(300)]
    assert list(b.pieces) == [f"b{k}," for k in range(300)]
    assert list(a.lines) == [3 + 2 * k for k in range(300)] and list(b.lines) == list(a.lines)
    assert isinstance(run.joined, Marks) and list(run.joined) == list(range(1, 600, 2))
    assert [f.pieces and "".join(f.pieces) for f in run.frames()] == [
        "".join(f"a{k}," for k in range(300)),
        "".join(f"b{k}," for k in range(300)),
    ]
    head = run.view("head")  # (LlamaIndex: the second delta of each chunk left out)
    assert list(head.sizes) == [300] and list(head.stretches[0].pieces) == list(a.pieces)
    assert list(head.stretches[0].lines) == list(a.lines)


def _handed(calls: Any) -> list[tuple[Any, ...]]:
    """Each call a library hands over, every field with its type (``1``, ``1.0`` and
    ``true`` apart, dict keys in order)."""
    return [
        (
            repr(c.id),
            repr(c.name),
            repr(c.arguments),
            repr(c.wire_index),
            c.id_generated,
            c.invalid,
            json.dumps(c.parsed) if c.parsed is not UNSET else None,
        )
        for c in calls
    ]


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_outcomes_sharing_the_meant_calls_hand_over_what_each_library_assembled(
    path: Path,
) -> None:
    """A library that delivers every call as meant keeps the meant call's object (one for
    every such library), and parsed arguments equal to the meant call's parse keep that parse:
    what its outcome hands over is what the library assembled, field by field and type by
    type."""
    for trace in _traces(path):
        stream = compact_frames(trace)
        meant = meant_calls(trace.analysis.calls)
        outcomes = assess_frames(stream, meant)
        for key, policy in POLICIES.items():
            assert _handed(outcomes[key].assembly.calls) == _handed(policy.run(stream).calls)


_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.sampled_from([0, 1, -1, 0.0, -0.0, 1.0, 2.5]),
        st.text(max_size=3),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(_json, _json)
def test_a_parse_is_shared_only_when_it_is_shown_the_same(a: Any, b: Any) -> None:
    from replay_tui.clientlibs.assess import _same_json

    assert _same_json(a, b) == (json.dumps(a) == json.dumps(b))
    assert _same_json(a, json.loads(json.dumps(a)))


@given(st.lists(st.text(max_size=4), max_size=200), st.integers(0, 210), st.integers(0, 210))
def test_a_span_of_pieces_is_their_join(pieces: list[str], a: int, b: int) -> None:
    from replay_tui.clientlibs.base import span_of

    want = "".join(pieces[a:b])
    assert span_of(pieces, a, b) == want == span_of(Pieces(pieces), a, b)


def test_pieces_that_cut_an_emoji_in_two_fold_as_any_other(tmp_path: Path) -> None:
    """A gateway in JavaScript cuts strings by UTF-16 units: one payload in four carried a
    lone surrogate escape, which msgspec refuses, and each became a frame every library read
    (portkey-surrogates: 24,000 frames, check --clients 9x check, its Clients view 4.3 s, its
    JSON 1.7x the file held while they ran). Decoded by the fallback parser to plain chunks,
    they fold as any other, with the same outcomes."""
    body = '{"note": "' + "fix \U0001f600 " * 60 + '"}'
    units = body.encode("utf-16-le")
    pieces = [
        units[a : a + 6].decode("utf-16-le", "surrogatepass") for a in range(0, len(units), 6)
    ]
    assert sum(any(0xD800 <= ord(c) < 0xE000 for c in p) for p in pieces) >= 40
    first = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "f", "arguments": ""},
    }
    deltas = [{"role": "assistant", "content": "hi \ud83d"}, {"content": "\ude00 there"}]
    deltas += [{"tool_calls": [first]}]
    deltas += [{"tool_calls": [{"index": 0, "function": {"arguments": p}}]} for p in pieces]
    chunks = [{"id": "c", "created": 1, "choices": [{"index": 0, "delta": d}]} for d in deltas]
    lines = [f"data: {json.dumps(c, separators=(',', ':'))}\n\n" for c in chunks]
    path = tmp_path / "cut.sse"
    path.write_text("".join(lines) + "data: [DONE]\n\n")
    assert "\\ud83d" in path.read_text()
    (trace,) = _traces(path)
    full, folded = _both(trace)
    assert folded == full
    stream = compact_frames(trace)  # (the text in one frame, the call's pieces in its first)
    assert len(stream) <= 6, [type(item).__name__ for item in stream]


def test_blanks_before_a_late_role_are_new_to_langchain_js(tmp_path: Path) -> None:
    """LangChain JS reads a call's deltas only once ``choices[0]`` sent the role
    ``assistant``: an ``id: ""`` sent before a late role, and again after it, is the first
    it sees. The folded stream took the second for a repeat every library had seen and
    folded it away (LangChain JS's call: id ``None``, payload by payload ``""``). Found by a
    helper's property test, shrunk to five payloads."""
    first = {
        "index": 1,
        "id": "call_1",
        "type": "function",
        "function": {"name": "t", "arguments": ""},
    }
    deltas: list[dict[str, Any]] = [{"tool_calls": [first]}]
    for role, cid in ((False, ""), (True, None), (False, ""), (False, None)):
        tc = {"index": 1, "function": {"arguments": '{"a'}, "id": cid}
        deltas.append({"role": "assistant", "tool_calls": [tc]} if role else {"tool_calls": [tc]})
    chunks = [{"id": "c", "created": 1, "choices": [{"index": 0, "delta": d}]} for d in deltas]
    path = tmp_path / "late-role.sse"
    path.write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks))
    (trace,) = _traces(path)
    full, folded = _both(trace)
    assert full["langchain-js"][1][0][0] == ""  # (the id it ends with, payload by payload)
    assert folded == full


def _go_chunk(delta: dict[str, Any], finish: Any = None) -> str:
    """A chunk as a Go gateway in front of DeepSeek sends it (one-api, new-api): every field
    of its structs, unset ones as zero values (``bench/shapes.py``'s ``go-zero-values``)."""
    full = {"role": "", "content": "", "reasoning_content": "", **delta}
    chunk = {
        "id": "chatcmpl-9f2c",
        "object": "chat.completion.chunk",
        "created": 1770764938,
        "model": "deepseek-chat",
        "system_fingerprint": "",
        "choices": [{"index": 0, "delta": full, "logprobs": None, "finish_reason": finish}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }
    return "data: " + json.dumps(chunk, ensure_ascii=False, separators=(",", ":")) + "\n\n"


def _go_folded(path: Path, chunks: list[str]) -> tuple[Trace, list[Any]]:
    """A Go gateway's ``chunks`` written to ``path`` as a capture, loaded as the TUI loads
    it, and folded."""
    path.write_text("".join(chunks) + "data: [DONE]\n\n", encoding="utf-8")
    (trace,) = _traces(path)
    return trace, compact_frames(trace)


def _role_parts(trace: Trace, stream: list[Any]) -> tuple[list[Any], list[Any]]:
    """Both oracles on a Go gateway's trace, and ``@ai-sdk/openai``'s error parts on the
    folded ``stream`` and payload by payload: one per payload with ``"role": ""``, at its
    line, either way."""
    full, folded = _both(trace)
    assert folded == full
    meant = meant_calls(trace.analysis.calls)
    one_by_one = assess_frames(frames(trace), meant)["ai-sdk-openai"].assembly.error_parts
    parts = assess_frames(stream, meant)["ai-sdk-openai"].assembly.error_parts
    lines = [payload.line for payload in trace.payloads if b'"role":""' in payload.data]
    assert [p.line for p in parts] == [p.line for p in one_by_one] == lines
    return parts, one_by_one


def test_a_go_gateways_zero_values_fold_as_their_payloads(tmp_path: Path) -> None:
    """go-zero-values (issue 27), small: ``"role": ""`` in every chunk, which
    ``@ai-sdk/openai``'s schema refuses (every payload an error part) and after which
    LangChain JS reads no tool call, and continuations re-sending ``"id": ""``, ``"type":
    ""`` and ``"name": ""``. Each payload was a frame of its own (18 libraries read 100,000
    frames); now each call's continuations after its first two are one run, which every
    library reads as it reads the payloads: the same outcomes, and one error part per
    payload of the run, at its own line, naming the role."""
    body = [_go_chunk({"role": "assistant", "reasoning_content": w}) for w in ("先", "查")]
    for c in range(2):
        head = {"index": c, "id": f"call_{c}", "type": "function"}
        head["function"] = {"name": "get_weather", "arguments": ""}
        body.append(_go_chunk({"tool_calls": [head]}))
        for piece in ['{"q": "', *'杭州 "西湖" 杭州', '"}']:
            piece = piece.replace('"', '\\"') if len(piece) == 1 else piece
            tc = {"index": c, "id": "", "type": "", "function": {"name": "", "arguments": piece}}
            body.append(_go_chunk({"tool_calls": [tc]}))
    body.append(_go_chunk({}, "tool_calls"))
    trace, stream = _go_folded(tmp_path / "go-zero-values.sse", body)
    runs = [item for item in stream if isinstance(item, Quiet)]
    # per call: its first delta and two continuations (a new type "", after which its id
    # and name "" are new) are frames, the other ten one run
    assert [sum(len(p.pieces) for p in run.calls.values()) for run in runs] == [10, 10]
    assert len(stream) == 2 + 2 * (3 + 1) + 1
    parts, one_by_one = _role_parts(trace, stream)
    assert {(p.name, p.field, p.value) for p in parts} == {
        ("AI_TypeValidationError", "choices[0].delta.role", '""')
    }
    assert {(p.name, p.field, p.value) for p in one_by_one} == {
        ("AI_TypeValidationError", "choices[0].delta.role", '""')
    }


def test_a_go_gateways_text_folds_as_its_payloads(tmp_path: Path) -> None:
    """A Go gateway's text (one-api, new-api): each content piece beside ``"role": ""`` and
    ``"reasoning_content": ""``, which ``@ai-sdk/openai``'s schema refuses for the role. Each
    payload was a frame of its own; now the text after the first is one frame, refused for
    the role as its payloads are, one error part per payload at its line."""
    words = ["杭州", "的", "天气", "今天", "很好", "，", "适合", "出行", "。"] * 4
    body = [_go_chunk({"role": "assistant"})]
    body += [_go_chunk({"content": w}) for w in words]
    head = {"index": 0, "id": "call_0", "type": "function"}
    head["function"] = {"name": "get_weather", "arguments": '{"q": "杭州"}'}
    body.append(_go_chunk({"tool_calls": [head]}))
    body.append(_go_chunk({}, "tool_calls"))
    trace, stream = _go_folded(tmp_path / "go-text.sse", body)
    # the role "assistant" (a frame), the first "" (news: a frame), the other 35 pieces (one
    # frame), the call, the finish
    assert [item.count for item in stream] == [1, 1, len(words) - 1, 1, 1]  # type: ignore[union-attr]
    parts, _ = _role_parts(trace, stream)
    assert {(p.field, p.value) for p in parts} == {("choices[0].delta.role", '""')}


def test_a_folded_calls_json_is_its_first_payloads_with_the_arguments_joined(
    tmp_path: Path,
) -> None:
    """A call whose first payload took its continuations (an agent loop's calls) reads as
    JSON what that payload said, its arguments the joined ones: made again at each read (not
    kept while the libraries run), so a library changing what it read changes nothing for the
    next one."""
    payloads = []
    for k in range(3):
        head = {"index": k, "id": f"call_{k}", "type": "function"}
        head["function"] = {"arguments": "", "name": "run_shell"}
        payloads.append({"id": "c", "object": "chat.completion.chunk", "created": 7, "tc": head})
        for piece in ['{"cmd":"', "ls", " -l", '"}']:
            cont = {"index": k, "function": {"arguments": piece}}
            payloads.append(
                {"id": "c", "object": "chat.completion.chunk", "created": 7, "tc": cont}
            )
    lines = []
    for p in payloads:
        tc = p.pop("tc")
        p["model"] = "m"
        p["choices"] = [{"index": 0, "delta": {"tool_calls": [tc]}, "finish_reason": None}]
        lines.append("data: " + json.dumps(p, separators=(",", ":")) + "\n\n")
    path = tmp_path / "loop.sse"
    path.write_text("".join(lines) + "data: [DONE]\n\n")
    stream = compact_frames(_traces(path)[0])
    heads = [f for f in stream if not isinstance(f, Quiet) and f.count > 1]
    assert len(heads) == 3
    for k, frame in enumerate(heads):
        expected = json.loads(lines[5 * k][len("data: ") :])
        expected["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = (
            '{"cmd":"ls -l"}'
        )
        read = frame.raw
        assert read == expected
        read["choices"].clear()
        assert frame.raw == expected
