"""The process pool behind ``check --jobs``: order, a bounded window, a dead worker costs one item."""

from __future__ import annotations

import os
import random
import signal
import time

import pytest

from replay_tui.scale import pool
from replay_tui.scale.pool import SMALL, ordered_map


def _square_slowly(n: int) -> int:
    # Items finish out of order: later ones are often faster.
    time.sleep(random.random() / 500)
    return n * n


def _lost(n: int, reason: str) -> int:
    return -1


def test_results_come_out_in_input_order_whatever_the_finishing_order() -> None:
    items = list(range(500))
    assert list(ordered_map(_square_slowly, items, 3, _lost)) == [n * n for n in items]


def _here(n: int) -> int:
    """Where an item ran. At module level: a worker started by forkserver (when this process
    has threads, such as the S3 server another test on this pytest worker left) gets ``fn``
    by pickling, which a function local to a test cannot be."""
    return os.getpid()


def test_one_job_and_small_inputs_run_in_this_process() -> None:
    me = os.getpid()
    assert set(ordered_map(_here, range(100), 1, _lost)) == {me}
    assert set(ordered_map(_here, range(SMALL - 1), 4, _lost)) == {me}
    assert me not in set(ordered_map(_here, range(SMALL * 3), 2, _lost))


def _dies_on_13(n: int) -> int:
    if n == 13:
        os.kill(os.getpid(), signal.SIGKILL)
    if n == 77:
        os._exit(3)
    return n


_REASONS: dict[int, str] = {}


def _lost_said(n: int, reason: str) -> int:
    """At module level, as ``_here``: a forkserver worker gets it by pickling (it is called
    here, in the parent, for an item whose worker died)."""
    _REASONS[n] = reason
    return -n


def test_a_worker_that_dies_costs_only_its_item_and_the_scan_completes() -> None:
    _REASONS.clear()
    out = list(ordered_map(_dies_on_13, range(200), 2, _lost_said))
    assert out == [-n if n in (13, 77) else n for n in range(200)]
    assert _REASONS == {
        13: "the worker process judging it died (SIGKILL)",
        77: "the worker process judging it exited with status 3",
    }


def test_the_input_is_read_lazily_within_a_window(monkeypatch: object) -> None:
    taken = 0

    def counted() -> object:
        nonlocal taken
        for n in range(100_000):
            taken = n + 1
            yield n

    results = ordered_map(_square_slowly, counted(), 2, _lost)
    first = [next(results) for _ in range(5)]
    assert first == [0, 1, 4, 9, 16]
    # Only a few batches were read ahead, not the whole input.
    assert taken <= SMALL + pool.BATCH * (pool._WINDOW * 2 + 2)
    results.close()  # type: ignore[attr-defined]


_ORPHAN = """
import os, sys, time
from replay_tui.scale.pool import ordered_map

def slow(n):
    time.sleep(0.001)
    return os.getpid()

def lost(n, reason):
    return 0

results = ordered_map(slow, range(1000), 2, lost)
pids = {next(results) for _ in range(100)}
print(" ".join(map(str, sorted(pids))), flush=True)
os._exit(0)  # the parent goes away without stopping its workers
"""


def test_workers_leave_when_their_parent_dies() -> None:
    import subprocess
    import sys

    if not os.path.isdir("/proc"):
        pytest.skip("reads process states from /proc")

    done = subprocess.run(
        [sys.executable, "-c", _ORPHAN], capture_output=True, text=True, timeout=60
    )
    pids = [int(p) for p in done.stdout.split()]
    assert len(pids) == 2, done.stderr
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids):
        assert time.monotonic() < deadline, "a worker outlived its parent"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _same(n: int) -> int:
    return n


def test_input_whose_end_is_found_after_its_last_results_are_written_ends_the_scan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four batches read (the workers' depth filled before the input's end was asked for),
    all answered before this process looked again: the end found then, with nothing in
    flight, is the end of the scan (it raised "results missing with no work in flight", one
    run in twenty of a loaded CI)."""
    real_wait = pool.wait

    def late_wait(*args: object, **kwargs: object) -> object:
        time.sleep(0.3)  # every job answered by the time this process waits
        return real_wait(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pool, "wait", late_wait)
    n = pool._DEPTH * 2 * pool.BATCH
    assert list(ordered_map(_same, range(n), 2, _lost)) == list(range(n))
