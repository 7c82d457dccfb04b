"""Commands of delegation: `idea ask`, `idea agent send|interrupt|state` (D4, DLG); their
parameters are Structs (`adapters/ipc/params_orchestration.py`) decoded at the boundary."""

from __future__ import annotations

from adapters.ipc import answers_orchestration as orch
from adapters.ipc import params_orchestration as rpc
from core.orchestration.errors import OrchestrationError
from core.orchestration.tickets import Ticket
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands import _svc, target
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
from idea_daemon.orchestration.service import OrchestrationService
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.server import DaemonServer


def _orchestration(server: DaemonServer) -> OrchestrationService:
    found: OrchestrationService | None = server.orchestration
    if found is None:
        raise CommandError("delegation is not available in this daemon")
    return found


def describe_ticket(ticket: Ticket) -> orch.TicketInfo:
    info = orch.TicketInfo(
        ticket=ticket.id,
        target=ticket.target_name,
        requester=ticket.requester_name,
        state=ticket.state.value,
        # Monotonic seconds (CLOCK_MONOTONIC, the same in every process of the machine).
        times=orch.TicketTimes(created=ticket.created_at, delivered=ticket.delivered_at,
                               submitted=ticket.submitted_at, finished=ticket.finished_at),
    )
    if ticket.attempts:
        info.submits = ticket.attempts  # more than 1: the CLI lost an Enter
    if ticket.reason:
        info.reason = ticket.reason
    if ticket.result is not None:
        info.reply = ticket.result
    return info


async def ask(server: DaemonServer, client: ClientConnection,
              params: rpc.AskParams) -> orch.TicketInfo:
    """Delegate as the user and wait for the reply (or `timeout` seconds)."""
    runtime = _project(server, client, params.project)
    try:
        ticket = await _orchestration(server).ask_as_user(
            runtime, params.agent, params.task, params.timeout
        )
    except OrchestrationError as exc:
        raise CommandError(exc.message, exc.code) from exc
    return describe_ticket(ticket)


def _agent_of(server: DaemonServer, client: ClientConnection,
              params: rpc.CellAgentParams) -> tuple[ProjectRuntime, str]:
    """(project, agent) named by `agent`, or the agent running in the cell `target`."""
    if params.agent is None and params.target is not None:
        ref = target(server, client, params.target)
        session = _svc(server).lookups.session_of(ref)
        if session is None or session.agent_id is None or session.exit_code is not None:
            raise CommandError("no agent runs in this cell", "not_an_agent")
        return ref.runtime, session.agent_id
    if params.agent is None:
        raise CommandError("agent is required")
    return _project(server, client, params.project), params.agent


def agent_send(server: DaemonServer, client: ClientConnection,
               params: rpc.CellSendParams) -> orch.TicketInfo:
    runtime, agent = _agent_of(server, client, params)
    try:
        ticket = _orchestration(server).send_line(runtime, agent, params.text)
    except OrchestrationError as exc:
        raise CommandError(exc.message, exc.code) from exc
    return describe_ticket(ticket)


def agent_interrupt(server: DaemonServer, client: ClientConnection,
                    params: rpc.CellAgentParams) -> orch.Interrupted:
    runtime, agent = _agent_of(server, client, params)
    try:
        return _orchestration(server).interrupt(runtime, agent)
    except OrchestrationError as exc:
        raise CommandError(exc.message, exc.code) from exc


def agent_state(server: DaemonServer, client: ClientConnection,
                params: rpc.TargetAgentParams) -> orch.AgentState:
    runtime = _project(server, client, params.project)
    orchestration = _orchestration(server)
    try:
        agent = orchestration.target(runtime, params.agent)
    except OrchestrationError as exc:
        raise CommandError(exc.message, exc.code) from exc
    return orchestration.agent_state(runtime, agent)


def tickets(server: DaemonServer, client: ClientConnection,
            params: rpc.DelegationParams) -> list[orch.TicketInfo]:
    """Recent delegations of the project, oldest first (the delegations view)."""
    runtime = _project(server, client, params.project)
    orchestration = _orchestration(server)
    box = orchestration.box(runtime)
    listed = []
    for ticket in box.tickets():
        info = describe_ticket(ticket)
        if not ticket.state.final:
            # What its caller's progress says ("queued for X, 0 ahead (target limited
            # until 17:00)").
            info.progress = orchestration.describe_wait(runtime, ticket)
        listed.append(info)
    return listed


def team_monitor(server: DaemonServer, client: ClientConnection,
                 params: rpc.DelegationParams) -> orch.TeamSnapshot:
    """Agents, states, queues and recent tickets in one snapshot (`idea monitor`, the TUI's
    delegations view)."""
    from idea_daemon.orchestration.monitor import snapshot

    runtime = _project(server, client, params.project)
    taken = snapshot(_orchestration(server), runtime)
    return orch.TeamSnapshot(
        project=taken.project,
        agents=[orch.MonitorAgent(name=a.name, state=a.state, detail=a.detail,
                                  profile=a.profile, queue=a.queue, ticket=a.ticket,
                                  since=a.since, trouble=a.trouble, asked_by=a.asked_by)
                for a in taken.agents],
        tickets=[orch.MonitorTicket(ticket=t.ticket, requester=t.requester, target=t.target,
                                    state=t.state, age=t.age, took=t.took, reason=t.reason)
                 for t in taken.tickets])


COMMANDS = entries(
    command("ask", rpc.AskParams, orch.TicketInfo, ask),
    command("agent_send", rpc.CellSendParams, orch.TicketInfo, agent_send),
    command("agent_interrupt", rpc.CellAgentParams, orch.Interrupted, agent_interrupt),
    command("agent_state", rpc.TargetAgentParams, orch.AgentState, agent_state),
    command("tickets", rpc.DelegationParams, list[orch.TicketInfo], tickets),
    command("team_monitor", rpc.DelegationParams, orch.TeamSnapshot, team_monitor),
)
