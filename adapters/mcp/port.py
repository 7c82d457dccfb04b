"""The port the MCP tools drive (MCP-6: one dispatch for MCP, the file protocol and the UI).

The daemon's orchestration service implements it. Errors are `core.orchestration.errors`
(or any `IdeaError`): the tools turn them into `isError` results carrying their message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from adapters.mcp.identity import Caller

Progress = Callable[[str], Awaitable[None]]
"""Called at least every `progress_every` seconds while an ask waits (a status message)."""


@dataclass(frozen=True, slots=True)
class AskOutcome:
    ticket: str
    reply: str | None
    """The target's answer, or None: no reply yet within this call (call again)."""
    target: str
    state: str


class Orchestrator(Protocol):
    async def list_agents(self, caller: Caller) -> list[dict[str, Any]]: ...

    async def ask(
        self, caller: Caller, target: str, task: str, ticket: str | None, progress: Progress
    ) -> AskOutcome: ...

    async def reply(self, caller: Caller, result: str, ticket: str | None) -> str: ...

    async def launch(
        self, caller: Caller, target: str, visibility: str, task: str | None
    ) -> str: ...

    async def stop(self, caller: Caller, target: str) -> str: ...

    async def update_context(self, caller: Caller, target: str, content: str) -> str: ...

    def connected(self, caller: Caller) -> None:
        """The agent's MCP client is up (releases a cold launch's first task, DLG-10)."""
