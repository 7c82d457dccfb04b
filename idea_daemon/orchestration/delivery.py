"""Delivering tasks into agents' terminals, verified (D4, D8, D27, DLG-2, DLG-11).

One pump per target with work: it waits until the target is free (the profile's state
rules say idle, its MCP client is connected after a cold launch, no half-typed human draft
in the composer), writes the prefixed task (a bracketed paste when the CLI enabled it),
then the profile's submit sequence after `submitDelayMs`, and checks that the turn started:
the CLI wrote something and the task no longer sits on its prompt line (or the reply
already came). The submit is retried a bounded number of times; a task that never starts
fails with the reason. Then the pump waits for the turn to end (a reply, a timeout, a
cancel, the agent's exit; for a user's line, idle again) before the next task.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Protocol

from core.agents.profile import AgentProfile
from core.agents.state_rules import Observation, StateRules, Verdict, detect, parse_rules
from core.keys import wrap_paste
from core.orchestration.mailbox import Mailbox
from core.orchestration.tickets import Ticket, delivery_text
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import TerminalSession


class Owner(Protocol):
    """What the pumps need from the orchestration service (no import cycle)."""

    @property
    def agents(self) -> AgentSessions: ...

    @property
    def mcp_enabled(self) -> bool: ...

    def box(self, runtime: ProjectRuntime) -> Mailbox: ...

    def changed(self, runtime: ProjectRuntime, ticket: Ticket) -> None: ...

    async def wait_change(self, ticket_id: str, timeout: float) -> None: ...

    def watch(self, session: TerminalSession) -> Watch: ...

    def rules_for(
        self, session: TerminalSession, watch: Watch
    ) -> tuple[AgentProfile, StateRules]: ...

    def tell_user(self, runtime: ProjectRuntime, message: str) -> None: ...

    def mark(self, runtime: ProjectRuntime, agent_id: str, text: str) -> None: ...

    def clock(self) -> float:
        """The tickets' time (the sessions' clock)."""


class AgentSessions(Protocol):
    def session_of_agent(
        self, runtime: ProjectRuntime, agent_id: str
    ) -> TerminalSession | None: ...

log = logging.getLogger(__name__)

POLL = 0.02
"""How often a waiting pump looks again (a task waiting for an agent to be free)."""
SUBMIT_ATTEMPTS = 3
VERIFY_TIMEOUT = 4.0
"""Per submit attempt: how long the CLI has to show that the turn started."""
MCP_WAIT = 60.0
"""After a launch, how long the first task waits for the agent's MCP client (DLG-10)."""
DRAFT_EXPIRY = 120.0
"""A human draft with no keystroke for this long no longer holds tasks back."""
SNIPPET = 16
QUIET_WAIT_MAX = 0.25
"""A pump waiting for a busy agent looks again at least this often."""


async def output_or(session: TerminalSession, timeout: float) -> None:
    """Until the session's next output (or exit), or `timeout` seconds."""
    loop = asyncio.get_running_loop()
    waiter = session.next_output()
    timer = loop.call_later(timeout, _settle, waiter)
    try:
        await waiter
    finally:
        timer.cancel()
        session.forget_output_waiter(waiter)


@dataclass
class Watch:
    """What the daemon learned about one agent session."""

    started_at: float
    """When the session was first watched, on the session's clock."""
    was_idle: bool = False
    mcp_connected: bool = False
    last: Verdict | None = None
    waiting_for: str = ""
    """Why the head task is not delivered yet ("" when nothing waits)."""
    told_blocked: bool = False
    profile: AgentProfile | None = None
    rules: StateRules | None = None
    """The session's profile and its parsed state rules, read once (a running session's
    profile does not change; reading profiles.json per look cost milliseconds)."""


def _settle(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def rules_of(profile: AgentProfile) -> StateRules:
    try:
        return parse_rules(profile.extra.get("state"), profile.prompt_ready_pattern)
    except ValueError as exc:
        log.warning("profile %s: %s; using its prompt pattern only", profile.id, exc)
        return parse_rules(None, profile.prompt_ready_pattern)


def observe(session: TerminalSession, rules: StateRules, watch: Watch) -> Verdict:
    now = session.monotonic()
    quiet = now - session.last_output if session.last_output else 0.0
    seen = Observation(
        title=session.title,
        lines=session.screen_text(),
        quiet_for=quiet,
        running=session.running,
        was_idle=watch.was_idle,
    )
    verdict = detect(rules, seen)
    if verdict.state == "idle":
        watch.was_idle = True
    watch.last = verdict
    return verdict


def _title_works(session: TerminalSession, rules: StateRules) -> bool:
    """Whether the CLI's title says it works (it did not before the task: tasks are
    delivered only to an idle agent, and a working title is never idle)."""
    return any(pattern.search(session.title) for pattern in rules.working_title)


def _prompt_holds(session: TerminalSession, snippet: str) -> bool:
    """Whether the text just typed still ends where the cursor is (in the composer): the
    turn has not started. A task that wrapped continues from the row above the cursor; a
    cursor at the start of a row means the CLI moved on (it printed, or cleared its input)."""
    if not snippet:
        return False
    lines = session.screen_text()
    cursor = session.cursor()
    if not 0 <= cursor.y < len(lines):
        return False
    typed = lines[cursor.y][: cursor.x]
    if not typed:
        return False
    if len(typed) < len(snippet):
        above = lines[cursor.y - 1] if cursor.y > 0 else ""
        return snippet.endswith(typed) and (above + typed).endswith(snippet)
    return typed.endswith(snippet)


class Deliverer:
    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        self._pumps: dict[tuple[str, str], asyncio.Task[None]] = {}

    def kick(self, runtime: ProjectRuntime, agent_id: str) -> None:
        key = (runtime.root, agent_id)
        if key in self._pumps:
            return
        if self.owner.box(runtime).next_for_delivery(agent_id) is None:
            return
        task = asyncio.get_running_loop().create_task(self._pump(runtime, agent_id))
        self._pumps[key] = task
        task.add_done_callback(lambda _t: self._pumps.pop(key, None))

    def stop(self) -> None:
        for task in list(self._pumps.values()):
            task.cancel()

    # ─── the pump ────────────────────────────────────────────────────────────────────

    async def _pump(self, runtime: ProjectRuntime, agent_id: str) -> None:
        box = self.owner.box(runtime)
        try:
            while (ticket := box.next_for_delivery(agent_id)) is not None:
                session = self.owner.agents.session_of_agent(runtime, agent_id)
                if session is None:
                    return  # kicked again when the agent runs (launch, resume)
                watch = self.owner.watch(session)
                profile, rules = self.owner.rules_for(session, watch)
                if not await self._until_free(runtime, box, ticket, session, profile, rules, watch):
                    continue
                await self._deliver(runtime, box, ticket, session, profile, rules)
                await self._until_turn_ends(runtime, box, ticket, session, rules, watch)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("delivery to %s failed", agent_id)

    async def _until_free(
        self,
        runtime: ProjectRuntime,
        box: Mailbox,
        ticket: Ticket,
        session: TerminalSession,
        profile: AgentProfile,
        rules: StateRules,
        watch: Watch,
    ) -> bool:
        """Wait until the ticket can be delivered; False when it ended or the agent did."""
        needs_mcp = profile.mcp is not None and self.owner.mcp_enabled
        while box.next_for_delivery(ticket.target) is ticket:
            if not session.running:
                return False
            verdict = observe(session, rules, watch)
            now = session.monotonic()
            why = ""
            if verdict.state != "idle":
                why = f"{ticket.target_name} is {verdict.state}"
                if verdict.state == "blocked" and not watch.told_blocked:
                    watch.told_blocked = True
                    self.owner.tell_user(
                        runtime,
                        f"{ticket.target_name} is waiting for you ({verdict.text or 'blocked'});"
                        f" task {ticket.id} from {ticket.requester_name} waits",
                    )
                    self.owner.mark(runtime, ticket.target, f"waiting for you · {ticket.id} waits")
            elif needs_mcp and not watch.mcp_connected and now - watch.started_at < MCP_WAIT:
                why = f"{ticket.target_name}'s MCP client is not connected yet"
            elif verdict.composer_empty is False:
                why = f"a draft is in {ticket.target_name}'s composer"
            elif (
                verdict.composer_empty is None
                and session.human_draft
                and now - session.human_input_at < DRAFT_EXPIRY
            ):
                why = f"someone is typing in {ticket.target_name}'s cell"
            if not why:
                watch.waiting_for = ""
                watch.told_blocked = False
                return True
            watch.waiting_for = why
            if verdict.state == "idle":
                await asyncio.sleep(POLL)  # a connection or a draft: not the screen's doing
            else:
                # Only output (or a quiet spell long enough for the idle rule) can change
                # the verdict: wait for either rather than reading the screen every POLL.
                quiet_left = rules.quiet_ms / 1000 - (now - session.last_output)
                await output_or(session, min(QUIET_WAIT_MAX, max(POLL, quiet_left + 0.005)))
        return False

    async def _deliver(
        self,
        runtime: ProjectRuntime,
        box: Mailbox,
        ticket: Ticket,
        session: TerminalSession,
        profile: AgentProfile,
        rules: StateRules,
    ) -> None:
        text = delivery_text(ticket)
        data = wrap_paste(text, session.emulator.modes, keep_newlines=True)
        if not session.write(data):
            box.fail(ticket.id, self.owner.clock(),
                     f"{ticket.target_name} is not reading input")
            self.owner.changed(runtime, ticket)
            return
        box.delivered(ticket.id, self.owner.clock())
        self.owner.changed(runtime, ticket)
        await asyncio.sleep(profile.submit_delay_ms / 1000)
        # The end of the text: where the cursor sits while it waits in the composer.
        snippet = text.strip().splitlines()[-1][-SNIPPET:] if text.strip() else ""
        for _attempt in range(SUBMIT_ATTEMPTS):
            if ticket.state.final:
                return
            box.submit_attempted(ticket.id)
            submitted_at = session.monotonic()
            session.write(profile.submit_sequence.encode())
            if await self._started(session, rules, ticket, submitted_at, snippet):
                if not ticket.state.final:
                    box.submitted(ticket.id, self.owner.clock())
                    self.owner.changed(runtime, ticket)
                return
            log.info("ticket %s: the turn did not start, submitting again", ticket.id)
        box.fail(
            ticket.id,
            self.owner.clock(),
            f"the task was typed into {ticket.target_name} but its turn never started "
            f"({SUBMIT_ATTEMPTS} submits)",
        )
        self.owner.changed(runtime, ticket)

    async def _started(
        self,
        session: TerminalSession,
        rules: StateRules,
        ticket: Ticket,
        submitted_at: float,
        snippet: str,
    ) -> bool:
        deadline = time.monotonic() + VERIFY_TIMEOUT
        while time.monotonic() < deadline:
            if ticket.state.final or not session.running:
                return True
            # The title first (no screen to build: an agent's screen is rendered only for
            # these checks), then the composer.
            if session.last_output > submitted_at and (
                _title_works(session, rules) or not _prompt_holds(session, snippet)
            ):
                return True
            # The turn shows itself by output; the timer covers a reply that came first.
            await output_or(session, min(POLL * 5, max(0.0, deadline - time.monotonic())))
        return False

    async def _until_turn_ends(
        self,
        runtime: ProjectRuntime,
        box: Mailbox,
        ticket: Ticket,
        session: TerminalSession,
        rules: StateRules,
        watch: Watch,
    ) -> None:
        was_busy = False
        while not ticket.state.final:
            if not ticket.state.in_turn:
                return  # put back in the queue (a usage limit): delivered again later
            if not session.running:
                code = session.exit_code
                box.fail(
                    ticket.id,
                    self.owner.clock(),
                    f"{ticket.target_name} exited during the task"
                    + (f" (exit code {code})" if code is not None else ""),
                )
                self.owner.changed(runtime, ticket)
                return
            if not ticket.expects_reply:
                verdict = observe(session, rules, watch)
                was_busy = was_busy or verdict.state != "idle"
                if verdict.state == "idle" and (was_busy or session.last_output):
                    box.end_turn(ticket.target, self.owner.clock())
                    self.owner.changed(runtime, ticket)
                    return
                await asyncio.sleep(POLL * 5)
                continue
            await self.owner.wait_change(ticket.id, 0.5)

