"""Fixtures for the TUI tests: the app factory, a settle helper, hostile and big traces, SVGs."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from textual.pilot import Pilot
from textual.worker import Worker

from replay_tui.tui.app import ReplayApp

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "traces"
SIZE = (180, 50)
"""The terminal every test (and every snapshot) runs at."""


LONG_LIVED = frozenset({"watch", "settle"})
"""Worker groups that run as long as the app (the file watcher): never waited for."""


async def settle(app: ReplayApp, pilot: Pilot[int], *, limit: float = 20.0) -> None:
    """Wait until discovery, judging, loading and view building are done (or ``limit`` s)."""

    def loading() -> list[Worker[object]]:
        return [w for w in app.workers if w.group not in LONG_LIVED]

    deadline = time.monotonic() + limit
    await pilot.pause()
    idle = 0
    while time.monotonic() < deadline:
        busy = app.judging or app.partial or any(not w.is_finished for w in loading())
        ready = app.discovered and (app.current is not None or not app.store.paths)
        # Idle three looks in a row: a worker that posts a message whose handler starts the
        # next worker (a model built, then assessed) leaves a moment with nothing running.
        idle = idle + 1 if not busy and ready else 0
        if idle >= 3:
            break
        await pilot.pause(0.01)
    pending = loading()
    if pending:  # an empty list means "every worker" to Textual, the watcher included
        await app.workers.wait_for_complete(pending)
    await pilot.pause()


def rendered(view: object, rows: range | None = None) -> list[str]:
    """The text of a Line-API view's rows (``render_row``), independent of the screen size."""
    from replay_tui.tui.widgets.line_view import LineView

    assert isinstance(view, LineView)
    out = []
    for index in rows if rows is not None else range(view.row_count):
        segments, _ = view.render_row(index)
        out.append("".join(s.text for s in segments))
    return out


class SVGSnapshotExtension(SingleFileSnapshotExtension):
    """One ``.svg`` file per snapshot, as text (reviewable in a diff, viewable in a browser)."""

    file_extension = "svg"
    _write_mode = WriteMode.TEXT


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scrolls and toasts jump to their end: nothing to wait for, nothing to time."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")


@pytest.fixture
def svg_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(SVGSnapshotExtension)


def _chunk(tool_call: dict[str, object], finish: str | None = None) -> str:
    chunk = {
        "choices": [{"index": 0, "delta": {"tool_calls": [tool_call]}, "finish_reason": finish}]
    }
    return "data: " + json.dumps(chunk) + "\n\n"


@pytest.fixture
def repaired_trace(tmp_path: Path) -> Path:
    """One call whose id is erased by ``""`` and re-sent two deltas later."""
    path = tmp_path / "repaired.sse"
    path.write_text(
        _chunk({"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}})
        + _chunk({"index": 0, "id": "", "function": {"arguments": "{"}})
        + _chunk({"index": 0, "id": "call_1", "function": {"arguments": "}"}}, "tool_calls")
        + "data: [DONE]\n\n"
    )
    return path


@pytest.fixture
def broken_json_trace(tmp_path: Path) -> Path:
    """A payload that is not JSON on line 3, shown in place in the raw view."""
    path = tmp_path / "broken.sse"
    path.write_text(
        _chunk({"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}})
        + 'data: {"choices": [oops\n\n'
        + "data: [DONE]\n\n"
    )
    return path


HOSTILE_FILE = "[bold]evil\x1b[7m.sse"
HOSTILE_NAME = "[link=http://x]n[/link]"
HOSTILE_CONTENT = "[bold red]alarm[/bold red]"
HOSTILE_ARGS = '{"a": "\x1b[31mred\x1b[0m", "b": "\x1b]52;c;ZXZpbA==\x07"}'


@pytest.fixture
def hostile_trace(tmp_path: Path) -> Path:
    """Markup, ESC and OSC 52 sequences in a tool name, content, arguments and the file name."""
    folder = tmp_path / "hostile"
    folder.mkdir()
    path = folder / HOSTILE_FILE
    text = {"choices": [{"index": 0, "delta": {"content": HOSTILE_CONTENT}}]}
    path.write_text(
        "data: "
        + json.dumps(text)
        + "\n\n"
        + _chunk(
            {"index": 0, "id": "call_\x1b[2J", "function": {"name": HOSTILE_NAME, "arguments": ""}}
        )
        + _chunk({"index": 0, "id": "", "function": {"arguments": HOSTILE_ARGS}}, "tool_calls")
        + "data: [DONE]\n\n"
    )
    return folder


def write_big_trace(path: Path, deltas: int, calls: int = 4) -> Path:
    """An SSE trace of ``deltas`` tool-call deltas (DashScope shape: continuations send id "")."""
    base = '{"id":"chatcmpl-big","object":"chat.completion.chunk","model":"qwen3-max","choices":[{"index":0,"delta":{"tool_calls":['
    per_call = deltas // calls
    parts: list[str] = []
    for c in range(calls):
        count = per_call if c < calls - 1 else deltas - per_call * (calls - 1)
        first = f'{{"index":{c},"id":"call_{c:024x}","type":"function","function":{{"name":"read_file","arguments":""}}}}'
        parts.append(f'data: {base}{first}]}},"finish_reason":null}}]}}\n\n')
        rest = f'{{"index":{c},"id":"","type":"function","function":{{"arguments":"x"}}}}'
        line = f'data: {base}{rest}]}},"finish_reason":null}}]}}\n\n'
        parts.append(line * (count - 1))
    parts.append('data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n')
    parts.append("data: [DONE]\n\n")
    path.write_text("".join(parts))
    return path


@pytest.fixture(scope="session")
def big_trace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = write_big_trace(tmp_path_factory.mktemp("big") / "big.sse", 100_000)
    yield path
