"""The loop-lag watchdog: any turn of the daemon's loop longer than 50 ms is logged, with
what was running.

The daemon is one asyncio loop reading every PTY, serving every client and, soon, every
agent's MCP calls: one callback that blocks (a synchronous write, a slow parse) freezes all
of them. Two halves find such turns:

- a heartbeat on the loop, due every `INTERVAL`: how late it runs is how long the loop was
  held by something else (the scheduling delay);
- a sampling thread: when the heartbeat is overdue by more than `THRESHOLD`, it takes the
  loop thread's stack (`sys._current_frames`) while the culprit is still running, so the
  log line says *what* ran, not just that something did.

The cost is one timer callback per `INTERVAL` on the loop and a thread waking as often
(it holds the GIL only to compare two floats). `IDEA_DEBUG=1` additionally turns on
asyncio's debug mode with the same threshold (`slow_callback_duration`), which names the
slow callback itself.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from types import FrameType

log = logging.getLogger(__name__)

THRESHOLD = 0.05
INTERVAL = 0.02
STACK_FRAMES = 6
KEPT_SLOW = 20


@dataclass
class LoopStats:
    """What the watchdog saw since the daemon started."""

    turns: int = 0
    """Heartbeats run."""
    slow: int = 0
    """Turns over the threshold."""
    worst: float = 0.0
    """The longest delay seen, in seconds."""
    worst_what: str = ""
    """What was running then (the sampled stack, innermost last)."""
    recent: list[float] = field(default_factory=list)
    """The delays of the last turns (at most 1000), for percentiles."""
    slow_turns: list[tuple[float, str]] = field(default_factory=list)
    """The last slow turns (at most `KEPT_SLOW`): delay and what ran."""


def describe_stack(frame: FrameType) -> str:
    """The innermost frames of a stack; for a first-time import (whose frames are all
    importlib's), the module being imported and the code that asked for it instead."""
    importing = ""
    outer: FrameType | None = frame
    while outer is not None:  # innermost to outermost: the last match is the first import
        if (outer.f_code.co_name == "_find_and_load"
                and outer.f_code.co_filename.startswith("<frozen importlib")):
            importing = str(outer.f_locals.get("name", "?"))
        outer = outer.f_back
    stack = traceback.extract_stack(frame)
    if importing:
        caller = [entry for entry in stack if not entry.filename.startswith("<frozen")]
        head = f"importing {importing} (first time), asked by:\n"
        return head + "".join(traceback.format_list(caller[-STACK_FRAMES:])).rstrip()
    return "".join(traceback.format_list(stack[-STACK_FRAMES:])).rstrip()


class LoopWatchdog:
    """Watches one loop from inside (heartbeat) and outside (a sampling thread)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, *, threshold: float = THRESHOLD,
                 interval: float = INTERVAL) -> None:
        self._loop = loop
        self.threshold = threshold
        self.interval = interval
        self.stats = LoopStats()
        self._due = 0.0
        self._handle: asyncio.TimerHandle | None = None
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop_thread = threading.get_ident()
        self._sampled: str | None = None

    def start(self) -> None:
        """Start watching (called on the loop's thread)."""
        self._loop_thread = threading.get_ident()
        self._due = time.monotonic() + self.interval
        self._handle = self._loop.call_later(self.interval, self._beat)
        self._thread = threading.Thread(target=self._sample, name="idea-loop-watchdog",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._handle is not None:
            self._handle.cancel()
        if self._thread is not None:
            self._thread.join(1.0)

    def _beat(self) -> None:
        now = time.monotonic()
        late = max(0.0, now - self._due)
        stats = self.stats
        stats.turns += 1
        stats.recent.append(late)
        if len(stats.recent) > 1000:
            del stats.recent[:500]
        if late > self.threshold:
            what = self._sampled or "(not caught in the act)"
            if what.splitlines()[-2:-1] and "selectors.py" in what.splitlines()[-2]:
                # Late while idle in select(): the system ran other processes, the loop
                # itself was free. Worth knowing, not a blocking callback.
                what = "nothing: the loop was idle (the machine did not run the daemon)"
            stats.slow += 1
            stats.slow_turns.append((late, what))
            del stats.slow_turns[:-KEPT_SLOW]
            if late > stats.worst:
                stats.worst, stats.worst_what = late, what
            log.warning("the loop was held for %.0f ms; running then:\n%s", late * 1000, what)
        elif late > stats.worst:
            stats.worst = late
        self._sampled = None
        self._due = now + self.interval
        self._handle = self._loop.call_later(self.interval, self._beat)

    def _sample(self) -> None:
        """Off the loop: catch the loop thread's stack while a turn overruns."""
        while not self._stopped.wait(self.interval):
            overdue = time.monotonic() - self._due
            if overdue > self.threshold and self._sampled is None:
                frame = sys._current_frames().get(self._loop_thread)
                if frame is not None:
                    self._sampled = describe_stack(frame)
