"""Both backends as the `TerminalEmulator` port: contract-level behaviour."""

from __future__ import annotations

import pytest

from adapters.emulator import PyteEmulator
from adapters.emulator.ghostty import GhosttyEmulator
from core.terminal import Attr, Cursor, TerminalEmulator
from tests.adapters.emulator.helpers import fed, fed_pyte, lines, make


@pytest.mark.pyte_only
def test_pyte_emulator_satisfies_the_port() -> None:
    emulator: TerminalEmulator = PyteEmulator(80, 24)  # checked by mypy
    assert (emulator.cols, emulator.rows) == (80, 24)
    assert emulator.cursor() == Cursor(0, 0)
    assert emulator.title == ""
    assert emulator.cwd is None


@pytest.mark.ghostty_only
def test_ghostty_emulator_satisfies_the_port() -> None:
    emulator: TerminalEmulator = GhosttyEmulator(80, 24)  # checked by mypy
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
    # Every row shows something else before, so each of these changes every row.
    emulator = fed("\x1b[44m" + "\r\n".join(f"row {y}" for y in range(5)), cols=10, rows=5)
    emulator.take_dirty()
    emulator.feed(change)
    assert emulator.take_dirty() == set(range(5))


def test_region_scroll_marks_only_the_region() -> None:
    emulator = fed("a\r\nb\r\nc\r\nd\r\ne\x1b[2;3r\x1b[3;1H", cols=10, rows=5)
    emulator.take_dirty()
    emulator.feed(b"\n")
    assert emulator.take_dirty() == {1, 2}
    assert lines(emulator) == ["a", "c", "", "d", "e"]


def test_a_repainted_row_that_shows_the_same_is_not_dirty() -> None:
    # Agent CLIs repaint whole screens many times a second; unchanged rows cost nothing
    # downstream. pyte's backend reports rows it wrote to, ghostty's rows that changed.
    emulator = fed("one\r\ntwo", cols=10, rows=3)
    emulator.take_dirty()
    emulator.feed(b"\x1b[H\x1b[2Jone\r\ntwo\x1b[3;1Hnew")
    assert 2 in emulator.take_dirty()
    assert lines(emulator) == ["one", "two", "new"]


@pytest.mark.parametrize("between", [b"", b"\x1b[2;1Hx"])
def test_a_line_redrawn_in_another_colour_is_dirty_and_shows_it(between: bytes) -> None:
    # A status line turning from red to green with the same text: in ghostty the erased
    # line frees its style id and the next style takes it, so the raw cells come back
    # identical; the row must still be reported and read in its new colour.
    emulator = fed("\x1b[31mdone\x1b[0m", cols=10, rows=3)
    emulator.take_dirty()
    assert emulator.render_row(0)[0][:2] == ("done", 1)
    emulator.feed(b"\r\x1b[2K\x1b[32mdone\x1b[0m" + between)
    assert 0 in emulator.take_dirty()
    assert emulator.render_row(0)[0][:2] == ("done", 2)
    emulator.feed(b"\x1b[1;1H\x1b[2K\x1b[1;34mdone\x1b[0m")
    assert 0 in emulator.take_dirty()
    assert emulator.render_row(0)[0] == ("done", 4, -1, int(Attr.BOLD))


@pytest.mark.pyte_only
def test_feed_survives_a_bug_and_counts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    emulator = fed_pyte("", cols=10, rows=3)
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


@pytest.mark.ghostty_only
def test_a_failing_callback_is_counted_and_the_screen_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    emulator = GhosttyEmulator(10, 3)

    def broken(*_: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(emulator._osc, "add_event", broken)
    emulator.feed(b"\x1b]2;title\x07ok")
    assert emulator.internal_errors == 1
    assert lines(emulator)[0] == "ok"


@pytest.mark.ghostty_only
def test_ghostty_tracks_the_kitty_keyboard_flags_per_screen_and_answers_the_question() -> None:
    emulator = GhosttyEmulator(20, 4)
    assert emulator.modes.kitty_keys == 0
    emulator.feed(b"\x1b[>1u\x1b[?u")  # push "disambiguate", then ask
    assert emulator.take_replies() == b"\x1b[?1u"
    assert emulator.modes.kitty_keys == 1
    emulator.feed(b"\x1b[?1049h")  # the alternate screen has its own stack
    assert emulator.modes.kitty_keys == 0
    emulator.feed(b"\x1b[>31u")
    assert emulator.modes.kitty_keys == 31
    emulator.feed(b"\x1b[?1049l")
    assert emulator.modes.kitty_keys == 1
    emulator.feed(b"\x1b[<u")  # popped: legacy keys again
    assert emulator.modes.kitty_keys == 0


@pytest.mark.pyte_only
def test_pyte_never_claims_the_kitty_keyboard_protocol() -> None:
    # Unanswered, the question tells the program to keep legacy keys, which pyte's
    # backend sends.
    emulator = PyteEmulator(20, 4)
    emulator.feed(b"\x1b[>1u\x1b[?u")
    assert emulator.take_replies() == b""
    assert emulator.modes.kitty_keys == 0
