"""What a terminal screen looks like to the rest of idea, whatever emulator draws it.

The daemon feeds PTY bytes to an emulator (behind the `TerminalEmulator` port) and sends
rows to clients as *runs*: `(text, fg, bg, attrs)` tuples, cheap to encode with msgspec and
to turn into Rich segments on the client.

Colour encoding (an int):
    `DEFAULT_COLOR` (-1)        the terminal's default colour
    0..255                      the xterm 256-colour palette (0..15 are the ANSI colours)
    `TRUECOLOR_FLAG | 0xRRGGBB` a 24-bit colour
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Protocol

DEFAULT_COLOR = -1
TRUECOLOR_FLAG = 1 << 24


def rgb(red: int, green: int, blue: int) -> int:
    """Encode a 24-bit colour."""
    return TRUECOLOR_FLAG | (red << 16) | (green << 8) | blue


class Attr(IntFlag):
    """Character attributes (SGR), a bit each."""

    NONE = 0
    BOLD = 1
    DIM = 2
    ITALIC = 4
    UNDERLINE = 8
    BLINK = 16
    REVERSE = 32
    HIDDEN = 64
    STRIKE = 128
    DOUBLE_UNDERLINE = 256
    CURLY_UNDERLINE = 512
    DOTTED_UNDERLINE = 1024
    DASHED_UNDERLINE = 2048
    OVERLINE = 4096


Run = tuple[str, int, int, int]
"""`(text, fg, bg, attrs)`: consecutive characters sharing one style.

A wide character (two cells by wcwidth) appears once in `text`; the cell it covers on its
right is not repeated. The cells of all runs of a row add up to the screen width.
"""

Row = tuple[Run, ...]


class CursorShape(IntEnum):
    """DECSCUSR shapes; the emulator reports what the program asked for."""

    DEFAULT = 0
    BLOCK = 2
    UNDERLINE = 4
    BAR = 6


@dataclass(frozen=True, slots=True)
class Cursor:
    x: int
    y: int
    visible: bool = True
    shape: CursorShape = CursorShape.DEFAULT
    blink: bool = True


class MouseMode(IntEnum):
    """Which mouse events the program asked for (DECSET 9/1000/1002/1003)."""

    OFF = 0
    X10 = 9
    NORMAL = 1000
    BUTTON = 1002
    ANY = 1003


@dataclass(frozen=True, slots=True)
class TerminalModes:
    """The modes a program set that change how input must be encoded."""

    app_cursor: bool = False
    app_keypad: bool = False
    bracketed_paste: bool = False
    mouse: MouseMode = MouseMode.OFF
    mouse_sgr: bool = False
    focus_events: bool = False
    alt_screen: bool = False


class TerminalEventKind(IntEnum):
    BELL = 1
    TITLE = 2
    CWD = 3
    NOTIFY = 4
    CLIPBOARD = 5


@dataclass(frozen=True, slots=True)
class TerminalEvent:
    """Something the program signalled that is not screen content (BEL, OSC 0/2/7/9/52/777)."""

    kind: TerminalEventKind
    text: str = ""


class TerminalEmulator(Protocol):
    """A terminal screen fed with the bytes a program writes.

    Contract:
    - `feed` never raises, whatever the bytes (absurd parameters are clamped, long strings
      bounded), and keeps a UTF-8 sequence split across two calls.
    - Rows changed since the last `take_dirty` are reported by it (cursor moves are not rows).
    - `take_replies` returns the bytes the terminal must answer to the program (DSR/CPR, DA):
      the caller writes them to the PTY.
    - Lines scrolled off the top of the main screen go to a bounded scrollback; the alternate
      screen never adds to it.
    """

    @property
    def cols(self) -> int: ...

    @property
    def rows(self) -> int: ...

    @property
    def title(self) -> str: ...

    @property
    def cwd(self) -> str | None:
        """The directory the program reported with OSC 7, if any."""

    @property
    def modes(self) -> TerminalModes: ...

    @property
    def synchronized(self) -> bool:
        """True while the program is inside a synchronized update (mode 2026)."""

    def feed(self, data: bytes) -> None: ...

    def resize(self, cols: int, rows: int) -> None: ...

    def take_dirty(self) -> set[int]: ...

    def take_replies(self) -> bytes: ...

    def take_events(self) -> list[TerminalEvent]: ...

    def render_row(self, y: int) -> Row: ...

    def cursor(self) -> Cursor: ...

    def history_size(self) -> int: ...

    def render_history(self, start: int, count: int) -> list[Row]:
        """Scrollback rows `[start, start + count)`, 0 being the oldest line kept."""
