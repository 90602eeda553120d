"""A folder opened in the TUI, listed and judged off the UI thread (no Textual here).

:class:`FolderJudging` is what the app's workers run: the walk of the paths (each file's size
and mtime with it), what the judgement cache knows of them (shown with the list, or before
it for a big folder re-opened), the judging of the files the cache does not know (the process
pool, as ``check --jobs``), and the captures that may still be being written, judged here and
followed by the live folder (``replay_tui.live.folder``) instead. The app turns what these
return into its messages.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.discovery import (
    Candidate,
    Discovery,
    Skipped,
    classify_candidate,
    split_entry,
    walk,
)
from ..core.result import Judgement, Listed, judge_listed, judgement_of, only_trace, split_listed
from ..core.trace import Trace, gc_paused

if TYPE_CHECKING:
    from ..live.folder import LiveFolder
    from ..scale.judgements import JudgementCache, Shown

__all__ = [
    "FRESH",
    "FolderJudging",
    "JudgedBatch",
    "Walked",
    "collector_paused",
    "first_flagged",
    "one_stream",
]

FRESH = 1.0
"""Seconds before the folder was opened within which a capture may still be being written:
judged here and followed ("in progress"), not by the pool as ended."""


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a folder is listed: 100,000 captures are some
    hundreds of thousands of small objects made at once (addresses, stamps, judgements), none
    of them garbage, and each full pass of the collector over them on the way cost the
    re-open of such a folder a third of its time. Back on at the end (unless it was off), and
    counted with the decoding's pauses in other threads (:func:`~..core.trace.gc_paused`).

    When that was many objects, they are left out of the collector's passes from then on
    (``gc.freeze``, a constant-time move; still freed by reference counting): back on, its
    first pass went over every object made while it was off, 0.2 s of the screen's thread at
    the end of a 100,000-capture folder's judging, keys waiting. (A few are left to it: a
    small folder's objects, a test's app, become garbage in cycles it alone frees.)"""
    with gc_paused():
        yield
        if gc.get_count()[0] >= FREEZE_AFTER:
            gc.freeze()


FREEZE_AFTER = 50_000
"""Objects made while the collector was paused from which they are frozen at the end (a pass
over that many costs some 20 ms)."""


def one_stream(item: Candidate) -> bool:
    """The file named holds one stream, under its own address (not a HAR file's entries)."""
    found = Discovery()
    try:
        classify_candidate(item, found)
    except Exception:  # judge_listed says what is wrong with it
        return False
    return (
        not found.skipped and len(found.sources) == 1 and found.sources[0].address == item.address
    )


def first_flagged(judged: Sequence[tuple[str, Listed | Judgement]]) -> str | None:
    """The first trace with flags among files judged (or traces: ``(address, judgement)``)."""
    for address, listed in judged:
        if isinstance(listed, Judgement):
            if listed.flags:
                return address
            continue
        for item in listed:
            if not isinstance(item, Skipped) and item[1].flags:
                return item[0]
    return None


@dataclass
class Walked:
    """The paths were walked: these files are listed (not read yet), these are not traces.
    ``judged``: files already judged (one file named: read at once; or known to the
    judgement cache), ``todo``: the files still to judge."""

    files: list[Candidate]
    skipped: list[Skipped]
    judged: list[tuple[str, Listed]] = field(default_factory=list)
    single: list[tuple[str, Judgement]] = field(default_factory=list)
    """Files known to be one trace each (the cache's common case): address and judgement."""
    todo: list[Candidate] = field(default_factory=list)
    cache: JudgementCache | None = None
    """The judgement cache, read already (the judging goes on with it)."""
    named: bool = False
    """One file named that holds one stream: opened at once, judged as it is read."""
    as_shown: bool = False
    """The walk found the very files the judgement cache's list showed (``show_cached``),
    in its order, at the same paths (each one's stamp is checked by the sorting out)."""


@dataclass
class JudgedBatch:
    """Files judged since the last batch, for the screen to take in one go."""

    judged: list[tuple[str, Listed]] = field(default_factory=list)
    """Each file's address and what it holds: its traces' judgements, or why it holds none."""
    traces: list[Trace] = field(default_factory=list)
    """Traces judged in this process (captures still being written, followed as they grow)."""
    finished: bool = False
    """The last batch: every file was judged."""


FIRST_BATCH = 0.05
"""Seconds of judging before the first batch goes to the screen (the first badges, and the
first flagged trace opened, at once)."""
BATCH_EVERY = 0.25
"""Seconds between two batches after that, at the least. Taking a batch in costs the screen
a frame (the list's rows on screen and the counts drawn again: some 20–30 ms, whatever the
batch's size): four a second keep the badges moving while the processes judging have
the machine's cores nearly to themselves, as ``check``'s do."""


class FolderJudging:
    """The paths the app opened: walked, sorted out by the judgement cache, judged.

    ``live``: the folder followed while watching (None: ``--no-watch``). Methods read files:
    call them off the UI thread."""

    def __init__(
        self,
        paths: Sequence[str],
        *,
        use_cache: bool = True,
        jobs: int | None = None,
        live: LiveFolder | None = None,
    ) -> None:
        self.paths = list(paths)
        self.use_cache = use_cache
        self.jobs = jobs
        self.live = live

    # -- the walk and the cache ------------------------------------------------------------

    def walk_and_sort(
        self,
        show_cached: Callable[[Shown], None],
        show_cached_from: int,
        show: Callable[[Walked], None] = lambda walked: None,
    ) -> Walked:
        """The walk (each file's size and mtime with it, for the judgement cache), and what
        the cache knows: a folder of 100,000 captures is listed in half a second, and read
        by the judging afterwards. One file named is read at once (it is shown directly).

        A folder opened before whose cache knows ``show_cached_from`` files or more: what the
        cache knew goes to ``show_cached`` before the walk. What the walk found goes to
        ``show`` as soon as it is known: the followed folder is told of the files after it
        (and asking it waits until then)."""
        paths = self.paths
        cache: JudgementCache | None = None
        if self.use_cache:
            from ..scale.judgements import JudgementCache

            cache = JudgementCache(paths)
            cache.load()
        shown = None
        if cache is not None and len(paths) == 1 and Path(paths[0]).is_dir():
            # A folder opened before: what the cache knew is on screen at once, and
            # checked against the files while it is shown (100,000 of them: a second).
            shown = cache.shown()
            if shown is not None and len(shown.files) >= show_cached_from:
                show_cached(shown)
            else:
                shown = None
        files: list[Candidate] = []
        skipped: list[Skipped] = []
        # Each file's size and mtime, for the cache to compare, with the walk (fstatat in each
        # folder); a cache that knows nothing compares nothing: the judging takes them.
        stat = cache is not None and len(cache) > 0
        for item in walk(paths, stat=stat, prefix_folders=True):
            if isinstance(item, Skipped):
                skipped.append(item)
            else:
                files.append(item)
        done = Walked(files, skipped, todo=files)
        if shown is not None:
            # (here, not on the screen's thread: 100,000 addresses and paths compared)
            done.as_shown = (
                not skipped
                and len(files) == len(shown.files)
                and list(map(attrgetter("address"), files)) == shown.files
                and list(map(attrgetter("path"), files))
                == list(map(shown.root.__add__, shown.files))
            )
        if len(paths) == 1 and len(files) == 1 and Path(split_entry(paths[0])[0]).is_file():
            done.todo = []
            if one_stream(files[0]):
                # Opened at once, judged as it is read: judging it first read it all twice
                # before its first rows (half a second on a 25 MB capture).
                done.named = True
            else:
                done.judged = [(files[0].address, judge_listed(files[0]))]
        elif cache is not None and files:
            # What the judgement cache knows is shown with the list: a folder re-opened is
            # listed judged, in one go; only the files it does not know are judged after.
            done.cache = cache
            known = cache.sort_out(files, fresh_from=self.fresh_from())
            done.judged, done.single, done.todo = known.other, known.single, known.todo
        if done.todo:
            from ..scale.pool import SMALL, default_jobs, prepare

            if len(done.todo) >= SMALL:
                # The pool's processes start once the list is drawn: what they are forked
                # from starts now, while it is drawn.
                prepare(self.jobs or default_jobs())
        if self.live is None:
            show(done)
            return done
        with self.live.tracking(files, skipped):
            show(done)
        for address, holds in done.judged:
            self.learn(address, holds)
        return done

    @staticmethod
    def save_cache(done: Walked) -> str | None:
        """After the list is shown: the cache written if nothing is left to judge (files gone
        since: their entries go; else nothing to write). What went wrong with it, if
        anything."""
        if done.cache is not None and not done.todo:  # (else the judging goes on with it)
            done.cache.save()
            return done.cache.problem
        return None

    def learn(self, address: str, listed: Listed) -> None:
        """Tell the followed folder what a listed file holds (in a worker: it takes a lock)."""
        if self.live is not None:
            if only_trace(address, listed) is not None:
                return  # one trace under the file's own address: the folder knows it already
            self.live.learn(address, *split_listed(listed))

    def fresh_from(self) -> int | None:
        """Captures modified since (ns since the epoch) may still be being written: they are
        followed here, not judged as ended (``None``: not following the folder)."""
        live = self.live
        return None if live is None else int((live.opened_at - FRESH) * 1e9)

    # -- judging ---------------------------------------------------------------------------

    def judge(
        self,
        files: list[Candidate],
        cache: JudgementCache | None,
        cancelled: Callable[[], bool],
    ) -> Iterator[tuple[Candidate, Listed, list[Trace]]]:
        """Judge the files the cache did not know (``cache``: sorted out already): each file,
        what it holds, and the traces judged here (captures followed as they are written)."""
        from ..scale.judgements import judge_files
        from ..scale.pool import default_jobs

        fresh_from = self.fresh_from()

        def here(item: Candidate, stamp: tuple[int, int]) -> bool:
            return fresh_from is not None and stamp[1] >= fresh_from

        for item, listed in judge_files(
            files,
            jobs=self.jobs or default_jobs(),
            cache=cache,
            here=here,
            cancelled=cancelled,
        ):
            traces: list[Trace] = []
            if listed is None:
                listed = self.follow(item, traces)
            self.learn(item.address, listed)
            yield item, listed, traces

    def judge_in_batches(
        self,
        files: list[Candidate],
        cache: JudgementCache | None,
        cancelled: Callable[[], bool],
        taken: Callable[[], bool] = lambda: True,
        *,
        first: float = FIRST_BATCH,
        every: float = BATCH_EVERY,
    ) -> Iterator[JudgedBatch]:
        """:meth:`judge`'s files in batches, one per frame of the screen's: a batch is
        handed on once ``every`` seconds have passed since the last (``first`` for the
        first) and the screen has ``taken()`` the last one in; until then files are added to
        it. The last batch says ``finished`` (none when cancelled)."""
        batch = JudgedBatch()
        due = time.monotonic() + first
        for item, listed, here in self.judge(files, cache, cancelled):
            batch.judged.append((item.address, listed))
            batch.traces += here
            now = time.monotonic()
            if now >= due and taken():
                yield batch
                batch = JudgedBatch()
                due = now + every
        if cancelled():
            return
        batch.finished = True
        yield batch

    def follow(self, item: Candidate, traces: list[Trace]) -> Listed:
        """Judge a capture that may still be being written here, as the folder follows it."""
        assert self.live is not None
        found = Discovery()
        classify_candidate(item, found)
        listed: Listed = list(found.skipped)
        for source in found.sources:
            try:
                trace = self.live.load(source)
            except OSError as exc:
                listed.append(Skipped(source.address, f"cannot read: {exc.strerror or exc}"))
                continue
            traces.append(trace)
            listed.append((source.address, judgement_of(trace)))
        return listed
