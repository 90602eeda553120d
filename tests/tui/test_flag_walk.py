"""n and N, without a screen: the calls view's model walks the flags (CallsModel.walk_flags)."""

from __future__ import annotations

from replay_tui.tui.widgets.calls_view import build_calls_model, no_flags_text
from tests.core.helpers import call, chunk, sse, tools, trace_of

# Three erasing deltas: call 0's id (line 3), call 1's id and name in one delta (line 7:
# two flags, one stop), call 2's id (line 11).
BODY = sse(
    tools(call(0, id="a", name="f", arguments="")),
    tools(call(0, id="", arguments="{")),
    tools(call(1, id="b", name="g", arguments="")),
    tools(call(1, id="", name="", arguments="{}")),
    tools(call(2, id="c", name="h", arguments="")),
    tools(call(2, id="", arguments="{}")),
    chunk(finish="tool_calls"),
)


def test_n_goes_from_flag_to_flag_in_stream_order_and_rounds_to_the_first() -> None:
    model = build_calls_model(trace_of(BODY))
    stops = model.flag_stops()
    assert [indexes for _, _, indexes in stops] == [[0], [1, 2], [3]]
    rows = [row for _, row, _ in stops]
    said = []
    cursor = 0
    for _ in range(4):
        step = model.walk_flags(cursor, None, forward=True)
        assert step is not None
        cursor, text = step
        said.append(text)
    assert rows == sorted(rows)  # (the calls' sections in order: so are their rows)
    assert said[0].startswith("Flag 1 of 4: ") and said[0].endswith(" on line 3")
    assert said[1].startswith("Flags 2–3 of 4: ") and said[1].endswith(" on line 7")
    assert said[2].startswith("Flag 4 of 4: ") and said[2].endswith(" on line 11")
    assert said[3].startswith("Flag 1 of 4: ") and said[3].endswith("· back to the first")
    assert cursor == rows[0]


def test_shift_n_goes_back_and_rounds_to_the_last() -> None:
    model = build_calls_model(trace_of(BODY))
    rows = [row for _, row, _ in model.flag_stops()]
    step = model.walk_flags(rows[0], None, forward=False)
    assert step is not None
    row, text = step
    assert row == rows[-1] and text.endswith(" on line 11 · back to the last")
    step = model.walk_flags(rows[-1], None, forward=False)
    assert step is not None and step[0] == rows[1] and "back to" not in step[1]


def test_a_trace_without_flags_says_why_there_is_nothing_to_walk() -> None:
    clean = trace_of(sse(chunk({"content": "hi"}, finish="stop")))
    assert build_calls_model(clean).walk_flags(0, None, forward=True) is None
    assert no_flags_text(clean) == "No flags in this trace: nothing was erased."
    assert no_flags_text(None) == "No trace open yet: no flags to walk."
    cut = trace_of(sse(chunk({"content": "hi"}), done=False))
    said = no_flags_text(cut)
    assert said.startswith("No flags: nothing was erased, yet it is ") and "Details" in said
