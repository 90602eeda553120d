"""The compare view's comparison made a slice at a time (``compare_steps``): sliced anywhere,
interleaved with another comparison's slices, what it makes once finished is what the whole
comparison makes, and its event rows are what an independent alignment says they are.

The oracle is :class:`difflib.SequenceMatcher` over the payloads' bytes, on streams where that
is the whole story: one contiguous run of text pieces (or of a call's argument pieces) deleted
or inserted, each piece opening and closing with a character no other piece has, so that no
piece can be mistaken for part of another."""

from __future__ import annotations

import difflib
import json
import random
from collections.abc import Generator
from typing import Any

import pytest

from replay_tui.core import diff as diff_module
from replay_tui.core import diff_events
from replay_tui.core.diff import diff_traces
from replay_tui.core.translator import Behavior
from replay_tui.tui.widgets import compare_model
from replay_tui.tui.widgets.compare_model import CompareModel, build_compare_model, compare_steps

from .helpers import finish, sse, tool_delta, trace_of

SEEDS = range(40)


def _content(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def _piece(rng: random.Random, base: int, k: int) -> str:
    mark = chr(base + k)  # (a character no other piece has, at both ends)
    return mark + "".join(rng.choice("abcdefgh ") for _ in range(rng.randint(0, 6))) + mark


def _edit(rng: random.Random, pieces: list[str], base: int) -> list[str]:
    """``pieces`` with one contiguous run deleted, or new pieces inserted (maybe none)."""
    if not pieces or rng.random() < 0.2:
        return list(pieces)
    at = rng.randint(0, len(pieces))
    if rng.random() < 0.5 and at < len(pieces):
        return pieces[:at] + pieces[at + rng.randint(1, len(pieces) - at) :]
    new = [_piece(rng, base + 5000, k) for k in range(rng.randint(1, 6))]
    return pieces[:at] + new + pieces[at:]


def _events(texts: list[str], args: list[str]) -> list[dict[str, Any]]:
    events = [_content(t) for t in texts]
    if args:
        events.append(tool_delta("", first=True))
        events += [tool_delta(a) for a in args]
    events.append(finish("tool_calls" if args else "stop"))
    return events


def _payloads(events: list[dict[str, Any]]) -> list[str]:
    """What the oracle compares: each payload as written."""
    return [json.dumps(e, sort_keys=True) for e in events] + ["[DONE]"]


def _expected_rows(
    a: list[str], b: list[str]
) -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    rows: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        assert tag != "replace", "the streams are made so that no payload is replaced"
        if tag == "equal":
            rows += [
                ("same", (i,), (j,)) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
        rows += [("only-a", (i,), ()) for i in range(i1, i2) if tag == "delete"]
        rows += [("only-b", (), (j,)) for j in range(j1, j2) if tag == "insert"]
    return rows


def _run_in_slices(
    rng: random.Random, *steps: Generator[None, None, CompareModel]
) -> list[CompareModel]:
    """Drive the generators a random few steps at a time, in turns."""
    done: dict[int, CompareModel] = {}
    while len(done) < len(steps):
        k = rng.choice([k for k in range(len(steps)) if k not in done])
        for _ in range(rng.randint(1, 5)):
            try:
                next(steps[k])
            except StopIteration as stop:
                done[k] = stop.value
                break
    return [done[k] for k in range(len(steps))]


def _summary(model: CompareModel) -> dict[str, Any]:
    diff = model.diff
    return {
        "display": list(model.display),
        "sections": model.sections,
        "call_runs": model.call_runs,
        "event_runs": model.event_runs,
        "changed_rows": model.changed_rows,
        "events_differ": model.events_differ,
        "outcome": [d.text() for b in Behavior for d in diff.outcome(b).differences],
        "calls": [([d.text() for d in c.differences], list(c.rows)) for c in diff.calls],
        "events": list(diff.events.rows),
    }


@pytest.fixture
def small_steps(monkeypatch: pytest.MonkeyPatch) -> random.Random:
    """Every step a few events, links, rows or calls long: slices end everywhere."""
    rng = random.Random(7)
    monkeypatch.setattr(diff_events, "STEP_EVENTS", 3)
    monkeypatch.setattr(diff_events, "STEP_LINKS", 2)
    monkeypatch.setattr(diff_events, "STEP_ROWS", 2)
    monkeypatch.setattr(diff_module, "STEP_CALLS", 1)
    monkeypatch.setattr(diff_module, "_STEP_ROWS", 2)
    monkeypatch.setattr(compare_model, "STEP_CALLS", 1)
    return rng


@pytest.mark.parametrize("seed", SEEDS)
def test_a_comparison_made_in_slices_is_the_whole_one_and_the_oracles(
    seed: int, small_steps: random.Random
) -> None:
    rng = random.Random(seed)
    texts = [_piece(rng, 0x4E00, k) for k in range(rng.randint(0, 40))]
    args = [_piece(rng, 0x6000, k) for k in range(rng.randint(0, 30))]
    if not texts and not args:
        texts = [_piece(rng, 0x4E00, 0)]
    # One edit in one place: the text's or the arguments' (a call that opens on both sides).
    edit_text = not args or rng.random() < 0.5
    texts_b = _edit(rng, texts, 0x4E00) if edit_text else texts
    args_b = args if edit_text else _edit(rng, args, 0x6000)
    ea, eb = _events(texts, args), _events(texts_b, args_b)
    a, b = trace_of(sse(ea), "a.sse"), trace_of(sse(eb), "b.sse")

    sliced, other = _run_in_slices(
        small_steps,
        compare_steps(a, b, Behavior.ACCEPT_IDENTITY),
        compare_steps(b, a, Behavior.ASSIGN_ALWAYS),
    )
    rows = [(r.status, tuple(r.a), tuple(r.b)) for r in sliced.diff.events.rows]
    assert rows == _expected_rows(_payloads(ea), _payloads(eb))
    whole = build_compare_model(diff_traces(a, b), Behavior.ACCEPT_IDENTITY)
    assert _summary(sliced) == _summary(whole)
    back = build_compare_model(diff_traces(b, a), Behavior.ASSIGN_ALWAYS)
    assert _summary(other) == _summary(back)


def test_a_big_comparison_made_in_slices_is_the_whole_one() -> None:
    """At the view's own step sizes, on streams long enough to be sliced many times, with
    interleaved calls and a payload that differs in its envelope."""
    rng = random.Random(11)
    events: list[dict[str, Any]] = []
    for k in range(3000):
        call: dict[str, Any] = {"index": k % 3, "function": {"arguments": f"{k},"}}
        if k < 3:
            call.update(id=f"call_{k}", type="function")
            call["function"]["name"] = "f"
        events.append(
            {"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}
        )
    events.append(finish())
    changed = [dict(e) for e in events]
    changed[1500] = {**changed[1500], "system_fingerprint": "fp"}  # (ignored: per request)
    del changed[2000]
    changed[2500] = _content("words")
    a, b = trace_of(sse(events), "a.sse"), trace_of(sse(changed), "b.sse")
    (sliced,) = _run_in_slices(rng, compare_steps(a, b, Behavior.ACCEPT_IDENTITY))
    whole = build_compare_model(diff_traces(a, b), Behavior.ACCEPT_IDENTITY)
    assert _summary(sliced) == _summary(whole)
    assert sliced.events_differ > 0  # (the deleted delta and the text: rows that differ)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("step", [1, 2, 5])
def test_runs_joined_while_idle_hold_every_piece_in_order(
    seed: int, step: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs whose pieces are joined once a step passes without one, then go on (a call
    resumed after others, text between calls): each run's text is its pieces in order, read
    here from the payloads' JSON."""
    monkeypatch.setattr(diff_events, "STEP_EVENTS", step)
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    for _ in range(rng.randint(1, 60)):
        k = rng.randint(-1, 3)
        piece = "".join(chr(rng.randint(0x61, 0x7A)) for _ in range(rng.randint(1, 4)))
        if k < 0:
            events.append({"choices": [{"index": 0, "delta": {"content": piece}}]})
        else:
            call = {"index": k, "function": {"arguments": piece}}
            events.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    body = sse(events)
    want: dict[tuple[Any, ...], str] = {}
    opened: list[Any] = []
    for line in body.decode().splitlines():
        if not line.startswith("data: {"):
            continue
        delta = json.loads(line[6:])["choices"][0]["delta"]
        if "content" in delta:
            want[("text",)] = want.get(("text",), "") + delta["content"]
        for call in delta.get("tool_calls", ()):
            if call["index"] not in opened:
                opened.append(call["index"])
            key = ("args", opened.index(call["index"]))
            want[key] = want.get(key, "") + call["function"]["arguments"]
    streams = diff_events.Streams(trace_of(body, "a.sse"))
    assert {ch: run.text for ch, run in streams.channels.items()} == want
