"""The Textual shell over :mod:`replay_tui.core`: it renders what the core computed."""
