"""The fake agent's MCP client: the official mcp SDK, connected from the config it was given
(`--mcp-config FILE`, Claude Code's format: a stdio command — idea's bridge — or an HTTP URL
with headers), like a real agent CLI. Loaded only with `--mcp-connect`; the rest of the fake
agent stays standard-library only.

The client lives on an asyncio loop in a thread of its own for the whole run; the agent's
main thread calls tools through `call` (blocking, as a CLI's turn does).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import httpx2
import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


def _client(config: str) -> Client:
    server = json.loads(Path(config).read_text(encoding="utf-8"))["mcpServers"]["idea"]
    if server.get("type") == "http" or "url" in server:
        http = httpx2.AsyncClient(headers=server.get("headers") or {}, timeout=600)
        return Client(streamable_http_client(server["url"], http_client=http), mode="legacy")
    env = dict(os.environ)
    env.update(server.get("env") or {})
    params = StdioServerParameters(command=server["command"], args=server.get("args", []), env=env)
    return Client(params, mode="legacy")


class McpLink:
    def __init__(self, config: str) -> None:
        self.config = config
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.error: str | None = None
        self._client: Client | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="mcp", daemon=True)

    def start(self, timeout: float = 60.0) -> None:
        self._thread.start()
        self.ready.wait(timeout)
        if self.error is None and self._client is None:
            self.error = "the MCP client did not connect in time"

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with _client(self.config) as client:
                self._client = client
                self.ready.set()
                await self._stop.wait()
        except BaseException as exc:  # shown on screen by the agent
            self.error = f"{type(exc).__name__}: {exc}"
            self.ready.set()

    def submit(
        self,
        name: str,
        arguments: dict[str, Any],
        on_progress: Callable[[str], None] | None = None,
    ) -> Future[tuple[bool, str]]:
        """Start a tool call; the future gives (is_error, text). Cancel it to cancel the call."""
        client = self._client
        if client is None:
            raise RuntimeError(self.error or "not connected")

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                on_progress(message or "")

        async def call() -> tuple[bool, str]:
            result = await client.call_tool(name, arguments, progress_callback=progress)
            text = "".join(
                block.text for block in result.content if isinstance(block, mcp_types.TextContent)
            )
            return bool(result.is_error), text

        return asyncio.run_coroutine_threadsafe(call(), self.loop)

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        return self.submit(name, arguments).result()

    def close(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(5)
