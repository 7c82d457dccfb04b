"""Wait for a condition instead of sleeping (after libtmux's `test/retry.py`).

Tests never `sleep` for a fixed time: they poll what they can observe (a screen, a command's
output, a process) until it holds, and fail with the last observed state when it never does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Generous: a wait ends as soon as its condition holds, so a passing test never waits
# longer for it, while a loaded 2-core machine still gets there.
DEFAULT_TIMEOUT = 30.0


class WaitTimeout(AssertionError):
    """A condition did not hold in time; the message shows what was seen last."""


def retry_until(
    predicate: Callable[[], T | None],
    timeout: float = DEFAULT_TIMEOUT,
    *,
    interval: float = 0.02,
    describe: Callable[[], str] | str = "",
) -> T:
    """Call `predicate` until it returns something other than None or False; return that.

    Args:
        predicate: Checked at once, then every `interval` seconds.
        timeout: Seconds before giving up.
        interval: Seconds between checks (doubled up to 0.2 s, so a slow wait polls less).
        describe: What to show when the wait fails (a callable is evaluated only then).

    Raises:
        WaitTimeout: `predicate` kept returning None or False for `timeout` seconds.
    """
    deadline = time.monotonic() + timeout
    delay = interval
    while True:
        value = predicate()
        if value is not None and value is not False:
            return value
        if time.monotonic() >= deadline:
            detail = describe() if callable(describe) else describe
            raise WaitTimeout(f"condition not met within {timeout:g} s" +
                              (f"; last seen:\n{detail}" if detail else ""))
        time.sleep(delay)
        delay = min(delay * 2, 0.2)
