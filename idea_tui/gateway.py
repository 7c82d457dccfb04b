"""The client's only way to the daemon: an asyncio connection speaking the framed protocol.

Widgets and screens never touch sockets or message classes from the wire directly: they call
`Gateway` methods, and the app receives daemon messages through the `on_message` callback.
Tests can replace it with any object that has the same methods (see `GatewayPort`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from adapters.ipc import framing
from adapters.ipc.messages import (
    PROTOCOL_VERSION,
    ClientSize,
    DaemonMessage,
    FramesShown,
    Hello,
    KeyInput,
    MouseInput,
    PasteInput,
    RawInput,
    Request,
    Response,
    Welcome,
)
from adapters.locations import Locations
from core.version import VERSION
from idea_tui.control import (
    CommandFailed,
    DaemonError,
    VersionMismatch,
    check_socket,
    checked_answer,
    checked_params,
    client_env,
    decoded,
    decoded_list,
    refuse_foreign_daemon,
)

log = logging.getLogger(__name__)
T = TypeVar("T")


class GatewayPort(Protocol):
    """What the app needs from a connection to the daemon."""

    async def call(self, method: str, **params: Any) -> Any: ...

    def key(self, cell: str, key: str, character: str | None) -> None: ...

    def raw(self, cell: str, data: bytes) -> None: ...

    def paste(self, cell: str, text: str) -> None: ...

    def mouse(
        self,
        cell: str,
        kind: str,
        button: int,
        x: int,
        y: int,
        *,
        shift: bool = False,
        alt: bool = False,
        ctrl: bool = False,
    ) -> None: ...

    def resize(self, width: int, height: int) -> None: ...

    def frames_shown(self, count: int) -> None: ...

    async def close(self) -> None: ...


class Gateway:
    """A live connection. Create it with `Gateway.connect`."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, welcome: Welcome
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.welcome = welcome
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._task: asyncio.Task[None] | None = None
        self.on_message: Callable[[DaemonMessage], None] = lambda message: None
        self.on_closed: Callable[[str], None] = lambda reason: None
        self._held: list[DaemonMessage] | None = None
        self._closed_while_held: str | None = None

    @classmethod
    async def connect(
        cls, locations: Locations, *, window: str | None, width: int, height: int,
        refresh_env: Sequence[str] = (),
    ) -> Gateway:
        check_socket(locations)
        try:
            reader, writer = await asyncio.open_unix_connection(str(locations.socket))
        except OSError as exc:
            raise DaemonError(f"cannot reach the idea daemon: {exc.strerror or exc}") from exc
        try:
            refuse_foreign_daemon(writer.get_extra_info("socket"), str(locations.socket))
        except DaemonError:
            writer.close()
            raise
        hello = Hello(
            protocol=PROTOCOL_VERSION,
            client_version=VERSION,
            kind="tui",
            window=window,
            width=width,
            height=height,
            env=client_env(refresh_env),
        )
        writer.write(framing.encode(hello))
        body = await framing.read_frame(reader)
        if body is None:
            raise DaemonError("the idea daemon closed the connection during the handshake")
        reply = framing.peek_handshake(body)
        if reply.get("t") == "refused":
            writer.close()
            raise VersionMismatch(
                str(reply.get("daemon_version", "?")), int(reply.get("protocol", 0))
            )
        welcome = framing.decode_daemon(body)
        if not isinstance(welcome, Welcome):
            raise DaemonError("unexpected answer from the idea daemon")
        return cls(reader, writer, welcome)

    def hold(self, watch: Callable[[DaemonMessage], None] = lambda message: None) -> None:
        """Read the daemon's messages from now on, keeping them (each shown to `watch`) for
        whoever calls `start` later; calls are answered meanwhile. `idea attach` paints its
        first frame from them before the app, which takes them over, is even imported."""
        held: list[DaemonMessage] = []
        self._held = held

        def keep(message: DaemonMessage) -> None:
            held.append(message)
            watch(message)

        def closed(reason: str) -> None:
            self._closed_while_held = reason

        self.on_message = keep
        self.on_closed = closed
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def adopt(cls, sock: socket.socket, welcome: Welcome, *, unread: bytes = b"",
                    ended: bool = False, held: Sequence[DaemonMessage] = ()) -> Gateway:
        """A gateway on a connection whose handshake and first messages were read elsewhere
        (blocking, by `idea_tui.early_attach`): `unread` is what came after the last whole
        message, `ended` says the daemon closed it already, `held` are the messages read,
        delivered first once `start` is called."""
        reader, writer = await asyncio.open_unix_connection(sock=sock)
        if unread:
            reader.feed_data(unread)
        if ended:
            reader.feed_eof()
        gateway = cls(reader, writer, welcome)
        gateway.hold()
        assert gateway._held is not None
        gateway._held[:0] = held
        return gateway

    def start(self) -> None:
        """Begin delivering daemon messages to `on_message` (first those kept since `hold`,
        in order, then a close that happened meanwhile)."""
        if self._held is not None:
            held, self._held = self._held, None
            for message in held:
                self.on_message(message)
            if self._closed_while_held is not None:
                self.on_closed(self._closed_while_held)
                return
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._read_loop())

    async def _read_loop(self) -> None:
        reason = "the idea daemon went away"
        try:
            while True:
                body = await framing.read_frame(self._reader)
                if body is None:
                    break
                message = framing.decode_daemon(body)
                if isinstance(message, Response):
                    future = self._pending.pop(message.id, None)
                    if future is not None and not future.done():
                        if message.error is not None:
                            future.set_exception(
                                CommandFailed(message.error.code, message.error.message)
                            )
                        else:
                            future.set_result(message.result)
                    continue
                self.on_message(message)
        except (framing.FrameError, ConnectionError) as exc:
            reason = f"lost the connection to the idea daemon: {exc}"
        except asyncio.CancelledError:
            return
        for future in self._pending.values():
            if not future.done():
                future.set_exception(DaemonError(reason))
        self._pending.clear()
        self.on_closed(reason)

    def _send(self, message: Any) -> None:
        if self._writer.is_closing():
            return
        try:
            self._writer.write(framing.encode(message))
        except (ConnectionError, RuntimeError) as exc:
            log.debug("send failed: %s", exc)

    async def call(self, method: str, **params: Any) -> Any:
        """Run a daemon command and return its result (raises CommandFailed)."""
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        clean = checked_params(method, params)
        self._send(Request(id=request_id, method=method, params=clean))
        return checked_answer(method, await future)

    def key(self, cell: str, key: str, character: str | None) -> None:
        self._send(KeyInput(cell=cell, key=key, character=character))

    def raw(self, cell: str, data: bytes) -> None:
        self._send(RawInput(cell=cell, data=data))

    def paste(self, cell: str, text: str) -> None:
        self._send(PasteInput(cell=cell, text=text))

    def mouse(
        self,
        cell: str,
        kind: str,
        button: int,
        x: int,
        y: int,
        *,
        shift: bool = False,
        alt: bool = False,
        ctrl: bool = False,
    ) -> None:
        self._send(
            MouseInput(
                cell=cell, kind=kind, button=button, x=x, y=y, shift=shift, alt=alt, ctrl=ctrl
            )
        )

    def resize(self, width: int, height: int) -> None:
        self._send(ClientSize(width=width, height=height))

    def frames_shown(self, count: int) -> None:
        """The screen was repainted with the first `count` frames received."""
        self._send(FramesShown(count=count))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()


async def call_as(gateway: GatewayPort, answer: type[T], method: str, /,
                  **params: Any) -> T:
    """Run a command whose answer is the Struct `answer` (`adapters.ipc.answers`) and decode
    its result ("bad_answer" `CommandFailed` when it does not fit)."""
    return decoded(answer, method, await gateway.call(method, **params))


async def call_list(gateway: GatewayPort, answer: type[T], method: str, /,
                    **params: Any) -> list[T]:
    """Run a command whose answer is a list of the Struct `answer`."""
    return decoded_list(answer, method, await gateway.call(method, **params))
