"""What the TUI knows about the traces it lists: sources, summaries, and a bounded cache.

Summaries (badge, verdicts, flag count) are tiny and kept for every trace; whole traces are
kept in an LRU cache bounded by their size, so a folder of big captures does not fill memory
(SPEC §7), while the trace under the cursor and its neighbours open instantly.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from ..core.discovery import Skipped
from ..core.trace import Badge, Source, Trace

__all__ = ["BADGE_ORDER", "Summary", "TraceStore"]

BADGE_ORDER: tuple[Badge, ...] = (
    Badge.ERASING,
    Badge.REFUSED,
    Badge.BROKEN,
    Badge.IN_PROGRESS,
    Badge.CLEAN,
)


@dataclass(frozen=True, slots=True)
class Summary:
    """What the list shows for a judged trace."""

    badge: Badge
    verdicts: tuple[tuple[str, str], ...]
    flags: int
    models: tuple[str, ...] = ()
    """The model the stream names and the one its request asked for (the filter finds both)."""

    @classmethod
    def of(cls, trace: Trace) -> Summary:
        models = [trace.analysis.model or ""]
        models += [value for key, value in trace.meta if key == "model"]
        return cls(
            trace.badge,
            tuple(trace.verdicts.items()),
            len(trace.analysis.flags),
            tuple(m for m in dict.fromkeys(models) if m),
        )


class TraceStore:
    """Sources in list order, their summaries once judged, and recently loaded traces."""

    def __init__(self, cache_bytes: int = 256 * 1024 * 1024) -> None:
        self.sources: dict[str, Source] = {}
        self.skipped: list[Skipped] = []
        self.summaries: dict[str, Summary] = {}
        self._cache: OrderedDict[str, Trace] = OrderedDict()
        self._cache_bytes = cache_bytes
        self._cached = 0

    def set_sources(self, sources: list[Source], skipped: list[Skipped]) -> None:
        self.sources = {s.address: s for s in sources}
        self.skipped = list(skipped)

    def add_source(self, source: Source) -> None:
        self.sources[source.address] = source

    def put(self, trace: Trace) -> Summary:
        """Remember ``trace`` (the newest state of its address) and return its summary."""
        address = trace.address
        self.sources.setdefault(address, trace.source)
        summary = Summary.of(trace)
        self.summaries[address] = summary
        old = self._cache.pop(address, None)
        if old is not None:
            self._cached -= len(old.raw)
        self._cache[address] = trace
        self._cached += len(trace.raw)
        while self._cached > self._cache_bytes and len(self._cache) > 1:
            _, dropped = self._cache.popitem(last=False)
            self._cached -= len(dropped.raw)
        return summary

    def get(self, address: str) -> Trace | None:
        trace = self._cache.get(address)
        if trace is not None:
            self._cache.move_to_end(address)
        return trace

    def remove(self, address: str) -> None:
        self.sources.pop(address, None)
        self.summaries.pop(address, None)
        trace = self._cache.pop(address, None)
        if trace is not None:
            self._cached -= len(trace.raw)

    def counts(self) -> dict[str, int]:
        """Traces per badge (judged ones), plus ``pending`` for those not judged yet."""
        counts = {b.value: 0 for b in BADGE_ORDER}
        for address in self.sources:
            summary = self.summaries.get(address)
            key = summary.badge.value if summary is not None else "pending"
            counts[key] = counts.get(key, 0) + 1
        return counts
