"""Screen rows as text: plain (for `idea capture`, waits, tests) or with SGR escapes (`--ansi`,
like `tmux capture-pane -e`)."""

from __future__ import annotations

from collections.abc import Iterable

from core.terminal import DEFAULT_COLOR, TRUECOLOR_FLAG, Attr, Row

_ATTR_CODES = (
    (Attr.BOLD, "1"),
    (Attr.DIM, "2"),
    (Attr.ITALIC, "3"),
    (Attr.UNDERLINE, "4"),
    (Attr.DOUBLE_UNDERLINE, "4:2"),
    (Attr.CURLY_UNDERLINE, "4:3"),
    (Attr.DOTTED_UNDERLINE, "4:4"),
    (Attr.DASHED_UNDERLINE, "4:5"),
    (Attr.BLINK, "5"),
    (Attr.REVERSE, "7"),
    (Attr.HIDDEN, "8"),
    (Attr.STRIKE, "9"),
    (Attr.OVERLINE, "53"),
)


def row_text(row: Row) -> str:
    """The characters of a row, one per cell (a wide character counts once)."""
    return "".join(run[0] for run in row)


def _color(value: int, base: int) -> str:
    if value & TRUECOLOR_FLAG:
        red, green, blue = (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF
        return f"{base + 8};2;{red};{green};{blue}"
    if value < 8:
        return str(base + value)
    if value < 16:
        return str(base + 60 + value - 8)
    return f"{base + 8};5;{value}"


def sgr(fg: int, bg: int, attrs: int) -> str:
    """The SGR sequence that selects a style from the default one."""
    codes = ["0"]
    codes.extend(code for flag, code in _ATTR_CODES if attrs & flag)
    if fg != DEFAULT_COLOR:
        codes.append(_color(fg, 30))
    if bg != DEFAULT_COLOR:
        codes.append(_color(bg, 40))
    return "\x1b[" + ";".join(codes) + "m"


def rows_to_ansi(rows: Iterable[Row]) -> str:
    """Rows as text with SGR escapes; trailing default-styled blanks are trimmed."""
    lines = []
    for row in rows:
        parts: list[str] = []
        current = (DEFAULT_COLOR, DEFAULT_COLOR, 0)
        runs = list(row)
        while (
            runs and runs[-1][1:] == (DEFAULT_COLOR, DEFAULT_COLOR, 0) and not runs[-1][0].strip()
        ):
            runs.pop()
        if runs and runs[-1][1:] == (DEFAULT_COLOR, DEFAULT_COLOR, 0):
            text, fg, bg, attrs = runs[-1]
            runs[-1] = (text.rstrip(), fg, bg, attrs)
        for text, fg, bg, attrs in runs:
            style = (fg, bg, attrs)
            if style != current:
                parts.append(sgr(fg, bg, attrs))
                current = style
            parts.append(text)
        if current != (DEFAULT_COLOR, DEFAULT_COLOR, 0):
            parts.append("\x1b[0m")
        lines.append("".join(parts))
    return "\n".join(lines)
