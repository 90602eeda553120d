"""Trace content is untrusted: markup and terminal sequences are shown literally, everywhere."""

from __future__ import annotations

from pathlib import Path

from replay_tui.tui.app import make_app

from .conftest import HOSTILE_CONTENT, HOSTILE_FILE, HOSTILE_NAME, SIZE, rendered, settle

SHOWN_FILE = "[bold]evil\\u001b[7m.sse"  # the ESC in the name made visible
CONTROL = ("\x1b", "\x07", "\x9b")


def _clean(texts: list[str]) -> None:
    for text in texts:
        for ch in CONTROL:
            assert ch not in text, f"control character {ch!r} reached the screen in {text!r}"


async def test_markup_and_escapes_stay_literal_in_every_view(hostile_trace: Path) -> None:
    app = make_app([str(hostile_trace)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.current is not None and app.current.address == HOSTILE_FILE

        # The list: the file name is not markup.
        tree = app.trace_list.trace_tree
        label = tree.label_of(HOSTILE_FILE)
        assert label is not None and SHOWN_FILE in label.plain

        # The header line.
        assert SHOWN_FILE in str(app.trace_header.render())

        # Calls: the name is shown as sent (JSON), the id's ESC as an escape.
        calls = rendered(app.calls_view)
        assert any(f'"{HOSTILE_NAME}"' in row for row in calls)
        assert any("\\u001b[2J" in row for row in calls)
        assert any("\\u001b]52;c;ZXZpbA==\\u0007" in row for row in calls)
        _clean(calls)

        # Diff (the list hidden: the diff's halves are as wide as the screen allows, and the
        # tool-call rows whole in them).
        await pilot.press("l", "2")
        await settle(app, pilot)
        app.diff_view.action_toggle_all_runs()
        diff = rendered(app.diff_view)
        assert any(HOSTILE_NAME in row for row in diff)
        _clean(diff)

        # Raw: the capture as sent, escapes visible.
        await pilot.press("3")
        await settle(app, pilot)
        raw = rendered(app.raw_view)
        assert any(HOSTILE_CONTENT in row for row in raw)
        assert any(HOSTILE_NAME in row for row in raw)
        _clean(raw)

        # Details, and the whole screen as a terminal would get it.
        _clean([app.details._main.plain, app.details._meta.plain])
        svg = app.export_screenshot()
        _clean([svg])
        # On screen now: the raw view's first line, the content with its markup as text.
        assert HOSTILE_CONTENT in svg.replace("&#160;", " ")


async def test_copy_and_notifications_do_not_interpret_content(hostile_trace: Path) -> None:
    app = make_app([str(hostile_trace)])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        app.calls_view.focus()
        await pilot.press("home", "down", "c")
        # The clipboard gets the payload exactly (base64 in OSC 52, so nothing is interpreted).
        assert HOSTILE_NAME in app.clipboard
        for note in app._notifications:
            assert note.markup is False


async def test_an_emoji_cut_into_lone_surrogates_is_shown_in_every_view(tmp_path: Path) -> None:
    """A JavaScript gateway cuts strings by UTF-16 units: an emoji's halves come as lone
    surrogate escapes in two payloads (JSON that msgspec refuses to write back). The diff
    view wrote each value with msgspec and the app died with a UnicodeEncodeError on `2`
    (found by the shape invented at the end of a session, portkey-surrogates)."""
    import json

    first, second = '{"t":"hi \ud83d', '\ude00 there"}'
    chunks = [
        {"role": "assistant", "content": "ok \ud83d"},
        {"content": "\ude00"},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "say", "arguments": first},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": second}}]},
    ]
    body = "".join(
        f"data: {json.dumps({'choices': [{'index': 0, 'delta': d}]})}\n\n" for d in chunks
    )
    path = tmp_path / "cut.sse"
    path.write_text(
        body + 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}'
        "\n\ndata: [DONE]\n\n"
    )
    app = make_app([str(path)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert any("\\ud83d" in row for row in rendered(app.calls_view))
        await pilot.press("l", "2")
        await settle(app, pilot)
        app.diff_view.action_toggle_all_runs()
        await settle(app, pilot)
        assert any("\\ud83d" in row for row in rendered(app.diff_view))
        for key in ("3", "4", "5", "1"):
            await pilot.press(key)
            await settle(app, pilot)
        assert app.is_running and app.tabs.active == "calls"
        app.export_screenshot()  # (the whole screen as a terminal gets it)
