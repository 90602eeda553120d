"""``replay-tui record``: a recording reverse proxy that writes live SSE captures.

Point an agent's base URL at the recorder; it forwards every request to the real gateway,
streams each response back untouched, and appends every ``text/event-stream`` response to a
capture file (with a ``.meta.json`` sidecar) in the output folder as the bytes arrive.
"""

from replay_tui.record.proxy import DEFAULT_LISTEN, Capture, Recorder, RecorderError

__all__ = ["DEFAULT_LISTEN", "Capture", "Recorder", "RecorderError"]
