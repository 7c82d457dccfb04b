"""`PyteEmulator` as the `TerminalEmulator` port: contract-level behaviour."""

from __future__ import annotations

import pytest

from adapters.emulator import PyteEmulator
from core.terminal import Cursor, TerminalEmulator
from tests.adapters.emulator.helpers import fed, lines, make


def test_pyte_emulator_satisfies_the_port() -> None:
    emulator: TerminalEmulator = PyteEmulator(80, 24)  # checked by mypy
    assert (emulator.cols, emulator.rows) == (80, 24)
    assert emulator.cursor() == Cursor(0, 0)
    assert emulator.title == ""
    assert emulator.cwd is None


def test_take_dirty_reports_changed_rows_once() -> None:
    emulator = make(cols=10, rows=5)
    assert emulator.take_dirty() == set(range(5))  # a new screen must be drawn whole
    assert emulator.take_dirty() == set()
    emulator.feed(b"\x1b[3;1Hx\x1b[5;2Hy")
    assert emulator.take_dirty() == {2, 4}
    emulator.feed(b"\x1b[1;1H\x1b[6n")  # cursor moves and replies change no row
    assert emulator.take_dirty() == set()


@pytest.mark.parametrize(
    "change",
    [b"\x1b[?1049h", b"\x1b[2J", b"\r\n" * 6, b"\x1bc", b"\x1b#8", b"\x1b[?5h"],
)
def test_take_dirty_reports_every_row_after_whole_screen_changes(change: bytes) -> None:
    emulator = make(cols=10, rows=5)
    emulator.take_dirty()
    emulator.feed(change)
    assert emulator.take_dirty() == set(range(5))


def test_region_scroll_marks_only_the_region() -> None:
    emulator = fed("\x1b[2;3r\x1b[3;1H", cols=10, rows=5)
    emulator.take_dirty()
    emulator.feed(b"\n")
    assert emulator.take_dirty() == {1, 2}


def test_feed_survives_a_bug_and_counts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    emulator = make(cols=10, rows=3)
    emulator.feed(b"\x1b[")  # leave the parser mid-sequence

    def broken(*_: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(emulator.screen, "cursor_position", broken)
    emulator.feed(b"1;1H")
    assert emulator.internal_errors == 1
    monkeypatch.undo()
    emulator.feed(b"\x1b[2;2Hok")
    assert lines(emulator)[1] == " ok"


def test_empty_and_incomplete_utf8_feeds_change_nothing() -> None:
    emulator = make()
    emulator.take_dirty()
    emulator.feed(b"")
    emulator.feed(b"\xe4\xb8")
    assert emulator.take_dirty() == set()
    emulator.feed(b"\xad")
    assert lines(emulator)[0] == "中"
