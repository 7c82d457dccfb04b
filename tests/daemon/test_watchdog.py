"""The loop-lag watchdog catches a callback that holds the daemon's loop, and says which."""

from __future__ import annotations

import logging
import time

import pytest

from tests.helpers.daemon import InProcessDaemon
from tests.helpers.retry import retry_until


def block_the_loop_like_a_synchronous_write() -> None:
    time.sleep(0.3)  # what an fsync on a slow disk does to the loop


def test_a_callback_that_holds_the_loop_is_logged_with_what_ran(
        daemon: InProcessDaemon, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="idea_daemon.watchdog")
    assert daemon.loop is not None
    daemon.loop.call_soon_threadsafe(block_the_loop_like_a_synchronous_write)
    record = retry_until(lambda: next(
        (r for r in caplog.records if "block_the_loop" in r.getMessage()), None),
        describe=lambda: "\n".join(r.getMessage() for r in caplog.records))
    assert "the loop was held for" in record.getMessage()
    with daemon.client() as client:
        stats = client.call("loop_stats")
    assert stats["slowTurns"] >= 1 and stats["worstMs"] >= 250
    assert "block_the_loop_like_a_synchronous_write" in stats["worstWhat"]
    assert stats["turns"] > 0
