"""Short reading turns for other cells while a typed key's echo is on its way.

A flooding cell is parsed in turns of up to `session.READ_BUDGET` bytes (6 ms at most),
so that a big `cat` keeps its throughput and the loop still serves everyone between turns.
A key typed beside it waits for such turns twice: the key is read after one, its echo
after another. Measured beside `while :; do cat LOG; done`, that was 4–9 ms of the echo's
latency. From the moment input reaches a cell until that cell's next frame is sent (or
`ECHO_TURNS` seconds passed, for a program that does not echo), every other cell parses
one chunk per turn instead: the flood goes on, a few times slower, for that long only.

Work that can wait a few milliseconds waits for the echo too (`after_echo`): a command from
a script or `idea ask`, an agent's MCP tool call. With agents asking each other all the
time the loop always has such work ready, and the echo would queue behind it.

The first wait is cut too: a reader parsing a long turn stops between two chunks as soon
as an attached client's socket has bytes waiting (`input_waiting`, a `poll` of those
sockets, about a microsecond): the key is read on the loop's next turn rather than after
the flood's. Measured beside a flood, the key took 3.4 ms (p50) and 7.8 ms (p99) to reach
the daemon's handler before.

One daemon loop reads every PTY, so there is one `EchoFirst` per daemon: the frame sender
owns it (it sees each cell's frames go out: `echoed`), the server tells it of input (`typed`)
and of the clients to watch (`watch_input`), and each session's reader asks it
(`short_turn`, `input_waiting`, handed to the session when it is made).
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import time

ECHO_TURNS = 0.1
"""Seconds other cells read short turns at most after input (as `frames.ECHO_HOLD`)."""


class EchoFirst:
    """Which session's echo is awaited, and until when."""

    def __init__(self) -> None:
        self._session: str | None = None
        self._until = 0.0
        self._waiting: list[asyncio.Future[None]] = []
        self._timer: asyncio.TimerHandle | None = None
        self._clients = select.poll()
        self._watched: set[int] = set()

    def watch_input(self, fd: int) -> None:
        """An attached client's socket: input on it cuts other cells' reading turns."""
        if fd >= 0 and fd not in self._watched:
            self._watched.add(fd)
            self._clients.register(fd, select.POLLIN)

    def unwatch_input(self, fd: int) -> None:
        if fd in self._watched:
            self._watched.discard(fd)
            self._clients.unregister(fd)

    def input_waiting(self) -> bool:
        """Whether a watched client sent something not read yet (a key, most likely)."""
        return bool(self._watched) and bool(self._clients.poll(0))

    def typed(self, session_id: str, now: float | None = None) -> None:
        """Input was written to `session_id`'s program."""
        self._session = session_id
        self._until = (time.monotonic() if now is None else now) + ECHO_TURNS

    def echoed(self, session_id: str) -> None:
        """`session_id`'s frame after the input was sent: other cells read full turns again."""
        if session_id == self._session:
            self._session, self._until = None, 0.0
            self._release()

    def short_turn(self, session_id: str, now: float) -> bool:
        """Whether `session_id` reads one chunk this turn (another cell's echo is due)."""
        return self._session is not None and session_id != self._session and now < self._until


    async def after_echo(self) -> None:
        """Return once no echo is awaited: at once, or when the awaited one is sent (at
        most `ECHO_TURNS` after its key)."""
        wait = self._until - time.monotonic()
        if self._session is None or wait <= 0:
            return
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiting.append(waiter)
        if self._timer is None:
            self._timer = loop.call_later(wait, self._expire)
        try:
            await waiter
        finally:
            with contextlib.suppress(ValueError):
                self._waiting.remove(waiter)

    def _expire(self) -> None:
        self._timer = None
        wait = self._until - time.monotonic()
        if self._session is not None and wait > 0:  # another key moved the deadline
            self._timer = asyncio.get_running_loop().call_later(wait, self._expire)
            return
        self._release()

    def _release(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:
            if not waiter.done():
                waiter.set_result(None)
