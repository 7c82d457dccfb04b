"""Commands on conversations: `idea conversation list|show|search` and the viewer (LOG-6/7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.ipc import answers_knowledge as kn
from adapters.ipc import commands as rpc
from core.errors import IdeaError
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
from idea_daemon.server import DaemonServer

if TYPE_CHECKING:
    from idea_daemon.conversations.service import Conversations

MAX_QUERY = 1_000


def _conversations(server: DaemonServer) -> Conversations:
    found: Conversations | None = getattr(server, "conversations", None)
    if found is None:
        raise CommandError("conversations are not available in this daemon")
    return found


def _pair(p: rpc.ConversationParams) -> tuple[str, str]:
    if not p.a or not p.a.strip() or not p.b or not p.b.strip():
        raise CommandError("name both sides of the conversation (two agents, or user and an "
                           "agent)")
    return p.a, p.b


async def conversation_list(server: DaemonServer, client: ClientConnection,
                            p: rpc.ConversationListParams) -> list[kn.ConversationSummary]:
    runtime = _project(server, client, p.project)
    try:
        return await _conversations(server).listing(runtime, p.agent)
    except IdeaError as exc:
        raise CommandError(exc.message, "not_found") from exc


async def read_conversation_page(server: DaemonServer, client: ClientConnection,
                                 p: rpc.ConversationParams) -> kn.ConversationPage:
    runtime = _project(server, client, p.project)
    a, b = _pair(p)
    try:
        return await _conversations(server).page(runtime, a, b, p.segment)
    except LookupError:
        raise CommandError(f"this conversation has no archived segment {p.segment}",
                           "not_found") from None
    except ValueError as exc:  # the same party twice
        raise CommandError(str(exc), "bad_request") from exc
    except IdeaError as exc:
        raise CommandError(exc.message, "not_found") from exc


async def conversation_search(server: DaemonServer, client: ClientConnection,
                              p: rpc.ConversationSearchParams) -> kn.ConversationSearch:
    runtime = _project(server, client, p.project)
    a, b = _pair(p)
    if not p.query or not p.query.strip():
        raise CommandError("query is required")
    if len(p.query) > MAX_QUERY:
        raise CommandError(f"a search is limited to {MAX_QUERY} characters")
    try:
        return await _conversations(server).search(runtime, a, b, p.query)
    except ValueError as exc:
        raise CommandError(str(exc), "bad_request") from exc
    except IdeaError as exc:
        raise CommandError(exc.message, "not_found") from exc


COMMANDS = entries(
    command("conversation_list", rpc.ConversationListParams, list[kn.ConversationSummary],
            conversation_list),
    command("read_conversation_page", rpc.ConversationParams, kn.ConversationPage,
            read_conversation_page),
    command("conversation_search", rpc.ConversationSearchParams, kn.ConversationSearch,
            conversation_search),
)
