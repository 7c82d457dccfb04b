"""Small helpers shared by the emulator tests: build, feed, read back, check invariants."""

from __future__ import annotations

from wcwidth import wcwidth

from adapters.emulator import PyteEmulator
from core.terminal import Row, row_text

Style = tuple[int, int, int]
PLAIN: Style = (-1, -1, 0)


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make(cols: int = 20, rows: int = 5, scrollback: int = 1000) -> PyteEmulator:
    return PyteEmulator(cols, rows, scrollback_lines=scrollback)


def fed(data: bytes | str, cols: int = 20, rows: int = 5, scrollback: int = 1000) -> PyteEmulator:
    """A fresh emulator that has read `data`."""
    emulator = make(cols, rows, scrollback)
    emulator.feed(data.encode() if isinstance(data, str) else data)
    return emulator


def lines(emulator: PyteEmulator) -> list[str]:
    """Screen text, trailing blanks dropped."""
    return [row_text(emulator.render_row(y)).rstrip(" ") for y in range(emulator.rows)]


def history_lines(emulator: PyteEmulator) -> list[str]:
    rows = emulator.render_history(0, emulator.history_size())
    return [row_text(row).rstrip(" ") for row in rows]


def row_width(row: Row) -> int:
    """Cells a row covers, measured with wcwidth as a client would."""
    return sum(max(wcwidth(char), 0) for text, _, _, _ in row for char in text)


def cell_styles(row: Row) -> list[Style]:
    """The style of every cell of a row (a wide character's style counts for both cells)."""
    styles: list[Style] = []
    for text, fg, bg, attrs in row:
        for char in text:
            styles.extend([(fg, bg, attrs)] * max(wcwidth(char), 0))
    return styles


def style_at(emulator: PyteEmulator, x: int, y: int) -> Style:
    return cell_styles(emulator.render_row(y))[x]


def check_invariants(emulator: PyteEmulator) -> None:
    """What must hold after any input: rows exactly as wide as the screen, cursor inside."""
    cols, rows = emulator.cols, emulator.rows
    for y in range(rows):
        row = emulator.render_row(y)
        assert row_width(row) == cols, (y, row)
        assert all(text for text, _, _, _ in row), (y, row)
    for row in emulator.render_history(0, emulator.history_size()):
        assert row_width(row) == cols, row
    cursor = emulator.cursor()
    assert 0 <= cursor.x < cols and 0 <= cursor.y < rows, cursor
    assert emulator.internal_errors == 0
