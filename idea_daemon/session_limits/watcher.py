"""The detector's eyes (issue 10): one coalesced look at agent sessions every `SCAN_EVERY`.

Off the hot path: a PTY read only bumps the session's counter; this loop looks at a screen
only when that counter moved since its last look, so a flooding agent costs one match per
interval, and a quiet one nothing. Per agent session:

- level 2: the profile's `rateLimitPattern` on the screen (a message counts once);
- level 1: the readers (`core.session_limits.LimitReader`) that apply to the profile, in an
  executor, once per quiet spell after output and whenever level 2 or 3 fired, so their
  exact reset time refines the screen's;
- level 3: a task in turn with no output for `stall_after` seconds → limit suspected;
- a limited agent whose CLI's file shows the model answering after the limit (asked on a
  quiet spell, and on output past the reset), or that settled after its limit (seen not
  working) and is seen working again after its reset time (a working rule of its profile,
  not mere output), went on by itself: no resume.

Then every armed resume whose time came is handed to the resumer, unless it is more than
`ask_after` late (the machine slept): the user is asked instead.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.agents.profile import AgentProfile
from core.errors import IdeaError
from core.session_limits.book import LimitState
from core.session_limits.detector import ScreenWatch, compile_pattern, stalled, suspected_signal
from core.session_limits.port import LimitQuery, LimitReader
from core.session_limits.signal import LimitSignal
from idea_daemon.errors import CommandError
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import TerminalSession

if TYPE_CHECKING:
    from idea_daemon.session_limits.service import SessionLimitService

log = logging.getLogger(__name__)

SCAN_EVERY = 0.5
"""Seconds between two looks (a limit is noticed within this, a resume fires within it)."""
QUIET_READ = 3.0
"""After output, this much quiet asks the level-1 readers once (a turn ended)."""
WORKING_RULES = ("workingTitle", "workingScreen")
"""The state rules (`core.agents.state_rules`) that are evidence of a CLI working."""


@dataclass
class SessionScan:
    """What the watcher knows of one agent session."""

    profile: AgentProfile
    screen: ScreenWatch | None
    started: datetime
    counter: int = -1
    read_for: float = 0.0
    """The `last_output` a quiet-spell read was made for (one read per spell)."""
    stall_for: float = -1.0
    """The `last_output` a stall was reported for (one suspicion per silence)."""
    reading: bool = False
    readers: list[LimitReader] = field(default_factory=list)
    settled_for: datetime | None = None
    """The limit (its `since`) after which the agent was seen not working: only then does
    working again after the reset mean the CLI went on (the turn the limit ended may still
    show as working for a moment, and the reset may be that close)."""


class LimitWatcher:
    def __init__(self, limits: SessionLimitService, readers: list[LimitReader]) -> None:
        self.limits = limits
        self.readers = readers
        self.scans: dict[str, SessionScan] = {}
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _loop(self) -> None:
        while True:
            try:
                self.scan()
            except Exception:
                log.exception("session-limit scan failed")
            await asyncio.sleep(SCAN_EVERY)

    # ─── one look ────────────────────────────────────────────────────────────────────

    def scan(self) -> None:
        limits = self.limits
        now = limits.now()
        live = set()
        for session in list(limits.service.sessions.values()):
            if session.agent_id is None or not session.running:
                continue
            runtime = limits.service.projects.get(session.project_root or "")
            if runtime is None:
                continue
            live.add(session.id)
            self._look(runtime, session, now)
        for gone in set(self.scans) - live:
            del self.scans[gone]
        if not self._can_launch():
            return
        for runtime in list(limits.service.projects.values()):
            book = limits.book(runtime)
            limits.ask_overdue(runtime)  # the machine slept past a resume: asked, not fired
            due = book.due(now)
            if due:
                limits.save(runtime)
            for limit in due:
                if limits.on_due is not None:
                    limits.on_due(runtime, limit)

    def _can_launch(self) -> bool:
        """A resume relaunches the agent's CLI, which connects to idea's MCP server at its
        start: while the daemon is still loading that server (the seconds after a start, when
        resumes due while it was down fire), the resume waits, so the CLI is not started
        into a queue its own MCP timeout may give up on (it would come back without idea's
        tools)."""
        orchestration = self.limits.orchestration
        host = orchestration.host if orchestration is not None else None
        return host is None or host.ready

    def scan_of(self, session: TerminalSession) -> SessionScan | None:
        scan = self.scans.get(session.id)
        if scan is None:
            try:
                profile = self.limits.agents.profile(session.profile_id or "")
            except (IdeaError, CommandError):
                return None
            pattern = compile_pattern(profile.rate_limit_pattern)
            # The messages this agent's earlier sessions showed, before a daemon restart
            # too (the book's file): a resumed CLI replays them.
            runtime = self.limits.service.projects.get(session.project_root or "")
            shown = (self.limits.book(runtime).shown_by(session.agent_id or "")
                     if runtime is not None else frozenset())
            scan = self.scans[session.id] = SessionScan(
                profile,
                ScreenWatch(pattern, old=shown) if pattern is not None else None,
                self.limits.now(),
                readers=[reader for reader in self.readers if reader.applies(profile)],
            )
        return scan

    def acknowledge(self, session: TerminalSession) -> None:
        """The limit message on this screen is dealt with (resumed in the same CLI)."""
        scan = self.scan_of(session)
        if scan is not None and scan.screen is not None:
            scan.screen.acknowledge(session.screen_text(), self.limits.now(),
                                    session.emulator.cols)
            scan.counter = session.counter
        if scan is not None:
            scan.started = self.limits.now()
            scan.stall_for = session.last_output

    def _look(self, runtime: ProjectRuntime, session: TerminalSession, now: datetime) -> None:
        scan = self.scan_of(session)
        if scan is None:
            return
        agent_id = session.agent_id
        assert agent_id is not None
        limits = self.limits
        changed = session.counter != scan.counter
        scan.counter = session.counter
        limit = limits.book(runtime).get(agent_id)
        if changed and scan.screen is not None:
            found = scan.screen.check(session.screen_text(), now, limits.clock.zone,
                                      session.emulator.cols)
            if found is not None:
                limit = limits.on_signal(runtime, agent_id, session.agent_name, found,
                                         shown=found.text)
                if limit is not None:
                    self._settle(runtime, session, scan, limit.since)
                self._read_level1(runtime, session, scan)
                return
        mono = session.monotonic()  # the clock of `last_output`
        quiet = mono - session.last_output if session.last_output else 0.0
        # A read still in flight keeps the quiet spell for the next look: consumed now, the
        # spell's one read would be lost (a brief turn's answer then never asked about).
        quiet_spell = (session.last_output and quiet >= QUIET_READ
                       and scan.read_for != session.last_output and not scan.reading)
        if limit is not None and limit.state is not LimitState.SWAPPED:
            until = limit.resets_at or limit.fire_at
            past_reset = until is not None and now >= until
            if scan.settled_for != limit.since:
                self._settle(runtime, session, scan, limit.since)
            elif changed and past_reset and self._maybe_went_on(runtime, session):
                return
            if quiet_spell:
                scan.read_for = session.last_output
            if quiet_spell or (changed and past_reset):
                # The CLI's own file: its exact time refines the screen's (seen there before
                # the CLI wrote it), and it says whether the model answered after the limit
                # (a turn too brief for a look to see it working; a CLI switched to another
                # model before the reset; a stalled one that answered after all).
                self._read_files(runtime, session, scan, limit.since)
            return
        if quiet_spell:
            scan.read_for = session.last_output
            self._read_level1(runtime, session, scan)
        orchestration = limits.orchestration
        if orchestration is None or limits.settings.stall_after <= 0:
            return
        current = orchestration.box(runtime).current(agent_id)
        if current is None or scan.stall_for == session.last_output or scan.reading:
            return  # (a read in flight: the stall is looked at again next time)
        since = max(session.last_output, current.delivered_at or 0.0)
        if stalled(turn_running=True, quiet_for=mono - since,
                   stall_after=limits.settings.stall_after):
            scan.stall_for = session.last_output
            self._read_level1(runtime, session, scan, suspect_after=mono - since)

    def _working(self, runtime: ProjectRuntime, session: TerminalSession) -> str | None:
        """Why the agent is seen working, when one of its profile's working rules (title or
        screen) says so; None otherwise. Fresh output alone is not enough: the state rules
        call a screen that just changed "working" (a repaint, a resize, a countdown)."""
        orchestration = self.limits.orchestration
        if orchestration is None:
            return None
        state = orchestration.agent_state(runtime, orchestration.target(runtime, session.agent_id
                                                                        or ""))
        rule = state.rule
        if state.state != "working" or not rule.startswith(WORKING_RULES):
            return None
        return state.explain if isinstance(state.explain, str) and state.explain else rule

    def _settle(self, runtime: ProjectRuntime, session: TerminalSession, scan: SessionScan,
                limited_since: datetime) -> None:
        """Note that the agent is seen not working since this limit (see `settled_for`)."""
        if self._working(runtime, session) is None:
            scan.settled_for = limited_since

    def _maybe_went_on(self, runtime: ProjectRuntime, session: TerminalSession) -> bool:
        """Some CLIs continue by themselves at the reset (Claude Code can): seen working
        after the reset time (having settled after the limit), the agent needs no resume."""
        working = self._working(runtime, session)
        if working is None:
            return False
        self._went_on(runtime, session, f"seen working: {working}")
        return True

    def _went_on(self, runtime: ProjectRuntime, session: TerminalSession, evidence: str) -> None:
        self.acknowledge(session)
        self.limits.clear(runtime, session.agent_id or "",
                          f"the CLI went on by itself ({evidence})")
        self.limits.tell(runtime, f"{session.agent_name} is answering again after its usage "
                                  "limit: no resume needed")

    def _read_files(self, runtime: ProjectRuntime, session: TerminalSession,
                    scan: SessionScan, limited_since: datetime) -> None:
        """Ask the readers, in an executor, for the newest limit record and whether the model
        answered after it; if it did and the agent is still limited (not swapped), it went
        on by itself, else a record refines the limit.

        Only an answer after `limited_since` (when idea learnt of this limit) counts: a
        limit seen on the screen alone (its record not in the file, or not yet) must not be
        taken as over by the answer that ended an earlier limit of the same session."""
        if scan.reading or not scan.readers:
            return
        query = self._query(runtime, session, scan)
        went_query = replace(query, since=max(scan.started, limited_since))
        scan.reading = True
        future = asyncio.get_running_loop().run_in_executor(
            None, _read_files_of, scan.readers, query, went_query)
        agent_id = query.agent_id

        def done(result: asyncio.Future[tuple[LimitSignal | None, datetime | None]]) -> None:
            scan.reading = False
            try:
                found, went_on_at = result.result()
            except Exception:
                log.exception("level-1 limit readers failed")
                return
            limit = self.limits.book(runtime).get(agent_id)
            if limit is None or limit.state is LimitState.SWAPPED or not session.running:
                return
            if went_on_at is not None:
                self._went_on(runtime, session, f"its file shows an answer at {went_on_at}")
                return
            self._take_record(runtime, session, found)

        future.add_done_callback(done)

    def _take_record(self, runtime: ProjectRuntime, session: TerminalSession,
                     found: LimitSignal | None) -> bool:
        """A level-1 record into the book, unless already acted on (a resumed CLI's old
        transcript); True when it was taken."""
        agent_id = session.agent_id or ""
        key = record_key(found) if found is not None else None
        if key is not None and key in self.limits.book(runtime).shown_by(agent_id):
            return False
        if found is None:
            return False
        self.limits.on_signal(runtime, agent_id, session.agent_name, found, shown=key)
        return True

    # ─── level 1 ─────────────────────────────────────────────────────────────────────

    def _read_level1(self, runtime: ProjectRuntime, session: TerminalSession,
                     scan: SessionScan, suspect_after: float | None = None) -> None:
        """Ask the readers in an executor; a stall with no answer becomes a suspicion."""
        if scan.reading:
            return
        if not scan.readers:
            if suspect_after is not None:
                self._suspect(runtime, session, suspect_after)
            return
        query = self._query(runtime, session, scan)
        scan.reading = True
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, _read_all, scan.readers, query)

        def done(result: asyncio.Future[LimitSignal | None]) -> None:
            scan.reading = False
            try:
                found = result.result()
            except Exception:
                log.exception("level-1 limit readers failed")
                found = None
            if not self._take_record(runtime, session, found) and suspect_after is not None:
                self._suspect(runtime, session, suspect_after)

        future.add_done_callback(done)

    def _query(self, runtime: ProjectRuntime, session: TerminalSession,
               scan: SessionScan) -> LimitQuery:
        agent_id = session.agent_id or ""
        return LimitQuery(
            agent_id=agent_id,
            profile=scan.profile,
            project_root=Path(session.spec.cwd if session.spec else runtime.root),
            run_dir=Path(runtime.root) / ".ideai" / "run" / agent_id,
            conversation_id=session.conversation_id,
            since=scan.started,
            now=self.limits.now(),
            env=dict(session.spec.env) if session.spec else {},
        )

    def _suspect(self, runtime: ProjectRuntime, session: TerminalSession, quiet: float) -> None:
        self.limits.on_signal(runtime, session.agent_id or "", session.agent_name,
                              suspected_signal(self.limits.now(), quiet))


def record_key(signal: LimitSignal) -> str | None:
    """How a level-1 record is remembered as acted on: its instant and text (a record
    without an instant is not remembered: the same words later are a new limit)."""
    if signal.observed_at is None:
        return None
    return f"@{signal.observed_at.isoformat()} {signal.text}"


def _read_all(readers: list[LimitReader], query: LimitQuery) -> LimitSignal | None:
    """The newest signal of all readers (blocking: runs in an executor)."""
    found: list[LimitSignal] = []
    for reader in readers:
        try:
            signal = reader.read(query)
        except Exception:
            log.exception("limit reader %s failed", getattr(reader, "name", reader))
            continue
        if signal is not None:
            found.append(signal)
    if not found:
        return None
    return max(found, key=lambda s: (s.observed_at or query.since, -int(s.level)))


def _read_files_of(readers: list[LimitReader], query: LimitQuery,
                   went_query: LimitQuery) -> tuple[LimitSignal | None, datetime | None]:
    """The newest limit record, and when the model answered after it (blocking)."""
    return _read_all(readers, query), _went_on_any(readers, went_query)


def _went_on_any(readers: list[LimitReader], query: LimitQuery) -> datetime | None:
    """The latest instant any reader saw the model answer after the limit (blocking)."""
    found: list[datetime] = []
    for reader in readers:
        try:
            went_on_at = reader.went_on(query)
        except Exception:
            log.exception("limit reader %s failed", getattr(reader, "name", reader))
            continue
        if went_on_at is not None:
            found.append(went_on_at)
    return max(found, default=None)
