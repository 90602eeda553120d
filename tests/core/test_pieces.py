"""The compact per-delta records (core/pieces.py) read back exactly what was appended."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay_tui.core.pieces import CallArgs, Pieces, Skeletons, WireCalls, senders
from replay_tui.core.wire import UNSET, Function, ToolCall

_piece = st.one_of(
    st.text(max_size=6),
    st.text(alphabet="a\u00e9\U0001f642", min_size=4090, max_size=4100),  # around the big size
)
_BIG_INPUTS = settings(suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow])
"""Lists of up to 300 pieces, some of 4,096 characters (past the blocks and the big size): at
times over hypothesis's entropy limit, which then failed the run for its size alone."""


@_BIG_INPUTS
@given(st.lists(_piece, max_size=300), st.integers(0, 310))
def test_pieces_read_back_as_a_list(pieces: list[str], count: int) -> None:
    kept = Pieces()
    for p in pieces:
        kept.append(p)
    assert len(kept) == len(pieces)
    assert list(kept) == pieces
    assert [kept[i] for i in range(len(pieces))] == pieces
    assert [kept[-i] for i in range(1, len(pieces) + 1)] == [
        pieces[-i] for i in range(1, len(pieces) + 1)
    ]
    assert kept[3:40:3] == pieces[3:40:3]
    assert kept.joined() == "".join(pieces)
    assert kept.joined(count) == "".join(pieces[:count])
    assert kept.head(count) == "".join(pieces)[:count]
    assert kept == pieces and kept == Pieces(pieces)


@_BIG_INPUTS
@given(
    st.lists(_piece, max_size=300),
    st.lists(_piece, max_size=80),
    st.integers(-320, 320),
    st.integers(-320, 320),
)
def test_pieces_slices_and_extend_are_a_lists(
    pieces: list[str], more: list[str], a: int, b: int
) -> None:
    """A slice is the list's, cut by the pieces' ends a block at a time (what a folded run's
    stretch reads); extending adds pieces as appending each does."""
    kept = Pieces(pieces)
    assert kept[a:b] == pieces[a:b] and kept[a:] == pieces[a:] and kept[:b] == pieces[:b]
    kept.extend(more)
    whole = pieces + more
    assert list(kept) == whole and kept[a:b] == whole[a:b]
    assert [kept[i] for i in range(len(whole))] == whole
    appended = Pieces()
    for piece in whole:
        appended.append(piece)
    assert (kept._blocks, list(kept._ends)) == (appended._blocks, list(appended._ends))


@_BIG_INPUTS
@given(st.lists(_piece, max_size=300), st.integers(0, 310), st.booleans())
def test_a_walk_from_any_piece_is_the_list_from_there(
    pieces: list[str], start: int, packed: bool
) -> None:
    """What a model reading a folded run one piece at a time walks: the pieces from
    ``start`` on, across blocks, big pieces and the pieces still pending."""
    kept = Pieces(pieces)
    if packed:
        kept.pack()
    assert list(kept.walk(start)) == pieces[start:]
    walker = kept.walk(start)
    assert [next(walker) for _ in pieces[start : start + 3]] == pieces[start : start + 3]


@_BIG_INPUTS
@given(st.lists(st.tuples(st.integers(0, 2), _piece), max_size=300), st.integers(0, 310))
def test_calls_sharing_one_log_read_back_their_own(sent: list[tuple[int, str]], count: int) -> None:
    log = Pieces()
    calls = [CallArgs(log), CallArgs(log), CallArgs(log)]
    want: list[list[str]] = [[], [], []]
    for c, piece in sent:
        calls[c].append(piece)
        want[c].append(piece)
    for kept, pieces in zip(calls, want, strict=True):
        assert len(kept) == len(pieces) and list(kept) == pieces
        assert [kept[i] for i in range(len(pieces))] == pieces and kept[1:9:2] == pieces[1:9:2]
        assert kept.joined() == "".join(pieces)
        assert kept.joined(count) == "".join(pieces[:count])
        assert kept.head(count) == "".join(pieces)[:count]
        assert kept == pieces
    assert [log.span(a, a + 70) for a in range(0, len(sent), 7)] == [
        "".join(p for _, p in sent[a : a + 70]) for a in range(0, len(sent), 7)
    ]
    assert [log.span_head(a, a + 70, count) for a in range(0, len(sent), 7)] == [
        "".join(p for _, p in sent[a : a + 70])[:count] for a in range(0, len(sent), 7)
    ]


@given(st.lists(_piece, max_size=300), st.integers(0, 5000), st.integers(0, 3))
def test_a_call_whose_pieces_follow_each_other_reads_its_head_back(
    pieces: list[str], count: int, before: int
) -> None:
    """A call's pieces one after the other in the log (read by their ends, not one by one),
    after other calls' pieces, pending or joined into blocks."""
    log = Pieces()
    other = CallArgs(log)
    for k in range(before * 40):
        other.append(str(k))
    call = CallArgs(log)
    for p in pieces:
        call.append(p)
    other.append("after")
    assert call.head(count) == "".join(pieces)[:count]
    assert other.head(count) == ("".join(str(k) for k in range(before * 40)) + "after")[:count]


def test_a_big_piece_is_kept_whole_not_copied() -> None:
    big = "x" * 100_000
    kept = Pieces(["a", "b", big, "c"])
    assert kept[2] is big
    assert Pieces([big]).joined() is big
    log = Pieces(["a"])
    args = CallArgs(log)
    args.append(big)
    assert args.joined() is big and args[0] is big


_value = st.one_of(
    st.just(UNSET),
    st.none(),
    st.sampled_from(["", "null", "call_1", "f"]),
    st.integers(-2, 2),
    st.booleans(),
    st.sampled_from([1.0, 0.0, -0.0]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
_args = st.one_of(_value, st.text(max_size=5))
_call = st.builds(
    ToolCall,
    index=_value,
    id=_value,
    type=_value,
    function=st.one_of(
        st.just(UNSET), st.none(), st.builds(Function, name=_value, arguments=_args)
    ),
)


def _exactly(call: ToolCall) -> bytes:
    """The call as JSON text with each value's type: ``1``, ``1.0``, ``true`` and ``-0.0``
    apart (``==`` on Structs would call them equal)."""
    return msgspec.json.encode(msgspec.to_builtins(call, builtin_types=()))


@given(st.lists(_call, max_size=40))
def test_wire_calls_read_back_each_call_as_sent(calls: list[ToolCall]) -> None:
    skeletons = Skeletons()
    args = CallArgs(Pieces())
    kept = WireCalls(skeletons, args)
    for call in calls:
        kept.append(call)
        fn = call.function
        if isinstance(fn, Function) and isinstance(fn.arguments, str):
            args.append(fn.arguments)
    assert len(kept) == len(calls)
    assert [_exactly(c) for c in kept] == [_exactly(c) for c in calls]
    assert [repr(c) for c in kept] == [repr(c) for c in calls]
    # read without the call made again: its identity and its arguments, exactly as sent
    for k, call in enumerate(calls):
        got, arguments = kept.sent(k)
        fn, gfn = call.function, got.function
        assert _exactly(ToolCall(got.index, got.id, got.type)) == _exactly(
            ToolCall(call.index, call.id, call.type)
        )
        if isinstance(fn, Function):
            assert isinstance(gfn, Function) and _exactly(Function(gfn.name, arguments)) == (
                _exactly(fn)
            )
        else:
            assert gfn is fn and arguments is UNSET


@_BIG_INPUTS
@given(st.lists(_piece, min_size=1, max_size=300), st.integers(-310, 310), st.integers(-310, 310))
def test_pieces_made_one_block_read_back_the_same(pieces: list[str], a: int, b: int) -> None:
    kept = Pieces(pieces)
    whole = kept.whole()
    assert whole == "".join(pieces) and kept.whole() is whole and kept.joined() is whole
    assert list(kept) == pieces and [kept[i] for i in range(len(pieces))] == pieces
    assert kept[a:b] == pieces[a:b] and kept.span(0, len(pieces)) == whole


@_BIG_INPUTS
@given(st.lists(_piece, max_size=300), st.integers(-310, 310), st.integers(-310, 310))
def test_pieces_kept_as_one_block_read_back_as_appended(pieces: list[str], a: int, b: int) -> None:
    kept = Pieces.one_block(pieces)
    assert list(kept) == pieces and [kept[i] for i in range(len(pieces))] == pieces
    assert kept[a:b] == pieces[a:b] and kept.joined() == "".join(pieces) == kept.whole()
    assert len(kept._blocks) == (1 if pieces else 0)


@_BIG_INPUTS
@given(
    st.lists(st.lists(_piece, min_size=1, max_size=40), min_size=2, max_size=4),
    st.lists(_piece, max_size=150),
)
def test_pieces_kept_as_one_block_then_appended_to_read_back_as_appended(
    blocks: list[list[str]], more: list[str]
) -> None:
    """Pieces kept as one block share what they keep alike until one is appended to: then
    it alone has the pieces appended, and the others are as they were."""
    kept = [Pieces.one_block(pieces) for pieces in blocks]
    for piece in more:
        kept[0].append(piece)
    kept[0].pack()
    assert list(kept[0]) == blocks[0] + more
    assert kept[0].joined() == "".join(blocks[0] + more)
    assert kept[0].span(1, len(blocks[0]) + len(more)) == "".join((blocks[0] + more)[1:])
    for k, pieces in enumerate(blocks[1:], 1):
        assert list(kept[k]) == pieces and kept[k].joined() == "".join(pieces)
        assert [kept[k][i] for i in range(len(pieces))] == pieces


@_BIG_INPUTS
@given(
    st.lists(_piece, max_size=300),
    st.lists(_piece, max_size=80),
    st.randoms(use_true_random=False),
)
def test_a_reader_reads_any_piece_in_any_order_as_a_look_up(
    pieces: list[str], more: list[str], rng: random.Random
) -> None:
    """What the client models' walk reads each delta's piece with: any piece, in order or
    not, across blocks, big pieces and the pieces still pending; pieces appended after the
    reader was made are read too (a capture being followed)."""
    kept = Pieces(pieces)
    read = kept.reader()
    order = list(range(len(pieces)))
    if rng.random() < 0.5:
        rng.shuffle(order)
    assert [read(k) for k in order] == [pieces[k] for k in order]
    kept.extend(more)
    whole = pieces + more
    assert [read(k) for k in range(len(whole))] == whole
    assert [read(-k) for k in range(1, len(whole) + 1)] == [
        whole[-k] for k in range(1, len(whole) + 1)
    ]
    with pytest.raises(IndexError):
        read(len(whole))


@given(
    st.lists(st.tuples(st.integers(0, 2), _call), max_size=60),
    st.randoms(use_true_random=False),
)
def test_calls_sent_through_one_sender_are_as_sent(
    sent: list[tuple[int, ToolCall]], rng: random.Random
) -> None:
    """Three calls' deltas interleaved in one log of pieces (as a trace keeps them), and a
    fourth kept as a plain list: each delta read through :func:`senders` gives what
    :meth:`WireCalls.sent` gives (the plain one: the call and its arguments), whichever order
    they are read in, pieces appended after it was made included."""
    skeletons = Skeletons()
    log = Pieces()
    calls = [WireCalls(skeletons, CallArgs(log)) for _ in range(3)]
    plain: list[ToolCall] = []

    def record(c: int, call: ToolCall) -> None:
        calls[c].append(call)
        fn = call.function
        if isinstance(fn, Function) and isinstance(fn.arguments, str):
            calls[c]._args.append(fn.arguments)
        plain.append(call)

    half = len(sent) // 2
    for c, call in sent[:half]:
        record(c, call)
    read = senders([*calls, plain])
    for c, call in sent[half:]:
        record(c, call)
    asked = [(c, k) for c in range(3) for k in range(len(calls[c]))]
    if rng.random() < 0.5:
        rng.shuffle(asked)
    for c, k in asked:
        got, want = read(c, k), calls[c].sent(k)
        assert got[0] is want[0] and got[1] == want[1] and type(got[1]) is type(want[1])
    for k, call in enumerate(plain):
        got = read(3, k)
        fn = call.function
        assert got[0] is call
        assert got[1] is (fn.arguments if isinstance(fn, Function) else UNSET)


@pytest.mark.parametrize("narrow", [1, 5, 12, 40])
def test_one_blocks_ends_widen_when_the_characters_outgrow_them(
    narrow: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ends of pieces kept as one block are kept narrow while the characters allow it
    (stood in for by a small limit), wide once appended pieces outgrow it."""
    from replay_tui.core import pieces as module

    monkeypatch.setattr(module, "_NARROW", narrow)
    first = ["abc", "de", "fghij"]
    more = ["k" * n for n in range(1, 30)]
    kept = Pieces.one_block(first)
    for piece in more:
        kept.append(piece)
    kept.pack()
    assert list(kept) == first + more and kept.joined() == "".join(first + more)
    assert kept._ends.typecode == ("q" if len(kept.joined()) >= narrow else "i")
