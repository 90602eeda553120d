"""``check`` over archives: every capture under some URLs, judged here or on a Dask cluster.

The one entry point the command line calls; :mod:`.archive` lists and reads (fsspec) and
judges a batch, :mod:`.cluster` sends batches to a cluster's workers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..core.discovery import Skipped
from ..core.result import TraceResult
from .archive import BATCH_BYTES, BATCH_FILES, UNREACHABLE, Unit, judge_unit, plan

__all__ = ["OUTAGE_RUN", "iter_results"]

OUTAGE_RUN = 32
"""Objects in a row that could not reach the storage after which the scan stops trying: the
rest are each one skipped entry, not read (a storage outage mid-scan costs one batch's
retries, not every object's)."""


def iter_results(
    urls: Sequence[str],
    *,
    dask: str | None = None,
    clients: bool = False,
    batch_files: int = BATCH_FILES,
    batch_bytes: int = BATCH_BYTES,
    window: int | None = None,
) -> Iterator[TraceResult | Skipped]:
    """Every trace under ``urls``, judged, as ``check`` reports it: one
    :class:`~replay_tui.core.result.TraceResult` per trace, one
    :class:`~replay_tui.core.discovery.Skipped` per object that is not a trace or could not be
    listed, read or judged (its ``reason`` says why; a dead worker is one of them).

    The contract, whatever runs the judging:

    - Order: the URLs in the order given; under each, the local scan's order
      (:func:`~.archive.order_key`), HAR entries in entry order. ``check`` on a local copy of
      the same captures yields the same traces and the same skipped entries in the same order,
      so the table, the JSON document, the JSONL lines and the summary are identical. (Skipped
      entries come where their object is, not all first; a caller that writes a JSON document
      collects them for its ``skipped`` array, as local ``check`` does.)
    - ``dask=None``: judged in this process, batch by batch (:func:`~.archive.judge_unit`).
      ``dask="tcp://host:8786"``: batches become tasks on that Dask cluster; each worker reads
      its objects straight from storage (with its own credentials) and sends back only results.
      At most ``window`` tasks (default: twice the cluster's threads) are out at once, so memory
      here stays flat.
    - ``clients``: each result carries ``check --clients``'s outcomes (``{policy key: {"ok":
      bool, "outcome": str}}``).
    - Raises :class:`~.archive.ScaleError` (a one-line message) when the scan cannot start:
      fsspec or the protocol's package missing, an unknown protocol, the scheduler unreachable
      or without workers. Once started the scan completes: problems become ``Skipped`` entries.
    - An outage: after :data:`OUTAGE_RUN` objects in a row could not reach the storage
      (judged here), the rest are not tried: each is a ``Skipped`` entry saying so.
    """
    units = plan(urls, files=batch_files, size=batch_bytes)
    if dask is None:
        yield from _until_outage(units, clients)
    else:
        from .cluster import judge_on_cluster  # only now: dask is an optional extra

        yield from judge_on_cluster(dask, units, clients=clients, window=window)


def _until_outage(units: Iterator[Unit], clients: bool) -> Iterator[TraceResult | Skipped]:
    """Each unit judged in turn, until the storage is found unreachable (see
    :data:`OUTAGE_RUN`); the objects of the units after that are skipped unread."""
    run = 0
    last = ""
    for unit in units:
        if run >= OUTAGE_RUN and not isinstance(unit, Skipped):
            outage = (
                f"{UNREACHABLE}: not tried, after {run:,} objects in a row could not reach it"
                f" (the last {last})"
            )
            yield from (Skipped(item.address, outage) for item in unit[1])
            continue
        for result in judge_unit(unit, clients):
            if isinstance(result, Skipped) and result.reason.startswith(UNREACHABLE):
                run, last = run + 1, result.path
            else:
                run = 0
            yield result
