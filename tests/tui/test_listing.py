"""The trace list's model (no app): rows, folder counts, folds, the filter, positions."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from replay_tui.core.discovery import Skipped, address_key
from replay_tui.core.result import Judgement
from replay_tui.core.trace import Badge
from replay_tui.tui.listing import Listing

VERDICTS = (("assign-always", "ok"), ("accept-identity", "ok"))


def judged(badge: Badge, *models: str) -> Judgement:
    return Judgement(badge, VERDICTS, 1 if badge is Badge.ERASING else 0, models)


def shown(listing: Listing) -> list[tuple[str, int, str]]:
    rows = [listing.row(n) for n in range(len(listing.rows))]
    return [(r.kind, r.depth, r.name) for r in rows]


def test_folders_sit_above_their_traces_with_counts_that_add_up() -> None:
    judgements = {
        "a/x.sse": judged(Badge.ERASING),
        "a/b/y.sse": judged(Badge.CLEAN),
        "a/b/z.sse": judged(Badge.ERASING),
        "top.sse": judged(Badge.CLEAN),
    }
    listing = Listing(judgements)
    listing.set_items(sorted([*judgements, "a/c.sse"], key=address_key))
    listing.build()
    assert shown(listing) == [
        ("folder", 0, "a"),
        ("folder", 1, "b"),
        ("trace", 2, "y.sse"),
        ("trace", 2, "z.sse"),
        ("trace", 1, "c.sse"),
        ("trace", 1, "x.sse"),
        ("trace", 0, "top.sse"),
    ]
    a, b = listing.folders
    assert (a.count, a.erasing) == (4, 2)  # c.sse is not judged yet: counted, not erasing
    assert (b.count, b.erasing) == (2, 1)


def test_a_folded_folder_keeps_its_row_and_counts_and_hides_what_is_below() -> None:
    listing = Listing({})
    listing.set_items(["a/b/x.sse", "a/y.sse", "z.sse"])
    listing.collapsed.add("a/b")
    listing.build()
    assert shown(listing) == [
        ("folder", 0, "a"),
        ("folder", 1, "b"),
        ("trace", 1, "y.sse"),
        ("trace", 0, "z.sse"),
    ]
    assert listing.folders[1].count == 1 and listing.folders[0].count == 2
    assert listing.row_of("a/b/x.sse") is None and listing.row_of("a/y.sse") == 2
    listing.collapsed = {"a"}
    listing.build()
    assert shown(listing) == [("folder", 0, "a"), ("trace", 0, "z.sse")]
    assert listing.visible() == ["a/b/x.sse", "a/y.sse", "z.sse"]  # folded, not filtered


def test_a_har_file_becomes_its_entries_and_a_file_with_no_trace_is_skipped() -> None:
    judgements: dict[str, Judgement] = {}
    listing = Listing(judgements)
    listing.set_items(["d/a.sse", "d/x.har", "d/z.txt"])
    listing.build()
    assert [r[0] for r in shown(listing)] == ["folder", "trace", "trace", "trace"]
    judgements["d/x.har#2"] = Judgement(Badge.CLEAN, VERDICTS, 0, (), "#2 12:00:01 POST /v1")
    judgements["d/x.har#10"] = judged(Badge.ERASING)
    listing.replace("d/x.har", ["d/x.har#10", "d/x.har#2"], [])
    listing.replace("d/z.txt", [], [Skipped("d/z.txt", "not a trace")])
    listing.build()
    assert shown(listing) == [
        ("folder", 0, "d"),
        ("trace", 1, "a.sse"),
        ("folder", 1, "x.har"),
        ("trace", 2, "#2 12:00:01 POST /v1"),  # entries by number, named by their label
        ("trace", 2, "#10"),
        ("skipped", 1, "z.txt"),
    ]
    assert listing.folders[0].count == 3  # the skipped file is no trace
    assert listing.traces == ["d/a.sse", "d/x.har#2", "d/x.har#10"]
    listing.text = "har"
    listing.build()
    assert [r[0] for r in shown(listing)] == ["folder", "folder", "trace", "trace"]
    # A file that holds no trace is found by its name (and by why): a user looking for why
    # a capture is not listed as a trace finds it, and the folder counts no trace for it.
    for text in ("z.txt", "not a trace", "skipped"):
        listing.text = text
        listing.build()
        assert shown(listing) == [("folder", 0, "d"), ("skipped", 1, "z.txt")], text
        assert listing.folders[0].count == 0 and listing.shown == 0
        assert listing.shown_skipped == 1 and listing.visible() == []
    listing.text, listing.badge = "", "skipped"  # the header's count of them, clicked
    listing.build()
    assert shown(listing) == [("folder", 0, "d"), ("skipped", 1, "z.txt")]
    listing.badge = "clean"  # a verdict shows traces only
    listing.build()
    assert [r[0] for r in shown(listing)] == ["folder", "folder", "trace"]


def test_the_filter_reads_badges_verdicts_models_and_har_words() -> None:
    judgements = {
        "g/a.sse": judged(Badge.ERASING, "kimi-k2"),
        "g/b.sse": judged(Badge.CLEAN, "qwen3-max"),
        "g/c.har#1": Judgement(
            Badge.CLEAN, VERDICTS, 0, (), "#1", ("POST", "https://gw.example/v1/chat", "")
        ),
    }
    listing = Listing(judgements)
    listing.set_items(list(judgements))
    for text, badge, expected in [
        ("KIMI", None, ["g/a.sse"]),
        ("erasing", None, ["g/a.sse"]),
        ("gw.example post", None, ["g/c.har#1"]),
        ("", "clean", ["g/b.sse", "g/c.har#1"]),
        ("qwen", "clean", ["g/b.sse"]),
        ("qwen", "erasing", []),
    ]:
        listing.text, listing.badge = text, badge
        listing.build()
        assert listing.visible() == expected, (text, badge)


ADDRESSES = st.lists(
    st.tuples(
        st.lists(st.sampled_from(["a", "b", "ab", "c.har"]), max_size=3),
        st.sampled_from(["x.sse", "y.sse", "xy.txt", "c.har#1", "c.har#12"]),
    ).map(lambda t: "/".join([*t[0], t[1]])),
    unique=True,
    max_size=25,
)


@settings(max_examples=400, deadline=None)
@given(
    ADDRESSES,
    st.lists(st.sampled_from([Badge.CLEAN, Badge.ERASING, None]), min_size=25, max_size=25),
    st.sets(st.integers(0, 24)),
    st.lists(st.text(alphabet="abxy.sk /", max_size=4), max_size=6),
    st.sampled_from([None, "erasing", "clean", "pending", "skipped"]),
)
def test_typing_a_filter_shows_what_a_fresh_filter_shows_and_every_row_is_found(
    addresses: list[str],
    badges: list[Badge | None],
    holes: set[int],
    typed: list[str],
    badge: str | None,
) -> None:
    """Narrowing reuses the previous matches: it must agree with filtering from scratch, and
    each shown item's row must be where :meth:`row_of` says. Files that hold no trace
    (``holes``) are shown by a text filter that matches them, or by the ``skipped`` badge."""
    items = sorted(addresses, key=address_key)
    skipped = [Skipped(a, "binary file, not a trace") for n, a in enumerate(items) if n in holes]
    files = {s.path for s in skipped}
    judgements = {
        a: judged(b)
        for a, b in zip(items, badges, strict=False)
        if b is not None and a not in files
    }
    typing = Listing(judgements)
    typing.set_items(items, skipped)
    typing.badge = badge
    text = ""
    for piece in typed:
        text += piece
        typing.text = text
        typing.build()
        fresh = Listing(judgements)
        fresh.set_items(items, skipped)
        fresh.text, fresh.badge = text, badge
        fresh.build()
        assert typing.visible() == fresh.visible()
        assert typing.rows == fresh.rows
        needles = text.lower().split()
        listed = {typing.items[i] for i in typing.rows if i >= 0}
        for address in items:
            if address in files:
                hay = f"{address} skipped not a trace binary file, not a trace".lower()
                wanted = badge == "skipped" or (badge is None and bool(needles))
                wanted = wanted and all(n in hay for n in needles)
                assert address not in typing.visible()
            else:
                hay = typing.hay(address)
                wanted = all(n in hay for n in needles) and (
                    badge is None or typing.badge_of(address) == badge
                )
                assert (address in typing.visible()) == wanted
            if needles or badge:  # (no folder is folded here)
                assert (address in listed) == wanted
        for n, i in enumerate(typing.rows):
            if i >= 0:
                assert typing.row_of(typing.items[i]) == n
        counted = sum(f.count for f in typing.folders if f.depth == 0)
        top_level = sum(1 for a in typing.visible() if not typing.parsed(a).container)
        assert counted + top_level == typing.shown
        # The header's counts under a text filter: per badge, of what the text matches,
        # whatever the verdict filter (what clicking a count shows).
        counts = typing.text_counts()
        if not needles:
            assert counts is None
            continue
        wanted_counts = {b.value: 0 for b in Badge} | {"pending": 0, "skipped": 0}
        for address in items:
            if address in files:
                hay = f"{address} skipped not a trace binary file, not a trace".lower()
                wanted_counts["skipped"] += all(n in hay for n in needles)
            elif all(n in typing.hay(address) for n in needles):
                wanted_counts[typing.badge_of(address)] += 1
        assert counts == wanted_counts


@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["a", "b", "ab"]), max_size=3),
            st.sampled_from(["x.sse", "y.sse", "c.har#1", "c.har#12", "n#1.txt", "d/"]),
        ).map(lambda t: "/".join([*t[0], t[1]])),
        unique=True,
        max_size=30,
    ),
    st.sets(st.integers(0, 29)),
)
def test_runs_group_the_items_as_their_containers_do(addresses: list[str], holes: set[int]) -> None:
    """Runs reuse the container of the previous plain file in the same folder: they must be
    what grouping the items by :meth:`container_of`, one by one, gives."""
    items = sorted(addresses, key=address_key)
    listing = Listing({})
    skipped = [Skipped(a, "no trace") for n, a in enumerate(items) if n in holes]
    listing.set_items(items, skipped)
    expected: list[tuple[int, int, tuple[tuple[str, str, bool], ...], int]] = []
    for i, address in enumerate(listing.items):
        container = listing.container_of(address)
        hole = int(address in listing.skipped)
        if expected and expected[-1][2] == container:
            start, _, _, count = expected[-1]
            expected[-1] = (start, i + 1, container, count + hole)
        else:
            expected.append((i, i + 1, container, hole))
    assert listing.runs() == expected


def test_rows_drawn_before_the_next_build_show_what_they_showed() -> None:
    """A big folder's list is rebuilt up to a second after judgements arrive. Meanwhile a HAR
    file turns into its entries and live changes add and remove files: the rows drawn until
    the build still show what they showed (not their neighbours, shifted by the items that
    came), and find their rows by address; the build then shows the new items."""
    listing = Listing({})
    listing.set_items(["a/1.sse", "a/x.har", "a/y.sse", "b/z.sse"])
    listing.build()
    before = shown(listing)
    keys = {listing.row(n).key: n for n in range(len(listing.rows)) if listing.rows[n] >= 0}
    listing.replace("a/x.har", ["a/x.har#1", "a/x.har#2", "a/x.har#3"], [])
    listing.add(["a/0.sse", "a/0.sse", "0.sse"])  # (named twice: listed once)
    listing.remove(["b/z.sse"])
    assert shown(listing) == before
    assert {k: listing.row_of(k) for k in keys} == keys
    listing.build()
    assert [listing.row(n).key for n in range(len(listing.rows))] == [
        "0.sse",
        "a",
        "a/0.sse",
        "a/1.sse",
        "a/x.har",
        "a/x.har#1",
        "a/x.har#2",
        "a/x.har#3",
        "a/y.sse",
    ]
    assert listing.row_of("a/x.har#2") == 6 and listing.row_of("b/z.sse") is None


async def test_a_row_going_on_past_the_right_edge_ends_in_an_ellipsis() -> None:
    """Cut at the edge, "✗ an empty callId" read "✗ an e" (the calls view at 80×24): a row
    whose word the edge cuts ends in "…" in its last cell on screen (a vertical scrollbar
    covers the line's last), one that fits or is cut between words does not, and scrolled
    to its end it is whole."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.app import App, ComposeResult

    from replay_tui.tui.widgets.line_view import LineView, Row

    texts = ["fits", "✗ an_empty_callId_the_saved_session", "blank after" + " " * 40]
    texts[2] += "next"  # cut where a column ends: whole, "…" would hide its last letter
    texts += [f"row {n}" for n in range(3, 12)]  # more rows than lines: a vertical scrollbar

    class Rows(LineView):
        def render_row(self, index: int) -> Row:
            return [Segment(texts[index])], Style()

    class Shown(App[None]):
        def compose(self) -> ComposeResult:
            yield Rows()

    app = Shown()
    async with app.run_test(size=(20, 5)) as pilot:
        view = app.query_one(Rows)
        view.set_shape(len(texts), max(map(len, texts)))
        await pilot.pause()
        room = view.scrollable_content_region.width
        assert room < view.size.width  # (the scrollbar's column)

        def lines() -> list[str]:
            return [view.render_line(y).text[:room] for y in range(3)]

        shown = lines()
        assert shown[0] == "fits".ljust(room)
        assert shown[1] == texts[1][: room - 1] + "…"
        assert shown[2] == texts[2][:room]
        view.scroll_to(x=len(texts[1]) - room, animate=False, immediate=True)
        await pilot.pause()
        assert lines()[1] == texts[1][-room:]


@given(
    st.lists(st.text(st.sampled_from("a 界✗…z"), min_size=1, max_size=4), min_size=1, max_size=5)
)
def test_the_word_cut_check_reads_the_cells_a_crop_would(texts: list[str]) -> None:
    """The edge's check reads the two cells off the segments (a crop per line drawn cost an
    eighth more CPU): it says what cropping the row there says, wide characters included."""
    from rich.segment import Segment
    from textual.strip import Strip

    from replay_tui.tui.widgets.line_view import _word_cut

    row = Strip([Segment(t) for t in texts])
    for edge in range(1, row.cell_length):
        pair = "".join(s.text for s in row.crop(edge - 1, edge + 1))
        cut = len(pair) >= 2 and not pair[0].isspace() and not pair[1].isspace()
        assert _word_cut(row, edge) is cut


def test_a_folder_holding_only_one_folder_shares_its_row() -> None:
    """Twenty nested folders at 80×24 left no room for the name: a chain of folders that
    each hold only the next is one row (as editors compact them), which folds as one."""
    deep = "/".join(f"l{n}" for n in range(1, 21))
    judgements = {
        f"{deep}/x.sse": judged(Badge.ERASING),
        "day/01/a.sse": judged(Badge.CLEAN),
        "day/01/b.sse": judged(Badge.CLEAN),
        "day/02/c.sse": judged(Badge.CLEAN),  # day holds two folders: its own row
        "har/only/e.har#2": judged(Badge.CLEAN),
        "top.sse": judged(Badge.CLEAN),
    }
    listing = Listing(judgements)
    listing.set_items(sorted(judgements, key=address_key))
    listing.build()
    assert shown(listing) == [
        ("folder", 0, "day"),
        ("folder", 1, "01"),
        ("trace", 2, "a.sse"),
        ("trace", 2, "b.sse"),
        ("folder", 1, "02"),
        ("trace", 2, "c.sse"),
        ("folder", 0, "har/only"),  # a HAR file is a file: never merged with its folder
        ("folder", 1, "e.har"),
        ("trace", 2, "#2"),
        ("folder", 0, deep),
        ("trace", 1, "x.sse"),
        ("trace", 0, "top.sse"),
    ]
    assert listing.row(9).key == deep and listing.row(9).folder is not None
    assert listing.row(9).folder.count == 1
    listing.collapsed.add(deep)
    listing.build()
    assert shown(listing)[-2:] == [("folder", 0, deep), ("trace", 0, "top.sse")]
    # A file of its own keeps a folder on its row.
    listing.set_items(sorted([*judgements, "l1/l2/y.sse"], key=address_key))
    listing.build()
    rows = shown(listing)
    assert ("folder", 0, "l1/l2") in rows and ("folder", 1, "/".join(deep.split("/")[2:])) in rows


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([" qwen", " erasing", " clean", "s", "3"]), min_size=1, max_size=3),
    st.sampled_from(["", "erasing", "clean", "qwen", "x1", "e"]),
    st.sampled_from([None, "erasing", "clean", "pending"]),
    st.lists(st.tuples(st.integers(0, 11), st.sampled_from(list(Badge)), st.booleans())),
)
def test_a_filter_kept_while_batches_are_judged_shows_what_a_fresh_one_would(
    typed: list[str], text: str, badge: str | None, batches: list[tuple[int, Badge, bool]]
) -> None:
    """Judged batch by batch under a filter (a big folder's judging), the list tests again
    only the items judged since; what it shows is what filtering the end state shows."""
    items = [f"{folder}/x{n}.sse" for n in range(12) for folder in ("d", "e")][:12]
    judgements: dict[str, Judgement] = {}
    by_badge: dict[str, set[str]] = {b: set() for b in Badge}
    listing = Listing(judgements, by_badge)
    listing.set_items(sorted(items, key=address_key))
    listing.text, listing.badge = text, badge
    listing.build()
    for k, (n, verdict, qwen) in enumerate(batches):
        address = items[n]
        old = judgements.get(address)
        if old is not None:
            by_badge[old.badge].discard(address)
        judgements[address] = judged(verdict, "qwen3" if qwen else "gpt")
        by_badge[verdict].add(address)
        listing.judged([address])
        if k % 2:  # (else the text changes with the judged ones not tested again yet)
            listing.text_counts()
        listing.text = text + "".join(typed[: k % (len(typed) + 1)])  # typed on meanwhile
        listing.build()  # (as the list does for a key)
    fresh = Listing(dict(judgements), {b: set(a) for b, a in by_badge.items()})
    fresh.set_items(sorted(items, key=address_key))
    fresh.text, fresh.badge = listing.text, badge
    assert listing.visible() == fresh.visible()
    assert listing.text_counts() == fresh.text_counts()
    fresh.build()
    assert [(f.name, f.count, f.erasing) for f in listing.folders] == [
        (f.name, f.count, f.erasing) for f in fresh.folders
    ]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 9),
            st.lists(st.integers(1, 4), max_size=3, unique=True),
            st.booleans(),
        ),
        max_size=6,
    )
)
def test_files_resolved_together_list_as_resolved_one_by_one(
    changes: list[tuple[int, list[int], bool]],
) -> None:
    """Many HAR files judged in one batch (replace_all) give the items, the files skipped
    and the rows that replacing them one at a time gives."""
    files = [f"f/{n}.har" for n in range(10)]
    results = []
    for n, entries, unreadable in changes:
        address = files[n]
        traces = [f"{address}#{e}" for e in entries]
        skipped = [Skipped(address, "not a trace")] if unreadable and not traces else []
        results.append((address, traces, skipped))
    one, bulk = Listing({}), Listing({})
    for listing in (one, bulk):
        listing.set_items(files)
        listing.build()
    for result in results:
        if result[0] in one.index:  # (what replace_all does with a file met twice)
            one.replace(*result)
    bulk.replace_all(results)
    one.build()
    bulk.build()
    assert bulk.items == one.items
    assert bulk.skipped == one.skipped
    assert shown(bulk) == shown(one)


FILES = [
    "a/b/0.sse",
    "a/b/1.har",
    "a/b/2.sse",
    "a/b/c/3.har",
    "d/4.har",
    "d/e/f/5.har",
    "g/6.har",
]
"""Files in folders of which some merge into one row (``a/b/``, ``e/f/``), and some hold
nothing but a HAR file (which stays a row of its own)."""


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(FILES) - 1),
            st.lists(st.integers(1, 3), max_size=3, unique=True),
            st.booleans(),
        ),
        unique_by=lambda judged: judged[0],
    ),
    st.lists(st.integers(1, 3), min_size=1),
    st.booleans(),
)
def test_batches_judged_in_list_order_show_the_rows_a_listing_made_afresh_shows(
    judged: list[tuple[int, list[int], bool]], sizes: list[int], in_order: bool
) -> None:
    """A big folder's judging: batch after batch of files (in list order, as the pool judges,
    or not), each drawn before the next comes; a HAR file becomes its entries (or nothing),
    a file that holds no trace is skipped. The rows drawn are those of a listing given the
    end state at once."""
    if in_order:
        judged.sort()
    batches = []
    while judged:
        size = sizes[len(batches) % len(sizes)]
        batches.append(judged[:size])
        judged = judged[size:]
    bulk = Listing({})
    bulk.set_items(FILES)
    bulk.build()
    shown(bulk)  # (what rows were worked out is kept: the next batches must not misuse it)
    state = {address: [address] for address in FILES}
    skipped: dict[str, Skipped] = {}
    for batch in batches:
        results = []
        for n, entries, unreadable in batch:
            address = FILES[n]
            traces = [f"{address}#{e}" for e in entries]
            if address.endswith(".sse"):
                traces = [] if unreadable else [address]
            none = [Skipped(address, "not a trace")] if unreadable and not traces else []
            results.append((address, traces, none))
            state[address] = sorted([*traces, *(s.path for s in none)], key=address_key)
            skipped.update((s.path, s) for s in none)
        bulk.replace_all(results)
        bulk.build()
        fresh = Listing({})
        fresh.set_items([a for f in FILES for a in state[f]], skipped.values())
        fresh.build()
        assert bulk.items == fresh.items
        assert bulk.skipped == fresh.skipped
        assert bulk.runs() == fresh.runs()
        assert shown(bulk) == shown(fresh)
        assert [f.count for f in bulk.folders] == [f.count for f in fresh.folders]


JUDGED_FILES = st.lists(
    st.tuples(
        st.integers(0, len(FILES) - 1),
        st.lists(st.integers(1, 3), max_size=3, unique=True),
        st.booleans(),
        st.sampled_from([Badge.ERASING, Badge.CLEAN]),
    ),
    unique_by=lambda file: file[0],
)
"""Files of the listing judged, in any order: which, the HAR entries each became, whether it
is skipped, and its badge."""


class _Judging:
    """A listing of :data:`FILES` under a filter, the folder's files judged one at a time
    (files becoming their entries, files that hold no trace), and a fresh listing of what
    they came to."""

    def __init__(self, text: str, badge: str | None) -> None:
        self.judgements: dict[str, Judgement] = {}
        self.by_badge: dict[str, set[str]] = {b: set() for b in Badge}
        self.bulk = bulk = Listing(self.judgements, self.by_badge)
        bulk.set_items(FILES)
        bulk.text, bulk.badge = text, badge
        bulk.build()
        bulk.text_counts()
        self.state = {address: [address] for address in FILES}
        self.skipped: dict[str, Skipped] = {}

    def judge(
        self, n: int, entries: list[int], unreadable: bool, verdict: Badge
    ) -> tuple[str, list[str], list[Skipped]]:
        """File ``n`` judged (not yet told to the listing): ``(address, traces, skipped)``."""
        address = FILES[n]
        traces = [f"{address}#{e}" for e in entries]
        if address.endswith(".sse"):
            traces = [] if unreadable else [address]
        none = [Skipped(address, "not a trace")] if unreadable and not traces else []
        self.state[address] = sorted([*traces, *(s.path for s in none)], key=address_key)
        self.skipped.update((s.path, s) for s in none)
        for trace in traces:
            self.judgements[trace] = judged(verdict)
            self.by_badge[verdict].add(trace)
        return address, traces, none

    def fresh(self, text: str, badge: str | None) -> Listing:
        """A listing given the files as judged and the filter at once, built."""
        fresh = Listing(dict(self.judgements), {b: set(a) for b, a in self.by_badge.items()})
        fresh.set_items([a for f in FILES for a in self.state[f]], self.skipped.values())
        fresh.text, fresh.badge = text, badge
        fresh.build()
        return fresh


@settings(max_examples=300, deadline=None)
@given(
    JUDGED_FILES,
    st.lists(st.integers(1, 3), min_size=1),
    st.sampled_from(["", "erasing", "har", "pending", "2", "a/b not", "skipped"]),
    st.sampled_from([None, "erasing", "pending", "skipped"]),
    st.booleans(),
)
def test_a_filter_and_its_counts_kept_while_har_files_are_judged_are_a_fresh_ones(
    files: list[tuple[int, list[int], bool, Badge]],
    sizes: list[int],
    text: str,
    badge: str | None,
    in_order: bool,
) -> None:
    """A big folder judged batch by batch under a filter: the matches and the counts kept
    from batch to batch (files becoming their entries moved the positions of those after
    them; files that hold no trace left the traces) are what a listing given the end state
    at once shows and counts."""
    if in_order:
        files.sort()
    batches = []
    while files:
        size = sizes[len(batches) % len(sizes)]
        batches.append(files[:size])
        files = files[size:]
    folder = _Judging(text, badge)
    bulk = folder.bulk
    for k, batch in enumerate(batches):
        results = [folder.judge(*file) for file in batch]
        bulk.replace_all(results)
        bulk.judged([trace for _, traces, _ in results for trace in traces])
        if k % 2:  # (else two batches come in before the next count)
            bulk.text_counts()
        bulk.build()
        fresh = folder.fresh(text, badge)
        assert bulk.items == fresh.items
        assert shown(bulk) == shown(fresh)
        assert bulk.visible() == fresh.visible()
        assert bulk.text_counts() == fresh.text_counts()
        assert [(f.count, f.erasing) for f in bulk.folders] == [
            (f.count, f.erasing) for f in fresh.folders
        ]


@settings(max_examples=300, deadline=None)
@given(
    JUDGED_FILES,
    st.sampled_from(["", "erasing", "har", "pending", "2", "a/b not", "skipped", "d/"]),
    st.sampled_from(["", "e", "erasing", "3.har", "x"]),
    st.lists(st.integers(0, 3), min_size=1),
    st.sampled_from([None, "erasing", "pending"]),
)
def test_a_filter_matched_step_by_step_while_files_are_judged_is_a_fresh_ones(
    files: list[tuple[int, list[int], bool, Badge]],
    first: str,
    then: str,
    steps: list[int],
    badge: str | None,
) -> None:
    """A filter typed in a big folder is matched a few items at a time, batches of the
    folder's judging coming in between the steps (files becoming their entries, files that
    hold no trace): once done, it shows and counts what a listing given the end state and
    that filter at once shows and counts."""
    from replay_tui.tui import listing as listing_module

    folder = _Judging(first, badge)
    bulk = folder.bulk

    def judge(n: int, entries: list[int], unreadable: bool, verdict: Badge) -> None:
        address, traces, none = folder.judge(n, entries, unreadable, verdict)
        bulk.replace_all([(address, traces, none)])
        bulk.judged(traces)

    old_step = listing_module.MATCH_STEP
    listing_module.MATCH_STEP = 2
    try:
        job = bulk.match_in_steps(first + then)
        outcome = None
        k = 0
        while outcome is None:
            for _ in range(steps[k % len(steps)]):  # files judged between two steps
                if files:
                    judge(*files.pop(0))
            k += 1
            try:
                next(job)
            except StopIteration as end:
                outcome = end.value
    finally:
        listing_module.MATCH_STEP = old_step
    if outcome == "lost":  # (the folders changed: a file gone; the list filters at once)
        bulk.text = first + then
    assert outcome in ("done", "lost") and bulk.text == first + then
    for file in files:  # the rest, after
        judge(*file)
    bulk.build()
    fresh = folder.fresh(first + then, badge)
    assert shown(bulk) == shown(fresh)
    assert bulk.visible() == fresh.visible()
    assert bulk.text_counts() == fresh.text_counts()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["a", "b", "c.har", "d#1"]), max_size=3),
            st.sampled_from(["x.sse", "c.har#1", "c.har#12", "c.har#2x", "e#3", "y.har#٣"]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_each_run_of_items_sits_in_the_folders_of_each_of_its_items(
    parts: list[tuple[list[str], str]],
) -> None:
    """The list's runs (items that share their folders, made with one lookup each) hold each
    item in the folders its own address says: captures in a folder, a HAR file's entries
    (``#`` and ASCII digits), and names that only look like them."""
    items = sorted({"/".join([*folders, name]) for folders, name in parts}, key=address_key)
    listing = Listing({}, {})
    listing.set_items(items)
    runs = listing.runs()
    assert [i for start, end, _, _ in runs for i in range(start, end)] == list(range(len(items)))
    fresh = Listing({}, {})
    fresh.set_items(items)
    for start, end, container, _ in runs:
        for address in items[start:end]:
            assert fresh.container_of(address) == container
    # The folders shared on one row with the one below (found with the runs): those that
    # hold nothing but one folder (no file, no HAR file of their own).
    below: dict[str, set[str]] = {}
    for address in items:
        entry = re.fullmatch(r"(.+)#([0-9]+)", address)
        names = address.rstrip("/").split("/")
        if entry is not None:  # (a HAR entry sits in its file, which is no folder)
            names = [*entry[1].split("/")[:-1], f"{entry[1].split('/')[-1]}\0"]
        for depth in range(1, len(names)):
            below.setdefault("/".join(names[:depth]), set()).add(names[depth])
    merged = {
        folder
        for folder, held in below.items()
        if len(held) == 1
        and not next(iter(held)).endswith("\0")
        and f"{folder}/{next(iter(held))}" in below
    }
    assert listing.merged_folders() == merged == fresh.merged_folders()
