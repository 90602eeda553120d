"""A read-only sequence whose items are made when asked for.

The record every view reads is kept compact (arrays, references) and turned back into items
one at a time: payloads, chunks, aligned chunk pairs, delta rows. Each of those is a
:class:`Indexed` that says how long it is and how to make item ``i``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

__all__ = ["Indexed"]

T = TypeVar("T")


class Indexed(Sequence[T]):
    """``__len__`` and ``_at(i)`` (``0 <= i < len``) make the rest of a sequence."""

    __slots__ = ()

    def __len__(self) -> int:
        raise NotImplementedError

    def _at(self, index: int) -> T:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._at(index)

    def __iter__(self) -> Iterator[T]:
        return map(self._at, range(len(self)))
