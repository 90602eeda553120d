"""The models' shortcuts (a folded run's pieces taken at once, a run of calls each opened and
closed alike taken in a few steps) against the payload-by-payload walk, where every delta is
a step of its own, on random streams drawn to reach each shortcut and the edges around it.

The oracle is the same stream read one frame per payload (:func:`frames`): no shortcut is
taken there, each library steps through every delta as the library does."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay_tui.clientlibs import POLICIES, ai_sdk, compact_frames
from tests.clients.test_clients_events import _both_ways, _sse, _tc, _trace

# Pieces that open a value, close one, hold a string, a blank or an escape: which call a
# piece continues depends on whether the arguments before it completed a JSON value.
SHARED_PIECES = ['{"a', '": ', '"x', "y", 'z"', "}", " ", "1", ",", '{"b": 2}', "", "]", '\\"']


VALUES = ['{"a": 1}', '{"b": "x}y"}', '[1, {"c": "\\""}]', '{"a": [1, 2]}', " {}", "17"]


@st.composite
def arguments(draw: st.DrawFn) -> list[str]:
    """A call's pieces: a JSON value cut at random (its last piece may carry more), then a
    few pieces more; or random pieces."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.lists(st.sampled_from(SHARED_PIECES), max_size=30))
    text = draw(st.sampled_from(VALUES))
    cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=len(text) - 1)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    if draw(st.booleans()):
        pieces[-1] += draw(st.sampled_from(SHARED_PIECES))
    return pieces + draw(st.lists(st.sampled_from(SHARED_PIECES), max_size=4))


@st.composite
def shared_index_streams(draw: st.DrawFn) -> str:
    """Calls one after another at the same few indexes (a gateway that does not count them):
    each opened by a delta of its id and name (now and then a blank or missing one), its
    pieces then with no id nor name (now and then a blank one), at its index or another."""
    chunks: list[dict[str, Any]] = []
    for c in range(draw(st.integers(1, 4))):
        index = draw(st.sampled_from([0, 0, 0, 1]))
        opening: dict[str, Any] = {"type": "function"}
        cid = draw(st.sampled_from([f"call_{c}", f"call_{c}", "", None, "call_0"]))
        if cid is not None:
            opening["id"] = cid
        name = draw(st.sampled_from([f"tool_{c}", f"tool_{c}", "", "tool_0"]))
        chunks.append(
            _tc(index, draw(st.sampled_from(["", "{", '{"a": 1}'])), name=name, **opening)
        )
        for piece in draw(arguments()):
            at = index if draw(st.integers(0, 9)) else draw(st.integers(0, 2))
            fields: dict[str, Any] = {}
            roll = draw(st.integers(0, 19))
            if roll == 0:
                fields["id"] = ""
            elif roll == 1:
                fields["name"] = ""
            elif roll == 2:
                fields["id"] = None
            chunks.append(_tc(at, piece, **fields))
    return _sse(chunks)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shared_index_streams())
def test_pieces_on_a_shared_index_taken_at_once_give_what_they_give_one_by_one(body: str) -> None:
    _both_ways(_trace(body))


def test_a_shared_index_run_is_taken_at_once_by_the_ai_sdk(monkeypatch: Any) -> None:
    # 8 calls at index 0, 500 pieces each: the calls' pieces are not each a step of the
    # tracker (they were: 100,000 steps on index-zero-parallel, 0.14 s per AI SDK model)
    chunks = []
    for c in range(8):
        chunks.append(_tc(0, "", id=f"call_{c}", type="function", name=f"tool_{c}"))
        chunks += [_tc(0, piece) for piece in ['{"a":"', *["ab"] * 500, '"}', "x", "y"]]
    trace = _trace(_sse(chunks))
    _meant, _one_by_one, gathered = _both_ways(trace)
    calls = gathered["ai-sdk-openai"].assembly.calls
    # the first call, alone at its index then, took every piece up to the next call; each
    # other took its pieces up to the one that completed its arguments, not the two after
    whole = '{"a":"' + "ab" * 500 + '"}'
    assert [c.arguments for c in calls] == [whole + "xy"] + [whole] * 7
    steps = 0
    real = ai_sdk.ToolCallTracker.process

    def counted(self: ai_sdk.ToolCallTracker, d: Any) -> None:
        nonlocal steps
        steps += 1
        real(self, d)

    monkeypatch.setattr(ai_sdk.ToolCallTracker, "process", counted)
    stream = compact_frames(trace)
    for key in ("ai-sdk-openai", "ai-sdk-openai-compatible"):
        steps = 0
        POLICIES[key].run(stream)
        assert steps < 100, key  # (one by one: a step a chunk, 4,040)
