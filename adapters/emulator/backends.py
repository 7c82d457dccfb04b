"""Which emulator backend a daemon uses (D26): `emulator = "auto" | "ghostty" | "pyte"`.

`auto` takes libghostty-vt where `pyghostty` is installed and its library loads (Linux
x86_64/aarch64 today), else the pure-Python pyte backend. Asking for `ghostty` where it does
not load also falls back to pyte: a terminal that works beats one that refuses to start; the
reason is returned so the composition root logs it and `idea ls` shows it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from adapters.emulator.ghostty_lib import GhosttyUnavailable, load
from core.terminal import TerminalEmulator

BackendName = Literal["auto", "ghostty", "pyte"]
EmulatorFactory = Callable[[int, int], TerminalEmulator]


@dataclass(frozen=True)
class Backend:
    name: Literal["ghostty", "pyte"]
    label: str
    """What `idea ls` and `idea --version` print, e.g. "ghostty (pyghostty 0.1.3)"."""
    factory: Callable[[int, int, int], TerminalEmulator]
    """`(cols, rows, scrollback_lines)` → a new emulator."""
    fallback_reason: str | None = None
    """Why libghostty-vt was not used although it was asked for or looked for."""


def _pyte(cols: int, rows: int, scrollback: int) -> TerminalEmulator:
    from adapters.emulator.emulator import PyteEmulator  # not loaded on the ghostty backend

    return PyteEmulator(cols, rows, scrollback)


def _ghostty(cols: int, rows: int, scrollback: int) -> TerminalEmulator:
    from adapters.emulator.ghostty import GhosttyEmulator

    return GhosttyEmulator(cols, rows, scrollback)


def choose(wanted: BackendName) -> Backend:
    """The backend for the setting `wanted`, falling back to pyte with a reason."""
    if wanted == "pyte":
        return Backend("pyte", "pyte (pure Python)", _pyte)
    try:
        binding = load()
        from adapters.emulator.ghostty import GhosttyEmulator

        GhosttyEmulator(2, 2, 0).close()  # a library that loads but cannot build a terminal
    except (GhosttyUnavailable, RuntimeError, OSError) as error:
        reason = f"libghostty-vt unavailable, using pyte: {error}"
        return Backend("pyte", "pyte (pure Python)", _pyte, reason)
    return Backend("ghostty", f"ghostty (libghostty-vt, pyghostty {binding.version})", _ghostty)
