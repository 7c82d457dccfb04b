"""Streamable HTTP on 127.0.0.1, in the MCP worker's loop (ARCHITECTURE "MCP server").

uvicorn serves the SDK's Starlette app as a task of the running loop, on a socket idea binds
itself (port 0: the kernel picks a free one, so a killed daemon's port never blocks a new
one), with uvicorn's signal capture and logging setup left out — the process owns both.

Every request must carry `Authorization: Bearer <agent secret>`; anything else gets 401
before the MCP layer sees a byte. The caller found for the secret goes into the ASGI scope,
where the tools read it (`adapters.mcp.tools.SCOPE_KEY`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer

from adapters.mcp.identity import Caller, SecretRegistry
from adapters.mcp.tools import SCOPE_KEY

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
Scope = dict[str, Any]
ASGIApp = Callable[..., Any]


class BearerAuth:
    """ASGI middleware: identify the agent by its secret, refuse everyone else."""

    def __init__(
        self, app: ASGIApp, registry: SecretRegistry, on_caller: Callable[[Caller], None],
        sync: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.app = app
        self.registry = registry
        self.on_caller = on_caller
        self.sync = sync

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = _bearer(scope)
        caller = self.registry.resolve(token)
        if caller is None and token and self.sync is not None:
            await self.sync()  # a secret granted a moment ago may still be on its way
            caller = self.registry.resolve(token)
        if caller is None:
            await _refuse(send)
            return
        scope[SCOPE_KEY] = caller
        self.on_caller(caller)
        await self.app(scope, receive, send)


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"authorization":
            text = bytes(value).decode("latin-1")
            scheme, _, token = text.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


async def _refuse(send: Any) -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32001, "message": "idea: missing or unknown agent secret"},
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="idea"'),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class _InLoopServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # The daemon handles its own signals; uvicorn must not take SIGINT/SIGTERM.
        yield


class HttpEndpoint:
    """The HTTP listener: `start()` binds and serves, `url` says where, `stop()` ends it."""

    def __init__(
        self,
        server: MCPServer,
        registry: SecretRegistry,
        on_caller: Callable[[Caller], None],
        host: str = "127.0.0.1",
        sync: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.host = host
        app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
        self._app = BearerAuth(app, registry, on_caller, sync)
        self._server: _InLoopServer | None = None
        self._task: asyncio.Task[None] | None = None
        self._socket: socket.socket | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{MCP_PATH}"

    def adopt(self, sock: socket.socket) -> None:
        """Serve on a socket bound (and listening) by the caller."""
        self._socket = sock
        self.port = sock.getsockname()[1]

    def bind(self) -> int:
        """Bind and listen now (the URL is known before serving starts: connections wait
        in the backlog); returns the port."""
        if self._socket is None:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, 0))
            sock.listen(128)
            sock.setblocking(False)
            self._socket = sock
            self.port = sock.getsockname()[1]
        return self.port

    async def start(self) -> None:
        self.bind()
        sock = self._socket
        assert sock is not None
        config = uvicorn.Config(
            self._app,
            log_config=None,
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=1,
            ws="none",
        )
        # `load` imports the protocol classes (h11, httptools) and wraps the app: off the loop.
        await asyncio.get_running_loop().run_in_executor(None, config.load)
        self._server = _InLoopServer(config)
        self._task = asyncio.get_running_loop().create_task(self._server.serve([sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()  # raises what failed
                raise RuntimeError("the MCP HTTP server stopped while starting")
            await asyncio.sleep(0.01)
        log.info("MCP server listening on %s", self.url)

    async def stop(self) -> None:
        if self._server is None or self._task is None:
            return
        self._server.should_exit = True
        try:
            await asyncio.wait_for(self._task, 5)
        except Exception:
            log.warning("MCP HTTP server did not stop cleanly", exc_info=True)
            self._task.cancel()
        self._server = None
