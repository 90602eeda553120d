"""The models' fast scanners against the libraries' character-by-character originals."""

from __future__ import annotations

import json
from bisect import bisect_right
from itertools import accumulate
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay_tui.clientlibs.ai_sdk import ArgumentState
from replay_tui.clientlibs.base import loads
from replay_tui.clientlibs.langchain import parse_partial_json


def _reference_parse_partial_json(s: str) -> Any:
    """langchain_core.utils.json.parse_partial_json as the library has it (MIT, LangChain)."""
    try:
        return json.loads(s, strict=False)
    except json.JSONDecodeError:
        pass
    new_chars: list[str] = []
    stack: list[str] = []
    inside = False
    escaped = False
    for char in s:
        new_char = char
        if inside:
            if char == '"' and not escaped:
                inside = False
            elif char == "\n" and not escaped:
                new_char = "\\n"
            elif char == "\\":
                escaped = not escaped
            else:
                escaped = False
        elif char == '"':
            inside = True
            escaped = False
        elif char == "{":
            stack.append("}")
        elif char == "[":
            stack.append("]")
        elif char in "}]":
            if stack and stack[-1] == char:
                stack.pop()
            else:
                return None
        new_chars.append(new_char)
    if inside:
        if escaped:
            new_chars.pop()
        new_chars.append('"')
    stack.reverse()
    ends = list(accumulate(map(len, new_chars)))
    while new_chars:
        try:
            return json.loads("".join(new_chars + stack), strict=False)
        except json.JSONDecodeError as e:
            idx = bisect_right(ends, e.pos)
            if idx < len(new_chars):
                del new_chars[idx:]
                del ends[idx:]
            else:
                new_chars.pop()
                ends.pop()
    return json.loads(s, strict=False)


def _reference_complete(pieces: list[str]) -> tuple[str, bool, int | None]:
    """StreamingToolCallArgumentState, one character at a time (@ai-sdk/provider-utils); and
    where in the joined pieces the value completed (the position after its last character)."""
    kind, stack, in_string, escaped, complete = "undetermined", [], False, False, False
    at: int | None = None
    for k, ch in enumerate("".join(pieces)):
        if kind == "undetermined":
            if ch.isspace():
                continue
            if ch not in "{[":
                kind = "other"
                continue
            kind, stack = "structured", [ch]
            continue
        if kind != "structured" or complete:
            continue
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]":
            if not stack or stack[-1] != ("{" if ch == "}" else "["):
                kind = "other"
                continue
            stack.pop()
            if not stack:
                complete = True
                at = k + 1
    return kind, complete, at


JSONISH = st.text(alphabet='{}[]",:\\\n ab1.-tn', max_size=40)


@given(JSONISH)
def test_parse_partial_json_is_the_librarys(s: str) -> None:
    try:
        want: Any = ("ok", _reference_parse_partial_json(s))
    except json.JSONDecodeError:
        want = ("raises",)
    try:
        got: Any = ("ok", parse_partial_json(s))
    except json.JSONDecodeError:
        got = ("raises",)
    assert got == want


def _argument_state(pieces: list[str], first: bool) -> tuple[str, bool, int | None]:
    """The port's state after ``pieces`` (the first given to the constructor, when
    ``first``, as a call opened with arguments is), and where it said the value completed."""
    at: int | None = None
    done = 0
    state = ArgumentState(pieces[0]) if first and pieces else ArgumentState()
    if first and pieces:
        done = len(pieces[0])
        at = _reference_complete(pieces[:1])[2]  # (the constructor's answer is not kept)
        pieces = pieces[1:]
    for piece in pieces:
        end = state.append(piece)
        if end is not None:
            at = done + end
        done += len(piece)
    return state.kind, state.complete, at


@given(st.lists(JSONISH, max_size=5), st.booleans())
def test_argument_state_is_the_librarys(pieces: list[str], first: bool) -> None:
    assert _argument_state(pieces, first) == _reference_complete(pieces)


def _outcome(parse: Any, text: str, strict: bool) -> Any:
    """What a parse gives: the value as json writes it (``1``, ``1.0`` and ``true`` differ,
    ``NaN`` and ``Infinity`` are written), or the error's type."""
    try:
        return ("ok", json.dumps(parse(text, strict=strict)))
    except (ValueError, RecursionError) as exc:
        return ("raises", type(exc).__name__)


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)
TEXTS = st.one_of(
    JSONISH,
    st.text(max_size=30),
    JSON_VALUES.map(json.dumps),
    JSON_VALUES.map(lambda v: json.dumps(v, ensure_ascii=False, indent=1)),
    # a number past a float's range, a lone surrogate, a raw control character, NaN
    st.sampled_from(["1e400", "-1E999", '"\\ud800"', '{"a":"x\ny"}', "NaN", "[Infinity]", "-0"]),
    st.sampled_from(['"\ud83d"', '["\ude00x"]', '{"\ud800":1}']),  # a lone surrogate's character
)


@given(TEXTS, st.booleans())
def test_loads_is_pythons_json(text: str, strict: bool) -> None:
    assert _outcome(loads, text, strict) == _outcome(json.loads, text, strict)


@given(
    JSON_VALUES.map(lambda v: json.dumps([v], indent=None if v else 1)),
    st.sampled_from(["", " ", "\n", "\u00a0", "x"]),
    st.lists(JSONISH, max_size=2),
    st.booleans(),
)
def test_argument_state_of_a_whole_value_is_the_librarys(
    value: str, around: str, more: list[str], first: bool
) -> None:
    pieces = [around + value + around, *more]
    assert _argument_state(pieces, first) == _reference_complete(pieces)
