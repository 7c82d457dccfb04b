"""What `idea monitor` and the TUI's delegations view show: one row per agent, one per
recent ticket, and the marks that say an agent needs the user (issue 8, "Seeing it").

Pure data and formatting (no I/O). The daemon fills the rows (`idea_daemon/orchestration/
monitor.py`); clients get them as JSON (`to_json`) and format them with the same functions.

Extending: a new agent state (say `rate_limited`, with `detail` "until 14:05") needs no
change here — `state_label` shows "rate_limited (until 14:05)" and `needs_user` lists the
states that mark a cell. A new column is a field with a default, written by `to_json` and
read back by `AgentRow.from_json` (unknown keys of a newer daemon are ignored).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from core.orchestration.tickets import Ticket, TicketState

RECENT = 20
"""Tickets a snapshot carries (the most recent)."""

ATTENTION_STATES = frozenset({"blocked", "rate_limited"})
"""Agent states in which the agent waits for the user (or for time): its cell is marked."""

TROUBLE_TICKETS = frozenset({TicketState.TIMED_OUT.value, TicketState.FAILED.value})
"""Ticket outcomes the user should hear about (a timed-out turn, a failed delivery)."""


@dataclass(frozen=True)
class AgentRow:
    """One agent as the monitor lists it."""

    name: str
    state: str
    """starting | idle | working | blocked | exited | stopped (and later states)."""
    detail: str = ""
    """What qualifies the state: "permission prompt", "until 14:05"."""
    profile: str = ""
    queue: int = 0
    ticket: str | None = None
    asked_by: str | None = None
    since: float | None = None
    """Seconds since its current task was delivered."""
    trouble: str = ""
    """The last delivery problem of this agent still worth showing ("T3 timed out")."""

    def state_label(self) -> str:
        return f"{self.state} ({self.detail})" if self.detail else self.state

    def needs_user(self) -> bool:
        return self.state in ATTENTION_STATES or bool(self.trouble)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["askedBy"] = data.pop("asked_by")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AgentRow:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        if "askedBy" in data:
            values["asked_by"] = data["askedBy"]
        return cls(**values)


@dataclass(frozen=True)
class TicketRow:
    """One delegation: who asked whom, where it stands, for how long."""

    ticket: str
    requester: str
    target: str
    state: str
    age: float
    """Seconds since it was asked."""
    took: float | None = None
    """Seconds from the ask to its end (None while it runs)."""
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TicketRow:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class Snapshot:
    project: str
    agents: list[AgentRow] = field(default_factory=list)
    tickets: list[TicketRow] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "agents": [row.to_json() for row in self.agents],
            "tickets": [row.to_json() for row in self.tickets],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Snapshot:
        return cls(
            project=str(data.get("project", "")),
            agents=[AgentRow.from_json(a) for a in data.get("agents", [])],
            tickets=[TicketRow.from_json(t) for t in data.get("tickets", [])],
        )


def ticket_row(ticket: Ticket, now: float) -> TicketRow:
    took = None
    if ticket.finished_at is not None:
        took = max(0.0, ticket.finished_at - ticket.created_at)
    return TicketRow(
        ticket=ticket.id,
        requester=ticket.requester_name,
        target=ticket.target_name,
        state=ticket.state.value,
        age=max(0.0, now - ticket.created_at),
        took=took,
        reason=ticket.reason or "",
    )


def recent_tickets(tickets: list[Ticket], now: float, count: int = RECENT) -> list[TicketRow]:
    """The `count` most recent tickets, newest first."""
    ordered = sorted(tickets, key=lambda t: t.created_at, reverse=True)
    return [ticket_row(t, now) for t in ordered[:count]]


def trouble_of(tickets: list[Ticket], agent_id: str) -> str:
    """The agent's latest ticket if it timed out or failed (a later ticket clears it)."""
    latest = None
    for ticket in tickets:
        if ticket.target == agent_id and (latest is None or ticket.created_at >= latest.created_at):
            latest = ticket
    if latest is None or latest.state.value not in TROUBLE_TICKETS:
        return ""
    words = "timed out" if latest.state is TicketState.TIMED_OUT else "failed"
    return f"{latest.id} {words}"


def duration(seconds: float | None) -> str:
    """'0.4 s', '12 s', '3 min', '2 h'; '' for None."""
    if seconds is None:
        return ""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def agent_table(rows: list[AgentRow]) -> list[list[str]]:
    """Header and cells of the agents table (text clients align them)."""
    table = [["AGENT", "STATE", "QUEUE", "TICKET", "FOR", "SINCE", ""]]
    for row in rows:
        table.append([
            row.name,
            row.state_label(),
            str(row.queue) if row.queue else "",
            row.ticket or "",
            row.asked_by or "",
            duration(row.since),
            f"! {row.trouble}" if row.trouble else "",
        ])
    return table


def ticket_table(rows: list[TicketRow]) -> list[list[str]]:
    table = [["TICKET", "FROM", "TO", "STATE", "AGE", "TOOK", "WHY"]]
    for row in rows:
        table.append([row.ticket, row.requester, row.target, row.state.replace("_", " "),
                      duration(row.age), duration(row.took), row.reason])
    return table


def align(table: list[list[str]], width: int | None = None) -> list[str]:
    """Columns padded to their widest cell; lines cut at `width` when given."""
    if not table:
        return []
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    lines = []
    for r in table:
        line = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip()
        lines.append(line[:width] if width else line)
    return lines
