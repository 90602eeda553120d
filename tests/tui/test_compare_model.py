"""The compare model lays out what a layout of every row would (no app is started).

The model asks the diff for runs, counts, statuses and heights without making rows, and keeps
its display rows in arrays; here the same layout is worked out the plain way, from every event
row and call row made, on pairs of golden traces and on pairs that differ everywhere, folded
and with every run expanded.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from replay_tui.core.diff import TraceDiff, diff_traces
from replay_tui.core.discovery import discover
from replay_tui.core.trace import Form, Source, Trace, load_trace
from replay_tui.core.translator import Behavior
from replay_tui.tui.widgets import compare_model as cm
from replay_tui.tui.widgets.compare_model import build_compare_model

ROOT = Path(__file__).resolve().parent.parent.parent
FOUND = discover([ROOT / "tests" / "data" / "corpus", ROOT / "tests" / "data" / "diff"])
TRACES = [load_trace(s) for s in FOUND.sources]


def _runs(same: list[bool], least: int = cm.MIN_RUN) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    start = None
    for k, s in enumerate([*same, False]):
        if s and start is None:
            start = k
        elif not s and start is not None:
            if k - start >= least:
                runs.append((start, k))
            start = None
    return runs


def _plain_layout(diff: TraceDiff, model: cm.CompareModel) -> list[tuple[int, int, int]]:
    """The display rows from every row made, as the model first laid them out."""
    rows = list(diff.events.rows)
    call_rows = [list(cd.rows) for cd in diff.calls]
    assert model.call_runs == [_runs([r.status == "same" for r in cr]) for cr in call_rows]
    assert model.event_runs == _runs([r.status == "same" for r in rows])
    assert model.changed_rows == [sum(1 for r in cr if r.changed) for cr in call_rows]
    assert model.events_differ == sum(1 for r in rows if r.changed)
    od = model.outcome
    out: list[tuple[int, int, int]] = [(cm.SECTION, 0, 0)]
    if od.same:
        out.append((cm.OUT_SAME, 0, 0))
    else:
        out.append((cm.OUT_HEAD, 0, 0))
        out += [(cm.OUT_DIFF, k, 0) for k in range(len(od.differences))]
    out += [(cm.BLANK, 0, 0), (cm.SECTION, 1, 0)]
    if not diff.calls:
        out.append((cm.NOTE, 0, 0))
    for c, cd in enumerate(diff.calls):
        out.append((cm.CALL_TITLE, c, 0))
        out += [(cm.CALL_DIFF, c, k) for k in range(len(cd.differences))]
        out.append((cm.CALL_HEAD, c, 0))
        runs = {s: (k, e) for k, (s, e) in enumerate(model.call_runs[c])}
        i = 0
        while i < len(call_rows[c]):
            run = runs.get(i)
            if run is not None and (c, run[0]) not in model.expanded:
                out.append((cm.CALL_RUN, c, run[0]))
                i = run[1]
                continue
            out.append((cm.CALL_ROW, c, i))
            i += 1
        out.append((cm.BLANK, 0, 0))
    out += [(cm.SECTION, 2, 0), (cm.EV_HEAD, 0, 0)]
    runs = {s: (k, e) for k, (s, e) in enumerate(model.event_runs)}
    i = 0
    while i < len(rows):
        run = runs.get(i)
        if run is not None and (cm.EVENTS, run[0]) not in model.expanded:
            out.append((cm.EV_RUN, run[0], 0))
            i = run[1]
            continue
        row = rows[i]
        lines = 1 if row.kind == "comment" else max(len(row.a), len(row.b), 1)
        out += [(cm.EV_ROW, i, sub) for sub in range(lines)]
        if row.status == "changed":
            out.append((cm.EV_FIELDS, i, 0))
        i += 1
    return out


def _check(a: Trace, b: Trace) -> cm.CompareModel:
    diff = diff_traces(a, b)
    model = build_compare_model(diff, Behavior.ACCEPT_IDENTITY)
    assert list(model.display) == _plain_layout(diff, model)
    every: set[Any] = {(c, k) for c, runs in enumerate(model.call_runs) for k in range(len(runs))}
    every |= {(cm.EVENTS, k) for k in range(len(model.event_runs))}
    model.expanded = every
    model.layout()
    assert list(model.display) == _plain_layout(diff, model)
    rows = list(diff.events.rows)
    call_rows = [list(cd.rows) for cd in diff.calls]
    for k, (kind, x, y) in enumerate(model.display):
        if kind in (cm.OUT_DIFF, cm.CALL_DIFF):
            expected = True
        elif kind == cm.CALL_ROW:
            expected = call_rows[x][y].changed
        elif kind == cm.EV_ROW:
            expected = y == 0 and rows[x].changed
        else:
            expected = False
        assert model.is_difference((kind, x, y)) == expected, k
    return model


def test_golden_pairs_lay_out_as_every_row_would() -> None:
    rng = random.Random(11)
    for _ in range(60):
        _check(rng.choice(TRACES), rng.choice(TRACES))
    for t in TRACES:
        _check(t, t)


@pytest.mark.parametrize("deltas", [40, 700])
def test_pairs_that_differ_everywhere_lay_out_as_every_row_would(
    tmp_path: Path, deltas: int
) -> None:
    from .conftest import write_big_trace

    path = write_big_trace(tmp_path / "a.sse", deltas)
    body = path.read_bytes()
    changed = tmp_path / "b.sse"
    # Every continuation sends a null id instead of "" and one payload in nine is dropped.
    lines = body.replace(b'"id":"",', b'"id":null,').split(b"\n\n")
    changed.write_bytes(b"\n\n".join(x for k, x in enumerate(lines) if k % 9 != 4))
    a = load_trace(Source(path, path.name, Form.SSE))
    b = load_trace(Source(changed, changed.name, Form.SSE))
    for model in (_check(a, b), _check(b, a)):
        assert model.events_differ > deltas // 2
        assert all(model.changed_rows)
        assert any(k == cm.EV_ROW for k, _, _ in model.display)


def test_the_compare_header_says_less_rather_than_wrap_a_verdict_from_its_behavior() -> None:
    """A's and B's lines fit the width by saying less: the behaviors' short names, then the
    file's name without its folders, then the verdicts on a line of their own; a behavior and
    its verdict are never on two lines."""
    from replay_tui.tui.widgets.compare_pane import header_text

    a, b = (
        load_trace(discover([ROOT / "traces" / name]).sources[0])
        for name in ("captures/crlf-framed.sse", "ollama/qwen3-no-id.sse")
    )
    model = build_compare_model(diff_traces(a, b), Behavior.ACCEPT_IDENTITY)
    seen = {}
    for width in (200, 100, 70, 55, 30):
        lines = header_text(model, width).plain.split("\n")
        sides = [line for line in lines[: len(lines) - 1] if line]
        assert all(len(line) <= width for line in sides), (width, sides)
        assert not any(
            line.rstrip().endswith(("identity", "always", "fix", "old")) for line in sides
        )
        seen[width] = sides
    assert seen[200][0].endswith("accept-identity ok   assign-always unidentified-call")
    assert seen[100][0].endswith("fix ok   old unidentified-call")
    assert seen[70][1].startswith(" B  qwen3-no-id.sse   fix")
    assert seen[55][:2] == [" A  crlf-framed.sse", "    fix ok   old unidentified-call"]
    assert seen[30][:3] == [" A  crlf-framed.sse", "    fix ok", "    old unidentified-call"]
    # A pane a dozen rows high (80x24) keeps the header to three lines at any width: each
    # side with its verdicts (the middle of its name giving way), the headline cut.
    for width in (100, 49, 40):
        lines = header_text(model, width, compact=True).plain.split("\n")
        assert len(lines) == 3 and all(len(line) <= width for line in lines), lines
        assert lines[1].startswith(" B  ") and "qwen" in lines[1] and "fix malformed" in lines[1]
        if width >= 49:
            assert lines[0].endswith("fix ok   old unidentified-call")
    assert lines[0].startswith(" A  crlf…sse   fix ok   old ")  # at 40: the line is cut
    assert lines[1].endswith("…") and lines[2].endswith("…")


def test_a_compact_header_cuts_both_names_the_same() -> None:
    """At 80x24 the side with the longer verdicts cut its name more ("2026-12…-b.sse" over
    "2026-12-01T10-…oduction-a.sse"): both keep the same cells, and line up."""
    import shutil
    import tempfile

    from replay_tui.tui.cells import cell_len
    from replay_tui.tui.widgets.compare_pane import header_text

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        stem = "2026-12-01T10-00-00Z-gateway-alpha-production"
        shutil.copy(
            ROOT / "traces" / "writer" / "palmyra-x5-all-null.sse", folder / f"{stem}-a.sse"
        )
        shutil.copy(
            ROOT / "traces" / "openai" / "gpt-4.1-text-then-call.sse", folder / f"{stem}-b.sse"
        )
        a, b = (load_trace(s) for s in discover([folder]).sources)
    assert a.verdicts != b.verdicts  # (A's line is the longer)
    model = build_compare_model(diff_traces(a, b), Behavior.ACCEPT_IDENTITY)
    for width in (60, 52):
        lines = header_text(model, width, compact=True).plain.split("\n")
        names = [
            line.split("   ")[0].removeprefix(" A  ").removeprefix(" B  ") for line in lines[:2]
        ]
        assert all(cell_len(line) <= width for line in lines), lines
        assert cell_len(names[0]) == cell_len(names[1]), names
        assert names[0].endswith("-a.sse") and names[1].endswith("-b.sse") and "…" in names[0]


def test_the_header_warns_when_a_and_b_asked_different_requests() -> None:
    """Two HAR entries asking the same messages of two models: the header says how they
    differ and where that is known from; the same request (or one not known) says nothing."""
    from replay_tui.tui.widgets.compare_pane import header_text

    har = ROOT / "traces" / "captures" / "mitmproxy-export.har"
    entries = {s.address.rpartition("#")[2]: load_trace(s) for s in discover([har]).sources}
    model = build_compare_model(diff_traces(entries["2"], entries["4"]), Behavior.ACCEPT_IDENTITY)
    lines = header_text(model, 200).plain.split("\n")
    assert lines[2] == "⚠ different requests: model gpt-4.1-mini vs qwen3-max (both HAR entries)"
    assert lines[3].startswith(("✗ ", "✓ "))  # the outcome headline, after it
    compact = header_text(model, 40, compact=True).plain.split("\n")
    assert compact[2].startswith("⚠ different requests: model gpt-4.1-")
    assert compact[2].endswith("…") and len(compact) == 4 and len(compact[2]) <= 40
    same = build_compare_model(diff_traces(entries["4"], entries["4"]), Behavior.ACCEPT_IDENTITY)
    assert "different requests" not in header_text(same, 200).plain
    bare = load_trace(discover([ROOT / "traces" / "ollama" / "qwen3-no-id.sse"]).sources[0])
    unknown = build_compare_model(diff_traces(entries["2"], bare), Behavior.ACCEPT_IDENTITY)
    assert "different requests" not in header_text(unknown, 200).plain
