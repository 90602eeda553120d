"""Sharing a finding: a report for the bug tracker, a minimal reproducer, the TUI in a browser.

A shell over the pure core, like the CLI: :mod:`.report` builds what a report says from a
judged trace, :mod:`.html` and :mod:`.markdown` write it out (escaping every byte of trace
content), :mod:`.minimize` shrinks a capture by delta debugging while its finding holds, and
:mod:`.serve` runs the TUI through textual-serve. Nothing here but :mod:`.serve` (which starts
the TUI in a subprocess) knows about Textual.
"""

from __future__ import annotations

from .export import deliver_notice, export_notice, export_report

# The submodules are not shadowed by functions of the same name: ``replay_tui.share.minimize``
# is the module, its function is ``replay_tui.share.minimize.minimize``.
__all__ = ["deliver_notice", "export_notice", "export_report"]
