"""libghostty-vt's raw cells to `core.terminal` rows (styled runs), without a call per cell.

A raw cell is Ghostty's packed 64-bit `page.Cell` (read through the render state's
`ROW_DATA_CELLS_RAW`, one buffer per row):

    bits 0-1   content tag: 0 codepoint, 1 codepoint + grapheme, 2 bg palette, 3 bg rgb
    bits 2-25  the codepoint (21 bits), or the palette index / rgb of a colour-only cell
    bits 26-41 the style id (0 = default; resolved through the row's cell iterator)
    bits 42-43 width: 0 narrow, 1 wide, 2 spacer tail (right half of a wide char),
               3 spacer head (a wide char that wrapped, leaving the last column empty)

The layout is checked against `ghostty_cell_get` by the backend's tests. A style id means
something only inside its page, so styles are looked up per row (once per distinct id) and
never cached across rows.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from functools import lru_cache
from itertools import groupby
from typing import Any

from wcwidth import wcwidth

from core.terminal import DEFAULT_COLOR, TRUECOLOR_FLAG, Attr, Row, Run

Style = tuple[int, int, int]
PLAIN: Style = (DEFAULT_COLOR, DEFAULT_COLOR, 0)
_BG_KEY = 1 << 30
_SPECIAL = (3 << 42) | 3  # a width other than narrow, or content other than a code point
_REVERSE = int(Attr.REVERSE)
_UNDERLINES = (
    0,
    int(Attr.UNDERLINE),
    int(Attr.DOUBLE_UNDERLINE),
    int(Attr.CURLY_UNDERLINE),
    int(Attr.DOTTED_UNDERLINE),
    int(Attr.DASHED_UNDERLINE),
)
# Grapheme clusters longer than this are cut (a hostile program could send thousands of
# combining marks to one cell).
MAX_GRAPHEME = 32


def colour(lib: Any, value: Any) -> int:
    """A `GhosttyStyleColor` in `core.terminal`'s encoding."""
    tag = value.tag
    if tag == lib.GHOSTTY_STYLE_COLOR_PALETTE:
        return int(value.value.palette)
    if tag == lib.GHOSTTY_STYLE_COLOR_RGB:
        rgb = value.value.rgb
        return TRUECOLOR_FLAG | (int(rgb.r) << 16) | (int(rgb.g) << 8) | int(rgb.b)
    return DEFAULT_COLOR


def style_tuple(lib: Any, style: Any) -> Style:
    """A `GhosttyStyle` as `(fg, bg, attrs)`."""
    attrs = 0
    if style.bold:
        attrs |= Attr.BOLD
    if style.faint:
        attrs |= Attr.DIM
    if style.italic:
        attrs |= Attr.ITALIC
    if style.blink:
        attrs |= Attr.BLINK
    if style.inverse:
        attrs |= Attr.REVERSE
    if style.invisible:
        attrs |= Attr.HIDDEN
    if style.strikethrough:
        attrs |= Attr.STRIKE
    if style.overline:
        attrs |= Attr.OVERLINE
    underline = style.underline
    if 0 < underline < len(_UNDERLINES):
        attrs |= _UNDERLINES[underline]
    return (colour(lib, style.fg_color), colour(lib, style.bg_color), int(attrs))


def bg_style(raw: int) -> Style:
    """The style of a colour-only cell (erased with a background colour)."""
    value = (raw >> 2) & 0xFFFFFF
    if raw & 3 == 2:
        return (DEFAULT_COLOR, value & 0xFF, 0)
    red, green, blue = value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF
    return (DEFAULT_COLOR, TRUECOLOR_FLAG | (red << 16) | (green << 8) | blue, 0)


def build_row(
    cells: memoryview,
    style_at: Callable[[int], Style],
    grapheme_at: Callable[[int], str],
    reverse: bool = False,
) -> Row:
    """The runs of one row.

    Args:
        cells: The row's raw cells (`memoryview` cast to `Q`).
        style_at: The style of the cell at column x (called once per distinct style id).
        grapheme_at: The whole cluster of the cell at column x (content tag 1).
        reverse: DECSCNM (reverse video) is on: every run's REVERSE bit flips, as pyte's
            backend does.
    """
    if not any([raw & _SPECIAL for raw in cells]):
        return _simple_row(cells, style_at, reverse)
    keys: list[int] = []
    chars: list[str] = []
    xs: list[int] = []
    for x, raw in enumerate(cells):
        wide = (raw >> 42) & 3
        if wide == 2:
            continue  # the right half of a wide character: its text is on the left half
        tag = raw & 3
        if tag >= 2:
            keys.append(_BG_KEY | (raw & 0x3FFFFFF))
            chars.append(" ")
        else:
            keys.append((raw >> 26) & 0xFFFF)
            if tag == 1:
                chars.append(fit(grapheme_at(x), 2 if wide == 1 else 1))
            else:
                cp = (raw >> 2) & 0x1FFFFF
                char = chr(cp) if cp else " "
                if wide == 1:
                    char = fit(char, 2)
                elif cp >= 0x300 and not _one_cell(char):
                    char = fit(char, 1)
                chars.append(char)
        xs.append(x)
    runs: list[Run] = []
    styles: dict[int, Style] = {0: PLAIN}
    start = 0
    count = len(keys)
    while start < count:
        key = keys[start]
        end = start + 1
        while end < count and keys[end] == key:
            end += 1
        style = styles.get(key)
        if style is None:
            style = bg_style(key) if key & _BG_KEY else style_at(xs[start])
            styles[key] = style
        fg, bg, attrs = style
        runs.append(("".join(chars[start:end]), fg, bg, attrs ^ _REVERSE if reverse else attrs))
        start = end
    return _merge(runs)


def _simple_row(cells: memoryview, style_at: Callable[[int], Style], reverse: bool) -> Row:
    """`build_row` for the common row: every cell narrow and holding a code point (or
    nothing). The text is decoded in one go (code points as UTF-32), the runs are found on
    the style ids."""
    codes = array("I", [(raw >> 2) & 0x1FFFFF for raw in cells])
    text = codes.tobytes().decode("utf-32-le", "replace").replace("\0", " ")
    if codes and max(codes) >= 0x300 and not all(map(_one_cell, text)):
        # A character wcwidth does not call one cell wide in a narrow cell: text made to
        # measure per cell (slicing below stays per cell: one string per cell).
        return _fitted_row(cells, text, style_at, reverse)
    keys = [(raw >> 26) & 0xFFFF for raw in cells]
    first = keys[0] if keys else 0
    if keys.count(first) == len(keys):
        fg, bg, attrs = style_at(0) if first else PLAIN
        return ((text, fg, bg, attrs ^ _REVERSE if reverse else attrs),)
    runs: list[Run] = []
    styles: dict[int, Style] = {0: PLAIN}
    start = 0
    for key, group in groupby(keys):
        end = start + len(list(group))
        style = styles.get(key)
        if style is None:
            style = styles[key] = style_at(start)
        fg, bg, attrs = style
        runs.append((text[start:end], fg, bg, attrs ^ _REVERSE if reverse else attrs))
        start = end
    return _merge(runs)


@lru_cache(maxsize=8192)
def _one_cell(char: str) -> bool:
    return wcwidth(char) == 1


def _fitted_row(cells: memoryview, text: str, style_at: Callable[[int], Style],
                reverse: bool) -> Row:
    chars = [char if _one_cell(char) else fit(char, 1) for char in text]
    keys = [(raw >> 26) & 0xFFFF for raw in cells]
    runs: list[Run] = []
    styles: dict[int, Style] = {0: PLAIN}
    start = 0
    for key, group in groupby(keys):
        end = start + len(list(group))
        style = styles.get(key)
        if style is None:
            style = styles[key] = style_at(start)
        fg, bg, attrs = style
        runs.append(("".join(chars[start:end]), fg, bg, attrs ^ _REVERSE if reverse else attrs))
        start = end
    return _merge(runs)


def fit(text: str, cells: int) -> str:
    """`text` as clients measure it (wcwidth per code point) covering exactly `cells` cells.

    Ghostty's widths are its own Unicode tables' (a ZWJ emoji family is one wide cell, a
    DEC-graphics blank can stay in a wide cell); a row whose text measures wider or
    narrower than the screen would shift everything after it on the client.
    """
    width = _width(text)
    if width == cells:
        return text
    base = text[0]
    width = wcwidth(base)
    if width == cells:
        return base
    if width < 0:  # a control character: nothing the client must interpret
        return " " * cells
    if width == 0:  # a lone mark: on a space, as terminals draw it
        return " " + base + " " * (cells - 1)
    if 0 < width < cells:
        return base + " " * (cells - width)
    return "\ufffd" + " " * (cells - 1)  # wider than its cells: a replacement character


def _width(text: str) -> int:
    # Per code point, as the client (Rich) and pyte's backend measure: VS16 adds nothing.
    return sum(max(wcwidth(char), 0) for char in text)


def _merge(runs: list[Run]) -> Row:
    """Adjacent runs of one style as one (two style ids can hold equal styles)."""
    if len(runs) < 2:
        return tuple(runs)
    merged: list[Run] = [runs[0]]
    for run in runs[1:]:
        last = merged[-1]
        if last[1:] == run[1:]:
            merged[-1] = (last[0] + run[0], *last[1:])
        else:
            merged.append(run)
    return tuple(merged)


def blank_row(cols: int) -> Row:
    return ((" " * cols, *PLAIN),)
