"""The port the project-context tools drive (MCP-5 #8, #9; CTX-1..3). The daemon's
knowledge service implements it; errors are `IdeaError`s (`Forbidden`, `Busy` included)
whose message becomes the `isError` result."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from adapters.mcp.identity import Caller


@runtime_checkable
class ContextPort(Protocol):
    async def context_read(self, caller: Caller, target: str | None) -> str: ...

    async def context_propose(
        self, caller: Caller, target: str | None, content: str, reason: str | None
    ) -> str: ...
