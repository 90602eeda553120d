"""``check`` at scale: the same output for any --jobs, streamed JSON and JSONL, the summary,
and bad input that costs one skipped entry each."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from replay_tui.cli import check as check_command
from replay_tui.core import discovery
from replay_tui.core.discovery import Skipped, address_key
from replay_tui.scale import pool

from .helpers import run_cli


def _run(*argv: str) -> tuple[int, str, str]:
    return run_cli(list(argv))


def test_every_form_is_the_same_for_any_number_of_jobs(many: Path) -> None:
    for form in ([], ["--json"], ["--jsonl"], ["-v"], ["--summary"], ["--json", "--summary"]):
        one = _run("check", str(many), "--jobs", "1", *form)
        two = _run("check", str(many), "--jobs", "2", *form)
        three = _run("check", str(many), "--jobs", "3", *form)
        assert one == two == three, form
        assert one[0] == 1


def test_results_are_in_address_order(many: Path) -> None:
    _code, out, _ = _run("check", str(many), "--json", "--jobs", "2")
    paths = [t["path"] for t in json.loads(out)["traces"]]
    assert len(paths) == 120
    assert paths == sorted(paths, key=address_key)
    assert paths[0].startswith("g0/") and not paths[0].startswith("g0/s")  # files sort by name


def test_the_json_document_is_the_old_one_byte_for_byte(many: Path) -> None:
    from replay_tui.core import jsontext
    from replay_tui.core.check import check_paths, report_json

    _, out, _ = _run("check", str(many), "--json", "--jobs", "2")
    report = check_paths([many])
    report.traces.sort(key=lambda t: address_key(t.address))
    assert out.encode() == jsontext.encode(report_json(report)) + b"\n"


def test_jsonl_is_one_traces_element_per_line_then_the_summary(many: Path) -> None:
    (many / "junk.json").write_text("{}")
    code, out, err = _run("check", str(many), "--jsonl")
    _, doc, _ = _run("check", str(many), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[:-1] == json.loads(doc)["traces"]
    summary = lines[-1]["summary"]
    assert list(lines[-1]) == ["summary"]
    assert summary["traces"] == 120 and summary["skipped"] == 1
    assert summary["skipped_files"] == [
        {"path": "junk.json", "reason": json.loads(doc)["skipped"][0]["reason"]}
    ]
    assert err.count("\n") == 1 and "junk.json" in err
    assert code == 1


def test_summary_groups_by_model_pattern_and_verdicts(
    tmp_path: Path, corpus_files: list[Path]
) -> None:
    [kimi] = [p for p in corpus_files if p.name.startswith("openrouter__kimi")][:1] or [
        corpus_files[0]
    ]
    clean = next(p for p in corpus_files if "text-only" in p.name)
    root = tmp_path / "caps"
    (root / "openrouter").mkdir(parents=True)
    for i in range(3):
        (root / "openrouter" / f"k{i}.sse").write_bytes(kimi.read_bytes())
    (root / "openrouter" / "t.sse").write_bytes(clean.read_bytes())
    _code, out, _ = _run("check", str(root), "--json", "--summary")
    doc = json.loads(out)
    summary = doc["summary"]
    assert summary["traces"] == 4
    by_model = {(m["model"], m["gateway"]): m for m in summary["models"]}
    erasing = [m for m in by_model.values() if m["erasing"]]
    for group in by_model.values():
        assert group["example"].startswith("openrouter/")
        assert group["share_erasing"] == round(group["erasing"] / group["traces"], 4)
    assert sum(m["traces"] for m in summary["models"]) == 4
    pairs = {(v["assign-always"], v["accept-identity"]): v["traces"] for v in summary["verdicts"]}
    assert sum(pairs.values()) == 4
    _, text, _ = _run("check", str(root), "--summary")
    lines = text.splitlines()
    assert lines[0].startswith("by model (")
    assert lines[-1].startswith("4 traces: ")
    for group in erasing:
        assert (
            f"{group['model']} via openrouter: {group['erasing']:,} of {group['traces']:,} erasing"
            in text
        )


def test_summary_line_reads_like_an_operator_line() -> None:
    from replay_tui.core.identity import Note
    from replay_tui.core.result import TraceResult
    from replay_tui.core.summary import Summary

    summary = Summary()
    note = Note(
        "gateway-pattern",
        "looks like the Writer / vLLM / OpenCode pattern: continuations send id:null, name:null",
    )
    for i in range(1310):
        summary.add(
            TraceResult(
                path=f"openrouter/{i:05d}.sse",
                verdicts={
                    "assign-always": "unidentified-call" if i >= 106 else "ok",
                    "accept-identity": "ok",
                },
                flags=[],
                notes=[note] if i >= 106 else [],
                badge="erasing" if i >= 106 else "clean",
                model="kimi-k2-0905",
                gateway="openrouter",
            )
        )
    lines = summary.lines()
    # The example of a group with erasing traces is one of them (the first), not its first.
    assert (
        lines[1]
        == "  kimi-k2-0905 via openrouter: 1,204 of 1,310 erasing (id:null,name:null)  e.g. openrouter/00106.sse"
    )
    assert (
        "  id:null,name:null: 1,204 of 1,204 erasing (model kimi-k2-0905)  e.g. openrouter/00106.sse"
        in lines
    )


def _pattern_result(path: str, model: str | None, pattern: str | None, badge: str) -> Any:
    from replay_tui.core.identity import Note
    from replay_tui.core.result import TraceResult

    seen = f" (model {model})" if model else ""
    notes = [Note("gateway-pattern", f"looks like {pattern}{seen}")] if pattern else []
    verdict = "unidentified-call" if badge == "erasing" else "ok"
    return TraceResult(
        path=path,
        verdicts={"assign-always": verdict, "accept-identity": "ok"},
        flags=[],
        notes=notes,
        badge=badge,
        model=model,
        gateway=path.split("/")[0],
    )


def test_one_pattern_seen_from_two_models_is_one_group_naming_both() -> None:
    # The walkthrough: id:"" read as "2 of 2" and again as "1 of 1", the model that told the
    # two groups apart left out of the line.
    from replay_tui.core.summary import Summary

    dashscope = 'the DashScope pattern: continuations repeat id:""'
    summary = Summary()
    for path, model in [
        ("a/1.sse", "qwen3-max"),
        ("b/2.sse", "qwen-plus"),
        ("a/3.sse", "qwen3-max"),
    ]:
        summary.add(_pattern_result(path, model, dashscope, "erasing"))
    summary.add(_pattern_result("c/4.sse", None, dashscope, "erasing"))
    lines = summary.lines()
    by_pattern = lines[lines.index("by gateway pattern (1 group):") + 1 :][:1]
    assert by_pattern == [
        '  id:"": 4 of 4 erasing (models qwen3-max, (no model named), qwen-plus)  e.g. a/1.sse'
    ]
    (group,) = summary.json()["patterns"]
    assert group["pattern"] == f"looks like {dashscope}"
    assert group["models"] == ["qwen3-max", "(no model named)", "qwen-plus"]
    assert (group["traces"], group["erasing"]) == (4, 4)


def test_an_erasing_trace_of_no_known_pattern_is_accounted_for() -> None:
    from replay_tui.core.summary import Summary

    summary = Summary()
    summary.add(
        _pattern_result(
            "a/1.sse", "m", "the Fireworks / NIM pattern: continuations send name:null", "erasing"
        )
    )
    summary.add(_pattern_result("l/2.txt", "gpt-4.1", None, "erasing"))
    summary.add(_pattern_result("l/3.txt", "gpt-4.1", None, "clean"))
    lines = summary.lines()
    assert "  no known pattern: 1 erasing trace (model gpt-4.1)  e.g. l/2.txt" in lines
    doc = summary.json()
    assert doc["no_known_pattern"] == {
        "traces": 1,
        "erasing": 1,
        "share_erasing": 1.0,
        "example": "l/2.txt",
        "models": ["gpt-4.1"],
    }


def test_the_pattern_groups_of_the_bundled_traces_add_up_to_the_erasing_ones() -> None:
    traces = Path(__file__).resolve().parents[2] / "traces"
    _, out, _ = _run("check", str(traces), "--json", "--summary")
    summary = json.loads(out)["summary"]
    erasing = (
        sum(g["erasing"] for g in summary["patterns"]) + summary["no_known_pattern"]["erasing"]
    )
    assert erasing == summary["erasing"] == 12
    patterns = [g["pattern"] for g in summary["patterns"]]
    assert len(patterns) == len(set(patterns))  # no pattern listed twice
    # every erasing bundled trace follows a known gateway's pattern (LiteLLM's the last named)
    assert summary["no_known_pattern"]["erasing"] == 0
    (litellm,) = [g for g in summary["patterns"] if "LiteLLM" in g["pattern"]]
    assert litellm["example"] == "litellm/proxy-curl-i.txt"
    _, text, _ = _run("check", str(traces), "--summary")
    section = text.split("by gateway pattern")[1].split("by verdicts")[0].splitlines()[1:]
    shapes = [line.split(": ", 1)[0] for line in section]
    assert len(shapes) == len(set(shapes))  # no line that reads like another
    counted = [int(line.split(": ", 1)[1].split(" ")[0]) for line in section]
    assert sum(counted) == 12


def test_the_table_streams_rows_as_results_come(
    monkeypatch: pytest.MonkeyPatch, many: Path
) -> None:
    """With more results than the width sample, rows are on stdout before the scan ends."""
    monkeypatch.setattr(check_command, "WIDTH_SAMPLE", 10)
    seen: list[int] = []
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    judged = check_command.judge([str(many)], jobs=1)

    def watched() -> Any:
        for _i, item in enumerate(judged):
            seen.append(out.getvalue().count("\n"))
            yield item

    ns = type(
        "NS",
        (),
        {
            "jsonl": False,
            "json": False,
            "summary": False,
            "verbose": False,
            "fail_on_clients": False,
        },
    )()
    assert check_command.report(watched(), ns) == 1  # type: ignore[arg-type]
    assert seen[5] == 0  # still sizing the first column
    assert seen[50] > 30  # header and rows already written, mid-scan
    assert out.getvalue().splitlines()[-1].startswith("120 traces:")


def test_the_json_document_streams_its_array(monkeypatch: pytest.MonkeyPatch, many: Path) -> None:
    buffer = io.BytesIO()
    seen: list[int] = []

    class Out:
        def __init__(self) -> None:
            self.buffer = buffer

    monkeypatch.setattr(sys, "stdout", Out())

    def watched() -> Any:
        for item in check_command.judge([str(many)], jobs=1):
            seen.append(len(buffer.getvalue()))
            yield item

    ns = type(
        "NS",
        (),
        {
            "jsonl": False,
            "json": True,
            "summary": False,
            "verbose": False,
            "fail_on_clients": False,
        },
    )()
    check_command.report(watched(), ns)  # type: ignore[arg-type]
    assert seen[0] == len(b'{"traces":[')
    assert seen[-1] > len(buffer.getvalue()) // 2
    assert len(json.loads(buffer.getvalue())["traces"]) == 120


# ---- bad input at scale: one skipped entry each, the scan completes ---------------------------


def test_unreadable_vanishing_and_killing_files_are_one_skipped_entry_each(
    monkeypatch: pytest.MonkeyPatch, many: Path
) -> None:
    denied = "g1/s1/001"
    gone = "g2/005"
    killer = "g0/s1/003"
    real_open = discovery.open_regular

    def fake_open(path: Path) -> Any:
        if path.name.startswith(denied.split("/")[-1]):
            raise PermissionError(13, "Permission denied")
        if path.name.startswith(killer.split("/")[-1]):
            os._exit(9)  # the worker process dies judging it
        return real_open(path)

    walk = discovery.walk

    def vanishing_walk(paths: Any) -> Any:
        for item in walk(paths):
            if not isinstance(item, Skipped) and item.address.startswith(gone):
                Path(item.path).unlink()  # listed, then deleted before it is read
            yield item

    monkeypatch.setattr(discovery, "open_regular", fake_open)  # inherited by the forked workers
    # ... forked, whatever threads an earlier test on this pytest worker left running (with
    # threads the pool forks from a forkserver, which would not inherit the patch).
    monkeypatch.setattr(pool, "_context", lambda: multiprocessing.get_context("fork"))
    monkeypatch.setattr(check_command, "walk", vanishing_walk)
    code, out, err = _run("check", str(many), "--json", "--jobs", "2")
    doc = json.loads(out)
    skipped = {s["path"].split("-")[0]: s["reason"] for s in doc["skipped"]}
    assert skipped == {
        denied: "cannot read: Permission denied",
        gone: "vanished before it could be read",
        killer: "the worker process judging it exited with status 9",
    }
    assert len(doc["traces"]) == 117
    assert doc["incomplete"] == "2 files could not be read"
    # Each named once, then one line: two files (denied, killer) could not be read.
    assert err.count("\n") == 4
    assert err.splitlines()[-1] == "replay-tui: 2 files could not be read: the scan is incomplete"
    assert code == check_command.EXIT_INCOMPLETE  # not 1: some traces were never judged
    _, table, _ = _run("check", str(many), "--jobs", "2")  # the vanished file is gone for good
    last = table.splitlines()[-1]
    assert last.startswith("117 traces: ")
    assert last.endswith("; 2 skipped (incomplete: 2 files could not be read)")


def test_jobs_must_be_positive(many: Path) -> None:
    code, out, err = _run("check", str(many), "--jobs", "0")
    assert (code, out) == (2, "")
    assert err == "replay-tui: --jobs: expected 1 or more, got 0\n"


def test_clients_are_judged_in_the_workers_too(many: Path) -> None:
    one = _run("check", str(many), "--clients", "--json", "--jobs", "1")
    two = _run("check", str(many), "--clients", "--json", "--jobs", "2")
    assert one == two
    doc = json.loads(one[1])
    assert all("clients" in t for t in doc["traces"])
    table = _run("check", str(many), "--clients", "--jobs", "2")[1]
    assert "CLIENTS" in table.splitlines()[0]
    assert table.splitlines()[-1].endswith("break some client library")


def test_summary_lists_the_largest_groups_and_counts_the_rest() -> None:
    """Captures kept in a folder per day, read as the gateway, made 240 "via" groups of six
    models: the text lists the 20 largest of a section and says what the rest hold."""
    from replay_tui.core.result import TraceResult
    from replay_tui.core.summary import GROUPS_SHOWN, Summary

    summary = Summary()
    for day in range(40):
        for n in range(6):
            for k in range(1 + (day % 3)):
                summary.add(
                    TraceResult(
                        path=f"d{day:02}/m{n}-{k}.sse",
                        verdicts={"assign-always": "ok", "accept-identity": "ok"},
                        flags=[],
                        notes=[],
                        badge="erasing" if n == 5 else "clean",
                        model=f"model-{n}",
                        gateway=f"d{day:02}",
                    )
                )
    lines = summary.lines()
    start = lines.index("by model (240 groups):")
    section = lines[start + 1 : lines.index("by gateway pattern (0 groups):")]
    assert len(section) == GROUPS_SHOWN + 1
    shown = sum(int(line.split(": ", 1)[1].split(" of ")[1].split()[0]) for line in section[:-1])
    total = summary.traces
    erasing = summary.erasing
    shown_erasing = sum(int(line.split(": ", 1)[1].split(" of ")[0]) for line in section[:-1])
    assert section[-1] == (
        f"  … 220 more groups: {erasing - shown_erasing:,} of {total - shown:,} erasing"
        " (--json lists all)"
    )
    assert len(summary.json()["models"]) == 240
    # Of groups as large, the erasing ones first (model-5's, though it sorts last by name).
    assert section[0].startswith("  model-5 via d02: 3 of 3 erasing")
