"""Cursor movement and tab stops for idea's pyte screen.

pyte's versions clamp a cursor that is above the scroll region *into* the region on CUU/CUD,
assert when origin mode is set without margins, and sort the tab stops on every TAB; these
replace them. `cursor.x == columns` is the pending-wrap position (a character was written in
the last column); moving left from it counts from that column, as tmux does.
"""

from __future__ import annotations

from bisect import bisect_right

import pyte
from pyte import modes as mo


class CursorScreen(pyte.Screen):
    """Cursor moves, tab stops and the scroll region bounds."""

    stops: list[int]
    """`tabstops`, sorted, for bisect."""

    def region(self) -> tuple[int, int]:
        margins = self.margins
        if margins is None:
            return 0, self.lines - 1
        return margins.top, margins.bottom

    def cursor_up(self, count: int | None = None) -> None:
        top, _ = self.region()
        y = self.cursor.y
        self.cursor.y = max(y - (count or 1), top if y >= top else 0)
        self.cursor.x = min(self.cursor.x, self.columns - 1)

    def cursor_down(self, count: int | None = None) -> None:
        _, bottom = self.region()
        y = self.cursor.y
        self.cursor.y = min(y + (count or 1), bottom if y <= bottom else self.lines - 1)
        self.cursor.x = min(self.cursor.x, self.columns - 1)

    def cursor_back(self, count: int | None = None) -> None:
        # From the pending-wrap position tmux counts from the column past the last one.
        self.cursor.x = min(max(self.cursor.x - (count or 1), 0), self.columns - 1)

    def cursor_forward(self, count: int | None = None) -> None:
        self.cursor.x = min(self.cursor.x + (count or 1), self.columns - 1)

    def cursor_position(self, line: int | None = None, column: int | None = None) -> None:
        row = (line or 1) - 1
        col = (column or 1) - 1
        cols = self.columns
        self.cursor.x = col if col < cols else cols - 1
        if self.margins is not None and mo.DECOM in self.mode:
            top, bottom = self.margins
            self.cursor.y = min(row + top, bottom)
        else:
            self.cursor.y = row if row < self.lines else self.lines - 1

    def cursor_to_line(self, line: int | None = None) -> None:
        # VPA keeps the column as it is, a pending wrap included (tmux).
        x = self.cursor.x
        self.cursor_position(line, 1)
        self.cursor.x = x

    def cursor_to_column(self, column: int | None = None) -> None:
        self.cursor.x = min((column or 1) - 1, self.columns - 1)

    def tab(self, count: int = 1) -> None:
        """HT / CHT: next tab stop, or the last column."""
        x = self.cursor.x
        last = self.columns - 1
        if x >= last:
            return  # at (or past) the last column a tab changes nothing, pending wrap included
        for _ in range(min(count, self.columns)):
            index = bisect_right(self.stops, x)
            x = self.stops[index] if index < len(self.stops) else last
            if x >= last:
                break
        self.cursor.x = min(x, last)

    def back_tab(self, count: int = 1) -> None:
        """CBT (`CSI n Z`): previous tab stop, or the first column."""
        x = min(self.cursor.x, self.columns - 1)
        for _ in range(min(count, self.columns)):
            index = bisect_right(self.stops, x - 1) - 1
            x = self.stops[index] if index >= 0 else 0
        self.cursor.x = x

    def set_tab_stop(self) -> None:
        self.tabstops.add(min(self.cursor.x, self.columns - 1))
        self.stops = sorted(self.tabstops)

    def clear_tab_stop(self, how: int = 0) -> None:
        super().clear_tab_stop(how)
        self.stops = sorted(self.tabstops)

    def default_tabs(self) -> None:
        self.tabstops = set(range(8, self.columns, 8))
        self.stops = sorted(self.tabstops)
