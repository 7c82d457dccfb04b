"""The delegations view (prefix + D, issue 8 "Seeing it"): who asked whom, each ticket's
state and how long it took or has been running, which agents wait for the user (blocked, a
timed-out turn, a failed delivery). Read-only; the same snapshot as `idea monitor`
(`team_monitor`), read again every `REFRESH_SECONDS` while the view is open."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import msgspec
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from adapters.ipc.answers_orchestration import TeamSnapshot
from core.orchestration.monitor import AgentRow, Snapshot, TicketRow, duration
from idea_tui.ports import call_as

if TYPE_CHECKING:
    from idea_tui.ports import Runner

TICKET_STYLES = {
    "replied": "green",
    "done": "green",
    "timed_out": "bold red",
    "failed": "bold red",
    "cancelled": "dim",
    "queued": "cyan",
}
HINT = "r: refresh now · Escape: back"


def agent_cells(row: AgentRow) -> list[Text]:
    style = "bold yellow" if row.needs_user() else ("green" if row.state == "idle" else "")
    return [
        Text(row.name, style="bold"),
        Text(row.state_label(), style=style),
        Text(str(row.queue) if row.queue else ""),
        Text(row.ticket or ""),
        Text(row.asked_by or ""),
        Text(duration(row.since)),
        Text(f"! {row.trouble}" if row.trouble else "", style="bold red"),
    ]


def ticket_cells(row: TicketRow) -> list[Text]:
    return [
        Text(row.ticket),
        Text(f"{row.requester} → {row.target}"),
        Text(row.state.replace("_", " "), style=TICKET_STYLES.get(row.state, "")),
        Text(duration(row.age)),
        Text(duration(row.took)),
        Text(row.reason, style="dim"),
    ]


class DelegationsScreen(ModalScreen[None]):
    REFRESH_SECONDS: ClassVar[float] = 1.0

    DEFAULT_CSS = """
    DelegationsScreen { align: center middle; }
    DelegationsScreen > Vertical {
        width: 98%; max-width: 140; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    DelegationsScreen DataTable { height: auto; max-height: 14; margin-top: 1; }
    DelegationsScreen #delegations-attention { margin-top: 1; color: $warning; }
    DelegationsScreen .hint { color: $text-muted; margin-top: 1; }
    """

    def __init__(self, runner: Runner | None, snapshot: Snapshot | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.snapshot = snapshot

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = " Delegations "
            yield DataTable(id="delegations-agents", cursor_type="none", zebra_stripes=True)
            yield Static("", id="delegations-attention")
            yield DataTable(id="delegations-tickets", cursor_type="row")
            yield Static(HINT, classes="hint")

    async def on_mount(self) -> None:
        agents = self.query_one("#delegations-agents", DataTable)
        agents.add_columns("agent", "state", "queue", "ticket", "for", "since", "")
        tickets = self.query_one("#delegations-tickets", DataTable)
        tickets.add_columns("ticket", "who asked whom", "state", "asked", "took", "why")
        if self.snapshot is None:
            await self.refresh_snapshot()
        else:
            self.show(self.snapshot)
        if self.runner is not None:
            self.set_interval(self.REFRESH_SECONDS, self.refresh_snapshot)

    async def refresh_snapshot(self) -> None:
        if self.runner is None:
            return
        team = await call_as(self.runner, TeamSnapshot, "team_monitor")
        if team is not None:
            self.show(snapshot_of(team))

    def show(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        box = self.query_one(Vertical)
        box.border_title = f" Delegations · {snapshot.project} "
        agents = self.query_one("#delegations-agents", DataTable)
        agents.clear()
        for row in snapshot.agents:
            agents.add_row(*agent_cells(row), key=row.name)
        tickets = self.query_one("#delegations-tickets", DataTable)
        cursor = tickets.cursor_row
        tickets.clear()
        for ticket in snapshot.tickets:
            tickets.add_row(*ticket_cells(ticket), key=ticket.ticket)
        if snapshot.tickets:
            tickets.move_cursor(row=min(cursor, len(snapshot.tickets) - 1))
        needing = [row for row in snapshot.agents if row.needs_user()]
        attention = self.query_one("#delegations-attention", Static)
        if needing:
            attention.update("needs you: " + ", ".join(
                f"{row.name} ({row.trouble or row.state_label()})" for row in needing))
        elif not snapshot.tickets:
            attention.update("no delegations yet: agents ask each other with idea_ask_agent;"
                             " you can with `idea ask AGENT TASK`")
        else:
            attention.update("")

    async def on_key(self, event: events.Key) -> None:
        if event.key in ("escape", "q"):
            event.stop()
            self.dismiss(None)
        elif event.key == "r":
            event.stop()
            await self.refresh_snapshot()


def snapshot_of(team: TeamSnapshot) -> Snapshot:
    """`team_monitor`'s answer as the monitor's rows (the same fields, by their names)."""
    return Snapshot(project=team.project,
                    agents=[AgentRow(**msgspec.structs.asdict(a)) for a in team.agents],
                    tickets=[TicketRow(**msgspec.structs.asdict(t)) for t in team.tickets])
