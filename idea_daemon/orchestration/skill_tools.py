"""The skill tools' side of the orchestration service (`adapters.mcp.port_skills`).

The MCP host serves one object, the orchestration service; it takes this mixin and forwards
the two skill tools to the daemon's `SkillAdmin`, set by the composition root.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.mcp.identity import Caller
from core.orchestration.errors import OrchestrationError

if TYPE_CHECKING:
    from idea_daemon.skills import SkillAdmin


class SkillTools:
    skills: SkillAdmin | None = None

    def _skill_admin(self) -> SkillAdmin:
        if self.skills is None:
            raise OrchestrationError("skills are not available in this idea")
        return self.skills

    async def read_skill(self, caller: Caller, name: str) -> str:
        return await self._skill_admin().read_skill(caller, name)

    async def create_skill(
        self, caller: Caller, name: str, content: str, scope: str | None
    ) -> str:
        return await self._skill_admin().create_skill(caller, name, content, scope)
