"""Test helpers: real resources (the `idea` binary, tmux, an in-process daemon) and fakes."""
