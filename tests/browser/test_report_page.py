"""The report in a real browser: it renders, marks the erasing row, loads nothing, runs nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from share.samples import HOSTILE_ID, HOSTILE_NAME, QWEN, hostile_sse

from replay_tui.cli import main

pytestmark = pytest.mark.xdist_group("browser")  # one worker, one Chromium a module


def _open(browser: Any, page_path: Path, **context: Any) -> tuple[Any, Any, list[str], list[str]]:
    ctx = browser.new_context(**context)
    page = ctx.new_page()
    requests: list[str] = []
    dialogs: list[str] = []
    document = page_path.resolve().as_uri()

    def route(r: Any) -> None:
        requests.append(r.request.url)
        if r.request.url == document:
            r.continue_()
        else:
            r.abort()

    page.route("**/*", route)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(document)
    return ctx, page, requests, dialogs


def _report(tmp_path: Path, trace: Path) -> Path:
    out = tmp_path / "report.html"
    assert main(["report", str(trace), "-o", str(out)]) == 0
    return out


def test_report_renders_the_erasing_row_and_requests_nothing_else(
    browser: Any, tmp_path: Path
) -> None:
    ctx, page, requests, dialogs = _open(browser, _report(tmp_path, QWEN))
    row = page.locator("tr.erasing")
    assert row.count() == 1 and row.is_visible()
    assert "erased id" in row.inner_text()
    assert "the fix keeps call_99a5ca83…" in page.locator(".headline").inner_text()
    assert page.locator("mark").first.inner_text().startswith("3 │ …")
    # The field that erased the identity is on screen, highlighted, without scrolling sideways.
    spot = page.locator("mark .spot")
    assert spot.inner_text() == '"id":""'
    box, pre = spot.bounding_box(), page.locator("pre").first.bounding_box()
    assert box is not None and pre is not None
    assert pre["x"] <= box["x"] and box["x"] + box["width"] <= pre["x"] + pre["width"]
    assert requests == [page.url] and dialogs == []
    ctx.close()


def test_hostile_tool_name_stays_text_and_runs_no_script(browser: Any, tmp_path: Path) -> None:
    trace = tmp_path / "hostile.sse"
    trace.write_bytes(hostile_sse())
    ctx, page, requests, dialogs = _open(browser, _report(tmp_path, trace))
    page.wait_for_load_state("load")
    assert (
        page.evaluate("document.querySelectorAll('script, img, iframe, object, embed').length") == 0
    )
    text = page.locator("body").inner_text()
    assert HOSTILE_NAME in text and HOSTILE_ID in text
    assert dialogs == [] and requests == [page.url]
    ctx.close()


def test_light_dark_and_phone(browser: Any, tmp_path: Path) -> None:
    report = _report(tmp_path, QWEN)
    backgrounds = {}
    for scheme in ("light", "dark"):
        ctx, page, _, _ = _open(browser, report, color_scheme=scheme)
        backgrounds[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
        ctx.close()
    assert backgrounds == {"light": "rgb(255, 255, 255)", "dark": "rgb(13, 17, 23)"}
    ctx, page, _, _ = _open(browser, report, viewport={"width": 375, "height": 700})
    # wide tables scroll inside their box; the page itself never scrolls sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    ctx.close()


def test_phone_width_holds_with_long_ids_in_notes_and_short_code_never_breaks(
    browser: Any, tmp_path: Path
) -> None:
    """Notes quoting 120-character ids widened the page to 442 px on a 390 px phone; a
    ``""`` code span wrapped one quote onto the next line."""
    import json

    long_a, long_b = "call_" + "a" * 120, "call_" + "b" * 120
    deltas = [
        {"index": 0, "id": long_a, "function": {"name": "read_file", "arguments": ""}},
        {"index": 0, "id": "", "function": {"arguments": "{}"}},
        {"index": 0, "id": long_b, "function": {"name": "write_file", "arguments": ""}},
    ]
    trace = tmp_path / "long-ids.sse"
    trace.write_text(
        "".join(
            f"data: {json.dumps({'choices': [{'delta': {'tool_calls': [d]}}]})}\n\n" for d in deltas
        )
        + "data: [DONE]\n\n"
    )
    ctx, page, _, _ = _open(
        browser, _report(tmp_path, trace), viewport={"width": 390, "height": 800}
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # Every short code span sits on one line: one box, as high as one line.
    heights = page.evaluate(
        "[...document.querySelectorAll('code.nb')].map(c => c.getClientRects().length)"
    )
    assert heights and set(heights) == {1}
    ctx.close()
