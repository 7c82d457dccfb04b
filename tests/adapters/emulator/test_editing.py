"""Editing, scrolling and cursor movement, including the pyte defects idea's screen fixes."""

from __future__ import annotations

import inspect

import pyte
import pytest

from adapters.emulator.screen import IdeaScreen
from tests.adapters.emulator.helpers import check_invariants, fed, lines, style_at

SIX_LINES = "a\r\nb\r\nc\r\nd\r\ne\r\nf"


def _pyte_lines(data: str, cols: int, rows: int) -> list[str]:
    screen = pyte.Screen(cols, rows)
    pyte.Stream(screen).feed(data)
    return [line.rstrip() for line in screen.display]


WITH_GAPS = "a\r\nb\r\nc\r\n\r\n\r\nf\x1b[2;1H\x1b[2M"


def test_pyte_itself_leaves_stale_rows_on_delete_lines_of_two() -> None:
    # The defect this screen exists to fix (proves the next test can fail): pyte moves a
    # line up only when the line below holds something, so "b" and "c" stay where blanks belong.
    assert _pyte_lines(WITH_GAPS, 5, 6) == ["a", "b", "c", "f", "", ""]


def test_delete_lines_count_two_moves_the_rest_up() -> None:
    assert lines(fed(WITH_GAPS, cols=5, rows=6)) == ["a", "", "", "f", "", ""]
    emulator = fed(SIX_LINES + "\x1b[2;1H\x1b[2M", cols=5, rows=6)
    assert lines(emulator) == ["a", "d", "e", "f", "", ""]
    assert emulator.cursor().x == 0  # (it was there already; tmux does not move it)


def test_insert_lines_count_two_pushes_lines_off_the_bottom() -> None:
    emulator = fed(SIX_LINES + "\x1b[2;1H\x1b[2L", cols=5, rows=6)
    assert lines(emulator) == ["a", "", "", "b", "c", "d"]


def test_insert_and_delete_lines_stay_inside_the_scroll_region() -> None:
    emulator = fed(SIX_LINES + "\x1b[2;4r\x1b[2;1H\x1b[5M", cols=5, rows=6)
    assert lines(emulator) == ["a", "", "", "", "e", "f"]
    emulator.feed(b"\x1b[r\x1b[1;1H\x1b[3L")
    assert lines(emulator) == ["", "", "", "a", "", ""]


def test_lines_outside_the_region_ignore_insert_and_delete() -> None:
    emulator = fed(SIX_LINES + "\x1b[2;4r\x1b[6;1H\x1b[2M\x1b[2L", cols=5, rows=6)
    assert lines(emulator) == ["a", "b", "c", "d", "e", "f"]


def test_scrolling_inside_a_region_keeps_the_lines_around_it() -> None:
    emulator = fed("top\x1b[2;4r\x1b[2;1H" + "".join(f"r{n}\r\n" for n in range(6)), rows=6)
    assert lines(emulator) == ["top", "r4", "r5", "", "", ""]


def test_reverse_index_at_the_top_scrolls_down() -> None:
    emulator = fed("a\r\nb\x1b[H\x1bMz", rows=3)
    assert lines(emulator) == ["z", "a", "b"]


def test_scroll_up_and_down_sequences() -> None:
    emulator = fed("a\r\nb\r\nc\x1b[1S", rows=3)
    assert lines(emulator) == ["b", "c", ""]
    emulator.feed(b"\x1b[2T")
    assert lines(emulator) == ["", "", "b"]


@pytest.mark.parametrize(
    ("sequence", "expected"),
    [
        ("\x1b[3@", "ab   cdef"),
        ("\x1b[2P", "abef"),
        ("\x1b[2X", "ab  ef"),
        ("\x1b[K", "ab"),
        ("\x1b[1K", "   def"),
        ("\x1b[2K", ""),
    ],
)
def test_character_editing(sequence: str, expected: str) -> None:
    emulator = fed("abcdef\x1b[1;3H" + sequence, cols=10, rows=2)
    assert lines(emulator)[0] == expected


def test_insert_characters_drops_what_passes_the_right_edge() -> None:
    emulator = fed("abcdefghij\x1b[1;1H\x1b[3@", cols=10, rows=1)
    assert lines(emulator) == ["   abcdefg"]


def test_erase_uses_the_background_colour_only() -> None:
    emulator = fed("abcdef\x1b[1;4;31;44m\x1b[1;3H\x1b[K", cols=8, rows=1)
    assert style_at(emulator, 5, 0) == (-1, 4, 0)
    assert style_at(emulator, 1, 0) == (-1, -1, 0)


@pytest.mark.parametrize(
    ("moves", "expected"),
    [("\x1b[2;2H\x1b[J", ["aaaa", "b", "", ""]), ("\x1b[3;2H\x1b[1J", ["", "", "  cc", "dddd"])],
)
def test_erase_in_display(moves: str, expected: list[str]) -> None:
    emulator = fed("aaaa\r\nbbbb\r\ncccc\r\ndddd" + moves, 4, 4)
    assert lines(emulator) == expected


def test_cursor_moves_are_clamped_to_the_screen() -> None:
    emulator = fed("\x1b[99;99Hx", cols=10, rows=4)
    assert lines(emulator)[3] == " " * 9 + "x"
    emulator.feed(b"\x1b[0;0H\x1b[5A\x1b[5Dy")
    assert lines(emulator)[0] == "y"


def test_cursor_up_above_the_region_is_not_pulled_into_it() -> None:
    # pyte moves the cursor *down* to the top margin here.
    emulator = fed("\x1b[3;4r\x1b[2;1H\x1b[Ax", rows=5)
    assert lines(emulator)[0] == "x"


def test_line_feed_below_the_region_moves_down_without_scrolling() -> None:
    emulator = fed("top\x1b[1;2r\x1b[4;1H\n\n\nz", rows=5)
    assert lines(emulator) == ["top", "", "", "", "z"]


def test_origin_mode_makes_positions_relative_to_the_region() -> None:
    emulator = fed("\x1b[2;4r\x1b[?6h\x1b[1;1HX\x1b[9;1HY\x1b[?6l\x1b[1;1HZ", rows=6)
    assert lines(emulator)[:4] == ["Z", "X", "", "Y"]


def test_tabs_default_every_eight_and_can_be_set_and_cleared() -> None:
    emulator = fed("a\tb\tc", cols=30, rows=2)
    assert lines(emulator)[0] == "a       b       c"
    emulator.feed(b"\r\n\x1b[3g\x1b[5G\x1bH\r\tX\x1b[Z\x1b[ZY")
    assert lines(emulator)[1] == "Y   X"


def test_tab_count_and_back_tab_count() -> None:
    emulator = fed("\x1b[2Ix\x1b[2Zy", cols=30, rows=1)
    assert lines(emulator)[0] == "        y       x"


def test_repeat_repeats_the_last_character() -> None:
    assert lines(fed("ab\x1b[4b", rows=1)) == ["abbbbb"]


def test_alignment_pattern_fills_the_screen() -> None:
    emulator = fed("\x1b#8", cols=3, rows=2)
    assert lines(emulator) == ["EEE", "EEE"]


def test_autowrap_continues_on_the_next_line_and_can_be_disabled() -> None:
    emulator = fed("0123456789ab", cols=10, rows=2)
    assert lines(emulator) == ["0123456789", "ab"]
    emulator = fed("\x1b[?7l0123456789abc", cols=10, rows=2)
    assert lines(emulator) == ["012345678c", ""]


def test_pending_wrap_then_carriage_return_stays_on_the_line() -> None:
    emulator = fed("0123456789\rX", cols=10, rows=2)
    assert lines(emulator) == ["X123456789", ""]


def test_backspace_from_the_pending_wrap_position_is_tmux_like() -> None:
    emulator = fed("0123456789\x08X", cols=10, rows=1)
    assert lines(emulator) == ["012345678X"]


def test_insert_mode_shifts_text_right() -> None:
    emulator = fed("abcdef\x1b[1;3H\x1b[4hXY\x1b[4lZ", cols=10, rows=1)
    assert lines(emulator) == ["abXYZdef"]


def test_save_and_restore_cursor_keeps_position_and_style() -> None:
    emulator = fed("ab\x1b[1;32m\x1b7\x1b[0m\x1b[3;3Hcd\x1b8ef", cols=10, rows=3)
    assert lines(emulator)[0] == "abef"
    assert style_at(emulator, 2, 0) == (2, -1, 1)


def test_dec_special_graphics_draw_box_lines() -> None:
    emulator = fed("\x1b(0lqk\r\nx x\r\nmqj\x1b(B ok", cols=10, rows=3)
    assert lines(emulator) == ["┌─┐", "│ │", "└─┘ ok"]


def test_full_reset_clears_the_screen_and_modes() -> None:
    emulator = fed("abc\x1b[?25l\x1b[?1h\x1b[1;31m\x1bcx", cols=10, rows=2)
    assert lines(emulator) == ["x", ""]
    assert emulator.cursor().visible
    assert not emulator.modes.app_cursor
    assert style_at(emulator, 0, 0) == (-1, -1, 0)


def test_soft_reset_restores_defaults_but_keeps_the_screen() -> None:
    emulator = fed("abc\x1b[4h\x1b[?25l\x1b[2;3r\x1b[1m\x1b[!p", cols=10, rows=4)
    assert lines(emulator)[0] == "abc"
    assert emulator.cursor().visible
    emulator.feed(b"\x1b[1;1HZ")
    assert lines(emulator)[0] == "Zbc"
    assert style_at(emulator, 0, 0) == (-1, -1, 0)


@pytest.mark.pyte_only
def test_idea_screen_is_a_pyte_screen_and_replaces_every_buffer_method() -> None:
    # pyte methods that touch `self.buffer` would silently write to a grid nobody renders.
    assert issubclass(IdeaScreen, pyte.Screen)
    for name, member in vars(pyte.Screen).items():
        function = member.fget if isinstance(member, property) else member
        if not inspect.isfunction(function):
            continue
        if "self.buffer" in inspect.getsource(function):
            assert vars(pyte.Screen)[name] is not _resolved(IdeaScreen, name), name


def _resolved(cls: type, name: str) -> object:
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    raise AttributeError(name)


def test_invariants_after_editing_a_busy_screen() -> None:
    emulator = fed(
        SIX_LINES + "\x1b[2;5r\x1b[3;2H\x1b[3L\x1b[2M\x1b[4@\x1b[9P\x1b[2S\x1b[3T中文\x1b[1;9Hx中",
        cols=10,
        rows=6,
    )
    check_invariants(emulator)


# Behaviours at the pending-wrap position and around wrapping, found by comparing random
# streams with tmux (see test_tmux_conformance).


@pytest.mark.parametrize("edit", ["\x1b[P", "\x1b[3X", "\x1b[@", "\x1b[K"])
def test_editing_at_the_pending_wrap_position_changes_nothing(edit: str) -> None:
    assert lines(fed("abcdefghij" + edit, cols=10, rows=2))[0] == "abcdefghij"


def test_tab_at_the_pending_wrap_position_keeps_the_wrap() -> None:
    assert lines(fed("abcdefghij\tX", cols=10, rows=2)) == ["abcdefghij", "X"]


def test_vertical_position_keeps_a_pending_wrap() -> None:
    assert lines(fed("abcdefghij\x1b[2dX", cols=10, rows=3)) == ["abcdefghij", "", "X"]


def test_backspace_at_the_start_of_a_wrapped_line_goes_back_up() -> None:
    emulator = fed("abcdefghijkl\x1b[2;1H\x08X", cols=10, rows=3)
    assert lines(emulator)[:2] == ["abcdefghiX", "kl"]
    # A line that only ended with a line feed does not count as wrapped.
    assert lines(fed("abc\r\n\x08X", cols=10, rows=3))[:2] == ["abc", "X"]
    # Clearing the whole line forgets the wrap.
    assert lines(fed("abcdefghijkl\x1b[1;1H\x1b[2K\x1b[2;1H\x08X", cols=10, rows=3))[1] == "Xl"


def test_a_line_opened_by_autowrap_has_default_colours() -> None:
    emulator = fed("\x1b[44mabcdefghij\x1bDkl", cols=10, rows=1)
    assert style_at(emulator, 5, 0) == (-1, -1, 0)
    emulator = fed("\x1b[44mab\x1bD", cols=10, rows=1)  # an explicit feed uses the colour
    assert style_at(emulator, 5, 0) == (-1, 4, 0)


def test_without_autowrap_the_cursor_stays_on_the_last_column() -> None:
    emulator = fed("\x1b[?7labcdefghijkl\x1b[3DX", cols=10, rows=1)
    assert lines(emulator) == ["abcdefXhil"]


def test_repeat_only_follows_printed_ascii_and_stops_at_the_edge() -> None:
    assert lines(fed("ab\x1b[20b", cols=10, rows=2)) == ["abbbbbbbbb", ""]
    assert lines(fed("ab\x1b[1m\x1b[3b", cols=10, rows=1)) == ["ab"]
    assert lines(fed("é\x1b[3b", cols=10, rows=1)) == ["é"]
    assert lines(fed("ab\x1b[2b\x1b[2b", cols=10, rows=1)) == ["abbb"]


def test_scroll_down_with_two_parameters_scrolls_as_tmux_does() -> None:
    assert lines(fed("a\r\nb\x1b[1;5T", cols=5, rows=3)) == ["", "a", "b"]
