"""Gateway conformance: serve captures as a mock provider, probe a gateway with them.

- :mod:`.captures` — what a capture is when it is served: its events' bytes, its timing, the
  completion it assembles to (pure Python, no aiohttp).
- :mod:`.upstream` — ``replay-tui upstream``: a mock OpenAI-compatible provider (aiohttp) that
  streams the captures.
- :mod:`.probe` — ``replay-tui probe``: each capture through a gateway pointed at the mock
  provider, what came out saved as a capture and compared with what went in.
"""
