"""What the TUI knows about the traces it lists: where they are, their judgements, a cache.

A folder is listed before it is read: each file the walk found is known by its address and
path, "pending" until judged. Judging (the process pool, the judgement cache, or a trace
loaded here) gives each trace a :class:`~replay_tui.core.result.Judgement` — tiny, kept for
every trace; a file that holds no trace becomes a skipped entry, a HAR file its entries.
Whole traces are kept in an LRU cache bounded by their size, so a folder of big captures does
not fill memory (README, Speed), while the trace under the cursor and its neighbours open instantly.
Counts per badge are kept as judgements come and go, never recounted.
"""

from __future__ import annotations

import os
import shlex
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from ..core.discovery import Discovery, Skipped, classify, entry_of
from ..core.result import Judgement, Listed, judgement_of, split_listed
from ..core.trace import Badge, Source, Trace

__all__ = ["BADGE_ORDER", "TraceStore", "for_the_shell"]

BADGE_ORDER: tuple[Badge, ...] = (
    Badge.ERASING,
    Badge.REFUSED,
    Badge.BROKEN,
    Badge.IN_PROGRESS,
    Badge.CLEAN,
)


class TraceStore:
    """Traces by address: their file, their judgement once judged, recently loaded ones."""

    def __init__(self, cache_bytes: int = 256 * 1024 * 1024) -> None:
        self.paths: dict[str, str] = {}
        """The file of each trace (a HAR entry: its HAR file), and of each listed file not yet
        judged (by the file's address): every row of the list that is not a skipped file."""
        self.skipped: list[Skipped] = []
        self.judgements: dict[str, Judgement] = {}
        self.by_badge: dict[str, set[str]] = {b: set() for b in Badge}
        """The judged traces of each badge (the list's verdict filter and folder counts);
        keyed by :class:`Badge`, which is its value as a ``str`` too."""
        self._cache: OrderedDict[str, Trace] = OrderedDict()
        self._cache_bytes = cache_bytes
        self._cached = 0

    def set_files(self, files: Iterable[tuple[str, str]], skipped: list[Skipped]) -> None:
        """The listing: ``(address, path)`` per file, and the paths that are no trace."""
        self.paths = dict(files)
        self.skipped = list(skipped)

    def set_listed(
        self,
        paths: dict[str, str],
        skipped: list[Skipped],
        judgements: dict[str, Judgement],
        by_badge: dict[Badge, set[str]],
    ) -> None:
        """The listing and what is known of it, as the judgement cache knew it (made off the
        UI thread): each trace's file (``paths``, taken, not copied), the paths that are no
        trace, each trace's judgement and the traces of each badge (these two agree). In
        bulk: 115,000 traces judged one by one were a tenth of a second of the screen's."""
        self.paths = paths
        self.skipped = list(skipped)
        if self.judgements:  # (judged meanwhile: one by one, the judgements replaced)
            self.judge_all(judgements.items())
            return
        self.judgements.update(judgements)  # (in place: the list's model reads these dicts)
        for badge, addresses in by_badge.items():
            self.by_badge[badge].update(addresses)

    def judge(self, address: str, judgement: Judgement) -> None:
        self.judge_all(((address, judgement),))

    def forget_judgements(self) -> None:
        """Every judgement goes (what a cache said, before the files were checked)."""
        self.judgements.clear()  # (in place: the list's model reads these very dicts)
        for addresses in self.by_badge.values():
            addresses.clear()

    def judge_all(self, judged: Iterable[tuple[str, Judgement]]) -> None:
        """:meth:`judge` each (100,000 from the judgement cache: a bulk update)."""
        judgements, by_badge = self.judgements, self.by_badge
        if not judgements:  # (a folder listed from the cache: nothing to replace)
            judgements.update(judged)
            for address, judgement in judgements.items():
                by_badge[judgement.badge].add(address)
            return
        for address, judgement in judged:
            old = judgements.get(address)
            if old is not None:
                by_badge[old.badge].discard(address)
            judgements[address] = judgement
            by_badge[judgement.badge].add(address)

    def resolve(self, address: str, listed: Listed) -> tuple[list[str], list[Skipped]]:
        """The file listed at ``address`` was judged: its traces (their addresses, in order)
        take its place, or it is skipped."""
        path = self.paths.get(address)
        traces, skipped = split_listed(listed)
        if address not in traces:
            self.forget(address)
        for item in listed:
            if not isinstance(item, Skipped):
                if path is not None:
                    self.paths[item[0]] = path
                self.judge(*item)
        self.skipped.extend(skipped)
        return traces, skipped

    def put(self, trace: Trace) -> Judgement:
        """Remember ``trace`` (the newest state of its address) and return its judgement."""
        address = trace.address
        self.paths[address] = str(trace.source.path)
        judgement = judgement_of(trace)
        self.judge(address, judgement)
        old = self._cache.pop(address, None)
        if old is not None:
            self._cached -= len(old.raw)
        self._cache[address] = trace
        self._cached += len(trace.raw)
        while self._cached > self._cache_bytes and len(self._cache) > 1:
            _, dropped = self._cache.popitem(last=False)
            self._cached -= len(dropped.raw)
        return judgement

    def get(self, address: str) -> Trace | None:
        trace = self._cache.get(address)
        if trace is not None:
            self._cache.move_to_end(address)
        return trace

    def source(self, address: str) -> Source | None:
        """Where the trace at ``address`` is read from, found again from its file (so a HAR
        entry's body is not kept while it is not open). Reads the file: call it off the UI
        thread. ``None``: the file no longer holds that trace."""
        trace = self._cache.get(address)
        if trace is not None:
            return trace.source
        path = self.paths.get(address)
        if path is None:
            return None
        from pathlib import Path

        file_address, _ = entry_of(address)
        found = Discovery()
        classify(Path(path), file_address, found)
        return next((s for s in found.sources if s.address == address), None)

    def forget(self, address: str) -> None:
        self.paths.pop(address, None)
        old = self.judgements.pop(address, None)
        if old is not None:
            self.by_badge[old.badge].discard(address)
        trace = self._cache.pop(address, None)
        if trace is not None:
            self._cached -= len(trace.raw)

    def shell_path(
        self, address: str, skipped: Skipped | None = None, roots: Sequence[str] = ()
    ) -> str:
        """A listed file as a shell started where replay-tui was names it (the path given on
        the command line joined with the file's place below it; a HAR entry FILE.har#N, as
        ``replay-tui replay`` takes it), quoted if a shell would split or read it: the
        list's address is relative to the folder. ``skipped``: a file that holds no trace,
        found under ``roots`` (the paths opened)."""
        return for_the_shell(self._unquoted_path_of(address, skipped, roots))

    def _unquoted_path_of(self, address: str, skipped: Skipped | None, roots: Sequence[str]) -> str:
        if skipped is None:
            file_address, number = entry_of(address)
            path = self.paths.get(address) or self.paths.get(file_address)
            if path is None:
                return address
            return f"{path}#{number}" if number is not None else path
        for root in roots:
            path = os.path.join(root, skipped.path)
            if os.path.lexists(path):
                return path
        return skipped.path

    def counts(self) -> dict[str, int]:
        """Traces per badge (judged ones), plus ``pending`` for those not judged yet."""
        counts = {b.value: len(self.by_badge[b]) for b in BADGE_ORDER}
        counts["pending"] = len(self.paths) - len(self.judgements)
        return counts


def for_the_shell(path: str) -> str:
    """``path`` as typed into a shell: as it is when nothing in it is special (``#`` inside a
    word is not: ``x.har#2``), else quoted (``'my dir/it'"'"'s.sse'``)."""
    bare = path.replace("#", "")
    if not path.startswith("#") and shlex.quote(bare) == bare:
        return path
    return shlex.quote(path)
