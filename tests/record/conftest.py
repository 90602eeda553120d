"""Fixtures for the recorder tests: the fake upstream, recorders in front of it, a client."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from record_helpers import WAIT, FakeUpstream, RecorderFactory

from replay_tui.record import Recorder


@pytest.fixture
async def upstream() -> AsyncIterator[FakeUpstream]:
    """A running fake upstream on a free loopback port."""
    fake = FakeUpstream()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", fake.handle)
    # handler_cancellation: a recorder hanging up cancels the scripted handler, like a real
    # gateway that stops generating; shutdown_timeout keeps teardown quick.
    # (auto_decompress=False: what it got is the wire bytes, a compressed body as sent)
    runner = web.AppRunner(
        app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0,
        auto_decompress=False,
    )  # fmt: skip
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    fake.port = int(runner.addresses[0][1])
    try:
        yield fake
    finally:
        await runner.cleanup()


@pytest.fixture
async def make_recorder(upstream: FakeUpstream, tmp_path: Path) -> AsyncIterator[RecorderFactory]:
    """Start recorders in front of the fake upstream (stopped at teardown)."""
    started: list[Recorder] = []

    async def factory(**kwargs: Any) -> Recorder:
        kwargs.setdefault("listen", "127.0.0.1:0")
        target = kwargs.pop("upstream_url", upstream.url)
        out = kwargs.pop("out", tmp_path / "traces")
        recorder = Recorder(target, out, **kwargs)
        await recorder.start()
        started.append(recorder)
        return recorder

    try:
        yield factory
    finally:
        for recorder in started:
            await asyncio.wait_for(recorder.stop(), WAIT * 2)


@pytest.fixture
async def client() -> AsyncIterator[aiohttp.ClientSession]:
    """A real HTTP client that keeps the wire bytes (no decompression)."""
    async with aiohttp.ClientSession(
        auto_decompress=False, timeout=aiohttp.ClientTimeout(total=WAIT * 2)
    ) as session:
        yield session
