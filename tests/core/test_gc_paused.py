"""The collector's pauses are counted across threads: it comes back on with the last one."""

from __future__ import annotations

import gc
import threading

from replay_tui.browse.judging import FREEZE_AFTER, collector_paused
from replay_tui.core.trace import gc_paused


def test_pauses_of_two_threads_end_with_the_last_one() -> None:
    was = gc.isenabled()
    gc.enable()
    try:
        decoding_in, judging_in, decoding_out = (threading.Event() for _ in range(3))
        seen: list[bool] = []

        def decoding() -> None:  # a trace decoded: paused first, done first
            with gc_paused():
                decoding_in.set()
                judging_in.wait(5)
            decoding_out.set()

        def judging() -> None:  # a folder judged beside it, paused while the other is
            decoding_in.wait(5)
            with collector_paused():
                judging_in.set()
                decoding_out.wait(5)
                seen.append(gc.isenabled())  # the first pause ended: still off

        threads = [threading.Thread(target=decoding), threading.Thread(target=judging)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert seen == [False]
        assert gc.isenabled()  # on again: it was on when the first pause began
    finally:
        if not was:
            gc.disable()


def test_a_pause_begun_with_the_collector_off_leaves_it_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            with collector_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_what_a_big_pause_made_is_frozen_and_a_small_one_is_left_to_the_collector() -> None:
    """A folder's judging makes hundreds of thousands of objects with the collector off: they
    are frozen at the end, so that its first pass does not walk them on the screen's thread.
    A few are left to it (they may become garbage in cycles only it frees)."""
    was = gc.isenabled()
    gc.enable()
    try:
        before = gc.get_freeze_count()
        with collector_paused():
            few = [[] for _ in range(100)]
        assert gc.get_freeze_count() == before
        with collector_paused():
            many = [[] for _ in range(FREEZE_AFTER)]
        assert gc.get_freeze_count() >= before + len(many)
        assert gc.isenabled()
        del few, many
    finally:
        if not was:
            gc.disable()
