"""Finding traces: a recursive scan that names every file it cannot use, once, with why.

Forms are recognised as SPEC §2 says: by extension (``.sse .txt .log .stream .bin``,
``.jsonl .ndjson``, ``.har``) and, for anything else, by content (an SSE field or an HTTP
status line at the start). Hidden files and folders, editor and download temporaries, and a
recorder's ``.meta.json`` sidecars are not traces and are passed over silently.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

import msgspec

from .har import HarError, parse_har
from .http import looks_like_http
from .trace import Form, Source, read_sidecar

__all__ = [
    "MAX_TRACE_BYTES",
    "SNIFF_BYTES",
    "Discovery",
    "Skipped",
    "classify",
    "discover",
    "har_sources",
    "is_ignored_name",
    "sniff",
]

SSE_SUFFIXES = frozenset({".sse", ".txt", ".log", ".stream", ".bin"})
JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
HAR_SUFFIXES = frozenset({".har"})
SIDECAR_SUFFIX = ".meta.json"
SNIFF_BYTES = 4096
MAX_TRACE_BYTES = 1 << 30
"""Larger files are listed as skipped, not read: a loaded trace takes about 5x its size in
memory (docs/robustness.md), and a runaway file (a log grown for weeks, /proc/kcore through a
symlink) must not take the machine down with it."""
_SSE_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":")
_TEMP_SUFFIXES = (".tmp", ".temp", ".swp", ".swx", ".part", ".crdownload", ".partial", "~")


class Skipped(msgspec.Struct):
    """A file that is not a trace, or that could not be read; listed once, with the reason."""

    path: str
    reason: str
    line: int | None = None


class Discovery(msgspec.Struct):
    sources: list[Source] = msgspec.field(default_factory=list)
    skipped: list[Skipped] = msgspec.field(default_factory=list)


def is_ignored_name(name: str) -> bool:
    """Hidden files, temporaries and sidecars: never traces, never worth a message."""
    return (
        name.startswith((".", "#", "~$"))
        or name.endswith(_TEMP_SUFFIXES)
        or name.endswith(SIDECAR_SUFFIX)
    )


def discover(paths: Sequence[str | os.PathLike[str]]) -> Discovery:
    """Every trace under ``paths`` (folders are searched recursively), in a stable order."""
    out = Discovery()
    for given in paths:
        root = Path(given)
        if root.is_dir():
            for path, address in _walk(root, out):
                classify(path, address, out)
        elif root.is_file():
            classify(root, Path(given).as_posix(), out)
        else:
            out.skipped.append(Skipped(str(given), _missing_reason(root)))
    return out


def _missing_reason(path: Path) -> str:
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop"
        if path.is_symlink():
            return "dangling symlink (its target does not exist)"
        if exc.errno == errno.ENOENT:
            return "no such file or folder"
        return exc.strerror or str(exc)
    return "not a regular file"


def _walk(root: Path, out: Discovery) -> Iterable[tuple[Path, str]]:
    """Files below ``root`` with their addresses, following folder symlinks without looping."""
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            st = folder.stat()
        except OSError as exc:
            out.skipped.append(
                Skipped(
                    _rel(folder, root) + "/",
                    _missing_reason(folder)
                    if exc.errno in (errno.ELOOP, errno.ENOENT)
                    else exc.strerror or str(exc),
                )
            )
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            continue
        seen.add(key)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            out.skipped.append(
                Skipped(_rel(folder, root) + "/", f"cannot list folder: {exc.strerror or exc}")
            )
            continue
        subfolders = []
        for entry in entries:
            if is_ignored_name(entry.name) or entry.name == "__pycache__":
                continue
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir()
                is_file = entry.is_file()
            except OSError:
                is_dir = is_file = False
            if is_dir:
                subfolders.append(path)
            elif is_file:
                yield path, _rel(path, root)
            else:
                out.skipped.append(Skipped(_rel(path, root), _missing_reason(path)))
        stack.extend(reversed(subfolders))


def _unreadable(path: Path, exc: OSError) -> str:
    """Why a listed file could not be opened, in the user's terms."""
    if exc.errno == errno.ELOOP or path.is_symlink():
        return _missing_reason(path)
    if exc.errno == errno.ENOENT:
        return "vanished before it could be read"
    return f"cannot read: {exc.strerror or exc}"


def _rel(path: Path, root: Path) -> str:
    try:
        rel = path.relative_to(root)
    except ValueError:
        return path.as_posix()
    return rel.as_posix() if str(rel) != "." else root.name or "."


def classify(path: Path, address: str, out: Discovery) -> None:
    """Add the trace(s) ``path`` holds to ``out``, or say why it holds none."""
    try:
        with path.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        out.skipped.append(Skipped(address, _unreadable(path, exc)))
        return
    form = sniff(path.name, size, head)
    if not isinstance(form, Form):  # a Form is a str too: test for it first
        out.skipped.append(Skipped(address, form))
    elif form is Form.HAR:
        _classify_har(path, address, out)
    elif form is Form.JSONL:
        out.sources.append(Source(path, address, Form.JSONL))
    else:
        out.sources.append(Source(path, address, form, sidecar=read_sidecar(path)))


def sniff(name: str, size: int, head: bytes) -> Form | str:
    """What a file called ``name`` of ``size`` bytes that starts with ``head`` (its first
    :data:`SNIFF_BYTES` bytes, or all of it when shorter) holds: a trace :class:`Form`, or
    (any other ``str``) why it holds none. Pure: the local scan and the archive scan
    (``replay_tui.scale.archive``) share it. A HAR document is only recognised here;
    :func:`har_sources` reads its entries."""
    suffix = PurePosixPath(name).suffix.lower()
    if size > MAX_TRACE_BYTES:
        return f"too large: {size:,} bytes (traces are read up to {_limit()})"
    if suffix in HAR_SUFFIXES:
        return Form.HAR
    if not head:
        return "empty file"
    if suffix in JSONL_SUFFIXES:
        return Form.JSONL
    if looks_like_http(head):
        return Form.HTTP
    stripped = head.removeprefix(b"\xef\xbb\xbf")
    if stripped.lstrip(b"\r\n").startswith(_SSE_STARTS):
        return Form.SSE
    if suffix in SSE_SUFFIXES:
        if b"\x00" in head:
            return "binary file (NUL bytes), not an SSE body"
        if b"\ndata:" in head or b"\rdata:" in head:
            return Form.SSE
        return "no SSE field in its first 4 KB (expected lines like 'data: {...}')"
    return _not_a_trace(suffix, head)


def _not_a_trace(suffix: str, head: bytes) -> str:
    if b"\x00" in head:
        return "binary file, not a trace"
    if suffix == ".json" or head.lstrip().startswith((b"{", b"[")):
        return "JSON that is not a trace (a chunk log needs .jsonl; a HAR export needs .har)"
    return f"not a trace ({suffix or 'no extension'}; content is not SSE or an HTTP response)"


def _limit() -> str:
    mib = MAX_TRACE_BYTES / (1 << 20)
    return f"{mib / 1024:g} GiB" if mib >= 1024 else f"{mib:g} MiB"


def _classify_har(path: Path, address: str, out: Discovery) -> None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        out.skipped.append(Skipped(address, f"cannot read: {exc.strerror or exc}"))
        return
    found = har_sources(path, address, data)
    if isinstance(found, Skipped):
        out.skipped.append(found)
    else:
        out.sources += found


def har_sources(path: Path, address: str, data: bytes) -> list[Source] | Skipped:
    """The SSE entries of the HAR document ``data`` (read from ``path``, found at
    ``address``) as sources addressed ``address#N``, or why it has none."""
    if not data.strip():
        return Skipped(address, "empty file")
    try:
        entries, total = parse_har(data)
    except HarError as exc:
        return Skipped(address, str(exc))
    if not entries:
        return Skipped(
            address,
            f"HAR with {total} entr{'y' if total == 1 else 'ies'}, none of them an SSE stream",
        )
    return [Source(path, f"{address}#{entry.number}", Form.HAR, entry) for entry in entries]
