"""The TUI's judging of a listed folder: the judgement cache and the process pool."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from replay_tui.core.discovery import Candidate, Skipped, walk
from replay_tui.core.result import judge_listed, only_trace
from replay_tui.scale import judgements as judging
from replay_tui.scale.judgements import JudgementCache, Known, cache_dir, judge_files

TRACES = Path(__file__).resolve().parents[2] / "traces"


def _files(root: Path, *, stat: bool = False) -> list[Candidate]:
    return [c for c in walk([str(root)], stat=stat) if isinstance(c, Candidate)]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "traces"
    shutil.copytree(TRACES, root)
    return root


def test_the_cache_lives_under_xdg_cache_home_else_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "replay-tui"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "replay-tui"


def _cached(folder: Path) -> tuple[list[Candidate], JudgementCache]:
    """The files under ``folder``, judged once into a cache of their own."""
    files = _files(folder)
    cache = JudgementCache([str(folder)])
    list(judge_files(files, jobs=1, cache=cache))
    return files, cache


def _answers(known: Known) -> dict[str, list]:  # type: ignore[type-arg]
    """What the cache answered, as :func:`judge_files` would have: each file's listing."""
    return {a: [(a, j)] for a, j in known.single} | dict(known.other)


@pytest.mark.parametrize("stat", [False, True], ids=["stat-here", "stat-in-walk"])
def test_a_judged_folder_is_answered_by_the_cache_until_a_file_changes(
    folder: Path, stat: bool
) -> None:
    (folder / "notes.txt").write_text("not a trace")  # a file that holds none is known too
    files = _files(folder)
    first = JudgementCache([str(folder)])
    first.load()
    assert first.sort_out(files).todo == files  # nothing known yet
    judged = dict((c.address, r) for c, r in judge_files(files, jobs=1, cache=first))
    assert judged == {c.address: judge_listed(c) for c in files}  # as judged one by one
    assert first.path.parent == cache_dir() and first.path.exists()

    again = JudgementCache([str(folder)])
    again.load()
    assert len(again) == len(files)
    listed = _files(folder, stat=stat)
    known = again.sort_out(listed)
    assert known.todo == [] and _answers(known) == judged
    # In list order, files that are one trace each apart from the others.
    single = [c.address for c in files if only_trace(c.address, judged[c.address])]
    assert [a for a, _ in known.single] == single
    assert [a for a, _ in known.other] == [c.address for c in files if c.address not in single]
    assert "notes.txt" not in single and len(single) > len(files) // 2

    # Rewritten with other content: the size or mtime differ, so it is judged again.
    changed = folder / "dashscope" / "qwen3-max-id-empty.sse"
    shutil.copy(folder / "openai" / "gpt-4.1-text-then-call.sse", changed)
    listed = _files(folder, stat=stat)
    known = again.sort_out(listed)
    assert [c.address for c in known.todo] == ["dashscope/qwen3-max-id-empty.sse"]
    assert _answers(known).keys() == judged.keys() - {"dashscope/qwen3-max-id-empty.sse"}
    rejudged = dict(judge_files(known.todo, jobs=1, cache=again))
    [(_, badge)] = [r for r in rejudged[next(c for c in listed if c.path == str(changed))]]
    assert badge.badge.value == "clean"  # type: ignore[union-attr]
    assert again.sort_out(_files(folder, stat=stat)).todo == []  # and remembered


def test_names_and_judgements_that_are_not_utf8_are_left_out_and_the_rest_kept(
    folder: Path,
) -> None:
    """A file name with a byte that is not UTF-8 (held with a surrogate escape), and a model
    named by a lone surrogate in the JSON: the cache file cannot hold them (it crashed the
    TUI); they are judged again on each open, and every other file is kept."""
    odd = os.fsdecode(b"bad\xffname.sse")
    shutil.copy(folder / "dashscope" / "qwen3-max-id-empty.sse", folder / odd)
    body = (folder / "openai" / "gpt-4.1-text-then-call.sse").read_text()
    (folder / "lone.sse").write_text(body.replace('"model":"gpt-4.1', '"model":"\\ud800'))
    files, cache = _cached(folder)
    assert cache.problem is None and cache.path.exists()
    again = JudgementCache([str(folder)])
    again.load()
    known = again.sort_out(_files(folder))
    assert sorted(c.address for c in known.todo) == sorted([odd, "lone.sse"])
    assert len(again) == len(files) - 2


def test_files_written_lately_or_gone_are_not_answered_and_gone_ones_are_forgotten(
    folder: Path,
) -> None:
    files, cache = _cached(folder)
    latest = max(os.stat(c.path).st_mtime_ns for c in files)
    lately = [c.address for c in files if os.stat(c.path).st_mtime_ns >= latest]
    known = cache.sort_out(files, fresh_from=latest)
    assert [c.address for c in known.todo] == lately  # may still be being written

    gone = folder / "openai" / "gpt-4.1-text-then-call.sse"
    os.unlink(gone)
    known = cache.sort_out(files)  # listed before it went: judged again (and said gone)
    assert [c.address for c in known.todo] == ["openai/gpt-4.1-text-then-call.sse"]
    assert len(cache) == len(files)
    cache.sort_out(_files(folder))  # not listed any more: forgotten
    assert len(cache) == len(files) - 1


def test_another_version_of_the_code_or_other_roots_or_a_torn_file_start_empty(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, cache = _cached(folder)
    fresh = JudgementCache([str(folder)])
    fresh.load()
    assert len(fresh) == len(files)

    monkeypatch.setattr(judging, "tool_version", lambda: "0.0.0+other")
    other = JudgementCache([str(folder)])
    other.load()
    assert len(other) == 0
    monkeypatch.undo()

    elsewhere = JudgementCache([str(folder), str(folder.parent)])
    assert elsewhere.path != cache.path

    cache.path.write_bytes(cache.path.read_bytes()[:100])
    torn = JudgementCache([str(folder)])
    torn.load()
    assert len(torn) == 0 and torn.problem is None


def test_a_cache_that_cannot_be_written_is_said_and_judging_goes_on(folder: Path) -> None:
    blocked = folder.parent / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    cache = JudgementCache([str(folder)], directory=blocked / "replay-tui")
    results = list(judge_files(_files(folder), jobs=1, cache=cache))
    assert len(results) == len(_files(folder))
    assert cache.problem is not None and "not-a-folder" in cache.problem


def test_files_the_caller_follows_come_back_unjudged_and_vanished_ones_are_skipped(
    folder: Path,
) -> None:
    files = _files(folder)
    gone = folder / "openai" / "gpt-4.1-text-then-call.sse"
    os.unlink(gone)
    out = dict(
        (c.address, r)
        for c, r in judge_files(
            files, jobs=1, here=lambda item, stamp: item.address.startswith("dashscope/")
        )
    )
    assert out["dashscope/qwen3-max-id-empty.sse"] is None
    lost = out["openai/gpt-4.1-text-then-call.sse"]
    assert lost is not None and isinstance(lost[0], Skipped)
    assert "vanished" in lost[0].reason


def test_the_pool_judges_a_big_folder_as_one_process_does(tmp_path: Path) -> None:
    sample = sorted((TRACES / "captures").glob("*"))
    for n in range(80):  # more than the pool's threshold for starting workers
        source = sample[n % len(sample)]
        shutil.copy(source, tmp_path / f"{n:03}-{source.name}")
    files = _files(tmp_path)
    pooled = [(c.address, r) for c, r in judge_files(files, jobs=2)]
    assert pooled == [(c.address, judge_listed(c)) for c in files]


def test_the_walk_takes_each_files_size_and_mtime_when_asked(folder: Path) -> None:
    (folder / "linked").symlink_to(folder / "openai")  # a folder reached through a symlink
    (folder / "dangling.sse").symlink_to(folder / "nowhere.sse")
    plain = list(walk([str(folder)]))
    stamped = list(walk([str(folder)], stat=True))
    assert [c._replace(stamp=None) if isinstance(c, Candidate) else c for c in stamped] == plain
    files = [c for c in stamped if isinstance(c, Candidate)]
    assert any(c.address.startswith("linked/") for c in files)
    for c in files:
        st = os.stat(c.path)
        assert c.stamp == (st.st_size, st.st_mtime_ns)
    assert any(isinstance(s, Skipped) and s.path == "dangling.sse" for s in stamped)
    one = folder / "openai" / "gpt-4.1-text-then-call.sse"
    [named] = walk([str(one)], stat=True)
    assert isinstance(named, Candidate) and named.stamp == (
        one.stat().st_size,
        one.stat().st_mtime_ns,
    )


def test_the_cache_lists_what_it_knows_in_list_order_without_reading_a_file(
    folder: Path,
) -> None:
    _cached(folder)
    shutil.copy(folder / "openai" / "gpt-4.1-text-then-call.sse", folder / "azure" / "a.sse")
    again = JudgementCache([str(folder)])
    again.load()
    known = again.sort_out(_files(folder))
    assert [c.address for c in known.todo] == ["azure/a.sse"]
    list(judge_files(known.todo, jobs=1, cache=again))  # judged last, written in its place

    third = JudgementCache([str(folder)])
    third.load()
    known, listed = third.listing()
    now = _files(folder)
    assert [address for address, _ in listed] == [c.address for c in now]
    assert all(path == os.path.join(os.path.abspath(folder), a) for a, path in listed)
    assert _answers(known) == {c.address: judge_listed(c) for c in now}
    several = JudgementCache([str(folder), str(folder / "azure")])
    several.load()
    assert several.listing() == (Known(), [])  # whose is each address? not known: nothing


# The peak RSS of this process's own memory (VmHWM: ru_maxrss would count the parent's
# pages at the fork, kept across exec on Linux), in KiB; 0 where there is no /proc.
_LOAD_BIG = """
import re, sys
from pathlib import Path
from replay_tui.scale.judgements import JudgementCache
cache = JudgementCache([sys.argv[1]], directory=Path(sys.argv[2]))
cache.load()
print(len(cache))
print(cache.problem)
try:
    status = Path("/proc/self/status").read_text()
except OSError:
    status = ""
found = re.search(r"VmHWM:\\s*(\\d+) kB", status)
print(found.group(1) if found else 0)
"""


def test_a_cache_file_over_the_limit_is_not_read_and_that_is_said(
    folder: Path, tmp_path: Path
) -> None:
    """The issue's 400 MB cache file, read whole, took 458 MB."""
    import subprocess
    import sys

    directory = tmp_path / "cache"
    cache = JudgementCache([str(folder)], directory=directory)
    directory.mkdir()
    with cache.path.open("wb") as fh:
        fh.truncate(400 << 20)  # sparse: 400 MB to read, no disk used
    done = subprocess.run(
        [sys.executable, "-c", _LOAD_BIG, str(folder), str(directory)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    count, problem, peak = done.stdout.splitlines()
    assert count == "0"
    assert problem == (
        f"{cache.path}: 400 MiB, over the cache's limit of 64 MiB: not read (every file is"
        " judged again)"
    )
    if Path("/proc/self/status").exists():
        assert 0 < int(peak) < 200 << 10  # KiB: the file was not read into memory


def test_a_cache_that_would_be_over_the_limit_is_not_written_and_that_is_said(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, cache = _cached(folder)
    size = cache.path.stat().st_size
    monkeypatch.setattr(judging, "MAX_CACHE_BYTES", size - 1)
    cache.put("one-more.sse", (1, 1), [Skipped("one-more.sse", "empty file")])
    cache.save()
    assert cache.problem is not None
    assert "not written" in cache.problem and "over the cache's limit" in cache.problem
    assert cache.path.stat().st_size == size  # the last one that fitted is kept
    monkeypatch.setattr(judging, "MAX_CACHE_BYTES", size)
    again = JudgementCache([str(folder)], directory=cache.path.parent)
    again.load()
    assert len(again) == len(files) and again.problem is None


def test_a_cache_naming_a_file_twice_or_a_code_it_does_not_have_is_not_used(folder: Path) -> None:
    """The cache's list is made from its columns as written: one that names a file twice, or
    gives a file a judgement it does not hold, is no cache this tool wrote (every file is
    judged again), never a list with a row twice or a traceback."""
    import msgspec

    _cached(folder)
    cache = JudgementCache([str(folder)])
    raw = msgspec.msgpack.decode(cache.path.read_bytes())
    for change in ("twice", "code"):
        bad = dict(raw)
        if change == "twice":
            bad["files"] = [raw["files"][0], *raw["files"][:-1]]
        else:
            bad["codes"] = [-7, *raw["codes"][1:]]
        cache.path.write_bytes(msgspec.msgpack.encode(bad))
        again = JudgementCache([str(folder)])
        again.load()
        assert len(again) == 0 and again.shown() is not None
        assert again.sort_out(_files(folder)).todo == _files(folder)
