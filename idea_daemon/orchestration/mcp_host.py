"""Hosting idea's MCP server in the daemon (D11): both listeners, the agents' secrets and the
config each agent is launched with.

Both listeners are bound at once when the daemon starts — the Unix socket for the stdio
bridge and a 127.0.0.1 port for streamable HTTP — so configs can be written immediately;
the mcp SDK itself (seconds to import on a loaded machine) is loaded in a worker thread and
connections wait for it, queued, instead of delaying the daemon's start.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adapters.mcp.identity import Caller, SecretRegistry
from core.agents.profile import AgentProfile, ConfigFile, McpTransport

if TYPE_CHECKING:
    from adapters.mcp.bridge import BridgeEndpoint
    from adapters.mcp.http import HttpEndpoint
    from adapters.mcp.port import Orchestrator

log = logging.getLogger(__name__)

class McpHost:
    def __init__(self, socket_path: Path, orchestrator: Orchestrator) -> None:
        self.socket_path = socket_path
        self.orchestrator = orchestrator
        self.registry = SecretRegistry()
        self.http: HttpEndpoint | None = None
        self.bridge: BridgeEndpoint | None = None
        self._listener: asyncio.base_events.Server | None = None
        self._http_socket: socket.socket | None = None
        self._ready = asyncio.Event()
        self._failed: str | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        port = self._http_socket.getsockname()[1] if self._http_socket else 0
        return f"http://127.0.0.1:{port}/mcp"

    async def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()  # a killed daemon's socket (we hold the daemon lock)
        self._listener = await asyncio.start_unix_server(
            self._accept, path=str(self.socket_path), limit=16 * 1024 * 1024
        )
        os.chmod(self.socket_path, 0o600)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        sock.setblocking(False)
        self._http_socket = sock
        self._task = asyncio.get_running_loop().create_task(self._load())

    async def _load(self) -> None:
        try:
            loop = asyncio.get_running_loop()
            for name in ("adapters.mcp.tools", "adapters.mcp.http", "adapters.mcp.bridge"):
                await loop.run_in_executor(None, importlib.import_module, name)
            from adapters.mcp.bridge import BridgeEndpoint
            from adapters.mcp.http import HttpEndpoint
            from adapters.mcp.tools import build_server

            server = build_server(self.orchestrator)
            self.bridge = BridgeEndpoint(server, self.registry, self._connected, self.socket_path)
            self.http = HttpEndpoint(server, self.registry, self._connected)
            assert self._http_socket is not None
            self.http.adopt(self._http_socket)
            await self.http.start()
            log.info("MCP server ready: %s and %s", self.socket_path, self.http.url)
        except Exception as exc:
            self._failed = str(exc)
            log.exception("the MCP server did not start")
        finally:
            self._ready.set()

    def _connected(self, caller: Caller) -> None:
        self.orchestrator.connected(caller)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._ready.wait()
        if self.bridge is None:
            writer.write(b'{"ok": false, "error": "idea: the MCP server failed to start"}\n')
            with contextlib.suppress(Exception):
                await writer.drain()
            writer.close()
            return
        await self.bridge.handle(reader, writer)

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.close()
        if self.bridge is not None:
            await self.bridge.stop()
        if self.http is not None:
            await self.http.stop()
        if self._task is not None:
            self._task.cancel()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    # ─── per agent ───────────────────────────────────────────────────────────────────

    def write_agent_config(self, caller: Caller, profile: AgentProfile, run_dir: Path) -> Path:
        """A fresh secret and the agent's MCP config in its run dir; returns the file."""
        from adapters.mcp.config import http_entry, stdio_entry, write_config

        assert profile.mcp is not None
        secret = self.registry.issue(caller)
        entry: Callable[[Path], dict[str, Any]]
        if profile.mcp.transport is McpTransport.HTTP:
            url = self.url

            def entry(_path: Path) -> dict[str, Any]:
                return http_entry(url, secret)
        else:
            socket_path = str(self.socket_path)

            def entry(path: Path) -> dict[str, Any]:
                return stdio_entry(path, socket_path, secret)

        name = "mcp.json"
        if isinstance(profile.mcp.config, ConfigFile):
            name = profile.mcp.config.target
        folder = (run_dir / name).parent
        folder.mkdir(parents=True, exist_ok=True)
        return write_config(folder, entry, (run_dir / name).name)

    def forget(self, caller: Caller) -> None:
        self.registry.revoke(caller)
