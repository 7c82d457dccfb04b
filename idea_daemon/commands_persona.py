"""Reading and writing an agent's persona (its Markdown under `.ideai/`) for clients.

Clients never open a project's files themselves (a project may live on another machine
than the client). A read gives the text and a revision (a digest of the bytes); a write
names the revision it started from, and the daemon asks for a confirmation when the file
changed since (a sync, another editor) rather than overwriting it silently.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from adapters.ipc import answers_agents as ag
from adapters.ipc import commands as rpc
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands_agents import _agents, _name
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.server import DaemonServer

MAX_PERSONA_BYTES = 1_000_000
"""A persona is a prompt: far smaller than this; larger text is refused, not stored."""


def revision(text: str | None) -> str:
    """"" for a missing file, else a digest of its content."""
    if text is None:
        return ""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _located(server: DaemonServer, client: ClientConnection,
             p: rpc.NamedAgentParams) -> tuple[Path, str, Path]:
    runtime = _project(server, client, p.project)
    agents = _agents(server)
    agent = agents.agent(runtime, _name(p.agent, "agent"))
    root = Path(runtime.root)
    return root, agent.md_path, agents.persona_store.path(root, agent.md_path)


def agent_persona_read(server: DaemonServer, client: ClientConnection,
                       p: rpc.NamedAgentParams) -> ag.PersonaText:
    root, md_path, path = _located(server, client, p)
    text = _agents(server).persona_store.load(root, md_path)
    return ag.PersonaText(path=str(path), exists=text is not None, content=text or "",
                          revision=revision(text))


def agent_persona_write(server: DaemonServer, client: ClientConnection,
                        p: rpc.PersonaWriteParams) -> ag.PersonaWritten:
    content = p.content
    if content is None:
        raise CommandError("content (the Markdown) is required")
    if len(content.encode("utf-8")) > MAX_PERSONA_BYTES:
        raise CommandError(f"a persona is limited to {MAX_PERSONA_BYTES} bytes")
    base = p.revision
    root, md_path, path = _located(server, client, p)
    store = _agents(server).persona_store
    current = store.load(root, md_path)
    if base is not None and revision(current) != base and not p.force:
        raise ConfirmationNeeded(
            f"{path.name} changed on disk since you opened it (a sync, or another "
            "editor). Overwrite it with your version?")
    changed = content != current
    if changed:
        store.write(root, md_path, content)
    return ag.PersonaWritten(path=str(path), changed=changed, revision=revision(content))



COMMANDS = entries(
    command("agent_persona_read", rpc.NamedAgentParams, ag.PersonaText, agent_persona_read),
    command("agent_persona_write", rpc.PersonaWriteParams, ag.PersonaWritten, agent_persona_write),
)
"""The commands of this module (the composition root merges the tables)."""
