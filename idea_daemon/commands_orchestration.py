"""Commands of delegation: `idea ask`, `idea agent send|interrupt|state` (D4, DLG)."""

from __future__ import annotations

from typing import Any

from core.orchestration.errors import OrchestrationError
from core.orchestration.tickets import Ticket
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import RawHandler as Handler
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
from idea_daemon.orchestration.service import OrchestrationService
from idea_daemon.server import DaemonServer


def _orchestration(server: DaemonServer) -> OrchestrationService:
    found: OrchestrationService | None = server.orchestration
    if found is None:
        raise CommandError("delegation is not available in this daemon")
    return found


def _text(params: dict[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CommandError(f"{key} is required")
    return value


def describe_ticket(ticket: Ticket) -> dict[str, Any]:
    info: dict[str, Any] = {
        "ticket": ticket.id,
        "target": ticket.target_name,
        "requester": ticket.requester_name,
        "state": ticket.state.value,
    }
    # Monotonic seconds (CLOCK_MONOTONIC, the same in every process of the machine).
    info["times"] = {
        "created": ticket.created_at,
        "delivered": ticket.delivered_at,
        "submitted": ticket.submitted_at,
        "finished": ticket.finished_at,
    }
    if ticket.reason:
        info["reason"] = ticket.reason
    if ticket.result is not None:
        info["reply"] = ticket.result
    return info


async def ask(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    """Delegate as the user and wait for the reply (or `timeout` seconds)."""
    runtime = _project(server, client, params.get("project"))
    timeout = params.get("timeout")
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
        raise CommandError("timeout must be a positive number of seconds")
    try:
        ticket = await _orchestration(server).ask_as_user(
            runtime, _text(params, "agent"), _text(params, "task"), timeout
        )
    except OrchestrationError as exc:
        raise CommandError(exc.message, exc.code) from exc
    return describe_ticket(ticket)


def agent_send(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params.get("project"))
    try:
        ticket = _orchestration(server).send_line(
            runtime, _text(params, "agent"), _text(params, "text")
        )
    except OrchestrationError as exc:
        raise CommandError(exc.message, exc.code) from exc
    return describe_ticket(ticket)


def agent_interrupt(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params.get("project"))
    try:
        return _orchestration(server).interrupt(runtime, _text(params, "agent"))
    except OrchestrationError as exc:
        raise CommandError(exc.message, exc.code) from exc


def agent_state(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params.get("project"))
    orchestration = _orchestration(server)
    try:
        agent = orchestration.target(runtime, _text(params, "agent"))
    except OrchestrationError as exc:
        raise CommandError(exc.message, exc.code) from exc
    return orchestration.agent_state(runtime, agent)


def tickets(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    """Recent delegations of the project, oldest first (the delegations view)."""
    runtime = _project(server, client, params.get("project"))
    box = _orchestration(server).box(runtime)
    return [describe_ticket(t) for t in box.tickets()]


COMMANDS: dict[str, Handler] = {
    "ask": ask,
    "agent_send": agent_send,
    "agent_interrupt": agent_interrupt,
    "agent_state": agent_state,
    "tickets": tickets,
}
