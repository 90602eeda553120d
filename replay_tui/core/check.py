"""``check``: judge every trace under some paths, as data and as its JSON document."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

import msgspec

from .discovery import Discovery, Skipped, discover
from .result import flag_json, note_json, skipped_json, trace_result
from .trace import Source, Trace, load_trace

__all__ = ["Report", "check_paths", "flag_json", "load_all", "note_json", "report_json"]


class Report(msgspec.Struct):
    traces: list[Trace] = msgspec.field(default_factory=list)
    skipped: list[Skipped] = msgspec.field(default_factory=list)

    @property
    def clean(self) -> bool:
        return all(t.analysis.clean for t in self.traces)


def load_all(
    discovery: Discovery,
    on_trace: Callable[[Trace], None] | None = None,
    *,
    load: Callable[[Source], Trace] = load_trace,
) -> Iterator[Trace | Skipped]:
    """Load each discovered source; a file that fails to read becomes a :class:`Skipped`.

    ``load`` reads one source (the live TUI passes one that follows growing files).
    """
    for source in discovery.sources:
        try:
            trace = load(source)
        except OSError as exc:
            yield Skipped(source.address, f"cannot read: {exc.strerror or exc}")
            continue
        except MemoryError:
            yield Skipped(source.address, "too large to load into memory")
            continue
        if on_trace is not None:
            on_trace(trace)
        yield trace


def check_paths(paths: Sequence[str | os.PathLike[str]]) -> Report:
    """Discover and judge every trace under ``paths``."""
    discovery = discover(paths)
    report = Report(skipped=list(discovery.skipped))
    # One-shot: keep the decoded chunks rather than pay for freeing them mid-run.
    for item in load_all(discovery, load=partial(load_trace, keep_decoded=True)):
        if isinstance(item, Skipped):
            report.skipped.append(item)
        else:
            report.traces.append(item)
    return report


def trace_json(trace: Trace, clients: dict[str, Any] | None = None) -> dict[str, Any]:
    """One trace of the ``check --json`` document (:meth:`TraceResult.json`); ``clients``
    (``check --clients``) is added as given: ``{policy key: {"ok": bool, "outcome": str}}``
    (and ``"cause"``)."""
    return trace_result(trace, clients).json()


def report_json(report: Report, clients: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``check --json`` document. ``clients`` (``check --clients``), aligned
    with ``report.traces``, adds each trace's ``"clients"`` key."""
    per_trace = clients if clients is not None else [None] * len(report.traces)
    return {
        "traces": [trace_json(t, c) for t, c in zip(report.traces, per_trace, strict=True)],
        "skipped": [skipped_json(s) for s in report.skipped],
    }
