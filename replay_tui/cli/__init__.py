"""The ``replay-tui`` command line: dispatch, exit statuses and error output, in one place.

``replay-tui [PATH ...]`` opens the TUI (:mod:`.tui`); ``replay-tui COMMAND ...`` runs one of
:data:`COMMANDS`, each a module of this package that defines

- ``HELP: str`` — the description ``replay-tui COMMAND --help`` shows,
- ``configure(parser: argparse.ArgumentParser) -> None`` — its options,
- ``run(args: argparse.Namespace) -> int`` — the work; returns the exit status
  (:data:`~.errors.EXIT_OK`, :data:`~.errors.EXIT_FINDINGS`, :data:`~.errors.EXIT_USAGE`)
  and raises :class:`~.errors.UsageError` for a problem with what was asked.

A command's module is imported only when it runs, so ``check`` never imports Textual or
aiohttp. Every problem is one ``replay-tui: …`` line on stderr (:func:`~.errors.error`),
never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
from collections.abc import Sequence
from types import ModuleType

from replay_tui import __version__

from .errors import EXIT_FINDINGS, EXIT_OK, EXIT_PIPE, EXIT_USAGE, PROG, UsageError, error

__all__ = [
    "COMMANDS",
    "EXIT_FINDINGS",
    "EXIT_OK",
    "EXIT_PIPE",
    "EXIT_USAGE",
    "UsageError",
    "error",
    "main",
    "run",
]

COMMANDS: tuple[str, ...] = (
    "check",
    "replay",
    "diff",
    "record",
    "report",
    "minimize",
    "serve",
    "upstream",
    "probe",
)
"""The command names, in the order ``--help`` lists them; each is a module of this package."""
_LAUNCHER = "tui"
"""The module run when no command is named."""
_ONE_SHOT = frozenset({"check", "replay", "diff"})
"""Commands that run once and exit: no reference cycles worth the collector's passes."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")


def _summary(help_text: str) -> str:
    """The first clause of a command's HELP, for the list in ``replay-tui --help``."""
    first = help_text.split(". ")[0].rstrip(".")
    for stop in (": ", " ("):
        first = first.split(stop)[0]
    return first[0].lower() + first[1:] if first else first


class _LauncherParser(_Parser):
    """The parser of ``replay-tui [PATH ...]``: its list of commands, each one's HELP, is made
    when ``--help`` shows it (every module imported for it would add a tenth to the time
    the TUI takes to show its first rows)."""

    def format_help(self) -> str:
        if self.epilog is None:
            commands = "\n".join(f"  {c:<9} {_summary(_module(c).HELP)}" for c in COMMANDS)
            self.epilog = (
                f"commands:\n{commands}\n\n'{PROG} COMMAND --help' for each one's options."
            )
        return super().format_help()


def _parser(name: str, module: ModuleType) -> argparse.ArgumentParser:
    parser: _Parser
    if name == _LAUNCHER:
        parser = _LauncherParser(
            prog=PROG,
            description="\n".join(textwrap.wrap(module.HELP, 78)),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    else:
        parser = _Parser(prog=f"{PROG} {name}", description=module.HELP)
    module.configure(parser)
    return parser


def _unknown_command(arg: str) -> None:
    """A first word that names no command and no file or folder, and reads as a word rather
    than a path (``replay-tui chek traces/``), is a mistyped command: name the nearest."""
    if arg.startswith("-") or os.path.lexists(arg.partition("#")[0]) or not arg.isalpha():
        return
    import difflib  # (only here: check's start-up imports nothing it does not use)

    near = difflib.get_close_matches(arg.lower(), COMMANDS, n=1, cutoff=0.6)
    hint = f"did you mean '{PROG} {near[0]}'?" if near else f"commands: {', '.join(COMMANDS)}"
    raise UsageError(f"{arg}: no such command, file or folder; {hint}")


def _command_comes_first(args: Sequence[str]) -> None:
    """A command named after an option or a path (``replay-tui --no-cache check traces``)
    would be read as a path to open: say where it goes instead. (A file or folder of that
    name is a path.)"""
    for arg in args:
        if arg in COMMANDS and not os.path.lexists(arg):
            raise UsageError(
                f"{arg}: no such file or folder; the {arg} command comes first, then its"
                f" options and paths (see '{PROG} {arg} --help')"
            )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    name, rest = (args[0], args[1:]) if args and args[0] in COMMANDS else (_LAUNCHER, args)
    try:
        if name == _LAUNCHER:
            if args:
                _unknown_command(args[0])
            _command_comes_first(args)
        module = _module(name)
        parsed = _parser(name, module).parse_args(rest)
        code: int = module.run(parsed)
        return code
    except UsageError as exc:
        error(str(exc))
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_PIPE
    except MemoryError:
        error(f"{name}: out of memory")
        return EXIT_USAGE
    except Exception as exc:  # never a traceback: one line, exit 2
        error(f"{name} failed: {type(exc).__name__}: {exc}")
        return EXIT_USAGE


def run() -> None:
    """The console-script entry point: :func:`main`, then a fast exit.

    A command that loaded a 100,000-delta trace would otherwise spend a third of its run
    time tearing down objects the process is about to drop anyway.
    """
    import gc
    import os

    if sys.argv[1:2] and sys.argv[1] in _ONE_SHOT:
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
    except (OSError, ValueError):
        pass
