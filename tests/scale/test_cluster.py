"""``--dask``: a real scheduler and workers on 127.0.0.1 read captures from moto's S3 server;
the results equal a local check of the same files, through a dead worker and a vanished
object too."""

from __future__ import annotations

import json
import os

import pytest

from replay_tui.scale.archive import ScaleError, list_url
from replay_tui.scale.scan import iter_results

from .conftest import BUCKET, REPO, Cluster, results_json
from .test_archive import local_json

pytestmark = pytest.mark.xdist_group("scale")

URLS = [f"s3://{BUCKET}/corpus/", f"s3://{BUCKET}/traces/"]
ROOTS = [REPO / "tests/data/corpus", REPO / "traces"]


def test_many_small_batches_with_clients_equal_the_local_check(cluster: Cluster) -> None:
    expected = local_json(ROOTS, clients=True)
    got = iter_results(URLS, dask=cluster.address, clients=True, batch_files=3, window=4)
    assert results_json(got) == expected


def test_an_object_deleted_mid_scan_is_one_skipped_entry(
    cluster: Cluster, s3_env: dict[str, str]
) -> None:
    import s3fs

    fs = s3fs.S3FileSystem()
    fs.put(str(REPO / "tests/data/corpus"), f"{BUCKET}/vanish", recursive=True)
    url = f"s3://{BUCKET}/vanish/"
    last = list_url(url)[0][-1]
    scan = iter_results([url], dask=cluster.address, batch_files=1, window=2)
    first = next(scan)
    fs.rm(
        f"{BUCKET}/vanish/{last.address}"
    )  # not read yet: at most two single-object tasks are out
    got = results_json([first, *scan])
    expected = local_json([REPO / "tests/data/corpus"])
    assert [t["path"] for t in expected["traces"]][-1] == last.address
    expected["traces"].pop()
    expected["skipped"].append({"path": last.address, "reason": "vanished before it could be read"})
    assert got == expected


def test_no_scheduler_is_one_clear_error() -> None:
    import socket

    with socket.socket() as sock:  # a port that nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Refused, it is said at once: no 30 s of Dask's retries (CONNECT_TIMEOUT) first.
    address = f"tcp://127.0.0.1:{port}"
    with pytest.raises(ScaleError) as raised:
        list(iter_results([str(REPO / "traces")], dask=address))
    assert str(raised.value) == f"cannot reach the Dask scheduler at {address}: connection refused"


def test_check_dask_prints_what_a_local_check_prints(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line, end to end: ``check --json --dask`` over s3:// URLs is byte for byte
    the document a local ``check --json`` of the same folders writes."""
    from replay_tui.cli import main

    assert main(["check", "--json", "--jobs", "1", *map(str, ROOTS)]) == 1
    local = capsys.readouterr().out
    doc = json.loads(local)  # what is compared: every capture of both folders (HAR entries
    assert len(doc["traces"]) == 131  # one each) and the four files of theirs that are not
    assert [s["path"] for s in doc["skipped"]] == [  # traces, skipped as a local walk does
        "LICENSE-NOTICE.md",
        "MANIFEST.tsv",
        "README.md",
        "captures/request-body.json",
    ]
    assert main(["check", "--json", "--dask", cluster.address, *URLS]) == 1
    assert capsys.readouterr().out == local


def test_a_dead_worker_loses_nothing_and_a_dead_scheduler_is_one_clear_error(
    cluster: Cluster,
) -> None:
    """Two deaths, on the module's cluster (the last of its tests to use it; a test after
    this one gets a new one):

    - the only worker dies with tasks on it (the scheduler allows no retries, so they fail
      with KilledWorker and the scan resubmits them one object each); a new worker finishes
      and nothing is lost. One folder (27 results) is enough to have some in flight and more
      after (both folders, 134 results, took the new worker a second more and proved nothing
      more);
    - then the scheduler dies mid-scan: the scan ends with one error that names it.
    """
    try:
        victim = cluster.workers["w"]
        scan = iter_results(URLS[1:], dask=cluster.address, batch_files=1, window=4)
        first = next(scan)
        victim.kill()
        victim.wait(timeout=30)
        cluster.add_worker("survivor")
        got = results_json([first, *scan])
        assert victim.returncode is not None
        assert got == local_json(ROOTS[1:])

        scan = iter_results(URLS, dask=cluster.address, batch_files=1, window=2)
        next(scan)
        scheduler = cluster.procs[0]
        scheduler.kill()
        scheduler.wait(timeout=30)
        with pytest.raises(
            ScaleError, match=f"lost the Dask scheduler at {cluster.address} mid-scan"
        ):
            list(scan)
    except BaseException:
        print(cluster.log())
        raise


def test_the_cluster_tests_run_on_one_worker(request: pytest.FixtureRequest) -> None:
    """Under ``-n`` (the README's command) ``--dist loadgroup`` keeps the tests of the "scale"
    group, and so their one cluster and S3 server, on one worker; xdist says so by ending
    each grouped test's id with the group's name. If pytest and xdist stop agreeing on ids
    (pytest 9.2 with xdist 3.8), the mark is ignored and each worker starts its own."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        pytest.skip("one process: there is nothing to group")
    assert request.node.nodeid.endswith("@scale")
