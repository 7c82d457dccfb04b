"""Re-wrapping on width changes (reflow): what must hold whatever the text.

tests/conformance/test_reflow.py compares the same behaviour with tmux itself.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.emulator.emulator import PyteEmulator
from adapters.emulator.rows import WrappedCells, WrappedText, compact_line, is_wrapped
from adapters.emulator.styles import DEFAULT_STYLE
from core.terminal import Row
from tests.adapters.emulator.helpers import (
    Emulator,
    check_invariants,
    fed,
    fed_pyte,
    history_lines,
    lines,
)

WORDS = st.lists(st.sampled_from(["alpha", "b", "中文", "🙂", "  ", "ccc", "x" * 17, "é"]),
                 max_size=30).map("".join)


def _merged(row: Row) -> Row:
    """The row with neighbouring runs of one style joined (how runs are cut may differ)."""
    runs: list[tuple[str, int, int, int]] = []
    for text, fg, bg, attrs in row:
        if runs and runs[-1][1:] == (fg, bg, attrs):
            runs[-1] = (runs[-1][0] + text, fg, bg, attrs)
        else:
            runs.append((text, fg, bg, attrs))
    return tuple(runs)


def _all_rows(emulator: Emulator) -> list[Row]:
    history = emulator.render_history(0, emulator.history_size())
    return [_merged(row) for row in
            [*history, *(emulator.render_row(y) for y in range(emulator.rows))]]


def _text(emulator: Emulator) -> list[str]:
    texts = [*history_lines(emulator), *lines(emulator)]
    while texts and not texts[-1]:
        texts.pop()
    return texts


@settings(max_examples=150, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=12), st.integers(10, 60), st.integers(2, 60))
def test_narrowing_then_widening_back_gives_the_same_text(
        texts: list[str], cols: int, narrow: int) -> None:
    emulator = fed("\r\n".join(texts), cols=cols, rows=6)
    before = _text(emulator)
    emulator.resize(min(narrow, cols), 6)
    check_invariants(emulator)
    emulator.resize(cols, 6)
    check_invariants(emulator)
    assert _text(emulator) == before


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(WORDS, st.integers(0, 7)), min_size=1, max_size=40),
       st.integers(12, 50), st.integers(3, 80))
def test_scrollback_and_screen_rewrap_alike(
        parts: list[tuple[str, int]], cols: int, width: int) -> None:
    """The same output re-wrapped in the scrollback (where plain lines take a faster way)
    and on a screen tall enough to hold it all: every row the same, colours included."""
    data = "\r\n".join(f"\x1b[3{colour}m{text}\x1b[0m" if colour else text
                       for text, colour in parts)
    short = fed(data, cols=cols, rows=3, scrollback=5000)
    tall = fed(data, cols=cols, rows=400, scrollback=5000)
    short.resize(width, 3)
    tall.resize(width, 400)
    short_rows = _all_rows(short)
    tall_rows = _all_rows(tall)
    blank = ((" " * width, *DEFAULT_STYLE),)
    while short_rows and short_rows[-1] == blank:
        short_rows.pop()
    while tall_rows and tall_rows[-1] == blank:
        tall_rows.pop()
    assert short_rows == tall_rows


def test_scrollback_with_hundreds_of_colours_rewraps_like_the_screen() -> None:
    """Style ids past 255 take 2 bytes per cell in the scrollback: the same comparison."""
    words = [f"\x1b[38;2;{n % 256};{n // 256};7mword{n:03d}\x1b[0m" for n in range(400)]
    data = "\r\n".join(" ".join(words[n : n + 9]) for n in range(0, 400, 9))
    short = fed(data, cols=50, rows=3, scrollback=5000)
    tall = fed(data, cols=50, rows=200, scrollback=5000)
    if isinstance(short, PyteEmulator):  # the premise, in pyte's scrollback encoding
        assert any(isinstance(entry, tuple) and len(entry[1]) == 2 * len(entry[0])
                   for entry in short.screen.history)
    for width in (23, 71, 50):
        short.resize(width, 3)
        tall.resize(width, 200)
        blank = ((" " * width, *DEFAULT_STYLE),)
        short_rows, tall_rows = _all_rows(short), _all_rows(tall)
        while short_rows[-1] == blank:
            short_rows.pop()
        while tall_rows[-1] == blank:
            tall_rows.pop()
        assert short_rows == tall_rows


@pytest.mark.pyte_only
def test_history_remembers_which_lines_wrapped() -> None:
    emulator = fed_pyte("x" * 25 + "\r\nshort\r\n" + "\x1b[31m" + "y" * 25, cols=10, rows=1)
    history = list(emulator.screen.history)
    assert [is_wrapped(entry) for entry in history] == [True, True, False, False, True, True]
    assert isinstance(history[0], WrappedText) and isinstance(history[4], WrappedCells)
    line = emulator.screen.grid[0]
    assert not is_wrapped(compact_line(line))


def test_spaces_a_program_drew_at_the_end_of_a_line_are_kept() -> None:
    """Drawn spaces are text (tmux counts them): "abc   " at 4 columns takes two lines, and
    the cursor after "prompt$ " stays after the space (at the pending-wrap column)."""
    emulator = fed("abc   \r\nprompt$ ", cols=20, rows=3)
    emulator.resize(4, 3)
    assert history_lines(emulator) == ["abc", ""]
    assert lines(emulator) == ["prom", "pt$", ""]
    assert (emulator.cursor().x, emulator.cursor().y) == (3, 1)
    if isinstance(emulator, PyteEmulator):
        assert emulator.screen.cursor.x == 4  # the pending-wrap column


def test_a_cleared_continuation_line_is_not_joined_again() -> None:
    emulator = fed("A" * 15 + "\x1b[2K\x1b[2;1Hnew", cols=10, rows=3)
    emulator.resize(30, 3)
    assert lines(emulator)[:2] == ["A" * 10, "new"]


def test_inserting_a_line_inside_wrapped_text_splits_it() -> None:
    emulator = fed("A" * 10 + "B" * 10 + "C" * 5 + "\x1b[2;1H\x1b[L", cols=10, rows=5)
    emulator.resize(40, 5)
    # tmux ends the text at the line the insertion moved down (kept: reflow matches tmux).
    assert lines(emulator)[:4] == ["A" * 10, "", "B" * 10, "C" * 5]


def test_the_main_screen_is_rewrapped_once_on_leaving_the_alternate_screen() -> None:
    emulator = fed("0123456789abcdef\x1b[?1049h\x1b[Hfull", cols=20, rows=3)
    emulator.resize(8, 3)
    emulator.resize(5, 3)
    assert lines(emulator)[0] == "full"
    emulator.feed(b"\x1b[?1049l")
    assert _text(emulator) == ["01234", "56789", "abcde", "f"]
    assert lines(emulator) == ["f", "", ""]
    assert (emulator.cursor().x, emulator.cursor().y) == (1, 0)
    check_invariants(emulator)


def test_lines_a_clear_pushed_to_history_are_not_pulled_back_by_a_taller_screen() -> None:
    emulator = fed("one\r\ntwo\x1b[2J\x1b[Hthree", cols=10, rows=3)
    assert history_lines(emulator) == ["one", "two"]
    emulator.resize(10, 6)
    assert history_lines(emulator) == ["one", "two"]
    assert lines(emulator)[0] == "three"
