"""What an archive scan costs: N small captures judged locally, from S3 in this process, and
from S3 on a 2-worker Dask cluster (docs/scale.md quotes its figures).

    python bench/archive.py 10000

Everything runs on this machine: moto's S3 server on 127.0.0.1 (a real S3 API, in a process
of its own), ``dask scheduler`` and two single-thread ``dask worker`` processes. The captures are
the corpus's SSE files copied round-robin into a folder tree (100 captures a folder). Needs the
archive and test extras (``pip install -e '.[test]'``).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path

from replay_tui.core.check import check_paths
from replay_tui.core.discovery import Skipped
from replay_tui.scale.archive import iter_results, list_url

ROOT = Path(__file__).resolve().parents[1]
BUCKET = "bench"


def generate(folder: Path, count: int) -> int:
    shapes = sorted((ROOT / "tests/data/corpus").glob("*.sse"))
    total = 0
    for i in range(count):
        data = shapes[i % len(shapes)].read_bytes()
        path = folder / f"day-{i // 100:04d}" / f"{i:07d}-{shapes[i % len(shapes)].name}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        total += len(data)
    return total


def timed(what: str, run: Callable[[], Iterable[object]], count: int) -> float:
    start = time.perf_counter()
    n = sum(1 for item in run() if not isinstance(item, Skipped))
    took = time.perf_counter() - start
    assert n == count, (what, n, count)
    print(f"{what:<48} {took:7.2f} s  {took / count * 1e6:8.0f} µs/capture", flush=True)
    return took


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    work = Path(tempfile.mkdtemp(prefix="archive-bench-"))
    procs: list[subprocess.Popen[bytes]] = []
    log = (work / "services.log").open("wb")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    moto = shutil.which("moto_server", path=str(Path(sys.executable).parent)) or "moto_server"
    procs.append(
        subprocess.Popen(
            [moto, "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT
        )
    )
    try:
        local = work / "captures"
        size = generate(local, count)
        print(f"{count:,} captures, {size / 1e6:.1f} MB, cores: {os.cpu_count()}")
        host = "127.0.0.1"
        env = {
            "AWS_ACCESS_KEY_ID": "bench",
            "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": f"http://{host}:{port}",
        }
        os.environ.update(env)
        import s3fs

        fs = s3fs.S3FileSystem()
        deadline = time.monotonic() + 60
        while True:
            try:
                fs.ls("")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        fs.mkdir(BUCKET)
        start = time.perf_counter()
        fs.put(str(local), f"{BUCKET}/captures", recursive=True)
        print(f"{'upload to moto (not part of a scan)':<48} {time.perf_counter() - start:7.2f} s")
        url = f"s3://{BUCKET}/captures/"

        timed("local check (check_paths)", lambda: check_paths([local]).traces, count)
        timed("file:// in this process", lambda: iter_results([f"file://{local}"]), count)
        start = time.perf_counter()
        list_url(url)
        took = time.perf_counter() - start
        print(f"{'S3 listing alone (part of each s3:// scan)':<48} {took:7.2f} s")
        tracemalloc.start()
        listed, _ = list_url(url)
        kept, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"{'S3 listing memory per object':<48} {kept / count:7.0f} B kept,"
            f" {peak / count:.0f} B at the peak"
        )
        del listed
        timed("s3:// (moto) in this process", lambda: iter_results([url]), count)

        dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or "dask"
        info = work / "scheduler.json"
        penv = {**os.environ, **env}
        procs.append(
            subprocess.Popen(
                [
                    dask,
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(info),
                ],
                env=penv,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
        while not info.exists() or "address" not in info.read_text():
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        for name in ("w1", "w2"):
            procs.append(
                subprocess.Popen(
                    [
                        dask,
                        "worker",
                        address,
                        "--name",
                        name,
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                        "--host",
                        "127.0.0.1",
                    ],
                    env=penv,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
        from distributed import Client

        with Client(address, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=120)
        timed(
            "file:// on Dask, 2 workers x 1 thread",
            lambda: iter_results([f"file://{local}"], dask=address),
            count,
        )
        timed(
            "s3:// (moto) on Dask, 2 workers x 1 thread",
            lambda: iter_results([url], dask=address),
            count,
        )
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS of this process (the client): {rss:.0f} MB")
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(timeout=30)
        log.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
