"""Untrusted text made safe to show: control characters become visible escapes.

Trace content, file names and header values come from captures nobody vetted. A terminal
would act on ESC sequences (cursor movement, OSC 52 clipboard writes, hyperlinks) and a
markup-aware renderer on ``[bold]``-style tags; both are defused where text is displayed:
this module for control characters, and the TUI by never parsing content as markup.
"""

from __future__ import annotations

import re

__all__ = ["visible"]

# C0 controls except tab and newline (handled by the callers' layout), DEL, C1 controls,
# the bidirectional overrides that can make text read differently than it is, and lone
# surrogates (a JSON "\ud800" escape, or a file name that is not UTF-8), which no terminal
# can be sent: writing one raises UnicodeEncodeError. And the invisible format characters
# (zero-width space and joiners, direction marks, word joiner and invisible operators, line
# and paragraph separators, the byte-order mark, soft hyphen, interlinear annotation marks):
# in a name they make ``get\u200b_weather`` read as ``get_weather`` while the registry says
# ``unknown tool``.
_INVISIBLE = "\xad\u061c\u180e\u200b-\u200f\u2028\u2029\u2060-\u2064\ufeff\ufff9-\ufffb"
_CONTROL = re.compile(
    f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff{_INVISIBLE}]"
)
_CONTROL_ALL = re.compile(
    f"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff{_INVISIBLE}]"
)
_NAMES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
"""JSON's own escapes; every other control is ``\\u`` and four hex digits, as JSON writes it,
so a value reads the same in a table, a detail pane and ``--json`` output."""


def _escape(m: re.Match[str]) -> str:
    ch = m.group()
    named = _NAMES.get(ch)
    if named is not None:
        return named
    return f"\\u{ord(ch):04x}"


def visible(text: str, *, keep_layout: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\u001b``, ``\\n``).

    ``keep_layout`` leaves tabs and newlines alone (for multi-line views).
    """
    pattern = _CONTROL if keep_layout else _CONTROL_ALL
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)
