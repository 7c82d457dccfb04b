"""Resizing keeps content the way tmux does (checked against tmux 3.3a; width changes
re-wrap the main screen: tests/conformance/test_reflow.py compares with tmux directly)."""

from __future__ import annotations

from tests.adapters.emulator.helpers import check_invariants, fed, history_lines, lines

SIX = "l0\r\nl1\r\nl2\r\nl3\r\nl4\r\nl5"


def test_shrinking_rows_pushes_top_lines_to_history_to_keep_the_cursor() -> None:
    emulator = fed(SIX, cols=20, rows=8)
    emulator.resize(20, 4)
    assert lines(emulator) == ["l2", "l3", "l4", "l5"]
    assert history_lines(emulator) == ["l0", "l1"]
    assert (emulator.cursor().x, emulator.cursor().y) == (2, 3)


def test_growing_rows_pulls_lines_back_from_history() -> None:
    emulator = fed(SIX, cols=20, rows=8)
    emulator.resize(20, 4)
    emulator.resize(20, 8)
    assert lines(emulator) == ["l0", "l1", "l2", "l3", "l4", "l5", "", ""]
    assert emulator.history_size() == 0
    assert (emulator.cursor().x, emulator.cursor().y) == (2, 5)


def test_shrinking_drops_blank_lines_below_the_cursor_first() -> None:
    emulator = fed("a\r\nb\x1b[H", cols=10, rows=8)
    emulator.resize(10, 3)
    assert lines(emulator) == ["a", "b", ""]
    assert emulator.history_size() == 0


def test_shrinking_with_the_cursor_at_the_top_cuts_the_bottom() -> None:
    emulator = fed(SIX + "\x1b[H", cols=10, rows=6)
    emulator.resize(10, 3)
    assert lines(emulator) == ["l0", "l1", "l2"]
    assert emulator.cursor().y == 0


def test_narrowing_rewraps_a_long_line_and_widening_joins_it_back() -> None:
    emulator = fed("0123456789", cols=10, rows=2)
    emulator.resize(4, 2)
    assert lines(emulator) == ["89", ""]
    assert history_lines(emulator) == ["0123", "4567"]
    assert (emulator.cursor().x, emulator.cursor().y) == (2, 0)
    emulator.resize(12, 2)
    assert lines(emulator) == ["0123456789", ""]
    assert emulator.history_size() == 0
    emulator.feed(b"\x1b[1;12HZ")
    assert lines(emulator)[0] == "0123456789 Z"
    check_invariants(emulator)


def test_a_wide_character_that_no_longer_fits_moves_down_whole() -> None:
    emulator = fed("ab中", cols=6, rows=1)
    emulator.resize(3, 1)
    assert lines(emulator) == ["中"]
    assert history_lines(emulator) == ["ab"]
    check_invariants(emulator)


def test_lines_that_did_not_wrap_are_cut_only_where_blank() -> None:
    emulator = fed("short\r\n", cols=20, rows=3)
    emulator.resize(8, 3)
    assert lines(emulator) == ["short", "", ""]
    assert emulator.history_size() == 0


def test_resize_resets_the_scroll_region_and_marks_every_row_dirty() -> None:
    emulator = fed("\x1b[2;3r", cols=10, rows=5)
    emulator.take_dirty()
    emulator.resize(10, 7)
    assert emulator.take_dirty() == set(range(7))
    emulator.feed(b"\x1b[7;1H\n")
    assert emulator.cursor().y == 6
    check_invariants(emulator)


def test_tab_stops_extend_to_new_columns() -> None:
    emulator = fed("", cols=10, rows=1)
    emulator.resize(30, 1)
    emulator.feed(b"\t\t\tx")
    assert lines(emulator)[0] == " " * 24 + "x"


def test_resizing_on_the_alternate_screen_keeps_the_main_screen() -> None:
    emulator = fed(SIX + "\x1b[?1049h\x1b[Halt", cols=10, rows=6)
    emulator.resize(8, 3)
    assert lines(emulator)[0] == "alt"
    check_invariants(emulator)
    emulator.feed(b"\x1b[?1049l")
    assert lines(emulator) == ["l3", "l4", "l5"]
    assert history_lines(emulator) == ["l0", "l1", "l2"]
    check_invariants(emulator)


def test_degenerate_sizes_are_clamped_to_one_cell() -> None:
    emulator = fed("abc中", cols=5, rows=2)
    emulator.resize(0, 0)
    assert (emulator.cols, emulator.rows) == (1, 1)
    emulator.feed("x中y\r\n".encode())
    check_invariants(emulator)
