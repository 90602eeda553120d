"""Shared helpers for the robustness suite: building traces from bytes, reading outputs."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from replay_tui.cli.check import write_table
from replay_tui.core import jsontext
from replay_tui.core.check import Report, report_json
from replay_tui.core.result import trace_result
from replay_tui.core.trace import Form, Source, Trace, TraceBuilder

SUFFIX = {Form.SSE: ".sse", Form.HTTP: ".txt", Form.JSONL: ".jsonl", Form.HAR: ".har"}

# What must never reach a terminal from trace content: C0 controls (tab and newline are
# layout), DEL, C1 controls, bidi overrides, lone surrogates.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def source(form: Form, name: str = "t") -> Source:
    return Source(Path(name + SUFFIX[form]), name + SUFFIX[form], form)


def build(form: Form, pieces: list[bytes], *, close: bool = True) -> Trace:
    """A trace built from ``pieces`` fed one after another."""
    builder = TraceBuilder(source(form))
    for piece in pieces:
        builder.feed(piece)
    if close:
        builder.close()
    return builder.build()


def check_json(traces: list[Trace]) -> Any:
    """The ``check --json`` document for ``traces``, written and read back as JSON text."""
    text = jsontext.encode(report_json(Report(traces=traces)))
    return json.loads(text)


def check_table(traces: list[Trace]) -> str:
    """The ``check -v`` human table for ``traces``."""
    out = io.StringIO()
    write_table([trace_result(t) for t in traces], out, verbose=True)
    return out.getvalue()


def trace_summary(trace: Trace) -> tuple[Any, ...]:
    """What a trace shows, for comparing two ways of building it."""
    return (
        trace.payloads,
        trace.decoded,
        trace.errors,
        trace.verdicts,
        trace.analysis.flags,
        trace.notes,
        [(c.key, c.block_index, c.deltas, c.arguments) for c in trace.analysis.calls],
        trace.raw,
        trace.implied_done,
        trace.head,
    )


def run_cli(argv: list[str]) -> tuple[int, bytes, str]:
    """Run ``replay-tui ARGV`` in-process: exit status, stdout bytes, stderr text."""
    import sys

    from replay_tui.cli import main

    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    # errors="strict": what a UTF-8 terminal would refuse (a lone surrogate) fails the test.
    wrappers = [
        io.TextIOWrapper(buf, encoding="utf-8", errors="strict", write_through=True)
        for buf in (out, err)
    ]
    sys.stdout, sys.stderr = wrappers
    try:
        code = main(argv)
    finally:
        sys.stdout, sys.stderr = saved
        for w in wrappers:
            w.flush()
            w.detach()  # keep the buffers open when the wrapper goes away
    return code, out.getvalue(), err.getvalue().decode("utf-8")
