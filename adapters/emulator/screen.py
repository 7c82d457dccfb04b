"""`IdeaScreen`: the project's pyte screen (DECISIONS D2), the top of its layers.

On top of `ReportingScreen` (replies, events), `StyledScreen` (SGR, styles) and
`CanvasScreen` (cells): modes acted upon (alternate screen 47/1047/1049, autowrap, insert,
origin, mouse, bracketed paste, focus, synchronized output, cursor shape), cursor
save/restore (one DECSC slot plus the one 1049 uses, as tmux keeps them; pyte has a stack),
resize that keeps content the way tmux does, RIS/DECSTR, DECALN and REP. `PyteEmulator` owns
one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyte import modes as mo
from pyte.screens import Cursor, Margins

from adapters.emulator.grid import DEFAULT_KEY, Line
from adapters.emulator.reflow import reflow
from adapters.emulator.reports import ReportingScreen
from adapters.emulator.rows import compact_line, line_from_history, unwrapped
from adapters.emulator.styles import DEFAULT_STYLE, Style
from core.terminal import CursorShape, MouseMode

_MOUSE = (9, 1000, 1002, 1003)
_SHAPES = {
    0: (CursorShape.DEFAULT, True),
    1: (CursorShape.BLOCK, True),
    2: (CursorShape.BLOCK, False),
    3: (CursorShape.UNDERLINE, True),
    4: (CursorShape.UNDERLINE, False),
    5: (CursorShape.BAR, True),
    6: (CursorShape.BAR, False),
}


@dataclass(slots=True)
class _Saved:
    x: int
    y: int
    style: Style
    origin: bool
    g0: bool
    g1: bool
    shifted: bool


class IdeaScreen(ReportingScreen):
    """pyte screen with fixed editing, alternate screen, scrollback, modes and replies."""

    def __init__(
        self,
        columns: int,
        lines: int,
        history: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
        sync_timeout: float = 0.5,
    ) -> None:
        self.cwd: str | None = None
        self.title = ""
        self.icon_name = ""
        # DECSC/DECRC slot, and the separate slot 1049 uses (as tmux keeps them).
        self.saved: _Saved | None = None
        self.alt_saved: tuple[int, int, Style] | None = None
        self._init_modes()
        super().__init__(max(columns, 1), max(lines, 1), history, clock, sync_timeout)

    def _init_modes(self) -> None:
        self.app_keypad = False
        self.mouse = MouseMode.OFF
        self.sync_since: float | None = None
        self.reverse_video = False
        self.cursor_shape = CursorShape.DEFAULT
        self.cursor_blink = True

    # -- reset --------------------------------------------------------------------------

    def reset(self) -> None:
        """RIS (`ESC c`): back to power-on state; scrollback, title and cwd are kept."""
        self.alt_active = False
        self.main_grid = None
        self.grid = [Line.blank(self.columns) for _ in range(self.lines)]
        self.all_dirty = True
        self.margins = None
        self.mode = {mo.DECAWM, mo.DECTCEM}
        self.charset = 0
        self.g0_graphics = self.g1_graphics = False
        self.charset_map = None
        self.default_tabs()
        self.cursor = Cursor(0, 0)
        self.set_link(None)
        self._set_style(DEFAULT_STYLE)
        self.autowrap = True
        self.insert_mode = False
        self.update_plain()
        self.saved = None
        self.alt_saved = None
        self._init_modes()

    def soft_reset(self) -> None:
        """DECSTR (`CSI ! p`)."""
        self.insert_mode = False
        self.autowrap = True
        self.update_plain()
        self.mode -= {mo.IRM, mo.DECOM, 1 << 5}
        self.mode |= {mo.DECAWM, mo.DECTCEM}
        self.cursor.hidden = False
        self.app_keypad = False
        self.margins = None
        self._set_style(self.linked(DEFAULT_STYLE))  # the link stays open (xterm, Ghostty)
        self.saved = None

    # -- whole-screen and repeat ------------------------------------------------------

    def alignment_display(self) -> None:
        """DECALN (`ESC # 8`): fill the screen with `E`, reset margins, home the cursor."""
        cols = self.columns
        self.grid = [Line(["E"] * cols, bytearray(DEFAULT_KEY * cols)) for _ in range(self.lines)]
        for line in self.grid:
            line.written = cols
        self.margins = None
        self.cursor.x = self.cursor.y = 0
        self.all_dirty = True

    def repeat_last(self, count: int) -> None:
        """REP (`CSI n b`): ncurses uses it for runs of one character with TERM=xterm-256color.

        As tmux does: only straight after printed ASCII text (`after_text`, set by the
        stream), never past the end of the line; `last_char` is the last character drawn.
        """
        char = self.last_char
        count = min(count, self.columns - self.cursor.x)
        if self.after_text and count > 0 and char.isascii():
            self.draw(char * count)

    # -- modes --------------------------------------------------------------------------

    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        for code in modes:
            self._switch(code, bool(kwargs.get("private")), True)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        for code in modes:
            self._switch(code, bool(kwargs.get("private")), False)

    def _switch(self, code: int, private: bool, on: bool) -> None:
        key = code << 5 if private else code
        if on:
            self.mode.add(key)
        else:
            self.mode.discard(key)
        if not private:
            if code == 4:
                self.insert_mode = on
                self.update_plain()
            return
        if code == 7:
            self.autowrap = on
            self.update_plain()
        elif code == 25:
            self.cursor.hidden = not on
        elif code == 6:
            self.cursor_position()
        elif code == 5:
            self.reverse_video = on
            self.all_dirty = True
        elif code in _MOUSE:
            self.mode -= {mode << 5 for mode in _MOUSE if mode != code or not on}
            self.mouse = MouseMode(code) if on else MouseMode.OFF
        elif code == 2026:
            self.sync_since = self.clock() if on else None
        elif code == 66:
            self.app_keypad = on
        elif code in (47, 1047):
            self._alternate(on, code)
        elif code == 1049:
            if on and not self.alt_active:
                self.alt_saved = (self.cursor.x, self.cursor.y, self.style)
            self._alternate(on, code, restore=not on)
        elif code == 1048:
            if on:
                self.save_cursor()
            else:
                self.restore_cursor()
        elif code == 3:
            self.mode.discard(key)  # DECCOLM: the PTY size is ours to set, never 132 columns

    def _alternate(self, on: bool, code: int, restore: bool = False) -> None:
        """Enter or leave the alternate screen; `restore`: put back the cursor 1049 saved
        (even when not on the alternate screen, as tmux does).

        The main screen keeps the size it had while the alternate one is shown; on return
        it is resized once to the current size (re-wrapped, cursor followed), as tmux does.
        """
        if not on:
            # Leaving, even when not on the alternate screen, ends a pending wrap (tmux).
            self.cursor.x = min(self.cursor.x, self.columns - 1)
        if on == self.alt_active:
            if restore:
                self._restore_alt_cursor()
            return  # entering again, or leaving while not on it, changes nothing else
        self.mode -= {47 << 5, 1047 << 5, 1049 << 5}
        self.all_dirty = True
        self.set_link(None)  # each screen has its own cursor, which has no link yet (Ghostty)
        if on:
            # The alternate screen starts blank every time, as in tmux; clearing it ends the
            # text the last history line continued (tmux's grid does the same).
            if self.history:
                self.history[-1] = unwrapped(self.history[-1])
            self.main_grid = self.grid
            self.main_size = (self.columns, self.lines)
            self.grid = [Line.blank(self.columns) for _ in range(self.lines)]
            self.alt_active = True
            self.mode.add(code << 5)
            return
        size = (self.columns, self.lines)
        main_size = self.main_size if self.main_grid is not None else size
        self.grid = self.main_grid or [Line.blank(self.columns) for _ in range(self.lines)]
        self.main_grid = None
        self.alt_active = False
        self.columns, self.lines = main_size
        if restore:
            self._restore_alt_cursor()
        self.cursor.y = min(self.cursor.y, self.lines - 1)
        if main_size != size:
            self.resize(lines=size[1], columns=size[0])

    def _restore_alt_cursor(self) -> None:
        if self.alt_saved is not None:
            x, y, style = self.alt_saved
            self.cursor.x = min(x, self.columns - 1)
            self.cursor.y = min(y, self.lines - 1)
            self._set_style(self.linked(style))

    def set_cursor_style(self, code: int) -> None:
        """DECSCUSR (`CSI n SP q`)."""
        self.cursor_shape, self.cursor_blink = _SHAPES.get(code, _SHAPES[0])

    def set_margins(self, top: int | None = None, bottom: int | None = None) -> None:
        top_row = max((top or 1) - 1, 0)
        bottom_row = min((bottom or self.lines) - 1, self.lines - 1)
        if bottom_row - top_row < 1:
            return  # xterm ignores a region of fewer than two lines
        if top_row == 0 and bottom_row == self.lines - 1:
            self.margins = None
        else:
            self.margins = Margins(top_row, bottom_row)
        self.cursor_position()

    # -- cursor save/restore ------------------------------------------------------------

    def saved_styles(self) -> list[Style]:
        styles = [self.saved.style] if self.saved is not None else []
        return styles + ([self.alt_saved[2]] if self.alt_saved is not None else [])

    def save_cursor(self) -> None:
        cursor = self.cursor
        self.saved = _Saved(
            cursor.x,
            cursor.y,
            self.style,
            mo.DECOM in self.mode,
            self.g0_graphics,
            self.g1_graphics,
            bool(self.charset),
        )

    def restore_cursor(self) -> None:
        saved = self.saved
        if saved is None:
            self.mode.discard(mo.DECOM)
            self.cursor.x = self.cursor.y = 0
            self._set_style(self.linked(DEFAULT_STYLE))
            return
        self.cursor.x = min(saved.x, self.columns - 1)
        self.cursor.y = min(saved.y, self.lines - 1)
        # The link open now stays open: a saved cursor does not hold one (xterm, Ghostty).
        self._set_style(self.linked(saved.style))
        self.mode.discard(mo.DECOM)
        if saved.origin:
            self.mode.add(mo.DECOM)
        self.g0_graphics, self.g1_graphics = saved.g0, saved.g1
        self.charset = int(saved.shifted)
        self._update_charset()

    # -- resize -------------------------------------------------------------------------

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """Resize keeping content as tmux does: height first (`_fit_rows`), then the width,
        re-wrapping the main screen and its history (`reflow`); the alternate screen is cut
        or padded, programs redraw it."""
        lines = max(lines or self.lines, 1)
        columns = max(columns or self.columns, 1)
        if lines == self.lines and columns == self.columns:
            return
        if lines != self.lines:
            self.grid, self.cursor.y = self._fit_rows(self.grid, self.cursor.y, lines,
                                                      not self.alt_active)
            self.lines = lines
        if columns != self.columns:
            self._rewrap(columns)
            old = self.columns
            self.tabstops = {stop for stop in self.tabstops if stop < columns}
            self.tabstops.update(range(((old + 7) // 8) * 8, columns, 8))
            self.stops = sorted(self.tabstops)
            self.columns = columns
        # A cursor at the pending-wrap position (just past a full line) stays there when
        # the line it ends still ends at the last column, as in tmux.
        self.cursor.x = min(self.cursor.x, columns)
        self.cursor.y = min(self.cursor.y, lines - 1)
        self.margins = None
        self.all_dirty = True

    def _rewrap(self, columns: int) -> None:
        old = self.columns
        if self.alt_active:
            # Programs redraw the alternate screen; the main one waits for the return.
            self.grid = [line.resized(columns) for line in self.grid]
            self.cursor.x = min(self.cursor.x, columns - 1)
            return
        cursor = self.cursor
        self.grid, (cursor.x, cursor.y) = reflow(self.history, self.grid, (cursor.x, cursor.y),
                                                 old, columns, self.lines)
        self.scrolled = min(self.scrolled, len(self.history))

    def _fit_rows(self, grid: list[Line], y: int, lines: int, main: bool) -> tuple[list[Line], int]:
        """Shrink: drop blank lines below the cursor, then push top lines to history (main
        screen), then cut from the bottom. Grow: pull lines back from history, then pad."""
        grid = list(grid)
        cols = self.columns
        if lines < len(grid):
            excess = len(grid) - lines
            while excess and len(grid) - 1 > y and not grid[-1].used():
                grid.pop()
                excess -= 1
            top = min(excess, y)
            if main and self.history.maxlen:
                self.history.extend(map(compact_line, grid[:top]))
                self.scrolled += top
            del grid[:top]
            y -= top
            excess -= top
            if excess:
                del grid[len(grid) - excess :]
        elif lines > len(grid):
            more = lines - len(grid)
            if main:
                pulled: list[Line] = []
                self.scrolled = min(self.scrolled, len(self.history))
                while more and self.scrolled:
                    pulled.append(line_from_history(self.history.pop(), cols))
                    self.scrolled -= 1
                    more -= 1
                pulled.reverse()
                grid[:0] = pulled
                y += len(pulled)
            grid.extend(Line.blank(cols) for _ in range(more))
        return grid, y

    @property
    def display(self) -> list[str]:
        """Screen text per line (wide characters once, trailing blanks kept)."""
        return ["".join(line.chars) for line in self.grid]
