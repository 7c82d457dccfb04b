"""The port the skill tools drive (`idea_skill_read`, `idea_create_skill`, MCP-5 #7 and #12).

The daemon's orchestration service implements it (the MCP host serves one object); errors
are `IdeaError`s whose message the tools return as an `isError` result.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from adapters.mcp.identity import Caller


@runtime_checkable
class SkillsPort(Protocol):
    async def read_skill(self, caller: Caller, name: str) -> str:
        """The body of a skill by name or id (the caller's assigned ones first)."""
        ...

    async def create_skill(
        self, caller: Caller, name: str, content: str, scope: str | None
    ) -> str:
        """Create a skill in the caller's project (scope None or "project") or for every
        project ("global"); the confirmation to show the model."""
        ...
