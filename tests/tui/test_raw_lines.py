"""The raw view's line index, split a piece at a time, is the capture's lines wherever the
pieces end (issue 27: indexing 200,000 lines a Python step each cost the view's first paint)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay_tui.tui.widgets import raw_view

_BREAK = re.compile(rb"\r\n|\r|\n")


def _lines(raw: bytes) -> tuple[list[int], list[int]]:
    starts, ends = [0], []
    for m in _BREAK.finditer(raw):
        ends.append(m.start())
        starts.append(m.end())
    return starts, ends


@given(st.binary(max_size=80).map(lambda b: bytes(b"ab\n\r"[x % 4] for x in b)), st.integers(1, 9))
def test_lines_are_indexed_alike_whatever_the_pieces(raw: bytes, piece: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(raw_view, "_PIECE", piece)
        starts, ends = raw_view._line_bounds(raw)
    assert (list(starts), list(ends)) == _lines(raw)
