"""Short reading turns for other cells while a typed key's echo is on its way.

A flooding cell is parsed in turns of up to `session.READ_BUDGET` bytes (6 ms at most),
so that a big `cat` keeps its throughput and the loop still serves everyone between turns.
A key typed beside it waits for such turns twice: the key is read after one, its echo
after another. Measured beside `while :; do cat LOG; done`, that was 4–9 ms of the echo's
latency. From the moment input reaches a cell until that cell's next frame is sent (or
`ECHO_TURNS` seconds passed, for a program that does not echo), every other cell parses
one chunk per turn instead: the flood goes on, a few times slower, for that long only.

One daemon loop reads every PTY, so there is one `EchoFirst` per daemon: the frame sender
owns it (it sees each cell's frames go out: `echoed`), the server tells it of input (`typed`)
and each session's reader asks it (`short_turn`, handed to the session when it is made).
"""

from __future__ import annotations

import time

ECHO_TURNS = 0.1
"""Seconds other cells read short turns at most after input (as `frames.ECHO_HOLD`)."""


class EchoFirst:
    """Which session's echo is awaited, and until when."""

    def __init__(self) -> None:
        self._session: str | None = None
        self._until = 0.0

    def typed(self, session_id: str, now: float | None = None) -> None:
        """Input was written to `session_id`'s program."""
        self._session = session_id
        self._until = (time.monotonic() if now is None else now) + ECHO_TURNS

    def echoed(self, session_id: str) -> None:
        """`session_id`'s frame after the input was sent: other cells read full turns again."""
        if session_id == self._session:
            self._session, self._until = None, 0.0

    def short_turn(self, session_id: str, now: float) -> bool:
        """Whether `session_id` reads one chunk this turn (another cell's echo is due)."""
        return self._session is not None and session_id != self._session and now < self._until

