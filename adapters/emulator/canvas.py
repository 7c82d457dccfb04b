"""The cell grid of a pyte screen, rebuilt for speed and correctness.

`CanvasScreen` keeps pyte's `Screen` interface (method names, `cursor`, `margins`, `mode`,
`dirty`, `columns`/`lines`) but replaces its storage: pyte keeps a dict of `Char` namedtuples per
line and calls `_replace` per drawn character; here a line is a list of cell strings and a
bytearray of style ids (see `grid.Line`), and drawing a run of narrow characters is two slice
assignments. It also fixes pyte's editing bugs
(`insert_lines`/`delete_lines` with counts ≥ 2, cursor moves outside the scroll region, erase
taking every attribute instead of the background only).

Invariant kept by every method: `cursor.x` is in `[0, columns]`, where `columns` means "a
character was written in the last column and the next one wraps" (as in pyte and xterm).
"""

from __future__ import annotations

from typing import Any

from pyte import modes as mo

from adapters.emulator.cursor import CursorScreen
from adapters.emulator.grid import DEFAULT_KEY, MAX_CELL_CHARS, NARROW, Line, char_width
from adapters.emulator.packed_history import PackedHistory
from adapters.emulator.rows import compact_line, unwrapped


class CanvasScreen(CursorScreen):
    """Grid storage, drawing, scrolling and editing; modes and state live in `IdeaScreen`."""

    def __init__(self, columns: int, lines: int, history: int) -> None:
        self.grid: list[Line] = []
        # Style ids of the current SGR state and of erased cells (current background only:
        # xterm's BCE, as tmux does); `IdeaScreen.sgr` keeps them in step.
        self.key = DEFAULT_KEY
        self.blank = DEFAULT_KEY
        self.history = PackedHistory(history)
        # How many of the newest history lines got there by scrolling, so that a taller
        # screen may pull them back (tmux's `hscrolled`); lines a clear pushed stay there.
        self.scrolled = 0
        self.all_dirty = True
        self.autowrap = True
        self.insert_mode = False
        self.alt_active = False
        self.charset_map: dict[int, str] | None = None
        self.plain = True  # see `update_plain`
        self.scroll_on_clear = True
        self.after_text = False  # the CSI being run came straight after text (REP)
        self.last_char = " "
        self.stops = []
        # The main screen's lines while the alternate screen shows (see `IdeaScreen`).
        self.main_grid: list[Line] | None = None
        self.main_size = (columns, lines)  # (columns, lines) of `main_grid`
        super().__init__(columns, lines)

    # -- drawing ------------------------------------------------------------------------

    def update_plain(self) -> None:
        """Whether `draw` may take its fast path: autowrap on, no insert mode, no DEC graphics."""
        self.plain = self.autowrap and not self.insert_mode and self.charset_map is None

    def draw(self, data: str) -> None:
        """Write printable text at the cursor (the stream never passes control characters)."""
        cursor = self.cursor
        x = cursor.x
        end = x + len(data)
        if end <= self.columns and self.plain and (data.isascii() or NARROW.issuperset(data)):
            # Fast path, most calls: one-cell characters that fit on the current line.
            line = self.grid[cursor.y]
            chars = line.chars
            if chars[x] == "":
                line.split_guard(x)
            if end < self.columns and chars[end] == "":
                line.split_guard(end)
            chars[x:end] = list(data)  # a list assigns faster than a str here
            line.view[2 * x : 2 * end] = self.key * len(data)
            if end > line.written:
                line.written = end
            self.dirty.add(cursor.y)
            cursor.x = end
            self.last_char = data[-1]
            return
        if self.charset_map is not None:
            data = data.translate(self.charset_map)
        if data.isascii() or NARROW.issuperset(data):
            self._draw_narrow(data)
        else:
            self._draw_mixed(data)
        self.last_char = data[-1]

    def _draw_narrow(self, text: str) -> None:
        cols = self.columns
        cursor = self.cursor
        x = cursor.x
        y = cursor.y
        key = self.key
        total = len(text)
        pos = 0
        while pos < total:
            if x >= cols:
                if not self.autowrap:
                    # Without autowrap xterm overwrites the last column with each character.
                    line = self.grid[y]
                    line.split_guard(cols - 1)
                    line.chars[cols - 1] = text[-1]
                    line.view[2 * cols - 2 :] = key
                    line.written = cols
                    self.dirty.add(y)
                    break
                self.grid[y].wrapped = True
                cursor.y = y
                self._wrap_index()
                y = cursor.y
                x = 0
            count = total - pos
            if count > cols - x:
                count = cols - x
            line = self.grid[y]
            if self.insert_mode:
                self._shift_right(line, x, count)
            chars = line.chars
            end = x + count
            line.split_guard(x)
            line.split_guard(end)
            chars[x:end] = list(text if count == total else text[pos : pos + count])
            line.view[2 * x : 2 * end] = key * count
            if end > line.written:
                line.written = end
            self.dirty.add(y)
            x = end
            pos += count
        # Without autowrap the cursor stays on the last column (no pending wrap).
        cursor.x = x if self.autowrap else min(x, cols - 1)
        cursor.y = y

    def _draw_mixed(self, text: str) -> None:
        # Widths are per code point (wcwidth), the way clients measure runs: a ZWJ emoji
        # sequence takes the cells of its parts (tmux 3.3 joins them; the client would then
        # misplace the rest of the row).
        start = 0
        for index, char in enumerate(text):
            width = char_width(char)
            if width == 1:
                continue
            if index > start:
                self._draw_narrow(text[start:index])
            start = index + 1
            if width == 2:
                self._draw_wide(char)
            elif width == 0:
                self._combine(char)
        if start < len(text):
            self._draw_narrow(text[start:])

    def _draw_wide(self, char: str) -> None:
        cols = self.columns
        cursor = self.cursor
        if cols < 2:
            return
        if cursor.x >= cols - 1:
            if not self.autowrap:
                return
            # A wide character that does not fit wraps whole, as in xterm and tmux.
            self.grid[cursor.y].wrapped = True
            cursor.x = 0
            self._wrap_index()
        x = cursor.x
        line = self.grid[cursor.y]
        if self.insert_mode:
            self._shift_right(line, x, 2)
        line.split_guard(x)
        line.split_guard(x + 2)
        line.chars[x] = char
        line.chars[x + 1] = ""
        line.view[2 * x : 2 * x + 4] = self.key * 2
        line.wide = True
        if x + 2 > line.written:
            line.written = x + 2
        self.dirty.add(cursor.y)
        cursor.x = x + 2

    def _combine(self, char: str) -> None:
        """Append a zero-width character to the cell left of the cursor."""
        x = min(self.cursor.x, self.columns)
        if x == 0:
            return  # nothing to the left to combine with: dropped, as xterm does
        line = self.grid[self.cursor.y]
        chars = line.chars
        target = x - 1
        if chars[target] == "" and target > 0:
            target -= 1
        if len(chars[target]) < MAX_CELL_CHARS:
            chars[target] += char
            line.wide = True
            self.dirty.add(self.cursor.y)

    # -- scrolling ------------------------------------------------------------------------

    def scroll_up(self, top: int, bottom: int, count: int, fill: bytes | None = None) -> None:
        """Move lines `[top, bottom]` up by `count`; lines leaving the screen go to history."""
        count = min(count, bottom - top + 1)
        grid = self.grid
        full = top == 0 and bottom == self.lines - 1
        # Lines leaving the top of the screen are kept, as in xterm: also when a region with
        # its top at line 0 scrolls (a program keeping a status line at the bottom), never
        # from the alternate screen or from a region lower down.
        if top == 0 and not self.alt_active and self.history.maxlen:
            push = self.history.append
            for line in grid[:count]:
                push(compact_line(line))
            self.scrolled += count
        moved = grid[top : top + count]
        del grid[top : top + count]
        cols = self.columns
        blank_styles = (self.blank if fill is None else fill) * cols
        for line in moved:
            line.chars = [" "] * cols
            line.view[:] = blank_styles
            line.wide = line.wrapped = False
            line.written = 0
        grid[bottom - count + 1 : bottom - count + 1] = moved
        if full:
            self.all_dirty = True
        else:
            if top:  # a region at the top keeps feeding the history, text continuing
                self._unwrap_above(top)
            self._unwrap_above(bottom - count + 1)
            self.dirty.update(range(top, bottom + 1))

    def scroll_down(self, top: int, bottom: int, count: int) -> None:
        count = min(count, bottom - top + 1)
        grid = self.grid
        grid[top].wrapped = False  # the first line moved down ends its text (tmux)
        del grid[bottom - count + 1 : bottom + 1]
        grid[top:top] = [Line.blank(self.columns, self.blank) for _ in range(count)]
        self._unwrap_above(top)
        self.dirty.update(range(top, bottom + 1))

    def _unwrap_above(self, y: int) -> None:
        """The line above row `y` no longer continues onto it: lines were cleared, inserted
        or moved there (as tmux's grid does, so that reflow never joins unrelated text).
        Above row 0 is the newest history line."""
        if y > 0:
            self.grid[y - 1].wrapped = False
        elif self.history and not self.alt_active:
            self.history[-1] = unwrapped(self.history[-1])

    def index(self, fill: bytes | None = None) -> None:
        y = self.cursor.y
        top, bottom = self.region()
        if y == bottom:
            self.scroll_up(top, bottom, 1, fill)
        elif y < self.lines - 1:
            self.cursor.y = y + 1

    def _wrap_index(self) -> None:
        # A line opened by autowrap starts in the default colours, as tmux does (an explicit
        # line feed fills it with the current background).
        self.index(DEFAULT_KEY)

    def reverse_index(self) -> None:
        y = self.cursor.y
        top, bottom = self.region()
        if y == top:
            self.scroll_down(top, bottom, 1)
        elif y > 0:
            self.cursor.y = y - 1

    def backspace(self) -> None:
        cursor = self.cursor
        if cursor.x == 0 and cursor.y > 0 and self.grid[cursor.y - 1].wrapped:
            # Back onto the line the text wrapped from, as tmux does.
            cursor.x = self.columns - 1
            cursor.y -= 1
        else:
            self.cursor_back(1)

    def linefeed(self) -> None:
        self.index()
        if mo.LNM in self.mode:
            self.cursor.x = 0

    def crlf(self) -> None:
        self.cursor.x = 0
        self.index()

    def scroll_lines_up(self, count: int) -> None:
        """SU (`CSI n S`)."""
        top, bottom = self.region()
        self.scroll_up(top, bottom, count)

    def scroll_lines_down(self, count: int) -> None:
        """SD (`CSI n T`)."""
        top, bottom = self.region()
        self.scroll_down(top, bottom, count)

    # -- editing --------------------------------------------------------------------------

    def _shift_right(self, line: Line, x: int, count: int) -> None:
        cols = self.columns
        line.split_guard(x)
        line.chars[x:x] = [" "] * count
        del line.chars[cols:]
        line.view[2 * (x + count) :] = line.styles[2 * x : 2 * (cols - count)]
        line.view[2 * x : 2 * (x + count)] = self.blank * count
        line.fix_tail()

    def _fill(self, y: int, start: int, end: int) -> None:
        line = self.grid[y]
        if start == 0 and end == self.columns:
            # A line cleared whole is no longer the continuation of the one above (tmux).
            line.wrapped = False
            line.written = 0
            self._unwrap_above(y)
        line.split_guard(start)
        line.split_guard(end)
        line.chars[start:end] = [" "] * (end - start)
        line.view[2 * start : 2 * end] = self.blank * (end - start)
        self.dirty.add(y)

    def insert_lines(self, count: int | None = None) -> None:
        y = self.cursor.y
        top, bottom = self.region()
        if not top <= y <= bottom:
            return
        count = min(max(count or 1, 1), bottom - y + 1)
        grid = self.grid
        # tmux's grid ends the text at the last line it moves over (quirk kept for reflow).
        grid[y + count - 1].wrapped = False
        del grid[bottom - count + 1 : bottom + 1]
        grid[y:y] = [Line.blank(self.columns, self.blank) for _ in range(count)]
        self._unwrap_above(y)
        self.dirty.update(range(y, bottom + 1))

    def delete_lines(self, count: int | None = None) -> None:
        y = self.cursor.y
        top, bottom = self.region()
        if not top <= y <= bottom:
            return
        count = min(max(count or 1, 1), bottom - y + 1)
        grid = self.grid
        del grid[y : y + count]
        blanks = [Line.blank(self.columns, self.blank) for _ in range(count)]
        grid[bottom - count + 1 : bottom - count + 1] = blanks
        self._unwrap_above(y)
        self._unwrap_above(bottom - count + 1)
        self.dirty.update(range(y, bottom + 1))

    # At the pending-wrap position (x == columns) tmux treats the cursor as past the line:
    # inserting, deleting or erasing characters there changes nothing.

    def insert_characters(self, count: int | None = None) -> None:
        x = self.cursor.x
        if x >= self.columns:
            return
        count = min(max(count or 1, 1), self.columns - x)
        self._shift_right(self.grid[self.cursor.y], x, count)
        self.dirty.add(self.cursor.y)

    def delete_characters(self, count: int | None = None) -> None:
        cols = self.columns
        x = self.cursor.x
        if x >= cols:
            return
        count = min(max(count or 1, 1), cols - x)
        line = self.grid[self.cursor.y]
        line.split_guard(x)
        line.split_guard(x + count)
        del line.chars[x : x + count]
        line.chars.extend([" "] * count)
        line.view[2 * x : 2 * (cols - count)] = line.styles[2 * (x + count) :]
        line.view[2 * (cols - count) :] = self.blank * count
        self.dirty.add(self.cursor.y)

    def erase_characters(self, count: int | None = None) -> None:
        x = self.cursor.x
        if x >= self.columns:
            return
        count = min(max(count or 1, 1), self.columns - x)
        self._fill(self.cursor.y, x, x + count)

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        x = min(self.cursor.x, self.columns - 1)
        if how == 0:
            if self.cursor.x < self.columns:
                self._fill(self.cursor.y, x, self.columns)
        elif how == 1:
            self._fill(self.cursor.y, 0, x + 1)
        elif how == 2:
            self._fill(self.cursor.y, 0, self.columns)

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        y = self.cursor.y
        cols = self.columns
        if how == 0:
            if y == 0 and self.cursor.x == 0 and self.scroll_on_clear and not self.alt_active:
                self._clear_into_history()  # from the top left it clears all, as 2 J (tmux)
            self.erase_in_line(0)
            rows = range(y + 1, self.lines)
        elif how == 1:
            self.erase_in_line(1)
            rows = range(0, y)
        elif how == 2:
            if self.scroll_on_clear and not self.alt_active:
                self._clear_into_history()
            rows = range(self.lines)
            self.all_dirty = True
        elif how == 3:
            self.history.clear()
            self.scrolled = 0
            return
        else:
            return
        for row in rows:
            self.grid[row] = Line.blank(cols, self.blank)
        if rows:
            self._unwrap_above(rows.start)
        self.dirty.update(rows)

    def _clear_into_history(self) -> None:
        """tmux's `scroll-on-clear`: a full clear first pushes the used lines to history."""
        if not self.history.maxlen:
            return
        used = self.lines
        while used and not self.grid[used - 1].used():
            used -= 1
        for line in self.grid[:used]:
            self.history.append(compact_line(line))
        self.scrolled = 0
