"""The widgets of the TUI, one per file."""
