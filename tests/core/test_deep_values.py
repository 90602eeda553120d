"""The writers that take over where msgspec and recursion give up (lone surrogates, arrays
nested 100,000 deep) against the ones they stand in for: msgspec's JSON text, and a recursive
``Array.prototype.join``."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay_tui.core import jsontext
from replay_tui.core.wire import js_string

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=8)  # no lone surrogates
scalars = st.none() | st.booleans() | st.integers() | st.floats() | text
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, min_size=1, max_size=1).map(lambda one: [one])  # chains: [[x]]
        | st.dictionaries(text, inner, max_size=3)
    ),
    max_leaves=20,
)


def _chain(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@given(json_values)
def test_the_fallback_writer_writes_what_msgspec_writes(value: Any) -> None:
    # A lone surrogate anywhere makes msgspec refuse the whole value: the writer takes it.
    assert jsontext.encode([value, "\ud800"]) == b"[" + jsontext.encode(value) + b',"\\ud800"]'


def test_arrays_100000_deep_are_written_without_recursion() -> None:
    deep = _chain(100_000)
    brackets = "[" * 100_001 + "]" * 100_001
    assert jsontext.dumps({"a": deep, "b": [1, deep, {}]}) == (
        '{"a":' + brackets + ',"b":[1,' + brackets + ",{}]}"
    )


def _join(value: list[Any]) -> str:
    """``Array.prototype.join``, recursively, as JavaScript defines it."""
    return ",".join(
        "" if v is None else _join(v) if isinstance(v, list) else js_string(v) for v in value
    )


@given(st.lists(json_values, max_size=4))
def test_arrays_join_as_javascript_joins_them(value: list[Any]) -> None:
    assert js_string(value) == _join(value)


def test_arrays_100000_deep_join_without_recursion() -> None:
    assert js_string([1, _chain(100_000), [_chain(50_000), "x"], None, 2.5]) == "1,,,x,,2.5"


_with_surrogates = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(codec=None, categories=("Ll", "Cs", "Nd")), max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)


@given(_with_surrogates, _with_surrogates)
def test_same_json_is_json_equality_with_types_apart(a: Any, b: Any) -> None:
    # The oracle: the standard library's text, keys sorted (it writes a lone surrogate as
    # its escape; msgspec refuses it: the diff compared such values, or crashed on them)
    expected = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert jsontext.same_json(a, b) is expected
    assert jsontext.same_json(a, a) and jsontext.same_json(b, b)


def test_same_json_keeps_numbers_booleans_and_strings_apart() -> None:
    assert not jsontext.same_json([1], [1.0]) and not jsontext.same_json([1], [True])
    assert not jsontext.same_json({"a": "1"}, {"a": 1})
    assert jsontext.same_json({"a": 1, "b": "\ud83d"}, {"b": "\ud83d", "a": 1})
    assert not jsontext.same_json({"a": "\ud83d"}, {"a": "\ude00"})
    # (msgspec writes Infinity and NaN, which the fallback parser takes, as null)
    inf, nan = float("inf"), float("nan")
    assert not jsontext.same_json(None, inf) and not jsontext.same_json([nan], [None])
    assert not jsontext.same_json({"a": inf}, {"a": -inf}) and jsontext.same_json([inf], [inf])
