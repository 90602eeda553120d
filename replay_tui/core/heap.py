"""The process's allocator, set for captures of tens of megabytes."""

from __future__ import annotations

import sys

__all__ = ["BIG_BLOCK", "big_blocks_apart"]

BIG_BLOCK = 4 * 1024 * 1024
"""Bytes from which a block is mapped on its own (glibc's ``M_MMAP_THRESHOLD``)."""
_M_MMAP_THRESHOLD = -3
_set = False


def big_blocks_apart() -> None:
    """Have glibc's ``malloc`` map every block of :data:`BIG_BLOCK` or more on its own, so that
    a huge string or buffer, once let go, is given back to the system at once. Left to itself
    the threshold rises to the size of the largest mapped block freed (up to 32 MB): the 6 MB
    arguments string a client library makes and lets go then comes from the heap, and its
    memory stays resident, unused, while the process holds what came after it (huge-5mb with
    every view: 3.20x the file resident for 2.67x allocated; 2.87x once set). Once per process;
    a no-op but with glibc. Blocks of a megabyte (a framing window) stay in the heap, reused
    without a page fault.

    Not a gain everywhere: huge-50mb with every view is 2.94x resident with it (2.68x to 2.91x
    without), and ``report`` of it 2.94x (2.32x without), which is why only the TUI's loader
    sets it, not ``report``."""
    global _set
    if _set or not sys.platform.startswith("linux"):
        return
    _set = True
    try:
        import ctypes  # (5 ms to import: not before a first screen)

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has none)
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt(_M_MMAP_THRESHOLD, BIG_BLOCK)
