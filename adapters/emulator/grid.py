"""Screen lines, character widths, and conversion of lines to `Row`s and scrollback entries.

A `Line` holds one string per cell (`chars`) and one interned style per cell (`styles`), two
parallel lists of the screen width. The cell right of a wide character holds `""` so that
`"".join(chars)` yields the visible text; combining marks are appended to the cell they modify.
Lists of shared objects make the hot operations C-level slice assignments.

Scrollback keeps lines in a compact form (`HistoryLine`), a few hundred bytes for a 120-column
line: a `str` when the whole line has the default style, else `(text, style, n, style, n, …)`
where each `n` counts characters of `text`. Trailing default blanks are not stored.
"""

from __future__ import annotations

from wcwidth import wcwidth

from adapters.emulator.styles import DEFAULT_STYLE, Style, intern_style
from core.terminal import Row, Run

HistoryLine = str | tuple[object, ...]

_WIDTHS: dict[str, int] = {}
_WIDTH_CACHE_LIMIT = 200_000
NARROW: set[str] = set()
"""Characters known to take exactly one cell; `NARROW.issuperset(text)` is the C-speed test that
lets non-ASCII text (box drawing, accents) take the drawing fast path."""
_NARROW_LIMIT = 50_000
# Cap on the code points one cell may accumulate (combining marks, ZWJ sequences), so a
# stream of marks cannot grow a cell without bound.
MAX_CELL_CHARS = 16


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


class Line:
    """One screen line: parallel per-cell lists of characters and styles."""

    __slots__ = ("chars", "styles")

    def __init__(self, chars: list[str], styles: list[Style]) -> None:
        self.chars = chars
        self.styles = styles

    @classmethod
    def blank(cls, cols: int, style: Style = DEFAULT_STYLE) -> Line:
        return cls([" "] * cols, [style] * cols)

    def is_blank(self) -> bool:
        cols = len(self.chars)
        return self.chars.count(" ") == cols and self.styles.count(DEFAULT_STYLE) == cols

    def split_guard(self, x: int) -> None:
        """Blank a wide character that straddles the boundary before cell `x`.

        Called at both edges of every write, erase and shift so that a wide character never
        loses one of its halves (which would break the width invariant of rendered rows).
        """
        chars = self.chars
        if 0 < x < len(chars) and chars[x] == "":
            chars[x - 1] = " "
            chars[x] = " "

    def fix_tail(self) -> None:
        """Blank a wide character pushed into the last cell (its right half fell off)."""
        last = self.chars[-1]
        if last and char_width(last[0]) == 2:
            self.chars[-1] = " "

    def resized(self, cols: int, fill: Style = DEFAULT_STYLE) -> Line:
        """A copy cut or padded to `cols` cells."""
        have = len(self.chars)
        if cols >= have:
            pad = cols - have
            return Line(self.chars + [" "] * pad, self.styles + [fill] * pad)
        line = Line(self.chars[:cols], self.styles[:cols])
        line.fix_tail()
        return line


def runs_of(line: Line) -> list[tuple[str, Style]]:
    """Split a line into `(text, style)` runs of equal style, placeholders dropped."""
    chars = line.chars
    styles = line.styles
    first = styles[0]
    if styles.count(first) == len(styles):
        return [("".join(chars), first)]
    runs: list[tuple[str, Style]] = []
    current = first
    start = 0
    for index, style in enumerate(styles):
        if style is not current and style != current:
            text = "".join(chars[start:index])
            if text:
                runs.append((text, current))
            current = style
            start = index
    text = "".join(chars[start:])
    if text:
        runs.append((text, current))
    return runs


def render_line(line: Line, reverse_video: bool = False) -> Row:
    """The `Row` (tuple of runs) a line shows."""
    styles = line.styles
    first = styles[0]
    if not reverse_video and styles.count(first) == len(styles):
        return (("".join(line.chars), *first),)
    if reverse_video:
        return tuple((text, fg, bg, attrs ^ 32) for text, (fg, bg, attrs) in runs_of(line))
    return tuple((text, *style) for text, style in runs_of(line))


def compact_line(line: Line) -> HistoryLine:
    """The scrollback entry for a line scrolled off the top."""
    styles = line.styles
    first = styles[0]
    if styles.count(first) == len(styles):
        text = "".join(line.chars)
        if first == DEFAULT_STYLE:
            return text.rstrip(" ")
        return (text, first, len(text))
    runs = runs_of(line)
    while runs and runs[-1][1] == DEFAULT_STYLE:
        text = runs[-1][0].rstrip(" ")
        if text:
            runs[-1] = (text, DEFAULT_STYLE)
            break
        runs.pop()
    entry: list[object] = ["".join(text for text, _ in runs)]
    for text, style in runs:
        entry.append(style)
        entry.append(len(text))
    return tuple(entry)


def _fit(runs: list[Run], cols: int) -> Row:
    """Pad with default blanks or cut so the runs cover exactly `cols` cells."""
    used = 0
    fitted: list[Run] = []
    for run in runs:
        width = text_width(run[0])
        if used + width <= cols:
            fitted.append(run)
            used += width
            continue
        kept: list[str] = []
        for char in run[0]:
            char_cells = max(char_width(char), 0)
            if used + char_cells > cols:
                break
            kept.append(char)
            used += char_cells
        if kept:
            fitted.append(("".join(kept), run[1], run[2], run[3]))
        break
    if used < cols:
        fitted.append((" " * (cols - used), *DEFAULT_STYLE))
    return tuple(fitted)


def expand_history(entry: HistoryLine, cols: int) -> Row:
    """The `Row` for a scrollback entry, fitted to the current width (no reflow)."""
    if isinstance(entry, str):
        if entry.isascii() and len(entry) <= cols:
            return ((entry + " " * (cols - len(entry)), *DEFAULT_STYLE),)
        return _fit([(entry, *DEFAULT_STYLE)], cols)
    text = entry[0]
    assert isinstance(text, str)
    runs: list[Run] = []
    pos = 0
    for index in range(1, len(entry), 2):
        style = entry[index]
        count = entry[index + 1]
        assert isinstance(count, int) and isinstance(style, tuple)
        fg, bg, attrs = style
        runs.append((text[pos : pos + count], fg, bg, attrs))
        pos += count
    return _fit(runs, cols)


def history_text(entry: HistoryLine) -> str:
    """The text of a scrollback entry, trailing blanks dropped."""
    if isinstance(entry, str):
        return entry
    text = entry[0]
    assert isinstance(text, str)
    return text.rstrip(" ")


def line_from_history(entry: HistoryLine, cols: int) -> Line:
    """Cells again for a scrollback entry (a resize that grows pulls lines back)."""
    chars: list[str] = []
    styles: list[Style] = []
    for text, fg, bg, attrs in expand_history(entry, cols):
        style = intern_style((fg, bg, attrs))
        for char in text:
            width = char_width(char)
            if width == 0 and chars:
                chars[-1 if chars[-1] else -2] += char
            elif width == 2:
                chars += (char, "")
                styles += (style, style)
            elif width == 1:
                chars.append(char)
                styles.append(style)
    return Line(chars, styles)
