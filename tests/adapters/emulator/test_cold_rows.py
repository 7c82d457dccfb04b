"""The segments of moved history and the page move that fills them, without Ghostty: rows
tagged with made-up page serials, as `GhosttyEmulator._history_rows_read` gives them."""

from __future__ import annotations

import pytest

from adapters.emulator.cold_history import ColdHistory
from adapters.emulator.cold_rows import PACK_AT, ColdRows, PageMove
from core.terminal import Row, row_text

pytestmark = pytest.mark.ghostty_only  # the ghostty backend's store (pure Python)

COLS = 10


def row(text: str) -> Row:
    return ((text.ljust(COLS), -1, -1, 0),)


def page_rows(serial: int, first: int, count: int,
              wrapped_last: bool = False) -> list[tuple[Row, bool, int, int]]:
    """`count` rows "r<n>" of page `serial`, numbered from `first`."""
    return [(row(f"r{n}"), wrapped_last and n == first + count - 1, serial, len(f"r{n}"))
            for n in range(first, first + count)]


def texts(rows: list[Row]) -> list[str]:
    return [row_text(r).rstrip() for r in rows]


def test_a_move_keeps_one_segment_per_page_and_stops_at_the_screens_page() -> None:
    move = PageMove(COLS, stop_serial=9, kept=100)
    rows = page_rows(1, 0, 30) + page_rows(2, 30, 40) + page_rows(9, 70, 30)
    for start in range(0, len(rows), 8):
        if move.done:
            break
        while move.pack_due:
            move.pack()
        move.take(rows[start:start + 8])
    assert move.done
    assert move.next_row == 70  # nothing of the screen's page is read
    assert [segment.size() for segment in move.segments] == [30, 40]
    assert move.staged == 70
    # Rows a move may free so that 50 stay in Ghostty: the first page only.
    assert move.droppable(50) == 30
    assert move.droppable(10) == 70


def test_a_line_cut_by_a_page_boundary_ends_its_segment() -> None:
    move = PageMove(COLS, stop_serial=9, kept=10)
    move.take(page_rows(1, 0, 5, wrapped_last=True) + page_rows(2, 5, 5))
    assert move.done
    first, second = move.segments
    assert texts(first.rows(0, 5)) == [f"r{n}" for n in range(5)]
    first.resize(4)  # the cut line reflows on its own, not joined with "r5"
    assert texts(first.rows(first.size() - 1, 1)) == ["r4"]
    assert texts(second.rows(0, 1)) == ["r5"]


def test_the_rows_moved_are_exactly_those_ghostty_freed() -> None:
    move = PageMove(COLS, stop_serial=9, kept=60)
    move.take(page_rows(1, 0, 20) + page_rows(2, 20, 20) + page_rows(3, 40, 20))
    whole = move.moved(40)
    assert [segment.size() for segment in whole] == [20, 20]
    # Should Ghostty free rows that do not end a page read, only those rows are kept.
    part = move.moved(27)
    assert sum(segment.size() for segment in part) == 27
    assert texts(part[-1].rows(0, 7)) == [f"r{n}" for n in range(20, 27)]


def test_packing_is_due_before_a_block_would_be_packed_while_reading() -> None:
    move = PageMove(COLS, stop_serial=9, kept=1000)
    taken = 0
    while not move.pack_due:
        move.take(page_rows(1, taken, 8))
        taken += 8
    assert taken >= PACK_AT
    move.pack()
    assert not move.pack_due


def test_segments_read_as_one_history_and_trim_from_the_oldest() -> None:
    cold = ColdRows()
    for first in (0, 10, 20):
        segment = ColdHistory(COLS)
        segment.add([(row(f"s{n}"), False) for n in range(first, first + 10)], COLS)
        cold.append(segment)
    cold.append(ColdHistory(COLS))  # an empty segment is not kept
    assert cold.size() == 30
    assert texts(cold.rows(8, 5)) == ["s8", "s9", "s10", "s11", "s12"]
    assert texts(cold.rows(0, 30)) == [f"s{n}" for n in range(30)]
    cold.trim(15)
    assert cold.size() == 15
    assert texts(cold.rows(0, 2)) == ["s15", "s16"]
    cold.resize(4)
    assert cold.size() == 15  # "s15" fits in 4 columns: a row each still
    cold.clear()
    assert not cold and cold.size() == 0
