"""A fake `Orchestrator` that records calls; an ask waits on an event the test controls."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
from mcp import Client

from adapters.mcp.identity import Caller
from adapters.mcp.port import AskOutcome, Progress
from core.orchestration.errors import NoPendingTicket, UnknownTarget


class FakeOrchestrator:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Caller, tuple[Any, ...]]] = []
        self.connections: list[Caller] = []
        self.release = asyncio.Event()
        self.ask_started = asyncio.Event()
        self.ask_cancelled = asyncio.Event()
        self.progress_messages = ["queued", "working"]

    def connected(self, caller: Caller) -> None:
        self.connections.append(caller)

    async def list_agents(self, caller: Caller) -> list[dict[str, Any]]:
        self.calls.append(("list", caller, ()))
        return [{"name": "Dev", "caller": caller.name}]

    async def ask(
        self, caller: Caller, target: str, task: str, ticket: str | None, progress: Progress
    ) -> AskOutcome:
        self.calls.append(("ask", caller, (target, task, ticket)))
        if target == "nobody":
            raise UnknownTarget(target, ["Dev"])
        if target == "slow":
            return AskOutcome("T7", None, "Slow", "submitted")
        for message in self.progress_messages:
            await progress(message)
        self.ask_started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.ask_cancelled.set()
            raise
        return AskOutcome("T1", f"answer to {task}", target, "replied")

    async def reply(self, caller: Caller, result: str, ticket: str | None) -> str:
        self.calls.append(("reply", caller, (result, ticket)))
        if ticket is None:
            raise NoPendingTicket(caller.name)
        return f"reply to {ticket} delivered"

    async def launch(self, caller: Caller, target: str, visibility: str, task: str | None) -> str:
        self.calls.append(("launch", caller, (target, visibility, task)))
        return f"launched agent {target}"

    async def stop(self, caller: Caller, target: str) -> str:
        self.calls.append(("stop", caller, (target,)))
        return f"stopped agent {target}"

    async def update_context(self, caller: Caller, target: str, content: str) -> str:
        self.calls.append(("update", caller, (target, content)))
        return f"updated {target}"


async def cancel_an_ask(client: Client, fake: FakeOrchestrator) -> None:
    """Start an ask, cancel the call once the fake runs it (Esc in a CLI), and wait until the
    fake saw its run cancelled (DLG-7: the target is freed)."""
    scope = anyio.CancelScope()

    async def ask() -> None:
        with scope:
            await client.call_tool("idea_ask_agent", {"target": "QA", "task": "t"})

    async with anyio.create_task_group() as group:
        group.start_soon(ask)
        await fake.ask_started.wait()
        scope.cancel()
    await asyncio.wait_for(fake.ask_cancelled.wait(), 60)
