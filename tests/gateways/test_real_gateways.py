"""Real gateways, started here on 127.0.0.1 and pointed at ``replay-tui probe --start-upstream``:
what each does to every identity pattern, at the version pinned in this folder.

The expectations were recorded from the real gateway (``scripts/record_gateways.py``,
``tests/data/gateways/<gateway>-<version>.json``); the pattern tests below say the same in
words. Each gateway is skipped, with the reason, where it is not installed (``.ci/run``
installs both; see ``real_gateways.py``).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
import real_gateways as rg

PATTERNS = {
    "absent": "openai/gpt-4.1-text-then-call.sse",
    '""': "dashscope/qwen3-max-id-empty.sse",
    '"" id and name': "dashscope/glm-5.2-id-and-name-empty.sse",
    "null": "writer/palmyra-x5-all-null.sse",
    "null, then data after [DONE]": "opencode/zen-null-identity-data-after-done.sse",
    "repeated": "repeated-id.sse",
    "late": "captures/late-id.sse",
    "late name": "nvidia-nim/glm-4.7-name-null-then-real.sse",
    "parallel": "captures/parallel-out-of-order.sse",
    'parallel, null id and "" name': "envoy/vertex-anthropic-parallel.sse",
}


def _skip_reason(name: str, version: str) -> str | None:
    found = rg.installed_version(name)
    if found is None:
        where = {
            "litellm": "in tests/gateways/.venv",
            "portkey": "in tests/gateways/node_modules",
            "nginx": "(apt-get install nginx-light)",
        }[name]
        return f"{name} is not installed {where} (.ci/run installs it)"
    if found != version:
        return f"{name} {found} is installed; the recorded expectations are for {version}"
    return None


@cache
def _probed(name: str) -> tuple[dict[str, Any], str]:
    """One probe run per gateway for the whole module (starting LiteLLM takes ~10 s)."""
    return rg.run(name)


GATEWAYS = [
    ("litellm", rg.LITELLM_VERSION),
    ("portkey", rg.PORTKEY_VERSION),
    ("nginx", rg.NGINX_VERSION),
]


@pytest.fixture(params=GATEWAYS, ids=[g for g, _ in GATEWAYS])
def probed(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    name, version = request.param
    reason = _skip_reason(name, version)
    if reason:
        pytest.skip(reason)
    record, err = _probed(name)
    assert "Traceback" not in err
    return name, record


@pytest.mark.xdist_group("real-gateways")
def test_every_capture_as_recorded(probed: tuple[str, dict[str, Any]]) -> None:
    name, record = probed
    version = dict(GATEWAYS)[name]
    expected = json.loads(rg.record_path(name, version).read_text())
    assert set(record["captures"]) == set(expected["captures"])
    for capture, want in expected["captures"].items():
        assert record["captures"][capture] == want, capture
    assert record["exit_status"] == expected["exit_status"] == 0


def _row(record: dict[str, Any], pattern: str) -> dict[str, Any]:
    row: dict[str, Any] = record["captures"][PATTERNS[pattern]]
    assert row["problem"] is None, row
    return row


@pytest.mark.xdist_group("real-gateways")
def test_what_each_gateway_does_to_each_pattern(probed: tuple[str, dict[str, Any]]) -> None:
    name, record = probed
    for pattern in PATTERNS:
        row = _row(record, pattern)
        assert row["introduced"] == [], (pattern, row)  # neither adds an erasure or refusal
    if name in ("portkey", "nginx"):
        # Passes every stream through byte for byte: every outcome the same, every flag kept.
        assert all(c["same_bytes"] for c in record["captures"].values())
        for pattern in PATTERNS:
            row = _row(record, pattern)
            assert row["gateway"] == row["upstream"], pattern
            assert row["same_outcome"] == {"accept-identity": True, "assign-always": True}
        return
    # LiteLLM re-serialises every chunk (no output is the bytes it was sent) ...
    assert not any(c["same_bytes"] for c in record["captures"].values())
    # ... "" ids pass through (the erasure stays) ...
    for pattern in ('""', '"" id and name'):
        row = _row(record, pattern)
        assert row["gateway"][1] == row["upstream"][1] != [], pattern
    # ... null ids and names are dropped from the deltas: the erasure is repaired
    for pattern in ("null", "null, then data after [DONE]"):
        row = _row(record, pattern)
        assert row["upstream"][1] and row["gateway"] == [
            {"assign-always": "ok", "accept-identity": "ok"},
            [],
        ], pattern
    # ... and of Envoy's null id with "" name, the id is repaired, the "" name kept
    row = _row(record, 'parallel, null id and "" name')
    assert row["gateway"][1] == ['erased-name call 0 ("")', 'erased-name call 1 ("")']
    for pattern in ("absent", "repeated", "late", "late name", "parallel"):
        row = _row(record, pattern)
        assert row["gateway"] == row["upstream"], pattern
        assert row["upstream"][0] == {"assign-always": "ok", "accept-identity": "ok"}
    # it reports usage the capture did not have (stream_options.include_usage was asked) ...
    assert _row(record, "absent")["same_outcome"]["accept-identity"] is False
    # ... and ends a stream cut off before [DONE] as if it had finished
    cut = record["captures"]["captures/truncated-no-done.sse"]
    assert cut["upstream"][0]["accept-identity"] == "stream-closed"
    assert cut["gateway"][0]["accept-identity"] == "ok"
