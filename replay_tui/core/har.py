"""HAR 1.2 exports (browser devtools, mitmproxy, Charles, Proxyman): one stream per SSE entry."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import msgspec

from .errors import msgspec_error
from .request import conversation_of

__all__ = ["HarEntry", "HarError", "parse_har"]


class _Header(msgspec.Struct):
    name: str = ""
    value: str = ""


class _PostData(msgspec.Struct):
    mimeType: str = ""
    text: str | None = None


class _Request(msgspec.Struct):
    method: str = ""
    url: str = ""
    headers: list[_Header] = []
    postData: _PostData | None = None


class _Content(msgspec.Struct):
    mimeType: str = ""
    text: str | None = None
    encoding: str | None = None
    size: int | float | None = None


class _Response(msgspec.Struct):
    status: int | float = 0
    statusText: str = ""
    headers: list[_Header] = []
    content: _Content = msgspec.field(default_factory=_Content)


class _Entry(msgspec.Struct):
    request: _Request = msgspec.field(default_factory=_Request)
    response: _Response = msgspec.field(default_factory=_Response)
    startedDateTime: str = ""
    time: int | float | None = None


class _Log(msgspec.Struct):
    entries: list[msgspec.Raw]
    """Decoded one by one: an entry that breaks the schema costs that entry, not the file."""
    version: str = ""


class _Har(msgspec.Struct):
    log: _Log


_decoder = msgspec.json.Decoder(_Har)
_entry_decoder = msgspec.json.Decoder(_Entry)


class HarError(ValueError):
    """The file is not a usable HAR document; the message says where and why."""


class HarEntry(msgspec.Struct):
    """An entry of a HAR file whose response is a server-sent event stream."""

    number: int
    """1-based position in ``log.entries``, as the exporting tool numbers its rows."""
    body: bytes
    method: str
    url: str
    started: str
    status: int
    status_text: str
    mime_type: str
    model: str | None
    tools: list[str]
    request_headers: list[tuple[str, str]] = msgspec.field(default_factory=list)
    response_headers: list[tuple[str, str]] = msgspec.field(default_factory=list)
    problem: str | None = None
    """Why the entry looks like a stream but its body cannot be read (exporter dropped it…)."""
    conversation: str | None = None
    """A digest of what the request asked (:func:`.request.conversation_of`)."""
    messages: int | None = None
    """How many messages the request held."""


_SSE_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":")


def _is_sse_body(body: bytes) -> bool:
    return body.lstrip(b"\xef\xbb\xbf\r\n").startswith(_SSE_STARTS)


def _is_stream(mime: str, body: bytes) -> bool:
    """Whether a response is an SSE stream: by its MIME type, or a body that starts as one."""
    return "text/event-stream" in mime.lower() or (bool(body) and _is_sse_body(body))


def parse_har(data: bytes) -> tuple[list[HarEntry], int]:
    """The SSE entries of a HAR document, and how many entries it has in all.

    Raises :class:`HarError` when the document is not JSON or not shaped like HAR.
    """
    try:
        har = _decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise HarError(f"not a HAR 1.2 document: {exc}") from None
    except msgspec.DecodeError as exc:
        raise HarError(msgspec_error(data, str(exc))) from None
    except RecursionError:
        raise HarError("not a HAR 1.2 document: nested too deeply") from None
    out: list[HarEntry] = []
    for number, raw in enumerate(har.log.entries, 1):
        try:
            entry = _entry_decoder.decode(raw)
        except (msgspec.ValidationError, RecursionError) as exc:
            broken = _broken_stream(raw, number, exc)
            if broken is not None:
                out.append(broken)
            continue
        content = entry.response.content
        text = content.text
        body = b""
        problem = None
        if text is not None:
            if (content.encoding or "").lower() == "base64":
                try:
                    body = _unbase64(text)
                except (binascii.Error, ValueError) as exc:
                    problem = f"response body is not valid base64: {exc}"
            else:
                body = text.encode("utf-8", "surrogatepass")
        mime = content.mimeType
        request = entry.request
        is_stream = _is_stream(mime, body)
        if not is_stream and not (text is None and not mime and _asks_for_stream(request)):
            continue  # (a response with no body and no type, to a request that asked for
            # a stream, is one the exporter dropped: said, not left out)
        if text is None:
            problem = "the exporter saved no response body for this stream"
        model, tools, conversation, messages = _request_summary(request)
        status = entry.response.status
        out.append(
            HarEntry(
                number=number,
                body=body,
                method=request.method,
                url=request.url,
                started=entry.startedDateTime,
                status=int(status),
                status_text=entry.response.statusText,
                mime_type=content.mimeType,
                model=model,
                tools=tools,
                request_headers=[(h.name, h.value) for h in request.headers],
                response_headers=[(h.name, h.value) for h in entry.response.headers],
                problem=problem,
                conversation=conversation,
                messages=messages,
            )
        )
    return out, len(har.log.entries)


def _unbase64(text: str) -> bytes:
    """A body saved as base64. Line breaks and missing padding are harmless; anything else
    outside the alphabet means the exporter wrote no base64 (``validate=False`` would drop it
    silently): raises ``binascii.Error``."""
    packed = "".join(text.split())
    return base64.b64decode(packed + "=" * (-len(packed) % 4), validate=True)


def _broken_stream(raw: msgspec.Raw, number: int, exc: Exception) -> HarEntry | None:
    """Entry ``number``, which breaks HAR's schema, as a stream that says why it cannot be
    read, when what can be read of it says it is one (its MIME type, or a body starting as
    SSE does); None when it is not a stream (as the entries that are not streams, left out).
    """
    try:
        data: Any = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None

    def get(value: Any, key: str) -> Any:
        return value.get(key) if isinstance(value, dict) else None

    def text(value: Any) -> str:
        return value if isinstance(value, str) else ""

    response = get(data, "response")
    content = get(response, "content")
    mime, said = text(get(content, "mimeType")), text(get(content, "text"))
    body = said.encode("utf-8", "surrogatepass")
    if text(get(content, "encoding")).lower() == "base64":
        try:
            body = _unbase64(said)
        except (binascii.Error, ValueError):
            body = b""
    if not _is_stream(mime, body):
        return None
    where = f"`$.log.entries[{number - 1}]."
    why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
    request = get(data, "request")
    status = get(response, "status")
    return HarEntry(
        number=number,
        body=body,  # what is broken is beside the body: it is judged all the same
        method=text(get(request, "method")),
        url=text(get(request, "url")),
        started=text(get(data, "startedDateTime")),
        status=int(status) if isinstance(status, int | float) and abs(status) < 1e6 else 0,
        status_text=text(get(response, "statusText")),
        mime_type=mime,
        model=None,
        tools=[],
        problem=(
            f"this entry is not HAR 1.2 ({why}); its stream is read as saved"
            if body
            else f"this entry is not HAR 1.2, so its stream cannot be read: {why}"
        ).replace("`$.", where),
    )


def _asks_for_stream(request: _Request) -> bool:
    """Whether the request body asks for a streamed response (``"stream": true``)."""
    post = request.postData
    if post is None or not post.text or '"stream"' not in post.text:
        return False
    try:
        body: Any = msgspec.json.decode(post.text)
    except (msgspec.DecodeError, RecursionError):
        return False
    return isinstance(body, dict) and body.get("stream") is True


def _request_summary(
    request: _Request,
) -> tuple[str | None, list[str], str | None, int | None]:
    """The ``model`` and tool names of a chat-completions request body, when it has them,
    and the digest and message count of what it asked (:func:`.request.conversation_of`)."""
    post = request.postData
    if post is None or not post.text:
        return None, [], None, None
    try:
        body: Any = msgspec.json.decode(post.text)
    except (msgspec.DecodeError, RecursionError):
        return None, [], None, None
    return (*request_model_and_tools(body), *conversation_of(body))


def request_model_and_tools(body: Any) -> tuple[str | None, list[str]]:
    """Pull ``model`` and ``tools[].function.name`` out of a decoded request body."""
    if not isinstance(body, dict):
        return None, []
    model = body.get("model")
    tools: list[str] = []
    raw_tools = body.get("tools")
    if isinstance(raw_tools, list):
        for tool in raw_tools:
            fn = tool.get("function") if isinstance(tool, dict) else None
            name = fn.get("name") if isinstance(fn, dict) else None
            if isinstance(name, str):
                tools.append(name)
    return (model if isinstance(model, str) else None), tools
