"""Opening a capture without trusting what the path names by the time it is opened.

The walk lists a regular file; by the time it is read, something else may stand at that path:
a named pipe (``open`` would wait for a writer for ever), a device (``/dev/zero`` reads for
ever). Every read of a listed capture goes through :func:`open_regular`: the file is opened
without blocking (``O_NONBLOCK``), and what was actually opened is checked (``fstat``) before
a byte is read.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["NotRegularFile", "open_regular", "read_regular"]

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_FLAGS |= getattr(os, "O_NOCTTY", 0)  # a terminal device never becomes this process's tty

_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


class NotRegularFile(OSError):
    """What was opened is not a regular file (a pipe, a device, a socket, a folder)."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        super().__init__(errno.EINVAL, f"not a regular file ({kind})", os.fspath(path))
        self.kind = kind


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading in binary mode, without blocking on a named pipe; raises
    :class:`NotRegularFile` (an ``OSError``) when it is not a regular file, else the
    ``OSError`` of the open."""
    fd = os.open(path, _FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path) -> bytes:
    """The whole of the regular file ``path`` (see :func:`open_regular`)."""
    with open_regular(path) as fh:
        return fh.read()
