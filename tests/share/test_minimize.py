"""``minimize``: on real captures the output keeps the finding, is 1-minimal for events, has
the same form, and ``check`` agrees."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay_tui.cli.traces import resolve_trace
from replay_tui.core.discovery import discover
from replay_tui.core.sse import SseFramer
from replay_tui.core.trace import Form, Trace
from replay_tui.share.minimize import (
    Budget,
    ddmin,
    finding_of,
    load_bytes,
    minimize,
    serialize,
)

from .samples import CORPUS, TRACES

Cli = Callable[..., tuple[int, str, str]]

REAL = sorted(s.address for s in discover([str(CORPUS), str(TRACES)]).sources)


def _address(address: str) -> str:
    # discover() addresses are relative to the folder given; resolve against it
    for root in (CORPUS, TRACES):
        path = root / address.partition("#")[0]
        if path.exists():
            return str(root / address)
    raise AssertionError(address)


def _events(data: bytes, form: Form) -> list[bytes]:
    trace = load_bytes(data, form)
    return [p.data for p in trace.payloads]


@pytest.mark.parametrize("address", REAL)
def test_real_capture_minimizes_to_a_one_minimal_trace_with_the_same_finding(address: str) -> None:
    trace = resolve_trace(_address(address))
    result = minimize(trace)
    assert result.verified and result.complete and result.one_minimal
    form = Form.SSE if trace.source.form is Form.HAR else trace.source.form
    assert result.form is form
    small = load_bytes(result.data, form)
    assert finding_of(small.analysis) == finding_of(trace.analysis)
    assert result.bytes_after <= result.bytes_before
    # 1-minimal, checked from the written bytes: removing any one event changes the finding
    events = _events(result.data, form)
    assert len(events) == result.events_after
    for k in range(len(events)):
        rest = events[:k] + events[k + 1 :]
        head = result.data[: small.head.body_offset] if small.head is not None else b""
        if not rest:
            continue  # an empty capture is no trace at all
        changed = load_bytes(serialize(rest, form, head), form)
        assert finding_of(changed.analysis) != finding_of(trace.analysis), (address, k)


def test_dashscope_reproducer_is_two_deltas_and_done() -> None:
    result = minimize(resolve_trace(str(TRACES / "dashscope" / "qwen3-max-id-empty.sse")))
    lines = [
        json.loads(x[6:]) if x != "data: [DONE]" else x
        for x in result.data.decode().split("\n\n")
        if x
    ]
    assert len(lines) == 3 and lines[2] == "data: [DONE]"
    first, second = (d["choices"][0]["delta"]["tool_calls"][0] for d in lines[:2])
    assert first["index"] == second["index"] == 0
    assert len(first["id"]) == 1 and len(first["function"]["name"]) == 1  # strings shrunk too
    assert second == {"index": 0, "id": ""}  # the erasing delta, nothing else


def test_curl_i_keeps_its_head_and_jsonl_stays_a_chunk_log() -> None:
    curl = minimize(resolve_trace(str(TRACES / "litellm" / "proxy-curl-i.txt")))
    assert curl.data.startswith(b"HTTP/1.1 200 OK\r\n") and curl.form is Form.HTTP
    log = minimize(resolve_trace(str(TRACES / "volcengine" / "ark-chunk-log.jsonl")))
    assert log.form is Form.JSONL and not log.data.startswith(b"data:")


def test_cli_writes_beside_and_check_agrees(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    har = str(TRACES / "captures" / "mitmproxy-export.har") + "#4"
    code, out, _ = cli("minimize", har)
    assert code == 0
    written = tmp_path / "mitmproxy-export.4.min.sse"
    assert written.exists()
    assert "events →" in out and " → " in out.splitlines()[0] and "1-minimal" in out
    code, before, _ = cli("check", har.partition("#")[0], "--json")
    code_after, after, _ = cli("check", str(written), "--json")
    assert code == code_after == 1
    (b,) = [t for t in json.loads(before)["traces"] if t["path"].endswith("#4")]
    a = json.loads(after)["traces"][0]
    assert a["verdicts"] == b["verdicts"]
    assert [(f["kind"], f["call"]) for f in a["flags"]] == [
        (f["kind"], f["call"]) for f in b["flags"]
    ]
    code, replayed, _ = cli("replay", str(written), "--json", "--behavior", "assign-always")
    assert code == 0 and '"id":""' in replayed


def test_keep_verdicts_drops_the_flags_requirement(tmp_path: Path) -> None:
    trace = resolve_trace(str(TRACES / "envoy" / "vertex-anthropic-parallel.sse"))
    both = minimize(trace)
    verdicts = minimize(trace, keep="verdicts")
    assert verdicts.verified and verdicts.events_after <= both.events_after
    assert verdicts.finding.flags is None


def test_cli_refuses_to_overwrite_its_input(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "x.sse"
    path.write_bytes((TRACES / "dashscope" / "qwen3-max-id-empty.sse").read_bytes())
    code, _, err = cli("minimize", str(path), "-o", str(path))
    assert code == 2 and "would overwrite" in err and err.count("\n") == 1


def test_a_large_trace_is_bounded_and_reports_progress(tmp_path: Path) -> None:
    head = '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}}]}'
    cont = (
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"","function":{"arguments":"x"}}]}}]}'
    )
    path = tmp_path / "big.sse"
    path.write_text(
        "".join(f"data: {p}\n\n" for p in [head] + [cont] * 20_000) + "data: [DONE]\n\n"
    )
    trace = resolve_trace(str(path))
    seen: list[str] = []
    stopped = minimize(trace, seconds=1e-9, on_progress=seen.append)
    assert not stopped.complete and not stopped.one_minimal
    assert stopped.verified  # what it has kept still shows the finding
    done = minimize(trace)
    assert done.complete and done.one_minimal and done.events_after == 3


def test_progress_is_reported_while_a_run_is_long() -> None:
    budget = Budget(None, on_progress=(seen := []).append, every=0.0)
    ddmin(list(range(50)), lambda c: 7 in c, budget)
    assert seen and all("left after" in m for m in seen)


@given(st.sets(st.integers(0, 40), max_size=41), st.sets(st.integers(0, 40), max_size=5))
def test_ddmin_finds_exactly_the_needed_items(items: set[int], needed: set[int]) -> None:
    needed &= items
    result = ddmin(sorted(items), lambda c: needed <= set(c), Budget())
    assert set(result) == needed


def test_multi_line_data_survives_serialization() -> None:
    events = [b'{"a":\n1}', b"[DONE]"]
    framer = SseFramer()
    payloads = framer.feed(serialize(events, Form.SSE)) + framer.close()
    assert [p.data for p in payloads] == events


class _CountedBudget(Budget):
    """A budget that runs out after ``tests`` tests (not seconds): where a run stops is then
    the same on any machine."""

    allowed = 0

    @property
    def expired(self) -> bool:
        return self.tests >= self.allowed


def _wide_trace(tmp_path: Path, *, sparse: bool = False) -> Path:
    """Two calls whose ids are erased on 300 continuation deltas each (``sparse``: on one):
    the first guess (every flagged delta) is then most of the trace and ddmin does the work
    (``sparse``: it is a few events), and each payload has fields to shrink."""
    lines = []
    for call in (0, 1):
        first = {"index": call, "id": f"call_{call}", "function": {"name": "f", "arguments": ""}}
        lines.append({"choices": [{"index": 0, "delta": {"tool_calls": [first]}}]})
        for k in range(300):
            cont = {"index": call, "id": "", "function": {"arguments": str(k % 10)}}
            if sparse and k != 150:
                del cont["id"]
            delta = {"tool_calls": [cont], "content": None}
            lines.append({"id": "x", "choices": [{"index": 0, "delta": delta}]})
    lines.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    path = tmp_path / "wide.sse"
    path.write_text("".join(f"data: {json.dumps(p)}\n\n" for p in lines) + "data: [DONE]\n\n")
    return path


@pytest.mark.parametrize("guess", [True, False])
def test_a_run_stopped_by_its_budget_keeps_the_smallest_capture_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guess: bool
) -> None:
    """The issue's case: '5,402 left after 85 tests', then '18,302 events → 18,302'."""
    from replay_tui.share import minimize as module

    trace = resolve_trace(str(_wide_trace(tmp_path)))
    monkeypatch.setattr(module, "Budget", _CountedBudget)
    if not guess:  # ddmin from every event, as when the first guess does not hold
        monkeypatch.setattr(module, "_first_guess", lambda trace, count: None)
    sizes = []
    for allowed in (3, 12, 40, 150, 600, 5000):
        _CountedBudget.allowed = allowed
        stopped = minimize(trace)
        assert stopped.verified  # what it kept still shows the finding
        if allowed >= 12:
            assert stopped.events_after < stopped.events_before
        sizes.append(stopped.bytes_after)
        if not stopped.complete:
            assert not stopped.one_minimal
    assert sizes == sorted(sizes, reverse=True)  # further along, never larger
    assert sizes[-1] < sizes[1]


def test_the_command_says_it_kept_the_smallest_found_when_stopped(cli: Cli, tmp_path: Path) -> None:
    path = _wide_trace(tmp_path, sparse=True)
    out_file = tmp_path / "out.sse"
    code, out, _ = cli("minimize", str(path), "-o", str(out_file), "--max-seconds", "1e-9")
    assert code == 0
    first = out.splitlines()[0]
    match = re.match(r"([\d,]+) events → ([\d,]+);", first)
    assert match is not None, first
    before, after = (int(n.replace(",", "")) for n in match.groups())
    assert after < before  # the first guess, tested before the budget is looked at
    assert "stopped early (time budget): kept the smallest capture found so far" in out


def test_minimize_keeps_the_gateway_pattern_and_where_the_name_came(tmp_path: Path) -> None:
    """A ``curl -i`` LiteLLM capture: cut on verdicts and flags alone, its name moved off the
    first delta and the continuations' ``name:"null"`` went (the pattern changed)."""
    from replay_tui.share.minimize import load_bytes, minimize

    original = resolve_trace(str(TRACES / "litellm" / "proxy-curl-i.txt"))
    result = minimize(original)
    assert result.verified
    small = load_bytes(result.data, result.form)

    def patterns(trace: Trace) -> set[str]:
        return {n.message.split(" (model")[0] for n in trace.notes if n.kind == "gateway-pattern"}

    assert patterns(small) == patterns(original) != set()
    name = small.analysis.calls[0].rows(0, 1)[0].raw_name  # still on the call's first delta
    assert isinstance(name, str) and name not in ("", "null")
    assert not any(n.kind == "late-identity" for n in small.notes)


def test_the_finding_kept_line_is_one_sentence_flags_in_call_order(
    cli: Cli, tmp_path: Path
) -> None:
    lines = []
    for call in (10, 2):
        first = {"index": call, "id": f"call_{call}", "function": {"name": "f", "arguments": ""}}
        cont = {"index": call, "id": None, "function": {"name": None, "arguments": "{}"}}
        lines += [{"choices": [{"delta": {"tool_calls": [c]}}]} for c in (first, cont)]
    path = tmp_path / "two.sse"
    path.write_text("".join(f"data: {json.dumps(p)}\n\n" for p in lines) + "data: [DONE]\n\n")
    code, out, _ = cli("minimize", str(path), "-o", str(tmp_path / "out.sse"))
    assert code == 0
    (kept,) = [line for line in out.splitlines() if "finding kept:" in line]
    assert kept.strip() == (
        "finding kept: unidentified-call / ok; id and name erased on call 2, id and name erased"
        " on call 10; continuations send id:null,name:null — replayed from scratch to check"
    )


def _two_choices(deltas: int) -> bytes:
    """n=2: each choice's call on index 0 (the second a new id on the same index: a note),
    their continuations sending ``id: ""``, in turn."""
    out = []
    for k in range(deltas):
        for choice in (0, 1):
            call: dict[str, object] = {"index": 0, "id": "", "function": {"arguments": "x"}}
            if k == 0:
                call = {
                    "index": 0,
                    "type": "function",
                    "id": f"call_{choice}",
                    "function": {"arguments": "", "name": "run"},
                }
            chunk = {"choices": [{"index": choice, "delta": {"tool_calls": [call]}}]}
            out.append(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    finish = {"choices": [{"index": 1, "delta": {}, "finish_reason": "tool_calls"}]}
    out.append(b"data: " + json.dumps(finish).encode() + b"\n\ndata: [DONE]\n\n")
    return b"".join(out)


def test_a_second_choices_call_on_the_same_index_is_in_the_first_guess() -> None:
    """The first guess keeps the payloads the identity notes were written on: two choices'
    calls on one index (the second a new id, noted) hold in the first guess, so ddmin starts
    from a few events, not the whole trace (which the report's five seconds left whole)."""
    from replay_tui.share.minimize import _events, _first_guess, _Judge, _Picked, output_form

    trace = load_bytes(_two_choices(3000), Form.SSE)
    assert any(n.kind == "index-reused" for n in trace.analysis.notes)
    target = finding_of(trace.analysis)
    events = _events(trace)
    guess = _first_guess(trace, len(events))
    assert guess is not None and len(guess) < 10
    assert _Judge(output_form(Form.SSE), "both", target).holds(_Picked(events, guess))
    m = minimize(trace, seconds=None)
    assert m.verified and m.events_after <= len(guess)
