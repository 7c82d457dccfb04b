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
(it holds the GIL only to compare two floats) — while the loop has work. An idle daemon
runs all day beside the user's agents, so the heartbeat parks when nothing but itself ran
since its last beat, and the loop's next wake-up from `select` (a read, a timer, a client)
starts it again: an idle daemon wakes for nothing. `IDEA_DEBUG=1` additionally turns on
asyncio's debug mode with the same threshold (`slow_callback_duration`), which names the
slow callback itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

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
        self._wakes = 0
        """How many times the loop came back from `select` (a turn began)."""
        self._wakes_seen = 0
        self._parked = False
        self._unparked = threading.Event()
        """Set while the heartbeat runs: the sampling thread waits on it while parked."""
        self._selector: Any = None

    def start(self) -> None:
        """Start watching (called on the loop's thread)."""
        self._loop_thread = threading.get_ident()
        self._watch_wakes()
        self._schedule()
        self._unparked.set()
        self._thread = threading.Thread(target=self._sample, name="idea-loop-watchdog",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._unparked.set()
        if self._handle is not None:
            self._handle.cancel()
        if self._selector is not None:
            with contextlib.suppress(AttributeError):
                del self._selector.select  # the class's own method again
        if self._thread is not None:
            self._thread.join(1.0)

    def _watch_wakes(self) -> None:
        """Count the loop's returns from `select`, and unpark the heartbeat on each one.

        The selector is the loop's own (`_selector`, a selectors.py object, in every
        selector event loop); a loop without one keeps the heartbeat always on."""
        selector: Any = getattr(self._loop, "_selector", None)
        select = getattr(selector, "select", None)
        if select is None:
            return

        def counted(timeout: float | None = None) -> Any:
            events = select(timeout)
            self._wakes += 1
            if self._parked:
                self._parked, self._sampled = False, None
                self._schedule()
                self._unparked.set()
            return events

        selector.select = counted
        self._selector = selector

    def _schedule(self) -> None:
        self._due = time.monotonic() + self.interval
        self._handle = self._loop.call_later(self.interval, self._beat)

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
        if self._selector is not None and self._wakes - self._wakes_seen <= 1:
            # Only this beat's own wake-up since the last one: the loop is idle. Park until
            # `select` returns for something else.
            self._parked, self._handle = True, None
            self._unparked.clear()
        else:
            self._schedule()
        self._wakes_seen = self._wakes

    def _sample(self) -> None:
        """Off the loop: catch the loop thread's stack while a turn overruns."""
        while not self._stopped.wait(self.interval):
            if self._parked:
                self._unparked.wait()
                continue
            overdue = time.monotonic() - self._due
            if overdue > self.threshold and self._sampled is None and not self._parked:
                frame = sys._current_frames().get(self._loop_thread)
                if frame is not None:
                    self._sampled = describe_stack(frame)
