"""Archive scans without a cluster: fsspec URLs judged in this process equal a local check."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from replay_tui.clientlibs import assess
from replay_tui.core import discovery
from replay_tui.core.check import check_paths, report_json
from replay_tui.core.discovery import Skipped, discover
from replay_tui.scale import archive
from replay_tui.scale.archive import (
    Listed,
    ScaleError,
    batches,
    is_url,
    judge_batch,
    judge_unit,
    list_url,
    order_key,
    plan,
)
from replay_tui.scale.scan import iter_results

from .conftest import BUCKET, REPO, results_json

pytestmark = pytest.mark.xdist_group("scale")


def local_json(paths: list[Path], *, clients: bool = False) -> dict[str, Any]:
    report = check_paths(paths)
    per_trace = None
    if clients:
        per_trace = [{k: o.json() for k, o in assess(t).items()} for t in report.traces]
    return report_json(report, per_trace)


def file_url(path: Path) -> str:
    return "file://" + str(path.resolve())


def test_file_urls_equal_a_local_check_of_the_same_folders() -> None:
    roots = [REPO / "tests/data", REPO / "traces"]
    expected = local_json(roots)
    assert any("#" in t["path"] for t in expected["traces"])  # HAR entries are in it
    assert expected["skipped"]  # and files that are not traces
    assert results_json(iter_results([file_url(r) for r in roots])) == expected


def _hostile_tree(root: Path) -> None:
    corpus = REPO / "tests/data/corpus"
    sse = (corpus / "avian__kimi__parallel-2-calls.sse").read_bytes()
    files = {
        "b.sse": sse,
        "a/z.sse": sse,
        "a/b/c.sse": sse,
        "a/b.sse": sse,
        "a-b/x.log": sse,
        "a.b/x.txt": sse,
        "b.sse.meta.json": b'{"complete": true}',
        ".hidden/x.sse": sse,
        "__pycache__/x.sse": sse,
        "x.sse.part": sse,
        "x.sse~": sse,
        "#x.sse#": sse,
        "empty.sse": b"",
        "blob.bin": b"\x00\x01" * 100,
        "doc.json": b'{"a": 1}',
        "notes.txt": b"hello\n",
        "response": b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n" + sse,
        "d/e/f/g.sse": sse,
        "broken.har": b"{not json",
        "direct.har": (REPO / "tests/data/diff/direct-and-gateway.har").read_bytes(),
        "log.jsonl": (
            corpus / "expected/avian__kimi__parallel-2-calls.accept-identity.jsonl"
        ).read_bytes(),
    }
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def test_a_hostile_tree_is_recognised_and_ordered_as_the_local_scan_does(tmp_path: Path) -> None:
    _hostile_tree(tmp_path)
    expected = local_json([tmp_path])
    assert results_json(iter_results([file_url(tmp_path)])) == expected
    listed, _ = list_url(file_url(tmp_path))
    local_order = [s.address.partition("#")[0] for s in discover([tmp_path]).sources]
    archive_order = [i.address for i in listed if i.address in local_order]
    assert archive_order == list(dict.fromkeys(local_order))


def test_order_key_is_the_walks_order_a_folder_where_its_name_sorts() -> None:
    names = ["a/b/c", "b", "a/z", "a/b.x", "a-b/x", "c/a"]
    assert sorted(names, key=order_key) == ["a/b/c", "a/b.x", "a/z", "a-b/x", "b", "c/a"]


def test_one_object_is_addressed_by_the_url_given() -> None:
    path = REPO / "tests/data/corpus/avian__kimi__parallel-2-calls.sse"
    url = file_url(path)
    (got,) = iter_results([url])
    (expected,) = local_json([path])["traces"]
    assert not isinstance(got, Skipped)
    assert got.path == url
    assert got.json() == {**expected, "path": url}


def test_missing_and_unknown(tmp_path: Path) -> None:
    url = file_url(tmp_path / "nothing-here")
    assert list(iter_results([url])) == [Skipped(url, "no such file or folder")]
    with pytest.raises(ScaleError, match="nosuchproto"):
        list(iter_results(["nosuchproto://bucket/x/"]))


def test_is_url() -> None:
    assert is_url("s3://bucket/prefix/")
    assert is_url("file:///srv/x")
    assert is_url("simplecache::s3://b/x")
    assert not is_url("captures/s3:/x")
    assert not is_url("/tmp/a://b")  # a path whose folder name holds :// is not a URL
    assert not is_url("C:\\captures")


def test_an_object_that_vanishes_or_cannot_be_read_is_one_skipped_entry(tmp_path: Path) -> None:
    src = REPO / "tests/data/corpus/avian__kimi__parallel-2-calls.sse"
    for name in ("a.sse", "b.sse", "c.sse"):
        shutil.copy(src, tmp_path / name)
    url = file_url(tmp_path)
    listed, _ = list_url(url)
    (tmp_path / "a.sse").unlink()
    (tmp_path / "c.sse").unlink()
    (tmp_path / "c.sse").mkdir()  # now a folder: reading it fails
    got = judge_batch(url, listed)
    assert got[0] == Skipped("a.sse", "vanished before it could be read")
    assert not isinstance(got[1], Skipped)
    assert isinstance(got[2], Skipped)
    assert got[2].path == "c.sse"
    assert got[2].reason.startswith("cannot read: ")


def test_batches_bound_files_and_bytes() -> None:
    items = [Listed(str(i), size) for i, size in enumerate([10, 10, 10, 50, 10, 1 << 40])]
    got = [[i.address for i in b] for b in batches(items, files=2, size=40)]
    # 50 bytes alone; the object over the size limit is never read, so it weighs nothing.
    assert got == [["0", "1"], ["2"], ["3"], ["4", "5"]]
    assert sum(map(len, got)) == len(items)


def test_large_objects_are_sniffed_before_they_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _hostile_tree(tmp_path)
    (tmp_path / "huge.sse").write_bytes(b"data: {}\n\n" * 200)
    monkeypatch.setattr(archive, "_WHOLE", 0)  # every object takes the large-object path
    monkeypatch.setattr(discovery, "MAX_TRACE_BYTES", 1000)
    monkeypatch.setattr(archive, "MAX_TRACE_BYTES", 1000)
    expected = local_json([tmp_path])
    assert any(s["reason"].startswith("too large") for s in expected["skipped"])
    assert results_json(iter_results([file_url(tmp_path)])) == expected


def test_s3_in_process_equals_local_with_clients(s3_env: dict[str, str]) -> None:
    """A folder (HAR files and files that are not traces in it) and an object, as URLs. Each
    object read costs a request through moto's server: the whole corpus (some 25 ms a request)
    took 3 s more of CPU and is read over S3 in the cluster tests."""
    assert os.environ["AWS_ENDPOINT_URL"].startswith("http://127.0.0.1:")
    one = "avian__kimi__parallel-2-calls.sse"
    expected = local_json([REPO / "tests/data/corpus" / one, REPO / "traces"], clients=True)
    assert len(expected["traces"]) == 27 and len(expected["skipped"]) == 2
    urls = [f"s3://{BUCKET}/corpus/{one}", f"s3://{BUCKET}/traces"]
    expected["traces"][0]["path"] = urls[0]  # a file given is named as it was given
    assert results_json(iter_results(urls, clients=True, batch_files=5)) == expected


def test_s3_missing_bucket_and_prefix(s3_env: dict[str, str]) -> None:
    for url in (f"s3://{BUCKET}/no-such-prefix/", "s3://no-such-bucket/x/"):
        assert list(iter_results([url])) == [Skipped(url, "no such file or folder")]


def test_plain_paths_mixed_with_urls_equal_a_local_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI may pass every argument here once one is a URL (or --dask is given)."""
    monkeypatch.chdir(REPO)
    one = "tests/data/corpus/avian__kimi__parallel-2-calls.sse"
    expected = local_json([Path("traces"), Path(one), Path("tests/data/diff")])
    got = iter_results(["traces", one, file_url(REPO / "tests/data/diff")])
    assert results_json(got) == expected


def test_units_and_results_cross_a_process_boundary_for_a_pool(tmp_path: Path) -> None:
    """``check --jobs`` over URLs can map judge_unit over plan() in a process pool: both the
    units and the results pickle, and in order they are what iter_results yields."""
    import pickle

    _hostile_tree(tmp_path)
    urls = [file_url(tmp_path), file_url(tmp_path / "missing")]
    units = [pickle.loads(pickle.dumps(u)) for u in plan(urls, files=3)]
    assert len(units) > 3
    got = [pickle.loads(pickle.dumps(r)) for u in units for r in judge_unit(u)]
    assert got == list(iter_results(urls))
    assert got[-1] == Skipped(urls[-1], "no such file or folder")


def test_links_in_a_file_url(tmp_path: Path) -> None:
    """A link to a file is read through and a dangling one skipped, as locally; a link to a
    folder is not followed (fsspec does not) and says so."""
    src = REPO / "tests/data/corpus/avian__kimi__parallel-2-calls.sse"
    (tmp_path / "a").mkdir()
    shutil.copy(src, tmp_path / "a/x.sse")
    (tmp_path / "link.sse").symlink_to("a/x.sse")
    (tmp_path / "dangling.sse").symlink_to("nowhere")
    expected = local_json([tmp_path])
    assert results_json(iter_results([file_url(tmp_path)])) == expected
    (tmp_path / "a/up").symlink_to("..")  # the local scan follows it into a loop and stops
    got = list(iter_results([file_url(tmp_path)]))
    assert (
        Skipped("a/up", "link to a folder: not followed in a URL scan (give it as a plain path)")
        in got
    )
    assert results_json(g for g in got if g.path != "a/up") == local_json([tmp_path])


def test_read_errors_in_the_users_terms() -> None:
    """What a storage client raises becomes the skipped entry's reason (as root in a
    container, a real permission error cannot be provoked on the local disk)."""

    class ClientError(Exception):
        pass

    reason = archive._reason
    assert reason(PermissionError(13, "Permission denied")) == "cannot read: Permission denied"
    assert reason(FileNotFoundError(2, "gone")) == "vanished before it could be read"
    assert reason(OSError("Access Denied")) == "cannot read: Access Denied"
    assert reason(ClientError("SlowDown")) == "cannot read: ClientError: SlowDown"
