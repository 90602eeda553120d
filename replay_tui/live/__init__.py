"""Watching and following capture folders: file changes in, trace updates out.

``watch`` turns watchfiles' events into batches of :class:`~.watch.FileChange`; ``folder``
applies them to the traces under the roots (:class:`~.folder.LiveFolder`); ``follow`` reads
what was appended to one capture and feeds it to the same single pass that loads a file
(:class:`~.follow.LiveTrace`). Nothing here knows of Textual: the TUI and the recorder run it.
"""
