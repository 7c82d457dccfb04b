"""The first frame of an attach, drawn before Textual is even imported.

Importing Textual and starting its app costs 0.2–0.5 s of CPU, most of the time to the first
frame on a shared machine, while the connection to a running daemon and its first `Scene`
and `CellFrame`s take a few milliseconds. So `idea attach` connects first, draws that first
frame itself from this module (stdlib only: no Textual, no Rich), and only then loads the
app, which paints the same frame over it and carries on: the user sees the workspace at
once, and keys typed meanwhile wait in the terminal for the app (echo is off).

The frame is the one `WorkspaceView`, `TabBar` and `StatusBar` draw, cell for cell and in
the same colours (Textual's dark theme; ANSI colours through its MONOKAI table, as its
truecolor filter does, and RGB brought down to 256 colours as Rich does on terminals
without truecolor). Dimmed program text is the one thing drawn differently (SGR 2 here,
a blended colour in Textual). `tests/tui/test_first_paint.py` holds the two to each other.

Like the widgets, nothing a program or a file chose can reach the terminal as a control:
names go through `core.safe_text.clean`, and control characters in rows become spaces.
Every piece (a title, a row, a border) starts with its own cursor position, so a character
the user's terminal measures differently cannot push the rest of the line sideways.
"""

from __future__ import annotations

from collections import namedtuple

from core.safe_text import MAX_NOTICE, clean

TYPE_CHECKING = False  # typing itself is not imported before the first frame
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Protocol

    class CellLike(Protocol):
        """What is drawn of a cell: `adapters.ipc.messages.CellInfo`, or the early frame's
        `idea_tui.early_scene.EarlyCell` (read before msgspec is loaded)."""

        @property
        def id(self) -> str: ...
        @property
        def index(self) -> int: ...
        @property
        def x(self) -> int: ...
        @property
        def y(self) -> int: ...
        @property
        def width(self) -> int: ...
        @property
        def height(self) -> int: ...
        @property
        def title(self) -> str: ...
        @property
        def command(self) -> str: ...
        @property
        def running(self) -> bool: ...
        @property
        def exit_code(self) -> int | None: ...
        @property
        def focused(self) -> bool: ...
        @property
        def attention(self) -> bool: ...
        @property
        def kind(self) -> str: ...
        @property
        def message(self) -> str: ...
        @property
        def refresh(self) -> bool: ...
        @property
        def mark(self) -> str: ...

    class NamedLike(Protocol):
        """A tab or a page: its name, whether it is the active one."""

        @property
        def name(self) -> str: ...
        @property
        def active(self) -> bool: ...

    class BorderLike(Protocol):
        @property
        def vertical(self) -> bool: ...
        @property
        def x(self) -> int: ...
        @property
        def y(self) -> int: ...
        @property
        def length(self) -> int: ...

    class TabLike(NamedLike, Protocol):
        @property
        def unavailable(self) -> str: ...

    class SceneLike(Protocol):
        """`adapters.ipc.messages.Scene`, or the early frame's `EarlyScene`."""

        @property
        def window(self) -> str: ...
        @property
        def tabs(self) -> Sequence[TabLike]: ...
        @property
        def pages(self) -> Sequence[NamedLike]: ...
        @property
        def width(self) -> int: ...
        @property
        def height(self) -> int: ...
        @property
        def cells(self) -> Sequence[CellLike]: ...
        @property
        def borders(self) -> Sequence[BorderLike]: ...
        @property
        def zoomed(self) -> bool: ...

    class FrameLike(Protocol):
        @property
        def cols(self) -> int: ...
        @property
        def rows(self) -> int: ...
        @property
        def full(self) -> bool: ...
        @property
        def lines(self) -> Sequence[tuple[int, Sequence[tuple[str, int, int, int]]]]: ...
        @property
        def cursor(self) -> tuple[int, int, bool, int]: ...

# `core.terminal`'s colour codes and `Attr` bits (that module builds an IntFlag and
# dataclasses at import, which the first frame does without; the tests hold them equal).
DEFAULT_COLOR = -1
TRUECOLOR_FLAG = 1 << 24
ATTR_BOLD, ATTR_DIM, ATTR_ITALIC, ATTR_UNDERLINE, ATTR_BLINK = 1, 2, 4, 8, 16
ATTR_REVERSE, ATTR_HIDDEN, ATTR_STRIKE, ATTR_DOUBLE_UNDERLINE = 32, 64, 128, 256
ATTR_CURLY_UNDERLINE, ATTR_DOTTED_UNDERLINE, ATTR_DASHED_UNDERLINE = 512, 1024, 2048
ATTR_OVERLINE = 4096

RGB = tuple[int, int, int]

# Textual's dark theme as its widgets resolve it (`$panel`, the bars' text, their `dim`).
PANEL: RGB = (36, 47, 56)
BAR_TEXT: RGB = (224, 224, 224)
BAR_DIM: RGB = (160, 163, 166)
# textual._ansi_theme.MONOKAI: what Textual shows for the 16 ANSI colours.
ANSI: tuple[RGB, ...] = (
    (26, 26, 26), (244, 0, 95), (152, 224, 36), (253, 151, 31),
    (157, 101, 255), (244, 0, 95), (88, 209, 235), (196, 197, 181),
    (98, 94, 76), (244, 0, 95), (152, 224, 36), (224, 213, 97),
    (157, 101, 255), (244, 0, 95), (88, 209, 235), (246, 246, 239),
)
BLACK, RED, GREEN, YELLOW = ANSI[0], ANSI[1], ANSI[2], ANSI[3]
WHITE, BRIGHT_BLACK = ANSI[7], ANSI[8]
_CUBE = (0, 95, 135, 175, 215, 255)
OUTSIDE_CHAR = "·"
MAX_NAME = 64


class Look(namedtuple("Look", "fg bg bold italic reverse extra",
                      defaults=(None, None, False, False, False, ()))):
    """A drawing style: colours (None: the terminal's default), attributes and `extra`,
    further SGR parameters (a program's underline, dim, ...). A named tuple: hashable,
    and without the dataclasses module (and the inspect it loads) before the first frame."""

    __slots__ = ()
    if TYPE_CHECKING:
        fg: RGB | None
        bg: RGB | None
        bold: bool
        italic: bool
        reverse: bool
        extra: tuple[int, ...]

        def __new__(cls, fg: RGB | None = None, bg: RGB | None = None, bold: bool = False,
                    italic: bool = False, reverse: bool = False,
                    extra: tuple[int, ...] = ()) -> Look: ...


PLAIN = Look()
TITLE = Look(BRIGHT_BLACK)
TITLE_FOCUSED = Look(BLACK, GREEN, bold=True)
TITLE_ATTENTION = Look(BLACK, YELLOW, bold=True)
TITLE_EXITED = Look(WHITE, RED)
BORDER = Look(BRIGHT_BLACK)
BORDER_ACTIVE = Look(GREEN)
MESSAGE = Look(YELLOW)
BAR = Look(BAR_TEXT, PANEL)
BAR_DIMMED = Look(BAR_DIM, PANEL)
BAR_STRONG = Look(BAR_TEXT, PANEL, bold=True, reverse=True)
TAB_ACTIVE = Look(BLACK, GREEN, bold=True)


def palette_rgb(number: int) -> RGB:
    """The colour of a 256-colour palette entry, as Textual shows it."""
    if number < 16:
        return ANSI[number]
    if number < 232:
        index = number - 16
        return _CUBE[index // 36], _CUBE[index // 6 % 6], _CUBE[index % 6]
    gray = 8 + 10 * (number - 232)
    return gray, gray, gray


def to_256(rgb: RGB) -> int:
    """The palette entry Rich picks for `rgb` on a 256-colour terminal (its `downgrade`)."""
    red, green, blue = (value / 255 for value in rgb)
    high, low = max(red, green, blue), min(red, green, blue)
    lightness = (high + low) / 2
    if high == low:
        saturation = 0.0
    elif lightness <= 0.5:
        saturation = (high - low) / (high + low)
    else:
        saturation = (high - low) / (2.0 - high - low)
    if saturation < 0.15:
        gray = round(lightness * 25.0)
        return 16 if gray == 0 else 231 if gray == 25 else 231 + gray

    def six(value: int) -> int:
        return round(value / 95 if value < 95 else 1 + (value - 95) / 40)

    return 16 + 36 * six(rgb[0]) + 6 * six(rgb[1]) + six(rgb[2])


def colour_mode(environ: Mapping[str, str]) -> str | None:
    """"truecolor", "256", or None where this module does not draw (fewer colours: the
    app draws the first frame, as before)."""
    if environ.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return "truecolor"
    if environ.get("TERM", "").rsplit("-", 1)[-1] == "256color":
        return "256"
    return None


# ─── widths ──────────────────────────────────────────────────────────────────────────


def _char_cells(character: str) -> int:
    """Cells of one character by the daemon's rules (wcwidth; -1, a control, counts one)."""
    if " " <= character <= "~":
        return 1
    code = ord(character)
    if (0xA0 <= code < 0x300 and code != 0xAD) or 0x2500 <= code < 0x25A0:
        return 1  # Latin, box drawing and blocks: one cell, and nothing there combines
    from wcwidth import wcwidth  # only for text beyond those (see row_render.wcwidth)

    width = int(wcwidth(character))
    return 1 if width < 0 else width


def groups(text: str) -> list[tuple[str, int]]:
    """`text` as (characters to draw, cells) groups, as `row_render` splits a run: a
    zero-width character joins the group before it, a control or a lone zero-width
    character becomes a space, a bidirectional control is left out."""
    out: list[tuple[str, int]] = []
    for character in text:
        code = ord(character)
        if code < 0x20 or 0x7F <= code < 0xA0 or 0x2028 <= code <= 0x2029:
            out.append((" ", 1))
            continue
        if 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069:
            continue  # bidirectional controls would reorder what follows on screen
        cells = _char_cells(character)
        if cells == 0:
            if out and out[-1][1] and character != "\u200d":
                base, width = out[-1]
                out[-1] = (base + character, width)
            elif not out or not out[-1][1]:
                out.append((" ", 1))
            continue
        if 0xD800 <= code <= 0xDFFF:  # a lone surrogate (category Cs): nothing to draw
            out.append((" " * cells, cells))
            continue
        out.append((character, cells))
    return out


def crop(text: str, cells: int) -> tuple[str, int]:
    """`text` cut to at most `cells` cells (a wide character straddling the end left out)."""
    if text.isascii() and text.isprintable():
        return text[:cells], min(len(text), cells)
    used = 0
    kept: list[str] = []
    for drawn, width in groups(text):
        if used + width > cells:
            break
        kept.append(drawn)
        used += width
    return "".join(kept), used


# ─── the screen, piece by piece ──────────────────────────────────────────────────────


class CellScreen:
    """One cell's rows as the frames so far left them (what `CellMirror` keeps)."""

    def __init__(self) -> None:
        self.cols = 0
        self.rows = 0
        self.lines: dict[int, Sequence[tuple[str, int, int, int]]] = {}
        self.cursor: tuple[int, int, bool, int] = (0, 0, False, 0)

    def apply(self, frame: FrameLike) -> None:
        if frame.full or frame.cols != self.cols or frame.rows != self.rows:
            self.cols, self.rows = frame.cols, frame.rows
            self.lines = {}
        for y, row in frame.lines:
            if 0 <= y < self.rows:
                self.lines[y] = row
        self.cursor = frame.cursor


class Canvas:
    """Escape sequences for the user's terminal, written piece by piece."""

    def __init__(self, mode: str) -> None:
        self.truecolor = mode == "truecolor"
        self.parts: list[str] = []
        self._sgr: dict[Look, str] = {}

    def _colour(self, rgb: RGB, base: int) -> str:
        if self.truecolor:
            return f"{base};2;{rgb[0]};{rgb[1]};{rgb[2]}"
        return f"{base};5;{to_256(rgb)}"

    def sgr(self, look: Look) -> str:
        text = self._sgr.get(look)
        if text is None:
            codes: list[str] = []
            if look.bold:
                codes.append("1")
            if look.italic:
                codes.append("3")
            if look.reverse:
                codes.append("7")
            codes.extend(str(code) for code in look.extra)
            if look.fg is not None:
                codes.append(self._colour(look.fg, 38))
            if look.bg is not None:
                codes.append(self._colour(look.bg, 48))
            text = self._sgr[look] = f"\x1b[{';'.join(codes)}m" if codes else ""
        return text

    def move(self, x: int, y: int) -> None:
        self.parts.append(f"\x1b[{y + 1};{x + 1}H")

    def text(self, text: str, look: Look) -> None:
        if not text:
            return
        style = self.sgr(look)
        self.parts.append(f"{style}{text}\x1b[0m" if style else text)


_ATTR_SGR = (
    (ATTR_DIM, 2), (ATTR_UNDERLINE | ATTR_CURLY_UNDERLINE | ATTR_DOTTED_UNDERLINE
                    | ATTR_DASHED_UNDERLINE, 4),
    (ATTR_BLINK, 5), (ATTR_HIDDEN, 8), (ATTR_STRIKE, 9), (ATTR_DOUBLE_UNDERLINE, 21),
    (ATTR_OVERLINE, 53),
)


def _program_colour(value: int) -> RGB | None:
    if TRUECOLOR_FLAG <= value <= TRUECOLOR_FLAG | 0xFFFFFF:
        return (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF
    if 0 <= value <= 255:
        return palette_rgb(value)
    return None  # DEFAULT_COLOR and anything malformed: the terminal's own colour


def program_look(fg: int, bg: int, attrs: int, cursor: bool = False) -> Look:
    """How a program's cell is drawn (`row_render.make_style`, the cursor reverse)."""
    if fg == DEFAULT_COLOR and bg == DEFAULT_COLOR and not attrs and not cursor:
        return PLAIN
    extra = tuple(code for flag, code in _ATTR_SGR if attrs & flag)
    return Look(_program_colour(fg), _program_colour(bg), bold=bool(attrs & ATTR_BOLD),
                italic=bool(attrs & ATTR_ITALIC),
                reverse=cursor or bool(attrs & ATTR_REVERSE), extra=extra)


class Painter:
    """The whole first frame: tab bar, the page's cells, status bar."""

    def __init__(self, scene: SceneLike, screens: Mapping[str, CellScreen], width: int,
                 height: int, mode: str, *, prefix_label: str = "ctrl+b",
                 welcome_path: str = "", notice: tuple[str, str] | None = None) -> None:
        self.scene = scene
        self.screens = screens
        self.width = width
        self.height = height
        self.canvas = Canvas(mode)
        self.prefix_label = prefix_label
        self.welcome_path = welcome_path
        self.notice = notice

    def paint(self) -> str:
        self._bar(0, self._tab_runs())
        for y in range(max(0, self.height - 2)):
            self._grid_line(y)
        if self.height >= 2:
            self._status()
        self.canvas.move(0, 0)
        return "".join(self.canvas.parts)

    # bars

    def _tab_runs(self) -> list[tuple[str, Look]]:
        scene = self.scene
        runs = [(f" {clean(scene.window or 'idea', MAX_NAME)} ", BAR_STRONG), (" ", BAR)]
        if not scene.tabs:
            runs.append(("no project open — prefix P: projects panel",
                         Look(BAR_DIM, PANEL, italic=True)))
        for index, tab in enumerate(scene.tabs):
            if tab.unavailable:
                runs.append((unavailable_label(tab.name, tab.unavailable),
                             Look(RED, PANEL, bold=True)))
            else:
                runs.append((f" {index}:{clean(tab.name, MAX_NAME)} ",
                             TAB_ACTIVE if tab.active else BAR))
            runs.append((" ", BAR))
        return runs

    def _bar(self, y: int, runs: Iterable[tuple[str, Look]]) -> None:
        """A bar line; text past the width ends in "…", as Rich's ellipsis overflow."""
        canvas = self.canvas
        canvas.move(0, y)
        pieces = list(runs)
        over = sum(_cells_of(text) for text, _ in pieces) > self.width
        room = self.width - 1 if over else self.width
        used = 0
        for text, look in pieces:
            if used >= room:
                break
            drawn, cells = crop(text, room - used)
            canvas.text(drawn, look)
            used += cells
        if over and self.width > 0:
            canvas.text("…", BAR)
            used += 1
        canvas.text(" " * max(0, self.width - used), Look(None, PANEL))

    def _status(self) -> None:
        runs: list[tuple[str, Look]] = []
        for index, page in enumerate(self.scene.pages):
            label = f" {index}:{clean(page.name, MAX_NAME)} "
            runs.append((label, BAR_STRONG if page.active else BAR_DIMMED))
        if self.notice is not None:
            text, level = self.notice
            look = Look(RED, PANEL, bold=True) if level == "error" else Look(BAR_TEXT, PANEL,
                                                                               italic=True)
            runs.append(("  " + clean(text, MAX_NOTICE), look))
        hint = f" {self.prefix_label} ? help "
        used = sum(_cells_of(text) for text, _ in runs)
        if self.width and used + len(hint) < self.width:
            runs.append((" " * (self.width - used - len(hint)), BAR))
            runs.append((hint, BAR_DIMMED))
        self._bar(self.height - 1, runs)

    # the grid

    def _grid_line(self, y: int) -> None:
        """One screen line of the grid: the pieces crossing it left to right (a cell's
        title or row, a vertical border), blanks between them, dots outside the window."""
        canvas = self.canvas
        scene = self.scene
        screen_y = y + 1
        if not scene.tabs:
            self._welcome_line(y, screen_y)
            return
        if y >= scene.height:
            canvas.move(0, screen_y)
            canvas.text(OUTSIDE_CHAR * self.width, BRIGHT_LOOK)
            return
        pieces: list[tuple[int, int, CellLike | None]] = [
            (cell.x, cell.width, cell) for cell in scene.cells if cell.y <= y < cell.y + cell.height
        ]
        pieces.extend((border.x, 1, None) for border in scene.borders
                      if border.vertical and border.y <= y < border.y + border.length)
        pieces.sort(key=lambda piece: piece[0])
        x = 0
        for piece_x, piece_width, cell in pieces:
            if piece_x >= self.width:
                break
            self._blank(x, piece_x, screen_y, PLAIN)
            room = min(piece_width, self.width - piece_x)
            canvas.move(piece_x, screen_y)
            if cell is None:
                canvas.text("│", BORDER)
            else:
                self._cell_line(cell, y - cell.y, room, screen_y)
            x = piece_x + piece_width
        right = min(scene.width, self.width)
        self._blank(x, right, screen_y, PLAIN)
        x = max(x, right)
        self._blank(x, self.width, screen_y, BRIGHT_LOOK, OUTSIDE_CHAR)

    def _blank(self, start: int, end: int, screen_y: int, look: Look, fill: str = " ") -> None:
        if end > start:
            self.canvas.move(start, screen_y)
            self.canvas.text(fill * (end - start), look)

    def _cell_line(self, cell: CellLike, dy: int, room: int, screen_y: int) -> None:
        canvas = self.canvas
        if dy == 0:
            self._title(cell, room)
            return
        row = dy - 1
        if cell.message and not cell.running and cell.exit_code is None:
            lines = _wrap(cell.message, max(2, cell.width - 2))
            if 0 <= row - 1 < len(lines) and cell.width >= 3:
                text, used = lines[row - 1]
                canvas.text(crop(" " + text + " " * (cell.width - 1 - used), room)[0], MESSAGE)
            else:
                canvas.text(" " * room, PLAIN)
            return
        screen = self.screens.get(cell.id)
        runs = screen.lines.get(row, ()) if screen is not None and row < screen.rows else ()
        cursor_x = -1
        if screen is not None and cell.focused:
            x, cursor_y, visible, _shape = screen.cursor
            if visible and cursor_y == row and 0 <= x < cell.width:
                cursor_x = x
        self._row(cell.x, room, runs, cursor_x, screen_y)

    def _row(self, left: int, room: int, runs: Iterable[tuple[str, int, int, int]],
             cursor_x: int, screen_y: int) -> None:
        canvas = self.canvas
        used = 0
        for text, fg, bg, attrs in runs:
            if used >= room:
                break
            simple = text.isascii() and text.isprintable()
            if simple and not used <= cursor_x < used + len(text):
                drawn = text[: room - used]
                canvas.text(drawn, program_look(fg, bg, attrs))
                used += len(drawn)
                continue
            for drawn, width in ([(ch, 1) for ch in text] if simple else groups(text)):
                if used + width > room:
                    drawn, width = " " * (room - used), room - used
                canvas.text(drawn, program_look(fg, bg, attrs, used <= cursor_x < used + width))
                used += width
                if used >= room:
                    break
            if not simple:
                canvas.move(left + used, screen_y)  # whatever the terminal made of it
        if used < room:
            if used <= cursor_x:
                canvas.text(" " * (cursor_x - used), PLAIN)
                canvas.text(" ", program_look(DEFAULT_COLOR, DEFAULT_COLOR, 0, True))
                used = cursor_x + 1
            canvas.text(" " * (room - used), PLAIN)

    def _title(self, cell: CellLike, room: int) -> None:
        look = {"exited": TITLE_EXITED, "attention": TITLE_ATTENTION,
                "focused": TITLE_FOCUSED}.get(title_state(cell), TITLE)
        label = title_label(cell, zoomed=self.scene.zoomed)
        text, used = crop(clean(label, MAX_NOTICE), min(cell.width, room))
        self.canvas.text(text, look)
        self.canvas.text("─" * (room - used), BORDER_ACTIVE if cell.focused else BORDER)

    def _welcome_line(self, y: int, screen_y: int) -> None:
        lines = welcome_lines(self.welcome_path, self.prefix_label)
        grid_height = max(0, self.height - 2)
        top = max(0, (grid_height - len(lines)) // 2)
        index = y - top
        self.canvas.move(0, screen_y)
        if not 0 <= index < len(lines) or self.width <= 0:
            self.canvas.text(" " * self.width, PLAIN)
            return
        text, bold = lines[index]
        left = max(0, (self.width - 60) // 2)
        drawn, used = crop(clean(" " * left + text, 4096), self.width)
        self.canvas.text(drawn + " " * (self.width - used), Look(bold=bold))


# ─── shared with the widgets (WorkspaceView draws the same words) ─────────────────────


def title_label(cell: CellLike, *, zoomed: bool, copy: str = "") -> str:
    """The words of a cell's title line (`copy`: copy mode's position, when in it)."""
    name = cell.command or cell.kind
    label = f" {cell.index} {name}"
    if cell.title and cell.title != name:
        label += f": {cell.title}"
    if not cell.running and cell.exit_code is not None:
        label += f" [exited {cell.exit_code} · Enter restarts]"
    if cell.mark:
        # An agent that needs the user (a timed-out turn, a failed delivery): until focused.
        label += f" [{cell.mark}]"
    if cell.refresh:
        # Discreet: the agent's shared knowledge changed; prefix F delivers it.
        label += " ⟳ refresh context"
    label += copy
    if zoomed:
        label += " [zoom]"
    return label + " "


MAX_REASON = 60


def unavailable_label(name: str, reason: str) -> str:
    """The tab of a project that cannot be opened now: its name, why, and what a click does
    (the `TabBar` draws the same words)."""
    why = clean(reason, MAX_REASON)
    return f" ⚠ {clean(name, MAX_NAME)}: {why} (click: retry) "


def title_state(cell: CellLike) -> str:
    """Which style a title takes: exited, attention, focused or plain."""
    if not cell.running and cell.exit_code is not None:
        return "exited"
    if cell.attention:
        return "attention"
    return "focused" if cell.focused else "plain"


def welcome_lines(path: str, prefix: str) -> list[tuple[str, bool]]:
    """What a window with no project says instead of showing nothing: (text, bold)."""
    return [
        ("No project is open in this window.", True),
        ("", False),
        (f"Enter         create (or open) a project in {path}", False),
        (f"{prefix} P      the projects panel", False),
        (f"{prefix} ?      every key", False),
        (f"{prefix} d      detach", False),
    ]


BRIGHT_LOOK = Look(BRIGHT_BLACK)


def _cells_of(text: str) -> int:
    if text.isascii() and text.isprintable():
        return len(text)
    return sum(width for _, width in groups(text))


def _wrap(text: str, cells: int) -> list[tuple[str, int]]:
    """`labels.wrap`: lines of at most `cells` cells."""
    lines: list[tuple[str, int]] = []
    line: list[str] = []
    used = 0
    for drawn, width in groups(clean(text, len(text))):
        if used + width > cells and line:
            lines.append(("".join(line), used))
            line, used = [], 0
        line.append(drawn)
        used += width
    if line:
        lines.append(("".join(line), used))
    return lines
