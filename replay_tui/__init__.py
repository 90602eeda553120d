"""replay-tui: replay captured LLM-gateway SSE traces; see where tool-call identity was erased."""

__version__ = "0.1.0"
