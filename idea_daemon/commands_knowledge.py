"""The user's side of project memory and the project context (issue 9): the commands the
Memory and Context panels and `idea memory …` / `idea context …` use. Clients never open a
project's files themselves; everything goes through the same services as the agents' tools,
as the user (who may always write the project context)."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace
from pathlib import Path

import msgspec

from adapters.ipc import answers_knowledge as kn
from adapters.ipc.commands import (
    ContextWriteParams,
    MemorySlugParams,
    MemoryWriteParams,
    OrchestratorParams,
    ProjectParams,
    ProposalParams,
)
from adapters.store.memory_store import MEMORY_DIR, NoteInfo
from core.agents.agent import AgentManifest
from core.errors import IdeaError
from core.knowledge.errors import KnowledgeError, NoteNotFound
from core.knowledge.guard import USER_PARTY
from core.knowledge.slugs import checked_slug
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands_agents import _agents
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.knowledge import Knowledge
from idea_daemon.server import DaemonServer


def revision(text: str | None) -> str:
    return "" if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _knowledge(server: DaemonServer) -> Knowledge:
    if server.knowledge is None:
        raise CommandError("project memory is not available in this daemon")
    knowledge: Knowledge = server.knowledge
    return knowledge


def _failed(error: IdeaError) -> CommandError:
    return CommandError(error.message, str(getattr(error, "code", "error")))


def _slug(value: str | None) -> str:
    if not value:
        raise CommandError("a note's slug is required")
    try:
        return checked_slug(value)
    except KnowledgeError as error:
        raise _failed(error) from error


# ─── memory ──────────────────────────────────────────────────────────────────────────────


async def memory_list(server: DaemonServer, client: ClientConnection,
                      p: ProjectParams) -> kn.MemoryList:
    runtime = _project(server, client, p.project)
    memory = _knowledge(server).memory
    problem = None
    try:
        rows = await memory.listing(USER_PARTY, runtime.root)
    except IdeaError as error:
        # A damaged index: the files are still listed, with the index's problem.
        problem = error.message

        def files() -> list[NoteInfo]:
            return [memory.store.info(runtime.root, slug, "", False, True)
                    for slug in memory.store.note_files(runtime.root)]

        try:
            rows = await asyncio.to_thread(files)
        except IdeaError:
            rows = []
    return kn.MemoryList(
        folder=str(Path(runtime.root) / MEMORY_DIR),
        problem=problem,
        notes=[kn.MemoryNote(slug=r.slug, description=r.description, type=r.type,
                             indexed=r.indexed, present=r.present, problem=r.problem,
                             size=r.size) for r in rows],
    )


async def memory_read(server: DaemonServer, client: ClientConnection,
                      p: MemorySlugParams) -> kn.MemoryText:
    runtime = _project(server, client, p.project)
    slug = _slug(p.slug)
    memory = _knowledge(server).memory
    try:
        text = await memory.read(USER_PARTY, runtime.root, slug)
    except NoteNotFound:
        text = None
    except IdeaError as error:
        raise _failed(error) from error
    return kn.MemoryText(slug=slug, path=str(Path(runtime.root) / MEMORY_DIR / f"{slug}.md"),
                         exists=text is not None, content=text or "", revision=revision(text))


async def memory_write(server: DaemonServer, client: ClientConnection,
                       p: MemoryWriteParams) -> kn.MemoryChanged:
    runtime = _project(server, client, p.project)
    slug = _slug(p.slug)
    if p.content is None:
        raise CommandError("content (the note's Markdown) is required")
    memory = _knowledge(server).memory
    if p.revision is not None and not p.force:
        try:
            current: str | None = await memory.read(USER_PARTY, runtime.root, slug)
        except NoteNotFound:
            current = None
        except IdeaError as error:
            raise _failed(error) from error
        if revision(current) != p.revision:
            raise ConfirmationNeeded(f"memory note {slug!r} changed since you opened it (an "
                                     "agent saved it meanwhile). Overwrite it with your version?")
    try:
        message = await memory.write(USER_PARTY, runtime.root, slug, p.content,
                                     description=p.description, kind=p.type)
    except IdeaError as error:
        raise _failed(error) from error
    return kn.MemoryChanged(slug=slug, message=message)


async def memory_delete(server: DaemonServer, client: ClientConnection,
                        p: MemorySlugParams) -> kn.MemoryChanged:
    runtime = _project(server, client, p.project)
    slug = _slug(p.slug)
    try:
        message = await _knowledge(server).memory.delete(USER_PARTY, runtime.root, slug)
    except IdeaError as error:
        raise _failed(error) from error
    return kn.MemoryChanged(slug=slug, message=message)


# ─── project context ─────────────────────────────────────────────────────────────────────


async def context_read(server: DaemonServer, client: ClientConnection,
                       p: ProjectParams) -> kn.ContextText:
    runtime = _project(server, client, p.project)
    context = _knowledge(server).context
    try:
        text = await context.current(runtime.root)
    except IdeaError as error:
        raise _failed(error) from error
    return kn.ContextText(path=str(context.store.context_path(runtime.root)),
                          exists=text is not None, content=text or "", revision=revision(text))


async def context_write(server: DaemonServer, client: ClientConnection,
                        p: ContextWriteParams) -> kn.ContextWritten:
    runtime = _project(server, client, p.project)
    if p.content is None:
        raise CommandError("content (the Markdown) is required")
    context = _knowledge(server).context
    try:
        if p.revision is not None and not p.force:
            current = await context.current(runtime.root)
            if revision(current) != p.revision:
                raise ConfirmationNeeded("CONTEXT.md changed since you opened it. Overwrite it "
                                         "with your version?")
        message = await context.write(USER_PARTY, runtime.root, p.content)
    except CommandError:
        raise
    except IdeaError as error:
        raise _failed(error) from error
    return kn.ContextWritten(message=message,
                             revision=revision(p.content if p.content.endswith("\n")
                                               or not p.content else p.content + "\n"))


async def context_proposals(server: DaemonServer, client: ClientConnection,
                            p: ProjectParams) -> kn.Proposals:
    runtime = _project(server, client, p.project)
    try:
        views, broken = await _knowledge(server).context.proposals(runtime.root)
    except IdeaError as error:
        raise _failed(error) from error
    return kn.Proposals(
        proposals=[kn.Proposal(id=v.proposal.id, author=v.proposal.author_name,
                               author_id=v.proposal.author_id, at_ms=v.proposal.at_ms,
                               reason=v.proposal.reason, stale=v.stale,
                               content=v.proposal.content,
                               # The diff is core's map (core knows no wire types).
                               diff=msgspec.convert(v.diff, kn.ProposalDiff))
                   for v in views],
        broken=[kn.BrokenProposal(file=b.name, problem=b.problem) for b in broken],
    )


def _proposal_id(p: ProposalParams) -> str:
    if not p.id:
        raise CommandError("a proposal id is required (`idea context proposals` lists them)")
    return p.id


async def context_accept(server: DaemonServer, client: ClientConnection,
                         p: ProposalParams) -> kn.Said:
    runtime = _project(server, client, p.project)
    try:
        return kn.Said(message=await _knowledge(server).context.accept(runtime.root,
                                                                       _proposal_id(p)))
    except IdeaError as error:
        raise _failed(error) from error


async def context_reject(server: DaemonServer, client: ClientConnection,
                         p: ProposalParams) -> kn.Said:
    runtime = _project(server, client, p.project)
    try:
        return kn.Said(message=await _knowledge(server).context.reject(runtime.root,
                                                                       _proposal_id(p)))
    except IdeaError as error:
        raise _failed(error) from error


ORCHESTRATOR_KEY = "orchestrator"
"""`agents.json`: `"orchestrator": true` on the one agent the user lets write CONTEXT.md."""


def context_orchestrator(server: DaemonServer, client: ClientConnection,
                         p: OrchestratorParams) -> kn.Orchestrator:
    """Show, set (`agent`) or remove (`none`) the agent that may write CONTEXT.md."""
    runtime = _project(server, client, p.project)
    agents = _agents(server)
    manifest = agents.manifest(runtime)
    chosen = agents.agent(runtime, p.agent).id if p.agent else None
    if p.agent is None and not p.none:
        current = [a.name for a in manifest.agents if a.extra.get(ORCHESTRATOR_KEY) is True]
        return kn.Orchestrator(orchestrator=current[0] if current else None)
    changed = []
    for agent in manifest.agents:
        extra = {k: v for k, v in agent.extra.items() if k != ORCHESTRATOR_KEY}
        if agent.id == chosen:
            extra[ORCHESTRATOR_KEY] = True
        changed.append(replace(agent, extra=extra))
    agents.save_manifest(runtime, AgentManifest(tuple(changed), manifest.version,
                                                manifest.extra))
    name = next((a.name for a in manifest.agents if a.id == chosen), None)
    return kn.Orchestrator(orchestrator=name)


COMMANDS = entries(
    command("memory_list", ProjectParams, kn.MemoryList, memory_list),
    command("memory_read", MemorySlugParams, kn.MemoryText, memory_read),
    command("memory_write", MemoryWriteParams, kn.MemoryChanged, memory_write),
    command("memory_delete", MemorySlugParams, kn.MemoryChanged, memory_delete),
    command("context_read", ProjectParams, kn.ContextText, context_read),
    command("context_write", ContextWriteParams, kn.ContextWritten, context_write),
    command("context_proposals", ProjectParams, kn.Proposals, context_proposals),
    command("context_accept", ProposalParams, kn.Said, context_accept),
    command("context_reject", ProposalParams, kn.Said, context_reject),
    command("context_orchestrator", OrchestratorParams, kn.Orchestrator, context_orchestrator),
)
"""The commands of this module (the composition root merges the tables)."""
