"""Commands of live state: `idea work` and the Work panel (`work_state`), and the user
accepting "refresh context" for a running agent (`agent_refresh`, `idea agent refresh`)."""

from __future__ import annotations

import msgspec

from adapters.ipc import answers_orchestration as orch
from adapters.ipc import commands as rpc
from core.orchestration.errors import OrchestrationError
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands import _svc, caller_window
from idea_daemon.commands_agents import _name
from idea_daemon.commands_orchestration import _orchestration
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
from idea_daemon.server import DaemonServer


def work_state(server: DaemonServer, client: ClientConnection,
               p: rpc.ProjectParams) -> orch.WorkState:
    """The project's live-state rows (lean, names), whether each agent runs, and whether
    it is offered a refresh; `problem` when `live-state.json` cannot be used."""
    runtime = _project(server, client, p.project)
    orchestration = _orchestration(server)
    if orchestration.workstate is None:
        raise CommandError("live state is not available in this daemon")
    listed = orchestration.workstate.lean(runtime)
    rows = []
    for item in listed["rows"]:
        session = orchestration.agents.session_of_agent(runtime, item["id"])
        # The rows are the live-state tool's own (agents read them too): checked here.
        row = msgspec.convert({**item, "running": session is not None
                               and session.exit_code is None}, orch.WorkRow)
        if session is not None and session.context_changed:
            row.refresh = True
        rows.append(row)
    # Offered a refresh, with a row or not (an agent that never worked has none).
    refresh = [
        agent.name for agent in orchestration.agents.manifest(runtime).agents
        if (session := orchestration.agents.session_of_agent(runtime, agent.id)) is not None
        and session.context_changed and session.exit_code is None
    ]
    answer = orch.WorkState(rows=rows, refresh=refresh, project=runtime.name)
    if "problem" in listed:
        answer.problem = listed["problem"]
    return answer


def agent_refresh(server: DaemonServer, client: ClientConnection,
                  p: rpc.RefreshParams) -> orch.Refreshed:
    """By agent name, or the agent of a cell (the TUI's focused one)."""
    if p.agent is not None or p.target is None:
        runtime = _project(server, client, p.project)
        name = _name(p.agent, "agent")
    else:
        ref = _svc(server).lookups.resolve(p.target, caller_window(server, client), client.cell)
        session = _svc(server).lookups.session_of(ref)
        if session is None or session.agent_id is None:
            raise CommandError("this cell runs no agent", "not_agent")
        runtime, name = ref.runtime, session.agent_id
    try:
        return _orchestration(server).refresh_agent(runtime, name)
    except OrchestrationError as exc:
        raise CommandError(exc.message, exc.code) from exc


COMMANDS = entries(
    command("work_state", rpc.ProjectParams, orch.WorkState, work_state),
    command("agent_refresh", rpc.RefreshParams, orch.Refreshed, agent_refresh),
)
