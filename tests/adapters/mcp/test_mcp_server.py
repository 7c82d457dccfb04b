"""The real MCP server against the real mcp SDK client, over both transports (D11).

HTTP: uvicorn in the test's loop, the SDK's streamable HTTP client with a bearer secret.
stdio: the real `idea mcp-server` bridge process spawned by the SDK's stdio client, relaying
to the daemon-side Unix socket. Behind both, a fake orchestrator that records calls.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import mcp_types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from adapters.mcp.bridge import BridgeEndpoint
from adapters.mcp.config import http_entry, stdio_entry, write_config
from adapters.mcp.http import HttpEndpoint
from adapters.mcp.identity import Caller, SecretRegistry
from adapters.mcp.tools import build_server
from tests.adapters.mcp.fake_orchestrator import FakeOrchestrator, cancel_an_ask

DEV = Caller("agent-dev", "Dev", "/project")
QA = Caller("agent-qa", "QA", "/project")
TOOLS = {
    "idea_list_agents",
    "idea_ask_agent",
    "idea_reply",
    "idea_launch_agent",
    "idea_stop_agent",
    "idea_update_context",
}


@dataclass
class Rig:
    fake: FakeOrchestrator
    registry: SecretRegistry
    http: HttpEndpoint
    bridge: BridgeEndpoint
    run_dir: Path
    secrets: dict[str, str]

    def http_client(self, secret: str | None) -> Client:
        headers = {"Authorization": f"Bearer {secret}"} if secret else {}
        transport = streamable_http_client(
            self.http.url, http_client=httpx2.AsyncClient(headers=headers, timeout=60)
        )
        return Client(transport, mode="legacy")

    def stdio_client(self, caller: Caller) -> Client:
        folder = self.run_dir / caller.agent_id
        folder.mkdir(exist_ok=True)
        secret = self.secrets[caller.agent_id]
        path = write_config(folder, lambda p: stdio_entry(p, str(self.bridge.path), secret))
        return Client(StdioServerParameters(**_spawn_args(path)), mode="legacy")


def _idea() -> str:
    found = shutil.which("idea", path=str(Path(sys.executable).parent))
    assert found, "the idea command is installed next to the interpreter"
    return found


def _spawn_args(config: Path) -> dict[str, Any]:
    server = json.loads(config.read_text())["mcpServers"]["idea"]
    assert server["command"] == _idea()
    return {"command": server["command"], "args": server["args"], "env": dict(os.environ)}


@asynccontextmanager
async def rig(tmp_path: Path, orchestrator: FakeOrchestrator | None = None) -> AsyncIterator[Rig]:
    """Both endpoints on `orchestrator` (default: a plain `FakeOrchestrator`)."""
    fake = orchestrator or FakeOrchestrator()
    registry = SecretRegistry()
    secrets = {c.agent_id: registry.issue(c) for c in (DEV, QA)}
    server = build_server(fake)
    http = HttpEndpoint(server, registry, fake.connected)
    bridge = BridgeEndpoint(server, registry, fake.connected, tmp_path / "idea-mcp.sock")
    await http.start()
    await bridge.start()
    try:
        yield Rig(fake, registry, http, bridge, tmp_path, secrets)
    finally:
        await bridge.stop()
        await http.stop()


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), 90))


def text(result: mcp_types.CallToolResult) -> str:
    parts = [block.text for block in result.content if isinstance(block, mcp_types.TextContent)]
    return "".join(parts)


TRANSPORTS = ["http", "stdio"]


def client_for(r: Rig, transport: str, caller: Caller) -> Client:
    if transport == "http":
        return r.http_client(r.secrets[caller.agent_id])
    return r.stdio_client(caller)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_tools_and_identity_from_the_secret(tmp_path: Path, transport: str) -> None:
    async def body() -> None:
        async with rig(tmp_path) as r, client_for(r, transport, QA) as client:
            tools = await client.list_tools()
            assert {tool.name for tool in tools.tools} == TOOLS
            ask = next(tool for tool in tools.tools if tool.name == "idea_ask_agent")
            assert "ticket" in (ask.description or "")
            assert set(ask.input_schema["required"]) == {"target"}
            listed = await client.call_tool("idea_list_agents", {})
            assert json.loads(text(listed)) == [{"name": "Dev", "caller": "QA"}]
            # An argument naming another agent changes nothing: identity is the secret's.
            await client.call_tool("idea_stop_agent", {"target": "Dev", "caller": "Dev"})
            assert [(name, c) for name, c, _ in r.fake.calls] == [("list", QA), ("stop", QA)]
            assert QA in r.fake.connections

    run(body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_tool_failures_are_error_results(tmp_path: Path, transport: str) -> None:
    async def body() -> None:
        async with rig(tmp_path) as r, client_for(r, transport, DEV) as client:
            result = await client.call_tool("idea_ask_agent", {"target": "nobody", "task": "x"})
            assert result.is_error
            assert "no agent named 'nobody'" in text(result)
            result = await client.call_tool("idea_reply", {"result": "done"})
            assert result.is_error and "nothing to answer" in text(result)
            result = await client.call_tool(
                "idea_launch_agent", {"target": "Dev", "visibility": "sideways"}
            )
            assert result.is_error and "visibility" in text(result)
            ok = await client.call_tool("idea_reply", {"result": "done", "ticket": "T3"})
            assert not ok.is_error and text(ok) == "reply to T3 delivered"

    run(body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_blocking_ask_reports_progress_and_never_wedges_the_connection(
    tmp_path: Path, transport: str
) -> None:
    async def body() -> None:
        async with rig(tmp_path) as r, client_for(r, transport, DEV) as client:
            seen: list[str | None] = []

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:  # noqa: E501
                seen.append(message)

            async def ask() -> mcp_types.CallToolResult:
                return await client.call_tool(
                    "idea_ask_agent",
                    {"target": "QA", "task": "check"},
                    progress_callback=on_progress,
                )

            pending = asyncio.ensure_future(ask())
            await r.fake.ask_started.wait()
            # The same connection still serves other calls while the ask blocks.
            listed = await client.call_tool("idea_list_agents", {})
            assert not listed.is_error
            r.fake.release.set()
            result = await pending
            assert text(result) == "answer to check"
            while len(seen) < 2:  # notifications may trail the result by a hair
                await asyncio.sleep(0.01)
            assert seen == ["queued", "working"]

    run(body)


def test_no_reply_yet_tells_how_to_continue(tmp_path: Path) -> None:
    async def body() -> None:
        async with rig(tmp_path) as r, client_for(r, "http", DEV) as client:
            result = await client.call_tool("idea_ask_agent", {"target": "slow", "task": "x"})
            assert not result.is_error
            assert 'ticket="T7"' in text(result) and "do not send the task again" in text(result)
            await client.call_tool("idea_ask_agent", {"target": "slow", "ticket": "T7"})
            assert r.fake.calls[-1][2] == ("slow", "", "T7")

    run(body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_cancelled_call_cancels_the_ask(tmp_path: Path, transport: str) -> None:
    async def body() -> None:
        async with rig(tmp_path) as r, client_for(r, transport, DEV) as client:
            await cancel_an_ask(client, r.fake)
            # The connection is still usable afterwards.
            assert not (await client.call_tool("idea_list_agents", {})).is_error

    run(body)


def test_http_refuses_requests_without_a_valid_secret(tmp_path: Path) -> None:
    async def body() -> None:
        async with rig(tmp_path) as r:
            initialize = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
            headers = {"Accept": "application/json, text/event-stream"}
            async with httpx2.AsyncClient(timeout=30) as http:
                for auth in (None, "Bearer wrong", "Basic " + r.secrets[DEV.agent_id], "Bearer x"):
                    sent = dict(headers, **({"Authorization": auth} if auth else {}))
                    answer = await http.post(r.http.url, json=initialize, headers=sent)
                    assert answer.status_code == 401, auth
            # The SDK client cannot even initialize, and says why.
            with pytest.raises(ExceptionGroup) as refused:
                async with r.http_client("not-a-secret") as client:
                    await client.list_tools()
            assert "unknown agent secret" in repr(refused.value)
            assert r.fake.calls == [] and r.fake.connections == []

    run(body)


def test_bridge_refuses_a_wrong_secret_and_exits_without_a_daemon(tmp_path: Path) -> None:
    async def body() -> None:
        async with rig(tmp_path) as r:
            folder = tmp_path / "intruder"
            folder.mkdir()
            path = write_config(folder, lambda p: stdio_entry(p, str(r.bridge.path), "guess"))
            done = await asyncio.to_thread(
                subprocess.run,
                [_idea(), "mcp-server", "--config", str(path)],
                input=b"",
                capture_output=True,
                timeout=30,
            )
            assert done.returncode == 2 and b"refused" in done.stderr
        assert r.fake.connections == []
        # The daemon is gone: a non-zero exit at once, never a hang.
        done = subprocess.run(
            [_idea(), "mcp-server", "--config", str(path)],
            input=b"",
            capture_output=True,
            timeout=30,
        )
        assert done.returncode == 1 and b"no idea daemon" in done.stderr
        bad = tmp_path / "bad.json"
        bad.write_text("{")
        done = subprocess.run(
            [_idea(), "mcp-server", "--config", str(bad)], capture_output=True, timeout=30
        )
        assert done.returncode == 3

    run(body)


def test_config_files_are_private(tmp_path: Path) -> None:
    path = write_config(tmp_path, lambda p: http_entry("http://127.0.0.1:1/mcp", "s3cret"))
    assert path.stat().st_mode & 0o777 == 0o600
    entry = json.loads(path.read_text())["mcpServers"]["idea"]
    assert entry["headers"] == {"Authorization": "Bearer s3cret"}
    assert entry["timeout"] >= 120_000


MALFORMED = [
    b"{",
    b"[]",
    b"42",
    b'{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}',
    b'{"jsonrpc": "2.0", "id": 2, "method": 7}',
    b'{"jsonrpc": "2.0", "id": 3}',
    b"\xff\xfe not utf-8",
    b'{"jsonrpc": "2.0", "method": "tools/call", "params": "x", "id": {"a": 1}}',
]


def test_a_burst_of_malformed_lines_on_the_bridge_socket(tmp_path: Path) -> None:
    async def body() -> None:
        async with rig(tmp_path) as r:
            reader, writer = await asyncio.open_unix_connection(str(r.bridge.path))
            writer.write(json.dumps({"secret": r.secrets[DEV.agent_id]}).encode() + b"\n")
            assert json.loads(await reader.readline()) == {"ok": True}
            count = 10_000
            for index in range(count):
                writer.write(MALFORMED[index % len(MALFORMED)] + b"\n")
            await writer.drain()
            errors = 0
            while errors < count:
                answer = json.loads(await reader.readline())
                assert answer["error"]["code"] in (-32700, -32600)
                errors += 1
            # Still serving: a real handshake and a call work on the same connection.
            init = {
                "jsonrpc": "2.0",
                "id": "i",
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
            writer.write(json.dumps(init).encode() + b"\n")
            answer = json.loads(await reader.readline())
            assert answer["id"] == "i" and "result" in answer
            writer.close()
        # And the listener survived for other peers.

    run(body)


def test_a_burst_of_malformed_http_requests(tmp_path: Path) -> None:
    async def body() -> None:
        async with rig(tmp_path) as r:
            headers = {
                "Authorization": f"Bearer {r.secrets[DEV.agent_id]}",
                "Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
            }
            async with httpx2.AsyncClient(timeout=30) as http:
                for index in range(80):
                    body = MALFORMED[index % len(MALFORMED)]
                    answer = await http.post(r.http.url, content=body, headers=headers)
                    assert 400 <= answer.status_code < 500
            async with r.http_client(r.secrets[DEV.agent_id]) as client:
                assert not (await client.call_tool("idea_list_agents", {})).is_error

    run(body)


def test_the_bridge_socket_is_private_and_reclaimed(tmp_path: Path) -> None:
    stale = tmp_path / "idea-mcp.sock"
    leftover = socket.socket(socket.AF_UNIX)
    leftover.bind(str(stale))  # a killed daemon's socket file, nobody listening
    leftover.close()

    async def body() -> None:
        async with rig(tmp_path) as r:
            assert r.bridge.path.stat().st_mode & 0o777 == 0o600

    run(body)
