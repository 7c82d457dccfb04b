"""The team's shared knowledge in the daemon (issue 9): project memory and the project
context, behind the MCP ports `adapters.mcp.port_memory` and `port_context`, and the
FileGuard every write through idea takes.

An MCP caller becomes a guard `Party`: its agent id and name, and whether the user made it
the project's orchestrator (the only agent that may write `.ideai/CONTEXT.md`, CTX-2).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from adapters.mcp.identity import Caller
from adapters.store.ports import PersonaStorePort
from core.agents.agent import Agent
from core.knowledge.guard import Party
from idea_daemon.context_service import ContextService
from idea_daemon.file_guard import FileGuard
from idea_daemon.memory_service import MemoryService


class Knowledge:
    def __init__(
        self,
        guard: FileGuard | None = None,
        *,
        orchestrator_of: Callable[[str, str], bool] | None = None,
        agents_of: Callable[[str], Sequence[Agent]] | None = None,
        personas: PersonaStorePort,
    ) -> None:
        self.guard = guard or FileGuard()
        self.memory = MemoryService(self.guard)
        self.context = ContextService(self.guard, agents_of, personas)
        self.orchestrator_of = orchestrator_of
        """(project root, agent id) → the user designated that agent orchestrator."""

    def party(self, caller: Caller) -> Party:
        designated = bool(self.orchestrator_of
                          and self.orchestrator_of(caller.project_root, caller.agent_id))
        return Party(caller.agent_id, caller.name, orchestrator=designated)

    async def _party(self, caller: Caller) -> Party:
        # Reading agents.json for the orchestrator flag is file I/O: off the loop.
        return await asyncio.to_thread(self.party, caller)

    # ─── MemoryPort ──────────────────────────────────────────────────────────────────

    async def memory_read(self, caller: Caller, slug: str | None) -> str:
        return await self.memory.read(await self._party(caller), caller.project_root, slug)

    async def memory_write(self, caller: Caller, slug: str, content: str,
                           description: str | None, kind: str | None) -> str:
        party = await self._party(caller)
        return await self.memory.write(party, caller.project_root, slug, content,
                                       description=description, kind=kind)

    # ─── ContextPort ─────────────────────────────────────────────────────────────────

    async def context_read(self, caller: Caller, target: str | None) -> str:
        return await self.context.read(await self._party(caller), caller.project_root, target)

    async def context_propose(self, caller: Caller, target: str | None, content: str,
                              reason: str | None) -> str:
        return await self.context.propose(await self._party(caller), caller.project_root, target,
                                          content, reason)

    async def update_persona(self, caller: Caller, target: str, content: str) -> str:
        """`idea_update_context`: an agent's persona, under its write lease."""
        return await self.context.write_persona(await self._party(caller), caller.project_root,
                                                target, content)
