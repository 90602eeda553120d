"""The raw view's line index, found a piece at a time and as far as asked, is the capture's
lines wherever the pieces end and however far it was asked first (issue 27: indexing 200,000
lines a Python step each cost the view's first paint; then indexing the lines a first screen
does not show did)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay_tui.tui.widgets import raw_view

_BREAK = re.compile(rb"\r\n|\r|\n")


def _lines(raw: bytes) -> list[bytes]:
    """The lines as a reader splits them: a break ends a line, the last one's is optional."""
    lines = _BREAK.split(raw)
    if lines[-1] == b"":
        lines.pop()
    return lines


@given(
    st.binary(max_size=80).map(lambda b: bytes(b"aab\n\r"[x % 5] for x in b)),
    st.integers(1, 9),
    st.integers(0, 12),
    st.booleans(),
)
def test_lines_are_indexed_alike_whatever_the_pieces(
    raw: bytes, piece: int, first: int, counted: bool
) -> None:
    expected = _lines(raw)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(raw_view, "_PIECE", piece)
        index = raw_view.LineIndex(raw, len(expected) if counted else None)
        assert index.count == len(expected)
        index.index_to(first)  # as far as a first screen shows, then the rest
        assert len(index.ends) >= min(first, len(expected))
        got = [raw[slice(*index.bounds(n))] for n in range(1, min(first, len(expected)) + 1)]
        assert got == expected[: len(got)]
        index.index_all()
    assert index.done and index.count == len(expected)
    assert [raw[s:e] for s, e in zip(index.starts, index.ends, strict=True)] == expected
    assert index.longest == max(map(len, expected), default=0)
