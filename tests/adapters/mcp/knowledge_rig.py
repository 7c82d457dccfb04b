"""The real MCP server with the daemon's real knowledge service (memory, project context)
on a real project folder, reached by the real SDK client over streamable HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
import mcp_types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from adapters.mcp.http import HttpEndpoint
from adapters.mcp.identity import Caller, SecretRegistry
from adapters.mcp.tools import build_server
from adapters.store.agents_codec import PersonaStore
from idea_daemon.knowledge import Knowledge
from tests.adapters.mcp.fake_orchestrator import FakeOrchestrator


class KnowingOrchestrator(FakeOrchestrator):
    """The fake delegation side, with the real knowledge service next to it."""

    def __init__(self, knowledge: Knowledge) -> None:
        super().__init__()
        self.knowledge = knowledge


@dataclass
class KnowledgeRig:
    project: Path
    knowledge: Knowledge
    http: HttpEndpoint
    secrets: dict[str, str]
    callers: dict[str, Caller]

    def client(self, name: str) -> Client:
        secret = self.secrets[name]
        transport = streamable_http_client(
            self.http.url,
            http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"},
                                           timeout=60),
        )
        return Client(transport, mode="legacy")


@asynccontextmanager
async def knowledge_rig(
    project: Path, names: tuple[str, ...] = ("Dev", "QA"), *,
    orchestrators: tuple[str, ...] = (), knowledge: Knowledge | None = None,
) -> AsyncIterator[KnowledgeRig]:
    (project / ".ideai").mkdir(parents=True, exist_ok=True)
    callers = {name: Caller(f"agent-{name.lower()}", name, str(project)) for name in names}
    ids = {callers[name].agent_id for name in orchestrators}
    knowledge = knowledge or Knowledge(orchestrator_of=lambda _root, agent: agent in ids,
                                       personas=PersonaStore())
    fake = KnowingOrchestrator(knowledge)
    registry = SecretRegistry()
    secrets = {name: registry.issue(caller) for name, caller in callers.items()}
    http = HttpEndpoint(build_server(fake), registry, fake.connected)
    await http.start()
    try:
        yield KnowledgeRig(project, knowledge, http, secrets, callers)
    finally:
        await http.stop()


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), 120))


def text(result: mcp_types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))
