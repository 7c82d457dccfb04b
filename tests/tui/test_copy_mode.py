"""Copy mode's moves, selection, search and text (idea_tui.copy_mode), without Textual."""

from __future__ import annotations

from core.terminal import Row
from idea_tui.copy_mode import CopyMode, Outcome, row_cells


def plain(text: str) -> Row:
    return ((text, -1, -1, 0),)


def make(lines: int = 100, height: int = 10, width: int = 40) -> CopyMode:
    history = [plain(f"line {i}") for i in range(lines - height)]
    screen = [plain(f"line {i}") for i in range(lines - height, lines)]
    return CopyMode.start(history, screen, width, height, (0, height - 1))


def test_starts_on_the_screen_at_the_cursor() -> None:
    mode = make()
    assert mode.top == 90
    assert mode.cursor_line == 99
    assert mode.scrolled == 0


def test_moves_are_clamped_and_keep_the_cursor_in_view() -> None:
    mode = make()
    mode.move(lines=5)
    assert mode.cursor_line == 99
    mode.move(lines=-15)
    assert mode.cursor_line == 84
    assert mode.top == 84
    assert mode.scrolled == 6
    mode.move(cols=-3)
    assert mode.cursor_col == 0
    mode.handle_key("g", "g")
    assert (mode.cursor_line, mode.top) == (0, 0)
    mode.handle_key("G", "G")
    assert (mode.cursor_line, mode.top) == (99, 90)


def test_scroll_drags_the_cursor() -> None:
    mode = make()
    mode.scroll(30)
    assert mode.top == 60
    assert 60 <= mode.cursor_line < 70
    mode.scroll(-1000)
    assert mode.top == 90


def test_selection_across_lines_is_copied_as_text() -> None:
    mode = make()
    mode.cursor_line, mode.cursor_col = 50, 5
    assert mode.handle_key("v", "v") is Outcome.NONE
    mode.move(lines=2, cols=1)
    assert mode.handle_key("y", "y") is Outcome.COPY
    assert mode.copied == "50\nline 51\nline 52"


def test_line_selection_takes_whole_lines() -> None:
    mode = make()
    mode.cursor_line, mode.cursor_col = 10, 3
    mode.handle_key("V", "V")
    mode.move(lines=1)
    mode.handle_key("enter", None)
    assert mode.copied == "line 10\nline 11"


def test_search_forward_backward_and_wrap() -> None:
    mode = make()
    assert mode.handle_key("slash", "/") is Outcome.SEARCH_FORWARD
    assert mode.search("line 12") is True
    assert mode.cursor_line == 12
    mode.next_match(reverse=False)
    assert mode.cursor_line == 12  # "line 12" occurs once: the search wraps to itself
    assert mode.search("nothing like this") is False
    assert "not found" in mode.message
    mode.cursor_line = 50
    assert mode.search("line 4", backward=True)
    assert mode.cursor_line == 49
    assert mode.matches(49) == [(0, 6)]


def test_wide_characters_take_two_cells() -> None:
    assert row_cells((("a漢b", -1, -1, 0),)) == ["a", "漢", "", "b"]
    assert row_cells((("e\u0301x", -1, -1, 0),)) == ["e\u0301", "x"]
    mode = CopyMode.start([], [(("a漢b", -1, -1, 0),)], 10, 1, (0, 0))
    mode.handle_key("v", "v")
    mode.move(cols=3)
    mode.handle_key("y", "y")
    assert mode.copied == "a漢b"


def test_escape_clears_a_selection_then_leaves() -> None:
    mode = make()
    mode.handle_key("v", "v")
    assert mode.handle_key("escape", None) is Outcome.NONE
    assert mode.anchor is None
    assert mode.handle_key("escape", None) is Outcome.EXIT


def test_unknown_keys_are_not_swallowed() -> None:
    assert make().handle_key("x", "x") is Outcome.UNHANDLED


def test_words() -> None:
    mode = CopyMode.start([], [plain("alpha beta  gamma")], 30, 1, (0, 0))
    mode.handle_key("w", "w")
    assert mode.cursor_col == 6
    mode.handle_key("w", "w")
    assert mode.cursor_col == 12
    mode.handle_key("b", "b")
    assert mode.cursor_col == 6
    mode.handle_key("dollar_sign", "$")
    assert mode.cursor_col == 16
