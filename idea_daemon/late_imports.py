"""Which modules the daemon's loop imported for the first time after the daemon was up.

A first-time import runs the module's code (and its dependencies') on whatever thread asks
for it: done by a command handler on the loop, it holds every PTY and client for as long
as the import takes — 100 ms idle, a second on a loaded machine for the MCP SDK or dulwich.
`idea_daemon.preload` does those imports in a worker thread at start; this module is how
the daemon (and `bench/bench_loop.py`) finds any that still happen on the loop.

An audit hook (`sys.addaudithook`, the `import` event, raised only when a module is not in
`sys.modules` yet) notes the names imported on the loop's thread once `arm` was called.
The event comes from import statements (and `__import__`); `importlib.import_module`
bypasses it, which is why the daemon's own deferred imports are statements.
Hooks cannot be removed, so the real daemon installs it once (`idea_daemon.main`); the
in-process test daemons share one through `shared()`.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

LIMIT = 500
"""Names kept at most (the figure is for finding culprits, not an inventory)."""


class LateImports:
    """Names first imported on one thread (the loop's) since `arm`."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._thread: int | None = None
        self._installed = False

    def install(self) -> None:
        """Add the audit hook (once: hooks live as long as the process)."""
        if not self._installed:
            self._installed = True
            sys.addaudithook(self._hook)

    def arm(self, thread: int | None = None) -> None:
        """From now on, note imports made on `thread` (default: the calling one)."""
        self._thread = threading.get_ident() if thread is None else thread
        self.names = []

    def disarm(self) -> None:
        self._thread = None

    def take(self, reset: bool = False) -> list[str]:
        """The names noted so far (and forget them when `reset`)."""
        names = list(self.names)
        if reset:
            self.names = []
        return names

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        # Called for every audited event of the process: return at once for all others.
        if event != "import" or self._thread is None:
            return
        if threading.get_ident() == self._thread and len(self.names) < LIMIT:
            self.names.append(str(args[0]))


_SHARED = LateImports()


def shared() -> LateImports:
    """The process's one watcher (installed on first use)."""
    _SHARED.install()
    return _SHARED
