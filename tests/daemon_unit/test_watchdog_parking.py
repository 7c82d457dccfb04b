"""The loop watchdog costs an idle daemon nothing: with no work its heartbeat parks (no
timer, the sampling thread asleep), and the loop's next wake-up brings it back in time to
catch a callback that holds the loop, with what ran."""

from __future__ import annotations

import asyncio
import threading
import time

from idea_daemon.watchdog import LoopWatchdog


def hold_the_loop() -> None:
    time.sleep(0.25)


async def _idle_then_held(watchdog: LoopWatchdog) -> tuple[int, int]:
    watchdog.start()
    await asyncio.sleep(0.3)  # the sleep's own timer, then nothing
    beats_idle = watchdog.stats.turns
    loop = asyncio.get_running_loop()
    # From another thread, as a PTY read or a client would wake the loop.
    threading.Timer(0.05, loop.call_soon_threadsafe, args=(hold_the_loop,)).start()
    await asyncio.sleep(0.6)
    watchdog.stop()
    return beats_idle, watchdog.stats.slow


def test_an_idle_loop_parks_the_heartbeat_and_a_held_loop_is_still_caught() -> None:
    loop = asyncio.new_event_loop()
    try:
        watchdog = LoopWatchdog(loop, threshold=0.1, interval=0.02)
        beats_idle, slow = loop.run_until_complete(_idle_then_held(watchdog))
    finally:
        loop.close()
    # Parked after a beat or two: 15 beats in those 0.3 s if it kept going.
    assert beats_idle <= 3
    assert slow == 1
    assert "hold_the_loop" in watchdog.stats.worst_what
    assert watchdog.stats.worst >= 0.2
