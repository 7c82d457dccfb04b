"""Wide characters, emoji and combining marks take the cells wcwidth gives them."""

from __future__ import annotations

import pytest

from core.terminal import row_text
from tests.adapters.emulator.helpers import check_invariants, fed, lines, make, row_width


def test_wide_characters_take_two_cells_and_appear_once() -> None:
    emulator = fed("中文ab", cols=8, rows=1)
    assert emulator.render_row(0) == (("中文ab  ", -1, -1, 0),)
    assert emulator.cursor().x == 6


def test_emoji_take_the_cells_of_each_code_point() -> None:
    emulator = fed("😀x👍🏽y", cols=10, rows=1)
    assert row_text(emulator.render_row(0)) == "😀x👍🏽y  "
    assert emulator.cursor().x == 8


def test_combining_marks_join_the_previous_character() -> None:
    emulator = fed("e\u0301a\u0308\u0323!", cols=6, rows=1)
    assert lines(emulator) == ["e\u0301a\u0308\u0323!"]
    assert emulator.cursor().x == 3


def test_a_combining_mark_after_a_wide_character_joins_it() -> None:
    emulator = fed("中\u0301x", cols=6, rows=1)
    assert lines(emulator) == ["中\u0301x"]
    check_invariants(emulator)


def test_a_combining_mark_at_the_start_of_a_line_is_dropped() -> None:
    assert lines(fed("\u0301ab", cols=5, rows=1)) == ["ab"]


def test_combining_marks_on_one_cell_are_bounded() -> None:
    emulator = fed("a" + "\u0301" * 1000, cols=5, rows=1)
    assert len(lines(emulator)[0]) <= 16


def test_a_wide_character_that_does_not_fit_wraps_whole() -> None:
    emulator = fed("abcd中", cols=5, rows=2)
    assert lines(emulator) == ["abcd", "中"]
    check_invariants(emulator)


def test_without_autowrap_a_wide_character_at_the_edge_is_dropped() -> None:
    emulator = fed("\x1b[?7labcd中", cols=5, rows=2)
    assert lines(emulator) == ["abcd", ""]


def test_overwriting_either_half_of_a_wide_character_blanks_the_other() -> None:
    assert lines(fed("中文\x1b[1;2Hx", cols=6, rows=1)) == [" x文"]
    assert lines(fed("中文\x1b[1;1Hx", cols=6, rows=1)) == ["x 文"]


def test_editing_through_wide_characters_keeps_rows_whole() -> None:
    for edit in (
        "\x1b[1;2H\x1b[P",
        "\x1b[1;2H\x1b[@",
        "\x1b[1;2H\x1b[X",
        "\x1b[1;2H\x1b[K",
        "\x1b[1;2H\x1b[1K",
        "\x1b[1;4H\x1b[2@",
    ):
        emulator = fed("中文字" + edit, cols=6, rows=1)
        check_invariants(emulator)
        assert row_width(emulator.render_row(0)) == 6


def test_a_wide_character_pushed_to_the_last_column_is_blanked() -> None:
    emulator = fed("abcd中\x1b[1;1H\x1b[1@", cols=6, rows=1)
    assert lines(emulator) == [" abcd"]
    check_invariants(emulator)


def test_ambiguous_and_unusual_characters_keep_the_invariants() -> None:
    odd = "\u00ad\u200b\u2028\ufeff\U000e0001·—\u3000\U0001f1eb\U0001f1f7"
    emulator = fed(odd, cols=12, rows=2)
    check_invariants(emulator)


@pytest.mark.parametrize("mark", ["\u0301", "\u200d\U0001f466", "\ufe0f", "\U0001f3fd"])
def test_a_mark_joining_a_cell_in_a_later_read_shows_after_the_rows_were_taken(
        mark: str) -> None:
    # The daemon takes the dirty rows after every read: a mark that arrives in the next
    # read, alone, must still reach the cell it joins (Ghostty does not mark that row).
    base = "\U0001f466" if mark != "\u0301" else "e"
    whole = fed(base + mark, 10, 3)
    emulator = make(10, 3)
    emulator.feed(base.encode())
    emulator.take_dirty()
    data = mark.encode()
    emulator.feed(data[:1])  # cut inside the code point, as reads may be
    emulator.feed(data[1:])
    changed = whole.render_row(0) != fed(base, 10, 3).render_row(0)
    assert (0 in emulator.take_dirty()) == changed
    assert emulator.render_row(0) == whole.render_row(0)
    assert emulator.row_text(0) == row_text(whole.render_row(0))
