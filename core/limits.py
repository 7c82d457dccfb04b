"""Bounds on what a client may ask of the daemon (issue 7).

A client is trusted to be the user's, not to be sane: a window size, an environment, a
pattern or a timeout comes off the socket as a number or a string of any size, and the
daemon sizes screens, PTYs and scans from them. These bounds are far above any real use
and far below what could exhaust memory or stall the loop.
"""

from __future__ import annotations

import math

MAX_COLUMNS = 2_000
"""Widest window (tmux allows 10,000, but a screen of that many cells a row is no use)."""

MAX_ROWS = 1_000
"""Tallest window."""

MAX_ENV_VARIABLES = 256
MAX_ENV_NAME = 256
MAX_ENV_VALUE = 32 * 1024
"""What the environment a client sends in its Hello may hold (entries beyond are dropped)."""

MAX_PATTERN = 4_096
"""Characters of a `capture --wait` pattern (it runs on every read of the cell)."""

MAX_WAIT_SECONDS = 24 * 3600.0
"""Longest `capture --wait` timeout."""


def clamp_window(width: int, height: int) -> tuple[int, int]:
    """A client's size within 1..MAX_COLUMNS x 1..MAX_ROWS."""
    return min(max(1, width), MAX_COLUMNS), min(max(1, height), MAX_ROWS)


def bounded_env(env: dict[str, str]) -> dict[str, str]:
    """The first MAX_ENV_VARIABLES entries of `env` with names and values of sane size."""
    kept: dict[str, str] = {}
    for name, value in env.items():
        if len(kept) >= MAX_ENV_VARIABLES:
            break
        if 0 < len(name) <= MAX_ENV_NAME and len(value) <= MAX_ENV_VALUE and "=" not in name:
            kept[name] = value
    return kept


def wait_seconds(value: object) -> float | None:
    """A timeout in seconds within 0..MAX_WAIT_SECONDS, or None when it is not a number
    (NaN and infinities included)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_WAIT_SECONDS)
