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

from collections.abc import Iterable, Iterator
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

Links = tuple[tuple[int, str], ...]
"""A row's hyperlinks (OSC 8): `(run index, URI)` pairs in run order, each URI accepted by
`core.hyperlinks.safe_uri`."""


class LinkedRow(tuple[Run, ...]):
    """A `Row` some of whose runs are hyperlinks: the runs as any row's, plus `links`.

    Why a subclass and not a fifth run field: rows without links are nearly all rows, and
    the hot paths (emulators, frames, the client's strips) unpack `(text, fg, bg, attrs)`
    everywhere; those paths and their types stay as they are, and only a row that has links
    pays for them. A linked run is always a run of its own (a link boundary cuts runs), so
    a link never changes a row's text or cell widths.

    Equality and hashing include `links`: a row whose link changed is a changed row (to the
    daemon's row versions and the client's strip cache), and a plain tuple never equals a
    `LinkedRow` (Python asks the subclass first, whichever side it is on).
    """

    links: Links

    def __new__(cls, runs: Iterable[Run], links: Links) -> LinkedRow:
        row = super().__new__(cls, runs)
        row.links = links
        return row

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, LinkedRow) and self.links == other.links
                and tuple.__eq__(self, other))

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((tuple.__hash__(self), self.links))

    def __repr__(self) -> str:
        return f"LinkedRow({tuple.__repr__(self)}, links={self.links!r})"


def row_links(row: Row) -> Links:
    """The hyperlinks of a row, `()` for a row without any.

    >>> row_links(LinkedRow([("see ", -1, -1, 0), ("docs", -1, -1, 0)], ((1, "https://x"),)))
    ((1, 'https://x'),)
    >>> row_links((("plain", -1, -1, 0),))
    ()
    """
    return row.links if type(row) is LinkedRow else ()


def with_links(runs: Iterable[Run], links: Links) -> Row:
    """The row of `runs` with `links`: a `LinkedRow` only if there are any."""
    return LinkedRow(runs, links) if links else tuple(runs)


def links_of_rows(rows: Iterable[tuple[int, Row]]) -> list[tuple[int, Links]]:
    """`(key, links)` for the rows that have links, as they travel beside rows on the wire
    (`adapters.ipc.messages.CellFrame.links`)."""
    return [(key, row.links) for key, row in rows if type(row) is LinkedRow]


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
    kitty_keys: int = 0
    """The kitty keyboard protocol flags the program pushed (`CSI > flags u`, see
    `core/kitty_keys.py`); 0: legacy key encoding. Only backends that track the protocol
    (libghostty-vt) set it, and only they answer a program's `CSI ? u` question."""


class TerminalEventKind(IntEnum):
    BELL = 1
    TITLE = 2
    CWD = 3
    NOTIFY = 4
    CLIPBOARD = 5
    ACTIVITY = 6
    """Not from the program: the daemon saw output after a quiet spell."""
    SILENCE = 7
    """Not from the program: the daemon saw no output for a while after some."""


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

    def row_text(self, y: int) -> str:
        """`row_text(render_row(y))`: what the daemon reads of an agent's screen to tell
        its state; a backend may answer it without resolving the row's styles."""

    def cursor(self) -> Cursor: ...

    def history_size(self) -> int: ...

    def render_history(self, start: int, count: int) -> list[Row]:
        """Scrollback rows `[start, start + count)`, 0 being the oldest line kept."""

    def compact_step(self) -> bool:
        """One short step (a millisecond or so, a few at most) of work that shrinks the
        memory the scrollback takes, run while the cell is idle; True while more steps
        remain. What is shown and kept never changes. A backend with nothing to compact
        returns False."""


HISTORY_BLOCK = 1000
"""Rows of scrollback `history_rows` reads at a time."""


def history_rows(emulator: TerminalEmulator, start: int, count: int) -> Iterator[Row]:
    """Scrollback rows `[start, start + count)`, read `HISTORY_BLOCK` at a time: whoever goes
    through a whole history (a capture) holds one block of rows at once, not all of them
    (10,000 rows as Python objects are some 40 MB). Consume it before the cell reads more
    output: the lines would move under it."""
    end = start + max(count, 0)
    while start < end:
        block = emulator.render_history(start, min(HISTORY_BLOCK, end - start))
        if not block:
            return
        yield from block
        start += len(block)


def row_text(row: Row) -> str:
    """The characters a row shows, wide characters once, trailing blanks kept.

    >>> row_text((("ab", -1, -1, 0), ("c ", 1, -1, Attr.BOLD)))
    'abc '
    """
    return "".join(run[0] for run in row)


_PLAIN = (DEFAULT_COLOR, DEFAULT_COLOR, 0)
_SGR_ATTRS = (
    (Attr.BOLD, "1"),
    (Attr.DIM, "2"),
    (Attr.ITALIC, "3"),
    (Attr.UNDERLINE, "4"),
    (Attr.BLINK, "5"),
    (Attr.REVERSE, "7"),
    (Attr.HIDDEN, "8"),
    (Attr.STRIKE, "9"),
    (Attr.DOUBLE_UNDERLINE, "4:2"),
    (Attr.CURLY_UNDERLINE, "4:3"),
    (Attr.DOTTED_UNDERLINE, "4:4"),
    (Attr.DASHED_UNDERLINE, "4:5"),
    (Attr.OVERLINE, "53"),
)


def _colour_codes(colour: int, base: int) -> str:
    """SGR parameters for a colour; `base` is 30 (foreground) or 40 (background)."""
    if colour == DEFAULT_COLOR:
        return str(base + 9)
    if colour & TRUECOLOR_FLAG:
        return f"{base + 8};2;{(colour >> 16) & 255};{(colour >> 8) & 255};{colour & 255}"
    if colour < 8:
        return str(base + colour)
    if colour < 16:
        return str(base + 60 + colour - 8)
    return f"{base + 8};5;{colour}"


def _transition(before: tuple[int, int, int], after: tuple[int, int, int]) -> str:
    codes: list[str] = []
    old_fg, old_bg, old_attrs = before
    fg, bg, attrs = after
    if old_attrs & ~attrs:
        # An attribute is removed: start from a reset, as tmux does.
        codes.append("0")
        old_fg, old_bg, old_attrs = DEFAULT_COLOR, DEFAULT_COLOR, 0
    codes.extend(code for bit, code in _SGR_ATTRS if attrs & bit and not old_attrs & bit)
    if fg != old_fg:
        codes.append(_colour_codes(fg, 30))
    if bg != old_bg:
        codes.append(_colour_codes(bg, 40))
    return f"\x1b[{';'.join(codes)}m" if codes else ""


def rows_to_ansi(rows: Iterable[Row]) -> str:
    """Rows as text with SGR sequences, one line per row, in the manner of
    `tmux capture-pane -e -p`: codes only where the style changes (the style carries over
    from one line to the next), a reset first when an attribute is removed, trailing
    default-style blanks dropped.

    >>> rows_to_ansi([(("a", 1, -1, Attr.BOLD), ("b ", -1, -1, 0))])
    '\\x1b[1;31ma\\x1b[0mb'
    """
    lines: list[str] = []
    style = _PLAIN
    for row in rows:
        runs = list(row)
        while runs and runs[-1][1:] == _PLAIN and not runs[-1][0].strip(" "):
            runs.pop()
        if runs and runs[-1][1:] == _PLAIN:
            runs[-1] = (runs[-1][0].rstrip(" "), *_PLAIN)
        parts: list[str] = []
        for text, fg, bg, attrs in runs:
            parts.append(_transition(style, (fg, bg, attrs)))
            style = (fg, bg, attrs)
            parts.append(text)
        lines.append("".join(parts))
    return "\n".join(lines)
