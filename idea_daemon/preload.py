"""Modules the daemon's code imports inside functions, the first time a command needs them:
imported once in a worker thread at start instead, so that first command does not hold the
loop while the module runs (`idea_daemon.late_imports` finds such imports; the MCP SDK is
loaded only by the MCP worker process).

A module stays imported lazily in its caller when importing it at the top would make an
import circle or slow the daemon's start; listing it here keeps the first use off the loop
all the same.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)

MODULES = (
    "adapters.agents.catalogue",  # the built-in profiles, the first time profiles are listed
    "adapters.mcp.config",  # an agent's MCP config, at its first launch
    "core.layout.ops",
    # Codecs are modules too, imported by the first `decode` that names them:
    "encodings.utf_8_sig",  # the stores read JSON and Markdown that may start with a BOM
    "encodings.utf_32_le",  # libghostty-vt's rows, the first time a cell is drawn
)


def import_all(names: tuple[str, ...] = MODULES) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:
            # Its caller will import it again and say what is wrong, where it matters.
            log.warning("could not preload %s", name, exc_info=True)


def in_thread(loop: asyncio.AbstractEventLoop, work: Callable[[], T]) -> asyncio.Future[T]:
    """Run `work` in a daemon thread of its own; the future has its result.

    Not the loop's default executor: `asyncio.run` waits for its threads when the daemon
    stops, and a stop asked while the MCP SDK is still loading (seconds, on a loaded
    machine) would then outlast `idea kill-server`'s wait. An import cut short by the
    process's end loses nothing."""
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            result = work()
        except BaseException as exc:  # handed to the awaiting coroutine
            with _closing(loop):
                loop.call_soon_threadsafe(settle, None, exc)
            return
        with _closing(loop):
            loop.call_soon_threadsafe(settle, result, None)

    threading.Thread(target=run, name="idea-preload", daemon=True).start()
    return future


class _closing:
    """Ignore a loop closed meanwhile (the daemon stopped while the work ran)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> bool:
        return kind is RuntimeError and self.loop.is_closed()


def start(loop: asyncio.AbstractEventLoop) -> asyncio.Future[None]:
    """Import `MODULES` in a thread of their own (the future is done when they are)."""
    return in_thread(loop, import_all)
