"""Re-wrapping the main screen and its scrollback when the width changes, as tmux does.

Text that autowrapped is one logical line spread over several screen lines (each but the
last marked `wrapped`). When the width changes, each logical line is cut again at the new
width, so narrowing a cell loses nothing and widening it joins the pieces back. Lines that
never wrapped and fit the new width are left as they are, which keeps a resize of a cell
with a full scrollback cheap (only the lines that change are rebuilt).

After the re-wrap the screen shows the last `rows` lines (the history takes the rest, or
blank lines are added below when there are fewer), and the cursor stays on the character it
was on (a cursor past the end of its line's text goes to the end of that text); a cursor that
ends up in the history goes to the top left corner. All of this is what tmux 3.3 does.
"""

from __future__ import annotations

from collections.abc import Sequence

from adapters.emulator.grid import LOW_BYTE, Line
from adapters.emulator.packed_history import PackedHistory
from adapters.emulator.rows import (
    HistoryLine,
    WrappedCells,
    WrappedText,
    compact_line,
    history_cells,
    is_wrapped,
    line_from_history,
)

Item = HistoryLine | Line
"""One screen line as the re-wrap sees it: a scrollback entry or a screen line."""


def _wrapped(item: Item) -> bool:
    return item.wrapped if isinstance(item, Line) else is_wrapped(item)


def _fits(item: Item, cols: int) -> bool:
    """Whether a line that did not wrap keeps its place unchanged at width `cols`."""
    if isinstance(item, Line):
        return len(item.chars) <= cols or item.used() <= cols
    return history_cells(item) <= cols


def _used(item: Item) -> int:
    return item.used() if isinstance(item, Line) else history_cells(item)


def _as_line(item: Item, old_cols: int) -> Line:
    return item if isinstance(item, Line) else line_from_history(item, old_cols)


class _Joined:
    """The cells of one logical line (several screen lines joined)."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.styles = bytearray()
        self.wide = False

    def add(self, line: Line, cells: int) -> None:
        self.chars += line.chars[:cells]
        self.styles += line.styles[: 2 * cells]
        self.wide = self.wide or line.wide

    def cut(self, cols: int) -> list[tuple[int, int]]:
        """(start, end) cell ranges of the pieces at width `cols`; a wide character never
        straddles two pieces (it moves down whole, leaving a blank, as when it was drawn)."""
        chars = self.chars
        total = len(chars)
        pieces: list[tuple[int, int]] = []
        start = 0
        while True:
            end = start + cols
            if end >= total:
                pieces.append((start, total))
                return pieces
            if chars[end] == "":  # `end` is the right half of a wide character
                end = end - 1 if end - 1 > start else end + 1
            pieces.append((start, end))
            start = end

    def piece(self, start: int, end: int, cols: int, wrapped: bool) -> Line:
        line = Line(self.chars[start:end], self.styles[2 * start : 2 * end], self.wide)
        if end - start != cols:
            line = line.resized(cols)
        line.wrapped = wrapped
        line.written = min(end - start, cols)
        return line


def reflow(
    history: PackedHistory,
    grid: list[Line],
    cursor: tuple[int, int],
    old_cols: int,
    cols: int,
    rows: int,
) -> tuple[list[Line], tuple[int, int]]:
    """Re-wrap `history` (changed in place) and `grid` from `old_cols` to `cols` columns.

    Returns the new screen lines (`rows` of them, `cols` wide) and the cursor's new
    (x, y); x may be past the last column (the caller clamps it).
    """
    items: list[Item] = [*history, *grid]
    cursor_x, cursor_at = cursor[0], len(history) + cursor[1]
    out: list[Item] = []
    new_cursor: tuple[int, int] | None = None
    index = 0
    count = len(items)
    while index < count:
        last = index
        while last < count - 1 and _wrapped(items[last]):
            last += 1
        first = items[index]
        if last == index and not _wrapped(first) and _fits(first, cols):
            if cursor_at == index:
                new_cursor = (min(cursor_x, _used(first)), len(out))
            out.append(first)
            index += 1
            continue
        if last < len(history):
            rewrapped = _rewrap_plain(items[index : last + 1], cols)
            if rewrapped is not None:
                out.extend(rewrapped)
                index = last + 1
                continue
        lines = [_as_line(item, old_cols) for item in items[index : last + 1]]
        joined = _Joined()
        offset = -1
        beyond = False
        for position, line in enumerate(lines):
            used = line.used()
            if cursor_at == index + position:
                offset = len(joined.chars) + cursor_x
                beyond = cursor_x >= used
            # Every cell drawn moves; the blank a wide character left when it wrapped
            # whole was never drawn, so the character joins the text before it again.
            joined.add(line, used)
        if beyond:
            offset = len(joined.chars)  # past the text: to its end, as tmux puts it
        pieces = joined.cut(cols)
        for number, (start, end) in enumerate(pieces):
            final = number == len(pieces) - 1
            if offset >= 0 and start <= offset and (offset < end or final):
                new_cursor = (offset - start, len(out))
                offset = -1
            out.append(joined.piece(start, end, cols, lines[-1].wrapped if final else True))
        index = last + 1

    while len(out) < rows:
        out.append(Line.blank(cols))
    kept = len(out) - rows
    history.clear()
    history.extend(item if not isinstance(item, Line) else compact_line(item)
                   for item in out[:kept])
    screen = [_screen_line(item, cols) for item in out[kept:]]
    if new_cursor is None or new_cursor[1] < kept:
        return screen, (0, 0)
    return screen, (new_cursor[0], new_cursor[1] - kept)


def _rewrap_plain(entries: Sequence[Item], cols: int) -> list[Item] | None:
    """The fast way for scrollback text with one code point per cell (nearly all of it):
    the pieces are slices of the joined text and styles. None for any other entry."""
    texts: list[str] = []
    size = 1  # style bytes per cell: 1 while every id is below 256 (see rows.py), else 2
    for entry in entries:
        if isinstance(entry, str):
            texts.append(entry)
        elif isinstance(entry, tuple) and len(entry) == 2:
            texts.append(entry[0])
            if len(entry[1]) != len(entry[0]):
                size = 2
        else:
            return None
    styles = b"".join(_styles_of(entry, size) for entry in entries)
    text = "".join(texts)
    total = len(text)
    pieces: list[Item] = []
    last_wrapped = is_wrapped(entries[-1])  # type: ignore[arg-type]
    for start in range(0, max(total, 1), cols):
        end = min(start + cols, total)
        wrapped = end < total or last_wrapped
        piece_text = text[start:end]
        piece_style = styles[size * start : size * end]
        if not piece_style.strip(b"\0"):
            pieces.append(WrappedText(piece_text) if wrapped else piece_text)
            continue
        if size == 2 and not piece_style[1 - LOW_BYTE :: 2].strip(b"\0"):
            piece_style = piece_style[LOW_BYTE::2]  # back to 1 byte per cell
        cells = (piece_text, piece_style)
        pieces.append(WrappedCells(cells) if wrapped else cells)
    return pieces


def _styles_of(entry: Item, size: int) -> bytes:
    if isinstance(entry, str):
        return bytes(size * len(entry))
    assert isinstance(entry, tuple)
    text, styles = entry[0], entry[1]
    if size == 1 or len(styles) != len(text):
        return styles
    wide = bytearray(2 * len(styles))
    wide[LOW_BYTE::2] = styles
    return bytes(wide)


def _screen_line(item: Item, cols: int) -> Line:
    if not isinstance(item, Line):
        return line_from_history(item, cols)
    return item if len(item.chars) == cols else item.resized(cols)
