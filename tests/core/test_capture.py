"""Rows to text and to SGR-escaped text (core.capture)."""

from __future__ import annotations

from core.capture import row_text, rows_to_ansi, sgr
from core.terminal import DEFAULT_COLOR, Attr, Row, rgb

D = DEFAULT_COLOR


def test_row_text_joins_runs() -> None:
    row: Row = (("ab", D, D, 0), ("漢", 1, D, 0), ("c", D, D, 0))
    assert row_text(row) == "ab漢c"


def test_sgr_encodes_palette_256_and_truecolor() -> None:
    assert sgr(1, D, 0) == "\x1b[0;31m"
    assert sgr(9, D, 0) == "\x1b[0;91m"
    assert sgr(D, 4, 0) == "\x1b[0;44m"
    assert sgr(200, D, 0) == "\x1b[0;38;5;200m"
    assert sgr(rgb(1, 2, 3), rgb(4, 5, 6), 0) == "\x1b[0;38;2;1;2;3;48;2;4;5;6m"
    assert sgr(D, D, Attr.BOLD | Attr.REVERSE | Attr.CURLY_UNDERLINE) == "\x1b[0;1;4:3;7m"


def test_rows_to_ansi_switches_styles_and_trims_blank_tail() -> None:
    rows: list[Row] = [
        (("ok ", D, D, 0), ("red", 1, D, int(Attr.BOLD)), ("    ", D, D, 0)),
        (("plain   ", D, D, 0),),
    ]
    assert rows_to_ansi(rows) == "ok \x1b[0;1;31mred\x1b[0m\nplain"


def test_rows_to_ansi_keeps_coloured_blanks() -> None:
    rows: list[Row] = [(("a", D, D, 0), ("  ", D, 2, 0))]
    assert rows_to_ansi(rows) == "a\x1b[0;42m  \x1b[0m"
