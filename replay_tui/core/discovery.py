"""Finding traces: a recursive scan that names every file it cannot use, once, with why.

Forms are recognised as the README's Trace files section says: by extension (``.sse .txt
.log .stream .bin``, ``.jsonl .ndjson``, ``.har``) and, for anything else, by content (an SSE
field or an HTTP status line at the start). Hidden files and folders, editor and download
temporaries, and a recorder's side files (``.meta.json`` sidecars, the ``.body`` files of
``record --all``) are not traces and are passed over silently.

:func:`walk` lists candidate files lazily, in address order, without opening them: ``check`` on
a hundred thousand captures holds one file at a time (:func:`discover` collects everything, for
callers that want the whole list). ``FILE.har#N`` names one entry of a HAR file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

import msgspec

from .files import NotRegularFile, open_regular, read_regular
from .har import HarError, parse_har
from .http import looks_like_http, parse_head
from .trace import Form, Source, read_sidecar
from .visible import visible

__all__ = [
    "MAX_TRACE_BYTES",
    "SNIFF_BYTES",
    "Candidate",
    "Discovery",
    "Skipped",
    "address_key",
    "classify",
    "classify_candidate",
    "discover",
    "entry_list",
    "entry_of",
    "folder_prefix",
    "har_sources",
    "is_ignored_name",
    "said_list",
    "sniff",
    "split_entry",
    "walk",
]

SSE_SUFFIXES = frozenset({".sse", ".txt", ".log", ".stream", ".bin"})
JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
HAR_SUFFIXES = frozenset({".har"})
SIDECAR_SUFFIX = ".meta.json"
RECORDER_BODY_SUFFIX = ".body"
"""What ``record --all`` writes for a response that is not a stream: never listed as a problem."""
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


class Candidate(NamedTuple):
    """A file the walk found, not yet opened (cheap to hold, to pickle, to send to a worker)."""

    path: str
    address: str
    entry: int | None = None
    """``FILE.har#N`` on the command line: only that entry of the file."""
    stamp: tuple[int, int] | None = None
    """Its size and modification time (ns) when walked, if asked for (``walk(stat=True)``)."""


_ENTRY = re.compile(r"^(?P<file>.+)#(?P<number>[0-9]+)$")


def address_key(address: str) -> tuple[tuple[str, ...], int]:
    """The order traces are listed in: by path component, then a HAR file's entries by number.

    :func:`walk` yields files in this order; a pool or a cluster that judges them out of order
    sorts its results back with it.
    """
    match = _ENTRY.match(address)
    if match is not None:
        return tuple(match["file"].split("/")), int(match["number"])
    return tuple(address.split("/")), 0


def entry_of(address: str) -> tuple[str, int | None]:
    """``("d/x.har", 3)`` for the address of a HAR file's entry ``d/x.har#3``, else
    ``(address, None)`` (pure: by the address alone)."""
    match = _ENTRY.match(address)
    if match is None:
        return address, None
    return match["file"], int(match["number"])


def entry_list(numbers: Sequence[int], last: str, shown: int) -> str:
    """HAR entry numbers for a message: ``#2, #4 or #5`` (see :func:`said_list`)."""
    return said_list([f"#{n}" for n in numbers], last, shown)


def said_list(words: Sequence[str], last: str, shown: int) -> str:
    """Words for a message: ``a, b or c`` (``last``: the word before the last one); more
    than ``shown + 1`` of them: the first ``shown``, then ``…``."""
    if len(words) > shown + 1:
        return ", ".join(words[:shown]) + ", …"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + f" {last} " + words[-1]


def split_entry(given: str) -> tuple[str, int | None]:
    """``("x.har", 3)`` for ``x.har#3`` (unless a file is literally named so), else
    ``(given, None)``."""
    match = _ENTRY.match(given)
    if match is None or os.path.lexists(given):
        return given, None
    return match["file"], int(match["number"])


def is_ignored_name(name: str) -> bool:
    """Hidden files, temporaries and sidecars: never traces, never worth a message."""
    return (
        name.startswith((".", "#", "~$"))
        or name.endswith(_TEMP_SUFFIXES)
        or name.endswith(SIDECAR_SUFFIX)
    )


def discover(paths: Sequence[str | os.PathLike[str]], *, prefix_folders: bool = False) -> Discovery:
    """Every trace under ``paths`` (folders are searched recursively), in a stable order
    (``prefix_folders``: see :func:`walk`)."""
    out = Discovery()
    for item in walk(paths, prefix_folders=prefix_folders):
        if isinstance(item, Skipped):
            out.skipped.append(item)
        else:
            classify_candidate(item, out)
    return out


def walk(
    paths: Sequence[str | os.PathLike[str]], *, stat: bool = False, prefix_folders: bool = False
) -> Iterator[Candidate | Skipped]:
    """The files under ``paths``, lazily and in :func:`address_key` order per path given.

    A path that is neither a file nor a folder, and a folder that cannot be listed, come out
    as :class:`Skipped` where they are met. ``stat``: each file's size and modification time
    come with it (taken as its folder is listed, relative to the open folder: about two
    thirds of what a stat of each full path costs afterwards, the path lookups saved).
    ``prefix_folders``: with several paths, a folder's files are addressed from the folder
    as given (:func:`folder_prefix`), as one list of them all needs (the TUI); else each
    relative to its folder, as ``check`` reports them.
    """
    several = prefix_folders and len(paths) > 1
    for given in paths:
        text = os.fspath(given)
        name, entry = split_entry(text) if isinstance(text, str) else (text, None)
        root = Path(name)
        if entry is None and root.is_dir():
            out = Discovery()
            for batch in _walk(root, out, stat, folder_prefix(name, several)):
                if out.skipped:
                    yield from out.skipped
                    out.skipped.clear()
                yield from batch
            yield from out.skipped
        elif root.is_file():
            stamp = None
            if stat:
                with contextlib.suppress(OSError):
                    st = root.stat()
                    stamp = (st.st_size, st.st_mtime_ns)
            # A HAR entry named (FILE.har#N) is listed at its own address: two entries of one
            # file named are two rows, not one file listed twice.
            address = Path(name).as_posix() + ("" if entry is None else f"#{entry}")
            yield Candidate(str(root), address, entry, stamp)
        elif root.is_dir():  # FILE.har#N, where FILE is a folder
            yield Skipped(text, "a folder: #N names a stream of a HAR file, not of a folder")
        else:
            yield Skipped(text if isinstance(text, str) else str(given), _missing_reason(root))


def missing_reason(given: str) -> str | None:
    """Why a path named on the command line names nothing (``None`` when it names something)."""
    name, _ = split_entry(given)
    if not name.strip():  # Path("") is Path("."): an empty argument would scan the folder
        return "an empty path names nothing (. is the current folder)"
    root = Path(name)
    if root.is_dir() or root.is_file():
        return None
    if not os.path.lexists(name) and not root.parent.exists():
        return "no such file or folder"
    return _missing_reason(root)


def classify_candidate(candidate: Candidate, out: Discovery) -> None:
    """:func:`classify` for one walked file, keeping only the entry ``FILE.har#N`` names."""
    path = Path(candidate.path)
    if candidate.entry is None:
        classify(path, candidate.address, out)
        return
    found = Discovery()
    wanted = candidate.address
    whole = entry_of(wanted)[0]
    classify(path, whole, found)
    picked = [s for s in found.sources if s.address == wanted]
    # why the entry (its body lost), or the whole file, was skipped
    said = [s for s in found.skipped if s.path in (wanted, whole)]
    if picked:
        out.sources.extend(picked)
    elif said:
        out.skipped.extend(said)
    elif found.sources and all(s.entry is None for s in found.sources):
        # Not a HAR file (one stream, named by the file alone): #N names nothing in it.
        why = f"not a HAR file (#{candidate.entry} names an entry of a HAR export): name it alone"
        out.skipped.append(Skipped(wanted, why))
    else:
        numbers = [n for _, n in map(entry_of, (s.address for s in found.sources)) if n]
        where = "" if not numbers else f" (streams are at {entry_list(numbers, 'and', 3)})"
        out.skipped.append(Skipped(wanted, f"no SSE stream at entry #{candidate.entry}{where}"))


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


_Stamp = tuple[int, int] | None


def folder_prefix(given: str | os.PathLike[str], several: bool) -> str:
    """What the addresses of a folder's files start with: nothing when it is the one path
    given (``a.sse``), else the folder as given (``traces/dashscope/a.sse``), so that two
    folders' files of the same name stay two traces, and each is listed under its folder."""
    if not several:
        return ""
    folder = Path(os.path.normpath(os.fspath(given))).as_posix()
    return "" if folder == "." else f"{folder.rstrip('/')}/"


def _walk(root: Path, out: Discovery, stat: bool, prefix: str = "") -> Iterator[list[Candidate]]:
    """Files below ``root`` in address order (a folder's entries by name, subfolders where
    their name sorts), following folder symlinks without looping: in batches, each a run of
    files side by side in one folder (a folder of 100,000 captures is a few runs, not
    100,000 steps of a generator).

    Problems are appended to ``out.skipped`` as they are met, before the next batch is
    yielded. Paths are joined as strings: for a folder of 100,000 captures, ``pathlib``
    would cost the scan more than listing the folders does.
    """
    seen: set[tuple[int, int]] = set()
    # Depth-first over sorted listings, one per open level: [folder/, address/, listing,
    # next position]. A listing holds only (name, kind, stamp), so a folder of 100,000
    # captures costs a few MB while it is walked.
    levels: list[list[Any]] = []
    opened = _list_folder(root, _rel(root, root), seen, out, stat)
    if opened is not None:
        levels.append([os.path.join(os.fspath(root), ""), prefix, opened, 0])  # (ends with "/")
    while levels:
        level = levels[-1]
        folder, prefix, listing, i = level
        end = i
        while end < len(listing) and listing[end][1] == _FILE:
            end += 1
        if end > i:
            level[3] = end
            yield [
                Candidate(folder + name, prefix + name, None, stamp)
                for name, _, stamp in listing[i:end]
            ]
            continue
        if i == len(listing):
            levels.pop()
            continue
        level[3] = i + 1
        name, kind, _ = listing[i]
        path, address = folder + name, prefix + name
        if kind == _FOLDER:
            sub = _list_folder(Path(path), address, seen, out, stat)
            if sub is not None:
                levels.append([path + "/", address + "/", sub, 0])
        else:
            out.skipped.append(Skipped(address, _missing_reason(Path(path))))


_FOLDER, _FILE, _OTHER = 0, 1, 2


def _list_folder(
    folder: Path, address: str, seen: set[tuple[int, int]], out: Discovery, stat: bool
) -> list[tuple[str, int, _Stamp]] | None:
    """The entries of ``folder`` sorted by name, each with its kind (and a file's size and
    mtime, with ``stat``); ``None`` when the folder was seen before (a symlink loop) or
    cannot be listed (noted in ``out``)."""
    try:
        st = folder.stat()
    except OSError as exc:
        out.skipped.append(
            Skipped(
                address + "/",
                _missing_reason(folder)
                if exc.errno in (errno.ELOOP, errno.ENOENT)
                else exc.strerror or str(exc),
            )
        )
        return None
    key = (st.st_dev, st.st_ino)
    if key in seen:
        return None
    seen.add(key)
    entries: list[tuple[str, int, _Stamp]] = []
    try:
        # Listed through an open folder: a file's stat is then relative to it (fstatat).
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY) if stat else None
        try:
            with os.scandir(folder if fd is None else fd) as listing:
                for entry in listing:
                    name = entry.name
                    if is_ignored_name(name) or name == "__pycache__":
                        continue
                    try:
                        kind = _FOLDER if entry.is_dir() else _FILE if entry.is_file() else _OTHER
                    except OSError:
                        kind = _OTHER
                    stamp: _Stamp = None
                    if kind == _FILE and fd is not None:
                        try:
                            found = entry.stat()
                        except OSError:
                            pass  # gone already: said when it is judged
                        else:
                            stamp = (found.st_size, found.st_mtime_ns)
                    entries.append((name, kind, stamp))
        finally:
            if fd is not None:
                os.close(fd)
    except OSError as exc:
        out.skipped.append(Skipped(address + "/", f"cannot list folder: {exc.strerror or exc}"))
        return None
    entries.sort()
    return entries


def _unreadable(path: Path, exc: OSError) -> str:
    """Why a listed file could not be opened, in the user's terms."""
    if isinstance(exc, NotRegularFile):  # replaced since it was listed (a pipe: never read)
        return exc.strerror or "not a regular file"
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
        with open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        out.skipped.append(Skipped(address, _unreadable(path, exc)))
        return
    form = sniff(path.name, size, head)
    if not isinstance(form, Form):  # a Form is a str too: test for it first
        if not is_recorder_body(path.name):
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
    encoded = _encoded(head)
    if encoded is not None:
        return encoded
    if suffix in JSONL_SUFFIXES:
        return Form.JSONL
    if looks_like_http(head):
        return _compressed_body(head) or _not_a_stream(head) or Form.HTTP
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


_MAGIC = {
    b"\x1f\x8b": "gzip-compressed: decompress it first (gunzip), or capture with curl --compressed",
    b"\x28\xb5\x2f\xfd": "zstd-compressed: decompress it first (zstd -d)",
    b"\xff\xfe": "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)",
    b"\xfe\xff": "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)",
}
_CONTENT_ENCODING = re.compile(
    rb"(?im)^content-encoding:[ \t]*(gzip|x-gzip|br|deflate|zstd)[ \t]*\r?$"
)


def _encoded(head: bytes) -> str | None:
    """Why a file that is a trace compressed, or in UTF-16, cannot be read as it is (it read
    as "binary (NUL bytes)", or as a stream of U+FFFD the gateway cut)."""
    for magic, why in _MAGIC.items():
        if head.startswith(magic):
            return why
    if head[1:8:2] == b"\x00\x00\x00\x00" and head[0:8:2].isascii() and head[0]:
        return (
            "UTF-16 text (no byte-order mark): convert it to UTF-8 first"
            " (iconv -f UTF-16LE -t UTF-8)"
        )
    return None


def _compressed_body(head: bytes) -> str | None:
    """An HTTP capture (``curl -i``) whose body the server compressed and the client saved so:
    its events cannot be read."""
    found = _CONTENT_ENCODING.search(head)
    if found is None:
        return None
    body = re.split(rb"\r?\n\r?\n", head[found.end() :], maxsplit=1)
    if len(body) == 2 and body[1].lstrip(b"\r\n").startswith(_SSE_STARTS):
        return None  # (the header says so, and yet the body is plain events: read it)
    coding = found.group(1).decode("ascii").lower()
    return (
        f"the response body is {coding}-compressed (content-encoding: {coding}):"
        " capture with curl --compressed, or decompress the body"
    )


def _not_a_stream(head: bytes) -> str | None:
    """An HTTP capture (``curl -i``) whose response is no event stream: an error the gateway
    answered with (``HTTP 500`` and a JSON error), or a whole answer (a request without
    ``stream: true``). Read as an SSE body, it was a stream cut before its first event. None
    when the body is an event stream (by its first bytes, whatever its content type says),
    or is not in ``head``."""
    parsed = parse_head(head)
    if not parsed.complete or parsed.body_offset >= len(head):
        return None  # (a head cut short, or no body yet: a capture being written)
    body = head[parsed.body_offset :].lstrip(b"\xef\xbb\xbf\r\n")
    kind = (parsed.header("content-type") or "").split(";")[0].strip()
    if not body or body.startswith(_SSE_STARTS) or b"\ndata:" in body or b"\rdata:" in body:
        return None  # (its content type may say otherwise: its events are read)
    status = f"HTTP {parsed.status}" + (f" {parsed.reason}" if parsed.reason else "")
    if kind:
        status += f" ({visible(kind)})"
    text = " ".join(body[:_EXCERPT].decode("utf-8", "replace").split())  # (one line)
    shown = text[: _EXCERPT // 2]
    if len(shown) < len(text) or len(body) > _EXCERPT:
        shown += "…"
    if 200 <= parsed.status < 300:
        why = "an answer that is not an event stream (the request did not ask for stream: true?)"
    else:
        why = "the gateway's error, not an event stream"
    return f"{status}: {why}: {visible(shown)}"


_EXCERPT = 240
"""Bytes of a body that is no stream quoted in the reason (half as many characters shown)."""


def is_recorder_body(name: str) -> bool:
    """A response ``record --all`` saved: when it is not a trace, that is no problem to list."""
    return name.endswith(RECORDER_BODY_SUFFIX)


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
        data = read_regular(path)
    except OSError as exc:
        out.skipped.append(Skipped(address, _unreadable(path, exc)))
        return
    found = har_sources(path, address, data)
    if isinstance(found, Skipped):
        out.skipped.append(found)
        return
    for item in found:
        if isinstance(item, Skipped):
            out.skipped.append(item)
        else:
            out.sources.append(item)


def har_sources(path: Path, address: str, data: bytes) -> list[Source | Skipped] | Skipped:
    """The SSE entries of the HAR document ``data`` (read from ``path``, found at
    ``address``) as sources addressed ``address#N``, or why it has none. An entry whose body
    the exporter lost (none saved, not base64, not HAR) is skipped with why: judged, it read
    as a stream the gateway cut, which it was not."""
    if not data.strip():
        return Skipped(address, "empty file")
    try:
        entries, total = parse_har(data)
    except HarError as exc:
        return Skipped(address, str(exc))
    if not entries:
        return Skipped(
            address,
            f"HAR with {total:,} entr{'y' if total == 1 else 'ies'}, none of them an SSE stream",
        )
    return [
        Skipped(f"{address}#{entry.number}", entry.problem)
        if entry.problem and not entry.body
        else Source(path, f"{address}#{entry.number}", Form.HAR, entry)
        for entry in entries
    ]
