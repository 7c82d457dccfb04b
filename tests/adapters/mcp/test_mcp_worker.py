"""The MCP worker process (adapters/mcp/worker.py) and the daemon's end of its channel
(idea_daemon/orchestration/mcp_host.py): the real worker, started by the real host, served to
the real SDK client over both transports from the config the host wrote, with a fake
orchestrator in this process standing for the daemon's service.

What must hold: a tool call runs in the daemon's process (here: this one) and its progress
and result come back; an error comes back as an error result; a cancelled call is
cancelled in the daemon (DLG-7); a secret issued after the worker started works, a revoked
one is refused; a worker that dies is started again on the same addresses with every
secret; stopping the host ends the worker.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import mcp_types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from adapters.mcp.identity import Caller
from core.agents.profile import AgentProfile, Flag, McpCapability, McpTransport
from idea_daemon.orchestration.mcp_host import McpHost, served_methods
from tests.adapters.mcp.fake_orchestrator import FakeOrchestrator, cancel_an_ask
from tests.adapters.mcp.test_mcp_server import MALFORMED
from tests.helpers.retry import retry_until

DEV = Caller("agent-dev", "Dev", "/project")
QA = Caller("agent-qa", "QA", "/project")
TRANSPORTS = ["stdio", "http"]
WAIT = 60.0


def profile(transport: str) -> AgentProfile:
    return AgentProfile(
        id=f"p-{transport}", name="P", command="true", context_injection=Flag("--x {content}"),
        mcp=McpCapability(config=Flag("--mcp-config {path}"),
                          transport=McpTransport(transport)),
    )


@asynccontextmanager
async def hosted(tmp_path: Path, fake: FakeOrchestrator) -> AsyncIterator[McpHost]:
    host = McpHost(tmp_path / "idea-mcp.sock", fake)
    await host.start()
    try:
        while not host.ready:
            await asyncio.sleep(0.02)
        yield host
    finally:
        await host.stop()


def client_of(host: McpHost, caller: Caller, transport: str, run_dir: Path) -> Client:
    run_dir.mkdir(parents=True, exist_ok=True)
    config = host.write_agent_config(caller, profile(transport), run_dir)
    entry = json.loads(config.read_text())["mcpServers"]["idea"]
    if transport == "http":
        http = httpx2.AsyncClient(headers=entry["headers"], timeout=60)
        return Client(streamable_http_client(entry["url"], http_client=http), mode="legacy")
    env = {**os.environ, **entry.get("env", {})}
    return Client(StdioServerParameters(command=entry["command"], args=entry["args"], env=env),
                  mode="legacy")


def text(result: mcp_types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))


def run(body: Any) -> None:
    asyncio.run(asyncio.wait_for(body(), 180))


def test_the_worker_serves_what_the_daemons_service_has() -> None:
    assert served_methods(FakeOrchestrator()) == [
        "list_agents", "ask", "reply", "launch", "stop", "update_context"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_call_runs_in_the_daemon_and_its_progress_and_result_come_back(
        tmp_path: Path, transport: str) -> None:
    async def body() -> None:
        fake = FakeOrchestrator()
        async with hosted(tmp_path, fake) as host, \
                client_of(host, DEV, transport, tmp_path / "dev") as client:
            listed = await client.call_tool("idea_list_agents", {})
            # Ran here (the daemon's process), for the caller the secret names.
            assert json.loads(text(listed)) == [{"name": "Dev", "caller": "Dev"}]
            assert fake.calls[0][:2] == ("list", DEV)
            retry_until(lambda: DEV in fake.connections or None, WAIT)
            seen: list[str | None] = []

            async def on_progress(
                    progress: float, total: float | None, message: str | None) -> None:
                seen.append(message)

            pending = asyncio.ensure_future(client.call_tool(
                "idea_ask_agent", {"target": "QA", "task": "check"},
                progress_callback=on_progress))
            await fake.ask_started.wait()
            fake.release.set()
            assert text(await pending) == "answer to check"
            while len(seen) < 2:
                await asyncio.sleep(0.01)
            assert seen == ["queued", "working"]

    run(body)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_errors_come_back_and_a_cancelled_call_is_cancelled_in_the_daemon(
        tmp_path: Path, transport: str) -> None:
    async def body() -> None:
        fake = FakeOrchestrator()
        async with hosted(tmp_path, fake) as host, \
                client_of(host, DEV, transport, tmp_path / "dev") as client:
            failed = await client.call_tool("idea_ask_agent", {"target": "nobody", "task": "x"})
            assert failed.is_error and "no agent named 'nobody'" in text(failed)
            await cancel_an_ask(client, fake)  # cancelled here, in the daemon's process
            assert not (await client.call_tool("idea_list_agents", {})).is_error

    run(body)


def test_secrets_granted_later_work_and_revoked_ones_are_refused(tmp_path: Path) -> None:
    async def body() -> None:
        fake = FakeOrchestrator()
        async with hosted(tmp_path, fake) as host:
            for caller in (DEV, QA):  # both issued after the worker started
                async with client_of(host, caller, "http", tmp_path / caller.name) as client:
                    assert json.loads(text(await client.call_tool("idea_list_agents", {}))) \
                        == [{"name": "Dev", "caller": caller.name}]
            config = host.write_agent_config(QA, profile("http"), tmp_path / "qa2")
            entry = json.loads(config.read_text())["mcpServers"]["idea"]
            host.forget(QA)  # QA exited
            async with httpx2.AsyncClient(timeout=30) as http:
                answer = await http.post(entry["url"], json={
                    "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                        "protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}},
                    headers={**entry["headers"],
                             "Accept": "application/json, text/event-stream"})
            assert answer.status_code == 401

    run(body)


def test_a_worker_that_dies_is_started_again_with_every_secret(tmp_path: Path) -> None:
    async def body() -> None:
        fake = FakeOrchestrator()
        async with hosted(tmp_path, fake) as host:
            config = host.write_agent_config(DEV, profile("stdio"), tmp_path / "dev")
            first = host.worker_pid
            assert first is not None
            os.kill(first, signal.SIGKILL)
            while host.worker_pid == first or not host.ready:
                await asyncio.sleep(0.05)
            entry = json.loads(config.read_text())["mcpServers"]["idea"]
            params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                           env={**os.environ, **entry["env"]})
            async with Client(params, mode="legacy") as client:
                listed = await client.call_tool("idea_list_agents", {})
                assert json.loads(text(listed)) == [{"name": "Dev", "caller": "Dev"}]
            worker = host.worker_pid
        assert worker is not None
        with pytest.raises(ProcessLookupError):  # stopped with its host, reaped
            os.kill(worker, 0)

    run(body)


def test_a_burst_of_malformed_lines_through_the_worker(tmp_path: Path) -> None:
    """The 10,000 malformed lines of the in-process test, through the worker as the daemon
    runs it: an error for each, the worker still serves, the daemon heard nothing."""
    async def body() -> None:
        fake = FakeOrchestrator()
        async with hosted(tmp_path, fake) as host:
            config = host.write_agent_config(DEV, profile("stdio"), tmp_path / "dev")
            secret = json.loads(config.read_text())["mcpServers"]["idea"]["env"]
            reader, writer = await asyncio.open_unix_connection(str(host.socket_path))
            token = next(v for k, v in secret.items() if "SECRET" in k)
            writer.write(json.dumps({"secret": token}).encode() + b"\n")
            assert json.loads(await reader.readline()) == {"ok": True}
            count = 10_000
            for index in range(count):
                writer.write(MALFORMED[index % len(MALFORMED)] + b"\n")
            await writer.drain()
            for _ in range(count):
                answer = json.loads(await reader.readline())
                assert answer["error"]["code"] in (-32700, -32600)
            writer.write(json.dumps({"jsonrpc": "2.0", "id": "i", "method": "initialize",
                                     "params": {"protocolVersion": "2025-06-18",
                                                "capabilities": {},
                                                "clientInfo": {"name": "t", "version": "1"}}})
                         .encode() + b"\n")
            assert "result" in json.loads(await reader.readline())
            writer.close()
            assert fake.calls == []

    run(body)


@pytest.mark.parametrize("how", ["closed", "garbage"])
def test_a_worker_whose_daemon_left_before_serving_exits_quietly(how: str) -> None:
    """A daemon that stops (or dies) while its worker is still loading leaves a closed or
    broken channel: the worker ends at once with status 0 and prints nothing on the terminal
    it inherited (no traceback in the user's shell)."""
    ours, theirs = socket.socketpair()
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    http = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    http.bind(("127.0.0.1", 0))
    if how == "garbage":
        ours.sendall(b"\xff" * 64)
    ours.close()
    fds = [theirs.fileno(), unix.fileno(), http.fileno()]
    worker = subprocess.run(
        [sys.executable, "-m", "adapters.mcp.worker", "--channel", str(fds[0]),
         "--unix", str(fds[1]), "--http", str(fds[2])],
        pass_fds=fds, capture_output=True, text=True, timeout=WAIT)
    for sock in (theirs, unix, http):
        sock.close()
    assert (worker.returncode, worker.stderr) == (0, "")
