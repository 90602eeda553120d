"""``minimize``: on real captures the output keeps the finding, is 1-minimal for events, has
the same form, and ``check`` agrees."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay_tui.cli.traces import resolve_trace
from replay_tui.core.discovery import discover
from replay_tui.core.sse import SseFramer
from replay_tui.core.trace import Form
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
