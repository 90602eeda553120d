"""What a capture's request asked: known from a HAR entry's body or a recorder sidecar, never
from a bare SSE body; two requests differ by model, tool names or messages (not by URL)."""

from __future__ import annotations

import json
from pathlib import Path

from replay_tui.core.discovery import discover
from replay_tui.core.request import ask_of, known_from, request_differences
from replay_tui.core.trace import Source

ROOT = Path(__file__).resolve().parents[2]
HAR = ROOT / "traces" / "captures" / "mitmproxy-export.har"


def _by_entry() -> dict[str, Source]:
    return {s.address.rpartition("#")[2]: s for s in discover([HAR]).sources}


def test_har_entries_tell_the_model_and_the_messages() -> None:
    # #2, #4 and #5 ask the same question of three models (their postData, read here apart).
    entries = json.loads(HAR.read_text())["log"]["entries"]
    bodies = {n: json.loads(entries[n - 1]["request"]["postData"]["text"]) for n in (2, 4, 5)}
    assert bodies[2]["messages"] == bodies[4]["messages"] != []
    assert bodies[2]["model"] != bodies[4]["model"]
    sources = _by_entry()
    a, b = (ask_of(sources[n].entry, sources[n].sidecar) for n in ("2", "4"))
    assert a is not None and b is not None
    assert request_differences(a, b) == [f"model {bodies[2]['model']} vs {bodies[4]['model']}"]
    assert request_differences(a, a) == []
    assert known_from(a, b) == "both HAR entries"


def _capture(folder: Path, name: str, request: dict[str, object] | None) -> Path:
    path = folder / name
    path.write_text('data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n')
    if request is not None:
        meta = {"replay_tui_meta": 1, "request": request, "complete": True}
        (folder / f"{name}.meta.json").write_text(json.dumps(meta))
    return path


def test_sidecars_tell_the_model_the_tools_and_saved_bodies_the_messages(tmp_path: Path) -> None:
    def body(*said: str) -> str:
        return json.dumps(
            {"model": "m", "messages": [{"role": "user", "content": s} for s in said]}
        )

    common = {"method": "POST", "model": "m", "tools": ["get_weather"]}
    _capture(tmp_path, "a.sse", {**common, "url": "http://one/v1", "body": body("hi")})
    _capture(tmp_path, "b.sse", {**common, "url": "http://two/v1", "body": body("hi")})
    _capture(tmp_path, "c.sse", {**common, "url": "http://one/v1", "body": body("hi", "more")})
    _capture(tmp_path, "d.sse", {**common, "model": "n", "tools": []})  # no body saved
    _capture(tmp_path, "e.sse", None)  # a bare capture: nothing known of its request
    asks = {s.address: ask_of(s.entry, s.sidecar) for s in discover([tmp_path]).sources}
    assert request_differences(asks["a.sse"], asks["b.sse"]) == []  # another URL: same ask
    assert request_differences(asks["a.sse"], asks["c.sse"]) == ["the messages differ (1 vs 2)"]
    assert request_differences(asks["a.sse"], asks["d.sse"]) == [
        "model m vs n",
        "tools get_weather vs none",
    ]  # (the messages of d are not known: not said to differ)
    assert asks["e.sse"] is None
    assert request_differences(asks["a.sse"], asks["e.sse"]) == []
    assert known_from(asks["a.sse"], asks["d.sse"]) == "both recorder sidecars"
