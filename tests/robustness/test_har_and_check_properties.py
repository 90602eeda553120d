"""HAR exports and whole folders, generated: only the project's own errors, JSON that stays JSON.

- ``parse_har`` raises nothing but :class:`HarError`, whose message says where (line and
  column for broken JSON, the JSON path for a wrong shape); every stream it finds replays.
- ``replay-tui check`` on a folder of generated captures (SSE, ``curl -i``, chunk logs, HAR,
  random bytes) accounts for every file once, as traces or as skipped, prints one JSON
  document with ``--json``, and a table without raw control characters otherwise.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from replay_tui.core.discovery import Discovery, classify
from replay_tui.core.har import HarError, parse_har
from replay_tui.core.trace import Form, Source, load_trace

from .helpers import RAW_CONTROL, run_cli
from .profile import robust
from .strategies import har_documents, http_captures, jsonl_logs, sse_streams
from .test_replay_properties import _check_trace


@robust()
@given(st.one_of(har_documents(), st.binary(max_size=200)))
@example(b'{"log": {"entries": [{"response": {"status": 1e400}}]}}')
@example(b'{"log": {"entries": [{"response": {"status": 1e308}}]}}')
@example(b"[" * 5000 + b"]" * 5000)
@example(b'{"log": {"entries": []}')
def test_har_parsing_raises_only_har_errors(data: bytes) -> None:
    try:
        entries, total = parse_har(data)
    except HarError as exc:
        message = str(exc)
        assert message and "\n" not in message
        assert "line" in message or "$" in message or "HAR" in message, message
        return
    assert [e.number for e in entries] == sorted({e.number for e in entries})
    assert all(1 <= e.number <= total for e in entries)
    for entry in entries:
        trace = load_trace(Source(Path("x.har"), f"x.har#{entry.number}", Form.HAR, entry))
        _check_trace(trace)
        assert trace.raw == entry.body


@robust(scale=0.7)
@given(har_documents())
def test_a_har_file_is_either_streams_or_skipped_once(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "x.har")
        path.write_bytes(data)
        found = Discovery()
        classify(path, "x.har", found)
    # the whole file listed once as skipped, or its streams (an entry whose body the
    # exporter lost skipped as itself, "x.har#N")
    whole = [s for s in found.skipped if s.path == "x.har"]
    assert bool(whole) != bool(found.sources or len(found.skipped) > len(whole))
    assert len(whole) <= 1
    addresses = [s.address for s in found.sources] + [
        s.path for s in found.skipped if s not in whole
    ]
    assert len(set(addresses)) == len(addresses)


files = st.lists(
    st.one_of(
        st.tuples(st.just(".sse"), sse_streams()),
        st.tuples(st.just(".txt"), http_captures()),
        st.tuples(st.just(".jsonl"), jsonl_logs()),
        st.tuples(st.just(".har"), har_documents()),
        st.tuples(st.sampled_from([".bin", ".json", ".png", ""]), st.binary(max_size=40)),
    ),
    min_size=1,
    max_size=5,
)


@robust(scale=0.5)
@given(files)
def test_check_accounts_for_every_file_and_stays_json(contents: list[tuple[str, bytes]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for i, (suffix, data) in enumerate(contents):
            name = f"f{i}{suffix}"
            Path(tmp, name).write_bytes(data)
            names.append(name)
        code, out, err = run_cli(["check", tmp, "--json"])
        human_code, human, human_err = run_cli(["check", "-v", tmp])
    assert code in (0, 1, 2) and human_code == code
    doc = json.loads(out)
    assert set(doc) == {"traces", "skipped"}
    traced = {t["path"].partition("#")[0] for t in doc["traces"]}
    skipped = [s["path"] for s in doc["skipped"]]
    assert len(skipped) == len(set(skipped))  # each problem named once
    assert traced.isdisjoint(skipped)
    # every file accounted for (a HAR entry whose body was lost, skipped as FILE.har#N)
    assert traced | {s.partition("#")[0] for s in skipped} == set(names)
    assert (code == 2) == (not doc["traces"])
    for t in doc["traces"]:
        assert set(t["verdicts"]) == {"assign-always", "accept-identity"}
    text = human.decode("utf-8")
    for stream in (text, err, human_err):
        assert RAW_CONTROL.search(stream) is None, stream
    # Skipped files are reported on stderr once each, in both modes.
    for name in skipped:
        assert sum(line.startswith(f"replay-tui: {name}:") for line in err.splitlines()) == 1
