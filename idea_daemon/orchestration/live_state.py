"""Live state in the daemon: rows in memory per project, on disk coalesced and off the loop
(FEATURES.md LIV-1..LIV-4, DECISIONS D13).

The rows of a project are read once (at its first use) and kept in memory, which is what
every reader sees. A change marks the project dirty and schedules one write `DELAY` later,
in an executor thread: a burst of delegations costs one write, and the loop never waits on
the disk. A write already running is never doubled; changes made meanwhile go in the next.

A `live-state.json` that cannot be read (damaged, or from a newer idea) is never
overwritten: the project runs without live state — reads are empty and say why, an agent's
set is refused with that message, derived updates are skipped — until the file changes on
disk (the user fixed or removed it), when it is read again. Derived updates are strictly
best-effort: whatever goes wrong is logged and the delegation goes on.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from core.errors import IdeaError
from core.live_state.model import LiveRow, LiveStateError
from core.live_state.policy import prune

log = logging.getLogger(__name__)

DELAY = 0.25
"""Seconds between the first change of a burst and its one write."""

Rows = dict[str, LiveRow]
Change = Callable[[Mapping[str, LiveRow]], Rows]


class LiveStateStorePort(Protocol):
    """`adapters.store.live_state_store.LiveStateStore` (blocking; run in an executor)."""

    def path(self, root: str | Path) -> Path: ...

    def load(self, root: str | Path) -> Rows: ...

    def save(self, root: str | Path, rows: Mapping[str, LiveRow]) -> None: ...


class LiveStateUnavailable(LiveStateError):
    code = "live_state_unavailable"

    def __init__(self, problem: str) -> None:
        super().__init__(f"The project's live state is unavailable: {problem}")


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class _Project:
    rows: Rows = field(default_factory=dict)
    problem: str | None = None
    """Why the file cannot be used (its message), or None."""
    seen: tuple[int, int] | None = None
    """(mtime_ns, size) of the unusable file: a change means "try again"."""
    dirty: bool = False
    timer: asyncio.TimerHandle | None = None
    writing: asyncio.Future[str | None] | None = None


class LiveStates:
    def __init__(self, store: LiveStateStorePort, clock_ms: Callable[[], int] = wall_ms) -> None:
        self.store = store
        self.clock_ms = clock_ms
        self.listeners: list[Callable[[str], None]] = []
        """Called with a project root after its rows changed (panel, refresh markers)."""
        self._projects: dict[str, _Project] = {}
        self.writes = 0
        """Files written so far (tests and the bench read it)."""

    # ─── reading ─────────────────────────────────────────────────────────────────────

    def _project(self, root: str) -> _Project:
        project = self._projects.get(root)
        if project is None:
            project = self._projects[root] = _Project()
            self._load(root, project)
        elif project.problem is not None and self._stamp(root) != project.seen:
            self._load(root, project)
        return project

    def _load(self, root: str, project: _Project) -> None:
        # One small bounded file read, once per project (and after the user fixed a
        # damaged one): cheaper than a round trip to a thread.
        try:
            project.rows = self.store.load(root)
            project.problem = None
            project.seen = None
        except IdeaError as error:
            project.rows = {}
            project.problem = error.message
            project.seen = self._stamp(root)
            log.error("%s", error.message)

    def _stamp(self, root: str) -> tuple[int, int] | None:
        try:
            info = os.stat(self.store.path(root))
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def rows(self, root: str) -> Rows:
        """The project's rows, pruned (TTL, max count) as of now."""
        project = self._project(root)
        kept = prune(project.rows, self.clock_ms())
        if len(kept) != len(project.rows):
            project.rows = kept
        return dict(kept)

    def problem(self, root: str) -> str | None:
        return self._project(root).problem

    # ─── writing ─────────────────────────────────────────────────────────────────────

    def update(self, root: str, change: Change) -> Rows:
        """Apply `change` to the pruned rows and schedule the write; the new rows.

        Raises:
            LiveStateUnavailable: The file cannot be used (nothing changes).
            LiveStateError: `change` refused the value (nothing changes).
        """
        project = self._project(root)
        if project.problem is not None:
            raise LiveStateUnavailable(project.problem)
        project.rows = change(prune(project.rows, self.clock_ms()))
        self._schedule(root, project)
        for listener in list(self.listeners):
            try:
                listener(root)
            except Exception:
                log.exception("live-state listener failed")
        return dict(project.rows)

    def derived(self, root: str, change: Change) -> None:
        """A daemon-made update (ask accepted, reply returned): never raises."""
        try:
            self.update(root, change)
        except LiveStateUnavailable:
            pass  # already reported when the file was read
        except Exception:
            log.exception("live-state update skipped for %s", root)

    def _schedule(self, root: str, project: _Project) -> None:
        project.dirty = True
        if project.timer is not None or project.writing is not None:
            return  # the pending write (or the one after the running one) takes this too
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._write_now(root, project)
            return
        project.timer = loop.call_later(DELAY, self._start_write, root, project)

    def _start_write(self, root: str, project: _Project) -> None:
        project.timer = None
        if not project.dirty:
            return
        project.dirty = False
        snapshot = dict(project.rows)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, self._save, root, snapshot)
        project.writing = future
        future.add_done_callback(lambda done: self._written(root, project, done))

    def _save(self, root: str, rows: Rows) -> str | None:
        """Write (in a worker thread); the problem when the file was left alone."""
        try:
            self.store.save(root, rows)
        except IdeaError as error:
            # Damaged or replaced by a newer idea under us, or the disk refused: the file
            # is left alone, the rows stay in memory.
            log.error("live state not written: %s", error.message)
            return error.message
        self.writes += 1
        return None

    def _written(self, root: str, project: _Project, future: asyncio.Future[str | None]) -> None:
        project.writing = None
        problem = None if future.cancelled() or future.exception() else future.result()
        if problem is not None and not os.path.exists(self.store.path(root).parent):
            problem = None  # the project folder went away: nothing to protect
        if problem is not None:
            project.problem, project.seen = problem, self._stamp(root)
        elif project.dirty:
            self._schedule(root, project)

    def _write_now(self, root: str, project: _Project) -> None:
        project.dirty = False
        self._save(root, dict(project.rows))

    async def drain(self) -> None:
        """Write what is pending now and wait until it is on disk (shutdown, tests)."""
        while True:
            busy = [(root, p) for root, p in self._projects.items()
                    if p.timer is not None or p.writing is not None or p.dirty]
            if not busy:
                return
            for root, project in busy:
                if project.writing is not None:
                    await asyncio.shield(project.writing)
                    # Its done callback (which clears `writing`) runs on the next turn.
                    await asyncio.sleep(0)
                    continue
                if project.timer is not None:
                    project.timer.cancel()
                    project.timer = None
                if project.problem is not None:
                    project.dirty = False
                    continue
                self._start_write(root, project)
