"""Who a server on this machine answers: its own programs, not a web page elsewhere.

The recorder and the mock provider listen on loopback for the agents and tools of this
machine; ``serve`` for its browser. A page on another site can still reach a loopback port
from that browser: by a plain-text POST, which needs no preflight (the recorder would forward
it with the gateway's credentials), or by having its own name resolve to 127.0.0.1 (DNS
rebinding), which lets it read the answers too. What such a request carries gives it away:
a ``Host`` that names another machine, an ``Origin`` that is not this machine's. Pure: the
request is read through ``request.url.host`` and ``request.headers`` (aiohttp's).
"""

from __future__ import annotations

import errno
import ipaddress
import os
from typing import Any
from urllib.parse import urlsplit

from .visible import visible

__all__ = ["foreign_request", "is_loopback", "listen_error", "names_this_machine"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def names_this_machine(request: Any) -> bool:
    """Whether a request's ``Host`` names one of this machine's loopback addresses: what a
    browser on this machine, or at the end of an SSH tunnel, sends."""
    try:
        name = request.url.host  # (aiohttp's parse of the Host header: [::1]:8000 is ::1)
    except ValueError:  # a Host that is no host
        return False
    return bool(name) and is_loopback(name)


def foreign_request(request: Any, local_only: bool) -> str | None:
    """Why a request to a server for this machine's own programs (the recorder, the mock
    provider) comes from elsewhere, or None: served on loopback (``local_only``), a ``Host``
    that names another machine, or an ``Origin`` that is not this machine's. A program's HTTP
    client sends no ``Origin``; a page served from this machine (a dev server on localhost)
    is this machine's. Listening beyond loopback (``--allow-remote``), who may reach it is the
    user's network's business."""
    if not local_only:
        return None
    if not names_this_machine(request):
        return "the Host header names another machine"
    origin = request.headers.get("Origin")
    if origin is not None:
        try:
            host = urlsplit(origin).hostname or ""
        except ValueError:
            host = ""
        if not host or not is_loopback(host):
            return f"a page elsewhere sent it (Origin {visible(origin[:100])})"
    return None


def listen_error(exc: OSError, advice: str) -> str:
    """Why binding a listening socket failed, in words: asyncio's own message names the
    address as a Python tuple ("error while attempting to bind on address ('127.0.0.1',
    8000): address already in use"); the errno says it plainly, with what to do when the port
    is taken (``advice``: how the command picks another port)."""
    if exc.errno is None:
        return exc.strerror or str(exc)
    reason = os.strerror(exc.errno)
    if exc.errno == errno.EADDRINUSE:
        reason += f" (another program listens there: {advice})"
    return reason
