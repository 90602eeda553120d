"""Judging a listed folder for the TUI: the process pool, and a cache of judgements on disk.

A folder of 100,000 captures is listed at once (the walk) and judged afterwards, file by file:

- a file whose path, size and modification time match the **judgement cache** is judged by it,
  at once (a re-opened folder shows every badge in well under a second);
- the others go through the process pool (:func:`~.pool.ordered_map`, as ``check --jobs``):
  each worker classifies and judges a batch of files and sends back only their
  :class:`~replay_tui.core.result.Judgement` records.

The cache is one small file per folder opened, under ``$XDG_CACHE_HOME/replay-tui`` (else
``~/.cache/replay-tui``), written as the judging goes and read at the next start. An entry
counts only while the file's path, size and modification time (in nanoseconds) and this
version of the tool are what they were when it was judged; anything else is judged again.
A cache that cannot be read or written is ignored: it only ever saves time. It is read whole,
so it is bounded: a cache file over :data:`MAX_CACHE_BYTES` (some 800,000 captures' worth) is
neither read nor written, and the TUI says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path

import msgspec

from .. import __version__
from ..core.discovery import Candidate, Skipped, address_key
from ..core.files import open_regular
from ..core.result import Judgement, Listed, judge_listed, only_trace
from ..core.trace import Badge

__all__ = ["MAX_CACHE_BYTES", "JudgementCache", "Known", "Shown", "cache_dir", "judge_files"]

_Stamp = tuple[int, int]
"""A file's size and modification time in nanoseconds."""

MAX_CACHE_BYTES = 64 << 20
"""The largest cache file read or written. About 70–80 bytes a capture: some 800,000 captures.
A larger one (a huge folder, or a file that is no cache of ours) would be read whole into
memory (a 400 MB one took 458 MB): past this it is left alone and the folder judged again."""


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB"


def tool_version() -> str:
    """This tool's version, and a fingerprint of the code that judges: a judgement made by
    other code (an upgrade, a checkout of another commit) is not used."""
    core = Path(__file__).resolve().parent.parent / "core"
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(core.glob("*.py")):
        with contextlib.suppress(OSError):
            st = path.stat()
            digest.update(f"{path.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return f"{__version__}+{digest.hexdigest()[:12]}"


class _File(msgspec.Struct):
    """The cache file, in columns: 100,000 files are a few lists of numbers and names, and
    the judgements they share are written once."""

    version: str
    roots: list[str]
    table: list[Judgement]
    """The distinct judgements (most captures share theirs with many others)."""
    files: list[str]
    """The address of each file judged (its path under the roots; the file's name says which
    roots)."""
    sizes: list[int]
    mtimes: list[int]
    codes: list[int]
    """Per file: ``n >= 0``, the file is one trace judged ``table[n]``; ``-1``: see
    ``others``."""
    others: dict[str, list[tuple[str, Judgement] | Skipped]]
    """What the other files hold: a HAR file's entries, or why a file holds no trace."""


@dataclass
class Known:
    """A listed folder sorted out by the judgement cache (:meth:`JudgementCache.sort_out`)."""

    single: list[tuple[str, Judgement]] = field(default_factory=list)
    """Files that are one trace each (the common case): address and judgement."""
    other: list[tuple[str, Listed]] = field(default_factory=list)
    """Files that hold something else: a HAR file's entries, or why a file holds no trace."""
    todo: list[Candidate] = field(default_factory=list)
    """The files to judge: new, changed, or unknown to the cache."""


@dataclass
class Shown:
    """What the cache knows of a folder, as the TUI's list and store take it in at once
    (:meth:`JudgementCache.shown`): made off the screen's thread, in bulk."""

    files: list[str]
    """The address of each file listed, in list order (its path: :attr:`root` and it)."""
    root: str
    items: list[str]
    """What the list shows, in list order: the files, a HAR file's entries (and the files
    that hold no trace) in its place."""
    judgements: dict[str, Judgement]
    """Each trace's judgement, by address."""
    paths: dict[str, str]
    """Each trace's file's path, by address."""
    by_badge: dict[Badge, set[str]]
    """The traces of each badge."""
    skipped: list[Skipped] = field(default_factory=list)
    """The files that hold no trace (their paths are among the items)."""
    became: dict[str, list[str]] = field(default_factory=dict)
    """The files that are not one trace under their own address: the traces they hold."""


_NONE = Judgement(Badge.CLEAN, (), 0)
"""Where a file holds something else than one trace, until it is taken out."""


def _in_list_order(address: str, traces: list[str], skipped: list[str]) -> list[str]:
    """What a file holds (the addresses of its traces, the paths of what is no trace in
    it), sorted by :func:`~..core.discovery.address_key`. A HAR file's entries alone
    (``FILE#N``, N in ASCII digits: how address_key reads them) are sorted by their numbers,
    which is that order, without reading each address again."""
    head = f"{address}#"
    cut = len(head)
    if not skipped and all(
        t.startswith(head) and t[cut:].isascii() and t[cut:].isdigit() for t in traces
    ):
        return sorted(traces, key=lambda t: int(t[cut:]))
    return sorted(traces + skipped, key=address_key)


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/replay-tui``, else ``~/.cache/replay-tui``."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "replay-tui"


class JudgementCache:
    """The judgements of the files under some roots, by address, size and mtime."""

    def __init__(self, roots: Sequence[str], *, directory: Path | None = None) -> None:
        self.roots = sorted(os.path.abspath(r) for r in roots)
        key = hashlib.sha256("\0".join(self.roots).encode("utf-8", "surrogateescape"))
        self.path = (directory or cache_dir()) / f"judgements-{key.hexdigest()[:20]}.msgpack"
        self._stamps_made: dict[str, tuple[int, int, int]] | None = {}
        self._columns: _File | None = None
        """The file as read, until :attr:`_stamps` is first asked for (a re-open shows what
        the cache knows from these columns before the walk: the entries by address are made
        after, when the walk's files are checked)."""
        self._table: list[Judgement] = []
        self._codes: dict[Judgement, int] = {}
        self._others: dict[str, Listed] = {}
        self._dirty = False
        self._order: list[str] | None = None
        """The files listed at the last :meth:`sort_out`, in list order: the order written."""
        self.problem: str | None = None
        """Why the cache could not be read or written (it is then simply not used)."""

    def load(self) -> None:
        """Read the cache file (a missing, stale or unreadable one: an empty cache)."""
        try:
            with open_regular(self.path) as fh:
                size = os.fstat(fh.fileno()).st_size
                if size > MAX_CACHE_BYTES:
                    self.problem = (
                        f"{self.path}: {_mib(size)}, over the cache's limit of"
                        f" {_mib(MAX_CACHE_BYTES)}: not read (every file is judged again)"
                    )
                    return
                data = fh.read(MAX_CACHE_BYTES + 1)
        except FileNotFoundError:
            return
        except OSError as exc:
            self.problem = f"{self.path}: {exc.strerror or exc}"
            return
        try:
            saved = msgspec.msgpack.decode(data, type=_File)
        except msgspec.DecodeError:
            return  # written by another version, or torn: judged again, and rewritten
        if saved.version != tool_version() or saved.roots != self.roots:
            return
        if not len(saved.files) == len(saved.sizes) == len(saved.mtimes) == len(saved.codes):
            return
        if saved.codes and (max(saved.codes) >= len(saved.table) or min(saved.codes) < -1):
            return
        if len(set(saved.files)) != len(saved.files):  # (listed from the columns: once each)
            return
        self._table = saved.table
        self._codes = {j: n for n, j in enumerate(saved.table)}
        self._stamps_made, self._columns = None, saved
        self._others = dict(saved.others)

    @property
    def _stamps(self) -> dict[str, tuple[int, int, int]]:
        """Per file address: size, mtime (ns), and code (see :class:`_File`)."""
        if self._stamps_made is None:
            saved = self._columns
            assert saved is not None
            columns = zip(saved.sizes, saved.mtimes, saved.codes, strict=True)
            self._stamps_made = dict(zip(saved.files, columns, strict=True))
            self._columns = None
        return self._stamps_made

    @_stamps.setter
    def _stamps(self, stamps: dict[str, tuple[int, int, int]]) -> None:
        self._stamps_made, self._columns = stamps, None

    def __len__(self) -> int:
        if self._columns is not None:
            return len(self._columns.files)
        return len(self._stamps)

    def _files_and_codes(self) -> tuple[list[str], list[int]]:
        """Each file's address and judgement code, in the order written."""
        saved = self._columns
        if saved is not None:
            return saved.files, saved.codes
        return list(self._stamps), [code for _, _, code in self._stamps.values()]

    def sort_out(self, items: Sequence[Candidate], *, fresh_from: int | None = None) -> Known:
        """What the cache knows of the files listed now, and which files are left to judge,
        each in list order: one stat per file (none when the walk took it:
        ``walk(stat=True)``) and a lookup, so a re-opened folder of 100,000 captures is sorted
        out in a fraction of a second. ``items`` are all the files listed: the cache forgets
        the others. A file modified at or after ``fresh_from`` (ns since the epoch: it may
        still be being written) is left to judge."""
        known = Known()
        todo = known.todo
        stamps = self._stamps
        latest = fresh_from if fresh_from is not None else 1 << 64
        stat = os.stat
        matched = 0
        for item in items:
            address = item.address
            entry = stamps.get(address)
            if entry is None:
                todo.append(item)
                continue
            matched += 1
            stamp = item.stamp
            if stamp is None:
                try:
                    st = stat(item.path)
                except OSError:
                    todo.append(item)  # judged next, where why it cannot be read is said
                    continue
                stamp = (st.st_size, st.st_mtime_ns)
            stale = entry[0] != stamp[0] or entry[1] != stamp[1] or stamp[1] >= latest
            if stale or not self._answer(address, entry[2], known):
                todo.append(item)
        if matched < len(stamps):  # entries of files no longer listed
            self.forget_missing(item.address for item in items)
        if todo and any(item.address not in stamps for item in todo):
            self._order = [item.address for item in items]  # new files: kept in list order
        return known

    def listing(self) -> tuple[Known, list[tuple[str, str]]]:
        """Everything the cache knows, in the order the files were listed last time, without
        looking at a file (to show at once, while the files are checked): the judgements as
        :meth:`sort_out` gives them (nothing to judge), and each file's address and path
        (under the one root; with several roots, nothing: the paths are not known)."""
        known = Known()
        files: list[tuple[str, str]] = []
        if len(self.roots) != 1:
            return known, files
        root = os.path.join(self.roots[0], "")
        for address, code in zip(*self._files_and_codes(), strict=True):
            if self._answer(address, code, known):
                files.append((address, root + address))
        return known, files

    def shown(self) -> Shown | None:
        """What :meth:`listing` says, in the form the list and the store take it in at once
        (see :class:`Shown`), made in bulk: a re-opened mix of 115,000 traces was 0.3 s of the
        screen's thread, each file and each HAR entry put in place one by one. None: the
        paths are not known (several roots)."""
        if len(self.roots) != 1:
            return None
        root = os.path.join(self.roots[0], "")
        files, codes = self._files_and_codes()
        table, others = self._table, self._others
        # In bulk (iterators of built-in calls, no Python code per file): each file that is
        # one trace, its judgement at its own address (the others', whose code is -1, are
        # taken out again below), its path, and the traces of each badge.
        padded = [*table, _NONE]
        judgements = dict(zip(files, map(padded.__getitem__, codes), strict=True))
        paths = dict(zip(files, map(root.__add__, files), strict=True))
        by_badge: dict[Badge, set[str]] = {}
        for badge in dict.fromkeys(judgement.badge for judgement in table):
            of_badge = {n for n, judgement in enumerate(table) if judgement.badge is badge}
            by_badge[badge] = set(compress(files, map(of_badge.__contains__, codes)))
        shown = Shown(files, root, files, judgements, paths, by_badge)
        if not codes or min(codes) >= 0:
            return shown
        odd = list(compress(range(len(codes)), map((0).__gt__, codes)))
        items: list[str] = []
        listed_files: list[str] = []
        at = 0
        for n in odd:
            address = files[n]
            del judgements[address], paths[address]
            items += files[at:n]
            listed_files += files[at:n]
            at = n + 1
            listed = others.get(address)
            if listed is None:  # nothing held (judged once the files are checked)
                continue
            listed_files.append(address)
            path = root + address
            traces: list[str] = []
            skipped: list[str] = []
            for item in listed:
                if isinstance(item, Skipped):
                    shown.skipped.append(item)
                    skipped.append(item.path)
                else:
                    trace, judgement = item
                    traces.append(trace)
                    judgements[trace] = judgement
                    paths[trace] = path
                    by_badge.setdefault(judgement.badge, set()).add(trace)
            shown.became[address] = traces
            items += _in_list_order(address, traces, skipped)
        items += files[at:]
        listed_files += files[at:]
        shown.items, shown.files = items, listed_files
        return shown

    def _answer(self, address: str, code: int, known: Known) -> bool:
        """Put what the cache holds for ``address`` (entry ``code``) into ``known``: a file
        that is one trace (``code >= 0``) among the single ones, else what it holds among
        the others. False: nothing held (judge it)."""
        if code >= 0:
            known.single.append((address, self._table[code]))
            return True
        listed = self._others.get(address)
        if listed is None:
            return False
        known.other.append((address, listed))
        return True

    def put(self, address: str, stamp: _Stamp, results: Listed) -> None:
        code = -1
        only = only_trace(address, results)
        if only is not None:
            code = self._codes.get(only, -1)
            if code < 0:
                code = self._codes[only] = len(self._table)
                self._table.append(only)
        if code < 0:
            self._others[address] = results
        else:
            self._others.pop(address, None)
        self._stamps[address] = (stamp[0], stamp[1], code)
        self._dirty = True

    def forget_missing(self, addresses: Iterable[str]) -> None:
        """Keep only the entries of ``addresses`` (the files listed now)."""
        keep = set(addresses)
        if any(address not in keep for address in self._stamps):
            self._stamps = {a: e for a, e in self._stamps.items() if a in keep}
            self._others = {a: e for a, e in self._others.items() if a in keep}
            self._dirty = True

    def _saved(self) -> _File:
        """What is written: each file's stamp and judgement code, the judgements used."""
        stamps = list(self._stamps.values())
        used = sorted({code for _, _, code in stamps if code >= 0})
        renumber = {old: new for new, old in enumerate(used)}
        return _File(
            version=tool_version(),
            roots=self.roots,
            table=[self._table[n] for n in used],
            files=list(self._stamps),
            sizes=[size for size, _, _ in stamps],
            mtimes=[mtime for _, mtime, _ in stamps],
            codes=[renumber.get(code, -1) for _, _, code in stamps],
            others={a: r for a, r in self._others.items() if a in self._stamps},
        )

    def save(self) -> None:
        """Write the cache if it changed: to a temporary file renamed over the old one, so a
        reader never sees half of it."""
        if not self._dirty:
            return
        if self._order is not None:  # files judged for the first time go where they are listed
            rank = {address: n for n, address in enumerate(self._order)}
            last = len(rank)
            ordered = sorted(self._stamps, key=lambda address: rank.get(address, last))
            self._stamps = {address: self._stamps[address] for address in ordered}
            self._order = None
        try:
            data = msgspec.msgpack.encode(self._saved())
        except UnicodeEncodeError:
            # A file whose name is not UTF-8 (Python holds it with surrogate escapes), or a
            # judgement holding a lone surrogate from its JSON (a model named "\ud800"), has
            # no place in the file: those are judged again on each open, the others kept.
            bad = {n for n, judgement in enumerate(self._table) if not _encodable(judgement)}
            self._stamps = {
                a: v for a, v in self._stamps.items() if v[2] not in bad and _encodable(a)
            }
            self._others = {
                a: r for a, r in self._others.items() if a in self._stamps and _encodable(r)
            }
            data = msgspec.msgpack.encode(self._saved())
        if len(data) > MAX_CACHE_BYTES:
            self.problem = (
                f"{self.path}: not written: {_mib(len(data))} for {len(self._stamps):,} files,"
                f" over the cache's limit of {_mib(MAX_CACHE_BYTES)}"
            )
            self._dirty = False
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".judgements-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as exc:
            self.problem = f"{self.path}: {exc.strerror or exc}"
            return
        self._dirty = False


def _encodable(value: object) -> bool:
    """Whether ``value`` can be written (strings in it are valid UTF-8)."""
    try:
        msgspec.msgpack.encode(value)
    except UnicodeEncodeError:
        return False
    return True


def stamp_of(path: str) -> _Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _lost(item: Candidate, reason: str) -> Listed:
    return [Skipped(item.address, reason)]


SAVE_EVERY = 5.0
"""Seconds between writes of the cache while a big folder is judged (a quit keeps most)."""


def judge_files(
    items: Sequence[Candidate],
    *,
    jobs: int,
    cache: JudgementCache | None = None,
    here: Callable[[Candidate, _Stamp], bool] = lambda item, stamp: False,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[tuple[Candidate, Listed | None]]:
    """Each file's judgements from the process pool, as they come, in list order (the files
    :meth:`JudgementCache.sort_out` left to judge; their judgements go into ``cache``).

    ``here(item, stamp)``: a file to leave to the caller, which judges it itself (a capture
    still being written, which the caller follows as it grows): it comes out with ``None``,
    first. The cache is saved now and then, and at the end (also when the caller stops early).
    """
    pooled: list[tuple[Candidate, _Stamp | None]] = []
    for n, item in enumerate(items):
        if n % 1024 == 0 and cancelled():
            return
        stamp = item.stamp or stamp_of(item.path)  # (taken before the file is read)
        if stamp is not None and here(item, stamp):
            yield item, None
        else:
            pooled.append((item, stamp))
    saved = time.monotonic()
    from .pool import ordered_map  # only now: a folder the cache knows starts no process

    results = ordered_map(judge_listed, [item for item, _ in pooled], jobs, _lost)
    try:
        for (item, stamp), listed in zip(pooled, results, strict=True):
            if cache is not None and stamp is not None:
                cache.put(item.address, stamp, listed)
            yield item, listed
            if cancelled():
                return
            if cache is not None and time.monotonic() - saved > SAVE_EVERY:
                cache.save()
                saved = time.monotonic()
    finally:
        results.close()  # stops the pool's processes when the caller stops early
        if cache is not None:
            cache.save()
