"""An agent that needs the user marks its cell and the status line (issue 8, "Seeing it"):
a turn that timed out, a task whose delivery failed, a task waiting while the agent is
blocked on a question. Discreet (PRN-7): the status line says it once; the cell's title
keeps a short mark until the user looks at the cell (focusing it clears it, as a bell's).

The mark rides on the session's `attention` with the `PREFIX`, so the scene can show its
text in the cell's title (`CellInfo.mark`) while other attention reasons stay flags.
"""

from __future__ import annotations

from typing import Any, Protocol

from core.orchestration.tickets import Ticket, TicketState
from idea_daemon.runtime import ProjectRuntime

PREFIX = "delegation: "


class Owner(Protocol):
    """What marking needs of the orchestration service (no import cycle)."""

    @property
    def agents(self) -> Any: ...

    @property
    def service(self) -> Any: ...

    def tell_user(self, runtime: ProjectRuntime, message: str) -> None: ...


def cell_mark(attention: str) -> str:
    """The text a cell's title shows for a delegation mark ('' for other reasons)."""
    return attention[len(PREFIX):] if attention.startswith(PREFIX) else ""


def mark_agent(orchestration: Owner, runtime: ProjectRuntime, agent_id: str,
               text: str) -> None:
    session = orchestration.agents.session_of_agent(runtime, agent_id)
    programs = orchestration.service.programs
    if session is None or programs.is_watched(session.id):
        return  # the user is looking at it (or it has no cell): the status line says it
    session.attention = PREFIX + text
    programs.notify_scene()


def ticket_trouble(orchestration: Owner, runtime: ProjectRuntime,
                   ticket: Ticket) -> None:
    """A ticket ended badly without the user doing it: say so, mark the target's cell."""
    if ticket.state is TicketState.TIMED_OUT:
        words = "timed out"
    elif ticket.state is TicketState.FAILED:
        words = "failed"
    else:
        return
    why = f": {ticket.reason}" if ticket.reason else ""
    orchestration.tell_user(
        runtime, f"{ticket.target_name}: task {ticket.id} from {ticket.requester_name} "
                 f"{words}{why}")
    mark_agent(orchestration, runtime, ticket.target, f"{ticket.id} {words}")
