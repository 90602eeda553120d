"""A call's identity timeline, kept as small as what it holds (nothing, one change, several),
reads as the plain list of its changes would (properties, against a plain oracle; the rows
read from the timelines are held to the translator's chunks in
tests/robustness/test_replay_properties.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from replay_tui.core.identity import Timeline
from replay_tui.core.wire import UNSET

values = st.one_of(st.none(), st.text(max_size=3), st.integers(-2, 2), st.just([1]))
changes = st.lists(st.tuples(st.integers(0, 3), values), max_size=8)


def _oracle(steps: list[tuple[int, object]]) -> list[tuple[int, object]]:
    """The changes as ``(delta, value)``, deltas growing from the gaps drawn."""
    out = []
    delta = 0
    for gap, value in steps:
        delta += gap
        out.append((delta, value))
        delta += 1
    return out


@given(changes, st.integers(-1, 40))
def test_a_timeline_reads_as_its_changes(steps: list[tuple[int, object]], probe: int) -> None:
    plain = _oracle(steps)
    timeline = Timeline()
    for delta, value in plain:
        timeline.change(delta, value)
    assert list(timeline.at) == [d for d, _ in plain]
    assert list(timeline.values) == [v for _, v in plain]
    before = [(d, v) for d, v in plain if d <= probe]
    assert timeline.value(probe) == (before[-1][1] if before else UNSET)
    assert timeline.set_on(probe) == (before[-1][0] if before else None)
