"""From lines to `Row`s, and the compact scrollback form.

Runs of equal style are found with one regex over the line's style bytes (`(..)\\1*` matches a
run of one repeated 2-byte id), so the Python loop runs per style change, not per cell.

Scrollback entries (`HistoryLine`), about 350 bytes for a 120-column SGR-rich line:
- `str`: a line in the default style, trailing blanks dropped;
- `(text, styles)`: one code point per cell, trailing default blanks dropped; `styles` holds
  1 byte per cell when every id on the line is below 256 (the usual case), else 2;
- `(text, styles, counts)`: a line with wide characters or combining marks, `counts[i]` code
  points in cell `i` (0 for the right half of a wide character), trailing default blanks
  dropped.

A line whose text ran on to the next one (autowrap) is stored as `WrappedText` or
`WrappedCells`, subclasses that cost nothing more, so that reflow (`reflow.py`) can join it
with the next line again when the width changes.
"""

from __future__ import annotations

import re

from adapters.emulator.grid import (
    DEFAULT_KEY,
    LOW_BYTE,
    Line,
    StyleTable,
    char_width,
    text_width,
)
from adapters.emulator.styles import DEFAULT_STYLE
from core.terminal import Row, Run

HistoryLine = str | tuple[str, bytes] | tuple[str, bytes, bytes]


class WrappedText(str):
    """A scrollback `str` entry whose text continued on the next line."""

    __slots__ = ()


class WrappedCells(tuple):  # type: ignore[type-arg]
    """A scrollback tuple entry whose text continued on the next line."""

    __slots__ = ()


_WRAPPED = (WrappedText, WrappedCells)


def is_wrapped(entry: HistoryLine) -> bool:
    """Whether a scrollback entry's text continued on the next line."""
    return type(entry) in _WRAPPED


def unwrapped(entry: HistoryLine) -> HistoryLine:
    """The entry as a line that does not continue on the next one."""
    if isinstance(entry, WrappedText):
        return str(entry)
    if isinstance(entry, WrappedCells):
        return tuple(entry)
    return entry


def history_cells(entry: HistoryLine) -> int:
    """Cells a scrollback entry holds (trailing blanks nobody drew are not stored)."""
    if isinstance(entry, str):
        return len(entry)
    return len(entry[0]) if len(entry) == 2 else len(entry[2])

_RUNS = re.compile(rb"(..)\1*", re.S)
_RUNS_1 = re.compile(rb"(.)\1*", re.S)
_REVERSE = 32


def render_line(line: Line, table: StyleTable, reverse_video: bool = False) -> Row:
    """The `Row` (tuple of runs) a line shows."""
    styles = line.styles
    chars = line.chars
    style_of = table.style
    first = bytes(styles[:2])
    if styles.count(first) == len(chars):
        fg, bg, attrs = style_of(first)
        return (("".join(chars), fg, bg, attrs ^ _REVERSE if reverse_video else attrs),)
    runs: list[Run] = []
    for match in _RUNS.finditer(styles):
        start, end = match.span()
        text = "".join(chars[start >> 1 : end >> 1])
        if text:  # a run of only right halves of wide characters adds no text (nor width)
            fg, bg, attrs = style_of(match.group(1))
            runs.append((text, fg, bg, attrs ^ _REVERSE if reverse_video else attrs))
    return tuple(runs)


def compact_line(line: Line) -> HistoryLine:
    """The scrollback entry for a line scrolled off the top."""
    entry = _compact(line)
    if not line.wrapped:
        return entry
    return WrappedText(entry) if isinstance(entry, str) else WrappedCells(entry)


def _compact(line: Line) -> HistoryLine:
    chars = line.chars
    styles = line.styles
    text = "".join(chars)
    if line.wide and ("" in chars or len(text) != len(chars)):
        keep = line.used()
        kept = chars[:keep]
        return ("".join(kept), bytes(styles[: 2 * keep]), bytes(map(len, kept)))
    # Trailing blanks are dropped, but not those drawn (reflow counts them, as tmux does).
    written = min(line.written, len(chars))
    if styles.count(DEFAULT_KEY) == len(chars):
        stripped = text.rstrip(" ")
        return stripped if len(stripped) >= written else text[:written]
    keep = max(len(text.rstrip(" ")), (len(styles.rstrip(b"\0")) + 1) >> 1, written)
    styles = styles[: 2 * keep]
    high = styles[1 - LOW_BYTE :: 2]
    if high.count(0) == keep:
        return (text[:keep], bytes(styles[LOW_BYTE::2]))
    return (text[:keep], bytes(styles))


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
            cells = max(char_width(char), 0)
            if used + cells > cols:
                break
            kept.append(char)
            used += cells
        if kept:
            fitted.append(("".join(kept), run[1], run[2], run[3]))
        break
    if used < cols:
        fitted.append((" " * (cols - used), *DEFAULT_STYLE))
    return tuple(fitted)


def expand_history(entry: HistoryLine, table: StyleTable, cols: int) -> Row:
    """The `Row` for a scrollback entry, fitted to the current width (entries are re-wrapped
    when the width changes; cut only while the alternate screen defers that)."""
    if isinstance(entry, str):
        if entry.isascii() and len(entry) <= cols:
            return ((entry + " " * (cols - len(entry)), *DEFAULT_STYLE),)
        return _fit([(entry, *DEFAULT_STYLE)], cols)
    text, styles = entry[0], entry[1]
    counts = entry[2] if len(entry) == 3 else None
    runs: list[Run] = []
    pos = 0
    if counts is None and len(styles) == len(text):
        style_at = table.style_at
        for match in _RUNS_1.finditer(styles):
            start, end = match.span()
            runs.append((text[start:end], *style_at(styles[start])))
        return _fit(runs, cols)
    style_of = table.style
    for match in _RUNS.finditer(styles):
        start, end = match.span()
        size = (end - start) >> 1 if counts is None else sum(counts[start >> 1 : end >> 1])
        if size:
            runs.append((text[pos : pos + size], *style_of(match.group(1))))
        pos += size
    return _fit(runs, cols)


def line_from_history(entry: HistoryLine, cols: int) -> Line:
    """Cells again for a scrollback entry (a resize that grows pulls lines back)."""
    line = _cells_of(entry, cols)
    line.wrapped = is_wrapped(entry)
    line.written = min(history_cells(entry) or 0, cols)
    return line


def _cells_of(entry: HistoryLine, cols: int) -> Line:
    if isinstance(entry, str):
        return Line(list(entry), bytearray(DEFAULT_KEY * len(entry))).resized(cols)
    if len(entry) == 2:
        text, styles = entry[0], entry[1]
        if len(styles) == len(text):
            wide = bytearray(2 * len(styles))
            wide[LOW_BYTE::2] = styles
            return Line(list(text), wide).resized(cols)
        return Line(list(text), bytearray(styles)).resized(cols)
    text, styles, counts = entry[0], entry[1], entry[2]
    chars: list[str] = []
    pos = 0
    for count in counts:
        chars.append(text[pos : pos + count])
        pos += count
    return Line(chars, bytearray(styles), wide=True).resized(cols)
