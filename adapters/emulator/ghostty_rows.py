"""libghostty-vt's raw cells to `core.terminal` rows (styled runs), without a call per cell.

A raw cell is Ghostty's packed 64-bit `page.Cell` (read through the render state's
`ROW_DATA_CELLS_RAW`, one buffer per row):

    bits 0-1   content tag: 0 codepoint, 1 codepoint + grapheme, 2 bg palette, 3 bg rgb
    bits 2-25  the codepoint (21 bits), or the palette index / rgb of a colour-only cell
    bits 26-41 the style id (0 = default; resolved through the row's cell iterator)
    bits 42-43 width: 0 narrow, 1 wide, 2 spacer tail (right half of a wide char),
               3 spacer head (a wide char that wrapped, leaving the last column empty)
    bit 45     the cell carries a hyperlink (OSC 8), kept in its page: its URI is asked
               through the backend (`uri_at`) only for rows that have such cells

The layout is checked against `ghostty_cell_get` by the backend's tests. A style id means
something only inside its page, so styles are looked up per row (once per distinct id) and
never cached across rows.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import groupby
from typing import Any

from wcwidth import wcwidth

from adapters.emulator.links import cut_at_links
from core.terminal import DEFAULT_COLOR, TRUECOLOR_FLAG, Attr, Row, Run

Style = tuple[int, int, int]
PLAIN: Style = (DEFAULT_COLOR, DEFAULT_COLOR, 0)
_BG_KEY = 1 << 30
_KEY_BITS = (1 << 42) - 1  # a cell's style id (bits 26-41), or a colour-only cell's colour
# A wide character's right half while a row is cut into runs by cells: a surrogate, which
# no cell ever holds, removed from each run's text afterwards.
_TAIL = "\ud800"
_SPECIAL = (3 << 42) | 3  # a width other than narrow, or content other than a code point
_LINKED = 1 << 45
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


@lru_cache(maxsize=64)
def _masks(count: int) -> tuple[int, int, int, int, int, int, int]:
    """Per-row bit masks for `count` cells (a row as one integer, cell x at bits 64x..).

    `(special, non_ascii, wide_cp, cp21, key16, unit, linked)`: a width or content other
    than a narrow code point, or a hyperlink; a code point of 128 or more; one of 256 or
    more; the code point field; the style id field (shifted down to bit 0); 1 in every
    cell's lowest bit; the hyperlink bit.
    """
    unit = sum(1 << (64 * x) for x in range(count))
    return (
        unit * (_SPECIAL | _LINKED),
        unit * (0x1FFF80 << 2),
        unit * (0x1FFF00 << 2),
        unit * 0x1FFFFF,
        unit * 0xFFFF,
        unit,
        unit * _LINKED,
    )


def build_row(
    raw: bytes,
    style_at: Callable[[int, int], Style],
    grapheme_at: Callable[[int], str],
    reverse: bool = False,
    uri_at: Callable[[int], str | None] | None = None,
) -> Row:
    """The runs of one row.

    Args:
        raw: The row's raw cells (8 bytes each, little-endian, as the render state gives).
        style_at: The style of the cell at column x, whose style id is given (called once
            per distinct style id).
        grapheme_at: The whole cluster of the cell at column x (content tag 1).
        reverse: DECSCNM (reverse video) is on: every run's REVERSE bit flips, as pyte's
            backend does.
        uri_at: The URI of the link of the cell at column x (only asked for cells whose
            hyperlink bit is set), or None if refused; without it links are left out.

    The common row (every cell narrow, holding a code point or nothing) is decoded with a
    handful of whole-row operations on the row as one integer, never a Python step per
    cell: a 120-column row costs a few microseconds plus one step per run. Rows without
    links pay nothing for them (the hyperlink bit is tested with the other rare ones); a
    row with links pays a second build and a call per linked cell.
    """
    count = len(raw) // 8
    if not count:
        return ()
    special, non_ascii, wide_cp, cp21, key16, unit, linked = _masks(count)
    whole = int.from_bytes(raw, "little")
    if whole & special:  # the hyperlink bit is in `special`: plain rows pay nothing for it
        if whole & linked:
            return _linked_row(raw, whole, (unit, linked), style_at, grapheme_at, reverse,
                               uri_at)
        return _special_row(raw, whole, style_at, grapheme_at, reverse)
    codes = ((whole >> 2) & cp21).to_bytes(len(raw), "little")
    if not whole & non_ascii:
        text = codes[::8].decode("ascii").replace("\0", " ")
    else:
        text = (memoryview(codes).cast("I")[::2].tobytes()
                .decode("utf-32-le", "replace").replace("\0", " "))
        if whole & wide_cp and not all(map(_one_cell, set(text))):
            # A character wcwidth does not call one cell wide in a narrow cell: text made
            # to measure per cell (slicing below stays per cell: one string per cell).
            return _fitted_row(memoryview(raw).cast("Q"), text, style_at, reverse)
    keys = (whole >> 26) & key16
    first = keys & 0xFFFF
    if keys == first * unit:
        fg, bg, attrs = style_at(0, first) if first else PLAIN
        return ((text, fg, bg, attrs ^ _REVERSE if reverse else attrs),)
    # Where the style id changes: cell x differs from cell x + 1, folded to one bit per
    # cell, one byte per cell (the last cell never starts a new run).
    change = (keys ^ (keys >> 64)) & (key16 >> 64)
    change |= change >> 8
    change |= change >> 4
    change |= change >> 2
    change |= change >> 1
    ends = (change & unit).to_bytes(len(raw), "little")[::8]
    ids = memoryview(keys.to_bytes(len(raw), "little")).cast("H")  # cell x's id at 4x
    runs: list[Run] = []
    styles: dict[int, Style] = {0: PLAIN}
    start = 0
    find = ends.find
    last: Style | None = None
    while start < count:
        end = find(1, start) + 1 or count
        key = ids[4 * start]
        style = styles.get(key)
        if style is None:
            style = styles[key] = style_at(start, key)
        if style == last:  # two ids holding equal styles: one run
            previous = runs[-1]
            runs[-1] = (previous[0] + text[start:end], *previous[1:])
        else:
            fg, bg, attrs = last = style
            runs.append((text[start:end], fg, bg, attrs ^ _REVERSE if reverse else attrs))
        start = end
    return tuple(runs)


def _linked_row(
    raw: bytes,
    whole: int,
    masks: tuple[int, int],
    style_at: Callable[[int, int], Style],
    grapheme_at: Callable[[int], str],
    reverse: bool,
    uri_at: Callable[[int], str | None] | None,
) -> Row:
    """`build_row` for a row with linked cells: built as the same row without its
    hyperlink bits, then cut where the link changes (`links.cut_at_links`), each link
    asked at its cells' columns."""
    unit, linked = masks
    row = build_row((whole & ~linked).to_bytes(len(raw), "little"), style_at, grapheme_at,
                    reverse)
    if uri_at is None:
        return row
    tails = (whole >> 43) & ~(whole >> 42) & unit  # right halves: their link is their left's
    flags = (((whole >> 45) & unit) & ~tails).to_bytes(len(raw), "little")[::8]
    return cut_at_links(row, [x for x, flag in enumerate(flags) if flag], uri_at)


def _decode(codes: int, size: int) -> str:
    """Code points at bits 64x.. of `codes` as text, one character per cell."""
    return (memoryview(codes.to_bytes(size, "little")).cast("I")[::2].tobytes()
            .decode("utf-32-le", "surrogatepass"))


def special_cells(whole: int, size: int, unit: int, wide_cp: int,
                  cp21: int) -> tuple[str, int, int] | None:
    """A row with wide characters or colour-only cells, read with whole-row operations:
    its text one character per cell (a wide character's right half as `_TAIL`, an empty or
    colour-only cell as NUL), and the masks of its colour-only cells and of those right
    halves. None when the row needs the per-cell path: a grapheme cluster, or a character
    whose width wcwidth sees otherwise than Ghostty."""
    colour_only = (whole >> 1) & unit  # content tag 2 or 3
    if whole & ~(whole >> 1) & unit:  # content tag 1: a grapheme cluster
        return None
    high, low = (whole >> 43) & unit, (whole >> 42) & unit
    heads, tails = low & ~high, high & ~low
    cps = ((whole >> 2) & cp21 & ~((colour_only | tails) * 0x1FFFFF)) | tails * 0xD800
    text = _decode(cps, size)
    if heads:
        head_field = heads * 0x1FFFFF
        wide = set(_decode(cps & head_field, size))
        narrow = set(_decode(cps & ~head_field, size))
        wide.discard("\0")
        if not all(map(_two_cells, wide)):
            return None
    else:
        narrow = set(text)
    if whole & wide_cp:
        narrow.difference_update(("\0", _TAIL))
        if not all(map(_one_cell, narrow)):
            return None
    return text, colour_only, tails


def _special_row(
    raw: bytes,
    whole: int,
    style_at: Callable[[int, int], Style],
    grapheme_at: Callable[[int], str],
    reverse: bool,
) -> Row:
    """`build_row` for a row with wide characters or colour-only cells (erased with a
    background colour), still with whole-row operations: a wide character's right half
    stands as `_TAIL` while runs are cut, a colour-only cell is a blank whose run key is its
    colour. Rows with grapheme clusters, or characters whose width wcwidth sees otherwise
    than Ghostty, take the per-cell path."""
    size = len(raw)
    count = size // 8
    _special, _non_ascii, wide_cp, cp21, _key16, unit, _linked = _masks(count)
    cells = special_cells(whole, size, unit, wide_cp, cp21)
    if cells is None:
        return _complex_row(memoryview(raw).cast("Q"), style_at, grapheme_at, reverse)
    text, colour_only, tails = cells
    text = text.replace("\0", " ")
    keys = whole & (unit * (0xFFFF << 26) | colour_only * 0x3FFFFFF)
    first = keys & _KEY_BITS
    if keys == first * unit:
        fg, bg, attrs = (bg_style(first) if first & 2 else style_at(0, first >> 26) if first
                         else PLAIN)
        return ((text.replace(_TAIL, "") if tails else text, fg, bg,
                 attrs ^ _REVERSE if reverse else attrs),)
    change = (keys ^ (keys >> 64)) & ((unit * _KEY_BITS) >> 64)
    change |= change >> 32
    change |= change >> 16
    change |= change >> 8
    change |= change >> 4
    change |= change >> 2
    change |= change >> 1
    ends = (change & unit).to_bytes(size, "little")[::8]
    cell_keys = memoryview(keys.to_bytes(size, "little")).cast("Q")
    runs: list[Run] = []
    styles: dict[int, Style] = {0: PLAIN}
    start = 0
    find = ends.find
    last: Style | None = None
    while start < count:
        end = find(1, start) + 1 or count
        key = cell_keys[start]
        style = styles.get(key)
        if style is None:
            style = styles[key] = bg_style(key) if key & 2 else style_at(start, key >> 26)
        piece = text[start:end].replace(_TAIL, "") if tails else text[start:end]
        if style == last:
            previous = runs[-1]
            runs[-1] = (previous[0] + piece, *previous[1:])
        else:
            fg, bg, attrs = last = style
            runs.append((piece, fg, bg, attrs ^ _REVERSE if reverse else attrs))
        start = end
    return tuple(runs)


def _complex_row(
    cells: memoryview,
    style_at: Callable[[int, int], Style],
    grapheme_at: Callable[[int], str],
    reverse: bool,
) -> Row:
    """`build_row` for a row with wide characters, grapheme clusters or colour-only cells:
    a step per cell."""
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
            style = bg_style(key) if key & _BG_KEY else style_at(xs[start], key)
            styles[key] = style
        fg, bg, attrs = style
        runs.append(("".join(chars[start:end]), fg, bg, attrs ^ _REVERSE if reverse else attrs))
        start = end
    return _merge(runs)


@lru_cache(maxsize=8192)
def _one_cell(char: str) -> bool:
    return wcwidth(char) == 1


@lru_cache(maxsize=4096)
def _two_cells(char: str) -> bool:
    return wcwidth(char) == 2


def _fitted_row(cells: memoryview, text: str, style_at: Callable[[int, int], Style],
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
            style = styles[key] = style_at(start, key)
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


_PAGE_BOUND = (0xFFFF << 26) | 3 | (1 << 45)  # a style id, a grapheme or colour, a link


def page_free(raw: bytes) -> bool:
    """No cell refers to anything kept in its page (styles, graphemes, hyperlinks): the same
    raw cells mean the same row wherever the row now lies."""
    return not int.from_bytes(raw, "little") & _page_bound(len(raw) // 8)


@lru_cache(maxsize=64)
def _page_bound(count: int) -> int:
    return _masks(count)[5] * _PAGE_BOUND


def blank_row(cols: int) -> Row:
    return ((" " * cols, *PLAIN),)
