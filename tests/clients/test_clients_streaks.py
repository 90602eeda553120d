"""Streaks: a run of payloads that are the payload before again but for their arguments piece,
taken by ``compact_frames`` at once (``_streak``) when a call's deltas are a plain list (a trace
loaded for ``check --clients``: ``compact=False``).

Two oracles, neither of them the streak's code:

* the same trace loaded as the TUI loads it (``compact=True``: its deltas are kept compact, and
  no streak is taken) gives the same folded stream, item for item — the same frames, the same
  runs with the same stretches, pieces, lines and marks;
* every library reads the folded stream as it reads one frame per payload (:func:`frames`).

The streams are long runs of one call's continuations with what may break a streak put in at
random: another shape of payload, a ``created`` that changes, text, ``arguments: null``, a
lone surrogate (the fallback parser's), a delta without ``function``, two deltas in one
payload, an SSE ``error`` event, a keep-alive comment, an ``id`` or ``name`` sent again, a
finish reason, the role ``assistant`` late (LangChain JS reads deltas only from the first
role on); and calls interleaved. Each stream is sent as it is, or as a Go gateway sends it
(:func:`_zero_valued`: ``"role": ""`` or ``"user"`` in every chunk, which an AI SDK schema
refuses, ``""`` for every field not set, a usage of zeros).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay_tui.clientlibs import POLICIES, Quiet, assess_frames, compact_frames, frames
from replay_tui.clientlibs import compact as compact_module
from replay_tui.clientlibs.assess import meant_calls
from replay_tui.clientlibs.base import FREE, Frame
from replay_tui.core.trace import Form, Source, Trace, load_trace
from tests.clients.test_clients_events import _shown


def _trace(body: str, compact: bool) -> Trace:
    source = Source(Path("streaks.sse"), "streaks.sse", Form.SSE)
    return load_trace(source, body.encode(), lean=False, compact=compact)


def _said(value: Any) -> Any:
    return "FREE" if value is FREE else value


def _item(item: Frame | Quiet) -> Any:
    """What a folded item holds, as plain values."""
    if isinstance(item, Quiet):
        order = {id(part): k for k, part in enumerate(item.calls.values())}
        parts = [
            (
                key,
                part.index,
                None if part.pair is None else tuple(map(_said, part.pair)),
                list(part.pieces),
                list(part.lines),
                part.id_nulls,
                part.name_nulls,
                part.last_id,
                part.last_name,
                None if part.others is None else list(part.others),
                None if part.later is None else list(part.later),
                None if part.tails is None else list(part.tails),
            )
            for key, part in item.calls.items()
        ]
        joined = item.joined
        return (
            "run",
            item.line,
            [order[id(s)] for s in item.stretches],
            list(item.sizes),
            parts,
            None if joined is None else bytes(joined._flags).rstrip(b"\0"),
        )
    return ("frame", item.line, bytes(item.data), item.count, item.raw, item.event)


def _held(body: str) -> list[Frame | Quiet]:
    """Both oracles on ``body``; the folded stream of the ``check --clients`` load."""
    plain, kept = _trace(body, compact=False), _trace(body, compact=True)
    folded = compact_frames(plain)
    assert [_item(x) for x in folded] == [_item(x) for x in compact_frames(kept)]
    meant = meant_calls(plain.analysis.calls)
    one_by_one = assess_frames(frames(plain), meant)
    gathered = assess_frames(folded, meant)
    for key in POLICIES:
        assert _shown(gathered[key]) == _shown(one_by_one[key]), key
    return folded


def _chunk(calls: list[dict[str, Any]], created: int = 1, **delta: Any) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "delta": {**delta, "tool_calls": calls}}
    return {"id": "chatcmpl-1", "created": created, "model": "m", "choices": [choice]}


def _data(chunk: dict[str, Any], go: str | None = None) -> str:
    """The chunk as an SSE event; ``go``: dressed as a Go gateway sends it, with that role
    (:func:`_zero_valued`)."""
    if go is not None:
        _zero_valued(chunk, go)
    return "data: " + json.dumps(chunk, separators=(",", ":")) + "\n\n"


def _zero_valued(chunk: dict[str, Any], role: str) -> None:
    """A Go gateway's chunk (one-api, new-api: every field of its structs sent, unset ones as
    zero values): ``"system_fingerprint": ""`` and a usage of zeros (where it has none); in
    each delta ``role`` (``""``, which ``@ai-sdk/openai``'s schema refuses; ``"user"``, which
    both refuse), and ``content`` and ``reasoning_content`` ``""``, where it has none of
    them; in each tool-call delta an ``id``, ``type`` and ``function.name`` of ``""`` where it
    has none."""
    chunk["system_fingerprint"] = ""
    chunk.setdefault("usage", {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0})
    for choice in chunk["choices"]:
        delta = choice["delta"]
        delta.setdefault("role", role)
        delta.setdefault("content", "")
        delta.setdefault("reasoning_content", "")
        for tc in delta.get("tool_calls") or []:
            tc.setdefault("id", "")
            tc.setdefault("type", "")
            fn = tc.get("function")
            if isinstance(fn, dict):
                fn.setdefault("name", "")


GO = st.sampled_from([None, None, None, "", "", "user"])
"""A stream's chunks as they are (``None``), or as a Go gateway sends them with that role."""


PIECES = ['{"a', '": ', '"x', "y", 'z"', "}", " ", "1", ",", "é", '\\"', ""]

BREAKS = [
    "shape",  # the same delta with an id null: another shape
    "created",  # the envelope changes
    "text",  # a text chunk between
    "args-null",  # arguments null: not a string
    "surrogate",  # a lone surrogate: the fallback parser's payload
    "no-function",  # a delta without function
    "two",  # two deltas of the call in one payload
    "error-event",  # an SSE error event
    "keepalive",  # a comment line between two payloads
    "id-again",  # the call's id sent again
    "name-blank",  # a blank name
    "role",  # the role beside a continuation (LangChain JS reads deltas from the first on)
    "finish",  # a finish reason
]


def _broken(
    draw: st.DrawFn, deltas: list[dict[str, Any]], blank: Any, out: list[str]
) -> tuple[int, dict[str, Any]]:
    """One of :data:`BREAKS`, drawn, put in a payload of ``deltas`` (its tool-call deltas, in
    order; ``blank``: the ``id`` its continuations send, else another shape is ``""``), or
    on ``out`` before it: ``(its chunk's created, what its choice's delta says beside)``."""
    first, last = deltas[0], deltas[-1]
    created, beside = 1, dict[str, Any]()
    what = draw(st.sampled_from(BREAKS))
    if what == "shape":
        last["id"] = None if blank != None else ""  # noqa: E711
    elif what == "created":
        created = draw(st.integers(2, 4))
    elif what == "text":
        out.append(_data({"choices": [{"index": 0, "delta": {"content": "hm"}}]}))
    elif what == "args-null":
        first["function"]["arguments"] = None
    elif what == "surrogate":
        last["function"]["arguments"] = "\ud83d"
    elif what == "no-function":
        del last["function"]
    elif what == "two":
        deltas.append(dict(first))
    elif what == "error-event":
        out.append("event: error\n")
    elif what == "keepalive":
        out.append(": keep-alive\n\n")
    elif what == "id-again":
        first["id"] = f"call_{first['index']}"
    elif what == "name-blank":
        first["function"]["name"] = ""
    elif what == "role":
        beside = {"role": "assistant"}
    else:
        out.append(_data({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
    return created, beside


@st.composite
def streak_streams(draw: st.DrawFn) -> str:
    """1 to 3 calls, each opened then continued by runs of one shape, interleaved in blocks,
    with what may break a streak put in at random."""
    n_calls = draw(st.integers(1, 3))
    out: list[str] = []
    left = {c: draw(st.integers(1, 120)) for c in range(n_calls)}
    blank = {c: draw(st.sampled_from(["absent", None, ""])) for c in range(n_calls)}
    go = draw(GO)
    for c in range(n_calls):
        head = {"index": c, "id": f"call_{c}", "type": "function"}
        head["function"] = {"name": f"tool_{c}", "arguments": ""}
        out.append(_data(_chunk([head]), go))
    while any(left.values()):
        c = draw(st.sampled_from([c for c, n in left.items() if n]))
        block = min(left[c], draw(st.integers(1, 40)))
        left[c] -= block
        for _ in range(block):
            delta: dict[str, Any] = {
                "index": c,
                "function": {"arguments": draw(st.sampled_from(PIECES))},
            }
            if blank[c] != "absent":
                delta["id"] = blank[c]
            deltas = [delta]
            created, beside = 1, dict[str, Any]()
            if draw(st.integers(0, 9)) == 0:
                created, beside = _broken(draw, deltas, blank[c], out)
            out.append(_data(_chunk(deltas, created, **beside), go))
    out.append(_data({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    return "".join(out) + "data: [DONE]\n\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streak_streams())
def test_a_streak_folds_as_payload_by_payload(body: str) -> None:
    _held(body)


def _taken(
    monkeypatch: pytest.MonkeyPatch,
    name: str = "_streak",
    size: Callable[[Any], int] = len,
    when: Callable[[tuple[Any, ...]], bool] = lambda args: True,
) -> list[int]:
    """The length (``size`` of what it returned) of every run the folding's ``name`` took
    from now on, of the calls whose arguments ``when`` accepts."""
    lengths: list[int] = []
    real = getattr(compact_module, name)

    def counted(*args: Any) -> Any:
        got = real(*args)
        if when(args):
            lengths.append(size(got))
        return got

    monkeypatch.setattr(compact_module, name, counted)
    return lengths


def _first_length(got: Any) -> int:
    """A run of several calls' payloads (``_many_streak``, ``_cycle``): its first part's
    length (none taken: 0)."""
    return len(got[0]) if got else 0


def _long_call(breaks: dict[int, str], created: Callable[[int], int], kinds: int) -> str:
    """One call and 10,000 continuations (the event log is read 4,096 entries at a time:
    streaks end at its windows), each a piece of the first ``kinds`` of :data:`PIECES` in
    turn in a chunk of ``created(k)``, with ``breaks`` where a payload says more or is not
    the same shape: ``created`` (another), ``role`` (``"assistant"`` beside), ``surrogate``
    (a lone one), ``args-null``, ``text`` (a text chunk before it), ``shape`` (an id null)."""
    head = {"index": 0, "id": "call_0", "type": "function"}
    head["function"] = {"name": "f", "arguments": ""}
    out = [_data(_chunk([head]))]
    for k in range(10_000):
        delta: dict[str, Any] = {"index": 0, "function": {"arguments": PIECES[k % kinds]}}
        beside: dict[str, Any] = {}
        what = breaks.get(k)
        when = created(k) + (what == "created")
        if what == "role":
            beside["role"] = "assistant"
        elif what == "surrogate":
            delta["function"]["arguments"] = "\ude00"
        elif what == "args-null":
            delta["function"]["arguments"] = None
        elif what == "text":
            out.append(_data({"choices": [{"index": 0, "delta": {"content": "hm"}}]}))
        elif what == "shape":
            delta["id"] = None
        out.append(_data(_chunk([delta], when, **beside)))
    out.append(_data({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    return "".join(out) + "data: [DONE]\n\n"


def _pieces_folded(folded: list[Frame | Quiet]) -> str:
    """The pieces of every run of a folded stream, joined."""
    runs = [x for x in folded if isinstance(x, Quiet)]
    return "".join("".join(p.pieces) for run in runs for p in run.calls.values())


def test_a_long_call_is_taken_in_streaks_that_stop_where_the_payloads_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 10,000 continuations, broken where a payload says more or is not the same shape
    # (written as msgspec writes them: of PIECES the first 9, "é" is not, it is escaped)
    taken = _taken(monkeypatch)
    breaks = {700: "created", 1500: "surrogate", 2500: "args-null", 4095: "text", 6000: "shape"}
    folded = _held(_long_call(breaks, lambda k: 1, 9))
    assert sum(taken) > 9_000  # nearly every payload came in a streak
    assert len(_pieces_folded(folded)) > 9_000


def test_a_streak_stops_before_another_calls_delta(monkeypatch: pytest.MonkeyPatch) -> None:
    # call 0's continuations, one of call 1 among them: the streak stops before it, and the
    # run keeps call 0's pieces in order around it
    taken = _taken(monkeypatch)
    heads = []
    for c in range(2):
        head = {"index": c, "id": f"call_{c}", "type": "function"}
        head["function"] = {"name": "f", "arguments": ""}
        heads.append(_data(_chunk([head])))
    body = heads[0] + heads[1]
    for k in range(30):
        c = 1 if k == 20 else 0
        body += _data(_chunk([{"index": c, "function": {"arguments": str(k)}}]))
    body += "data: [DONE]\n\n"
    folded = _held(body)
    assert taken and max(taken) < 20
    run = next(x for x in folded if isinstance(x, Quiet))
    assert "".join(run.calls[0].pieces) == "".join(str(k) for k in range(30) if k != 20)


@st.composite
def counted_streak_streams(draw: st.DrawFn) -> tuple[str, int]:
    """:func:`streak_streams` with a ``created`` that counts up from payload to payload (as
    llama.cpp's timings, or a gateway's clock, make every payload's bytes new), and how many
    new shapes in a row the folding waits for before it judges payloads by their typed
    decode (``_MISSES``: drawn small, so that short streams reach it)."""
    body = draw(streak_streams())
    counter = iter(range(10, 1_000_000))
    body = re.sub(r'"created":\d+', lambda _: f'"created":{next(counter)}', body)
    # now and then a payload in a choice of another index (what the one library that reads
    # choice 0 alone skips)
    body = re.sub(
        r'"choices":\[\{"index":0,"delta":\{"tool_calls"',
        lambda m: m[0].replace('"index":0', '"index":1') if draw(st.integers(0, 14)) == 0 else m[0],
        body,
    )
    return body, draw(st.sampled_from([0, 1, 3]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counted_streak_streams())
def test_a_typed_streak_folds_as_payload_by_payload(drawn: tuple[str, int]) -> None:
    body, misses = drawn
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compact_module, "_MISSES", misses)
        _held(body)


def test_payloads_new_in_bytes_but_alike_are_taken_in_typed_streaks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 10,000 continuations whose created counts up (no two payloads alike in bytes): judged
    # by their typed decode a span at a time, streaks broken where a payload says more
    typed = _taken(monkeypatch, when=lambda args: isinstance(args[9], compact_module._Typed))
    breaks = {700: "role", 1500: "surrogate", 2500: "args-null", 4095: "text", 6000: "shape"}
    folded = _held(_long_call(breaks, lambda k: 1_000 + k, len(PIECES)))
    assert sum(typed) > 9_000  # nearly every payload came in a typed streak
    assert len(_pieces_folded(folded)) > 9_000


@st.composite
def paired_streak_streams(draw: st.DrawFn) -> str:
    """2 to 4 calls, then payloads of several of them side by side — in one choice, or each
    in a choice of its own (the choices' indexes drawn) — the same calls in the same places
    for a stretch, with what may break a streak put in at random."""
    n_calls = draw(st.integers(2, 4))
    out: list[str] = []
    go = draw(GO)
    for c in range(n_calls):
        head = {"index": c, "id": f"call_{c}", "type": "function"}
        head["function"] = {"name": f"tool_{c}", "arguments": ""}
        out.append(_data(_chunk([head]), go))
    blank = draw(st.sampled_from(["absent", None, ""]))
    for _ in range(draw(st.integers(1, 4))):
        calls = draw(st.permutations(range(n_calls)))[: draw(st.integers(2, n_calls))]
        split = draw(st.booleans())
        indexes = [draw(st.integers(0, 2)) for _ in calls]
        for _ in range(draw(st.integers(1, 80))):
            deltas = []
            for c in calls:
                delta: dict[str, Any] = {
                    "index": c,
                    "function": {"arguments": draw(st.sampled_from(PIECES))},
                }
                if blank != "absent":
                    delta["id"] = blank
                deltas.append(delta)
            created, beside = 1, dict[str, Any]()
            if draw(st.integers(0, 14)) == 0:
                created, beside = _broken(draw, deltas, blank, out)
            if split:
                choices: list[dict[str, Any]] = [
                    {"index": k, "delta": {"tool_calls": [d]}}
                    for k, d in zip(indexes, deltas, strict=False)
                ]
                choices[0]["delta"].update(beside)
                body = {"id": "chatcmpl-1", "created": created, "model": "m", "choices": choices}
                out.append(_data(body, go))
            else:
                out.append(_data(_chunk(deltas, created, **beside), go))
    out.append(_data({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    return "".join(out) + "data: [DONE]\n\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paired_streak_streams())
def test_a_streak_of_payloads_of_several_deltas_folds_as_payload_by_payload(body: str) -> None:
    _held(body)


def test_paired_calls_are_taken_in_streaks(monkeypatch: pytest.MonkeyPatch) -> None:
    # two calls side by side, 5,000 payloads (the event log's windows of 4,096 entries hold
    # 2,048 of them), one of them saying more
    lengths = _taken(monkeypatch, "_many_streak", _first_length)
    out = []
    for c in range(2):
        head = {"index": c, "id": f"call_{c}", "type": "function"}
        head["function"] = {"name": "f", "arguments": ""}
        out.append(_data(_chunk([head])))
    for k in range(5_000):
        pair = [{"index": c, "id": None, "function": {"arguments": str(k % 7)}} for c in range(2)]
        out.append(_data(_chunk(pair, 2 if k == 3_000 else 1)))
    out.append(_data({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    folded = _held("".join(out) + "data: [DONE]\n\n")
    assert sum(lengths) > 4_900
    runs = [x for x in folded if isinstance(x, Quiet)]
    assert len(runs) == 1
    # (the first pair is a frame: its id null is news)
    assert "".join(runs[0].calls[0].pieces) == "".join(str(k % 7) for k in range(1, 5_000))


@st.composite
def cycle_streams(draw: st.DrawFn) -> str:
    """Payloads that come back in a cycle: a pattern of 1 to 5 calls (one may come twice in
    a row) over and over, each call continuing in one shape or two in turn (an ``id`` sent
    and not, a choice index 0 and 1, a usage and none, a blank name) or always in choice 1,
    or an ``id`` sent and not at each of its payloads, with what may break a cycle put in at random."""
    n_calls = draw(st.integers(1, 5))
    out: list[str] = []
    go = draw(GO)
    for c in range(n_calls):
        head = {"index": c, "id": f"call_{c}", "type": "function"}
        head["function"] = {"name": f"tool_{c}", "arguments": ""}
        out.append(_data(_chunk([head]), go))
    kinds = st.sampled_from(["id", "choice", "choice-1", "usage", "name", "each", None])
    turns = draw(st.lists(kinds, min_size=n_calls, max_size=n_calls))
    pattern = draw(st.lists(st.integers(0, n_calls - 1), min_size=1, max_size=6))
    seen = [0] * n_calls
    for k in range(draw(st.integers(1, 300))):
        c = pattern[k % len(pattern)]
        odd = (k // len(pattern)) % 2 == 1
        seen[c] += 1
        delta: dict[str, Any] = {
            "index": c,
            "function": {"arguments": draw(st.sampled_from(PIECES))},
        }
        deltas = [delta]
        chunk = _chunk(deltas)
        turn = turns[c]
        if (turn == "id" and odd) or (turn == "each" and seen[c] % 2):
            delta["id"] = None
        elif turn == "name" and odd:
            delta["function"]["name"] = ""
        elif (turn == "choice" and odd) or turn == "choice-1":
            chunk["choices"][0]["index"] = 1
        elif turn == "usage" and odd:
            chunk["usage"] = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
        if draw(st.integers(0, 24)) == 0:
            chunk["created"], beside = _broken(draw, deltas, None, out)  # (another shape: "")
            chunk["choices"][0]["delta"].update(beside)
        out.append(_data(chunk, go))
    out.append(_data({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    return "".join(out) + "data: [DONE]\n\n"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cycle_streams())
def test_a_cycle_of_payloads_folds_as_payload_by_payload(body: str) -> None:
    _held(body)


@pytest.mark.parametrize("turn", ["calls", "choices", "both"])
def test_payloads_that_come_back_in_a_cycle_are_taken_in_cycles(
    turn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 16 calls in turn, each sending id null and not in turn (Envoy's interleaved calls); one
    # call whose payloads come in choice 0 and 1 in turn; 4 calls in turn, in two choices
    lengths = _taken(monkeypatch, "_cycle", _first_length)
    n_calls = {"calls": 16, "choices": 1, "both": 4}[turn]
    out = []
    for c in range(n_calls):
        head = {"index": c, "id": f"call_{c}", "type": "function"}
        head["function"] = {"name": "f", "arguments": ""}
        out.append(_data(_chunk([head])))
    for k in range(4_000):
        c = k % n_calls
        delta: dict[str, Any] = {"index": c, "function": {"arguments": PIECES[k % 9]}}
        chunk = _chunk([delta])
        odd = (k // n_calls) % 2 == 1
        if turn == "calls" and odd:
            delta["id"] = None
        elif odd:
            chunk["choices"][0]["index"] = 1
        out.append(_data(chunk))
    out.append(_data({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    folded = _held("".join(out) + "data: [DONE]\n\n")
    assert sum(lengths) > 3_500
    assert len(folded) < 40  # (the first id null of each call is news: a frame each)
