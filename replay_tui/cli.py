"""The ``replay-tui`` command line: the TUI by default, ``check``, ``replay``, ``diff``, ``record``.

A thin shell over :mod:`replay_tui.core`. Every problem is one ``replay-tui: …`` line on
stderr, never a traceback. The TUI (and with it Textual) is imported only when it runs, so
``check`` in CI starts as fast as the core allows.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from . import __version__
from .core import jsontext
from .core.check import Report, check_paths, report_json
from .core.discovery import Skipped, discover
from .core.trace import Trace, load_trace
from .core.translator import Behavior, Chunk
from .core.visible import visible
from .core.wire import describe_value

if TYPE_CHECKING:
    from .clientlibs import ClientOutcome

__all__ = ["main"]

PROG = "replay-tui"
SHARE_COMMANDS = ("report", "minimize", "serve")
COMMANDS = ("check", "replay", "diff", "record", *SHARE_COMMANDS)
EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A problem with what was asked: reported on one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _tui_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description=(
            "Replay captured LLM-gateway SSE traces through the harness translator and show"
            " where tool-call identity was erased. Without a command, opens the TUI."
        ),
        epilog=(
            "commands: check (judge traces, for CI), replay (one trace's chunk stream), "
            "diff (compare two captures), record (recording proxy), report / minimize / serve"
            f" (share a finding). '{PROG} COMMAND --help'."
        ),
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="folders or files (default: .)")
    p.add_argument("--no-watch", action="store_true", help="a frozen snapshot: no live reload")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    return p


def _check_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=f"{PROG} check",
        description=(
            "Judge every trace under PATH under both identity behaviors. Exit status: 0 when"
            " nothing is flagged and every verdict is ok, 1 when some trace is flagged or not"
            " ok, 2 on a usage error or when nothing readable was found."
        ),
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="folders (searched recursively) or files"
    )
    p.add_argument("--json", action="store_true", help="print one JSON document (see README)")
    p.add_argument("-v", "--verbose", action="store_true", help="list each trace's flags and notes")
    p.add_argument(
        "--clients",
        action="store_true",
        help=(
            "also replay each trace through 13 client libraries' tool-call assembly and say"
            " which would break (docs/clients.md)"
        ),
    )
    p.add_argument(
        "--fail-on-clients",
        action="store_true",
        help="with --clients: exit 1 also when some client library would break on a trace",
    )
    return p


def _replay_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=f"{PROG} replay",
        description=(
            "Print the chunk stream the harness translator emits for one trace"
            " (a HAR stream is FILE.har#N)."
        ),
    )
    p.add_argument("trace", metavar="TRACE")
    p.add_argument(
        "--behavior",
        choices=[b.value for b in Behavior],
        default=Behavior.ACCEPT_IDENTITY.value,
        help="identity handling (default: accept-identity, the fix)",
    )
    p.add_argument("--json", action="store_true", help="one chunk object per line, as in SPEC §3.1")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in COMMANDS:
            command, rest = args[0], args[1:]
            if command in SHARE_COMMANDS:
                return _share(command, rest)
            if command == "check":
                return _check(_check_parser().parse_args(rest))
            if command == "replay":
                return _replay(_replay_parser().parse_args(rest))
            if command == "diff":
                from .diff_cli import run_diff

                return run_diff(rest)
            from .record.cli import add_arguments
            from .record.cli import run as record_run

            record = _Parser(
                prog=f"{PROG} record",
                description=(
                    "A recording reverse proxy: forwards to the upstream gateway, streams every"
                    " response back untouched, and writes each streaming response into the trace"
                    " folder as it arrives."
                ),
            )
            add_arguments(record)
            parsed = record.parse_args(rest)
            if parsed.tui:
                return _record_tui(parsed)
            return record_run(parsed)
        return _tui(_tui_parser().parse_args(args))
    except UsageError as exc:
        _error(str(exc))
        return EXIT_ERROR
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0) if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK


def run() -> None:
    """The console-script entry point: :func:`main`, then a fast exit.

    A command that loaded a 100,000-delta trace would otherwise spend a third of its run
    time tearing down objects the process is about to drop anyway.
    """
    import gc
    import os

    if sys.argv[1:2] and sys.argv[1] in ("check", "replay", "diff"):
        # A one-shot command builds no reference cycles worth collecting; the collector's
        # passes over a large decoded trace would only slow it down.
        gc.disable()
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        _quiet_stdout()
    os._exit(code)


def _quiet_stdout() -> None:
    """After the reader went away (``| head``), keep Python from complaining at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _error(message: str) -> None:
    print(f"{PROG}: {visible(message)}", file=sys.stderr)


def _report_skipped(skipped: Sequence[Skipped]) -> None:
    for s in skipped:
        where = f"{s.path}:{s.line}" if s.line is not None else s.path
        _error(f"{where}: {s.reason}")


def _share(command: str, rest: list[str]) -> int:
    """``report``, ``minimize``, ``serve``: command modules of :mod:`replay_tui.share`."""
    from importlib import import_module

    module = import_module(f"replay_tui.share.cmd_{command}")
    parser = _Parser(prog=f"{PROG} {command}", description=module.HELP)
    module.configure(parser)
    code: int = module.run(parser.parse_args(rest))
    return code


def _check(ns: argparse.Namespace) -> int:
    if ns.fail_on_clients and not ns.clients:
        raise UsageError("--fail-on-clients needs --clients")
    report = check_paths(ns.paths)
    _report_skipped(report.skipped)
    clients: list[dict[str, ClientOutcome]] | None = None
    if ns.clients:
        from .clientlibs import assess  # only now: a plain `check` never pays for it

        clients = [assess(t) for t in report.traces]
    if ns.json:
        out = sys.stdout.buffer
        clients_json = None
        if clients is not None:
            clients_json = [{k: o.json() for k, o in c.items()} for c in clients]
        out.write(jsontext.encode(report_json(report, clients_json)))
        out.write(b"\n")
        out.flush()
    else:
        _print_table(report, sys.stdout, verbose=ns.verbose, clients=clients)
    if not report.traces:
        _error("no readable trace found")
        return EXIT_ERROR
    if ns.fail_on_clients and clients is not None and any(_broken(c) for c in clients):
        return EXIT_FOUND
    return EXIT_OK if report.clean else EXIT_FOUND


def _broken(outcomes: dict[str, ClientOutcome]) -> list[str]:
    """The client libraries (not the seed's alternative designs) that break on a trace."""
    return [k for k, o in outcomes.items() if o.policy.kind == "library" and not o.ok]


def _shown(value: Any, limit: int = 80) -> str:
    """A raw wire value for the table: JSON-ish, cut, control characters escaped."""
    text = describe_value(value)
    return visible(text if len(text) <= limit else text[: limit - 1] + "…")


def _middle_cut(text: str, width: int) -> str:
    return (
        text if len(text) <= width else text[: width // 2 - 1] + "…" + text[-(width - width // 2) :]
    )


def _print_table(
    report: Report,
    out: IO[str],
    *,
    verbose: bool,
    clients: Sequence[dict[str, ClientOutcome]] | None = None,
) -> None:
    paths = [visible(t.address) for t in report.traces]
    width = min(max([len(p) for p in paths] + [5]), 64)
    column = f"{'CLIENTS':<12} " if clients is not None else ""
    header = (
        f"{'TRACE':<{width}}  {'ASSIGN-ALWAYS':<19} {'ACCEPT-IDENTITY':<19} {'FLAGS':>5}"
        f"  {column}FIRST FLAG"
    )
    lines = [header]
    counts: dict[str, int] = {}
    breaking = 0
    for i, (trace, path) in enumerate(zip(report.traces, paths, strict=True)):
        outcomes = clients[i] if clients is not None else None
        if outcomes is not None:
            broken = _broken(outcomes)
            libraries = sum(1 for o in outcomes.values() if o.policy.kind == "library")
            breaking += bool(broken)
            cell = f"{len(broken)}/{libraries} break" if broken else "ok"
            column = f"{cell:<12} "
        a = trace.analysis
        v = trace.verdicts
        first = ""
        if a.flags:
            f = a.flags[0]
            first = f"line {f.line} ({f.label}, call {_shown(f.call)})"
        badge = trace.badge.value
        counts[badge] = counts.get(badge, 0) + 1
        lines.append(
            f"{_middle_cut(path, width):<{width}}  {v['assign-always']:<19} "
            f"{v['accept-identity']:<19} {len(a.flags):>5}  {column}{first}".rstrip()
        )
        if verbose:
            for f in a.flags:
                repaired = f", repaired on line {f.repaired_line}" if f.repaired_line else ""
                lines.append(
                    f"    flag  line {f.line}: {f.label} on call {_shown(f.call)}"
                    f" by {_shown(f.value)}{repaired}"
                )
            for note in trace.notes:
                where = f"line {note.line}: " if note.line is not None else ""
                lines.append(f"    note  {where}{visible(note.message)}")
            for key, o in (outcomes or {}).items():
                if not o.ok:
                    lines.append(f"    client  {key}: {visible(o.outcome)}")
    order = ["clean", "erasing", "refused", "broken", "in progress"]
    parts = [f"{counts[k]} {k}" for k in order if counts.get(k)]
    n = len(report.traces)
    summary = f"{n} trace{'s' if n != 1 else ''}: {', '.join(parts) if parts else 'none'}"
    if report.skipped:
        summary += f"; {len(report.skipped)} skipped"
    if clients is not None:
        summary += f"; {breaking} break some client library"
    lines.append(summary)
    out.write("\n".join(lines) + "\n")
    out.flush()


def resolve_trace(address: str) -> Trace:
    """Load one trace named on the command line (``FILE`` or ``FILE.har#N``)."""
    path_text, _, entry = address.partition("#")
    path = Path(path_text)
    found = discover([path])
    if not found.sources:
        reason = found.skipped[0].reason if found.skipped else "not a trace"
        raise UsageError(f"{address}: {reason}")
    sources = found.sources
    if entry:
        sources = [s for s in sources if s.address.endswith(f"#{entry}")]
        if not sources:
            raise UsageError(f"{address}: no SSE stream at entry #{entry}")
    elif len(sources) > 1:
        names = ", ".join(s.address for s in sources)
        raise UsageError(f"{address} holds {len(sources)} streams ({names}): name one")
    try:
        return load_trace(sources[0], keep_decoded=True)
    except OSError as exc:
        raise UsageError(f"{address}: cannot read: {exc.strerror or exc}") from None


def _replay(ns: argparse.Namespace) -> int:
    trace = resolve_trace(ns.trace)
    for where in sorted(trace.errors):
        _error(f"{trace.address}:{where}: {trace.errors[where]}")
    out = sys.stdout.buffer
    encode = jsontext.encode  # lone surrogates, deep nesting: still JSON
    batch: list[bytes] = []
    for line, chunk in trace.iter_replay(ns.behavior):
        batch.append(encode(chunk) if ns.json else _chunk_text(line, chunk).encode())
        if len(batch) >= 512:  # stream, but without a syscall per chunk
            out.write(b"\n".join(batch) + b"\n")
            out.flush()
            batch.clear()
    if batch:
        out.write(b"\n".join(batch) + b"\n")
    out.flush()
    return EXIT_OK


def _chunk_text(line: int | None, chunk: Chunk) -> str:
    origin = f"{line:>6}" if line is not None else "   EOF"
    kind = chunk["type"]
    rest: list[str] = []
    for key, value in chunk.items():
        if key in ("type",):
            continue
        rest.append(f"{key}={_short_json(value)}")
    return visible(f"{origin}  {kind:<16} {' '.join(rest)}")


def _short_json(value: Any) -> str:
    text = jsontext.dumps(value)
    return text if len(text) <= 200 else text[:199] + "…"


def _record_tui(ns: argparse.Namespace) -> int:
    """``record --tui``: the TUI on the output folder, the recorder running inside it."""
    from .record import RecorderError
    from .record.cli import recorder_from_args

    try:
        recorder = recorder_from_args(ns)
    except RecorderError as exc:
        _error(str(exc))
        return EXIT_ERROR
    from .tui.app import run_app

    code: int = run_app([str(recorder.out_dir)], watch=True, recorder=recorder)
    return code


def _tui(ns: argparse.Namespace) -> int:
    paths = ns.paths or ["."]
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise UsageError(f"{missing[0]}: no such file or folder")
    from .tui.app import run_app

    code: int = run_app(paths, watch=not ns.no_watch)
    return code


if __name__ == "__main__":  # pragma: no cover
    run()
