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

    def write_eof(self) -> None: ...

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
    last_scene: Any = None
    """The last scene sent: one equal to it is not sent again (a client rebuilds and repaints
    its whole screen for each scene)."""
    lagging: bool = False
    frames_sent: int = 0
    """`CellFrame`s sent since the client attached."""
    frames_shown: int | None = None
    """How many of them the client said it drew (`FramesShown`); None until it says so
    (a client that never does is sent frames as they come)."""
    typed_at: float = 0.0
    """When the client last sent input (monotonic seconds)."""
    typed_cell: str = ""
    """The cell that input went to last: its echo is the frame the user waits for (most
    often the focused cell's, not always: a click, a second client, `send_keys`)."""
    echo_frame: int | None = None
    """The number of the first frame of the input's cell sent after that input: until the
    client drew it (or `ECHO_HOLD` passed), other cells' frames wait."""
    caught_up: float = 0.0
    """When the client last said it drew frames (monotonic seconds): other cells than the
    focused one wait their interval from then, so the client has time at rest."""
    closed: bool = False
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    """Commands of this client still running (those that wait), cancelled when it leaves."""
    gone: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the server stopped reading this client (it closed, or it broke)."""

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

    @property
    def unshown(self) -> int:
        """Frames sent that the client has not drawn yet (0 for a client that never says)."""
        return 0 if self.frames_shown is None else self.frames_sent - self.frames_shown

    def awaiting_echo(self, now: float, hold: float) -> bool:
        """Input was sent and its cell's next frame is not drawn yet (for `hold` seconds at
        most: a program that does not echo holds nothing)."""
        if now - self.typed_at >= hold:
            return False
        if self.echo_frame is None:
            return True
        return self.frames_shown is not None and self.frames_shown < self.echo_frame

    def buffered(self) -> int:
        transport = self.writer.transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def forget_frames(self) -> None:
        """Make the next flush send every visible row again (a full repaint)."""
        self.sent_rows.clear()
        self.sent_cursor.clear()
        self.last_scene = None
