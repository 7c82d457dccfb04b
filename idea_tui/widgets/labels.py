"""Text the client draws outside cells (titles, tab and page names, messages), made safe and
measured like the screen.

Such text comes from programs (titles, notifications, process names) and from files other
people commit (page names in `layouts.json`), so it is cleaned of control characters again
here (`core.safe_text`; the daemon already cleans what its emulator reads), and it is measured
in cells with the screen's rules (wcwidth, through `row_render.fit_text`), never with `len()`:
a wide character takes two cells, a combining mark none. The drawn text is made to measure so
that Rich, which lays out the bars, counts exactly those cells too.
"""

from __future__ import annotations

from core.safe_text import MAX_NOTICE, clean
from idea_tui.widgets.row_render import fit_text


def label(text: str, limit: int = MAX_NOTICE) -> str:
    """`text` cleaned and made to measure (Rich's `cell_len` equals its wcwidth cells)."""
    return fit_text(clean(text, limit)).text


def crop(text: str, cells: int, limit: int = MAX_NOTICE) -> tuple[str, int]:
    """`text` cleaned and cut to at most `cells` cells (a wide character that would straddle
    the edge is left out): the text to draw and the cells it takes."""
    fitted = fit_text(clean(text, limit))
    used = 0
    kept: list[str] = []
    for drawn, width in zip(fitted.groups, fitted.widths, strict=True):
        if used + width > cells:
            break
        kept.append(drawn)
        used += width
    return "".join(kept), used


def wrap(text: str, cells: int, limit: int = MAX_NOTICE) -> list[tuple[str, int]]:
    """`text` cleaned and cut into lines of at most `cells` cells each (`cells` >= 2, so that
    a wide character fits): each line's text to draw and the cells it takes."""
    fitted = fit_text(clean(text, limit))
    lines: list[tuple[str, int]] = []
    line: list[str] = []
    used = 0
    for drawn, width in zip(fitted.groups, fitted.widths, strict=True):
        if used + width > cells and line:
            lines.append(("".join(line), used))
            line, used = [], 0
        line.append(drawn)
        used += width
    if line:
        lines.append(("".join(line), used))
    return lines
