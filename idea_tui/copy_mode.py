"""Copy mode (prefix + [): move through a cell's history, search it, select and copy.

Like tmux, copy mode works on a snapshot: the scrollback and the screen as they were when
it started, so the text does not run away while the user reads it. This module is the
state and its moves, with no Textual in it; the grid widget draws it and the app feeds it
keys (`handle_key`) and copies what it returns (OSC 52, so it works over ssh too).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from core.terminal import Row


class Outcome(Enum):
    """What the app must do after a key."""

    NONE = 0
    EXIT = 1
    COPY = 2
    """Copy `CopyMode.copied`, then exit."""
    SEARCH_FORWARD = 3
    """Ask the user for a pattern, then call `search`."""
    SEARCH_BACKWARD = 4
    UNHANDLED = 5


def row_cells(row: Row) -> list[str]:
    """One entry per screen cell; the cell right of a wide character holds ""."""
    from wcwidth import wcwidth

    cells: list[str] = []
    for text, _fg, _bg, _attrs in row:
        for char in text:
            width = wcwidth(char)
            if width == 0 and cells:
                cells[-1] += char  # combining mark: part of the previous cell
                continue
            cells.append(char)
            if width == 2:
                cells.append("")
    return cells


@dataclass
class CopyMode:
    """A cursor, a viewport and an optional selection over frozen lines.

    Line numbers count from the oldest scrollback line (0) to the last screen row.
    """

    lines: list[Row]
    width: int
    height: int
    cursor_line: int = 0
    cursor_col: int = 0
    top: int = 0
    anchor: tuple[int, int] | None = None
    line_selection: bool = False
    query: str = ""
    query_backward: bool = False
    copied: str = ""
    message: str = ""
    _cells: dict[int, list[str]] = field(default_factory=dict)

    @classmethod
    def start(
        cls, history: list[Row], screen: list[Row], width: int, height: int, cursor: tuple[int, int]
    ) -> CopyMode:
        """Begin with the cursor where the terminal's cursor is, the view on the screen."""
        lines = [*history, *screen]
        height = max(1, height)
        mode = cls(lines, max(1, width), height)
        mode.top = max(0, len(history))
        mode.cursor_line = min(len(lines) - 1, len(history) + cursor[1]) if lines else 0
        mode.cursor_col = min(max(0, cursor[0]), mode.width - 1)
        mode._clamp()
        return mode

    # ─── reading ─────────────────────────────────────────────────────────────────────

    def cells(self, line: int) -> list[str]:
        cached = self._cells.get(line)
        if cached is None:
            cached = row_cells(self.lines[line]) if 0 <= line < len(self.lines) else []
            self._cells[line] = cached
        return cached

    def text(self, line: int) -> str:
        return "".join(self.cells(line))

    @property
    def scrolled(self) -> int:
        """How far the view is above the live screen, in lines."""
        return max(0, len(self.lines) - self.height - self.top)

    def selection_range(self) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """Start and end (inclusive) of the selection in reading order."""
        if self.anchor is None:
            return None
        here = (self.cursor_line, self.cursor_col)
        start, end = sorted((self.anchor, here))
        if self.line_selection:
            return (start[0], 0), (end[0], self.width - 1)
        return start, end

    def selected_columns(self, line: int) -> tuple[int, int] | None:
        """Columns [start, end) of `line` inside the selection."""
        selection = self.selection_range()
        if selection is None:
            return None
        (first_line, first_col), (last_line, last_col) = selection
        if not first_line <= line <= last_line:
            return None
        start = first_col if line == first_line else 0
        end = last_col + 1 if line == last_line else self.width
        return start, end

    def selected_text(self) -> str:
        selection = self.selection_range()
        if selection is None:
            return ""
        (first_line, first_col), (last_line, last_col) = selection
        out = []
        for line in range(first_line, last_line + 1):
            cells = self.cells(line)
            start = first_col if line == first_line else 0
            end = last_col + 1 if line == last_line else len(cells)
            out.append("".join(cells[start:end]).rstrip())
        return "\n".join(out)

    def matches(self, line: int) -> list[tuple[int, int]]:
        """Columns [start, end) of the search pattern on a line."""
        if not self.query:
            return []
        cells = self.cells(line)
        text = "".join(cell or "\0" for cell in cells).lower()
        needle = self.query.lower()
        found, position = [], text.find(needle)
        while position >= 0:
            found.append((position, position + len(needle)))
            position = text.find(needle, position + 1)
        return found

    # ─── moving ──────────────────────────────────────────────────────────────────────

    def _clamp(self) -> None:
        last = max(0, len(self.lines) - 1)
        self.cursor_line = min(max(0, self.cursor_line), last)
        self.cursor_col = min(max(0, self.cursor_col), self.width - 1)
        if self.cursor_line < self.top:
            self.top = self.cursor_line
        elif self.cursor_line >= self.top + self.height:
            self.top = self.cursor_line - self.height + 1
        self.top = min(max(0, self.top), max(0, len(self.lines) - self.height))

    def move(self, lines: int = 0, cols: int = 0) -> None:
        self.cursor_line += lines
        self.cursor_col += cols
        self._clamp()

    def scroll(self, lines: int) -> None:
        """Move the view (positive: back in history), dragging the cursor along."""
        self.top = min(max(0, self.top - lines), max(0, len(self.lines) - self.height))
        self.cursor_line = min(max(self.cursor_line, self.top), self.top + self.height - 1)
        self._clamp()

    def line_start(self) -> None:
        self.cursor_col = 0

    def line_end(self) -> None:
        self.cursor_col = max(0, len(self.text(self.cursor_line).rstrip()) - 1)
        self._clamp()

    def word(self, forward: bool) -> None:
        cells = self.cells(self.cursor_line)
        col = self.cursor_col
        step = 1 if forward else -1

        def blank(index: int) -> bool:
            return not 0 <= index < len(cells) or not cells[index].strip()

        col += step
        if forward:
            while col < len(cells) and not blank(col - 1) and not blank(col):
                col += step
            while col < len(cells) and blank(col):
                col += step
        else:
            while col > 0 and blank(col):
                col += step
            while col > 0 and not blank(col - 1):
                col += step
        self.cursor_col = col
        self._clamp()

    def search(self, query: str, backward: bool = False) -> bool:
        """Jump to the next match of `query` from the cursor; False if there is none."""
        self.query = query
        self.query_backward = backward
        return self.next_match(reverse=False)

    def next_match(self, reverse: bool) -> bool:
        if not self.query:
            return False
        backward = self.query_backward != reverse
        line, col = self.cursor_line, self.cursor_col
        total = len(self.lines)
        for offset in range(total + 1):
            index = (line - offset) % total if backward else (line + offset) % total
            found = self.matches(index)
            if index == line and offset == 0:
                found = [m for m in found if (m[0] < col if backward else m[0] > col)]
            if found:
                start = found[-1][0] if backward else found[0][0]
                self.cursor_line, self.cursor_col = index, start
                self._clamp()
                self.message = ""
                return True
        self.message = f"not found: {self.query}"
        return False

    # ─── keys ────────────────────────────────────────────────────────────────────────

    def handle_key(self, key: str, character: str | None) -> Outcome:
        page = max(1, self.height // 2)
        char = character if character and character.isprintable() else ""
        simple = {
            "up": (-1, 0),
            "down": (1, 0),
            "left": (0, -1),
            "right": (0, 1),
        }
        vi = {"k": (-1, 0), "j": (1, 0), "h": (0, -1), "l": (0, 1)}
        if key in simple:
            self.move(*simple[key])
        elif char in vi:
            self.move(*vi[char])
        elif key in ("pageup", "ctrl+u", "ctrl+b"):
            self.scroll(page)
        elif key in ("pagedown", "ctrl+d", "ctrl+f"):
            self.scroll(-page)
        elif char == "g" or key == "home":
            self.cursor_line, self.cursor_col = 0, 0
            self._clamp()
        elif char == "G" or key == "end":
            self.cursor_line = len(self.lines) - 1
            self._clamp()
        elif char == "0":
            self.line_start()
        elif char == "$":
            self.line_end()
        elif char == "w":
            self.word(forward=True)
        elif char == "b":
            self.word(forward=False)
        elif char in ("v", " "):
            self.line_selection = False
            self.anchor = None if self.anchor is not None else (self.cursor_line, self.cursor_col)
        elif char == "V":
            self.line_selection = True
            self.anchor = (self.cursor_line, self.cursor_col)
        elif char == "y" or key == "enter":
            if self.anchor is None:
                return Outcome.EXIT
            self.copied = self.selected_text()
            return Outcome.COPY
        elif char == "/":
            return Outcome.SEARCH_FORWARD
        elif char == "?":
            return Outcome.SEARCH_BACKWARD
        elif char == "n":
            self.next_match(reverse=False)
        elif char == "N":
            self.next_match(reverse=True)
        elif key == "escape" and self.anchor is not None:
            self.anchor = None
        elif key in ("escape", "q") or char == "q":
            return Outcome.EXIT
        else:
            return Outcome.UNHANDLED
        return Outcome.NONE
