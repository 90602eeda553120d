"""Suite-wide settings.

In CI (``CI`` set) hypothesis runs derandomized: every property still explores its examples,
but the same ones on every run, so a red build is a regression and never a draw of luck.
Exploration with fresh examples is what a local run and the long ``fuzz`` profile are for.
"""

from __future__ import annotations

import gc
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

if os.environ.get("CI"):
    # (no clock either: a loaded machine makes an example, or its generation, slow, and
    # that is no failure of the code)
    settings.register_profile(
        "ci",
        derandomize=True,
        deadline=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.load_profile("ci")


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection left alive (the imported libraries and the test modules: some 200,000
    objects) lives as long as the run: keep it out of the garbage collector's full passes,
    each of which would walk all of it again (in tests/tui: 12.8 s of collecting -> 8.3 s).

    And collect young objects every 10,000 allocations, not 700: tests that build and drop
    many small objects (hypothesis's examples, the diff tables) set off a pass every few
    milliseconds, each finding little (tests/diff, clients, core, robustness, share, cli: 3.0 s
    of collecting -> 1.3-1.6 s)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


@pytest.fixture(autouse=True)
def _own_cache_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TUI's judgement cache goes to a folder of the test's own (never ~/.cache): each test
    starts with no cache unless it writes one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MB tmpfs: a disk that fills up. Mounting needs root and a kernel that lets this
    process mount (not every container does): skipped, saying which, otherwise."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("a full disk is a 1 MB tmpfs, and mounting one needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
