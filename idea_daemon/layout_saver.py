"""Writing projects' `layouts.json` after a burst of edits, not on every one of them.

A border dragged with the mouse changes the tree ~30 times a second; writing (and fsyncing)
the file each time would block the loop that also reads every PTY. Edits mark the project
as unsaved; the file is written once the edits stop for `QUIET` seconds, and never later
than `LONGEST` seconds after the first unsaved edit (a drag that goes on and on is still
saved as it goes). Each write stays atomic (`adapters.store.atomic`).

Those writes (encoding, write, fsync, rename: milliseconds, far more on a loaded disk) run on
one worker thread, off the loop; one thread keeps a project's writes in the order they were
asked, so an older layout can never land after a newer one. The value written is the
immutable `LayoutSet` of that moment; the loop learns the outcome from the thread
(`saved_layouts`, or the failure reported on the status line). `flush` writes what is pending
at once, on the caller's thread, after waiting for any write under way: the daemon calls it
when it stops, before it answers a detach, and when a project closes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from core.errors import StoreError
from core.layout.model import LayoutSet
from idea_daemon.ports import LayoutStorePort
from idea_daemon.runtime import ProjectRuntime

log = logging.getLogger(__name__)

QUIET = 0.25
LONGEST = 1.0


@dataclass(eq=False)
class _Write:
    """A write handed to the worker thread."""

    runtime: ProjectRuntime
    layouts: LayoutSet
    future: Future[None]
    settled: bool = False


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
        self._worker: ThreadPoolExecutor | None = None
        self._writing: list[_Write] = []
        self.writes = 0
        """How many times a file was written (for tests and the bench)."""

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start coalescing on this loop (before, every save is written at once)."""
        self._loop = loop

    @property
    def pending(self) -> bool:
        """Whether some project has edits not written yet (or being written)."""
        return bool(self._pending) or any(not write.settled for write in self._writing)

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
        self._timer = loop.call_later(delay, self._write_burst)

    def _write_burst(self) -> None:
        """The burst is over: hand its writes to the worker thread."""
        self._timer = None
        self._first = None
        pending, self._pending = self._pending, {}
        loop = self._loop
        assert loop is not None
        if self._worker is None:
            self._worker = ThreadPoolExecutor(1, thread_name_prefix="idea-layouts")
        for runtime in pending.values():
            if not self._needs_write(runtime):
                continue
            layouts = runtime.layouts
            future = self._worker.submit(self._store.save, Path(runtime.root), layouts)
            write = _Write(runtime, layouts, future)
            self._writing.append(write)
            future.add_done_callback(partial(self._from_worker, loop, write))

    def _from_worker(self, loop: asyncio.AbstractEventLoop, write: _Write,
                     _future: Future[None]) -> None:
        # On the worker thread: the rest happens on the loop.
        if not loop.is_closed():
            loop.call_soon_threadsafe(self._settle, write)

    def close(self) -> None:
        """Write what is pending and stop the worker thread (the daemon is stopping)."""
        self.flush()
        if self._worker is not None:
            self._worker.shutdown(wait=True)
            self._worker = None

    def _settle(self, write: _Write) -> None:
        """A worker's write is over: note what the file now holds, or report its failure."""
        if write.settled:
            return
        write.settled = True
        if write in self._writing:
            self._writing.remove(write)
        error = write.future.exception()
        if isinstance(error, StoreError):
            write.runtime.layouts_writable = False
            self._on_failure(write.runtime, error)
        elif error is not None:
            log.error("writing the layouts of %s failed", write.runtime.root,
                      exc_info=(type(error), error, error.__traceback__))
        else:
            self.writes += 1
            write.runtime.saved_layouts = write.layouts

    def _wait_for_writes(self, root: str | None) -> None:
        for write in list(self._writing):
            if root is None or write.runtime.root == root:
                write.future.exception()  # waits; the outcome is taken in by _settle
                self._settle(write)

    def flush(self, root: str | None = None) -> None:
        """Write now what is pending (of one project, or of all), after the writes under
        way."""
        self._wait_for_writes(root)
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
