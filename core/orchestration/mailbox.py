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

HISTORY = 500
"""Collected tickets kept (the most recent) for the delegations view and `idea agent
tickets`; uncollected ones stay until their retention ends."""


class Mailbox:
    def __init__(self, limits: Limits, new_id: Callable[[], str]) -> None:
        self.limits = limits
        self._new_id = new_id
        self._tickets: dict[str, Ticket] = {}
        self._queues: dict[str, list[str]] = {}
        """target → ids of its unfinished tickets, oldest first (the head may be in turn)."""
        self._held: dict[str, str] = {}
        """target → why its FIFO holds (a usage limit, issue 10): nothing is delivered, and
        neither queued tickets nor a turn still running (a limit only suspected) time out;
        they still end at the rendezvous bound."""
        self._released: dict[str, float] = {}
        """target → when its hold ended: the queue wait counts from then."""
        self._held_since: dict[str, float] = {}
        """target → when its hold began (`hold` given `now`)."""
        self._paused: dict[str, float] = {}
        """ticket id → seconds its turn ran under a hold: not counted in its turn bound (the
        user was asked whether the agent is at a limit; "no" lets the turn go on with the
        time it had left)."""

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
        """The head of the target's FIFO when no turn is running (and it is not held)."""
        if target in self._held:
            return None
        ids = self._queues.get(target)
        if not ids:
            return None
        head = self._tickets[ids[0]]
        return head if head.state is TicketState.QUEUED else None

    def held(self, target: str) -> str | None:
        """Why the target's FIFO holds, or None."""
        return self._held.get(target)

    def hold(self, target: str, reason: str, now: float | None = None) -> None:
        """Deliver nothing to `target` until `release` (its queue keeps and grows); a hold
        already in place only takes the new reason. With `now`, a turn running under the
        hold has its bound paused from then."""
        if target not in self._held and now is not None:
            self._held_since[target] = now
        self._held[target] = reason

    def release(self, target: str, now: float) -> bool:
        """End a hold; the queued tickets' wait starts again now, and a turn that ran under
        it goes on with the bound it had left. True iff it held."""
        if self._held.pop(target, None) is None:
            return False
        self._released[target] = now
        since = self._held_since.pop(target, None)
        current = self.current(target)
        if since is not None and current is not None and current.delivered_at is not None:
            held = max(0.0, now - max(since, current.delivered_at))
            self._paused[current.id] = self._paused.get(current.id, 0.0) + held
        return True

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
        first: bool = False,
    ) -> Ticket:
        """Queue a task for `target` (with `first`, ahead of the waiting ones: the prompt
        that resumes an agent after a usage limit).

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
        if self.depth(target) >= self.limits.queue_cap and not first:
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
        ids = self._queues.setdefault(target, [])
        if first:
            ids.insert(1 if self.current(target) is not None else 0, ticket.id)
        else:
            ids.append(ticket.id)
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
        self._paused.pop(ticket.id, None)
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
        self._paused.pop(current.id, None)  # a new turn, with its whole bound
        return current

    def collect(self, ticket_id: str) -> Ticket:
        """The requester took the outcome; the ticket is kept until its retention ends."""
        ticket = self.get(ticket_id)
        if ticket.state.final:
            ticket.collected = True
        return ticket

    # ─── time ────────────────────────────────────────────────────────────────────────

    def sweep(self, now: float) -> list[Ticket]:
        """Time out tickets past their bound; forget finished ones past retention, and the
        oldest collected ones beyond `HISTORY` (every look at the tickets is linear in
        them: a busy day's thousands of answered asks made each one slower).

        Returns the tickets this sweep ended.
        """
        limits = self.limits
        ended: list[Ticket] = []
        history: list[Ticket] = []
        for ticket in list(self._tickets.values()):
            if ticket.state.final:
                if ticket.finished_at is not None and now - ticket.finished_at > limits.retention:
                    del self._tickets[ticket.id]
                elif ticket.collected:
                    history.append(ticket)
                continue
            reason = None
            if now - ticket.created_at > limits.rendezvous_timeout:
                reason = f"no outcome within {_seconds(limits.rendezvous_timeout)}"
                held = self._held.get(ticket.target)
                if held and ticket.state is TicketState.QUEUED:  # why: a usage limit
                    reason += ": " + held.replace("target", ticket.target_name, 1)
            elif ticket.state is TicketState.QUEUED:
                if ticket.target in self._held:
                    continue
                if now - self._queued_since(ticket) > limits.queue_wait_cap:
                    reason = (
                        f"waited more than {_seconds(limits.queue_wait_cap)} in "
                        f"{ticket.target_name}'s queue"
                    )
            elif ticket.target in self._held:
                continue  # a turn under a suspected usage limit: the user is asked
            elif (
                ticket.delivered_at is not None
                and now - self._turn_since(ticket) > limits.turn_timeout
            ):
                reason = (
                    f"{ticket.target_name} gave no reply within {_seconds(limits.turn_timeout)}; "
                    "it keeps running and its queue moves on"
                )
            if reason is not None:
                self._finish(ticket, TicketState.TIMED_OUT, reason, now)
                ended.append(ticket)
        if len(history) > HISTORY:
            history.sort(key=lambda t: t.finished_at or 0.0)
            for ticket in history[: len(history) - HISTORY]:
                del self._tickets[ticket.id]
        return ended

    def next_deadline(self) -> float | None:
        """The earliest time at which `sweep` would end or forget a ticket."""
        times = [t for ticket in self._tickets.values()
                 if (t := self.deadline_of(ticket)) is not None]
        return min(times) if times else None

    def deadline_of(self, ticket: Ticket) -> float | None:
        """The earliest time at which `sweep` would end or forget this ticket."""
        limits = self.limits
        if ticket.state.final:
            if ticket.finished_at is not None:
                return ticket.finished_at + limits.retention
            return None
        due = ticket.created_at + limits.rendezvous_timeout
        if ticket.state is TicketState.QUEUED:
            if ticket.target not in self._held:
                due = min(due, self._queued_since(ticket) + limits.queue_wait_cap)
        elif ticket.delivered_at is not None and ticket.target not in self._held:
            due = min(due, self._turn_since(ticket) + limits.turn_timeout)
        return due

    def _queued_since(self, ticket: Ticket) -> float:
        return max(ticket.created_at, self._released.get(ticket.target, ticket.created_at))

    def _turn_since(self, ticket: Ticket) -> float:
        """When the turn's bound started: its delivery, later by the time it ran held."""
        delivered = ticket.delivered_at or ticket.created_at
        return delivered + self._paused.get(ticket.id, 0.0)

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
