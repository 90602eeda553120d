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
