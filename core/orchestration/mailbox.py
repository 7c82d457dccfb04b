"""The mailbox: one FIFO per agent, one turn at a time (DLG-1, DLG-3, DLG-8, D9, D10).

Pure and synchronous: every method takes `now` (seconds, any monotonic origin) and returns
what changed; the daemon wraps it with futures, timers and PTY writes. Because the wait-for
graph is derived from the live tickets (an edge requester → target per unfinished ask), an
edge disappears with its ticket: there are no phantom edges to clean up after a timeout or a
cancelled call.

Rules:
- Asks to one agent are served in order, one turn at a time; asks to different agents are
  independent.
- An ask that would close a wait-for cycle (self-ask included) is refused before anything is
  queued; so is an ask beyond the queue cap.
- A reply names its ticket, else answers the replier's current turn (D10).
- `sweep` times out what waited too long in a queue or in a turn; the target keeps running
  and its queue advances.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from core.orchestration.errors import (
    CycleRefused,
    MissingField,
    NoPendingTicket,
    QueueFull,
    TicketClosed,
    TicketNotFound,
    TicketNotYours,
)
from core.orchestration.tickets import USER, Limits, Ticket, TicketState


class Mailbox:
    def __init__(self, limits: Limits, new_id: Callable[[], str]) -> None:
        self.limits = limits
        self._new_id = new_id
        self._tickets: dict[str, Ticket] = {}
        self._queues: dict[str, list[str]] = {}
        """target → ids of its unfinished tickets, oldest first (the head may be in turn)."""

    # ─── reading ─────────────────────────────────────────────────────────────────────

    def get(self, ticket_id: str) -> Ticket:
        ticket = self._tickets.get(ticket_id)
        if ticket is None:
            raise TicketNotFound(ticket_id)
        return ticket

    def tickets(self) -> list[Ticket]:
        return list(self._tickets.values())

    def queue(self, target: str) -> list[Ticket]:
        """The target's unfinished tickets in FIFO order (its current turn first)."""
        return [self._tickets[i] for i in self._queues.get(target, ())]

    def current(self, target: str) -> Ticket | None:
        """The ticket the target is working on, if its turn started."""
        ids = self._queues.get(target)
        if ids:
            head = self._tickets[ids[0]]
            if head.state.in_turn:
                return head
        return None

    def depth(self, target: str) -> int:
        """Tasks waiting for the target, its current turn excluded."""
        return sum(1 for t in self.queue(target) if t.state is TicketState.QUEUED)

    def next_for_delivery(self, target: str) -> Ticket | None:
        """The head of the target's FIFO when no turn is running."""
        ids = self._queues.get(target)
        if not ids:
            return None
        head = self._tickets[ids[0]]
        return head if head.state is TicketState.QUEUED else None

    def targets_waiting(self) -> list[str]:
        """Targets with a task ready to deliver."""
        return [t for t in self._queues if self.next_for_delivery(t) is not None]

    def edges(self) -> set[tuple[str, str]]:
        """The wait-for graph: (requester, target) per unfinished ask between agents."""
        return {
            (t.requester, t.target)
            for ids in self._queues.values()
            for t in (self._tickets[i] for i in ids)
            if t.expects_reply and t.requester != USER
        }

    def wait_path(self, start: str, goal: str) -> list[str] | None:
        """A chain of waits start → … → goal, or None (breadth first: the shortest)."""
        graph: dict[str, set[str]] = {}
        for source, dest in self.edges():
            graph.setdefault(source, set()).add(dest)
        previous: dict[str, str | None] = {start: None}
        frontier = [start]
        while frontier:
            following: list[str] = []
            for node in frontier:
                if node == goal:
                    path = [node]
                    while (before := previous[path[-1]]) is not None:
                        path.append(before)
                    return path[::-1]
                for dest in sorted(graph.get(node, ())):
                    if dest not in previous:
                        previous[dest] = node
                        following.append(dest)
            frontier = following
        return None

    # ─── asking ──────────────────────────────────────────────────────────────────────

    def ask(
        self,
        *,
        requester: str,
        requester_name: str,
        target: str,
        target_name: str,
        task: str,
        now: float,
        expects_reply: bool = True,
    ) -> Ticket:
        """Queue a task for `target`.

        Raises:
            MissingField: An empty task.
            CycleRefused: The target already waits (maybe through others) on the requester.
            QueueFull: The target's queue is at its cap.
        """
        if not task.strip():
            raise MissingField("task")
        if expects_reply and requester != USER:
            if requester == target:
                raise CycleRefused(requester_name, target_name, [requester_name, requester_name])
            path = self.wait_path(target, requester)
            if path is not None:
                names = self._names()
                raise CycleRefused(
                    requester_name,
                    target_name,
                    [names.get(a, a) for a in [requester, *path]],
                )
        if self.depth(target) >= self.limits.queue_cap:
            raise QueueFull(target_name, self.limits.queue_cap)
        ticket = Ticket(
            id=self._unique_id(),
            target=target,
            target_name=target_name,
            requester=requester,
            requester_name=requester_name,
            task=task,
            expects_reply=expects_reply,
            created_at=now,
        )
        self._tickets[ticket.id] = ticket
        self._queues.setdefault(target, []).append(ticket.id)
        return ticket

    def _unique_id(self) -> str:
        while True:
            candidate = self._new_id()
            if candidate not in self._tickets:
                return candidate

    def _names(self) -> dict[str, str]:
        names: dict[str, str] = {}
        for t in self._tickets.values():
            names[t.target] = t.target_name
            names[t.requester] = t.requester_name
        return names

    # ─── a turn's progress ───────────────────────────────────────────────────────────

    def delivered(self, ticket_id: str, now: float) -> Ticket:
        """The task's text was written into the target's PTY: its turn starts."""
        ticket = self.get(ticket_id)
        if self.next_for_delivery(ticket.target) is not ticket:
            raise ValueError(f"ticket {ticket_id} is not the next to deliver")
        ticket.state = TicketState.DELIVERED
        ticket.delivered_at = now
        ticket.attempts = 0
        return ticket

    def submit_attempted(self, ticket_id: str) -> int:
        ticket = self.get(ticket_id)
        ticket.attempts += 1
        return ticket.attempts

    def submitted(self, ticket_id: str, now: float) -> Ticket:
        """The target visibly started working on it."""
        ticket = self.get(ticket_id)
        if ticket.state is TicketState.DELIVERED:
            ticket.state = TicketState.SUBMITTED
            ticket.submitted_at = now
        return ticket

    def reply(self, *, replier: str, result: str, ticket_id: str | None, now: float) -> Ticket:
        """Resolve a ticket delivered to `replier` (D10: the ticket wins, else its turn).

        Raises:
            TicketNotFound, TicketNotYours, TicketClosed, NoPendingTicket.
        """
        if ticket_id:
            ticket = self.get(ticket_id)
            if ticket.target != replier:
                raise TicketNotYours(ticket_id, self._names().get(replier, replier))
            if ticket.state.final:
                raise TicketClosed(ticket.id, ticket.state.value, ticket.reason)
            if ticket.state is TicketState.QUEUED:
                raise TicketNotYours(ticket_id, self._names().get(replier, replier))
        else:
            current = self.current(replier)
            if current is None or not current.expects_reply:
                raise NoPendingTicket(self._names().get(replier, replier))
            ticket = current
        ticket.result = result
        self._finish(ticket, TicketState.REPLIED, None, now)
        return ticket

    def end_turn(self, target: str, now: float) -> Ticket | None:
        """The target is idle again: a user's line (no reply expected) is done."""
        current = self.current(target)
        if current is None or current.expects_reply:
            return None
        self._finish(current, TicketState.DONE, None, now)
        return current

    def cancel(self, ticket_id: str, now: float, reason: str) -> Ticket | None:
        return self.finish(ticket_id, TicketState.CANCELLED, reason, now)

    def fail(self, ticket_id: str, now: float, reason: str) -> Ticket | None:
        return self.finish(ticket_id, TicketState.FAILED, reason, now)

    def finish(
        self, ticket_id: str, state: TicketState, reason: str | None, now: float
    ) -> Ticket | None:
        """End a ticket without a reply. Idempotent: None when it had already ended."""
        ticket = self._tickets.get(ticket_id)
        if ticket is None or ticket.state.final:
            return None
        self._finish(ticket, state, reason, now)
        return ticket

    def _finish(self, ticket: Ticket, state: TicketState, reason: str | None, now: float) -> None:
        assert state.final
        ticket.state = state
        ticket.reason = reason
        ticket.finished_at = now
        ids = self._queues.get(ticket.target)
        if ids is not None and ticket.id in ids:
            ids.remove(ticket.id)
            if not ids:
                del self._queues[ticket.target]

    def requeue_turn(self, target: str, reason: str) -> Ticket | None:
        """Put the current turn back at the head of the queue (its target restarted)."""
        current = self.current(target)
        if current is None:
            return None
        current.state = TicketState.QUEUED
        current.delivered_at = current.submitted_at = None
        current.attempts = 0
        current.reason = reason
        return current

    def collect(self, ticket_id: str) -> Ticket:
        """The requester took the outcome; the ticket is kept until its retention ends."""
        ticket = self.get(ticket_id)
        if ticket.state.final:
            ticket.collected = True
        return ticket

    # ─── time ────────────────────────────────────────────────────────────────────────

    def sweep(self, now: float) -> list[Ticket]:
        """Time out tickets past their bound; forget finished ones past retention.

        Returns the tickets this sweep ended.
        """
        limits = self.limits
        ended: list[Ticket] = []
        for ticket in list(self._tickets.values()):
            if ticket.state.final:
                if ticket.finished_at is not None and now - ticket.finished_at > limits.retention:
                    del self._tickets[ticket.id]
                continue
            reason = None
            if now - ticket.created_at > limits.rendezvous_timeout:
                reason = f"no outcome within {_seconds(limits.rendezvous_timeout)}"
            elif ticket.state is TicketState.QUEUED:
                if now - ticket.created_at > limits.queue_wait_cap:
                    reason = (
                        f"waited more than {_seconds(limits.queue_wait_cap)} in "
                        f"{ticket.target_name}'s queue"
                    )
            elif (
                ticket.delivered_at is not None
                and now - ticket.delivered_at > limits.turn_timeout
            ):
                reason = (
                    f"{ticket.target_name} gave no reply within {_seconds(limits.turn_timeout)}; "
                    "it keeps running and its queue moves on"
                )
            if reason is not None:
                self._finish(ticket, TicketState.TIMED_OUT, reason, now)
                ended.append(ticket)
        return ended

    def next_deadline(self) -> float | None:
        """The earliest time at which `sweep` would end or forget a ticket."""
        limits = self.limits
        times: list[float] = []
        for ticket in self._tickets.values():
            if ticket.state.final:
                if ticket.finished_at is not None:
                    times.append(ticket.finished_at + limits.retention)
                continue
            times.append(ticket.created_at + limits.rendezvous_timeout)
            if ticket.state is TicketState.QUEUED:
                times.append(ticket.created_at + limits.queue_wait_cap)
            elif ticket.delivered_at is not None:
                times.append(ticket.delivered_at + limits.turn_timeout)
        return min(times) if times else None

    # ─── restart ─────────────────────────────────────────────────────────────────────

    def restore(self, tickets: Iterable[Ticket], now: float) -> list[Ticket]:
        """Reload journaled tickets after a daemon restart (D27).

        The agents died with the daemon: a turn that was running goes back to the head of
        its queue (re-delivered once the target is back) and every unfinished ticket's
        clocks restart now. Returns the unfinished tickets.
        """
        pending = []
        for ticket in tickets:
            if ticket.id in self._tickets:
                continue
            self._tickets[ticket.id] = ticket
            if ticket.state.final:
                continue
            if ticket.state.in_turn:
                ticket.state = TicketState.QUEUED
                ticket.delivered_at = ticket.submitted_at = None
                ticket.attempts = 0
                ticket.reason = "re-delivered after a daemon restart"
            ticket.created_at = now
            self._queues.setdefault(ticket.target, []).append(ticket.id)
            pending.append(ticket)
        return pending


def _seconds(value: float) -> str:
    if value >= 3600 and value % 3600 == 0:
        return f"{int(value // 3600)} h"
    return f"{value:g} s"
