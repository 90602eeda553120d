"""``replay-tui diff A B``: what a gateway changed between two captures of one request.

The first line says whether the agent would see the same outcome under the chosen behavior
(and if not, the first difference); then the three levels in detail. Exit status: 0 same
outcome, 1 different outcome, 2 on error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import IO, Any, TypeVar

from replay_tui.core import jsontext
from replay_tui.core.diff import (
    ROW_ATTRIBUTES,
    VOLATILE_KEYS,
    CallDiff,
    CallRow,
    Difference,
    EventRow,
    TraceDiff,
    diff_json,
    diff_traces,
    render_value,
)
from replay_tui.core.identity import DeltaRow
from replay_tui.core.translator import Behavior
from replay_tui.core.visible import visible

from ..core.words import plural
from .errors import EXIT_FINDINGS, EXIT_OK, UsageError
from .traces import resolve_trace

__all__ = ["HELP", "configure", "run", "write_report"]

HELP = (
    "Compare two captures of the same request (directly from the provider and through"
    " a gateway, or before and after a gateway upgrade) at three levels: the outcome the"
    " agent receives, each tool call's identity evolution, and the payloads, aligned on"
    " content. Exit status: 0 when the outcomes are the same under the chosen behavior,"
    " 1 when they differ, 2 on error."
)
_DEFAULT_LIMIT = 20
T = TypeVar("T")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A", help="the first trace (FILE or FILE.har#N)")
    parser.add_argument("b", metavar="B", help="the second trace")
    parser.add_argument(
        "--behavior",
        choices=[b.value for b in Behavior],
        default=Behavior.ACCEPT_IDENTITY.value,
        help="identity handling the outcome is judged under (default: accept-identity, the fix)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON document (see docs/diff.md)"
    )
    parser.add_argument(
        "--include-volatile",
        action="store_true",
        help=f"also compare the per-request values ({', '.join(VOLATILE_KEYS)} of each chunk)",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=_DEFAULT_LIMIT,
        metavar="N",
        help=f"list at most N differences per section (default {_DEFAULT_LIMIT}; 0: all)",
    )


def run(args: argparse.Namespace) -> int:
    """Compare the two traces; 0 same outcome, 1 different (the core pauses the collector)."""
    if args.limit < 0:
        raise UsageError("--limit must be 0 or more")
    a = resolve_trace(args.a)
    b = resolve_trace(args.b)
    try:
        diff = diff_traces(a, b, include_volatile=args.include_volatile)
    except MemoryError:
        raise UsageError("diff: the traces are too large to compare in memory") from None
    same = diff.outcome(args.behavior).same
    if args.json:
        out = sys.stdout.buffer
        out.write(jsontext.encode(diff_json(diff, args.behavior)))
        out.write(b"\n")
        out.flush()
    else:
        write_report(diff, Behavior(args.behavior), sys.stdout, limit=args.limit)
    return EXIT_OK if same else EXIT_FINDINGS


# --- the human report --------------------------------------------------------------------------


def write_report(diff: TraceDiff, behavior: Behavior, out: IO[str], *, limit: int) -> None:
    """The human report: the outcome in one line, then outcome, calls and events in detail."""
    od = diff.outcome(behavior)
    a, b = diff.a, diff.b
    lines = [visible(od.headline())]
    lines.append(f"  A  {visible(a.address)}  ({od.a.verdict})")
    lines.append(f"  B  {visible(b.address)}  ({od.b.verdict})")

    lines.append("")
    n = len(od.differences)
    lines.append(f"outcome under {behavior.value}: " + (plural(n, "difference") if n else "same"))
    lines += _limited(od.differences, _difference_line, limit)

    changed = diff.changed_calls
    lines.append("")
    total = len(diff.calls)
    if not total:
        lines.append("calls: none in either trace")
    else:
        lines.append(
            f"calls: {len(changed):,} of {total:,} differ" if changed else f"calls: {total:,} same"
        )
    for c in changed:
        lines += _call_lines(c, limit)

    rows = diff.events.rows
    differing = diff.events.differences
    lines.append("")
    volatile = (
        "per-request values compared"
        if diff.include_volatile
        else "per-request values ignored; --include-volatile compares them"
    )
    lines.append(
        f"events: {len(differing):,} of {plural(len(rows), 'row')} differ ({volatile})"
        if differing
        else f"events: {plural(len(rows), 'row')}, all same ({volatile})"
    )
    lines += _limited(differing, _event_line, limit)
    out.write("\n".join(lines) + "\n")
    out.flush()


def _limited(items: Sequence[T], render: Callable[[T], str], limit: int) -> list[str]:
    """``render`` applied to the first ``limit`` items only (0: all), and how many were left."""
    if limit and len(items) > limit:
        return [
            *map(render, items[:limit]),
            f"  … {len(items) - limit:,} more (--limit 0 lists all, --json has all)",
        ]
    return list(map(render, items))


def _loc(side: str, line: int | None, *, eof: bool = False) -> str:
    if line is None:
        return f"{side}:EOF" if eof else f"{side}:-"
    return f"{side}:{line}"


def _difference_line(d: Difference, indent: str = "  ") -> str:
    eof = d.kind == "finish"
    where = f"{_loc('A', d.a_line, eof=eof):<9} {_loc('B', d.b_line, eof=eof):<9}"
    return f"{indent}{where} {d.text()}"


def _call_lines(c: CallDiff, limit: int) -> list[str]:
    lines = [f"  call {c.call}"]
    lines += [_difference_line(d, "    ") for d in c.differences]
    lines += _limited(c.changed_rows, _call_row_line, limit)
    return lines


def _call_row_line(r: CallRow) -> str:
    da = r.a.delta if r.a else None
    db = r.b.delta if r.b else None
    delta = f"delta {da if da is not None else '-'} vs {db if db is not None else '-'}"
    where = f"{_loc('A', r.a.line if r.a else None):<9} {_loc('B', r.b.line if r.b else None):<9}"
    if r.status == "changed":
        what = "; ".join(_row_change(label, r.a, r.b) for label in r.changes)
    elif r.status == "only-a":
        what = "only in A: " + _delta_summary(r.a)
    else:
        what = "only in B: " + _delta_summary(r.b)
    return f"    {where} {delta:<12} {what}"


def _row_change(label: str, ra: DeltaRow | None, rb: DeltaRow | None) -> str:
    attr = ROW_ATTRIBUTES[label]
    va: Any = getattr(ra, attr)
    vb: Any = getattr(rb, attr)
    return f"{label}: {render_value(va, 'identity')} vs {render_value(vb, 'identity')}"


def _delta_summary(row: DeltaRow | None) -> str:
    if row is None:
        return ""
    return (
        f"id {render_value(row.raw_id, 'identity')}, name {render_value(row.raw_name, 'identity')},"
        f" arguments {render_value(row.arguments, 'identity')}"
    )


def _lines(side: str, lines: tuple[int, ...]) -> str:
    if not lines:
        return ""
    if len(lines) == 1:
        return f"{side}:{lines[0]}"
    if len(lines) > 3 and lines[-1] - lines[0] + 1 <= 2 * len(lines):
        return f"{side}:{lines[0]}-{lines[-1]}"
    shown = ",".join(map(str, lines[:3]))
    return f"{side}:{shown}{',…' if len(lines) > 3 else ''}"


def _event_line(r: EventRow) -> str:
    where = f"{_lines('A', r.a_lines):<11} {_lines('B', r.b_lines):<11}"
    status = r.status if r.kind == "payload" else f"{r.status} comment"
    if r.status == "changed":
        parts = [
            f"{visible(f.path) or 'payload'}: {render_value(f.a, 'identity')} vs"
            f" {render_value(f.b, 'identity')}"
            for f in r.fields
        ]
        if r.more_fields:
            parts.append(f"+{r.more_fields} more")
        what = "; ".join(parts)
    else:
        what = visible(r.note)
        if r.inert and r.kind == "payload":
            what += " (keep-alive?)"
    if not r.replayed and r.kind == "payload":
        what += " [not replayed]"
    return f"  {status:<14} {where} {what}"
