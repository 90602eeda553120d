"""JSON text for any value a capture decoded to, including the ones msgspec cannot write.

Two kinds of decoded values make ``msgspec.json.encode`` raise, and captures can hold both:

- strings with a lone surrogate: ``"\\ud800"`` is valid JSON, JavaScript keeps it in a string,
  and msgspec decodes it so, but UTF-8 cannot encode it;
- containers nested deeper than the recursion limit, which the iterative parser
  (:mod:`.jsonparse`) accepts as ``JSON.parse`` does.

Output (``check --json``, ``replay --json``, values shown in notes) goes through
:func:`encode` / :func:`dumps`: msgspec as usual, and for those values a slower writer that
keeps no recursion and writes a lone surrogate as its ``\\uXXXX`` escape, which is valid JSON
and what JavaScript's ``JSON.stringify`` writes too.

JSON escapes C0 controls but not DEL, C1 controls (``\\x9b`` is CSI to many terminals) or the
bidirectional overrides; people read this output in terminals, so those are written as
``\\uXXXX`` escapes too. The text means the same, and stays valid JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import msgspec

__all__ = ["dumps", "encode", "same_json", "string"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_END: Any = object()
# DEL, C1 controls and bidi overrides, as UTF-8 bytes (lead bytes: no false match in UTF-8).
_UNSAFE_BYTES = re.compile(b"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


def _escape_unsafe(m: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(m.group().decode())


def encode(value: Any) -> bytes:
    """``value`` as UTF-8 JSON; never fails on decoded JSON values (see the module doc)."""
    try:
        out = msgspec.json.encode(value)
    except (UnicodeEncodeError, RecursionError):
        out = _write(value).encode()
    if out.isascii():
        return out
    return _UNSAFE_BYTES.sub(_escape_unsafe, out)


def dumps(value: Any) -> str:
    """:func:`encode`, as text."""
    return encode(value).decode()


def same_json(a: Any, b: Any) -> bool:
    """Whether two decoded JSON values are the same JSON: ``1``, ``1.0``, ``true`` and ``"1"``
    apart, the order of an object's keys not counted. Values msgspec cannot write (a lone
    surrogate) are compared as the standard library writes them; values nested past the
    recursion limit are said to differ."""
    if a is b:
        return True
    try:
        written = msgspec.json.encode(a, order="sorted")
        if written != msgspec.json.encode(b, order="sorted"):
            return False
        if b"null" not in written:
            return True
        # (msgspec writes a number that is not finite as null: Infinity, NaN and null are told
        # apart by the standard library's text)
    except (msgspec.EncodeError, UnicodeEncodeError):
        pass
    except RecursionError:
        return False
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False


def _escape_surrogate(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def _string(text: str) -> str:
    return _SURROGATE.sub(_escape_surrogate, json.dumps(text, ensure_ascii=False))


def string(text: str) -> bytes:
    """``text`` as a JSON string, as msgspec writes one (raw UTF-8, the controls escaped),
    and as ``JSON.stringify`` writes a lone surrogate (``"\\ud83d"``), where msgspec raises:
    the bytes of a piece in the payload a gateway in JavaScript sent."""
    try:
        return msgspec.json.encode(text)
    except UnicodeEncodeError:
        return _string(text).encode()


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return msgspec.json.encode(value).decode()  # "1e16", not repr's "1e+16"; nan: null
    return _write(msgspec.to_builtins(value))  # a Struct or UNSET: rare, shallow


def _write(value: Any) -> str:
    """JSON text for ``value`` with an explicit stack instead of recursion."""
    out: list[str] = []
    stack: list[tuple[Iterator[Any], bool, str]] = []  # (items, is an object, closing text)
    item = value
    while True:
        if isinstance(item, dict):
            out.append("{")
            stack.append((iter(item.items()), True, "}"))
        elif isinstance(item, list | tuple):
            # A chain of one-item lists (what a deep payload is made of) is one frame.
            depth = 1
            while len(item) == 1 and isinstance(item[0], list | tuple):
                item = item[0]
                depth += 1
            out.append("[" * depth)
            stack.append((iter(item), False, "]" * depth))
        else:
            out.append(_scalar(item))
        while stack:  # find the next value to write, closing finished containers
            items, is_object, closing = stack[-1]
            nxt = next(items, _END)
            if nxt is _END:
                stack.pop()
                out.append(closing)
                continue
            if out[-1][-1] not in "{[":  # after an item, not an opening
                out.append(",")
            if is_object:
                key, item = nxt
                out.append(_string(str(key)) + ":")
            else:
                item = nxt
            break
        else:
            return "".join(out)
