"""The `monitor` command's snapshot: every agent of a project with its state, queue and
current ticket, and the recent delegations (for `idea monitor` and the TUI's delegations
view). Read-only: it looks at what the orchestration service already holds.

Another reader of an agent's state (a session limit, say) adds itself to the service's
`row_decorators`: each gets the row built so far and returns it, changed or not. They live
on the service, not in this module, so two daemons in one process never share them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.orchestration.monitor import AgentRow, Snapshot, recent_tickets, trouble_of
from idea_daemon.runtime import ProjectRuntime

if TYPE_CHECKING:
    from core.agents.agent import Agent
    from idea_daemon.orchestration.service import OrchestrationService

DETAIL_MAX = 48
"""A blocked agent's question, cut to this many characters."""

RowDecorator = Callable[["ProjectRuntime", "Agent", AgentRow], AgentRow]
"""What `OrchestrationService.row_decorators` holds (e.g. session limits: `rate_limited`,
"until 14:05")."""


def agent_row(
    orchestration: OrchestrationService, runtime: ProjectRuntime, agent: Agent,
    profile_name: str,
) -> AgentRow:
    box = orchestration.box(runtime)
    info = orchestration.panel_info(runtime, agent)
    state = str(info.get("activity") or "stopped")
    detail = ""
    if state == "blocked":
        verdict = orchestration.agent_state(runtime, agent)
        detail = (verdict.text or "")[:DETAIL_MAX]
    row = AgentRow(
        name=agent.name,
        state=state,
        detail=detail,
        profile=profile_name,
        queue=int(info.get("queue", 0)),
        ticket=info.get("ticket"),
        asked_by=info.get("askedBy"),
        since=info.get("since"),
        trouble=trouble_of(box.tickets(), agent.id),
    )
    for decorate in orchestration.row_decorators:
        row = decorate(runtime, agent, row)
    return row


def snapshot(orchestration: OrchestrationService, runtime: ProjectRuntime) -> Snapshot:
    rows = []
    for status in orchestration.agents.status(runtime):
        agent = status.agent
        rows.append(agent_row(orchestration, runtime, agent, agent.profile_id))
    tickets = recent_tickets(orchestration.box(runtime).tickets(), orchestration.clock())
    return Snapshot(project=runtime.name, agents=rows, tickets=tickets)


def replace_row(row: AgentRow, **changes: object) -> AgentRow:
    """A decorator's helper: the row with some fields changed."""
    return dataclasses.replace(row, **changes)  # type: ignore[arg-type]
