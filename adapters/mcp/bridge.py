"""The idea end of the stdio bridge: a Unix socket (`idea-mcp.sock`, 0600, bound by the daemon
and served by its MCP worker) that `idea mcp-server` relays a CLI's stdin/stdout to
(FEATURES.md MCP-3, MCP-4).

Framing: the bridge's first line is a handshake outside JSON-RPC, `{"idea": "mcp-bridge",
"secret": S}`; the daemon answers `{"ok": true}` (or `{"ok": false, "error": …}` and
closes). After that both directions carry MCP JSON-RPC, one message per line. Each
connection is served by the SDK's server loop, which handles every request in its own
task (a blocking ask never wedges a `tools/list` on the same connection, Bug 5). The caller
rides in each message's metadata, where the tools read it.

A malformed line gets a JSON-RPC error back (parse error, or invalid request with the id
when one can be read) and the connection goes on; nothing a peer sends can end the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import ServerMessageMetadata, SessionMessage

from adapters.mcp.identity import Caller, SecretRegistry

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT = 10.0
MAX_LINE = 16 * 1024 * 1024
"""One JSON-RPC message (a task or a reply can be long, not unbounded)."""
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def error_line(code: int, message: str, request_id: Any = None) -> bytes:
    return (
        json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        ).encode()
        + b"\n"
    )


def parse_line(line: bytes) -> mcp_types.JSONRPCMessage | bytes:
    """The message on a line, or the error line to answer with."""
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return error_line(PARSE_ERROR, "Parse error: not JSON")
    request_id = data.get("id") if isinstance(data, dict) else None
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        request_id = None
    try:
        return mcp_types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except Exception:
        message = "Invalid Request: not a JSON-RPC 2.0 message"
        return error_line(INVALID_REQUEST, message, request_id)


class BridgeEndpoint:
    def __init__(
        self,
        server: MCPServer,
        registry: SecretRegistry,
        on_caller: Callable[[Caller], None],
        path: Path,
        sync: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.server = server
        self.registry = registry
        self.on_caller = on_caller
        self.path = path
        self.sync = sync
        """Awaited before a secret is refused (the MCP worker: until the grants the daemon
        sent so far were read)."""
        self._listener: asyncio.base_events.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        # Only one daemon runs per runtime dir (it holds the lock): a socket file left here
        # belongs to a killed daemon and is reclaimed (MCP-4, no EADDRINUSE).
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._listener = await asyncio.start_unix_server(
            self.handle, path=str(self.path), limit=MAX_LINE
        )
        os.chmod(self.path, 0o600)
        log.info("MCP bridge socket at %s", self.path)

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        for task in list(self._connections):
            task.cancel()
        for task in list(self._connections):
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one bridge connection (handshake, then JSON-RPC lines)."""
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            caller = await self._handshake(reader, writer)
            if caller is not None:
                self.on_caller(caller)
                await self._serve(caller, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except Exception:
            log.exception("MCP bridge connection failed")
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _handshake(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Caller | None:
        try:
            line = await asyncio.wait_for(reader.readline(), HANDSHAKE_TIMEOUT)
            hello = json.loads(line)
            secret = hello.get("secret") if isinstance(hello, dict) else None
        except (TimeoutError, ValueError, asyncio.LimitOverrunError):
            secret = None
        token = secret if isinstance(secret, str) else None
        caller = self.registry.resolve(token)
        if caller is None and token and self.sync is not None:
            await self.sync()
            caller = self.registry.resolve(token)
        if caller is None:
            writer.write(b'{"ok": false, "error": "idea: missing or unknown agent secret"}\n')
            await writer.drain()
            return None
        writer.write(b'{"ok": true}\n')
        await writer.drain()
        return caller

    async def _serve(
        self, caller: Caller, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        to_server, from_peer = anyio.create_memory_object_stream[SessionMessage | Exception](64)
        to_peer, from_server = anyio.create_memory_object_stream[SessionMessage](64)
        write_lock = asyncio.Lock()

        async def send_line(data: bytes) -> None:
            async with write_lock:
                writer.write(data)
                await writer.drain()

        async def pump_in() -> None:
            async with to_server:
                while True:
                    try:
                        line = await reader.readline()
                    except ValueError:  # longer than MAX_LINE: drop what was read
                        await send_line(error_line(INVALID_REQUEST, "Message too long"))
                        continue
                    if not line:
                        return
                    if not line.strip():
                        continue
                    parsed = parse_line(line)
                    if isinstance(parsed, bytes):
                        await send_line(parsed)
                        continue
                    metadata = ServerMessageMetadata(request_context=caller)
                    await to_server.send(SessionMessage(parsed, metadata=metadata))

        async def pump_out() -> None:
            async with from_server:
                async for message in from_server:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await send_line(text.encode() + b"\n")

        lowlevel = self.server._lowlevel_server
        async with anyio.create_task_group() as group:
            group.start_soon(pump_in)
            group.start_soon(pump_out)
            # run() closes `to_peer` when it ends, which lets pump_out flush and finish.
            await lowlevel.run(from_peer, to_peer, lowlevel.create_initialization_options())
