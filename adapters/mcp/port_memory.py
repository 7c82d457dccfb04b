"""The port the memory tools drive (MCP-5 #10, #11). The daemon's knowledge service
implements it; errors are `IdeaError`s whose message becomes the `isError` result."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from adapters.mcp.identity import Caller


@runtime_checkable
class MemoryPort(Protocol):
    async def memory_read(self, caller: Caller, slug: str | None) -> str: ...

    async def memory_write(
        self,
        caller: Caller,
        slug: str,
        content: str,
        description: str | None,
        kind: str | None,
    ) -> str: ...
