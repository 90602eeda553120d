"""What the calls view shares between 5,000 calls' sections is what each would hold alone
(properties, against plain comparisons)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay_tui.core.wire import UNSET
from replay_tui.tui.widgets.calls_view import _shared

identities = st.one_of(
    st.just(UNSET), st.none(), st.text(max_size=3), st.integers(-1, 1), st.just(["a"])
)
pairs = st.tuples(identities, identities)


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types (``1 == 1.0 == True`` are not the same identity)."""
    return type(a) is type(b) and (a is b or a == b)


@given(st.one_of(st.none(), pairs), pairs)
def test_a_shared_close_is_the_close(
    closed: tuple[Any, Any] | None, final: tuple[Any, Any]
) -> None:
    got = _shared(closed, final)
    if closed is None:
        assert got is None
        return
    assert got is not None
    assert all(_same(x, y) for x, y in zip(got, closed, strict=True))
