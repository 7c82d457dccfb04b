"""Rows to Strips: exact widths, styles, cursor overlay, and the wcwidth/Rich disagreements.

Widths are always measured again from the segments' text with Rich's `cell_len` (what
Textual's compositor uses), never read from the Strip's stored length.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.color import Color
from rich.style import Style
from textual.strip import Strip
from wcwidth import wcwidth

from core.terminal import DEFAULT_COLOR, Attr, Row, Run, rgb
from idea_tui.widgets.row_render import RowRenderer, fit_text, make_style

PLAIN = Style()


def run(text: str, fg: int = DEFAULT_COLOR, bg: int = DEFAULT_COLOR, attrs: int = 0) -> Run:
    return (text, fg, bg, attrs)


def measured(strip: Strip) -> int:
    return sum(cell_len(segment.text) for segment in strip)


def texts(strip: Strip) -> list[str]:
    return [segment.text for segment in strip]


def styles(strip: Strip) -> list[Style | None]:
    return [segment.style for segment in strip]


def daemon_cells(text: str) -> int:
    """The emulator's count, written out independently: one cell per character of wcwidth
    1 (or -1), two for wcwidth 2, zero-width characters free unless they start the run."""
    cells = 0
    for index, character in enumerate(text):
        width = wcwidth(character)
        cells += 2 if width == 2 else 0 if width == 0 and index else 1
    return cells


@pytest.fixture
def renderer() -> RowRenderer:
    return RowRenderer()


# --- widths -----------------------------------------------------------------------------


def test_ascii_row_is_padded_to_the_width_with_plain_blanks(renderer: RowRenderer) -> None:
    strip = renderer.render((run("ls -la", fg=2), run(" ok", attrs=Attr.BOLD)), 20)
    assert texts(strip) == ["ls -la", " ok", " " * 11]
    assert measured(strip) == strip.cell_length == 20
    assert styles(strip)[-1] == PLAIN


def test_row_wider_than_the_width_is_cropped(renderer: RowRenderer) -> None:
    strip = renderer.render((run("abcdef"), run("ghij", fg=1)), 8)
    assert texts(strip) == ["abcdef", "gh"]
    assert measured(strip) == 8


def test_row_of_exactly_the_width_has_no_padding(renderer: RowRenderer) -> None:
    strip = renderer.render((run("abc"), run("def", fg=1)), 6)
    assert texts(strip) == ["abc", "def"]


def test_empty_row_is_all_blank(renderer: RowRenderer) -> None:
    strip = renderer.render((), 5)
    assert texts(strip) == ["     "]
    assert measured(strip) == 5


def test_empty_runs_add_no_segment(renderer: RowRenderer) -> None:
    strip = renderer.render((run(""), run("x", fg=3), run("")), 1)
    assert texts(strip) == ["x"]


def test_zero_width_strip(renderer: RowRenderer) -> None:
    assert measured(renderer.render((run("abc"),), 0)) == 0


def test_wide_characters_keep_their_two_cells(renderer: RowRenderer) -> None:
    strip = renderer.render((run("中文"), run("ab")), 8)
    assert texts(strip) == ["中文", "ab", "  "]
    assert measured(strip) == 8


def test_wide_character_cut_by_the_edge_becomes_a_space(renderer: RowRenderer) -> None:
    strip = renderer.render((run("a中文", fg=4),), 4)
    assert texts(strip) == ["a中 "]
    assert measured(strip) == 4
    assert styles(strip)[0] == make_style(4, DEFAULT_COLOR, 0)


def test_combining_marks_stay_on_their_character(renderer: RowRenderer) -> None:
    text = "e\u0301a\u0308!"  # é ä, decomposed
    strip = renderer.render((run(text),), 3)
    assert texts(strip) == [text]
    assert measured(strip) == 3


def test_character_rich_thinks_narrower_is_padded(renderer: RowRenderer) -> None:
    character = "\U00018cd6"
    assert (wcwidth(character), cell_len(character)) == (2, 1), "tables changed: new example"
    strip = renderer.render((run(f"a{character}b"),), 4)
    assert texts(strip) == [f"a{character} b"]
    assert measured(strip) == 4


def test_emoji_modifier_rich_calls_zero_width_is_padded(renderer: RowRenderer) -> None:
    thumbs, tone = "\U0001f44d", "\U0001f3fb"
    assert (wcwidth(tone), cell_len(tone)) == (2, 0), "tables changed: new example"
    strip = renderer.render((run(thumbs + tone + "x"),), 5)
    # The daemon gave the modifier two cells of its own; the padding keeps "x" in cell 4.
    assert texts(strip) == [thumbs + tone + "  x"]
    assert measured(strip) == 5


def test_variation_selector_rich_thinks_wider_is_dropped(renderer: RowRenderer) -> None:
    heart = "\u2764\ufe0f"
    assert cell_len(heart) == 2 and wcwidth("\u2764") == 1, "tables changed: new example"
    strip = renderer.render((run(heart + "!"),), 2)
    assert texts(strip) == ["\u2764!"]
    assert measured(strip) == 2


def test_mark_rich_thinks_spacing_is_dropped(renderer: RowRenderer) -> None:
    mark = "\u05c8"
    assert (wcwidth(mark), cell_len(mark)) == (0, 1), "tables changed: new example"
    strip = renderer.render((run(f"a{mark}b"),), 2)
    assert texts(strip) == ["ab"]
    assert measured(strip) == 2


def test_variation_selector_on_a_wide_emoji_is_kept(renderer: RowRenderer) -> None:
    face = "\U0001f600\ufe0f"
    assert cell_len(face) == 2
    strip = renderer.render((run(face),), 2)
    assert texts(strip) == [face]


def test_zero_width_joiner_sequence_keeps_each_emoji_in_its_own_cells(
    renderer: RowRenderer,
) -> None:
    man, woman, girl = "\U0001f468", "\U0001f469", "\U0001f467"
    family = f"{man}\u200d{woman}\u200d{girl}"
    assert cell_len(family) == 2, "Rich joins the sequence: the ZWJ must go"
    strip = renderer.render((run(family + "x"),), 7)
    assert texts(strip) == [man + woman + girl + "x"]
    assert measured(strip) == 7


def test_control_characters_never_reach_the_terminal(renderer: RowRenderer) -> None:
    strip = renderer.render((run("a\x1b[2Jb\x07\x9b"),), 9)
    drawn = "".join(texts(strip))
    assert drawn == "a [2Jb  "[:8] + " "
    assert not any(unicodedata.category(character) == "Cc" for character in drawn)
    assert measured(strip) == 9


def test_lone_zero_width_characters_become_spaces(renderer: RowRenderer) -> None:
    strip = renderer.render((run("a"), run("\ufe0f", fg=2), run("\u200b\u0301b", fg=3)), 4)
    # The mark joins the lone zero-width space before it: one cell for both.
    assert texts(strip) == ["a", " ", " b"]
    assert measured(strip) == 4


def test_fit_text_reports_the_daemon_cells_per_group() -> None:
    fitted = fit_text("a中\u2764\ufe0fe\u0301")
    assert fitted.widths == (1, 2, 1, 1)
    assert fitted.groups == ("a", "中", "\u2764", "e\u0301")
    assert fitted.cells == 5
    assert fitted.text == "a中\u2764e\u0301"


def test_private_use_icons_and_box_drawing_take_the_fast_path(renderer: RowRenderer) -> None:
    text = "\ue0b0 \uf115 \u256d\u2500\u256e \u2800\u28ff"
    strip = renderer.render((run(text),), len(text))
    assert texts(strip) == [text]
    assert not renderer._fitted, "single-cell text needs no fitting"


# Characters that exercise every branch: ASCII, wide, zero-width marks, ZWJ, variation
# selectors, emoji modifiers, controls, private use, and the known disagreements.
_TRICKY = st.sampled_from(
    [
        *"ab ~é中語\u0301\u0308\u200b\u200d\ufe0f\ufe0e\x07\x1b\x9b\u2764\u231a\ue0b0\u2500",
        *("\U0001f600", "\U0001f44d", "\U0001f3fb", "\U00018cd6", "\u05c8", "\U0001f468"),
    ]
)
_RUN_TEXT = st.lists(_TRICKY, max_size=12).map("".join)


@settings(deadline=None, max_examples=300)
@given(st.lists(_RUN_TEXT, max_size=6), st.integers(min_value=0, max_value=40))
def test_every_row_measures_exactly_the_width(run_texts: list[str], width: int) -> None:
    renderer = RowRenderer()
    row: Row = tuple(run(text, fg=index) for index, text in enumerate(run_texts))
    strip = renderer.render(row, width)
    assert measured(strip) == width
    assert Strip(list(strip)).cell_length == width  # as Textual measures it
    assert "\u200d" not in "".join(texts(strip))


@settings(deadline=None, max_examples=300)
@given(st.lists(_RUN_TEXT.filter(bool), min_size=1, max_size=6))
def test_every_run_keeps_its_cells_so_nothing_shifts(run_texts: list[str]) -> None:
    renderer = RowRenderer()
    row: Row = tuple(run(text, fg=index) for index, text in enumerate(run_texts))
    total = sum(daemon_cells(text) for text in run_texts)
    strip = renderer.render(row, total)
    assert [cell_len(text) for text in texts(strip)] == [daemon_cells(t) for t in run_texts]


# --- styles -----------------------------------------------------------------------------


def test_default_colours_leave_the_theme_showing() -> None:
    style = make_style(DEFAULT_COLOR, DEFAULT_COLOR, 0)
    assert style.color is None and style.bgcolor is None
    assert style == PLAIN


@pytest.mark.parametrize(
    ("value", "color"),
    [
        (1, Color.from_ansi(1)),
        (15, Color.from_ansi(15)),
        (16, Color.from_ansi(16)),
        (231, Color.from_ansi(231)),
        (255, Color.from_ansi(255)),
        (rgb(0x12, 0x34, 0x56), Color.from_rgb(0x12, 0x34, 0x56)),
        (rgb(0, 0, 0), Color.from_rgb(0, 0, 0)),
    ],
)
def test_palette_and_truecolour(value: int, color: Color) -> None:
    style = make_style(value, value, 0)
    assert style.color == color
    assert style.bgcolor == color


@pytest.mark.parametrize("malformed", [256, -2, 1 << 30])
def test_malformed_colours_fall_back_to_default(malformed: int) -> None:
    assert make_style(malformed, malformed, 0) == PLAIN


@pytest.mark.parametrize(
    ("attr", "expected"),
    [
        (Attr.BOLD, Style(bold=True)),
        (Attr.DIM, Style(dim=True)),
        (Attr.ITALIC, Style(italic=True)),
        (Attr.UNDERLINE, Style(underline=True)),
        (Attr.DOUBLE_UNDERLINE, Style(underline2=True)),
        (Attr.CURLY_UNDERLINE, Style(underline=True)),
        (Attr.DOTTED_UNDERLINE, Style(underline=True)),
        (Attr.DASHED_UNDERLINE, Style(underline=True)),
        (Attr.BLINK, Style(blink=True)),
        (Attr.REVERSE, Style(reverse=True)),
        (Attr.HIDDEN, Style(conceal=True)),
        (Attr.STRIKE, Style(strike=True)),
        (Attr.OVERLINE, Style(overline=True)),
    ],
)
def test_each_attribute(attr: Attr, expected: Style) -> None:
    assert make_style(DEFAULT_COLOR, DEFAULT_COLOR, attr) == expected


def test_attributes_combine() -> None:
    attrs = Attr.BOLD | Attr.ITALIC | Attr.REVERSE
    assert make_style(1, 2, attrs) == Style(
        color=Color.from_ansi(1), bgcolor=Color.from_ansi(2), bold=True, italic=True, reverse=True
    )


def test_styles_are_cached(renderer: RowRenderer) -> None:
    first = renderer.style(1, rgb(1, 2, 3), Attr.BOLD)
    assert renderer.style(1, rgb(1, 2, 3), Attr.BOLD) is first
    strip = renderer.render((run("x", 1, rgb(1, 2, 3), Attr.BOLD),), 1)
    assert styles(strip)[0] is first


def test_runs_carry_their_styles(renderer: RowRenderer) -> None:
    strip = renderer.render((run("a", fg=1), run("b", bg=rgb(9, 9, 9), attrs=Attr.DIM)), 2)
    assert styles(strip) == [
        Style(color=Color.from_ansi(1)),
        Style(bgcolor=Color.from_rgb(9, 9, 9), dim=True),
    ]


# --- cursor -----------------------------------------------------------------------------


def test_cursor_reverses_its_cell(renderer: RowRenderer) -> None:
    strip = renderer.render_with_cursor((run("abc", fg=1),), 5, 1)
    assert texts(strip) == ["a", "b", "c", "  "]
    drawn = styles(strip)
    assert drawn[0] == drawn[2] == Style(color=Color.from_ansi(1))
    assert drawn[1] == Style(color=Color.from_ansi(1), reverse=True)
    assert measured(strip) == 5


def test_cursor_on_a_reversed_cell_turns_reverse_off(renderer: RowRenderer) -> None:
    strip = renderer.render_with_cursor((run("ab", attrs=Attr.REVERSE),), 2, 0)
    assert texts(strip)[0] == "a"
    cursor_style = styles(strip)[0]
    assert cursor_style is not None and cursor_style.reverse is False


@pytest.mark.parametrize("cursor_x", [2, 3])
def test_cursor_on_either_half_of_a_wide_character_covers_it(
    renderer: RowRenderer, cursor_x: int
) -> None:
    strip = renderer.render_with_cursor((run("ab中c"),), 6, cursor_x)
    assert texts(strip) == ["ab", "中", "c", " "]
    assert styles(strip)[1] == Style(reverse=True)
    assert measured(strip) == 6


def test_cursor_on_a_combined_character_keeps_the_mark(renderer: RowRenderer) -> None:
    strip = renderer.render_with_cursor((run("xe\u0301y"),), 3, 1)
    assert texts(strip) == ["x", "e\u0301", "y"]


def test_cursor_past_the_text_is_drawn_on_a_blank(renderer: RowRenderer) -> None:
    strip = renderer.render_with_cursor((run("ab"),), 6, 4)
    assert texts(strip) == ["ab", "  ", " ", " "]
    assert styles(strip)[2] == Style(reverse=True)
    assert measured(strip) == 6


def test_cursor_on_a_cropped_row(renderer: RowRenderer) -> None:
    strip = renderer.render_with_cursor((run("abcdef"),), 3, 2)
    assert texts(strip) == ["ab", "c"]
    assert measured(strip) == 3


def test_custom_cursor_style(renderer: RowRenderer) -> None:
    cursor = Style(bgcolor=Color.from_rgb(255, 0, 0), underline=True)
    strip = renderer.render_with_cursor((run("ab", fg=2),), 2, 1, cursor)
    assert styles(strip)[1] == Style(
        color=Color.from_ansi(2), bgcolor=Color.from_rgb(255, 0, 0), underline=True
    )


@pytest.mark.parametrize("cursor_x", [-1, 4, 100])
def test_cursor_outside_the_row_is_not_drawn(renderer: RowRenderer, cursor_x: int) -> None:
    row: Row = (run("ab", fg=1),)
    with_cursor = renderer.render_with_cursor(row, 4, cursor_x)
    assert texts(with_cursor) == texts(renderer.render(row, 4))
    assert [s.style for s in with_cursor] == [s.style for s in renderer.render(row, 4)]


@settings(deadline=None, max_examples=200)
@given(st.lists(_RUN_TEXT, max_size=5), st.integers(0, 30), st.integers(0, 30))
def test_cursor_never_changes_the_text_or_the_width(
    run_texts: list[str], width: int, cursor_x: int
) -> None:
    renderer = RowRenderer()
    row: Row = tuple(run(text, fg=index) for index, text in enumerate(run_texts))
    plain = renderer.render(row, width)
    with_cursor = renderer.render_with_cursor(row, width, cursor_x)
    assert "".join(texts(with_cursor)) == "".join(texts(plain))
    assert measured(with_cursor) == width
    reversed_segments = [s for s in with_cursor if s.style is not None and s.style.reverse]
    assert len(reversed_segments) == (1 if cursor_x < width else 0)
