"""Mouse input for programs in cells: the reports xterm sends, in the encoding they asked for.

Owned here: `MouseEvent` (what the client saw, in cell coordinates) and `encode_mouse`, which
the daemon calls with the cell's current `TerminalModes` when a `MouseInput` arrives. Pure.

What a program receives depends on the tracking mode it set (DECSET):

| mode          | press | release | wheel | drag (button held) | move (no button) |
|---------------|-------|---------|-------|--------------------|------------------|
| OFF           |       |         |       |                    |                  |
| X10 (9)       | yes   |         |       |                    |                  |
| NORMAL (1000) | yes   | yes     | yes   |                    |                  |
| BUTTON (1002) | yes   | yes     | yes   | yes                |                  |
| ANY (1003)    | yes   | yes     | yes   | yes                | yes              |

and on the encoding: SGR (`CSI < b;x;y M`, `m` for a release, 1-based coordinates) when mode
1006 is on, else the legacy `CSI M` followed by three bytes, each value plus 32, which cannot
express a coordinate past 223; such events are dropped rather than sent wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from core.terminal import MouseMode, TerminalModes


class MouseKind(StrEnum):
    """What happened; the values are the `kind` strings of the client's `MouseInput`."""

    PRESS = "press"
    RELEASE = "release"
    MOVE = "move"
    DRAG = "drag"
    WHEEL_UP = "wheel_up"
    WHEEL_DOWN = "wheel_down"
    WHEEL_LEFT = "wheel_left"
    WHEEL_RIGHT = "wheel_right"


@dataclass(frozen=True, slots=True)
class MouseEvent:
    """A mouse event inside one cell.

    Attributes:
        kind: What happened.
        button: 0 left, 1 middle, 2 right; the button pressed, released or held for a drag
            (ignored for wheel and move events).
        x: Column inside the cell, 0-based.
        y: Row inside the cell, 0-based.
        shift: Shift held.
        alt: Alt (meta) held.
        ctrl: Ctrl held.
    """

    kind: MouseKind
    button: int
    x: int
    y: int
    shift: bool = False
    alt: bool = False
    ctrl: bool = False


_PRESSES = frozenset({MouseKind.PRESS})
_CLICKS_AND_WHEEL = frozenset(
    {
        MouseKind.PRESS,
        MouseKind.RELEASE,
        MouseKind.WHEEL_UP,
        MouseKind.WHEEL_DOWN,
        MouseKind.WHEEL_LEFT,
        MouseKind.WHEEL_RIGHT,
    }
)
_REPORTED: dict[MouseMode, frozenset[MouseKind]] = {
    MouseMode.OFF: frozenset(),
    MouseMode.X10: _PRESSES,
    MouseMode.NORMAL: _CLICKS_AND_WHEEL,
    MouseMode.BUTTON: _CLICKS_AND_WHEEL | {MouseKind.DRAG},
    MouseMode.ANY: _CLICKS_AND_WHEEL | {MouseKind.DRAG, MouseKind.MOVE},
}
_WHEEL_CODES = {
    MouseKind.WHEEL_UP: 64,
    MouseKind.WHEEL_DOWN: 65,
    MouseKind.WHEEL_LEFT: 66,
    MouseKind.WHEEL_RIGHT: 67,
}
_MOTION = 32
_NO_BUTTON = 3  # the legacy release code, and "no button" in a move report
_LEGACY_OFFSET = 32
_LEGACY_MAX_COORDINATE = 255 - _LEGACY_OFFSET  # 223, 1-based


def _button_code(event: MouseEvent) -> int | None:
    kind = event.kind
    if kind in _WHEEL_CODES:
        return _WHEEL_CODES[kind]
    if kind is MouseKind.MOVE:
        return _MOTION + _NO_BUTTON
    if event.button not in (0, 1, 2):
        return None
    if kind is MouseKind.DRAG:
        return _MOTION + event.button
    return event.button


def encode_mouse(event: MouseEvent, modes: TerminalModes) -> bytes | None:
    """The report to write to the program for `event`, or None if it must not get one.

    None when the program's mode does not report this kind of event, when the position is
    outside the cell (negative), when the button is not 0-2, or when the legacy encoding
    cannot carry the coordinates.
    """
    if event.kind not in _REPORTED[modes.mouse] or event.x < 0 or event.y < 0:
        return None
    code = _button_code(event)
    if code is None:
        return None
    if modes.mouse is not MouseMode.X10:  # X10 reports carry no modifiers
        code |= (4 if event.shift else 0) | (8 if event.alt else 0) | (16 if event.ctrl else 0)
    column, row = event.x + 1, event.y + 1
    if modes.mouse_sgr:
        final = "m" if event.kind is MouseKind.RELEASE else "M"
        return f"\x1b[<{code};{column};{row}{final}".encode()
    if column > _LEGACY_MAX_COORDINATE or row > _LEGACY_MAX_COORDINATE:
        return None
    if event.kind is MouseKind.RELEASE:
        # The legacy encoding cannot say which button went up: all releases are code 3.
        code = (code & ~0b11) | _NO_BUTTON
    return b"\x1b[M" + bytes((code + _LEGACY_OFFSET, column + _LEGACY_OFFSET, row + _LEGACY_OFFSET))
