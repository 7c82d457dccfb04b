"""Session limits in the daemon (issue 10): each project's limit book, the signals of the
three detector levels, the held FIFO, the user's controls, and the book on disk (D15).

A signal (`on_signal`) goes into the project's book (`core.session_limits.book`), which
de-duplicates the automatic and human paths. On the transition to limited the agent's FIFO
holds (its interrupted turn goes back to the head of the queue), the user is told once, and
the scene shows the state. The watcher (`watcher.py`) produces signals; the resumer
(`resumer.py`) acts when a resume is due.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from adapters.ipc.answers_limits import LimitInfo
from adapters.store.limits_store import FallbackPolicy, LimitStore
from core.agents.agent import Agent
from core.errors import IdeaError, StoreError
from core.orchestration.monitor import AgentRow
from core.session_limits.book import (
    Limit,
    LimitBook,
    LimitState,
    clock_text,
    countdown,
    state_text,
)
from core.session_limits.signal import LimitSignal
from idea_daemon.errors import CommandError
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session_limits.clock import WallClock

if TYPE_CHECKING:
    from idea_daemon.agents import AgentRuntime
    from idea_daemon.orchestration.service import OrchestrationService
    from idea_daemon.service import WorkspaceService

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LimitSettings:
    """config.toml's [session_limits] (adapters.config.SessionLimits), as the daemon uses it."""

    resume_margin: float = 60.0
    stall_after: float = 240.0
    ask_after: float = 6 * 3600.0


class SessionLimitService:
    def __init__(
        self,
        service: WorkspaceService,
        agents: AgentRuntime,
        clock: WallClock,
        store: LimitStore,
        settings: LimitSettings,
    ) -> None:
        self.service = service
        self.agents = agents
        self.clock = clock
        self.store = store
        self.settings = settings
        self.orchestration: OrchestrationService | None = None
        self.notify: Callable[[str | None, str, str], None] | None = None
        self.books: dict[str, LimitBook] = {}
        self.unsaved: dict[str, str] = {}
        """Projects whose book file could not be read: never overwritten, the reason kept."""
        self.on_due: Callable[[ProjectRuntime, Limit], None] | None = None
        """Set by the resumer: acts on a resume whose time came."""
        self.on_limited: Callable[[ProjectRuntime, Limit], None] | None = None
        """Set by the resumer: a new limit (the fallback policy may swap the agent)."""
        service.hooks.open_handlers.append(self._on_open)
        service.hooks.agent_badge = self.badge

    # ─── books ───────────────────────────────────────────────────────────────────────

    def book(self, runtime: ProjectRuntime) -> LimitBook:
        book = self.books.get(runtime.root)
        if book is None:
            book = self.books[runtime.root] = LimitBook(
                timedelta(seconds=self.settings.resume_margin)
            )
            try:
                book.load(self.store.load_book(runtime.root))
            except StoreError as exc:
                self.unsaved[runtime.root] = exc.message
                runtime.problems.append(exc.message)
                log.error("%s", exc.message)
        return book

    def save(self, runtime: ProjectRuntime) -> None:
        if runtime.root in self.unsaved:
            return  # the user's damaged file stays as it is (message given at open)
        try:
            self.store.save_book(runtime.root, self.book(runtime).to_file())
        except (StoreError, OSError) as exc:
            message = getattr(exc, "message", str(exc))
            log.error("session limits not saved: %s", message)
            self.tell(runtime, f"armed resumes not saved: {message}", "error")

    def policy(self, runtime: ProjectRuntime) -> FallbackPolicy:
        try:
            return self.store.load_policy(runtime.root)
        except StoreError as exc:
            raise CommandError(exc.message, "corrupt") from exc

    def limit_of(self, runtime: ProjectRuntime, agent_id: str) -> Limit | None:
        return self.book(runtime).get(agent_id)

    def now(self) -> datetime:
        return self.clock.now()

    # ─── signals (the detector levels) ───────────────────────────────────────────────

    def on_signal(self, runtime: ProjectRuntime, agent_id: str, agent_name: str,
                  signal: LimitSignal, *, shown: str | None = None) -> Limit | None:
        """A detector level's signal; `shown`: the message (or level-1 record) to remember
        as acted on, so a replay of it after a resume, or a daemon restart, is not a new
        limit (saved with the book)."""
        now = self.now()
        book = self.book(runtime)
        remembered = shown is not None and book.remember_shown(agent_id, shown)
        change = book.on_signal(agent_id, agent_name, signal, now)
        limit = change.limit
        if limit is None:
            if remembered:
                self.save(runtime)
            return None
        if change.new:
            log.info("agent %s: %s (%s, level %d: %s)", agent_name, state_text(limit, None),
                     signal.source, signal.level, signal.text)
            self.hold(runtime, limit)
            self.tell(runtime, self._transition_message(limit),
                      "error" if limit.state is LimitState.SUSPECTED else "info")
        if change.new or change.armed:
            self.save(runtime)
            self._fail_tickets_past_bound(runtime, limit)
            self.service.programs.notify_scene()
        elif remembered:
            self.save(runtime)
        if change.new and self.on_limited is not None:
            self.on_limited(runtime, limit)
        return limit

    def _transition_message(self, limit: Limit) -> str:
        name = limit.agent_name
        if limit.state is LimitState.SUSPECTED:
            return (f"{name} seems stuck (no output during a task): a usage limit? "
                    f"`idea agent resume {name} --at HH:MM` sets when to resume it, "
                    f"`--not-limited` lets its task go on")
        if limit.fire_at is not None:
            return (f"{name} hit a usage limit: resuming at "
                    f"{clock_text(limit.fire_at, self.clock.zone)} "
                    f"(`idea agent resume {name} --cancel | --at HH:MM | --now`)")
        return (f"{name} hit a usage limit (reset time unknown): "
                f"`idea agent resume {name} --at HH:MM` sets when to resume it")

    def hold(self, runtime: ProjectRuntime, limit: Limit) -> None:
        """The agent's FIFO waits. At a limit its interrupted turn goes back to the head (it
        is delivered again after the resume prompt). A suspicion only holds: it is a guess,
        the turn goes on, and a reply that comes after all is taken (it ends the
        suspicion); the turn is put back only once the limit is confirmed (a limit message,
        its CLI's file, or the user giving a time)."""
        orchestration = self.orchestration
        if orchestration is None:
            return
        box = orchestration.box(runtime)
        box.hold(limit.agent_id, self.hold_reason(limit), orchestration.clock())
        if limit.state is not LimitState.LIMITED:
            return
        interrupted = box.requeue_turn(limit.agent_id, "interrupted by a usage limit")
        if interrupted is not None:
            orchestration.changed(runtime, interrupted)

    def hold_reason(self, limit: Limit) -> str:
        if limit.state is LimitState.SUSPECTED:
            return "target seems stuck: a usage limit is suspected, the user is asked"
        if limit.resets_at is not None or limit.fire_at is not None:
            until = limit.fire_at or limit.resets_at
            assert until is not None
            return f"target limited until {clock_text(until, self.clock.zone)}"
        return "target limited (reset time unknown)"

    def release(self, runtime: ProjectRuntime, agent_id: str) -> None:
        orchestration = self.orchestration
        if orchestration is None:
            return
        box = orchestration.box(runtime)
        if box.release(agent_id, orchestration.clock()):
            orchestration.deliverer.kick(runtime, agent_id)

    def seconds_to_resume(self, runtime: ProjectRuntime, agent_id: str) -> float | None:
        """How long until the agent resumes (None: limited, time unknown)."""
        limit = self.book(runtime).get(agent_id)
        if limit is None or limit.fire_at is None:
            return None
        return max(0.0, (limit.fire_at - self.now()).total_seconds())

    def limited(self, runtime: ProjectRuntime, agent_id: str) -> bool:
        limit = self.book(runtime).get(agent_id)
        return limit is not None and limit.state is not LimitState.SWAPPED

    def _fail_tickets_past_bound(self, runtime: ProjectRuntime, limit: Limit) -> None:
        """A caller whose own bound passes before the resume gets a clear error now."""
        orchestration = self.orchestration
        if orchestration is None or limit.fire_at is None:
            return
        wait = (limit.fire_at - self.now()).total_seconds()
        orchestration.fail_past_bound(runtime, limit.agent_id, wait, self.hold_reason(limit))

    # ─── the user's controls ─────────────────────────────────────────────────────────

    def set_resume_at(self, runtime: ProjectRuntime, name: str, at: datetime) -> Limit:
        """Asking = arming (SLM-4): the user's time; a past one means now."""
        agent = self.agents.agent(runtime, name)
        book = self.book(runtime)
        was = book.get(agent.id)
        # Confirmed now (new, or a suspicion the user answers with a time): held, and the
        # turn the limit interrupted put back for after the resume.
        confirmed = was is None or was.state is LimitState.SUSPECTED
        limit = book.set_resume_at(agent.id, agent.name, at, self.now())
        if confirmed:
            self.hold(runtime, limit)
        elif self.orchestration is not None:
            self.orchestration.box(runtime).hold(agent.id, self.hold_reason(limit))
        self.save(runtime)
        self._fail_tickets_past_bound(runtime, limit)
        self.service.programs.notify_scene()
        return limit

    def resume_now(self, runtime: ProjectRuntime, name: str) -> Limit:
        return self.set_resume_at(runtime, name, self.now())

    def cancel(self, runtime: ProjectRuntime, name: str) -> bool:
        agent = self.agents.agent(runtime, name)
        cancelled = self.book(runtime).cancel(agent.id)
        if cancelled:
            limit = self.book(runtime).get(agent.id)
            if limit is not None and self.orchestration is not None:
                self.orchestration.box(runtime).hold(agent.id, self.hold_reason(limit))
            self.save(runtime)
            self.service.programs.notify_scene()
        return cancelled

    def not_limited(self, runtime: ProjectRuntime, name: str) -> tuple[Agent, LimitState]:
        """The user's word that the agent is not at a limit; returns what it was.

        A suspicion goes and the FIFO moves again: the agent is not restarted and its
        current task goes on (a suspicion never put it back in the queue), so the queue
        keeps its order. A limit idea saw (or the user confirmed) ends the same way, its
        armed resume dropped: a CLI that went on by itself unseen, a message taken for a
        limit; the task the limit put back is delivered again when the agent is free (its
        turn had ended at the limit). An agent on its fallback profile is refused: `--now`
        brings it back."""
        agent = self.agents.agent(runtime, name)
        limit = self.book(runtime).get(agent.id)
        if limit is None:
            raise CommandError(f"{agent.name} is not at a usage limit", "not_limited")
        if limit.state is LimitState.SWAPPED:
            raise CommandError(
                f"{agent.name} is {state_text(limit, self.clock.zone)}: `idea agent resume "
                f"{agent.name} --now` brings it back on {limit.swapped_from} now",
                "bad_request")
        was = limit.state
        why = ("the user says it is not a limit" if was is LimitState.SUSPECTED
               else f"the user says it is over ({_learnt(limit)}: {limit.text})")
        self.clear(runtime, agent.id, why)
        return agent, was

    def answered(self, runtime: ProjectRuntime, agent_id: str) -> None:
        """The agent replied to a task: a suspected one was not limited after all."""
        limit = self.book(runtime).get(agent_id)
        if limit is None or limit.state is not LimitState.SUSPECTED:
            return
        self.clear(runtime, agent_id, "it answered its task")
        self.tell(runtime, f"{limit.agent_name} answered its task: not a usage limit")

    def clear(self, runtime: ProjectRuntime, agent_id: str, why: str) -> None:
        """The limit is over: the FIFO moves again."""
        limit = self.book(runtime).clear(agent_id)
        if limit is None:
            return
        log.info("agent %s: limit over (%s)", limit.agent_name, why)
        self.release(runtime, agent_id)
        self.save(runtime)
        self.service.programs.notify_scene()

    # ─── what the user sees ──────────────────────────────────────────────────────────

    def monitor_row(self, runtime: ProjectRuntime, agent: Agent, row: AgentRow) -> AgentRow:
        """The agent's `idea monitor` row while limited: `rate_limited (until 10:30,
        resumes 10:31)`, `rate_limited (unknown)`, `limit suspected`, or its own state
        `(on fallback X until 10:31)`. No countdown: a monitor prints a line per change."""
        limit = self.book(runtime).get(agent.id)
        if limit is None:
            return row
        zone = self.clock.zone
        if limit.state is LimitState.SUSPECTED:
            return replace(row, state="limit suspected", detail="")
        if limit.state is LimitState.SWAPPED:
            return replace(row, detail=state_text(limit, zone))
        detail = "unknown"
        if limit.resets_at is not None:
            detail = f"until {clock_text(limit.resets_at, zone)}"
        if limit.fire_at is not None:
            detail += f", resumes {clock_text(limit.fire_at, zone)}"
        elif limit.overdue_at is not None:
            detail += ", resume missed: asking"
        return replace(row, state="rate_limited", detail=detail)

    def info(self, runtime: ProjectRuntime, agent_id: str) -> LimitInfo | None:
        """The `limit` block of `idea agent list --json` and the Agents panel."""
        limit = self.book(runtime).get(agent_id)
        if limit is None:
            return None
        zone = self.clock.zone
        now = self.now()
        info = LimitInfo(
            state=limit.state.value,
            text=state_text(limit, zone),
            level=limit.level,
            source=limit.source,
            message=limit.text,
            since=limit.since.isoformat(),
            resets_at=limit.resets_at.isoformat() if limit.resets_at else None,
            resume_at=limit.fire_at.isoformat() if limit.fire_at else None,
            armed_by=limit.armed_by.value if limit.armed_by else None,
        )
        if limit.fire_at is not None:
            info.resume_in = round(max(0.0, (limit.fire_at - now).total_seconds()), 1)
            info.countdown = countdown(limit.fire_at, now)
        if limit.overdue_at is not None:
            info.overdue = limit.overdue_at.isoformat()
            info.missed = self.missed(limit)
            info.question = self.question(limit)
        if limit.swapped_from:
            info.swapped_from = limit.swapped_from
            info.swapped_to = limit.swapped_to
        return info

    def badge(self, root: str, agent_id: str) -> str | None:
        """What a limited agent's cell border says."""
        runtime = self.service.projects.get(root)
        if runtime is None:
            return None
        limit = self.book(runtime).get(agent_id)
        if limit is None:
            return None
        return state_text(limit, self.clock.zone)

    def tell(self, runtime: ProjectRuntime, message: str, level: str = "info") -> None:
        window = self.service.lookups.window_of_project(runtime)
        log.info("%s", message)
        if self.notify is not None:
            self.notify(window.id if window else None, message, level)

    # ─── start ───────────────────────────────────────────────────────────────────────

    def _on_open(self, runtime: ProjectRuntime) -> None:
        """A project opened (a daemon restart too): its armed resumes come back, its
        limited agents' FIFOs hold again; one long overdue is asked, not fired."""
        book = self.book(runtime)
        if not book.limits:
            return
        for limit in book.limits.values():
            if limit.state is not LimitState.SWAPPED:
                self.hold(runtime, limit)
        for limit in book.limits.values():
            if limit.asked:  # asked before the restart, never answered: asked again
                message = self.question(limit)
                runtime.notices.append(message)
                self.tell(runtime, message, "error")
        self.ask_overdue(runtime)

    def ask_overdue(self, runtime: ProjectRuntime) -> list[Limit]:
        """Armed resumes more than `ask_after` late (the daemon was down, the machine
        slept) are not fired: the user is asked whether to resume now, at a time, or keep
        the agent stopped (the issue: "fires at start, after asking if more than a
        configurable age has passed"). Asking = arming (SLM-4): the answer is
        `idea agent resume NAME --now | --at HH:MM | --cancel`, or the client's question."""
        book = self.book(runtime)
        asked = book.overdue(self.now(), timedelta(seconds=self.settings.ask_after))
        for limit in asked:
            message = self.question(limit)
            runtime.notices.append(message)
            self.tell(runtime, message, "error")
        if asked:
            self.save(runtime)
            self.service.programs.notify_scene()
        return asked

    def missed(self, limit: Limit) -> str:
        """What happened to a resume that was missed (the client words its own question)."""
        when = clock_text(limit.resets_at or limit.since, self.clock.zone)
        late = countdown(self.now(), limit.overdue_at) if limit.overdue_at else "long"
        return (f"{limit.agent_name}'s resume was due at {when} while idea was not running "
                f"({late} ago)")

    def question(self, limit: Limit) -> str:
        """What the user is asked about a resume that was missed."""
        name = limit.agent_name
        return (f"{self.missed(limit)}: resume it now? `idea agent resume {name} --now` "
                "resumes it, `--at HH:MM` later, `--cancel` keeps it stopped")


def _learnt(limit: Limit) -> str:
    """How idea learnt of a limit, for the log."""
    if limit.source == "user":
        return "a time the user gave"
    return {1: "its CLI's file", 2: "its screen"}.get(limit.level, limit.source)


def agent_or_error(agents: AgentRuntime, runtime: ProjectRuntime, name: str) -> Any:
    try:
        return agents.agent(runtime, name)
    except IdeaError as exc:
        raise CommandError(exc.message, getattr(exc, "code", "not_found")) from exc
