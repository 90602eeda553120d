"""Rows frozen from the object-per-payload alignment the compact one replaced.

``tests/data/diff/reference-rows.json.gz`` holds, for each pair of traces the diff tests align
(the golden traces, each against itself and a few others; pairs of made-up streams; streams
whose channels are cut and interleaved differently), what that straightforward alignment gave:
every event row, the event-to-row maps, each call's rows and both agents' outcomes. It was
written once by that implementation, before it left the repository; nothing here shares code
with the product's alignment. A change to the product that changes a row fails the test: if
the change is meant, the rows are regenerated and reviewed as a diff of this file's contents.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from replay_tui.core.trace import Trace
from replay_tui.core.wire import UNSET

ROOT = Path(__file__).resolve().parents[2]
FROZEN = ROOT / "tests" / "data" / "diff" / "reference-rows.json.gz"


def encode(value: Any) -> Any:
    """A value as the frozen file holds it: tuples as lists, ``UNSET`` spelled out (JSON has
    no such value)."""
    return json.loads(json.dumps(value, default=_unset))


def _unset(value: Any) -> Any:
    if value is UNSET:
        return {"$": "unset"}
    raise TypeError(f"not JSON: {value!r}")


def trace_key(trace: Trace) -> str:
    """A golden trace's address from the repository root (``FILE`` or ``FILE.har#N``)."""
    path = trace.source.path.resolve().relative_to(ROOT).as_posix()
    entry = trace.source.entry
    return f"{path}#{entry.number}" if entry is not None else path


def load() -> list[dict[str, Any]]:
    with gzip.open(FROZEN, "rt", encoding="utf-8") as fh:
        cases: list[dict[str, Any]] = json.load(fh)
    return cases
