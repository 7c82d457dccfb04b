"""Terminal emulation for idea's cells: pyte, through the project's own subclasses (D2).

`PyteEmulator` (emulator.py) implements `core.terminal.TerminalEmulator`. Inside:
- `stream.IdeaStream` parses decoded output (one regex scan per chunk), with `csi` building
  cached actions per control sequence and `osc` handling titles, cwd, clipboard, notifications;
- `screen.IdeaScreen`, a `pyte.Screen` subclass, built in layers: `cursor.CursorScreen`
  (movement, tabs) → `canvas.CanvasScreen` (cells, drawing, scrolling, editing, scrollback)
  → `styling.StyledScreen` (SGR, style table, charsets) → `IdeaScreen` (modes, alternate
  screen, resize, replies, events);
- `grid` (lines, widths, style ids), `rows` (lines to `Row`s and compact scrollback entries),
  `styles` (SGR parsing into `(fg, bg, attrs)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adapters.emulator.emulator import PyteEmulator

__all__ = ["PyteEmulator"]


def __getattr__(name: str) -> Any:
    # Loaded on first use: a daemon on the ghostty backend never imports pyte (≈ 1 MB).
    if name == "PyteEmulator":
        from adapters.emulator.emulator import PyteEmulator

        return PyteEmulator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
