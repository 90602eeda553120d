"""All cores of one machine: a function mapped over work items in worker processes, in order.

``check --jobs N`` judges files in ``N`` processes. Three properties matter more than the
last percent of speed, and shape this module:

- **Order.** Results come out in the order the items went in, whatever order the workers
  finish in, so the output is the same for any ``N`` (and for ``N = 1``, which runs in
  this process: a pool for one trace is waste).
- **Flat memory.** Only a bounded window of items is in flight or waiting to be written; the
  input is consumed lazily and each result is handed on and dropped.
- **A dead worker costs one item.** Each worker holds one batch at a time, so when a process
  dies (killed, out of memory, a crash in an extension) its batch is known: the batch is
  retried one item at a time in a fresh process, and an item that kills a worker on its own
  becomes ``lost(item, reason)`` — one entry, and the scan goes on.
- **A stuck item costs its time limit.** With ``seconds``, an item not done in that time (a
  read that never returns) becomes ``lost(item, reason)`` too (:mod:`.timelimit`).
- **Stopping is the parent's.** Workers ignore SIGINT and SIGTERM: the parent, told to stop,
  writes what it has and stops them; a worker whose parent went away exits quietly.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from itertools import islice
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

from .timelimit import within

__all__ = ["BATCH", "SMALL", "default_jobs", "ordered_map", "prepare"]

T = TypeVar("T")
R = TypeVar("R")

BATCH = 32
"""Items sent to a worker at once: enough to amortise the pipe, few enough to balance."""
_DEPTH = 4
"""Jobs sent ahead to each worker: it starts the next at once, even while this process waits
for a turn on a busy machine (or, in the TUI, for the interpreter, which the screen shares:
with two ahead, a worker waited for work a seventh of the time there, with four a tenth)."""
SMALL = 2 * BATCH
"""Fewer items than this are judged in this process: starting workers would cost more."""
_WINDOW = 8
"""Batches per worker that may be in flight or finished-but-not-yet-written (twice
:data:`_DEPTH`: a slow batch holds up the writing, not the workers)."""


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def prepare(jobs: int) -> None:
    """Get ready for a pool of ``jobs`` started soon in this process: in a process with
    threads (the TUI), the server its workers are forked from is started now, so that its
    interpreter and imports (a fifth of a second or more) come while this process does
    something else (the TUI: walking the folder), not after."""
    if jobs <= 1:
        return
    context = _context()
    if context.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    with _stderr_with_fd():
        forkserver.ensure_running()


def ordered_map(
    fn: Callable[[T], R],
    items: Iterable[T],
    jobs: int,
    lost: Callable[[T, str], R],
    *,
    seconds: float | None = None,
) -> Generator[R, None, None]:
    """``fn(item)`` for each item, in order, computed in ``jobs`` worker processes.

    ``fn`` must not raise (it turns its own failures into results); ``lost`` gives the result
    for an item whose worker process died on it, or (``seconds``) that took longer than that.
    With ``jobs <= 1``, or fewer than :data:`SMALL` items, everything runs in this process
    (the time limit then only in the main thread: see :mod:`.timelimit`).
    """
    it = iter(items)
    if jobs <= 1:
        for item in it:
            yield within(seconds, fn, item, lost)
        return
    head = list(islice(it, SMALL))
    if len(head) < SMALL:
        for item in head:
            yield within(seconds, fn, item, lost)
        return
    pool = _Pool(fn, jobs, lost, seconds)
    try:
        yield from pool.run(_chain(head, it))
    finally:
        pool.close()


def _chain(head: list[T], rest: Iterator[T]) -> Iterator[T]:
    yield from head
    head.clear()
    yield from rest


_Job = tuple[int, int, list[Any]]
"""(batch number, offset of the first item in the batch, items)."""


class _Worker:
    __slots__ = ("conn", "jobs", "process")

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.jobs: deque[_Job] = deque()
        """Sent and not yet answered, in the order the worker takes them."""


class _Pool(Generic[T, R]):
    def __init__(
        self,
        fn: Callable[[T], R],
        jobs: int,
        lost: Callable[[T, str], R],
        seconds: float | None = None,
    ) -> None:
        self._fn = fn
        self._lost = lost
        self._seconds = seconds
        self._jobs = jobs
        self._context = _context()
        self._workers: list[_Worker] = []
        with _stderr_with_fd():
            for _ in range(jobs):
                self._workers.append(self._start())

    def _start(self) -> _Worker:
        parent, child = self._context.Pipe()
        # A forked worker inherits this process's ends of its siblings' pipes (and its own):
        # it closes them, or a sibling would never see its parent go away.
        inherited = []
        if self._context.get_start_method() == "fork":
            inherited = [w.conn.fileno() for w in self._workers if not w.conn.closed]
            inherited.append(parent.fileno())
        process = self._context.Process(
            target=_serve,
            args=(child, self._fn, inherited, self._lost, self._seconds),
            daemon=True,
        )
        with _stop_signals_held():  # the worker ignores them before it can take one
            process.start()
        child.close()
        return _Worker(process, parent)

    def run(self, items: Iterator[T]) -> Iterator[R]:
        pending: deque[_Job] = deque()
        slots: dict[int, list[Any]] = {}  # batch number -> one result per item (_EMPTY: not yet)
        made = written = 0
        exhausted = False
        window = _WINDOW * self._jobs
        while True:
            # Write what is complete first: that opens the window for more input.
            while written in slots and _EMPTY not in slots[written]:
                yield from slots.pop(written)
                written += 1
            if exhausted and written == made:
                return
            wanted = _DEPTH * self._jobs
            while not exhausted and len(pending) < wanted and made < written + window:
                batch = list(islice(items, BATCH))
                if not batch:
                    exhausted = True
                    break
                slots[made] = [_EMPTY] * len(batch)
                pending.append((made, 0, batch))
                made += 1
            self._dispatch(pending, slots)
            busy = [w for w in self._workers if w.jobs]
            if not busy:
                if exhausted and written == made:
                    # The input's end was found after its last results were written (they
                    # came in before this pass read on and found nothing more): done.
                    return
                # cannot happen: every unwritten item is pending or in flight
                raise RuntimeError("process pool: results missing with no work in flight")
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
            for worker in busy:
                if worker.conn not in ready and worker.process.sentinel not in ready:
                    continue
                try:
                    while worker.jobs and worker.conn.poll():
                        number, start, results = worker.conn.recv()
                        worker.jobs.popleft()
                        slots[number][start : start + len(results)] = results
                    if worker.jobs and not worker.process.is_alive():
                        raise EOFError
                except (EOFError, OSError):
                    self._died(worker, pending, slots)

    def _dispatch(self, pending: deque[_Job], slots: dict[int, list[Any]]) -> None:
        """Keep each worker :data:`_DEPTH` jobs ahead, so it never waits for this process;
        a job to each in turn, so the first results, in order, come from all of them."""
        sent = True
        while pending and sent:
            sent = False
            for i in range(len(self._workers)):
                worker = self._workers[i]
                if not pending or len(worker.jobs) >= _DEPTH:
                    continue
                job = pending.popleft()
                try:
                    worker.conn.send(job)
                except OSError:  # it died: its jobs go back in line, this one first
                    pending.appendleft(job)
                    self._died(worker, pending, slots)
                    sent = True  # (its replacement is given work on the next round)
                    continue
                worker.jobs.append(job)
                sent = True

    def _died(self, worker: _Worker, pending: deque[_Job], slots: dict[int, list[Any]]) -> None:
        """Replace a dead worker. The job it was working on (its oldest) did it: a single item
        is lost, a batch is retried one item at a time; the jobs behind it go back in line."""
        # What it answered before it died is kept (read now: a send to it that failed
        # comes before its last answers are read), so the job it died on is its oldest.
        with contextlib.suppress(EOFError, OSError):
            while worker.jobs and worker.conn.poll():
                number, start, results = worker.conn.recv()
                worker.jobs.popleft()
                slots[number][start : start + len(results)] = results
        reason = _death(worker.process)
        outstanding = list(worker.jobs)
        self._replace(self._workers.index(worker))
        if not outstanding:
            return
        culprit, rest = outstanding[0], outstanding[1:]
        for job in reversed(rest):
            pending.appendleft(job)
        number, start, batch = culprit
        if len(batch) == 1:
            slots[number][start] = self._lost(batch[0], reason)
            return
        for k in reversed(range(len(batch))):
            pending.appendleft((number, start + k, [batch[k]]))

    def _replace(self, index: int) -> None:
        old = self._workers[index]
        old.conn.close()
        old.process.join(timeout=1)
        if old.process.is_alive():
            old.process.kill()
            old.process.join()
        with _stderr_with_fd():
            self._workers[index] = self._start()

    def close(self) -> None:
        for worker in self._workers:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        for worker in self._workers:
            worker.process.join(timeout=2)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._workers = []


_EMPTY: Any = object()


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _stop_signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held (not lost: delivered after) while a worker is forked: a forked
    child starts with the parent's handlers, which would stop it as they stop the parent."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _death(process: Any) -> str:
    process.join(timeout=1)
    code = process.exitcode
    if code is None:
        return "the worker process judging it stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the worker process judging it died ({name})"
    return f"the worker process judging it exited with status {code}"


@contextlib.contextmanager
def _stderr_with_fd() -> Iterator[None]:
    """Starting the first worker of a ``forkserver`` context starts helper processes that are
    handed ``sys.stderr``'s file descriptor. A TUI has replaced ``sys.stderr`` with an object
    that has none: for that moment, the process's real one stands in."""
    try:
        usable = sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    real, replaced = sys.__stderr__, sys.stderr
    if usable or real is None:
        yield
        return
    sys.stderr = real
    try:
        yield
    finally:
        sys.stderr = replaced


def _context() -> Any:
    """``fork`` where it is safe (no other threads to inherit half-held locks): workers start
    in milliseconds with everything already imported. In a process with threads (the TUI),
    ``forkserver``: workers are forked from a clean single-threaded server, which imports the
    core once. Else the platform's default."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["replay_tui.core.result"])
        return context
    return multiprocessing.get_context()


def _serve(
    conn: Connection,
    fn: Callable[[Any], Any],
    inherited: list[int],
    lost: Callable[[Any, str], Any],
    seconds: float | None,
) -> None:
    """A worker: batches in, results out, until told to stop or the parent goes away
    (then quietly: no traceback for a pipe the parent closed)."""
    for fd in inherited:
        with contextlib.suppress(OSError):
            os.close(fd)
    # Ctrl-C (the terminal's whole process group) and SIGTERM (a process manager's, often to
    # the group too) are the parent's to handle: it writes what is judged and stops workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # held by the parent while it forked this process
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    gc.disable()  # judging builds no reference cycles; the collector's passes only cost
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        number, start, batch = job
        results = [within(seconds, fn, item, lost) for item in batch]
        try:
            conn.send((number, start, results))
        except OSError:  # the parent went away (BrokenPipeError) or closed this end
            return
