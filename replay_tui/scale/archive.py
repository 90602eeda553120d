"""Captures in an archive: listed and read through fsspec URLs, judged in batches.

``s3://bucket/prefix/``, ``gs://bucket/prefix/``, ``file:///srv/captures/`` (or any protocol
fsspec knows and has installed) are scanned like a local folder: the same recognition
(:func:`replay_tui.core.discovery.sniff`: by suffix and by the first bytes, HAR entries as
``#N``, hidden files, temporaries and sidecars passed over, files over the size limit skipped
unread), addresses relative to the URL given, and the same order as the local scan. The
storage library finds credentials and the endpoint where it always does (for S3: the
``AWS_*`` environment variables, ``AWS_ENDPOINT_URL`` included, ``~/.aws``, an instance role).

Recorder sidecars (``<capture>.meta.json``) are not fetched: they only add lines to the TUI's
metadata pane, nothing that ``check`` reports.

fsspec (and s3fs, gcsfs...) are optional: ``pip install 'replay-tui[archive]'``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import msgspec

from ..core.discovery import (
    MAX_TRACE_BYTES,
    SNIFF_BYTES,
    Skipped,
    address_key,
    har_sources,
    is_ignored_name,
    is_recorder_body,
)
from ..core.discovery import sniff as sniff_form
from ..core.result import TraceResult, judge_source
from ..core.trace import Form, Source, Trace

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

__all__ = [
    "EXTRA_HINT",
    "UNREACHABLE",
    "Listed",
    "ScaleError",
    "Unit",
    "batches",
    "is_url",
    "judge_batch",
    "judge_unit",
    "list_url",
    "order_key",
    "plan",
    "unreachable",
]

EXTRA_HINT = "pip install 'replay-tui[archive]'"
BATCH_FILES = 256
"""Captures per task: a million captures are some four thousand tasks, not a million."""
BATCH_BYTES = 64 << 20
"""...and at most this many bytes per task (a larger capture is a task of its own)."""
_WHOLE = 1 << 20
"""Captures up to this size are fetched whole in one request; larger ones are sniffed from
their first bytes first, so a big file that is not a trace costs one small read."""
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*::)*[A-Za-z][A-Za-z0-9+.-]*://")
"""``s3://…``, or a chain such as ``simplecache::s3://…``."""


class ScaleError(Exception):
    """A problem with the scan as a whole (no such protocol, extra not installed, scheduler
    unreachable): the CLI prints ``replay-tui: <message>`` and exits with status 2."""


class Listed(msgspec.Struct, array_like=True, frozen=True):
    """An object found by a listing: what a task needs to read and name it (kept small: a
    million of them are held while a scan runs)."""

    address: str
    """Relative to the URL given, as a local scan names the file; the URL itself for a URL
    that names one object."""
    size: int
    skip: str | None = None
    """Why it is not read at all (a link the URL scan does not follow), known from the
    listing; it keeps its place in the order."""
    path: str | None = None
    """The path on its filesystem when it is not ``<root>/<address>``."""

    def where(self, root: str) -> str:
        """The path on its filesystem, as fsspec names it (``bucket/prefix/a.sse``)."""
        return self.path if self.path is not None else f"{root}/{self.address}"


def is_url(arg: str) -> bool:
    """Whether a ``check`` argument is an fsspec URL (``s3://…``) rather than a local path."""
    return _URL.match(arg) is not None


def _filesystem(url: str) -> tuple[AbstractFileSystem, str]:
    try:
        import fsspec.core
    except ImportError:
        raise ScaleError(f"{url}: reading archives needs fsspec: {EXTRA_HINT}") from None
    try:
        fs, root = fsspec.core.url_to_fs(url)
    except ImportError as exc:  # fsspec knows the protocol; its package is not installed
        raise ScaleError(f"{url}: {exc}") from None
    except ValueError as exc:  # "Protocol not known"
        raise ScaleError(f"{url}: {exc}") from None
    root = str(root)
    return fs, root.rstrip("/") or root


def order_key(address: str) -> tuple[tuple[str, ...], int]:
    """Sort key that puts addresses in the local scan's order (a folder's entries by name,
    a subfolder searched where its name sorts): the walk's own :func:`address_key`."""
    return address_key(address)


def _ignored(address: str) -> bool:
    return any(is_ignored_name(p) or p == "__pycache__" for p in address.split("/"))


UNREACHABLE = "cannot read: storage unreachable"
"""How a read that could not reach the storage at all begins (a connection refused or timed
out: the endpoint is down, not this object): :func:`~.scan.iter_results` stops trying after a
run of them."""
_CONNECTION = frozenset(
    {"ConnectionError", "ClientConnectionError", "ConnectionClosedError", "Timeout"}
)
"""Exception classes (by name: botocore's, aiohttp's, requests', the builtin ones) that say
the storage could not be reached."""


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) says the storage could not be reached at all."""
    seen = 0
    cause: BaseException | None = exc
    while cause is not None and seen < 8:
        if isinstance(cause, ConnectionError | TimeoutError) or _CONNECTION & {
            c.__name__ for c in type(cause).__mro__
        }:
            return True
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return False


def _reason(exc: BaseException) -> str:
    """Why an object could not be listed or read, in the user's terms."""
    if isinstance(exc, FileNotFoundError):
        return "vanished before it could be read"
    if unreachable(exc):
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"{UNREACHABLE} ({type(exc).__name__}: {detail})"
    if isinstance(exc, OSError):
        return f"cannot read: {exc.strerror or exc}"
    return f"cannot read: {type(exc).__name__}: {exc}"


def list_url(url: str) -> tuple[list[Listed], list[Skipped]]:
    """The objects under ``url`` (a folder-like prefix or one object), in the local scan's
    order, and what could not be listed.

    The listing is held in memory, about 250 bytes an object (a million captures: some
    250 MB on the machine that runs ``check``, nothing on the workers). S3 is listed page by
    page; other stores through fsspec's ``find``, which holds every object's full
    description at once (about 1.5 KB each) until the listing is done.
    """
    fs, root = _filesystem(url)
    prefix = root + "/"
    links: list[str] = []

    def make(path: str, info: dict[str, Any]) -> Listed | None:
        address = path[len(prefix) :] if path.startswith(prefix) else path
        if not address or _ignored(address):
            return None
        if info.get("islink"):
            links.append(address)
        return Listed(address, int(info.get("size") or 0))

    try:
        found = _find(fs, root, make)
        if not found:
            info = fs.info(root)
            if info.get("type") == "file":
                return [Listed(url, int(info.get("size") or 0), path=root)], []
            return [], []
    except FileNotFoundError:
        return [], [Skipped(url, "no such file or folder")]
    except Exception as exc:  # storage clients raise their own kinds; the scan goes on
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return [], [Skipped(url, f"cannot list: {reason or type(exc).__name__}")]
    if links:  # file:// only: a link is checked where it points
        problems = {a: _link_problem(fs, f"{root}/{a}") for a in links}
        found = [
            Listed(i.address, i.size, problems[i.address]) if problems.get(i.address) else i
            for i in found
        ]
    found.sort(key=lambda item: order_key(item.address))
    return found, []


def _find(
    fs: AbstractFileSystem, root: str, make: Callable[[str, dict[str, Any]], Listed | None]
) -> list[Listed]:
    """Every file below ``root`` through ``make``; nothing when ``root`` is no folder."""
    iterdir = getattr(fs, "_iterdir", None)
    if "s3" in _protocols(fs) and iterdir is not None:
        from fsspec.asyn import sync

        bucket, _, key = root.partition("/")

        async def collect() -> list[Listed]:
            out = []
            async for info in iterdir(bucket, delimiter="", prefix=f"{key}/" if key else ""):
                if info.get("type") == "file":
                    made = make(str(info["name"]), info)
                    if made is not None:
                        out.append(made)
            return out

        result: list[Listed] = sync(fs.loop, collect)
        return result
    found: dict[str, dict[str, Any]] = fs.find(root, detail=True, withdirs=False)
    if len(found) == 1 and next(iter(found)).rstrip("/") == root:
        return []  # root is one object: the caller asks for its info
    return [m for path, info in found.items() if (m := make(path, info)) is not None]


def _protocols(fs: AbstractFileSystem) -> tuple[str, ...]:
    protocol = fs.protocol
    return (protocol,) if isinstance(protocol, str) else tuple(protocol)


def _link_problem(fs: AbstractFileSystem, path: str) -> str | None:
    """A symbolic link (``file://`` only): a link to a file is read through; a dangling one
    and one to a folder are skipped (fsspec does not descend into linked folders; give the
    folder as a plain path, which the local scan follows, loops excluded)."""
    try:
        if fs.isdir(path):
            return "link to a folder: not followed in a URL scan (give it as a plain path)"
        if not fs.exists(path):
            return "dangling symlink (its target does not exist)"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    return None


def batches(
    items: Sequence[Listed], *, files: int = BATCH_FILES, size: int = BATCH_BYTES
) -> Iterator[list[Listed]]:
    """Consecutive runs of ``items`` of at most ``files`` objects and ``size`` bytes (an
    object larger than ``size``, or skipped for its size unread, is a batch of its own)."""
    batch: list[Listed] = []
    total = 0
    for item in items:
        weight = item.size if item.size <= MAX_TRACE_BYTES else 0
        if batch and (len(batch) >= files or total + weight > size):
            yield batch
            batch, total = [], 0
        batch.append(item)
        total += weight
    if batch:
        yield batch


def judge_batch(
    url: str, items: Sequence[Listed], clients: bool = False
) -> list[TraceResult | Skipped]:
    """Read, recognise and judge ``items`` (listed under ``url``), one result per trace in
    order (a HAR file gives one per SSE entry). This is the task a Dask worker runs: it opens
    the storage itself, and only the results travel back. An object that cannot be read is
    one :class:`Skipped` with the reason; the batch goes on."""
    fs, root = _filesystem(url)
    small = [i for i in items if i.size <= _WHOLE and i.skip is None]
    data: dict[str, bytes | BaseException] = {}
    if small:
        got = fs.cat_ranges([i.where(root) for i in small], None, None, on_error="return")
        data = {i.address: d for i, d in zip(small, got, strict=True)}
    out: list[TraceResult | Skipped] = []
    for item in items:
        path = item.where(root)
        fetched = data.get(item.address)
        body = _read_large(fs, path, item) if fetched is None else fetched
        out += _judge_object(item, path, body, clients)
    return out


def _read_large(fs: AbstractFileSystem, path: str, item: Listed) -> bytes | BaseException | str:
    """A large object's bytes, or why it is not read (a reason string), or the exception."""
    if item.skip is not None:
        return item.skip
    if item.size > MAX_TRACE_BYTES:
        return str(sniff_form(path, item.size, b""))
    try:
        head = fs.cat_file(path, 0, SNIFF_BYTES)
        form = sniff_form(path, item.size, head)
        if not isinstance(form, Form):
            return str(form)
        return bytes(fs.cat_file(path))
    except Exception as exc:  # the storage client's own errors included
        return exc


def _judge_object(
    item: Listed, where: str, body: bytes | BaseException | str, clients: bool
) -> list[TraceResult | Skipped]:
    if item.skip is not None:
        return [Skipped(item.address, item.skip)]
    if isinstance(body, str):
        return [Skipped(item.address, body)]
    if isinstance(body, BaseException):
        return [Skipped(item.address, _reason(body))]
    name = PurePosixPath(where).name
    form = sniff_form(name, len(body), body[:SNIFF_BYTES])
    if not isinstance(form, Form):  # a Form is a str too: test for it first
        return [] if is_recorder_body(name) else [Skipped(item.address, form)]
    path = Path(where)
    if form is Form.HAR:
        found = har_sources(path, item.address, body)
        if isinstance(found, Skipped):
            return [found]
        return [
            item if isinstance(item, Skipped) else _judge(item, None, clients) for item in found
        ]
    return [_judge(Source(path, item.address, form), body, clients)]


def _judge(source: Source, data: bytes | None, clients: bool) -> TraceResult | Skipped:
    return judge_source(source, data, _assess_json if clients else None)


def _assess_json(trace: Trace) -> dict[str, Any]:
    from ..clientlibs import assess_json  # only now: a plain scan never pays for it

    return assess_json(trace)


Unit = tuple[str, list[Listed]] | Skipped
"""A batch to judge (the URL it was listed under, its objects), or a listing failure."""


def plan(
    urls: Sequence[str], *, files: int = BATCH_FILES, size: int = BATCH_BYTES
) -> Iterator[Unit]:
    """The scan of ``urls`` as work units, in output order: each URL is listed when its turn
    comes. A local process pool (``check --jobs``) can map :func:`judge_unit` over these in
    order (``Pool.imap``) and get what :func:`iter_results` yields."""
    for url in urls:
        items, skipped = list_url(url)
        yield from skipped
        for group in batches(items, files=files, size=size):
            yield url, group


def judge_unit(unit: Unit, clients: bool = False) -> list[TraceResult | Skipped]:
    """One unit's results: a listing failure as it is, a batch judged (:func:`judge_batch`)."""
    if isinstance(unit, Skipped):
        return [unit]
    url, batch = unit
    return judge_batch(url, batch, clients)
