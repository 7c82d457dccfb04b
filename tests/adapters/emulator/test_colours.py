"""SGR colours and attributes, encoded into `Run`s as core.terminal documents."""

from __future__ import annotations

import pytest

from core.terminal import TRUECOLOR_FLAG, Attr, rgb, row_text, rows_to_ansi
from tests.adapters.emulator.helpers import fed, fed_pyte, style_at

A = Attr


def _style(sgr: str) -> tuple[int, int, int]:
    return style_at(fed(f"\x1b[{sgr}mX"), 0, 0)


@pytest.mark.parametrize(
    ("sgr", "expected"),
    [
        ("31", (1, -1, 0)),
        ("97", (15, -1, 0)),
        ("44", (-1, 4, 0)),
        ("103", (-1, 11, 0)),
        ("38;5;208", (208, -1, 0)),
        ("48;5;16", (-1, 16, 0)),
        ("38;2;255;128;0", (rgb(255, 128, 0), -1, 0)),
        ("48;2;1;2;3", (-1, rgb(1, 2, 3), 0)),
        ("38:2::255:128:0", (rgb(255, 128, 0), -1, 0)),
        ("38:2:255:128:0", (rgb(255, 128, 0), -1, 0)),
        ("48:5:99", (-1, 99, 0)),
        ("38;5;300", (-1, -1, 0)),
        ("48;5;256", (-1, -1, 0)),
        ("38:5:300", (-1, -1, 0)),
        ("1;38;5;999;4", (-1, -1, int(A.BOLD | A.UNDERLINE))),
        ("38;5", (-1, -1, 0)),
        ("38;2;1;2", (-1, -1, 0)),
        ("31;38;2;1", (1, -1, 0)),
        ("38;2;1;2;", (rgb(1, 2, 0), -1, 0)),
        ("58;5;3;31", (1, -1, 0)),
        ("31;39", (-1, -1, 0)),
        ("41;49", (-1, -1, 0)),
    ],
)
def test_colours(sgr: str, expected: tuple[int, int, int]) -> None:
    assert _style(sgr) == expected


def test_truecolor_encoding() -> None:
    assert _style("38;2;1;2;3")[0] == TRUECOLOR_FLAG | 0x010203


@pytest.mark.parametrize(
    ("sgr", "attr"),
    [
        ("1", A.BOLD),
        ("2", A.DIM),
        ("3", A.ITALIC),
        ("4", A.UNDERLINE),
        ("4:1", A.UNDERLINE),
        ("4:2", A.DOUBLE_UNDERLINE),
        ("21", A.DOUBLE_UNDERLINE),
        ("4:3", A.CURLY_UNDERLINE),
        ("4:4", A.DOTTED_UNDERLINE),
        ("4:5", A.DASHED_UNDERLINE),
        ("5", A.BLINK),
        ("7", A.REVERSE),
        ("8", A.HIDDEN),
        ("9", A.STRIKE),
        ("53", A.OVERLINE),
    ],
)
def test_attributes(sgr: str, attr: Attr) -> None:
    assert _style(sgr) == (-1, -1, int(attr))


@pytest.mark.parametrize(
    ("sgr", "remaining"),
    [
        ("1;2;22", A.NONE),
        ("3;23", A.NONE),
        ("4;24", A.NONE),
        ("4:3;24", A.NONE),
        ("4:3;4", A.UNDERLINE),
        ("4;4:0", A.NONE),
        ("5;25", A.NONE),
        ("7;27", A.NONE),
        ("8;28", A.NONE),
        ("9;29", A.NONE),
        ("53;55", A.NONE),
        ("1;3;4;0;7", A.REVERSE),
        ("1;3;m", A.NONE),
    ],
)
def test_resets(sgr: str, remaining: Attr) -> None:
    assert _style(sgr.rstrip("m"))[2] == int(remaining)


def test_empty_sgr_resets_everything() -> None:
    emulator = fed("\x1b[1;31;44mA\x1b[mB")
    assert style_at(emulator, 1, 0) == (-1, -1, 0)


def test_runs_group_cells_of_one_style() -> None:
    emulator = fed("ab\x1b[1;31mcd\x1b[0mef", cols=8, rows=1)
    assert emulator.render_row(0) == (
        ("ab", -1, -1, 0),
        ("cd", 1, -1, int(A.BOLD)),
        ("ef  ", -1, -1, 0),
    )


def test_reverse_video_mode_reverses_every_run() -> None:
    emulator = fed("a\x1b[7mb\x1b[?5h", cols=3, rows=1)
    assert emulator.render_row(0) == (("a", -1, -1, 32), ("b", -1, -1, 0), (" ", -1, -1, 32))


def test_rows_to_ansi_round_trips_through_the_emulator() -> None:
    source = fed("\x1b[1;38;5;208mab\x1b[0m \x1b[3;4:3;48;2;1;2;3mcd\x1b[0m", cols=12, rows=2)
    text = rows_to_ansi([source.render_row(0), source.render_row(1)])
    copy = fed(text.replace("\n", "\r\n"), cols=12, rows=2)
    assert [copy.render_row(y) for y in range(2)] == [source.render_row(y) for y in range(2)]
    assert row_text(copy.render_row(0)).rstrip() == "ab cd"


@pytest.mark.pyte_only
def test_many_distinct_truecolor_styles_stay_bounded() -> None:
    # Each cell its own colour: more styles than the table holds; memory stays bounded and
    # colours degrade to the nearest palette entry instead of failing.
    emulator = fed_pyte("", cols=80, rows=24, scrollback=2000)
    for line in range(400):
        cells = "".join(f"\x1b[38;2;{line % 256};{x * 3};{(line * x) % 256}m#" for x in range(80))
        emulator.feed(cells.encode() + b"\r\n")
    assert len(emulator.screen.table.styles) <= 8192
    assert emulator.internal_errors == 0
    last = emulator.render_row(emulator.rows - 2)
    assert row_text(last) == "#" * 80
    assert all(fg != -1 for _, fg, _, _ in last)
