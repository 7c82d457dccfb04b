"""Turning a Control Sequence (`ESC [ … final`) into a call on `IdeaScreen`.

The stream caches the action built here per distinct sequence text, so parsing and table
lookups happen once per `ESC[12;40H`, not once per occurrence. Actions must therefore depend on
the sequence only; the screen methods they call read the current state when run.

Numeric parameters are clamped to 9999 (as pyte does) and at most 32 are read, so absurd input
such as `CSI 999999999 @` costs no more than a sane one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adapters.emulator.screen import IdeaScreen

Action = tuple[Callable[..., None], tuple[Any, ...]]
MAX_PARAM = 9999
MAX_PARAMS = 32


def _noop(*_: object) -> None:
    return None


NOOP: Action = (_noop, ())

# Sequences taking one count that defaults to 1 (0 also means 1).
_COUNTED = {
    "@": "insert_characters",
    "A": "cursor_up",
    "B": "cursor_down",
    "e": "cursor_down",
    "C": "cursor_forward",
    "a": "cursor_forward",
    "D": "cursor_back",
    "E": "cursor_down1",
    "F": "cursor_up1",
    "I": "tab",
    "Z": "back_tab",
    "L": "insert_lines",
    "M": "delete_lines",
    "P": "delete_characters",
    "X": "erase_characters",
    "S": "scroll_lines_up",
    "b": "repeat_last",
}
# Sequences taking one value whose default is 0.
_VALUED = {
    "G": "cursor_to_column",
    "`": "cursor_to_column",
    "d": "cursor_to_line",
    "J": "erase_in_display",
    "?J": "erase_in_display",
    "K": "erase_in_line",
    "?K": "erase_in_line",
    "g": "clear_tab_stop",
    "t": "window_op",
    " q": "set_cursor_style",
}


def parse_params(params: str) -> list[int] | None:
    """`"1;;30"` -> `[1, 0, 30]`; None when sub-parameters (`:`) make it meaningless here."""
    if not params:
        return []
    if ":" in params:
        return None
    values: list[int] = []
    for part in params.split(";", MAX_PARAMS)[:MAX_PARAMS]:
        if not part:
            values.append(0)
            continue
        digits = part.lstrip("0")
        values.append(
            min(int(digits), MAX_PARAM) if 0 < len(digits) <= 5 else (MAX_PARAM if digits else 0)
        )
    return values


def build_csi(screen: IdeaScreen, marker: str, params: str, inter: str, final: str) -> Action:
    """The call a CSI sequence stands for (NOOP for sequences idea does not act on)."""
    if final == "m" and not marker and not inter:
        return (screen.sgr, (params,))
    values = parse_params(params)
    if values is None:
        return NOOP
    first = values[0] if values else 0
    key = marker + inter + final
    name = _COUNTED.get(key)
    if name is not None:
        return (getattr(screen, name), (first or 1,))
    name = _VALUED.get(key)
    if name is not None:
        return (getattr(screen, name), (first,))
    second = values[1] if len(values) > 1 else 0
    if key in ("H", "f"):
        return (screen.cursor_position, (first, second))
    if key == "T":  # with more parameters xterm reads mouse tracking; tmux scrolls: so do we
        return (screen.scroll_lines_down, (first or 1,))
    if key in ("h", "l", "?h", "?l"):
        method = screen.set_mode if final == "h" else screen.reset_mode
        return (partial(method, private=marker == "?"), tuple(values))
    if key == "r":
        return (screen.set_margins, (first or None, second or None))
    if key in ("n", "?n"):
        return (partial(screen.report_device_status, private=marker == "?"), (first,))
    if key == "c" and first == 0:
        return (screen.report_device_attributes, (0,))
    if key == ">c" and first == 0:
        return (partial(screen.report_device_attributes, secondary=True), (0,))
    if key in ("$p", "?$p"):
        return (screen.report_mode, (first, marker == "?"))
    if key == "s" and not params:
        return (screen.save_cursor, ())
    if key == "u" and not params:
        return (screen.restore_cursor, ())
    if key == "!p":
        return (screen.soft_reset, ())
    return NOOP
