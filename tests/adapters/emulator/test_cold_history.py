"""The Ghostty backend's packed history: rows come back as they went in at their width,
re-wrap as a terminal reflows at any other, and stay packed.

The re-wrap is checked against a cell-by-cell model (`_model_rows`), which knows nothing of
runs: rows are compared as lists of (cell text, style, link) cells.
"""

from __future__ import annotations

import random
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from adapters.emulator import cold_history
from adapters.emulator.cold_history import ColdHistory
from adapters.emulator.grid import char_width, text_width
from core.terminal import LinkedRow, Row, Run, rgb, row_links, with_links

pytestmark = pytest.mark.ghostty_only  # the ghostty backend's store (pure Python)

Style = tuple[int, int, int]
Cell = tuple[str, Style, str | None]
Line = list[tuple[Row, bool]]

BLANK: Style = (-1, -1, 0)
STYLES: list[Style] = [BLANK, BLANK, (1, -1, 0), (2, 7, 1), (-1, 4, 0), (rgb(1, 2, 3), -1, 8)]
UNITS = ["a", "b", "x", " ", " ", " ", "中", "字", "e\u0301", "─", "é"]
"""What a cell may hold: letters, blanks, wide CJK, a letter with a combining mark, narrow
non-ASCII."""
NARROW_UNITS = ["a", "b", "x", " ", " ", "─"]
URIS = ["https://a.example/1", "https://b.example/2"]


# -- building rows ----------------------------------------------------------------------------


@st.composite
def rows_at(draw: st.DrawFn, width: int, units: list[str] = UNITS) -> Row:
    """A row exactly `width` cells wide, of runs with random styles and links."""
    texts: list[str] = []
    styles: list[Style] = []
    cells = 0
    while cells < width:
        unit = draw(st.sampled_from(units))
        if cells + text_width(unit) > width:
            unit = " "  # a wide character that does not fit leaves a blank, as a terminal
        style = draw(st.sampled_from(STYLES))
        same_run: bool = draw(st.booleans())
        if texts and same_run:
            texts[-1] += unit
        else:
            texts.append(unit)
            styles.append(style)
        cells += text_width(unit)
    row: list[Run] = [(text, *style) for text, style in zip(texts, styles, strict=True)]
    linked = draw(st.lists(st.tuples(st.integers(0, len(row) - 1), st.sampled_from(URIS)),
                           max_size=2, unique_by=lambda pair: pair[0]))
    return with_links(row, tuple(sorted(linked)))


@st.composite
def lines_at(draw: st.DrawFn, width: int, units: list[str] = UNITS) -> Line:
    """A logical line: one or more rows, each but the last wrapped."""
    count = draw(st.integers(1, 4))
    return [(draw(rows_at(width, units)), n < count - 1) for n in range(count)]


def histories(units: list[str] = UNITS, max_lines: int = 25
              ) -> st.SearchStrategy[tuple[int, list[Line]]]:
    return st.integers(1, 14).flatmap(
        lambda width: st.tuples(st.just(width),
                                st.lists(lines_at(width, units), max_size=max_lines)))


@contextmanager
def small_blocks() -> Iterator[None]:
    """Blocks of a few lines, so that a few dozen lines make several blocks and a tail."""
    with mock.patch.object(cold_history, "BLOCK_LINES", 3), \
            mock.patch.object(cold_history, "BLOCK_ROWS", 5):
        yield


def flat(lines: list[Line]) -> list[Row]:
    return [row for line in lines for row, _ in line]


def filled(width: int, lines: list[Line], batch: int = 2) -> ColdHistory:
    history = ColdHistory(width)
    for start in range(0, len(lines), batch):
        history.add([pair for line in lines[start:start + batch] for pair in line], width)
    return history


def _text(line: Line) -> str:
    """The text of a logical line: its rows' less the padding (default blanks) of the last."""
    text = "".join(row_text(row) for row, _ in line)
    cells = _cells_of(line[-1][0])
    while cells and cells[-1] == (" ", BLANK, None):
        cells.pop()
        text = text[:-1]
    return text


def row_text(row: Row) -> str:
    return "".join(run[0] for run in row)


def row_cells(row: Row) -> int:
    return sum(text_width(run[0]) for run in row)


# -- the model --------------------------------------------------------------------------------


def _cells_of(row: Row) -> list[Cell]:
    """A row as cells: a code point of width 0 joins the cell before it."""
    uris = dict(row_links(row))
    cells: list[Cell] = []
    for index, (text, fg, bg, attrs) in enumerate(row):
        for char in text:
            width = 1 if text.isascii() else max(char_width(char), 0)
            if width == 0 and cells:
                cells[-1] = (cells[-1][0] + char, cells[-1][1], cells[-1][2])
            else:
                cells.append((char, (fg, bg, attrs), uris.get(index)))
    return cells


def _width(cell: Cell) -> int:
    return text_width(cell[0])


def _model_rows(line: Line, cols: int) -> list[list[Cell]]:
    """A logical line re-wrapped at `cols`, cell by cell."""
    cells = [cell for row, _ in line for cell in _cells_of(row)]
    last = len(cells) - len(_cells_of(line[-1][0]))
    while len(cells) > last and cells[-1] == (" ", BLANK, None):
        cells.pop()
    rows: list[list[Cell]] = [[]]
    used = 0
    for cell in cells:
        width = _width(cell)
        if width and used + width > cols and used:
            rows[-1] += [(" ", BLANK, None)] * (cols - used)
            rows.append([])
            used = 0
        if width > cols:
            cell, width = ("\ufffd", cell[1], cell[2]), 1
        rows[-1].append(cell)
        used += width
    rows[-1] += [(" ", BLANK, None)] * (cols - used)
    return rows


def expected_rows(lines: list[Line], width: int, cols: int) -> list[list[Cell]]:
    if cols == width:
        return [_cells_of(row) for row in flat(lines)]
    return [row for line in lines for row in _model_rows(line, cols)]


# -- identity ---------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(history=histories(), batch=st.integers(1, 5), chunk=st.integers(1, 9))
def test_rows_come_back_as_they_went_in(history: tuple[int, list[Line]], batch: int,
                                        chunk: int) -> None:
    width, lines = history
    with small_blocks():
        store = filled(width, lines, batch)
        rows = flat(lines)
        assert store.size() == len(rows)
        whole = store.rows(0, store.size())
        assert whole == rows
        assert [type(row) for row in whole] == [type(row) for row in rows]
        assert [row_links(row) for row in whole] == [row_links(row) for row in rows]
        chunks = [row for start in range(0, len(rows), chunk) for row in store.rows(start, chunk)]
        assert chunks == rows
        assert store.rows(len(rows) - 1, 100) == rows[-1:]
        assert store.rows(len(rows), 5) == []


def test_a_linked_row_without_links_keeps_its_type() -> None:
    row = LinkedRow([("abc", -1, -1, 0)], ())
    store = ColdHistory(3)
    store.add([(row, False)] * (cold_history.BLOCK_LINES + 1), 3)  # packed, and in the tail
    back = store.rows(0, store.size())
    assert all(type(each) is LinkedRow and each.links == () for each in back)


# -- re-wrap ----------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(history=histories(), widths=st.lists(st.integers(1, 20), min_size=1, max_size=4),
       chunk=st.integers(1, 9))
def test_any_width_shows_whole_rows_re_wrapped_as_the_model_does(
        history: tuple[int, list[Line]], widths: list[int], chunk: int) -> None:
    width, lines = history
    with small_blocks():
        store = filled(width, lines)
        for cols in [*widths, width]:
            store.resize(cols)
            assert store.cols == cols
            rows = store.rows(0, store.size())
            assert len(rows) == store.size()
            assert all(row_cells(row) == cols for row in rows)
            assert [_cells_of(row) for row in rows] == expected_rows(lines, width, cols)
            chunks = [row for start in range(0, store.size(), chunk)
                      for row in store.rows(start, chunk)]
            assert chunks == rows
        assert store.rows(0, store.size()) == flat(lines)  # back at the width they were drawn


@settings(max_examples=60, deadline=None)
@given(history=histories(NARROW_UNITS), cols=st.integers(1, 20))
def test_narrow_text_of_each_line_survives_a_resize_and_back(
        history: tuple[int, list[Line]], cols: int) -> None:
    width, lines = history
    assume(cols != width)  # at its own width a line is its rows as drawn (blank rows too)
    with small_blocks():
        store = filled(width, lines)
        store.resize(cols)
        rows = store.rows(0, store.size())
        for line in lines:
            text = _text(line)
            count = max(1, -(-len(text) // cols))  # narrow: one cell a character
            here, rows = rows[:count], rows[count:]
            assert "".join(row_text(row) for row in here).rstrip(" ") == text.rstrip(" ")
        assert rows == []
        store.resize(width)
        assert store.rows(0, store.size()) == flat(lines)


@settings(max_examples=60, deadline=None)
@given(first=histories(max_lines=12), second=histories(max_lines=12),
       widths=st.lists(st.integers(1, 20), min_size=1, max_size=3))
def test_lines_drawn_at_different_widths_each_reflow_from_their_own(
        first: tuple[int, list[Line]], second: tuple[int, list[Line]],
        widths: list[int]) -> None:
    (width, old), (new_width, new) = first, second
    with small_blocks():
        store = filled(width, old)
        store.resize(new_width)
        for line in new:
            store.add(line, new_width)
        for cols in [*widths, width, new_width]:
            store.resize(cols)
            rows = store.rows(0, store.size())
            assert len(rows) == store.size()
            assert [_cells_of(row) for row in rows] == (
                expected_rows(old, width, cols) + expected_rows(new, new_width, cols))
            if cols == width:
                assert rows[:len(flat(old))] == flat(old)
            if cols == new_width:
                assert rows[len(rows) - len(flat(new)):] == flat(new)


def test_lines_added_at_several_widths_each_come_back_at_their_own() -> None:
    store = ColdHistory(10)
    first = [((("abcdefghij", 1, -1, 0),), True), ((("kl", 2, -1, 0), ("        ", -1, -1, 0)),
                                                   False)]
    store.add(first, 10)
    store.resize(4)
    second = [((("wxyz", 3, -1, 0),), True), ((("w", 3, -1, 0), ("   ", -1, -1, 0)), False)]
    store.add(second, 4)
    assert store.rows(3, 2) == [row for row, _ in second]
    store.resize(10)
    assert store.rows(0, store.size()) == [
        *(row for row, _ in first), (("wxyz", 3, -1, 0), ("w", 3, -1, 0), ("     ", -1, -1, 0))]
    store.resize(4)
    assert store.rows(3, 2) == [row for row, _ in second]


def test_a_line_in_two_styles_wraps_at_four_columns() -> None:
    store = ColdHistory(10)
    store.add([((("abcdef", 1, -1, 0), ("ghij", 2, -1, 1)), False)], 10)
    store.resize(4)
    assert store.rows(0, 10) == [
        (("abcd", 1, -1, 0),),
        (("ef", 1, -1, 0), ("gh", 2, -1, 1)),
        (("ij", 2, -1, 1), ("  ", -1, -1, 0)),
    ]
    store.resize(12)  # the trailing blanks are padding, not text: one row again
    assert store.rows(0, 10) == [(("abcdef", 1, -1, 0), ("ghij", 2, -1, 1), ("  ", -1, -1, 0))]


def test_blanks_the_program_wrote_are_text_a_reflow_keeps() -> None:
    """"abcd" then two printed blanks (6 cells written of 8): at 5 columns the blanks run on
    to a second row, as Ghostty's and tmux's reflows keep them; the same row with nothing
    said of what was written reflows as padding."""
    row: Row = (("abcd    ", -1, -1, 0),)
    written, unknown = ColdHistory(8), ColdHistory(8)
    written.add([(row, False, 6)], 8)
    unknown.add([(row, False)], 8)
    for store in (written, unknown):
        store.resize(5)
    assert written.rows(0, 5) == [(("abcd ", -1, -1, 0),), ((" ", -1, -1, 0), ("    ", -1, -1, 0))]
    assert unknown.rows(0, 5) == [(("abcd", -1, -1, 0), (" ", -1, -1, 0))]
    written.resize(8)
    assert written.rows(0, 5) == [row]


def test_an_empty_line_is_one_blank_row() -> None:
    store = ColdHistory(5)
    store.add([((("     ", -1, -1, 0),), False)], 5)
    store.resize(3)
    assert store.rows(0, 5) == [(("   ", -1, -1, 0),)]


def test_a_wide_character_that_does_not_fit_goes_to_the_next_row_leaving_a_blank() -> None:
    store = ColdHistory(5)
    store.add([((("abc中", 1, -1, 0),), False)], 5)
    store.resize(4)
    assert store.rows(0, 5) == [
        (("abc", 1, -1, 0), (" ", -1, -1, 0)),
        (("中", 1, -1, 0), ("  ", -1, -1, 0)),
    ]
    store.resize(1)  # wider than a row: a stand-in character
    assert [row_text(row) for row in store.rows(0, 10)] == ["a", "b", "c", "\ufffd"]


def test_a_combining_mark_stays_with_its_letter() -> None:
    store = ColdHistory(4)
    store.add([((("abe\u0301c", 1, -1, 0),), False)], 4)
    store.resize(3)
    assert [row_text(row) for row in store.rows(0, 5)] == ["abe\u0301", "c  "]


def test_links_follow_their_runs_across_a_split() -> None:
    uri = "https://example.com/x"
    row = LinkedRow([("see ", -1, -1, 0), ("example.com/x", 4, -1, 8), ("        ", -1, -1, 0)],
                    ((1, uri),))
    store = ColdHistory(25)
    store.add([(row, False)], 25)
    store.resize(10)
    rows = store.rows(0, store.size())
    assert rows == [
        LinkedRow([("see ", -1, -1, 0), ("exampl", 4, -1, 8)], ((1, uri),)),
        LinkedRow([("e.com/x", 4, -1, 8), ("   ", -1, -1, 0)], ((0, uri),)),
    ]
    store.resize(25)
    assert store.rows(0, 1) == [row]


# -- trim and clear ---------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(history=histories(max_lines=30), cols=st.integers(1, 20),
       keeps=st.lists(st.integers(0, 60), min_size=1, max_size=3))
def test_trim_drops_the_oldest_whole_lines_it_can(
        history: tuple[int, list[Line]], cols: int, keeps: list[int]) -> None:
    width, lines = history
    with small_blocks():
        store = filled(width, lines)
        store.resize(cols)
        for keep in sorted(keeps, reverse=True):
            before = store.rows(0, store.size())
            store.trim(keep)
            counts = [len(expected_rows([line], width, cols)) for line in lines]
            while lines and sum(counts) - counts[0] >= keep:
                lines, counts = lines[1:], counts[1:]
            assert store.size() == sum(counts)
            assert store.size() >= min(keep, len(before))
            assert store.rows(0, store.size()) == before[len(before) - store.size():]
        store.resize(width)  # counts and re-wraps what is left, past the lines dropped
        assert store.rows(0, store.size()) == flat(lines)
        store.add([pair for line in lines[:2] for pair in line], width)
        assert store.rows(0, store.size()) == flat(lines) + flat(lines[:2])


def test_clear_empties_the_history() -> None:
    store = ColdHistory(3)
    store.add([((("abc", -1, -1, 0),), False)] * 300, 3)
    store.clear()
    assert store.size() == 0 and store.rows(0, 10) == [] and store.packed_bytes() == 0
    store.add([((("xyz", -1, -1, 0),), False)], 3)
    assert store.rows(0, 10) == [(("xyz", -1, -1, 0),)]


# -- what is unpacked -------------------------------------------------------------------------


def test_reading_in_order_decodes_each_block_once_and_a_narrow_resize_none() -> None:
    store = ColdHistory(20)
    store.add([((((f"line {n}").ljust(20), n % 5, -1, 0),), False) for n in range(1_000)], 20)
    real = cold_history._decode
    with mock.patch.object(cold_history, "_decode", side_effect=real) as decode:
        store.resize(7)
        assert not decode.called  # narrow text: counted from the line widths alone
        for start in range(0, store.size(), 150):
            store.rows(start, 150)
        assert decode.call_count == 1_000 // cold_history.BLOCK_LINES
        decode.reset_mock()
        store.add([((("中中中x", 1, -1, 0),), False)] * 200, 7)
        store.resize(9)
        # Only the packed blocks with wide characters are decoded (the tail is not packed).
        block = cold_history.BLOCK_LINES
        assert decode.call_count == 1_200 // block - 1_000 // block


# -- size -------------------------------------------------------------------------------------


def _styled_line(rng: random.Random, cols: int) -> Row:
    """A line of words of 3-8 letters, each in one of 8 colours, padded to `cols`."""
    runs: list[Run] = []
    used = 0
    while True:
        word = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 8)))
        if used + len(word) + 1 > cols:
            break
        runs += [(word, rng.randrange(8), -1, rng.choice((0, 0, 1))), (" ", -1, -1, 0)]
        used += len(word) + 1
    runs.append((" " * (cols - used), -1, -1, 0))
    return tuple(runs)


def test_ten_thousand_styled_lines_stay_packed() -> None:
    rng = random.Random(7)
    tracemalloc.start()
    try:
        store = ColdHistory(140)
        for _ in range(100):  # rows made here and let go: only what the store keeps stays
            store.add([(_styled_line(rng, 140), False) for _ in range(100)], 140)
        kept, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert store.size() == 10_000
    # Unpacked, these rows take some 6 KB a line as Python objects; packed, about 100 bytes.
    assert store.packed_bytes() < 2_000_000
    assert kept < 3_000_000
    rng = random.Random(7)
    assert store.rows(0, 1) == [_styled_line(rng, 140)]


# -- misuse -----------------------------------------------------------------------------------


def test_a_batch_must_end_a_line_and_be_at_the_history_width() -> None:
    store = ColdHistory(3)
    row: Row = (("abc", -1, -1, 0),)
    with pytest.raises(ValueError):
        store.add([(row, False), (row, True)], 3)
    with pytest.raises(ValueError):
        store.add([(row, False)], 4)
    assert store.size() == 0
    store.add([], 3)
    assert store.size() == 0
    with pytest.raises(ValueError):
        ColdHistory(0)
    with pytest.raises(ValueError):
        store.resize(0)
    with pytest.raises(ValueError):
        store.resize(cold_history.MAX_COLS + 1)
