"""What a report says about a trace, as data: the renderers (:mod:`.html`, :mod:`.markdown`)
only lay it out.

Everything here comes from the core's analysis and replay; nothing is decoded twice. Trace
content stays raw text in these records (control characters made visible): escaping for the
output format is the renderer's job, and the only place it happens.

Large traces are cut, never refused: :class:`Limits` bounds the rows per call, the aligned
chunk rows and the excerpts, and every cut is recorded as a gap ("… 99,940 deltas …") so the
reader knows something was left out. A folder (or a HAR file) of many traces is bounded too:
the first :attr:`Limits.traces` get a section each, the rest a row of the summary table only,
and the folder's finding says so.
"""

from __future__ import annotations

import heapq
import json
import re
from array import array
from collections.abc import Sequence
from itertools import repeat
from typing import Any

import msgspec

from ..core import jsontext
from ..core.align import align
from ..core.discovery import Skipped
from ..core.identity import CallTrace, DeltaRow, Flag
from ..core.redact import redact_meta
from ..core.stream import ChunkStream, Joined
from ..core.summary import pattern_shape
from ..core.trace import Trace
from ..core.translator import Behavior, Chunk
from ..core.verdicts import consequence, describe, unidentified
from ..core.visible import visible
from ..core.wire import UNSET, describe_value

__all__ = [
    "CallSection",
    "ChunkRow",
    "ClientRow",
    "Excerpt",
    "Gap",
    "Limits",
    "Report",
    "Span",
    "TraceReport",
    "VerdictLine",
    "build_report",
    "build_reports",
    "folder_finding",
    "table_row",
]

ASSIGN = Behavior.ASSIGN_ALWAYS
ACCEPT = Behavior.ACCEPT_IDENTITY

Span = tuple[str, bool]
"""A piece of prose: ``(text, is_code)``; code spans hold values quoted from the trace."""


class Limits(msgspec.Struct, frozen=True):
    """How much of a large trace a report shows."""

    rows_per_call: int = 80
    chunk_rows: int = 120
    excerpts: int = 12
    context: int = 3
    """Raw lines shown before and after each flagged line."""
    cell: int = 120
    """Characters of one value before it is cut with "…"."""
    calls: int = 40
    """Calls of a trace given a section of their own: flagged ones and ones left
    unidentified first, then the others in stream order (an agent loop's 5,000 calls made the
    report of one trace hold 13 times its capture)."""
    traces: int = 200
    """Traces of a folder report given a section of their own; the others are a row of its
    summary table (10,000 HAR entries in full made a 62 MB page in 33 s, with 519 MB)."""


class Gap(msgspec.Struct, frozen=True):
    """Rows left out of a table."""

    count: int
    what: str
    """What was left out, plural (``deltas``)."""

    @property
    def text(self) -> str:
        what = self.what[:-1] if self.count == 1 else self.what
        return f"… {self.count:,} {what} …"


class VerdictLine(msgspec.Struct):
    behavior: str
    verdict: str
    when: str
    consequence: str
    finish: str


class CallRow(msgspec.Struct):
    delta: int
    line: int
    raw_id: str
    raw_name: str
    arguments: str
    assign: str
    accept: str
    flags: list[str]
    """``erased id`` / ``erased name`` (``, repaired on line N`` when it was)."""


class CallSection(msgspec.Struct):
    title: str
    deltas: int
    rows: list[CallRow | Gap]


class ChunkRow(msgspec.Struct):
    """One row of the two behaviors' chunk streams, aligned; ``None`` where a side has none."""

    line: int | None
    assign: str | None
    accept: str | None
    same: bool


class RawLine(msgspec.Struct):
    """One raw line of an excerpt, as shown: a window of it when it is long."""

    number: int
    text: str
    flagged: bool
    """The flagged payload's line."""
    spots: list[tuple[int, int]] = msgspec.field(default_factory=list)
    """``(start, end)`` in ``text`` of each field that erased an identity."""
    cut_before: bool = False
    """The window starts after column 1 (``text`` opens with "…")."""


class Excerpt(msgspec.Struct):
    title: str
    lines: list[RawLine]
    columns: list[int] = msgspec.field(default_factory=list)
    """1-based column in the raw line of each field that erased an identity."""


class Change(msgspec.Struct):
    """What a gateway should change, in its terms: what the stream sent, what the OpenAI
    streaming format sends instead, and what the agent saw as a result."""

    sent: list[Span]
    should: list[Span]
    saw: list[Span]


class Repro(msgspec.Struct):
    """Steps to reproduce: the minimized capture and the command that replays it."""

    name: str
    """The file name to save the capture as (``NAME.min.EXT``)."""
    capture: str
    """The minimized capture, as text (control characters made visible)."""
    events: tuple[int, int]
    """Events of the original, and of the minimized capture."""
    command: str
    expected: list[Span]
    actual: list[Span]
    minimal: bool
    """1-minimal: removing any one event changes the finding (False: the time ran out)."""
    cut: int = 0
    """Characters of the capture left out (a capture the time budget left large)."""


class ClientRow(msgspec.Struct):
    library: str
    kind: str
    ok: bool
    outcome: str
    cause: str = ""
    """The field that made it throw and the payload's line (``line 14: choices[0]…``)."""


class TraceReport(msgspec.Struct):
    address: str
    anchor: str
    """A safe fragment id (``t1``), never derived from trace content."""
    badge: str
    headline: list[Span]
    verdicts: list[VerdictLine]
    meta: list[tuple[str, str]]
    notes: list[tuple[int | None, str]]
    calls: list[CallSection]
    chunks: list[ChunkRow | Gap]
    chunks_differing: int
    excerpts: list[Excerpt]
    flags: int
    clients: list[ClientRow] | None = None
    excerpts_left_out: int = 0
    calls_left_out: int = 0
    """Calls without a section (:attr:`Limits.calls`)."""
    calls_left_out_flagged: int = 0
    """Of those, how many have a flag or close unidentified."""
    changes: list[Change] = msgspec.field(default_factory=list)
    repro: Repro | None = None
    full: bool = True
    """False past :attr:`Limits.traces` in a folder report: only what its table row shows
    (address, badge, verdicts, flags and headline) is filled in, and it has no section."""


class Report(msgspec.Struct):
    """One trace, or a folder: the summary table then one section per trace."""

    title: str
    traces: list[TraceReport]
    skipped: list[tuple[str, str]]
    folder: bool


BADGE_ORDER = ("erasing", "refused", "broken", "in progress", "clean")


def folder_finding(report: Report) -> list[Span]:
    """A folder's finding in one sentence: the traces by badge, and the first erasing one
    (else the first that is not clean), whose own sentence opens its section."""
    n = len(report.traces)
    counts = {badge: sum(t.badge == badge for t in report.traces) for badge in BADGE_ORDER}
    said = ", ".join(f"{c:,} {badge}" for badge, c in counts.items() if c)
    text = f"{n:,} trace{'s' if n != 1 else ''}" + (f": {said}" if said else "")
    if report.skipped:
        k = len(report.skipped)
        text += f"; {k:,} file{'s' if k != 1 else ''} skipped"
    spans: list[Span] = [(text, False)]
    first = next((t for t in report.traces if t.badge == "erasing"), None) or next(
        (t for t in report.traces if t.badge != "clean"), None
    )
    if first is not None:
        spans += [(f". First {first.badge}: ", False), (first.address, True), (" — ", False)]
        spans += first.headline
    summarised = sum(not t.full for t in report.traces)
    if summarised:
        shown = n - summarised
        spans.append(
            (
                f" (A report's limit: the first {shown:,} traces have a section below; the"
                f" other {summarised:,} are in the table only.)",
                False,
            )
        )
    return spans


def build_reports(
    title: str,
    traces: Sequence[Trace],
    skipped: Sequence[Skipped] = (),
    *,
    folder: bool = False,
    clients: bool = False,
    limits: Limits | None = None,
    repros: dict[int, Repro] | None = None,
) -> Report:
    """The report of ``traces`` (a folder's, or one trace's when ``folder`` is false, with
    its steps to reproduce; ``repros`` keeps them for a second build of the same traces)."""
    limits = limits or Limits()
    return Report(
        title=visible(title),
        traces=[
            build_report(
                t,
                anchor=f"t{k}",
                clients=clients,
                limits=limits,
                repro=None if folder or t.analysis.clean else _repro_of(t, repros),
            )
            if not folder or k <= limits.traces
            else table_row(t, anchor=f"t{k}")
            for k, t in enumerate(traces, 1)
        ],
        skipped=[(visible(s.path), visible(s.reason)) for s in skipped],
        folder=folder,
    )


def table_row(trace: Trace, *, anchor: str) -> TraceReport:
    """What a folder report shows of a trace past :attr:`Limits.traces`: its table row."""
    a = trace.analysis
    verdicts = []
    for b in (ASSIGN, ACCEPT):
        o = a.outcomes[b]
        info = describe(o.verdict)
        verdicts.append(
            VerdictLine(b.value, o.verdict, info.when, info.consequence, _finish(o.finish))
        )
    return TraceReport(
        address=visible(trace.address),
        anchor=anchor,
        badge=trace.badge.value,
        headline=headline(trace),
        verdicts=verdicts,
        meta=[],
        notes=[],
        calls=[],
        chunks=[],
        chunks_differing=0,
        excerpts=[],
        flags=len(a.flags),
        full=False,
    )


def build_report(
    trace: Trace,
    *,
    anchor: str = "t1",
    clients: bool = False,
    limits: Limits | None = None,
    repro: Repro | None = None,
) -> TraceReport:
    """What the report says about one judged trace."""
    limits = limits or Limits()
    a = trace.analysis
    verdicts = []
    for b in (ASSIGN, ACCEPT):
        o = a.outcomes[b]
        info = describe(o.verdict)
        verdicts.append(
            VerdictLine(b.value, o.verdict, info.when, info.consequence, _finish(o.finish))
        )
    meta = [(visible(k), _cut(visible(redact_meta(k, v)), 300)) for k, v in trace.meta]
    if a.model:
        meta.insert(1, ("model (from the stream)", _cut(visible(a.model), 300)))
    chunks, differing = _chunk_rows(trace, limits)
    by_assign, by_accept = closing_chunks(trace, ASSIGN), closing_chunks(trace, ACCEPT)
    excerpts, left_out = _excerpts(trace, limits)
    shown, notable = _shown_calls(a.calls, limits.calls)
    return TraceReport(
        address=visible(trace.address),
        anchor=anchor,
        badge=trace.badge.value,
        headline=headline(trace),
        verdicts=verdicts,
        meta=meta,
        notes=_notes(trace),
        calls=[_call_section(ct, limits, by_assign, by_accept, a.done) for ct in shown],
        calls_left_out=len(a.calls) - len(shown),
        calls_left_out_flagged=notable - sum(1 for ct in shown if _notable(ct)),
        chunks=chunks,
        chunks_differing=differing,
        excerpts=excerpts,
        excerpts_left_out=left_out,
        changes=changes(trace),
        repro=repro,
        flags=len(a.flags),
        clients=_clients(trace) if clients else None,
    )


# -- notes --------------------------------------------------------------------------------------

_MODEL_SEEN = re.compile(r" \(model (.*)\)$")


def _notes(trace: Trace) -> list[tuple[int | None, str]]:
    """The notes, identical ones once with a count ("on 36 lines, first line 4"), and a
    gateway pattern named by what was seen, then whom it is known from."""
    said: dict[str, list[int | None]] = {}
    for n in trace.notes:
        text = _pattern_said(n.message) if n.kind == "gateway-pattern" else n.message
        said.setdefault(_cut(visible(text), 400), []).append(n.line)
    out: list[tuple[int | None, str]] = []
    for text, lines in said.items():
        if len(lines) > 1:
            text += f" (× {len(lines):,}: lines {_lines(lines)})"
        out.append((lines[0], text))
    return out


def _lines(lines: list[int | None]) -> str:
    shown = [str(n) for n in lines[:5] if n is not None]
    more = len(lines) - 5
    return ", ".join(shown) + (f", … {more:,} more" if more > 0 else "")


def _pattern_said(message: str) -> str:
    """``continuations send id:null, name:null — the same pattern as Writer / vLLM /
    OpenCode (model x)``: what was seen first, the gateways known for it after."""
    match = _VENDORS.search(message)
    if match is None:
        return message
    model = _MODEL_SEEN.search(message)
    seen = f" (model {model.group(1)})" if model else ""
    shape = pattern_shape(message).replace(",", ", ")
    return f"continuations send {shape}{seen} — the same pattern as {match.group(1)}"


# -- the headline -----------------------------------------------------------------------------


def headline(trace: Trace) -> list[Span]:
    """The finding in one sentence, read from the verdicts and the chunks both behaviors
    emit (what a call closes with is its ``block-end`` chunk, not the value the wire sent);
    values from the trace as code spans."""
    a = trace.analysis
    va, vb = a.outcomes[ASSIGN].verdict, a.outcomes[ACCEPT].verdict
    extras = _extras(trace)
    if not a.flags and va == vb == "ok":
        return [
            ("Clean: both" if not extras else "Both", False),
            (" behaviors finish ", False),
            ("ok", True),
            (" and no tool-call identity is erased", False),
            *extras,
            (".", False),
        ]
    closed = closing_chunks(trace, ASSIGN)
    spans: list[Span] = []
    if a.flags:
        spans += _sent(trace, a.flags[0])
        spans.append((": ", False))
    if va == "unidentified-call":
        spans += _unidentified(trace, closed)
        spans += _fix(trace, va, vb)
    elif a.flags and va == "ok":
        spans += [
            (
                "the stream re-sends the identity later, so the old translator closes every call"
                " identified and finishes ",
                False,
            ),
            ("ok", True),
        ]
        spans += _fix(trace, va, vb)
    elif a.flags and not closed and va == vb == "stream-closed":
        spans += [
            (
                "the old translator would close the call without its identity, but the stream"
                " ends without ",
                False,
            ),
            ("[DONE]", True),
            (", so no call is closed: both behaviors end with ", False),
            (va, True),
            (" (a request error), and the session did not break that way", False),
        ]
    elif a.flags and not closed:
        spans += [
            (
                "the old translator would close the call without its identity, but no call is"
                " closed: ",
                False,
            ),
            *_ending(trace, va, vb),
            (", so the session did not break that way", False),
        ]
    elif a.flags:
        spans += [("the old translator ends with ", False), (va, True)]
        spans.append((f" ({describe(va).consequence})", False))
        spans += _fix(trace, va, vb)
    else:
        spans += _ending(trace, va, vb)
    more = len(a.flags) - len(_same_line(a.flags)) if a.flags else 0
    if more:
        spans.append((f" ({more} more flag{'s' if more != 1 else ''} below)", False))
    spans += extras
    spans.append((".", False))
    if spans[0][1] is False:
        first = spans[0][0]
        spans[0] = (first[:1].upper() + first[1:], False)
    return spans


def closing_chunks(trace: Trace, behavior: Behavior) -> dict[int, tuple[Any, Any]]:
    """What each tool call closes with under ``behavior``, by block index, as its
    ``block-end`` chunk says (empty: no call closed — no ``[DONE]``, or the fix refused)."""
    stream = trace.replay(behavior)
    out: dict[int, tuple[Any, Any]] = {}
    for k in range(stream.body, len(stream)):
        chunk = stream.light(k)[1]  # (a block's whole text is not joined)
        block = chunk.get("block") if chunk.get("type") == "block-end" else None
        index = chunk.get("index")
        if isinstance(block, dict) and block.get("type") == "tool-call" and type(index) is int:
            out[index] = (block.get("id"), block.get("name"))
    return out


def _same_line(flags: list[Flag]) -> list[Flag]:
    first = flags[0]
    return [f for f in flags if f.line == first.line and f.call == first.call]


def _sent(trace: Trace, first: Flag) -> list[Span]:
    """What the stream sent on the first flagged delta, and the known pattern it follows."""
    ct = next(c for c in trace.analysis.calls if any(f is first for f in c.flags))
    row = ct.rows(first.delta - 1, first.delta)[0]
    sent = _shape_sent(row.raw_id, row.raw_name)
    spans: list[Span] = [
        (f"A continuation delta of {_call_name(first.call)} (line {first.line}) sends ", False),
        (_cut(sent, 80), True),
    ]
    vendors = _vendors(trace, sent)
    if vendors:
        spans.append((f", the same pattern as {vendors}", False))
    return spans


def _shape_sent(cid: Any, name: Any) -> str:
    """``id:null, name:null``: the identity fields a delta sent (absent ones left out)."""
    return ", ".join(
        f"{fld}:{describe_value(v)}" for fld, v in (("id", cid), ("name", name)) if v is not UNSET
    )


_VENDORS = re.compile(r"the (.+?) pattern: continuations (?:send|repeat) ")


def _vendors(trace: Trace, sent: str) -> str | None:
    """The gateways a core pattern note names, when the pattern it saw is what was sent on
    the flagged delta (never a vendor whose pattern this is not)."""
    for n in trace.analysis.notes:
        if n.kind != "gateway-pattern":
            continue
        match = _VENDORS.search(n.message)
        if match is not None and _norm(pattern_shape(n.message)) == _norm(sent):
            return match.group(1)
    return None


def _norm(shape: str) -> str:
    return shape.replace(" ", "")


def _unidentified(trace: Trace, closed: dict[int, tuple[Any, Any]]) -> list[Span]:
    """The first call the old translator closes without identity, with what its
    ``block-end`` chunk carries and what that costs."""
    a = trace.analysis
    flagged = [c for c in a.calls if c.flags]
    order = flagged + [c for c in a.calls if c not in flagged]
    for ct in order:
        ends = closed.get(ct.block_index)
        if ends is None:
            continue
        lacking = unidentified(*ends)
        if not lacking:
            continue
        spans: list[Span] = [
            ("the old translator closes ", False),
            (_call_name(ct.wire_index), False),
            (" with ", False),
        ]
        ends_by = dict(zip(("id", "name"), ends, strict=True))
        for k, fld in enumerate(lacking):
            if k:
                spans.append((" and ", False))
            spans += [(f"{fld} ", False), (_cut(describe_value(ends_by[fld]), 40), True)]
        if not ct.flags:
            never = [f for f in lacking if (ct.id_accept, ct.name_accept)[f == "name"] is UNSET]
            if never:
                spans.append(
                    (
                        f" (the stream never sent it a{'n' if never[0] == 'id' else ''}"
                        f" {' or '.join(never)})",
                        False,
                    )
                )
        said = [consequence(f, _cut(describe_value(ends_by[f]), 40)) for f in lacking]
        spans.append((" — " + "; ".join(said), False))
        return spans
    return [("the old translator ends with ", False), ("unidentified-call", True)]


def _fix(trace: Trace, va: str, vb: str) -> list[Span]:
    """What the fix (accept-identity) does instead."""
    a = trace.analysis
    if vb == "malformed-tool-call":
        return [
            ("; the fix refuses the call (", False),
            ("MALFORMED_TOOL_CALL", True),
            (", retried)", False),
        ]
    if vb == "ok" and va != "ok":
        ct = next((c for c in a.calls if c.flags), None)
        kept = []
        if ct is not None:
            ends = closing_chunks(trace, ACCEPT).get(ct.block_index)
            if ends is not None:
                kept = [
                    v
                    for f, v in zip(("id", "name"), ends, strict=True)
                    if any(x.field == f for x in ct.flags)
                ]
        if kept:
            spans: list[Span] = [("; the fix keeps ", False)]
            for k, value in enumerate(kept):
                if k:
                    spans.append((" and ", False))
                spans.append((_cut(visible(str(value)), 14), True))
            return spans
        return [("; the fix finishes ", False), ("ok", True)]
    if vb == va:
        return [("; the fix ends the same way", False)]
    return [("; the fix ends with ", False), (vb, True), (f" ({describe(vb).consequence})", False)]


def _ending(trace: Trace, va: str, vb: str) -> list[Span]:
    """How the behaviors end, when no call closes without identity."""
    a = trace.analysis
    if va == vb:
        spans: list[Span] = [("both behaviors end with ", False), (va, True), (" (finish ", False)]
        spans += [(_finish(a.outcomes[ASSIGN].finish), True)]
        spans.append((f"): {describe(va).consequence}", False))
        return spans
    return [
        ("the old translator ends with ", False),
        (va, True),
        (f" ({describe(va).consequence}); the fix with ", False),
        (vb, True),
        (f" ({describe(vb).consequence})", False),
    ]


def _merged(trace: Trace) -> dict[str, int]:
    """Calls a gateway sent on one index, by that index: each new id, or new name, that the
    fix takes on a call after its first is another call merged into it (a name re-sent as
    the string ``"null"`` is a gateway's stringified null, not a call)."""
    merged: dict[str, int] = {}
    for ct in trace.analysis.calls:
        starts: set[int] = set()
        for fld in ("id", "name"):
            line = ct.history[ACCEPT, fld]
            starts.update(
                at for at, v in zip(line.at[1:], line.values[1:], strict=True) if v != "null"
            )
        if starts:
            merged[describe_value(ct.wire_index)] = len(starts) + 1
    return merged


_IGNORED = " (the harness ignores it and goes on)"
"""The tail of the core's error-object note, which the sentence says in its own words."""


def _extras(trace: Trace) -> list[Span]:
    """What else a vendor must hear in the same sentence: calls merged on one index, error
    objects the harness read past."""
    spans: list[Span] = []
    for index, count in _merged(trace).items():
        spans.append(
            (
                f"; {count} calls sent on index {_cut(index, 20)} are merged into one"
                " (a new id or name on the same index)",
                False,
            )
        )
    errors = [n for n in trace.analysis.notes if n.kind == "error-object"]
    if errors:
        first = errors[0]
        body = first.message.split(": ", 1)[-1].removesuffix(_IGNORED)
        more = f" ({len(errors) - 1} more)" if len(errors) > 1 else ""
        spans += [
            (f"; line {first.line} carries an error object ", False),
            (_cut(visible(body), 80), True),
            (f"{more} that the harness reads past", False),
        ]
    return spans


def _call_name(index: Any) -> str:
    return "the call with no index" if index is UNSET else f"call {_cut(describe_value(index), 20)}"


# -- steps to reproduce ----------------------------------------------------------------------

REPRO_SECONDS = 5.0
"""The time a report gives ``minimize`` (a run out of time keeps the smallest capture found)."""
REPRO_CHARS = 6_000
"""Characters of a minimized capture a report shows inline."""


def _repro_of(trace: Trace, cache: dict[int, Repro] | None) -> Repro:
    if cache is None:
        return reproducer(trace)
    key = id(trace)
    if key not in cache:
        cache[key] = reproducer(trace)
    return cache[key]


def shown_capture(data: bytes, limit: int, block: int = 1 << 20) -> tuple[str, int]:
    """The capture ``data`` as a report shows it (decoded, line endings made ``\\n``, every
    line's control characters escaped, the last newline dropped): its first ``limit``
    characters, and the length of the whole.

    Read ``block`` bytes (and up to the next newline) at a time: a minimization out of time
    keeps the whole trace, which decoded, split into lines and joined again at once was
    three times the capture for the few thousand characters shown."""
    parts: list[str] = []
    kept = total = 0
    last = ""
    start, n = 0, len(data)
    while start < n:
        end = data.find(b"\n", start + block)
        end = n if end < 0 else end + 1  # (a newline never ends a UTF-8 sequence: cut there)
        chunk = data[start:end].decode("utf-8", "replace")
        chunk = chunk.replace("\r\n", "\n").replace("\r", "\n")
        # (a visible line holds no newline: the blocks' texts, end to end, are the whole's)
        text = "\n".join(visible(line) for line in chunk.split("\n"))
        total += len(text)
        if kept <= limit:
            parts.append(text[: limit + 1 - kept])
            kept += len(parts[-1])
        last = text[-1:] or last
        start = end
    if last == "\n":
        total -= 1
    return "".join(parts)[: min(limit, total)], total


def reproducer(trace: Trace) -> Repro:
    """The finding cut to its smallest capture (``replay-tui minimize``), and how to see it."""
    from .minimize import minimize, minimized_name

    m = minimize(trace, seconds=REPRO_SECONDS)
    name = visible(minimized_name(trace.address, trace.source.form))
    text, size = shown_capture(m.data, REPRO_CHARS)
    cut = max(0, size - REPRO_CHARS)
    a = trace.analysis
    closed = closing_chunks(trace, ASSIGN)
    expected: list[Span] = [
        ("Every tool call closes with the non-empty id and name of its first delta, and ", False),
        ("replay-tui check", True),
        (" reports ", False),
        ("ok", True),
        (" under both behaviors with no flag", False),
    ]
    va, vb = a.outcomes[ASSIGN].verdict, a.outcomes[ACCEPT].verdict
    actual: list[Span] = [("Assign-always ", False), (va, True), (", accept-identity ", False)]
    actual.append((vb, True))
    if a.flags:
        flags = sorted(
            {(f.kind, _call_name(f.call)) for f in a.flags}, key=lambda kc: (kc[1], kc[0])
        )
        actual.append(("; ", False))
        for k, (kind, call) in enumerate(flags):
            actual += [(", " if k else "", False), (kind, True), (f" on {call}", False)]
    lacking = [(k, ends) for k, ends in sorted(closed.items()) if unidentified(*ends)]
    if lacking:
        _, ends = lacking[0]
        actual += [("; the old translator closes a call as ", False)]
        actual.append((_identity(ends[0], ends[1], 40), True))
    return Repro(
        name=name,
        capture=text,
        events=(m.events_before, m.events_after),
        command=f"replay-tui check {name}",
        expected=expected,
        actual=actual,
        minimal=m.one_minimal,
        cut=cut,
    )


# -- what to change ----------------------------------------------------------------------------

_WIRE = {"id": "id", "name": "function.name"}


def changes(trace: Trace) -> list[Change]:
    """What the gateway should change, one entry per pattern: each kind of value that erased
    an identity, each call never identified, a stream that never sends ``[DONE]``."""
    a = trace.analysis
    out: list[Change] = []
    saw = _agent_saw(trace)
    groups: dict[tuple[tuple[str, str], ...], list[list[Flag]]] = {}
    deltas: dict[tuple[int, Any], list[Flag]] = {}
    for f in a.flags:
        deltas.setdefault((f.line, describe_value(f.call)), []).append(f)
    for same in deltas.values():
        # What the delta carried: the erasing fields, and any other identity field that is
        # not the call's first value (LiteLLM's name:"null" beside an erasing id:"").
        ct = next(c for c in a.calls if any(x is same[0] for x in c.flags))
        row = ct.rows(same[0].delta - 1, same[0].delta)[0]
        head = ct.rows(0, 1)[0]
        erased = {f.field for f in same}
        key = tuple(
            (fld, describe_value(v))
            for fld, v, was in (
                ("id", row.raw_id, head.raw_id),
                ("name", row.raw_name, head.raw_name),
            )
            if v is not UNSET and (fld in erased or describe_value(v) != describe_value(was))
        )
        groups.setdefault(key, []).append(same)
    for key, found in groups.items():
        first = found[0][0]
        ct = next(c for c in a.calls if any(x is first for x in c.flags))
        carried = ", ".join(f'"{fld}": {value}' for fld, value in key)
        sent: list[Span] = [
            (
                f"Line {first.line}: a continuation delta of {_call_name(first.call)} carries ",
                False,
            ),
            (_cut(carried, 80), True),
        ]
        if len(found) > 1:
            calls = sorted({_call_name(d[0].call) for d in found})
            sent.append((f" ({len(found)} such deltas, on {', '.join(calls)})", False))
        fields = [fld for fld, _ in key]
        should: list[Span] = [("The OpenAI streaming format sends ", False)]
        for k, fld in enumerate(fields):
            should += [(" and " if k else "", False), (_WIRE[fld], True)]
        them = "them" if len(fields) > 1 else "it"
        should.append(
            (
                f" once, on a call's first delta: omit {them} on continuations, or repeat the"
                f" same value{'s' if len(fields) > 1 else ''}",
                False,
            )
        )
        head = ct.rows(0, 1)[0]
        firsts = [head.raw_id if fld == "id" else head.raw_name for fld in fields]
        if all(is_identity_value(v) for v in firsts):
            should.append((f" ({_call_name(ct.wire_index)}'s: ", False))
            for k, v in enumerate(firsts):
                should += [(", " if k else "", False), (_cut(describe_value(v), 40), True)]
            should.append((")", False))
        out.append(Change(sent, should, saw))
    for ct in _never_identified(trace):
        lacking = unidentified(*ct.final(ACCEPT))
        row = ct.rows(0, 1)[0]
        sent = [(f"Line {ct.first_line}: {_call_name(ct.wire_index)}", False)]
        for k, fld in enumerate(lacking):
            value = row.raw_id if fld == "id" else row.raw_name
            sent.append((" and" if k else "", False))
            if value is UNSET:
                sent += [(" carries no ", False), (_WIRE[fld], True)]
            else:
                sent += [
                    (" carries ", False),
                    (_cut(f'"{fld}": {describe_value(value)}', 60), True),
                ]
        sent.append((" on its first delta, and no later delta names it", False))
        should = [("The OpenAI streaming format gives every call a non-empty ", False)]
        for k, fld in enumerate(lacking):
            should += [(" and " if k else "", False), (_WIRE[fld], True)]
        should.append((" on its first delta: send one", False))
        out.append(Change(sent, should, saw))
    if a.outcomes[ASSIGN].verdict == "stream-closed":
        out.append(
            Change(
                [("The stream ends without ", False), ("data: [DONE]", True)],
                [
                    ("The OpenAI streaming format ends every stream with ", False),
                    ("data: [DONE]", True),
                    (": send it after the last chunk", False),
                ],
                [
                    ("The agent fails the request (", False),
                    ("STREAM_CLOSED", True),
                    ("): no tool call is run", False),
                ],
            )
        )
    return out


def is_identity_value(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _agent_saw(trace: Trace) -> list[Span]:
    """What an agent that takes every value it is sent (the harness before its fix) saw."""
    a = trace.analysis
    va, vb = a.outcomes[ASSIGN].verdict, a.outcomes[ACCEPT].verdict
    closed = closing_chunks(trace, ASSIGN)
    spans: list[Span] = []
    if va == "unidentified-call":
        lacking: dict[str, Any] = {}
        for ends in closed.values():
            for fld in unidentified(*ends):
                lacking.setdefault(fld, ends[fld == "name"])
        spans.append(
            ("An agent that takes every value a delta carries closes the call with", False)
        )
        for k, (fld, value) in enumerate(lacking.items()):
            spans += [(" and" if k else "", False), (f" {fld} ", False)]
            spans.append((_cut(describe_value(value), 40), True))
        said = []
        if "name" in lacking:
            said.append("its tool registry refuses the call as an unknown tool")
        if "id" in lacking:
            said.append(
                "a call recorded with an empty id makes the saved session impossible to reload"
            )
        spans.append((": " + "; ".join(said), False))
        if vb == "malformed-tool-call":
            spans.append(("; an agent that checks refuses the response and retries", False))
        return spans
    if va == "stream-closed":
        return [
            ("No call closed: the stream also ends without ", False),
            ("[DONE]", True),
            (", so the agent failed the request first (", False),
            ("STREAM_CLOSED", True),
            (
                "); with it, an agent that takes every value would close the call without its"
                " identity",
                False,
            ),
        ]
    if va == "ok":
        return [("The identity is re-sent later, so the call closes identified this time", False)]
    return [("The agent ends with ", False), (va, True), (f" ({describe(va).consequence})", False)]


# -- sections ---------------------------------------------------------------------------------


def _finish(finish: dict[str, Any]) -> str:
    failure = finish.get("failure")
    if isinstance(failure, dict):
        message = _cut(visible(str(failure.get("message"))), 200)
        return f"{finish.get('kind')} {failure.get('code')}: {message}"
    return str(finish.get("kind"))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value(value: Any, limit: int) -> str:
    return _cut(visible(describe_value(value)), limit)


def _identity(cid: Any, name: Any, limit: int) -> str:
    return f"{_value(cid, limit)} / {_value(name, limit)}"


def _closes(ends: tuple[Any, Any] | None, behavior: str, done: bool) -> str:
    """How a call closes under ``behavior``, as its ``block-end`` chunk says."""
    if ends is None:
        return f"never closed under {behavior} ({'refused' if done else 'no [DONE]'})"
    return f"closes as {_identity(ends[0], ends[1], 60)} under {behavior}"


def calls_left_out(t: TraceReport) -> str:
    """What a report says of the calls it gives no section ("" when it shows them all)."""
    n = t.calls_left_out
    if not n:
        return ""
    said = f"{n:,} more call{'s' if n != 1 else ''} not shown"
    if t.calls_left_out_flagged:
        return f"{said} ({t.calls_left_out_flagged:,} of them flagged or unidentified)."
    return f"{said}: each closes identified under both behaviors, with no flag."


def _notable(ct: CallTrace) -> bool:
    """A call with a flag, or that closes unidentified under either behavior."""
    return bool(ct.flags) or any(unidentified(*ct.final(b)) for b in (ASSIGN, ACCEPT))


def _shown_calls(calls: Sequence[CallTrace], limit: int) -> tuple[list[CallTrace], int]:
    """The calls given a section (at most ``limit``: notable ones first, then the others, in
    stream order) and how many calls are notable."""
    if len(calls) <= limit:
        return list(calls), sum(1 for ct in calls if _notable(ct))
    notable = [k for k, ct in enumerate(calls) if _notable(ct)]
    keep = set(notable[:limit])
    for k in range(len(calls)):
        if len(keep) >= limit:
            break
        keep.add(k)
    return [calls[k] for k in sorted(keep)], len(notable)


def _call_section(
    ct: CallTrace,
    limits: Limits,
    closed_assign: dict[int, tuple[Any, Any]],
    closed_accept: dict[int, tuple[Any, Any]],
    done: bool,
) -> CallSection:
    n = len(ct.calls)
    keep = set(range(n)) if n <= limits.rows_per_call else _kept_rows(ct, limits.rows_per_call)
    out: list[CallRow | Gap] = []
    last = -1
    for a, b in _stretches(sorted(keep)):  # the rows kept, read a stretch at a time
        if a > last + 1:
            out.append(Gap(a - last - 1, "deltas"))
        out += [_row(row, limits.cell) for row in ct.rows(a, b)]
        last = b - 1
    if last < n - 1:
        out.append(Gap(n - 1 - last, "deltas"))
    title = (
        f"{_call_name(ct.wire_index)} — first delta on line {ct.first_line};"
        f" {_closes(closed_assign.get(ct.block_index), 'assign-always', done)},"
        f" {_closes(closed_accept.get(ct.block_index), 'accept-identity', done)}"
    )
    return CallSection(title=title, deltas=n, rows=out)


def _kept_rows(ct: CallTrace, limit: int) -> set[int]:
    """The first and last deltas and every flagged one with a neighbour, up to ``limit`` (in
    the order of the deltas: once ``limit`` is reached, no later flagged delta is added)."""
    n = len(ct.calls)
    keep: set[int] = {0, 1, 2, n - 2, n - 1}
    flagged = sorted({f.delta - 1 for f in ct.flags})
    if len(keep) >= limit:  # full at the first delta: only its own flag, if any
        flagged = flagged[:1] if flagged[:1] == [0] else []
    for k in flagged:
        keep.update((k - 1, k, k + 1))
        if len(keep) >= limit:
            break
    return {k for k in keep if 0 <= k < n}


def _stretches(rows: list[int]) -> list[tuple[int, int]]:
    """Sorted row numbers as ``[start, stop)`` stretches of consecutive ones."""
    out: list[tuple[int, int]] = []
    for k in rows:
        if out and out[-1][1] == k:
            out[-1] = (out[-1][0], k + 1)
        else:
            out.append((k, k + 1))
    return out


def _row(row: DeltaRow, cell: int) -> CallRow:
    flags = []
    for f in row.flags:
        repaired = f", repaired on line {f.repaired_line}" if f.repaired_line is not None else ""
        flags.append(f.label + repaired)
    return CallRow(
        delta=row.delta,
        line=row.line,
        raw_id=_value(row.raw_id, cell),
        raw_name=_value(row.raw_name, cell),
        arguments=_value(row.arguments, cell),
        assign=_identity(row.id_assign, row.name_assign, cell // 2),
        accept=_identity(row.id_accept, row.name_accept, cell // 2),
        flags=flags,
    )


def _chunk_key(value: Any) -> Any:
    """``value`` (a chunk, or a value in one) as alignment compares it, small: a string longer
    than :data:`_KEY_CHARS` stands for itself by its length, hash and start, a block's whole
    text (:class:`Joined`, the same under both behaviors) by its block (a 50 MB text was
    encoded, twice, whole)."""
    if isinstance(value, str):
        if len(value) > _KEY_CHARS:
            return ["\0long", len(value), hash(value), value[:_KEY_CHARS]]
        return value
    if isinstance(value, Joined):
        return ["\0joined", value.key]
    if isinstance(value, dict):
        return {k: _chunk_key(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_chunk_key(v) for v in value]
    return value


_KEY_CHARS = 256


def _key(chunk: Chunk) -> int:
    """A chunk's alignment key: the hash of its JSON, made small first (:func:`_chunk_key`)
    when it holds a long string, a :class:`Joined` or anything nested."""
    for value in chunk.values():
        if isinstance(value, dict | list | Joined) or (
            isinstance(value, str) and len(value) > _KEY_CHARS
        ):
            return hash(jsontext.dumps(_chunk_key(chunk)))
    return hash(jsontext.dumps(chunk))


def _chunk_rows(trace: Trace, limits: Limits) -> tuple[list[ChunkRow | Gap], int]:
    """The aligned chunk streams where they differ, with one row of context either side.

    Compared by :func:`_chunk_key`, shown from :meth:`ChunkStream.head` (strings cut to what
    a cell shows): no chunk's huge string is encoded or joined whole."""
    left = trace.replay(ASSIGN)
    right = trace.replay(ACCEPT)
    # Each chunk's key kept as the hash of its JSON (two lists of 100,000 JSON texts were
    # larger than the capture); equal chunks have equal keys.
    lk = array("q", (_key(left.light(k)[1]) for k in range(len(left))))
    rk = array("q", (_key(right.light(k)[1]) for k in range(len(right))))
    width = limits.cell * 2

    def shown(stream: ChunkStream, k: int) -> str:
        return _cut(visible(jsontext.dumps(stream.head(k, width)[1])), width)

    # Each row: its chunk on each side (-1: none) and whether they are the same, in arrays;
    # its text is made only when the row is kept.
    lefts, rights, same = array("q"), array("q"), bytearray()
    for tag, i1, i2, j1, j2 in align(lk, rk):
        if tag == "equal":
            lefts.extend(range(i1, i2))
            rights.extend(repeat(-1, i2 - i1))
            same.extend(repeat(1, i2 - i1))
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            lefts.append(i if i < i2 else -1)
            rights.append(j if j < j2 else -1)
            same.append(0)
    del lk, rk
    rows = len(same)
    differing = same.count(0)
    keep: set[int] = set()
    for k, s in enumerate(same):
        if not s:
            keep.update((k - 1, k, k + 1))
        if len(keep) >= limits.chunk_rows:
            break
    out: list[ChunkRow | Gap] = []
    last = -1
    for k in sorted(x for x in keep if 0 <= x < rows):
        if k > last + 1:
            out.append(Gap(k - last - 1, "identical chunks"))
        x, y, alike = lefts[k], rights[k], bool(same[k])
        lt = shown(left, x) if x >= 0 else None
        rt = lt if alike else shown(right, y) if y >= 0 else None
        at = left.line(x) if x >= 0 else right.line(y) if y >= 0 else None
        out.append(ChunkRow(at, lt, rt, alike))
        last = k
    if out and last < rows - 1:
        out.append(Gap(rows - 1 - last, "identical chunks" if differing else "chunks"))
    return out, differing


_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


class _Mark(msgspec.Struct, frozen=True):
    """A field an excerpt points at: ``value`` as the line sends it (``UNSET``: not on it)."""

    line: int
    field: str
    value: Any
    label: str


def _marks(trace: Trace, count: int) -> list[_Mark]:
    """What the raw excerpts of the first ``count`` lines marked point at: each flag, and
    each call the fix refuses without a flag (never identified) on its first delta. Only
    those lines' marks are made (100,000 flags' labels were a report's peak memory)."""
    a = trace.analysis
    never = _never_identified(trace)
    lines = set(heapq.nsmallest(count, {f.line for f in a.flags} | {c.first_line for c in never}))
    marks = [
        _Mark(
            f.line,
            f.field,
            f.value,
            f"{f.label} on {_call_name(f.call)} by {_cut(describe_value(f.value), 40)}",
        )
        for f in a.flags
        if f.line in lines
    ]
    for ct in never:
        if ct.first_line not in lines:
            continue
        row = ct.rows(0, 1)[0]
        for fld in unidentified(*ct.final(ACCEPT)):
            value = row.raw_id if fld == "id" else row.raw_name
            said = "no " + fld if value is UNSET else f"{fld} {_cut(describe_value(value), 40)}"
            label = f"{_call_name(ct.wire_index)} never identified: {said} on its first delta"
            marks.append(_Mark(ct.first_line, fld, value, label))
    return marks


def _never_identified(trace: Trace) -> list[CallTrace]:
    """The calls no delta gave a non-empty id or name (the fix refuses them, unflagged)."""
    return [ct for ct in trace.analysis.calls if unidentified(*ct.final(ACCEPT)) and not ct.flags]


def _excerpts(trace: Trace, limits: Limits) -> tuple[list[Excerpt], int]:
    """The raw capture around each flagged payload (one excerpt per line flagged), and
    around the first delta of each call never identified: each line a window around the
    field that erased (or lacks) the identity, wherever it stands in the line, that field
    marked, with its column."""
    by_line: dict[int, list[_Mark]] = {}
    for m in _marks(trace, limits.excerpts):
        by_line.setdefault(m.line, []).append(m)
    lines_wanted = sorted(by_line)[: limits.excerpts]
    if not lines_wanted:
        return [], 0
    top = lines_wanted[-1] + limits.context
    raw = trace.raw
    shown_lines = {
        n for line in lines_wanted for n in range(line - limits.context, line + limits.context + 1)
    }
    # The start and end of each line shown (not of every line before the last: a flag on line
    # 150,000 made 150,000 of them), and how many lines there are up to the last shown.
    bounds: dict[int, tuple[int, int]] = {}
    count = at = 0
    for brk in _LINE_BREAK.finditer(raw):
        if count >= top:
            break
        count += 1
        if count in shown_lines:
            bounds[count] = (at, brk.start())
        at = brk.end()
    if count < top and at < len(raw):
        count += 1
        bounds[count] = (at, len(raw))
    width = max(100, limits.cell)

    def text_of(n: int, chars: int) -> str:
        """Line ``n``'s first ``chars`` characters or more (all when it is shorter): a 50 MB
        line is not decoded whole to show a window of it."""
        a, b = bounds[n]
        text = raw[a : min(b, a + chars + 1)].decode("utf-8", "replace")
        if len(text) <= chars and a + chars + 1 < b:  # multi-byte characters: read on
            text = raw[a : min(b, a + 4 * chars + 4)].decode("utf-8", "replace")
        return visible(text)

    out = []
    for line in lines_wanted:
        lo, hi = max(1, line - limits.context), min(count, line + limits.context)
        flagged_text = text_of(line, _FLAGGED_CHARS)
        spots = find_spots(flagged_text, [(m.field, m.value) for m in by_line[line]])
        first = spots[0][0] if spots else max(0, flagged_text.find("tool_calls"))
        start = max(0, min(first - width * 2 // 5, len(flagged_text) - width)) if first else 0
        shown = []
        for n in range(lo, hi + 1):
            text = flagged_text
            if n != line:
                text = text_of(n, start + width + 1)
            shown.append(_window(n, text, start, width, spots if n == line else [], n == line))
        what = ", ".join(m.label for m in by_line[line])
        where = f"line {line}"
        if spots:
            cols = ", ".join(str(a + 1) for a, _ in spots)
            where += f", column{'s' if len(spots) > 1 else ''} {cols}"
        out.append(Excerpt(f"{where}: {visible(what)}", shown, [a + 1 for a, _ in spots]))
    return out, len(by_line) - len(lines_wanted)


_FLAGGED_CHARS = 1 << 20
"""Characters of a flagged line searched for the erasing field (a delta's identity comes
before a huge arguments fragment; a longer line is read this far)."""


def _window(
    number: int, text: str, start: int, width: int, spots: list[tuple[int, int]], flagged: bool
) -> RawLine:
    """Columns ``start`` to ``start + width`` of a line, "…" where it was cut."""
    piece = text[start : start + width]
    head = "…" if start > 0 and text else ""
    tail = "…" if start + width < len(text) else ""
    shift = len(head) - start
    kept = [
        (max(a + shift, len(head)), min(b + shift, len(head) + len(piece)))
        for a, b in spots
        if a < start + width and b > start
    ]
    return RawLine(number, head + piece + tail, flagged, kept, bool(head))


def find_spots(text: str, fields: list[tuple[str, Any]]) -> list[tuple[int, int]]:
    """Where in a raw line each flag's field stands: ``"id": null`` and the like, inside
    ``tool_calls`` (the chunk's own ``id`` comes before it), as ``(start, end)``; one spot
    per flag, in order of the line (a field not found is left out)."""
    calls_at = text.find("tool_calls")
    if calls_at < 0:
        return []
    spots: list[tuple[int, int]] = []
    used: dict[str, int] = {}
    for fld, value in fields:
        if value is UNSET:
            continue
        pattern = _FIELD[fld]
        at = used.get(fld, calls_at)
        for m in pattern.finditer(text, at):
            if _value_matches(m.group("value"), value):
                spots.append((m.start(), m.end()))
                used[fld] = m.end()
                break
    return sorted(spots)


_VALUE = r'(?P<value>null|true|false|-?[0-9][0-9.eE+-]*|\\?"(?:[^"\\]|\\.)*?\\?"|[\[{])'
_FIELD = {
    "id": re.compile(r'\\?"id\\?"\s*:\s*' + _VALUE),
    "name": re.compile(r'\\?"name\\?"\s*:\s*' + _VALUE),
}


def _value_matches(raw: str, value: Any) -> bool:
    """Whether a value as written on the line is the flag's (a quoted value inside a
    chunk log's string is escaped; nested values are only matched by their opening)."""
    if raw in ("[", "{"):
        return isinstance(value, list | dict)
    if value is None:
        return raw == "null"
    if isinstance(value, str):
        inner = raw.replace('\\"', '"')
        return inner in (jsontext.dumps(value), json.dumps(value))
    return raw == jsontext.dumps(value)


def _clients(trace: Trace) -> list[ClientRow]:
    # The one import of the client-library layer in this package (it is being renamed to
    # replay_tui.clientlibs): change it here and only here.
    from ..clientlibs import assess

    return [
        ClientRow(
            visible(o.policy.library),
            o.policy.kind,
            o.ok,
            _cut(visible(o.outcome), 300),
            _cut(visible(o.cause), 300),
        )
        for o in assess(trace).values()
    ]
