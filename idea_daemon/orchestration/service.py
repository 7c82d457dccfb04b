"""The delegation service: one dispatch for MCP tools and the user's commands (MCP-6).

It owns a mailbox per project (core.orchestration), the futures that blocking asks wait on,
the sweep of D9 bounds, the journal, and the pumps that deliver tasks (delivery.py). Agents
are named by their project: a caller only ever reaches agents of its own project.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from adapters.ipc import answers_orchestration as orch
from adapters.mcp.identity import Caller
from adapters.mcp.port import AskOutcome, Progress
from core.agents.agent import Agent
from core.agents.errors import AgentNotFound, AmbiguousAgent
from core.agents.profile import AgentProfile
from core.agents.state_rules import StateRules
from core.conversations.turns import Role
from core.errors import IdeaError
from core.orchestration.errors import (
    AskFailed,
    MissingField,
    OrchestrationError,
    TicketNotFound,
    TicketNotYours,
    UnknownTarget,
)
from core.orchestration.mailbox import Mailbox
from core.orchestration.monitor import AgentRow
from core.orchestration.tickets import USER, Limits, Ticket, TicketState
from idea_daemon.errors import CommandError
from idea_daemon.orchestration import marks
from idea_daemon.orchestration.context import orchestration_section
from idea_daemon.orchestration.delivery import Deliverer, Watch, observe, rules_of
from idea_daemon.orchestration.file_protocol import FileProtocol
from idea_daemon.orchestration.journal_store import JournalWriter, load_journal
from idea_daemon.orchestration.refresh import resume_keeps_instructions, resume_message
from idea_daemon.orchestration.skill_tools import SkillTools
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import TerminalSession

if TYPE_CHECKING:
    from core.agents.context import ContextSections
    from idea_daemon.agents import AgentRuntime
    from idea_daemon.conversations.service import Conversations
    from idea_daemon.knowledge import Knowledge
    from idea_daemon.orchestration.mcp_host import McpHost
    from idea_daemon.orchestration.refresh import ContextRefresh
    from idea_daemon.orchestration.workstate import WorkStateService
    from idea_daemon.service import WorkspaceService

log = logging.getLogger(__name__)

SWEEP_MAX = 1.0
"""The sweeper looks at least this often (it also re-kicks targets that came back)."""
USER_ASK_TIMEOUT = 3600.0


class LimitGate(Protocol):
    """What delegation asks of the session-limit service (issue 10)."""

    def limited(self, runtime: ProjectRuntime, agent_id: str) -> bool: ...

    def seconds_to_resume(self, runtime: ProjectRuntime, agent_id: str) -> float | None: ...

    def answered(self, runtime: ProjectRuntime, agent_id: str) -> None:
        """The agent replied to a task (a suspected limit was none)."""
        ...


def _ticket_ids() -> str:
    return "T" + secrets.token_hex(3)


class OrchestrationService(SkillTools):
    def __init__(
        self, service: WorkspaceService, agents: AgentRuntime, limits: Limits | None = None
    ) -> None:
        self.service = service
        self.agents = agents
        self.limits = limits or Limits()
        self.clock: Callable[[], float] = service.clock.monotonic
        """When tickets are created, delivered and due: the sessions' clock, since the limit
        watcher measures a turn's silence from its ticket's delivery to a session's output."""
        self.host: McpHost | None = None
        self.files: FileProtocol | None = None
        """The file protocol (set by the composition root)."""
        self.knowledge: Knowledge | None = None
        """Memory and project context tools (issue 9), set by the composition root."""
        self.notify: Callable[[str | None, str, str], None] | None = None
        """Tells the user (the status line of a window's clients); set by the root."""
        self.conversations: Conversations | None = None
        """Each pair's log and handoff (LOG-1, LOG-2; set by the composition root)."""
        self.refresh: ContextRefresh | None = None
        """Offers running agents their refreshed context (set by the root)."""
        self.workstate: WorkStateService | None = None
        """Live state (LIV): derived rows, the two tools, `# Project state` (set by the root)."""
        self.boxes: dict[str, Mailbox] = {}
        self.watches: dict[str, Watch] = {}
        self.deliverer = Deliverer(self)
        self.journal = JournalWriter()
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}
        self._quiet: set[str] = set()
        """Tickets whose bad end was already told, or was the user's own doing."""
        self._sweeper: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._sweep_due = 0.0
        """When the sweeper looks next (0: it is sweeping, or not waiting yet)."""
        self._counter = itertools.count(1)
        self.limits_gate: LimitGate | None = None
        """The session-limit service (set by the root): a limited target holds its FIFO."""
        self._bounds: dict[str, float] = {}
        """ticket id → the monotonic time its caller stops waiting (a user's `--timeout`)."""
        self.row_decorators: list[Callable[[ProjectRuntime, Agent, AgentRow], AgentRow]] = []
        """Other readers of an agent's state qualify its `idea monitor` row (session limits:
        `rate_limited (until 14:05)`); set by the composition root."""
        service.hooks.exit_handlers.append(self._on_exit)
        service.hooks.open_handlers.append(self._on_open)

    @property
    def mcp_enabled(self) -> bool:
        return self.host is not None

    # ─── lifecycle ───────────────────────────────────────────────────────────────────

    async def open(self) -> None:
        if self.host is not None:
            await self.host.start()
        if self.files is not None:
            for runtime in list(self.service.projects.values()):
                self.files.open(runtime)
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_loop())
        if self.refresh is not None:
            self.refresh.start()

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self.refresh is not None:
            self.refresh.stop()
        self.deliverer.stop()
        if self.files is not None:
            self.files.close()
        await self.journal.drain()
        for root, box in self.boxes.items():
            self.journal.flush(root, box)
        if self.workstate is not None:
            await self.workstate.states.drain()
        if self.host is not None:
            await self.host.stop()

    async def _sweep_loop(self) -> None:
        while True:
            deadlines = [d for box in self.boxes.values() if (d := box.next_deadline())]
            delay = SWEEP_MAX
            if deadlines:
                delay = max(0.0, min(SWEEP_MAX, min(deadlines) - self.clock()))
            self._wake.clear()
            self._sweep_due = self.clock() + delay
            try:
                await asyncio.wait_for(self._wake.wait(), delay + 0.01)
            except TimeoutError:
                pass
            self._sweep_due = 0.0
            self.sweep()

    def sweep(self) -> None:
        now = self.clock()
        for root, box in list(self.boxes.items()):
            runtime = self.service.projects.get(root)
            for ticket in box.sweep(now):
                log.info("ticket %s timed out: %s", ticket.id, ticket.reason)
                if runtime is not None:
                    self.changed(runtime, ticket)
            if runtime is not None:
                for target in box.targets_waiting():
                    self.deliverer.kick(runtime, target)

    # ─── state shared with the pumps ─────────────────────────────────────────────────

    def box(self, runtime: ProjectRuntime) -> Mailbox:
        box = self.boxes.get(runtime.root)
        if box is None:
            box = self.boxes[runtime.root] = Mailbox(self.limits, _ticket_ids)
            tickets, problem = load_journal(runtime.root)
            if problem:
                runtime.problems.append(problem)
                log.error("%s", problem)
            pending = box.restore(tickets, self.clock())
            if pending:
                log.info("%s: %d pending tickets restored", runtime.name, len(pending))
                self._drop_orphans(runtime, box, pending)
        return box

    def _drop_orphans(self, runtime: ProjectRuntime, box: Mailbox,
                      pending: list[Ticket]) -> None:
        """A restored ticket whose target (or asking agent) was removed while idea was down
        can never be answered: it fails now with the reason its caller gets when it calls
        again, instead of waiting out its queue bound."""
        try:
            known = {agent.id for agent in self.agents.manifest(runtime).agents}
        except (IdeaError, CommandError):
            return  # agents.json unreadable: said elsewhere; the tickets wait for it
        now = self.clock()
        for ticket in pending:
            gone = None
            if ticket.target not in known:
                gone = ticket.target_name
            elif ticket.requester != USER and ticket.requester not in known:
                gone = ticket.requester_name
            if gone is not None:
                reason = f"{gone} is no longer an agent of this project"
                if box.fail(ticket.id, now, reason) is not None:
                    log.info("ticket %s failed on restore: %s", ticket.id, reason)

    def changed(self, runtime: ProjectRuntime, ticket: Ticket) -> None:
        if ticket.state.final:
            self._bounds.pop(ticket.id, None)
        for waiter in self._waiters.pop(ticket.id, ()):
            if not waiter.done():
                waiter.set_result(None)
        self.journal.schedule(runtime.root, self.box(runtime))
        if self.workstate is not None:
            self.workstate.on_ticket(runtime, ticket)  # best-effort, never raises
        if ticket.state.final:
            if ticket.id not in self._quiet and ticket.state in _TROUBLE:
                self._quiet.add(ticket.id)  # said once
                marks.ticket_trouble(self, runtime, ticket)
            self.deliverer.kick(runtime, ticket.target)
        # The sweeper wakes early only for a bound earlier than its next look: a sweep is
        # linear in the tickets, and under a stream of asks every change woke it (a
        # millisecond of the loop each, several per ask).
        due = self.box(runtime).deadline_of(ticket)
        if due is not None and due < self._sweep_due:
            self._wake.set()
        # No scene for a ticket change: nothing a scene shows depends on tickets (a mark
        # sends its own), and each scene costs every attached client a full repaint.

    async def wait_change(self, ticket_id: str, timeout: float) -> None:
        """Until the ticket changes or `timeout` passes. A bare future, woken directly by
        `changed` (an Event under wait_for costs a task and two more turns of the loop
        before the caller runs: a reply reached its asker a loop-load later)."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        waiters = self._waiters.setdefault(ticket_id, [])
        waiters.append(waiter)
        timer = loop.call_later(timeout, _settle, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            left = self._waiters.get(ticket_id)
            if left is not None and waiter in left:
                left.remove(waiter)
                if not left:
                    del self._waiters[ticket_id]

    def watch(self, session: TerminalSession) -> Watch:
        watch = self.watches.get(session.id)
        if watch is None:
            watch = self.watches[session.id] = Watch(started_at=session.monotonic())
        return watch

    def profile_of(self, session: TerminalSession) -> AgentProfile:
        return self.rules_for(session, self.watch(session))[0]

    def rules_for(
        self, session: TerminalSession, watch: Watch
    ) -> tuple[AgentProfile, StateRules]:
        if watch.profile is None or watch.rules is None:
            watch.profile = self.agents.profile(session.profile_id or "")
            watch.rules = rules_of(watch.profile)
        return watch.profile, watch.rules

    def tell_user(self, runtime: ProjectRuntime, message: str) -> None:
        window = self.service.lookups.window_of_project(runtime)
        log.info("%s", message)
        if self.notify is not None:
            self.notify(window.id if window else None, message, "error")

    def mark(self, runtime: ProjectRuntime, agent_id: str, text: str) -> None:
        marks.mark_agent(self, runtime, agent_id, text)

    # ─── lookups ─────────────────────────────────────────────────────────────────────

    def runtime_of(self, root: str) -> ProjectRuntime:
        runtime = self.service.projects.get(root)
        if runtime is None:
            raise OrchestrationError("This agent's project is not open in idea any more.")
        return runtime

    def target(self, runtime: ProjectRuntime, name: str) -> Agent:
        if not name or not name.strip():
            raise MissingField("target")
        try:
            return self.agents.agent(runtime, name)
        except (AgentNotFound, AmbiguousAgent) as exc:
            names = [a.name for a in self.agents.manifest(runtime).agents]
            raise UnknownTarget(name, names) from exc

    def _requester(self, caller: Caller) -> tuple[str, str]:
        return caller.agent_id, caller.name

    # ─── asking ──────────────────────────────────────────────────────────────────────

    def submit(
        self,
        runtime: ProjectRuntime,
        requester: tuple[str, str],
        target: Agent,
        task: str,
        *,
        expects_reply: bool = True,
        bound: float | None = None,
        first: bool = False,
        record: bool = True,
    ) -> Ticket:
        """Queue a task (cycle and cap checks first), make sure the target runs, deliver.

        `record=False`: a line idea itself sends (the resumed context) stays out of the
        conversation's log and handoff (it is made of them).

        A target at a usage limit keeps the task queued (its FIFO holds, no cold launch);
        when it resumes only after the caller's `bound` (seconds; the rendezvous bound by
        default), the task fails now, saying until when the target is limited.
        """
        box = self.box(runtime)
        now = self.clock()
        ticket = box.ask(
            requester=requester[0],
            requester_name=requester[1],
            target=target.id,
            target_name=target.name,
            task=task,
            now=now,
            expects_reply=expects_reply,
            first=first,
        )
        if record:
            self._record_turn(runtime, ticket, "prompt", task)
        if bound is not None:
            self._bounds[ticket.id] = now + bound
        self.changed(runtime, ticket)
        gate = self.limits_gate
        if gate is not None and gate.limited(runtime, target.id):
            wait = gate.seconds_to_resume(runtime, target.id)
            if wait is not None:
                self.fail_past_bound(runtime, target.id, wait, box.held(target.id) or "")
            return ticket
        if self.agents.session_of_agent(runtime, target.id) is None:
            self._cold_launch(runtime, target, ticket)
        self.deliverer.kick(runtime, target.id)
        return ticket

    def _record_turn(
        self, runtime: ProjectRuntime, ticket: Ticket, role: Role, text: str
    ) -> None:
        """The task (from its requester) or the reply (from its target) into the pair's
        conversation log; the user's lines and asks are user↔agent turns. Best-effort."""
        if self.conversations is None:
            return
        source = ticket.requester if role == "prompt" else ticket.target
        self.conversations.record(runtime.root, ticket.requester, ticket.target, source, role,
                                  text)

    def fail_past_bound(self, runtime: ProjectRuntime, agent_id: str, wait: float,
                        reason: str) -> None:
        """Fail the queued tickets of a limited agent whose caller stops waiting before
        the agent resumes in `wait` seconds (issue 10: a clear error, not a timeout)."""
        now = self.clock()
        for ticket in self.box(runtime).queue(agent_id):
            if ticket.state is not TicketState.QUEUED:
                continue
            deadline = min(ticket.created_at + self.limits.rendezvous_timeout,
                           self._bounds.get(ticket.id, float("inf")))
            if now + wait > deadline:
                said = reason.replace("target", ticket.target_name, 1) or (
                    f"{ticket.target_name} is at a usage limit")
                self._fail(runtime, ticket,
                           f"{said}, which is after this task's time bound "
                           f"({max(0.0, deadline - now):.0f} s left)")

    def _cold_launch(self, runtime: ProjectRuntime, target: Agent, ticket: Ticket) -> None:
        """DLG-5/DLG-10: launch in the background; the pump waits until it is ready."""
        try:
            status = self.agents.launch(runtime, target.id, where="background")
        except (IdeaError, CommandError) as exc:
            message = getattr(exc, "message", str(exc))
            self._fail(runtime, ticket, f"{target.name} could not be launched: {message}")
            return
        if status.state == "failed":
            self._fail(runtime, ticket, f"{target.name} did not start: {status.error}")
        else:
            log.info("cold launch of %s for ticket %s", target.name, ticket.id)

    def _fail(
        self, runtime: ProjectRuntime, ticket: Ticket, reason: str, *, by_user: bool = False
    ) -> None:
        if by_user:
            self._quiet.add(ticket.id)  # the user did it: no mark, no message
        if self.box(runtime).fail(ticket.id, self.clock(), reason) is not None:
            self.changed(runtime, ticket)

    async def wait_outcome(
        self, runtime: ProjectRuntime, ticket: Ticket, limit: float, progress: Progress | None
    ) -> Ticket:
        """Wait until the ticket ends or `limit` seconds pass (the long-poll bound)."""
        deadline = time.monotonic() + limit  # a real wait, whatever the tickets' clock
        every = self.limits.progress_every
        while not ticket.state.final:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            await self.wait_change(ticket.id, min(every, left))
            if progress is not None and not ticket.state.final:
                await progress(self.describe_wait(runtime, ticket))
        return ticket

    def describe_wait(self, runtime: ProjectRuntime, ticket: Ticket) -> str:
        box = self.box(runtime)
        if ticket.state is TicketState.QUEUED:
            ahead = [t.id for t in box.queue(ticket.target)].index(ticket.id)
            watch = self._watch_of(runtime, ticket.target)
            why = f" ({watch.waiting_for})" if watch and watch.waiting_for and not ahead else ""
            held = box.held(ticket.target)
            if held:
                why = f" ({held})"
            return f"ticket {ticket.id}: queued for {ticket.target_name}, {ahead} ahead{why}"
        since = self.clock() - (ticket.delivered_at or self.clock())
        held = box.held(ticket.target)  # a suspected usage limit: the turn goes on, held
        why = f"; {held.replace('target', ticket.target_name, 1)}" if held else ""
        return (f"ticket {ticket.id}: {ticket.target_name} is working on it ({since:.0f} s"
                f"{why})")

    def _watch_of(self, runtime: ProjectRuntime, agent_id: str) -> Watch | None:
        session = self.agents.session_of_agent(runtime, agent_id)
        return self.watches.get(session.id) if session else None

    def outcome(self, runtime: ProjectRuntime, ticket: Ticket) -> AskOutcome:
        """What one call returns: the reply, or a typed error, or "no reply yet"."""
        if not ticket.state.final:
            return AskOutcome(ticket.id, None, ticket.target_name, ticket.state.value)
        self.box(runtime).collect(ticket.id)
        self.journal.schedule(runtime.root, self.box(runtime))
        if ticket.state is TicketState.REPLIED:
            return AskOutcome(ticket.id, ticket.result or "", ticket.target_name, "replied")
        raise AskFailed(ticket.id, ticket.target_name, ticket.state.value, ticket.reason)

    # ─── the Orchestrator port (MCP tools) ───────────────────────────────────────────

    def connected(self, caller: Caller) -> None:
        runtime = self.service.projects.get(caller.project_root)
        if runtime is None:
            return
        session = self.agents.session_of_agent(runtime, caller.agent_id)
        if session is not None:
            watch = self.watch(session)
            if not watch.mcp_connected:
                watch.mcp_connected = True
                self.deliverer.kick(runtime, caller.agent_id)

    async def list_agents(self, caller: Caller) -> list[dict[str, Any]]:
        return self.team(self.runtime_of(caller.project_root))

    def team(self, runtime: ProjectRuntime) -> list[dict[str, Any]]:
        box = self.box(runtime)
        listed = []
        for status in self.agents.status(runtime):
            agent = status.agent
            entry: dict[str, Any] = {
                "name": agent.name,
                "id": agent.id,
                "profile": agent.profile_id,
                "state": self.agent_state(runtime, agent).state,
                "queue": box.depth(agent.id),
            }
            held = box.held(agent.id)
            if held:
                entry["limited"] = held.replace("target ", "", 1)
            current = box.current(agent.id)
            if current is not None:
                entry["ticket"] = current.id
                entry["askedBy"] = current.requester_name
            listed.append(entry)
        return listed

    async def ask(
        self, caller: Caller, target: str, task: str, ticket: str | None, progress: Progress
    ) -> AskOutcome:
        runtime = self.runtime_of(caller.project_root)
        box = self.box(runtime)
        if ticket:
            found = box.get(ticket)
            if found.requester != caller.agent_id:
                raise TicketNotYours(ticket, caller.name)
        else:
            found = self.submit(runtime, self._requester(caller), self.target(runtime, target),
                                task)
        try:
            await self.wait_outcome(runtime, found, self.limits.poll_max, progress)
        except asyncio.CancelledError:
            # Esc in the CLI, or a client that cut the call: the target is freed (DLG-7).
            if box.cancel(found.id, self.clock(), f"{caller.name} cancelled the call"):
                log.info("ticket %s cancelled by its caller", found.id)
                self.changed(runtime, found)
            raise
        return self.outcome(runtime, found)

    async def ask_file(self, caller: Caller, target: str, task: str) -> str:
        """An ask from the file protocol: it waits for the outcome (no client cuts it)."""
        runtime = self.runtime_of(caller.project_root)
        ticket = self.submit(runtime, self._requester(caller), self.target(runtime, target), task)
        await self.wait_outcome(runtime, ticket, self.limits.rendezvous_timeout, None)
        reply = self.outcome(runtime, ticket).reply
        return reply or ""

    def file_caller(self, runtime: ProjectRuntime, requester: str) -> Caller | None:
        """The agent a requests folder belongs to (its id, or its name)."""
        try:
            agent = self.agents.agent(runtime, requester)
        except (IdeaError, CommandError):
            return None
        return Caller(agent.id, agent.name, runtime.root)

    async def reply(self, caller: Caller, result: str, ticket: str | None) -> str:
        runtime = self.runtime_of(caller.project_root)
        answered = self.box(runtime).reply(
            replier=caller.agent_id, result=result, ticket_id=ticket, now=self.clock()
        )
        self._record_turn(runtime, answered, "response", result)
        self.changed(runtime, answered)
        if self.limits_gate is not None:
            self.limits_gate.answered(runtime, caller.agent_id)
        return f"Reply to ticket {answered.id} delivered to {answered.requester_name}."

    async def launch(self, caller: Caller, target: str, visibility: str, task: str | None) -> str:
        runtime = self.runtime_of(caller.project_root)
        agent = self.target(runtime, target)
        running = self.agents.session_of_agent(runtime, agent.id) is not None
        detail = f"{agent.name} is already running"
        knowledge = None if running else await self.agents.knowledge_for(runtime, agent)
        # Read off the loop: it may have been launched meanwhile.
        running = self.agents.session_of_agent(runtime, agent.id) is not None
        if not running:
            try:
                if visibility == "visible":
                    cell = self.service.lookups.find_cell(self._cell_near(runtime, caller))
                    self.agents.launch(runtime, agent.id, where="split", cell=cell,
                                       knowledge=knowledge)
                else:
                    self.agents.launch(runtime, agent.id, where="background",
                                       knowledge=knowledge)
            except CommandError as exc:
                raise OrchestrationError(f"{agent.name} was not launched: {exc}") from exc
            detail = f"launched agent {agent.name}"
        if task:
            ticket = self.submit(runtime, self._requester(caller), agent, task)
            detail += (
                f"; task queued as ticket {ticket.id} (collect the answer with "
                f'idea_ask_agent(target="{agent.name}", ticket="{ticket.id}"))'
            )
        return detail

    def _cell_near(self, runtime: ProjectRuntime, caller: Caller) -> str:
        session = self.agents.session_of_agent(runtime, caller.agent_id)
        for layout in runtime.terminal_layouts():
            for leaf in _leaves(layout):
                if session is not None and leaf.session == session.id:
                    return str(leaf.id)
        focused = runtime.focused_leaf(runtime.active.id)
        assert focused is not None
        return focused

    async def stop(self, caller: Caller, target: str) -> str:
        runtime = self.runtime_of(caller.project_root)
        agent = self.target(runtime, target)
        if self.agents.session_of_agent(runtime, agent.id) is None:
            return f"{agent.name} is not running"
        self.fail_all(runtime, agent, f"{agent.name} was stopped by {caller.name}")
        self.agents.stop(runtime, agent.id)
        return f"stopped agent {agent.name}"

    def fail_all(self, runtime: ProjectRuntime, agent: Agent, reason: str) -> None:
        for ticket in self.box(runtime).queue(agent.id):
            self._fail(runtime, ticket, reason, by_user=True)

    async def update_context(self, caller: Caller, target: str, content: str) -> str:
        runtime = self.runtime_of(caller.project_root)
        agent = self.target(runtime, target)
        if not content.strip():
            raise MissingField("content")
        if self.knowledge is not None:  # under the persona's FileGuard lease (CTX-3)
            return await self.knowledge.update_persona(caller, agent.id, content)
        self.agents.persona_store.write(Path(runtime.root), str(agent.md_path), content)
        return f"updated the instructions of {agent.name} (used from its next launch)"

    # ─── live state (the WorkState port of the MCP tools) ────────────────────────────

    def _workstate(self) -> WorkStateService:
        if self.workstate is None:
            raise OrchestrationError("Live state is not available in this idea.")
        return self.workstate

    async def workstate_read(self, caller: Caller) -> list[dict[str, Any]]:
        return self._workstate().read(self.runtime_of(caller.project_root))

    async def workstate_set(
        self, caller: Caller, status: str, task: str | None, note: str | None
    ) -> dict[str, Any]:
        runtime = self.runtime_of(caller.project_root)
        return self._workstate().set(runtime, caller, status, task, note)

    def state_section(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile
    ) -> str | None:
        """`# Project state` of an agent's launch context (LIV-5)."""
        if self.workstate is None:
            return None
        tools = self.mcp_enabled and profile.mcp is not None
        return self.workstate.section(runtime, agent.id, tools=tools)

    def launched(self, runtime: ProjectRuntime, agent: Agent, session: TerminalSession,
                 sections: ContextSections, *, resumed: bool = False) -> None:
        """An agent started with this context: the baseline of its refresh marker. A CLI
        that resumed a conversation on the instructions it started with (Codex) gets the
        fresh sections — its conversations' handoff first — as its first message."""
        if resumed and resume_keeps_instructions(self.agents.profile(agent.profile_id)):
            message = resume_message(sections)
            if message is not None:
                self.submit(runtime, (USER, "user"), agent, message, expects_reply=False,
                            first=True, record=False)
        if self.refresh is not None:
            material = (None if self.workstate is None
                        else self.workstate.section(runtime, agent.id, notes=False))
            self.refresh.launched(runtime, agent, session, sections, material)

    def refresh_agent(self, runtime: ProjectRuntime, name: str) -> orch.Refreshed:
        """The user accepted "refresh context": the changed sections go to the agent as one
        message through its FIFO (never a restart)."""
        agent = self.target(runtime, name)
        session = self.agents.session_of_agent(runtime, agent.id)
        if session is None or self.refresh is None:
            raise CommandError(f"{agent.name} is not running", "not_running")
        message = self.refresh.message_for(runtime, agent, session)
        if message is None:
            return orch.Refreshed(agent=agent.name, ticket=None, sections=[])
        text, names = message
        ticket = self.submit(runtime, (USER, "user"), agent, text, expects_reply=False)
        return orch.Refreshed(agent=agent.name, ticket=ticket.id, sections=names)

    # ─── the user's side (commands) ──────────────────────────────────────────────────

    def send_line(self, runtime: ProjectRuntime, name: str, text: str) -> Ticket:
        """`idea agent send`: a line into the agent's FIFO, as the user (D4)."""
        return self.submit(runtime, (USER, "user"), self.target(runtime, name), text,
                           expects_reply=False)

    async def ask_as_user(
        self, runtime: ProjectRuntime, name: str, task: str, timeout: float | None
    ) -> Ticket:
        ticket = self.submit(runtime, (USER, "user"), self.target(runtime, name), task,
                             bound=timeout or USER_ASK_TIMEOUT)
        try:
            await self.wait_outcome(runtime, ticket, timeout or USER_ASK_TIMEOUT, None)
        except asyncio.CancelledError:
            # `idea ask` interrupted (Ctrl-C closes its connection): the task is withdrawn.
            if self.box(runtime).cancel(ticket.id, self.clock(), "the user cancelled"):
                self.changed(runtime, ticket)
            raise
        if ticket.state.final:
            self.box(runtime).collect(ticket.id)
        return ticket

    def interrupt(self, runtime: ProjectRuntime, name: str) -> orch.Interrupted:
        """Stop the current turn (Esc); its ticket fails, the queue moves on."""
        agent = self.target(runtime, name)
        session = self.agents.session_of_agent(runtime, agent.id)
        if session is None:
            raise CommandError(f"{agent.name} is not running", "not_running")
        sequence = self.profile_of(session).extra.get("interruptSequence", "\x1b")
        session.write(str(sequence).encode())
        current = self.box(runtime).current(agent.id)
        if current is not None:
            self._fail(runtime, current, f"the user interrupted {agent.name}", by_user=True)
        return orch.Interrupted(agent=agent.name, interrupted=current.id if current else None)

    def agent_state(self, runtime: ProjectRuntime, agent: Agent) -> orch.AgentState:
        """What the agent's screen says (`idea agent state`), and which rule said it."""
        session = self.agents.session_of_agent(runtime, agent.id)
        box = self.box(runtime)
        current = box.current(agent.id)
        queue, ticket = box.depth(agent.id), current.id if current else None
        if session is None:
            return orch.AgentState(agent=agent.name, queue=queue, ticket=ticket,
                                   state="stopped", rule="not running")
        watch = self.watch(session)
        verdict = observe(session, self.rules_for(session, watch)[1], watch)
        return orch.AgentState(agent=agent.name, queue=queue, ticket=ticket,
                               state=verdict.state, rule=verdict.rule, line=verdict.line,
                               text=verdict.text, explain=verdict.explain(),
                               mcp_connected=watch.mcp_connected,
                               waiting_for=watch.waiting_for or None)

    def panel_info(self, runtime: ProjectRuntime, agent: Agent) -> dict[str, Any]:
        """For the Agents panel and `idea agent list --json`: activity, queue, ticket."""
        box = self.box(runtime)
        info: dict[str, Any] = {"queue": box.depth(agent.id)}
        session = self.agents.session_of_agent(runtime, agent.id)
        if session is not None:
            watch = self.watch(session)
            verdict = observe(session, self.rules_for(session, watch)[1], watch)
            info["activity"] = verdict.state
        current = box.current(agent.id)
        if current is not None:
            info["ticket"] = current.id
            info["askedBy"] = current.requester_name
            info["since"] = round(self.clock() - (current.delivered_at or self.clock()))
        return info

    def ticket_info(self, runtime: ProjectRuntime, ticket_id: str) -> Ticket:
        try:
            return self.box(runtime).get(ticket_id)
        except TicketNotFound as exc:
            raise CommandError(exc.message, exc.code) from exc

    # ─── launches and exits ──────────────────────────────────────────────────────────

    def context_section(self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile) -> str:
        team = []
        for other in self.agents.manifest(runtime).agents:
            try:
                team.append((other, self.agents.profile(other.profile_id).name))
            except (IdeaError, CommandError):
                team.append((other, other.profile_id))
        return orchestration_section(agent, team, mcp=self.mcp_enabled and profile.mcp is not None)

    def mcp_config(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile, run_dir: Path
    ) -> Path | None:
        if self.host is None or profile.mcp is None:
            return None
        caller = Caller(agent.id, agent.name, runtime.root)
        return self.host.write_agent_config(caller, profile, run_dir)

    def _on_open(self, runtime: ProjectRuntime) -> None:
        """A project opened (a daemon restart too): its journaled tickets come back."""
        self.box(runtime)
        self._wake.set()
        if self.files is not None:
            try:
                self.files.open(runtime)
            except RuntimeError:  # no running loop (a project opened before the daemon serves)
                pass

    def _on_exit(self, session: TerminalSession) -> None:
        self.watches.pop(session.id, None)
        if self.refresh is not None:
            self.refresh.forget(session)
        runtime = self.service.projects.get(session.project_root or "")
        if runtime is None or session.agent_id is None:
            return
        still_running = self.agents.session_of_agent(runtime, session.agent_id) is not None
        if self.host is not None and not still_running:
            # Its secret dies with it (a relaunch gets a new one).
            self.host.forget(Caller(session.agent_id, session.agent_name, runtime.root))
        current = self.box(runtime).current(session.agent_id)
        if current is not None:
            code = f" (exit code {session.exit_code})" if session.exit_code is not None else ""
            self._fail(runtime, current, f"{current.target_name} exited during the task{code}")


_TROUBLE = frozenset({TicketState.TIMED_OUT, TicketState.FAILED})


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def _leaves(layout: Any) -> list[Any]:
    from core.layout.model import iter_leaves

    return list(iter_leaves(layout.tree.root))
