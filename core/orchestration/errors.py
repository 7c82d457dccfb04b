"""Errors of delegation, each with a message a model (or a user) can act on.

They reach an agent as a tool result with `isError` (MCP), an `ok: false` response (file
protocol) or a command error (`idea ask`): say what happened and what to do next.
"""

from __future__ import annotations

from core.errors import IdeaError


class OrchestrationError(IdeaError):
    """Base of the delegation errors. `code` is stable for programs (`idea ask --json`)."""

    code = "orchestration"


class UnknownTarget(OrchestrationError):
    code = "not_found"

    def __init__(self, target: str, known: list[str]) -> None:
        names = ", ".join(known) if known else "none"
        super().__init__(
            f"There is no agent named {target!r} in this project. Agents: {names} "
            "(idea_list_agents lists them)."
        )
        self.target = target


class MissingField(OrchestrationError):
    code = "missing_field"

    def __init__(self, field: str) -> None:
        super().__init__(f"{field!r} is required and must not be empty.")
        self.field = field


class CycleRefused(OrchestrationError):
    """The ask would close a wait-for cycle (A waits on B waits on A): refused up front."""

    code = "cycle"

    def __init__(self, requester: str, target: str, path: list[str]) -> None:
        chain = " → ".join(path)
        super().__init__(
            f"Refused: {target} is (directly or through others) waiting for {requester} "
            f"({chain}), so this ask would deadlock. Do the work yourself, or answer the "
            "pending task first with idea_reply."
        )
        self.path = path


class QueueFull(OrchestrationError):
    code = "queue_full"

    def __init__(self, target: str, cap: int) -> None:
        super().__init__(
            f"{target} already has {cap} tasks waiting; try again later or ask another agent."
        )


class NoPendingTicket(OrchestrationError):
    code = "no_pending"

    def __init__(self, agent: str) -> None:
        super().__init__(
            f"There is no task waiting for a reply from {agent}: nothing to answer. "
            "idea_reply is only for tasks delivered to you with an [idea · task from …] prefix."
        )


class TicketNotFound(OrchestrationError):
    code = "unknown_ticket"

    def __init__(self, ticket: str) -> None:
        super().__init__(
            f"There is no ticket {ticket!r} (it may be older than this daemon's memory). "
            "Ask again if you still need the answer."
        )
        self.ticket = ticket


class TicketNotYours(OrchestrationError):
    code = "not_yours"

    def __init__(self, ticket: str, agent: str) -> None:
        super().__init__(
            f"Ticket {ticket} was not delivered to {agent}: it is not yours to answer."
        )


class TicketClosed(OrchestrationError):
    """A reply (or a wait) for a ticket that already reached a final state."""

    code = "closed"

    def __init__(self, ticket: str, state: str, reason: str | None) -> None:
        why = f" ({reason})" if reason else ""
        super().__init__(f"Ticket {ticket} is already {state.replace('_', ' ')}{why}.")
        self.state = state


class AskFailed(OrchestrationError):
    """The ask ended without a reply: timed out, cancelled or failed (the reason says)."""

    code = "failed"

    def __init__(self, ticket: str, target: str, state: str, reason: str | None) -> None:
        why = f": {reason}" if reason else ""
        super().__init__(f"The task for {target} (ticket {ticket}) {state.replace('_', ' ')}{why}.")
        self.ticket = ticket
        self.state = state
        self.code = state
