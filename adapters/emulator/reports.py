"""Replies to the program, events for idea, and the synchronized-output time box.

`ReportingScreen` answers DA1/DA2, DSR/CPR, DECRQM and `CSI 18 t` into `replies` (the daemon
writes them to the PTY through `PyteEmulator.take_replies`; codex stalls without its cursor
position report), and queues BEL/TITLE and the OSC events in `events`. Both are bounded, so
a program spamming queries or bells while nobody drains them cannot grow memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pyte import modes as mo

from adapters.emulator.bounds import MAX_REPLY_CHARS, queue_event
from adapters.emulator.styling import StyledScreen
from core.safe_text import MAX_TITLE, clean
from core.terminal import TerminalEvent, TerminalEventKind

# Private modes DECRQM reports on (others answer "not recognised").
_KNOWN_PRIVATE = frozenset(
    {
        1,
        5,
        6,
        7,
        12,
        25,
        47,
        66,
        1000,
        1002,
        1003,
        1004,
        1005,
        1006,
        1015,
        1047,
        1049,
        2004,
        2026,
        9,
    }
)
_KNOWN_ANSI = frozenset({4, 20})

class ReportingScreen(StyledScreen):
    """Replies, events and mode 2026's time box."""

    def __init__(
        self,
        columns: int,
        lines: int,
        history: int,
        clock: Callable[[], float] = time.monotonic,
        sync_timeout: float = 0.5,
    ) -> None:
        self.clock = clock
        self.sync_timeout = sync_timeout
        self.sync_since: float | None = None
        self.replies: list[str] = []
        self.reply_chars = 0
        self.events: list[TerminalEvent] = []
        super().__init__(columns, lines, history)

    def sync_active(self) -> bool:
        """Mode 2026, closed by force once it has been open longer than `sync_timeout`."""
        if self.sync_since is None:
            return False
        if self.clock() - self.sync_since >= self.sync_timeout:
            self.sync_since = None
            self.mode.discard(2026 << 5)
            return False
        return True

    def write_process_input(self, data: str) -> None:
        if self.reply_chars + len(data) <= MAX_REPLY_CHARS:
            self.replies.append(data)
            self.reply_chars += len(data)

    def report_device_attributes(self, mode: int = 0, **kwargs: bool) -> None:
        """DA1 (`CSI c`) and, with `secondary=True`, DA2 (`CSI > c`), answered as tmux does."""
        if mode != 0:
            return
        if kwargs.get("secondary"):
            self.write_process_input("\x1b[>84;0;0c")
        elif not kwargs.get("private"):
            self.write_process_input("\x1b[?1;2c")

    def report_device_status(self, mode: int, private: bool = False) -> None:
        """DSR 5 (status) and 6 (CPR, `CSI ? 6 n` for the DEC form)."""
        if mode == 5:
            self.write_process_input("\x1b[0n")
        elif mode == 6:
            y = self.cursor.y + 1
            if self.margins is not None and mo.DECOM in self.mode:
                y -= self.margins.top
            x = min(self.cursor.x, self.columns - 1) + 1
            self.write_process_input(f"\x1b[{'?' if private else ''}{y};{x}R")

    def report_mode(self, code: int, private: bool) -> None:
        """DECRQM (`CSI ? n $ p` / `CSI n $ p`): 1 set, 2 reset, 0 unknown."""
        if private:
            status = 1 if (code << 5) in self.mode else 2 if code in _KNOWN_PRIVATE else 0
            if code == 2026:
                status = 1 if self.sync_active() else 2
        else:
            status = 1 if code in self.mode else 2 if code in _KNOWN_ANSI else 0
        self.write_process_input(f"\x1b[{'?' if private else ''}{code};{status}$y")

    def window_op(self, code: int) -> None:
        """XTWINOPS: only `CSI 18 t` (text area size in characters) is answered."""
        if code == 18:
            self.write_process_input(f"\x1b[8;{self.lines};{self.columns}t")

    def add_event(self, event: TerminalEvent) -> None:
        queue_event(self.events, event)

    def bell(self, *args: Any) -> None:
        self.add_event(TerminalEvent(TerminalEventKind.BELL))

    def set_title(self, param: str) -> None:
        title = clean(param, MAX_TITLE)  # see adapters.emulator.osc
        self.title = title
        self.add_event(TerminalEvent(TerminalEventKind.TITLE, title))
