"""The recording reverse proxy: forward everything, stream it back untouched, keep the SSE.

Every request is forwarded to the upstream gateway (method, path, query, headers, body) and
its response is relayed chunk by chunk as it arrives, so an agent behind the recorder sees its
events exactly when it would without it. Each ``text/event-stream`` response is also appended,
chunk by chunk, to a capture file in the output folder, with a ``.meta.json`` sidecar holding
the request and response metadata (secrets redacted), so a ``replay-tui`` open on that folder
shows the stream while it is still being written.

Pure asyncio + aiohttp; the TUI runs a :class:`Recorder` inside its own event loop through
:meth:`Recorder.start` and :meth:`Recorder.stop`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import os
import re
import socket
import ssl
import zlib
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

import aiohttp
from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from replay_tui.core.hosts import foreign_request, is_loopback, listen_error
from replay_tui.core.redact import redact_text
from replay_tui.record.metadata import (
    META_VERSION,
    Redactor,
    RequestInfo,
    body_for_meta,
    file_timestamp,
    inspect_request,
    iso_utc,
    meta_path,
    rewrite_meta_in_place,
    safe_model,
    utc_now,
    write_meta_atomic,
)

log = logging.getLogger("replay_tui.record")
# A library must not print on its own: without this, Python's last-resort handler would write
# warnings to stderr, straight over the TUI's screen when the recorder runs inside it.
log.addHandler(logging.NullHandler())

DEFAULT_LISTEN = "127.0.0.1:8787"

# Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection, not the message: the proxy's
# two connections each get their own. Content-Length of the request is recomputed by the
# client from the body it sends; Expect was already answered by our own server.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
_REQUEST_ONLY_DROP = frozenset({"host", "content-length", "expect"})

# Headers aiohttp's client adds by itself when absent. The agent's request is forwarded as the
# agent sent it, so any of these it did not send are suppressed.
_CLIENT_AUTO_HEADERS = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")

# Large enough for chat requests with inline images; aiohttp's default (1 MiB) is not.
_MAX_REQUEST_BODY = 512 * 1024 * 1024


class RecorderError(Exception):
    """A configuration or start-up problem, with a one-line message for the user."""


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``PORT``, or ``[V6]:PORT``) as a host and port; port 0 picks one."""
    text = text.strip()
    host, port_text = "127.0.0.1", text
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or text[end + 1 : end + 2] != ":":
            raise RecorderError(f"--listen: expected HOST:PORT, got {text!r}")
        host, port_text = text[1:end], text[end + 2 :]
    elif ":" in text:
        host, _, port_text = text.rpartition(":")
        host = host or "127.0.0.1"
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise RecorderError(f"--listen: expected HOST:PORT with a port 0-65535, got {text!r}")
    return host, int(port_text)


_HOST = re.compile(r"[A-Za-z0-9._~-]+|[0-9A-Fa-f:.]+(%[^\s/]+)?")
"""A host as a URL carries it: a name (IDNA: ASCII), an IPv4 address or an IPv6 one."""


def is_host(raw_host: str | None) -> bool:
    """Whether a URL's host (as yarl gives it raw) is one: a name, an IPv4 or IPv6 address."""
    return _HOST.fullmatch(raw_host or "") is not None


def parse_upstream(text: str) -> URL:
    """The upstream base URL: ``http(s)://[user:password@]host[:port][/prefix]``, without
    query or fragment.

    A path prefix is kept and put in front of every forwarded path, so both
    ``--upstream https://api.example.com`` with the agent on ``http://recorder/v1`` and
    ``--upstream https://gw.example.com/openai`` work. A ``user:password@`` is sent as HTTP
    Basic authentication, as curl does (see :func:`upstream_auth`); no message repeats the
    password.
    """
    shown = repr(redact_text(text.strip()))
    try:
        url = URL(text.strip())
    except ValueError as exc:
        raise RecorderError(f"--upstream: not a URL: {shown} ({redact_text(str(exc))})") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise RecorderError(f"--upstream: expected an http:// or https:// URL, got {shown}")
    if not is_host(url.raw_host):  # ('http://a b' was taken, and failed at each request)
        raise RecorderError(f"--upstream: not a host name: {shown}")
    if url.raw_query_string or url.raw_fragment:
        raise RecorderError(f"--upstream: must not have a query or fragment, got {shown}")
    return url


def upstream_auth(url: URL) -> str | None:
    """The ``Authorization`` value of HTTP Basic for an upstream URL's ``user:password@``, if
    it has one (UTF-8, as curl sends it)."""
    if url.user is None and url.password is None:
        return None
    pair = f"{url.user or ''}:{url.password or ''}".encode()
    return "Basic " + base64.b64encode(pair).decode("ascii")


def is_event_stream(content_type: str | None) -> bool:
    """Whether a Content-Type names an SSE stream (parameters and case ignored)."""
    if not content_type:
        return False
    return content_type.split(";", 1)[0].strip().lower() == "text/event-stream"


def _connection_tokens(headers: CIMultiDictProxy[str]) -> set[str]:
    # Headers named in Connection are hop-by-hop too (RFC 9110 §7.6.1).
    tokens: set[str] = set()
    for value in headers.getall("Connection", []):
        tokens.update(t.strip().lower() for t in value.split(",") if t.strip())
    return tokens


def forward_request_headers(headers: CIMultiDictProxy[str]) -> CIMultiDict[str]:
    """The agent's headers minus hop-by-hop ones; aiohttp sets Host for the upstream."""
    drop = _HOP_BY_HOP | _REQUEST_ONLY_DROP | _connection_tokens(headers)
    return CIMultiDict((k, v) for k, v in headers.items() if k.lower() not in drop)


def forward_response_headers(headers: CIMultiDictProxy[str]) -> CIMultiDict[str]:
    """The upstream's headers minus hop-by-hop ones; Content-Length and -Encoding pass through.

    The body is relayed without decoding, so the upstream's Content-Length still describes it;
    without one, our server chooses chunked framing for the client connection.
    """
    drop = _HOP_BY_HOP | _connection_tokens(headers)
    return CIMultiDict((k, v) for k, v in headers.items() if k.lower() not in drop)


class BodyDecoder:
    """Undoes gzip/deflate for the capture file only; the client always gets the wire bytes.

    A compressed capture would be unreadable to the trace viewer, and agents commonly send
    ``Accept-Encoding: gzip``. Encodings zlib cannot undo (``br``, ``zstd``, stacked codings)
    are saved as sent, and the sidecar says so.
    """

    def __init__(self, content_encoding: str | None, *, limit: int = 0) -> None:
        """``limit``: bytes made at most from what is fed (0: no limit)."""
        self._limit = limit
        coding = (content_encoding or "").strip().lower()
        self.name: str | None = coding if coding and coding != "identity" else None
        self.decoded = self.name in ("gzip", "x-gzip", "deflate")
        self.error: str | None = None
        self.wire_bytes = 0
        self._obj: Any = None
        self._deflate_sniffed = False
        if self.name in ("gzip", "x-gzip"):
            self._obj = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif self.name == "deflate":
            self._obj = zlib.decompressobj()

    def feed(self, chunk: bytes) -> bytes:
        self.wire_bytes += len(chunk)
        if self._obj is None:
            return chunk
        if self.name == "deflate" and not self._deflate_sniffed:
            self._deflate_sniffed = True
            # "deflate" is meant to be zlib-wrapped, but some servers send raw deflate.
            if chunk and (chunk[0] & 0x0F) != 8:
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
        try:
            out: bytes = self._obj.decompress(chunk, self._limit)
            return out
        except zlib.error as exc:
            # Keep what arrives rather than lose it: the rest is saved as sent.
            self.error = f"{self.name} decoding failed: {exc}"
            self._obj = None
            self.decoded = False
            return chunk

    def flush(self) -> bytes:
        if self._obj is None:
            return b""
        with contextlib.suppress(zlib.error):
            out: bytes = self._obj.flush()
            return out
        return b""

    def describe(self) -> dict[str, Any] | None:
        if self.name is None:
            return None
        info: dict[str, Any] = {
            "content_encoding": self.name,
            "decoded": self.decoded,
            "wire_bytes": self.wire_bytes,
        }
        if self.error:
            info["error"] = self.error
        return info


def _request_body(body: bytes, content_encoding: str | None) -> bytes:
    """A request body as the recorder reads it (its model, its tools, ``--save-bodies``):
    undone, up to :data:`_MAX_REQUEST_BODY` bytes, when the agent compressed it with gzip or
    deflate, else as sent. It is forwarded as sent either way."""
    decoder = BodyDecoder(content_encoding, limit=_MAX_REQUEST_BODY)
    return decoder.feed(body) if decoder.decoded else body


class Capture:
    """One response being written to disk: the body file and its sidecar.

    Writes are synchronous and unbuffered so each chunk is in the file (visible to a watcher)
    before the client receives it. A disk error (a full disk) stops this capture, never the
    relaying: the capture keeps what was written, and its sidecar and the log say why it
    stopped (``write failed: no space left on device``), whatever the stream did after.
    """

    def __init__(
        self,
        path: Path,
        handle: BinaryIO,
        meta: dict[str, Any],
        decoder: BodyDecoder,
    ) -> None:
        self.path = path
        self.meta_path = meta_path(path)
        self.meta = meta
        self.bytes = 0
        self.finished = False
        self._handle: BinaryIO | None = handle
        self._decoder = decoder
        self.saw_done = False
        """Whether the body has had its ``[DONE]`` (an SSE capture that ends without one was
        cut off, however cleanly the HTTP response ended)."""
        self._tail = b""
        self.write_error: str | None = None
        """Why the capture stopped being written (``write failed: …``), if it did."""

    def write(self, chunk: bytes) -> None:
        """Append a chunk (decoded if the response was compressed) and flush it."""
        if self._handle is None:
            return
        data = self._decoder.feed(chunk)
        self._append(data)

    def _append(self, data: bytes) -> None:
        if self._handle is None or not data:
            return
        if not self.saw_done:
            seen = self._tail + data
            self.saw_done = b"[DONE]" in seen
            self._tail = seen[-8:]
        try:
            # An unbuffered file may take part of a chunk (a disk filling up): count what it
            # took, and offer it the rest (which then fails, saying why).
            view = memoryview(data)
            while view:
                written = self._handle.write(view) or 0
                self.bytes += written
                view = view[written:]
        except OSError as exc:
            self.write_error = f"write failed: {os_reason(exc)}"
            log.warning(
                "%s: %s; the capture stops at %d bytes, the client still gets every byte",
                self.path,
                self.write_error,
                self.bytes,
            )
            self.meta["write_error"] = self.write_error
            self._close_handle()

    def _close_handle(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None

    def finish(self, complete: bool, reason: str | None) -> bool:
        """Close the file and rewrite the sidecar; idempotent. True if this call finished it."""
        if self.finished:
            return False
        self.finished = True
        self._append(self._decoder.flush())
        self._close_handle()
        if self.write_error is not None:  # what cut the capture, whatever the stream did
            complete, reason = False, self.write_error
        self.meta.update(
            finished=iso_utc(utc_now()),
            complete=complete,
            incomplete_reason=None if complete else reason,
            bytes=self.bytes,
        )
        encoding = self._decoder.describe()
        if encoding is not None:
            self.meta["encoding"] = encoding
        try:
            write_meta_atomic(self.meta_path, self.meta)
        except OSError as exc:
            # A full disk has no room for a second copy: overwrite the sidecar in place
            # (its blocks are already allocated), so it does not keep saying "unfinished".
            try:
                rewrite_meta_in_place(self.meta_path, self.meta)
            except OSError:
                log.warning("%s: cannot write metadata (%s)", self.meta_path, os_reason(exc))
        return True


CaptureHook = Callable[[Path], None]
CaptureEndHook = Callable[[Path, bool, "str | None"], None]


class Recorder:
    """A recording reverse proxy in front of one upstream gateway.

    ``await start()`` binds and serves in the running event loop; ``await stop()`` stops
    serving, ends the streams in flight, and leaves every capture flushed, the unfinished
    ones marked incomplete ("recorder stopped").
    """

    def __init__(
        self,
        upstream: str,
        out_dir: str | os.PathLike[str] = "traces",
        *,
        listen: str = DEFAULT_LISTEN,
        save_all: bool = False,
        save_bodies: bool = False,
        redact: Iterable[str] = (),
        connect_timeout: float = 30.0,
        read_timeout: float | None = 300.0,
        on_capture: CaptureHook | None = None,
        on_capture_end: CaptureEndHook | None = None,
        allow_remote: bool = False,
    ) -> None:
        """Validate the configuration; raises :class:`RecorderError` with a one-line message.

        ``read_timeout`` is the longest silence tolerated from the upstream (before the
        response headers and between body chunks), not a limit on a stream's total length.
        ``on_capture(path)`` is called when a capture file is created, ``on_capture_end(path,
        complete, reason)`` when it is finished.
        """
        parsed = parse_upstream(upstream)
        self._upstream_auth = upstream_auth(parsed)
        self.upstream = parsed.with_password(None)
        """The upstream as shown (its ``user@``, never its password)."""
        self.host, self.port = parse_listen(listen)
        self.local_only = is_loopback(self.host)
        if not self.local_only and not allow_remote:
            # (it forwards what it is sent to the gateway, with --upstream's credentials)
            raise RecorderError(
                f"--listen {self.host} can be reached from other machines: add --allow-remote"
                " if that is what you want (whoever reaches it uses the gateway as you)"
            )
        self.out_dir = Path(out_dir)
        self.save_all = save_all
        self.save_bodies = save_bodies
        try:
            self._redactor = Redactor(redact)
        except Exception as exc:  # re.error, but also a TypeError from a bad value
            raise RecorderError(f"--redact: invalid pattern: {exc}") from None
        self._timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=connect_timeout, sock_read=read_timeout
        )
        self.on_capture = on_capture
        self.on_capture_end = on_capture_end

        self._request_count = 0
        self._active_streams = 0
        self._capture_count = 0
        self._counter = 0
        self._open: set[Capture] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._stopping = False

    # -- what the TUI footer shows -------------------------------------------------------

    @property
    def address(self) -> str:
        """``HOST:PORT`` the recorder listens on (the real port once started with port 0)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def url(self) -> str:
        """The base URL to give the agent instead of the gateway's."""
        return f"http://{self.address}"

    @property
    def request_count(self) -> int:
        """Requests received since start (all of them, captured or not)."""
        return self._request_count

    @property
    def active_streams(self) -> int:
        """``text/event-stream`` responses being relayed right now."""
        return self._active_streams

    @property
    def capture_count(self) -> int:
        """Capture files created since start."""
        return self._capture_count

    @property
    def running(self) -> bool:
        """Whether the recorder is serving."""
        return self._runner is not None and not self._stopping

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Create the output folder, bind the listening socket and start serving.

        Raises :class:`RecorderError` if the folder cannot be created or the address is
        unavailable.
        """
        if self._runner is not None:
            raise RecorderError("recorder already started")
        # The folders this start creates, outermost first: a start that fails removes them
        # again, so a mistyped --listen leaves no empty --out folder behind.
        created = [p for p in (self.out_dir, *self.out_dir.parents) if not p.exists()][::-1]
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _remove_empty(created)
            raise RecorderError(f"--out: cannot create {self.out_dir}: {exc.strerror}") from None

        self._stopping = False
        self._session = aiohttp.ClientSession(
            timeout=self._timeout,
            # Relay the exact wire bytes; Content-Encoding passes through to the agent.
            auto_decompress=False,
            # A transparent proxy keeps no cookies of its own between requests.
            cookie_jar=aiohttp.DummyCookieJar(),
            # No pool limit: queueing behind 100 long-lived streams would stall agents.
            connector=aiohttp.TCPConnector(limit=0),
        )
        app = web.Application(client_max_size=_MAX_REQUEST_BODY)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        # handler_cancellation: a client hanging up cancels its handler at once, so the
        # upstream stream is closed and the capture finalized without waiting for the next
        # chunk to fail to write.
        # auto_decompress=False: a request body the agent compressed is forwarded as sent, its
        # Content-Encoding with it (unzipped, it went out still marked gzip: a real gateway
        # failed on it, and a body that was not gzip made aiohttp's own 500).
        runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, auto_decompress=False
        )
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except (OSError, socket.gaierror) as exc:
            await runner.cleanup()
            await self._session.close()
            self._session = None
            _remove_empty(created)
            reason = listen_error(exc, "another --listen HOST:PORT, or port 0 for a free one")
            raise RecorderError(f"cannot listen on {self.address}: {reason}") from None
        self._runner = runner
        addresses = runner.addresses
        if addresses:
            self.port = int(addresses[0][1])
        log.debug("listening on %s, forwarding to %s", self.address, self.upstream)

    async def stop(self, grace: float = 5.0) -> None:
        """Stop serving; streams in flight are cut and their captures marked incomplete.

        Safe to call more than once, and before :meth:`start`.
        """
        runner, session = self._runner, self._session
        if runner is None:
            return
        self._stopping = True
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
        # Anything a handler did not get to finalize (it should have) is finalized here.
        for capture in list(self._open):
            self._finish(capture, False, "recorder stopped")
        await runner.cleanup()
        if session is not None:
            await session.close()
        self._runner = None
        self._session = None
        self._tasks.clear()

    async def __aenter__(self) -> Recorder:
        """Start on entering an ``async with`` block."""
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Stop on leaving an ``async with`` block."""
        await self.stop()

    # -- proxying ----------------------------------------------------------------------

    def target_url(self, raw_path_qs: str) -> URL:
        """The upstream URL for a request path (as sent, with its query)."""
        prefix = self.upstream.raw_path.rstrip("/")
        origin = str(self.upstream.origin())
        # encoded=True: forward the path and query exactly as the agent encoded them.
        return URL(f"{origin}{prefix}{raw_path_qs}", encoded=True)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self._request_count += 1
        why = foreign_request(request, self.local_only)
        if why is not None:  # (never forwarded: the gateway's credentials are added to it)
            log.warning("refused %s: %s", self._shown(request), why)
            return _error_response(403, f"this recorder serves this machine's programs ({why})")
        if self._stopping:
            # Accepted in the moment between stop() and the listener closing: answer at once,
            # so a stream started now cannot hold up shutdown.
            return _error_response(503, "recorder is stopping")
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            return await self._proxy(request)
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def _proxy(self, request: web.Request) -> web.StreamResponse:
        session = self._session
        if session is None or not request.raw_path.startswith("/"):
            return web.Response(status=400, text="replay-tui record: bad request target\n")
        try:
            body = await request.read()
        except web.HTTPException:
            raise  # e.g. 413: aiohttp answers it itself
        except (ConnectionError, aiohttp.ClientError, ValueError) as exc:
            # The agent's upload broke off or was malformed; nothing to forward.
            log.warning("%s %s: bad request body: %s", request.method, self._shown(request), exc)
            return _error_response(400, f"bad request body: {exc}")
        target = self.target_url(request.raw_path)
        started = utc_now()
        skip = [h for h in _CLIENT_AUTO_HEADERS if h not in request.headers]
        headers = forward_request_headers(request.headers)
        if self._upstream_auth is not None and "Authorization" not in headers:
            # --upstream http://user:password@host: HTTP Basic, as curl does; an agent that
            # sends its own Authorization keeps it.
            headers["Authorization"] = self._upstream_auth
        try:
            upstream = await session.request(
                request.method,
                target,
                headers=headers,
                data=body if body or "Content-Length" in request.headers else None,
                allow_redirects=False,  # the agent follows redirects, if it wants to
                skip_auto_headers=skip,
            )
        except TimeoutError:
            log.warning("%s %s: upstream timeout", request.method, self._shown(request))
            return _error_response(504, "upstream timeout")
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            problem = upstream_problem(exc, target)
            log.warning("%s %s: upstream error: %s", request.method, self._shown(request), problem)
            return _error_response(502, f"upstream error: {problem}")

        completed = False
        try:
            response, completed = await self._relay(request, upstream, body, target, started)
        finally:
            if completed:
                upstream.release()
            else:
                # The body was not read to its end: this connection cannot be reused, and
                # closing it tells the upstream to stop generating.
                upstream.close()
        return response

    async def _relay(
        self,
        request: web.Request,
        upstream: aiohttp.ClientResponse,
        body: bytes,
        target: URL,
        started: datetime,
    ) -> tuple[web.StreamResponse, bool]:
        """Send the upstream's response on; True beside it if its body was read to the end."""
        response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
        response.headers.extend(forward_response_headers(upstream.headers))
        streaming = is_event_stream(upstream.headers.get("Content-Type"))
        capture: Capture | None = None
        if streaming or self.save_all:
            capture = self._open_capture(request, upstream, body, target, started, streaming)
        if streaming:
            self._active_streams += 1
        try:
            try:
                await response.prepare(request)
            except ConnectionError:
                if capture is not None:
                    self._finish(capture, False, "client disconnected")
                return response, False
            failure = await self._pump(upstream, response, capture)
        except asyncio.CancelledError:
            if capture is not None:
                reason = "recorder stopped" if self._stopping else "client disconnected"
                self._finish(capture, False, reason)
            raise
        except BaseException as exc:
            if capture is not None:
                self._finish(capture, False, f"proxy error: {exc!r}")
            raise
        finally:
            if streaming:
                self._active_streams -= 1

        if failure is None:
            if capture is not None and capture.path.suffix == ".sse" and not capture.saw_done:
                # The upstream ended the body cleanly but the stream without [DONE]: the
                # harness reads that as STREAM_CLOSED, and the capture says so.
                self._finish(capture, False, "upstream ended the stream without [DONE]")
            elif capture is not None:
                self._finish(capture, True, None)
            with contextlib.suppress(ConnectionError):
                await response.write_eof()
            return response, True
        if capture is not None:
            self._finish(capture, False, failure)
        if failure != "client disconnected":
            log.warning("%s %s: %s", request.method, self._shown(request), failure)
            # The upstream broke off: break off the client's response too (no final chunk),
            # so the agent sees the same truncation it would have seen without the proxy.
            # close() still delivers the bytes already written.
            transport = request.transport
            if transport is not None:
                transport.close()
        return response, False

    async def _pump(
        self,
        upstream: aiohttp.ClientResponse,
        response: web.StreamResponse,
        capture: Capture | None,
    ) -> str | None:
        """Relay the body chunk by chunk; None when the upstream finished, else why not."""
        while True:
            try:
                chunk = await upstream.content.readany()
            except TimeoutError:
                return "upstream timeout"
            except aiohttp.ClientPayloadError as exc:
                if isinstance(exc.__cause__, TimeoutError):
                    return "upstream timeout"
                return "upstream disconnected mid-stream"
            except (aiohttp.ClientError, ConnectionError):
                return "upstream disconnected mid-stream"
            if not chunk:
                return None
            # Disk first: once the agent has an event, a watcher can already see it.
            if capture is not None:
                capture.write(chunk)
            try:
                await response.write(chunk)
            except ConnectionError:
                return "client disconnected"

    def _open_capture(
        self,
        request: web.Request,
        upstream: aiohttp.ClientResponse,
        body: bytes,
        target: URL,
        started: datetime,
        streaming: bool,
    ) -> Capture | None:
        readable = _request_body(body, request.headers.get("Content-Encoding"))
        info = inspect_request(readable, request.path)
        meta = self._initial_meta(request, upstream, readable, target, started, info)
        stem = f"{file_timestamp(started)}-{safe_model(info.model)}"
        ext = ".sse" if streaming else ".body"
        try:
            path, handle = self._reserve(stem, ext)
        except OSError as exc:
            log.warning(
                "cannot create a capture in %s (%s); relaying anyway", self.out_dir, os_reason(exc)
            )
            return None
        try:
            write_meta_atomic(meta_path(path), meta)
        except OSError as exc:
            # Without its sidecar a capture is an empty file nobody can account for: remove it.
            handle.close()
            with contextlib.suppress(OSError):
                path.unlink()
            log.warning(
                "cannot create a capture in %s (write failed: %s); relaying anyway",
                self.out_dir,
                os_reason(exc),
            )
            return None
        capture = Capture(path, handle, meta, BodyDecoder(upstream.headers.get("Content-Encoding")))
        self._open.add(capture)
        self._capture_count += 1
        log.info(
            "%s  %s %s -> %d",
            path,
            request.method,
            self._redactor.url(request.path),
            upstream.status,
        )
        if self.on_capture is not None:
            try:
                self.on_capture(path)
            except Exception:
                log.exception("on_capture hook failed for %s", path)
        return capture

    def _reserve(self, stem: str, ext: str) -> tuple[Path, BinaryIO]:
        # The counter makes names unique within a run; exclusive creation ("x") makes them
        # unique against files left by earlier runs or other recorders on the same folder.
        for _ in range(100_000):
            self._counter += 1
            path = self.out_dir / f"{stem}-{self._counter}{ext}"
            if meta_path(path).exists():
                continue
            try:
                handle = open(path, "xb", buffering=0)  # noqa: SIM115 - owned by the Capture
            except FileExistsError:
                continue
            return path, handle
        raise OSError(f"no free capture name for {stem}")

    def _initial_meta(
        self,
        request: web.Request,
        upstream: aiohttp.ClientResponse,
        body: bytes,
        target: URL,
        started: datetime,
        info: RequestInfo,
    ) -> dict[str, Any]:
        redactor = self._redactor
        req: dict[str, Any] = {
            "method": request.method,
            "url": redactor.url(str(target)),
            "path": redactor.url(request.raw_path),
            "model": info.model,
            "tools": info.tools,
            "headers": redactor.headers(request.headers.items()),
        }
        if self.save_bodies:
            req.update(body_for_meta(body))
        return {
            "replay_tui_meta": META_VERSION,
            "request": req,
            "response": {
                "status": upstream.status,
                "reason": upstream.reason or "",
                "headers": redactor.headers(upstream.headers.items()),
            },
            "started": iso_utc(started),
            "finished": None,
            "complete": False,
            "incomplete_reason": None,
            "bytes": 0,
        }

    def _shown(self, request: web.Request) -> str:
        """The request's path and query as the log shows them: credentials redacted."""
        return self._redactor.url(request.raw_path)

    def _finish(self, capture: Capture, complete: bool, reason: str | None) -> None:
        if not capture.finish(complete, reason):
            return
        # (a write error overrides what the stream did: the sidecar has the final word)
        complete, reason = bool(capture.meta["complete"]), capture.meta["incomplete_reason"]
        self._open.discard(capture)
        if complete:
            log.debug("%s complete (%d bytes)", capture.path, capture.bytes)
        else:
            log.info("%s incomplete: %s", capture.path, reason)
        if self.on_capture_end is not None:
            try:
                self.on_capture_end(capture.path, complete, reason)
            except Exception:
                log.exception("on_capture_end hook failed for %s", capture.path)


def upstream_problem(exc: BaseException, target: URL) -> str:
    """Why the upstream could not be reached, in words that fit its scheme.

    aiohttp names the TLS setting in every connection error ("… ssl:default [Connection
    refused]"), which misleads for a plain ``http://`` upstream: say what failed instead.
    """
    if isinstance(exc, aiohttp.ClientConnectorError):
        reason = _connect_reason(exc.os_error) or str(exc)
        where = f"{exc.host}:{exc.port}"
        if target.scheme == "https" and isinstance(exc, aiohttp.ClientSSLError):
            return f"cannot connect to {where} over TLS: {reason}"
        return f"cannot connect to {where}: {reason}"
    return redact_text(str(exc)) or type(exc).__name__


def _connect_reason(err: OSError | None) -> str:
    """Why a connection failed, in the words of what failed: a name that does not resolve
    ("Name or service not known"), a certificate ("certificate verify failed: self-signed
    certificate"), a TLS handshake with what is no TLS server ("wrong version number"), else
    the errno's own words ("Connection refused": asyncio's "Connect call failed ('10.0.0.1',
    80)" repeats the address). The resolver's and TLS's codes are no errno: read as one, -2
    said "Unknown error -2" and a certificate "Operation not permitted"."""
    if err is None:
        return ""
    if isinstance(err, ssl.SSLCertVerificationError) and err.verify_message:
        return f"certificate verify failed: {err.verify_message}"
    if isinstance(err, ssl.SSLError):
        words = str(err.args[1]) if len(err.args) > 1 else str(err)
        return _SSL_PLACE.sub("", words).removeprefix(f"[SSL: {err.reason}] ").strip()
    if isinstance(err, socket.gaierror):
        return err.strerror or str(err)
    return (os.strerror(err.errno) if err.errno else err.strerror) or str(err)


_SSL_PLACE = re.compile(r"\s*\(_ssl\.c:\d+\)")


def os_reason(exc: OSError) -> str:
    """``no space left on device``: the errno's words, as a clause."""
    reason = exc.strerror or (os.strerror(exc.errno) if exc.errno else "") or str(exc)
    return reason[:1].lower() + reason[1:]


def _remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (innermost last in the list) if they are still empty."""
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            return


def _error_response(status: int, message: str) -> web.Response:
    # Plain text, marked as ours, so nobody mistakes it for the gateway's own error.
    return web.Response(status=status, text=f"replay-tui record: {message}\n")
