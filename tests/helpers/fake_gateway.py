"""`FakeGateway`: a `GatewayPort` for Pilot tests that records what the client sends.

The app under test believes it talks to a daemon; the test reads what it asked for
(`calls`, `keys`, `pastes`, ...) and feeds it daemon messages with `app.handle_message`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from idea_tui.control import CommandFailed

Result = Any | Callable[[dict[str, Any]], Any]


@dataclass(frozen=True, slots=True)
class Mouse:
    cell: str
    kind: str
    button: int
    x: int
    y: int


@dataclass
class FakeGateway:
    """Records every call; `results[method]` is returned (or called with the params, its
    answer awaited when it is a coroutine, or raised when it is a `CommandFailed`)."""

    results: dict[str, Result] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    keys: list[tuple[str, str, str | None]] = field(default_factory=list)
    raw_input: list[tuple[str, bytes]] = field(default_factory=list)
    pastes: list[tuple[str, str]] = field(default_factory=list)
    mice: list[Mouse] = field(default_factory=list)
    sizes: list[tuple[int, int]] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    closed: bool = False

    async def call(self, method: str, **params: Any) -> Any:
        self.calls.append((method, params))
        result = self.results.get(method)
        if isinstance(result, CommandFailed):
            raise result
        if callable(result):
            value = result(params)
            # A result may be a coroutine: the test decides when the daemon answers.
            return await value if inspect.isawaitable(value) else value
        return result

    def key(self, cell: str, key: str, character: str | None) -> None:
        self.keys.append((cell, key, character))

    def raw(self, cell: str, data: bytes) -> None:
        self.raw_input.append((cell, data))

    def paste(self, cell: str, text: str) -> None:
        self.pastes.append((cell, text))

    def mouse(self, cell: str, kind: str, button: int, x: int, y: int, *,
              shift: bool = False, alt: bool = False, ctrl: bool = False) -> None:
        self.mice.append(Mouse(cell, kind, button, x, y))

    def resize(self, width: int, height: int) -> None:
        self.sizes.append((width, height))

    def frames_shown(self, count: int) -> None:
        self.shown.append(count)

    async def close(self) -> None:
        self.closed = True

    def methods(self) -> list[str]:
        """The names of the commands called, in order."""
        return [method for method, _ in self.calls]
