"""A 5 MB string in a trace costs what is on screen (issue 27): the inspect window and the
calls view's arguments show its first part and say how much more there is."""

from __future__ import annotations

import json

from replay_tui.tui.screens.payload import SHOWN, pretty


def test_the_inspect_window_shows_the_first_part_of_a_huge_payload() -> None:
    message = "lorem ipsum " * 500_000  # 6 MB
    text = json.dumps({"error": {"message": message}})
    shown = pretty(text)
    assert shown.startswith(text[:1000]) and len(shown) < SHOWN + 100
    assert shown.endswith(f"… {len(text) - SHOWN:,} more characters (c copies them all)")
    # A small payload is still pretty-printed whole.
    assert pretty('{"a": [1, 2]}') == '{\n  "a": [\n    1,\n    2\n  ]\n}'


async def test_the_inspect_window_wraps_a_bounded_part_of_all_its_sections_together() -> None:
    """Three 5 MB sections (a Clients cell's arguments as meant and as got, an error): the
    window holds about SHOWN characters in all, each section showing its start and how many
    more characters it has; ``c`` copies what it was given, made only then."""
    from textual.app import App
    from textual.widgets import Static

    from replay_tui.tui.screens.payload import SECTION, PayloadScreen

    huge = "lorem ipsum " * 450_000
    made: list[str] = []

    def whole() -> str:
        made.append("copy")
        return huge

    app: App[None] = App()
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(
            PayloadScreen("cell", [("meant", huge), ("got", huge), ("error", huge)], whole)
        )
        await pilot.pause()
        text = str(app.screen.query_one(Static).render())
        assert len(text) < SHOWN + 2 * SECTION + 500
        assert text.count("lorem ipsum") > 100
        assert text.count(" more characters (c copies them all)") == 3
        for heading in ("meant", "got", "error"):
            assert heading in text
        assert made == []


def test_a_clients_cell_s_long_strings_are_cut_saying_how_much_more_there_is() -> None:
    from replay_tui.tui.widgets.clients_view import _cut_strings

    value = {"meant": {"arguments": "x" * 5_000_000, "id": "call_1"}, "got": [{"a": "y" * 10}]}
    cut = _cut_strings(value, 100)
    assert cut["meant"]["arguments"] == "x" * 100 + "… (4,999,900 more characters)"
    assert cut["meant"]["id"] == "call_1" and cut["got"] == [{"a": "y" * 10}]
    assert len(value["meant"]["arguments"]) == 5_000_000  # (the value itself is left whole)


def test_the_clients_detail_wraps_a_huge_line_only_as_far_as_it_shows_it() -> None:
    """A library's 5 MB error message: the pane wraps its first MAX_LINE_CHARS characters and
    says how many more there are (it wrapped the whole message on every move)."""
    from replay_tui.tui.widgets.client_detail import MAX_LINE_CHARS, _capped

    pieces = [("throws Error: ", "clients-detail--bad"), ("m" * 5_000_000, "clients-detail--value")]
    capped = _capped(pieces)
    assert sum(len(t) for t, _ in capped[:-1]) == MAX_LINE_CHARS
    assert capped[0] == pieces[0] and capped[1][1] == "clients-detail--value"
    assert capped[-1][0] == f"… {5_000_014 - MAX_LINE_CHARS:,} more characters (c copies them all)"
    short = [("id", "x"), ("call_1", "y")]
    assert _capped(short) is short
