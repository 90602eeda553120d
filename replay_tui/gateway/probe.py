"""``replay-tui probe``: each capture through a gateway, what came back saved as a capture.

For each capture, one streaming chat completion is sent to the gateway — its ``model`` the
capture's name (so a gateway that passes models through reaches the capture by name) unless
``--model`` is given, an ``X-Replay-Trace`` header naming the capture (for gateways that
forward it), and tool definitions for the tools the stream calls. What the gateway answers is
written as it arrives to ``OUT/gateway/<capture>.sse`` with a ``.meta.json`` sidecar (the
recorder's format; credentials redacted), beside ``OUT/upstream/<capture>.sse``, what the
upstream streams for it; then judged against the capture (:mod:`.conformance`).

One request at a time: the upstream's choice "in turn" and its log of what it served follow
the captures' order. Everything that can go wrong with a gateway — down, a non-SSE answer, an
HTTP error, no answer in time, a stream that stalls or is cut — is a :class:`Problem` for that
capture, and the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from yarl import URL

from replay_tui.core.discovery import split_entry
from replay_tui.core.visible import visible
from replay_tui.record.metadata import (
    META_VERSION,
    Redactor,
    iso_utc,
    meta_path,
    utc_now,
    write_meta_atomic,
)
from replay_tui.record.proxy import (
    BodyDecoder,
    is_event_stream,
    is_host,
    os_reason,
    upstream_problem,
)

from .captures import ServedCapture
from .conformance import Problem
from .upstream import TRACE_HEADER, Served, Upstream, header_name

__all__ = [
    "GATEWAY_DIR",
    "UPSTREAM_DIR",
    "Probe",
    "ProbeError",
    "Probed",
    "chat_url",
    "output_name",
    "parse_header",
]

_EXCERPT = 200
_CREDENTIAL_NAMES = r".*(key|token|secret|auth|password|passwd|cookie|session).*"


def shown_gateway(url: str) -> str:
    """The gateway's URL as ``probe`` says it (its table, ``--json``, the sidecars): a
    password in it, and a query parameter whose name says it carries a credential, redacted
    (``https://bob:[redacted]@gw/v1?api-key=[redacted]``)."""
    return Redactor([_CREDENTIAL_NAMES]).url(url)


UPSTREAM_DIR = "upstream"
"""Under OUT: each capture as the upstream streamed it."""
GATEWAY_DIR = "gateway"
"""Under OUT: what the gateway returned for it, with its sidecar."""


class ProbeError(Exception):
    """A problem with what was asked (a bad URL or header): one line, exit 2."""


def chat_url(gateway: str) -> URL:
    """The chat completions URL for a gateway's base URL (``…/v1`` gets ``/chat/completions``;
    a URL already ending in ``/chat/completions`` is used as it is)."""
    try:
        url = URL(gateway.strip())
    except ValueError as exc:
        raise ProbeError(f"--gateway: not a URL: {gateway!r} ({exc})") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ProbeError(f"--gateway: expected an http:// or https:// URL, got {gateway!r}")
    if not is_host(url.raw_host):
        raise ProbeError(f"--gateway: not a host name: {gateway!r}")
    if url.path.rstrip("/").endswith("/chat/completions"):
        return url
    return url.with_path(url.path.rstrip("/") + "/chat/completions").with_query(url.query)


def parse_header(text: str) -> tuple[str, str]:
    """``Name: value`` (or ``Name:value``) as a pair; raises :class:`ProbeError` for what
    no HTTP request can carry (said before anything is probed: each capture said "down"
    with aiohttp's words, blamed on the gateway). The value is never echoed: it may be a
    credential."""
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not _TOKEN.fullmatch(name):
        raise ProbeError(f"--header: expected 'Name: value', got a name of {visible(repr(name))}")
    value = value.strip()
    if _CONTROL.search(value):
        raise ProbeError(f"--header {name}: its value holds a control character")
    return name, value


_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""A header's name, as HTTP has it (a token)."""
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def output_name(capture: str) -> str:
    """Where a capture's gateway output goes under OUT: its path, ``.sse`` for its extension
    (``x.har#4`` → ``x-4.sse``)."""
    file, entry = split_entry(capture)
    # Never outside OUT: a capture named by an absolute path, or with "..", stays under it.
    parts = [p for p in file.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    file = "/".join(parts) or "capture"
    stem, dot, _ = file.rpartition(".")
    base = stem if dot and "/" not in file[len(stem) :] else file
    return f"{base}-{entry}.sse" if entry is not None else f"{base}.sse"


@dataclass(slots=True)
class Probed:
    """What one request through the gateway gave: the saved output, or why there is none."""

    capture: ServedCapture
    output: Path | None
    problem: Problem | None
    served: list[Served]
    """What the upstream served for this request, when it runs in this process."""


def _excerpt(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip().replace("\r", " ").replace("\n", " ")
    return text[:_EXCERPT] + ("…" if len(text) > _EXCERPT else "")


def _cut_short(path: Path, meta: dict[str, Any], reason: str) -> None:
    """The gateway's answer at ``path`` stopped being saved for ``reason``: its sidecar says
    so; when that cannot be written either (the disk is full), neither is left behind (an
    empty or unfinished capture the TUI opened on OUT would list)."""
    meta.update(
        finished=iso_utc(utc_now()),
        complete=False,
        incomplete_reason=reason,
        bytes=path.stat().st_size if path.exists() else 0,
    )
    try:
        write_meta_atomic(meta_path(path), meta)
    except OSError:
        for left in (path, meta_path(path)):
            with contextlib.suppress(OSError):
                left.unlink(missing_ok=True)


class Probe:
    """Sends the captures through one gateway, one at a time."""

    def __init__(
        self,
        gateway: str,
        out_dir: str | os.PathLike[str],
        *,
        model: str | None = None,
        headers: Sequence[tuple[str, str]] = (),
        timeout: float = 30.0,
        upstream: Upstream | None = None,
    ) -> None:
        self.url = chat_url(gateway)
        self.out_dir = Path(out_dir)
        self.model = model
        self.headers = list(headers)
        self.timeout = timeout
        self.upstream = upstream
        # The recorder's secret headers, and any whose name says it carries a credential
        # (Portkey's x-portkey-api-key, a gateway's x-…-token).
        self._redactor = Redactor([_CREDENTIAL_NAMES])
        self._names: dict[int, str] = {}
        """Each capture's file name under OUT/upstream and OUT/gateway."""

    async def run(
        self,
        captures: Sequence[ServedCapture],
        on_done: Callable[[Probed], None] | None = None,
    ) -> list[Probed]:
        timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=self.timeout, sock_read=self.timeout
        )
        self._name_outputs(captures)
        out: list[Probed] = []
        async with aiohttp.ClientSession(
            # (the body undone by the recorder's decoder, not aiohttp's: an answer labelled
            # gzip that is not is saved as sent, not lost as a connection dropped)
            timeout=timeout,
            cookie_jar=aiohttp.DummyCookieJar(),
            auto_decompress=False,
        ) as session:
            for capture in captures:
                probed = await self.one(session, capture)
                out.append(probed)
                if on_done is not None:
                    on_done(probed)
        return out

    def _name_outputs(self, captures: Sequence[ServedCapture]) -> None:
        """Two folders probed at once may hold captures of the same name: number the later."""
        taken: set[str] = set()
        for capture in captures:
            name = output_name(capture.name)
            stem, n = name.removesuffix(".sse"), 1
            while name in taken:
                n += 1
                name = f"{stem}-{n}.sse"
            taken.add(name)
            self._names[id(capture)] = name

    def _save_upstream(self, capture: ServedCapture) -> None:
        """What the upstream streams for ``capture``, beside what the gateway made of it: the
        TUI opened on OUT compares the two (the capture's own file may be a HAR or a log)."""
        path = self.out_dir / UPSTREAM_DIR / self._names[id(capture)]
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(capture.body)
        except OSError:  # (the comparison in the report does not need it)
            # A full disk left the copy cut, which the TUI opened on OUT listed as the
            # upstream's stream: no copy rather than a wrong one.
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)

    def _body(self, capture: ServedCapture) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model or capture.name,
            "stream": True,
            # What agents ask for: usage in the stream (a gateway may drop it otherwise).
            "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": f"replay-tui probe: {capture.name}"}],
        }
        if capture.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": name, "parameters": {"type": "object"}},
                }
                for name in capture.tools
            ]
        return body

    async def one(self, session: aiohttp.ClientSession, capture: ServedCapture) -> Probed:
        """Probe one capture; never raises for what the gateway does."""
        if id(capture) not in self._names:
            self._name_outputs([capture])
        self._save_upstream(capture)
        served_before = len(self.upstream.served) if self.upstream is not None else 0
        headers = {"Accept": "text/event-stream", TRACE_HEADER: header_name(capture.name)}
        headers.update(self.headers)
        body = self._body(capture)
        started = utc_now()
        output: Path | None = None
        problem: Problem | None = None
        try:
            async with session.post(self.url, json=body, headers=headers) as response:
                try:
                    output, problem = await self._record(capture, response, body, headers, started)
                except OSError as exc:  # the network's errors are handled inside: this is disk
                    problem = Problem(
                        "unwritable", f"cannot save the gateway's answer: {exc.strerror or exc}"
                    )
        except TimeoutError:
            problem = Problem("timeout", f"no answer from the gateway within {self.timeout:g}s")
        except aiohttp.ClientConnectorError as exc:
            problem = Problem("down", f"gateway {upstream_problem(exc, self.url)}")
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            problem = Problem("down", f"gateway request failed: {upstream_problem(exc, self.url)}")
        served: list[Served] = []
        if self.upstream is not None:
            # Each entry is made before the upstream sends its first byte: all are here.
            served = self.upstream.served[served_before:]
            if problem is None:
                problem = _routing_problem(capture, served)
        return Probed(capture, output, problem, list(served))

    async def _record(
        self,
        capture: ServedCapture,
        response: aiohttp.ClientResponse,
        body: dict[str, Any],
        headers: dict[str, str],
        started: Any,
    ) -> tuple[Path | None, Problem | None]:
        ctype = response.headers.get("Content-Type")
        streaming = is_event_stream(ctype)
        path = self.out_dir / GATEWAY_DIR / self._names[id(capture)]
        if not streaming or response.status >= 400:
            path = path.with_suffix(".body")
        meta = self._meta(capture, response, body, headers, started)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(path, "wb", buffering=0) as handle:
                write_meta_atomic(meta_path(path), meta)
                received, failure, head = await self._pump(response, handle, meta)
        except (asyncio.CancelledError, KeyboardInterrupt):
            # Ctrl-C or SIGTERM mid-stream: the sidecar says so (it said "finished": null,
            # which the TUI's live view reads as a capture still being written)
            _cut_short(path, meta, "probe stopped")
            raise
        except OSError as exc:
            # A full disk: the answer kept so far, its sidecar saying where and why it stops
            # (it said "finished": null, or there was none beside an empty file)
            _cut_short(path, meta, f"write failed: {os_reason(exc)}")
            raise
        return self._finish_record(path, meta, response, streaming, ctype, received, failure, head)

    async def _pump(
        self, response: aiohttp.ClientResponse, handle: Any, meta: dict[str, Any]
    ) -> tuple[int, Problem | None, bytes]:
        """The gateway's body into ``handle`` (undone, when it came gzip or deflate, as the
        recorder saves it, ``meta["encoding"]`` saying so): bytes written, what went wrong,
        its start."""
        received = 0
        failure: Problem | None = None
        head = b""
        decoder = BodyDecoder(response.headers.get("Content-Encoding"))
        while True:
            try:
                chunk = await response.content.readany()
            except TimeoutError:
                failure = Problem(
                    "stalled" if received else "timeout",
                    f"the gateway's stream stalled after {received:,} bytes"
                    f" (nothing for {self.timeout:g}s)"
                    if received
                    else f"the gateway sent its head but no body within {self.timeout:g}s",
                )
                break
            except (aiohttp.ClientPayloadError, aiohttp.ClientError, ConnectionError) as exc:
                cause = exc.__cause__ if isinstance(exc, aiohttp.ClientPayloadError) else exc
                if isinstance(cause, TimeoutError):
                    failure = Problem(
                        "stalled",
                        f"the gateway's stream stalled after {received:,} bytes"
                        f" (nothing for {self.timeout:g}s)",
                    )
                else:
                    failure = Problem(
                        "dropped",
                        f"the gateway dropped the connection mid-stream after {received:,} bytes",
                    )
                break
            if not chunk:
                break
            chunk = decoder.feed(chunk)
            handle.write(chunk)
            received += len(chunk)
            if len(head) < _EXCERPT * 4:
                head += chunk[: _EXCERPT * 4 - len(head)]
        rest = decoder.flush()
        if rest:
            handle.write(rest)
            received += len(rest)
        encoding = decoder.describe()
        if encoding is not None:
            meta["encoding"] = encoding
        return received, failure, head

    def _finish_record(
        self,
        path: Path,
        meta: dict[str, Any],
        response: aiohttp.ClientResponse,
        streaming: bool,
        ctype: str | None,
        received: int,
        failure: Problem | None,
        head: bytes,
    ) -> tuple[Path | None, Problem | None]:
        status_problem: Problem | None = None
        if response.status >= 400:
            status_problem = Problem(
                "http-error",
                f"the gateway answered HTTP {response.status} {response.reason or ''}".rstrip()
                + (f": {_excerpt(head)}" if head else ""),
            )
        elif not streaming:
            status_problem = Problem(
                "not-sse",
                f"the gateway answered HTTP {response.status} with"
                f" {ctype or 'no Content-Type'}, not text/event-stream"
                + (f": {_excerpt(head)}" if head else ""),
            )
        problem = status_problem or failure
        meta.update(
            finished=iso_utc(utc_now()),
            complete=problem is None,
            incomplete_reason=problem.message if problem is not None else None,
            bytes=received,
        )
        write_meta_atomic(meta_path(path), meta)
        return path, problem

    def _meta(
        self,
        capture: ServedCapture,
        response: aiohttp.ClientResponse,
        body: dict[str, Any],
        headers: dict[str, str],
        started: Any,
    ) -> dict[str, Any]:
        redactor = self._redactor
        return {
            "replay_tui_meta": META_VERSION,
            "request": {
                "method": "POST",
                "url": redactor.url(str(self.url)),
                "path": self.url.raw_path,
                "model": body["model"],
                "tools": list(capture.tools),
                "headers": redactor.headers(headers.items()),
            },
            "response": {
                "status": response.status,
                "reason": response.reason or "",
                "headers": redactor.headers(response.headers.items()),
            },
            "started": iso_utc(started),
            "finished": None,
            "complete": False,
            "incomplete_reason": None,
            "bytes": 0,
            "probe": {"capture": capture.name, "gateway": redactor.url(str(self.url))},
        }


def _routing_problem(capture: ServedCapture, served: Sequence[Served]) -> Problem | None:
    """When the upstream runs here: the request must have reached it, for this capture."""
    streamed = [s for s in served if s.stream]
    if not served:
        return Problem(
            "misrouted",
            "the gateway answered without asking the upstream (a cache, or its own answer)",
        )
    if not streamed:
        return Problem(
            "misrouted",
            'the gateway asked the upstream without "stream": true (it was answered with'
            " the assembled completion)",
        )
    wrong = [s for s in streamed if s.capture != capture.name]
    if wrong:
        s = wrong[0]
        return Problem(
            "misrouted",
            f"the gateway's request reached the upstream as {s.capture} (chosen by {s.chosen_by}"
            f"{', model ' + repr(s.model) if s.model else ''}): pass the model through or"
            f" forward the {TRACE_HEADER} header",
        )
    return None
