"""Every library policy reproduces what the real library produced on every recorded scenario.

The scenarios (``tests/data/clients/scenarios/*.sse``) were streamed by a local server to each
library at the version its policy names; ``results_*.txt`` are those runs' outputs, verbatim.
A generated id is compared by shape, since the real one is random.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from recordings import DATA, SECTIONS, Recorded, load

from replay_tui.clientlibs import LIBRARIES, POLICIES, Assembly, frames
from replay_tui.core.discovery import discover
from replay_tui.core.trace import Trace, load_trace

RECORDED = load()
SCENARIOS = DATA / "scenarios"

GENERATED = {
    "openai-node": r"call_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    "openai-node-strict": r"call_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    "ai-sdk-openai-compatible": r"[A-Za-z0-9]{16}",
    "ai-sdk-openai": r"[A-Za-z0-9]{16}",
    "pydantic-ai": r"pyd_ai_[0-9a-f]{32}",
}

CASES = [
    pytest.param(key, scenario, id=f"{key}-{scenario}")
    for key, scenarios in RECORDED.items()
    for scenario in scenarios
]


def _trace(path: Path) -> Trace:
    return load_trace(discover([path]).sources[0])


def _run(key: str, scenario: str) -> Assembly:
    return POLICIES[key].run(frames(_trace(SCENARIOS / f"{scenario}.sse")))


LAYERS = {"id_number", "id_number_cont", "type_null_first", "type_upper", "parallel_blank"}
LAYERS |= {"string_null", "index_missing", "index_missing_cont", "no_role"}
"""scenarios_layers.py's scenarios (recorded for every library)."""


def test_every_library_and_scenario_is_recorded() -> None:
    assert sorted(RECORDED) == sorted(LIBRARIES) == sorted(SECTIONS.values())
    shared = {p.stem for p in SCENARIOS.glob("*.sse")} - {"late_name_args"} - LAYERS
    assert len(shared) == 16
    for key, scenarios in RECORDED.items():
        assert shared <= set(scenarios), key
    layered = {k for k, scenarios in RECORDED.items() if set(scenarios) >= LAYERS}
    assert layered == set(LIBRARIES)  # every library also ran the layer scenarios


@pytest.mark.parametrize(("key", "scenario"), CASES)
def test_policy_reproduces_recording(key: str, scenario: str) -> None:
    recorded: Recorded = RECORDED[key][scenario]
    got = _run(key, scenario)
    if recorded.error is not None:
        assert got.raised is not None, f"expected {recorded.error}, got calls {got.calls}"
        assert (got.raised.name, got.raised.message) == recorded.error
        return
    assert got.raised is None, got.raised
    valid = [c for c in got.calls if not c.invalid]
    invalid = [c for c in got.calls if c.invalid]
    assert len(valid) == len(recorded.calls)
    for call, (rid, rname, rargs) in zip(valid, recorded.calls, strict=True):
        if call.id_generated:
            assert isinstance(rid, str) and re.fullmatch(GENERATED[key], rid), rid
        else:
            assert call.id == rid
        assert call.name == rname
        assert call.arguments == rargs
    assert [(c.id, c.name, c.arguments) for c in invalid] == recorded.invalid
    assert [e.name for e in got.error_parts] == recorded.error_parts
