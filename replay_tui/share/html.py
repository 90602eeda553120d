"""The report as one self-contained HTML page.

Inline CSS only, no script, no external resource of any kind (a Content-Security-Policy of
``default-src 'none'`` says so to the browser too, so even a mistake here could not load or run
anything); light and dark through ``prefers-color-scheme``; tables scroll sideways on a phone
and break across pages when printed. Every string from the trace goes through :func:`_e`.
"""

from __future__ import annotations

import html

from ..core.verdicts import is_clean
from ..core.words import plural
from .report import (
    CallSection,
    ChunkRow,
    Gap,
    RawLine,
    Report,
    Repro,
    Span,
    TraceReport,
    calls_left_out,
    folder_finding,
)

__all__ = ["render_html"]

_CSS = """
:root{--bg:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d1d9e0;--head:#f6f8fa;--code:#eff2f5;
--bad:#cf222e;--bad-bg:#ffebe9;--ok:#1a7f37;--ok-bg:#dafbe1;--warn:#9a6700;--warn-bg:#fff8c5;
--mark:#fff1a8;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;
--line:#3d444d;--head:#151b23;--code:#262c36;--bad:#ff7b72;--bad-bg:#3c1618;--ok:#3fb950;
--ok-bg:#122d1a;--warn:#d29922;--warn-bg:#3a2d0b;--mark:#5a4a00}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,
"Segoe UI",sans-serif}
main{max-width:1200px;margin:0 auto;padding:16px}
h1{font-size:1.4em;margin:.2em 0 .6em;overflow-wrap:anywhere}
h2{font-size:1.2em;border-bottom:1px solid var(--line);padding-bottom:.2em;margin-top:2em;
overflow-wrap:anywhere}
h3{font-size:1em;margin:1.4em 0 .4em}
h4{font-size:.95em;font-weight:600;margin:1em 0 .3em;overflow-wrap:anywhere}
code,pre,td.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em}
code{background:var(--code);padding:.1em .3em;border-radius:4px;overflow-wrap:anywhere}
code.nb{white-space:nowrap}
li,p{overflow-wrap:anywhere}
.headline{font-size:1.08em;padding:.6em .8em;border-left:4px solid var(--bad);
background:var(--bad-bg);border-radius:4px}
.headline.clean{border-color:var(--ok);background:var(--ok-bg)}
.muted,.gap td{color:var(--muted)}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.3em 0;font-size:.9em}
th,td{border:1px solid var(--line);padding:.25em .5em;text-align:left;vertical-align:top}
th{background:var(--head)}
td.mono{white-space:pre-wrap;overflow-wrap:anywhere;max-width:36em}
tr.erasing td{background:var(--bad-bg)}
tr.erasing td.flag{color:var(--bad);font-weight:700}
tr.differ td{background:var(--warn-bg)}
.gap td{font-style:italic;text-align:center}
.badge{display:inline-block;font-size:.75em;font-weight:600;padding:.05em .5em;
border-radius:1em;border:1px solid currentColor;vertical-align:middle}
.badge.erasing,.badge.broken,.v-bad{color:var(--bad)}
.badge.refused{color:var(--warn)}
.badge.clean,.v-ok{color:var(--ok)}
pre{background:var(--code);padding:.5em;overflow-x:auto;border-radius:4px;line-height:1.35}
pre .ln{color:var(--muted);user-select:none}
pre mark{background:var(--mark);color:inherit;display:inline-block;min-width:100%}
pre .spot{color:var(--bad);background:var(--bad-bg);outline:2px solid var(--bad);
border-radius:2px;font-weight:700}
details summary{cursor:pointer}
.changes li{margin-bottom:.6em}.changes p{margin:.15em 0}
.back{font-size:.7em;font-weight:400;white-space:nowrap}
footer{margin-top:3em;color:var(--muted);font-size:.85em}
@media (max-width:600px){body{font-size:14px}main{padding:8px}}
@media print{body{background:#fff;color:#000;font-size:11pt}.scroll{overflow:visible}
td.mono{max-width:none}section{break-before:page}section:first-of-type{break-before:auto}
tr{break-inside:avoid}a{color:inherit}.back{display:none}h2,h3,h4{break-after:avoid}
pre,.changes li{break-inside:avoid}pre{white-space:pre-wrap;overflow-wrap:anywhere}
pre .spot{outline:none;text-decoration:underline 2px;background:none}}
"""


def _e(text: str) -> str:
    """Escape for HTML text and attribute values alike."""
    return html.escape(text, quote=True)


def _cause(cause: str) -> str:
    """A client's cause under its outcome (the field that made it throw), escaped."""
    return f'<br><span class="muted">{_e(cause)}</span>' if cause else ""


def _spans(spans: list[Span]) -> str:
    return "".join(_code(t) if code else _e(t) for t, code in spans)


def _code(text: str) -> str:
    """A code span; a short one (``""``, ``id:null``) never breaks across lines."""
    short = ' class="nb"' if len(text) <= 24 else ""
    return f"<code{short}>{_e(text)}</code>"


def _verdict_class(verdict: str) -> str:
    return "v-ok" if verdict == "ok" else "v-bad"


def render_html(report: Report) -> str:
    """The whole page."""
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\';'
        " style-src 'unsafe-inline'\">",
        '<meta name="color-scheme" content="light dark">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>replay-tui report: {_e(report.title)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>replay-tui report: <code>{_e(report.title)}</code></h1>",
    ]
    if report.folder:
        out += _summary(report)
    for trace in report.traces:
        if trace.full:  # (past the report's limit: a row of the table only)
            out += _trace(trace, report.folder)
    out.append(
        "<footer>Written by replay-tui: each trace replayed through the harness translator under"
        " assign-always (the old code: any delta carrying <code>id</code> or"
        " <code>function.name</code> assigns it) and accept-identity (the fix: only a non-empty"
        " string is taken). This page runs no script and loads nothing.</footer>"
    )
    out.append("</main></body></html>")
    return "\n".join(out) + "\n"


def _summary(report: Report) -> list[str]:
    clean = all(t.badge == "clean" for t in report.traces)
    out = [
        f'<p class="headline{" clean" if clean else ""}">{_spans(folder_finding(report))}</p>',
        '<div class="scroll"><table id="toc"><thead><tr><th>trace</th><th>badge</th>'
        "<th>assign-always</th><th>accept-identity</th><th>flags</th></tr></thead><tbody>",
    ]
    for t in report.traces:
        va, vb = t.verdicts[0].verdict, t.verdicts[1].verdict
        out.append(
            f"<tr><td>{_linked(t)}</td>"
            f'<td><span class="badge {_e(t.badge)}">{_e(t.badge)}</span></td>'
            f'<td class="{_verdict_class(va)}">{_e(va)}</td>'
            f'<td class="{_verdict_class(vb)}">{_e(vb)}</td><td>{t.flags}</td></tr>'
        )
    out.append("</tbody></table></div>")
    if report.skipped:
        out.append("<details><summary>Skipped files</summary><ul>")
        out += [f"<li><code>{_e(p)}</code>: {_e(r)}</li>" for p, r in report.skipped]
        out.append("</ul></details>")
    return out


def _linked(t: TraceReport) -> str:
    """A trace's name in the table: a link to its section, when it has one."""
    name = f"<code>{_e(t.address)}</code>"
    return f'<a href="#{t.anchor}">{name}</a>' if t.full else name


def _trace(t: TraceReport, folder: bool) -> list[str]:
    clean = is_clean(t.flags, (v.verdict for v in t.verdicts))
    out = [f'<section id="{_e(t.anchor)}">']
    if folder:
        out.append(
            f'<h2><code>{_e(t.address)}</code> <span class="badge {_e(t.badge)}">'
            f'{_e(t.badge)}</span> <a class="back" href="#toc">↑ all traces</a></h2>'
        )
    else:
        out.append(f'<p><span class="badge {_e(t.badge)}">{_e(t.badge)}</span></p>')
    out.append(f'<p class="headline{" clean" if clean else ""}">{_spans(t.headline)}</p>')
    if t.changes:
        out.append('<h3>What to change</h3><ol class="changes">')
        for change in t.changes:
            out.append(
                f"<li><p>{_spans(change.sent)}.</p>"
                f"<p><b>Expected:</b> {_spans(change.should)}.</p>"
                f"<p><b>What the agent saw:</b> {_spans(change.saw)}.</p></li>"
            )
        out.append("</ol>")
    if t.repro is not None:
        out += _repro(t.repro)
    out += [
        "<h3>Verdicts</h3>",
        '<div class="scroll"><table><thead><tr><th>behavior</th><th>verdict</th><th>finish</th>'
        "<th>what it meant in the harness</th></tr></thead><tbody>",
    ]
    for v in t.verdicts:
        out.append(
            f'<tr><td>{_e(v.behavior)}</td><td class="{_verdict_class(v.verdict)}"><b>'
            f'{_e(v.verdict)}</b></td><td class="mono">{_e(v.finish)}</td>'
            f'<td>{_e(v.consequence)}<br><span class="muted">{_e(v.when)}</span></td></tr>'
        )
    out.append("</tbody></table></div>")
    out += ["<h3>Capture</h3>", '<div class="scroll"><table><tbody>']
    out += [f'<tr><th>{_e(k)}</th><td class="mono">{_e(v)}</td></tr>' for k, v in t.meta]
    out.append("</tbody></table></div>")
    if t.notes:
        out.append("<h3>Notes</h3><ul>")
        for line, message in t.notes:
            where = f"line {line}: " if line is not None else ""
            out.append(f"<li>{_e(where)}{_e(message)}</li>")
        out.append("</ul>")
    if t.calls:
        out.append("<h3>Tool calls: identity delta by delta</h3>")
        for call in t.calls:
            out += _call(call)
        if t.calls_left_out:
            out.append(f'<p class="muted">{_e(calls_left_out(t))}</p>')
    out += _chunks(t)
    if t.excerpts:
        out.append("<h3>Raw capture around each flag</h3>")
        for ex in t.excerpts:
            out.append(f"<h4>{_e(ex.title)}</h4><pre>")
            width = len(str(ex.lines[-1].number)) if ex.lines else 1
            for raw in ex.lines:
                body = f'<span class="ln">{raw.number:>{width}} │ </span>{_spotted(raw)}'
                out.append(f"<mark>{body}</mark>" if raw.flagged else body)
            out.append("</pre>")
        if t.excerpts_left_out:
            out.append(f'<p class="muted">{t.excerpts_left_out} more flagged lines not shown.</p>')
    if t.clients is not None:
        out += [
            "<h3>Client libraries</h3>",
            '<div class="scroll"><table><thead><tr><th>library</th><th>kind</th><th>outcome</th>'
            "</tr></thead><tbody>",
        ]
        for c in t.clients:
            cls = "" if c.ok else ' class="erasing"'
            out.append(
                f"<tr{cls}><td>{_e(c.library)}</td><td>{_e(c.kind)}</td>"
                f'<td class="flag">{_e(c.outcome)}{_cause(c.cause)}</td></tr>'
            )
        out.append("</tbody></table></div>")
    out.append("</section>")
    return out


def _repro(r: Repro) -> list[str]:
    how = "1-minimal" if r.minimal else "the smallest found in the time given"
    cut = f"\n… {r.cut:,} more characters" if r.cut else ""
    return [
        "<h3>Steps to reproduce</h3><ol>",
        f"<li>Save this capture as <code>{_e(r.name)}</code> (the finding cut from"
        f" {r.events[0]:,} events to {r.events[1]:,} by <code>replay-tui minimize</code>,"
        f" {how}):<pre>{_e(r.capture)}{_e(cut)}</pre></li>",
        f"<li>Run <code>{_e(r.command)}</code>.</li></ol>",
        "<h3>Expected / actual</h3><ul>",
        f"<li><b>Expected:</b> {_spans(r.expected)}.</li>",
        f"<li><b>Actual:</b> {_spans(r.actual)}.</li></ul>",
    ]


def _spotted(raw: RawLine) -> str:
    """A raw line, each field that erased an identity highlighted (escaped piece by piece)."""
    out, at = [], 0
    for a, b in raw.spots:
        out += [_e(raw.text[at:a]), f'<strong class="spot">{_e(raw.text[a:b])}</strong>']
        at = b
    out.append(_e(raw.text[at:]))
    return "".join(out)


def _call(call: CallSection) -> list[str]:
    out = [
        f'<h4>{_e(call.title)} <span class="muted">({plural(call.deltas, "delta")})</span></h4>',
        '<div class="scroll"><table><thead><tr><th>delta</th><th>line</th><th>id as sent</th>'
        "<th>name as sent</th><th>arguments</th><th>assign-always id / name</th>"
        "<th>accept-identity id / name</th><th>flag</th></tr></thead><tbody>",
    ]
    for row in call.rows:
        if isinstance(row, Gap):
            out.append(_gap(row, 8))
            continue
        cls = ' class="erasing"' if row.flags else ""
        flag = "⚠ " + _e("; ".join(row.flags)) if row.flags else ""
        out.append(
            f"<tr{cls}><td>{row.delta}</td><td>{row.line}</td>"
            f'<td class="mono">{_e(row.raw_id)}</td><td class="mono">{_e(row.raw_name)}</td>'
            f'<td class="mono">{_e(row.arguments)}</td><td class="mono">{_e(row.assign)}</td>'
            f'<td class="mono">{_e(row.accept)}</td><td class="flag">{flag}</td></tr>'
        )
    out.append("</tbody></table></div>")
    return out


def _chunks(t: TraceReport) -> list[str]:
    if not t.chunks_differing:
        return [
            "<h3>Chunk streams</h3>",
            '<p class="muted">Both behaviors emit the same chunks.</p>',
        ]
    out = [
        f"<h3>Chunk streams where the behaviors differ ({t.chunks_differing:,} rows)</h3>",
        '<div class="scroll"><table><thead><tr><th>line</th><th>assign-always</th>'
        "<th>accept-identity</th></tr></thead><tbody>",
    ]
    for row in t.chunks:
        if isinstance(row, Gap):
            out.append(_gap(row, 3))
            continue
        out.append(_chunk_row(row))
    out.append("</tbody></table></div>")
    return out


def _chunk_row(row: ChunkRow) -> str:
    cls = "" if row.same else ' class="differ"'
    line = "end" if row.line is None else str(row.line)
    left = _e(row.assign) if row.assign is not None else '<span class="muted">—</span>'
    right = _e(row.accept) if row.accept is not None else '<span class="muted">—</span>'
    return f'<tr{cls}><td>{line}</td><td class="mono">{left}</td><td class="mono">{right}</td></tr>'


def _gap(gap: Gap, columns: int) -> str:
    return f'<tr class="gap"><td colspan="{columns}">{_e(gap.text)}</td></tr>'
