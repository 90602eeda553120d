"""Real services on loopback for the archive tests: moto's S3 server, a Dask scheduler and
workers as subprocesses. Every process is started on a free port, waited for with a bound, and
stopped even when the test fails. Under xdist each worker process gets its own services."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Looked up, not imported: every xdist worker collects these tests and one runs them (their
# xdist group), which imports the three itself (about a second of each other worker's start).
for _module, _missing in (
    ("distributed", "the archive extra is not installed"),
    ("s3fs", "the archive extra is not installed"),
    ("moto", "moto[server] (the test extra) is not installed"),
    ("flask", "moto[server] (the test extra) is not installed"),
):
    if importlib.util.find_spec(_module) is None:
        pytest.skip(_missing, allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
BUCKET = "captures"
START_TIMEOUT = 60.0
"""Seconds a service may take to come up on a busy 2-core machine."""

AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def wait_for(what: str, ready: Callable[[], bool], procs: list[subprocess.Popen[bytes]]) -> None:
    """Poll ``ready`` until true; fail at once if one of ``procs`` exits, or after the bound."""
    deadline = time.monotonic() + START_TIMEOUT
    while not ready():
        for proc in procs:
            if proc.poll() is not None:
                raise RuntimeError(f"{what}: {proc.args!r} exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not ready after {START_TIMEOUT:g} s")
        time.sleep(0.05)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


class Cluster:
    """``dask scheduler`` and ``dask worker`` processes on 127.0.0.1."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        self.folder = folder
        self.env = env
        self.procs: list[subprocess.Popen[bytes]] = []
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or "dask"
        self.dask = dask
        info = folder / "scheduler.json"
        sched = self._spawn(
            "scheduler",
            [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(info),
            ],
        )
        wait_for("dask scheduler", lambda: _address(info) is not None, [sched])
        address = _address(info)
        assert address is not None
        self.address = address

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        log = (self.folder / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            [self.dask, *args], stdout=log, stderr=subprocess.STDOUT, env=self.env, cwd=self.folder
        )
        log.close()
        self.procs.append(proc)
        return proc

    def add_worker(self, name: str, threads: int = 1) -> subprocess.Popen[bytes]:
        proc = self._spawn(
            name,
            [
                "worker",
                self.address,
                "--name",
                name,
                "--nthreads",
                str(threads),
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
                "--death-timeout",
                "60",
            ],
        )
        self.workers[name] = proc
        return proc

    def wait_workers(self, names: list[str]) -> None:
        from distributed import Client

        with Client(self.address, timeout=START_TIMEOUT, set_as_default=False) as client:

            def present() -> bool:
                info = client.scheduler_info(n_workers=-1)["workers"].values()
                return set(names) <= {w["name"] for w in info}

            wait_for(f"dask workers {names}", present, [self.workers[n] for n in names])

    def log(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.folder.glob("*.log"))
        )

    def close(self) -> None:
        for proc in reversed(self.procs):
            stop(proc)


def _address(info: Path) -> str | None:
    try:
        value = json.loads(info.read_text())
    except (OSError, ValueError):
        return None
    address = value.get("address")
    return address if isinstance(address, str) else None


@pytest.fixture(scope="session")
def s3_env() -> Iterator[dict[str, str]]:
    """moto's S3 server on a free loopback port; this process's AWS environment points at it
    for the session (and is restored after); the returned mapping is for subprocesses."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server, thread = _s3_server()
    try:
        host, port = server.server_address[:2]
        env = {**AWS_ENV, "AWS_ENDPOINT_URL": f"http://{host}:{port}"}
        with pytest.MonkeyPatch.context() as mp:
            for key, value in env.items():
                mp.setenv(key, value)
            import s3fs

            s3fs.S3FileSystem.clear_instance_cache()
            fs = s3fs.S3FileSystem()
            fs.mkdir(BUCKET)
            fs.put(str(REPO / "tests/data/corpus"), f"{BUCKET}/corpus", recursive=True)
            fs.put(str(REPO / "traces"), f"{BUCKET}/traces", recursive=True)
            yield env
            s3fs.S3FileSystem.clear_instance_cache()
    finally:
        server.shutdown()
        thread.join()


def _s3_server() -> tuple[Any, threading.Thread]:
    """moto's server (what ``ThreadedMotoServer`` starts) answering S3 only, in a thread.

    moto's dispatcher finds each request's service by trying every service's URL patterns and
    parsing its headers: a third of the server's time in the cluster tests. Here every request
    is an S3 one."""
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    class S3Only(DomainDispatcherApplication):  # type: ignore[misc]
        def get_application(self, environ: dict[str, Any]) -> Any:
            with self.lock:
                app = self.app_instances.get("s3")
                if app is None:
                    app = self.app_instances["s3"] = self.create_app("s3")
                return app

    app = S3Only(create_backend_app)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=MotoRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


@pytest.fixture(scope="session")
def cluster_env(s3_env: dict[str, str]) -> dict[str, str]:
    """The environment of the Dask processes: the S3 endpoint and credentials; a task whose
    worker dies fails at once (KilledWorker), so the split-and-retry path is the one taken."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DASK_", "AWS_"))}
    env.update(s3_env)
    env["DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES"] = "0"
    return env


class SharedCluster:
    """The cluster the tests of a module share, started when first asked for and again after a
    test has killed it (the test of dying workers and schedulers kills this one: starting a
    cluster of its own cost two more processes, two seconds of CPU)."""

    def __init__(self, env: dict[str, str], folders: pytest.TempPathFactory) -> None:
        self.env = env
        self.folders = folders
        self.made: Cluster | None = None

    def alive(self) -> Cluster:
        """A scheduler and a worker of two threads, started if there is none or one has died.
        One worker of two threads runs tasks side by side, and their results come back out of
        order, as two workers would; a second worker process cost a second of CPU to start."""
        made = self.made
        if made is not None and all(p.poll() is None for p in (made.procs[0], made.workers["w"])):
            return made
        self.close()
        made = Cluster(self.folders.mktemp("dask"), self.env)
        self.made = made
        try:
            made.add_worker("w", threads=2)
            made.wait_workers(["w"])
        except BaseException:
            print(made.log(), file=sys.stderr)
            raise
        return made

    def close(self) -> None:
        if self.made is not None:
            self.made.close()
            self.made = None


@pytest.fixture(scope="module")
def shared_cluster(
    cluster_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedCluster]:
    """Stopped when the module's tests are done (idle, the processes would take a tenth of a
    core for the rest of the run)."""
    shared = SharedCluster(cluster_env, tmp_path_factory)
    try:
        yield shared
    finally:
        shared.close()


@pytest.fixture
def cluster(shared_cluster: SharedCluster) -> Cluster:
    """The module's cluster, alive: a scheduler and one worker ("w", two threads)."""
    return shared_cluster.alive()


def results_json(items: Any) -> dict[str, list[dict[str, Any]]]:
    """A ``check --json`` document built from streamed results, as the CLI will build it."""
    from replay_tui.core.discovery import Skipped
    from replay_tui.core.result import skipped_json

    items = list(items)
    return {
        "traces": [i.json() for i in items if not isinstance(i, Skipped)],
        "skipped": [skipped_json(i) for i in items if isinstance(i, Skipped)],
    }
