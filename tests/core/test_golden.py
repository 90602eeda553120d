"""The replay must match the origin harness chunk for chunk on 35 real captures.

Golden data: tests/data/corpus (see LICENSE-NOTICE.md there for provenance and licences).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_tui.core.identity import Analyzer
from replay_tui.core.translator import Behavior
from replay_tui.core.verdicts import verdict_of_chunks

from .helpers import trace_of

CORPUS = Path(__file__).parent.parent / "data" / "corpus"
CAPTURES = sorted(CORPUS.glob("*.sse"))
BEHAVIORS = [b.value for b in Behavior]


def test_corpus_is_complete() -> None:
    assert len(CAPTURES) == 35
    assert len(list((CORPUS / "expected").glob("*.jsonl"))) == 70


def expected(capture: Path, behavior: str) -> list[dict[str, object]]:
    path = CORPUS / "expected" / f"{capture.stem}.{behavior}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.stem)
def test_replay_matches_the_harness(capture: Path, behavior: str) -> None:
    got = [c for _, c in trace_of(capture.read_bytes(), name=capture.name).replay(behavior)]
    want = expected(capture, behavior)
    assert got == want
    # Field order is part of the protocol as the harness serialises it.
    assert [list(c) for c in got] == [list(c) for c in want]


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.stem)
def test_one_pass_analysis_agrees_with_the_translator(capture: Path) -> None:
    trace = trace_of(capture.read_bytes(), name=capture.name)
    for behavior in Behavior:
        assert trace.analysis.outcomes[behavior].verdict == verdict_of_chunks(
            expected(capture, behavior.value)
        )


def test_the_erasing_shapes_are_flagged() -> None:
    flagged = {
        c.stem: sorted((f.kind, f.line, f.call) for f in trace_of(c.read_bytes()).analysis.flags)
        for c in CAPTURES
    }
    assert flagged["dashscope__qwen3-max__single-call__id-empty-string"] == [("erased-id", 3, 0)]
    assert flagged["mistral-platform__zai-glm-5-2__name-empty-string"] == [("erased-name", 3, 0)]
    assert flagged["envoy-ai-gateway__gcp-anthropic-to-openai__id-null-name-empty"] == [
        ("erased-id", 3, 0),
        ("erased-name", 3, 0),
    ]
    writer = flagged["writer__palmyra-x-004__parallel-2-calls__all-null"]
    assert {(k, c) for k, _, c in writer} == {
        ("erased-id", 0),
        ("erased-name", 0),
        ("erased-id", 1),
        ("erased-name", 1),
    }
    clean = [name for name, flags in flagged.items() if not flags]
    assert len(clean) == 35 - 5


def test_analyzer_is_incremental() -> None:
    """Feeding payloads one at a time gives the same result as feeding them all at once."""
    trace = trace_of(
        (CORPUS / "writer__palmyra-x-004__parallel-2-calls__all-null.sse").read_bytes()
    )
    one = Analyzer()
    for p, d in zip(trace.payloads, trace.decoded, strict=True):
        one.payload(p.line, d)
        one.result(closed=False)  # judging midway must not disturb the state
    assert one.result().verdicts == trace.verdicts
    assert [(f.kind, f.line) for f in one.result().flags] == [
        (f.kind, f.line) for f in trace.analysis.flags
    ]


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.stem)
def test_a_lean_judgement_equals_the_full_analysis(capture: Path) -> None:
    """``check`` judges lean (no per-delta record kept): it must say exactly what the views
    would."""
    from replay_tui.core.result import trace_result
    from replay_tui.core.trace import Form, Source, load_trace

    source = Source(capture, capture.name, Form.SSE)
    assert trace_result(load_trace(source, lean=True)) == trace_result(load_trace(source))
