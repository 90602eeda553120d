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
from urllib.parse import parse_qsl, urlencode

import msgspec

META_SUFFIX = ".meta.json"
META_VERSION = 1
REDACTED = "<redacted>"

# Header names whose values are credentials in the APIs engineers put behind a gateway:
# OpenAI-style bearer tokens, Azure's ``api-key``, Anthropic's ``x-api-key``, Gemini's
# ``x-goog-api-key``, and cookies in both directions.
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api-key",
        "x-api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
    }
)

# Query parameters that carry credentials (Gemini's ``?key=``, signed URLs). The URL is part of
# the sidecar, so a secret in the query string would otherwise reach disk.
SECRET_QUERY_PARAMS = frozenset({"key", "api_key", "api-key", "apikey", "access_token", "token"})

_MODEL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MODEL_IN_PATH = re.compile(r"/models/([^/:?]+)")
_MODEL_MAX = 40


class Redactor:
    """Decides which header (and query parameter) values must not reach disk.

    The built-in secret names always apply; each extra pattern is a regular expression
    matched case-insensitively against the whole name.
    """

    def __init__(self, patterns: Iterable[str] = ()) -> None:
        """Compile the extra patterns; raises ``re.error`` for an invalid one."""
        self._patterns = [re.compile(p, re.IGNORECASE) for p in patterns]

    def is_secret_header(self, name: str) -> bool:
        """Whether a header's value must be replaced by ``<redacted>`` in what is saved."""
        return name.lower() in SECRET_HEADERS or self._matches(name)

    def is_secret_param(self, name: str) -> bool:
        """Whether a query parameter's value must be replaced in the saved URL."""
        return name.lower() in SECRET_QUERY_PARAMS or self._matches(name)

    def _matches(self, name: str) -> bool:
        return any(p.fullmatch(name) for p in self._patterns)

    def headers(self, items: Iterable[tuple[str, str]]) -> dict[str, str]:
        """Headers as a JSON object, secrets replaced.

        Repeated headers (``Set-Cookie``, ``Via``) are joined with ``", "`` so none is lost
        from the object form.
        """
        out: dict[str, str] = {}
        for name, value in items:
            shown = REDACTED if self.is_secret_header(name) else value
            out[name] = f"{out[name]}, {shown}" if name in out else shown
        return out

    def url(self, url: str) -> str:
        """The URL with secret query parameter values replaced; otherwise unchanged."""
        base, sep, query = url.partition("?")
        if not sep:
            return url
        fragment = ""
        if "#" in query:
            query, _, frag = query.partition("#")
            fragment = "#" + frag
        pairs = parse_qsl(query, keep_blank_values=True)
        if not any(self.is_secret_param(k) for k, _ in pairs):
            # Leave an untouched query byte-for-byte as it was sent.
            return url
        cleaned = [(k, REDACTED if self.is_secret_param(k) else v) for k, v in pairs]
        return f"{base}?{urlencode(cleaned, safe='<>')}{fragment}"


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
