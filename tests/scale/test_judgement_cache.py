"""The TUI's judging of a listed folder: the judgement cache and the process pool."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from replay_tui.core.discovery import Candidate, Skipped, walk
from replay_tui.core.result import judge_listed
from replay_tui.scale import judgements as judging
from replay_tui.scale.judgements import JudgementCache, cache_dir, judge_files

TRACES = Path(__file__).resolve().parents[2] / "traces"


def _files(root: Path) -> list[Candidate]:
    return [c for c in walk([str(root)]) if isinstance(c, Candidate)]


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


def test_a_judged_folder_is_answered_by_the_cache_until_a_file_changes(folder: Path) -> None:
    files = _files(folder)
    first = JudgementCache([str(folder)])
    first.load()
    judged = dict((c.address, r) for c, r in judge_files(files, jobs=1, cache=first))
    assert judged == {c.address: judge_listed(c) for c in files}  # as judged one by one
    assert first.path.parent == cache_dir() and first.path.exists()

    again = JudgementCache([str(folder)])
    again.load()
    assert len(again) == len(files)
    for c in files:
        stamp = judging.stamp_of(c.path)
        assert stamp is not None and again.get(c.address, stamp) == judged[c.address]

    # Rewritten with other content: the size or mtime differ, so it is judged again.
    changed = folder / "dashscope" / "qwen3-max-id-empty.sse"
    shutil.copy(folder / "openai" / "gpt-4.1-text-then-call.sse", changed)
    stamp = judging.stamp_of(str(changed))
    assert stamp is not None and again.get("dashscope/qwen3-max-id-empty.sse", stamp) is None
    calls: list[str] = []
    real = judging.judge_listed

    def spy(item: Candidate) -> list:  # type: ignore[type-arg]
        calls.append(item.address)
        return real(item)

    judging.judge_listed = spy  # type: ignore[assignment]
    try:
        rejudged = dict(judge_files(files, jobs=1, cache=again))
    finally:
        judging.judge_listed = real
    assert calls == ["dashscope/qwen3-max-id-empty.sse"]
    [(_, badge)] = [r for r in rejudged[next(c for c in files if c.path == str(changed))]]
    assert badge.badge.value == "clean"  # type: ignore[union-attr]


def test_another_version_of_the_code_or_other_roots_or_a_torn_file_start_empty(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _files(folder)
    cache = JudgementCache([str(folder)])
    list(judge_files(files, jobs=1, cache=cache))
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
