"""What the TUI does with the paths it opens, without a screen: the walk, the judgement cache,
judging the listed files in the process pool, and following captures still being written.
The app (``replay_tui.tui.app``) runs these in its workers and routes what they give to the
list and the views."""
