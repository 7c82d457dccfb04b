"""Mouse reports per tracking mode and encoding, against xterm's ctlseqs."""

from __future__ import annotations

import pytest

from core.mouse import MouseEvent, MouseKind, encode_mouse
from core.terminal import MouseMode, TerminalModes


def modes(mouse: MouseMode, sgr: bool = False) -> TerminalModes:
    return TerminalModes(mouse=mouse, mouse_sgr=sgr)


PRESS = MouseEvent(MouseKind.PRESS, 0, 4, 2)
RELEASE = MouseEvent(MouseKind.RELEASE, 0, 4, 2)
WHEEL_UP = MouseEvent(MouseKind.WHEEL_UP, 0, 4, 2)
DRAG = MouseEvent(MouseKind.DRAG, 0, 4, 2)
MOVE = MouseEvent(MouseKind.MOVE, 0, 4, 2)

# Which kinds each mode reports (True) or drops (False).
REPORTS = [
    (MouseMode.OFF, {PRESS: False, RELEASE: False, WHEEL_UP: False, DRAG: False, MOVE: False}),
    (MouseMode.X10, {PRESS: True, RELEASE: False, WHEEL_UP: False, DRAG: False, MOVE: False}),
    (MouseMode.NORMAL, {PRESS: True, RELEASE: True, WHEEL_UP: True, DRAG: False, MOVE: False}),
    (MouseMode.BUTTON, {PRESS: True, RELEASE: True, WHEEL_UP: True, DRAG: True, MOVE: False}),
    (MouseMode.ANY, {PRESS: True, RELEASE: True, WHEEL_UP: True, DRAG: True, MOVE: True}),
]


@pytest.mark.parametrize(("mode", "expected"), REPORTS)
@pytest.mark.parametrize("sgr", [False, True])
def test_each_mode_reports_only_what_it_asked_for(
    mode: MouseMode, expected: dict[MouseEvent, bool], sgr: bool
) -> None:
    for event, reported in expected.items():
        assert (encode_mouse(event, modes(mode, sgr)) is not None) == reported, event.kind


SGR_CASES = [
    (MouseEvent(MouseKind.PRESS, 0, 0, 0), b"\x1b[<0;1;1M"),
    (MouseEvent(MouseKind.PRESS, 1, 9, 4), b"\x1b[<1;10;5M"),
    (MouseEvent(MouseKind.PRESS, 2, 9, 4), b"\x1b[<2;10;5M"),
    (MouseEvent(MouseKind.RELEASE, 0, 9, 4), b"\x1b[<0;10;5m"),
    (MouseEvent(MouseKind.RELEASE, 2, 9, 4), b"\x1b[<2;10;5m"),
    (MouseEvent(MouseKind.DRAG, 0, 9, 4), b"\x1b[<32;10;5M"),
    (MouseEvent(MouseKind.DRAG, 2, 9, 4), b"\x1b[<34;10;5M"),
    (MouseEvent(MouseKind.MOVE, 0, 9, 4), b"\x1b[<35;10;5M"),
    (MouseEvent(MouseKind.WHEEL_UP, 0, 9, 4), b"\x1b[<64;10;5M"),
    (MouseEvent(MouseKind.WHEEL_DOWN, 0, 9, 4), b"\x1b[<65;10;5M"),
    (MouseEvent(MouseKind.WHEEL_LEFT, 0, 9, 4), b"\x1b[<66;10;5M"),
    (MouseEvent(MouseKind.WHEEL_RIGHT, 0, 9, 4), b"\x1b[<67;10;5M"),
    (MouseEvent(MouseKind.PRESS, 0, 9, 4, shift=True), b"\x1b[<4;10;5M"),
    (MouseEvent(MouseKind.PRESS, 0, 9, 4, alt=True), b"\x1b[<8;10;5M"),
    (MouseEvent(MouseKind.PRESS, 0, 9, 4, ctrl=True), b"\x1b[<16;10;5M"),
    (MouseEvent(MouseKind.WHEEL_DOWN, 0, 9, 4, ctrl=True, shift=True), b"\x1b[<85;10;5M"),
    (MouseEvent(MouseKind.RELEASE, 1, 9, 4, alt=True), b"\x1b[<9;10;5m"),
    # SGR has no coordinate limit.
    (MouseEvent(MouseKind.PRESS, 0, 499, 299), b"\x1b[<0;500;300M"),
]


@pytest.mark.parametrize(("event", "expected"), SGR_CASES)
def test_sgr_encoding(event: MouseEvent, expected: bytes) -> None:
    assert encode_mouse(event, modes(MouseMode.ANY, sgr=True)) == expected


def legacy(code: int, column: int, row: int) -> bytes:
    """CSI M and three bytes, each value + 32; column and row 1-based."""
    return b"\x1b[M" + bytes((code + 32, column + 32, row + 32))


LEGACY_CASES = [
    (MouseEvent(MouseKind.PRESS, 0, 0, 0), legacy(0, 1, 1)),
    (MouseEvent(MouseKind.PRESS, 2, 9, 4), legacy(2, 10, 5)),
    # Releases cannot name their button: code 3, modifiers kept.
    (MouseEvent(MouseKind.RELEASE, 2, 9, 4), legacy(3, 10, 5)),
    (MouseEvent(MouseKind.RELEASE, 1, 9, 4, ctrl=True), legacy(3 + 16, 10, 5)),
    (MouseEvent(MouseKind.DRAG, 1, 9, 4), legacy(33, 10, 5)),
    (MouseEvent(MouseKind.MOVE, 0, 9, 4), legacy(35, 10, 5)),
    (MouseEvent(MouseKind.WHEEL_UP, 0, 9, 4), legacy(64, 10, 5)),
    (MouseEvent(MouseKind.WHEEL_DOWN, 0, 9, 4, alt=True), legacy(65 + 8, 10, 5)),
    (MouseEvent(MouseKind.PRESS, 0, 9, 4, shift=True, alt=True, ctrl=True), legacy(28, 10, 5)),
    (MouseEvent(MouseKind.PRESS, 0, 222, 222), legacy(0, 223, 223)),
]


@pytest.mark.parametrize(("event", "expected"), LEGACY_CASES)
def test_legacy_encoding(event: MouseEvent, expected: bytes) -> None:
    assert encode_mouse(event, modes(MouseMode.ANY)) == expected


@pytest.mark.parametrize(("x", "y"), [(223, 0), (0, 223), (500, 500)])
def test_legacy_encoding_drops_coordinates_past_223(x: int, y: int) -> None:
    event = MouseEvent(MouseKind.PRESS, 0, x, y)
    assert encode_mouse(event, modes(MouseMode.NORMAL)) is None
    assert encode_mouse(event, modes(MouseMode.NORMAL, sgr=True)) is not None


def test_x10_reports_presses_without_modifiers() -> None:
    event = MouseEvent(MouseKind.PRESS, 1, 2, 3, shift=True, alt=True, ctrl=True)
    assert encode_mouse(event, modes(MouseMode.X10)) == legacy(1, 3, 4)
    assert encode_mouse(event, modes(MouseMode.X10, sgr=True)) == b"\x1b[<1;3;4M"


@pytest.mark.parametrize("button", [-1, 3, 7])
def test_buttons_other_than_left_middle_right_are_not_sent(button: int) -> None:
    event = MouseEvent(MouseKind.PRESS, button, 1, 1)
    assert encode_mouse(event, modes(MouseMode.ANY, sgr=True)) is None


def test_wheel_and_move_ignore_the_button_field() -> None:
    sgr = modes(MouseMode.ANY, sgr=True)
    assert encode_mouse(MouseEvent(MouseKind.WHEEL_UP, 5, 0, 0), sgr) == b"\x1b[<64;1;1M"
    assert encode_mouse(MouseEvent(MouseKind.MOVE, 5, 0, 0), sgr) == b"\x1b[<35;1;1M"


@pytest.mark.parametrize(("x", "y"), [(-1, 0), (0, -1)])
def test_positions_outside_the_cell_are_not_sent(x: int, y: int) -> None:
    event = MouseEvent(MouseKind.PRESS, 0, x, y)
    assert encode_mouse(event, modes(MouseMode.ANY, sgr=True)) is None


def test_kind_reads_the_client_message_strings() -> None:
    kinds = ["press", "release", "move", "drag", "wheel_up", "wheel_down"]
    assert [MouseKind(kind).value for kind in kinds] == kinds
