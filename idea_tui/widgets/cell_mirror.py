"""The client's copy of one cell's screen, built from the frames the daemon sends.

No emulation happens here: the daemon sends rows already emulated; the mirror keeps them,
turns each into a Strip once (cached until the row changes) and answers "what does row y
look like", including rows of the scrollback when the user scrolled up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.style import Style
from textual.strip import Strip

from adapters.ipc.messages import CellFrame, CellInfo
from core.hyperlinks import attach_links
from core.terminal import Row
from idea_tui.copy_mode import CopyMode
from idea_tui.widgets.row_render import RowRenderer

BLANK_ROW: Row = ()
CURSOR_STYLE = Style(reverse=True)
SELECTION_STYLE = Style(bgcolor="blue", color="white")
MATCH_STYLE = Style(bgcolor="yellow", color="black")


@dataclass(eq=False)
class CellMirror:
    info: CellInfo
    renderer: RowRenderer
    cols: int = 0
    rows: int = 0
    lines: list[Row] = field(default_factory=list)
    cursor: tuple[int, int, bool, int] = (0, 0, False, 0)
    mouse: bool = False
    alt_screen: bool = False
    copy: CopyMode | None = None
    """Set while the user is in copy mode: the view shows its snapshot instead."""
    _strips: dict[int, Strip] = field(default_factory=dict)
    _cursor_strip: tuple[int, Strip] | None = None

    def apply(self, frame: CellFrame) -> set[int]:
        """Take a frame in; return the screen rows to repaint."""
        changed: set[int] = set()
        if frame.full or frame.cols != self.cols or frame.rows != self.rows:
            self.cols, self.rows = frame.cols, frame.rows
            self.lines = [BLANK_ROW] * frame.rows
            self._strips.clear()
            changed.update(range(frame.rows))
        for y, row in frame.lines:
            if 0 <= y < self.rows:
                self.lines[y] = row
                self._strips.pop(y, None)
                changed.add(y)
        for y, links in frame.links:
            if 0 <= y < self.rows:
                self.lines[y] = attach_links(self.lines[y], links)
        old_y = self.cursor[1]
        if frame.cursor != self.cursor:
            changed.update((old_y, frame.cursor[1]))
            self.cursor = frame.cursor
        self._cursor_strip = None
        self.mouse = frame.mouse
        self.alt_screen = frame.alt_screen
        return {y for y in changed if 0 <= y < self.rows}

    def strip(self, y: int, width: int, *, show_cursor: bool) -> Strip:
        """Row `y` of the view as a Strip exactly `width` cells wide."""
        if self.copy is not None:
            return self._copy_strip(self.copy, y, width)
        if not 0 <= y < self.rows:
            return Strip.blank(width)
        x, cursor_y, visible, _shape = self.cursor
        if show_cursor and visible and y == cursor_y:
            cached = self._cursor_strip
            if cached is not None and cached[0] == width:
                return cached[1]
            strip = self.renderer.render_with_cursor(self.lines[y], width, x, CURSOR_STYLE)
            self._cursor_strip = (width, strip)
            return strip
        cached_strip = self._strips.get(y)
        if cached_strip is not None and cached_strip.cell_length == width:
            return cached_strip
        strip = self.renderer.cached(self.lines[y], width)
        self._strips[y] = strip
        return strip

    def _copy_strip(self, copy: CopyMode, y: int, width: int) -> Strip:
        line = copy.top + y
        if not 0 <= line < len(copy.lines):
            return Strip.blank(width)
        strip = self.renderer.render(copy.lines[line], width)
        for start, end in copy.matches(line):
            strip = highlight(strip, start, end, MATCH_STYLE)
        selected = copy.selected_columns(line)
        if selected is not None:
            strip = highlight(strip, selected[0], selected[1], SELECTION_STYLE)
        if line == copy.cursor_line:
            strip = highlight(strip, copy.cursor_col, copy.cursor_col + 1, CURSOR_STYLE)
        return strip


def highlight(strip: Strip, start: int, end: int, style: Style) -> Strip:
    """The strip with cells [start, end) drawn in `style` on top of theirs."""
    width = strip.cell_length
    start, end = max(0, start), min(width, end)
    if start >= end:
        return strip
    before, middle, after = strip.divide([start, end, width])
    return Strip.join([before, middle.apply_style(style), after])
