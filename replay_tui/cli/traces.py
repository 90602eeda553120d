"""Trace arguments, for every command that takes them: paths that must exist, one named trace.

A path that names nothing is a usage error, before any work: ``replay-tui: traces/opena1: no
such file or folder``. A trace is ``FILE`` or, for one stream of a HAR export, ``FILE.har#N``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence

from replay_tui.core.discovery import (
    discover,
    entry_list,
    entry_of,
    missing_reason,
    said_list,
)
from replay_tui.core.trace import Source, Trace, load_trace

from ..core.words import plural
from .errors import UsageError

__all__ = ["require_paths", "require_trace", "resolve_trace"]


def require_paths(paths: Sequence[str]) -> None:
    """Raise :class:`UsageError` for the first path that names no file or folder."""
    for given in paths:
        reason = missing_reason(given)
        if reason is not None:
            raise UsageError(f"{given or shlex.quote(given)}: {reason}")


def require_trace(address: str) -> Source:
    """The one trace ``address`` names (``FILE`` or ``FILE.har#N``), not read yet; a
    :class:`UsageError` saying why when it names none (a file that holds no trace, a HAR
    file or a folder of several streams)."""
    require_paths([address])
    found = discover([address])
    if not found.sources:
        reason = found.skipped[0].reason if found.skipped else "not a trace"
        raise UsageError(f"{address}: {reason}")
    if len(found.sources) > 1:
        streams = plural(len(found.sources), "stream")
        raise UsageError(f"{address}: holds {streams}; {_name_one(address, found.sources)}")
    return found.sources[0]


def resolve_trace(address: str, *, keep_decoded: bool = True) -> Trace:
    """Load the one trace ``address`` names (``FILE`` or ``FILE.har#N``), fully decoded
    (``keep_decoded``: every decoded chunk kept, see :class:`TraceBuilder`)."""
    source = require_trace(address)
    try:
        return load_trace(source, keep_decoded=keep_decoded)
    except OSError as exc:
        raise UsageError(f"{address}: cannot read: {exc.strerror or exc}") from None


_SHOWN = 3
"""Streams the advice names when there are more than it lists in full (one more)."""


def _name_one(address: str, sources: Sequence[Source]) -> str:
    """Advice for an address that holds several streams, naming ones that work as written.

    A HAR file: the entries that hold streams (``x.har#2, #4 or #5``; an export's other
    entries are not streams, so ``#N`` alone would send the user guessing). A folder: some of
    its traces' paths, and the command that lists them all.
    """
    folder = os.path.isdir(address)  # else the HAR file itself: its streams' addresses are whole

    def whole(found: str) -> str:
        return os.path.join(address, found) if folder else found

    file, _ = entry_of(whole(sources[0].address))
    numbers = [entry_of(s.address)[1] for s in sources]
    if all(s.path == sources[0].path for s in sources) and None not in numbers:
        entries = entry_list([n for n in numbers if n is not None], "or", _SHOWN)
        if len(sources) <= _SHOWN + 1:
            return f"name one as {file}{entries}"
        return f"name one as {file}{entries} ({_lister(file)} lists them all)"
    paths = [whole(s.address) for s in sources[: _SHOWN + 1]]
    if len(sources) <= _SHOWN + 1:
        return f"name one, such as {said_list(paths, 'or', _SHOWN)}"
    listed = ", ".join(paths[:_SHOWN])
    return f"name one, such as {listed} ({_lister(address)} lists them all)"


def _lister(address: str) -> str:
    return f"replay-tui check {shlex.quote(address)}"
