"""The trace list's model: which rows a folder of traces shows, for a filter and the folds.

Pure Python (no widget): the list widget draws only the rows on screen from :attr:`rows`, so
a folder of 100,000 captures costs one small int per row, not one widget (or tree node) per
trace. Items are trace addresses (or files not judged yet, or files that hold no trace) in
:func:`~replay_tui.core.discovery.address_key` order; folders and HAR files are derived from
the addresses. Building the rows is one pass over the items that match the filter; typing a
longer filter only looks again at what matched the shorter one.
"""

from __future__ import annotations

import bisect
import functools
import heapq
from collections import Counter
from collections.abc import Collection, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, islice, repeat
from operator import itemgetter, ne

from ..core.discovery import Skipped, address_key, entry_of
from ..core.result import Judgement, Listed
from ..core.trace import Badge

__all__ = [
    "SKIPPED",
    "Folder",
    "Listing",
    "Row",
    "hay_of",
    "hays_of",
    "pending_hays",
    "skipped_hay",
]


@dataclass(slots=True)
class Folder:
    """A folder (or a HAR file holding entries) as a row of the list."""

    key: str
    """Its path (a HAR file: the file's address)."""
    name: str
    depth: int
    is_file: bool
    count: int = 0
    """Traces below it that the filter shows."""
    erasing: int = 0
    """Of those, the ones judged erasing."""
    collapsed: bool = False


Container = tuple[tuple[str, str, bool], ...]
"""The folders an item sits in, outermost first: ``(key, name, is_file)`` each."""


@dataclass(frozen=True, slots=True)
class Row:
    """What one row shows: a folder, a trace, or a file that holds no trace."""

    kind: str  # "folder" | "trace" | "skipped"
    key: str
    name: str
    depth: int
    folder: Folder | None = None
    skipped: Skipped | None = None


@dataclass(slots=True)
class _Parsed:
    container: Container
    name: str
    number: int | None


@dataclass(slots=True)
class _MatchJob:
    """A filter being matched step by step (see :meth:`Listing.match_in_steps`)."""

    key: tuple[str, str | None]
    retest: dict[str, None] = field(default_factory=dict)
    """Items judged since it began (tested again once it is done)."""
    moves: list[dict[int, list[str]]] = field(default_factory=list)
    """Files that became their entries since it began (its positions move with them)."""
    gone: list[str] = field(default_factory=list)
    """Those files (no longer counted)."""
    lost: bool = False
    """The items changed in a way it cannot follow: it gives up."""


MATCH_STEP = 8192
"""Items a step of :meth:`Listing.match_in_steps` tests (some milliseconds)."""


@dataclass
class Listing:
    """Items in list order and the rows the current filter and folds show."""

    judgements: Mapping[str, Judgement]
    by_badge: Mapping[str, set[str]] = field(default_factory=dict)
    """The judged traces of each badge, kept by the store (else found from ``judgements``)."""
    file_roots: tuple[str, ...] = ()
    """Folders of the files named on the command line: left out, so that ``/tmp/rt/x.har``
    lists ``x.har`` and its entries, not ``tmp/ → rt/ → x.har``."""
    items: list[str] = field(default_factory=list)
    skipped: dict[str, Skipped] = field(default_factory=dict)
    """Items that are files holding no trace, by address (path)."""
    text: str = ""
    badge: str | None = None
    collapsed: set[str] = field(default_factory=set)
    rows: list[int] = field(default_factory=list)
    """One per row shown: ``i >= 0`` is ``shown_items[i]``; ``i < 0`` is ``folders[~i]``."""
    folders: list[Folder] = field(default_factory=list)
    shown: int = 0
    """Traces the filter shows (folded ones included)."""
    shown_skipped: int = 0
    """Files holding no trace that the rows show (folded ones included)."""

    def __post_init__(self) -> None:
        self._index: dict[str, int] | None = None
        self._containers: dict[str, Container] = {}
        self._merged: frozenset[str] | None = None
        self._hay: dict[str, str] = {}
        self._skipped_hay: dict[str, tuple[Skipped, str]] = {}
        self._matched: list[int] | None = None
        self._matched_for: tuple[str, str | None] | None = None
        self._retest: dict[str, None] = {}
        """Items judged since :attr:`_matched` was made for the filter: only these are tested
        again (a big folder's judging, batch by batch, under a filter typed meanwhile)."""
        self._counted: dict[str, int] = {}
        self._counted_for: str | None = None
        self._job: _MatchJob | None = None
        self._count_of: dict[str, str] = {}
        """What :attr:`_counted` counted each item the text filter matched as (its badge, or
        :data:`SKIPPED`): an item judged since is counted again alone, not the whole list."""
        self._recount: dict[str, None] = {}
        """Items judged (or gone) since :attr:`_counted` was made for the text filter."""
        self._runs: list[tuple[int, int, Container, int]] | None = None
        self._hay_missing = True
        self._segments: list[tuple[int, int, int]] = []
        self._order: Sequence[int] = ()
        self.shown_items: list[str] = []
        """:attr:`items` as they were when the rows were built, which the rows index.

        Items that come or go between builds (a HAR file becoming its entries, a live
        change) go into a copy of the list: the rows drawn until the next build (deferred by
        up to a second in a big folder) keep showing what they showed, not their
        neighbours."""
        self._shown_index: dict[str, int] | None = None
        self._flagged: list[int] | None = None
        """Positions in :attr:`items` of the traces badged ``erasing``, kept between builds
        (made again when the items change): see :meth:`_erasing_positions`."""
        self._flagged_set: set[str] = set()
        """The addresses :attr:`_flagged` holds the positions of."""
        self._flag_retest: dict[str, None] = {}
        """Items judged since :attr:`_flagged` was made or brought up to date."""

    # -- items -------------------------------------------------------------------------------

    def set_items(
        self, items: Iterable[str], skipped: Iterable[Skipped] = (), *, among: bool = False
    ) -> None:
        """All items at once, already in list order (the walk's); what the filter read of
        the ones before is forgotten. ``among``: the paths of ``skipped`` are among
        ``items`` already, in their places (else each goes where its path sorts)."""
        self.items = list(items)
        self.skipped = {}
        self._hay = {}
        self._changed()
        if among:
            self.skipped = {item.path: item for item in skipped}
        else:
            self.add_skipped(skipped)

    def add(self, addresses: Iterable[str]) -> None:
        """Insert items where their address sorts (known ones are left where they are)."""
        index = self.index
        fresh = [a for a in dict.fromkeys(addresses) if a not in index]
        if fresh:
            items = self._own_items()
            for address in fresh:
                bisect.insort(items, address, key=address_key)
        self._changed()

    def _own_items(self) -> list[str]:
        """:attr:`items`, to change in place: a copy while the rows index this very list."""
        if self.items is self.shown_items:
            self.items = list(self.items)
        return self.items

    def remove(self, addresses: Iterable[str]) -> None:
        gone = set(addresses) & self.index.keys()
        if gone:
            self.items = [a for a in self.items if a not in gone]
            for address in gone:
                self.skipped.pop(address, None)
                self._hay.pop(address, None)
                self._skipped_hay.pop(address, None)
            self._changed()

    def replace(self, address: str, traces: Sequence[str], skipped: Sequence[Skipped]) -> None:
        """A listed file turned out to hold ``traces`` (a HAR file: its entries), or, with
        ``skipped``, none: they take its place."""
        i = self.index.get(address)
        if i is None:
            return
        new = list(traces) + [s.path for s in skipped]
        new.sort(key=address_key)
        self._hay.pop(address, None)
        self._hay_missing = True
        self._matched_for = self._counted_for = None
        self._lose_job()
        for item in skipped:
            self.skipped[item.path] = item
        if new == [address]:
            # One trace, or none (skipped under the file's own address): the items stay, so
            # the positions do too; only the runs' count of skipped files changes.
            if skipped:
                self._runs = None
            return
        self._own_items()[i : i + 1] = new
        self._changed()

    def replace_all(self, results: Sequence[tuple[str, Sequence[str], Sequence[Skipped]]]) -> None:
        """:meth:`replace` for each ``(address, traces, skipped)``, in one pass over the items:
        10,000 HAR files among 100,000 captures are one new list, not 10,000 (each of which
        made the index of every item again).

        A batch of a big folder's judging costs what is in it, not the folder: the files are
        found from where the last one was (the pool judges in list order), not through an
        index of every item made again for each batch, and a file that becomes its own
        entries (a HAR file) leaves the folders where they were (what rows merge, each
        item's folders), which the next row drawn would otherwise work out again."""
        items = self.items
        index = self._index
        subs: dict[int, list[str]] = {}
        positions: dict[str, int] = {}
        moved_only = True  # only files that became their own entries: no folder changes
        at = 0
        for address, traces, skipped in results:
            if index is not None:
                i = index.get(address)
            else:
                try:
                    i = items.index(address, at)
                except ValueError:  # before the last one (not in list order), or gone
                    index = self.index
                    i = index.get(address)
            if i is None or i in subs:
                continue
            positions[address] = i
            at = i + 1
            new = list(traces) + [s.path for s in skipped]
            new.sort(key=address_key)
            self._hay.pop(address, None)
            for item in skipped:
                self.skipped[item.path] = item
            if new == [address]:
                if skipped:
                    self._runs = None
                continue
            if moved_only and (not new or any(entry_of(a)[0] != address for a in new)):
                moved_only = False
            subs[i] = new
        self._hay_missing = True
        # What the filter matched and counted stands but for the files judged (and what took
        # their place): only those are tested and counted again, not the whole list (a
        # batch of a big folder's judging cost a pass over every item under a filter, and
        # the keys typed into it waited for each).
        touched = dict.fromkeys(  # (in list order)
            a for address, i in positions.items() for a in subs.get(i, (address,))
        )
        if self._matched_for == _NO_FILTER:
            # (no filter: what it shows changes only where entries came and where a file
            # turned out to hold no trace: the others' positions are not looked up)
            no_trace = self.skipped
            self._retest.update((a, None) for a in touched if a in no_trace or a not in positions)
        elif self._matched_for is not None:
            self._retest.update(touched)
        if self._job is not None:
            self._job.retest.update(touched)
            if subs:
                self._job.moves.append(subs)
                self._job.gone += [items[i] for i in subs]
        if self._counted_for is not None:
            self._recount.update(touched)
            for i in subs:  # (the files that gave way to their entries: no longer counted)
                self._uncount(items[i])
        if subs:
            out: list[str] = []
            done = 0
            for i in sorted(subs):  # (the items between, as slices)
                out += items[done:i]
                out += subs[i]
                done = i + 1
            out += items[done:]
            self.items = out  # (a new list: the rows built, and ``items`` here, index the old)
            self._flagged = None
            if self._matched is not None and self._matched_for is not None:
                self._matched = _moved(self._matched, subs)
            if moved_only:
                # Positions moved: the index is made again when next asked, the runs are
                # cut where the entries came in (made again, they cost the rebuild a pass
                # over every item, and a key typed meanwhile waited for it).
                self._index = None
                if self._runs is not None:
                    self._runs = self._runs_replaced(self._runs, subs, items)
            else:
                self._changed()

    def _runs_replaced(
        self,
        runs: list[tuple[int, int, Container, int]],
        subs: dict[int, list[str]],
        before: list[str],
    ) -> list[tuple[int, int, Container, int]]:
        """:meth:`runs` once the items at the positions of ``subs`` (in ``before``, the items
        as they were) have given way to those items: a run with one of them in it is cut
        around it, the runs after it move."""
        skipped = self.skipped
        out: list[tuple[int, int, Container, int]] = []

        def add(start: int, end: int, container: Container, holes: int) -> None:
            if out and out[-1][2] is container and out[-1][1] == start:
                first, _, _, had = out[-1]
                out[-1] = (first, end, container, had + holes)
            else:
                out.append((start, end, container, holes))

        places = sorted(subs)
        # The runs that end before the first place are as they were: taken as one slice, not
        # walked (a batch of the judging is near the list's end as often as its start, and
        # each walked every run: 10,000 HAR files, 1.6 s of the screen's thread)
        first = bisect.bisect_right(runs, places[0], key=lambda run: run[1]) if places else 0
        out += runs[:first]
        k = shift = 0
        for start, end, container, holes in islice(runs, first, None):
            at = start
            while k < len(places) and places[k] < end:
                i = places[k]
                k += 1
                if i > at:
                    part = sum(a in skipped for a in before[at:i]) if holes else 0
                    add(at + shift, i + shift, container, part)
                for n, address in enumerate(subs[i]):
                    here = i + shift + n
                    add(here, here + 1, self.container_of(address), int(address in skipped))
                shift += len(subs[i]) - 1
                at = i + 1
            if at < end:
                part = holes if at == start else sum(a in skipped for a in before[at:end])
                add(at + shift, end + shift, container, part if holes else 0)
        return out

    def add_skipped(self, skipped: Iterable[Skipped]) -> None:
        fresh = []
        for item in skipped:
            known = self.skipped.get(item.path)
            if known is None:
                fresh.append(item.path)
            elif known != item:  # skipped for another reason: the filter reads it again
                self._matched_for = self._counted_for = None
                self._lose_job()
            self.skipped[item.path] = item
        if fresh:
            self.add(fresh)

    def set_skipped(self, skipped: Iterable[Skipped]) -> None:
        """The files that hold no trace are now these (live reload)."""
        wanted = {s.path: s for s in skipped}
        self.remove([a for a in self.skipped if a not in wanted])
        self.add_skipped(wanted.values())

    def add_pending_hays(self, hays: dict[str, str]) -> None:
        """What the filter reads of items not judged yet (:func:`pending_hays`, made off the
        UI thread), kept for those still not judged (``hays`` is taken, not copied)."""
        for address in self.judgements.keys() & hays.keys():  # (judged meanwhile)
            del hays[address]
        hays.update(self._hay)
        self._hay = hays

    def judged(self, addresses: Iterable[str], hays: Mapping[str, str] | None = None) -> None:
        """These items' judgements changed (what the filter reads of them too); ``hays``:
        what the filter reads of them, made already (off the UI thread, by :func:`hay_of`)."""
        hay = self._hay
        if hays:
            missing = [a for a in addresses if a not in hays]
            hay.update(hays)  # (made for these addresses: what a batch judged)
        else:
            missing = list(addresses)
        for address in missing:
            if hay.pop(address, None) is not None:
                self._hay_missing = True
        if self._matched_for is not None and self._matched_for != _NO_FILTER:
            # (no filter: a trace is shown whatever its judgement says)
            self._retest.update(dict.fromkeys(addresses))
        if self._flagged is not None:
            self._flag_retest.update(dict.fromkeys(addresses))
        if self._job is not None:
            self._job.retest.update(dict.fromkeys(addresses))
        if self._counted_for is not None:
            self._recount.update(dict.fromkeys(addresses))

    def _changed(self) -> None:
        self._lose_job()
        self._merged = None
        self._containers = {}
        self._hay_missing = True
        self._index = None
        self._flagged = None
        self._runs = None
        self._matched_for = self._counted_for = None

    @property
    def index(self) -> dict[str, int]:
        """Each item's position in :attr:`items`."""
        if self._index is None:
            self._index = {a: i for i, a in enumerate(self.items)}
        return self._index

    @property
    def traces(self) -> list[str]:
        """Trace addresses (and files not judged yet) in list order, filtered or not."""
        skipped = self.skipped
        return [a for a in self.items if a not in skipped]

    # -- the filter --------------------------------------------------------------------------

    @property
    def filtering(self) -> bool:
        return bool(self.text.strip()) or self.badge is not None

    def badge_of(self, address: str) -> str:
        judgement = self.judgements.get(address)
        return judgement.badge.value if judgement is not None else "pending"

    def hay(self, address: str) -> str:
        """What the text filter reads of a trace (see :func:`hay_of`)."""
        text = self._hay.get(address)
        if text is None:
            text = self._hay[address] = hay_of(address, self.judgements.get(address))
        return text

    def skipped_hay(self, address: str) -> str:
        """What the text filter reads of a file that holds no trace: its path, "skipped",
        "not a trace" and the reason ("binary file", "empty file", "invalid HAR"…)."""
        item = self.skipped[address]
        known = self._skipped_hay.get(address)
        if known is None or known[0] is not item:
            known = self._skipped_hay[address] = (item, skipped_hay(item))
        return known[1]

    def _filter(
        self,
        candidates: Sequence[int],
        key: tuple[str, str | None] | None = None,
        items: list[str] | None = None,
    ) -> list[int]:
        """The positions among ``candidates`` of the items the filter shows: the traces it
        matches and, filtered by text or by the ``skipped`` badge, the files that hold no
        trace that it matches (a user looking for why a capture is not listed as a trace
        finds it by name). One list comprehension per condition: 100,000 items are filtered
        in a few milliseconds. ``key``: the filter's text and badge (else the listing's);
        ``items``: the items the positions are of (else :attr:`items`)."""
        text, badge = key if key is not None else (self.text, self.badge)
        items = self.items if items is None else items
        skipped = self.skipped
        needles = text.strip().lower().split()
        files: list[int] = []
        if skipped and (badge == SKIPPED or (badge is None and needles)):
            files = [i for i in candidates if items[i] in skipped]
            for needle in needles:
                files = [i for i in files if needle in self.skipped_hay(items[i])]
        if badge == SKIPPED:
            return files
        matched = [i for i in candidates if items[i] not in skipped] if skipped else candidates
        if badge is not None:
            wanted = badge
            if wanted == "pending":
                judged = self.judgements
                matched = [i for i in matched if items[i] not in judged]
            else:
                having = self._having(wanted)
                matched = [i for i in matched if items[i] in having]
        if needles:
            hay = self._hay
            if self._hay_missing:
                missing = [items[i] for i in matched if items[i] not in hay]
                judgements = self.judgements
                pending = [a for a in missing if a not in judgements]
                hay.update(pending_hays(pending))  # (most, early in a big folder's judging)
                if len(pending) < len(missing):
                    for address in missing:
                        self.hay(address)
                self._hay_missing = len(matched) < len(items) - len(skipped)
            for needle in needles:
                matched = [i for i in matched if needle in hay[items[i]]]
        if files:
            return list(heapq.merge(matched, files))
        return list(matched)

    def _traces_among(self, matched: Sequence[int]) -> Sequence[int]:
        """The positions among ``matched`` that hold traces (not skipped files)."""
        items, skipped = self.items, self.skipped
        if not skipped:
            return matched
        return [i for i in matched if items[i] not in skipped]

    def _having(self, badge: str) -> set[str]:
        found = self.by_badge.get(badge)
        if found is None:
            found = {a for a, j in self.judgements.items() if j.badge.value == badge}
        return found

    def _lose_job(self) -> None:
        if self._job is not None:
            self._job.lost = True
            self._job = None

    def match_in_steps(self, text: str) -> Generator[None, None, str]:
        """Match the text filter ``text`` (the verdict filter as it is) :data:`MATCH_STEP`
        items at a time, yielding between steps; then ``text`` is the filter, its matches
        made: a build costs the rows alone. Returns ``"done"``; ``"superseded"``: another
        call began meanwhile (a key typed on), which goes on instead; ``"lost"``: the items
        changed in a way the steps cannot follow (nothing is changed: filter at once).

        A big folder's filter is matched between the keys and frames, not in one go: a pass
        over 100,000 items took a key typed meanwhile 50 ms (more on a busy machine, with
        the judging's processes on every core), and the first key the hays of all of them.
        What is judged meanwhile is tested again once done, and a file becoming its entries
        moves the positions found."""
        key = (text.strip().lower(), self.badge)
        job = self._job = _MatchJob(key)  # (one begun before gives up at its next step)
        items = self.items
        before = self._matched_for
        candidates: Sequence[int] = range(len(items))
        if before == key and self._matched is not None:
            candidates = ()  # (matched already: the build tests what was judged since)
        elif (
            before is not None
            and self._matched is not None
            and before[1] == key[1]
            and _narrows(before[0], key[0])
            and (before[0] or key[1] is not None)  # (no text, no badge: no skipped file)
        ):
            candidates = self._matched
            if self._retest:
                again = self._positions(self._retest).values()
                candidates = sorted({*candidates, *again})
        found: list[int] = []
        # Typed text and no verdict filter: what the header counts of it comes with the
        # steps (counted at once when done, it cost the frame after the rows as much).
        counting = key[1] is None and bool(key[0])
        count_of: dict[str, str] = {}
        for start in range(0, len(candidates), MATCH_STEP):
            step = self._filter(candidates[start : start + MATCH_STEP], key, items)
            found += step
            if counting:
                judgements, skipped = self.judgements, self.skipped
                for i in step:
                    address = items[i]
                    if address in skipped:
                        count_of[address] = SKIPPED
                    else:
                        judgement = judgements.get(address)
                        count_of[address] = (
                            "pending" if judgement is None else judgement.badge.value
                        )
            yield
            if job.lost:
                return "lost"
            if self._job is not job:
                return "superseded"
        self._job = None
        self.text = text
        if before == key and self._matched is not None:
            return "done"
        for subs in job.moves:
            found = _moved(found, subs)
        self._matched, self._matched_for = found, key
        self._retest = job.retest
        if counting:
            for address in job.gone:
                count_of.pop(address, None)
            counted = dict.fromkeys([SKIPPED, "pending", *(b.value for b in Badge)], 0)
            counted.update(Counter(count_of.values()))
            self._counted, self._counted_for, self._count_of = counted, key[0], count_of
            self._recount = dict(job.retest)
        return "done"

    def _match_indices(self) -> list[int]:
        """Positions of the traces the filter shows; narrowing a filter (typing on) only
        tests what the previous filter showed."""
        key = (self.text.strip().lower(), self.badge)
        retest = self._retest
        if self._matched_for is None or self._matched is None:
            retest.clear()
        if self._matched_for == key and self._matched is not None and not retest:
            return self._matched
        before = self._matched_for
        again: list[int] = []
        if retest:  # judged since: their matching is tested again, the others' stands
            again = sorted(self._positions(retest).values())
            retest.clear()
        if before == key and self._matched is not None:
            if not again:
                return self._matched
            # (a batch lies together in the list: only the slice of the matches around it
            # is made again; a new list, as the rows built from the old one index it)
            matched = self._matched
            lo = bisect.bisect_left(matched, again[0])
            hi = bisect.bisect_right(matched, again[-1])
            tested = set(again)
            middle = [i for i in matched[lo:hi] if i not in tested]
            found = self._filter(again)
            if found:
                middle = sorted(middle + found)  # (two sorted runs)
            self._matched = [*matched[:lo], *middle, *matched[hi:]]
            return self._matched
        candidates: Sequence[int] = range(len(self.items))
        if (
            before is not None
            and self._matched is not None
            and before[1] == key[1]
            and before[0] != key[0]
            and _narrows(before[0], key[0])
            and (before[0] or key[1] is not None)  # (no text, no badge: no skipped file)
        ):
            candidates = self._matched
            if again:
                shown = set(candidates)
                candidates = sorted([*candidates, *(i for i in again if i not in shown)])
        matched = self._filter(candidates)
        self._matched, self._matched_for = matched, key
        return matched

    def _positions(self, addresses: Collection[str]) -> dict[str, int]:
        """Where those of ``addresses`` that are items are in :attr:`items`: from the index
        if it is made, else found in list order (a batch judged lies together: a bisection,
        then mostly the next item), not by making the index of every item again (a file
        that became its entries moved the positions after it)."""
        index = self._index
        items, n = self.items, len(self.items)
        if index is None and len(addresses) * 8 > n:
            index = self.index
        if index is not None:
            return {a: index[a] for a in addresses if a in index}
        out: dict[str, int] = {}
        at = 0
        for address in addresses:  # (in list order, as judged: mostly the next item)
            if not (at < n and items[at] == address):
                try:  # (a few items on: those of a batch with a badge, every third)
                    at = items.index(address, at, at + _NEAR)
                except ValueError:
                    at = bisect.bisect_left(items, address_key(address), key=address_key)
                if not (at < n and items[at] == address):
                    # Not where its address sorts: not an item, or an order not the key's.
                    index = self.index
                    return {a: index[a] for a in addresses if a in index}
            out[address] = at
            at += 1
        return out

    def _uncount(self, address: str) -> None:
        """``address`` is counted no more by :attr:`_counted`."""
        was = self._count_of.pop(address, None)
        if was is not None:
            self._counted[was] -= 1

    def _recounted(self) -> None:
        """:attr:`_counted` with the items judged since counted again."""
        recount, self._recount = self._recount, {}
        needles = (self._counted_for or "").split()
        skipped, counted, count_of = self.skipped, self._counted, self._count_of
        for address in recount:
            self._uncount(address)
        for address in self._positions(recount):
            if address in skipped:
                hay, what = self.skipped_hay(address), SKIPPED
            else:
                hay, what = self.hay(address), self.badge_of(address)
            if all(n in hay for n in needles):
                count_of[address] = what
                counted[what] = counted.get(what, 0) + 1

    def text_counts(self) -> dict[str, int] | None:
        """Traces per badge (``pending``: not judged yet; ``skipped``: files that hold no
        trace) among those the text filter shows, whatever the verdict filter: what clicking
        each count shows. None: no text filter. Judgements that come in are counted alone
        (see :attr:`_recount`)."""
        key = self.text.strip().lower()
        if not key:
            return None
        if self._counted_for == key:
            if self._recount:
                self._recounted()
            return self._counted
        self._recount = {}
        if self.badge is None:
            matched: Sequence[int] = self._match_indices()
        else:
            badge, self.badge = self.badge, None
            try:
                matched = self._filter(range(len(self.items)))
            finally:
                self.badge = badge
        items, skipped = self.items, self.skipped
        traces = self._traces_among(matched)
        counted: dict[str, int] = {SKIPPED: len(matched) - len(traces)}
        # What each is counted as, so that one judged later is counted again alone.
        count_of = dict.fromkeys((items[i] for i in matched if items[i] in skipped), SKIPPED)
        shown = {items[i] for i in traces}
        count_of.update(dict.fromkeys(shown, "pending"))
        judged = 0
        for badge in Badge:  # set against set: each address looked up once, in all
            having = self._having(badge.value)
            both = having & shown if having else set()
            counted[badge.value] = len(both)
            count_of.update(dict.fromkeys(both, badge.value))
            judged += len(both)
        counted["pending"] = len(shown) - judged
        self._counted, self._counted_for, self._count_of = counted, key, count_of
        return counted

    # -- rows --------------------------------------------------------------------------------

    def parsed(self, address: str) -> _Parsed:
        """Where an item sits (its folders) and its name there."""
        if "#" in address:
            file_part, number = entry_of(address)
            if number is not None:
                folder = file_part.rpartition("/")[0]
                return _Parsed(self._container(folder, file_part), f"#{number}", number)
        folder, _, name = address.rstrip("/").rpartition("/")
        return _Parsed(self._container(folder, None), name, None)

    def container_of(self, address: str) -> Container:
        """The folders ``address`` sits in (what :meth:`parsed` says, without the name)."""
        if "#" in address or address.endswith("/"):
            return self.parsed(address).container
        return self._container(address.rpartition("/")[0], None)

    def _container(self, folder: str, file_part: str | None) -> Container:
        key = f"{folder}\0{file_part or ''}"
        found = self._containers.get(key)
        if found is None:
            parts: list[tuple[str, str, bool]] = []
            if folder and folder not in self.file_roots:
                merged = self.merged_folders()
                path, pending = "", ""
                names = folder.split("/")
                if len(names) > 1 and not names[0]:  # an absolute folder: "/tmp" is one name
                    names[:2] = [f"/{names[1]}"]
                for name in names:
                    path = f"{path}/{name}" if path else name
                    if path in merged:  # one row with the folder it holds alone
                        pending += f"{name}/"
                        continue
                    parts.append((path, pending + name, False))
                    pending = ""
            if file_part is not None:
                parts.append((file_part, file_part.rpartition("/")[2], True))
            found = self._containers[key] = tuple(parts)
        return found

    def merged_folders(self) -> frozenset[str]:
        """Folders shown on one row with the folder below (``2026/12/01/``), as editors
        compact them: each holds nothing but that one folder. Twenty nested folders left an
        80-column list no room for a name."""
        if self._merged is None:
            items = self.items
            # (100,000 captures: a set made in one pass, the few HAR entries looked at apart)
            parents = {a.rstrip("/").rpartition("/")[0] for a in items if "#" not in a}
            parents |= {self._parent(a) for a in items if "#" in a}
            self._merged = self._merged_from(parents)
        return self._merged

    def _merged_from(self, parents: set[str]) -> frozenset[str]:
        """:meth:`merged_folders`, from the folders the items sit in directly (a HAR entry's:
        its file, marked ``\0``)."""
        children: dict[str, set[str]] = {}
        direct: set[str] = set()  # folders holding a file of their own
        for parent in parents:
            if not parent or parent in self.file_roots:  # (files named: listed alone)
                continue
            is_har = parent.endswith("\0")
            path = parent[:-1] if is_har else parent
            if not is_har:
                direct.add(path)
            while path:
                up = path.rpartition("/")[0]
                children.setdefault(up, set()).add(path + ("\0" if is_har else ""))
                path, is_har = up, False
        return frozenset(
            folder
            for folder, below in children.items()
            if folder
            and folder not in direct
            and len(below) == 1
            and not next(iter(below)).endswith("\0")
        )

    def _merged_of(self, groups: list[object], alone: list[str]) -> frozenset[str]:
        """:meth:`merged_folders` from the items' groups (see :meth:`runs`): the folders
        the items sit in directly are the groups' (a few hundred), not each item's."""
        parents = {a.rstrip("/").rpartition("/")[0] for a in alone}
        # (a plain file's folder, "a/b"; a HAR file's entries' file and "\0", "a/x.har\0")
        parents.update(group for group in set(groups) if isinstance(group, str))
        return self._merged_from(parents)

    @staticmethod
    def _parent(address: str) -> str:
        """The folder an item sits in directly; a HAR entry's: its file, marked ``\0``."""
        if "#" in address:
            file_part, number = entry_of(address)
            if number is not None:
                return file_part + "\0"
        return address.rstrip("/").rpartition("/")[0]

    def runs(self) -> list[tuple[int, int, Container, int]]:
        """The items in runs that sit in the same folders: ``(start, end, container, skipped
        files in the run)``. Made again only when items come or go.

        In bulk, not item by item: each item's group (a plain file's folder, ``a/b``; a HAR
        entry's file and ``\0``; anything else alone) is a pass of built-in calls, the places
        where the group changes another, and a container is looked up once a group (a
        re-opened mix of 115,000 traces: 0.17 s item by item, the screen's thread and the
        badges waiting); the folders merged into one row come from the groups too."""
        if self._runs is None:
            items = self.items
            n = len(items)
            # (iterators of built-in calls: no Python code per item)
            groups: list[object] = list(map(_head, map(str.rpartition, items, repeat("/"))))
            alone: list[str] = []
            for i in [i for i, a in enumerate(items) if "#" in a or a[-1:] == "/"]:
                file_part, number = entry_of(items[i])
                if number is not None:  # ("\0": no folder's name has one)
                    groups[i] = f"{file_part}\0"
                else:  # (a name that only looks like an entry, a folder's own row: alone)
                    groups[i] = object()
                    alone.append(items[i])
            if self._merged is None:
                self._merged = self._merged_of(groups, alone)
            starts = compress(range(1, n), map(ne, islice(groups, 1, None), groups))
            holes_at: list[int] = []
            if self.skipped:
                skipped = self.skipped
                holes_at = [i for i, a in enumerate(items) if a in skipped]
            runs: list[tuple[int, int, Container, int]] = []
            first, current = 0, None
            for start in [0, *starts] if n else ():
                container = self.container_of(items[start])
                if container is current:
                    continue
                if current is not None:
                    runs.append((first, start, current, _between(holes_at, first, start)))
                first, current = start, container
            if current is not None:
                runs.append((first, n, current, _between(holes_at, first, n)))
            self._runs = runs
        return self._runs

    def build(self) -> None:
        """The rows for the filter and folds: folders (with counts) above their traces.

        Per run of items in the same folders, not per item: the matches of a run are a slice
        of the (sorted) matched positions, found by bisection."""
        matched = self._match_indices()
        filtering = self.filtering
        order: Sequence[int] = matched if filtering else range(len(self.items))
        items = self.items
        erasing = self._having("erasing")
        if not erasing:
            flagged: list[int] = []
        elif filtering:  # (in bulk: no Python code per item)
            flagged = list(
                compress(matched, map(erasing.__contains__, map(items.__getitem__, matched)))
            )
        else:  # (every trace: the erasing ones' positions, kept from the build before)
            flagged = self._erasing_positions(erasing)
        skipped = self.skipped
        # (filtered, the skipped files shown are among the matches: not counted as traces)
        files = [i for i in matched if items[i] in skipped] if filtering and skipped else []
        rows: list[int] = []
        folders: list[Folder] = []
        segments: list[tuple[int, int, int]] = []  # (first item, its row, its place in order)
        open_: Container = ()
        open_ids: list[int] = []
        hidden_below = -1  # depth of the outermost collapsed folder open now (-1: none)
        collapsed = self.collapsed
        lo = 0
        for start, end, container, holes in self.runs():
            if filtering:
                lo = bisect.bisect_left(order, start, lo)
                hi = bisect.bisect_left(order, end, lo)
            else:  # (every item, in order: the run's own positions)
                lo, hi = start, end
            if lo == hi:
                continue
            if container is not open_:
                # Close the folders this run is not in, open the ones it is in.
                common = 0
                while (
                    common < len(open_)
                    and common < len(container)
                    and open_[common] == container[common]
                ):
                    common += 1
                del open_ids[common:]
                if hidden_below >= common:
                    hidden_below = -1
                for depth in range(common, len(container)):
                    key, name, is_file = container[depth]
                    fid = len(folders)
                    folder = Folder(key, name, depth, is_file, collapsed=key in collapsed)
                    folders.append(folder)
                    open_ids.append(fid)
                    if hidden_below < 0:
                        rows.append(~fid)
                        if folder.collapsed:
                            hidden_below = depth
                open_ = container
            if hidden_below < 0:
                segments.append((order[lo], len(rows), lo))
                # (every item: the numbers made once, not 100,000 new ones each build)
                rows.extend(order[lo:hi] if filtering else _numbers(hi)[lo:hi])
            if open_ids:
                folder = folders[open_ids[-1]]
                if filtering:
                    holes = bisect.bisect_left(files, end) - bisect.bisect_left(files, start)
                folder.count += hi - lo - holes
                if flagged:
                    folder.erasing += bisect.bisect_left(flagged, end) - bisect.bisect_left(
                        flagged, start
                    )
            lo = hi
        self._add_up(folders)
        self.rows, self.folders = rows, folders
        self.shown = len(matched) - len(files)
        self.shown_skipped = len(files) if filtering else len(skipped)
        self._segments, self._order = segments, order
        self.shown_items, self._shown_index = items, self._index

    def _erasing_positions(self, erasing: set[str]) -> list[int]:
        """The sorted positions in :attr:`items` of the traces in ``erasing``: made in one pass
        when the items changed, else the last ones with only the items judged since looked up
        (a rebuild of a big folder's list every few seconds while it is judged cost a pass
        over every item, 30-70 ms of the screen's thread, a key typed then waiting)."""
        items = self.items
        if self._flagged is None:
            hits = bytes(map(erasing.__contains__, items))
            self._flagged = list(compress(_numbers(len(items)), hits))
            self._flagged_set = set(compress(items, hits))
            self._flag_retest = {}
            return self._flagged
        if self._flag_retest:
            had = self._flagged_set
            changed = [a for a in self._flag_retest if (a in erasing) != (a in had)]
            self._flag_retest = {}
            if changed:
                at = self._positions(changed)
                came = sorted(i for a, i in at.items() if a in erasing)
                went = {i for a, i in at.items() if a not in erasing}
                kept = [i for i in self._flagged if i not in went] if went else self._flagged
                self._flagged = sorted(kept + came) if came else kept  # (two sorted runs)
                had.difference_update(a for a in at if a not in erasing)
                had.update(a for a in at if a in erasing)
        return self._flagged

    @staticmethod
    def _add_up(folders: list[Folder]) -> None:
        """Each folder's counts include its subfolders' (children follow their parent)."""
        stack: list[Folder] = []
        totals: list[tuple[Folder, list[Folder]]] = []
        for folder in folders:
            while stack and stack[-1].depth >= folder.depth:
                stack.pop()
            totals.append((folder, list(stack)))
            stack.append(folder)
        for folder, parents in reversed(totals):
            for parent in parents[-1:]:
                parent.count += folder.count
                parent.erasing += folder.erasing

    def row(self, n: int) -> Row:
        """What row ``n`` shows."""
        i = self.rows[n]
        if i < 0:
            folder = self.folders[~i]
            return Row("folder", folder.key, folder.name, folder.depth, folder=folder)
        address = self.shown_items[i]
        parsed = self.parsed(address)
        depth = len(parsed.container)
        skipped = self.skipped.get(address)
        if skipped is not None:
            return Row("skipped", address, parsed.name, depth, skipped=skipped)
        name = parsed.name
        if parsed.number is not None:
            judgement = self.judgements.get(address)
            if judgement is not None and judgement.label:
                name = judgement.label
        return Row("trace", address, name, depth)

    def has(self, address: str) -> bool:
        """Whether ``address`` is an item."""
        if self._index is None and _found(self.items, address) is not None:
            return True
        return address in self.index

    def row_of(self, address: str) -> int | None:
        """The row showing ``address`` (None: filtered out, or in a folded folder)."""
        shown = self.shown_items
        same = self.items is shown  # (then the two indexes are one)
        i = None
        if self._shown_index is None and not (same and self._index is not None):
            # Found where its address sorts, not through an index of every item made again
            # (a big folder's HAR files moved the positions: each rebuild made it).
            i = _found(shown, address)
        if i is None:
            if self._shown_index is None:
                self._shown_index = self.index if same else {a: i for i, a in enumerate(shown)}
            i = self._shown_index.get(address)
        if i is None or not self._segments:
            return None
        k = bisect.bisect_right(self._segments, (i, len(self.rows) + 1, 0)) - 1
        if k < 0:
            return None
        _, row, place = self._segments[k]
        at = bisect.bisect_left(self._order, i, place)
        if at >= len(self._order) or self._order[at] != i:
            return None
        n = row + at - place
        return n if n < len(self.rows) and self.rows[n] == i else None

    def folder_row(self, key: str) -> int | None:
        for n, i in enumerate(self.rows):
            if i < 0 and self.folders[~i].key == key:
                return n
        return None

    def visible(self) -> list[str]:
        """The traces the filter shows, in list order (folded ones included)."""
        known = self._matched_for is not None and not self._retest
        matched = self._matched if known else self._match_indices()
        assert matched is not None
        return [self.items[i] for i in self._traces_among(matched)]


SKIPPED = "skipped"
"""The badge of a file that holds no trace (a filter of its own: the header's count)."""


def _numbers(n: int) -> list[int]:
    """``0, 1, …`` at least up to ``n`` (one list, grown when needed)."""
    if len(_NUMBERS) < n:
        _NUMBERS.extend(range(len(_NUMBERS), n))
    return _NUMBERS


_NUMBERS: list[int] = []

_NO_FILTER = ("", None)
"""The filter's key (text, badge) when it shows every trace."""

_NEAR = 64
"""Items :meth:`Listing._positions` looks through for the next address before it bisects."""


def skipped_hay(item: Skipped) -> str:
    """What the text filter reads of a file that holds no trace (see
    :meth:`Listing.skipped_hay`)."""
    return f"{item.path} skipped not a trace {item.reason}".lower()


def hay_of(address: str, judgement: Judgement | None) -> str:
    """What the text filter reads of a trace, lowercased: its address, its badge and
    verdicts, the models it names, a HAR entry's method and URL."""
    if judgement is None:
        return f"{address} pending".lower()
    return f"{address.lower()} {_words_of(judgement)}"


@functools.lru_cache(maxsize=4096)
def _words_of(judgement: Judgement) -> str:
    # Captures share their judgements (the judgement cache hands out the same one for each):
    # 100,000 hays are one join per distinct judgement and a concatenation per address.
    words = [judgement.badge.value]
    words += [v for _, v in judgement.verdicts]
    words += judgement.models
    words += judgement.words
    return " ".join(words).lower()


def pending_hays(addresses: Iterable[str]) -> dict[str, str]:
    """:func:`hay_of` each of ``addresses``, none of them judged yet (100,000 of them, when a
    big folder is first filtered early in its judging: one pass, not a call each)."""
    return {address: f"{address} pending".lower() for address in addresses}


def hays_of(
    judged: Iterable[tuple[str, Listed]], single: Iterable[tuple[str, Judgement]] = ()
) -> dict[str, str]:
    """The hay (see :func:`hay_of`) of each trace that judged files hold, and of each trace
    of ``single`` (address and judgement), by address."""
    hays = {
        item[0]: hay_of(*item)
        for _, listed in judged
        for item in listed
        if not isinstance(item, Skipped)
    }
    words: dict[int, str] = {}  # by judgement (the judgement cache hands out shared ones)
    for address, judgement in single:
        said = words.get(id(judgement))
        if said is None:
            said = words[id(judgement)] = _words_of(judgement)
        hays[address] = f"{address.lower()} {said}"
    return hays


_head = itemgetter(0)
"""What comes before the last ``/`` (of a ``str.rpartition``)."""


def _between(positions: list[int], start: int, end: int) -> int:
    """How many of ``positions`` (sorted) lie in ``[start, end)``."""
    if not positions:
        return 0
    return bisect.bisect_left(positions, end) - bisect.bisect_left(positions, start)


def _found(items: list[str], address: str) -> int | None:
    """The position of ``address`` in ``items`` (in :func:`address_key` order) found by
    bisection (None: not where it sorts)."""
    i = bisect.bisect_left(items, address_key(address), key=address_key)
    return i if i < len(items) and items[i] == address else None


def _moved(matched: list[int], subs: Mapping[int, Sequence[str]]) -> list[int]:
    """Positions ``matched`` (sorted) once the item at each position of ``subs`` has given way
    to the items there: those positions go (what took their place is tested again), the
    ones after them move."""
    places = sorted(subs)
    out = matched[: bisect.bisect_left(matched, places[0])]
    shift = 0
    for k, at in enumerate(places):
        lo = bisect.bisect_right(matched, at)
        hi = bisect.bisect_left(matched, places[k + 1]) if k + 1 < len(places) else len(matched)
        shift += len(subs[at]) - 1
        out += [i + shift for i in matched[lo:hi]] if shift else matched[lo:hi]
    return out


def _narrows(before: str, after: str) -> bool:
    """Whether every trace matching the words of ``after`` matches those of ``before``: each
    word of ``before`` is inside some word of ``after``."""
    words = after.split()
    return all(any(w in n for n in words) for w in before.split())
