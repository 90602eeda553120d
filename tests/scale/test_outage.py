"""A storage outage mid-scan: ``check s3://…`` while the S3 endpoint dies.

moto's S3 server runs as a process of its own on a loopback port, so the test can kill it for
real between two batches of the scan; ``check`` is a real process too. What must come out: the
traces judged before the outage, every object after it accounted for as not read, a handful
of stderr lines (not one per object), and exit status 3 — never 1, which CI reads as "traces
flagged".
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from replay_tui.scale.archive import BATCH_FILES
from replay_tui.scale.scan import OUTAGE_RUN

from .conftest import AWS_ENV, REPO, START_TIMEOUT, stop, wait_for

pytestmark = pytest.mark.xdist_group("scale")

BOUND = 180.0
"""Seconds the scan may take: one batch's reads, retried, against a dead endpoint."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


# ``check``, the server killed when the scan comes to its second batch.
_CHECK = """
import os, signal, sys
from replay_tui.scale import scan
judge_unit = scan.judge_unit
units = [0]
def judging(unit, clients=False):
    units[0] += 1
    if units[0] == 2:
        os.kill(int(os.environ["OUTAGE_PID"]), signal.SIGKILL)
    return judge_unit(unit, clients)
scan.judge_unit = judging
from replay_tui.cli import main
sys.exit(main(["check", *sys.argv[1:]]))
"""


def test_an_endpoint_that_dies_mid_scan_is_exit_3_with_one_summary_line(
    tmp_path: Path,
) -> None:
    assert OUTAGE_RUN <= BATCH_FILES  # the outage is found within the batch that fails
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("AWS_")},
        **AWS_ENV,
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_MAX_ATTEMPTS": "1",  # botocore's own retries off: s3fs still retries each read
    }
    log = (tmp_path / "moto.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    log.close()
    try:
        wait_for("moto server", lambda: _listening(port), [server])
        corpus = sorted((REPO / "tests/data/corpus").glob("*.sse"))
        count = 2 * BATCH_FILES + 40  # a batch read, a batch failing, a batch not tried
        upload = (
            "import s3fs, sys, pathlib\n"
            "fs = s3fs.S3FileSystem(); fs.mkdir('captures')\n"
            "files = [pathlib.Path(p).read_bytes() for p in sys.argv[2:]]\n"
            "n = int(sys.argv[1])\n"
            "fs.pipe({f'captures/x/{i:04d}.sse': files[i % len(files)] for i in range(n)})\n"
        )
        subprocess.run(
            [sys.executable, "-c", upload, str(count), *map(str, corpus)],
            env=env,
            check=True,
            timeout=START_TIMEOUT,
        )
        env["OUTAGE_PID"] = str(server.pid)
        done = subprocess.run(
            [sys.executable, "-c", _CHECK, "s3://captures/x/", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=BOUND,
        )
    finally:
        if server.poll() is None:
            stop(server)
        else:
            server.wait()
    assert server.returncode == -signal.SIGKILL  # the outage happened
    doc = json.loads(done.stdout)
    assert len(doc["traces"]) == BATCH_FILES  # the first batch, judged before the outage
    skipped = doc["skipped"]
    assert len(skipped) == count - BATCH_FILES  # every other object accounted for
    assert all(s["reason"].startswith("cannot read: storage unreachable") for s in skipped)
    # The batch after the outage was found is not tried: each object says so, no wait.
    not_tried = [s for s in skipped if "not tried" in s["reason"]]
    assert len(not_tried) == count - 2 * BATCH_FILES
    last = f"{2 * BATCH_FILES - 1:04d}.sse"
    assert not_tried[0]["reason"] == (
        f"cannot read: storage unreachable: not tried, after {BATCH_FILES} objects in a row"
        f" could not reach it (the last {last})"
    )
    assert doc["incomplete"] == f"{count - BATCH_FILES} files could not be read"
    err = done.stderr.splitlines()
    assert len(err) == 4, done.stderr  # three named, then one line for all
    assert err[-1] == (
        f"replay-tui: {count - BATCH_FILES} files could not be read (3 named above,"
        f" {count - BATCH_FILES - 3} more in --json): the scan is incomplete"
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == 3  # incomplete: not 1 ("flagged"), though some traces are
    assert any(t["flags"] for t in doc["traces"])
