"""What a capture's request asked, where the capture says: to tell two captures of different
requests apart (the compare view warns when it compares them).

A bare SSE body says nothing of its request (the ``model`` its chunks name is the answering
model, which two gateways name differently for the same request), so only two sources count:

- a HAR entry: its request's body (``postData``): the model, the tool names and the messages;
- a recorder sidecar (``.meta.json``): the model and tool names it always records, and the
  messages when the recorder saved request bodies (``--save-bodies``).

The URL is not compared: the same request sent to two gateways (the usual reason to compare)
goes to two URLs.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import msgspec

__all__ = ["Ask", "ask_of", "conversation_of", "known_from", "request_differences"]

ASKED = ("system", "instructions", "messages", "input", "contents", "prompt")
"""The body's fields that hold what is asked (OpenAI, Anthropic, Responses, Gemini, legacy)."""
LISTED = ("messages", "input", "contents")


class Asked(Protocol):
    """What a HAR entry (:class:`.har.HarEntry`) read of its request (not imported: the HAR
    reader imports this module)."""

    @property
    def model(self) -> str | None: ...
    @property
    def tools(self) -> Sequence[str]: ...
    @property
    def conversation(self) -> str | None: ...
    @property
    def messages(self) -> int | None: ...


class Ask(msgspec.Struct, frozen=True):
    """What one request asked, as far as its capture tells."""

    where: str
    """Where it is known from: "HAR entry" or "recorder sidecar"."""
    model: str | None = None
    tools: tuple[str, ...] | None = None
    """None: not known (a sidecar of an older recorder)."""
    conversation: str | None = None
    """A digest of what the body asks (None: the body is not known)."""
    messages: int | None = None
    """How many messages (or input items) it holds, when it is a list."""


def conversation_of(body: Any) -> tuple[str | None, int | None]:
    """``(digest, message count)`` of what a decoded request body asks, or ``(None, None)``."""
    if not isinstance(body, dict):
        return None, None
    asked = {k: body[k] for k in ASKED if k in body}
    if not asked:
        return None, None
    try:
        text = json.dumps(asked, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None, None
    import hashlib  # (here: not imported by the TUI before its first frame, 8 ms)

    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    listed = next((asked[k] for k in LISTED if isinstance(asked.get(k), list)), None)
    return digest, len(listed) if listed is not None else None


def _tools(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(str(v) for v in value)


def ask_of(entry: Asked | None, sidecar: Mapping[str, Any] | None) -> Ask | None:
    """What a capture's request asked (``entry``: its HAR entry; ``sidecar``: its recorder
    sidecar), or None when the capture does not tell."""
    if entry is not None:
        if entry.model is None and entry.conversation is None and not entry.tools:
            return None  # (no request body saved)
        return Ask("HAR entry", entry.model, tuple(entry.tools), entry.conversation, entry.messages)
    request = sidecar.get("request") if sidecar is not None else None
    if not isinstance(request, dict):
        return None
    model = request.get("model")
    conversation, messages = None, None
    body = request.get("body")
    if isinstance(body, str) and request.get("body_encoding") is None:
        with contextlib.suppress(msgspec.DecodeError, RecursionError):
            conversation, messages = conversation_of(msgspec.json.decode(body))
    return Ask(
        "recorder sidecar",
        model if isinstance(model, str) and model else None,
        _tools(request.get("tools")),
        conversation,
        messages,
    )


PLURAL = {"HAR entry": "HAR entries", "recorder sidecar": "recorder sidecars"}


def known_from(a: Ask | None, b: Ask | None) -> str:
    """Where what both asked is known from, in words ("both HAR entries"; "": not known)."""
    if a is None or b is None:
        return ""
    if a.where == b.where:
        return "both " + PLURAL.get(a.where, a.where)
    return f"A's {a.where}, B's {b.where}"


def _names(tools: tuple[str, ...]) -> str:
    return ", ".join(tools) if tools else "none"


def request_differences(a: Ask | None, b: Ask | None) -> list[str]:
    """How the two requests differ, in words (empty: the same, or not known of both)."""
    if a is None or b is None:
        return []
    out: list[str] = []
    if a.model is not None and b.model is not None and a.model != b.model:
        out.append(f"model {a.model} vs {b.model}")
    if a.tools is not None and b.tools is not None and sorted(a.tools) != sorted(b.tools):
        out.append(f"tools {_names(a.tools)} vs {_names(b.tools)}")
    known = a.conversation is not None and b.conversation is not None
    if known and a.conversation != b.conversation:
        count = ""
        if a.messages is not None and b.messages is not None and a.messages != b.messages:
            count = f" ({a.messages} vs {b.messages})"
        out.append(f"the messages differ{count}")
    return out
