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
from typing import TYPE_CHECKING, Any

from adapters.mcp.identity import Caller
from adapters.mcp.port import AskOutcome, Progress
from core.agents.agent import Agent
from core.agents.errors import AgentNotFound, AmbiguousAgent
from core.agents.profile import AgentProfile
from core.agents.state_rules import StateRules
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
from core.orchestration.tickets import USER, Limits, Ticket, TicketState
from idea_daemon.errors import CommandError
from idea_daemon.orchestration.context import orchestration_section
from idea_daemon.orchestration.delivery import Deliverer, Watch, observe, rules_of
from idea_daemon.orchestration.file_protocol import FileProtocol
from idea_daemon.orchestration.journal_store import JournalWriter, load_journal
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import TerminalSession

if TYPE_CHECKING:
    from idea_daemon.agents import AgentRuntime
    from idea_daemon.orchestration.mcp_host import McpHost
    from idea_daemon.service import WorkspaceService

log = logging.getLogger(__name__)

SWEEP_MAX = 1.0
"""The sweeper looks at least this often (it also re-kicks targets that came back)."""
USER_ASK_TIMEOUT = 3600.0


def _ticket_ids() -> str:
    return "T" + secrets.token_hex(3)


class OrchestrationService:
    def __init__(
        self, service: WorkspaceService, agents: AgentRuntime, limits: Limits | None = None
    ) -> None:
        self.service = service
        self.agents = agents
        self.limits = limits or Limits()
        self.host: McpHost | None = None
        self.files: FileProtocol | None = None
        self.notify: Callable[[str | None, str, str], None] | None = None
        """Tells the user (the status line of a window's clients); set by the root."""
        """The file protocol (set by the composition root)."""
        self.boxes: dict[str, Mailbox] = {}
        self.watches: dict[str, Watch] = {}
        self.deliverer = Deliverer(self)
        self.journal = JournalWriter()
        self._events: dict[str, asyncio.Event] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._counter = itertools.count(1)
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

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        self.deliverer.stop()
        if self.files is not None:
            self.files.close()
        for root, box in self.boxes.items():
            self.journal.flush(root, box)
        if self.host is not None:
            await self.host.stop()

    async def _sweep_loop(self) -> None:
        while True:
            deadlines = [d for box in self.boxes.values() if (d := box.next_deadline())]
            delay = SWEEP_MAX
            if deadlines:
                delay = max(0.0, min(SWEEP_MAX, min(deadlines) - time.monotonic()))
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), delay + 0.01)
            except TimeoutError:
                pass
            self.sweep()

    def sweep(self) -> None:
        now = time.monotonic()
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
            pending = box.restore(tickets, time.monotonic())
            if pending:
                log.info("%s: %d pending tickets restored", runtime.name, len(pending))
        return box

    def changed(self, runtime: ProjectRuntime, ticket: Ticket) -> None:
        event = self._events.pop(ticket.id, None)
        if event is not None:
            event.set()
        self.journal.schedule(runtime.root, self.box(runtime))
        if ticket.state.final:
            self.deliverer.kick(runtime, ticket.target)
        self._wake.set()
        self.service.programs.notify_scene()

    async def wait_change(self, ticket_id: str, timeout: float) -> None:
        event = self._events.setdefault(ticket_id, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            pass

    def watch(self, session: TerminalSession) -> Watch:
        watch = self.watches.get(session.id)
        if watch is None:
            watch = self.watches[session.id] = Watch()
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
    ) -> Ticket:
        """Queue a task (cycle and cap checks first), make sure the target runs, deliver."""
        box = self.box(runtime)
        ticket = box.ask(
            requester=requester[0],
            requester_name=requester[1],
            target=target.id,
            target_name=target.name,
            task=task,
            now=time.monotonic(),
            expects_reply=expects_reply,
        )
        self.changed(runtime, ticket)
        if self.agents.session_of_agent(runtime, target.id) is None:
            self._cold_launch(runtime, target, ticket)
        self.deliverer.kick(runtime, target.id)
        return ticket

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

    def _fail(self, runtime: ProjectRuntime, ticket: Ticket, reason: str) -> None:
        if self.box(runtime).fail(ticket.id, time.monotonic(), reason) is not None:
            self.changed(runtime, ticket)

    async def wait_outcome(
        self, runtime: ProjectRuntime, ticket: Ticket, limit: float, progress: Progress | None
    ) -> Ticket:
        """Wait until the ticket ends or `limit` seconds pass (the long-poll bound)."""
        deadline = time.monotonic() + limit
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
            return f"ticket {ticket.id}: queued for {ticket.target_name}, {ahead} ahead{why}"
        since = time.monotonic() - (ticket.delivered_at or time.monotonic())
        return f"ticket {ticket.id}: {ticket.target_name} is working on it ({since:.0f} s)"

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
                "state": self.agent_state(runtime, agent)["state"],
                "queue": box.depth(agent.id),
            }
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
            if box.cancel(found.id, time.monotonic(), f"{caller.name} cancelled the call"):
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
            replier=caller.agent_id, result=result, ticket_id=ticket, now=time.monotonic()
        )
        self.changed(runtime, answered)
        return f"Reply to ticket {answered.id} delivered to {answered.requester_name}."

    async def launch(self, caller: Caller, target: str, visibility: str, task: str | None) -> str:
        runtime = self.runtime_of(caller.project_root)
        agent = self.target(runtime, target)
        running = self.agents.session_of_agent(runtime, agent.id) is not None
        detail = f"{agent.name} is already running"
        if not running:
            try:
                if visibility == "visible":
                    cell = self.service.lookups.find_cell(self._cell_near(runtime, caller))
                    self.agents.launch(runtime, agent.id, where="split", cell=cell)
                else:
                    self.agents.launch(runtime, agent.id, where="background")
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
            self._fail(runtime, ticket, reason)

    async def update_context(self, caller: Caller, target: str, content: str) -> str:
        runtime = self.runtime_of(caller.project_root)
        agent = self.target(runtime, target)
        if not content.strip():
            raise MissingField("content")
        self.agents.persona_store.write(Path(runtime.root), str(agent.md_path), content)
        return f"updated the instructions of {agent.name} (used from its next launch)"

    # ─── the user's side (commands) ──────────────────────────────────────────────────

    def send_line(self, runtime: ProjectRuntime, name: str, text: str) -> Ticket:
        """`idea agent send`: a line into the agent's FIFO, as the user (D4)."""
        return self.submit(runtime, (USER, "user"), self.target(runtime, name), text,
                           expects_reply=False)

    async def ask_as_user(
        self, runtime: ProjectRuntime, name: str, task: str, timeout: float | None
    ) -> Ticket:
        ticket = self.submit(runtime, (USER, "user"), self.target(runtime, name), task)
        try:
            await self.wait_outcome(runtime, ticket, timeout or USER_ASK_TIMEOUT, None)
        except asyncio.CancelledError:
            # `idea ask` interrupted (Ctrl-C closes its connection): the task is withdrawn.
            if self.box(runtime).cancel(ticket.id, time.monotonic(), "the user cancelled"):
                self.changed(runtime, ticket)
            raise
        if ticket.state.final:
            self.box(runtime).collect(ticket.id)
        return ticket

    def interrupt(self, runtime: ProjectRuntime, name: str) -> dict[str, Any]:
        """Stop the current turn (Esc); its ticket fails, the queue moves on."""
        agent = self.target(runtime, name)
        session = self.agents.session_of_agent(runtime, agent.id)
        if session is None:
            raise CommandError(f"{agent.name} is not running", "not_running")
        sequence = self.profile_of(session).extra.get("interruptSequence", "\x1b")
        session.write(str(sequence).encode())
        current = self.box(runtime).current(agent.id)
        if current is not None:
            self._fail(runtime, current, f"the user interrupted {agent.name}")
        return {"agent": agent.name, "interrupted": current.id if current else None}

    def agent_state(self, runtime: ProjectRuntime, agent: Agent) -> dict[str, Any]:
        session = self.agents.session_of_agent(runtime, agent.id)
        box = self.box(runtime)
        current = box.current(agent.id)
        info: dict[str, Any] = {"agent": agent.name, "queue": box.depth(agent.id),
                                "ticket": current.id if current else None}
        if session is None:
            info.update(state="stopped", rule="not running")
            return info
        watch = self.watch(session)
        verdict = observe(session, self.rules_for(session, watch)[1], watch)
        info.update(state=verdict.state, rule=verdict.rule, line=verdict.line,
                    text=verdict.text, explain=verdict.explain(),
                    mcpConnected=watch.mcp_connected, waitingFor=watch.waiting_for or None)
        return info

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
            info["since"] = round(time.monotonic() - (current.delivered_at or time.monotonic()))
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


def _leaves(layout: Any) -> list[Any]:
    from core.layout.model import iter_leaves

    return list(iter_leaves(layout.tree.root))
