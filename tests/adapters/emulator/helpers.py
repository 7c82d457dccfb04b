"""Small helpers shared by the emulator tests: build, feed, read back, check invariants."""

from __future__ import annotations

from collections.abc import Callable

from wcwidth import wcwidth

from adapters.emulator import PyteEmulator
from adapters.emulator.ghostty import GhosttyEmulator
from core.terminal import Row, row_text

Emulator = PyteEmulator | GhosttyEmulator
"""Either backend; what the tests use of it is the port plus `internal_errors`/`display`."""
BACKEND = "pyte"
"""The backend `make`/`fed` build (set per test by the conftest's `emulator_backend`)."""

Style = tuple[int, int, int]
PLAIN: Style = (-1, -1, 0)


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make(cols: int = 20, rows: int = 5, scrollback: int = 1000, *,
         clock: Callable[[], float] | None = None, sync_timeout: float = 0.5) -> Emulator:
    """A new emulator of the backend under test."""
    kind = GhosttyEmulator if BACKEND == "ghostty" else PyteEmulator
    if clock is None:
        return kind(cols, rows, scrollback_lines=scrollback, sync_timeout=sync_timeout)
    return kind(cols, rows, scrollback_lines=scrollback, clock=clock, sync_timeout=sync_timeout)


def fed(data: bytes | str, cols: int = 20, rows: int = 5, scrollback: int = 1000) -> Emulator:
    """A fresh emulator that has read `data`."""
    emulator = make(cols, rows, scrollback)
    emulator.feed(data.encode() if isinstance(data, str) else data)
    return emulator


def fed_pyte(data: bytes | str, cols: int = 20, rows: int = 5,
             scrollback: int = 1000) -> PyteEmulator:
    """A pyte emulator that has read `data`, for the tests of pyte's internals."""
    emulator = PyteEmulator(cols, rows, scrollback_lines=scrollback)
    emulator.feed(data.encode() if isinstance(data, str) else data)
    return emulator


def icon_name(emulator: Emulator) -> str:
    """The icon name OSC 0/1 set (no public accessor: nothing outside the emulator uses it)."""
    if isinstance(emulator, PyteEmulator):
        return emulator.screen.icon_name
    return emulator._osc.icon_name


def lines(emulator: Emulator) -> list[str]:
    """Screen text, trailing blanks dropped."""
    return [row_text(emulator.render_row(y)).rstrip(" ") for y in range(emulator.rows)]


def history_lines(emulator: Emulator) -> list[str]:
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


def style_at(emulator: Emulator, x: int, y: int) -> Style:
    return cell_styles(emulator.render_row(y))[x]


def check_invariants(emulator: Emulator) -> None:
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
