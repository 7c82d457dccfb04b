"""Tickets: one delegated task (or one line the user enqueued) and its recorded life (D27).

    queued → delivered → submitted → replied
                 ╲           ╲
                  failed(reason) · timed_out · cancelled      (from any non-final state)

`delivered` means the daemon wrote the text into the target's PTY, `submitted` that the turn
visibly started after the submit sequence. A user's line (`idea agent send`) expects no
reply: its turn ends when the agent is idle again, state `done`.
"""

from __future__ import annotations

import enum

import msgspec

USER = "user"
"""The requester label of the person at the keyboard (`idea ask`, `idea agent send`)."""


class TicketState(enum.Enum):
    QUEUED = "queued"
    DELIVERED = "delivered"
    SUBMITTED = "submitted"
    REPLIED = "replied"
    DONE = "done"
    TIMED_OUT = "timed_out"
    CANCELLED = "cancelled"
    FAILED = "failed"

    @property
    def final(self) -> bool:
        return self in FINAL_STATES

    @property
    def in_turn(self) -> bool:
        """The target is working on it (its turn started)."""
        return self in (TicketState.DELIVERED, TicketState.SUBMITTED)


FINAL_STATES = frozenset(
    {
        TicketState.REPLIED,
        TicketState.DONE,
        TicketState.TIMED_OUT,
        TicketState.CANCELLED,
        TicketState.FAILED,
    }
)


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """The bounds of D9 (seconds), all configurable; tests set them low.

    Attributes:
        turn_timeout: From delivery to reply (ASK_AGENT_TIMEOUT).
        queue_wait_cap: Waiting in the FIFO before delivery (ASK_QUEUE_WAIT_CAP).
        rendezvous_timeout: The server's net for a whole ask, collection included.
        queue_cap: Tasks waiting for one agent, its current turn excluded.
        poll_max: How long one blocking call waits before "no reply yet, call again".
        progress_every: Progress notifications at least this often during a call.
        retention: How long a finished ticket stays to be collected.
    """

    turn_timeout: float = 300.0
    queue_wait_cap: float = 600.0
    rendezvous_timeout: float = 24 * 3600.0
    queue_cap: int = 32
    poll_max: float = 100.0
    progress_every: float = 20.0
    retention: float = 24 * 3600.0


class Ticket(msgspec.Struct, kw_only=True, rename="camel"):
    """One task in an agent's FIFO. Mutable: the mailbox advances it.

    `requester` is an agent id, or USER; `requester_name` what the target is told.
    """

    id: str
    target: str
    target_name: str
    requester: str
    requester_name: str
    task: str
    expects_reply: bool = True
    state: TicketState = TicketState.QUEUED
    created_at: float = 0.0
    delivered_at: float | None = None
    submitted_at: float | None = None
    finished_at: float | None = None
    reason: str | None = None
    result: str | None = None
    collected: bool = False
    attempts: int = 0
    """Submit attempts so far (delivery is verified and retried a bounded number of times)."""

    @property
    def turn_started_at(self) -> float | None:
        return self.delivered_at


def delegation_prefix(requester_name: str, ticket_id: str) -> str:
    """The D8 prefix models key on (Bug 2: without it the answer came in plain text)."""
    return f"[idea · task from {requester_name} · ticket {ticket_id}]"


def delivery_text(ticket: Ticket) -> str:
    """What the daemon types into the target: the prefixed task; a user's line as is."""
    if not ticket.expects_reply:
        return ticket.task
    return f"{delegation_prefix(ticket.requester_name, ticket.id)} {ticket.task}"
