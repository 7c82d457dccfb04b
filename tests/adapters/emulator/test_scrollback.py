"""Scrollback: what goes in, what never does, bounds, and faithful rendering of kept lines."""

from __future__ import annotations

import sys

import pytest

from adapters.emulator.grid import Line
from adapters.emulator.rows import compact_line, expand_history, line_from_history, render_line
from adapters.emulator.screen import IdeaScreen
from core.terminal import row_text
from tests.adapters.emulator.helpers import (
    check_invariants,
    fed,
    fed_pyte,
    history_lines,
    lines,
    make,
)
from tests.adapters.emulator.tmux_reference import row_cells


def _numbered(count: int) -> str:
    return "".join(f"line {n}\r\n" for n in range(count))


def test_lines_scrolled_off_the_top_go_to_history_oldest_first() -> None:
    emulator = fed(_numbered(8), rows=5)
    assert history_lines(emulator) == ["line 0", "line 1", "line 2", "line 3"]
    assert lines(emulator) == ["line 4", "line 5", "line 6", "line 7", ""]


def test_history_is_bounded() -> None:
    emulator = fed(_numbered(100), rows=5, scrollback=10)
    assert emulator.history_size() == 10
    assert history_lines(emulator)[0] == "line 86"


def test_no_scrollback_when_disabled() -> None:
    assert fed(_numbered(100), rows=5, scrollback=0).history_size() == 0


def test_render_history_windows_are_clamped() -> None:
    emulator = fed(_numbered(8), rows=5)
    assert [row_text(r).rstrip() for r in emulator.render_history(2, 10)] == ["line 2", "line 3"]
    assert emulator.render_history(10, 5) == []
    assert emulator.render_history(0, -1) == []


def test_history_keeps_styles_and_wide_characters() -> None:
    source = "\x1b[1;31mred\x1b[0m 中文 e\u0301 \x1b[48;2;1;2;3mbg\x1b[0m\r\n"
    emulator = fed(source + "x\r\n" * 5, cols=16, rows=5)
    reference = fed(source, cols=16, rows=5)
    assert emulator.render_history(0, 1)[0] == reference.render_row(0)


def test_the_alternate_screen_never_feeds_history() -> None:
    emulator = fed("\x1b[?1049h" + _numbered(50) + "\x1b[?1049l", rows=5)
    assert emulator.history_size() == 0


def test_a_region_lower_on_the_screen_does_not_feed_history() -> None:
    emulator = fed("top\x1b[2;5r\x1b[5;1H" + _numbered(10), rows=5)
    assert emulator.history_size() == 0
    assert lines(emulator)[0] == "top"


def test_a_region_at_the_top_feeds_history_as_xterm_does() -> None:
    # A program keeping a status line at the bottom (region 1..N-1) still scrolls its
    # output off the top of the screen.
    emulator = fed("\x1b[1;4r" + _numbered(6) + "\x1b[5;1Hstatus", rows=5)
    assert history_lines(emulator) == ["line 0", "line 1", "line 2"]
    assert lines(emulator)[4] == "status"


def test_clear_screen_scrolls_the_used_lines_into_history_as_tmux_does() -> None:
    emulator = fed("a\r\nb\r\n\x1b[H\x1b[2J", rows=5)
    assert history_lines(emulator) == ["a", "b"]
    assert lines(emulator) == [""] * 5


def test_erase_saved_lines_clears_history() -> None:
    emulator = fed(_numbered(20) + "\x1b[3J", rows=5)
    assert emulator.history_size() == 0


@pytest.mark.pyte_only
def test_compact_entries_are_small() -> None:
    emulator = fed_pyte(
        "".join(f"\x1b[3{n % 8}mword{n}\x1b[0m " * 12 + "\r\n" for n in range(200)),
        cols=120,
        rows=10,
    )
    sizes = []
    for entry in emulator.screen.history:
        parts = entry if isinstance(entry, tuple) else (entry,)
        sizes.append(sys.getsizeof(entry) + sum(sys.getsizeof(p) for p in parts))
    assert max(sizes) < 600


@pytest.mark.pyte_only
def test_every_entry_kind_renders_back_to_the_original_row() -> None:
    screen = IdeaScreen(12, 3, history=10)
    cases = ["plain text", "\x1b[1mbold\x1b[0m end", "中文 \x1b[32mok", "e\u0301\x1b[4mu"]
    for case in cases:
        emulator = fed_pyte(case, cols=12, rows=1)
        line = emulator.screen.grid[0]
        entry = compact_line(line)
        row = render_line(line, emulator.screen.table)
        assert row_cells(expand_history(entry, emulator.screen.table, 12)) == row_cells(row)
        assert render_line(line_from_history(entry, 12), emulator.screen.table) == row, case
    assert screen.history.maxlen == 10


def test_history_rows_are_fitted_to_the_current_width() -> None:
    emulator = fed("0123456789中\r\n" + "x\r\n" * 5, cols=12, rows=4)
    emulator.resize(8, 4)
    assert row_text(emulator.render_history(0, 1)[0]) == "01234567"
    emulator.resize(20, 4)
    check_invariants(emulator)


def test_blank_line_compacts_to_an_empty_string() -> None:
    assert compact_line(Line.blank(40)) == ""


def test_many_lines_keep_invariants() -> None:
    emulator = make(cols=30, rows=6, scrollback=50)
    emulator.feed(f"\x1b[33m{'y' * 31}中\x1b[0m\r\n".encode() * 80)
    check_invariants(emulator)
    assert emulator.history_size() == 50


def test_reading_the_whole_history_keeps_nothing_once_the_rows_are_dropped() -> None:
    # A capture of every cell's history must not leave the daemon holding a share of it:
    # whatever the read looked up (the styles of each row...) goes when its rows do.
    import tracemalloc

    words = "".join(f"\x1b[3{n % 8};{1 + n % 4}mw{n}\x1b[0m " for n in range(8))
    styled = "".join(f"line {n} {words}\r\n" for n in range(5000))
    emulator = fed(styled, cols=80, rows=10, scrollback=6000)
    emulator.render_row(0)
    emulator.take_dirty()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        rows = emulator.render_history(0, emulator.history_size())
        assert len(rows) == 4991 and row_text(rows[-1]).startswith("line 4990")
        del rows
        emulator.render_row(0)  # the screen is read again, as after a capture
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # Python keeps up to 2,000 freed tuples of each small size for reuse (traced as
    # allocated): a few hundred kilobytes at most, where keeping what the read looked up
    # held megabytes.
    assert kept < 1024 * 1024, f"{kept} bytes kept after the history read"


def test_history_read_in_blocks_is_the_history_read_at_once() -> None:
    from core.terminal import HISTORY_BLOCK, history_rows

    emulator = fed(_numbered(2 * HISTORY_BLOCK + 500), cols=30, rows=5, scrollback=3000)
    size = emulator.history_size()
    assert size > 2 * HISTORY_BLOCK
    assert list(history_rows(emulator, 0, size)) == emulator.render_history(0, size)
    part = list(history_rows(emulator, 7, HISTORY_BLOCK + 3))
    assert part == emulator.render_history(7, HISTORY_BLOCK + 3)
    assert row_text(part[0]).startswith("line 7") and len(part) == HISTORY_BLOCK + 3
    # Past the end: what there is, as `render_history` gives it.
    assert list(history_rows(emulator, size - 2, 10)) == emulator.render_history(size - 2, 10)
    assert list(history_rows(emulator, 0, 0)) == []
