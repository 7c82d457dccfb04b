"""A terminal session: one program on a PTY, its emulated screen and its scrollback.

The daemon's loop reads the PTY when it is readable, feeds the emulator, answers the
terminal queries the program sent (cursor position, device attributes) and bumps a
generation number on every changed row. Clients compare those numbers with what they were
sent, so a frame carries only the rows that changed since that client's last frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from core.terminal import (
    Cursor,
    Row,
    TerminalEmulator,
    TerminalEvent,
    TerminalEventKind,
    history_rows,
    row_text,
)
from idea_daemon.ports import Pty, PtySpawner, SpawnFailed

log = logging.getLogger(__name__)

READ_CHUNK = 8 * 1024
# Bytes parsed per readable event before yielding to the loop, so that a flooding cell
# cannot starve the others; the rest is read on the next turn. libghostty-vt parses 64 KiB
# in about a millisecond, and every turn costs a look at the screen's changed rows, so a
# turn takes that much when it can.
READ_BUDGET = 64 * 1024
# Nor longer than this (seconds): some output is slow to parse (pyte: ~5 ms per 8 KiB; a
# program retitling itself in a loop), and the loop's turns must stay short for every
# other cell and client (the watchdog's 50 ms).
READ_TIME_BUDGET = 0.006
# `capture --wait` patterns are matched against the screen at most this often (seconds),
# and once more after the last change: a flood must not cost a screen's text per read.
WAITER_INTERVAL = 0.01
# Beyond this many unsent input bytes (a huge paste into a stuck program) input is refused.
MAX_PENDING_INPUT = 16 * 1024 * 1024
# Output after this many quiet seconds counts as new activity (monitor-activity).
ACTIVITY_QUIET = 5.0

EmulatorFactory = Callable[[int, int], TerminalEmulator]


@dataclass(slots=True)
class SpawnSpec:
    argv: Sequence[str]
    cwd: str
    env: Mapping[str, str]
    nice: int = 0
    """Steps below the daemon's CPU priority (agents: config `agent_nice`)."""


@dataclass(slots=True)
class _Waiter:
    pattern: re.Pattern[str]
    future: asyncio.Future[str]


@dataclass(eq=False)
class TerminalSession:
    """One cell's live program. Create with `start`; `close` ends it."""

    id: str
    emulator: TerminalEmulator
    on_change: Callable[[TerminalSession], None]
    on_exit: Callable[[TerminalSession], None]
    on_event: Callable[[TerminalSession, TerminalEvent], None]
    pty: Pty | None = None
    spec: SpawnSpec | None = None
    exit_code: int | None = None
    error: str | None = None
    generations: list[int] = field(default_factory=list)
    counter: int = 0
    # Rows as last rendered for clients, with a version that changes only when the content
    # does: programs repaint rows with what they already showed (agent TUIs do, 10×/s), and
    # sending those again would cost every client a redraw for nothing.
    _rendered: list[Row | None] = field(default_factory=list)
    _rendered_gen: list[int] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    _version: int = 0
    # The screen as text, row by row, kept with the generation it was read at: the state
    # detector and the delivery check read the screen every few tens of milliseconds per
    # agent, and most rows did not change since the last look.
    _text: list[str] = field(default_factory=list)
    _text_gen: list[int] = field(default_factory=list)
    title: str = ""
    agent_id: str | None = None
    """The agent this session runs, or None for a shell."""
    agent_name: str = ""
    conversation_id: str | None = None
    profile_id: str | None = None
    work_branch: str | None = None
    """The branch of an agent's own worktree, when it runs in one (shown in its title)."""
    project_root: str | None = None
    context_changed: bool = False
    """The agent's shared knowledge moved since its context was composed: its cell offers
    "refresh context" (idea_daemon/orchestration/refresh.py)."""
    attention: str = ""
    """Why the cell wants the user: "bell", "notify: …", "activity", "silence" (or "")."""
    last_output: float = 0.0
    human_draft: bool = False
    """A person typed into the cell and has not submitted yet: a delegated task waits."""
    human_input_at: float = 0.0
    monitor_activity: bool = False
    """Flag output that starts after a quiet spell (tmux monitor-activity)."""
    monitor_silence: float = 0.0
    """Flag this many seconds without output after some output (0: off)."""
    _silence_armed: bool = False
    _pending: bytearray = field(default_factory=bytearray)
    _writer_armed: bool = False
    _reader_armed: bool = False
    _waiters: list[_Waiter] = field(default_factory=list)
    _waiter_check: asyncio.TimerHandle | None = None
    _waiters_checked: float = 0.0
    _output_waiters: list[asyncio.Future[None]] = field(default_factory=list)
    _loop: asyncio.AbstractEventLoop | None = None
    monotonic: Callable[[], float] = time.monotonic
    """The clock of activity and silence (a fake one in unit tests)."""
    short_turn: Callable[[str, float], bool] = lambda _session_id, _now: False
    """Whether this turn reads one chunk only (another cell's echo is due: the daemon's
    `echo_turns.EchoFirst`, through the frame sender); never, by default."""
    input_waiting: Callable[[], bool] = lambda: False
    """Whether a client's input waits to be read: a long reading turn ends at the next
    chunk (`echo_turns`); never, by default."""
    _front: str | None = None
    _front_read: float | None = None

    def __post_init__(self) -> None:
        self.generations = [0] * self.emulator.rows

    # --- lifecycle ------------------------------------------------------------------

    def start(
        self, spec: SpawnSpec, loop: asyncio.AbstractEventLoop, spawn: PtySpawner
    ) -> None:
        """Spawn the program; a failure is kept in `error` and shown in the cell."""
        self._loop = loop
        self.spec = spec
        self.exit_code = None
        self.error = None
        try:
            self.pty = spawn(
                spec.argv,
                cwd=spec.cwd,
                env=spec.env,
                cols=self.emulator.cols,
                rows=self.emulator.rows,
                nice=spec.nice,
            )
        except SpawnFailed as exc:
            log.warning("session %s: %s", self.id, exc)
            self.error = str(exc)
            self.pty = None
            self.on_exit(self)
            return
        loop.add_reader(self.pty.fd, self._on_readable)
        self._reader_armed = True

    @property
    def running(self) -> bool:
        return self.pty is not None and self.exit_code is None and self.error is None

    def close(self, *, kill: bool = True) -> None:
        """Stop reading, end the program (SIGHUP, then SIGKILL if it lingers)."""
        pty = self.pty
        if pty is None:
            return
        self._disarm()
        if kill and pty.poll() is None:
            pty.terminate()
            if self._loop is not None:
                self._loop.call_later(2.0, self._reap_hard, pty)
            else:
                pty.kill()
        else:
            pty.close()
        self.pty = None
        if self._waiter_check is not None:
            self._waiter_check.cancel()
            self._waiter_check = None
        for waiter in self._waiters:
            if not waiter.future.done():
                waiter.future.set_exception(ConnectionError("the cell was closed"))
        self._waiters.clear()
        self._wake_output_waiters()

    @staticmethod
    def _reap_hard(pty: Pty) -> None:
        if pty.poll() is None:
            pty.kill()
        pty.close()

    def _disarm(self) -> None:
        if self.pty is not None and self._loop is not None:
            if self._reader_armed:
                self._loop.remove_reader(self.pty.fd)
            if self._writer_armed:
                self._loop.remove_writer(self.pty.fd)
        self._reader_armed = self._writer_armed = False

    # --- output -----------------------------------------------------------------------

    def _on_readable(self) -> None:
        pty = self.pty
        if pty is None:
            return
        parsed = 0
        deadline = time.perf_counter() + READ_TIME_BUDGET
        # One chunk only while another cell's echo is due (see idea_daemon.echo_turns).
        budget = READ_CHUNK if self.short_turn(self.id, time.monotonic()) else READ_BUDGET
        waiting = self.input_waiting
        while parsed < budget and (
            parsed == 0 or (time.perf_counter() < deadline and not waiting())
        ):
            try:
                data = pty.read(READ_CHUNK)
            except OSError as exc:
                # Not an end of file the kernel reports as such: treat it as one rather
                # than raise from this callback on every turn of the loop.
                log.error("session %s: reading its PTY failed: %s", self.id, exc)
                data = b""
            if data is None:
                break
            if data == b"":
                self._on_eof()
                break
            parsed += len(data)
            self.emulator.feed(data)
        if parsed:
            try:
                self._after_feed()
            except Exception:
                # Listeners (redraws, attention, waits) must never stop this cell's reader.
                log.exception("session %s: handling output failed", self.id)

    def _after_feed(self) -> None:
        now = self.monotonic()
        self._note_activity(now)
        self.last_output = now
        self._silence_armed = self.monitor_silence > 0
        emulator = self.emulator
        replies = emulator.take_replies()
        if replies:
            self.write(replies)
        dirty = emulator.take_dirty()
        if dirty:
            self.counter += 1
            gens = self.generations
            for row in dirty:
                if 0 <= row < len(gens):
                    gens[row] = self.counter
        for event in emulator.take_events():
            if event.kind is TerminalEventKind.TITLE:
                self.title = event.text
            self.on_event(self, event)
        if self._waiters and dirty:
            # Only a changed screen can newly match (a title flood changes no row).
            self._schedule_waiter_check(now)
        self._wake_output_waiters()
        self.on_change(self)

    def next_output(self) -> asyncio.Future[None]:
        """A future resolved by the program's next output (or its exit): what the delivery
        of a task waits on instead of reading the screen every few milliseconds."""
        loop = self._loop or asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        if self.pty is None or self.exit_code is not None:
            waiter.set_result(None)
        else:
            self._output_waiters.append(waiter)
        return waiter

    def forget_output_waiter(self, waiter: asyncio.Future[None]) -> None:
        if waiter in self._output_waiters:
            self._output_waiters.remove(waiter)

    def _wake_output_waiters(self) -> None:
        waiters, self._output_waiters = self._output_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _note_activity(self, now: float) -> None:
        if (
            self.monitor_activity
            and not self.attention
            and now - self.last_output >= ACTIVITY_QUIET
        ):
            self.on_event(self, TerminalEvent(TerminalEventKind.ACTIVITY))

    def check_silence(self, now: float) -> None:
        """Called periodically: flag a cell that went quiet after output."""
        if self._silence_armed and now - self.last_output >= self.monitor_silence:
            self._silence_armed = False
            self.on_event(self, TerminalEvent(TerminalEventKind.SILENCE))

    def _on_eof(self) -> None:
        pty = self.pty
        if pty is None:
            return
        self._disarm()
        self._collect_exit(pty, attempts=0)

    def _collect_exit(self, pty: Pty, attempts: int) -> None:
        # The PTY reports EOF slightly before the child is reapable; poll briefly.
        code = pty.poll()
        if code is None and attempts < 100 and self._loop is not None:
            self._loop.call_later(0.02, self._collect_exit, pty, attempts + 1)
            return
        if code is None:
            pty.kill()
            code = -signal.SIGKILL
        pty.close()
        self.exit_code = code
        log.info("session %s exited with %s", self.id, code)
        self._wake_output_waiters()
        self.on_exit(self)

    # --- input ------------------------------------------------------------------------

    def write(self, data: bytes) -> bool:
        """Queue bytes for the program; False if they were refused (backlog too large)."""
        pty = self.pty
        if pty is None or not data:
            return pty is not None
        if len(self._pending) + len(data) > MAX_PENDING_INPUT:
            return False
        if self._pending:
            self._pending += data
            return True
        written = pty.write(data)
        if written < len(data):
            self._pending += data[written:]
            self._arm_writer()
        return True

    def _arm_writer(self) -> None:
        if not self._writer_armed and self.pty is not None and self._loop is not None:
            self._loop.add_writer(self.pty.fd, self._on_writable)
            self._writer_armed = True

    def _on_writable(self) -> None:
        pty = self.pty
        if pty is None:
            return
        written = pty.write(bytes(self._pending[:65536]))
        del self._pending[:written]
        if not self._pending and self._loop is not None:
            self._loop.remove_writer(pty.fd)
            self._writer_armed = False

    # --- geometry and queries ---------------------------------------------------------

    def resize(self, cols: int, rows: int) -> None:
        cols, rows = max(1, cols), max(1, rows)
        if (cols, rows) == (self.emulator.cols, self.emulator.rows):
            return
        self.emulator.resize(cols, rows)
        self.emulator.take_dirty()
        self.counter += 1
        self.generations = [self.counter] * rows
        if self.pty is not None:
            self.pty.resize(cols, rows)
        self.on_change(self)

    def cursor(self) -> Cursor:
        return self.emulator.cursor()

    def rendered_rows(self) -> tuple[list[int], list[Row | None]]:
        """Each row's content version and rendering, brought up to date (cheap when clean)."""
        gens = self.generations
        count = len(gens)
        if len(self._rendered) != count:
            self._rendered = [None] * count
            self._rendered_gen = [-1] * count
            self.versions = [0] * count
        rendered, rendered_gen, versions = self._rendered, self._rendered_gen, self.versions
        render_row = self.emulator.render_row
        for y in range(count):
            gen = gens[y]
            if gen == rendered_gen[y]:
                continue
            row = render_row(y)
            if row != rendered[y]:
                self._version += 1
                versions[y] = self._version
                rendered[y] = row
            rendered_gen[y] = gen
        return versions, rendered

    def screen_text(self, history: int = 0) -> list[str]:
        """The screen as text lines, with `history` scrollback lines above it.

        Trailing blanks are dropped, as `idea capture` prints lines: `$` in a wait pattern
        then matches at the end of the text, not at the last column.
        """
        emulator = self.emulator
        lines: list[str] = []
        if history > 0:
            size = emulator.history_size()
            start = max(0, size - history)
            lines.extend(row_text(row).rstrip()
                         for row in history_rows(emulator, start, size - start))
        lines.extend(self._screen_rows())
        return lines

    def _screen_rows(self) -> list[str]:
        emulator = self.emulator
        count = emulator.rows
        gens = self.generations
        if len(self._text) != count or len(gens) != count:
            self._text = [""] * count
            self._text_gen = [-1] * count
        text, text_gen = self._text, self._text_gen
        fresh = len(gens) == count
        for y in range(count):
            gen = gens[y] if fresh else -1
            if gen < 0 or gen != text_gen[y]:
                text[y] = emulator.row_text(y).rstrip()
                text_gen[y] = gen
        return list(text)

    def wait_for(self, pattern: re.Pattern[str]) -> asyncio.Future[str]:
        """A future resolved with the screen text once `pattern` matches it."""
        assert self._loop is not None
        future: asyncio.Future[str] = self._loop.create_future()
        text = "\n".join(self.screen_text())
        if pattern.search(text):
            future.set_result(text)
        else:
            waiter = _Waiter(pattern, future)
            self._waiters.append(waiter)
            # Cancelled (a timeout, the client gone) or resolved: it stops watching at once,
            # instead of running its pattern on every later read of the cell.
            future.add_done_callback(lambda _: self._drop_waiter(waiter))
        return future

    def _drop_waiter(self, waiter: _Waiter) -> None:
        with contextlib.suppress(ValueError):
            self._waiters.remove(waiter)

    @property
    def waiting(self) -> int:
        """How many `wait_for` futures still watch this cell."""
        return len(self._waiters)

    def _schedule_waiter_check(self, now: float) -> None:
        if self._waiter_check is not None:
            return  # a check is due already: it will see this change too
        wait = self._waiters_checked + WAITER_INTERVAL - now
        if wait <= 0 or self._loop is None:
            self._check_waiters()
        else:
            self._waiter_check = self._loop.call_later(wait, self._check_waiters)

    def _check_waiters(self) -> None:
        self._waiter_check = None
        self._waiters_checked = self.monotonic()
        if not self._waiters:
            return
        text = "\n".join(self.screen_text())
        remaining = []
        for waiter in self._waiters:
            if waiter.future.done():
                continue
            if waiter.pattern.search(text):
                waiter.future.set_result(text)
            else:
                remaining.append(waiter)
        self._waiters = remaining

    def foreground(self, max_age: float) -> str | None:
        """The program in front, as last read from /proc if that is under `max_age`
        seconds old. Scenes are built often (every layout edit); the foreground poll
        refreshes this once a second (`max_age=0`), so a scene never reads /proc itself
        for a cell it read recently."""
        if self.pty is None:
            return None
        now = time.monotonic()
        if self._front_read is None or now - self._front_read >= max_age:
            self._front = self.pty.foreground_command()
            self._front_read = now
        return self._front

    def note_human_input(self, data: bytes) -> None:
        """Keys from a person (a client, send-keys, paste): track a half-typed draft, which a
        delegated task must never be merged into (DLG, D4)."""
        self.human_input_at = self.monotonic()
        last_submit = max(data.rfind(b"\r"), data.rfind(b"\n"), data.rfind(b"\x03"),
                          data.rfind(b"\x15"))
        # A submit, Ctrl-C or Ctrl-U ends the draft; anything typed after it starts one.
        self.human_draft = len(data) - 1 > last_submit if last_submit >= 0 else bool(data)

    def busy_command(self) -> str | None:
        """The program a user would lose by closing this cell, if any.

        A shell at its prompt is not busy; an agent CLI always is while it runs.
        """
        if self.pty is None or not self.running:
            return None
        if self.agent_id is not None:
            return f"agent {self.agent_name or self.agent_id[:8]}"
        return self.pty.foreground_command()
