"""The iterative parser against an oracle: for any text, it accepts exactly what
``json.loads`` accepts (with the standard library's NaN/Infinity extensions refused, as
``JSON.parse`` refuses them) and builds the same value."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from replay_tui.core.jsonparse import DeepJsonError, parse_deep

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


def _oracle(text: str) -> tuple[bool, Any]:
    def refuse(name: str) -> Any:
        raise ValueError(name)

    try:
        return True, json.loads(text, parse_constant=refuse)
    except (ValueError, RecursionError):
        return False, None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@given(json_values, st.sampled_from([None, 0, 2]))
def test_any_json_value_parses_to_what_json_loads_gives(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    assert _same(parse_deep(text), json.loads(text))


@given(st.text(alphabet='{}[]":,0123456789.eE+-tfrunlsa \\\n\t', max_size=30))
@example('{"a":1,}')
@example("[1 2]")
@example('"\\x"')
@example("01")
@example("NaN")
@example(" ")
def test_accepts_exactly_what_json_loads_accepts(text: str) -> None:
    ok, expected = _oracle(text)
    if ok:
        assert _same(parse_deep(text), expected)
    else:
        with pytest.raises(DeepJsonError):
            parse_deep(text)


def test_depth_beyond_recursion_limits() -> None:
    depth = 50_000
    value = parse_deep("[" * depth + "]" * depth)
    for _ in range(depth - 1):
        value = value[0]
    assert value == []
