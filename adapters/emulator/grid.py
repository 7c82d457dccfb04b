"""Screen lines, character widths and the style table.

A `Line` holds one string per cell (`chars`) and a 2-byte style id per cell (`styles`, a
`bytearray`). The cell right of a wide character holds `""`, so `"".join(chars)` is the visible
text; combining marks are appended to the cell they modify. Drawing a run is then two C-level
slice assignments, and a line goes to scrollback as `bytes(styles)` without looking at its
cells, which is what keeps SGR-heavy output fast (see `rows.compact_line`).

Style ids come from a per-screen `StyleTable` (id 0 is the default style). Ids are recycled
when the table fills: the screen collects the ids still in use and frees the others.
"""

from __future__ import annotations

import sys

from wcwidth import wcwidth

from adapters.emulator.styles import DEFAULT_STYLE, Style

_WIDTHS: dict[str, int] = {}
_WIDTH_CACHE_LIMIT = 200_000
NARROW: set[str] = set()
"""Characters known to take exactly one cell; `NARROW.issuperset(text)` is the C-speed test that
lets non-ASCII text (box drawing, accents) take the drawing fast path."""
_NARROW_LIMIT = 50_000
# Cap on the code points one cell may accumulate (combining marks, ZWJ sequences), so a
# stream of marks cannot grow a cell without bound.
MAX_CELL_CHARS = 16
DEFAULT_KEY = b"\x00\x00"
# Distinct styles alive at once (on screen and in scrollback). Output such as images drawn
# with truecolor cells can exceed it; `IdeaScreen.key_of` then falls back to the 256-colour
# palette, which keeps memory bounded (a full table is about 1.5 MB).
MAX_STYLES = 8_192
# Which byte of a cell's id holds the low 8 bits (ids are stored in native order).
LOW_BYTE = 0 if sys.byteorder == "little" else 1


def char_width(char: str) -> int:
    """Cells taken by one code point (wcwidth): 0 combining, 1, 2 wide, -1 unprintable."""
    width = _WIDTHS.get(char)
    if width is None:
        width = wcwidth(char)
        if len(_WIDTHS) < _WIDTH_CACHE_LIMIT:
            _WIDTHS[char] = width
        if width == 1 and len(NARROW) < _NARROW_LIMIT:
            NARROW.add(char)
    return width


def text_width(text: str) -> int:
    """Cells taken by text stored in cells (every code point is printable)."""
    if text.isascii():
        return len(text)
    return sum(width for width in map(char_width, text) if width > 0)


def style_key(index: int) -> bytes:
    return index.to_bytes(2, sys.byteorder)


class StyleTable:
    """Two-way map between styles and the 2-byte ids stored in cells."""

    def __init__(self) -> None:
        self.styles: list[Style | None] = [DEFAULT_STYLE]
        self.keys: dict[Style, bytes] = {DEFAULT_STYLE: DEFAULT_KEY}
        self._free: list[int] = []

    def used(self) -> int:
        return len(self.styles) - len(self._free)

    def full(self) -> bool:
        return not self._free and len(self.styles) >= MAX_STYLES

    def style(self, key: bytes) -> Style:
        return self.styles[int.from_bytes(key, sys.byteorder)] or DEFAULT_STYLE

    def style_at(self, index: int) -> Style:
        return self.styles[index] or DEFAULT_STYLE

    def add(self, style: Style) -> bytes:
        """The id for a style not in the table; the default id when the table is full."""
        if self._free:
            index = self._free.pop()
        elif len(self.styles) < MAX_STYLES:
            index = len(self.styles)
            self.styles.append(None)
        else:
            return DEFAULT_KEY  # more distinct styles alive than ids: degrade, never fail
        key = style_key(index)
        self.styles[index] = style
        self.keys[style] = key
        return key

    def collect(self, live: set[int]) -> None:
        """Free every id not in `live`."""
        for index in range(1, len(self.styles)):
            style = self.styles[index]
            if style is not None and index not in live:
                del self.keys[style]
                self.styles[index] = None
                self._free.append(index)


class Line:
    """One screen line: per-cell characters and 2-byte style ids.

    `wide` is set once a wide character or a combining mark has been written (so `chars` may
    not hold exactly one code point per cell); it lets scrollback store simple lines without
    per-cell bookkeeping.
    """

    __slots__ = ("chars", "styles", "view", "wide", "wrapped", "written")

    def __init__(self, chars: list[str], styles: bytearray, wide: bool = False) -> None:
        self.chars = chars
        self.styles = styles
        # Writes go through a memoryview: a same-size slice assignment on it is a bare
        # memcpy, three times cheaper than on the bytearray. The export also forbids resizing
        # `styles`, which keeps every line exactly 2 bytes per cell.
        self.view = memoryview(styles)
        self.wide = wide
        # Text ran past the end of this line onto the next (autowrap); backspace at the
        # start of the next line returns here, as in tmux.
        self.wrapped = False
        # Cells up to the last one a character was drawn in (spaces included), which is
        # how much of the line reflow moves, as tmux counts it; reset when the line is
        # cleared whole.
        self.written = 0

    @classmethod
    def blank(cls, cols: int, key: bytes = DEFAULT_KEY) -> Line:
        return cls([" "] * cols, bytearray(key * cols))

    def is_blank(self) -> bool:
        cols = len(self.chars)
        return self.chars.count(" ") == cols and self.styles.count(DEFAULT_KEY) == cols

    def split_guard(self, x: int) -> None:
        """Blank a wide character that straddles the boundary before cell `x`.

        Called at both edges of every write, erase and shift so that a wide character never
        loses one of its halves (which would break the width invariant of rendered rows). The
        half left behind becomes a default blank, as tmux leaves it.
        """
        chars = self.chars
        if 0 < x < len(chars) and chars[x] == "":
            chars[x - 1] = " "
            chars[x] = " "
            self.view[2 * x - 2 : 2 * x + 2] = DEFAULT_KEY * 2

    def fix_tail(self) -> None:
        """Blank a wide character pushed into the last cell (its right half fell off)."""
        last = self.chars[-1]
        if last and char_width(last[0]) == 2:
            self.chars[-1] = " "

    def used(self) -> int:
        """Cells that carry the line's text (what reflow moves): up to the last cell drawn
        in or the last one that is not a default blank, whichever is further."""
        chars = self.chars
        styles = self.styles
        end = len(chars)
        floor = min(self.written, end)
        while (end > floor and chars[end - 1] == " "
               and styles[2 * end - 2 : 2 * end] == DEFAULT_KEY):
            end -= 1
        return end

    def resized(self, cols: int) -> Line:
        """A copy cut or padded (with default blanks) to `cols` cells."""
        have = len(self.chars)
        if cols >= have:
            pad = cols - have
            line = Line(self.chars + [" "] * pad, self.styles + DEFAULT_KEY * pad, self.wide)
        else:
            line = Line(self.chars[:cols], self.styles[: 2 * cols], self.wide)
            line.fix_tail()
        line.wrapped = self.wrapped
        line.written = min(self.written, cols)
        return line
