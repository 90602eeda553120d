"""What the TUI does with a folder off screen (browse.judging): the walk, the judgement cache,
judging in batches the screen takes in, and captures still being written followed, not
pooled. No app here: these are the workers' parts, run as plain calls."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from replay_tui.browse.judging import (
    FolderJudging,
    JudgedBatch,
    Walked,
    collector_paused,
    first_flagged,
    one_stream,
)
from replay_tui.core.discovery import Candidate, Skipped
from replay_tui.core.result import Judgement, Listed
from replay_tui.core.trace import Badge
from replay_tui.live.folder import LiveFolder
from replay_tui.scale.judgements import Shown
from tests.core.helpers import call, chunk, sse, tools, write

TRACES = Path(__file__).resolve().parents[2] / "traces"
CLEAN = sse(chunk({"content": "hi"}, finish="stop"))
ERASING = sse(
    tools(call(0, id="c", name="f", arguments="")),
    tools(call(0, id="", arguments="{}")),
    chunk(finish="tool_calls"),
)
GROWING = sse(tools(call(0, id="c", name="f", arguments="")), done=False)
HAR = TRACES / "captures" / "mitmproxy-export.har"


def _folder(root: Path, n: int = 6) -> dict[str, Badge]:
    """``n`` captures in two folders, every other one erasing, and a file that is none;
    returns each capture's badge as written (the oracle: what each was made to be)."""
    want = {}
    for k in range(n):
        name = f"{'a' if k < n // 2 else 'b'}/{k:02}.sse"
        write(root, name, ERASING if k % 2 else CLEAN)
        want[name] = Badge.ERASING if k % 2 else Badge.CLEAN
    write(root, "notes.txt", "not a trace")
    return want


def _old(root: Path) -> None:
    """Every file under ``root`` written an hour ago (not a capture being written now)."""
    hour_ago = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (hour_ago, hour_ago))


def _all_judged(batches: list[JudgedBatch]) -> dict[str, Listed]:
    return {address: listed for b in batches for address, listed in b.judged}


def _badges(judged: dict[str, Listed]) -> dict[str, Badge]:
    return {
        item[0]: item[1].badge
        for listed in judged.values()
        for item in listed
        if not isinstance(item, Skipped)
    }


def _walk(judging: FolderJudging, show_from: int = 10**9) -> tuple[Walked, list[object]]:
    shown: list[object] = []
    walked = judging.walk_and_sort(shown.append, show_from)
    return walked, shown


def test_a_folder_is_listed_then_judged_in_list_order_into_batches(tmp_path: Path) -> None:
    want = _folder(tmp_path)
    judging = FolderJudging([str(tmp_path)])
    walked, shown = _walk(judging)
    assert shown == []  # nothing known yet
    assert [c.address for c in walked.files] == sorted([*want, "notes.txt"])  # not read yet
    assert walked.todo == walked.files and walked.judged == [] and walked.single == []
    assert walked.cache is not None and not walked.named
    assert all(c.stamp is None for c in walked.files)  # nothing to compare: not stat'ed yet
    batches = list(judging.judge_in_batches(walked.todo, walked.cache, lambda: False))
    assert [b.finished for b in batches] == [False] * (len(batches) - 1) + [True]
    judged = [address for b in batches for address, _ in b.judged]
    assert judged == sorted([*want, "notes.txt"])  # each file once, in list order
    assert _badges(_all_judged(batches)) == want
    [none] = _all_judged(batches)["notes.txt"]
    assert isinstance(none, Skipped) and none.path == "notes.txt"
    assert all(b.traces == [] for b in batches)  # nothing followed: not watching


def test_a_batch_waits_until_the_screen_took_the_last_one(tmp_path: Path) -> None:
    _folder(tmp_path, 8)
    judging = FolderJudging([str(tmp_path)], use_cache=False)
    files = _walk(judging)[0].todo
    every = list(judging.judge_in_batches(files, None, lambda: False, first=0, every=0))
    # The screen takes each at once; the last says so, with nothing left in it.
    assert [(len(b.judged), b.finished) for b in every] == [(1, False)] * 9 + [(0, True)]
    never = list(
        judging.judge_in_batches(files, None, lambda: False, lambda: False, first=0, every=0)
    )
    assert [(len(b.judged), b.finished) for b in never] == [(9, True)]  # all in the last
    later = list(judging.judge_in_batches(files, None, lambda: False, first=3600))
    assert [(len(b.judged), b.finished) for b in later] == [(9, True)]


def test_judging_stopped_gives_no_finished_batch(tmp_path: Path) -> None:
    _folder(tmp_path, 8)
    judging = FolderJudging([str(tmp_path)], use_cache=False)
    files = _walk(judging)[0].todo
    seen: list[JudgedBatch] = []
    for batch in judging.judge_in_batches(files, None, lambda: len(seen) >= 2, first=0, every=0):
        seen.append(batch)
    assert len(seen) == 2 and not any(b.finished for b in seen)


def test_a_reopened_folder_is_answered_by_the_cache_and_only_a_changed_file_is_judged(
    tmp_path: Path,
) -> None:
    want = _folder(tmp_path)
    first = FolderJudging([str(tmp_path)])
    walked = _walk(first)[0]
    list(first.judge_in_batches(walked.todo, walked.cache, lambda: False))
    again, shown = _walk(FolderJudging([str(tmp_path)]))
    assert again.todo == [] and shown == []
    assert all(c.stamp is not None for c in again.files)  # (taken by the walk, to compare)
    cached = {a: j.badge for a, j in again.single}
    assert cached == want
    assert [a for a, _ in again.judged] == ["notes.txt"]  # known to hold no trace
    assert FolderJudging.save_cache(again) is None
    write(tmp_path, "a/00.sse", ERASING + b"\n")  # changed: another size
    changed = _walk(FolderJudging([str(tmp_path)]))[0]
    assert [c.address for c in changed.todo] == ["a/00.sse"]
    assert FolderJudging.save_cache(changed) is None  # (left to the judging)


def test_a_big_reopened_folder_is_shown_from_the_cache_before_the_walk(tmp_path: Path) -> None:
    want = _folder(tmp_path)
    judging = FolderJudging([str(tmp_path)])
    walked = _walk(judging)[0]
    list(judging.judge_in_batches(walked.todo, walked.cache, lambda: False))
    _, quiet = _walk(FolderJudging([str(tmp_path)]), show_from=len(want) + 2)
    assert quiet == []  # fewer files than that: walked and checked at once, shown once
    again, shown = _walk(FolderJudging([str(tmp_path)]), show_from=len(want))
    [cached] = shown
    assert isinstance(cached, Shown)
    assert {a: j.badge for a, j in cached.judgements.items()} == want
    assert cached.files == cached.items == sorted([*want, "notes.txt"])
    assert [s.path for s in cached.skipped] == ["notes.txt"]
    assert cached.paths == {a: os.path.join(tmp_path, a) for a in want}
    assert {b: s for b, s in cached.by_badge.items() if s} == {
        b: {a for a, badge in want.items() if badge is b} for b in set(want.values())
    }
    assert again.as_shown  # (the same files, in the same order, at the same paths)


def test_the_cache_shows_a_har_file_as_its_entries_where_the_file_was(tmp_path: Path) -> None:
    """What a re-open shows before the walk, made in bulk by the worker: the HAR file's
    entries in its place, each at its file's path, the files that hold no trace among the
    items; what the judging said of each file the first time is the oracle."""
    want = _folder(tmp_path)
    (tmp_path / "notes.txt").unlink()
    shutil.copy(HAR, tmp_path / "a" / "01x.har")
    judging = FolderJudging([str(tmp_path)])
    walked = _walk(judging)[0]
    judged = _all_judged(list(judging.judge_in_batches(walked.todo, walked.cache, lambda: False)))
    assert any(len(listed) > 1 for listed in judged.values())  # (the HAR file's entries)
    again, shown = _walk(FolderJudging([str(tmp_path)]), show_from=1)
    [cached] = shown
    assert isinstance(cached, Shown)
    entries = judged["a/01x.har"]
    traces = [item for item in entries if not isinstance(item, Skipped)]
    numbers = [int(address.rpartition("#")[2]) for address, _ in traces]
    assert numbers == sorted(numbers)
    items = ["a/00.sse", "a/01.sse", "a/01x.har", "a/02.sse", "b/03.sse", "b/04.sse", "b/05.sse"]
    assert cached.files == items
    at = items.index("a/01x.har")
    held = [a for a, _ in traces] + [i.path for i in entries if isinstance(i, Skipped)]
    assert cached.items[:at] == items[:at] and cached.items[at + len(held) :] == items[at + 1 :]
    assert sorted(cached.items[at : at + len(held)]) == sorted(held)
    assert cached.judgements == {**dict(traces), **{a: j for a, [(_, j)] in _singles(judged)}}
    assert set(want) <= set(cached.judgements)
    har_path = os.path.join(tmp_path, "a", "01x.har")
    assert cached.paths == {
        **{a: os.path.join(tmp_path, a) for a in want},
        **{a: har_path for a, _ in traces},
    }
    assert cached.became == {"a/01x.har": [a for a, _ in traces]}
    assert again.as_shown and again.todo == []


def _singles(judged: dict[str, Listed]) -> list[tuple[str, Listed]]:
    return [(a, listed) for a, listed in judged.items() if len(listed) == 1]


def test_one_file_named_is_left_to_open_and_a_har_file_named_is_judged_at_once(
    tmp_path: Path,
) -> None:
    capture = write(tmp_path, "one.sse", ERASING)
    named = _walk(FolderJudging([str(capture)]))[0]
    assert named.named and named.todo == [] and named.judged == []
    har = tmp_path / "export.har"
    shutil.copy(HAR, har)
    walked = _walk(FolderJudging([str(har)]))[0]
    assert not walked.named and walked.todo == []
    [(address, listed)] = walked.judged
    entries = [item[0] for item in listed if not isinstance(item, Skipped)]
    assert address == str(har) and len(entries) > 1
    assert all(e.startswith(f"{har}#") for e in entries)


def test_two_entries_of_one_har_file_named_are_two_rows_each_judged_alone(tmp_path: Path) -> None:
    """``x.har#2 x.har#4``: each named entry is listed at its own address (they were one
    file's address twice: the list counted one trace and "judging -1")."""
    har = tmp_path / "export.har"
    shutil.copy(HAR, har)
    judging = FolderJudging([f"{har}#2", f"{har}#4"], use_cache=False)
    walked = _walk(judging)[0]
    assert [c.address for c in walked.files] == [f"{har}#2", f"{har}#4"]
    batches = list(judging.judge_in_batches(walked.todo, walked.cache, lambda: False))
    judged = _all_judged(batches)
    assert {a: [item[0] for item in listed] for a, listed in judged.items()} == {
        f"{har}#2": [f"{har}#2"],
        f"{har}#4": [f"{har}#4"],
    }


def test_a_capture_still_being_written_is_followed_here_and_the_rest_pooled(
    tmp_path: Path,
) -> None:
    _folder(tmp_path, 4)
    _old(tmp_path)
    live = LiveFolder([str(tmp_path)])
    write(tmp_path, "b/live.sse", GROWING)  # written after the folder was opened
    judging = FolderJudging([str(tmp_path)], live=live)
    walked = _walk(judging)[0]
    assert "b/live.sse" in live.known  # the followed folder knows every file listed
    batches = list(judging.judge_in_batches(walked.todo, walked.cache, lambda: False))
    badges = _badges(_all_judged(batches))
    assert badges["b/live.sse"] == Badge.IN_PROGRESS  # not judged as ended ("broken")
    followed = [t for b in batches for t in b.traces]
    assert [t.address for t in followed] == ["b/live.sse"]
    assert len(badges) == 5
    # Judged as it stands, it is the pool's: a capture cut short.
    alone = FolderJudging([str(tmp_path)], use_cache=False)
    pooled = _badges(
        _all_judged(
            list(
                alone.judge_in_batches(
                    alone.walk_and_sort(lambda *_: None, 10**9).todo, None, lambda: False
                )
            )
        )
    )
    assert pooled["b/live.sse"] != Badge.IN_PROGRESS


def test_what_a_har_file_holds_is_told_to_the_followed_folder(tmp_path: Path) -> None:
    shutil.copy(HAR, tmp_path / "export.har")
    _old(tmp_path)
    live = LiveFolder([str(tmp_path)])
    judging = FolderJudging([str(tmp_path)], live=live)
    walked = _walk(judging)[0]
    assert set(live.known) == {"export.har"}
    judged = _all_judged(list(judging.judge_in_batches(walked.todo, None, lambda: False)))
    entries = {item[0] for item in judged["export.har"] if not isinstance(item, Skipped)}
    assert entries and set(live.known) == entries  # the file's own address gives way


def test_the_first_flagged_trace_among_files_or_traces() -> None:
    clean = Judgement(Badge.CLEAN, (), 0, ())
    flagged = Judgement(Badge.ERASING, (), 2, ())
    files: list[tuple[str, Listed]] = [
        ("a.sse", [("a.sse", clean)]),
        ("x.txt", [Skipped("x.txt", "not a trace")]),
        ("h.har", [("h.har#1", clean), ("h.har#2", flagged)]),
    ]
    assert first_flagged(files) == "h.har#2"
    assert first_flagged([("a", clean), ("b", flagged)]) == "b"
    assert first_flagged([("a", clean)]) is None


def test_one_stream_is_a_file_of_one_trace_under_its_own_address(tmp_path: Path) -> None:
    one = write(tmp_path, "one.sse", CLEAN)
    shutil.copy(HAR, tmp_path / "export.har")
    text = write(tmp_path, "notes.txt", "not a trace")
    assert one_stream(Candidate(str(one), "one.sse"))
    assert not one_stream(Candidate(str(tmp_path / "export.har"), "export.har"))
    assert not one_stream(Candidate(str(text), "notes.txt"))


@pytest.mark.parametrize("was_on", [True, False])
def test_the_collector_is_paused_while_listing_and_left_as_it_was(was_on: bool) -> None:
    (gc.enable if was_on else gc.disable)()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is was_on
    finally:
        gc.enable()


def test_the_list_is_shown_before_the_followed_folder_knows_the_files_and_it_waits(
    tmp_path: Path,
) -> None:
    """The walk's files are shown first; the followed folder learns where they are after,
    and is busy meanwhile: a catch-up asked then finds nothing new (not every file)."""
    import threading

    _folder(tmp_path, 4)
    _old(tmp_path)
    live = LiveFolder([str(tmp_path)])
    seen: dict[str, object] = {}
    caught: list[object] = []

    def show(walked: Walked) -> None:
        seen["known"] = dict(live.known)
        busy: list[bool] = []
        asked = threading.Thread(target=lambda: busy.append(live.in_progress()))
        asked.start()
        asked.join()
        seen["busy"] = busy == [True]  # (nothing is being written: only the lock says yes)
        catching = threading.Thread(target=lambda: caught.append(live.catch_up()))
        catching.start()
        seen["catching"] = catching

    judging = FolderJudging([str(tmp_path)], live=live)
    walked = judging.walk_and_sort(lambda *_: None, 10**9, show)
    seen["catching"].join()  # type: ignore[attr-defined]
    assert seen["known"] == {} and seen["busy"] is True
    assert set(live.known) == {c.address for c in walked.files}
    [update] = caught
    assert not update  # it waited for the files to be known: none is new
    assert live.in_progress() is False


_PREPARED = """
import sys, threading, time
from multiprocessing import forkserver
from replay_tui.browse.judging import FolderJudging

threading.Thread(target=time.sleep, args=(30,), daemon=True).start()  # threads: as the TUI
judging = FolderJudging([sys.argv[1]], use_cache=False, jobs=2)
walked = judging.walk_and_sort(lambda known, listed: None, 10**9)
started = forkserver._forkserver._forkserver_pid is not None  # (before any judging)
judged = [listed for _, listed, _ in judging.judge(walked.todo, None, lambda: False)]
print(started, len(judged), sum(len(listed) for listed in judged))
"""


@pytest.mark.parametrize("files", [100, 10])
def test_the_pools_workers_are_made_ready_while_the_list_is_shown(
    tmp_path: Path, files: int
) -> None:
    """In a process with threads (the TUI's), the server the pool's workers are forked from
    starts with the walk of a folder that the pool will judge (not once the list is drawn),
    and only then: a few files are judged in the process."""
    for n in range(files):
        write(tmp_path, f"{n:03d}.sse", CLEAN)
    done = subprocess.run(
        [sys.executable, "-c", _PREPARED, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.split() == [str(files >= 64), str(files), str(files)]
