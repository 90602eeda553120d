"""Trace arguments, for every command that takes them: paths that must exist, one named trace.

A path that names nothing is a usage error, before any work: ``replay-tui: traces/opena1: no
such file or folder``. A trace is ``FILE`` or, for one stream of a HAR export, ``FILE.har#N``.
"""

from __future__ import annotations

from collections.abc import Sequence

from replay_tui.core.discovery import discover, missing_reason
from replay_tui.core.trace import Trace, load_trace

from .errors import UsageError, plural

__all__ = ["require_paths", "resolve_trace"]


def require_paths(paths: Sequence[str]) -> None:
    """Raise :class:`UsageError` for the first path that names no file or folder."""
    for given in paths:
        reason = missing_reason(given)
        if reason is not None:
            raise UsageError(f"{given}: {reason}")


def resolve_trace(address: str) -> Trace:
    """Load the one trace ``address`` names (``FILE`` or ``FILE.har#N``), fully decoded."""
    require_paths([address])
    found = discover([address])
    if not found.sources:
        reason = found.skipped[0].reason if found.skipped else "not a trace"
        raise UsageError(f"{address}: {reason}")
    if len(found.sources) > 1:
        streams = plural(len(found.sources), "stream")
        raise UsageError(f"{address}: holds {streams}; name one as {address}#N")
    try:
        return load_trace(found.sources[0], keep_decoded=True)
    except OSError as exc:
        raise UsageError(f"{address}: cannot read: {exc.strerror or exc}") from None
