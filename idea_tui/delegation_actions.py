"""The client's delegation actions (issue 8): the delegations view, and the user's part in an
agent's FIFO from its cell — enqueue a line (D4: after the current task, never typed into
the middle of a turn) and interrupt the current turn.

A collaborator of `idea_tui.actions.ActionRunner` (its `delegations`), typed against the
`Runner` interface it needs: `call`, `report`, `focused_target` and `app.push_screen`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from idea_tui.ports import Runner


class DelegationActions:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    async def show_view(self) -> None:
        from idea_tui.screens.delegations import DelegationsScreen

        self.runner.app.push_screen(DelegationsScreen(self.runner))

    async def enqueue_line(self, text: str) -> None:
        from adapters.ipc.answers_orchestration import TicketInfo
        from idea_tui.ports import call_as

        runner = self.runner
        result = await call_as(runner, TicketInfo, "agent_send", target=runner.focused_target(),
                               text=text)
        if result is not None:
            runner.report(f"{result.target}: queued as {result.ticket} "
                          "(typed in when its current task is done)")

    async def interrupt_agent(self) -> None:
        from adapters.ipc.answers_orchestration import Interrupted
        from idea_tui.ports import call_as

        runner = self.runner
        result = await call_as(runner, Interrupted, "agent_interrupt",
                               target=runner.focused_target())
        if result is not None:
            ticket = result.interrupted
            runner.report(f"{result.agent}: interrupted"
                          + (f"; ticket {ticket} failed, its queue moves on" if ticket else ""))
