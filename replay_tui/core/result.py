"""What one judged trace leaves behind once its data is dropped.

``check`` on a folder of a hundred thousand captures cannot keep the traces: each is judged,
reduced to a :class:`TraceResult` (small, picklable, so a process pool or a Dask worker can
send it back), written out and forgotten. The table row, the ``check --json`` element and the
operator's summary all read this record, so they agree by construction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from .discovery import Skipped
from .identity import Flag, Note
from .trace import Source, Trace, load_trace
from .wire import UNSET

__all__ = ["TraceResult", "flag_json", "judge_source", "note_json", "skipped_json", "trace_result"]


class TraceResult(msgspec.Struct):
    """One trace's verdicts, flags and notes, without its bytes or its analysis."""

    path: str
    verdicts: dict[str, str]
    flags: list[Flag]
    notes: list[Note]
    badge: str
    model: str | None = None
    clients: dict[str, Any] | None = None
    """``check --clients``: ``{policy key: {"ok": bool, "outcome": str}}``."""

    @property
    def clean(self) -> bool:
        return not self.flags and all(v == "ok" for v in self.verdicts.values())

    def json(self) -> dict[str, Any]:
        """The trace's element of the ``check --json`` document's ``traces`` array."""
        out: dict[str, Any] = {
            "path": self.path,
            "verdicts": self.verdicts,
            "flags": [flag_json(f) for f in self.flags],
            "notes": [note_json(n) for n in self.notes],
        }
        if self.clients is not None:
            out["clients"] = self.clients
        return out


def trace_result(trace: Trace, clients: dict[str, Any] | None = None) -> TraceResult:
    """Reduce a judged trace to what ``check`` reports of it."""
    return TraceResult(
        path=trace.address,
        verdicts=trace.verdicts,
        flags=list(trace.analysis.flags),
        notes=trace.notes,
        badge=trace.badge.value,
        model=trace.analysis.model,
        clients=clients,
    )


def judge_source(
    source: Source,
    data: bytes | None = None,
    *,
    clients: Callable[[Trace], dict[str, Any]] | None = None,
) -> TraceResult | Skipped:
    """Load (unless ``data`` is given), judge and reduce one trace; a file that cannot be read
    becomes a :class:`Skipped` with the reason. ``clients`` (``check --clients``) assesses the
    trace's client libraries: the analysis then keeps the per-call record they read."""
    try:
        trace = load_trace(source, data, lean=clients is None)
    except OSError as exc:
        return Skipped(source.address, f"cannot read: {exc.strerror or exc}")
    except MemoryError:
        return Skipped(source.address, "too large to load into memory")
    return trace_result(trace, clients(trace) if clients is not None else None)


def _json_value(value: Any) -> Any:
    return None if value is UNSET else value


def flag_json(flag: Flag) -> dict[str, Any]:
    return {
        "kind": flag.kind,
        "line": flag.line,
        "call": _json_value(flag.call),
        "value": _json_value(flag.value),
    }


def note_json(note: Note) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": note.kind, "message": note.message}
    if note.line is not None:
        out["line"] = note.line
    if note.call is not UNSET:
        out["call"] = note.call
    return out


def skipped_json(skipped: Skipped) -> dict[str, Any]:
    out: dict[str, Any] = {"path": skipped.path, "reason": skipped.reason}
    if skipped.line is not None:
        out["line"] = skipped.line
    return out
