"""Compacting the scrollback of idle cells, a short step per turn of the loop.

A cell holding 10,000 lines of history costs its emulator some 11 MB as plain cells; the
history nobody is looking at can be packed to a fifth of that or less (the ghostty backend
moves its oldest pages out into packed segments, the pyte backend packs its own lines), but
that work must not sit on the output path nor hold the loop. So: once a cell has been quiet
for `IDLE` seconds (checked on the server's one-second poll), its emulator's `compact_step`
runs once per turn of the loop (each step bounded to a millisecond or so), cell after cell,
until each says there is nothing more; a cell that prints
again leaves the queue and comes back on its next quiet spell. An emulator with nothing to
compact answers at once, so idle cells cost a cheap call per poll.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol

from core.terminal import TerminalEmulator

log = logging.getLogger(__name__)

IDLE = 2.0
"""Seconds without output before a cell's history is compacted."""


class CompactableSession(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def emulator(self) -> TerminalEmulator: ...

    @property
    def last_output(self) -> float: ...


class HistoryCompactor:
    """Runs idle cells' compaction steps on the loop, one per turn."""

    def __init__(self, loop: asyncio.AbstractEventLoop, clock: Callable[[], float]) -> None:
        self._loop = loop
        self._clock = clock
        self._queue: deque[CompactableSession] = deque()
        self._queued: set[str] = set()
        self._handle: asyncio.Handle | None = None
        self.steps = 0
        """Compaction steps run (for tests and `idea` diagnostics)."""

    def poll(self, sessions: Iterable[CompactableSession]) -> None:
        """Queue the cells quiet for `IDLE` seconds (called once a second)."""
        now = self._clock()
        for session in sessions:
            if session.id not in self._queued and now - session.last_output >= IDLE:
                self._queue.append(session)
                self._queued.add(session.id)
        if self._queue and self._handle is None:
            self._handle = self._loop.call_soon(self._step)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._queue.clear()
        self._queued.clear()

    def _step(self) -> None:
        """At most one real compaction step, then yield the loop."""
        self._handle = None
        now = self._clock()
        while self._queue:
            session = self._queue[0]
            more = False
            if now - session.last_output >= IDLE:  # else it printed again: next quiet spell
                try:
                    more = session.emulator.compact_step()
                except Exception:
                    log.exception("session %s: compacting its history failed", session.id)
            if more:
                self.steps += 1
                # Round robin: a long pass in one cell does not starve the others.
                self._queue.rotate(-1)
                break
            self._queue.popleft()
            self._queued.discard(session.id)
        if self._queue:
            self._handle = self._loop.call_soon(self._step)
