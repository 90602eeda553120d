"""Sequence alignment of hashable keys, fast enough for 100,000-item sequences.

:func:`align` returns ``difflib``-style opcodes. It trims the common prefix and suffix first
(two captures of one request mostly agree, so this usually leaves little), hands a small middle
to :class:`difflib.SequenceMatcher` (``autojunk`` off: repeated keys such as keep-alives must not
be junked), and a large one to a patience alignment: keys unique on both sides are anchors,
their longest increasing run fixes the matching, and the stretches between anchors are aligned
the same way, recursively. SequenceMatcher on 100,000 items can take minutes when keys repeat;
patience stays near-linear and resynchronises on any distinctive key.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Hashable, Sequence
from difflib import SequenceMatcher

__all__ = ["Opcode", "align"]

Opcode = tuple[str, int, int, int, int]
"""``(tag, i1, i2, j1, j2)`` as in :meth:`difflib.SequenceMatcher.get_opcodes`."""

# SequenceMatcher is used when the middle is at most this many items on the longer side.
_SMALL = 1500
_MAX_DEPTH = 48
_BITMAP = 1 << 23
"""Bits of the bitmap of b's key hashes (:func:`_anchors`): a megabyte, few false hits."""
_BITMAP_MASK = _BITMAP - 1


def align(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[Opcode]:
    """Opcodes turning ``a`` into ``b``, covering both sequences in order."""
    raw: list[Opcode] = []
    _align(a, 0, len(a), b, 0, len(b), raw, 0)
    return _merge(raw)


def _align(
    a: Sequence[Hashable],
    alo: int,
    ahi: int,
    b: Sequence[Hashable],
    blo: int,
    bhi: int,
    out: list[Opcode],
    depth: int,
) -> None:
    start_a, start_b = alo, blo
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        alo += 1
        blo += 1
    if alo > start_a:
        out.append(("equal", start_a, alo, start_b, blo))
    end_a, end_b = ahi, bhi
    while ahi > alo and bhi > blo and a[ahi - 1] == b[bhi - 1]:
        ahi -= 1
        bhi -= 1
    _middle(a, alo, ahi, b, blo, bhi, out, depth)
    if ahi < end_a:
        out.append(("equal", ahi, end_a, bhi, end_b))


def _middle(
    a: Sequence[Hashable],
    alo: int,
    ahi: int,
    b: Sequence[Hashable],
    blo: int,
    bhi: int,
    out: list[Opcode],
    depth: int,
) -> None:
    if alo == ahi and blo == bhi:
        return
    if alo == ahi:
        out.append(("insert", alo, alo, blo, bhi))
        return
    if blo == bhi:
        out.append(("delete", alo, ahi, blo, blo))
        return
    if max(ahi - alo, bhi - blo) <= _SMALL:
        sm = SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            out.append((tag, alo + i1, alo + i2, blo + j1, blo + j2))
        return
    anchors = _anchors(a, alo, ahi, b, blo, bhi) if depth < _MAX_DEPTH else []
    if not anchors:
        out.append(("replace", alo, ahi, blo, bhi))
        return
    i, j = alo, blo
    for ai, bj in anchors:
        _align(a, i, ai, b, j, bj, out, depth + 1)
        out.append(("equal", ai, ai + 1, bj, bj + 1))
        i, j = ai + 1, bj + 1
    _align(a, i, ahi, b, j, bhi, out, depth + 1)


def _anchors(
    a: Sequence[Hashable], alo: int, ahi: int, b: Sequence[Hashable], blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Positions of keys unique on both sides, longest run increasing on both (patience).

    On 100,000 keys a side this was the report's peak, so only what can be an anchor is
    remembered: a bitmap of the hashes in b (a megabyte) leaves out of the first dictionary
    the keys of a that b cannot have; each key's position is kept once (-1: it repeats), the
    pairs as columns."""
    in_b = bytearray(_BITMAP >> 3)
    for j in range(blo, bhi):
        h = hash(b[j]) & _BITMAP_MASK
        in_b[h >> 3] |= 1 << (h & 7)
    once_a: dict[Hashable, int] = {}  # a key's position in a, or -1: it repeats there
    for i in range(alo, ahi):
        k = a[i]
        h = hash(k) & _BITMAP_MASK
        if in_b[h >> 3] & (1 << (h & 7)):
            once_a[k] = -1 if k in once_a else i
    del in_b
    once_b: dict[Hashable, int] = {}  # the same in b, of the keys unique in a
    for j in range(blo, bhi):
        k = b[j]
        if once_a.get(k, -1) >= 0:
            once_b[k] = -1 if k in once_b else j
    # The pairs, in a's order: each key unique on both sides, where it is in a and in b.
    xs, ys = array("q"), array("q")
    for i in range(alo, ahi):
        k = a[i]
        if once_a.get(k, -1) == i:
            j = once_b.get(k, -1)
            if j >= 0:
                xs.append(i)
                ys.append(j)
    del once_a, once_b
    if not xs:
        return []
    # Longest increasing subsequence of the b positions (patience sorting).
    tails: list[int] = []  # b position ending the best run of each length
    tail_idx: list[int] = []
    back = array("q", bytes(8 * len(ys)))
    for n, bj in enumerate(ys):
        k = bisect_left(tails, bj)
        if k == len(tails):
            tails.append(bj)
            tail_idx.append(n)
        else:
            tails[k] = bj
            tail_idx[k] = n
        back[n] = tail_idx[k - 1] if k else -1
    run: list[tuple[int, int]] = []
    n = tail_idx[-1]
    while n >= 0:
        run.append((xs[n], ys[n]))
        n = back[n]
    run.reverse()
    return run


def _merge(ops: list[Opcode]) -> list[Opcode]:
    """Join adjacent opcodes of the same tag (and insert+delete into replace)."""
    out: list[Opcode] = []
    for op in ops:
        tag, i1, i2, j1, j2 = op
        if i1 == i2 and j1 == j2:
            continue
        if out:
            ptag, pi1, _, pj1, _ = out[-1]
            if ptag == tag or (ptag != "equal" and tag != "equal"):
                merged = tag if ptag == tag else "replace"
                out[-1] = (merged, pi1, i2, pj1, j2)
                continue
        out.append(op)
    return [_retag(op) for op in out]


def _retag(op: Opcode) -> Opcode:
    tag, i1, i2, j1, j2 = op
    if tag == "equal":
        return op
    if i1 == i2:
        return ("insert", i1, i2, j1, j2)
    if j1 == j2:
        return ("delete", i1, i2, j1, j2)
    return ("replace", i1, i2, j1, j2)
