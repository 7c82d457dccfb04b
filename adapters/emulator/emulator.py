"""`PyteEmulator`: the `core.terminal.TerminalEmulator` port implemented with pyte.

The daemon builds one per terminal cell (through the composition root), feeds it PTY bytes,
writes `take_replies()` back to the PTY, and sends `take_dirty()` rows rendered with
`render_row` to clients. Everything here is synchronous and bounded: `feed` never raises and
never blocks on anything but the bytes it is given.
"""

from __future__ import annotations

import codecs
import logging
import time
from collections.abc import Callable

from pyte import modes as mo

from adapters.emulator.grid import Line
from adapters.emulator.rows import expand_history, render_line
from adapters.emulator.screen import IdeaScreen
from adapters.emulator.stream import IdeaStream
from core.terminal import Cursor, Row, TerminalEvent, TerminalModes, row_text

_log = logging.getLogger(__name__)
_APP_CURSOR = 1 << 5
_BRACKETED_PASTE = 2004 << 5
_MOUSE_SGR = 1006 << 5
_FOCUS = 1004 << 5


class PyteEmulator:
    """A terminal screen for one cell: pyte's model made fast, fixed and bounded.

    Args:
        cols: Screen width in cells (at least 1).
        rows: Screen height in lines (at least 1).
        scrollback_lines: Lines kept after they scroll off the top of the main screen.
        clock: Monotonic time source in seconds; tests pass a fake to drive the
            synchronized-output time box.
        sync_timeout: Seconds after which a synchronized update (mode 2026) that was never
            closed stops counting as open, as terminals do.
    """

    def __init__(
        self,
        cols: int,
        rows: int,
        scrollback_lines: int = 10_000,
        *,
        clock: Callable[[], float] = time.monotonic,
        sync_timeout: float = 0.5,
    ) -> None:
        self._screen = IdeaScreen(cols, rows, scrollback_lines, clock, sync_timeout)
        self._stream = IdeaStream(self._screen)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._internal_errors = 0

    # -- the port -----------------------------------------------------------------------

    @property
    def cols(self) -> int:
        return self._screen.columns

    @property
    def rows(self) -> int:
        return self._screen.lines

    @property
    def title(self) -> str:
        return self._screen.title

    @property
    def cwd(self) -> str | None:
        return self._screen.cwd

    @property
    def modes(self) -> TerminalModes:
        screen = self._screen
        mode = screen.mode
        return TerminalModes(
            app_cursor=_APP_CURSOR in mode,
            app_keypad=screen.app_keypad,
            bracketed_paste=_BRACKETED_PASTE in mode,
            mouse=screen.mouse,
            mouse_sgr=_MOUSE_SGR in mode,
            focus_events=_FOCUS in mode,
            alt_screen=screen.alt_active,
        )

    @property
    def synchronized(self) -> bool:
        return self._screen.sync_active()

    def feed(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        if not text:
            return
        try:
            self._stream.feed(text)
            self._stream.flush_title()
        except Exception:
            # A bug must not take down the loop serving every other cell: count it, log it,
            # and continue from a clean parser state. Tests assert the count stays 0.
            self._internal_errors += 1
            _log.exception("terminal emulator failed on %d bytes", len(data))
            self._stream.reset()
            self._repair()

    def resize(self, cols: int, rows: int) -> None:
        self._screen.resize(lines=max(rows, 1), columns=max(cols, 1))

    def take_dirty(self) -> set[int]:
        screen = self._screen
        if screen.all_dirty:
            screen.all_dirty = False
            screen.dirty.clear()
            return set(range(screen.lines))
        dirty = {y for y in screen.dirty if y < screen.lines}
        screen.dirty.clear()
        return dirty

    def take_replies(self) -> bytes:
        screen = self._screen
        if not screen.replies:
            return b""
        data = "".join(screen.replies).encode()
        screen.replies.clear()
        screen.reply_chars = 0
        return data

    def take_events(self) -> list[TerminalEvent]:
        events = self._screen.events
        self._screen.events = []
        return events

    def render_row(self, y: int) -> Row:
        screen = self._screen
        row = render_line(screen.grid[y], screen.table, screen.reverse_video)
        # Only a screen that has links alive pays for looking at its runs' link bits.
        return screen.links.resolve(row) if screen.links.ids else row

    def row_text(self, y: int) -> str:
        return row_text(self.render_row(y))

    def cursor(self) -> Cursor:
        screen = self._screen
        cursor = screen.cursor
        return Cursor(
            x=min(cursor.x, screen.columns - 1),
            y=cursor.y,
            visible=mo.DECTCEM in screen.mode,
            shape=screen.cursor_shape,
            blink=screen.cursor_blink,
        )

    def history_size(self) -> int:
        return len(self._screen.history)

    def render_history(self, start: int, count: int) -> list[Row]:
        history = self._screen.history
        start = max(start, 0)
        stop = min(start + max(count, 0), len(history))
        screen = self._screen
        cols = screen.columns
        rows = [expand_history(history[index], screen.table, cols) for index in range(start, stop)]
        return [screen.links.resolve(row) for row in rows] if screen.links.ids else rows

    # -- beyond the port ----------------------------------------------------------------

    def compact_step(self) -> bool:
        """Pack one block of older history lines (`packed_history`)."""
        return self._screen.history.pack_step()

    @property
    def internal_errors(self) -> int:
        """How many `feed` calls hit a bug and were recovered from (should stay 0)."""
        return self._internal_errors

    @property
    def screen(self) -> IdeaScreen:
        """The pyte screen, for tests and diagnostics."""
        return self._screen

    def display(self) -> list[str]:
        """Screen text per line, trailing blanks kept (wide characters appear once)."""
        return self._screen.display

    def _repair(self) -> None:
        screen = self._screen
        cols, lines = screen.columns, screen.lines
        if len(screen.grid) != lines or any(
            len(line.chars) != cols or len(line.styles) != 2 * cols for line in screen.grid
        ):
            screen.grid = [line.resized(cols) for line in screen.grid[:lines]]
            while len(screen.grid) < lines:
                screen.grid.append(Line.blank(cols))
        screen.cursor.x = min(max(screen.cursor.x, 0), cols)
        screen.cursor.y = min(max(screen.cursor.y, 0), lines - 1)
        screen.all_dirty = True
