"""Directory watching with watchdog (inotify on Linux): events arrive on watchdog's thread.

Used by the daemon's git service (`idea_daemon/git_service.py`), which moves each event to
its loop and coalesces them.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer


class _Forward(FileSystemEventHandler):
    def __init__(self, on_event: Callable[[str], None]) -> None:
        self.on_event = on_event

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return  # reads (git status opening files) change nothing
        path = event.src_path
        self.on_event(os.fsdecode(path) if isinstance(path, bytes) else path)


class DirectoryWatch:
    """A recursive watch of `root` until `stop()`."""

    def __init__(self, root: str, on_event: Callable[[str], None]) -> None:
        self._observer = Observer()
        self._observer.daemon = True
        self._observer.schedule(_Forward(on_event), root, recursive=True)
        self._observer.start()

    def stop(self) -> None:
        self._observer.stop()
        # No join: the observer thread ends on its own; joining could wait on the loop.


def watch_directory(root: str, on_event: Callable[[str], None]) -> DirectoryWatch:
    return DirectoryWatch(root, on_event)
