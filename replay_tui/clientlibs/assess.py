"""Which client libraries would break on a trace, and how, in words.

:func:`assess` runs a trace through every policy and compares what each library hands the
application with what the stream *meant* — the ``accept-identity`` assembly of the harness
(``trace.analysis.calls``): per wire index, the last non-empty ``id`` and ``name`` and the
concatenated arguments. A library is ``ok`` on a trace when it delivers every call with that
identity and those arguments, raises nothing and surfaces no error part. Anything else is said
in words: ``name doubled: get_weatherget_weather``, ``id erased to ""``, ``id generated``,
``call dropped``, ``throws AssertionError``…

A stream that never identified a call (no id at all) cannot be delivered "as meant": every
library then shows what it makes of the gap (``id is None``, ``id generated``, a refusal).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.indexed import Indexed
from ..core.result import let_go_later
from ..core.trace import gc_paused
from ..core.translator import Behavior, index_key
from ..core.wire import UNSET, describe_value, js_string
from .base import _SHARING, AssembledCall, Assembly, DroppedCall, Frame, Policy, Quiet, loads
from .compact import compact_frames

if TYPE_CHECKING:
    from ..core.identity import CallTrace
    from ..core.trace import Trace

__all__ = [
    "CallOutcome",
    "ClientOutcome",
    "MeantCall",
    "assess",
    "assess_frames",
    "breaking",
    "meant_calls",
]


_NOT_JSON: Any = object()


@dataclass(slots=True)
class MeantCall:
    """A tool call as the stream meant it (the harness's accept-identity assembly)."""

    wire_index: Any
    id: Any
    """The last non-empty string id, or ``UNSET`` when the stream never sent one."""
    name: Any
    arguments: str
    line: int
    """Line of the call's first delta."""
    part: int = 0
    """Which of the calls meant at this wire index (a reused index carries several)."""
    _parsed: Any = field(default=UNSET, compare=False, repr=False)
    """:attr:`arguments` as a library that parses them compares them (:meth:`parsed`)."""
    _delivered: AssembledCall | None = field(default=None, compare=False, repr=False)
    """The call as a library that delivers it as meant hands it over (:meth:`delivered`)."""
    _pooled_in: dict[str, str] | None = field(default=None, compare=False, repr=False)
    """The pool the long strings of :attr:`_parsed` were last pooled in (the TUI judges one
    library at a time, each with the model's one pool: the parse is pooled once, not after
    every library)."""

    def delivered(self) -> AssembledCall:
        """The call as a library hands it over when it delivers it as meant (its index a
        number, its id and name strings, its arguments text): one object shared by every
        such library's outcome (an agent loop's 5,000 calls, a dozen libraries)."""
        if self._delivered is None:
            self._delivered = AssembledCall(
                self.id, self.name, self.arguments, wire_index=self.wire_index
            )
        return self._delivered

    def parsed(self) -> Any:
        """The arguments as :func:`_arguments_problem` parses them, once for every library
        that hands over parsed arguments (``UNSET``: not JSON)."""
        if self._parsed is UNSET:
            parsed = _parsed_meant(self.arguments)
            self._parsed = _NOT_JSON if parsed is UNSET else parsed
        return UNSET if self._parsed is _NOT_JSON else self._parsed


def _parsed_meant(arguments: str) -> Any:
    """Meant arguments as a library's parsed ones are compared with (blank: ``{}``;
    ``UNSET``: not JSON)."""
    try:
        return loads(arguments) if arguments.strip() else {}
    except ValueError:
        return UNSET


@dataclass(slots=True)
class CallOutcome:
    """What one library makes of one meant call."""

    meant: MeantCall
    got: list[AssembledCall]
    """What the library hands over for it: nothing, one call, or the pieces it split it into."""
    dropped: DroppedCall | None = None
    """What the library assembled and then left out, when it did."""
    problems: list[str] = field(default_factory=list)
    delivered: bool = True
    """False when the library raised, so that nothing reaches the application."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def outcome(self) -> str:
        return ", ".join(self.problems) if self.problems else "ok"


@dataclass(slots=True)
class ClientOutcome:
    """One library on one trace."""

    policy: Policy
    assembly: Assembly
    calls: Sequence[CallOutcome]
    """One per meant call, in the stream's order (made when read, for a library that
    delivered every call as meant: 5,000 calls, 18 libraries)."""
    extra: list[AssembledCall]
    """Calls the library hands over that match no meant call."""
    ok: bool
    outcome: str

    @property
    def cause(self) -> str:
        """The field that made the library throw (or, else, surface its first error part) and
        the payload's line, in words (``""``: none did, or no one field)."""
        a = self.assembly
        for err in [a.raised] if a.raised is not None else a.error_parts:
            said = err.explained()
            if said:
                return said
        return ""

    def json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "outcome": self.outcome}
        cause = self.cause
        if cause:
            out["cause"] = cause
        return out


def meant_calls(calls: Iterable[CallTrace]) -> list[MeantCall]:
    """The calls the stream meant (docs/clients.md, "What the outcome words mean").

    Per wire index, the accept-identity assembly (the last non-empty string ``id`` and
    ``name``), except that the string ``"null"`` arriving after a real id or name is a
    gateway's stringified null and means null; and a new non-empty id arriving where the call
    already has an id and complete JSON arguments starts a new call (the ``index-reused``
    note). Only deltas that carry a non-empty string id or name are looked at closely, so a
    100,000-delta call costs one cheap test per delta.
    """
    out: list[MeantCall] = []
    for ct in calls:
        if (ct.id_accept is UNSET and ct.name_accept is UNSET) or _settled(ct):
            # no id or name, or each took its value once and kept it (what the analysis'
            # record of identity changes says): the accept-identity values are the ones meant
            out.append(
                MeantCall(ct.wire_index, ct.id_accept, ct.name_accept, ct.arguments, ct.first_line)
            )
            continue
        current = MeantCall(ct.wire_index, UNSET, UNSET, "", ct.first_line)
        pieces: list[str] = []
        for line, call in zip(ct.lines, ct.calls, strict=True):
            fn = call.function
            cid = call.id
            name = fn.name if fn else UNSET
            if type(cid) is str and cid and cid != current.id:
                if cid == "null" and current.id is not UNSET:
                    pass  # a stringified null after a real id
                elif current.id is not UNSET and _complete_json(pieces):
                    current.arguments = "".join(pieces)
                    out.append(current)
                    current = MeantCall(ct.wire_index, cid, UNSET, "", line, current.part + 1)
                    pieces = []
                else:
                    current.id = cid
            if (
                type(name) is str
                and name
                and name != current.name
                and not (name == "null" and current.name is not UNSET)
            ):
                current.name = name
            if fn:
                args = fn.arguments
                if type(args) is str:
                    pieces.append(args)
                elif args is not UNSET and args is not None:
                    pieces.append(js_string(args))
        current.arguments = "".join(pieces)
        out.append(current)
    return _MeantCalls(out)


def _settled(ct: CallTrace) -> bool:
    """The call's accept-identity ``id`` and ``name`` each changed at most once (arrived, and
    stayed): no stringified null came after them and no new id reused the index."""
    history = getattr(ct, "history", None)
    if not isinstance(history, dict):
        return False
    try:
        ids = history[Behavior.ACCEPT_IDENTITY, "id"].at
        names = history[Behavior.ACCEPT_IDENTITY, "name"].at
    except (KeyError, AttributeError):
        return False
    return len(ids) <= 1 and len(names) <= 1


def _complete_json(pieces: list[str]) -> bool:
    text = "".join(pieces)
    if not text.strip():
        return False
    try:
        loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def assess(trace: Trace, policies: Iterable[Policy] | None = None) -> dict[str, ClientOutcome]:
    """Run ``trace`` through every policy (default: all of them, in display order).

    The cyclic garbage collector is paused meanwhile, as while loading: the models allocate a
    few small objects per call and per library, none in a cycle, and with 5,000 calls beside a
    loaded trace its passes cost more than the models themselves."""
    with gc_paused():
        stream = compact_frames(trace)
        return assess_frames(stream, meant_calls(trace.analysis.calls), policies)


def assess_json(trace: Trace) -> dict[str, Any]:
    """:func:`assess`, as ``check --clients`` reports it: ``{policy key: {"ok", "outcome"}}``
    (and ``"cause"`` when a field made the library throw)
    (picklable, for a worker process or a cluster to send back)."""
    with gc_paused():
        stream = compact_frames(trace)
        outcomes = assess_frames(stream, meant_calls(trace.analysis.calls), lean=True)
        let_go_later(stream, outcomes)  # (with the trace, not now: see let_go_later)
    return {key: outcome.json() for key, outcome in outcomes.items()}


def assess_frames(
    stream: Sequence[Frame | Quiet],
    meant: list[MeantCall],
    policies: Iterable[Policy] | None = None,
    *,
    pool: dict[str, str] | None = None,
    lean: bool = False,
) -> dict[str, ClientOutcome]:
    """Each policy's outcome on ``stream``. ``pool``: long strings kept once across calls (the
    TUI assesses one policy at a time); ``lean``: only ``ok`` and ``outcome`` are wanted (the
    outcome of a library that delivered every call as meant lists no :class:`CallOutcome`)."""
    if policies is None:
        from . import POLICIES

        policies = POLICIES.values()
    wanted = _wanted(meant)
    if lean:  # (nothing is kept: no string to share)
        return {p.key: _judge(p, p.run(stream), meant, wanted, lean) for p in policies}
    if pool is None:
        pool = {}
    least = _POOLED
    for m in meant:  # (the TUI asks for one policy at a time: 5,000 calls, 18 times)
        a = m.arguments
        if len(a) >= least:
            m.arguments = pool.setdefault(a, a)
    out: dict[str, ClientOutcome] = {}
    share = _sharing(pool)
    for p in policies:
        token = _SHARING.set(share)  # (each call pooled as the library hands it over)
        try:
            assembly = p.run(stream)
        finally:
            _SHARING.reset(token)
        out[p.key] = _judge(p, _shared(assembly, pool), meant, wanted, lean)
        if pool:  # (a long string met: 5 MB arguments)
            # A meant call's parse, once made, shares the long strings a library's holds,
            # made now, not at the end: the pool keeps the library's, so the parse's own
            # copy would be held beside it while the other libraries run (once per pool)
            for m in meant:
                if m._pooled_in is not pool and type(m._parsed) in (dict, list):
                    _pooled_values(m._parsed, pool, 3)
                    m._pooled_in = pool
    return out


_POOLED = 1024
"""Strings at least this long that several libraries hand over alike are kept once."""


def _pooled(value: Any, pool: dict[str, str]) -> Any:
    if type(value) is str and len(value) >= _POOLED:
        return pool.setdefault(value, value)
    return value


def _pooled_values(value: Any, pool: dict[str, str], depth: int) -> None:
    """The long strings in parsed arguments (a few levels down) pooled in place: three
    libraries hand over parsed arguments, each its own copy of a 5 MB value."""
    if depth <= 0:
        return
    if type(value) is dict:
        for key, item in value.items():
            if type(item) is str:
                value[key] = _pooled(item, pool)
            elif type(item) in (dict, list):
                _pooled_values(item, pool, depth - 1)
    elif type(value) is list:
        for k, item in enumerate(value):
            if type(item) is str:
                value[k] = _pooled(item, pool)
            elif type(item) in (dict, list):
                _pooled_values(item, pool, depth - 1)


def _sharing(pool: dict[str, str]) -> Callable[[AssembledCall], None]:
    """What pools one call's long strings in ``pool`` (see :func:`.base.handed_over`)."""

    def share(c: AssembledCall) -> None:
        a, i, n = c.arguments, c.id, c.name
        if type(a) is str and len(a) >= _POOLED:
            c.arguments = pool.setdefault(a, a)
        if type(i) is str and len(i) >= _POOLED:
            c.id = pool.setdefault(i, i)
        if type(n) is str and len(n) >= _POOLED:
            c.name = pool.setdefault(n, n)
        if c.parsed is not UNSET:
            _pooled_values(c.parsed, pool, 3)

    return share


def _shared(assembly: Assembly, pool: dict[str, str]) -> Assembly:
    """``assembly`` with each long string it hands over (arguments, a name concatenated
    100,000 times) replaced by the equal one an earlier library or the meant call holds: the
    outcomes of 18 libraries keep one copy of a 5 MB arguments string, not 18."""
    share = _sharing(pool)
    for c in assembly.calls:
        share(c)
    for d in assembly.dropped:
        d.arguments = _pooled(d.arguments, pool)
        d.id = _pooled(d.id, pool)
        d.name = _pooled(d.name, pool)
    return assembly


def breaking(outcomes: dict[str, ClientOutcome], kind: str = "library") -> list[str]:
    """Keys of the policies of ``kind`` that are not ok."""
    return [k for k, o in outcomes.items() if o.policy.kind == kind and not o.ok]


def _key(value: Any) -> Any:
    key = index_key(value)
    return UNSET if key is None else key


def _judge(
    policy: Policy,
    assembly: Assembly,
    meant: list[MeantCall],
    wanted: _Wanted | None = None,
    lean: bool = False,
) -> ClientOutcome:
    many = len(meant) > 1
    if assembly.raised is not None:
        err = assembly.raised
        lost = _Lost(meant, f"not delivered ({err.name})")
        return ClientOutcome(policy, assembly, lost, [], False, f"{err.verb} {err.said()}")

    if not assembly.dropped and len(assembly.calls) == len(meant):
        if wanted is None:
            wanted = _wanted(meant)
        fast = _as_meant(policy, assembly, meant, wanted, lean)
        if fast is not None:
            return fast
    groups: list[list[AssembledCall]] = [[] for _ in meant]
    merged: dict[int, int] = {}  # meant call -> how many later meant calls the library merged in
    absorbed: set[int] = set()  # meant calls merged into the one before
    sharing: dict[Any, list[int]] = {}
    for i, m in enumerate(meant):
        sharing.setdefault(_key(m.wire_index), []).append(i)
    # the library's calls by index, in its order (one pass: a library that splits every
    # interleaved delta into a call of its own hands over 100,000 of them)
    by_key: dict[Any, list[AssembledCall]] = {}
    keys = [w if type(w) is int else _key(w) for w in (c.wire_index for c in assembly.calls)]
    for key, c in zip(keys, assembly.calls, strict=True):
        by_key.setdefault(key, []).append(c)
    pending = [c for key, c in zip(keys, assembly.calls, strict=True) if key not in sharing]
    pending.reverse()  # taken from the end: the first left over is the last item
    for key, share in sharing.items():
        mine = by_key.get(key, [])
        # the library's calls at an index go to the calls meant there, in order; the last
        # meant one takes what is left over (a split), or the last call covers several (merged)
        for j, i in enumerate(share):
            if j < len(mine):
                groups[i] = mine[j : j + 1] if j < len(share) - 1 else mine[j:]
            elif mine:
                absorbed.add(i)
        if mine and len(mine) < len(share):
            merged[share[len(mine) - 1]] = len(share) - len(mine)
    # a library that files calls under another index (a missing index read as 0): pair the
    # leftovers in order
    for i, mine in enumerate(groups):
        if not mine and pending:
            groups[i] = [pending.pop()]
            absorbed.discard(i)
    pending.reverse()

    calls: list[CallOutcome] = []
    dropped = list(assembly.dropped)
    for i, (m, got) in enumerate(zip(meant, groups, strict=True)):
        co = CallOutcome(m, got)
        if len(got) == 1:
            valid = [] if got[0].invalid else got
        else:
            valid = [c for c in got if not c.invalid]
        if not got and i in absorbed:
            co.problems.append("merged into the call before")
        elif not valid:
            drop = next((d for d in dropped if _key(d.wire_index) == _key(m.wire_index)), None)
            if drop is None and dropped and not got:
                drop = dropped[0]
            if drop is not None:
                dropped.remove(drop)
            co.dropped = drop
            if got:
                co.problems.append("call dropped (set aside as invalid_tool_calls)")
            else:
                co.problems.append(f"call dropped ({drop.reason})" if drop else "call dropped")
        elif len(got) > 1:
            co.problems.append(f"split into {len(got)} calls")
        else:
            one = valid[0]
            if not (  # (most calls come out as meant: said without the comparisons below)
                one.parsed is UNSET
                and not one.id_generated
                and type(one.id) is str
                and type(m.id) is str
                and one.id == m.id
                and type(one.name) is str
                and type(m.name) is str
                and one.name == m.name
                and one.arguments == m.arguments
            ):
                co.problems.extend(_differences(one, m))
        if i in merged and len(valid) == 1:
            # what differs is the merge's doing: say what the one call came out as
            n = merged[i]
            one = valid[0]
            co.problems = [
                ("merged with the next call" if n == 1 else f"merged with the next {n} calls")
                + f" into one ({_show(one.id)} {_show(one.name)})"
            ]
        calls.append(co)

    problems: list[str] = []
    for co in calls:
        if co.problems:
            prefix = f"call {_label(co.meant)}: " if many else ""
            problems.append(prefix + co.outcome)
    for c in pending:
        problems.append(f"extra call ({_show(c.id)} {_show(c.name)})")
    counts: dict[str, int] = {}
    for err in assembly.error_parts:
        counts[err.name] = counts.get(err.name, 0) + 1
    for name, n in counts.items():
        problems.append(f"error part {name}" + (f" ×{n}" if n > 1 else ""))
    text = "; ".join(problems) if problems else "ok"
    return ClientOutcome(policy, assembly, calls, pending, not problems, text)


_Wanted = list[tuple[type, int, str, str, str, bool] | None]


class _MeantCalls(list[MeantCall]):
    """:func:`meant_calls`' list, keeping its :func:`_wanted` once made (the TUI judges one
    library at a time: 5,000 calls' tuples made once, not 18 times)."""

    __slots__ = ("wanted",)
    wanted: _Wanted


def _wanted(meant: list[MeantCall]) -> _Wanted:
    """Each meant call as :func:`_as_meant` compares it: ``(int, wire index, id, name,
    arguments, False)`` when the index is a number and the id and name strings (``None``:
    never as meant there); :func:`_probe` is what a library's call must equal."""
    if type(meant) is _MeantCalls:
        try:
            return meant.wanted
        except AttributeError:
            meant.wanted = _made_wanted(meant)
            return meant.wanted
    return _made_wanted(meant)


def _made_wanted(meant: list[MeantCall]) -> _Wanted:
    return [
        (int, m.wire_index, m.id, m.name, m.arguments, False)
        if type(m.wire_index) is int and type(m.id) is str and type(m.name) is str
        else None
        for m in meant
    ]


def _probe(calls: list[AssembledCall]) -> list[tuple[type, Any, Any, Any, Any, bool]]:
    """Each call as :func:`_wanted` says a call delivered as meant is: the type of its index
    (an ``int``, not ``True`` or ``1.0``), its index, id, name and arguments (an equal string
    is a string), and whether it is set aside, its id made up or its arguments parsed (one
    comprehension for 5,000 calls instead of a Python step of tests per call)."""
    unset = UNSET
    return [
        (
            type(c.wire_index),
            c.wire_index,
            c.id,
            c.name,
            c.arguments,
            c.invalid or c.id_generated or c.parsed is not unset,
        )
        for c in calls
    ]


def _as_meant(
    policy: Policy,
    assembly: Assembly,
    meant: list[MeantCall],
    wanted: _Wanted,
    lean: bool = False,
) -> ClientOutcome | None:
    """The outcome when the library handed over every call as meant, in the stream's order
    (what :func:`_judge` would find, without its bookkeeping: 5,000 calls, 18 libraries);
    ``None`` at the first call that is not. ``lean``: the outcome lists no calls."""
    calls = assembly.calls
    parsing = False
    if _probe(calls) != wanted:  # (equal: every call as meant, no arguments parsed)
        for c, want in zip(calls, wanted, strict=True):
            if (
                want is None
                or c.invalid
                or c.id_generated
                or type(c.wire_index) is not int
                or type(c.id) is not str
                or type(c.name) is not str
            ):
                return None
            if c.parsed is UNSET:
                if (c.wire_index, c.id, c.name, c.arguments) != want[1:5]:
                    return None
            else:
                parsing = True
                if (c.wire_index, c.id, c.name) != want[1:4]:
                    return None
    if parsing:
        # parsed arguments (LangChain, Haystack): as meant when equal to the meant call's,
        # parsed once for every such library (what _arguments_problem compares)
        for c, m in zip(calls, meant, strict=True):
            if c.parsed is not UNSET:
                want_parsed = m.parsed()
                if want_parsed is UNSET or want_parsed != c.parsed:
                    return None
    if not lean:  # (lean: the outcome keeps no call)
        for k, (c, m) in enumerate(zip(calls, meant, strict=True)):
            # equal: the meant call's, shared by every library that delivers it so (with its
            # strings), the library's own copies let go; parsed arguments that are the meant
            # call's parse value for value and type, that parse
            if c.parsed is UNSET:
                calls[k] = m.delivered()
                continue
            c.id, c.name = m.id, m.name
            want = m.parsed()
            if c.parsed is not want and _same_json(c.parsed, want):
                c.parsed = want
    outcomes: Sequence[CallOutcome] = [] if lean else _AsMeant(meant, calls)
    counts: dict[str, int] = {}
    for err in assembly.error_parts:
        counts[err.name] = counts.get(err.name, 0) + 1
    problems = [f"error part {n}" + (f" ×{k}" if k > 1 else "") for n, k in counts.items()]
    text = "; ".join(problems) if problems else "ok"
    return ClientOutcome(policy, assembly, outcomes, [], not problems, text)


def _same_json(a: Any, b: Any) -> bool:
    """The same JSON value as shown: the same types (``1``, ``1.0`` and ``true`` apart), keys
    in the same order, ``-0.0`` apart from ``0.0`` (``==`` says all of those are equal)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(_same_json(v, b[k]) for k, v in a.items())
    if type(a) is list:
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


class _Made(Indexed[CallOutcome]):
    """Per-call outcomes made when read (a library's 5,000 calls: none made for ``check``)."""

    __slots__ = ("_meant",)

    def __init__(self, meant: list[MeantCall]) -> None:
        self._meant = meant

    def __len__(self) -> int:
        return len(self._meant)


class _Lost(_Made):
    """The calls of a library that raised: none delivered."""

    __slots__ = ("_problem",)

    def __init__(self, meant: list[MeantCall], problem: str) -> None:
        super().__init__(meant)
        self._problem = problem

    def _at(self, index: int) -> CallOutcome:
        return CallOutcome(self._meant[index], [], problems=[self._problem], delivered=False)


class _AsMeant(_Made):
    """The calls of a library that delivered each as meant."""

    __slots__ = ("_calls",)

    def __init__(self, meant: list[MeantCall], calls: list[AssembledCall]) -> None:
        super().__init__(meant)
        self._calls = calls

    def _at(self, index: int) -> CallOutcome:
        return CallOutcome(self._meant[index], [self._calls[index]])


def _label(m: MeantCall) -> str:
    """``0``, or ``0 #2`` for the second call meant at a reused wire index."""
    index = describe_value(m.wire_index)
    return f"{index} #{m.part + 1}" if m.part else index


def _show(value: Any) -> str:
    if value is None:
        return "None"
    if value == "null":
        return '"null"'  # the string, not the null (shown as None)
    if isinstance(value, str):
        return (
            value
            if value and value.isprintable() and len(value) <= 60
            else (json.dumps(value[:57] + "…" if len(value) > 60 else value))
        )
    return describe_value(value)


def _repeated(got: str, meant: str) -> int:
    """How many times ``meant`` is repeated to make ``got`` (0: it is not a repetition)."""
    if not meant or len(got) % len(meant):
        return 0
    k = len(got) // len(meant)
    return k if k > 1 and meant * k == got else 0


_TIMES = {2: "doubled", 3: "tripled"}


def _identity_problem(fld: str, got: Any, meant: Any, generated: bool) -> str | None:
    if generated:
        return f"{fld} generated"
    if meant is not UNSET and got == meant and type(got) is type(meant):
        return None
    if meant is UNSET:
        return f"{fld} is {_show(got)}"
    if got is None:
        return f"{fld} erased to None"
    if got == "":
        return f'{fld} erased to ""'
    if isinstance(got, str) and isinstance(meant, str):
        k = _repeated(got, meant)
        if k:
            return f"{fld} {_TIMES.get(k, f'repeated {k}×')}: {_show(got)}"
        if meant in got:
            return f"{fld} concatenated: {_show(got)}"
    return f"{fld} {_show(got)} instead of {_show(meant)}"


def _differences(got: AssembledCall, meant: MeantCall) -> list[str]:
    out = []
    for fld, value, want, generated in (
        ("id", got.id, meant.id, got.id_generated),
        ("name", got.name, meant.name, False),
    ):
        problem = _identity_problem(fld, value, want, generated)
        if problem:
            out.append(problem)
    problem = _arguments_problem(got, meant.arguments)
    if problem:
        out.append(problem)
    return out


def _arguments_problem(got: AssembledCall, meant: str) -> str | None:
    if got.parsed is not UNSET:
        want = _parsed_meant(meant)
        if want is not UNSET:
            return None if want == got.parsed else f"arguments differ: {_short(got.arguments)}"
    args = got.arguments
    if args == meant or (args in ("", "{}", None) and meant in ("", "{}")):
        return None
    if args is None or args == "":
        return "arguments lost"
    if isinstance(args, str) and meant.startswith(args):
        return f"arguments truncated: {_short(args)}"
    return f"arguments differ: {_short(args)}"


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else describe_value(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
