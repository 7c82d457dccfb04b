"""One client connected to the daemon, and what it was last sent."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from adapters.ipc import framing


class ConnectionWriter(Protocol):
    """The sending side of a connection (an `asyncio.StreamWriter`, or a test's fake)."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...

    @property
    def transport(self) -> asyncio.WriteTransport | None: ...


@dataclass(eq=False)
class ClientConnection:
    id: int
    writer: ConnectionWriter
    kind: str = "control"
    window_id: str | None = None
    width: int = 80
    height: int = 24
    env: dict[str, str] = field(default_factory=dict)
    cell: str | None = None
    last_active: float = 0.0
    # What this client was last sent, per (cell, session): a swap or a restart puts
    # another session in a cell, which must then be sent whole.
    sent_rows: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    sent_cursor: dict[tuple[str, str], tuple[int, int, bool, int]] = field(default_factory=dict)
    last_frame: dict[tuple[str, str], float] = field(default_factory=dict)
    sent_titles: dict[str, str] = field(default_factory=dict)
    """The title of each cell as this client last got it (in a scene or a `CellTitle`)."""
    lagging: bool = False
    closed: bool = False
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    """Commands of this client still running (those that wait), cancelled when it leaves."""

    @property
    def attached(self) -> bool:
        return self.kind == "tui" and not self.closed

    def send(self, message: Any) -> None:
        if self.closed:
            return
        try:
            self.writer.write(framing.encode(message))
        except (ConnectionError, RuntimeError):
            self.closed = True

    def buffered(self) -> int:
        transport = self.writer.transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def forget_frames(self) -> None:
        """Make the next flush send every visible row again (a full repaint)."""
        self.sent_rows.clear()
        self.sent_cursor.clear()
