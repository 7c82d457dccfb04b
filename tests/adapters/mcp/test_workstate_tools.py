"""`idea_workstate_read` / `idea_workstate_set` through the real MCP SDK client and the real
server, over both transports (LIV-6). Behind the tools, the real work-state service on the
real `.ideai/live-state.json` of a temp project; the delegation part is the recording fake.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from adapters.mcp.bridge import BridgeEndpoint
from adapters.mcp.http import HttpEndpoint
from adapters.mcp.identity import Caller, SecretRegistry
from adapters.mcp.tools import build_server
from adapters.store.layouts_codec import default_layouts
from adapters.store.live_state_store import LiveStateStore
from core.project import Project
from idea_daemon.orchestration.live_state import LiveStates
from idea_daemon.orchestration.workstate import WorkStateService
from idea_daemon.runtime import ProjectRuntime
from tests.adapters.mcp.fake_orchestrator import FakeOrchestrator
from tests.adapters.mcp.test_mcp_server import TOOLS, Rig, client_for, run, text


class WorkStateOrchestrator(FakeOrchestrator):
    """The recording fake plus the real WorkState port on one project folder."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        (root / ".ideai").mkdir(parents=True)
        self.runtime = ProjectRuntime(
            Project("p1", "demo", str(root)), default_layouts(lambda: uuid.uuid4().hex[:8])
        )
        self.states = LiveStates(LiveStateStore())
        team = [("agent-dev", "Dev"), ("agent-qa", "QA")]
        self.workstate = WorkStateService(self.states, lambda runtime: team)

    async def workstate_read(self, caller: Caller) -> list[dict[str, Any]]:
        self.calls.append(("workstate_read", caller, ()))
        return self.workstate.read(self.runtime)

    async def workstate_set(
        self, caller: Caller, status: str, task: str | None, note: str | None
    ) -> dict[str, Any]:
        self.calls.append(("workstate_set", caller, (status, task, note)))
        return self.workstate.set(self.runtime, caller, status, task, note)


DEV = Caller("agent-dev", "Dev", "/project")
QA = Caller("agent-qa", "QA", "/project")


@asynccontextmanager
async def rig(tmp_path: Path) -> AsyncIterator[tuple[Rig, WorkStateOrchestrator]]:
    fake = WorkStateOrchestrator(tmp_path / "project")
    registry = SecretRegistry()
    secrets = {c.agent_id: registry.issue(c) for c in (DEV, QA)}
    server = build_server(fake)
    http = HttpEndpoint(server, registry, fake.connected)
    bridge = BridgeEndpoint(server, registry, fake.connected, tmp_path / "idea-mcp.sock")
    await http.start()
    await bridge.start()
    try:
        yield Rig(fake, registry, http, bridge, tmp_path, secrets), fake
    finally:
        await bridge.stop()
        await http.stop()


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_set_writes_only_the_callers_row_and_read_names_agents(
    tmp_path: Path, transport: str
) -> None:
    async def body() -> None:
        async with rig(tmp_path) as (r, fake):
            async with client_for(r, transport, QA) as client:
                tools = {tool.name: tool for tool in (await client.list_tools()).tools}
                assert set(tools) == TOOLS | {"idea_workstate_read", "idea_workstate_set"}
                assert set(tools["idea_workstate_set"].input_schema["required"]) == {"status"}
                # An extra argument naming another agent changes nothing.
                result = await client.call_tool(
                    "idea_workstate_set",
                    {"status": "working", "task": "write the release notes", "agent": "Dev"},
                )
                assert not result.is_error, text(result)
                assert json.loads(text(result))["agent"] == "QA"
                blocked = await client.call_tool(
                    "idea_workstate_set", {"status": "blocked", "note": "waiting for CI"}
                )
                assert json.loads(text(blocked))["task"] == "write the release notes"
                read = json.loads(text(await client.call_tool("idea_workstate_read", {})))
                assert [(row["agent"], row["status"], row.get("note")) for row in read] == [
                    ("QA", "blocked", "waiting for CI")
                ]
            await fake.states.drain()
            on_disk = json.loads((tmp_path / "project/.ideai/live-state.json").read_text())
            assert set(on_disk["entries"]) == {"agent-qa"}
            assert on_disk["entries"]["agent-qa"]["status"] == "blocked"
            assert on_disk["version"] == 1

    run(body)


BAD_ARGUMENTS: list[tuple[dict[str, Any], str]] = [
    ({}, "status"),
    ({"status": ""}, "must not be empty"),
    ({"status": "   "}, "must not be empty"),
    ({"status": "busy"}, "idle, working, blocked, waiting, done"),
    ({"status": "s" * 100_000}, "limit is 2048 bytes"),
    ({"status": 7}, "status"),
    ({"status": ["working"]}, "status"),
    ({"status": None}, "status"),
    ({"status": "working", "task": ""}, "leave it out"),
    ({"status": "working", "task": 12}, "task"),
    ({"status": "working", "note": {"a": 1}}, "note"),
    ({"status": "working", "task": "x" * 3000}, "limit is 2048 bytes"),
    ({"status": "working", "task": "é" * 700, "note": "n" * 700}, "limit is 2048 bytes"),
]


def test_every_bad_argument_is_an_error_result_and_changes_nothing(tmp_path: Path) -> None:
    async def body() -> None:
        async with rig(tmp_path) as (r, _), client_for(r, "http", DEV) as client:
            ok = await client.call_tool("idea_workstate_set", {"status": "idle"})
            assert not ok.is_error
            for arguments, expected in BAD_ARGUMENTS:
                result = await client.call_tool("idea_workstate_set", arguments)
                assert result.is_error, arguments
                assert expected in text(result), (arguments, text(result))
            read = json.loads(text(await client.call_tool("idea_workstate_read", {})))
            assert [(row["agent"], row["status"]) for row in read] == [("Dev", "idle")]
            assert "task" not in read[0]

    run(body)


def test_a_corrupt_file_is_an_error_result_and_stays_as_it_was(tmp_path: Path) -> None:
    async def body() -> None:
        path = tmp_path / "project/.ideai/live-state.json"
        async with rig(tmp_path) as (r, fake), client_for(r, "http", DEV) as client:
            path.write_text('{"version": 1, "entries": {"x": {"status": "sleeping"}}}')
            read = await client.call_tool("idea_workstate_read", {})
            assert read.is_error and "live-state.json" in text(read)
            assert "entries.x.status" in text(read)
            result = await client.call_tool("idea_workstate_set", {"status": "working"})
            assert result.is_error and "will not overwrite it" in text(result)
            await fake.states.drain()
            assert "sleeping" in path.read_text()
            # The user removes the file: live state works again, without a restart.
            path.unlink()
            again = await client.call_tool("idea_workstate_set", {"status": "working"})
            assert not again.is_error, text(again)

    run(body)
