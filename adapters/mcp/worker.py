"""The MCP server's own process: `python -m adapters.mcp.worker --channel FD --unix FD
--http FD`, started and owned by the daemon (`idea_daemon/orchestration/mcp_host.py`).

It serves idea's MCP server (the mcp SDK: the tools of `tools.py`, the stdio bridge's Unix
socket and streamable HTTP, both bound by the daemon and passed down, so their addresses
never change) and reaches the daemon's delegation service through the channel
(`channel.py`): each tool call is one `Call` frame, answered by a `Result` or a `Failure`.

Why a process and not a thread of the daemon: the SDK spends about two milliseconds of
Python per tool call, and threads share the interpreter lock — each call held the daemon's
loop (every PTY's echo) for that long, and under a stream of delegations the loop kept
losing the lock. Here the SDK loads (seconds, on a loaded machine) and works on its own
CPU time; the daemon decodes one small frame per call.

Secrets: the daemon issues them and sends each (`Grant`); a secret the worker does not know
yet is looked up again after a round trip through the channel (`Sync`), so a CLI that
connects before its grant was read is still served. The worker ends when the channel
closes (the daemon stopped or died): it never outlives its daemon.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import logging
import socket
import sys
from collections.abc import Awaitable, Callable
from typing import Any, cast

from adapters.gc_pauses import freeze_startup_objects
from adapters.mcp import channel
from adapters.mcp.identity import Caller, SecretRegistry
from adapters.mcp.port import AskOutcome, Orchestrator
from core.errors import IdeaError

log = logging.getLogger("idea_mcp_worker")

Progress = Callable[[str], Awaitable[None]]


class RemoteError(IdeaError):
    """An error the daemon's service raised for this call (its message is the model's)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


class Link:
    """The worker's end of the channel."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 registry: SecretRegistry) -> None:
        self.reader = reader
        self.writer = writer
        self.registry = registry
        self._ids = itertools.count(1)
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._progress: dict[int, Progress] = {}
        self._syncs: dict[int, asyncio.Future[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.closed = asyncio.Event()

    def send(self, frame: Any) -> None:
        if not self.writer.is_closing():
            self.writer.write(channel.encode(frame))

    async def first(self) -> channel.Serve:
        """Say hello and read what the daemon serves (with the secrets it issued so far)."""
        self.send(channel.Hello())
        body = await channel.read_body(self.reader)
        if body is None:
            raise ConnectionError("the daemon closed the channel")
        frame = channel.decode_to_worker(body)
        if not isinstance(frame, channel.Serve):
            raise channel.ChannelError(f"expected serve, got {type(frame).__name__}")
        for grant in frame.secrets:
            self.registry.grant(grant.caller.caller(), grant.secret)
        return frame

    async def call(self, caller: Caller, method: str, args: list[Any],
                   progress: Progress | None, at: int) -> Any:
        """Run `method` in the daemon; cancelling this cancels it there."""
        if self.closed.is_set():
            raise RemoteError("idea's daemon is gone; relaunch the agent", "unavailable")
        number = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[number] = future
        if progress is not None:
            self._progress[number] = progress
        self.send(channel.Call(id=number, caller=channel.Who.of(caller), method=method,
                               args=args, progress=at))
        try:
            return await future
        except asyncio.CancelledError:
            self.send(channel.Cancel(id=number))
            raise
        finally:
            self._calls.pop(number, None)
            self._progress.pop(number, None)

    async def sync(self) -> None:
        """Until every frame the daemon sent before now was read (its secrets granted)."""
        if self.closed.is_set():
            return
        number = next(self._ids)
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._syncs[number] = waiter
        self.send(channel.Sync(id=number))
        try:
            await asyncio.wait_for(waiter, 10)
        except TimeoutError:
            # The caller looks the secret up as it stands: still unknown, it is refused.
            log.warning("the daemon did not answer a secret sync within 10 s")
        finally:
            self._syncs.pop(number, None)

    async def run(self) -> None:
        """Read the daemon's frames until the channel closes."""
        try:
            while (body := await channel.read_body(self.reader)) is not None:
                self._handle(channel.decode_to_worker(body))
        except (channel.ChannelError, ConnectionError) as exc:
            log.error("the channel to the daemon broke: %s", exc)
        finally:
            self.closed.set()
            for future in [*self._calls.values(), *self._syncs.values()]:
                if not future.done():
                    future.set_exception(RemoteError("idea's daemon is gone", "unavailable"))

    def _handle(self, frame: channel.ToWorker) -> None:
        if isinstance(frame, channel.Result | channel.Failure):
            future = self._calls.get(frame.id)
            if future is None or future.done():
                return  # cancelled meanwhile
            if isinstance(frame, channel.Result):
                future.set_result(frame.value)
            else:
                future.set_exception(RemoteError(frame.message, frame.code))
        elif isinstance(frame, channel.Progress):
            report = self._progress.get(frame.id)
            if report is not None:
                task = asyncio.get_running_loop().create_task(_quietly(report(frame.message)))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        elif isinstance(frame, channel.Grant):
            self.registry.grant(frame.caller.caller(), frame.secret)
        elif isinstance(frame, channel.Revoke):
            self.registry.revoke(frame.caller.caller())
        elif isinstance(frame, channel.Synced):
            waiter = self._syncs.get(frame.id)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)


async def _quietly(report: Awaitable[None]) -> None:
    with contextlib.suppress(Exception):  # a client that left: the call goes on
        await report


class RemotePort:
    """The daemon's service as the tools see it: one coroutine method per path the daemon
    serves (`knowledge.memory_read` becomes `self.knowledge.memory_read`), so the tool
    modules' port checks find what the daemon has and nothing else."""

    def __init__(self, link: Link, methods: list[str], prefix: str = "") -> None:
        nested: dict[str, list[str]] = {}
        for path in methods:
            head, dot, rest = path.partition(".")
            if dot:
                nested.setdefault(head, []).append(rest)
            else:
                setattr(self, head, _remote(link, prefix + head))
        for name, paths in nested.items():
            setattr(self, name, RemotePort(link, paths, f"{prefix}{name}."))


def _remote(link: Link, path: str) -> Callable[..., Awaitable[Any]]:
    async def call(caller: Caller, *args: Any) -> Any:
        plain: list[Any] = []
        progress: Progress | None = None
        at = -1
        for index, value in enumerate(args):
            if callable(value):  # the ask's progress callback stays here
                progress, at = value, index
                plain.append(None)
            else:
                plain.append(value)
        value = await link.call(caller, path, plain, progress, at)
        if path == "ask":
            return AskOutcome(**value)
        return value

    call.__name__ = path.replace(".", "_")
    return call


class ChannelLogHandler(logging.Handler):
    """The worker's log records go to the daemon's log (from any thread)."""

    def __init__(self, link: Link, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(logging.INFO)
        self.link = link
        self.loop = loop

    def emit(self, record: logging.LogRecord) -> None:
        try:
            frame = channel.Log(level=record.levelno, name=record.name,
                                message=self.format(record))
            self.loop.call_soon_threadsafe(self.link.send, frame)
        except Exception:  # a closed loop at exit: nothing left to tell
            pass


async def serve(channel_fd: int, unix_fd: int, http_fd: int) -> int:
    registry = SecretRegistry()
    sock = socket.socket(fileno=channel_fd)
    reader, writer = await asyncio.open_unix_connection(sock=sock)
    link = Link(reader, writer, registry)
    handler = ChannelLogHandler(link, asyncio.get_running_loop())
    handler.setFormatter(logging.Formatter("%(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    try:
        served = await link.first()
    except (OSError, channel.ChannelError) as exc:
        # The daemon left (stopped, or died) before it said what to serve: nothing to do,
        # and nothing to report on a terminal that is no longer the daemon's.
        log.debug("the daemon's channel closed before serving: %s", exc)
        return 0
    unix = socket.socket(fileno=unix_fd)
    unix.setblocking(False)
    http_socket = socket.socket(fileno=http_fd)
    http_socket.setblocking(False)
    try:
        listener, http = await _start(link, served, unix, http_socket)
    except Exception as exc:
        log.exception("the MCP server did not start")
        link.send(channel.Ready(error=str(exc) or type(exc).__name__))
        # Bridges are told why at once rather than left waiting in the backlog.
        listener, http = await asyncio.start_unix_server(_refuse, sock=unix), None
    else:
        link.send(channel.Ready())
    freeze_startup_objects()  # the MCP SDK and its dependencies: never walked again
    try:
        await link.run()
    finally:
        listener.close()
        if http is not None:
            await http.stop()
    return 0


async def _start(link: Link, served: channel.Serve, unix: socket.socket,
                 http_socket: socket.socket) -> tuple[asyncio.base_events.Server, Any]:
    from adapters.mcp.bridge import MAX_LINE, BridgeEndpoint
    from adapters.mcp.http import HttpEndpoint
    from adapters.mcp.tools import build_server
    from adapters.mcp.warm_up import warm_up

    warm_up()
    port = cast("Orchestrator", RemotePort(link, served.methods))
    server = build_server(port)

    def connected(caller: Caller) -> None:
        link.send(channel.Connected(caller=channel.Who.of(caller)))

    bridge = BridgeEndpoint(server, link.registry, connected, unix_path(unix),
                            sync=link.sync)
    http = HttpEndpoint(server, link.registry, connected, sync=link.sync)
    http.adopt(http_socket)
    await http.start()
    listener = await asyncio.start_unix_server(bridge.handle, sock=unix, limit=MAX_LINE)
    log.info("MCP server ready: %s and %s", bridge.path, http.url)
    return listener, http


def unix_path(sock: socket.socket) -> Any:
    from pathlib import Path

    return Path(sock.getsockname())


async def _refuse(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b'{"ok": false, "error": "idea: the MCP server failed to start"}\n')
    with contextlib.suppress(Exception):
        await writer.drain()
    writer.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="idea-mcp-worker", description=__doc__)
    parser.add_argument("--channel", type=int, required=True)
    parser.add_argument("--unix", type=int, required=True)
    parser.add_argument("--http", type=int, required=True)
    args = parser.parse_args(argv)
    return asyncio.run(serve(args.channel, args.unix, args.http))


if __name__ == "__main__":
    sys.exit(main())
