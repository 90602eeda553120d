"""An iterative JSON parser for payloads nested deeper than recursive decoders allow.

msgspec and the standard library both recurse per nesting level and give up on, say, a
100,000-deep array, while ``JSON.parse`` in the harness's runtime accepts it. This parser
keeps an explicit stack, so depth costs memory, not stack frames. It is only reached for
such pathological payloads; everything else takes msgspec.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_DEPTH", "DeepJsonError", "parse_deep"]

MAX_DEPTH = 100_000
"""Deepest nesting parsed. Each level costs about 130 bytes; without a bound, a 5 MB line of
``[`` would take 650 MB and half a minute. Deeper payloads are reported as not parsed."""

_WS = re.compile(r"[ \t\n\r]*")
_OPENS = re.compile(r"\[+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_LITERALS = {"true": True, "false": False, "null": None}


class DeepJsonError(ValueError):
    """The text is not valid JSON."""


def parse_deep(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``text`` as one JSON value without recursion."""
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    # Each stack frame is a container being filled, and for objects the pending key.
    stack: list[tuple[list[Any] | dict[str, Any], str | None]] = []
    value: Any
    n = len(text)
    while True:
        if pos >= n:
            raise DeepJsonError(f"unexpected end of input at offset {pos}")
        ch = text[pos]
        if ch == "[" or ch == "{":
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            close = "]" if ch == "[" else "}"
            if pos < n and text[pos] == close:
                value = [] if ch == "[" else {}
                pos += 1
            elif ch == "[":
                stack.append(([], None))
                if len(stack) > max_depth:
                    raise DeepJsonError(_too_deep(max_depth, pos))
                # A run of "[[[[" (what such payloads are made of): the lists opened at once,
                # up to the last, which the next turn opens (and places any error at).
                opens = _OPENS.match(text, pos)
                run = 0 if opens is None else min(opens.end() - pos - 1, max_depth - len(stack))
                if run > 0:
                    stack.extend([([], None) for _ in range(run)])
                    pos += run
                continue
            else:
                key, pos = _key(text, pos)
                stack.append(({}, key))
                if len(stack) > max_depth:
                    raise DeepJsonError(_too_deep(max_depth, pos))
                continue
        elif ch == '"':
            m = _STRING.match(text, pos)
            if m is None:
                raise DeepJsonError(f"invalid string at offset {pos}")
            value = json.loads(m.group())
            pos = m.end()
        elif ch in "-0123456789":
            m = _NUMBER.match(text, pos)
            if m is None:
                raise DeepJsonError(f"invalid number at offset {pos}")
            lit = m.group()
            value = float(lit) if any(c in lit for c in ".eE") else int(lit)
            pos = m.end()
        else:
            for word, literal in _LITERALS.items():
                if text.startswith(word, pos):
                    value = literal
                    pos += len(word)
                    break
            else:
                raise DeepJsonError(f"unexpected character {ch!r} at offset {pos}")
        # A value is complete: attach it to its container, closing containers as they end.
        while True:
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if not stack:
                if pos != n:
                    raise DeepJsonError(f"extra data at offset {pos}")
                return value
            container, pending = stack[-1]
            if isinstance(container, list):
                container.append(value)
            else:
                assert pending is not None
                container[pending] = value
            if pos >= n:
                raise DeepJsonError(f"unexpected end of input at offset {pos}")
            sep = text[pos]
            if sep == ",":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                if isinstance(container, dict):
                    pending, pos = _key(text, pos)
                    stack[-1] = (container, pending)
                break
            if sep == ("]" if isinstance(container, list) else "}"):
                stack.pop()
                value = container
                pos += 1
                # A run of "]]]]": each list closed is the last item of the one around it.
                while pos < n and text[pos] == "]" and stack and isinstance(stack[-1][0], list):
                    outer = stack.pop()[0]
                    outer.append(value)  # type: ignore[union-attr]
                    value = outer
                    pos += 1
                continue
            raise DeepJsonError(f"expected ',' or a closing bracket at offset {pos}")


def _too_deep(max_depth: int, pos: int) -> str:
    return (
        f"nested deeper than {max_depth:,} levels at offset {pos}"
        " (replay-tui's limit; JSON.parse in the harness would go on)"
    )


def _key(text: str, pos: int) -> tuple[str, int]:
    m = _STRING.match(text, pos)
    if m is None:
        raise DeepJsonError(f"expected an object key at offset {pos}")
    key: str = json.loads(m.group())
    pos = _WS.match(text, m.end()).end()  # type: ignore[union-attr]
    if pos >= len(text) or text[pos] != ":":
        raise DeepJsonError(f"expected ':' at offset {pos}")
    return key, _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
