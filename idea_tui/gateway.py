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
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from adapters.ipc import framing
from adapters.ipc.messages import (
    PROTOCOL_VERSION,
    ClientSize,
    DaemonMessage,
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
    checked_params,
    client_env,
    refuse_foreign_daemon,
)

log = logging.getLogger(__name__)


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

    def start(self) -> None:
        """Begin delivering daemon messages to `on_message`."""
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
        return await future

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

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()
