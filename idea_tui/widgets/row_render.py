"""Daemon rows to Textual Strips: the hot path of drawing a cell on the client.

The terminal widget calls `RowRenderer.render` (or `render_with_cursor` for the cursor's row)
for each dirty row it receives, and caches the Strip until the row changes again. A row is a
tuple of `(text, fg, bg, attrs)` runs (see `core.terminal`), whose cells the daemon counted
with wcwidth; a Strip is measured by Rich. The two tables disagree on some characters, so a
run is made to measure before it becomes a Segment: every character keeps exactly the cells
the daemon gave it, and the row can never shift sideways.

The daemon's cell model (the emulator's, as pyte's): every character whose wcwidth is 1 or 2
starts a cell group of that many cells (control characters, wcwidth -1, count one); zero-width
characters (combining marks, ZWJ, variation selectors) belong to the group before them; a
zero-width character with nothing before it in the run is a cell of its own. Each group is
rendered so that Rich measures it at its daemon width:

- Rich agrees: the group as it is, less any ZWJ (the emulator gave each joined emoji its own
  cells; a terminal that joined them into one glyph would pull the rest of the row left).
- Rich measures it narrower (a wide character Rich's table does not know, an emoji modifier
  Rich calls zero-width): spaces pad it to its width.
- Rich measures it wider (VS16 making a narrow symbol wide, a mark Rich thinks is spacing):
  the base character alone, padded if need be, or "?" when even that is too wide.
- Control characters and lone zero-width characters become spaces: nothing the daemon sends
  can move the cursor of the user's terminal.

Runs whose characters both tables call one cell wide (ASCII, Latin, Greek, Cyrillic, box
drawing, blocks, Braille, private-use icons, ...) skip all this with one set lookup in C.

A row with hyperlinks (`core.terminal.LinkedRow`, OSC 8 from the program) is drawn the slow
way, its linked runs with a Rich `link` style added: Textual writes such a segment between
`ESC ] 8 ; id=… ; URI ST` and `ESC ] 8 ; ; ST`, so the user's terminal makes it a
link. The look stays the program's (no underline added: terminals mark links on hover).
"""

from __future__ import annotations

import unicodedata
from typing import NamedTuple

from rich.cells import cell_len
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from core.terminal import DEFAULT_COLOR, TRUECOLOR_FLAG, Attr, LinkedRow, Row

_ZWJ = "\u200d"
_FALLBACK = "?"
# Both caches are cleared when full: cheaper per hit than an LRU, and a full cache means the
# screen's content moved on anyway.
_STYLE_CACHE_SIZE = 4096
_FIT_CACHE_SIZE = 4096
# Strips of whole rows: a scrolling screen sends rows it sent before, one line higher.
_ROW_CACHE_SIZE = 2048
# Ranges worth checking for characters both tables measure as one cell.
_SINGLE_CELL_CANDIDATES = (
    (0x20, 0x7E),  # ASCII
    (0xA0, 0x2FF),  # Latin-1, Latin Extended, IPA, spacing modifiers
    (0x370, 0x52F),  # Greek, Cyrillic
    (0x1E00, 0x1FFF),  # Latin Extended Additional, Greek Extended
    (0x2010, 0x2BFF),  # punctuation, arrows, maths, box drawing, shapes, Braille spinners
    (0xE000, 0xF8FF),  # private use: Powerline and Nerd Font icons in prompts
)


# Characters one cell wide for the daemon and for Rich, learnt as they are met: building
# the whole table up front cost ~20 ms (far more on a loaded machine) before the first frame,
# for characters most screens never show. Printable ASCII is known from the start; only
# characters of the candidate ranges are remembered, so both sets stay small.
_SINGLE: set[str] = {chr(code) for code in range(0x20, 0x7F)}
_NOT_SINGLE: set[str] = set()


def wcwidth(character: str) -> int:
    """The daemon's width of a character (wcwidth's table, imported on first use: a screen of
    printable ASCII, such as a shell's first frame, never needs it)."""
    from wcwidth import wcwidth as measure

    return int(measure(character))


def _measures_one_cell(character: str) -> bool:
    code = ord(character)
    if not any(start <= code <= end for start, end in _SINGLE_CELL_CANDIDATES):
        return False
    one = wcwidth(character) == 1 and cell_len(character) == 1
    (_SINGLE if one else _NOT_SINGLE).add(character)
    return one


def is_single_cell_text(text: str) -> bool:
    """Whether every character of `text` is one cell for the daemon and for Rich."""
    if _SINGLE.issuperset(text):
        return True
    for character in set(text).difference(_SINGLE):
        if character in _NOT_SINGLE or not _measures_one_cell(character):
            return False
    return True


class Fitted(NamedTuple):
    """A run's text made to measure: what to draw, and the daemon's cells for each group."""

    text: str
    groups: tuple[str, ...]
    widths: tuple[int, ...]
    cells: int


def _split_groups(text: str) -> list[tuple[str, int]]:
    """The daemon's cell groups of `text`: (characters, cells) each."""
    groups: list[tuple[str, int]] = []
    for character in text:
        if is_single_cell_text(character):
            groups.append((character, 1))
            continue
        width = wcwidth(character)
        if width == 0 and groups and groups[-1][1]:
            base, cells = groups[-1]
            groups[-1] = (base + character, cells)
        else:
            groups.append((character, 2 if width == 2 else 1))
    return groups


def _fit_group(group: str, cells: int) -> str:
    """`group` drawn so that Rich measures exactly `cells` (see the module docstring)."""
    base = group[0]
    if wcwidth(base) == 0 or unicodedata.category(base) in ("Cc", "Cs"):
        return " " * cells
    base_cells = cell_len(base)
    # Zero-width extras after a base Rich calls zero-width would combine with the group
    # before (a VS16 there widens the previous character): drop them.
    extras = group[1:].replace(_ZWJ, "") if base_cells else ""
    candidate = base + extras
    measured = cell_len(candidate)
    if measured > cells:
        candidate, measured = base, base_cells
        if measured > cells:
            candidate, measured = _FALLBACK, 1
    return candidate + " " * (cells - measured)


def fit_text(text: str) -> Fitted:
    """Make a run's text measure, for Rich, the cells the daemon counted for it."""
    groups = _split_groups(text)
    drawn = tuple(group if len(group) == 1 and is_single_cell_text(group)
                  else _fit_group(group, cells) for group, cells in groups)
    widths = tuple(cells for _, cells in groups)
    return Fitted("".join(drawn), drawn, widths, sum(widths))


def _color(value: int) -> Color | None:
    if TRUECOLOR_FLAG <= value <= TRUECOLOR_FLAG | 0xFFFFFF:
        return Color.from_rgb((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)
    if 0 <= value <= 255:
        return Color.from_ansi(value)
    return None  # DEFAULT_COLOR (and anything malformed): the theme's colour shows through


def make_style(fg: int, bg: int, attrs: int) -> Style:
    """The Rich style of a cell. Unset attributes stay None so the widget's style shows."""
    underline = attrs & (
        Attr.UNDERLINE | Attr.CURLY_UNDERLINE | Attr.DOTTED_UNDERLINE | Attr.DASHED_UNDERLINE
    )
    return Style(
        color=None if fg == DEFAULT_COLOR else _color(fg),
        bgcolor=None if bg == DEFAULT_COLOR else _color(bg),
        bold=bool(attrs & Attr.BOLD) or None,
        dim=bool(attrs & Attr.DIM) or None,
        italic=bool(attrs & Attr.ITALIC) or None,
        # Rich has single and double underline only: the curly, dotted and dashed styles
        # are drawn as a plain underline.
        underline=bool(underline) or None,
        underline2=bool(attrs & Attr.DOUBLE_UNDERLINE) or None,
        blink=bool(attrs & Attr.BLINK) or None,
        reverse=bool(attrs & Attr.REVERSE) or None,
        conceal=bool(attrs & Attr.HIDDEN) or None,
        strike=bool(attrs & Attr.STRIKE) or None,
        overline=bool(attrs & Attr.OVERLINE) or None,
    )


_NULL_STYLE = Style()


class RowRenderer:
    """Turns rows into Strips of an exact width, caching styles and made-to-measure texts.

    One per terminal widget (or shared: it holds no per-screen state).
    """

    def __init__(self) -> None:
        self._styles: dict[tuple[int, int, int], Style] = {}
        self._linked: dict[tuple[Style, str], Style] = {}
        self._fitted: dict[str, Fitted] = {}
        self._rows: dict[tuple[Row, int], Strip] = {}
        self._is_single_cell = is_single_cell_text

    def style(self, fg: int, bg: int, attrs: int) -> Style:
        """The cached Rich style for a cell's colours and attributes."""
        key = (fg, bg, attrs)
        style = self._styles.get(key)
        if style is None:
            if len(self._styles) >= _STYLE_CACHE_SIZE:
                self._styles.clear()
            style = self._styles[key] = make_style(fg, bg, attrs)
        return style

    def linked(self, style: Style, uri: str) -> Style:
        """`style` linking to `uri`, cached: the same link id (Rich gives one per Style)
        while the link stays on screen, so the user's terminal sees one link, not many."""
        key = (style, uri)
        linked = self._linked.get(key)
        if linked is None:
            if len(self._linked) >= _STYLE_CACHE_SIZE:
                self._linked.clear()
            linked = self._linked[key] = style + Style(link=uri)
        return linked

    def fit(self, text: str) -> Fitted:
        """`fit_text`, cached: the same texts come back row after row."""
        fitted = self._fitted.get(text)
        if fitted is None:
            if len(self._fitted) >= _FIT_CACHE_SIZE:
                self._fitted.clear()
            fitted = self._fitted[text] = fit_text(text)
        return fitted

    def cached(self, row: Row, width: int) -> Strip:
        """`render`, remembered: a row that scrolled up (or came back) is not drawn again.
        Strips are immutable, so cells and lines may share them."""
        key = (row, width)
        strip = self._rows.get(key)
        if strip is None:
            if len(self._rows) >= _ROW_CACHE_SIZE:
                self._rows.clear()
            strip = self._rows[key] = self.render(row, width)
        return strip

    def render(self, row: Row, width: int) -> Strip:
        """The row as a Strip of exactly `width` cells: cropped, or padded with blanks."""
        if type(row) is LinkedRow:
            return Strip([Segment(text, style) for (text, *_), style in self._layout(row, width)],
                         width)
        segments: list[Segment] = []
        append = segments.append
        styles = self._styles
        is_single_cell = self._is_single_cell
        cells = 0
        for text, fg, bg, attrs in row:
            style = styles.get((fg, bg, attrs))
            if style is None:  # not `or`: the style of a plain cell is falsy
                style = self.style(fg, bg, attrs)
            if is_single_cell(text):
                count = len(text)
                if cells + count > width:
                    text = text[: width - cells]
            else:
                fitted = self.fit(text)
                text, count = fitted.text, fitted.cells
                if cells + count > width:
                    text = _crop(fitted, width - cells).text
            if cells + count >= width:
                if text:
                    append(Segment(text, style))
                cells = width
                break
            if count:
                append(Segment(text, style))
                cells += count
        if cells < width:
            append(Segment(" " * (width - cells), _NULL_STYLE))
        return Strip(segments, width)

    def render_with_cursor(
        self, row: Row, width: int, cursor_x: int, cursor_style: Style | None = None
    ) -> Strip:
        """`render`, with the cell under the cursor drawn in `cursor_style`.

        The default cursor is reverse video, toggled: on a cell already in reverse video it is
        drawn the other way round, so it stays visible. A cursor on either half of a wide
        character covers the character. A cursor outside `0 <= cursor_x < width` is not drawn.
        """
        if not 0 <= cursor_x < width:
            return self.render(row, width)
        segments: list[Segment] = []
        cells = 0
        for fitted, style in self._layout(row, width):
            end = cells + fitted.cells
            if not cells <= cursor_x < end:
                segments.append(Segment(fitted.text, style))
                cells = end
                continue
            groups, widths = fitted.groups, fitted.widths
            index = 0
            while cells + widths[index] <= cursor_x:
                cells += widths[index]
                index += 1
            over = cursor_style or Style(reverse=not style.reverse)
            if index:
                segments.append(Segment("".join(groups[:index]), style))
            segments.append(Segment(groups[index], style + over))
            if index + 1 < len(groups):
                segments.append(Segment("".join(groups[index + 1 :]), style))
            cells = end
        return Strip(segments, width)

    def _layout(self, row: Row, width: int) -> list[tuple[Fitted, Style]]:
        """What `render` draws, run by run, with each run's cell groups (the slow way)."""
        runs: list[tuple[Fitted, Style]] = []
        cells = 0
        links = dict(row.links) if type(row) is LinkedRow else {}
        for index, (text, fg, bg, attrs) in enumerate(row):
            if cells >= width:
                break
            if self._is_single_cell(text):
                fitted = Fitted(text, tuple(text), (1,) * len(text), len(text))
            else:
                fitted = self.fit(text)
            if cells + fitted.cells > width:
                fitted = _crop(fitted, width - cells)
            if fitted.cells:
                style = self.style(fg, bg, attrs)
                uri = links.get(index)
                runs.append((fitted, style if uri is None else self.linked(style, uri)))
                cells += fitted.cells
        if cells < width:
            blank = " " * (width - cells)
            runs.append((Fitted(blank, tuple(blank), (1,) * len(blank), len(blank)), _NULL_STYLE))
        return runs


def _crop(fitted: Fitted, cells: int) -> Fitted:
    """The first `cells` cells of a run; a wide character cut in two becomes a space."""
    groups: list[str] = []
    widths: list[int] = []
    for group, group_cells in zip(fitted.groups, fitted.widths, strict=True):
        if group_cells > cells:
            if cells:
                groups.append(" " * cells)
                widths.append(cells)
            break
        groups.append(group)
        widths.append(group_cells)
        cells -= group_cells
    return Fitted("".join(groups), tuple(groups), tuple(widths), sum(widths))
