"""The report as GitHub-flavoured Markdown, sized for an issue (under 65,536 characters).

Trace content never reaches Markdown as prose: every value from the trace is a code span (or a
fenced block), whose fence is longer than any backtick run inside it, so nothing in it can
become a link, an image, HTML or formatting. Pipes are escaped inside table cells. Our own
words are backslash-escaped anyway. Long parts sit in ``<details>``; a report still too long
is rebuilt with tighter :class:`~.report.Limits`, then cut between blocks with a note.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from ..core.words import plural
from .report import (
    BADGE_ORDER,
    CallSection,
    Gap,
    Limits,
    Report,
    Repro,
    Span,
    TraceReport,
    calls_left_out,
    folder_finding,
)

__all__ = ["GITHUB_LIMIT", "code", "render_markdown", "sized_markdown"]

GITHUB_LIMIT = 65_536
"""Characters GitHub takes in an issue or comment body."""

TIGHT = Limits(rows_per_call=16, chunk_rows=24, excerpts=4, context=2, cell=60, calls=12)
"""The limits of the second attempt, when the first report is too long for an issue."""

_PUNCT = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~&:\"'$%=^])")
_TICKS = re.compile(r"`+")


def _md(text: str) -> str:
    """Our own prose, every Markdown-significant character escaped."""
    return _PUNCT.sub(r"\\\1", text)


def code(text: str, *, cell: bool = False) -> str:
    """``text`` as an inline code span that shows it literally (``cell``: inside a table)."""
    if not text:
        return "` `"
    runs = [len(m) for m in _TICKS.findall(text)]
    fence = "`" * (max(runs, default=0) + 1)
    if text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " "):
        text = f" {text} "
    if cell:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


def _fenced(lines: list[str]) -> list[str]:
    runs = [len(m) for line in lines for m in _TICKS.findall(line)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return [fence + "text", *lines, fence]


def _spans(spans: list[Span]) -> str:
    return "".join(code(t) if is_code else _md(t) for t, is_code in spans)


def _details(summary: str, body: list[str], *, open_: bool = False) -> list[str]:
    """``summary`` is HTML (a raw HTML line: Markdown is not read there), escaped by callers."""
    # A blank line after <summary> lets GitHub read the body as Markdown.
    return [
        f"<details{' open' if open_ else ''}><summary>{summary}</summary>",
        "",
        *body,
        "",
        "</details>",
        "",
    ]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_markdown(report: Report) -> str:
    """The whole document, whatever its length."""
    return "\n".join(b for block in _blocks(report) for b in block)


def sized_markdown(build: Callable[[Limits], Report], limit: int = GITHUB_LIMIT) -> str:
    """The report built by ``build``, fitting in ``limit`` characters (cut with a note)."""
    full = render_markdown(build(Limits()))
    if len(full) <= limit:
        return full
    blocks = _blocks(build(TIGHT))
    note = (
        f"\n> ✂ Cut to fit a GitHub issue: the whole report is {len(full):,} characters"
        f" \\(the limit is {limit:,}\\)\\. `replay-tui report --html` writes all of it\\.\n"
    )
    out: list[str] = []
    size = len(note)
    for k, block in enumerate(blocks):
        text = "\n".join(block)
        if size + len(text) + 1 > limit:
            left = _left_out(blocks[k:], limit - size - 1 - 200)
            cut = _cut_table(block, limit - size - 1 - len(left))
            if cut:
                out.append(cut)
            out.append(left)
            break
        out.append(text)
        size += len(text) + 1
    return "\n".join(out) + note


def _left_out(blocks: list[list[str]], room: int) -> str:
    """A line naming the traces whose sections a cut left out (as many as fit)."""
    heads = [b[0][4:] for b in blocks if b and b[0].startswith("### ")]
    if not heads:
        return ""
    said: list[str] = []
    for k, head in enumerate(heads):
        more = len(heads) - k
        if sum(len(h) + 2 for h in said) + len(head) + 80 > max(room, 0) // 2:
            said.append(f"… {more:,} more")
            break
        said.append(head)
    return f"\n> Left out by the cut: {', '.join(said)}\\.\n"


def _cut_table(block: list[str], room: int) -> str:
    """A table block (a folder's 5,000 traces) cut to its first rows that fit in ``room``,
    with a last row saying how many are left out; "" for a block that is not a table or
    leaves no room for a row (a cut before it, as between any two blocks)."""
    rows = [line for line in block if line.startswith("| ")]
    if len(rows) < 3 or not block[0].startswith("| "):
        return ""
    head, body = rows[:2], rows[2:]
    columns = head[0].count(" | ") + 1
    kept: list[str] = []
    size = sum(len(line) + 1 for line in head)
    for k, line in enumerate(body):
        left = len(body) - k
        more = _row(
            [f"… {left:,} more \\(`replay-tui report --html` lists them\\)"] + [""] * (columns - 1)
        )
        if size + len(line) + 1 + len(more) + 1 > room:
            return "\n".join([*head, *kept, more, ""])
        kept.append(line)
        size += len(line) + 1
    return "\n".join([*head, *kept, ""])


def _blocks(report: Report) -> list[list[str]]:
    """Self-contained pieces (a cut between two never breaks a table, fence or details)."""
    blocks: list[list[str]] = [[f"## replay\\-tui report: {code(report.title)}", ""]]
    if report.folder:
        blocks.append([f"**{_spans(folder_finding(report))}**", ""])
        rows = [
            _row(["trace", "badge", "assign\\-always", "accept\\-identity", "flags"]),
            _row(["---"] * 5),
        ]
        for t in report.traces:
            rows.append(
                _row(
                    [
                        code(t.address, cell=True),
                        _md(t.badge),
                        code(t.verdicts[0].verdict, cell=True),
                        code(t.verdicts[1].verdict, cell=True),
                        str(t.flags),
                    ]
                )
            )
        blocks.append([*rows, ""])
        if report.skipped:
            body = [f"- {code(p)}: {code(r)}" for p, r in report.skipped]
            blocks.append(_details(f"Skipped files ({len(report.skipped)})", body))
    # A folder's erasing and refused traces first: a cut to fit an issue keeps them.
    order = {badge: k for k, badge in enumerate(BADGE_ORDER)}
    shown = sorted(report.traces, key=lambda t: order.get(t.badge, len(order)))
    for t in shown if report.folder else report.traces:
        if t.full:  # (past the report's limit: a row of the table only)
            blocks += _trace(t, report.folder)
    blocks.append(
        [
            "<sub>Written by replay-tui: the capture replayed through the harness translator"
            " under assign-always (the old code) and accept-identity (the fix).</sub>",
            "",
        ]
    )
    return blocks


def _trace(t: TraceReport, folder: bool) -> list[list[str]]:
    blocks: list[list[str]] = []
    head: list[str] = []
    if folder:
        head += [f"### {code(t.address)} \\({_md(t.badge)}\\)", ""]
    head += [f"**{_spans(t.headline)}**", ""]
    if t.changes:
        head += ["**What to change**", ""]
        for k, c in enumerate(t.changes, 1):
            head += [
                f"{k}\\. {_spans(c.sent)}\\.",
                f"   - **Expected:** {_spans(c.should)}\\.",
                f"   - **What the agent saw:** {_spans(c.saw)}\\.",
                "",
            ]
    head += [
        _row(["behavior", "verdict", "finish", "what it meant in the harness"]),
        _row(["---"] * 4),
    ]
    for v in t.verdicts:
        head.append(
            _row(
                [
                    _md(v.behavior),
                    "**" + code(v.verdict, cell=True) + "**",
                    code(v.finish, cell=True),
                    _md(v.consequence).replace("|", "\\|"),
                ]
            )
        )
    if t.repro is not None:
        head += _repro(t.repro)
    blocks.append([*head, ""])
    meta = [_row(["field", "value"]), _row(["---", "---"])]
    meta += [_row([_md(k), code(v, cell=True)]) for k, v in t.meta]
    blocks.append(_details("Capture", meta))
    if t.notes:
        notes = [
            f"- {'line ' + str(line) + ': ' if line is not None else ''}{code(message)}"
            for line, message in t.notes
        ]
        blocks.append(_details(f"Notes ({len(t.notes)})", notes))
    for call in t.calls:
        blocks.append(_call(call))
    if t.calls_left_out:
        blocks.append([f"_{_md(calls_left_out(t))}_", ""])
    if t.chunks_differing:
        rows = [_row(["line", "assign\\-always", "accept\\-identity"]), _row(["---"] * 3)]
        for row in t.chunks:
            if isinstance(row, Gap):
                rows.append(_row(["", f"_{_md(row.text)}_", ""]))
                continue
            rows.append(
                _row(
                    [
                        "end" if row.line is None else str(row.line),
                        code(row.assign, cell=True) if row.assign is not None else "—",
                        (
                            ("" if row.same else "⚠ ") + code(row.accept, cell=True)
                            if row.accept is not None
                            else "—"
                        ),
                    ]
                )
            )
        blocks.append(
            _details(
                f"Chunk streams where the behaviors differ ({t.chunks_differing:,} rows)", rows
            )
        )
    if t.excerpts:
        body: list[str] = []
        for ex in t.excerpts:
            width = len(str(ex.lines[-1].number)) if ex.lines else 1
            body += [code(ex.title), ""]
            lines: list[str] = []
            for raw in ex.lines:
                prefix = f"{'>' if raw.flagged else ' '}{raw.number:>{width}} │ "
                lines.append(prefix + raw.text)
                if raw.spots:
                    lines.append(_carets(len(prefix), raw.spots, ex.columns))
            body += _fenced(lines)
            body.append("")
        if t.excerpts_left_out:
            body.append(f"_{t.excerpts_left_out} more flagged lines not shown\\._")
        blocks.append(_details("Raw capture around each flag", body, open_=True))
    if t.clients is not None:
        rows = [_row(["library", "kind", "outcome"]), _row(["---"] * 3)]
        rows += [
            _row(
                [
                    code(c.library, cell=True),
                    _md(c.kind),
                    ("" if c.ok else "⚠ ")
                    + code(c.outcome, cell=True)
                    + (" · " + code(c.cause, cell=True) if c.cause else ""),
                ]
            )
            for c in t.clients
        ]
        broken = sum(1 for c in t.clients if not c.ok and c.kind == "library")
        blocks.append(_details(f"Client libraries ({broken} break)", rows))
    return blocks


def _repro(r: Repro) -> list[str]:
    how = "1\\-minimal" if r.minimal else "the smallest found in the time given"
    lines = r.capture.split("\n")
    if r.cut:
        lines.append(f"… {r.cut:,} more characters")
    return [
        "**Steps to reproduce**",
        "",
        f"1\\. Save this capture as {code(r.name)} \\(the finding cut from {r.events[0]:,}"
        f" events to {r.events[1]:,} by `replay-tui minimize`, {how}\\)\\:",
        "",
        *_fenced(lines),
        "",
        f"2\\. Run {code(r.command)}\\.",
        "",
        "**Expected / actual**",
        "",
        f"- **Expected:** {_spans(r.expected)}\\.",
        f"- **Actual:** {_spans(r.actual)}\\.",
        "",
    ]


def _carets(indent: int, spots: list[tuple[int, int]], columns: list[int]) -> str:
    """A line of carets under each spot of the line above, then its columns."""
    line = ""
    for a, b in spots:
        line += " " * (indent + a - len(line)) + "^" * (b - a)
    cols = ", ".join(str(c) for c in columns)
    return f"{line} column{'s' if len(columns) > 1 else ''} {cols}"


def _call(call: CallSection) -> list[str]:
    rows = [
        _row(
            [
                "delta",
                "line",
                "id as sent",
                "name as sent",
                "arguments",
                "assign\\-always id / name",
                "accept\\-identity id / name",
                "flag",
            ]
        ),
        _row(["---"] * 8),
    ]
    flagged = False
    for row in call.rows:
        if isinstance(row, Gap):
            rows.append(_row(["", "", f"_{_md(row.text)}_", "", "", "", "", ""]))
            continue
        flag = ""
        if row.flags:
            flagged = True
            flag = "**⚠ " + _md("; ".join(row.flags)) + "**"
        rows.append(
            _row(
                [
                    str(row.delta),
                    str(row.line),
                    code(row.raw_id, cell=True),
                    code(row.raw_name, cell=True),
                    code(row.arguments, cell=True),
                    code(row.assign, cell=True),
                    code(row.accept, cell=True),
                    flag,
                ]
            )
        )
    summary = f"<code>{html.escape(call.title)}</code> ({plural(call.deltas, 'delta')})"
    return _details(summary, rows, open_=flagged)
