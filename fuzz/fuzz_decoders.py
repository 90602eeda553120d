"""Coverage-guided fuzzing (atheris / libFuzzer) of the framing and HAR decoders.

Each input's first byte picks a target, the rest is the capture:

- SSE body: framed whole, framed in pieces at input-chosen points, and by the framer with its
  LF fast paths switched off; all three must agree exactly. Then built into a trace.
- ``curl -i`` capture and chunk log: built whole and in pieces; the traces must agree.
- HAR document: ``parse_har`` may raise ``HarError`` and nothing else; every stream found is
  built into a trace.

Every trace built must replay to exactly one final ``finish`` under both behaviors, agree
with the identity analysis on its verdicts, and give ``check --json`` text that parses back.
Any other exception, or a failed check, is a finding: libFuzzer stops and writes the input to
``crash-*`` for replay (``python fuzz/fuzz_decoders.py crash-…``).

Run (see docs/robustness.md)::

    pip install atheris
    python fuzz/fuzz_decoders.py -max_total_time=600 fuzz/corpus

The corpus folder is seeded from ``traces/`` the first time it is empty.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

try:
    import atheris  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - depends on the environment
    sys.exit(
        "fuzz_decoders needs atheris: pip install atheris\n"
        "(without it, run the long hypothesis campaign instead:"
        " pytest tests/robustness --hypothesis-profile=fuzz)"
    )

with atheris.instrument_imports(include=["replay_tui"]):
    from replay_tui.core import jsontext
    from replay_tui.core.check import Report, report_json
    from replay_tui.core.har import HarError, parse_har
    from replay_tui.core.sse import SseFramer
    from replay_tui.core.trace import Form, Source, Trace, TraceBuilder
    from replay_tui.core.translator import Behavior

from tests.robustness.reference import GeneralPathFramer, feed_all, framing_state  # noqa: E402

TARGETS = ("sse", "http", "jsonl", "har")
FORMS = {"sse": Form.SSE, "http": Form.HTTP, "jsonl": Form.JSONL}
_CODE_VERDICTS = {
    "MALFORMED_TOOL_CALL": "malformed-tool-call",
    "EMPTY_RESPONSE": "empty-response",
    "MALFORMED_RESPONSE": "malformed-response",
    "STREAM_CLOSED": "stream-closed",
}


def _pieces(body: bytes, cuts: bytes) -> list[bytes]:
    """``body`` cut at points taken from ``cuts`` (one byte each, scaled to the body)."""
    points = sorted({(c * len(body)) // 256 for c in cuts})
    out, last = [], 0
    for p in [*points, len(body)]:
        out.append(body[last:p])
        last = p
    return out


def _build(form: Form, pieces: list[bytes], source: Source | None = None) -> Trace:
    builder = TraceBuilder(source or Source(Path("fuzz"), "fuzz", form))
    for piece in pieces:
        builder.feed(piece)
    builder.close()
    return builder.build()


def _verdict(chunks: list[dict[str, object]]) -> str:
    for c in chunks:
        block = c.get("block")
        if c["type"] == "block-end" and isinstance(block, dict) and block["type"] == "tool-call":
            cid, name = block["id"], block["name"]
            if not (isinstance(cid, str) and cid and isinstance(name, str) and name):
                return "unidentified-call"
    reason = chunks[-1]["reason"]
    assert isinstance(reason, dict)
    if reason["kind"] == "error":
        return _CODE_VERDICTS.get(reason["failure"]["code"], "model-error")
    return "ok"


def _check_trace(trace: Trace) -> None:
    for behavior in Behavior:
        chunks = [c for _, c in trace.replay(behavior)]
        kinds = [c["type"] for c in chunks]
        assert kinds.count("finish") == 1 and kinds[-1] == "finish", kinds
        assert trace.verdicts[behavior.value] == _verdict(chunks), (behavior, chunks)
    doc = json.loads(jsontext.encode(report_json(Report(traces=[trace]))))
    assert doc["traces"][0]["verdicts"] == trace.verdicts


def _summary(trace: Trace) -> tuple[object, ...]:
    return (trace.payloads, trace.decoded, trace.errors, trace.verdicts, trace.notes, trace.head)


def test_one_input(data: bytes) -> None:
    if len(data) < 2:
        return
    target = TARGETS[data[0] % len(TARGETS)]
    ncuts = data[1] % 8
    cuts, body = data[2 : 2 + ncuts], data[2 + ncuts :]
    if target == "har":
        try:
            entries, _ = parse_har(body)
        except HarError as exc:
            assert str(exc)
            return
        for entry in entries:
            source = Source(Path("fuzz.har"), f"fuzz.har#{entry.number}", Form.HAR, entry)
            _check_trace(_build(Form.HAR, [entry.body], source))
        return
    pieces = _pieces(body, cuts)
    if target == "sse":
        whole = framing_state(feed_all(SseFramer(), [body])[0])
        assert framing_state(feed_all(SseFramer(), pieces)[0]) == whole
        assert framing_state(feed_all(GeneralPathFramer(), pieces)[0]) == whole
    form = FORMS[target]
    trace = _build(form, [body])
    _check_trace(trace)
    assert _summary(_build(form, pieces)) == _summary(trace)


def _seed(corpus: Path) -> None:
    """Put the bundled traces in an empty corpus folder, one input per target they suit."""
    corpus.mkdir(parents=True, exist_ok=True)
    if any(corpus.iterdir()):
        return
    for i, path in enumerate(sorted((ROOT / "traces").rglob("*"))):
        if not path.is_file() or path.suffix == ".md":
            continue
        target = {".har": "har", ".jsonl": "jsonl", ".txt": "http"}.get(path.suffix, "sse")
        prefix = bytes([TARGETS.index(target), 2, 64, 192])
        (corpus / f"seed-{i:03d}-{path.name}").write_bytes(prefix + path.read_bytes())


def main() -> None:
    folders = [Path(a) for a in sys.argv[1:] if not a.startswith("-")]
    if len(folders) == 1 and not folders[0].is_file():
        _seed(folders[0])
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
