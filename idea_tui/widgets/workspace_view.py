"""The grid of cells of the shown page, drawn as one widget on Textual's Line API.

The daemon decides where every cell and border lies (the `Scene`); this widget composes, for
each screen row, the pieces that cross it: a cell's title line, a row of a cell's terminal,
or a border column. Strips of terminal rows are cached by their `CellMirror` until the daemon
changes the row, and only the changed rows are refreshed.

Messages posted: `CellClicked`, `BorderDragged`, `CellScrolled`, `TitleClicked` — the app turns
them into gateway calls; the widget itself never talks to the daemon.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from adapters.ipc.messages import BorderInfo, CellFrame, CellInfo, Scene
from idea_tui.first_paint import title_label, title_state, welcome_lines
from idea_tui.widgets import labels
from idea_tui.widgets.cell_mirror import CellMirror
from idea_tui.widgets.prompt_paint import paint_lines_now, paint_now
from idea_tui.widgets.row_render import RowRenderer

TITLE_STYLE = Style(color="bright_black")
TITLE_FOCUSED = Style(color="black", bgcolor="green", bold=True)
TITLE_ATTENTION = Style(color="black", bgcolor="yellow", bold=True)
TITLE_EXITED = Style(color="white", bgcolor="red")
BORDER_STYLE = Style(color="bright_black")
BORDER_ACTIVE = Style(color="green")
MESSAGE_STYLE = Style(color="yellow")
OUTSIDE_STYLE = Style(color="bright_black")
OUTSIDE_CHAR = "·"
# Rows of cells other than the focused one drawn per repaint; the rest wait for the next
# repaint. A flooding cell's whole screen then never stands between a key and its echo: the
# focused cell's rows are drawn at once, and a repaint stays a few milliseconds long.
OTHER_ROWS_PER_PAINT = 8
ECHO_WAIT = 0.1
PAINT_PACE = 1 / 60
"""Seconds between paints of other cells' waiting rows drawn straight (Textual's tick)."""
"""Seconds other cells' rows wait at most, after a key, for the focused cell's echo."""


_BORDER = Strip([Segment("│", BORDER_STYLE)], 1)


def _regions(cell: CellInfo, rows: Iterable[int]) -> list[Region]:
    """A cell's screen rows as regions, one per run of adjacent rows: each `refresh` call
    costs Textual as much as drawing a line, and a scrolling cell changes all rows."""
    regions: list[Region] = []
    top = cell.y + 1
    start = previous = -2
    for y in sorted(rows):
        if y != previous + 1:
            if start >= 0:
                regions.append(Region(cell.x, top + start, cell.width, previous - start + 1))
            start = y
        previous = y
    if start >= 0:
        regions.append(Region(cell.x, top + start, cell.width, previous - start + 1))
    return regions


@lru_cache(maxsize=64)
def _blank(width: int) -> Strip:
    return Strip.blank(width)


@lru_cache(maxsize=64)
def _outside(width: int) -> Strip:
    return Strip([Segment(OUTSIDE_CHAR * width, OUTSIDE_STYLE)], width)


@dataclass(frozen=True, slots=True)
class _Piece:
    x: int
    width: int
    kind: str  # "title", "row", "border"
    cell: str = ""
    row: int = 0


class WorkspaceView(Widget, can_focus=True):
    """The cells of one page. Keys are handled by the app (they go to the focused cell)."""

    ALLOW_SELECT = False
    DEFAULT_CSS = """
    WorkspaceView {
        width: 1fr;
        height: 1fr;
    }
    """

    class CellClicked(Message):
        def __init__(
            self, cell: str, x: int, y: int, button: int, kind: str, event: events.MouseEvent
        ) -> None:
            super().__init__()
            self.cell = cell
            self.x = x
            self.y = y
            self.button = button
            self.kind = kind
            self.mouse_event = event

    class BorderDragged(Message):
        def __init__(self, border: BorderInfo, position: int, done: bool) -> None:
            super().__init__()
            self.border = border
            self.position = position
            self.done = done

    class CellScrolled(Message):
        def __init__(self, cell: str, lines: int, x: int, y: int) -> None:
            super().__init__()
            self.cell = cell
            self.lines = lines
            self.x = x
            self.y = y

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.scene: Scene | None = None
        self.mirrors: dict[str, CellMirror] = {}
        self.renderer = RowRenderer()
        self._plan: list[list[_Piece]] = []
        # Per screen line: the pieces' strips it was last joined from, and the joined strip.
        # Nine agents repainting change a few rows each; every other line is served as is,
        # and a changed line is one join of strips the mirrors already hold.
        self._joined: dict[int, tuple[int, tuple[Strip, ...], Strip]] = {}
        self._titles: dict[tuple[str, Style, bool, int], Strip] = {}
        # Rows of other cells still to draw, per cell, and whether a repaint will draw more.
        self._waiting: dict[str, set[int]] = {}
        self._pacing = False
        self._echo_due = 0.0
        """Until then (monotonic seconds) a key's echo is awaited: other cells wait."""
        self._echo_timer: Timer | None = None
        self._pace: asyncio.TimerHandle | None = None
        """The next paced paint of waiting rows after a straight one (see `_paint_waiting`)."""
        self._cells: dict[str, CellInfo] = {}
        self._dragging: BorderInfo | None = None
        self.show_cursor = True
        self.key_handler: Callable[[str, str | None], Awaitable[None]] | None = None
        self.paste_handler: Callable[[str], Awaitable[None]] | None = None
        self.size_handler: Callable[[int, int], None] | None = None
        self.welcome_path = ""
        self.prefix_label = "ctrl+b"

    # ─── keyboard ────────────────────────────────────────────────────────────────────

    async def on_key(self, event: events.Key) -> None:
        # Every key is the cell's or the prefix table's: stopping the event here keeps
        # Textual's own bindings (tab, ctrl+c, ...) from ever seeing it.
        event.stop()
        event.prevent_default()
        if self.key_handler is not None:
            await self.key_handler(event.key, event.character)

    def on_resize(self, event: events.Resize) -> None:
        # The grid's own new size, once the screen was laid out again: this is what the
        # daemon must size the cells to (the app's size still includes the bars).
        if self.size_handler is not None:
            self.size_handler(event.size.width, event.size.height)

    async def on_paste(self, event: events.Paste) -> None:
        event.stop()
        if self.paste_handler is not None:
            await self.paste_handler(event.text)

    def on_blur(self) -> None:
        self.refresh_focused()

    def on_focus(self) -> None:
        self.refresh_focused()

    def refresh_focused(self) -> None:
        cell = self.focused_cell
        if cell is not None:
            self.refresh_cell(cell.id)

    # ─── updates from the daemon ─────────────────────────────────────────────────────

    def set_scene(self, scene: Scene) -> None:
        self.scene = scene
        self._cells = {cell.id: cell for cell in scene.cells}
        for cell_id in list(self.mirrors):
            if cell_id not in self._cells:
                del self.mirrors[cell_id]
        for cell in scene.cells:
            mirror = self.mirrors.get(cell.id)
            if mirror is None:
                self.mirrors[cell.id] = CellMirror(cell, self.renderer)
            else:
                mirror.info = cell
        self._plan = self._build_plan(scene)
        self._joined.clear()
        self._waiting.clear()
        self.refresh()

    def set_title(self, cell_id: str, title: str) -> None:
        """A program retitled its cell: redraw that cell's title line, nothing else."""
        cell = self._cells.get(cell_id)
        if cell is None or cell.title == title:
            return
        cell.title = title
        self.refresh(Region(cell.x, cell.y, cell.width, 1))

    def apply_frame(self, frame: CellFrame) -> None:
        mirror = self.mirrors.get(frame.cell)
        cell = self._cells.get(frame.cell)
        if mirror is None or cell is None:
            return
        rows = mirror.apply(frame)
        if mirror.copy is not None or not rows:
            return  # copy mode shows a snapshot: keep the view still
        if cell.focused:
            regions = _regions(cell, rows)
            if not self._echo_due:
                self._paint(regions)
                return
            # The echo is on screen after this repaint: other cells may go on then.
            self._echo_due = 0.0
            if self._echo_timer is not None or self._pace is not None:
                self._stop_pacing()
            if self._waiting and not self._pacing:
                self._pacing = True
                self.call_after_refresh(self._paint_waiting)
            # The echo of a key: on the terminal now, not on the screen's next tick, and
            # straight when nothing covers its lines.
            if not paint_lines_now(self, regions):
                self.refresh(*regions)
                paint_now(self)
            return
        if len(rows) <= OTHER_ROWS_PER_PAINT and not self._waiting and not self._echo_due:
            self._paint(_regions(cell, rows))
            return
        self._waiting.setdefault(cell.id, set()).update(rows)
        if not self._pacing:
            self._paint_waiting()

    def await_echo(self) -> None:
        """A key went to the focused cell: draw nothing of other cells until its echo is
        drawn (or `ECHO_WAIT` passed), so that the echo is the next thing on screen."""
        self._echo_due = time.monotonic() + ECHO_WAIT

    @property
    def painting(self) -> bool:
        """Rows of a frame received are still to be drawn (a later repaint draws them)."""
        return bool(self._waiting)

    def on_unmount(self) -> None:
        self._stop_pacing()

    def _stop_pacing(self) -> None:
        if self._echo_timer is not None:
            self._echo_timer.stop()
            self._echo_timer = None
        if self._pace is not None:
            self._pace.cancel()
            self._pace = None
        self._pacing = False

    def _paint_waiting(self) -> None:
        """Draw up to `OTHER_ROWS_PER_PAINT` waiting rows; the rest after the repaint."""
        self._pacing = False
        self._echo_timer = None
        self._pace = None
        if self._echo_due:
            left = self._echo_due - time.monotonic()
            if left > 0:
                self._pacing = True
                self._echo_timer = self.set_timer(left, self._paint_waiting)
                return
            self._echo_due = 0.0
        budget = OTHER_ROWS_PER_PAINT
        regions: list[Region] = []
        for cell_id in list(self._waiting):
            rows = self._waiting[cell_id]
            cell = self._cells.get(cell_id)
            if cell is None:
                del self._waiting[cell_id]
                continue
            chosen = sorted(rows)[:budget]
            rows.difference_update(chosen)
            if not rows:
                del self._waiting[cell_id]
            regions.extend(_regions(cell, chosen))
            budget -= len(chosen)
            if budget <= 0:
                break
        if regions and paint_lines_now(self, regions, echo=False):
            if self._waiting:
                # The rest at the pace of Textual's tick: back to back, a flooding cell's
                # rows would keep the loop busy in front of keys and echoes.
                self._pacing = True
                self._pace = asyncio.get_running_loop().call_later(PAINT_PACE,
                                                                   self._paint_waiting)
            return
        if regions:
            self.refresh(*regions)
        if self._waiting and not self._pacing:
            self._pacing = True
            self.call_after_refresh(self._paint_waiting)

    def _paint(self, regions: list[Region]) -> None:
        """Draw other cells' rows: straight when nothing covers them (see prompt_paint),
        else on Textual's next tick."""
        if not paint_lines_now(self, regions, echo=False):
            self.refresh(*regions)

    @property
    def focused_cell(self) -> CellInfo | None:
        if self.scene is None or self.scene.focused is None:
            return None
        return self._cells.get(self.scene.focused)

    def refresh_cell(self, cell_id: str) -> None:
        cell = self._cells.get(cell_id)
        if cell is not None:
            self.refresh(Region(cell.x, cell.y, cell.width, cell.height))

    # ─── drawing ─────────────────────────────────────────────────────────────────────

    @staticmethod
    def _build_plan(scene: Scene) -> list[list[_Piece]]:
        plan: list[list[_Piece]] = [[] for _ in range(scene.height)]
        for cell in scene.cells:
            for dy in range(cell.height):
                y = cell.y + dy
                if 0 <= y < scene.height:
                    kind = "title" if dy == 0 else "row"
                    plan[y].append(_Piece(cell.x, cell.width, kind, cell.id, dy - 1))
        for border in scene.borders:
            if not border.vertical:
                continue
            for dy in range(border.length):
                y = border.y + dy
                if 0 <= y < scene.height:
                    plan[y].append(_Piece(border.x, 1, "border"))
        for pieces in plan:
            pieces.sort(key=lambda piece: piece.x)
        return plan

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scene = self.scene
        if scene is not None and not scene.tabs:
            return self._welcome_line(y, width)
        if scene is None or y >= len(self._plan):
            return (
                Strip([Segment(OUTSIDE_CHAR * width, OUTSIDE_STYLE)], width)
                if (scene is not None and width)
                else Strip.blank(width)
            )
        strips: list[Strip] = []
        x = 0
        for piece in self._plan[y]:
            if piece.x > x:
                strips.append(_blank(piece.x - x))
            strips.append(self._render_piece(piece))
            x = piece.x + piece.width
        if x < scene.width:
            strips.append(_blank(scene.width - x))
            x = scene.width
        if x < width:
            strips.append(_outside(width - x))
        parts = tuple(strips)
        cached = self._joined.get(y)
        if (cached is not None and cached[0] == width and len(cached[1]) == len(parts)
                and all(old is new for old, new in zip(cached[1], parts, strict=True))):
            return cached[2]
        if sum(part.cell_length for part in parts) == width:
            # The pieces' widths are known: one list of their segments, not Strip.join
            # (which measures every piece again).
            joined = Strip([segment for part in parts for segment in part], width)
        else:
            joined = Strip.join(parts).crop(0, width)
        self._joined[y] = (width, parts, joined)
        return joined

    def _welcome_line(self, y: int, width: int) -> Strip:
        """A window with no project: say what to do instead of showing nothing."""
        lines = welcome_lines(self.welcome_path, self.prefix_label)
        top = max(0, (self.size.height - len(lines)) // 2)
        index = y - top
        if not 0 <= index < len(lines) or width <= 0:
            return Strip.blank(width)
        text, bold = lines[index]
        left = max(0, (width - 60) // 2)
        line = (" " * left + text)[:width]
        return Strip([Segment(line.ljust(width), Style(bold=True) if bold else Style())], width)

    def _render_piece(self, piece: _Piece) -> Strip:
        if piece.kind == "border":
            return _BORDER
        cell = self._cells[piece.cell]
        if piece.kind == "title":
            return self._title_strip(cell)
        mirror = self.mirrors[cell.id]
        if cell.message and not cell.running and cell.exit_code is None:
            return self._message_strip(cell, piece.row)
        show_cursor = self.show_cursor and cell.focused and self.has_focus
        return mirror.strip(piece.row, cell.width, show_cursor=show_cursor)

    def _title_strip(self, cell: CellInfo) -> Strip:
        mirror = self.mirrors.get(cell.id)
        copy = mirror.copy if mirror is not None else None
        copied = ""
        if copy is not None:
            copied = f" [copy {copy.scrolled}/{max(0, len(copy.lines) - copy.height)}]"
            if copy.message:
                copied += f" {copy.message}"
        label = title_label(cell, zoomed=self.scene is not None and self.scene.zoomed,
                            copy=copied)
        style = {"exited": TITLE_EXITED, "attention": TITLE_ATTENTION,
                 "focused": TITLE_FOCUSED}.get(title_state(cell), TITLE_STYLE)
        # The title is a program's text: cleaned, and cut by cells (wcwidth), not characters.
        key = (label, style, cell.focused, cell.width)
        strip = self._titles.get(key)
        if strip is None:
            if len(self._titles) > 256:
                self._titles.clear()
            text, used = labels.crop(label, cell.width)
            fill = "─" * (cell.width - used)
            strip = Strip(
                [Segment(text, style),
                 Segment(fill, BORDER_ACTIVE if cell.focused else BORDER_STYLE)],
                cell.width,
            )
            self._titles[key] = strip
        return strip

    def _message_strip(self, cell: CellInfo, row: int) -> Strip:
        lines = labels.wrap(cell.message, max(2, cell.width - 2), limit=len(cell.message))
        if 0 <= row - 1 < len(lines) and cell.width >= 3:
            text, used = lines[row - 1]
            pad = " " * (cell.width - 1 - used)
            return Strip([Segment(" " + text + pad, MESSAGE_STYLE)], cell.width)
        return Strip.blank(cell.width)

    # ─── mouse ───────────────────────────────────────────────────────────────────────

    def cell_at(self, x: int, y: int) -> CellInfo | None:
        for cell in self._cells.values():
            if cell.x <= x < cell.x + cell.width and cell.y <= y < cell.y + cell.height:
                return cell
        return None

    def border_at(self, x: int, y: int) -> BorderInfo | None:
        if self.scene is None:
            return None
        for border in self.scene.borders:
            if border.vertical and x == border.x and border.y <= y < border.y + border.length:
                return border
            if not border.vertical and y == border.y and border.x <= x < border.x + border.length:
                return border
        return None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        border = self.border_at(event.x, event.y)
        if border is not None and (border.vertical or self._on_title(event.x, event.y)):
            self._dragging = border
            self.capture_mouse()
            event.stop()
            return
        self._post_click(event, "press")

    def _on_title(self, x: int, y: int) -> bool:
        cell = self.cell_at(x, y)
        return cell is not None and cell.y == y

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging is not None:
            position = event.x if self._dragging.vertical else event.y
            self.post_message(self.BorderDragged(self._dragging, position, done=False))
            event.stop()
            return
        if event.button:
            self._post_click(event, "drag")

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._dragging is not None:
            position = event.x if self._dragging.vertical else event.y
            self.post_message(self.BorderDragged(self._dragging, position, done=True))
            self._dragging = None
            self.release_mouse()
            event.stop()
            return
        self._post_click(event, "release")

    def _post_click(self, event: events.MouseEvent, kind: str) -> None:
        cell = self.cell_at(event.x, event.y)
        if cell is None:
            return
        button = {1: 0, 2: 1, 3: 2}.get(event.button, 0)
        self.post_message(
            self.CellClicked(cell.id, event.x - cell.x, event.y - cell.y - 1, button, kind, event)
        )

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        cell = self.cell_at(event.x, event.y)
        if cell is not None:
            self.post_message(self.CellScrolled(cell.id, 3, event.x - cell.x, event.y - cell.y - 1))
            event.stop()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        cell = self.cell_at(event.x, event.y)
        if cell is not None:
            self.post_message(
                self.CellScrolled(cell.id, -3, event.x - cell.x, event.y - cell.y - 1)
            )
            event.stop()
