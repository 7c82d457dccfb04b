"""Session limits on fakes (issue 10): the daemon's limit service, watcher and resumer wired
as bootstrap wires them, agents on fake PTYs, the frozen test clock, and the watcher's look
(`LimitWatcher.scan`) run by the test, so nothing waits on a timer.

The built-in Claude Code profile's `rateLimitPattern` reads the screen (level 2); no level-1
reader is wired (the fake PTYs write no transcripts).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from adapters.config import SessionLimits
from adapters.ipc.messages import Notice
from adapters.mcp.identity import Caller
from core.orchestration.monitor import AgentRow
from core.orchestration.tickets import USER, TicketState
from core.session_limits import LimitLevel, LimitQuery, LimitSignal
from core.session_limits.detector import suspected_signal
from idea_daemon.bootstrap import ServicePorts, _wire_session_limits
from idea_daemon.client_connection import ClientConnection
from idea_daemon.server import DaemonServer
from idea_daemon.session import TerminalSession
from idea_daemon.session_limits.watcher import QUIET_READ
from tests.fakes import FakeLimitReader, FakePty
from tests.helpers.unit_daemon import FakeWriter, Stores, UnitDaemon

START = "2026-12-01T10:00:00+00:00"
MESSAGE = "You've hit your limit · resets 10:30am (UTC)"
WAIT = 10.0
"""Seconds a gated read waits at most (the test opens the gate long before)."""


NO_STALL = SessionLimits(stall_after=0)


def wired(settings: SessionLimits, start: str = START) -> Any:
    def wire(server: DaemonServer) -> None:
        _wire_session_limits(server, settings, {"IDEA_TEST_CLOCK": start, "TZ": "UTC"},
                             readers=[])

    return wire


def daemon(tmp_path: Path, stores: Stores, settings: SessionLimits = NO_STALL,
           start: str = START) -> UnitDaemon:
    return UnitDaemon(tmp_path, stores, wire=wired(settings, start))


@pytest.fixture
def stores(tmp_path: Path) -> Stores:
    return Stores(tmp_path / "data")


@pytest.fixture
def first(tmp_path: Path, stores: Stores) -> Iterator[UnitDaemon]:
    unit = daemon(tmp_path, stores)
    try:
        yield unit
    finally:
        unit.close()


def session_of_agent(unit: UnitDaemon, name: str) -> TerminalSession:
    runtime = next(iter(unit.service.projects.values()))
    agents = unit.server.agents
    assert agents is not None
    agent = agents.agent(runtime, name)
    session = agents.session_of_agent(runtime, agent.id)
    assert isinstance(session, TerminalSession), f"{name} does not run"
    return session


def shows(unit: UnitDaemon, name: str, text: str) -> TerminalSession:
    """The agent's CLI prints `text`; returns its session once the screen shows it."""
    session = session_of_agent(unit, name)
    pty = session.pty
    assert isinstance(pty, FakePty)
    pty.output(text.encode() + b"\r\n")
    # Compared without blanks: a narrow cell wraps the message.
    wanted = "".join(text.split())
    unit.until(lambda: wanted in "".join("".join(session.screen_text()).split()),
               f"{text!r} on the screen")
    return session


def look(unit: UnitDaemon) -> None:
    """One look of the watcher (what its loop does every SCAN_EVERY), on the daemon's loop
    (a look may hand file reads to an executor)."""

    async def once() -> None:
        unit.server.limit_watcher.scan()

    unit.loop.run_until_complete(once())


def limits(unit: UnitDaemon) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = unit.call("limit_status")
    return listed


def restart(unit: UnitDaemon, tmp_path: Path, stores: Stores,
            settings: SessionLimits = NO_STALL, start: str = START) -> UnitDaemon:
    unit.close()
    return daemon(tmp_path, stores, settings, start)


def agent_programs(unit: UnitDaemon) -> list[FakePty]:
    return [pty for pty in unit.spawner.spawned if pty.argv[0] == "claude"]


def test_a_replayed_limit_message_after_a_daemon_restart_is_not_a_new_limit(
        first: UnitDaemon, tmp_path: Path, stores: Stores) -> None:
    """Claude Code resumed on its conversation replays its history, the old limit message
    included. The message was acted on before the daemon restarted: the restarted daemon
    remembers it (the book's file), resumes the agent at the reset, and the replay does not
    limit it again (which would resume it again and again)."""
    root = first.project()
    first.call("agent_new", name="Coder")
    first.call("agent_launch", agent="Coder")
    shows(first, "Coder", MESSAGE)
    look(first)
    [limit] = limits(first)
    assert limit["text"] == "rate_limited (until 10:30)", limit
    saved = json.loads((root / ".ideai" / "run" / "session-limits.json").read_text())
    assert list(saved["shown"].values()) == [[MESSAGE]], saved

    second = restart(first, tmp_path, stores)
    try:
        assert limits(second)[0]["resumeAt"] == "2026-12-01T10:31:00+00:00"
        second.call("test_clock", at="2026-12-01T10:31:30+00:00")
        look(second)  # the resume is due: the agent is launched on its conversation
        assert limits(second) == []
        resumed = session_of_agent(second, "Coder")
        assert isinstance(resumed.pty, FakePty) and "--resume" in resumed.pty.argv
        shows(second, "Coder", f"> earlier turn\r\n{MESSAGE}")  # the replayed history
        spawned = len(second.spawner.spawned)
        look(second)
        # Not limited again, so not resumed again (its reset is past: that would be at once).
        assert limits(second) == [], "the replayed message limited the agent again"
        assert session_of_agent(second, "Coder") is resumed
        assert len(second.spawner.spawned) == spawned, "the agent was resumed a second time"
        # A new limit message in the same session is still seen (the look did look).
        shows(second, "Coder", "You've hit your limit · resets 3pm (UTC)")
        look(second)
        assert [entry["text"] for entry in limits(second)] == ["rate_limited (until 15:00)"]
    finally:
        second.close()


def test_a_book_whose_shown_messages_cannot_be_read_is_reported_and_kept(
        first: UnitDaemon, tmp_path: Path, stores: Stores) -> None:
    root = first.project()
    first.call("agent_new", name="Coder")
    book = root / ".ideai" / "run" / "session-limits.json"
    book.parent.mkdir(parents=True, exist_ok=True)
    damaged = json.dumps({"version": 1, "limits": [], "shown": {"x": "not a list"}})
    book.write_text(damaged)
    second = restart(first, tmp_path, stores)
    try:
        runtime = next(iter(second.service.projects.values()))
        problems = " ".join(runtime.problems)
        assert "session-limits.json" in problems and "shown" in problems, problems
        # Still detected (in memory), and the file is left as the user has it.
        second.call("agent_launch", agent="Coder")
        shows(second, "Coder", MESSAGE)
        look(second)
        assert [entry["text"] for entry in limits(second)] == ["rate_limited (until 10:30)"]
    finally:
        second.close()
    assert book.read_text() == damaged


def test_a_resume_missed_long_ago_while_the_daemon_was_down_is_asked_not_fired(
        first: UnitDaemon, tmp_path: Path, stores: Stores) -> None:
    """Due at 10:31; the daemon starts again at 18:00, more than `ask_after` (6 h) later:
    the agent is not resumed behind the user's back, and not silently dropped either: the
    user is asked (resume now, at a time, or keep it stopped), and the question outlives
    another restart until it is answered."""
    first.project()
    first.call("agent_new", name="Coder")
    first.call("agent_launch", agent="Coder")
    shows(first, "Coder", MESSAGE)
    look(first)
    second = restart(first, tmp_path, stores, start="2026-12-01T18:00:00+00:00")
    try:
        look(second)
        assert agent_programs(second) == [], "resumed without asking"
        [entry] = limits(second)
        assert entry["overdue"] == "2026-12-01T10:31:00+00:00" and entry["resumeAt"] is None
        said = "Coder's resume was due at 10:30 while idea was not running (7h 29m ago)"
        assert entry["missed"] == said
        assert entry["question"].startswith(said + ": resume it now?"), entry
        runtime = next(iter(second.service.projects.values()))
        assert any(notice.startswith(said) for notice in runtime.notices), runtime.notices
    finally:
        second.close()
    third = daemon(tmp_path, stores, start="2026-12-01T18:05:00+00:00")
    try:
        [entry] = limits(third)  # still asked: nobody answered
        assert entry["overdue"] == "2026-12-01T10:31:00+00:00", entry
        # The answer "now": resumed on its conversation, the question gone with the limit.
        answer = third.call("resume_now", agent="Coder")
        assert answer["resumed"] is True
        [program] = agent_programs(third)
        assert "--resume" in program.argv
        assert limits(third) == []
    finally:
        third.close()


def test_a_machine_that_slept_past_a_resume_asks_and_keep_it_stopped_answers(
        first: UnitDaemon) -> None:
    first.project()
    first.call("agent_new", name="Coder")
    first.call("agent_launch", agent="Coder")
    shows(first, "Coder", MESSAGE)
    look(first)
    programs = len(agent_programs(first))
    limits_service = first.server.session_limits
    first.call("test_clock", at="2026-12-02T03:00:00+00:00")  # the lid was shut all night
    look(first)
    assert len(agent_programs(first)) == programs, "resumed without asking"
    [entry] = limits(first)
    assert entry["overdue"] == "2026-12-01T10:31:00+00:00", entry
    runtime = next(iter(first.service.projects.values()))
    agent = first.server.agents.agent(runtime, "Coder")
    row = limits_service.monitor_row(runtime, agent, AgentRow(name="Coder", state="exited"))
    assert (row.state, row.detail) == ("rate_limited", "until 10:30, resume missed: asking")
    # The answer "keep it stopped": the cancel says it cancelled, the agent stays limited.
    assert first.call("cancel_resume", agent="Coder")["cancelled"] is True
    [entry] = limits(first)
    assert "overdue" not in entry and entry["resumeAt"] is None
    assert entry["text"] == "rate_limited (until 10:30)"
    look(first)
    assert len(agent_programs(first)) == programs


class LoadingHost:
    """The MCP host while the daemon still loads the SDK (the seconds after a start)."""

    ready = False


class StartingOrchestration:
    host = LoadingHost()


def test_a_resume_waits_for_the_mcp_server_the_relaunched_cli_connects_to(
        first: UnitDaemon) -> None:
    """The restart flake of `test_an_armed_resume_survives_a_daemon_restart`: the resume
    relaunched the CLI while the new daemon was still loading its MCP server, so the CLI's
    MCP client waited in a queue (a real CLI may give up and run without idea's tools)."""
    first.project()
    first.call("agent_new", name="Coder")
    first.call("agent_launch", agent="Coder")
    shows(first, "Coder", MESSAGE)
    look(first)
    programs = len(agent_programs(first))
    limits_service = first.server.session_limits
    first.call("test_clock", at="2026-12-01T10:31:30+00:00")
    limits_service.orchestration = StartingOrchestration()
    look(first)
    assert len(agent_programs(first)) == programs, "relaunched before the MCP server was up"
    assert limits(first)[0]["resumeAt"] == "2026-12-01T10:31:00+00:00"  # still armed
    limits_service.orchestration = None  # no MCP host to wait for
    look(first)
    assert len(agent_programs(first)) == programs + 1 and limits(first) == []


def test_a_cli_whose_file_shows_it_answered_after_the_reset_is_not_resumed(
        tmp_path: Path, stores: Stores) -> None:
    """Claude Code continues by itself at the reset; its turn can be over before a look sees
    it working. The CLI's own file (level 1) says the model answered after the limit: the
    agent is no longer limited, and its armed resume never fires. Output before the reset
    does not ask the file (only its quiet spells do: the limit stands)."""
    reader = FakeLimitReader(profile_ids=("claude-code",))

    def wire(server: DaemonServer) -> None:
        _wire_session_limits(server, NO_STALL, {"IDEA_TEST_CLOCK": START, "TZ": "UTC"},
                             readers=[reader])

    unit = UnitDaemon(tmp_path, stores, wire=wire)
    try:
        coder_at_its_limit(unit)
        assert [entry["text"] for entry in limits(unit)] == ["rate_limited (until 10:30)"]
        reader.went_on_at = datetime(2026, 12, 1, 10, 30, 5, tzinfo=UTC)
        unit.call("test_clock", at="2026-12-01T10:29:00+00:00")
        shows(unit, "Coder", "before the reset")
        asked = len(reader.queries)
        look(unit)
        assert len(reader.queries) == asked  # a limit before its reset: no file asked
        assert [entry["text"] for entry in limits(unit)] == ["rate_limited (until 10:30)"]

        unit.call("test_clock", at="2026-12-01T10:30:20+00:00")  # past the reset
        shows(unit, "Coder", "AUTO-CONTINUED-ANSWER")
        spawned = len(unit.spawner.spawned)
        look(unit)
        unit.until(lambda: limits(unit) == [], "the limit cleared by the CLI's file")
        unit.call("test_clock", at="2026-12-01T10:35:00+00:00")  # past the armed resume
        look(unit)
        assert len(unit.spawner.spawned) == spawned, "the agent was resumed anyway"
    finally:
        unit.close()


def with_reader(tmp_path: Path, stores: Stores, reader: FakeLimitReader) -> UnitDaemon:
    def wire(server: DaemonServer) -> None:
        _wire_session_limits(server, NO_STALL, {"IDEA_TEST_CLOCK": START, "TZ": "UTC"},
                             readers=[reader])

    return UnitDaemon(tmp_path, stores, wire=wire)


def reads_done(unit: UnitDaemon) -> None:
    """Turn the loop until no level-1 read is in flight (their answers are then taken)."""
    scans = unit.server.limit_watcher.scans
    unit.until(lambda: not any(scan.reading for scan in scans.values()), "the reads ended")


def coder_at_its_limit(unit: UnitDaemon) -> None:
    """A new project whose agent Coder runs and shows MESSAGE, seen by a look (and its
    level-1 read, when a reader is wired, done)."""
    unit.project()
    unit.call("agent_new", name="Coder")
    unit.call("agent_launch", agent="Coder")
    shows(unit, "Coder", MESSAGE)
    look(unit)
    reads_done(unit)


def notices(client: ClientConnection) -> list[str]:
    writer = client.writer
    assert isinstance(writer, FakeWriter)
    return [m.text for m in writer.messages() if isinstance(m, Notice)]


def test_the_user_is_notified_once_per_transition_to_limited(
        tmp_path: Path, stores: Stores) -> None:
    """The same limit seen again (the screen reprints it, the CLI's file gives its exact
    time, more output comes) is not notified again; a new limit after the resume is."""
    exact = datetime(2026, 12, 1, 10, 29, 40, tzinfo=UTC)
    reader = FakeLimitReader(
        LimitSignal(LimitLevel.STRUCTURED, exact, "transcript.jsonl", "You've hit your limit",
                    observed_at=datetime(2026, 12, 1, 10, 0, tzinfo=UTC)),
        profile_ids=("claude-code",))
    unit = with_reader(tmp_path, stores, reader)
    try:
        unit.project()
        client = unit.attach()
        unit.call("agent_new", name="Coder")
        unit.call("agent_launch", agent="Coder")
        shows(unit, "Coder", MESSAGE)
        look(unit)
        reads_done(unit)  # level 1 refines the time: the same limit
        [entry] = limits(unit)
        assert (entry["level"], entry["resetsAt"]) == (1, exact.isoformat()), entry
        shows(unit, "Coder", MESSAGE)  # printed again: twice on the screen now
        look(unit)
        shows(unit, "Coder", "still waiting")
        look(unit)
        reads_done(unit)
        unit.turn(0.05)
        hit = [text for text in notices(client) if "hit a usage limit" in text]
        assert hit == ["Coder hit a usage limit: resuming at 10:31 "
                       "(`idea agent resume Coder --cancel | --at HH:MM | --now`)"], hit

        unit.call("test_clock", at="2026-12-01T10:31:00+00:00")
        look(unit)  # resumed on its conversation
        assert limits(unit) == []
        shows(unit, "Coder", "You've hit your limit · resets 3pm (UTC)")
        look(unit)
        reads_done(unit)
        unit.turn(0.05)
        hit = [text for text in notices(client) if "hit a usage limit" in text]
        assert len(hit) == 2 and "resuming at 15:01" in hit[1], hit
    finally:
        unit.close()


@dataclass
class GatedReader(FakeLimitReader):
    """A reader whose `went_on` waits for `gate` (a file read still in flight)."""

    gate: threading.Event = field(default_factory=threading.Event)

    def went_on(self, query: LimitQuery) -> datetime | None:
        assert self.gate.wait(WAIT), "the test never opened the gate"
        return super().went_on(query)


def test_a_quiet_spell_during_a_read_still_asks_the_file(
        tmp_path: Path, stores: Stores) -> None:
    """Past the reset, new output asks the CLI's file whether the model answered; the file
    does not have the answer yet. The quiet spell that follows comes while that read is
    still in flight: it is kept for the next look (consumed then, the answer written
    meanwhile was never asked about and the agent stayed limited until idea resumed it)."""
    reader = GatedReader(profile_ids=("claude-code",))
    unit = with_reader(tmp_path, stores, reader)
    try:
        coder_at_its_limit(unit)
        unit.call("test_clock", at="2026-12-01T10:30:20+00:00")  # past the reset
        shows(unit, "Coder", "AUTO-CONTINUED-ANSWER")
        look(unit)  # asks the file: the read waits at the gate
        [scan] = unit.server.limit_watcher.scans.values()
        assert scan.reading
        stores.clock.advance(QUIET_READ + 1)  # quiet now, the read still in flight
        look(unit)
        reader.gate.set()
        reads_done(unit)  # the file had no answer yet
        assert [entry["text"] for entry in limits(unit)] == ["rate_limited (until 10:30)"]
        reader.went_on_at = datetime(2026, 12, 1, 10, 30, 5, tzinfo=UTC)  # now it has
        look(unit)
        reads_done(unit)
        assert limits(unit) == [], "the quiet spell was lost to the read in flight"
    finally:
        unit.close()


def test_an_answer_from_before_the_limit_is_not_the_cli_going_on(
        tmp_path: Path, stores: Stores) -> None:
    """The file's newest answer is from before idea saw this limit (it ended an earlier
    one, or the limit was seen on the screen only): past the reset, that is no sign the CLI
    went on; an answer after the limit is."""
    reader = FakeLimitReader(profile_ids=("claude-code",))
    unit = with_reader(tmp_path, stores, reader)
    try:
        unit.project()
        unit.call("agent_new", name="Coder")
        unit.call("agent_launch", agent="Coder")
        shows(unit, "Coder", "> ready")
        look(unit)  # the session is watched from 10:00
        unit.call("test_clock", at="2026-12-01T10:05:00+00:00")
        shows(unit, "Coder", MESSAGE)
        look(unit)
        reads_done(unit)
        reader.went_on_at = datetime(2026, 12, 1, 10, 2, tzinfo=UTC)  # before the limit
        unit.call("test_clock", at="2026-12-01T10:30:20+00:00")
        shows(unit, "Coder", "some output after the reset")
        look(unit)
        reads_done(unit)
        assert [entry["text"] for entry in limits(unit)] == ["rate_limited (until 10:30)"]
        reader.went_on_at = datetime(2026, 12, 1, 10, 30, 5, tzinfo=UTC)
        shows(unit, "Coder", "AUTO-CONTINUED-ANSWER")
        look(unit)
        reads_done(unit)
        assert limits(unit) == []
    finally:
        unit.close()


def titled(unit: UnitDaemon, name: str, title: str) -> None:
    """The agent's CLI sets its terminal title (Claude Code's spinner while it works)."""
    session = session_of_agent(unit, name)
    pty = session.pty
    assert isinstance(pty, FakePty)
    pty.output(f"\x1b]0;{title}\x07".encode())
    unit.until(lambda: session.title == title, f"the title {title!r}")


def test_only_a_settled_agent_seen_working_after_the_reset_went_on(
        tmp_path: Path, stores: Stores) -> None:
    """The look right after the reset must not take the turn the limit ended (still
    working for a moment: Claude Code's title spinner) nor a mere repaint (fresh output
    reads as working to the state rules) for the CLI going on by itself: it would never be
    resumed. Once seen settled, working by a rule of its profile after the reset is (the
    state rules are delegation's: the daemon has it here, its MCP server never started)."""
    unit = UnitDaemon(tmp_path, stores, wire=wired(NO_STALL),
                      services=ServicePorts(mcp_socket=tmp_path / "mcp.sock"))
    try:
        unit.project()
        unit.call("agent_new", name="Coder")
        unit.call("agent_launch", agent="Coder")
        titled(unit, "Coder", "⠂ Claude Code")  # the turn the limit ends winds down
        shows(unit, "Coder", MESSAGE)
        look(unit)
        unit.call("test_clock", at="2026-12-01T10:30:20+00:00")  # the reset comes at once
        shows(unit, "Coder", "· esc to interrupt")
        look(unit)
        assert [entry["text"] for entry in limits(unit)] == ["rate_limited (until 10:30)"]
        titled(unit, "Coder", "Claude Code")
        pty = session_of_agent(unit, "Coder").pty
        assert isinstance(pty, FakePty)
        pty.output(b"\x1b[2J\x1b[H")  # the turn's lines gone
        shows(unit, "Coder", "❯ ")  # settled at its prompt
        stores.clock.advance(1)  # quiet: idle
        look(unit)
        # Output just now (the state rules measure it on the real clock), no working rule.
        stores.clock.seconds = time.monotonic()
        shows(unit, "Coder", "a repaint")
        look(unit)
        assert [entry["text"] for entry in limits(unit)] == ["rate_limited (until 10:30)"]
        titled(unit, "Coder", "⠐ Claude Code")
        shows(unit, "Coder", "✻ Continuing… (esc to interrupt)")
        look(unit)
        assert limits(unit) == [], "working by its rules after the reset: it went on"
    finally:
        unit.close()


def test_a_cli_answering_before_its_reset_is_no_longer_limited(
        tmp_path: Path, stores: Stores) -> None:
    """Codex at its limit offers to switch to another model; switched, it answers before
    the reset. Its file shows the model answering after the limit: once the agent is quiet
    the limit is over, its queue moves, and idea does not restart it at the reset."""
    reader = FakeLimitReader(profile_ids=("claude-code",))
    unit = with_reader(tmp_path, stores, reader)
    try:
        coder_at_its_limit(unit)
        unit.call("test_clock", at="2026-12-01T10:10:00+00:00")
        shows(unit, "Coder", "an answer on the other model")
        stores.clock.advance(QUIET_READ + 1)
        look(unit)  # quiet: the file is asked, and has no answer yet
        reads_done(unit)
        assert [entry["text"] for entry in limits(unit)] == ["rate_limited (until 10:30)"]
        reader.went_on_at = datetime(2026, 12, 1, 10, 9, 50, tzinfo=UTC)
        shows(unit, "Coder", "more of the answer")
        stores.clock.advance(QUIET_READ + 1)
        look(unit)
        reads_done(unit)
        assert limits(unit) == []
        spawned = len(unit.spawner.spawned)
        unit.call("test_clock", at="2026-12-01T10:35:00+00:00")
        look(unit)
        assert len(unit.spawner.spawned) == spawned, "restarted at the reset anyway"
    finally:
        unit.close()


def test_a_suspected_agent_whose_file_shows_an_answer_is_not_suspected_any_more(
        tmp_path: Path, stores: Stores) -> None:
    """Level 3 is a guess (a task with no output for `stall_after`): the agent answering
    after all, as its CLI's file shows once it is quiet again, ends the suspicion."""
    reader = FakeLimitReader(profile_ids=("claude-code",))
    unit = with_reader(tmp_path, stores, reader)
    try:
        unit.project()
        unit.call("agent_new", name="Coder")
        unit.call("agent_launch", agent="Coder")
        shows(unit, "Coder", "thinking")
        look(unit)
        runtime = next(iter(unit.service.projects.values()))
        service = unit.server.session_limits
        agent = unit.server.agents.agent(runtime, "Coder")
        service.on_signal(runtime, agent.id, "Coder", suspected_signal(service.now(), 700))
        assert [entry["text"] for entry in limits(unit)] == ["limit suspected"]
        unit.call("test_clock", at="2026-12-01T10:12:00+00:00")
        reader.went_on_at = datetime(2026, 12, 1, 10, 11, 50, tzinfo=UTC)
        shows(unit, "Coder", "the answer, late")
        stores.clock.advance(QUIET_READ + 1)
        look(unit)
        reads_done(unit)
        assert limits(unit) == []
    finally:
        unit.close()


# ─── level 3: a suspicion is a question, never a restart ─────────────────────────────────


def with_delegation(tmp_path: Path, stores: Stores, settings: SessionLimits) -> UnitDaemon:
    """A daemon with delegation (its mailbox and state rules) on the default bounds: a
    turn times out after 300 s; `settings` says when a silent one is suspected."""
    return UnitDaemon(tmp_path, stores, wire=wired(settings),
                      services=ServicePorts(mcp_socket=tmp_path / "mcp.sock"))


@dataclass
class Turn:
    """Coder working on `first` (delivered), `second` waiting behind it in its FIFO."""

    runtime: Any
    agent: Any
    box: Any
    first: Any
    second: Any


def coder_in_a_silent_turn(unit: UnitDaemon, stores: Stores) -> Turn:
    """Coder is given a task (its turn starts now), a second one queues behind it; then it
    prints nothing for 250 s: past the default `stall_after` (240 s), before the turn's
    bound (300 s)."""
    unit.project()
    unit.call("agent_new", name="Coder")
    unit.call("agent_launch", agent="Coder")
    shows(unit, "Coder", "working on it")
    runtime = next(iter(unit.service.projects.values()))
    orchestration = unit.server.orchestration
    assert orchestration is not None
    agent = unit.server.agents.agent(runtime, "Coder")
    box = orchestration.box(runtime)
    now = stores.clock.seconds
    first = box.ask(requester=USER, requester_name="user", target=agent.id,
                    target_name="Coder", task="reply with the plan", now=now)
    box.delivered(first.id, now)
    second = box.ask(requester=USER, requester_name="user", target=agent.id,
                     target_name="Coder", task="then the tests", now=now)
    stores.clock.advance(250)
    look(unit)
    return Turn(runtime, agent, box, first, second)


def test_a_suspicion_keeps_the_turn_and_not_a_limit_lets_it_go_on(
        tmp_path: Path, stores: Stores) -> None:
    """With the default bounds a silent task is suspected before its turn times out (with
    600 s it timed out first: level 3 never asked). The suspicion holds the queue but does
    not take the task back: "not a limit" lets the same turn go on (no restart, nothing
    delivered again, the queue in its order) and the agent's late reply is taken."""
    unit = with_delegation(tmp_path, stores, SessionLimits())
    try:
        turn = coder_in_a_silent_turn(unit, stores)
        [entry] = limits(unit)
        assert (entry["state"], entry["level"]) == ("suspected", 3), entry
        box, first = turn.box, turn.first
        assert first.state is TicketState.DELIVERED, "the suspicion took the task back"
        assert box.held(turn.agent.id) is not None
        # Waiting for the user does not time the turn out.
        assert box.sweep(first.delivered_at + 1000) == []
        orchestration = unit.server.orchestration
        said = orchestration.describe_wait(turn.runtime, first)
        assert "Coder seems stuck: a usage limit is suspected" in said, said
        spawned = len(unit.spawner.spawned)

        answer = unit.call("not_limited", agent="Coder")
        assert answer == {"agent": "Coder", "was": "suspected", "limit": None}
        assert limits(unit) == [] and box.held(turn.agent.id) is None
        assert len(unit.spawner.spawned) == spawned, "the agent was restarted"
        assert [t.id for t in box.queue(turn.agent.id)] == [first.id, turn.second.id]
        assert first.state is TicketState.DELIVERED
        caller = Caller(turn.agent.id, "Coder", str(turn.runtime.root))
        unit.loop.run_until_complete(orchestration.reply(caller, "the plan", first.id))
        assert (first.state, first.result) == (TicketState.REPLIED, "the plan")
        # One suspicion per silence: the same silence does not raise it again.
        look(unit)
        assert limits(unit) == []
    finally:
        unit.close()


def test_a_suspected_agent_that_replies_is_not_suspected_any_more(
        tmp_path: Path, stores: Stores) -> None:
    unit = with_delegation(tmp_path, stores, SessionLimits())
    try:
        turn = coder_in_a_silent_turn(unit, stores)
        assert [entry["state"] for entry in limits(unit)] == ["suspected"]
        client = unit.attach()
        orchestration = unit.server.orchestration
        caller = Caller(turn.agent.id, "Coder", str(turn.runtime.root))
        said = unit.loop.run_until_complete(orchestration.reply(caller, "late", None))
        assert said.startswith(f"Reply to ticket {turn.first.id} delivered"), said
        assert limits(unit) == [] and turn.box.held(turn.agent.id) is None
        unit.turn(0.05)
        assert "Coder answered its task: not a usage limit" in notices(client)
    finally:
        unit.close()


def test_a_suspicion_confirmed_with_a_time_puts_the_task_back_for_the_resume(
        tmp_path: Path, stores: Stores) -> None:
    """The user says it is a limit (a time): the CLI lost the turn, so the task goes back to
    the head of the queue, to be delivered again after the resume prompt."""
    unit = with_delegation(tmp_path, stores, SessionLimits())
    try:
        turn = coder_in_a_silent_turn(unit, stores)
        unit.call("set_resume_at", agent="Coder", at="10:20")
        assert [entry["text"] for entry in limits(unit)] == ["rate_limited (until 10:20)"]
        assert turn.first.state is TicketState.QUEUED
        assert [t.id for t in turn.box.queue(turn.agent.id)] == [turn.first.id, turn.second.id]
    finally:
        unit.close()


def test_no_longer_limited_ends_a_limit_idea_saw_without_a_restart(first: UnitDaemon) -> None:
    """The user's word for a limit idea saw that is over (a CLI of its own that went on by
    itself unseen, a message taken for a limit): it ends, nothing restarts, and its armed
    resume never fires. Nothing to answer for an agent not limited, and one on its fallback
    profile is brought back by --now, not by this."""
    first.project()
    first.call("agent_new", name="Coder")
    first.call("agent_launch", agent="Coder")
    assert str(first.refused("not_limited", agent="Coder")) == "Coder is not at a usage limit"
    shows(first, "Coder", MESSAGE)
    look(first)
    spawned = len(first.spawner.spawned)
    answer = first.call("not_limited", agent="Coder")
    assert answer == {"agent": "Coder", "was": "limited", "limit": None}
    assert limits(first) == []
    first.call("test_clock", at="2026-12-01T10:35:00+00:00")  # past the resume it had
    look(first)
    assert len(first.spawner.spawned) == spawned, "restarted"

    shows(first, "Coder", "You've hit your limit · resets 3pm (UTC)")
    look(first)
    first.call("limit_swap", agent="Coder", profile="codex")
    refused = str(first.refused("not_limited", agent="Coder"))
    assert refused == ("Coder is on fallback codex until 15:01: `idea agent resume Coder "
                       "--now` brings it back on claude-code now"), refused
