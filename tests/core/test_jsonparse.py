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
from replay_tui.core.wire import parse_json

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


def _first_too_deep(text: str, limit: int) -> int | None:
    """Where ``parse_deep(text, limit)`` must say the nesting went too deep (None: never).

    Levels are containers with something in them (an empty one is a value at once, kept on no
    stack). The place is the first one to open level ``limit + 1``, after what was read of it:
    its bracket and the blanks after, and for an object its first key and colon too.
    """

    def blanks(at: int) -> int:
        return len(text) - len(text[at:].lstrip(" \t\n\r"))

    depth = 0
    in_string = escaped = False
    empty_ends: set[int] = set()
    for at, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            after = blanks(at + 1)
            if text[after] == "]}"["[{".index(ch)]:
                empty_ends.add(after)  # empty: no level
                continue
            depth += 1
            if depth > limit:
                if ch == "{":
                    after = blanks(json.decoder.scanstring(text, after + 1)[1])  # type: ignore[attr-defined]
                    after = blanks(after + 1)  # the colon
                return after
        elif ch in "]}" and at not in empty_ends:
            depth -= 1
    return None


@given(json_values, st.sampled_from([None, 0, 1]), st.integers(1, 5))
@example([[[[[1]]]]], None, 2)  # a run of brackets past the limit, opened at once
@example([[[[[[]]]]]], None, 4)
@example([[[[{"a": [[1]]}]]]], 1, 5)
def test_nesting_past_the_limit_is_refused_where_it_goes_past(
    value: Any, indent: int | None, limit: int
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    at = _first_too_deep(text, limit)
    if at is None:
        assert _same(parse_deep(text, limit), json.loads(text))
    else:
        with pytest.raises(
            DeepJsonError, match=f"nested deeper than {limit} levels at offset {at} "
        ):
            parse_deep(text, limit)


@given(st.one_of(json_values, st.text(max_size=30)))
@example("\ud83d")  # a lone surrogate: valid JSON (msgspec refuses it)
@example(["\ude00", {"a": "x\ud800y"}])
def test_parse_json_takes_what_json_loads_takes(value: Any) -> None:
    # parse_json (the clients' frames, the capture server's answer) against the standard
    # library: the same value for any JSON text, msgspec's refusals included
    text = json.dumps(value)  # (lone surrogates written as \u escapes)
    assert _same(parse_json(text.encode()), json.loads(text))


@pytest.mark.parametrize(
    "data", [b"{nope", b'{"a": NaN}', b"[1,", b"", b'"\\x"', b"[" * 5000 + b"]" * 4999]
)
def test_parse_json_says_why_text_is_not_json(data: bytes) -> None:
    ok, _ = _oracle(data.decode())
    assert not ok
    with pytest.raises(ValueError, match=r"\S"):
        parse_json(data)


def test_parse_json_reads_nesting_past_msgspecs_limit() -> None:
    deep = b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    value = parse_json(deep)
    depth = 0
    node = value["a"]
    while node:
        (node,) = node
        depth += 1
    assert depth == 4999
