"""The live state of a project's agents, as the orchestration service uses it (LIV-3..LIV-6).

- Derived rows from the delegation cycle (`on_ticket`, called for every ticket change):
  an accepted ask makes the target `working` on the caller's task and the caller `waiting`;
  a reply makes the target `done` and the caller `working` again; a ticket that ends
  otherwise frees both. Each transition counts once per ticket, however often it is seen.
- The two tools: `read` (lean rows, names) and `set` (the caller's own row only).
- `section`: the bounded `# Project state` of an agent's launch context.
"""

from __future__ import annotations

import functools
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from adapters.mcp.identity import Caller
from core.live_state import policy
from core.live_state.model import parse_status
from core.live_state.view import Team, lean_rows, render_state
from core.orchestration.tickets import Ticket, TicketState
from idea_daemon.orchestration.live_state import LiveStates, LiveStateUnavailable
from idea_daemon.runtime import ProjectRuntime

log = logging.getLogger(__name__)

SEEN_MAX = 4096
"""Ticket transitions remembered to count each once (tickets live 24 h; this is plenty)."""


class WorkStateService:
    def __init__(self, states: LiveStates, team: Callable[[ProjectRuntime], Team]) -> None:
        self.states = states
        self.team = team
        """(id, name) of the project's agents in manifest order."""
        self._seen: OrderedDict[tuple[str, str], None] = OrderedDict()

    # ─── derived updates (zero token cost, best-effort) ──────────────────────────────

    def on_ticket(self, runtime: ProjectRuntime, ticket: Ticket) -> None:
        """Never raises: live state must not fail a delegation."""
        try:
            self._derive(runtime, ticket)
        except Exception:
            log.exception("live state not updated for ticket %s", ticket.id)

    def _derive(self, runtime: ProjectRuntime, ticket: Ticket) -> None:
        if not ticket.expects_reply:
            return  # a line the user typed into the FIFO is not a delegation
        stage = "end" if ticket.state.final else "accepted"
        if not self._first(ticket.id, stage):
            return
        now = self.states.clock_ms()
        if stage == "accepted":
            change = functools.partial(
                policy.ask_accepted, requester=ticket.requester,
                requester_name=ticket.requester_name, target=ticket.target,
                target_name=ticket.target_name, ticket=ticket.id, task=ticket.task, now_ms=now,
            )
        elif ticket.state is TicketState.REPLIED:
            change = functools.partial(
                policy.reply_returned, requester=ticket.requester,
                requester_name=ticket.requester_name, target=ticket.target,
                target_name=ticket.target_name, ticket=ticket.id, now_ms=now,
            )
        else:
            change = functools.partial(
                policy.ask_ended, requester=ticket.requester, target=ticket.target,
                target_name=ticket.target_name, ticket=ticket.id,
                outcome=ticket.state.value, now_ms=now,
            )
        self.states.derived(runtime.root, change)

    def _first(self, ticket_id: str, stage: str) -> bool:
        key = (ticket_id, stage)
        if key in self._seen:
            return False
        self._seen[key] = None
        while len(self._seen) > SEEN_MAX:
            self._seen.popitem(last=False)
        return True

    # ─── reading and setting ─────────────────────────────────────────────────────────

    def lean(self, runtime: ProjectRuntime) -> dict[str, Any]:
        """For the tool, `idea work --json` and the Work panel: rows and any problem."""
        rows = self.states.rows(runtime.root)
        listed: dict[str, Any] = {"rows": lean_rows(rows, self.team(runtime))}
        for item in listed["rows"]:
            # The other side of the pair's conversation (the Work panel opens it).
            delegation = rows[item["id"]].last_delegation
            if delegation is not None:
                item["askedById"] = delegation.from_
        problem = self.states.problem(runtime.root)
        if problem is not None:
            listed["problem"] = problem
        return listed

    def read(self, runtime: ProjectRuntime) -> list[dict[str, Any]]:
        """Raises: LiveStateUnavailable (the file is damaged: the agent is told why)."""
        problem = self.states.problem(runtime.root)
        if problem is not None:
            raise LiveStateUnavailable(problem)
        return lean_rows(self.states.rows(runtime.root), self.team(runtime))

    def set(
        self, runtime: ProjectRuntime, caller: Caller, status: str, task: str | None,
        note: str | None,
    ) -> dict[str, Any]:
        """Raises: UnknownStatus, RowTooLarge, LiveStateUnavailable (nothing changes)."""
        parsed = parse_status(status)
        now = self.states.clock_ms()
        rows = self.states.update(
            runtime.root,
            lambda current: policy.agent_update(current, caller.agent_id, parsed, task, note,
                                                now),
        )
        mine = {caller.agent_id: rows[caller.agent_id]}
        return lean_rows(mine, [(caller.agent_id, caller.name)])[0]

    def section(self, runtime: ProjectRuntime, agent_id: str, *, notes: bool = True,
                tools: bool = True) -> str | None:
        """`# Project state` for this agent (itself left out); never raises. `tools`: the
        agent has idea's MCP tools; `notes=False`: the material view (see render_state)."""
        try:
            return render_state(self.states.rows(runtime.root), self.team(runtime), agent_id,
                                notes=notes, tools=tools)
        except Exception:
            log.exception("no project state for the launch of %s", agent_id)
            return None
