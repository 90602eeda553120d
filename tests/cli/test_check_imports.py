"""``check`` on one trace starts like a small script: what it never imports for that."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_PROBE = """
import sys
from replay_tui.cli import main
code = main(["check", *sys.argv[1:]])
print(code, " ".join(sorted(m for m in sys.modules if m.split(".")[0] in {TOP})))
"""
_NEVER = (
    "multiprocessing",
    # replay_tui.scale.timelimit (signal, threading: the per-file time limit) is imported.
    "replay_tui.scale.pool",
    "replay_tui.scale.archive",
    "replay_tui.scale.scan",
    "replay_tui.scale.cluster",
    "replay_tui.scale.judgements",
    "difflib",
    "textual",
    "aiohttp",
    "replay_tui.clientlibs",
)


def _loaded(*args: str) -> tuple[int, set[str]]:
    top = {name.split(".")[0] for name in _NEVER}
    probe = _PROBE.replace("{TOP}", repr(top))
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True
    )
    code, _, modules = done.stdout.strip().splitlines()[-1].partition(" ")
    return int(code), set(modules.split())


def test_one_trace_is_judged_without_the_process_pool(corpus_files: list[Path]) -> None:
    code, modules = _loaded(str(corpus_files[0]))
    assert code in (0, 1)
    assert not [m for m in modules if m.startswith(_NEVER)], modules


def test_a_folder_is_judged_with_the_pool_on_several_cores(many: Path) -> None:
    """Not vacuous: the probe does see the pool when ``check`` uses it."""
    _, modules = _loaded(str(many), "--jobs", "2")
    assert "replay_tui.scale.pool" in modules
