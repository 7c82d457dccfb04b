"""Answers of the delegation commands (`idea ask`, `idea agent send|interrupt|state|tickets|
refresh`, `idea monitor`) and of the live work state (`idea work`), as msgspec Structs (see
`adapters.ipc.answers`). The wire shape is the one the delegations view, the Work panel and
the CLI's `--json` always read: camelCase names, keys that do not apply left out.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from adapters.ipc.params import Answer

# ─── delegation ────────────────────────────────────────────────────────────────────────


class TicketTimes(Answer, kw_only=True):
    """Monotonic seconds (CLOCK_MONOTONIC, the same in every process of the machine)."""

    created: float
    delivered: float | None
    submitted: float | None
    finished: float | None


class TicketInfo(Answer, kw_only=True):
    """A delegation (`ask`, `agent_send`, each of `tickets`)."""

    ticket: str
    target: str
    """The agent asked, by name."""
    requester: str
    state: str
    """queued, delivered, submitted, replied, done, timed_out, cancelled or failed."""
    times: TicketTimes
    submits: int | UnsetType = UNSET
    """How many Enters its delivery took (more than 1: the CLI lost one, idea submitted
    again)."""
    reason: str | UnsetType = UNSET
    """Why it failed or was cancelled."""
    reply: str | UnsetType = UNSET
    progress: str | UnsetType = UNSET
    """`tickets`, a ticket still open: where it stands ("queued for X, 0 ahead")."""


class Interrupted(Answer, kw_only=True):
    agent: str
    interrupted: str | None
    """The ticket that failed with it (None: the agent had none)."""


class AgentState(Answer, kw_only=True):
    """`agent_state`: what idea reads on the agent's screen, and which rule said so. A
    stopped agent has only the first five fields."""

    agent: str
    queue: int
    """Tickets waiting for it."""
    ticket: str | None
    """The one it works on."""
    state: str
    rule: str
    line: int | UnsetType | None = UNSET
    """The screen line the deciding rule matched."""
    text: str | UnsetType | None = UNSET
    explain: str | UnsetType = UNSET
    mcp_connected: bool | UnsetType = msgspec.field(default=UNSET, name="mcpConnected")
    waiting_for: str | UnsetType | None = msgspec.field(default=UNSET, name="waitingFor")


class MonitorAgent(Answer, kw_only=True):
    """One agent of `team_monitor` (`core.orchestration.monitor.AgentRow`)."""

    name: str
    state: str
    detail: str
    profile: str
    queue: int
    ticket: str | None
    since: int | float | None
    """Seconds since its current task was delivered."""
    trouble: str
    asked_by: str | None = msgspec.field(name="askedBy")


class MonitorTicket(Answer, kw_only=True):
    """One recent delegation of `team_monitor` (`core.orchestration.monitor.TicketRow`)."""

    ticket: str
    requester: str
    target: str
    state: str
    age: float
    took: float | None
    reason: str


class TeamSnapshot(Answer, kw_only=True):
    """`team_monitor`: the project's agents and recent delegations, newest first."""

    project: str
    agents: list[MonitorAgent]
    tickets: list[MonitorTicket]


class Refreshed(Answer, kw_only=True):
    """`agent_refresh`: the sections sent (none: its context was up to date)."""

    agent: str
    ticket: str | None
    sections: list[str]


# ─── live work state ───────────────────────────────────────────────────────────────────


class WorkRow(Answer, kw_only=True):
    """One agent's row of `.ideai/live-state.json`, texts as previews."""

    agent: str
    id: str
    status: str
    task: str | UnsetType = UNSET
    note: str | UnsetType = UNSET
    asked_by: str | UnsetType = msgspec.field(default=UNSET, name="askedBy")
    """Who delegated its last task, by name (or `user`)."""
    ticket: str | UnsetType = UNSET
    updated_at: str = msgspec.field(name="updatedAt")
    asked_by_id: str | UnsetType = msgspec.field(default=UNSET, name="askedById")
    running: bool
    refresh: bool | UnsetType = UNSET
    """It is offered a context refresh."""


class WorkState(Answer, kw_only=True):
    rows: list[WorkRow]
    problem: str | UnsetType = UNSET
    """Why live-state.json cannot be used."""
    refresh: list[str]
    """Running agents offered a context refresh, by name."""
    project: str
