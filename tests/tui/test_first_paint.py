"""The early frame's painter (`idea_tui.first_paint`), without a terminal.

Its colours must be Textual's and Rich's (the end-to-end parity test in
tests/e2e/test_first_frame.py compares whole screens); here every table is checked against
the library it copies, and hostile text is shown never to reach the terminal as a control.
"""

from __future__ import annotations

import re

import pytest
from rich.color import Color, ColorSystem
from rich.color_triplet import ColorTriplet
from textual._ansi_theme import MONOKAI

from adapters.ipc.messages import CellFrame, CellInfo, PageInfo, Scene, TabInfo
from idea_tui.first_paint import ANSI, CellScreen, Painter, colour_mode, palette_rgb, to_256
from tests.helpers.hostile_text import HOSTILE_TITLES

# What the painter itself writes: CSI sequences (SGR, cursor position). Anything else below
# U+0020 or in C1 came from a program or a file.
OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_the_ansi_colours_are_textuals_monokai_table() -> None:
    assert [tuple(colour) for colour in MONOKAI.ansi_colors._colors] == list(ANSI)


@pytest.mark.parametrize("number", range(256))
def test_the_palette_is_the_one_textual_shows(number: int) -> None:
    expected = Color.from_ansi(number).get_truecolor(MONOKAI)
    assert palette_rgb(number) == tuple(expected)


@pytest.mark.parametrize("rgb", [(0, 0, 0), (255, 255, 255), (36, 47, 56), (98, 94, 76),
                                 (152, 224, 36), (160, 163, 166), (224, 224, 224),
                                 (10, 200, 30), (255, 135, 0), (128, 128, 129), (1, 2, 250),
                                 *[(r, g, b) for r in (0, 94, 95, 96, 200) for g in (0, 135)
                                   for b in (12, 254)]])
def test_256_colour_terminals_get_the_entry_rich_picks(rgb: tuple[int, int, int]) -> None:
    expected = Color.from_triplet(ColorTriplet(*rgb)).downgrade(ColorSystem.EIGHT_BIT).number
    assert to_256(rgb) == expected


def test_only_terminals_of_256_colours_or_more_get_an_early_frame() -> None:
    assert colour_mode({"COLORTERM": "truecolor", "TERM": "xterm"}) == "truecolor"
    assert colour_mode({"COLORTERM": "24bit"}) == "truecolor"
    assert colour_mode({"TERM": "xterm-256color"}) == "256"
    assert colour_mode({"TERM": "tmux-256color"}) == "256"
    assert colour_mode({"TERM": "xterm"}) is None
    assert colour_mode({"TERM": "linux"}) is None
    assert colour_mode({}) is None


def _scene(title: str, page: str, message: str = "") -> Scene:
    return Scene(
        window=page, windows=[], tabs=[TabInfo("p", page, "/p", True)],
        pages=[PageInfo("a", page, active=True)], width=60, height=10,
        cells=[CellInfo("c", 0, 0, 0, 30, 10, title=title, command="bash", focused=True),
               CellInfo("d", 1, 31, 0, 29, 10, running=False, message=message or title)],
        borders=[],
    )


@pytest.mark.parametrize("text", HOSTILE_TITLES)
def test_hostile_titles_names_and_rows_never_reach_the_terminal_raw(text: str) -> None:
    screen = CellScreen()
    screen.apply(CellFrame(cell="c", cols=30, rows=9, full=True, cursor=(3, 0, True, 0),
                           lines=[(0, ((text[:200], -1, -1, 0),)), (1, (("ok", 1, -1, 0),))]))
    out = Painter(_scene(text, text[:80]), {"c": screen}, 70, 12, "truecolor").paint()
    assert not CONTROLS.findall(OWN_SEQUENCES.sub("", out))


def test_every_line_is_drawn_to_the_width_and_no_further() -> None:
    """Each screen line of the grid covers exactly the terminal's width (cells then dots
    outside the window), whatever the cells hold: wide characters, a too-long row."""
    screen = CellScreen()
    screen.apply(CellFrame(cell="c", cols=30, rows=9, full=True, cursor=(0, 1, True, 0),
                           lines=[(0, (("日本語" * 20, -1, -1, 0),)),
                                  (1, (("x" * 80, 2, -1, 1),))]))
    out = Painter(_scene("t", "p"), {"c": screen}, 70, 12, "256").paint()
    # Rebuild each line from its pieces: "ESC[y;xH" then text, until the next position.
    lines: dict[int, dict[int, str]] = {}
    for match in re.finditer(r"\x1b\[(\d+);(\d+)H((?:(?!\x1b\[\d+;\d+H).)*)", out, re.S):
        y, x = int(match.group(1)), int(match.group(2))
        text = re.sub(r"\x1b\[[0-9;]*m", "", match.group(3))
        lines.setdefault(y, {})[x] = text
    from wcwidth import wcswidth

    for y in range(2, 12):  # the grid's lines (1-based: the tab bar is line 1)
        pieces = sorted(lines[y].items())
        end = max(x - 1 + wcswidth(text) for x, text in pieces)
        assert end == 70, (y, pieces)
