"""The first moments of `idea attach`: connect, read the first frame, paint it — all before
asyncio or Textual is imported.

On a shared machine, importing Textual and starting the app costs 0.2–0.5 s of CPU, while
the daemon's first `Scene` and `CellFrame`s arrive in milliseconds. So the attach connects
with a blocking socket, says Hello, asks whether the first-run wizard is due, reads until
the scene and a frame of every shown cell are in (or `FIRST_FRAME_WAIT` passed), and paints
them with `idea_tui.first_paint`. The app then adopts the socket, with the messages and any
bytes read so far, and paints the same frame on top. The terminal is in quiet mode (no
echo, no line editing) from that paint on, so keys typed meanwhile wait for the app, which
holds them until its own first frame and hands them to the shell.

Nothing is painted early when the wizard is due (it comes with the app's first frame), when
the terminal has fewer than 256 colours, or for a page the app draws itself (the graph).
"""

from __future__ import annotations

import contextlib
import os
import select
import termios
import time

from adapters.ipc import msgpack_lite
from adapters.locations import Locations
from core.environment import refreshed_variables
from core.version import VERSION
from idea_tui.daemon_socket import DaemonError, VersionMismatch, connect_socket
from idea_tui.early_scene import EarlyCellFrame, EarlyScene
from idea_tui.first_paint import CellScreen, Painter, colour_mode

TYPE_CHECKING = False  # typing, msgspec and the Structs are loaded after the first frame
if TYPE_CHECKING:
    import socket
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from adapters.ipc.messages import DaemonMessage, Welcome

FIRST_FRAME_WAIT = 0.5
"""Seconds the early frame waits for the daemon's scene and frames (milliseconds, normally);
past that the app draws whatever comes, as it would have anyway."""
FIRST_RUN_REQUEST = 0
"""The id of the early `profile_list` request (the gateway numbers its own from 1)."""
PROTOCOL_VERSION = 2
"""`adapters.ipc.messages.PROTOCOL_VERSION` (the tests hold them equal)."""
MAX_FRAME = 64 * 1024 * 1024
"""`adapters.ipc.framing.MAX_FRAME`."""

ENTER = "\x1b[?1049h\x1b[?25l\x1b[?7l"  # alternate screen, no cursor, no autowrap
LEAVE = "\x1b[?7h\x1b[?25h\x1b[?1049l"


class EarlyFrame:
    """What the first frame needs, gathered from the daemon's first messages (as maps)."""

    def __init__(self) -> None:
        self.scene: EarlyScene | None = None
        self.screens: dict[str, CellScreen] = {}
        self.notice: tuple[str, str] | None = None
        self.detached = False
        self.refusal: str | None = None
        """Why the daemon detached the client at once (no such window), if it did."""

    def watch(self, message: dict[Any, Any]) -> None:
        tag = message.get("t")
        if tag == "scene":
            self.scene = EarlyScene(message)
        elif tag == "frame":
            frame = EarlyCellFrame(message)
            self.screens.setdefault(frame.cell, CellScreen()).apply(frame)
        elif tag == "notice":
            self.notice = (str(message.get("text", "")), str(message.get("level", "info")))
        elif tag == "detached":
            self.detached = True
            if message.get("error") and self.scene is None:
                self.refusal = str(message.get("reason", ""))

    def complete(self) -> bool:
        """The scene is in, and a frame for every cell that shows a program."""
        scene = self.scene
        if scene is None:
            return False
        return all(cell.id in self.screens for cell in scene.cells
                   if not (cell.message and not cell.running and cell.exit_code is None))

    def drawable(self) -> bool:
        """Only pages of terminals and agents are drawn early (a graph page is the app's)."""
        scene = self.scene
        return (scene is not None and not self.detached
                and all(cell.kind in ("terminal", "agent") for cell in scene.cells))


class EarlyConnection:
    """A connection whose handshake and first messages are read: the gateway adopts it."""

    def __init__(self, sock: socket.socket, welcome: dict[Any, Any]) -> None:
        self.sock = sock
        self.welcome_map = welcome
        self.bodies: list[bytes] = []
        """The daemon's messages read so far, undecoded (the app decodes them)."""
        self.unread = b""
        self.ended = False
        self.first_run_due: bool | None = None
        """Whether profiles.json is missing (None: no answer in time; the app asks again)."""
        self.frame = EarlyFrame()

    def welcome(self) -> Welcome:
        """The handshake's answer as the app takes it (loads msgspec: after the paint)."""
        from adapters.ipc.messages import Welcome

        info = self.welcome_map
        return Welcome(protocol=int(info.get("protocol", 0)),
                       daemon_version=str(info.get("daemon_version", "")),
                       daemon_pid=int(info.get("daemon_pid", 0)),
                       client_id=int(info.get("client_id", 0)))

    def messages(self) -> list[DaemonMessage]:
        """The messages read so far, decoded for the app (loads msgspec: after the paint)."""
        from adapters.ipc import framing

        return [framing.decode_daemon(body) for body in self.bodies]


def _hello(window: str | None, width: int, height: int,
           refresh_env: Sequence[str]) -> dict[str, Any]:
    """`adapters.ipc.messages.Hello` as its map (the handshake's shape never changes)."""
    return {"t": "hello", "protocol": PROTOCOL_VERSION, "client_version": VERSION,
            "kind": "tui", "window": window, "width": width, "height": max(height - 2, 1),
            "env": refreshed_variables(os.environ, refresh_env)}


def _recv_exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            return None
        chunks += chunk
    return bytes(chunks)


def _recv_frame(sock: socket.socket) -> bytes | None:
    """One frame, read to its end and no further (what follows is the first frame's)."""
    header = _recv_exactly(sock, msgpack_lite.HEADER.size)
    if header is None:
        return None
    (length,) = msgpack_lite.HEADER.unpack(header)
    if length > MAX_FRAME:
        raise msgpack_lite.LiteError(f"frame of {length} bytes exceeds the {MAX_FRAME} limit")
    return _recv_exactly(sock, length)


def _handshake(sock: socket.socket, hello: dict[str, Any]) -> dict[Any, Any]:
    """`idea_tui.control.handshake`, on maps.

    Raises:
        VersionMismatch: The daemon speaks another protocol version.
        DaemonError: It closed the connection or answered something else.
    """
    sock.sendall(msgpack_lite.frame(hello))
    try:
        body = _recv_frame(sock)
        reply = msgpack_lite.decode(body) if body is not None else None
    except (msgpack_lite.LiteError, OSError) as exc:
        raise DaemonError(f"unexpected answer from the idea daemon: {exc}") from None
    if body is None:
        raise DaemonError("the idea daemon closed the connection during the handshake")
    if not isinstance(reply, dict):
        raise DaemonError("unexpected answer from the idea daemon")
    if reply.get("t") == "refused":
        raise VersionMismatch(str(reply.get("daemon_version", "?")),
                              int(reply.get("protocol", 0)))
    if reply.get("t") != "welcome":
        raise DaemonError("unexpected answer from the idea daemon")
    return reply


def connect(locations: Locations, window: str | None, size: tuple[int, int],
            refresh_env: Sequence[str] = (),
            wait: float = FIRST_FRAME_WAIT) -> EarlyConnection:
    """Connect as a TUI client of `size` (the terminal's: the grid is two rows less) and
    read the first frame's messages.

    Raises:
        DaemonError: No daemon to talk to (VersionMismatch: one of another version).
    """
    width, height = size
    sock = connect_socket(locations)
    try:
        welcome = _handshake(sock, _hello(window, width, height, refresh_env))
        early = EarlyConnection(sock, welcome)
        try:
            sock.sendall(msgpack_lite.frame(
                {"t": "req", "id": FIRST_RUN_REQUEST, "method": "profile_list"}))
        except OSError:
            # The daemon said something and hung up (no such window): what it said is
            # read below, and the app shows it.
            early.first_run_due = False
        _read_first_frame(early, time.monotonic() + wait)
    except BaseException:
        sock.close()
        raise
    return early


def _read_first_frame(early: EarlyConnection, deadline: float) -> None:
    buffer = bytearray()
    frame = early.frame
    while not frame.detached and not (frame.complete() and early.first_run_due is not None):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([early.sock], [], [], left)[0]:
            break
        try:
            data = early.sock.recv(1 << 16)
        except OSError:
            data = b""
        if not data:
            early.ended = True
            break
        buffer += data
        try:
            bodies = msgpack_lite.split_frames(buffer, MAX_FRAME)
        except msgpack_lite.LiteError:
            break  # the app's own reader says what is wrong with the stream
        for body in bodies:
            try:
                message = msgpack_lite.decode(body)
            except msgpack_lite.LiteError:
                message = None  # the app decodes it again, and reports it
            if (isinstance(message, dict) and message.get("t") == "res"
                    and message.get("id") == FIRST_RUN_REQUEST):
                info = message.get("result") if message.get("error") is None else None
                early.first_run_due = isinstance(info, dict) and not info.get("configured", True)
                continue
            if isinstance(message, dict):
                frame.watch(message)
            early.bodies.append(body)
    early.unread = bytes(buffer)


class QuietTerminal:
    """The user's terminal while the early frame shows: echo and line editing off, so keys
    typed before the app runs wait unseen for it. `restore` puts back what was there before
    (the app restores what it found when it started, which is this quiet state)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        try:
            self.saved: list[Any] | None = termios.tcgetattr(fd)
        except termios.error:
            self.saved = None

    def quiet(self) -> None:
        if self.saved is None:
            return
        attrs = termios.tcgetattr(self.fd)
        attrs[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG)
        attrs[6][termios.VMIN] = 1
        termios.tcsetattr(self.fd, termios.TCSANOW, attrs)

    def restore(self) -> None:
        if self.saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self.fd, termios.TCSANOW, self.saved)


def paint(early: EarlyConnection, size: tuple[int, int], write: Callable[[str], None],
          terminal: QuietTerminal, *, prefix_label: str,
          environ: Mapping[str, str] = os.environ) -> bool:
    """Draw the first frame; False when nothing was drawn (see the module docstring)."""
    frame = early.frame
    mode = colour_mode(environ)
    if mode is None or early.first_run_due is not False or not frame.drawable():
        return False
    assert frame.scene is not None
    width, height = size
    painter = Painter(frame.scene, frame.screens, width, height, mode,
                      prefix_label=prefix_label, welcome_path=os.getcwd(),
                      notice=frame.notice)
    terminal.quiet()
    write(ENTER + painter.paint())
    return True
