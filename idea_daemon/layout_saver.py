"""Writing projects' `layouts.json` after a burst of edits, not on every one of them.

A border dragged with the mouse changes the tree ~30 times a second; writing (and fsyncing)
the file each time would block the loop that also reads every PTY. Edits mark the project
as unsaved; the file is written once the edits stop for `QUIET` seconds, and never later
than `LONGEST` seconds after the first unsaved edit (a drag that goes on and on is still
saved as it goes). Each write stays atomic (`adapters.store.atomic`). `flush` writes what
is pending at once: the daemon calls it when it stops, before it answers a detach, and
when a project closes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from core.errors import StoreError
from idea_daemon.ports import LayoutStorePort
from idea_daemon.runtime import ProjectRuntime

log = logging.getLogger(__name__)

QUIET = 0.25
LONGEST = 1.0


class LayoutSaver:
    """Coalesced, atomic saves of the open projects' layouts."""

    def __init__(self, store: LayoutStorePort,
                 on_failure: Callable[[ProjectRuntime, StoreError], None]) -> None:
        self._store = store
        self._on_failure = on_failure
        self._pending: dict[str, ProjectRuntime] = {}
        self._first: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.writes = 0
        """How many times a file was written (for tests and the bench)."""

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start coalescing on this loop (before, every save is written at once)."""
        self._loop = loop

    @property
    def pending(self) -> bool:
        """Whether some project has edits not written yet."""
        return bool(self._pending)

    def request(self, runtime: ProjectRuntime) -> None:
        """The project's layouts changed: write them soon."""
        if not self._needs_write(runtime):
            self._pending.pop(runtime.root, None)
            return
        loop = self._loop
        if loop is None:
            self._write(runtime)
            return
        self._pending[runtime.root] = runtime
        now = loop.time()
        if self._first is None:
            self._first = now
        delay = max(0.0, min(QUIET, self._first + LONGEST - now))
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(delay, self.flush)

    def flush(self, root: str | None = None) -> None:
        """Write now what is pending (of one project, or of all)."""
        if root is not None:
            runtime = self._pending.pop(root, None)
            if runtime is not None:
                self._write(runtime)
            if self._pending:
                return
        else:
            pending, self._pending = self._pending, {}
            for runtime in pending.values():
                self._write(runtime)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None
        self._first = None

    @staticmethod
    def _needs_write(runtime: ProjectRuntime) -> bool:
        return runtime.layouts_writable and runtime.layouts != runtime.saved_layouts

    def _write(self, runtime: ProjectRuntime) -> None:
        if not self._needs_write(runtime):
            return
        layouts = runtime.layouts
        try:
            self._store.save(Path(runtime.root), layouts)
        except StoreError as exc:
            runtime.layouts_writable = False
            self._on_failure(runtime, exc)
            return
        self.writes += 1
        runtime.saved_layouts = layouts
