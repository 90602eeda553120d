"""What the recorder writes beside each capture: names, redaction and the ``.meta.json`` sidecar.

Kept free of aiohttp so the sidecar format and the redaction rules can be read, reused and
tested on their own. The sidecar for a capture ``P`` is ``P + ".meta.json"``; trace discovery
reads it and shows its content as the trace's metadata.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from replay_tui.core import redact

META_SUFFIX = ".meta.json"
META_VERSION = 1
# The rule itself is the product's one rule (replay_tui.core.redact): the sidecar hides what
# a report, minimize and the TUI hide.
REDACTED = redact.REDACTED

_MODEL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MODEL_IN_PATH = re.compile(r"/models/([^/:?]+)")
_MODEL_MAX = 40


class Redactor:
    """Decides which header (and query parameter) values must not reach disk.

    The product's rule (:mod:`replay_tui.core.redact`: names that say key, token, secret,
    signature, auth, cookie, session, password; values shaped like credentials) always
    applies; each extra pattern is a regular expression matched case-insensitively against
    the whole name.
    """

    def __init__(self, patterns: Iterable[str] = ()) -> None:
        """Compile the extra patterns; raises ``re.error`` for an invalid one."""
        self._patterns = [re.compile(p, re.IGNORECASE) for p in patterns]

    def is_secret(self, name: str) -> bool:
        """Whether a header's or parameter's value must be replaced in what is saved."""
        return redact.is_secret_name(name) or any(p.fullmatch(name) for p in self._patterns)

    is_secret_header = is_secret
    is_secret_param = is_secret

    def headers(self, items: Iterable[tuple[str, str]]) -> dict[str, str]:
        """Headers as a JSON object, credentials replaced.

        Repeated headers (``Set-Cookie``, ``Via``) are joined with ``", "`` so none is lost
        from the object form.
        """
        out: dict[str, str] = {}
        for name, value in items:
            shown = redact.redact_header(name, value, self.is_secret)
            out[name] = f"{out[name]}, {shown}" if name in out else shown
        return out

    def url(self, url: str) -> str:
        """The URL (or any text) with its credentials replaced; otherwise unchanged."""
        return redact.redact_text(url, self.is_secret)


def utc_now() -> datetime:
    """The current time in UTC (a function so tests and callers agree on the clock)."""
    return datetime.now(UTC)


def iso_utc(when: datetime) -> str:
    """ISO-8601 UTC with millisecond precision and a ``Z`` suffix."""
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def file_timestamp(when: datetime) -> str:
    """The ``YYYYmmddTHHMMSSZ`` stamp that starts every capture file name."""
    return when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def safe_model(model: str | None) -> str:
    """The model as it may appear in a file name: ``[A-Za-z0-9._-]``, at most 40 characters."""
    if not model:
        return "unknown"
    cleaned = _MODEL_UNSAFE.sub("-", model).strip("-.")[:_MODEL_MAX].strip("-.")
    return cleaned or "unknown"


class RequestInfo(msgspec.Struct):
    """What the recorder learns from a request body: the model and the tool names."""

    model: str | None = None
    tools: list[str] = msgspec.field(default_factory=list)


def inspect_request(body: bytes, path: str) -> RequestInfo:
    """Model and tool names of a chat request, best effort; never raises.

    OpenAI-style bodies carry ``tools[].function.name``; Anthropic- and Responses-style bodies
    carry ``tools[].name``. Gemini puts the model in the path (``/models/NAME:stream...``).
    """
    info = RequestInfo()
    try:
        doc: Any = msgspec.json.decode(body) if body else None
    except (msgspec.DecodeError, UnicodeDecodeError):
        doc = None
    if isinstance(doc, dict):
        model = doc.get("model")
        if isinstance(model, str) and model:
            info.model = model
        tools = doc.get("tools")
        if isinstance(tools, list):
            for tool in tools:
                name = _tool_name(tool)
                if name is not None:
                    info.tools.append(name)
    if info.model is None:
        match = _MODEL_IN_PATH.search(path)
        if match:
            info.model = match.group(1)
    return info


def _tool_name(tool: object) -> str | None:
    if not isinstance(tool, dict):
        return None
    function = tool.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        name: str = function["name"]
        return name
    name_field = tool.get("name")
    return name_field if isinstance(name_field, str) else None


def body_for_meta(body: bytes) -> dict[str, str]:
    """The request body as sidecar fields: text when it is UTF-8, base64 otherwise."""
    try:
        return {"body": body.decode("utf-8")}
    except UnicodeDecodeError:
        import base64

        return {"body": base64.b64encode(body).decode("ascii"), "body_encoding": "base64"}


def meta_path(capture: Path) -> Path:
    """The sidecar path of a capture file."""
    return capture.with_name(capture.name + META_SUFFIX)


def write_meta_atomic(path: Path, meta: Mapping[str, Any]) -> None:
    """Replace ``path`` with ``meta`` as JSON, never leaving a half-written file visible.

    The temporary file lives in the same folder (so ``os.replace`` is atomic) and starts with
    ``.`` so a folder watcher that skips dot files never lists it.
    """
    data = json.dumps(meta, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def rewrite_meta_in_place(path: Path, meta: Mapping[str, Any]) -> None:
    """Overwrite ``path`` with ``meta`` in place: the fallback when the disk has no room for
    :func:`write_meta_atomic`'s second copy (a sidecar's blocks are already allocated, and
    the final one is a few dozen bytes longer at most). Not atomic."""
    data = json.dumps(meta, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
