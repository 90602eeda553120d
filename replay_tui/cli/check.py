"""``replay-tui check PATH ...``: every trace's verdicts, flags and notes, for people and for CI.

A stream, not a batch: files are walked lazily, judged (in ``--jobs`` worker processes), and
each trace's result is written — a table row, an element of the JSON document's ``traces``
array, or a ``--jsonl`` line — and dropped. Memory stays flat in the number of traces, and the
output is the same for any ``--jobs`` (results are written in address order).

The seam for other ways of judging (an archive, a cluster): :func:`judge` yields results in
address order; :func:`report` writes any such stream and returns the exit status.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import chain, islice
from types import ModuleType
from typing import IO, Any

from rich.cells import cell_len

from replay_tui.core import jsontext
from replay_tui.core.discovery import Candidate, Skipped, walk
from replay_tui.core.result import Assess, TraceResult, judge_candidate, skipped_json
from replay_tui.core.summary import Summary
from replay_tui.core.visible import visible
from replay_tui.core.wire import describe_value
from replay_tui.scale.timelimit import DEFAULT_FILE_SECONDS, within

from ..core.words import plural
from .errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UsageError, error
from .traces import require_paths

__all__ = ["EXIT_INCOMPLETE", "HELP", "configure", "judge", "report", "run", "unread"]

EXIT_INCOMPLETE = 3
"""Some file asked for could not be read (or judged in time): the scan is incomplete, whatever
the rest says. Distinct from 1, which a CI step reads as "traces flagged"."""
HELP = (
    "Judge every trace under PATH under both identity behaviors. Exit status: 0 when"
    " nothing is flagged and every verdict is ok, 1 when some trace is flagged or not"
    " ok, 2 on a usage error or when nothing readable was found, 3 when some file could"
    " not be read (an I/O error, storage unreachable, --file-time-limit): the scan is"
    " incomplete; 130 / 143 when stopped by SIGINT / SIGTERM (what was judged is written)."
)
UNREAD_SHOWN = 3
"""Files that could not be read named one by one on stderr; the rest are counted in one line
(a storage outage mid-scan is one line, not one per object; ``--json`` lists them all)."""
WIDTH_SAMPLE = 1000
"""Rows read before the table's first column is sized (then rows stream at that width)..."""
WIDTH_WAIT = 0.5
"""... or fewer, those judged in this many seconds: rows of big captures, a few a second,
are not held until the scan ends (40 captures of 25 MB: the table came after 4.5 s)."""
_FLUSH_EVERY = 256
_FLUSH_WAIT = 0.5
"""Rows are written out every :data:`_FLUSH_EVERY` rows, or this many seconds (a pipe)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="folders (searched recursively), files, or FILE.har#N",
    )
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print one JSON document (see README)")
    form.add_argument(
        "--jsonl",
        action="store_true",
        help="one JSON object per trace per line (as in --json's traces), then a summary line",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="list each trace's flags and notes"
    )
    parser.add_argument(
        "--summary",
        action="store_true",
        help="group the traces by model, gateway pattern and verdicts, with the share erasing"
        " (instead of the table; added to --json)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        default=None,
        help="judge in N processes (default: one per core; 1: in this process)",
    )
    parser.add_argument(
        "--clients",
        action="store_true",
        help=(
            "also replay each trace through 15 client libraries' tool-call assembly and say"
            " which would break (docs/clients.md)"
        ),
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="judge on the Dask cluster at ADDRESS (tcp://host:8786); its workers read the"
        " captures themselves (pip install 'replay-tui[archive]'; docs/scale.md)",
    )
    parser.add_argument(
        "--file-time-limit",
        type=float,
        metavar="SECONDS",
        default=DEFAULT_FILE_SECONDS,
        help=f"a file not judged in SECONDS (default {DEFAULT_FILE_SECONDS:g}; 0: no limit) is"
        " skipped, saying so, and the scan goes on (local paths)",
    )
    parser.add_argument(
        "--fail-on-clients",
        action="store_true",
        help="with --clients: exit 1 also when some client library would break on a trace",
    )


def run(args: argparse.Namespace) -> int:
    if args.fail_on_clients and not args.clients:
        raise UsageError("--fail-on-clients needs --clients")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs: expected 1 or more, got {args.jobs}")
    if not args.file_time_limit >= 0:  # (NaN too)
        raise UsageError(f"--file-time-limit: expected 0 or more, got {args.file_time_limit}")
    seconds = args.file_time_limit or None
    libraries = _library_keys() if args.clients else None
    # Only an argument with "://" can be a URL: local paths never import the archive code.
    if args.dask or any("://" in p for p in args.paths):
        archive = importlib.import_module("replay_tui.scale.archive")
        if args.dask or any(archive.is_url(p) for p in args.paths):
            # Object storage (s3://, gs://, file://…) or a cluster: the archive path, which
            # lists and reads through fsspec and gives the same results in the same order.
            require_paths([p for p in args.paths if not archive.is_url(p)])
            from replay_tui.scale.scan import iter_results

            items = iter_results(args.paths, dask=args.dask, clients=args.clients)
            return report(_scale_errors(items, archive.ScaleError), args, libraries=libraries)
    require_paths(args.paths)
    assess = _client_outcomes if args.clients else None
    items = judge(args.paths, jobs=args.jobs, assess=assess, seconds=seconds)
    return report(items, args, libraries=libraries)


def _scale_errors(
    items: Iterator[TraceResult | Skipped], scale_error: type[Exception]
) -> Iterator[TraceResult | Skipped]:
    """A scan that cannot go on (scheduler lost, extra not installed) is one usage line."""
    try:
        yield from items
    except scale_error as exc:
        raise UsageError(str(exc)) from None


# --- judging ----------------------------------------------------------------------------------


def judge(
    paths: Sequence[str],
    *,
    jobs: int | None = None,
    assess: Assess | None = None,
    seconds: float | None = None,
) -> Iterator[TraceResult | Skipped]:
    """Every trace's result (and every file skipped), in address order per path given, judged
    in ``jobs`` processes (None: one per core); a file not judged in ``seconds`` is one
    skipped entry saying so.

    A single file is judged in this process: the process pool (and :mod:`multiprocessing`,
    a fifth of the start-up of ``check`` on one trace) is imported only for two files or more.
    """
    fn = partial(judge_candidate, assess=assess)
    items = walk(paths)
    head = list(islice(items, 2))
    if jobs == 1 or len(head) < 2:
        for item in chain(head, items):
            yield from within(seconds, fn, item, _lost)
        return
    from replay_tui.scale.pool import default_jobs, ordered_map

    workers = default_jobs() if jobs is None else jobs
    for results in ordered_map(fn, chain(head, items), workers, _lost, seconds=seconds):
        yield from results


def _lost(item: Candidate | Skipped, reason: str) -> list[TraceResult | Skipped]:
    """The result for a file whose worker process died on it, or over the time limit."""
    if isinstance(item, Skipped):
        return [item]
    return [Skipped(item.address, reason)]


def _clientlibs() -> ModuleType:
    """The client-library models: imported here and nowhere else in the CLI, and only for
    ``check --clients`` (a plain ``check`` never pays for them)."""
    return importlib.import_module("replay_tui.clientlibs")


def _client_outcomes(trace: Any) -> dict[str, Any]:
    outcomes: dict[str, Any] = _clientlibs().assess_json(trace)
    return outcomes


def _library_keys() -> tuple[str, ...]:
    keys: tuple[str, ...] = _clientlibs().LIBRARIES
    return keys


# --- writing ----------------------------------------------------------------------------------


def report(
    items: Iterable[TraceResult | Skipped],
    args: argparse.Namespace,
    *,
    libraries: Sequence[str] | None = None,
) -> int:
    """Write ``items`` as ``args`` asks (table, ``--json``, ``--jsonl``, ``--summary``) as they
    come; skipped files are also named on stderr (those that could not be read: the first
    :data:`UNREAD_SHOWN`, then one line for all). Returns the exit status.

    SIGINT and SIGTERM stop the scan between two results: what was judged is written (the
    table's last line, a complete JSON document), the workers are stopped, and the status is
    128 + the signal's number, as a shell reports a command the signal stopped."""
    out = sys.stdout
    state = _State(libraries)
    if args.jsonl:
        writer: _Writer = _JsonLines(out.buffer, state)
    elif args.json:
        writer = _JsonDocument(out.buffer, state, summary=args.summary)
    elif args.summary:
        writer = _SummaryOnly(out, state)
    else:
        writer = _Table(out, state, verbose=args.verbose)
    stop = _Stop()
    with stop.installed():
        try:
            for item in items:
                with stop.held():  # a signal now is acted on once this item is written
                    if isinstance(item, Skipped):
                        state.skip(item)
                        if not unread(item.reason) or state.unread <= UNREAD_SHOWN:
                            at = f"{item.path}:{item.line}" if item.line is not None else item.path
                            error(f"{at}: {item.reason}")
                    else:
                        state.add(item)
                        writer.trace(item)
                stop.check()
        except _Stopped:
            stop.holding = True
            close = getattr(items, "close", None)
            if close is not None:
                close()  # stops the pool's workers
        stop.holding = True
        state.stopped = stop.name
        with stop.held():
            writer.close()
        return _status(state, args)


def _status(state: _State, args: argparse.Namespace) -> int:
    """Say how the scan ended when it did not end well, and the exit status for it."""
    if state.unread:
        more = state.unread - UNREAD_SHOWN
        named = f" ({UNREAD_SHOWN} named above, {more:,} more in --json)" if more > 0 else ""
        error(f"{plural(state.unread, 'file')} could not be read{named}: the scan is incomplete")
    if state.stopped is not None:
        error(
            f"stopped by {state.stopped}: {plural(state.summary.traces, 'trace')} judged and"
            " written before it; the rest not judged"
        )
        return 128 + signal.Signals[state.stopped].value
    if state.unread:
        return EXIT_INCOMPLETE
    if not state.summary.traces:
        error("no readable trace found")
        return EXIT_USAGE
    if args.fail_on_clients and state.breaking:
        return EXIT_FINDINGS
    return EXIT_OK if state.clean else EXIT_FINDINGS


_UNREAD = (
    "cannot read",  # an I/O error (local or storage)
    "cannot list",  # a folder, a bucket or prefix that could not be listed
    "could not be read",  # an error reading it that is not an OSError
    "not judged: still reading",  # over --file-time-limit
    "the worker process judging it",  # the process judging it died
    "too large to load into memory",
)


def unread(reason: str) -> bool:
    """Whether a skipped entry is a file that could not be read (the scan is incomplete), not
    one that was read and is no trace (an image, an empty file, a named pipe)."""
    return reason.startswith(_UNREAD)


_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Stopped(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised where it cannot tear a result in two (a ``KeyboardInterrupt``:
    the judging's ``except Exception`` lets it through)."""


class _Stop:
    """SIGINT and SIGTERM while a scan is written: the first one stops it, between two results
    (one that arrives while a result is being written waits until it is); more are ignored
    while what was judged is written out."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.holding = False
        self._installed = False

    def _handler(self, signum: int, frame: object) -> None:
        if self.name is not None:
            return
        self.name = signal.Signals(signum).name
        if not self.holding:
            raise _Stopped

    def check(self) -> None:
        if self.name is not None:
            raise _Stopped

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """While a result is written, SIGINT and SIGTERM wait (blocked in the kernel, not
        only here): one that interrupted a write blocked on a full pipe lost the rest of it
        (a stopped table's first thousand rows, written at once, came out cut at 64 KB)."""
        previous = self.holding
        self.holding = True
        masked = hasattr(signal, "pthread_sigmask") and self._installed
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS) if masked else None
        try:
            yield
        finally:
            if before is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, before)
            self.holding = previous

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {s: signal.signal(s, self._handler) for s in _SIGNALS}
        self._installed = True
        try:
            yield
        finally:
            self._installed = False
            for s, handler in previous.items():
                signal.signal(s, handler)


class _State:
    """What the writers and the exit status need once the results are gone."""

    def __init__(self, libraries: Sequence[str] | None) -> None:
        self.libraries = libraries
        self.summary = Summary()
        self.skipped: list[Skipped] = []
        self.clean = True
        self.breaking = 0
        self.unread = 0
        """Skipped entries that are files that could not be read (see :func:`unread`)."""
        self.stopped: str | None = None
        """The signal that stopped the scan (``SIGTERM``), if one did."""

    def add(self, result: TraceResult) -> None:
        self.summary.add(result)
        self.clean = self.clean and result.clean
        if self.libraries is not None and self.broken(result):
            self.breaking += 1

    def skip(self, skipped: Skipped) -> None:
        self.summary.add_skipped(skipped)
        self.skipped.append(skipped)
        if unread(skipped.reason):
            self.unread += 1

    def incomplete(self) -> str | None:
        """Why the output does not cover everything asked for (``None``: it does)."""
        why = []
        if self.unread:
            why.append(f"{plural(self.unread, 'file')} could not be read")
        if self.stopped is not None:
            why.append(f"stopped by {self.stopped}")
        return "; ".join(why) or None

    def broken(self, result: TraceResult) -> list[str]:
        """The client libraries (not the seed's alternative designs) that break on a trace."""
        clients = result.clients or {}
        return [k for k in self.libraries or () if k in clients and not clients[k]["ok"]]

    def total_line(self) -> str:
        s = self.summary
        parts = [f"{s.badges[k]:,} {k}" for k in _BADGE_ORDER if s.badges.get(k)]
        line = f"{plural(s.traces, 'trace')}: {', '.join(parts) if parts else 'none'}"
        if s.skipped:
            line += f"; {s.skipped:,} skipped"
        if self.libraries is not None:
            line += f"; {self.breaking:,} break some client library"
        incomplete = self.incomplete()
        if incomplete is not None:
            line += f" (incomplete: {incomplete})"
        return line


_BADGE_ORDER = ("clean", "erasing", "refused", "broken", "in progress")


class _Writer:
    def trace(self, result: TraceResult) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class _JsonDocument(_Writer):
    """``{"traces":[…],"skipped":[…]}``: one valid document, its array written element by
    element (byte for byte what encoding the whole document at once would give)."""

    def __init__(self, out: IO[bytes], state: _State, *, summary: bool) -> None:
        self._out = out
        self._state = state
        self._summary = summary
        self._count = 0
        out.write(b'{"traces":[')

    def trace(self, result: TraceResult) -> None:
        if self._count:
            self._out.write(b",")
        self._out.write(jsontext.encode(result.json()))
        self._count += 1
        if self._count % _FLUSH_EVERY == 0:
            self._out.flush()

    def close(self) -> None:
        skipped = jsontext.encode([skipped_json(s) for s in self._state.skipped])
        self._out.write(b'],"skipped":' + skipped)
        if self._summary:
            self._out.write(b',"summary":' + jsontext.encode(self._state.summary.json()))
        incomplete = self._state.incomplete()
        if incomplete is not None:
            self._out.write(b',"incomplete":' + jsontext.encode(incomplete))
        self._out.write(b"}\n")
        self._out.flush()


class _JsonLines(_Writer):
    """One ``traces[]`` element per line, then ``{"summary": …}`` (with the skipped files)."""

    def __init__(self, out: IO[bytes], state: _State) -> None:
        self._out = out
        self._state = state
        self._count = 0

    def trace(self, result: TraceResult) -> None:
        self._out.write(jsontext.encode(result.json()) + b"\n")
        self._count += 1
        if self._count % _FLUSH_EVERY == 0:
            self._out.flush()

    def close(self) -> None:
        summary = self._state.summary.json()
        summary["skipped_files"] = [skipped_json(s) for s in self._state.skipped]
        incomplete = self._state.incomplete()
        if incomplete is not None:
            summary["incomplete"] = incomplete
        self._out.write(jsontext.encode({"summary": summary}) + b"\n")
        self._out.flush()


class _SummaryOnly(_Writer):
    def __init__(self, out: IO[str], state: _State) -> None:
        self._out = out
        self._state = state

    def trace(self, result: TraceResult) -> None:
        pass

    def close(self) -> None:
        lines = [visible(line) for line in self._state.summary.lines()]
        lines.append(self._state.total_line())
        self._out.write("\n".join(lines) + "\n")
        self._out.flush()


class _Table(_Writer):
    """The human table. Its first column is sized on the first :data:`WIDTH_SAMPLE` rows
    (all of them, for a folder that size; at most 64 cells), then rows are written as they
    come; a longer path is written whole, the rest of its row after it."""

    def __init__(self, out: IO[str], state: _State, *, verbose: bool) -> None:
        self._out = out
        self._state = state
        self._verbose = verbose
        self._held: list[TraceResult] | None = []
        self._width = 0
        self._count = 0
        self._since = time.monotonic()
        """When the rows began to be held, then when they were last written out."""

    def trace(self, result: TraceResult) -> None:
        if self._held is None:
            self._write([result])
            return
        self._held.append(result)
        if len(self._held) >= WIDTH_SAMPLE or time.monotonic() - self._since >= WIDTH_WAIT:
            self._start()

    def _start(self) -> None:
        held, self._held = self._held or [], None
        paths = [cell_len(visible(r.path)) for r in held]
        self._width = min(max([*paths, 5]), 64)
        column = f"{'CLIENTS':<12} " if self._state.libraries is not None else ""
        self._out.write(
            f"{'TRACE':<{self._width}}  {'ASSIGN-ALWAYS':<19} {'ACCEPT-IDENTITY':<19}"
            f" {'FLAGS':>5}  {column}FIRST FLAG\n"
        )
        self._write(held)

    def _write(self, results: list[TraceResult]) -> None:
        lines: list[str] = []
        for result in results:
            lines += self._rows(result)
        if lines:
            self._out.write("\n".join(lines) + "\n")
        self._count += len(results)
        now = time.monotonic()
        if self._count % _FLUSH_EVERY < len(results) or now - self._since >= _FLUSH_WAIT:
            self._out.flush()
            self._since = now

    def _rows(self, result: TraceResult) -> list[str]:
        width = self._width
        column = ""
        libraries = self._state.libraries
        if libraries is not None:
            broken = self._state.broken(result)
            cell = f"{len(broken)}/{len(libraries)} break" if broken else "ok"
            column = f"{cell:<12} "
        v = result.verdicts
        first = ""
        if result.flags:
            f = result.flags[0]
            first = f"line {f.line} ({f.label}, call {_shown(f.call)})"
        path = visible(result.path)  # whole, even past its column: it is pasted and grepped
        lines = [
            f"{_pad(path, width)}  {v['assign-always']:<19} {v['accept-identity']:<19}"
            f" {len(result.flags):>5,}  {column}{first}".rstrip()
        ]
        if self._verbose:
            for f in result.flags:
                repaired = f", repaired on line {f.repaired_line}" if f.repaired_line else ""
                lines.append(
                    f"    flag  line {f.line}: {f.label} on call {_shown(f.call)}"
                    f" by {_shown(f.value)}{repaired}"
                )
            for note in result.notes:
                where = f"line {note.line}: " if note.line is not None else ""
                lines.append(f"    note  {where}{visible(note.message)}")
            for key, o in (result.clients or {}).items():
                if not o["ok"]:
                    cause = f" · {visible(o['cause'])}" if o.get("cause") else ""
                    lines.append(f"    client  {key}: {visible(o['outcome'])}{cause}")
        return lines

    def close(self) -> None:
        if self._held is not None:
            self._start()
        self._out.write(self._state.total_line() + "\n")
        self._out.flush()


def _pad(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal cells (an emoji or a CJK name takes two a
    character: padded by characters, the columns after it were pushed right)."""
    return text + " " * max(0, width - cell_len(text))


def _shown(value: Any, limit: int = 80) -> str:
    """A raw wire value for the table: JSON-ish, cut, control characters escaped."""
    text = describe_value(value)
    return visible(text if len(text) <= limit else text[: limit - 1] + "…")


# Kept for callers that build a table from results they already hold (tests, tools).
def write_table(
    results: Iterable[TraceResult],
    out: IO[str],
    *,
    verbose: bool,
    skipped: Iterable[Skipped] = (),
    libraries: Sequence[str] | None = None,
) -> None:
    """The human table for ``results`` (and the count of ``skipped``), written to ``out``."""
    state = _State(libraries)
    table = _Table(out, state, verbose=verbose)
    for s in skipped:
        state.skip(s)
    for r in results:
        state.add(r)
        table.trace(r)
    table.close()
