"""The project context and its proposals in the daemon (CTX-1..3), and agents' personas
written through idea, all under the FileGuard.

- Reading: anyone, under a read lease.
- Writing `.ideai/CONTEXT.md`: the user (commands, the Context panel) or the agent the user
  made orchestrator; for any other agent the guard answers `Forbidden`, and
  `idea_context_propose` stores a proposal instead, which the user accepts (its text becomes
  CONTEXT.md, under the write lease) or rejects (it is deleted).
- Personas: a direct write under the persona's write lease (`idea_update_context`, and
  `idea_context_propose` with a target).

File I/O runs in worker threads; the leases are taken on the loop.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.store.context_store import BrokenProposal, FsContextStore
from adapters.store.ports import PersonaStorePort
from core.agents.agent import Agent, AgentManifest, find_agent
from core.agents.errors import AgentNotFound
from core.knowledge.errors import InvalidArgument, TooLarge, TooManyProposals, UnknownTarget
from core.knowledge.guard import USER_PARTY, AgentContext, Party, ProjectContext
from core.knowledge.limits import CONTEXT_MAX_CHARS, PERSONA_MAX_CHARS, PROPOSALS_MAX_PENDING
from core.knowledge.proposals import (
    Proposal,
    checked_proposal_text,
    content_hash,
    text_diff,
)
from idea_daemon.file_guard import FileGuard

NO_CONTEXT = (
    "This project has no shared context yet (.ideai/CONTEXT.md does not exist). Propose one "
    "with idea_context_propose if the team needs rules every agent must follow."
)


@dataclass(frozen=True, slots=True)
class ProposalView:
    proposal: Proposal
    stale: bool
    """CONTEXT.md changed since the proposal was made."""
    diff: dict[str, Any]


def _proposal_id() -> str:
    return "P" + secrets.token_hex(5)


class ContextService:
    def __init__(
        self,
        guard: FileGuard,
        agents_of: Callable[[str], Sequence[Agent]] | None,
        personas: PersonaStorePort,
        store: FsContextStore | None = None,
    ) -> None:
        self.guard = guard
        self.agents_of = agents_of
        """The agents of a project (its manifest), for personas by name."""
        self.personas = personas
        """The personas' files (the composition root passes the store)."""
        self.store = store or FsContextStore()

    def agent(self, root: str, target: str) -> Agent:
        agents = list(self.agents_of(root)) if self.agents_of else []
        try:
            return find_agent(AgentManifest(tuple(agents)), target)
        except AgentNotFound:
            raise UnknownTarget(target, [a.name for a in agents]) from None

    # ─── reading ─────────────────────────────────────────────────────────────────────

    async def read(self, party: Party, root: str, target: str | None) -> str:
        """The project context (no target) or an agent's persona."""
        if target is None:
            async with self.guard.read(party, ProjectContext()):
                text = await asyncio.to_thread(self.store.read_context, root)
            return NO_CONTEXT if text is None else text
        agent = await asyncio.to_thread(self.agent, root, target)  # reads agents.json
        async with self.guard.read(party, AgentContext(agent.id)):
            persona = await asyncio.to_thread(self.personas.load, Path(root), agent.md_path)
        return persona if persona is not None else f"{agent.name} has no persona file yet."

    async def current(self, root: str) -> str | None:
        async with self.guard.read(USER_PARTY, ProjectContext()):
            return await asyncio.to_thread(self.store.read_context, root)

    # ─── writing ─────────────────────────────────────────────────────────────────────

    async def write(self, party: Party, root: str, content: str) -> str:
        """Replace CONTEXT.md (the user or the orchestrator only: else Forbidden)."""
        if len(content) > CONTEXT_MAX_CHARS:
            raise TooLarge("content", len(content), CONTEXT_MAX_CHARS)
        text = content if content.endswith("\n") or not content else content + "\n"
        async with self.guard.write(party, ProjectContext()):
            await asyncio.to_thread(self._replace, root, text)
        return "wrote the project context (.ideai/CONTEXT.md); agents get it from their next launch"

    def _replace(self, root: str, text: str) -> None:
        # A CONTEXT.md that cannot be read (not UTF-8, too large) is the user's to fix: it
        # is never replaced unseen (CorruptFile names it).
        self.store.read_context(root)
        self.store.write_context(root, text)

    async def write_persona(self, party: Party, root: str, target: str, content: str) -> str:
        if not content.strip():
            raise InvalidArgument("content", "is required and must not be empty")
        if len(content) > PERSONA_MAX_CHARS:
            raise TooLarge("content", len(content), PERSONA_MAX_CHARS)
        agent = await asyncio.to_thread(self.agent, root, target)  # reads agents.json
        async with self.guard.write(party, AgentContext(agent.id)):
            await asyncio.to_thread(self.personas.write, Path(root), agent.md_path, content)
        return f"updated the instructions of {agent.name} (used from its next launch)"

    async def propose(self, party: Party, root: str, target: str | None, content: str,
                      reason: str | None) -> str:
        if target is not None:
            return await self.write_persona(party, root, target, content)
        text, line = checked_proposal_text(content, reason)
        if party.orchestrator:
            await self.write(party, root, text)
            return ("you are this project's orchestrator: the project context was written "
                    "directly (.ideai/CONTEXT.md); agents get it from their next launch")
        async with self.guard.read(party, ProjectContext()):
            base = await asyncio.to_thread(self.store.read_context, root)
        proposal = Proposal(_proposal_id(), int(time.time() * 1000), party.id, party.name, text,
                            content_hash(base), line)
        await asyncio.to_thread(self._store_proposal, root, proposal)
        return (f"proposal {proposal.id} stored for the user's review (the project context has "
                "a single writer); it takes effect if the user accepts it")

    def _store_proposal(self, root: str, proposal: Proposal) -> None:
        pending, _ = self.store.proposals(root)
        if len(pending) >= PROPOSALS_MAX_PENDING:
            raise TooManyProposals(PROPOSALS_MAX_PENDING)
        self.store.write_proposal(root, proposal)

    # ─── the user's review ───────────────────────────────────────────────────────────

    async def proposals(self, root: str) -> tuple[list[ProposalView], list[BrokenProposal]]:
        current = await self.current(root)
        pending, broken = await asyncio.to_thread(self.store.proposals, root)
        views = [ProposalView(p, p.base_hash != content_hash(current),
                              text_diff(current, p.content, ".ideai/CONTEXT.md"))
                 for p in pending]
        return views, broken

    async def accept(self, root: str, proposal_id: str, party: Party = USER_PARTY) -> str:
        async with self.guard.write(party, ProjectContext()):
            proposal = await asyncio.to_thread(self.store.proposal, root, proposal_id)
            await asyncio.to_thread(self._replace, root, proposal.content)
            await asyncio.to_thread(self.store.delete_proposal, root, proposal_id)
        return (f"accepted proposal {proposal_id} from {proposal.author_name}: "
                ".ideai/CONTEXT.md updated")

    async def reject(self, root: str, proposal_id: str) -> str:
        proposal = await asyncio.to_thread(self.store.proposal, root, proposal_id)
        await asyncio.to_thread(self.store.delete_proposal, root, proposal_id)
        return f"rejected proposal {proposal_id} from {proposal.author_name}"
