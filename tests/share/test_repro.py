"""Steps to reproduce in the report: the minimized capture inline, and the one command that
replays it; saved and run as the report says, it shows the same finding."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from replay_tui.cli.traces import resolve_trace

from .samples import CORPUS, TRACES

Cli = Callable[..., tuple[int, str, str]]


@pytest.mark.parametrize(
    "path",
    [
        TRACES / "writer" / "palmyra-x5-all-null.sse",
        TRACES / "ollama" / "qwen3-no-id.sse",
        TRACES / "volcengine" / "ark-chunk-log.jsonl",
        CORPUS / "writer__palmyra-x-004__parallel-2-calls__all-null.sse",
    ],
    ids=lambda p: p.name,
)
def test_the_markdown_reproducer_replays_to_the_same_finding(
    path: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, md, _ = cli("report", str(path), "--md")
    assert code == 0
    assert "**Steps to reproduce**" in md and "**Expected / actual**" in md
    step = re.search(
        r"1\\\. Save this capture as `([^`]+)`.*?\n\n(`{3,})text\n(.*?)\n\2\n", md, re.S
    )
    assert step is not None
    name, capture = step.group(1), step.group(3)
    run = re.search(r"2\\\. Run `replay-tui (check [^`]+)`", md)
    assert run is not None and run.group(1) == f"check {name}"
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(capture + "\n")
    original = resolve_trace(str(path)).analysis
    again = resolve_trace(name).analysis
    assert again.verdicts == original.verdicts
    assert {(f.kind, str(f.call)) for f in again.flags} == {
        (f.kind, str(f.call)) for f in original.flags
    }
    assert len(capture) < len(path.read_text())


def test_html_has_the_sections_and_a_clean_trace_none(cli: Cli) -> None:
    _, page, _ = cli("report", str(TRACES / "writer" / "palmyra-x5-all-null.sse"))
    assert "<h3>Steps to reproduce</h3>" in page and "<h3>Expected / actual</h3>" in page
    assert "<code>replay-tui check palmyra-x5-all-null.min.sse</code>" in page
    _, clean, _ = cli("report", str(CORPUS / "openai__gpt-5__parallel-2-calls.sse"))
    assert "Steps to reproduce" not in clean
    _, folder, _ = cli("report", str(TRACES / "writer"), "--md")
    assert "Steps to reproduce" not in folder  # a folder report does not minimize each trace
