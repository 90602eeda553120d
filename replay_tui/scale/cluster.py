"""``check --dask tcp://scheduler:8786``: batches of captures judged on a Dask cluster.

Each task names its objects (a URL and a list of :class:`~.archive.Listed`), never their
bytes: the worker reads them from storage itself and sends back only the small, picklable
per-trace results. Results are taken in submission order, so the output is the local scan's
whatever the finishing order. A worker that dies is Dask's to handle: its tasks run again
elsewhere (``distributed.scheduler.allowed-failures`` times). A batch that still fails with
``KilledWorker`` is split into one task per object, and an object that kills its workers again
becomes one skipped entry; the scan goes on.

The workers need replay-tui with the archive extra installed and the storage credentials in
their own environment (docs/scale.md).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Any

from ..core.discovery import Skipped
from ..core.result import TraceResult
from .archive import EXTRA_HINT, Listed, ScaleError, Unit, judge_batch

if TYPE_CHECKING:
    from distributed import Client, Future

__all__ = ["CONNECT_TIMEOUT", "WORKER_TIMEOUT", "judge_on_cluster"]

CONNECT_TIMEOUT = 30.0
"""Seconds to reach the scheduler."""
WORKER_TIMEOUT = 60.0
"""Seconds the scan waits for a worker when the cluster has none (at the start, or when every
worker has gone)."""
_POLL = 5.0

Result = TraceResult | Skipped


def connect(address: str) -> Client:
    """A client of the scheduler at ``address`` that has at least one worker."""
    try:
        from distributed import Client
    except ImportError:
        raise ScaleError(f"--dask needs dask.distributed: {EXTRA_HINT}") from None
    _probe(address)
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ScaleError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    try:
        client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
    except (TimeoutError, OSError):
        client.close()
        raise ScaleError(
            f"the Dask scheduler at {address} has no workers (waited {WORKER_TIMEOUT:g} s)"
        ) from None
    return client


def _probe(address: str) -> None:
    """Fail at once where nothing listens: Dask's client retries a refused connection until
    its timeout, so a mistyped port cost half a minute. (TCP addresses only; the client
    itself says what is wrong with the others.)"""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme != "tcp":
            return
        host, port = parse_host_port(location)
    except (ValueError, TypeError):
        return  # (the client's own message says what is wrong with it)
    try:
        socket.create_connection((host, port), timeout=min(5.0, CONNECT_TIMEOUT)).close()
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        raise ScaleError(f"cannot reach the Dask scheduler at {address}: {why.lower()}") from None


def judge_on_cluster(
    address: str, units: Iterable[Unit], *, clients: bool = False, window: int | None = None
) -> Iterator[Result]:
    """Judge ``units`` on the cluster at ``address``; yield results in the units' order.

    At most ``window`` tasks (default: twice the cluster's threads, at least 4) are out at
    once, so neither this process nor the cluster holds more than that many batches' results.
    """
    client = connect(address)
    # The client logs lost connections and dead workers with tracebacks; every one of them
    # reaches the user here as a ScaleError or a skipped entry instead, in one line.
    quiet = {
        name: logging.getLogger(name).level
        for name in ["distributed", *logging.root.manager.loggerDict]
        if name.startswith("distributed")
    }
    for name in quiet:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        if window is None:
            window = max(4, 2 * sum(client.nthreads().values()))
        pending: deque[tuple[Unit, Future | None]] = deque()
        for unit in units:
            if isinstance(unit, Skipped):
                pending.append((unit, None))
            else:
                url, batch = unit
                pending.append((unit, _submit(client, url, batch, clients)))
            while sum(f is not None for _, f in pending) >= window or (
                pending and pending[0][1] is None
            ):
                yield from _resolve(client, *pending.popleft(), clients)
        while pending:
            yield from _resolve(client, *pending.popleft(), clients)
    except CancelledError:  # distributed's FutureCancelledError: the scheduler is gone
        raise ScaleError(
            f"lost the Dask scheduler at {address} mid-scan; the scan cannot finish"
        ) from None
    finally:
        client.close()
        for name, level in quiet.items():
            logging.getLogger(name).setLevel(level)


def _submit(client: Client, url: str, batch: list[Listed], clients: bool) -> Future:
    # pure=False: a resubmitted batch is a new task, not the failed one again.
    return client.submit(judge_batch, url, batch, clients, pure=False)


def _resolve(client: Client, unit: Unit, future: Future | None, clients: bool) -> list[Result]:
    if future is None:
        assert isinstance(unit, Skipped)
        return [unit]
    assert not isinstance(unit, Skipped)
    url, batch = unit
    from distributed import KilledWorker

    try:
        return _result(client, future)
    except KilledWorker:
        pass
    finally:
        future.release()
    # Some object in the batch kills the workers that read it (most likely: it needs more
    # memory than a worker has). Find it: one task per object.
    singles = [(item, _submit(client, url, [item], clients)) for item in batch]
    out: list[Result] = []
    for item, single in singles:
        try:
            out += _result(client, single)
        except KilledWorker:
            out.append(
                Skipped(
                    item.address,
                    "the Dask workers that judged it died (each time it was tried);"
                    " it may need more memory than a worker has",
                )
            )
        finally:
            single.release()
    return out


def _result(client: Client, future: Future) -> list[Result]:
    """The task's results; waits while the cluster has workers, gives up when it has none
    for :data:`WORKER_TIMEOUT` seconds."""
    idle_since: float | None = None
    while True:
        try:
            value: Any = future.result(timeout=_POLL)
        except TimeoutError:
            if client.nthreads():
                idle_since = None
            elif idle_since is None:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since > WORKER_TIMEOUT:
                raise ScaleError(
                    f"every Dask worker has gone (none for {WORKER_TIMEOUT:g} s);"
                    " the scan cannot finish"
                ) from None
            continue
        except (ModuleNotFoundError, ImportError) as exc:
            raise ScaleError(
                f"a Dask worker cannot run the judging ({exc}): install replay-tui with"
                f" {EXTRA_HINT!r} on every worker"
            ) from None
        if not isinstance(value, list):
            raise ScaleError(f"a Dask worker sent back {type(value).__name__}, not results")
        return value
