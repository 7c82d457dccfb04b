"""Terminal emulation for idea's cells: pyte, through the project's own subclasses (D2).

`PyteEmulator` implements `core.terminal.TerminalEmulator`. Module map: `emulator` (the port),
`stream` (parser) with `csi` and `osc`, `screen` (modes, alt screen, resize, replies) on top of
`canvas` (cell grid, drawing, editing), `grid` (lines, rows, scrollback entries), `styles` (SGR).
"""

from adapters.emulator.emulator import PyteEmulator

__all__ = ["PyteEmulator"]
