"""What one judged trace leaves behind once its data is dropped.

``check`` on a folder of a hundred thousand captures cannot keep the traces: each is judged,
reduced to a :class:`TraceResult` (small, picklable, so a process pool or a Dask worker can
send it back), written out and forgotten. The table row, the ``check --json`` element and the
operator's summary all read this record, so they agree by construction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import msgspec

from .discovery import Candidate, Discovery, Skipped, classify_candidate
from .har import HarEntry
from .identity import Flag, Note
from .trace import Badge, Source, Trace, gc_paused, load_trace
from .verdicts import is_clean
from .wire import UNSET

__all__ = [
    "Assess",
    "Judgement",
    "Listed",
    "TraceResult",
    "entry_label",
    "flag_json",
    "gateway_of",
    "judge_candidate",
    "judge_listed",
    "judge_source",
    "judgement_of",
    "let_go_later",
    "note_json",
    "only_trace",
    "skipped_json",
    "split_listed",
    "trace_result",
]

Assess = Callable[[Trace], dict[str, Any]]
"""``check --clients``: a trace's client-library outcomes, ``{policy key: {"ok", "outcome"}}``
(and ``"cause"`` when a field made the library throw).
Passed in by the caller, so the core never imports the client-library models itself."""


class TraceResult(msgspec.Struct):
    """One trace's verdicts, flags and notes, without its bytes or its analysis."""

    path: str
    verdicts: dict[str, str]
    flags: list[Flag]
    notes: list[Note]
    badge: str
    model: str | None = None
    gateway: str | None = None
    """Where the stream came through: the host of a HAR entry's or a recorded request's URL,
    else the first folder of the address (captures are usually filed by gateway)."""
    clients: dict[str, Any] | None = None
    """``check --clients``: ``{policy key: {"ok": bool, "outcome": str}}``, with ``"cause":
    str`` when a field made the library throw (or surface an error part)."""

    @property
    def clean(self) -> bool:
        return is_clean(len(self.flags), self.verdicts.values())

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
        gateway=gateway_of(trace.source),
        clients=clients,
    )


class Judgement(msgspec.Struct, frozen=True, array_like=True):
    """What a list of traces shows of one judged trace, and what its filter reads.

    Small and flat (a tuple on the wire): the TUI keeps one per trace of a 100,000-capture
    folder, worker processes send them back, and the judgement cache stores them.
    """

    badge: Badge
    verdicts: tuple[tuple[str, str], ...]
    flags: int
    models: tuple[str, ...] = ()
    """The model the stream names and the one its request asked for (the filter finds both)."""
    label: str | None = None
    """How a HAR entry is named in a list (``#3 12:00:01 POST /v1/chat/completions``)."""
    words: tuple[str, ...] = ()
    """More text the filter finds the trace by (a HAR entry's method and URL)."""


def judgement_of(trace: Trace) -> Judgement:
    """The list's record of ``trace``."""
    models = [trace.analysis.model or ""]
    models += [value for key, value in trace.meta if key == "model"]
    entry = trace.source.entry
    return Judgement(
        trace.badge,
        tuple(trace.verdicts.items()),
        len(trace.analysis.flags),
        tuple(m for m in dict.fromkeys(models) if m),
        entry_label(entry) if entry is not None else None,
        (entry.method, entry.url, entry.model or "") if entry is not None else (),
    )


def entry_label(entry: HarEntry) -> str:
    """A HAR entry as a list names it: number, time of day, method and where it went."""
    parts = urlsplit(entry.url)
    where = parts.path or entry.url
    if parts.query:
        where += "?" + parts.query
    started = entry.started
    time = started[11:19] if len(started) >= 19 and started[10] in "T " else started
    return f"#{entry.number} {time} {entry.method} {where}".replace("  ", " ")


Listed = list[tuple[str, Judgement] | Skipped]
"""What one listed file turned out to hold: its traces' judgements by address (a HAR file has
several), or why it holds none."""


def only_trace(address: str, listed: Listed) -> Judgement | None:
    """The judgement when the file at ``address`` is one trace under its own address (the
    common case: the list's row stays as it is), else ``None``."""
    if len(listed) == 1:
        only = listed[0]
        if not isinstance(only, Skipped) and only[0] == address:
            return only[1]
    return None


def split_listed(listed: Listed) -> tuple[list[str], list[Skipped]]:
    """The addresses of the traces a file holds, and why the rest of it is not a trace."""
    traces = [item[0] for item in listed if not isinstance(item, Skipped)]
    return traces, [item for item in listed if isinstance(item, Skipped)]


def judge_listed(item: Candidate) -> Listed:
    """Classify and judge one file the walk found, for a list (the TUI's unit of work: small
    to send to a worker process, small to send back, small to cache)."""

    def judge(source: Source) -> tuple[str, Judgement]:
        return source.address, judgement_of(load_trace(source, lean=True))

    return _per_trace(item, lambda source: _or_skipped(source, lambda: judge(source)))


def gateway_of(source: Source) -> str | None:
    """The gateway a trace came through, as far as its source says (see ``TraceResult``)."""
    url: Any = None
    if source.entry is not None:
        url = source.entry.url
    elif source.sidecar is not None:
        request = source.sidecar.get("request")
        url = request.get("url") if isinstance(request, dict) else None
    if isinstance(url, str) and "://" in url:
        try:
            host = urlsplit(url).hostname
        except ValueError:  # a malformed URL in an untrusted capture: no host to name
            host = None
        if host:
            return host
    folder, sep, _ = source.address.partition("/")
    return folder if sep and folder not in ("", ".", "..") else None


def judge_source(
    source: Source, data: bytes | None = None, assess: Assess | None = None
) -> TraceResult | Skipped:
    """Load (unless ``data`` is given), judge and reduce one trace; a file that cannot be read
    becomes a :class:`Skipped` with the reason. ``assess`` (``check --clients``) assesses the
    trace's client libraries: the analysis then keeps the per-call record they read; without
    it the judgement is lean."""

    def judge() -> TraceResult:
        # The collector is kept away until the trace is let go: what loading allocates
        # forms no cycle, and freed, it is no longer there for a collection to walk.
        global _judging
        with gc_paused():
            _LATER.clear()  # (the trace judged before: memory stays that of one trace)
            # (the clients' models read plain lists quicker)
            trace = load_trace(source, data, lean=assess is None, compact=False)
            if assess is None:
                result = trace_result(trace)
                del trace
                return result
            _judging += 1
            try:
                result = trace_result(trace, assess(trace))
                let_go_later(trace)
            finally:
                _judging -= 1
        return result

    return _or_skipped(source, judge)


_LATER: list[Any] = []
_judging = 0
"""How many :func:`judge_source` calls assessing a trace's clients are under way."""


def let_go_later(*objects: Any) -> None:
    """While :func:`judge_source` assesses a trace's client libraries: keep ``objects`` (the
    trace, what its models made) until the next trace is judged, and let them go then, before
    it is loaded (memory stays that of one trace), so that a ``check --clients`` of one trace
    exits without freeing them (the CLI ends with ``os._exit``): on a 100,000-delta trace of
    5,000 calls, freeing the full analysis, the stream of frames and 18 libraries' outcomes
    cost 0.085 s of CPU, a third of the whole of ``check``. Outside of one: nothing is kept."""
    if _judging:
        _LATER.extend(objects)


R = TypeVar("R")


def _or_skipped(source: Source, judge: Callable[[], R]) -> R | Skipped:
    """``judge()``, or why ``source`` could not be judged."""
    try:
        return judge()
    except OSError as exc:
        return Skipped(source.address, f"cannot read: {exc.strerror or exc}")
    except MemoryError:
        return Skipped(source.address, "too large to load into memory")
    except Exception as exc:  # a scan of 10^5 captures completes; this one is named, not lost
        return Skipped(source.address, f"could not be judged: {type(exc).__name__}: {exc}")


def _per_trace(item: Candidate, judge: Callable[[Source], R | Skipped]) -> list[R | Skipped]:
    """What one walked file holds, each of its traces judged (a HAR file holds several), or
    why it holds none."""
    found = Discovery()
    try:
        classify_candidate(item, found)
    except Exception as exc:  # as in _or_skipped: the scan goes on
        return [Skipped(item.address, f"could not be read: {type(exc).__name__}: {exc}")]
    out: list[R | Skipped] = list(found.skipped)
    found.sources.reverse()
    while found.sources:
        # Dropped as soon as judged: a HAR file's entries each hold their body.
        out.append(judge(found.sources.pop()))
    return out


def judge_candidate(
    item: Candidate | Skipped, assess: Assess | None = None
) -> list[TraceResult | Skipped]:
    """Everything one walked file yields: its traces' results (a HAR file holds several), or
    why it holds none. A :class:`Skipped` from the walk passes through unchanged.

    The unit of work of ``check``: small to send to a worker process, small to send back.
    """
    if isinstance(item, Skipped):
        return [item]
    return _per_trace(item, lambda source: judge_source(source, assess=assess))


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
