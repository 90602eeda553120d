"""``report``: the page and the Markdown say the finding, show the evidence, escape the trace."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import msgspec
from markdown_it import MarkdownIt

from replay_tui.cli.traces import resolve_trace
from replay_tui.share.export import render
from replay_tui.share.markdown import GITHUB_LIMIT, code
from replay_tui.share.report import Gap, build_report

from .samples import HOSTILE_ARGS, HOSTILE_ID, HOSTILE_NAME, QWEN, TRACES

Cli = Callable[..., tuple[int, str, str]]

GFM = MarkdownIt("gfm-like", {"html": True, "linkify": True})
"""Close to GitHub's renderer: tables, raw HTML passed through, bare URLs made links."""


def test_headline_says_the_finding_in_one_sentence() -> None:
    report = build_report(resolve_trace(str(QWEN)))
    text = "".join(t for t, _ in report.headline)
    assert text == (
        'A continuation delta of call 0 (line 3) sends id:"", the same pattern as DashScope:'
        ' the old translator closes call 0 with id "" — an empty callId: the saved session'
        " will not load; the fix keeps call_99a5ca83…."
    )
    assert ('id:""', True) in report.headline  # the values are code, not prose


def test_html_report_shows_verdicts_the_erasing_row_and_the_raw_line(cli: Cli) -> None:
    code_, page, _ = cli("report", str(QWEN))
    assert code_ == 0
    assert "<b>unidentified-call</b>" in page and "<b>ok</b>" in page
    erasing = re.findall(r'<tr class="erasing">.*?</tr>', page)
    assert len(erasing) == 1
    assert "<td>2</td><td>3</td>" in erasing[0] and "⚠ erased id" in erasing[0]
    raw_line_3 = QWEN.read_text().splitlines()[2]
    spot = raw_line_3.index('"id":""', raw_line_3.index("tool_calls"))
    marked = re.search(r'<mark><span class="ln">3 │ </span>…(.*?)</mark>', page)
    assert marked is not None
    assert '<strong class="spot">&quot;id&quot;:&quot;&quot;</strong>' in marked.group(1)
    assert raw_line_3[spot - 30 : spot].replace('"', "&quot;") in marked.group(1)
    assert "SessionPersistenceCorruptionError" in page


def test_html_report_is_self_contained() -> None:
    page = render("x", [resolve_trace(str(TRACES / "captures" / "mitmproxy-export.har") + "#4")])
    assert "default-src 'none'" in page
    assert "<script" not in page and "<link" not in page and "<img" not in page
    assert "url(" not in page and "@import" not in page
    assert not re.search(r"\s(src|href)=\"(?!#)", page)  # only in-page links
    assert "prefers-color-scheme:dark" in page and "@media print" in page


def test_hostile_trace_content_stays_text_in_html(hostile: Path, cli: Cli) -> None:
    code_, page, _ = cli("report", str(hostile))
    assert code_ == 0
    assert HOSTILE_NAME not in page and "<img" not in page and "<b>hostile" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in page


def test_hostile_trace_content_stays_literal_in_markdown(hostile: Path, cli: Cli) -> None:
    code_, md, _ = cli("report", str(hostile), "--md")
    assert code_ == 0
    html = GFM.render(md)
    assert "<a " not in html  # no live link, not even a bare URL
    assert "<img" not in html and "<script" not in html and "<b>hostile" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<details") == html.count("</details>") == 5  # "</details>" stayed code
    # the tables still have their columns: no cell was split by a | from the trace
    for table in re.findall(r"<table>.*?</table>", html, re.S):
        widths = {
            len(re.findall(r"<t[dh]", row)) for row in re.findall(r"<tr>.*?</tr>", table, re.S)
        }
        assert len(widths) == 1
    assert HOSTILE_ID not in html


def test_code_spans_survive_backticks_and_pipes() -> None:
    for text in ["`", "a``b", "` x `", "|", "  ", HOSTILE_ARGS.replace("\n", "\\n")]:
        rendered = GFM.render("| " + code(text, cell=True) + " |\n|---|\n")
        inner = re.search(r"<th><code>(.*?)</code></th>", rendered, re.S)
        assert inner is not None, text
        assert (
            inner.group(1)
            == text.replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
            .replace('"', "&quot;")
            or text.strip() == ""
        )


def test_markdown_of_the_bundled_folder_fits_a_github_issue(cli: Cli) -> None:
    code_, md, _ = cli("report", str(TRACES), "--md")
    assert code_ == 0
    assert len(md) <= GITHUB_LIMIT
    assert md.count("<details") == md.count("</details>")
    assert "qwen3-max-id-empty.sse" in md
    # A folder's report opens with its finding in one sentence, as a trace's does.
    assert md.splitlines()[2].startswith(
        "**26 traces\\: 12 erasing, 2 refused, 4 broken, 8 clean; 2 files skipped\\."
        " First erasing\\: `captures/crlf-framed.sse` — A continuation delta of call 0"
    )


def test_a_folder_too_big_for_an_issue_keeps_its_finding_and_the_table_s_first_rows(
    tmp_path: Path,
) -> None:
    """5,000 traces: the table alone was over the limit, so the cut left the title and the
    note, and no trace at all. The table is cut by rows, with a row saying how many are left
    out; the sentence above it still counts them all."""
    from replay_tui.core.discovery import discover
    from replay_tui.core.trace import load_trace
    from replay_tui.share.markdown import sized_markdown
    from replay_tui.share.report import build_reports

    for k in range(40):
        (tmp_path / f"t{k:02}.sse").write_bytes(QWEN.read_bytes())
    traces = [load_trace(s) for s in discover([tmp_path]).sources]
    md = sized_markdown(
        lambda limits: build_reports("many", traces, folder=True, limits=limits), 2_000
    )
    assert len(md) <= 2_000
    lines = md.splitlines()
    assert lines[2].startswith("**40 traces\\: 40 erasing\\. First erasing\\: `t00.sse`")
    table = [line for line in lines if line.startswith("| ")]
    assert table[0].startswith("| trace | badge") and table[2].startswith("| `t00.sse` |")
    shown = len(table) - 3
    assert shown >= 5 and table[-1].startswith(f"| … {40 - shown:,} more ")
    assert "Cut to fit a GitHub issue" in md


def test_markdown_too_long_is_cut_with_a_note(tmp_path: Path, cli: Cli) -> None:
    # 300 calls, each erased: the full report is far over the limit.
    lines = []
    for k in range(300):
        first = f'{{"choices":[{{"delta":{{"tool_calls":[{{"index":{k},"id":"call_{k:04}","function":{{"name":"f{k}","arguments":"{{\\"a\\": {k}"}}}}]}}}}]}}'
        cont = f'{{"choices":[{{"delta":{{"tool_calls":[{{"index":{k},"id":"","function":{{"arguments":"}}"}}}}]}}}}]}}'
        lines += [f"data: {first}\n\n", f"data: {cont}\n\n"]
    path = tmp_path / "many.sse"
    path.write_text("".join(lines) + "data: [DONE]\n\n")
    code_, md, _ = cli("report", str(path), "--md")
    assert code_ == 0
    assert len(md) <= GITHUB_LIMIT
    assert "Cut to fit a GitHub issue" in md
    assert md.count("<details") == md.count("</details>")
    assert md.count("```") % 2 == 0


def test_a_long_call_is_cut_around_its_flags(tmp_path: Path) -> None:
    head = '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}}]}'
    cont = '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"x"}}]}}]}'
    erase = (
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"","function":{"arguments":"x"}}]}}]}'
    )
    body = [head] + [cont] * 5000 + [erase] + [cont] * 5000
    path = tmp_path / "long.sse"
    path.write_text("".join(f"data: {p}\n\n" for p in body) + "data: [DONE]\n\n")
    report = build_report(resolve_trace(str(path)))
    (call,) = report.calls
    assert call.deltas == 10_002
    assert len(call.rows) < 20
    flagged = [r for r in call.rows if not isinstance(r, Gap) and r.flags]
    assert [r.delta for r in flagged] == [5002]
    assert (
        sum(r.count for r in call.rows if isinstance(r, Gap))
        + len(call.rows)
        - sum(1 for r in call.rows if isinstance(r, Gap))
        == 10_002
    )


def test_report_of_a_folder_links_each_trace_section(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "folder.html"
    code_, _, err = cli("report", str(TRACES / "dashscope"), "-o", str(out))
    assert code_ == 0 and "wrote" in err
    page = out.read_text()
    assert page.count('<a href="#t') == 2
    assert '<section id="t1">' in page and '<section id="t2">' in page


def test_clients_matrix_is_added_on_request(cli: Cli) -> None:
    _, page, _ = cli("report", str(QWEN), "--clients")
    assert "<h3>Client libraries</h3>" in page
    _, plain, _ = cli("report", str(QWEN))
    assert "Client libraries" not in plain


def test_a_client_that_throws_is_reported_with_the_field_and_line(cli: Cli) -> None:
    """The outcome, then the field that made the library throw and the payload's line (HTML
    escaped; in Markdown a code span)."""
    litellm = TRACES / "litellm" / "proxy-curl-i.txt"
    _, page, _ = cli("report", str(litellm), "--clients")
    assert (
        '<br><span class="muted">line 14: choices[0].delta.tool_calls[0].type ='
        " &quot;FUNCTION&quot;</span>"
    ) in page
    _, md, _ = cli("report", str(litellm), "--clients", "--md")
    assert '· `line 14: choices[0].delta.tool_calls[0].type = "FUNCTION"`' in md


def test_md_output_name_implies_markdown(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    assert cli("report", str(QWEN), "-o", str(out))[0] == 0
    assert out.read_text().startswith("## replay\\-tui report")


def test_usage_problems_are_one_line_and_exit_2(cli: Cli, tmp_path: Path) -> None:
    code_, out, err = cli("report", str(tmp_path / "missing.sse"))
    assert code_ == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("replay-tui: ")
    code_, _, err = cli("report", str(QWEN), "--html", "--md")
    assert code_ == 2 and err.count("\n") == 1


def test_credentials_in_the_capture_metadata_are_not_shared(tmp_path: Path, cli: Cli) -> None:
    capture = tmp_path / "curl.txt"
    capture.write_bytes(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nset-cookie: session=s3cr3t\r\n"
        b"x-api-key: sk-live-123\r\n\r\n"
        + (TRACES / "dashscope" / "qwen3-max-id-empty.sse").read_bytes()
    )
    (tmp_path / "curl.txt.meta.json").write_text(
        '{"request": {"method": "POST", "url": "https://gw.example/v1/chat?api_key=sk-q&model=m",'
        ' "headers": {"Authorization": "Bearer sk-live-456", "Accept": "text/event-stream"}}}'
    )
    for fmt in ("--html", "--md"):
        code_, text, _ = cli("report", str(capture), fmt)
        assert code_ == 0
        for secret in ("s3cr3t", "sk-live-123", "sk-live-456", "sk-q"):
            assert secret not in text, (fmt, secret)
        assert "[redacted]" in text and "text/event-stream" in text and "model=m" in text
    code_, _, _ = cli("minimize", str(capture), "-o", str(tmp_path / "min.txt"))
    head = (tmp_path / "min.txt").read_bytes().split(b"\r\n\r\n")[0]
    assert code_ == 0 and b"s3cr3t" not in head and b"sk-live-123" not in head
    assert b"set-cookie: [redacted]" in head and b"content-type: text/event-stream" in head


def _many_entries(tmp_path: Path, count: int) -> Path:
    """A HAR export of ``count`` SSE entries (the mitmproxy export's streams, repeated)."""
    import json

    doc = json.loads((TRACES / "captures" / "mitmproxy-export.har").read_text())
    streams = [
        e
        for e in doc["log"]["entries"]
        if "event-stream" in (e["response"]["content"].get("mimeType") or "")
    ]
    doc["log"]["entries"] = [streams[k % len(streams)] for k in range(count)]
    path = tmp_path / "many.har"
    path.write_text(json.dumps(doc))
    return path


def test_a_folder_report_past_its_limit_lists_the_rest_in_its_table_and_says_so(
    cli: Cli, tmp_path: Path
) -> None:
    """The issue's 10,000-entry HAR made a 62 MB page (33 s, 519 MB); here 250 entries, past
    the limit of 200 sections."""
    from replay_tui.share.report import Limits

    limit = Limits().traces
    har = _many_entries(tmp_path, limit + 50)
    code_, page, _ = cli("report", str(har))
    assert code_ == 0
    assert len(re.findall(r'<section id="t\d+">', page)) == limit
    rows = re.findall(r'<tr><td>(?:<a href="#t\d+">)?<code>[^<]*many\.har#(\d+)</code>', page)
    assert [int(n) for n in rows] == list(range(1, limit + 51))  # every entry in the table
    linked = re.findall(r'<a href="#t(\d+)"><code>[^<]*many\.har#', page)
    assert [int(n) for n in linked] == list(range(1, limit + 1))  # links only to sections
    assert (
        f"(A report&#x27;s limit: the first {limit} traces have a section below; the other 50"
        " are in the table only.)"
    ) in page
    code_, markdown, _ = cli("report", str(har), "--md")
    assert code_ == 0
    assert f"the first {limit} traces have a section below; the other 50" in markdown
    code_, _, err = cli("report", str(har), "-o", str(tmp_path / "out.html"))
    assert code_ == 0
    assert err.endswith(f"250 traces: the first {limit} in full, the rest in its table only)\n")


def test_a_folder_report_within_its_limit_says_nothing_of_it(cli: Cli, tmp_path: Path) -> None:
    har = _many_entries(tmp_path, 12)
    code_, page, _ = cli("report", str(har))
    assert code_ == 0
    assert len(re.findall(r'<section id="t\d+">', page)) == 12
    assert "limit" not in page


def test_a_huge_string_is_shown_as_far_as_a_cell_and_a_window_go(tmp_path: Path) -> None:
    """A 3 MB content delta right before the erasing one: its chunk rows are its first
    characters, cut as any long chunk is, and the excerpt's context line a window of it."""
    import json

    text = "lorem ipsum " * 250_000
    body = [
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}}]}',
        '{"choices":[{"delta":{"content":' + json.dumps(text) + "}}]}",
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"","function":{"arguments":"x"}}]}}]}',
        '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
    ]
    path = tmp_path / "huge.sse"
    path.write_text("".join(f"data: {p}\n\n" for p in body) + "data: [DONE]\n\n")
    report = build_report(resolve_trace(str(path)))
    rows = [r for r in report.chunks if not isinstance(r, Gap)]
    content = [r for r in rows if r.assign and '"text-delta"' in r.assign]
    ends = [r for r in rows if r.assign and '"type":"text"' in r.assign]  # the text's end
    assert content and ends
    for row in content + ends:
        for side in (row.assign, row.accept):
            assert side is not None and len(side) == 2 * 120 and side.endswith("…")  # a cell
    assert content[0].assign is not None and "lorem ipsum lorem" in content[0].assign
    (excerpt,) = report.excerpts
    (huge_line,) = [r for r in excerpt.lines if r.number == 3]
    assert huge_line.text.startswith("data: {") and huge_line.text.endswith("…")
    assert len(huge_line.text) < 300 and "lorem ipsum" in huge_line.text


def test_long_strings_that_differ_only_at_their_end_keep_their_chunks_apart() -> None:
    from replay_tui.share.report import _key

    a, b = "x" * 10_000 + "a", "x" * 10_000 + "b"
    assert _key({"type": "text-delta", "text": a}) != _key({"type": "text-delta", "text": b})
    assert _key({"type": "text-delta", "text": a}) == _key({"type": "text-delta", "text": a[:]})


def test_excerpts_far_into_a_capture_show_their_own_lines_and_stop_at_its_end(
    tmp_path: Path,
) -> None:
    """Two calls, each erased on its second delta, the second 4,000 lines into the capture and
    two lines before its last: each excerpt shows its own line and the lines beside it, the
    last one cut at the capture's end (the lines before are not measured one by one)."""
    first = '{"choices":[{"delta":{"tool_calls":[{"index":%d,"id":"call_%d","function":{"name":"f","arguments":""}}]}}]}'
    erased = '{"choices":[{"delta":{"tool_calls":[{"index":%d,"id":"","function":{"arguments":"x%d"}}]}}]}'
    quiet = '{"choices":[{"delta":{"tool_calls":[{"index":%d,"function":{"arguments":"y"}}]}}]}'
    body = [first % (0, 0), erased % (0, 0)] + [quiet % 0] * 2000
    body += [first % (1, 1), erased % (1, 1)]
    path = tmp_path / "far.sse"
    path.write_text("".join(f"data: {p}\n\n" for p in body))  # no [DONE]: the last line is 4008
    report = build_report(resolve_trace(str(path)))
    assert [[r.number for r in e.lines] for e in report.excerpts] == [
        [1, 2, 3, 4, 5, 6],  # line 3 and 3 lines either side (there is no line 0)
        [4004, 4005, 4006, 4007, 4008],  # line 4007: one line after it, the last
    ]
    for excerpt, line in zip(report.excerpts, (3, 4007), strict=True):
        (flagged,) = [r for r in excerpt.lines if r.flagged]
        assert flagged.number == line and '"id":""' in flagged.text
        assert all(r.text == "" for r in excerpt.lines if r.number % 2 == 0)  # the blank lines
        assert all(r.text.startswith("data: {") for r in excerpt.lines if r.number % 2)


def test_a_trace_of_many_calls_gives_sections_to_its_flagged_calls_then_the_first(
    tmp_path: Path,
) -> None:
    """60 canonical calls, the 51st erased on its second delta: the report gives 40 calls a
    section (the flagged one, then the first 39), and says what it left out, in HTML and in
    Markdown."""
    import json

    def chunk(call: dict[str, object]) -> str:
        return json.dumps({"choices": [{"delta": {"tool_calls": [call]}}]})

    events = []
    for k in range(60):
        fn = {"name": "f", "arguments": ""}
        events.append(chunk({"index": k, "id": f"call_{k}", "type": "function", "function": fn}))
        more: dict[str, object] = {"index": k, "function": {"arguments": "{}"}}
        if k == 50:
            more["id"] = ""  # erased: assign-always blanks the call's id
        events.append(chunk(more))
    events.append('{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}')
    path = tmp_path / "many.sse"
    path.write_text("".join(f"data: {e}\n\n" for e in events) + "data: [DONE]\n\n")
    report = build_report(resolve_trace(str(path)))
    titles = [c.title.split(" — ")[0] for c in report.calls]
    assert len(titles) == 40 and titles[-1] == "call 50" and titles[-2] == "call 38"
    assert titles[:3] == ["call 0", "call 1", "call 2"]
    assert (report.calls_left_out, report.calls_left_out_flagged) == (20, 0)
    said = "20 more calls not shown: each closes identified under both behaviors, with no flag."
    page = render(str(path), [resolve_trace(str(path))], fmt="html")
    assert f'<p class="muted">{said}</p>' in page
    markdown = render(str(path), [resolve_trace(str(path))], fmt="md")
    assert "20 more calls not shown" in markdown


def test_flagged_calls_past_the_limit_are_counted_as_such() -> None:
    from replay_tui.share.report import TraceReport, calls_left_out

    base = TraceReport("a", "t1", "erasing", [], [], [], [], [], [], 0, [], 0)
    assert calls_left_out(base) == ""
    one = msgspec.structs.replace(base, calls_left_out=1)
    assert calls_left_out(one) == (
        "1 more call not shown: each closes identified under both behaviors, with no flag."
    )
    flagged = msgspec.structs.replace(base, calls_left_out=1_200, calls_left_out_flagged=7)
    assert (
        calls_left_out(flagged) == "1,200 more calls not shown (7 of them flagged or unidentified)."
    )
