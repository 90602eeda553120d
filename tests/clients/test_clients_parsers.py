"""The models' fast scanners against the libraries' character-by-character originals."""

from __future__ import annotations

import json
from bisect import bisect_right
from itertools import accumulate
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from replay_tui.clientlibs.ai_sdk import ArgumentState
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


def _reference_complete(pieces: list[str]) -> tuple[str, bool]:
    """StreamingToolCallArgumentState, one character at a time (@ai-sdk/provider-utils)."""
    kind, stack, in_string, escaped, complete = "undetermined", [], False, False, False
    for ch in "".join(pieces):
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
    return kind, complete


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


@given(st.lists(JSONISH, max_size=5))
def test_argument_state_is_the_librarys(pieces: list[str]) -> None:
    state = ArgumentState()
    for piece in pieces:
        state.append(piece)
    assert (state.kind, state.complete) == _reference_complete(pieces)
