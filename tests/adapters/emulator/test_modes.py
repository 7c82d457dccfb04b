"""Modes programs set (`modes`, `cursor()`, `synchronized`) and the replies they get back."""

from __future__ import annotations

import pytest

from core.terminal import CursorShape, MouseMode, TerminalModes
from tests.adapters.emulator.helpers import FakeClock, fed, lines, make


@pytest.mark.parametrize(
    ("on", "off", "field"),
    [
        ("\x1b[?1h", "\x1b[?1l", "app_cursor"),
        ("\x1b=", "\x1b>", "app_keypad"),
        ("\x1b[?66h", "\x1b[?66l", "app_keypad"),
        ("\x1b[?2004h", "\x1b[?2004l", "bracketed_paste"),
        ("\x1b[?1006h", "\x1b[?1006l", "mouse_sgr"),
        ("\x1b[?1004h", "\x1b[?1004l", "focus_events"),
        ("\x1b[?1049h", "\x1b[?1049l", "alt_screen"),
        ("\x1b[?1047h", "\x1b[?1047l", "alt_screen"),
        ("\x1b[?47h", "\x1b[?47l", "alt_screen"),
    ],
)
def test_flag_modes(on: str, off: str, field: str) -> None:
    emulator = fed(on)
    assert getattr(emulator.modes, field) is True
    emulator.feed(off.encode())
    assert emulator.modes == TerminalModes()


@pytest.mark.parametrize("code", [9, 1000, 1002, 1003])
def test_mouse_modes_last_one_wins_and_any_reset_turns_it_off(code: int) -> None:
    emulator = fed(f"\x1b[?1000h\x1b[?{code}h")
    assert emulator.modes.mouse == MouseMode(code)
    emulator.feed(b"\x1b[?1002l")
    assert emulator.modes.mouse == MouseMode.OFF


def test_several_modes_in_one_sequence() -> None:
    modes = fed("\x1b[?1000;1006;2004h").modes
    assert (modes.mouse, modes.mouse_sgr, modes.bracketed_paste) == (MouseMode.NORMAL, True, True)


def test_cursor_visibility() -> None:
    emulator = fed("\x1b[?25l")
    assert not emulator.cursor().visible
    emulator.feed(b"\x1b[?25h")
    assert emulator.cursor().visible


@pytest.mark.parametrize(
    ("code", "shape", "blink"),
    [
        (0, CursorShape.DEFAULT, True),
        (1, CursorShape.BLOCK, True),
        (2, CursorShape.BLOCK, False),
        (3, CursorShape.UNDERLINE, True),
        (4, CursorShape.UNDERLINE, False),
        (5, CursorShape.BAR, True),
        (6, CursorShape.BAR, False),
    ],
)
def test_cursor_shapes(code: int, shape: CursorShape, blink: bool) -> None:
    cursor = fed(f"\x1b[3 q\x1b[{code} q").cursor()
    assert (cursor.shape, cursor.blink) == (shape, blink)


def test_cursor_reports_the_last_column_while_a_wrap_is_pending() -> None:
    cursor = fed("x" * 20, cols=20).cursor()
    assert (cursor.x, cursor.y) == (19, 0)


def test_alternate_screen_1049_saves_and_restores_the_cursor_and_main_content() -> None:
    emulator = fed("main\r\nline\x1b[2;3H\x1b[?1049hALT")
    assert lines(emulator)[:2] == ["", "  ALT"]  # same cursor position, blank screen
    emulator.feed(b"\x1b[?1049l!")
    assert lines(emulator)[:2] == ["main", "li!e"]


def test_alternate_screen_starts_blank_each_time() -> None:
    emulator = fed("\x1b[?1049hone\x1b[?1049l\x1b[?1049h")
    assert lines(emulator)[0] == ""


def test_alternate_screen_47_does_not_move_the_cursor_back() -> None:
    emulator = fed("ab\x1b[?47h\x1b[3;3Hx\x1b[?47ly")
    assert lines(emulator)[:3] == ["ab", "", "   y"]


def test_autowrap_mode_is_tracked() -> None:
    emulator = fed("\x1b[?7l" + "x" * 25, cols=20)
    assert lines(emulator)[1] == ""
    emulator.feed(b"\x1b[?7h\r" + b"y" * 25)
    assert lines(emulator)[1] == "yyyyy"


def test_synchronized_output_is_open_between_set_and_reset() -> None:
    clock = FakeClock()
    emulator = make(20, 5, clock=clock)
    assert not emulator.synchronized
    emulator.feed(b"\x1b[?2026h")
    clock.now += 0.2
    assert emulator.synchronized
    emulator.feed(b"\x1b[?2026l")
    assert not emulator.synchronized


def test_synchronized_output_that_never_ends_is_closed_by_the_time_limit() -> None:
    clock = FakeClock()
    emulator = make(20, 5, clock=clock, sync_timeout=0.5)
    emulator.feed(b"\x1b[?2026h")
    clock.now += 0.49
    assert emulator.synchronized
    clock.now += 0.02
    assert not emulator.synchronized
    emulator.feed(b"\x1b[?2026$p")
    assert emulator.take_replies() == b"\x1b[?2026;2$y"
    emulator.feed(b"\x1b[?2026h")  # a new frame opens a new time box
    assert emulator.synchronized


@pytest.mark.parametrize(
    ("query", "reply"),
    [
        ("\x1b[5n", "\x1b[0n"),
        ("\x1b[c", "\x1b[?1;2c"),
        ("\x1b[0c", "\x1b[?1;2c"),
        ("\x1b[>c", "\x1b[>84;0;0c"),
        ("\x1b[>0c", "\x1b[>84;0;0c"),
        ("\x1bZ", "\x1b[?1;2c"),
        ("\x1b[18t", "\x1b[8;5;20t"),
        ("\x1b[?2004$p", "\x1b[?2004;2$y"),
        ("\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"),
        ("\x1b[?25$p", "\x1b[?25;1$y"),
        ("\x1b[?1049h\x1b[?1049$p", "\x1b[?1049;1$y"),
        ("\x1b[?1002h\x1b[?1000$p\x1b[?1002$p", "\x1b[?1000;2$y\x1b[?1002;1$y"),
        ("\x1b[?2026h\x1b[?2026$p", "\x1b[?2026;1$y"),
        ("\x1b[?9999$p", "\x1b[?9999;0$y"),
        ("\x1b[4h\x1b[4$p", "\x1b[4;1$y"),
        ("\x1b[20$p", "\x1b[20;2$y"),
    ],
)
def test_replies(query: str, reply: str) -> None:
    emulator = fed(query)
    assert emulator.take_replies() == reply.encode()
    assert emulator.take_replies() == b""


def test_cursor_position_report_is_one_based_and_origin_relative() -> None:
    emulator = fed("\x1b[3;7H\x1b[6n")
    assert emulator.take_replies() == b"\x1b[3;7R"
    emulator.feed(b"\x1b[2;4r\x1b[?6h\x1b[2;2H\x1b[6n\x1b[?6n")
    assert emulator.take_replies() == b"\x1b[2;2R\x1b[?2;2R"


def test_device_attributes_with_a_parameter_get_no_reply() -> None:
    assert fed("\x1b[1c\x1b[>1c").take_replies() == b""


def test_replies_are_bounded_when_nobody_reads_them() -> None:
    emulator = fed("\x1b[6n" * 100_000)
    assert 0 < len(emulator.take_replies()) <= 65_536


def test_1049_keeps_its_own_saved_cursor_apart_from_decsc() -> None:
    emulator = fed("\x1b[2;2H\x1b7\x1b[4;4H\x1b[?1049h\x1b[1;1H\x1b[?1049lX\x1b8Y")
    assert lines(emulator)[1:4] == [" Y", "", "   X"]


def test_entering_the_alternate_screen_twice_keeps_it() -> None:
    emulator = fed("\x1b[?1049hone\x1b[?1049h")
    assert lines(emulator)[0] == "one"


def test_leaving_the_alternate_screen_when_not_on_it_moves_nothing() -> None:
    emulator = fed("ab\x1b[?1049lc")
    assert lines(emulator)[0] == "abc"
